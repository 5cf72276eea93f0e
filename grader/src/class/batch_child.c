/* One grading of a batch as its own process: `cml-grade grade` (this same program) on one
 * student, on one GPU, its output in the student's grade.log; and how it ended, as a status.
 * A separate process per student is what keeps a hostile submission's damage to its own
 * grade: it can crash, hang or exhaust only that process, which the batch kills by group. */
#include "args.h"
#include "batch_child.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Contract in batch_child.h. */
pid_t cml_child_start(char *const args[], const char *gpu, const char *log_path)
{
    char exe[CML_PATH]; /* this same program: a child runs the grader the batch is */
    if (cml_self_exe(exe, sizeof exe) < 0)
        return -1;
    pid_t pid = fork();
    if (pid != 0)
        return pid; /* the parent, or -1 */
    setpgid(0, 0);  /* its own group: a timeout kills everything it started */
    /* a batch killed outright takes its gradings with it (they kill their own labs on
     * SIGTERM), so a re-run never races a grading left over from the last one */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, 0);
    if (gpu && gpu[0])
        setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    char *argv[40];
    int a = 0;
    argv[a++] = exe;
    for (int i = 0; args[i] && a < 39; i++)
        argv[a++] = args[i];
    argv[a] = NULL;
    execv(exe, argv);
    _exit(127);
}

/* Contract in batch_child.h. */
int cml_child_run(char *const args[], const char *gpu, const char *log_path)
{
    pid_t pid = cml_child_start(args, gpu, log_path);
    int ws = 0;
    while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    return pid > 0 ? ws : -1;
}

/* The last "Score: x/y" of a grading's log into score and max; 0 when found. */
static int last_score(const char *log, double *score, double *max)
{
    const char *at = NULL;
    for (const char *p = strstr(log, "Score: "); p; p = strstr(p + 1, "Score: "))
        at = p;
    return at && sscanf(at, "Score: %lf/%lf", score, max) == 2 ? 0 : -1;
}

/* The log's last non-empty line, control characters as spaces, for a one-line reason. */
static void last_line(const char *log, char *buf, size_t len)
{
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' '))
        n--;
    size_t start = n;
    while (start > 0 && log[start - 1] != '\n')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), log + start);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 32)
            *c = ' ';
}

/* Contract in batch_child.h. */
void cml_child_status(int wstatus, int timed_out, const char *log_path, double timeout_s,
                      cml_student_status *s)
{
    char *log = cml_read_text(log_path, 1u << 20, NULL), tail[300] = "";
    if (log)
        last_line(log, tail, sizeof tail);
    if (timed_out) {
        char limit[32];
        cml_duration_text(timeout_s, limit, sizeof limit);
        snprintf(s->state, sizeof s->state, "timeout");
        snprintf(s->why, sizeof s->why, "stopped by the batch's time limit (--timeout %s): "
                 "run the same batch command again to grade it again (with a longer "
                 "--timeout if it keeps happening)", limit);
    } else if (WIFSIGNALED(wstatus)) {
        snprintf(s->state, sizeof s->state, "killed");
        snprintf(s->why, sizeof s->why, "the grading process was killed by signal %d (%s)",
                 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) <= 1 && log &&
               last_score(log, &s->score, &s->max) == 0) {
        snprintf(s->state, sizeof s->state, "graded");
    } else {
        snprintf(s->state, sizeof s->state, "error");
        snprintf(s->why, sizeof s->why, "the grading stopped with status %d: %.400s",
                 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, tail[0] ? tail : "no output");
    }
    free(log);
}
