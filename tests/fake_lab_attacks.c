/* What a hostile submission would try from inside the lab process (docs/TRUST.md, "What a
 * submission can do"), one mode each. Every attempt appends "<what> <target> <errno>" to
 * ./attack.log (errno 0: it worked), so the test can tell "refused" from "never tried".
 *   attack_write    open each target for writing (O_TRUNC) and scribble; a target ending in '/'
 *                   is a folder to create a file "pwned" in
 *   attack_read     open each target for reading
 *   attack_exec     execve each target (in a child; stdin empty, no environment)
 *   attack_daemon   double fork + setsid: a daemon that writes its pid to ./daemon.pid, then
 *                   rewrites each target every 50 ms for FAKE_DAEMON_S seconds (default 5)
 *   attack_signal   kill(pid, FAKE_SIGNAL) for each target pid ("ppid": the lab's parent)
 *   attack_hog      allocate and touch FAKE_HOG_MB MiB (default 256), hold it 2 s
 *   attack_symlink, attack_fifo, attack_hardlink
 *                   make case0.bin a symbolic link to the first target, a FIFO, or a hard link
 *                   to the first target; when that works the lab leaves it as its output */
#include "fake_lab_attacks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TARGETS 16

static void log_attempt(const char *what, const char *target, int err)
{
    FILE *f = fopen("attack.log", "a");
    if (!f)
        return;
    fprintf(f, "%s %s %d\n", what, target, err);
    fclose(f);
}

/* FAKE_TARGETS split at ':' into t (static storage); how many. */
static int targets(char t[][1024])
{
    const char *p = getenv("FAKE_TARGETS");
    int n = 0;
    for (; p && *p && n < MAX_TARGETS; p += strcspn(p, ":"), p += *p == ':')
        if (strcspn(p, ":") > 0)
            snprintf(t[n++], 1024, "%.*s", (int)strcspn(p, ":"), p);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Overwrite `path` (or create `path`pwned for a folder); errno or 0. */
static int scribble(const char *path, const char *text)
{
    char file[1100];
    size_t n = strlen(path);
    snprintf(file, sizeof file, "%s%s", path, n && path[n - 1] == '/' ? "pwned" : "");
    int fd = open(file, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return errno;
    int err = write(fd, text, strlen(text)) < 0 ? errno : 0;
    close(fd);
    return err;
}

static void attack_write(char t[][1024], int n)
{
    for (int i = 0; i < n; i++)
        log_attempt("write", t[i], scribble(t[i], "overwritten by the lab\n"));
}

static void attack_read(char t[][1024], int n)
{
    for (int i = 0; i < n; i++) {
        int fd = open(t[i], O_RDONLY | O_CLOEXEC);
        log_attempt("read", t[i], fd < 0 ? errno : 0);
        if (fd >= 0)
            close(fd);
    }
}

/* execve(path) in a child; the child's errno comes back through a close-on-exec pipe, so
 * end-of-file there means the exec happened. */
static int try_exec(const char *path)
{
    int p[2], err = 0;
    if (pipe2(p, O_CLOEXEC) < 0)
        return errno;
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = { (char *)path, NULL }, *envp[] = { NULL }; /* no CML_RESULT_FD */
        execve(path, argv, envp);
        err = errno;
        if (write(p[1], &err, sizeof err) < 0)
            _exit(126);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0 || read(p[0], &err, sizeof err) != (ssize_t)sizeof err)
        err = pid < 0 ? errno : 0;
    close(p[0]);
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return err;
}

static void attack_exec(char t[][1024], int n)
{
    for (int i = 0; i < n; i++)
        log_attempt("exec", t[i], try_exec(t[i]));
}

/* The daemon's life: leave the lab's session and descriptors, say who it is, then keep
 * rewriting the targets (the grader's reports, once it has written them). */
static _Noreturn void daemon_body(char t[][1024], int n)
{
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
        dup2(null, fd);
    FILE *f = fopen("daemon.pid.tmp", "w");
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        rename("daemon.pid.tmp", "daemon.pid");
    }
    const char *s = getenv("FAKE_DAEMON_S");
    long rounds = (s ? atol(s) : 5) * 20;
    for (long r = 0; r < rounds; r++, sleep_ms(50))
        for (int i = 0; i < n; i++)
            scribble(t[i], "rewritten by a daemon\n");
    _exit(0);
}

static void attack_daemon(char t[][1024], int n)
{
    pid_t mid = fork();
    if (mid == 0) {
        setsid(); /* out of the lab's process group and session */
        if (fork() == 0)
            daemon_body(t, n);
        _exit(0); /* the daemon is orphaned: it is reparented away from the lab */
    }
    while (mid > 0 && waitpid(mid, NULL, 0) < 0 && errno == EINTR)
        ;
    int i = 0;
    while (access("daemon.pid", F_OK) != 0 && i++ < 200)
        sleep_ms(10);
    log_attempt("daemon", "started", mid < 0 ? errno : access("daemon.pid", F_OK) ? ENOENT : 0);
}

static void attack_signal(char t[][1024], int n)
{
    const char *s = getenv("FAKE_SIGNAL");
    int sig = s ? atoi(s) : SIGKILL;
    for (int i = 0; i < n; i++) {
        pid_t pid = strcmp(t[i], "ppid") == 0 ? getppid() : (pid_t)atoi(t[i]);
        log_attempt("kill", t[i], pid > 1 && kill(pid, sig) == 0 ? 0 : pid > 1 ? errno : EINVAL);
    }
}

static void attack_hog(void)
{
    const char *s = getenv("FAKE_HOG_MB");
    size_t bytes = (size_t)(s ? atol(s) : 256) << 20;
    char *p = malloc(bytes);
    for (size_t i = 0; p && i < bytes; i += 4096) /* resident only once touched */
        p[i] = 1;
    log_attempt("hog", s ? s : "256", p ? 0 : ENOMEM);
    sleep_ms(2000); /* long enough for the supervisor's 50 ms watch to see it */
    free(p);
}

/* case0.bin as a link or FIFO; 1 when it was made. */
static int attack_case_file(const char *mode, const char *dir, char t[][1024], int n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/case0.bin", dir ? dir : ".");
    int rc;
    if (strcmp(mode, "attack_fifo") == 0)
        rc = mkfifo(path, 0666);
    else if (n == 0)
        rc = (errno = EINVAL, -1);
    else
        rc = strcmp(mode, "attack_symlink") == 0 ? symlink(t[0], path) : link(t[0], path);
    log_attempt(mode + 7, path, rc < 0 ? errno : 0);
    return rc == 0;
}

/* Contract in fake_lab_attacks.h. */
int fake_is_attack(const char *mode)
{
    return strncmp(mode, "attack_", 7) == 0;
}

/* Contract in fake_lab_attacks.h. */
int fake_attack(const char *mode, const char *dir)
{
    static char t[MAX_TARGETS][1024];
    int n = targets(t);
    if (strcmp(mode, "attack_write") == 0) attack_write(t, n);
    else if (strcmp(mode, "attack_read") == 0) attack_read(t, n);
    else if (strcmp(mode, "attack_exec") == 0) attack_exec(t, n);
    else if (strcmp(mode, "attack_daemon") == 0) attack_daemon(t, n);
    else if (strcmp(mode, "attack_signal") == 0) attack_signal(t, n);
    else if (strcmp(mode, "attack_hog") == 0) attack_hog();
    else return attack_case_file(mode, dir, t, n);
    return 0;
}
