#!/usr/bin/env bash
# Experiment (issue 10, daemons under a tool): which processes compute-sanitizer and ncu start
# around a lab, with their parents and sessions: ps sampled every 10 ms during one run of each
# over lab 01's untimed cases. Needs make labs. Prints each process seen once.
set -u
cd "$(dirname "$0")/../.."
lab=build/solutions/01_coalescing/lab
cases=$(awk '/^task/{t=$2} /^case/ && !/ time/ {printf "--case %s,%s ", t, $2}' grader/specs/01_coalescing.spec)
watch() { # watch LABEL CMD...: the processes of CMD's tree, sampled
    "${@:2}" > /dev/null 2>&1 & local top=$!
    : > /tmp/tree.$1
    while kill -0 $top 2>/dev/null; do
        ps -eo pid=,ppid=,pgid=,sid=,comm= >> /tmp/tree.$1; sleep 0.01
    done
    wait $top; echo "== $1 (rc $?, top $top, our sid $(ps -o sid= $$))"
    sort -u /tmp/tree.$1 | awk -v top=$top 'BEGIN{k[top]=1} {n++; pid[n]=$1; pp[n]=$2; l[n]=$0}
        END {for (i = 0; i < 8; i++) for (j = 1; j <= n; j++) if (pp[j] in k) k[pid[j]]=1;
             for (j = 1; j <= n; j++) if (pid[j] in k) print l[j]}' | sort -n
}
watch racecheck compute-sanitizer --tool racecheck --target-processes all --error-exitcode 99 $lab --seed 1 --no-output $cases
watch memcheck compute-sanitizer --tool memcheck --error-exitcode 99 $lab --seed 1 --no-output $cases
watch ncu ncu --clock-control none --target-processes all --kernel-name regex:copy --metrics dram__bytes_read.sum $lab --seed 1 --no-output --case 1.1,n=1048576
