#!/usr/bin/env bash
# What needs a GPU, for a maintainer on a GPU machine, in steps that each fit a 10-minute call:
#   scripts/device-verify.sh grading   the GPU tests that grade the solutions (5 seeds) and skeletons
#   scripts/device-verify.sh planted   the GPU tests that grade every planted bug
#   scripts/device-verify.sh bench     the bench tables, a cold grading of the solutions (timed,
#                                      builds included) and of the skeletons
#   scripts/device-verify.sh attacks   every attack of tests/attacks/gpu through grade-corpus.sh,
#                                      its lab alone, 2 at once (WHOLE=1 in the environment: beside
#                                      the other labs' solutions, so that the technique phase's
#                                      shared ncu runs meet it; about 4x longer)
#   scripts/device-verify.sh honest    every honest variant through grade-honest.sh, 3 at once
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

corpus() { # attacks|honest, against one calibration
    build/cml-grade calibrate --out "$out/gpu.cal" > "$out/calibrate.log" 2>&1 ||
        { tail -n 3 "$out/calibrate.log"; return; }
    if [ "$1" = attacks ]; then
        OUT="$out/attacks" JOBS=2 CML_CALIBRATION="$out/gpu.cal" \
            scripts/grade-corpus.sh tests/attacks/gpu/*/*/ > "$out/attacks.txt" 2>&1
        printf 'attacks: %s of %s as expected\n' "$(grep -c ': ok$' "$out/attacks.txt")" \
            "$(ls -d tests/attacks/gpu/*/*/ | wc -l)"
        grep -v ': ok$' "$out/attacks.txt"
    else
        OUT="$out/honest" JOBS=3 CML_CALIBRATION="$out/gpu.cal" scripts/grade-honest.sh \
            > "$out/honest.txt" 2>&1
        printf 'honest (rc %d): %s at full marks\n' $? "$(grep -c ' ok$' "$out/honest.txt")"
        grep -v ' ok$' "$out/honest.txt"
    fi
}

printf '\n==== %s on %s\n' "$step" "$(cat "$out/gpu.txt")"
case "$step" in
grading) check gpu-grading "$out/check-grading.log" ;;
planted) check gpu-planted "$out/check-planted.log" ;;
bench) bench ;;
attacks | honest) corpus "$step" ;;
all) check "" "$out/check.log"; bench ;;
*) echo "usage: $0 [grading|planted|bench|attacks|honest|all]" >&2; exit 2 ;;
esac
