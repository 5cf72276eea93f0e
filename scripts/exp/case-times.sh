#!/usr/bin/env bash
# Where a lab's graded run spends its time, case by case: each fixed case of each spec (and its
# `time` mark) run alone by the solution's binary (--no-output), wall time per process; the
# first line per lab is an empty-ish case's process start. Usage (GPU machine, after make all):
#   scripts/exp/case-times.sh [NN ...]        e.g. 06 07; default every lab
set -uo pipefail
cd "$(dirname "$0")/../.."
labs=("$@"); [ ${#labs[@]} -gt 0 ] || labs=(01 02 03 04 05 06 07)
for l in "${labs[@]}"; do
    spec=$(ls grader/specs/${l}_*.spec); lab=$(basename "$spec" .spec)
    bin=build/solutions/$lab/lab
    awk '$1 == "task" {t = $2} $1 == "case" {c = $2; if ($3 == "time") c = c ",time"; print t "," c}' "$spec" |
    while read -r c; do
        s=$EPOCHREALTIME
        "$bin" --no-output --case "$c" > /dev/null 2>&1; rc=$?
        printf '%-10s %7.2f s  rc %d  %s\n' "$lab" "$(awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$rc" "$c"
    done
done
