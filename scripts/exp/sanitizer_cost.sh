#!/usr/bin/env bash
# Experiment (issue 9, "sanitizers by default"): what compute-sanitizer costs on each lab's
# untimed cases, per tool, one run per lab and tool; then all of them at once, 8 at a time.
# Needs `make labs` first. Prints a table of seconds; logs under ${OUT:-build/exp}.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-build/exp}; mkdir -p "$out"
cs=${CML_SANITIZER:-compute-sanitizer}
cases() { # every untimed case of a spec, as --case arguments
    awk '/^task/{t=$2} /^case/{ if ($0 ~ / time/) next; c=$2; if (c=="" ) c="";
         printf "--case %s%s%s ", t, (c==""?"":","), c }' "$1"
}
jobs=()
for spec in grader/specs/0*.spec; do
    lab=$(basename "$spec" .spec)
    args=$(cases "$spec")
    for tool in memcheck racecheck synccheck initcheck; do
        jobs+=("$lab $tool")
        t0=$EPOCHREALTIME
        timeout 90 $cs --tool $tool --error-exitcode 99 --log-file "$out/$lab-$tool.log" \
            build/solutions/$lab/lab --seed 7 --no-output $args > "$out/$lab-$tool.out" 2>&1
        rc=$?
        printf '%-20s %-10s rc %-3d %6.2f s\n' "$lab" "$tool" "$rc" \
            "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" | tee -a "$out/sanitizer-serial.txt"
    done
done
t0=$EPOCHREALTIME
for j in "${jobs[@]}"; do echo "$j"; done | xargs -P 8 -L 1 bash -c '
    lab=$0 tool=$1; spec=grader/specs/$lab.spec
    args=$(awk "/^task/{t=\$2} /^case/{ if (\$0 ~ / time/) next; printf \"--case %s,%s \", t, \$2 }" $spec)
    '"$cs"' --tool $tool --error-exitcode 99 build/solutions/$lab/lab --seed 7 --no-output $args >/dev/null 2>&1 || echo "$lab $tool rc $?"'
printf 'all %d runs, 8 at a time: %.2f s\n' "${#jobs[@]}" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" | tee -a "$out/sanitizer-serial.txt"
