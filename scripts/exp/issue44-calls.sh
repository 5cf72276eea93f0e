#!/usr/bin/env bash
# Issue 44, calls and modern technique (branch calls): run on an H200 from the repository root
# as `. .deps/use.sh && scripts/exp/issue44-calls.sh`, $OUT writable (~120 s; make all first).
# 1. ncu's metric names on this GPU for asynchronous copies into shared memory (LDGSTS: cp.async;
#    UTMALDG / UBLKCP: TMA) and shared stores, so that 3.2's count
#    (smsp__sass_inst_executed_op_shared_st.sum+sm__sass_inst_executed_op_ldgsts.sum) names
#    metrics that exist here; the TMA one is for the lead to add once seen.
# 2. The four honest variants of this branch graded by build/cml-grade (scripts/grade-honest.sh):
#    each should get full marks. Expected: 02/memcpy_async_barrier 45/45 (or 2.1's synccheck
#    "not checked: ... (the tool's own failure ...)", points kept, never 0/15), 03/cp_async_staging
#    full marks with 3.2's technique point, 07/side_stream_events and 07/discard_prefetch 40/40.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/issue44-calls}
mkdir -p "$out"
[ -x build/cml-grade ] || make -j"$(nproc)" all > "$out/make.log" 2>&1

echo "== ncu metrics (ldgsts / utma / ublkcp / tma / shared_st) =="
ncu --query-metrics --chip gh100 > "$out/metrics.txt" 2>&1 ||
    ncu --query-metrics > "$out/metrics.txt" 2>&1
grep -Ei 'ldgsts|utma|ublkcp|tma|op_shared_st|shared_op_st' "$out/metrics.txt" | awk '{print $1}' |
    sort -u | head -40
for m in smsp__sass_inst_executed_op_shared_st sm__sass_inst_executed_op_ldgsts; do
    grep -q "^$m " "$out/metrics.txt" && echo "present: $m" || echo "MISSING: $m"
done

echo "== honest variants of issue 44 (calls, async copies) =="
OUT="$out/honest" scripts/grade-honest.sh \
    tests/honest/02_transpose/memcpy_async_barrier \
    tests/honest/03_bank_conflicts/cp_async_staging \
    tests/honest/07_unified_memory/side_stream_events \
    tests/honest/07_unified_memory/discard_prefetch | tee "$out/honest.txt"
echo "== 2.1 sanitizers of memcpy_async_barrier (not checked is the tool's failure, never 0) =="
grep -h "2.1" "$out"/honest/02_transpose-memcpy_async_barrier/summary.tsv 2>/dev/null | cut -f2-6

echo "== table =="
printf '%-40s %s\n' variant result
awk '/ (ok|LOST)/ {printf "%-40s %s %s\n", $1, $2, $3}' "$out/honest.txt"
