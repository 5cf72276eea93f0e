#!/usr/bin/env bash
# Which evidence tells 6.2's copies (copy in, compute in device memory, copy out) from the attack
# token_copy_zero_copy (one float copied, the work done by a kernel on the pinned host buffers
# where they lie), measured on the kernels the task launched (issue 23, item 3): lab 06 built
# from the solution, each honest variant and the attack, then ncu on `--case 6.2,n=1048576,
# passes=1` with every candidate metric this ncu knows, one line per binary, kernel and metric.
# A kernel that reads its inputs over the host link should show system-memory sectors where the
# copies' kernel shows none. Usage (GPU machine, repository root, after make all):
#   scripts/exp/copy-evidence.sh WORK
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$1
rm -rf "$work" && mkdir -p "$work"
subs=(solutions/06_zero_copy tests/honest/06_zero_copy/* \
      tests/attacks/gpu/06_zero_copy/token_copy_zero_copy)
build_one() {
    local s=$1 name d
    name=$(basename "$s") d="$work/$name"
    mkdir -p "$d" && cp solutions/06_zero_copy/*.cu "$d/"
    if [ -f "$s/bug.patch" ]; then (cd "$d" && patch -s -p1 < "$OLDPWD/$s/bug.patch")
    else cp "$s"/*.cu "$d/"; fi
    nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Icommon -Ilabs/06_zero_copy -o "$d/lab" \
        labs/06_zero_copy/harness.cu "$d/zerocopy.cu" "$d/copies.cu" common/*.cpp \
        common/cml_gpu.cu common/cml_inputs.cu > "$d/build.log" 2>&1 || echo "$name: build failed"
}
for s in "${subs[@]}"; do build_one "$s" & done
wait
# the candidates: L2 sectors by aperture (system memory: the host link), DRAM bytes
ncu --query-metrics > "$work/metrics.txt" 2>&1
pattern='^(lts__t_sectors(_srcunit_tex)?_aperture_(sysmem|device)[a-z_]*|dram__bytes_(read|write))'
grep -oE "$pattern" "$work/metrics.txt" | sort -u | sed 's/$/.sum/' > "$work/candidates.txt"
echo "candidates: $(tr '\n' ' ' < "$work/candidates.txt")"
metrics=$(paste -sd, "$work/candidates.txt")
[ -n "$metrics" ] || { echo "no candidate metric in ncu --query-metrics"; exit 1; }
# 6.2 (copies: its kernels should read device memory only) and 6.1 (zero-copy: its kernels
# should read system memory, and no device buffer of the student's)
for task in 6.2 6.1; do
    for s in "${subs[@]}"; do
        name=$(basename "$s") d="$work/$name"
        [ -x "$d/lab" ] || continue
        (cd "$d" && ncu --clock-control none --metrics "$metrics" --csv --print-units base \
            ./lab --case "$task,n=1048576,passes=1" > "ncu-$task.csv" 2> "ncu-$task.err")
        awk -F'","' -v n="$task $name" 'NR > 1 && $0 ~ /sysmem|dram__|aperture_device/ {
            gsub(/"/, "", $NF); k = $5; sub(/\(.*/, "", k)
            printf "%-28s %-22s %-58s %s\n", n, substr(k, 1, 22), $(NF-2), $NF
        }' "$d/ncu-$task.csv"
        [ -s "$d/ncu-$task.csv" ] ||
            { echo "$task $name: no ncu output"; tail -3 "$d/ncu-$task.err"; }
    done
done
