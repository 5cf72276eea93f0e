#!/usr/bin/env bash
# The first-week figures on one GPU machine, in one call (after make all):
#   1. the solutions graded cold (empty build cache), timed;
#   2. the honest corpus (tests/honest) graded against a calibration, JOBS=2;
#   3. the student bundle: unpacked alone, the solutions' files copied in as a student would,
#      `make grade` (a practice grade); the skeletons; and a 1.1 copy launched on 2 blocks of 32
#      threads, graded both in the bundle and by the course grader.
# Usage: scripts/exp/first-week.sh WORK [HONEST_VARIANT...]     Logs under WORK; a table last.
# STEPS="sol honest bundle" (the default) chooses the parts; honest variants given as
# arguments are graded instead of the whole corpus.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
work=$(realpath -m "$1")
rm -rf "$work" && mkdir -p "$work"
steps=${STEPS:-sol honest bundle}
want() { [[ " $steps " == *" $1 "* ]]; }
shift
score() { grep -ao 'Score: [0-9.]*/[0-9.]*' "$1" | tail -n 1; }
since() { awk -v s="$1" -v e="$EPOCHREALTIME" 'BEGIN {printf "%.1f", e - s}'; }

# 1. cold solutions
sol_s=-
if want sol; then
    rm -rf build/cache
    s0=$EPOCHREALTIME
    build/cml-grade grade --submission solutions --out "$work/sol" --no-color > "$work/sol.log" 2>&1
    sol_s=$(since "$s0")
fi

# 2. honest corpus
build/cml-grade calibrate --out "$work/gpu.cal" > "$work/calibrate.log" 2>&1
honest_s=-
if want honest; then
    s0=$EPOCHREALTIME
    OUT="${TMPDIR:-/tmp}/first-week/honest" JOBS=2 CML_CALIBRATION="$work/gpu.cal" \
        scripts/grade-honest.sh "$@" > "$work/honest.txt" 2>&1
    honest_s=$(since "$s0")
fi

# 3. the bundle, alone in a fresh folder
make student-bundle BUNDLE="$work/bundle.tar.gz" > "$work/bundle.log" 2>&1
slow_copy() { # the solution's lab 01 with 1.1 launched on 2 blocks of 32 threads
    mkdir -p "$1" && cp "$repo/solutions/01_coalescing/coalescing.cu" "$1/"
    sed -i 's|copyCoalesced<<<(unsigned)blocks, threads, 0, stream>>>|copyCoalesced<<<2, 32, 0, stream>>>|' "$1/coalescing.cu"
    grep -q 'copyCoalesced<<<2, 32' "$1/coalescing.cu" || echo "first-week: slow copy not made" >&2
}
bundle_grade() { # $1 name, $2 what to copy into labs/ (solutions, slow or nothing)
    local b="${TMPDIR:-/tmp}/first-week/b-$1"
    rm -rf "$b"
    mkdir -p "$b" && tar -xzf "$work/bundle.tar.gz" -C "$b"
    local top="$b/cuda-memory-labs"
    [ -d "$top/solutions" ] && echo "first-week: the bundle holds solutions/" >&2
    case $2 in
        solutions) for l in "$repo"/solutions/*/; do cp "$l"*.cu "$top/labs/$(basename "$l")/"; done ;;
        slow) slow_copy "$top/labs/01_coalescing" ;;
    esac
    (cd "$top" && make -j16 all > "$work/bundle-$1-make.log" 2>&1 && \
     make grade ${3:+LAB=$3} > "$work/bundle-$1.log" 2>&1)
}
bundle_s=-
if want bundle; then
    s0=$EPOCHREALTIME
    bundle_grade solutions solutions
    bundle_s=$(since "$s0")
    bundle_grade skeletons none
    bundle_grade slow slow 01
    slow_copy "$work/slow-course"
    build/cml-grade grade --submission "$work/slow-course" --lab 01 --out "$work/slow-course-out" \
        --calibration "$work/gpu.cal" --no-color > "$work/slow-course.log" 2>&1
    cp "${TMPDIR:-/tmp}"/first-week/b-*/cuda-memory-labs/build/grade/summary.tsv "$work/" 2>/dev/null
    for b in solutions skeletons slow; do
        cp "${TMPDIR:-/tmp}/first-week/b-$b/cuda-memory-labs/build/grade/feedback.md" \
            "$work/bundle-$b-feedback.md" 2>/dev/null
    done
fi
task11() { awk -F'\t' '$2 == "1.1" {print $3, $4 "/" $5}' "$1"; }

echo "== first-week ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1))"
printf '%-36s %s\n' "solutions cold" "$(score "$work/sol.log") in ${sol_s} s"
printf '%-36s %s\n' "honest corpus (JOBS=2, calibrated)" \
    "$(grep -c ' ok$' "$work/honest.txt") ok of $(grep -cE ' (ok|LOST)' "$work/honest.txt") in ${honest_s} s"
grep -A3 ' LOST' "$work/honest.txt" | head -n 40
printf '%-36s %s\n' "bundle: solutions (practice)" "$(score "$work/bundle-solutions.log") in ${bundle_s} s"
printf '%-36s %s\n' "bundle: skeletons (practice)" "$(score "$work/bundle-skeletons.log")"
printf '%-36s %s\n' "bundle: 1.1 on 2x32 (practice)" \
    "$(task11 "${TMPDIR:-/tmp}"/first-week/b-slow/cuda-memory-labs/build/grade/summary.tsv)"
printf '%-36s %s\n' "course grader: 1.1 on 2x32" "$(task11 "$work/slow-course-out/summary.tsv")"
grep -c 'practice grade' "$work/bundle-solutions.log" | sed 's/^/practice notes in the bundle log: /'
