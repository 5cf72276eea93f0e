#!/usr/bin/env bash
# Where a class batch leaves its GPU idle: samples, every 0.1 s, who holds the batch's GPU lock
# (the flock on OUT/.gpu-0.lock, read from /proc/locks, so the sampler never takes the lock
# itself) and what each grading of the batch is doing (the last line of its grade.log), then
# sums the time the lock was free by what the gradings were doing meanwhile. The sampler forks a
# few processes per sample (about 4 a second in practice) and takes a share of the CPU: use it to
# see where the GPU idles, not for the batch's rate.
# Usage (on the GPU machine, beside a running batch):
#   scripts/exp/lock-timeline.sh OUT LOG &    # samples until OUT/gradebook.csv appears
#   scripts/exp/lock-timeline.sh --sum LOG    # the summary
set -uo pipefail
if [ "${1:-}" = --sum ]; then
    awk -F'\t' '
    { t = $1 + 0; if (NR == 1) t0 = t }
    NR > 1 { dt = t - last; if (prev_free) { free += dt; why[prev_why] += dt } else held += dt }
    { last = t; prev_free = ($2 == "-"); prev_why = $3 }
    END {
        printf "lock held %.1f s, free %.1f s of %.1f s sampled (%.0f s to %.0f s)\n",
               held, free, held + free, 0, last - t0
        for (w in why) if (why[w] >= 0.5) printf "%7.1f s free while: %s\n", why[w], w | "sort -rn"
    }' "$2"
    exit 0
fi
out=$1 log=$2
: > "$log"
until [ -e "$out/.gpu-0.lock" ]; do sleep 0.05; done
ino=$(stat -c %i "$out/.gpu-0.lock")
while [ ! -e "$out/gradebook.csv" ]; do
    now=$EPOCHREALTIME
    holder=$(awk -v ino=":$ino" '$2 == "FLOCK" && $4 == "WRITE" && index($6, ino) &&
                                  substr($6, length($6) - length(ino) + 1) == ino { print $5 }' \
             /proc/locks | head -n 1)
    # what the gradings do: the phase word of each running grade's last progress line
    what=$(for p in $(pgrep -f "cml-grade grade --submission"); do
               o=$({ tr '\0' '\n' < /proc/$p/cmdline; } 2>/dev/null | grep -A1 -x -- --out |
                   tail -n 1) # a grading that just ended has no cmdline: skipped
               [ -n "$o" ] && [ -f "$o/grade.log" ] || continue
               tail -n 1 "$o/grade.log" | sed -E "s/^ *[0-9.]+ //" |
                   sed -E 's/[0-9.]+ s\b//g; s/\[([0-9]+)_[a-z_]+\]/[\1]/' \
                   | cut -c1-40
           done | sort | uniq -c | tr -s ' ' | paste -sd'|')
    pgrep -f "cml-grade calibrate" > /dev/null && what="calibrate|$what"
    printf '%s\t%s\t%s\n' "$now" "${holder:--}" "$what" >> "$log"
    sleep 0.1
done
