# Shared by scripts/exp/ncu-overlap.sh and ncu-beside-load.sh (sourced, with $work set): the
# solutions' lab binaries built outside the grader, and the grader's ncu options, cases and
# metrics for labs 03, 04 and 06.
build_one() { # name lab source-folder-or-empty: the solution, patched by the folder's bug.patch
    local d="$work/$1" lab=$2
    mkdir -p "$d" && cp solutions/$lab/*.cu "$d/"
    [ -n "$3" ] && (cd "$d" && patch -s -p1 < "$OLDPWD/$3/bug.patch")
    nvcc -O3 -std=c++17 --extended-lambda --expt-relaxed-constexpr -arch=sm_90 -lineinfo \
        -Icommon -Ilabs/$lab -o "$d/lab" "labs/$lab/harness.cu" "$d"/*.cu \
        common/*.cpp common/cml_gpu.cu common/cml_inputs.cu > "$d/build.log" 2>&1 || echo "$1: build failed"
}
A=tests/attacks/gpu
build_all() { # the three labs' solutions and three attacks whose counts are not 0, at once
    build_one 03_bank_conflicts 03_bank_conflicts "" &
    build_one 04_float4 04_float4 "" &
    build_one 06_zero_copy 06_zero_copy "" &
    build_one 03-decoy 03_bank_conflicts $A/03_bank_conflicts/decoy_swizzled_tile &
    build_one 04-never 04_float4 $A/04_float4/vector_loads_never_run &
    build_one 06-staging 06_zero_copy $A/06_zero_copy/staging_kernel_zero_copy &
    wait
}
m03=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
m03+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
m03+=,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_ld.sum
m03+=,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
m04=smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
m06=lts__t_sectors_srcunit_tex_aperture_sysmem.sum,lts__t_sectors_srcunit_tex_aperture_device.sum
k03='regex:scaleRowMajor|gramPadded|gramSwizzled'
k04='regex:copyVector4|transformPoint4'
k06='regex:.*'
ncu_opts=(--clock-control none --target-processes all --profile-from-start off --csv
          --print-units base)
one() { # lab kernels metrics out cases...
    local lab=$1 k=$2 m=$3 out=$4; shift 4
    local args=()
    for c in "$@"; do args+=(--case "$c"); done
    (cd "$work/$lab" && ncu "${ncu_opts[@]}" --kernel-name "$k" --metrics "$m" \
        --log-file "$out.log" ./lab --no-output "${args[@]}" > "$out.stdout" 2> "$out.err")
}
r03() { one ${D03:-03_bank_conflicts} "$k03" "$m03" "$1" 3.2,n=1048576 3.3a,n=1048576 \
              3.3b,n=1048576; }
r04() { one ${D04:-04_float4} "$k04" "$m04" "$1" 4.1,n=1048576 4.2b,n=1048576; }
r06() { one ${D06:-06_zero_copy} "$k06" "$m06" "$1" 6.1,n=1048576,passes=1 6.2,n=1048576,passes=1; }
