/* compute-sanitizer on every solved task (sanitize_phase.c, sanitize_run.c, spec_sanitize.c):
 * the spec directives, the cases chosen, the one-line message, and whole gradings of the fake
 * labs under a fake compute-sanitizer (CML_SANITIZER) that logs when and how it was run, sleeps
 * when asked, and reports a memcheck error in the task FAKE_CS_TASK names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu_lock.h"
#include "grade.h"
#include "helpers.h"
#include "judge.h"
#include "report.h"
#include "sanitize.h"
#include "spec.h"
#include "suites.h"
#include "util.h"

/* FAKE_CS: clean (default), error (memcheck finds a write past the end in FAKE_CS_TASK, in the
 * student's fake.cu), harness (the same in harness.cu), broken (fails for its own reasons),
 * run (runs the lab, FAKE_UNDER_TOOL set, with the grader's result channel, then is clean),
 * toolfail (runs it, then fails on its own: "Internal Sanitizer Error: Unsupported ..."),
 * laberr (runs it, then reports the lab's nonzero exit as compute-sanitizer does);
 * FAKE_CS_SLEEP: seconds per run. Each run appends "<start time> <its arguments>" to
 * $FAKE_CS_LOG. */
static const char CS[] =
    "#!/bin/sh\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "echo \"$(date +%s.%N) $*\" >> \"$FAKE_CS_LOG\"\n"
    "[ -n \"$FAKE_CS_SLEEP\" ] && sleep \"$FAKE_CS_SLEEP\"\n"
    "echo '========= COMPUTE-SANITIZER'\n"
    "[ \"$FAKE_CS\" = broken ] && { echo '========= Error: Target application terminated "
    "before first instrumented API call'; exit 1; }\n"
    "clean() { echo '========= ERROR SUMMARY: 0 errors'; exit 0; }\n"
    "lab() { while [ $# -gt 0 ] && [ \"$1\" != ./confine ]; do shift; done; "
    "FAKE_UNDER_TOOL=1 \"$@\"; }\n"
    "[ \"$FAKE_CS\" = run ] && { lab \"$@\"; clean; }\n"
    "[ \"$FAKE_CS\" = toolfail ] && { lab \"$@\"; echo '========= Internal Sanitizer Error: "
    "Unsupported instruction mbarrier.try_wait in synccheck'; exit 1; }\n"
    "[ \"$FAKE_CS\" = laberr ] && { lab \"$@\"; echo \"========= Error: process didn't "
    "terminate successfully\"; echo '========= ERROR SUMMARY: 0 errors'; exit 1; }\n"
    "case \"$FAKE_CS\" in error) f=fake.cu;; harness) f=harness.cu;; *) clean;; esac\n"
    "case \"$*\" in *\"--tool memcheck \"*\"--case $FAKE_CS_TASK,\"*) ;; *) clean;; esac\n"
    "echo '========= Invalid __global__ write of size 4 bytes'\n"
    "echo \"=========     at copyCoalesced(const float *, float *, unsigned long)+0x90 in "
    "/tmp/cml-runs-1/run-2/$f:23\"\n"
    "echo '=========     by thread (8,0,0) in block (3,0,0)'\n"
    "echo '========= ERROR SUMMARY: 1 error'\nexit 99\n";

static char root[64], tools[64], out[CML_PATH], cs_log[CML_PATH];
static cml_grading *g;

static void setup(void)
{
    char path[CML_PATH];
    test_tmpdir(root, sizeof root);
    test_tmpdir(tools, sizeof tools); /* the tool's domain writes here, as the lab's user */
    chmod(tools, 0777);
    fake_root_make(root, 10, 10);
    test_fake_tool(tools, "compute-sanitizer", CS, path);
    setenv("CML_SANITIZER", path, 1);
    cml_fmt(cs_log, sizeof cs_log, "%s/runs.log", tools);
    setenv("FAKE_CS_LOG", cs_log, 1);
    cml_fmt(out, sizeof out, "%s/out", root);
    g = calloc(1, sizeof *g);
}

