/* Output capture and waiting for a child (see run_capture.h). */
#include "run_capture.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 65536

void cml_capture_bytes(capture *c, const char *data, size_t n)
{
    size_t keep = c->cap - c->len < n ? c->cap - c->len : n;
    if (keep > 0 && c->len + keep > c->alloc) {
        size_t want = c->alloc ? c->alloc : 4096;
        while (want < c->len + keep) want *= 2;
        if (want > c->cap) want = c->cap;
        char *grown = realloc(c->buf, want + 1);
        if (!grown) keep = 0; else { c->buf = grown; c->alloc = want; }
    }
    memcpy(c->buf + c->len, data, keep);
    c->len += keep;
    c->dropped += n - keep;
}

/* Read what is there; 0 on end of file, 1 when more may come. */
int cml_read_some(int fd, capture *c)
{
    char chunk[CHUNK];
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (got == 0)
        return 0;
    cml_capture_bytes(c, chunk, (size_t)got);
    return 1;
}

int cml_child_has_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
        return errno != EINTR;
    return si.si_pid == pid;
}

int cml_open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

/* Contract in run_capture.h. With a hook, poll wakes at least every 100 ms to ask it. */
int cml_watch(pid_t pid, int out_r, double deadline, const cml_watch_hook *hook, int *stopped,
              capture *c)
{
    int pidfd = cml_open_pidfd(pid), pipe_open = 1, timed_out = 0;
    double next_ask = cml_now() + 0.1;
    for (;;) {
        if (cml_child_has_exited(pid))
            break;
        double now = cml_now(), left = deadline - now;
        if (left <= 0) { timed_out = 1; break; }
        if (hook && now >= next_ask) {
            next_ask = now + 0.1;
            if (hook->stop(hook->ctx)) { *stopped = 1; break; }
        }
        int ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
        if (pidfd < 0 && ms > 20)
            ms = 20; /* no pidfd: look at the child every 20 ms */
        if (hook && ms > 100)
            ms = 100;
        struct pollfd fds[2] = { { pipe_open ? out_r : -1, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
        if (poll(fds, 2, ms) > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            pipe_open = cml_read_some(out_r, c);
    }
    if (pidfd >= 0)
        close(pidfd);
    return timed_out;
}

/* Kill the group (stray grandchildren too), keep what is left in the pipe, reap. */
void cml_finish(pid_t pid, int out_r, capture *c, int *status)
{
    kill(-pid, SIGKILL);
    fcntl(out_r, F_SETFL, O_NONBLOCK);
    char chunk[CHUNK];
    ssize_t got;
    while ((got = read(out_r, chunk, sizeof chunk)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0)
            cml_capture_bytes(c, chunk, (size_t)got);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}
