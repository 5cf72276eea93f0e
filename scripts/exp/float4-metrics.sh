#!/usr/bin/env bash
# Which Nsight Compute counter tells a 128-bit copy from a 4-byte one by what ran (issue 23,
# item 3): lab 04's binary built from the solution, each honest variant and the attacks whose
# 4.1 must lose its technique points, then ncu on `--case 4.1,n=1048576` (2^20 floats: 8192
# warp-level 128-bit loads, 32768 4-byte ones). One line per binary and metric.
#   scripts/exp/float4-metrics.sh WORK      (on the GPU machine, from the repository root)
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$1
rm -rf "$work" && mkdir -p "$work"
subs=(solutions/04_float4 tests/honest/04_float4/* tests/attacks/gpu/04_float4/vector_loads_never_run
      tests/attacks/gpu/04_float4/decoy_vector_kernel)
build_one() {
    local s=$1 name d
    name=$(basename "$s") d="$work/$name"
    mkdir -p "$d" && cp solutions/04_float4/vectorized.cu "$d/"
    if [ -f "$s/bug.patch" ]; then (cd "$d" && patch -s -p1 < "$OLDPWD/$s/bug.patch"); else cp "$s/vectorized.cu" "$d/"; fi
    nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Icommon -Ilabs/04_float4 -o "$d/lab" \
        labs/04_float4/harness.cu "$d/vectorized.cu" common/*.cpp common/cml_gpu.cu common/cml_inputs.cu > "$d/build.log" 2>&1 \
        || echo "$name: build failed"
}
for s in "${subs[@]}"; do build_one "$s" & done
wait
metrics=smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__sass_thread_inst_executed_op_global_ld_pred_on.sum,smsp__sass_thread_inst_executed_op_global_st_pred_on.sum
for s in "${subs[@]}"; do
    name=$(basename "$s") d="$work/$name"
    [ -x "$d/lab" ] || continue
    (cd "$d" && ncu --clock-control none --kernel-name regex:'copyVector4|copyFloats' --metrics "$metrics" \
        --csv --print-units base ./lab --case 4.1,n=1048576 > ncu.csv 2> ncu.err)
    awk -F'","' -v n="$name" 'NR > 1 && $0 ~ /sass|l1tex/ { gsub(/"/, "", $NF); printf "%-28s %-60s %s %s\n", n, $(NF-2), $5, $NF }' "$d/ncu.csv"
done
