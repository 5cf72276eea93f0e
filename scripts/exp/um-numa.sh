#!/usr/bin/env bash
# Why lab 07's 7.2 is bimodal from one process to the next (35 or 45 ms on an H100): the
# machine's topology (NUMA nodes, the GPU's node and local CPUs, transparent huge pages), then
# the solution's timed 7.2 and 6.3a case, each in processes of its own: unpinned, and pinned
# (taskset) to the GPU's local CPUs and to the others when there are any. Prints one line per
# process: how, case, ms end to end. Usage (GPU machine, after make all labs: the solutions'
# binaries are build/solutions/*/lab):
#   scripts/exp/um-numa.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-8}
echo "== topology"
lscpu | grep -i -E "^cpu\(s\)|numa|socket|model name"
for n in /sys/devices/system/node/node[0-9]*; do echo "$(basename $n): cpus $(cat $n/cpulist)"; done
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1 | tr 'A-F' 'a-f')
bus=${bus#0000}; dev=/sys/bus/pci/devices/0000${bus: -12}
[ -e "$dev" ] || dev=$(ls -d /sys/bus/pci/devices/*${bus: -7} 2>/dev/null | head -1)
echo "GPU $bus at $dev: numa_node $(cat $dev/numa_node 2>/dev/null) local_cpulist $(cat $dev/local_cpulist 2>/dev/null)"
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
nvidia-smi topo -m 2>&1 | head -8
local=$(cat $dev/local_cpulist 2>/dev/null)
all=$(cat /sys/devices/system/cpu/online)
other=$(python3 - "$local" "$all" <<'PY'
import sys
def ex(s):
    r=set()
    for p in s.split(','):
        if not p: continue
        a,_,b=p.partition('-'); r.update(range(int(a),int(b or a)+1))
    return r
o=sorted(ex(sys.argv[2])-ex(sys.argv[1]))
print(','.join(map(str,o)))
PY
)
echo "local CPUs: $local; others: ${other:-none}"
lab07=build/solutions/07_unified_memory/lab lab06=build/solutions/06_zero_copy/lab
one() { # how prefix... : one process, its 7.2 and 6.3a times
    local how=$1; shift
    for c in "7.2,rows=8192,cols=8192,time $lab07" "6.3a,n=67108864,passes=1,time $lab06"; do
        set -- $c
        local ms
        ms=$("${PFX[@]}" "$2" --no-output --case "$1" 2>&1 | grep -o -E "[0-9.]+ ms end to end" |
             head -1)
        printf "%-8s %-6s %s\n" "$how" "${1%%,*}" "$ms"
    done
}
echo "== per process"
for r in $(seq $rounds); do
    PFX=() one free
    PFX=(taskset -c "$local") one local
    [ -n "$other" ] && PFX=(taskset -c "$other") one other
done | tee /tmp/um-numa.txt
echo "== summary (ms per process)"
awk '{ k = $1 " " $2; v[k] = v[k] " " $3 } END { for (k in v) print k ":" v[k] }' /tmp/um-numa.txt | sort
