#!/usr/bin/env bash
# Experiment (issues 9 and 10): cold gradings of the solutions with and without the CUDA context
# the probe's binary holds (CML_HOLD_CONTEXT), alternated, same seed; then the daemon attack and
# two sanitizer-caught planted bugs of scripts/class-corpus.sh, one lab each (ROUNDS=0: only these).
# Needs make all labs.
# Logs under ${OUT:-build/exp}; one line per grading on stdout.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-build/exp}; mkdir -p "$out"
scripts/class-corpus.sh build/hold-subs build/hold-batch > /dev/null
line() { printf '%-24s %s | %s\n' "$1" "$(grep -h '^ *[0-9.]* graded' "$2" | sed 's/^ *[0-9.]* //')" \
    "$(grep -h 'sanitizers: [0-9]* runs' "$2" | sed 's/^ *[0-9.]* //')"; }
for i in $(seq 1 "${ROUNDS:-2}"); do
    for h in 0 1; do
        rm -rf build/cache
        CML_HOLD_CONTEXT=$h scripts/exp/stage-times.sh build/ab --submission solutions --seed 11 \
            > "$out/ab-hold$h-$i.log" 2>&1
        line "cold, hold $h, round $i" "$out/ab-hold$h-$i.log"
    done
done
for s in "attack-3 05" "planted-4 04" "planted-2 02"; do
    set -- $s
    scripts/exp/stage-times.sh build/one --submission "build/hold-subs/$1" --lab "$2" \
        > "$out/$1.log" 2>&1
    line "$1 (lab $2)" "$out/$1.log"
    grep -h -i -E "sanitizer|Score" "$out/$1.log" | grep -v "^ *[0-9.]* sanitizers:" | tail -n 4
done
