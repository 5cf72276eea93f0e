/* The sandbox's helpers (see run.h): a child's environment, result descriptors, and words for
 * how a run ended. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RESULT_MAX (1u << 20)

extern char **environ;

static int same_key(const char *a, const char *b)
{
    size_t n = strcspn(b, "=");
    return strncmp(a, b, n) == 0 && a[n] == '=';
}

/* Contract in run.h. */
char **cml_child_env(char *const extra[], const char *result_entry)
{
    size_t n = 0, k = 0;
    while (environ[n]) n++;
    while (extra && extra[k]) k++;
    char **envp = malloc((n + k + 2) * sizeof *envp);
    if (!envp)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int drop = same_key(environ[i], "CML_RESULT_FD=");
        for (size_t j = 0; j < k && !drop; j++)
            drop = same_key(environ[i], extra[j]);
        if (!drop)
            envp[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        envp[m++] = extra[j];
    if (result_entry)
        envp[m++] = (char *)result_entry;
    envp[m] = NULL;
    return envp;
}


/* Contract in run.h. A pipe holds far more than a number: the write never blocks. */
int cml_seed_fd_open(uint64_t seed)
{
    int p[2];
    char text[32];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    int n = snprintf(text, sizeof text, "%llu\n", (unsigned long long)seed);
    ssize_t put = write(p[1], text, (size_t)n);
    int err = errno;
    close(p[1]);
    if (put != n) {
        close(p[0]);
        errno = put < 0 ? err : EIO;
        return -1;
    }
    return p[0];
}

/* Contract in run.h. memfd first; an unlinked temporary file where memfd is missing. */
int cml_result_fd_open(void)
{
    int fd = memfd_create("cml-result", MFD_CLOEXEC);
    if (fd >= 0 || errno != ENOSYS)
        return fd;
    char path[] = "/tmp/cml-result-XXXXXX";
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Contract in run.h. */
char *cml_result_fd_read(int fd, size_t *len)
{
    char *buf = malloc(RESULT_MAX + 1);
    size_t n = 0;
    while (buf && n < RESULT_MAX) {
        ssize_t got = pread(fd, buf + n, RESULT_MAX - n, (off_t)n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Names of the signals a lab binary is likely to die of. */
const char *cml_signal_name(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGILL, "SIGILL" },
        { SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" }, { SIGTERM, "SIGTERM" },
        { SIGINT, "SIGINT" }, { SIGHUP, "SIGHUP" }, { SIGPIPE, "SIGPIPE" },
        { SIGXFSZ, "SIGXFSZ" }, { SIGXCPU, "SIGXCPU" }, { SIGTRAP, "SIGTRAP" },
        { SIGSYS, "SIGSYS" }, { SIGQUIT, "SIGQUIT" }, { SIGALRM, "SIGALRM" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    static _Thread_local char other[32];
    snprintf(other, sizeof other, "signal %d", sig);
    return other;
}

/* One phrase for how the run ended. */
void cml_proc_describe(const cml_proc_result *r, double timeout_s, char *buf, size_t len)
{
    if (!r->started)
        snprintf(buf, len, "%s", r->output ? r->output : "could not start");
    else if (r->timed_out)
        snprintf(buf, len, "timed out after %g s (killed)", timeout_s);
    else if (r->watch_stopped) /* the caller says what its watch saw */
        snprintf(buf, len, "was stopped by the grader's watch");
    else if (r->mem_exceeded) /* the supervisor's SIGKILL: say why, not just the signal */
        snprintf(buf, len, "was killed: its processes used more than %llu MiB of host memory",
                 (unsigned long long)(r->mem_cap >> 20));
    else if (r->signaled)
        snprintf(buf, len, "was killed by %s (%s)", cml_signal_name(r->signal),
                 strsignal(r->signal));
    else if (r->exit_code != 0)
        snprintf(buf, len, "exited with status %d", r->exit_code);
    else
        snprintf(buf, len, "exited normally");
}

/* The last max bytes of output on one line. */
void cml_proc_tail(const cml_proc_result *r, size_t max, char *buf, size_t len)
{
    size_t n = r->output ? r->output_len : 0;
    while (n > 0 && (r->output[n - 1] == '\n' || r->output[n - 1] == ' '))
        n--;
    size_t from = n > max ? n - max : 0;
    size_t o = 0;
    if (from > 0 && o + 4 < len) {
        memcpy(buf, "... ", 4);
        o = 4;
    }
    for (size_t i = from; i < n && o + 4 < len; i++) {
        char ch = r->output[i];
        if (ch == '\n') { memcpy(buf + o, " | ", 3); o += 3; }
        else buf[o++] = (ch == '\t' || (unsigned char)ch >= 32) ? ch : '?';
    }
    if (len > 0)
        buf[o < len ? o : len - 1] = '\0';
}
