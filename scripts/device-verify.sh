#!/usr/bin/env bash
# One pass of everything that needs a GPU, for a maintainer on a GPU machine: the test suite
# (GPU tests included), the bench tables, a cold grading of the solutions (builds included, timed)
# and of the skeletons. Logs go to $OUT (default build/verify); a short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/verify}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader \
    > "$out/gpu.txt" 2>&1

make -j"$(nproc)" all > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
make check > "$out/check.log" 2>&1
check_rc=$?
make bench > "$out/bench.log" 2>&1
bench_rc=$?

# A cold grading: no cached reference build, so the wall time includes every build.
rm -rf build/cache
build/cml-grade grade --submission solutions --out "$out/solutions" --no-color \
    > "$out/grade-solutions.log" 2>&1
sol_rc=$?
build/cml-grade grade --submission labs --out "$out/skeletons" --no-color \
    > "$out/grade-skeletons.log" 2>&1
(cd "$out" && tar czf grades.tgz solutions skeletons && rm -rf solutions skeletons)

printf '\n==== summary (%s)\n' "$(cat "$out/gpu.txt")"
printf 'make check (rc %d):\n' "$check_rc"; tail -n 3 "$out/check.log"
printf 'make bench rc %d; cold grading of the solutions rc %d:\n' "$bench_rc" "$sol_rc"
tail -n 2 "$out/grade-solutions.log"
printf 'skeletons: '; tail -n 1 "$out/grade-skeletons.log"
