/* The supervisor between the grader and a lab process. It is a child subreaper, so every
 * descendant the lab leaves behind (a double fork, a setsid daemon) is reparented to it rather
 * than to init, and it kills them all before it reports: nothing outlives its task. It also
 * enforces the deadline and sums the tree's resident memory against a cap. It is a forked
 * child of a threaded program that never execs, so it uses system calls only: no malloc, no
 * stdio, /proc read with getdents64 into stack buffers. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 8192 /* processes looked at per /proc scan */
#define WATCH_MS 50    /* resident memory checked this often */

/* One /proc scan's table, shared by the memory watch and the killing (the supervisor is
 * single-threaded). */
static int scan_pid[MAX_PROCS], scan_ppid[MAX_PROCS], scan_sid[MAX_PROCS];

struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long parse_long(const char *s)
{
    long v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (*s++ - '0');
    return v;
}

/* The first `len - 1` bytes of /proc/<pid>/<what>, NUL-terminated; -1 when unreadable. */
static int read_proc(int pid, const char *what, char *buf, size_t len)
{
    char path[64] = "/proc/", digits[16];
    int n = 0, p = pid;
    do { digits[n++] = (char)('0' + p % 10); p /= 10; } while (p && n < 15);
    size_t o = strlen(path);
    while (n > 0) path[o++] = digits[--n];
    path[o++] = '/';
    for (const char *w = what; *w && o < sizeof path - 1; w++) path[o++] = *w;
    path[o] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, len - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    return 0;
}

/* Every process's pid, parent pid and session (n of them). */
static int scan(int *pid, int *ppid, int *sid)
{
    char buf[8192], stat[512];
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
    if (fd < 0)
        return 0;
    long got;
    while (n < MAX_PROCS && (got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got && n < MAX_PROCS;) {
            struct dirent64_raw *e = (struct dirent64_raw *)(buf + off);
            off += e->reclen;
            if (e->name[0] < '1' || e->name[0] > '9')
                continue;
            int p = (int)parse_long(e->name);
            if (read_proc(p, "stat", stat, sizeof stat) < 0)
                continue;
            char *close_paren = strrchr(stat, ')'); /* the name may hold spaces and ')' */
            if (!close_paren || strlen(close_paren) < 5)
                continue;
            const char *f = close_paren + 4; /* ") S ppid pgrp session" */
            pid[n] = p;
            ppid[n] = (int)parse_long(f);
            for (int skip = 0; skip < 2 && *f; skip++) {
                while (*f && *f != ' ') f++;
                f += *f == ' ';
            }
            sid[n++] = (int)parse_long(f);
        }
    }
    close(fd);
    return n;
}

/* Whether process i of the scan descends from `self`. */
static int descends(int i, int self, const int *pid, const int *ppid, int n)
{
    for (int depth = 0, p = ppid[i]; depth < 64 && p > 1; depth++) {
        if (p == self)
            return 1;
        int j = 0;
        while (j < n && pid[j] != p) j++;
        if (j == n)
            return 0;
        p = ppid[j];
    }
    return 0;
}

