#!/usr/bin/env bash
# Probe (GPU machine): the grader's CUPTI injection library (grader/trace/cml_trace.c) on lab
# 06's and 07's solutions and on the Thrust attack of 7.1: what it records, and whether each
# memory call's stack names the student's function. Output: $1 (a folder).
set -uo pipefail
cd "$(dirname "$0")/../.."
w=${1:-/tmp/trace-probe}; mkdir -p "$w"
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
inc=$(dirname "$(find "$cuda"/ /usr/local/cuda*/ /usr/include -name cupti.h 2>/dev/null | head -1)")
lib=$(dirname "$(find "$cuda"/ /usr/local/cuda*/ /usr/lib -name 'libcupti.so*' 2>/dev/null |
    head -1)")
echo "nvcc $(command -v nvcc), cupti.h in $inc, libcupti in $lib"
gcc -std=gnu11 -O2 -Wall -shared -fPIC -I"$inc" -o "$w/libcml-trace.so" grader/trace/cml_trace.c \
    -L"$lib" -lcupti -Wl,-rpath,"$lib" || exit 1
make -s CUDA_ARCH=90 build/solutions/06_zero_copy/lab build/solutions/07_unified_memory/lab \
    > "$w/make.log" 2>&1 || { tail "$w/make.log"; exit 1; }
t=$w/thrust; rm -rf "$t"; cp -r solutions/07_unified_memory "$t"
attack=tests/attacks/gpu/07_unified_memory/copies_through_thrust/bug.patch
(cd "$t" && patch -p1 -s < "$OLDPWD/$attack")
nvcc -O3 -std=c++17 -arch=sm_90 -Ilabs/07_unified_memory -Icommon -o "$t/lab" \
    labs/07_unified_memory/harness.cu "$t/managed.cu" build/obj/sm_90/common/*.o || exit 1
one() { # one NAME BINARY CASE
    local tr="$w/$1.trace" t0=$SECONDS
    rm -f "$tr"
    CUDA_INJECTION64_PATH="$w/libcml-trace.so" CML_TRACE_OUT="$tr" "$2" --case "$3" \
        --out-dir "$w" > "$w/$1.out" 2>&1
    echo "== $1 ($3): rc $? in $((SECONDS - t0)) s, $(wc -l < "$tr") lines"
    grep -v '^api' "$tr" | sort | uniq -c | sort -rn | head -12
    grep '^api' "$tr" | while read -r _ dom name corr frames; do
        f=${frames#frames=}
        syms=$(addr2line -C -f -e "$2" $(echo "$f" | tr ',' ' ' | sed 's/^/0x/;s/ / 0x/g') \
            2>/dev/null | awk 'NR % 2 == 1' | grep -v '^cuda\|^__cuda\|^libcudart\|^??' \
            | head -3 | tr '\n' '<')
        echo "  $dom $name $corr  ${syms}"
    done | sort | uniq -c | head -30
}
s6=build/solutions/06_zero_copy/lab s7=build/solutions/07_unified_memory/lab
one sol61 $s6 6.1,n=1048576,passes=1
one sol62 $s6 6.2,n=1048576,passes=1
one sol71 $s7 7.1,rows=1000,cols=999
one thr71 "$t/lab" 7.1,rows=1000,cols=999
one sol72 $s7 7.2,rows=1000,cols=999
