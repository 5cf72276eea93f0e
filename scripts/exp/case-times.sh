#!/usr/bin/env bash
# Where one lab run's time goes, case by case: the solution's lab binary (make labs first) run
# as the grader runs it (every `case` line of the lab's spec, not the cases its `draw` lines
# add; the result channel open, outputs written), each record stamped with the seconds since the process started. A case's cost is
# the gap between its record and the one before. Usage (GPU machine, after make all labs):
#   scripts/exp/case-times.sh 06_zero_copy [more labs]
set -uo pipefail
cd "$(dirname "$0")/../.."
for lab in "$@"; do
    args=()
    while read -r kw rest; do
        case $kw in
        task) t=$rest ;;
        case) read -r -a f <<< "$rest"
              c="$t,${f[0]}"; [ "${f[1]:-}" = time ] && c+=",time"; args+=(--case "$c") ;;
        esac
    done < <(sed 's/#.*//' "grader/specs/$lab.spec")
    dir=$(mktemp -d)
    s=$EPOCHREALTIME
    echo "== $lab: ${#args[@]} args"
    CML_RESULT_FD=3 "build/solutions/$lab/lab" --out-dir "$dir" "${args[@]}" \
        3> >(while IFS= read -r l; do
                 awk -v s="$s" -v e="$EPOCHREALTIME" -v l="${l:0:110}" \
                     'BEGIN { printf "%6.2f %s\n", e - s, l }'
             done) > "$dir/stdout" 2>&1
    echo "exit $? after $(awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.2f", e - s }') s"
    sleep 0.3 # the stamped records come through the process substitution: let it finish
    rm -rf "$dir"
done
