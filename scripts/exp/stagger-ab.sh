#!/usr/bin/env bash
# Experiment (issue 22, the class batch's rate): the same class graded by `cml-grade batch` with
# its two gradings per GPU started together (CML_BATCH_STAGGER=0) and staggered (the default,
# 10 s), one after the other on one machine, against one calibration made first. The class: the
# first N student folders of scripts/class-corpus.sh that are not attacks (whose patches name
# another batch's folders). Usage (GPU machine, after make all): scripts/exp/stagger-ab.sh WORK [N]
# Prints one line per run: wall, seconds per submission, GPU runs summed over students.
set -uo pipefail
cd "$(dirname "$0")/../.."
w=$1 n=${2:-8}
rm -rf "$w" && mkdir -p "$w/class"
scripts/class-corpus.sh "$w/subs" "$w/corpus-out" > /dev/null
find "$w/subs" -mindepth 1 -maxdepth 1 -type d ! -name 'attack-*' | sort | head -n "$n" |
    while read -r d; do cp -r "$d" "$w/class/"; done
build/cml-grade calibrate --out "$w/gpu.cal" > "$w/calibrate.log" 2>&1 || {
    echo "calibration failed: $w/calibrate.log"; exit 1; }
for stagger in 0 10; do
    o="$w/out-$stagger"
    s=$EPOCHREALTIME
    CML_BATCH_STAGGER=$stagger build/cml-grade batch --submissions "$w/class" --out "$o" \
        --calibration "$w/gpu.cal" > "$w/batch-$stagger.log" 2>&1
    e=$EPOCHREALTIME
    held=$(cat "$o"/students/*/grade.log 2>/dev/null | grep -o 'GPU runs [0-9.]*' |
           awk '{ s += $3 } END { printf "%.1f", s }')
    k=$(ls "$w/class" | wc -l)
    awk -v s="$s" -v e="$e" -v k="$k" -v g="$stagger" -v h="$held" 'BEGIN {
        printf "stagger %2d s: %d students in %.1f s, %.1f s per submission, GPU runs %s s\n",
               g, k, e - s, (e - s) / k, h }'
done
