/* The private Slurm cluster for tests (see slurm_local.h): each call runs
 * tests/slurm/local-slurm.sh, which alone knows where the programs and the cluster's files are. */
#include "slurm_local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml.h"
#include "helpers.h"
#include "util.h"

#define START_TIMEOUT_S 60 /* the script gives up after 30 s (CML_SLURM_START_TIMEOUT) */
#define STOP_TIMEOUT_S 60  /* 10 s per group of processes at most, then SIGKILL */
#define POLL_US 200000     /* between two squeue calls while an array runs */

/* Run local-slurm.sh with args (NULL-terminated, at most 32) in workdir; its exit status or
 * -1, its output into *output (may be NULL). */
static int script(const char *workdir, char *const args[], double timeout_s, char **output)
{
    char *argv[36] = { "/bin/bash", (char *)test_path("tests/slurm/local-slurm.sh") };
    int n = 2;
    for (int i = 0; args[i] && n < 35; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return test_exec_in(workdir, argv, timeout_s, output);
}

/* The last len-1 bytes of text (whole when shorter) into buf, without the final newline. */
static void tail_into(const char *text, char *buf, size_t len)
{
    size_t n = text ? strlen(text) : 0;
    const char *from = n >= len ? text + n - (len - 1) : (text ? text : "");
    snprintf(buf, len, "%s", from);
    size_t m = strlen(buf);
    if (m && buf[m - 1] == '\n')
        buf[m - 1] = '\0';
}

/* Contract in slurm_local.h. */
int slurm_local_available(char *why, size_t len)
{
    char *out = NULL, *args[] = { "check", NULL };
    int rc = script(NULL, args, 10, &out);
    if (rc != 0)
        tail_into(out && *out ? out : "local-slurm.sh check did not run", why, len);
    free(out);
    return rc == 0;
}

/* Contract in slurm_local.h. */
int slurm_local_start(const char *dir, char *conf, size_t len, char *why, size_t whylen)
{
    char *out = NULL, *args[] = { "start", (char *)dir, NULL };
    int rc = script(NULL, args, START_TIMEOUT_S, &out);
    if (rc != 0) {
        tail_into(out && *out ? out : "local-slurm.sh start timed out", why, whylen);
        free(out);
        return -1;
    }
    free(out);
    return cml_fmt(conf, len, "%s/etc/slurm.conf", dir) < 0 ? -1 : 0;
}

/* Contract in slurm_local.h. */
void slurm_local_stop(const char *dir)
{
    char *args[] = { "stop", (char *)dir, NULL };
    script(NULL, args, STOP_TIMEOUT_S, NULL);
}

/* Contract in slurm_local.h. */
int slurm_local_client(const char *dir, const char *workdir, char *const argv[],
                       double timeout_s, char **output)
{
    char *args[33] = { "run", (char *)dir };
    int n = 2;
    for (int i = 0; argv[i] && n < 32; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    return script(workdir, args, timeout_s, output);
}

/* Whether any task of job is still pending or running: squeue lists it. -1 on error. */
static int array_busy(const char *dir, const char *job)
{
    char *out = NULL, *argv[] = { "squeue", "-h", "-j", (char *)job, "-o", "%i", NULL };
    int rc = slurm_local_client(dir, NULL, argv, 30, &out);
    int busy = rc == 0 ? out && strspn(out, " \n") < strlen(out) : -1;
    free(out);
    return busy;
}

/* Contract in slurm_local.h. */
long slurm_local_array(const char *dir, const char *workdir, const char *script_path,
                       const char *array, const char *const opts[], double wait_s,
                       char *why, size_t len)
{
    char array_opt[64], *argv[40] = { "sbatch", "--parsable" }, *out = NULL;
    int n = 2;
    if (array) { /* else the script's own #SBATCH --array line applies */
        cml_fmt(array_opt, sizeof array_opt, "--array=%s", array);
        argv[n++] = array_opt;
    }
    for (int i = 0; opts && opts[i] && n < 38; i++)
        argv[n++] = (char *)opts[i];
    argv[n++] = (char *)script_path;
    argv[n] = NULL;
    int rc = slurm_local_client(dir, workdir, argv, 30, &out);
    long job = rc == 0 && out ? strtol(out, NULL, 10) : 0; /* "12" or "12;cluster" */
    if (job <= 0) {
        snprintf(why, len, "sbatch exited with %d: ", rc);
        tail_into(out, why + strlen(why), len - strlen(why));
        free(out);
        return -1;
    }
    free(out);
    char id[32];
    snprintf(id, sizeof id, "%ld", job);
    double deadline = cml_now() + wait_s;
    int busy;
    while ((busy = array_busy(dir, id)) == 1 && cml_now() < deadline)
        usleep(POLL_US);
    if (busy != 0) {
        snprintf(why, len, "array job %ld: %s", job,
                 busy < 0 ? "squeue failed" : "tasks still pending or running");
        return -1;
    }
    return job;
}

/* Contract in slurm_local.h. */
int slurm_local_task(const char *dir, long job, int task, char *state, size_t len,
                     int *exit_code)
{
    char id[32], key[48], *out = NULL, *argv[] = { "scontrol", "-o", "show", "job", id, NULL };
    snprintf(id, sizeof id, "%ld", job);
    snprintf(key, sizeof key, " ArrayTaskId=%d ", task);
    int found = -1;
    if (slurm_local_client(dir, NULL, argv, 30, &out) == 0 && out) {
        for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            const char *s = strstr(line, " JobState="), *e = strstr(line, " ExitCode=");
            if (!strstr(line, key) || !s || !e)
                continue;
            snprintf(state, len, "%.*s", (int)strcspn(s + 10, " "), s + 10);
            *exit_code = atoi(e + 10);
            found = 0;
            break;
        }
    }
    free(out);
    return found;
}
