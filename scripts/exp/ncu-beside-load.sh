#!/usr/bin/env bash
# Whether Nsight Compute's counters of one process stay the same while other processes use the
# GPU (what running the technique phase beside the sanitizers would need): the counters the
# technique checks read (labs 03, 04, 06 and three attacks with counts that are not 0), under
# the grader's ncu options, in three modes, three rounds each:
#   alone     nothing else on the GPU;
#   tools     beside compute-sanitizer runs of the solutions in a loop (memcheck of lab 06's
#             zero-copy 6.1 at 256 MiB, racecheck of 3.3a's 528 tiles, initcheck of 4.1);
#   hammer    (HAMMER=1) beside a plain process streaming mapped host memory with bank
#             conflicts.
# Prints each mode's wall per round, then every counter's distinct values per mode.
# Usage (GPU machine, repository root, after make all): scripts/exp/ncu-beside-load.sh WORK
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(realpath -m "$1")
rm -rf "$work" && mkdir -p "$work"
. scripts/exp/ncu-common.sh
build_all & nvcc -O3 -arch=sm_90 -o "$work/hammer" scripts/exp/sysmem_hammer.cu &
wait
m06+=,dram__bytes_read.sum # beside the counts the checks read
export TMPDIR=$work/ncu-tmp; mkdir -p "$TMPDIR"
round() { # mode round
    local s=$EPOCHREALTIME
    r03 "$work/$1-$2-03" & r04 "$work/$1-$2-04" & r06 "$work/$1-$2-06" & wait
    D06=06-staging r06 "$work/$1-$2-06staging" & D03=03-decoy r03 "$work/$1-$2-03decoy" &
    D04=04-never r04 "$work/$1-$2-04never" & wait
    awk -v s="$s" -v e="$EPOCHREALTIME" -v m=$1 -v r=$2 \
        'BEGIN{printf "%s round %d: %.2f s\n", m, r, e-s}'
}
loop() { # folder tool case...: one sanitizer run after another until killed
    local d=$1 tool=$2; shift 2
    local args=(); for c in "$@"; do args+=(--case "$c"); done
    (cd "$work/$d" && while :; do
        TMPDIR=/tmp compute-sanitizer --tool $tool ./lab --no-output "${args[@]}" > /dev/null 2>&1
     done) > /dev/null 2>&1 &
    echo $!
}
rounds=${ROUNDS:-3}
for r in $(seq $rounds); do round alone $r; done
p1=$(loop 06_zero_copy memcheck 6.1,n=67108864,passes=1 6.1,n=4099,passes=3)
p2=$(loop 03_bank_conflicts racecheck 3.3a,n=540672)
p3=$(loop 04_float4 initcheck 4.1,n=1000003)
p4=$(loop 06_zero_copy initcheck 6.1,n=67108864,passes=1)
sleep 4
for r in $(seq $rounds); do round tools $r; done
kill $p1 $p2 $p3 $p4 2>/dev/null; pkill -f compute-sanitizer; sleep 1; pkill -f 'lab --no-output'
wait 2>/dev/null
if [ "${HAMMER:-0}" = 1 ]; then # on an H100 (2026-11-28) the first ncu round never ended
    "$work/hammer" & h=$!
    sleep 2
    for r in $(seq $rounds); do timeout 60 bash -c "$(declare -f one r03 r04 r06 round); \
        $(declare -p work k03 k04 k06 m03 m04 m06 ncu_opts); round hammer $r"; done
    kill $h; wait 2>/dev/null
fi
grep -l "ERROR" "$work"/*.log | head
for f in "$work"/*.log; do
    awk -F'","' -v f="$(basename "$f" .log)" '$0 ~ /^"[0-9]/ {
        gsub(/"/, "", $NF); k = $5; sub(/\(.*/, "", k); split(f, p, "-")
        printf "%-8s %-10s %-18s %-62s %s\n", p[1], p[3], substr(k, 1, 18), $(NF-2), $NF }' "$f"
done > "$work/counters.txt"
# per mode, each (binary, kernel, metric): its distinct values
awk '{ key = $2 " " $3 " " $4; m = $1; if (!((key, m, $5) in seen)) { seen[key, m, $5]
       v[key, m] = v[key, m] " " $5; keys[key] } }
     END { for (k in keys) printf "%s |alone:%s |tools:%s |hammer:%s\n", k, v[k, "alone"],
           v[k, "tools"], v[k, "hammer"] }' "$work/counters.txt" | sort
