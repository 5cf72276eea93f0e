#!/usr/bin/env bash
# Experiment (issues 22/23, the batch's rate): what a lab process's start costs inside its turn,
# with the seed there at once (the old way: the turn taken before the start) against a seed
# that comes 1.5 s after the start (CML_SEED_WAIT: the harness starts CUDA meanwhile), timed
# from the seed. The reference binaries of labs 01, 03 and 05 from build/cache (run
# `build/cml-grade calibrate` first), their small untimed cases, a CUDA context held beside as
# a grading holds one (cml-probe --hold). One line per run.
set -u
cd "$(dirname "$0")/../.."
sleep 10000 | build/cml-probe --hold > /dev/null 2>&1 &
sleep 1
for lab in 01_coalescing 03_bank_conflicts 05_soa_aos; do
    bin=$(ls -d build/cache/*"$lab"*/lab 2>/dev/null | head -1)
    [ -x "$bin" ] || { echo "$lab: no cached reference binary (calibrate first)"; continue; }
    cs=$(awk '/^task/{t=$2} /^case/ && !/ time/ {print "--case " t "," $2}' \
         "grader/specs/$lab.spec" | head -6 | tr '\n' ' ')
    for r in 1 2 3; do
        a=$EPOCHREALTIME
        CML_SEED_FD=3 "$bin" --no-output $cs > /dev/null 2>&1 3< <(echo 11)
        b=$EPOCHREALTIME
        CML_SEED_FD=3 CML_SEED_WAIT=1 "$bin" --no-output $cs > /dev/null 2>&1 \
            3< <(sleep 1.5; echo 11)
        e=$EPOCHREALTIME
        awk -v l="$lab" -v a="$a" -v b="$b" -v e="$e" 'BEGIN{printf "%s: seed at once %.3f s; " \
            "after a 1.5 s turn %.3f s from the turn\n", l, b - a, e - b - 1.5}'
    done
done
pkill -f "cml-probe --hold"; pkill -f "sleep 10000"
