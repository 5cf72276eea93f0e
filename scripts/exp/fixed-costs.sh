#!/usr/bin/env bash
# Experiment (issue 10, the rate per submission): what one lab process costs before its cases,
# with and without another process holding a CUDA context (persistence), and what a sanitizer
# run costs with its checks limited to some kernels. Needs `make labs`. Table on stdout.
set -u
cd "$(dirname "$0")/../.."
t() { # t LABEL CMD...: wall seconds of CMD
    local s=$EPOCHREALTIME
    "${@:2}" > /dev/null 2>&1
    local rc=$?
    awk -v l="$1" -v a="$s" -v b="$EPOCHREALTIME" -v rc=$rc 'BEGIN{printf "%-44s rc %-3d %6.3f s\n", l, rc, b-a}'
}
nvidia-smi --query-gpu=name,persistence_mode,clocks.sm --format=csv,noheader
cat > /tmp/ctx.cu <<'CU'
#include <cuda_runtime.h>
#include <unistd.h>
#include <stdlib.h>
int main(int c, char **v) { cudaFree(0); if (c > 1) sleep(atoi(v[1])); return 0; }
CU
nvcc -o /tmp/ctx /tmp/ctx.cu
one() { # one SUFFIX: per-lab fixed costs
    t "cudaFree(0) alone$1" /tmp/ctx
    for d in build/solutions/0*/; do
        lab=$(basename "$d")
        first=$(awk '/^task/{t=$2} /^case/ && !/ time/ {print t "," $2; exit}' grader/specs/$lab.spec)
        t "$lab --list$1" "$d/lab" --list
        t "$lab $first$1" "$d/lab" --seed 1 --no-output --case "$first"
    done
}
one ""
/tmp/ctx 120 & holder=$!
sleep 2
one " (context held)"
kill $holder
cs=compute-sanitizer
$cs --help 2>&1 | grep -i -A3 "kernel-name\|filter" | head -30
l=build/solutions/06_zero_copy/lab
args="--seed 7 --no-output --case 6.1,n=1001,passes=1 --case 6.2,n=1001,passes=1"
for tool in memcheck racecheck initcheck synccheck; do
    t "06 $tool" $cs --tool $tool --error-exitcode 99 $l $args
done
t "06 racecheck kns=saxpy" $cs --tool racecheck --error-exitcode 99 --kernel-name kns=saxpy $l $args
t "06 racecheck exclude kns=cml" $cs --tool racecheck --error-exitcode 99 --kernel-name-exclude kns=cml $l $args
t "06 racecheck --filter kns=saxpy" $cs --tool racecheck --error-exitcode 99 --filter kns=saxpy $l $args
t "06 racecheck lazy off" env CUDA_MODULE_LOADING=EAGER $cs --tool racecheck --error-exitcode 99 $l $args
t "06 racecheck, no case" $cs --tool racecheck --error-exitcode 99 $l --seed 7 --no-output --case 6.1,n=1,passes=1
t "ctx under racecheck" $cs --tool racecheck /tmp/ctx
