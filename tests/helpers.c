/* Shared test helpers (see helpers.h). */
#include "helpers.h"
#include "judge.h"
#include "speed.h"
#include "spec.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Contract in helpers.h. */
const char *test_root(void)
{
    static char root[CML_PATH];
    char err[512];
    if (!root[0] && cml_find_root(root, sizeof root, err, sizeof err) < 0) {
        fprintf(stderr, "tests: %s\n", err); /* also used outside tests: no ck_ calls */
        exit(2);
    }
    return root;
}

/* Contract in helpers.h. */
const char *test_path(const char *rel)
{
    static char paths[8][CML_PATH];
    static int next;
    char *p = paths[next++ % 8];
    if (cml_fmt(p, CML_PATH, "%s/%s", test_root(), rel) < 0) {
        fprintf(stderr, "tests: path too long under %s\n", test_root());
        exit(2);
    }
    return p;
}

/* Contract in helpers.h. */
char *test_tmpdir(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/cml-test-XXXXXX");
    ck_assert_msg(mkdtemp(buf) != NULL, "cannot create a folder under /tmp");
    chmod(buf, 0755); /* fake tools in it must be reachable by the labs' user when root */
    return buf;
}

/* Contract in helpers.h. */
int test_spec_text(const char *text, cml_lab_spec *spec, char *path, char *err, size_t errlen)
{
    strcpy(path, "/tmp/cml_spec_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    int rc = cml_spec_load(path, spec, err, errlen);
    unlink(path);
    return rc;
}

/* Contract in helpers.h. */
void test_write(const char *path, const char *text)
{
    ck_assert_msg(cml_write_file(path, text, strlen(text)) == 0, "cannot write %s", path);
}

/* Contract in helpers.h. */
void test_fake_tool(const char *dir, const char *name, const char *text, char *path)
{
    cml_fmt(path, CML_PATH, "%s/tool/bin", dir);
    ck_assert(cml_mkdirs(path) == 0);
    chmod(path, 0755);
    cml_fmt(path, CML_PATH, "%s/tool", dir);
    chmod(path, 0755);
    cml_fmt(path, CML_PATH, "%s/tool/bin/%s", dir, name);
    test_write(path, text);
    chmod(path, 0755);
}

/* Contract in helpers.h. */
int test_exec(char *const argv[], double timeout_s, char **output)
{
    return test_exec_in(NULL, argv, timeout_s, output);
}

/* Contract in helpers.h. */
int test_exec_in(const char *workdir, char *const argv[], double timeout_s, char **output)
{
    cml_proc_result r;
    cml_run(argv, NULL, workdir, -1, timeout_s, 1u << 20, &r);
    int rc = r.started && r.exited && !r.timed_out ? r.exit_code : -1;
    if (output) {
        *output = r.output;
        r.output = NULL;
    }
    cml_proc_result_free(&r);
    return rc;
}

/* Split one tab-separated line into l; 0 when it has the six fields. */
static int parse_line(char *line, test_summary_line *l)
{
    char *f[6], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(line, "\t\n", &save); t && n < 6; t = strtok_r(NULL, "\t\n", &save))
        f[n++] = t;
    if (n < 5)
        return -1;
    snprintf(l->lab, sizeof l->lab, "%s", f[0]);
    snprintf(l->task, sizeof l->task, "%s", f[1]);
    snprintf(l->status, sizeof l->status, "%s", f[2]);
    l->score = atof(f[3]);
    l->max_score = atof(f[4]);
    snprintf(l->detail, sizeof l->detail, "%s", n > 5 ? f[5] : "");
    return 0;
}

/* Contract in helpers.h. */
int test_read_summary(const char *out_dir, test_summary_line *lines, int max)
{
    char path[CML_PATH], line[4096];
    cml_fmt(path, sizeof path, "%s/summary.tsv", out_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0;
    while (n < max && fgets(line, sizeof line, f))
        if (strncmp(line, "lab\t", 4) != 0 && parse_line(line, &lines[n]) == 0)
            n++;
    fclose(f);
    return n;
}

/* Contract in helpers.h. */
const test_summary_line *test_summary_find(const test_summary_line *lines, int n,
                                           const char *lab, const char *task)
{
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i].lab, lab) == 0 && strcmp(lines[i].task, task) == 0)
            return &lines[i];
    return NULL;
}

/* Contract in helpers.h. */
const cml_task_result *test_task(const cml_lab_result *r, const char *id)
{
    for (int i = 0; i < r->ntasks; i++)
        if (strcmp(r->tasks[i].spec->id, id) == 0)
            return &r->tasks[i];
    ck_abort_msg("no task %s in the result", id);
    return NULL;
}

/* Contract in helpers.h. */
int test_others_full(const cml_lab_result *r, const char *except)
{
    for (int i = 0; i < r->ntasks; i++) {
        const cml_task_result *t = &r->tasks[i];
        if (strcmp(t->spec->id, except) != 0 &&
            (t->status != CML_STATUS_PASSED || fabs(t->score - t->max_score) > 1e-9))
            return 0;
    }
    return 1;
}

/* Contract in helpers.h. */
void judge_as(cml_task_result *r, enum cml_status s, const char *why)
{
    r->found = (cml_findings){0};
    snprintf(r->found.why, sizeof r->found.why, "%s", why);
    if (s == CML_STATUS_PASSED || s == CML_STATUS_SLOW)
        r->credit.perf = s == CML_STATUS_PASSED ? 1 : r->credit.perf < 1 ? r->credit.perf : 0.5;
    else if (s == CML_STATUS_TAMPERED)
        snprintf(r->found.tampered, sizeof r->found.tampered, "%s", why);
    else if (s == CML_STATUS_TECHNIQUE) {
        r->credit.perf = 1;
        r->found.checked = 1;
        r->tech[0].state = CML_TECH_FAILED;
    } else if (s == CML_STATUS_WRONG || s == CML_STATUS_TODO || s == CML_STATUS_SANITIZER)
        r->found.faults = CML_FAULT_WRONG | (s == CML_STATUS_TODO ? CML_FAULT_TODO
                                             : s == CML_STATUS_SANITIZER ? CML_FAULT_GUARD : 0);
    else /* the stop whose status is s */
        for (enum cml_stop k = CML_STOP_NOT_BUILT; k <= CML_STOP_TIMED_OUT; k++)
            if (cml_stop_status(k) == s)
                r->found.stopped = k;
    cml_publish_task(r);
}

/* Contract in helpers.h. */
void each_symbol(const char *obj, void (*fn)(void *ctx, const char *name, char type),
                 void *ctx)
{
    char cmd[CML_PATH + 32], line[512], name[400], type[8];
    ck_assert(cml_fmt(cmd, sizeof cmd, "nm -P '%s' 2>/dev/null", obj) == 0);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run nm on %s", obj);
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "%399s %7s", name, type) == 2)
            fn(ctx, name, type[0]);
    pclose(p);
}
