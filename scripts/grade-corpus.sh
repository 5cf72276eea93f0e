#!/usr/bin/env bash
# Grade corpus submissions (planted format: bug.patch against the solution, EXPECT verdicts,
# "wrong|sanitizer" for either) one lab each, and say for each whether every task got the
# verdict EXPECT names (tasks not listed must pass). A quicker, selective companion of the
# gpu-planted and gpu-attacks tests:
#   scripts/grade-corpus.sh tests/planted/01_coalescing/lazy_timed_copy [...]
# Logs under ${OUT:-build/corpus}; one line per submission, "ok" or "MISMATCH", as each is graded.
# JOBS=N grades N at a time, sharing one GPU lock as a batch's gradings of one GPU do (builds
# overlap, GPU runs do not); CML_CALIBRATION=FILE times against that calibration. WHOLE=1
# hands in every lab of solutions/ with the one patched and grades them all (the other labs'
# tasks must pass), so that the labs' technique phase runs its shared ncu runs at once.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/corpus}
mkdir -p "$out"
out=$(realpath "$out")

grade_one() {
    local d=$1 lab name sub g verdict want text
    lab=$(basename "$(dirname "$d")") name=$(basename "$d")
    sub=$(mktemp -d)
    if [ "${WHOLE:-0}" = 1 ]; then cp -r solutions/* "$sub/"; else cp -r "solutions/$lab" "$sub/"; fi
    g="$out/$lab-$name"
    # the paths an attack names as one who read a grading log would (tests/attack_corpus.c)
    if ! sed -e "s#@ROOT@#$PWD#g" -e "s#@OUT@#$g#g" -e "s#@OTHER@#$out/other#g" \
            "$d/bug.patch" | (cd "$sub/$lab" && patch -p1 -s); then
        echo "$lab/$name: patch does not apply"; rm -rf "$sub"; return
    fi
    local extra=()
    [ "${JOBS:-1}" -gt 1 ] && extra+=(--gpu-lock "$out/gpu.lock")
    [ -n "${CML_CALIBRATION:-}" ] && extra+=(--calibration "$CML_CALIBRATION")
    [ "${WHOLE:-0}" = 1 ] || extra+=(--lab "${lab%%_*}")
    build/cml-grade grade --submission "$sub" --out "$g" --no-color \
        "${extra[@]}" > "$g.log" 2>&1
    verdict=ok
    while IFS=$'\t' read -r _ task status _ _ detail; do
        want=$(awk -v t="$task" '$1 == t {print $2}' "$d/EXPECT")
        text=$(awk -v t="$task" '$1 == t {$1 = ""; $2 = ""; sub(/^ +/, ""); print}' "$d/EXPECT")
        [ -n "$want" ] || want=passed
        if [[ "|$want|" != *"|$status|"* ]] || { [ -n "$text" ] && [[ "$detail" != *"$text"* ]]; }; then
            verdict="MISMATCH ($task: $status, want $want${text:+ '$text'}: ${detail:0:160})"
        fi
    done < <(cat "$g/summary.tsv" 2>/dev/null)
    [ -f "$g/summary.tsv" ] || verdict="MISMATCH (no summary.tsv)"
    echo "$lab/$name: $verdict" # as each finishes: a run cut short keeps what it graded
    rm -rf "$sub"
}
export -f grade_one
export out

printf '%s\n' "$@" | xargs -P "${JOBS:-1}" -I{} bash -c 'grade_one "$1"' _ {}
