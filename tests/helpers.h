/* What several suites share: temporary folders, the repository's paths, running the CLI, and
 * reading summary.tsv. Tests never touch CUDA in the test process: they exec binaries. */
#ifndef CML_TEST_HELPERS_H
#define CML_TEST_HELPERS_H

#include <stddef.h>

#include "cml.h"
#include "grade.h"

/* The repository root (two folders above build/check_tests); exits when unknown. Safe outside
 * tests too (suite creation), as is test_path. */
const char *test_root(void);

/* A path under the root: test_path("build/fake_lab"). Static storage, one of 8 at a time. */
const char *test_path(const char *rel);

/* A fresh folder /tmp/cml-test-XXXXXX into buf (at least 64 bytes). */
char *test_tmpdir(char *buf, size_t len);

/* Load spec text through a temporary file (its name into path, 64 bytes, for messages that
 * start "path:line:"); cml_spec_load's result, with its message in err. */
int test_spec_text(const char *text, cml_lab_spec *spec, char *path, char *err, size_t errlen);

/* Write text to a file; aborts the test on failure. */
void test_write(const char *path, const char *text);

/* A fake tool: the script `text` as dir/tool/bin/<name>, executable, every folder on the way
 * open to all (as root, a tool run drops to the lab's user); its path into path (CML_PATH). */
void test_fake_tool(const char *dir, const char *name, const char *text, char *path);

/* Run argv (in the sandbox, up to timeout_s) and return its exit status, or -1 when it did
 * not exit normally; its output goes to *output when non-NULL (free it). */
int test_exec(char *const argv[], double timeout_s, char **output);
/* The same in the folder workdir (NULL: here). */
int test_exec_in(const char *workdir, char *const argv[], double timeout_s, char **output);

/* One line of summary.tsv: lab task status score max_score detail. */
typedef struct {
    char lab[64], task[16], status[32], detail[1024];
    double score, max_score;
} test_summary_line;

/* Read up to max lines of DIR/summary.tsv; the number read, or -1 when it cannot be read. */
int test_read_summary(const char *out_dir, test_summary_line *lines, int max);

/* The line for (lab, task), or NULL. */
const test_summary_line *test_summary_find(const test_summary_line *lines, int n,
                                           const char *lab, const char *task);

/* The result of task `id` in a graded lab; aborts the test when there is none. */
const cml_task_result *test_task(const cml_lab_result *r, const char *id);

/* Whether every task of r but `except` passed with full marks. */
int test_others_full(const cml_lab_result *r, const char *except);

/* tests/fake_root.c: a repository in `dir` for two fake labs (01_fake: tasks 1.1 copy, 1.2
 * transpose, 1.3 gather; 02_fake: 2.1 copy, 2.2 gather) whose lab binaries are build/fake_lab:
 * grader/specs, common/, labs/, solutions/, and bin/nvcc, a fake nvcc that "compiles" by copying
 * $FAKE_LAB_BIN to its -o path (noting it in $FAKE_NVCC_LOG when set, after $FAKE_NVCC_SLEEP
 * seconds when set) and fails on a source
 * containing BROKEN. Lab timeouts in seconds.
 * Sets NVCC and FAKE_LAB_BIN in the environment and unsets CML_FAKE_GPU, FAKE_MODE, FAKE_TASK
 * and FAKE_REF_MODE. */
void fake_root_make(const char *dir, double timeout1_s, double timeout2_s);

/* Load the fake root's two specs into specs[0..1]; aborts the test on a spec error. */
void fake_root_specs(const char *dir, cml_lab_spec *specs);

/* A test's fake root: a fresh temporary folder in root (rlen >= 64) made by fake_root_make,
 * its specs in specs[0..1], and the grading's run folder, root/work, in work. */
void fake_root_setup(char *root, size_t rlen, double timeout1_s, double timeout2_s,
                     cml_lab_spec *specs, char *work, size_t wlen);

/* Grade lab 01_fake (spec) with build/fake_lab on both sides, FAKE_MODE=mode in task `task`
 * (mode NULL: as the environment says), options o; into result, asserting it ran. */
void fake_grade(const cml_lab_spec *spec, const char *mode, const char *task,
                const cml_run_opts *o, cml_lab_result *result);

/* Findings that make cml_judge give r status s, for the tests that start from a status: passed
 * and slow from the speed credit (the credit is otherwise left as it is), tampered from a forged
 * record, technique from a failed first check (r->spec needs one), wrong, todo, sanitizer (a
 * guard region) from the cases, the rest (build-error, missing, no-gpu, error, crash, timeout)
 * as stopped. why: the finding's words. Then publishes (judges). */
void judge_as(cml_task_result *r, enum cml_status s, const char *why);

/* fn(ctx, name, type) for every symbol `nm -P` lists in the object file obj (type its letter:
 * 'T', 'U', ...); names of 400 bytes or more are skipped. For the layer tests' call graphs. */
void each_symbol(const char *obj, void (*fn)(void *ctx, const char *name, char type),
                 void *ctx);

#endif /* CML_TEST_HELPERS_H */
