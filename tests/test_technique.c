/* Technique checks: the spec directives (ptx, sass, forbid, ncu, ncu_case, technique), the text
 * checks on fixture PTX and sources (no GPU), and ncu through a fake tool named by CML_NCU that
 * prints what the real one does. compute-sanitizer is no technique check: test_sanitize.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "report.h"
#include "score.h"
#include "spec.h"
#include "suites.h"
#include "evidence.h"
#include "technique.h"
#include "util.h"

#define HEAD "lab 04_x\nfiles k.cu\n"
#define TASK "task 1.1\ncheck copy\npoints 6\ncase n=1000\ncase n=4096 time\n"
#define V4 "ld\\.global(\\.[a-z0-9:_]+)*\\.v4\\.(f32|b32|u32)"

static char dir[64], err[512];
static cml_lab_spec spec;
static cml_task_result r;
static cml_technique_env env;

/* Loads spec text through a file; cml_spec_load's result. */
static int load(const char *text)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/t.spec", dir);
    test_write(path, text);
    return cml_spec_load(path, &spec, err, sizeof err);
}

static void rejected(const char *text, const char *what)
{
    ck_assert_int_eq(load(text), -1);
    ck_assert_msg(strstr(err, what) != NULL, "'%s' should contain '%s'", err, what);
}

static void put(const char *name, const char *text, int exec)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", dir, name);
    test_write(path, text);
    if (exec)
        chmod(path, 0755);
}

static const char *in_dir(const char *name)
{
    static char path[4][CML_PATH];
    static int next;
    char *p = path[next++ % 4];
    cml_fmt(p, CML_PATH, "%s/%s", dir, name);
    return p;
}

/* A fake ncu: writes what it says to --log-file as the real one does. FAKE_NCU=ok prints CSV
 * with $FAKE_NCU_VALUE, perm the permission error, none no kernel, error a failure of its own,
 * forged also CSV rows with 0 on its stdout, as a lab could print them, two also a row of a
 * second kernel ("other", $FAKE_NCU_OTHER), as one run for two tasks; its arguments (after
 * --log-file) go to $FAKE_ARGS. */
static const char NCU[] =
    "#!/bin/sh\nexec 3>&1\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "echo \"$@\" > \"$FAKE_ARGS\"\necho run >> \"$FAKE_ARGS.runs\"\n"
    "echo '==PROF== Connected to process 1'\n"
    "[ \"$FAKE_NCU\" = forged ] && { echo '\"Kernel Name\",\"Metric Name\",\"Metric Value\"'; "
    "echo '\"copyVec\",\"m.sum\",\"0\"'; } >&3\n"
    "case $FAKE_NCU in\nerror) echo '==ERROR== Failed to prepare kernel for profiling'; exit 1;;\n"
    "perm) echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have "
    "permission to access NVIDIA GPU Performance Counters'; exit 1;;\n"
    "none) echo '==WARNING== No kernels were profiled.'; exit 0;;\nesac\n"
    "echo '\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"'\n"
    "echo '\"0\",\"1\",\"copyVec\",\"m.sum\",\"\",\"'\"$FAKE_NCU_VALUE\"'\"'\n"
    "echo '\"1\",\"1\",\"copyVec\",\"m.sum\",\"\",\"0\"'\n"
    "echo '\"1\",\"1\",\"copyVec\",\"other.sum\",\"\",\"77\"'\n"
    "[ \"$FAKE_NCU\" = two ] && echo '\"2\",\"1\",\"void other<32>(float *, int)\",\"m.sum\","
    "\"\",\"'\"$FAKE_NCU_OTHER\"'\"'\nexit 0\n";
static const char PTX[] =
    ".visible .entry _Z10copyScalarPKfPfm(\n{\n\tld.global.f32 %f1, [%rd4];\n}\n"
    ".visible .entry _Z7copyVecPKfPfm(\n{\n\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];\n"
    "\tst.global.v4.f32 [%rd5], {%f1, %f2, %f3, %f4};\n}\n";

