#!/usr/bin/env bash
# Experiment (issues 22/23, the batch's rate): what could still leave a grading's GPU turns.
# (1) A lab's end: the reference binaries of labs 01, 03, 06 and 07 with every graded case of
#     their spec, records on stdout (CML_RESULT_FD=1), each line stamped: the seconds from the
#     `done` record to the process's exit (the context's teardown, pinned memory freed).
# (2) An ncu run's start: lab 03's reference under ncu with the grader's options and lab 03's
#     metrics on its ncu case, the seed there at once against a seed 3 s after the start
#     (CML_SEED_WAIT: the lab starts CUDA under ncu meanwhile), timed from the seed.
# Needs `build/cml-grade calibrate` first (the reference binaries in build/cache).
set -u
cd "$(dirname "$0")/../.."
sleep 10000 | build/cml-probe --hold > /dev/null 2>&1 &
sleep 1
stamp() { while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done; }
for lab in 01_coalescing 03_bank_conflicts 06_zero_copy 07_unified_memory; do
    bin=$(ls -d build/cache/*"$lab"*/lab 2>/dev/null | head -1)
    [ -x "$bin" ] || { echo "$lab: no cached reference binary"; continue; }
    args=()
    while read -r kw a b _; do
        [ "$kw" = task ] && id=$a
        [ "$kw" = case ] || continue
        t=$id${a:+,$a}; [ "${b:-}" = time ] && t=$t,time
        args+=(--case "$t")
    done < "grader/specs/$lab.spec"
    for r in 1 2; do
        a=$EPOCHREALTIME
        CML_RESULT_FD=1 CML_SEED_FD=3 "$bin" --no-output "${args[@]}" 2>/dev/null 3< <(echo 5) \
            | stamp > /tmp/turn-ends.log
        e=$EPOCHREALTIME
        d=$(awk '$2 == "done" {print $1}' /tmp/turn-ends.log | tail -1)
        awk -v l="$lab" -v a="$a" -v d="${d:-0}" -v e="$e" 'BEGIN{printf "%s: run %.3f s, " \
            "done to exit %.3f s\n", l, e - a, (d > 0 ? e - d : -1)}'
    done
done
bin=$(ls -d build/cache/*03_bank_conflicts*/lab 2>/dev/null | head -1)
m=$(awk '/^ncu /{print $3}' grader/specs/03_bank_conflicts.spec | tr '+' '\n' | sort -u | paste -sd,)
k='regex:^(scaleRowMajor|gramPadded|gramSwizzled)'
ncu_lab() {
    ncu --clock-control none --target-processes all --profile-from-start off --kernel-name "$k" \
        --metrics "$m" --csv --print-units base "$bin" --no-output --case 3.2,n=1048576 \
        --case 3.3a,n=1048576 --case 3.3b,n=1048576 > /tmp/ncu.out 2>&1
}
for r in 1 2 3; do
    a=$EPOCHREALTIME; CML_SEED_FD=3 ncu_lab 3< <(echo 5); b=$EPOCHREALTIME
    CML_SEED_FD=3 CML_SEED_WAIT=1 ncu_lab 3< <(sleep 3; echo 5); e=$EPOCHREALTIME
    rows=$(grep -c '"' /tmp/ncu.out)
    awk -v a="$a" -v b="$b" -v e="$e" -v rows="$rows" 'BEGIN{printf "ncu lab 03: seed at " \
        "once %.3f s; after a 3 s wait %.3f s from the seed (%d csv rows)\n", b - a, e - b - 3, rows}'
done
tail -3 /tmp/ncu.out
pkill -f "cml-probe --hold"; pkill -f "sleep 10000"