/* Resident bytes of every descendant of self, from the n processes of the last scan. */
static uint64_t tree_rss(int self, int n)
{
    int *pid = scan_pid, *ppid = scan_ppid;
    char statm[128];
    uint64_t pages = 0;
    for (int i = 0; i < n; i++)
        if (descends(i, self, pid, ppid, n) && read_proc(pid[i], "statm", statm, sizeof statm) == 0) {
            const char *s = statm;
            while (*s && *s != ' ') s++;
            pages += (uint64_t)parse_long(s + (*s == ' '));
        }
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* SIGKILL every child of self but `spare` (-1: none); how many. Orphans of the killed come
 * back as new children. */
static int kill_children(int self, pid_t spare)
{
    int *pid = scan_pid, *ppid = scan_ppid;
    int n = scan(pid, ppid, scan_sid), killed = 0;
    for (int i = 0; i < n; i++)
        if (ppid[i] == self && pid[i] != spare && kill(pid[i], SIGKILL) == 0)
            killed++;
    return killed;
}

/* Under a tool, while it runs, a daemon of the lab dies now, since the tool waits for every
 * process it follows (compute-sanitizer kept running to its time limit, the GPU held, 60 s on an
 * H100): any child of ours but the tool (an orphan), and any process of our tree in a session of
 * its own (setsid: compute-sanitizer's launcher is a subreaper, so a daemon's orphan goes to it,
 * not to us; the tools start none, measured on an H100). Killed, reaped, counted as strays; the
 * tool's own end, met here, goes into rep. A daemon that keeps the session still holds the tool
 * to its limit, and its runs are `not checked`. From the n processes of the last scan. */
static void kill_orphans(int self, pid_t tool, int n, cml_reaper_report *rep, int *strays)
{
    int *pid = scan_pid, *ppid = scan_ppid, *sid = scan_sid;
    int own = (int)getsid(0), killed = 0;
    for (int i = 0; i < n; i++)
        if (pid[i] != tool && (ppid[i] == self || (sid[i] != own &&
                                                   descends(i, self, pid, ppid, n))) &&
            kill(pid[i], SIGKILL) == 0)
            killed++;
    if (killed == 0)
        return;
    int st;
    pid_t got;
    while ((got = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
        if (got == tool) {
            rep->status = st;
            rep->ended = 1;
        } else {
            (*strays)++;
        }
    }
}

/* Kill and reap until no child is left. Counts the distinct strays beside `lab`. */
static void reap_all(int self, pid_t lab, int *lab_status, int *lab_ended, int *strays)
{
    for (;;) {
        int st, killed = kill_children(self, -1);
        pid_t got = waitpid(-1, &st, WNOHANG | __WALL);
        if (got < 0 && errno == ECHILD)
            return;
        if (got == lab && !*lab_ended) {
            *lab_status = st;
            *lab_ended = 1;
        } else if (got > 0) {
            (*strays)++;
        }
        if (got == 0 && killed == 0) {
            struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
        }
    }
}

/* The lab's turn came: pass the seed the grader wrote into go_r on to the lab (a pipe write
 * below PIPE_BUF bytes arrives whole), close both ends, and start the lab's clock. */
static double take_turn(const cml_reaper_plan *rp, int *go_r)
{
    char seed[64];
    ssize_t got;
    while ((got = read(*go_r, seed, sizeof seed)) < 0 && errno == EINTR)
        ;
    if (got > 0 && write(rp->seed_w, seed, (size_t)got) != got)
        got = 0; /* the lab reads a short seed and says so */
    close(rp->seed_w);
    close(*go_r);
    *go_r = -1;
    return now_s() + rp->timeout_s;
}

/* Contract in sandbox.h. */
_Noreturn void cml_reaper_main(void (*start)(void *), void *arg, const cml_reaper_plan *rp)
{
    cml_reaper_report rep;
    memset(&rep, 0, sizeof rep);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int self = (int)getpid(), go_r = rp->go_r;
    pid_t lab = fork();
    if (lab == 0)
        start(arg);
    for (int i = 0; i < 2; i++) /* the lab's ends of the grader's pipes: EOF follows its exit */
        if (rp->drop[i] >= 0)
            close(rp->drop[i]);
    int pidfd = lab > 0 ? (int)syscall(SYS_pidfd_open, lab, 0) : -1;
    double next_watch = 0, deadline = go_r >= 0 ? 1e300 /* no clock before go */
                                                : now_s() + rp->timeout_s;
    int strays = 0;
    while (lab > 0 && !rep.ended) {
        int st;
        pid_t got = waitpid(lab, &st, WNOHANG);
        if (got == lab) {
            rep.status = st;
            rep.ended = 1;
            break;
        }
        double t = now_s();
        if (t >= deadline) {
            rep.timed_out = 1;
            break;
        }
        if (t >= next_watch) { /* one /proc scan serves the memory watch and the orphans */
            const int n = scan(scan_pid, scan_ppid, scan_sid);
            uint64_t rss = tree_rss(self, n);
            rep.peak_rss = rss > rep.peak_rss ? rss : rep.peak_rss;
            if (rp->mem_cap && rss > rp->mem_cap) {
                rep.mem_exceeded = 1;
                break;
            }
            if (rp->tool)
                kill_orphans(self, lab, n, &rep, &strays);
            next_watch = t + WATCH_MS * 1e-3;
        }
        double wait_ms = (deadline - t) * 1e3;
        struct pollfd p[2] = { { pidfd, POLLIN, 0 }, { go_r, POLLIN, 0 } };
        poll(pidfd >= 0 ? p : p + 1, (pidfd >= 0) + (go_r >= 0),
             wait_ms < WATCH_MS ? (int)wait_ms + 1 : WATCH_MS);
        if (go_r >= 0 && (p[1].revents & (POLLIN | POLLHUP)))
            deadline = take_turn(rp, &go_r);
    }
    reap_all(self, lab, &rep.status, &rep.ended, &strays);
    rep.strays = strays;
    if (rep.timed_out || rep.mem_exceeded)
        rep.ended = 0; /* killed by us: the status says SIGKILL, the flags say why */
    ssize_t w = write(rp->report_fd, &rep, sizeof rep);
    (void)w;
    _exit(lab > 0 ? 0 : 1);
}

/* Contract in sandbox.h. close_range over the gaps between the kept descriptors; a loop of
 * close() on kernels without it. */
void cml_close_all_but(const int *keep, int n)
{
    int sorted[16], m = 0;
    for (int i = 0; i < n && m < 16; i++)
        if (keep[i] >= 3)
            sorted[m++] = keep[i];
    for (int i = 1; i < m; i++) /* insertion sort: a handful of descriptors */
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            int t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t;
        }
    unsigned from = 3;
    for (int i = 0; i <= m; i++) {
        unsigned to = i < m ? (unsigned)sorted[i] - 1 : ~0u;
        if (to >= from && syscall(SYS_close_range, from, to, 0) < 0)
            for (unsigned fd = from; fd <= to && fd < 65536; fd++)
                close((int)fd);
        if (i < m)
            from = (unsigned)sorted[i] + 1;
    }
}