static void setup(void)
{
    test_tmpdir(dir, sizeof dir);
    put("ncu", NCU, 1);
    /* the evidence a build leaves (evidence.h), in a folder of its own: source, PTX, and why
     * there is no SASS */
    cml_mkdirs(in_dir("ev"));
    put("ev/k.cu.ptx", PTX, 0);
    put("ev/k.cu.sass.err", "cuobjdump not found", 0);
    put("ev/k.cu", "// cudaMemcpy(a, b) is what we do not do\n__global__ void copyVec() {}\n", 0);
    setenv("CML_NCU", in_dir("ncu"), 1);
    setenv("CML_CUOBJDUMP", "/nonexistent/cuobjdump", 1);
    setenv("FAKE_ARGS", in_dir("args"), 1);
    setenv("FAKE_NCU", "ok", 1);
    setenv("FAKE_NCU_VALUE", "0", 1);
    static char ev[CML_PATH];
    cml_fmt(ev, sizeof ev, "%s/ev", dir);
    env = (cml_technique_env){ ev, NULL, "/bin/true", 90, 7, dir, 10 };
    memset(&r, 0, sizeof r);
}

static void teardown(void)
{
    cml_rmtree(dir);
    const char *vars[] = {"CML_NCU", "CML_CUOBJDUMP", "FAKE_NCU_OTHER",
                          "FAKE_ARGS", "FAKE_NCU", "FAKE_NCU_VALUE", "CML_SANDBOX"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* Load `checks` into task 1.1 (worth 6 + 4 technique points) and grade it as `status`. */
static void grade(const char *checks, const char *status)
{
    char text[2048];
    snprintf(text, sizeof text, HEAD TASK "%s\ntechnique 4\n", checks);
    ck_assert_msg(load(text) == 0, "%s", err);
    enum cml_status s;
    ck_assert_int_eq(cml_status_from_name(status, &s), 0);
    r.spec = &spec.tasks[0];
    r.credit = (cml_credit){ .cases = s == CML_STATUS_PASSED ? 2 : 0 }; /* 6 points if passed */
    cml_award(&r, s, "all 2 cases passed");
    cml_technique_task(&spec, &spec.tasks[0], &env, &r);
}

static void assert_check(int k, enum cml_tech_state state, const char *detail)
{
    ck_assert_msg(r.tech[k].state == state && strstr(r.tech[k].detail, detail),
                  "check %d: %s: %s (wanted %s: %s)", k, cml_tech_state_name(r.tech[k].state),
                  r.tech[k].detail, cml_tech_state_name(state), detail);
}

START_TEST(parses_every_directive)
{
    ck_assert_msg(load(HEAD TASK "ptx in=copyVec " V4 " 128-bit loads\nsass LDG.E.128 128-bit "
                       "loads in SASS\nforbid k.cu cudaMemcpy no copies\nncu copy "
                       "m.sum 0 no bank conflicts\nncu_case n=256\n"
                       "technique 3\n") == 0, "%s", err);
    const cml_task_spec *t = &spec.tasks[0];
    ck_assert_int_eq(t->ntech, 4);
    ck_assert_int_eq(t->tech[0].kind, CML_TECH_PTX);
    ck_assert_str_eq(t->tech[0].scope, "copyVec");
    ck_assert_str_eq(t->tech[0].pattern, V4);
    ck_assert_str_eq(t->tech[0].what, "128-bit loads");
    ck_assert_str_eq(t->tech[1].what, "128-bit loads in SASS");
    ck_assert_str_eq(t->tech[2].file, "k.cu");
    ck_assert_str_eq(t->tech[3].metric, "m.sum");
    ck_assert_double_eq(t->tech[3].max, 0);
    ck_assert_str_eq(t->ncu_case, "n=256");
    ck_assert_double_eq(t->technique_points, 3);
}
END_TEST

START_TEST(rejects_bad_directives)
{
    rejected(HEAD TASK "ptx ld[ bad\ntechnique 1\n", "not a POSIX extended regex");
    rejected(HEAD TASK "ptx ld\\.global\ntechnique 1\n", "ends with what the check proves");
    rejected(HEAD TASK "forbid other.cu x y\ntechnique 1\n", "not one of the lab's 'files'");
    rejected(HEAD TASK "ncu k m.sum lots what\ntechnique 1\n", "must be a number");
    rejected(HEAD TASK "ncu_case n=256,time\n", "drop 'time'");
    rejected(HEAD TASK "technique 2\n", "no check");
    rejected(HEAD TASK "ptx ld x\n", "no 'technique <points>'");
    rejected(HEAD TASK "ptx in= ld x\ntechnique 1\n", "in= needs a kernel name");
    rejected(HEAD "ptx ld x\n" TASK, "outside a task");
    char text[1024] = HEAD TASK;
    for (int i = 0; i < CML_MAX_TECH + 1; i++)
        strcat(text, "ptx ld x\n");
    rejected(text, "at most 8 technique checks");
}
END_TEST

START_TEST(finds_lines_within_a_kernel)
{
    char found[128];
    int line = 0;
    ck_assert_int_eq(cml_tech_find(PTX, V4, NULL, found, sizeof found, &line), 1);
    ck_assert_str_eq(found, "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];");
    ck_assert_int_eq(cml_tech_find("  LDG.E.128   R8,\t\tdesc ;", "LDG", NULL, found, sizeof found,
                                   NULL), 1);
    ck_assert_str_eq(found, "LDG.E.128 R8, desc ;");
    ck_assert_int_eq(line, 7);
    ck_assert_int_eq(cml_tech_find(PTX, V4, "copyScalar", found, sizeof found, NULL), 0);
    ck_assert_int_eq(cml_tech_find(PTX, "st\\.global(\\.[a-z0-9:_]+)*\\.v4", "copyVec", found,
                                   sizeof found, NULL), 1);
    ck_assert_int_eq(cml_tech_find(PTX, "ld[", NULL, found, sizeof found, NULL), -1);
}
END_TEST

/* in=<kernel> names one kernel exactly: a vector load in another kernel whose name holds that
 * name ("copyVecFast") does not count, one in the kernel inside a namespace or as extern "C"
 * does. */
START_TEST(kernel_scope_is_the_exact_name)
{
    char found[128];
    static const char DECOY[] =
        ".visible .entry _Z11copyVecFastPKfPfm(\n{\n"
        "\tld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd4];\n}\n"
        ".visible .entry _Z7copyVecPKfPfm(\n{\n\tld.global.f32 %f1, [%rd4];\n}\n";
    ck_assert_int_eq(cml_tech_find(DECOY, V4, "copyVec", found, sizeof found, NULL), 0);
    ck_assert_int_eq(cml_tech_find(DECOY, V4, "copyVecFast", found, sizeof found, NULL), 1);
    ck_assert_int_eq(cml_tech_find(".entry _ZN2ns7copyVecEPKfPfm(\n\tld.global.v4.f32 {%f1};\n",
                                   V4, "copyVec", found, sizeof found, NULL), 1);
    ck_assert_int_eq(cml_tech_find(".entry _ZN3ns27copyVecEPKfPfm(\n\tld.global.v4.f32 {%f1};\n",
                                   V4, "copyVec", found, sizeof found, NULL), 1); /* ns2:: */
    ck_assert_int_eq(cml_tech_find(".entry copyVec(\n\tld.global.v4.f32 {%f1}, [%r];\n", V4,
                                   "copyVec", found, sizeof found, NULL), 1);
    ck_assert_int_eq(cml_tech_find("\tFunction : copyVecFast\n\tLDG.E.128 R8 ;\n", "LDG",
                                   "copyVec", found, sizeof found, NULL), 0);
}
END_TEST

START_TEST(strips_comments_but_not_strings)
{
    char src[] = "a(); // cudaMemcpy\n/* cudaMemcpy\n */ b(\"//x\", '/');\nc(); /* x */ d();\n";
    cml_strip_comments(src);
    ck_assert_ptr_null(strstr(src, "cudaMemcpy"));
    ck_assert_ptr_nonnull(strstr(src, "b(\"//x\", '/');"));
    ck_assert_ptr_nonnull(strstr(src, "d();"));
    int lines = 0;
    for (char *c = src; *c; c++)
        lines += *c == '\n';
    ck_assert_int_eq(lines, 4);
}
END_TEST

START_TEST(sums_an_ncu_metric)
{
    double sum = 0;
    const char *csv = "==PROF== Connected\n\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric "
                      "Value\"\n\"0\",\"k(int, \"\"a\"\")\",\"m.sum\",\"1,024\"\n"
                      "\"1\",\"k\",\"m.sum\",\"2\"\n\"1\",\"k\",\"n.sum\",\"5\"\nprogram output\n";
    ck_assert_int_eq(cml_ncu_sum(csv, "m.sum", NULL, &sum), 2);
    ck_assert_double_eq(sum, 1026);
    ck_assert_int_eq(cml_ncu_sum("no csv here\n", "m.sum", NULL, &sum), 0);
}
END_TEST

START_TEST(ptx_and_forbid_pass_and_award_points)
{
    grade("ptx in=copyVec " V4 " 128-bit loads\nforbid k.cu cudaMemcpy no copies", "passed");
    assert_check(0, CML_TECH_PASSED, "found: ld.global.nc.v4.f32");
    assert_check(1, CML_TECH_PASSED, "nothing matching cudaMemcpy");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
    ck_assert_double_eq(r.technique_score, 4);
    ck_assert_double_eq(r.score, 10);
}
END_TEST

START_TEST(scalar_ptx_fails_the_technique)
{
    put("ev/k.cu.ptx", ".visible .entry _Z7copyVecPKfPfm(\n{\n\tld.global.f32 %f1, [%rd4];\n}\n",
        0);
    grade("ptx " V4 " 128-bit loads", "passed");
    assert_check(0, CML_TECH_FAILED, "no PTX line matches");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
    ck_assert_ptr_nonnull(strstr(r.detail, "technique check ptx failed (it proves: 128-bit"));
    ck_assert_ptr_nonnull(strstr(r.detail, "all 2 cases passed"));
    ck_assert_double_eq(r.technique_score, 0);
    ck_assert_double_eq(r.score, 6);
}
END_TEST

START_TEST(forbidden_call_in_code_fails)
{
    put("ev/k.cu", "/* fine */\nvoid f() {\n  cudaMemcpy(a, b, n, k);\n}\n", 0);
    grade("forbid k.cu cudaMemcpy no explicit copies", "slow");
    assert_check(0, CML_TECH_FAILED, "k.cu line 3: cudaMemcpy(a, b, n, k);");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

START_TEST(no_gpu_reports_checks_and_keeps_status)
{
    env.bin = NULL;
    grade("ptx " V4 " loads\nncu copy m.sum 0 conflicts", "no-gpu");
    assert_check(0, CML_TECH_PASSED, "found");
    assert_check(1, CML_TECH_NOT_CHECKED, "no GPU");
    ck_assert_str_eq(cml_status_name(r.status), "no-gpu");
    ck_assert_double_eq(r.score, 0);
}
END_TEST

START_TEST(wrong_task_gets_no_technique_points)
{
    grade("ptx " V4 " loads\nncu copy m.sum 0 conflicts", "wrong");
    assert_check(1, CML_TECH_NOT_RUN, "a case of the task failed");
    ck_assert_str_eq(cml_status_name(r.status), "wrong");
    ck_assert_double_eq(r.technique_score, 0);
}
END_TEST

/* Evidence is held to the digest the build took: PTX rewritten after it (by a lab running
 * without the sandbox, say) fails every text check; the same evidence untouched passes. */
START_TEST(evidence_changed_after_the_build_is_refused)
{
    char digest[CML_SHA256_HEX];
    ck_assert_int_eq(cml_evidence_digest(env.ev_dir, digest), 0);
    env.ev_digest = digest;
    put("ev/k.cu.ptx", ".visible .entry _Z7copyVecPKfPfm(\n{\n\tld.global.v4.f32 %f1, [%rd4];\n}\n",
        0); /* a forged line the check would otherwise accept */
    grade("ptx " V4 " 128-bit loads\nforbid k.cu cudaMemcpy no copies", "passed");
    assert_check(0, CML_TECH_FAILED, "changed after the build");
    assert_check(1, CML_TECH_FAILED, "changed after the build");
    ck_assert_double_eq(r.technique_score, 0);
}
END_TEST

START_TEST(evidence_with_its_build_digest_is_read)
{
    char digest[CML_SHA256_HEX];
    ck_assert_int_eq(cml_evidence_digest(env.ev_dir, digest), 0);
    env.ev_digest = digest;
    grade("ptx " V4 " 128-bit loads", "passed");
    assert_check(0, CML_TECH_PASSED, "found: ld.global.nc.v4.f32");
    ck_assert_double_eq(r.technique_score, 4);
}
END_TEST

START_TEST(missing_cuobjdump_is_not_checked_and_awarded)
{
    grade("sass LDG.E.128 128-bit loads", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "not checked (cuobjdump not found)");
    ck_assert_double_eq(r.score, 10);
}
END_TEST

/* The tests that read the fake tool's arguments run it unconfined: under the sandbox it could
 * write them nowhere but its run folder (test_sandbox.c checks that). */
START_TEST(ncu_within_limit_passes)
{
    char *args;
    setenv("CML_SANDBOX", "off", 1);
    grade("ncu copy m.sum 0 no bank conflicts\nncu_case n=256", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 0 <= 0 over 2 kernel launches (case 1.1,n=256)");
    ck_assert_double_eq(r.score, 10);
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_ptr_nonnull(strstr(args, "--clock-control none --target-processes all "
                                       "--kernel-name regex:copy --metrics m.sum --csv"));
    ck_assert_ptr_nonnull(strstr(args, "./lab --seed 7 --no-output --case 1.1,n=256"));
    free(args);
}
END_TEST

/* Two metrics of one kernel: one profiling run collects both, and each check reads its own. */
START_TEST(ncu_profiles_a_kernel_once_for_all_its_metrics)
{
    char *runs, path[CML_PATH];
    setenv("CML_SANDBOX", "off", 1);
    grade("ncu copy m.sum 0 no conflicts\nncu copy other.sum 100 few others", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 0 <= 0");
    assert_check(1, CML_TECH_PASSED, "other.sum = 77 <= 100");
    cml_fmt(path, sizeof path, "%s.runs", in_dir("args"));
    ck_assert_ptr_nonnull(runs = cml_read_text(path, 4096, NULL));
    ck_assert_str_eq(runs, "run\n");
    free(runs);
}
END_TEST

START_TEST(ncu_over_limit_fails)
{
    setenv("FAKE_NCU_VALUE", "1,536", 1);
    grade("ncu copy m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 1536 > limit 0");
    assert_check(0, CML_TECH_FAILED, "case 1.1,n=1000"); /* the first case by default */
    ck_assert_str_eq(cml_status_name(r.status), "technique");
    ck_assert_double_eq(r.score, 6);
}
END_TEST

START_TEST(ncu_without_permission_or_a_working_tool_is_not_checked)
{
    setenv("FAKE_NCU", "perm", 1);
    grade("ncu copy m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "ERR_NVGPUCTRPERM");
    ck_assert_double_eq(r.score, 10);
    setenv("FAKE_NCU", "error", 1);
    grade("ncu copy m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "ncu reported no m.sum");
    setenv("CML_NCU", "/nonexistent/ncu", 1);
    grade("ncu copy m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "not checked (ncu not found)");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
}
END_TEST

/* A kernel filter that matched nothing means the lab launched no such kernel under ncu (a
 * renamed kernel, or a lab that behaves differently when profiled): a failure, never "not
 * checked". */
START_TEST(ncu_filter_matching_no_kernel_fails)
{
    setenv("FAKE_NCU", "none", 1);
    grade("ncu copy m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_FAILED, "no kernel matching 'copy' ran under ncu");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* The counters come from ncu's log file: rows a lab prints on stdout are not read. */
START_TEST(ncu_reads_its_log_not_the_labs_stdout)
{
    setenv("FAKE_NCU", "forged", 1);
    setenv("FAKE_NCU_VALUE", "5000", 1);
    grade("ncu copy m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 5000 > limit 0");
}
END_TEST

/* ncu's rows read by kernel: the name before its parameters, searched as ncu's regex: does. */
START_TEST(sums_an_ncu_metric_of_one_kernel)
{
    double sum = 0;
    const char *csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n"
                      "\"0\",\"void gram<32>(float *, int)\",\"m.sum\",\"1\"\n"
                      "\"1\",\"gramPadded(const float *)\",\"m.sum\",\"20\"\n"
                      "\"2\",\"scale(int)\",\"m.sum\",\"300\"\n";
    ck_assert_int_eq(cml_ncu_sum(csv, "m.sum", "gramPadded", &sum), 1);
    ck_assert_double_eq(sum, 20);
    ck_assert_int_eq(cml_ncu_sum(csv, "m.sum", "gram", &sum), 2);
    ck_assert_double_eq(sum, 21);
    ck_assert_int_eq(cml_ncu_sum(csv, "m.sum", "int", &sum), 0); /* parameters are no name */
    ck_assert_int_eq(cml_ncu_sum("\"Metric Name\",\"Metric Value\"\n\"m.sum\",\"4\"\n", "m.sum",
                                 "k", &sum), 0); /* no Kernel Name column: nothing is k's */
}
END_TEST

#define TWO_TASKS HEAD TASK "ncu copy m.sum 0 no conflicts\ntechnique 1\ntask 1.2\ncheck copy\n" \
    "points 6\ncase n=1000\nncu other m.sum 0 no conflicts\nncu_case n=64\ntechnique 1\n"

/* Task t of spec graded as passed with its technique checks, into x. */
static void lab_task(int t, cml_task_result *x)
{
    memset(x, 0, sizeof *x);
    x->spec = &spec.tasks[t];
    x->credit = (cml_credit){ .cases = 2 };
    cml_award(x, CML_STATUS_PASSED, "all cases passed");
    cml_technique_task(&spec, &spec.tasks[t], &env, x);
}

/* How many times the fake ncu ran. */
static int ncu_runs(void)
{
    char path[CML_PATH], *runs;
    cml_fmt(path, sizeof path, "%s.runs", in_dir("args"));
    int n = 0;
    if ((runs = cml_read_text(path, 4096, NULL)))
        for (const char *p = runs; (p = strstr(p, "run")); p++)
            n++;
    free(runs);
    return n;
}

/* Two solved tasks with ncu checks: one run with both cases, each check on its own kernel. */
START_TEST(ncu_profiles_a_labs_solved_tasks_in_one_run)
{
    cml_task_result a, b;
    char *args;
    setenv("CML_SANDBOX", "off", 1);
    setenv("FAKE_NCU", "two", 1);
    setenv("FAKE_NCU_OTHER", "9", 1);
    ck_assert_msg(load(TWO_TASKS) == 0, "%s", err);
    ck_assert_int_eq(cml_tech_ncu_lab(&spec, (int[]){1, 1}, &env), 2);
    lab_task(0, &a);
    lab_task(1, &b);
    cml_tech_ncu_lab_forget();
    ck_assert_int_eq(ncu_runs(), 1);
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_ptr_nonnull(strstr(args, "--kernel-name regex:copy|other --metrics m.sum --csv"));
    ck_assert_ptr_nonnull(strstr(args, "--case 1.1,n=1000 --case 1.2,n=64"));
    free(args);
    ck_assert_msg(a.tech[0].state == CML_TECH_PASSED &&
                  strstr(a.tech[0].detail, "m.sum = 0 <= 0 over 2 launches of kernels matching "
                         "copy (case 1.1,n=1000, in one ncu run for 2 tasks)"), "%s",
                  a.tech[0].detail);
    ck_assert_msg(b.tech[0].state == CML_TECH_FAILED &&
                  strstr(b.tech[0].detail, "m.sum = 9 > limit 0 over 1 launch of"), "%s",
                  b.tech[0].detail);
    ck_assert_str_eq(cml_status_name(b.status), "technique");
}
END_TEST

/* A shared run that failed, or one task solved: each task's checks run as they always did. */
START_TEST(ncu_lab_run_falls_back_to_each_tasks_own)
{
    cml_task_result a, b;
    setenv("CML_SANDBOX", "off", 1);
    setenv("FAKE_NCU", "error", 1);
    ck_assert_msg(load(TWO_TASKS) == 0, "%s", err);
    ck_assert_int_eq(cml_tech_ncu_lab(&spec, (int[]){1, 1}, &env), 2);
    lab_task(0, &a);
    lab_task(1, &b);
    cml_tech_ncu_lab_forget();
    ck_assert_int_eq(ncu_runs(), 3);
    ck_assert_int_eq(a.tech[0].state, CML_TECH_NOT_CHECKED);
    ck_assert_int_eq(b.tech[0].state, CML_TECH_NOT_CHECKED);
    ck_assert_ptr_nonnull(strstr(b.tech[0].detail, "Failed to prepare kernel"));
    ck_assert_int_eq(cml_tech_ncu_lab(&spec, (int[]){1, 0}, &env), 0); /* one solved: no run */
    ck_assert_int_eq(ncu_runs(), 3);
}
END_TEST

START_TEST(reports_show_the_checks)
{
    char *buf = NULL;
    size_t len = 0;
    setenv("FAKE_NCU_VALUE", "5000", 1);
    grade("ptx " V4 " 128-bit loads\nncu copy m.sum 0 no bank conflicts", "passed");
    cml_lab_result lab = { .spec = &spec, .ntasks = 1 };
    lab.tasks[0] = r;
    FILE *m = open_memstream(&buf, &len);
    cml_report_tech_term(m, &lab, 0);
    json_w w = { .f = m };
    jw_begin_object(&w, NULL);
    cml_report_tech_json(&w, &r);
    jw_end_object(&w);
    fclose(m);
    ck_assert_ptr_nonnull(strstr(buf, "Technique checks\n1.1   ptx      passed      128-bit "
                                      "loads: found: ld.global.nc.v4.f32"));
    ck_assert_ptr_nonnull(strstr(buf, "1.1   ncu      FAILED      no bank conflicts: m.sum = "
                                      "5000 > limit 0"));
    ck_assert_ptr_nonnull(strstr(buf, "\"technique_points\": 4"));
    ck_assert_ptr_nonnull(strstr(buf, "\"state\": \"FAILED\""));
    free(buf);
}
END_TEST

/* The technique checks' suite. */
Suite *technique_suite(void)
{
    Suite *s = suite_create("technique");
    TCase *spec_tc = tcase_create("spec"), *text = tcase_create("text"),
          *tools = tcase_create("tools");
    TCase *all[] = {spec_tc, text, tools};
    for (size_t i = 0; i < 3; i++)
        tcase_add_checked_fixture(all[i], setup, teardown);
    tcase_add_test(spec_tc, parses_every_directive);
    tcase_add_test(spec_tc, rejects_bad_directives);
    tcase_add_test(text, finds_lines_within_a_kernel);
    tcase_add_test(text, kernel_scope_is_the_exact_name);
    tcase_add_test(text, strips_comments_but_not_strings);
    tcase_add_test(text, sums_an_ncu_metric);
    tcase_add_test(text, sums_an_ncu_metric_of_one_kernel);
    tcase_add_test(text, ptx_and_forbid_pass_and_award_points);
    tcase_add_test(text, scalar_ptx_fails_the_technique);
    tcase_add_test(text, forbidden_call_in_code_fails);
    tcase_add_test(text, no_gpu_reports_checks_and_keeps_status);
    tcase_add_test(text, wrong_task_gets_no_technique_points);
    tcase_add_test(tools, missing_cuobjdump_is_not_checked_and_awarded);
    tcase_add_test(tools, evidence_changed_after_the_build_is_refused);
    tcase_add_test(tools, evidence_with_its_build_digest_is_read);
    tcase_add_test(tools, ncu_within_limit_passes);
    tcase_add_test(tools, ncu_over_limit_fails);
    tcase_add_test(tools, ncu_profiles_a_kernel_once_for_all_its_metrics);
    tcase_add_test(tools, ncu_without_permission_or_a_working_tool_is_not_checked);
    tcase_add_test(tools, ncu_filter_matching_no_kernel_fails);
    tcase_add_test(tools, ncu_reads_its_log_not_the_labs_stdout);
    tcase_add_test(tools, ncu_profiles_a_labs_solved_tasks_in_one_run);
    tcase_add_test(tools, ncu_lab_run_falls_back_to_each_tasks_own);
    tcase_add_test(tools, reports_show_the_checks);
    suite_add_tcase(s, spec_tc);
    suite_add_tcase(s, text);
    suite_add_tcase(s, tools);
    return s;
}
