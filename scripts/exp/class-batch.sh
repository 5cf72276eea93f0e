#!/usr/bin/env bash
# Issue 10's device figures: the mixed class of scripts/class-corpus.sh graded by cml-grade
# batch, timed, then checked. Usage (on the GPU machine, after make all):
#   scripts/exp/class-batch.sh WORK [batch options...]   e.g. --calibration FILE, --gpus 0,1
# Logs: WORK/batch.log (progress), WORK/check.txt (one verdict per student), WORK/out/.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$1; shift
rm -rf "$work" && mkdir -p "$work"
scripts/class-corpus.sh "$work/subs" "$work/out" > /dev/null
s=$EPOCHREALTIME
build/cml-grade batch --submissions "$work/subs" --out "$work/out" "$@" > "$work/batch.log" 2>&1
e=$EPOCHREALTIME
scripts/class-corpus.sh --check "$work/subs" "$work/out" > "$work/check.txt"
awk -v s="$s" -v e="$e" 'BEGIN { printf "batch wall %.1f s, %.1f s per submission\n", e - s, (e - s) / 20 }' \
    | tee -a "$work/check.txt"
tail -n 3 "$work/batch.log"
tail -n 1 "$work/check.txt"
