#!/usr/bin/env bash
# Which Nsight Compute counters tell 3.3b's swizzled 32 x 32 tile (4096 bytes of shared memory per
# block) from a padded tile doing the work beside a decoy 4096-byte array (issue 23, item 3):
# lab 03's binary built from the solution, each honest variant, the planted correct variants and
# the attack decoy_swizzled_tile, then ncu on `--case 3.3b,n=1048576` (1024 blocks, 2 launches).
# One line per binary and metric: static, dynamic and driver-reserved shared memory per block.
#   scripts/exp/smem-metrics.sh WORK      (on the GPU machine, from the repository root)
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$1
rm -rf "$work" && mkdir -p "$work"
subs=(solutions/03_bank_conflicts tests/honest/03_bank_conflicts/* \
      tests/planted/03_bank_conflicts/swizzle_odd_multiple \
      tests/attacks/gpu/03_bank_conflicts/decoy_swizzled_tile)
build_one() {
    local s=$1 name d
    name=$(basename "$s") d="$work/$name"
    mkdir -p "$d" && cp solutions/03_bank_conflicts/bank_conflicts.cu "$d/"
    if [ -f "$s/bug.patch" ]; then (cd "$d" && patch -s -p1 < "$OLDPWD/$s/bug.patch")
    else cp "$s/bank_conflicts.cu" "$d/"; fi
    nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Icommon -Ilabs/03_bank_conflicts -o "$d/lab" \
        labs/03_bank_conflicts/harness.cu "$d/bank_conflicts.cu" common/*.cpp common/cml_gpu.cu common/cml_inputs.cu \
        > "$d/build.log" 2>&1 || echo "$name: build failed"
}
for s in "${subs[@]}"; do build_one "$s" & done
wait
metrics=launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_driver,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
for s in "${subs[@]}"; do
    name=$(basename "$s") d="$work/$name"
    [ -x "$d/lab" ] || continue
    (cd "$d" && ncu --clock-control none --kernel-name regex:gramSwizzled --metrics "$metrics" \
        --csv --print-units base ./lab --case 3.3b,n=1048576 > ncu.csv 2> ncu.err)
    awk -F'","' -v n="$name" 'NR > 1 && $0 ~ /launch__|l1tex/ {
        gsub(/"/, "", $NF); printf "%-26s %-52s %s\n", n, $(NF-2), $NF }' "$d/ncu.csv"
    [ -s "$d/ncu.csv" ] || { echo "$name: no ncu output"; tail -3 "$d/ncu.err"; }
done