static void teardown(void)
{
    cml_grading_free(g);
    free(g);
    cml_rmtree(root);
    cml_rmtree(tools);
    const char *vars[] = { "CML_SANITIZER", "FAKE_CS_LOG", "FAKE_CS", "FAKE_CS_TASK",
                           "FAKE_CS_SLEEP", "FAKE_MODE", "FAKE_TASK", "CML_SANITIZE_JOBS",
                           "CML_SANITIZE_ONLY_NEEDED" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* Grade both fake labs (tasks 1.1-1.3, 2.1, 2.2: 8 sanitizer runs, one per lab and tool, when
 * all pass) with the fake binaries; `progress` gets the progress lines (NULL: quiet). */
static void grade(FILE *progress)
{
    cml_lab_spec specs[2];
    char err[512];
    double build_s;
    fake_root_specs(root, specs);
    cml_grade_opts o = { root, root, out, 7, 0, progress, test_path("build/fake_lab"),
                         test_path("build/fake_lab"), NULL, NULL, { NULL, NULL }, NULL, 0 };
    ck_assert_msg(cml_grade(&o, specs, 2, g, &build_s, err, sizeof err) == 0, "%s", err);
}

static const cml_task_result *task(int lab, const char *id)
{
    return test_task(&g->labs[lab], id);
}

/* What the fake tool logged: one line per run. malloc'd ("" when it never ran). */
static char *runs(void)
{
    char *text = cml_read_text(cs_log, 1 << 20, NULL);
    return text ? text : strdup("");
}

START_TEST(sanitizer_error_costs_the_task_its_correctness_points)
{
    setenv("FAKE_CS", "error", 1);
    setenv("FAKE_CS_TASK", "1.1", 1);
    grade(NULL);
    const cml_task_result *r = task(0, "1.1");
    ck_assert_msg(r->status == CML_STATUS_SANITIZER && r->score == 0 && r->max_score == 10 &&
                  strstr(r->detail, "memcheck: Invalid __global__ write of size 4 bytes at "
                                    "fake.cu:23 in copyCoalesced"),
                  "%s %g/%g: %s", cml_status_name(r->status), r->score, r->max_score, r->detail);
}
END_TEST

/* The lab's memcheck run fails; run again task by task, it is 1.1's error alone. */
START_TEST(sanitizer_error_in_a_lab_run_costs_only_its_task)
{
    setenv("FAKE_CS", "error", 1);
    setenv("FAKE_CS_TASK", "1.1", 1);
    grade(NULL);
    ck_assert_msg(g->score == g->max_score - 10 && g->sanitize_runs == 11, "%g/%g after %d runs",
                  g->score, g->max_score, g->sanitize_runs);
}
END_TEST

/* The harness is not the student's: an error located there costs nothing. */
START_TEST(sanitizer_error_in_the_harness_costs_nothing)
{
    setenv("FAKE_CS", "harness", 1);
    setenv("FAKE_CS_TASK", "1.1", 1);
    grade(NULL);
    const cml_tech_result *s = &task(0, "1.1")->sanitizers[0];
    ck_assert_msg(g->score == g->max_score && s->state == CML_TECH_NOT_CHECKED &&
                  strstr(s->detail, "in no student file: Invalid __global__ write of size 4 "
                                    "bytes at harness.cu:23"), "%g/%g: %s", g->score,
                  g->max_score, s->detail);
}
END_TEST

/* The tools get the graded runs' result channel, and a run must reach its last case and say
 * done: a lab that leaves early when it finds itself under a tool loses the task. */
START_TEST(sanitizer_run_that_leaves_early_fails_its_task)
{
    setenv("FAKE_CS", "run", 1);
    setenv("FAKE_DODGE", "1", 1);
    grade(NULL);
    unsetenv("FAKE_DODGE");
    const cml_task_result *r = task(0, "1.1");
    ck_assert_msg(r->status == CML_STATUS_SANITIZER && r->score == 0 &&
                  strstr(r->detail, "the lab binary ended under the tool after 0 of"),
                  "%s %g/%g: %s", cml_status_name(r->status), r->score, r->max_score, r->detail);
}
END_TEST

/* The lab's run ends early, and the tool's log says the tool failed on its own (synccheck
 * that cannot follow an honest cuda::barrier tile, issue 44): not checked, with the tool's
 * message, and the points kept; never called a dodge. */
START_TEST(sanitizer_failing_mid_run_is_not_checked_never_a_dodge)
{
    setenv("FAKE_CS", "toolfail", 1);
    setenv("FAKE_DODGE", "1", 1);
    grade(NULL);
    unsetenv("FAKE_DODGE");
    const cml_task_result *r = task(0, "1.1");
    const cml_tech_result *s = &r->sanitizers[0];
    ck_assert_msg(g->score == g->max_score && s->state == CML_TECH_NOT_CHECKED &&
                  strstr(s->detail, "not checked: memcheck: Internal Sanitizer Error: "
                                    "Unsupported instruction") &&
                  strstr(s->detail, "the tool's own failure"), "%g/%g: %s", g->score,
                  g->max_score, s->detail);
}
END_TEST

/* The lab leaves early and exits nonzero; the tool reports that end as it does for any
 * application ("Error: process didn't terminate successfully"): the student's doing, a dodge. */
START_TEST(sanitizer_run_that_leaves_early_with_an_error_status_fails_its_task)
{
    setenv("FAKE_CS", "laberr", 1);
    setenv("FAKE_DODGE", "1", 1);
    grade(NULL);
    unsetenv("FAKE_DODGE");
    const cml_task_result *r = task(0, "1.1");
    ck_assert_msg(r->status == CML_STATUS_SANITIZER && r->score == 0 &&
                  strstr(r->detail, "your process ended on its own"),
                  "%s %g/%g: %s", cml_status_name(r->status), r->score, r->max_score, r->detail);
}
END_TEST

/* The same tool run, the lab running every case to its end: full marks. */
START_TEST(sanitizer_run_to_the_end_keeps_full_marks)
{
    setenv("FAKE_CS", "run", 1);
    grade(NULL);
    const cml_tech_result *s = &task(0, "1.1")->sanitizers[0];
    ck_assert_msg(g->score == g->max_score && s->state == CML_TECH_PASSED, "%g/%g: %s",
                  g->score, g->max_score, s->detail);
}
END_TEST

START_TEST(summary_names_the_sanitizer_status)
{
    test_summary_line lines[8];
    setenv("FAKE_CS", "error", 1);
    setenv("FAKE_CS_TASK", "1.3", 1);
    grade(NULL);
    int n = test_read_summary(out, lines, 8);
    const test_summary_line *l = test_summary_find(lines, n, "01_fake", "1.3");
    ck_assert_msg(l && strcmp(l->status, "sanitizer") == 0 && l->score == 0, "%s",
                  l ? l->status : "no line for 1.3");
}
END_TEST

/* Lines of the fake tool's log that ran `tool` on a case of lab `lab` ("--case 1." for 01). */
static int runs_of(const char *log, const char *tool, char lab)
{
    char want_tool[64], want_case[16];
    int n = 0;
    snprintf(want_tool, sizeof want_tool, "--tool %s ", tool);
    snprintf(want_case, sizeof want_case, "--case %c.", lab);
    for (const char *l = log; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
        n += strstr(line, want_tool) && strstr(line, want_case);
    }
    return n;
}

/* Built from sources (the fake nvcc's PTX is the source), by default: lab 01's code names
 * neither shared memory nor a barrier, so its racecheck and synccheck pass without a run; lab
 * 02's runs all four. */
START_TEST(tools_with_nothing_to_check_pass_without_a_run)
{
    char sub[CML_PATH], path[CML_PATH], err[512];
    double build_s;
    cml_lab_spec specs[2];
    cml_fmt(sub, sizeof sub, "%s/labs", root);
    cml_fmt(path, sizeof path, "%s/labs/01_fake/fake.cu", root);
    test_write(path, "// fake source: global loads and stores only\n");
    fake_root_specs(root, specs);
    cml_grade_opts o = { root, sub, out, 7, 0, NULL, NULL, NULL, NULL, NULL, { NULL, NULL }, NULL,
                         0 };
    ck_assert_msg(cml_grade(&o, specs, 2, g, &build_s, err, sizeof err) == 0, "%s", err);
    char *log = runs();
    const cml_tech_result *race = &task(0, "1.1")->sanitizers[CML_RACECHECK];
    const cml_tech_result *sync = &task(0, "1.2")->sanitizers[CML_SYNCCHECK];
    int lab1[4], lab2[4];
    for (int k = 0; k < 4; k++) {
        lab1[k] = runs_of(log, cml_sanitizer_name(k), '1');
        lab2[k] = runs_of(log, cml_sanitizer_name(k), '2');
    }
    free(log);
    ck_assert_msg(g->score == g->max_score && race->state == CML_TECH_PASSED &&
                  strstr(race->detail, "racecheck: nothing to check (no shared memory") &&
                  sync->state == CML_TECH_PASSED && strstr(sync->detail, "nothing to check"),
                  "%g/%g; racecheck: %s; synccheck: %s", g->score, g->max_score, race->detail,
                  sync->detail);
    ck_assert_msg(lab1[0] == 1 && lab1[1] == 0 && lab1[2] == 0 && lab1[3] == 1 &&
                  lab2[0] == 1 && lab2[1] == 1 && lab2[2] == 1 && lab2[3] == 1,
                  "runs of memcheck, racecheck, synccheck, initcheck: lab 01 %d %d %d %d, "
                  "lab 02 %d %d %d %d", lab1[0], lab1[1], lab1[2], lab1[3], lab2[0], lab2[1],
                  lab2[2], lab2[3]);
}
END_TEST

START_TEST(clean_sanitizers_keep_full_marks)
{
    grade(NULL);
    ck_assert_msg(g->score == g->max_score && g->sanitize_runs == 8 &&
                  task(0, "1.1")->sanitizers[3].state == CML_TECH_PASSED,
                  "%g/%g after %d runs", g->score, g->max_score, g->sanitize_runs);
}
END_TEST

/* Every run hands the lab cudaMalloc's buffers (--no-guard). Memcheck's runs, and only those,
 * turn on the tool's NVTX support (--nvtx yes), through which the harness names the exact bytes
 * a task may touch (common/cml_exact.cpp): without it memcheck cannot see a read before an
 * interior pointer. Under initcheck a region registered after its buffer was filled reads as
 * never written, so the other tools run with --nvtx no. */
START_TEST(every_run_gets_exact_bounds)
{
    grade(NULL);
    char *log = runs();
    int lines = 0, memcheck = 0, right = 0;
    for (const char *l = log; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
        const int mc = strstr(line, " --tool memcheck ") != NULL;
        lines++;
        memcheck += mc;
        right += strstr(line, mc ? " --nvtx yes " : " --nvtx no ") && strstr(line, " --no-guard");
    }
    free(log);
    ck_assert_msg(lines == 8 && memcheck == 2 && right == lines,
                  "%d of %d runs (%d of memcheck) with --no-guard and --nvtx yes for memcheck "
                  "alone", right, lines, memcheck);
}
END_TEST

/* The longest tool's jobs start first (sanitize_phase.c, TOOL_ORDER): one at a time, both labs'
 * racecheck runs come before any other tool's. */
START_TEST(racecheck_jobs_start_first)
{
    setenv("CML_SANITIZE_JOBS", "1", 1);
    grade(NULL);
    char *log = runs(), *p = log;
    const char *want[] = { "racecheck", "racecheck", "memcheck", "memcheck" };
    for (int i = 0; i < 4; i++) {
        char *tool = strstr(p, "--tool ");
        ck_assert_msg(tool && strncmp(tool + 7, want[i], strlen(want[i])) == 0,
                      "run %d is not %s: %s", i + 1, want[i], log);
        p = tool + 7;
    }
    free(log);
}
END_TEST

START_TEST(sanitizer_failing_on_its_own_is_not_checked)
{
    setenv("FAKE_CS", "broken", 1);
    grade(NULL);
    const cml_tech_result *s = &task(0, "1.2")->sanitizers[1];
    ck_assert_msg(g->score == g->max_score && s->state == CML_TECH_NOT_CHECKED &&
                  strstr(s->detail, "not checked (compute-sanitizer exited with status 1"),
                  "%g/%g: %s", g->score, g->max_score, s->detail);
}
END_TEST

START_TEST(missing_sanitizer_is_not_checked)
{
    setenv("CML_SANITIZER", "/nonexistent/compute-sanitizer", 1);
    grade(NULL);
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/record.json", out);
    char *record = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(g->score == g->max_score && record &&
                  strstr(record, "\"detail\": \"not checked (compute-sanitizer not found)\""),
                  "%g/%g", g->score, g->max_score);
    free(record);
}
END_TEST

START_TEST(wrong_task_gets_no_sanitizer_run)
{
    setenv("FAKE_MODE", "wrong", 1);
    setenv("FAKE_TASK", "1.2", 1);
    grade(NULL);
    char *log = runs();
    ck_assert_msg(!strstr(log, "--case 1.2,") && strstr(log, "--case 1.3,") &&
                  task(0, "1.2")->status == CML_STATUS_WRONG, "%s", log);
    free(log);
}
END_TEST

/* A spec turns a tool off for a task, or all of them. */
START_TEST(spec_turns_sanitizers_off_for_a_task)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/grader/specs/01_fake.spec", root);
    char *text = cml_read_text(path, 1 << 16, NULL), *with = NULL;
    ck_assert(text && asprintf(&with, "%ssanitize off\n", text) > 0); /* the last task: 1.3 */
    test_write(path, with);
    free(text), free(with);
    grade(NULL);
    char *log = runs();
    ck_assert_msg(!strstr(log, "--case 1.3,") && strstr(log, "--case 1.2,"), "%s", log);
    free(log);
}
END_TEST

START_TEST(sanitizer_jobs_run_concurrently)
{
    setenv("FAKE_CS_SLEEP", "1", 1);
    setenv("CML_SANITIZE_JOBS", "8", 1);
    grade(NULL);
    ck_assert_msg(g->sanitize_runs == 8 && g->sanitize_s < 4, "%d one-second runs took %.1f s",
                  g->sanitize_runs, g->sanitize_s);
}
END_TEST

/* The progress stream with each line's time: the last "[lab] task ..." line comes after that
 * lab's last run ended. */
static double last_task_line;

static ssize_t stamp_lines(void *cookie, const char *buf, size_t size)
{
    (void)cookie;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (memmem(buf, size, "] task ", 7) || memmem(buf, size, "reference solution", 18))
        last_task_line = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    return (ssize_t)size;
}

START_TEST(sanitizers_never_run_while_a_lab_is_timed)
{
    cookie_io_functions_t io = { .write = stamp_lines };
    FILE *progress = fopencookie(NULL, "w", io);
    setvbuf(progress, NULL, _IOLBF, 0);
    grade(progress);
    fclose(progress);
    char *log = runs();
    double first = 1e300;
    for (const char *p = log; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
        first = atof(p) < first ? atof(p) : first;
    ck_assert_msg(g->sanitize_runs == 8 && first >= last_task_line,
                  "first tool run at %.3f, last lab line at %.3f", first, last_task_line);
    free(log);
}
END_TEST

/* lab, every task of spec found with `faults` (0: every case passed), with why, and
 * published, as the pipeline leaves a lab before the sanitizer phase. */
static void lab_found(const cml_lab_spec *spec, unsigned faults, const char *why,
                      cml_lab_result *lab)
{
    memset(lab, 0, sizeof *lab);
    lab->spec = spec;
    lab->ntasks = spec->ntasks;
    for (int t = 0; t < spec->ntasks; t++) {
        cml_task_result *r = &lab->tasks[t];
        r->spec = &spec->tasks[t];
        r->found.faults = faults;
        r->credit.cases = faults ? 0 : r->spec->ncases;
        snprintf(r->found.why, sizeof r->found.why, "%s", why);
    }
    cml_publish_lab(lab);
}

/* record.json is written after each lab, before the phase: it says the checks did not run. */
START_TEST(interrupted_grading_says_its_sanitizers_did_not_run)
{
    cml_lab_spec specs[2];
    char path[CML_PATH];
    fake_root_specs(root, specs);
    g->nlabs = 1;
    lab_found(&specs[0], 0, "all cases passed", &g->labs[0]);
    cml_sanitize_mark(&g->labs[0]);
    cml_mkdirs(out);
    cml_fmt(path, sizeof path, "%s/record.json", out);
    ck_assert_int_eq(cml_report_json(path, g), 0);
    char *record = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(record && strstr(record, "\"detail\": \"the grading ended before its sanitizer "
                                           "phase\"") &&
                  strstr(record, "not run: the grading ended before its sanitizer phase"), "%s",
                  record);
    free(record);
}
END_TEST

/* The work beside the tools (the pipeline's trace runs): 2 when it ran while this grading held
 * the GPU lock (a second open of the lock file cannot take it), 1 when it ran unlocked. */
static char lock_path[CML_PATH];

static void beside_probe(void *arg)
{
    int fd = open(lock_path, O_RDWR);
    *(int *)arg = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 ? 2 : 1;
    if (fd >= 0)
        close(fd);
}

/* It runs while the tools do, inside their hold of the GPU lock, and has ended when the phase
 * returns; with no GPU, where no tool runs, it does not run either (the technique phase then
 * makes its own trace runs). */
START_TEST(work_beside_the_tools_runs_under_their_hold)
{
    cml_lab_spec specs[2];
    fake_root_specs(root, specs);
    cml_fmt(lock_path, sizeof lock_path, "%s/gpu.lock", root);
    cml_gpu_hold_path(lock_path);
    g->nlabs = 1, g->have_gpu = 1;
    lab_found(&specs[0], CML_FAULT_WRONG, "a case failed", &g->labs[0]);
    const char *bins[1] = { test_path("build/fake_lab") };
    cml_run_opts o = { .seed = 7, .work_dir = root };
    int state = 0;
    cml_beside beside = { beside_probe, &state };
    cml_sanitize_phase(g, bins, NULL, &o, &beside);
    ck_assert_int_eq(state, 2);
    state = 0, g->have_gpu = 0;
    cml_sanitize_phase(g, bins, NULL, &o, &beside);
    cml_gpu_hold_path(NULL);
    ck_assert_int_eq(state, 0);
}
END_TEST

/* The grading tests, on the fake labs. */
TCase *sanitize_grading_tcase(void)
{
    TCase *tc = tcase_create("grading");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sanitizer_error_costs_the_task_its_correctness_points);
    tcase_add_test(tc, sanitizer_error_in_a_lab_run_costs_only_its_task);
    tcase_add_test(tc, sanitizer_error_in_the_harness_costs_nothing);
    tcase_add_test(tc, sanitizer_run_that_leaves_early_fails_its_task);
    tcase_add_test(tc, sanitizer_run_to_the_end_keeps_full_marks);
    tcase_add_test(tc, sanitizer_failing_mid_run_is_not_checked_never_a_dodge);
    tcase_add_test(tc, sanitizer_run_that_leaves_early_with_an_error_status_fails_its_task);
    tcase_add_test(tc, summary_names_the_sanitizer_status);
    tcase_add_test(tc, clean_sanitizers_keep_full_marks);
    tcase_add_test(tc, every_run_gets_exact_bounds);
    tcase_add_test(tc, sanitizer_failing_on_its_own_is_not_checked);
    tcase_add_test(tc, missing_sanitizer_is_not_checked);
    tcase_add_test(tc, wrong_task_gets_no_sanitizer_run);
    tcase_add_test(tc, spec_turns_sanitizers_off_for_a_task);
    tcase_add_test(tc, sanitizer_jobs_run_concurrently);
    tcase_add_test(tc, racecheck_jobs_start_first);
    tcase_add_test(tc, tools_with_nothing_to_check_pass_without_a_run);
    tcase_add_test(tc, sanitizers_never_run_while_a_lab_is_timed);
    tcase_add_test(tc, interrupted_grading_says_its_sanitizers_did_not_run);
    tcase_add_test(tc, work_beside_the_tools_runs_under_their_hold);
    return tc;
}
