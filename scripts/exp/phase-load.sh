#!/usr/bin/env bash
# What bounds each phase of a grading: one `cml-grade grade` with its progress lines stamped
# (as stage-times.sh), beside a sampler that writes, every 0.25 s, the seconds since the start,
# the machine's CPU busy share (all cores, /proc/stat) and the GPU's utilisation (nvidia-smi).
# A phase at 100% CPU is bound by the host, one near 100% GPU by the GPU, one at neither by
# waiting. Usage (GPU machine, after make all): scripts/exp/phase-load.sh OUT [grade options...]
# Writes OUT.log (stamped progress) and OUT.load (time, cpu %, gpu %).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$1; shift
rm -rf "$out"
s=$EPOCHREALTIME
nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 250 \
    > "$out.gpu" 2>/dev/null &
smi=$!
(
    read -r _ a b c d e f g h _rest < /proc/stat
    prev_busy=$((a + b + c + f + g + h)) prev_all=$((a + b + c + d + e + f + g + h))
    while sleep 0.25; do
        read -r _ a b c d e f g h _rest < /proc/stat
        busy=$((a + b + c + f + g + h)) all=$((a + b + c + d + e + f + g + h))
        awk -v s="$s" -v t="$EPOCHREALTIME" -v b=$((busy - prev_busy)) \
            -v n=$((all - prev_all)) 'BEGIN { printf "%7.2f %5.1f\n", t - s, n ? 100 * b / n : 0 }'
        prev_busy=$busy prev_all=$all
    done
) > "$out.cpu" &
cpu=$!
build/cml-grade grade --out "$out" --no-color "$@" 2>&1 | while IFS= read -r line; do
    awk -v s="$s" -v e="$EPOCHREALTIME" -v l="$line" 'BEGIN { printf "%7.2f %s\n", e - s, l }'
done > "$out.log"
kill $cpu $smi 2>/dev/null
wait 2>/dev/null
# the GPU samples are one per 0.25 s from about the start: pair them with the CPU lines
paste -d' ' "$out.cpu" <(head -n "$(wc -l < "$out.cpu")" "$out.gpu") > "$out.load"
