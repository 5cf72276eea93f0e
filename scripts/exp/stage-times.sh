#!/usr/bin/env bash
# Where a grading's time goes: one `cml-grade grade`, each line of its output prefixed by the
# seconds since it started (the progress lines name each build, task run, technique check and
# the sanitizer phase). Usage (on the GPU machine, after make all):
#   scripts/exp/stage-times.sh OUT [grade options...]    e.g. --submission solutions
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$1; shift
rm -rf "$out"
s=$EPOCHREALTIME
build/cml-grade grade --out "$out" --no-color "$@" 2>&1 | while IFS= read -r line; do
    awk -v s="$s" -v e="$EPOCHREALTIME" -v l="$line" 'BEGIN { printf "%7.2f %s\n", e - s, l }'
done
