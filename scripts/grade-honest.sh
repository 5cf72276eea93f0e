#!/usr/bin/env bash
# Grade the honest corpus (tests/honest/<lab>/<variant>/, README.md there) on a GPU machine:
# each variant is one submission of its lab, graded by build/cml-grade as a student's would be.
# One line per variant as each finishes: "<lab>/<variant> <score>/<max> ok" at full marks, else
# "<lab>/<variant> <score>/<max> LOST" and the tasks that lost points, with the grader's words.
#   scripts/grade-honest.sh                                   # every variant
#   scripts/grade-honest.sh tests/honest/04_float4/int4_lambda [...]
# Logs and reports under ${OUT:-build/honest}; CML_CALIBRATION=FILE times against that
# calibration. Exit status 0 only when every variant got full marks. Build first: make all.
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

all_full=0
for d in "${variants[@]}"; do
    d=${d%/}
    lab=$(basename "$(dirname "$d")") name=$(basename "$d")
    [ -d "$d" ] || { echo "$lab/$name: no such folder"; all_full=1; continue; }
    g="$out/$lab-$name"
    rm -rf "$g"
    extra=()
    [ -n "${CML_CALIBRATION:-}" ] && extra+=(--calibration "$CML_CALIBRATION")
    build/cml-grade grade --submission "$d" --lab "${lab%%_*}" --out "$g" --no-color \
        "${extra[@]}" > "$g.log" 2>&1
    if [ ! -f "$g/summary.tsv" ]; then
        echo "$lab/$name -/- LOST (no summary.tsv; see $g.log)"
        all_full=1
        continue
    fi
    # summary.tsv: lab task status score max_score detail
    read -r got max < <(awk -F'\t' '{s += $4; m += $5} END {printf "%g %g\n", s, m}' \
                         "$g/summary.tsv")
    if awk -v s="$got" -v m="$max" 'BEGIN {exit !(m > 0 && s >= m)}'; then
        echo "$lab/$name $got/$max ok"
    else
        echo "$lab/$name $got/$max LOST"
        awk -F'\t' '$4 < $5 {printf "    %s %s %s/%s: %.300s\n", $2, $3, $4, $5, $6}' \
            "$g/summary.tsv"
        all_full=1
    fi
done
exit $all_full
