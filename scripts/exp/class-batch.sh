#!/usr/bin/env bash
# Issue 10's device figures: the mixed class of scripts/class-corpus.sh graded by cml-grade
# batch, timed, then checked. Usage (on the GPU machine, after make all):
#   scripts/exp/class-batch.sh WORK [batch options...]   e.g. --calibration FILE, --gpus 0,1
# BATCH_LIMIT=S stops the batch after S seconds (SIGTERM) and still checks and times what was
# graded, so that a device call's limit does not lose the whole run (one stopped at 17 of 20).
# COLD=1 empties build/cache first: the batch's calibration and first gradings then build the
# references, as on a server's first batch (later batches find them cached).
# Logs: WORK/batch.log (progress), WORK/check.txt (one verdict per student), WORK/out/.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$1; shift
rm -rf "$work" && mkdir -p "$work"
[ -n "${COLD:-}" ] && rm -rf build/cache
scripts/class-corpus.sh "$work/subs" "$work/out" > /dev/null
limit=()
[ -n "${BATCH_LIMIT:-}" ] && limit=(timeout --kill-after=30 "$BATCH_LIMIT")
s=$EPOCHREALTIME
"${limit[@]}" build/cml-grade batch --submissions "$work/subs" --out "$work/out" "$@" \
    > "$work/batch.log" 2>&1
e=$EPOCHREALTIME
scripts/class-corpus.sh --check "$work/subs" "$work/out" > "$work/check.txt"
# the batch's progress lines ("17/20 name: ...") say how far it got
done_n=$(grep -oE '^[0-9]+/20 ' "$work/batch.log" | tail -n 1 | cut -d/ -f1)
awk -v s="$s" -v e="$e" -v n="${done_n:-20}" 'BEGIN {
    printf "batch wall %.1f s, %d of 20 done, %.1f s per submission\n", e - s, n, (e - s) / n }' \
    | tee -a "$work/check.txt"
tail -n 3 "$work/batch.log"
tail -n 1 "$work/check.txt"
