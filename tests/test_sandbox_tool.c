/* The lab under a tool (docs/ARCHITECTURE.md, "The sandbox"): compute-sanitizer and Nsight
 * Compute are shell scripts that need a shell, /tmp and their own programs, so their Landlock
 * domain is wide. The lab they start must not inherit it: the tool starts cml-confine, which
 * confines the lab again. A fake compute-sanitizer here runs its target as the real one does
 * (everything from ./confine or ./lab on), writes to its --log-file, and copies the lab's
 * attack.log out afterwards, with the tool's own rights, and waits, as the real ones do, for
 * every process of the run to end (here: a daemon the lab started). Each refusal has a counterpart with
 * cml-confine left out (CML_SANDBOX_RELAX=noconfine) where the same attack works: the refusal
 * is cml-confine's. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "sandbox.h"
#include "spec.h"
#include "technique.h"
#include "tool_run.h"
#include "suites.h"
#include "sanitize.h"
#include "util.h"

#define SPEC "lab 01_x\nfiles k.cu\ntask 1.1\ncheck copy\npoints 6\ncase n=1000\n" \
             "case n=4096 time\n"

/* Like compute-sanitizer: skips its own options, runs the rest, reports, keeps its rights. */
static const char TOOL[] =
    "#!/bin/sh\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "while [ $# -gt 0 ]; do case \"$1\" in ./confine|./lab) break;; esac; shift; done\n"
    "if [ \"$FAKE_TOOL_MODE\" = badconfine ]; then a=$1; b=$2; c=$3; shift 3; "
    "set -- \"$a\" \"$b\" \"$c\" --bogus x \"$@\"; fi\n"
    "if [ \"$FAKE_TOOL_MODE\" = orphan ]; then\n"
    "  ( setsid sleep 20 </dev/null >/dev/null 2>&1 & echo $! > orphan.pid ); fi\n"
    "if [ \"$FAKE_TOOL_MODE\" = session ]; then\n"
    "  setsid sleep 20 </dev/null >/dev/null 2>&1 & echo $! > orphan.pid; fi\n"
    "\"$@\"; rc=$?\ncp attack.log \"$FAKE_TOOL_LOG\" 2>/dev/null\n"
    "[ -f orphan.pid ] && while kill -0 $(cat orphan.pid) 2>/dev/null; do sleep 0.05; done\n"
    "[ -f daemon.pid ] && while kill -0 $(cat daemon.pid) 2>/dev/null; do sleep 0.05; done\n"
    "echo '========= ERROR SUMMARY: 0 errors'\nexit $rc\n";

static char dir[64], other[64], log_path[CML_PATH], victim[CML_PATH];
static cml_lab_spec spec;

static void setup(void)
{
    char path[CML_PATH], err[512];
    test_tmpdir(dir, sizeof dir);
    test_tmpdir(other, sizeof other); /* another submission's output, world-writable */
    chmod(other, 0777);
    cml_fmt(victim, sizeof victim, "%s/summary.tsv", other);
    test_write(victim, "01_x\t1.1\tpassed\t6\t6\n");
    chmod(victim, 0666);
    test_fake_tool(dir, "compute-sanitizer", TOOL, path);
    setenv("CML_SANITIZER", path, 1);
    cml_fmt(log_path, sizeof log_path, "%s/attack.log", other); /* the tool may write /tmp */
    setenv("FAKE_TOOL_LOG", log_path, 1);
    cml_fmt(path, sizeof path, "%s/t.spec", dir);
    test_write(path, SPEC);
    ck_assert_msg(cml_spec_load(path, &spec, err, sizeof err) == 0, "%s", err);
    const char *protect[] = { test_root() };
    cml_sandbox_protect(protect, 1);
    unsetenv("CML_SANDBOX");
    unsetenv("CML_SANDBOX_RELAX");
}

static void teardown(void)
{
    cml_rmtree(dir);
    cml_rmtree(other);
    const char *vars[] = { "CML_SANITIZER", "FAKE_TOOL_LOG", "FAKE_ATTACK_ALWAYS",
                           "FAKE_TARGETS", "CML_SANDBOX_RELAX" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* Run memcheck with `attack` against `targets` in the lab; the job's verdict. */
static cml_tech_result sanitize_with(const char *attack, const char *targets)
{
    cml_sanitize_job j = { .lab = &spec, .bin = test_path("build/fake_lab"),
                           .tasks = { &spec.tasks[0] },
                           .ntasks = 1, .tool = 0, .seed = 7, .work_dir = dir,
                           .timeout_s = 10 };
    if (attack) {
        setenv("FAKE_ATTACK_ALWAYS", attack, 1);
        setenv("FAKE_TARGETS", targets, 1);
    }
    cml_sanitize_job_run(&j);
    return j.out;
}

/* The errno the lab's one attempt ended with, from the log the tool copied out (-1: none). */
static int attempt_errno(void)
{
    char *log = cml_read_text(log_path, 1 << 16, NULL);
    const char *sp = log ? strrchr(log, ' ') : NULL;
    int err = sp ? atoi(sp + 1) : -1;
    ck_assert_msg(log && strchr(log, '\n') == strrchr(log, '\n'), "want one attempt, got: %s",
                  log ? log : "(no log: the tool could not copy it)");
    free(log);
    return err;
}

START_TEST(honest_lab_under_a_tool_passes)
{
    cml_tech_result out = sanitize_with(NULL, NULL);
    ck_assert_msg(out.state == CML_TECH_PASSED, "%s", out.detail);
}
END_TEST

START_TEST(lab_under_a_tool_cannot_run_a_shell)
{
    sanitize_with("attack_exec", "/bin/sh");
    ck_assert_int_eq(attempt_errno(), EACCES);
}
END_TEST

START_TEST(lab_under_a_tool_runs_a_shell_without_confine)
{
    setenv("CML_SANDBOX_RELAX", "noconfine", 1);
    sanitize_with("attack_exec", "/bin/sh");
    ck_assert_int_eq(attempt_errno(), 0);
}
END_TEST

START_TEST(lab_under_a_tool_cannot_write_tmp)
{
    sanitize_with("attack_write", victim);
    ck_assert_int_eq(attempt_errno(), EACCES);
    char *text = cml_read_text(victim, 4096, NULL);
    ck_assert_str_eq(text, "01_x\t1.1\tpassed\t6\t6\n");
    free(text);
}
END_TEST

START_TEST(lab_under_a_tool_writes_tmp_without_confine)
{
    setenv("CML_SANDBOX_RELAX", "noconfine", 1);
    sanitize_with("attack_write", victim);
    ck_assert_int_eq(attempt_errno(), 0);
}
END_TEST

START_TEST(lab_under_a_tool_cannot_read_the_repository)
{
    sanitize_with("attack_read", test_path("grader/specs/01_coalescing.spec"));
    ck_assert_int_eq(attempt_errno(), EACCES);
}
END_TEST

/* --out in /tmp (protected) once left ncu unable to launch the lab at all, so every ncu check
 * came back "not checked" and awarded (H100): the tool keeps /tmp, the lab never gets it. */
START_TEST(protected_folder_in_tmp_keeps_the_tool_working_and_the_lab_out)
{
    const char *protect[] = { test_root(), other };
    cml_sandbox_protect(protect, 2);
    cml_tech_result out = sanitize_with("attack_write", victim);
    ck_assert_msg(out.state == CML_TECH_PASSED, "%s", out.detail);
    ck_assert_int_eq(attempt_errno(), EACCES);
}
END_TEST

/* cml-confine says why it could not start the lab in the tool's log folder, which the lab
 * cannot write: not checked (the grader's fault), where a lab's own exit would be a failure. */
START_TEST(confine_failure_is_not_checked)
{
    setenv("FAKE_TOOL_MODE", "badconfine", 1);
    cml_tech_result out = sanitize_with(NULL, NULL);
    unsetenv("FAKE_TOOL_MODE");
    ck_assert_msg(out.state == CML_TECH_NOT_CHECKED && strstr(out.detail, "confine: usage"),
                  "%s", out.detail);
}
END_TEST

START_TEST(missing_confine_is_not_checked_and_never_runs_loose)
{
    setenv("CML_CONFINE", "/nonexistent/cml-confine", 1);
    cml_tech_result out = sanitize_with("attack_write", victim);
    unsetenv("CML_CONFINE");
    ck_assert_msg(out.state == CML_TECH_NOT_CHECKED && strstr(out.detail, "cml-confine"), "%s",
                  out.detail);
    ck_assert(access(log_path, F_OK) != 0); /* the lab never ran */
}
END_TEST

/* A daemon the lab leaves behind ends with the lab (cml-confine kills it), so the tool, which
 * waits for it, stops at once: before, a daemon kept every sanitizer run of its lab going until
 * the tool's time limit (3x the lab's), 60 s of a batch's GPU on an H100. */
START_TEST(daemon_ends_with_the_lab_under_a_tool)
{
    setenv("FAKE_DAEMON_S", "20", 1);
    const double t0 = cml_now();
    cml_tech_result out = sanitize_with("attack_daemon", victim);
    const double took = cml_now() - t0;
    unsetenv("FAKE_DAEMON_S");
    ck_assert_msg(out.state == CML_TECH_PASSED, "%s", out.detail);
    ck_assert_msg(took < 8, "the tool run took %.1f s: it waited for the daemon", took);
    ck_assert_int_eq(attempt_errno(), 0); /* the daemon did start */
}
END_TEST

/* A process orphaned during a tool run (a daemon) dies at once: the supervisor kills every
 * child but the tool (loop 0), and every process of the run in a session of its own (loop 1:
 * here a child of the tool, as a daemon is under compute-sanitizer's subreaper launcher). Here the orphan is the fake tool's own: fake_lab's attack_daemon did not
 * outlive its lab under the fake tool even without this (not traced further). The tools wait for every process they follow: before, a daemon started by the lab kept
 * each sanitizer run of its lab going to the tool's time limit, 60 s of a batch's GPU (H100). */
START_TEST(orphan_of_a_tool_run_dies_at_once)
{
    setenv("FAKE_TOOL_MODE", _i ? "session" : "orphan", 1);
    const double t0 = cml_now();
    cml_tech_result out = sanitize_with(NULL, NULL);
    const double took = cml_now() - t0;
    unsetenv("FAKE_TOOL_MODE");
    ck_assert_msg(out.state == CML_TECH_PASSED, "%s", out.detail);
    ck_assert_msg(took < 8, "the tool run took %.1f s: the %s outlived the lab", took,
                  _i ? "process in a session of its own" : "orphan");
}
END_TEST

/* The most cases a sanitizer run takes (CML_MAX_CASES) all reach the lab: the tool's arguments were cut
 * short without a word once two tool options were added, so lab 04's runs ended "before the
 * first instrumented API call" (H100) and were split task by task. */
START_TEST(sanitizer_run_of_the_most_cases_gets_them_all)
{
    char path[CML_PATH], err[512], spec16[2048] = "lab 01_x\nfiles k.cu\ntask 1.1\ncheck copy\n"
                                                "points 6\n";
    for (int c = 1; c <= CML_MAX_CASES; c++)
        snprintf(spec16 + strlen(spec16), sizeof spec16 - strlen(spec16), "case n=%d\n", c);
    cml_fmt(path, sizeof path, "%s/t16.spec", dir);
    test_write(path, spec16);
    ck_assert_msg(cml_spec_load(path, &spec, err, sizeof err) == 0, "%s", err);
    cml_tech_result out = sanitize_with(NULL, NULL);
    char want[32]; /* every case a task may have (CML_MAX_CASES), none left out of the run */
    snprintf(want, sizeof want, "in %d case(s)", CML_MAX_CASES);
    ck_assert_msg(out.state == CML_TECH_PASSED && strstr(out.detail, want), "%s", out.detail);
}
END_TEST

/* The ncu runs of one technique phase share a TMPDIR (ncu's library in each lab takes its
 * profiling lock there): the lab may write that folder, and still nothing else in /tmp. */
START_TEST(lab_under_a_tool_writes_the_shared_tmp_and_nothing_else)
{
    char shared[64], lock[CML_PATH], detail[512];
    test_tmpdir(shared, sizeof shared); /* as the phase makes it: the lab's user may write it */
    chmod(shared, 0777);
    cml_fmt(lock, sizeof lock, "%s/lock", shared);
    const char *tool = getenv("CML_SANITIZER");
    char *argv[] = { (char *)tool, "./lab", "--no-output", "--case", "1.1,n=1000", NULL };
    cml_technique_env env = { .bin = test_path("build/fake_lab"), .seed = 7, .work_dir = dir,
                              .timeout_s = 10, .tool_tmp = shared };
    const char *target[2] = { lock, victim };
    const int want[2] = { 0, EACCES };
    for (int i = 0; i < 2; i++) {
        cml_proc_result r = {0};
        unlink(log_path);
        setenv("FAKE_ATTACK_ALWAYS", "attack_write", 1);
        setenv("FAKE_TARGETS", target[i], 1);
        ck_assert_int_eq(cml_tool_run(argv, "--log-file", &env, -1, "ncu", &r, detail,
                                      sizeof detail), 0);
        cml_proc_result_free(&r);
        int e = attempt_errno();
        ck_assert_msg(e == want[i], "writing %s: errno %d", target[i], e);
    }
    ck_assert_int_eq(access(lock, F_OK), 0);
    cml_rmtree(shared);
    char *text = cml_read_text(victim, 4096, NULL);
    ck_assert_str_eq(text, "01_x\t1.1\tpassed\t6\t6\n");
    free(text);
}
END_TEST

/* Adds the tool-run tests to the sandbox suite; how many confined ones were left out (no
 * Landlock here). */
int sandbox_tool_add(Suite *s)
{
    TCase *tc = tcase_create("under a tool");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    int confined = cml_sandbox_caps_get()->fs;
    tcase_add_test(tc, honest_lab_under_a_tool_passes);
    tcase_add_test(tc, missing_confine_is_not_checked_and_never_runs_loose);
    tcase_add_test(tc, confine_failure_is_not_checked);
    tcase_add_test(tc, lab_under_a_tool_runs_a_shell_without_confine);
    tcase_add_loop_test(tc, orphan_of_a_tool_run_dies_at_once, 0, 2);
    tcase_add_test(tc, sanitizer_run_of_the_most_cases_gets_them_all);
    tcase_add_test(tc, daemon_ends_with_the_lab_under_a_tool);
    tcase_add_test(tc, lab_under_a_tool_writes_tmp_without_confine);
    if (confined) {
        tcase_add_test(tc, lab_under_a_tool_cannot_run_a_shell);
        tcase_add_test(tc, lab_under_a_tool_cannot_write_tmp);
        tcase_add_test(tc, lab_under_a_tool_cannot_read_the_repository);
        tcase_add_test(tc, protected_folder_in_tmp_keeps_the_tool_working_and_the_lab_out);
        tcase_add_test(tc, lab_under_a_tool_writes_the_shared_tmp_and_nothing_else);
    }
    suite_add_tcase(s, tc);
    return confined ? 0 : 5;
}
