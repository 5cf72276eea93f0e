#!/usr/bin/env bash
# Where a host-involved lab's timed case spends its time: each timed case of labs 06 and 07 run alone
# by the solution's binary (make labs LAB=06, LAB=07 first), with its wall time, reps and spread.
cd "$(dirname "$0")/../.."
run() { local lab=$1; shift; local t0=$EPOCHREALTIME
    "$@" > /tmp/o.txt 2>&1; local rc=$?
    printf '%-60s rc=%d wall=%.2f  %s\n' "${*:2}" $rc "$(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{print b-a}')" \
        "$(grep -E 'reps|device-to-device|no timed' /tmp/o.txt | tr '\n' ' ' | cut -c1-200)"; }
for lab in 06_zero_copy 07_unified_memory; do
  b=build/solutions/$lab/lab
  run $lab $b --no-output --case ${lab:1:1}.1,$( [ $lab = 06_zero_copy ] && echo n=1001,passes=1 || echo rows=33,cols=65)
done
b=build/solutions/06_zero_copy/lab
for c in 6.1,n=67108864,passes=1,time 6.2,n=67108864,passes=1,time 6.3a,n=67108864,passes=1,time 6.3b,n=67108864,passes=10,time; do run 06 $b --no-output --case $c; done
b=build/solutions/07_unified_memory/lab
for c in 7.2,rows=8192,cols=8192,time 7.3,rows=8192,cols=8192,time; do run 07 $b --no-output --case $c; done
