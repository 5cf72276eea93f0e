#!/usr/bin/env bash
# Grade the reference solutions N times in a row (warm build cache after the first) and print,
# per grading, the score and wall time, then per task the spread of its ratio to the reference
# (min, median, max over the gradings). Issue 9 asks for 20 gradings at 280/280 every time.
#   scripts/grade-repeat.sh [N]        logs under ${OUT:-build/repeat}
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
out=${OUT:-build/repeat}
mkdir -p "$out"
: > "$out/ratios.tsv"
for i in $(seq 1 "$n"); do
    t0=$EPOCHREALTIME
    build/cml-grade grade --submission solutions --out "$out/g$i" --no-color > "$out/g$i.log" 2>&1
    rc=$?
    printf 'grading %2d: %s, %.1f s (rc %d)\n' "$i" "$(tail -n 1 "$out/g$i.log")" \
        "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$rc"
    # "1.02x the reference time" in each timed task's detail
    awk -F'\t' '{ if (match($6, /[0-9.]+x the reference time/)) print $2 "\t" substr($6, RSTART, RLENGTH - 20) }' \
        "$out/g$i/summary.tsv" >> "$out/ratios.tsv"
    rm -rf "$out/g$i"
done
echo "task  min  median  max  (ratio to the reference over $n gradings)"
sort -k1,1 -k2,2n "$out/ratios.tsv" | awk -F'\t' '
    { v[$1] = v[$1] " " $2; c[$1]++ }
    END { for (t in v) { split(substr(v[t], 2), a, " "); m = c[t];
          printf "%-5s %.2f %.2f %.2f\n", t, a[1], a[int((m + 1) / 2)], a[m] } }' | sort
