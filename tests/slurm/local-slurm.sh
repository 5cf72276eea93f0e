#!/usr/bin/env bash
# A private single-node Slurm cluster under one folder, for tests: its own munged (key, socket),
# slurmctld and slurmd on 127.0.0.1, a node of 2 CPUs offering 2 fake GPUs (gres/gpu on plain
# files), nothing read from /etc/slurm or /etc/munge. docs/ARCHITECTURE.md, "The Slurm test".
#   local-slurm.sh check        exit 0 when the programs are here, else 1 and the reason
#   local-slurm.sh start DIR    start it (DIR is created); on failure: the logs' tails, stop, 1
#   local-slurm.sh env DIR      the environment a client needs (SLURM_CONF=..., PATH=...)
#   local-slurm.sh run DIR CMD..  CMD (sbatch, squeue, scontrol...) in that environment
#   local-slurm.sh stop DIR     stop everything it started under DIR (safe after a failed start)
# CML_SLURM_BIN=dir: look for the programs only there (a folder without them: "not installed").
# CML_SLURM_START_TIMEOUT=s: how long start waits for the node to be idle (default 30).
set -euo pipefail
caller_pwd="$PWD"
cd / # never a user of DIR itself (stop kills those)

PROGRAMS="munged slurmctld slurmd sbatch sinfo scontrol"

die() {
    echo "local-slurm.sh: $*" >&2
    exit 1
}

# The folder holding program $1: CML_SLURM_BIN alone when set, else PATH, /usr/sbin, /sbin.
find_prog() {
    local dirs d dirs_a
    dirs="${CML_SLURM_BIN:-$PATH:/usr/sbin:/sbin:/usr/bin}"
    IFS=: read -r -a dirs_a <<<"$dirs"
    for d in "${dirs_a[@]}"; do
        if [ -n "$d" ] && [ -x "$d/$1" ] && [ ! -d "$d/$1" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

cmd_check() {
    local p missing=""
    if [ "$(id -u)" != 0 ]; then
        echo "not root (slurmd runs jobs as their user; the fake GPUs are device nodes)"
        return 1
    fi
    for p in $PROGRAMS; do
        find_prog "$p" >/dev/null || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "not found:$missing (apt-get install slurm-wlm munge)"
        return 1
    fi
    # a container may deny device nodes (no CAP_MKNOD): then the fake GPUs cannot exist
    local t
    t="$(mktemp -d)"
    if ! mknod "$t/probe" c 1 3 2>/dev/null; then
        rm -rf "$t"
        echo "cannot create device nodes here (no CAP_MKNOD?): the fake GPUs need them"
        return 1
    fi
    rm -rf "$t"
}

# PATH for clients and daemons: the folders of the programs first.
bin_path() {
    local p out=""
    for p in $PROGRAMS; do
        local d
        d="$(find_prog "$p")"
        case ":$out:" in *":$d:"*) ;; *) out="${out:+$out:}$d" ;; esac
    done
    echo "$out:$PATH"
}

# Whether pid $1 runs (a zombie does not: nobody may reap a daemon whose parent left).
alive() {
    local state
    state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)" ||
        return 1
    [ -n "$state" ] && [ "$state" != Z ]
}

# A port nobody listens on (TCP, IPv4 or IPv6), from a range tests rarely use; not $1.
free_port() {
    local p hex _
    for _ in $(seq 1 200); do
        p=$((21000 + (RANDOM % 8000)))
        [ "$p" != "${1:-}" ] || continue
        hex="$(printf ':%04X ' "$p")"
        if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q "$hex"; then
            echo "$p"
            return 0
        fi
    done
    die "no free port found in 21000-28999"
}

# Start program $2.. in the background, detached, output to log $1; its pid into $DIR/pid/$2.
spawn() {
    local log="$1" name="$2"
    shift 2
    setsid "$@" >>"$log" 2>&1 </dev/null &
    echo $! >"$DIR/pid/$name"
}

