#!/usr/bin/env bash
# Issue 44: which counter separates a 128-bit copy from a float2 one in 4.1, for every honest
# shape: per variant, ncu's warp-level global loads, L1 requests and bytes of copyVector4 on
# 2^20 floats (the task's ncu_case). Run after `make labs` built the common objects.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/issue44-loads}
mkdir -p "$out"
make -j"$(nproc)" labs LAB=04 > "$out/make.log" 2>&1 || { tail "$out/make.log"; exit 1; }
objs=$(ls build/obj/*/common/*.o | awk -F/ '!seen[$NF]++')
metrics=smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__sass_thread_inst_executed_op_global_ld_pred_on.sum,sm__sass_data_bytes_mem_global_op_ld.sum
variant() { # name dir
    local d="$out/$1"
    mkdir -p "$d"
    cp "$2"/*.cu "$d/" 2>/dev/null
    nvcc -O3 -std=c++17 --extended-lambda --expt-relaxed-constexpr -arch=sm_90 -DNVTX_DISABLE \
        -Icommon -Ilabs/04_float4 -I"$d" -o "$d/lab" labs/04_float4/harness.cu "$d"/vectorized.cu \
        $objs > "$d/build.log" 2>&1 || { echo "$1: build failed"; return; }
    ncu --profile-from-start off --kernel-name regex:'^copyVector4$' --metrics "$metrics" --csv \
        "$d/lab" --case 4.1,n=1048576 > "$d/ncu.csv" 2> "$d/ncu.err"
    printf '%-34s' "$1"
    for m in ${metrics//,/ }; do
        v=$(grep "\"$m\"" "$d/ncu.csv" | awk -F'","' '{gsub(/[",]/,"",$NF); s+=$NF} END {printf "%d", s}')
        printf ' %12s' "${v:-n/a}"
    done
    echo
}
printf '%-34s %12s %12s %12s %12s %12s\n' variant inst_ld requests sectors thr_pred_on bytes
variant solution solutions/04_float4
for h in tests/honest/04_float4/*/; do variant "honest/$(basename "$h")" "$h"; done
for a in float2_copy_with_a_token_float4 vector_loads_never_run; do
    rm -rf "$out/src-$a"; cp -r solutions/04_float4 "$out/src-$a"
    patch -s -d "$out/src-$a" -p1 < "tests/attacks/gpu/04_float4/$a/bug.patch"
    variant "attack/$a" "$out/src-$a"
done
