#!/usr/bin/env bash
# Which Nsight Compute counters could replace the text checks that still earn points (issue 23,
# item 3; docs/TRUST.md): 3.2's "stages through shared memory" (PTX st.shared / ld.shared in
# scaleRowMajor) and 4.2b's 128-bit point (PTX and SASS lines in transformPoint4). Labs 03 and
# 04 built from the solution, every honest variant and planted bug of the lab, and the attacks
# that keep the technique's code in a branch that never runs; then ncu, in the harness's
# profiling window (--profile-from-start off: the task's kernels and the case marker only), on
#   --case 3.2,n=1048576    (4096 blocks of 256: one shared store and load per element)
#   --case 4.2b,n=1048576   (2^20 points: 32768 warp-level 128-bit loads, 131072 4-byte ones)
# with the shared and global instruction counts and the global requests. One line per binary,
# kernel and metric. Usage (GPU machine, repository root, after make all):
#   scripts/exp/text-check-evidence.sh WORK
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$1
rm -rf "$work" && mkdir -p "$work"
build_one() { # lab file source
    local lab=$1 file=$2 s=$3 d
    d="$work/$lab-$(basename "$s")"
    mkdir -p "$d" && cp "solutions/$lab/$file" "$d/"
    if [ -f "$s/bug.patch" ]; then (cd "$d" && patch -s -p1 < "$OLDPWD/$s/bug.patch")
    elif [ -f "$s/$file" ]; then cp "$s/$file" "$d/"; fi
    nvcc -O3 -std=c++17 --extended-lambda --expt-relaxed-constexpr -arch=sm_90 -lineinfo \
        -Icommon -Ilabs/$lab -o "$d/lab" \
        "labs/$lab/harness.cu" "$d/$file" common/*.cpp common/cml_gpu.cu common/cml_inputs.cu > "$d/build.log" 2>&1 ||
        echo "$lab $(basename "$s"): build failed"
}
for s in solutions/03_bank_conflicts tests/honest/03_bank_conflicts/* \
         tests/planted/03_bank_conflicts/* tests/attacks/gpu/03_bank_conflicts/*; do
    build_one 03_bank_conflicts bank_conflicts.cu "$s" &
done
for s in solutions/04_float4 tests/honest/04_float4/* tests/planted/04_float4/* \
         tests/attacks/gpu/04_float4/*; do
    build_one 04_float4 vectorized.cu "$s" &
done
wait
sh_metrics=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
sh_metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
sh_metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
gl_metrics=smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
gl_metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
gl_metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for d in "$work"/*/; do
    [ -x "$d/lab" ] || continue
    name=$(basename "$d")
    case $name in
    03_*) task=3.2 metrics=$sh_metrics,$gl_metrics ;;
    *) task=4.2b metrics=$gl_metrics ;;
    esac
    (cd "$d" && timeout 120 ncu --clock-control none --profile-from-start off --metrics "$metrics" \
        --csv --print-units base ./lab --no-output --case "$task,n=1048576" > ncu.csv 2> ncu.err)
    awk -F'","' -v n="$name" 'NR > 1 && $0 ~ /sass|l1tex/ {
        gsub(/"/, "", $NF); k = $5; sub(/\(.*/, "", k)
        printf "%-44s %-16s %-56s %s\n", n, substr(k, 1, 16), $(NF-2), $NF
    }' "$d/ncu.csv"
    [ -s "$d/ncu.csv" ] || { echo "$name: no ncu output"; tail -3 "$d/ncu.err"; }
done