write_conf() {
    local host="$1" user="$2" ctld_port="$3" slurmd_port="$4"
    cat >"$DIR/etc/slurm.conf" <<EOF
# Written by tests/slurm/local-slurm.sh: a private single-node cluster.
ClusterName=cml-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$DIR/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    # A job asking --gres=gpu:1 is given one of the two fake devices; CUDA_VISIBLE_DEVICES
    # names its index (0 or 1).
    cat >"$DIR/etc/gres.conf" <<EOF
NodeName=$host Name=gpu File=$DIR/gpu/nvidia[0-1]
EOF
    : >"$DIR/etc/plugstack.conf"
}

# The last lines of every log, for a failed start.
log_tails() {
    local f
    for f in "$DIR"/log/*.log; do
        [ -f "$f" ] || continue
        echo "---- $f (last 15 lines)" >&2
        tail -n 15 "$f" >&2
    done
}

start_failed() {
    echo "local-slurm.sh: start $DIR: $*" >&2
    log_tails
    cmd_stop >/dev/null 2>&1 || true
    exit 1
}

cmd_start() {
    local why
    why="$(cmd_check)" || die "$why"
    mkdir -p "$DIR"
    DIR="$(cd "$DIR" && pwd -P)"
    case "$DIR" in *[[:space:]]* | *'#'*) die "'$DIR': slurm.conf cannot hold this path" ;; esac
    [ ! -e "$DIR/etc/slurm.conf" ] || die "$DIR already holds a cluster (stop it, use a fresh folder)"
    mkdir -p "$DIR"/{etc,state,spool,log,run,pid,gpu,munge}
    chmod 0755 "$DIR/munge" # munged wants its socket's folder searchable by all
    # The 2 GPUs: character devices with the null device's numbers (1,3), which nothing opens.
    # Slurm 22.05 drops a File= that is not a device (the job then gets no CUDA_VISIBLE_DEVICES)
    # and, given only Count=2, has slurmd report 0 GPUs, so the node is INVAL.
    local g
    for g in 0 1; do
        mknod -m 0666 "$DIR/gpu/nvidia$g" c 1 3 ||
            die "mknod $DIR/gpu/nvidia$g: slurmd needs the fake GPUs as devices (run as root)"
    done
    local host user ctld_port slurmd_port path
    host="$(hostname -s)"
    user="$(id -un)"
    ctld_port="$(free_port)"
    slurmd_port="$(free_port "$ctld_port")"
    path="$(bin_path)"
    write_conf "$host" "$user" "$ctld_port" "$slurmd_port"

    # munge: a key only this user reads, and a socket of its own (-F: we hold the pid).
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$DIR/munge/munge.key"
    spawn "$DIR/log/munged.log" munged "$(find_prog munged)/munged" -F --force \
        --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
        --pid-file="$DIR/run/munged.pid" --seed-file="$DIR/munge/munged.seed" \
        --log-file="$DIR/log/munged.log"
    local _
    for _ in $(seq 1 50); do
        [ -S "$DIR/munge/munge.socket" ] && break
        alive "$(cat "$DIR/pid/munged")" || start_failed "munged exited"
        sleep 0.1
    done
    [ -S "$DIR/munge/munge.socket" ] || start_failed "munged made no socket in 5 s"

    export SLURM_CONF="$DIR/etc/slurm.conf" PATH="$path"
    spawn "$DIR/log/slurmctld.out" slurmctld slurmctld -D -i -f "$SLURM_CONF"
    spawn "$DIR/log/slurmd.out" slurmd slurmd -D -f "$SLURM_CONF"

    local timeout="${CML_SLURM_START_TIMEOUT:-30}" t0=$SECONDS state=""
    while [ $((SECONDS - t0)) -lt "$timeout" ]; do
        for d in munged slurmctld slurmd; do
            alive "$(cat "$DIR/pid/$d")" || start_failed "$d exited"
        done
        state="$(sinfo -h -N -o %T 2>/dev/null || true)"
        [ "$state" = idle ] && return 0
        sleep 0.2
    done
    start_failed "the node is not idle after $timeout s (sinfo says '${state:-nothing}')"
}

cmd_env() {
    DIR="$(cd "$DIR" && pwd -P)"
    [ -f "$DIR/etc/slurm.conf" ] || die "$DIR holds no cluster"
    echo "SLURM_CONF=$DIR/etc/slurm.conf"
    echo "PATH=$(bin_path)"
}

# SIGTERM to the pids given, then up to 10 s for them to go, then SIGKILL.
end_pids() {
    local pid _ left
    for pid in "$@"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for _ in $(seq 1 100); do
        left=""
        for pid in "$@"; do
            alive "$pid" && left="$left $pid"
        done
        [ -n "$left" ] || return 0
        sleep 0.1
    done
    for pid in $left; do
        kill -KILL "$pid" 2>/dev/null || true
    done
}

# Up to 5 s for init to reap the pids given (their parent, start, has left: they linger as
# zombies for up to 2 s here), so that pgrep after a stop lists nothing.
wait_reaped() {
    local pid _ left
    for _ in $(seq 1 50); do
        left=""
        for pid in "$@"; do
            [ ! -e "/proc/$pid" ] || left=1
        done
        [ -n "$left" ] || return 0
        sleep 0.1
    done
}

# This script and its callers, up to init: never among the processes stop kills.
ancestors() {
    local p=$$
    while [ -n "$p" ] && [ "$p" -gt 1 ]; do
        echo "$p"
        p="$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)"
    done
}

# Pids of processes using DIR (working folder or an open file beneath it): slurmstepd and the
# jobs, which slurmd detaches, and any daemon whose pid file was never written.
users_of_dir() {
    local p link keep
    keep=" $(ancestors | tr '\n' ' ') $BASHPID "
    for p in /proc/[0-9]*; do
        p="${p#/proc/}"
        case "$keep" in *" $p "*) continue ;; esac
        for link in "/proc/$p/cwd" "/proc/$p"/fd/*; do
            case "$(readlink "$link" 2>/dev/null)" in
            "$DIR" | "$DIR"/*) echo "$p"; break ;;
            esac
        done
    done
}

cmd_stop() {
    [ -d "$DIR" ] || return 0
    DIR="$(cd "$DIR" && pwd -P)"
    local d pid slurm="" all=""
    for d in slurmd slurmctld munged; do
        pid="$(cat "$DIR/pid/$d" 2>/dev/null || true)"
        [ -z "$pid" ] || all="$all $pid"
        [ -z "$pid" ] || [ "$d" = munged ] || slurm="$slurm $pid"
    done
    # shellcheck disable=SC2086 # word splitting wanted: lists of pids
    {
        end_pids $slurm
        pid="$(cat "$DIR/pid/munged" 2>/dev/null || true)"
        [ -z "$pid" ] || end_pids "$pid"
        for pid in $(users_of_dir); do
            kill -KILL "$pid" 2>/dev/null || true
            all="$all $pid"
        done
        wait_reaped $all
    }
    rm -f "$DIR"/pid/*
}

[ $# -ge 1 ] || die "usage: local-slurm.sh check | start DIR | env DIR | run DIR CMD... | stop DIR"
case "$1" in
check) cmd_check ;;
run)
    [ $# -ge 3 ] || die "usage: local-slurm.sh run DIR CMD..."
    DIR="$2"
    shift 2
    conf="$(cmd_env)"
    while IFS= read -r line; do
        export "${line?}"
    done <<<"$conf"
    cd "$caller_pwd"
    exec "$@"
    ;;
start | env | stop)
    [ $# -eq 2 ] || die "usage: local-slurm.sh $1 DIR"
    DIR="$2"
    "cmd_$1"
    ;;
*) die "unknown command '$1'" ;;
esac
