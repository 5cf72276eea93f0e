#!/usr/bin/env bash
# What needs a GPU, for a maintainer on a GPU machine, in steps that each fit a 10-minute call:
#   scripts/device-verify.sh grading   the GPU tests that grade the solutions (5 seeds) and skeletons
#   scripts/device-verify.sh planted   the GPU tests that grade every planted bug
#   scripts/device-verify.sh bench     the bench tables, a cold grading of the solutions (timed,
#                                      builds included) and of the skeletons
#   scripts/device-verify.sh all       make check (every test), then bench (small lab sets only)
# Logs go to $OUT (default build/verify); a short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
step=${1:-all}
out=${OUT:-build/verify}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader \
    > "$out/gpu.txt" 2>&1
make -j"$(nproc)" all > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }

check() { # check TAG LOG: the Check suites, only the test cases tagged TAG when TAG is set
    if [ -n "$1" ]; then CK_INCLUDE_TAGS=$1 make check; else make check; fi > "$2" 2>&1
    local rc=$?
    printf 'make check %s (rc %d):\n' "${1:-(all)}" "$rc"
    tail -n 3 "$2"
}

bench() {
    make bench > "$out/bench.log" 2>&1
    printf 'make bench rc %d\n' $?
    rm -rf build/cache # a cold grading: the wall time includes every build
    build/cml-grade grade --submission solutions --out "$out/solutions" --no-color \
        > "$out/grade-solutions.log" 2>&1
    printf 'cold grading of the solutions rc %d:\n' $?
    grep -h '^sanitizers:' "$out/grade-solutions.log" # the sanitizer phase's wall time
    tail -n 2 "$out/grade-solutions.log"
    build/cml-grade grade --submission labs --out "$out/skeletons" --no-color \
        > "$out/grade-skeletons.log" 2>&1
    printf 'skeletons: '
    tail -n 1 "$out/grade-skeletons.log"
    (cd "$out" && tar czf grades.tgz solutions skeletons && rm -rf solutions skeletons)
}

printf '\n==== %s on %s\n' "$step" "$(cat "$out/gpu.txt")"
case "$step" in
grading) check gpu-grading "$out/check-grading.log" ;;
planted) check gpu-planted "$out/check-planted.log" ;;
bench) bench ;;
all) check "" "$out/check.log"; bench ;;
*) echo "usage: $0 [grading|planted|bench|all]" >&2; exit 2 ;;
esac
