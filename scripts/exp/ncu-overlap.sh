#!/usr/bin/env bash
# Whether a grading's three Nsight Compute runs (labs 03, 04 and 06: the counters its technique
# checks read) can overlap, and what each costs: the solutions' lab binaries under the grader's
# ncu options, the same cases and metrics as the specs, run
#   serial      one after another (what a grading does today), three rounds;
#   concurrent  the three at once, three rounds;
#   one-ncu     one ncu over a shell that runs the three binaries (--target-processes all).
# Prints each mode's wall time per round, then every counter each mode read, so that a counter
# that differs under overlap shows. Usage (GPU machine, repository root, after make all):
#   scripts/exp/ncu-overlap.sh WORK
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(realpath -m "$1")
rm -rf "$work" && mkdir -p "$work"
. scripts/exp/ncu-common.sh
build_all & build_one 06-token 06_zero_copy $A/06_zero_copy/token_copy_zero_copy &
wait
t() { local s=$EPOCHREALTIME; "$@"; awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN{printf "%.2f", e-s}'; }
s=$EPOCHREALTIME; ncu --version > /dev/null
awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN{printf "ncu --version: %.2f s\n", e-s}'
for r in 1 2 3; do
    a=$(t r03 "$work/serial-$r-03"); b=$(t r04 "$work/serial-$r-04"); c=$(t r06 "$work/serial-$r-06")
    echo "serial round $r: 03 $a s, 04 $b s, 06 $c s"
done
for r in 1 2 3; do
    s=$EPOCHREALTIME
    r03 "$work/conc-$r-03" & r04 "$work/conc-$r-04" & r06 "$work/conc-$r-06" & wait
    awk -v s="$s" -v e="$EPOCHREALTIME" -v r=$r 'BEGIN{printf "concurrent round %d: %.2f s\n", r, e-s}'
done
# the attacks (counts that are not zero), alone and then beside the other labs' solutions
for v in 06-token 06-staging; do
    D06=$v r06 "$work/serial-$v"
    D06=$v r06 "$work/conc-$v" & r03 "$work/x1-$v" & r04 "$work/x2-$v" & wait
done
D03=03-decoy r03 "$work/serial-03-decoy"
D03=03-decoy r03 "$work/conc-03-decoy" & r04 "$work/x3" & r06 "$work/x4" & wait
D04=04-never r04 "$work/serial-04-never"
D04=04-never r04 "$work/conc-04-never" & r03 "$work/x5" & r06 "$work/x6" & wait
for r in 1; do
    s=$EPOCHREALTIME
    (cd "$work" && ncu "${ncu_opts[@]}" \
        --kernel-name 'regex:.*' \
        --metrics "$m03,$m04,$m06" --log-file "$work/one-$r.log" sh -c '
        (cd 03_bank_conflicts && ./lab --no-output --case 3.2,n=1048576 --case 3.3a,n=1048576 \
            --case 3.3b,n=1048576)
        (cd 04_float4 && ./lab --no-output --case 4.1,n=1048576 --case 4.2b,n=1048576)
        (cd 06_zero_copy && ./lab --no-output --case 6.1,n=1048576,passes=1 \
            --case 6.2,n=1048576,passes=1)' > "$work/one-$r.stdout" 2> "$work/one-$r.err")
    awk -v s="$s" -v e="$EPOCHREALTIME" -v r=$r 'BEGIN{printf "one-ncu round %d: %.2f s\n", r, e-s}'
done
echo "TMPDIR=${TMPDIR:-unset}"; find /tmp "${TMPDIR:-/tmp}" -maxdepth 2 -name "*nsight*" 2>/dev/null | head
# every counter: file, kernel, metric, value (the CSV's ID, kernel name, metric name, value)
for f in "$work"/*.log; do
    awk -F'","' -v f="$(basename "$f" .log)" '$0 ~ /^"[0-9]/ {
        gsub(/"/, "", $NF); k = $5; sub(/\(.*/, "", k)
        printf "%-16s %-18s %-60s %s\n", f, substr(k, 1, 18), $(NF-2), $NF }' "$f"
done > "$work/counters.txt"
# the distinct values of each kernel's metric across all runs: one line each means no change
awk '{ key = $2 " " $3; if (!((key, $4) in seen)) { seen[key, $4]; v[key] = v[key] " " $4 } }
     END { for (k in v) print k ":" v[k] }' "$work/counters.txt" | sort
