#!/usr/bin/env bash
# Grade the honest corpus (tests/honest/<lab>/<variant>/, README.md there) on a GPU machine:
# each variant is one submission of its lab, graded by build/cml-grade as a student's would be.
# One line per variant as each finishes: "<lab>/<variant> <score>/<max> ok" at full marks, else
# "<lab>/<variant> <score>/<max> LOST" and the tasks that lost points, with the grader's words.
#   scripts/grade-honest.sh                                   # every variant
#   scripts/grade-honest.sh tests/honest/04_float4/int4_lambda [...]
# Logs and reports under ${OUT:-build/honest}; CML_CALIBRATION=FILE times against that
# calibration; JOBS=N grades N at a time. Exit status 0 only when every variant got full
# marks. Build first: make all.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x build/cml-grade ] || { echo "build/cml-grade is missing: run make all first" >&2; exit 2; }
out=${OUT:-build/honest}
mkdir -p "$out"
out=$(realpath "$out")

if [ $# -eq 0 ]; then
    mapfile -t variants < <(find tests/honest -mindepth 2 -maxdepth 2 -type d | sort)
else
    variants=("$@")
fi
[ ${#variants[@]} -gt 0 ] || { echo "no variants under tests/honest" >&2; exit 2; }

# One variant: its line(s) on stdout; exit 0 only at full marks.
grade_one() {
    local d=${1%/} lab name g got max extra=()
    lab=$(basename "$(dirname "$d")") name=$(basename "$d")
    [ -d "$d" ] || { echo "$lab/$name: no such folder"; return 1; }
    g="$out/$lab-$name"
    rm -rf "$g"
    [ -n "${CML_CALIBRATION:-}" ] && extra+=(--calibration "$CML_CALIBRATION")
    [ "${JOBS:-1}" -gt 1 ] && extra+=(--gpu-lock "$out/gpu.lock")
    build/cml-grade grade --submission "$d" --lab "${lab%%_*}" --out "$g" --no-color \
        "${extra[@]}" > "$g.log" 2>&1
    if [ ! -f "$g/summary.tsv" ]; then
        echo "$lab/$name -/- LOST (no summary.tsv; see $g.log)"
        return 1
    fi
    # summary.tsv: lab task status score max_score detail
    read -r got max < <(awk -F'\t' '{s += $4; m += $5} END {printf "%g %g\n", s, m}' \
                         "$g/summary.tsv")
    if awk -v s="$got" -v m="$max" 'BEGIN {exit !(m > 0 && s >= m)}'; then
        echo "$lab/$name $got/$max ok"
        return 0
    fi
    { echo "$lab/$name $got/$max LOST"
      awk -F'\t' '$4 < $5 {printf "    %s %s %s/%s: %.300s\n", $2, $3, $4, $5, $6}' \
          "$g/summary.tsv"; } | cat # one write: lines of parallel jobs do not interleave
    return 1
}
export -f grade_one
export out

# JOBS=N grades N at a time, sharing one GPU lock as a batch's gradings of one GPU do (one
# builds while another is timed).
printf '%s\n' "${variants[@]}" | xargs -P "${JOBS:-1}" -I{} bash -c 'grade_one "$1"' _ {}
