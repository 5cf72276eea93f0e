#!/usr/bin/env bash
# Issue 44, first look on a GPU machine: what the tools put in a lab's environment, which
# counters the GPU offers for asynchronous copies, thread-level loads and bank conflicts, and
# whether labs 02-04 still grade in full with the harness's plain environment and the timing
# that counts work on other streams. Logs under ${OUT:-build/issue44-probe}; a table last.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/issue44-probe}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
make -j"$(nproc)" all > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
# 1. the environment a process gets under each tool, less the plain one
env | sed 's/=.*//' | sort > "$out/env-plain.txt"
ncu --target-processes all /usr/bin/env 2>/dev/null | grep -E '^[A-Za-z_][A-Za-z0-9_]*=' |
    sed 's/=.*//' | sort > "$out/env-ncu.txt"
compute-sanitizer /usr/bin/env 2>/dev/null | grep -E '^[A-Za-z_][A-Za-z0-9_]*=' |
    sed 's/=.*//' | sort > "$out/env-sanitizer.txt"
echo "ncu adds: $(comm -13 "$out/env-plain.txt" "$out/env-ncu.txt" | tr '\n' ' ')"
echo "compute-sanitizer adds: $(comm -13 "$out/env-plain.txt" "$out/env-sanitizer.txt" | tr '\n' ' ')"
# 2. counters
ncu --query-metrics-mode suffix --query-metrics --chip gh100 > "$out/metrics.txt" 2>&1 ||
    ncu --query-metrics > "$out/metrics.txt" 2>&1
grep -iE 'ldgsts|utma|ldsm|op_global_ld|op_shared_st|bank|thread_inst_executed_op_global' \
    "$out/metrics.txt" | head -60 > "$out/metrics-picked.txt"
echo "metrics picked: $(wc -l < "$out/metrics-picked.txt") lines (metrics-picked.txt)"
if [ -n "${ENTRIES:-}" ]; then # corpus entries alone: lab/name under tests/attacks/gpu or planted
    for e in $ENTRIES; do
        src=tests/attacks/gpu/$e; [ -d "$src" ] || src=tests/planted/$e
        lab=${e%%/*}; d="$out/entry-${e//\//-}"
        rm -rf "$d"; cp -r "solutions/$lab" "$d"
        patch -s -d "$d" -p1 < "$src/bug.patch" || { echo "$e: patch failed"; continue; }
        build/cml-grade grade --lab "${lab%%_*}" --submission "$d" --out "$d.out" --no-color \
            > "$d.log" 2>&1
        echo "$e: rc $? expect [$(tr '\n' ';' < "$src/EXPECT")] got: $(awk -F'\t' \
            '$3 != "passed" {printf "%s %s (%s); ", $2, $3, substr($6, 1, 90)}' "$d.out/summary.tsv")"
    done
    exit 0
fi
# 3. labs 02-04 graded with the solutions (ncu, sanitizers, the new timing)
for lab in 02 03 04; do
    build/cml-grade grade --lab "$lab" --submission solutions --out "$out/sol-$lab" --no-color \
        > "$out/sol-$lab.log" 2>&1
    echo "solutions lab $lab: rc $? $(grep -o 'Score: [0-9.]*/[0-9.]*' "$out/sol-$lab.log" | tail -1)"
done
grep -h -E '^ *[0-9]\.[0-9][ab]? ' "$out"/sol-0*.log | head -20
