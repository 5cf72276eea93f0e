#!/usr/bin/env bash
# What lab 03's sanitizer runs cost, case by case (issue 23, item 2, against the batch's time
# budget): the solution's lab binary (make all) under each compute-sanitizer tool, one case per
# process and all of a task's big cases in one, alone on the GPU, at the spec's sizes and at a
# quarter of them (still more blocks than an H100 holds at once). One line per run: tool, cases,
# seconds. Usage (GPU machine, repository root, after make all): scripts/exp/racecheck-cost.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
lab=build/solutions/03_bank_conflicts/lab
cs=$(command -v compute-sanitizer) || cs=/usr/local/cuda/bin/compute-sanitizer # as the grader
run() { # tool case...
    local tool=$1 s args=(); shift
    for c in "$@"; do args+=(--case "$c"); done
    s=$EPOCHREALTIME
    "$cs" --tool "$tool" --error-exitcode 99 "$lab" --no-output --no-guard \
        "${args[@]}" > /dev/null 2>&1
    local rc=$?
    awk -v s="$s" -v e="$EPOCHREALTIME" -v t="$tool" -v c="$*" -v rc=$rc \
        'BEGIN { printf "%-10s %6.2f s  rc=%s  %s\n", t, e - s, rc, c }'
}
run racecheck 3.2,n=4097
for n in 2162689 540673; do run racecheck "3.2,n=$n"; done
for t in 3.3a 3.3b; do for n in 2162688 540672; do run racecheck "$t,n=$n"; done; done
run racecheck 3.2,n=4097 3.2,n=2162689 3.3a,n=3072 3.3a,n=2162688 3.3b,n=3072 3.3b,n=2162688
run racecheck 3.2,n=4097 3.2,n=540673 3.3a,n=3072 3.3a,n=540672 3.3b,n=3072 3.3b,n=540672
for tool in memcheck initcheck synccheck; do
    run "$tool" 3.2,n=4097 3.2,n=2162689 3.3a,n=3072 3.3a,n=2162688 3.3b,n=3072 3.3b,n=2162688
    run "$tool" 3.2,n=4097 3.2,n=540673 3.3a,n=3072 3.3a,n=540672 3.3b,n=3072 3.3b,n=540672
done
