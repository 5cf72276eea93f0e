#!/usr/bin/env bash
# Experiment (issue 22, the class batch's rate): the host-timed loops of labs 06 and 07 in this
# tree (new) and in this tree with PATCH reversed (base). The solution's lab binaries of each
# tree, run directly on the timed cases of 7.2, 7.3 and 6.1 to 6.3b, ROUNDS rounds alternated,
# one seed. PATCH: `git diff BASE -- labs common` made beside it (the two trees differ in it).
# Usage (GPU machine): scripts/exp/um-reset.sh WORK PATCH [ROUNDS]
# Prints per round: each lab's wall seconds, then each timed case's ms, reps and spread.
set -uo pipefail
cd "$(dirname "$0")/../.."
w=$1 patch=$(realpath "$2") rounds=${3:-3}
rm -rf "$w" && mkdir -p "$w"
bins="build/solutions/07_unified_memory/lab build/solutions/06_zero_copy/lab"
for t in base new; do
    mkdir -p "$w/$t" && cp -r labs common solutions Makefile "$w/$t/"
    [ "$t" = base ] && patch -s -R -p1 -d "$w/base" < "$patch"
    make -s -C "$w/$t" -j16 $bins > "$w/$t.build.log" 2>&1 || { tail "$w/$t.build.log"; exit 1; }
done
big=rows=8192,cols=8192,time n=n=67108864,passes=1,time
for r in $(seq "$rounds"); do
    for t in base new; do
        s=$EPOCHREALTIME
        "$w/$t/build/solutions/07_unified_memory/lab" --seed 7 --case "7.2,$big" \
            --case "7.3,$big" --no-output > "$w/$t-$r.log" 2>&1
        rc=$? m=$EPOCHREALTIME
        "$w/$t/build/solutions/06_zero_copy/lab" --seed 7 --case "6.1,$n" --case "6.2,$n" \
            --case "6.3a,$n" --case "6.3b,n=67108864,passes=10,time" --no-output \
            >> "$w/$t-$r.log" 2>&1
        rc=$((rc + $?))
        printf '%-6s round %d: exit %d, lab 07 %s s, lab 06 %s s\n' "$t" "$r" "$rc" \
            "$(awk -v a="$s" -v b="$m" 'BEGIN { printf "%.2f", b - a }')" \
            "$(awk -v a="$m" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
        grep -o '[0-9.]* ms end to end (events [0-9.]* ms, [0-9]* reps, spread [0-9.]*%)' \
            "$w/$t-$r.log" | sed 's/^/    /'
    done
done
