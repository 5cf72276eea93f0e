#!/usr/bin/env bash
# Issue 44, the domains (branch `domains`): does every solution keep full marks over the wider
# cases (1.3 past 2^31 and 2^32 floats; every n % 4 above 2^20 in labs 04 and 05; lab 05's zero,
# large and small fields; 3.1's strides to 2^22; 3.3's k/64 inputs), what they cost, and does
# each new planted submission get its EXPECT verdict. Logs under ${OUT:-build/issue44-domains};
# a short table last. Steps (each about 1-2 min on an H200 after `make all`; no argument: all three):
#   scripts/exp/issue44-domains.sh grading   build; the solutions graded cold (full marks?)
#   scripts/exp/issue44-domains.sh costs     the new cases alone, timed through the lab binaries
#                                            and memcheck (what they add to a grading)
#   scripts/exp/issue44-domains.sh corpus    the planted submissions this branch added
# Expected on an H200: solutions 280/280 (exit 0), cold at most ~45 s; every corpus line "ok":
#   gather_int_index wrong|sanitizer, gather_unsigned_index wrong, degree_table_4096 wrong,
#   gram_integer_products wrong, vec4_tail_overread_large_n sanitizer (memcheck read of 16
#   bytes), potential_skips_zero_charge wrong, potential_float4_drops_tail_large_n wrong, and
#   the three correct variants passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/issue44-domains}
mkdir -p "$out"
out=$(realpath "$out")
rows=()
row() { rows+=("$(printf '%-44s %s' "$1" "$2")"); }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1
make -j"$(nproc)" all > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
row "gpu" "$(head -1 "$out/gpu.txt")"

grading() {
    rm -rf build/cache # cold: the wall time includes every build
    local s e rc
    s=$(date +%s.%N)
    build/cml-grade grade --submission solutions --out "$out/solutions" --no-color --seed 44 \
        > "$out/grade-solutions.log" 2>&1
    rc=$?
    e=$(date +%s.%N)
    row "solutions cold (seed 44)" "rc $rc, $(secs "$s" "$e") s, $(grep -o 'Score: [0-9.]*/[0-9.]*' \
        "$out/grade-solutions.log" | tail -1)"
    grep -E '^ *(1\.3|3\.1|3\.3a|4\.1|4\.2a|5\.[123]) ' "$out/grade-solutions.log" | head -12 \
        > "$out/tasks.txt"
}

# One lab binary run of the given cases; its wall seconds.
lab_time() {
    local lab=$1 s e
    shift
    s=$(date +%s.%N)
    "build/solutions/$lab/lab" --no-output "$@" > "$out/costs-$lab.log" 2>&1 || echo "(rc $?)" >&2
    e=$(date +%s.%N)
    secs "$s" "$e"
}

costs() {
    make -j"$(nproc)" build/solutions/01_coalescing/lab build/solutions/04_float4/lab \
        build/solutions/05_soa_aos/lab >> "$out/build.log" 2>&1
    row "1.3 n=4097 (an old case, for scale)" "$(lab_time 01_coalescing --case 1.3,n=4097,offset=3,stride=1) s"
    row "1.3 past 2^32 (17.2 GB input)" "$(lab_time 01_coalescing --case 1.3,n=65601,offset=9,stride=65537) s"
    row "1.3 past 2^31 (9.4 GB input, the draw's top)" \
        "$(lab_time 01_coalescing --case 1.3,n=70000,offset=2281701376,stride=1024) s"
    row "5.x three large draws each (at their tops)" "$(lab_time 05_soa_aos \
        --case 5.1,n=2097149 --case 5.1,n=2097150 --case 5.1,n=2097151 \
        --case 5.2,n=4194301 --case 5.2,n=4194302 --case 5.2,n=4194303 \
        --case 5.3,n=1572861 --case 5.3,n=1572862 --case 5.3,n=1572863) s (no output files)"
    local san
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    local s e
    s=$(date +%s.%N)
    "$san" --tool memcheck --error-exitcode 99 build/solutions/04_float4/lab --no-output \
        --no-guard --case 4.1,n=4194301 --case 4.1,n=4194302 --case 4.1,n=4194303 \
        --case 4.2a,n=4194303 --case 4.2b,n=4194303 > "$out/memcheck-04.log" 2>&1
    local rc=$?
    e=$(date +%s.%N)
    row "memcheck, lab 04's five largest draws" "rc $rc (0: clean), $(secs "$s" "$e") s"
}

corpus() {
    local list=(tests/planted/01_coalescing/gather_int_index
        tests/planted/01_coalescing/gather_unsigned_index
        tests/planted/01_coalescing/gather_long_long_index
        tests/planted/03_bank_conflicts/degree_table_4096
        tests/planted/03_bank_conflicts/gram_integer_products
        tests/planted/04_float4/vec4_tail_overread_large_n
        tests/planted/05_soa_aos/potential_skips_zero_charge
        tests/planted/05_soa_aos/potential_float4_drops_tail_large_n
        tests/planted/05_soa_aos/potential_float4_with_tail)
    OUT="$out/corpus" JOBS=${JOBS:-4} scripts/grade-corpus.sh "${list[@]}" > "$out/corpus.txt" 2>&1
    row "new planted entries graded as EXPECT" "$(grep -c ': ok' "$out/corpus.txt") of ${#list[@]}"
    while read -r line; do row "  not ok" "$line"; done < <(grep -v ': ok' "$out/corpus.txt" | head -12)
}

case ${1:-all} in
grading) grading ;;
costs) costs ;;
corpus) corpus ;;
all) grading; costs; corpus ;;
*) echo "usage: $0 [grading|costs|corpus|all]" >&2; exit 2 ;;
esac
row "total" "$(( $(date +%s) - t0 )) s"
cat "$out/tasks.txt" 2>/dev/null
printf '%s\n' "${rows[@]}"
