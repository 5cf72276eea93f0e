#!/usr/bin/env bash
# A session's first GPU check, after `make all`: the solutions graded cold,
# the calibration, the solutions graded against it (what a batch's grading does), each with its
# progress lines stamped with seconds since the command began; then a submission whose lab 01
# includes /dev/zero (plainly and through a macro), under /usr/bin/time for its peak memory.
# Usage: scripts/exp/grade-figures.sh WORK   Logs: WORK/*.log; a table on stdout.
set -uo pipefail
cd "$(dirname "$0")/../.."
w=$1
rm -rf "$w" && mkdir -p "$w"

# Run "$@" with stderr stamped into $log; print its wall seconds.
stamped() {
    local log=$1; shift
    local t0=${EPOCHREALTIME/./}
    "$@" 2> >(while IFS= read -r l; do
                  n=$(( ${EPOCHREALTIME/./} - t0 ))
                  printf '%4d.%02d %s\n' $((n / 1000000)) $((n % 1000000 / 10000)) "$l"
              done > "$log") > "$log.out"
    local rc=$? n=$(( ${EPOCHREALTIME/./} - t0 ))
    sleep 0.2
    printf '%d.%01d s (exit %d)' $((n / 1000000)) $((n % 1000000 / 100000)) $rc
}

rm -rf build/cache
echo "solutions cold: $(stamped "$w/sol.log" build/cml-grade grade --submission solutions \
    --out "$w/sol" --no-color); $(grep -o 'Score: [0-9./]*' "$w/sol.log.out")"
echo "calibrate: $(stamped "$w/cal.log" build/cml-grade calibrate --out "$w/gpu.cal")"
echo "solutions calibrated: $(stamped "$w/solcal.log" build/cml-grade grade --submission \
    solutions --calibration "$w/gpu.cal" --out "$w/solcal" --no-color); \
$(grep -o 'Score: [0-9./]*' "$w/solcal.log.out")"

for how in plain macro; do
    s="$w/zero-$how" && mkdir -p "$s" && cp -r solutions/01_coalescing "$s/"
    f="$s/01_coalescing/coalescing.cu"
    if [ "$how" = plain ]; then
        printf '#include "/dev/zero"\n' | cat - "$f" > "$f.new"
    else
        printf '#define ZERO "/dev/zero"\n#include ZERO\n' | cat - "$f" > "$f.new"
    fi
    mv "$f.new" "$f"
    t0=${EPOCHREALTIME/./}
    /usr/bin/time -v build/cml-grade grade --submission "$s" --lab 01 --out "$w/zout-$how" \
        --no-color > "$w/zero-$how.log" 2>&1
    n=$(( ${EPOCHREALTIME/./} - t0 ))
    printf '/dev/zero (%s): %d.%01d s, peak RSS of one process %s KiB; %s\n' "$how" \
        $((n / 1000000)) $((n % 1000000 / 100000)) \
        "$(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$w/zero-$how.log" | \
           grep -o '[0-9]*$')" "$(grep -m1 -o 'coalescing.cu:[0-9]*: [^(]*(rule: [a-z]*)' \
           "$w/zero-$how.log" "$w/zout-$how/summary.tsv" 2>/dev/null | head -1)"
done
