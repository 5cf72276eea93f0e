#!/bin/sh
# Issue 44, structure checks on an H200: builds the CUPTI trace library, grades the solutions of
# labs 02, 03, 06 and 07 and the structure attacks, and prints one table: each task's status and
# the detail of its trace/ncu structure checks. Expected: every solution task passed (its
# launches_per_call 2 and 10 for 6.3a/b, launches_not_on_stream 0, alloc_device 0,
# device_symbol_bytes 0, 2.2's load conflicts well below 16384, 3.3b's tile 4096 bytes);
# 02_transpose/two_column_pad technique (about 32768 load conflicts), 07_unified_memory/
# legacy_stream_launch technique (launches_not_on_stream 1). Run from the repository root.
set -eu
OUT=${OUT:-/tmp/issue44-structure}
mkdir -p "$OUT"
make -s -j16 build/cml-grade build/cml-confine build/cml-probe trace-lib >/dev/null
sol="$OUT/solutions"
rm -rf "$sol" && mkdir -p "$sol"
for lab in 02_transpose 03_bank_conflicts 06_zero_copy 07_unified_memory; do
    cp -r "solutions/$lab" "$sol/$lab"
done
grade() { # name, submission folder, labs
    name=$1 sub=$2
    shift 2
    for lab in "$@"; do
        build/cml-grade grade --lab "$lab" --submission "$sub" --out "$OUT/$name-$lab" \
            >"$OUT/$name-$lab.log" 2>&1 || true
    done
}
grade solutions "$sol" 02_transpose 03_bank_conflicts 06_zero_copy 07_unified_memory
for a in 02_transpose/two_column_pad 07_unified_memory/legacy_stream_launch; do
    lab=${a%%/*} d="$OUT/attack-${a##*/}"
    rm -rf "$d" && mkdir -p "$d" && cp -r "solutions/$lab" "$d/$lab"
    (cd "$d/$lab" && patch -s -p1 <"$OLDPWD/tests/attacks/gpu/$a/bug.patch")
    grade "attack-${a##*/}" "$d" "$lab"
    echo "$a expects: $(cat tests/attacks/gpu/$a/EXPECT)"
done
printf '%-40s %-6s %-10s %s\n' grading task status 'structure checks (trace, ncu)'
for f in "$OUT"/*/summary.tsv; do
    g=$(basename "$(dirname "$f")")
    awk -F"\t" -v g="$g" "{ printf \"%-40s %-6s %-10s %s\\n\", g, \$2, \$3, substr(\$6, 1, 160) }" "$f"
done
