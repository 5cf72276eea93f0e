/* compute-sanitizer's parts that need no tool: the spec directives (spec_sanitize.c), the cases
 * the tools run (sanitize_run.c) and the one-line message taken from a tool's log
 * (sanitize_log.c); with the grading tests of test_sanitize.c, the sanitize suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "helpers.h"
#include "sanitize.h"
#include "spec.h"
#include "suites.h"
#include "util.h"

TCase *sanitize_grading_tcase(void); /* tests/test_sanitize.c */

#define HEAD "lab 01_x\nfiles k.cu\ntask 1.1\ncheck copy\npoints 6\n"

static cml_lab_spec spec;
static char err[512];

static int load(const char *text)
{
    char path[64];
    return test_spec_text(text, &spec, path, err, sizeof err);
}

/* cml_sanitizers_needed on an evidence folder holding `ptx` as k.cu's PTX, its digest as given
 * (`tamper`: the PTX rewritten after the digest was taken). */
static unsigned needed(const char *ptx, int tamper)
{
    char dir[64], path[CML_PATH], digest[CML_SHA256_HEX];
    test_tmpdir(dir, sizeof dir);
    ck_assert_msg(load(HEAD "case n=10\n") == 0, "%s", err);
    cml_fmt(path, sizeof path, "%s/k.cu.ptx", dir);
    if (ptx)
        test_write(path, ptx);
    ck_assert(cml_evidence_digest(dir, digest) == 0);
    if (tamper)
        test_write(path, "// nothing here\n");
    unsigned need = cml_sanitizers_needed(&spec, dir, digest);
    cml_rmtree(dir);
    return need;
}

/* racecheck where the PTX reaches shared memory, synccheck where it synchronizes, memcheck and
 * initcheck always; every tool when the PTX is missing or changed since its digest. */
START_TEST(sanitizers_needed_follow_the_ptx)
{
    setenv("CML_SANITIZE_ONLY_NEEDED", "0", 1);
    ck_assert_uint_eq(needed(".shared", 0) | needed("", 0), 15u); /* turned off: all four */
    unsetenv("CML_SANITIZE_ONLY_NEEDED"); /* the default: only the tools with work */
    const unsigned mem_init = (1u << 0) | (1u << 3), race = 1u << CML_RACECHECK,
                   sync = 1u << CML_SYNCCHECK;
    ck_assert_uint_eq(needed("ld.global.f32 %f1, [%rd1];\nst.global.f32 [%rd2], %f1;\n", 0),
                      mem_init);
    ck_assert_uint_eq(needed(".shared .align 4 .b8 tile[4096];\nst.shared.f32 [%r1], %f1;\n",
                             0), mem_init | race);
    ck_assert_uint_eq(needed("cvta.shared.u64 %rd3, %rd2;\n", 0), mem_init | race);
    ck_assert_uint_eq(needed("bar.sync 0;\n", 0), mem_init | sync);
    ck_assert_uint_eq(needed("shfl.sync.down.b32 %r2|%p1, %r1, 16, 31, -1;\n", 0),
                      mem_init | sync);
    ck_assert_uint_eq(needed("mbarrier.init.shared.b64 [%r1], 32;\n", 0), 15u);
    ck_assert_uint_eq(needed(NULL, 0), 15u);                       /* no PTX */
    ck_assert_uint_eq(needed(".shared .b8 t[64];\nbar.sync 0;\n", 1), 15u); /* tampered */
    ck_assert_uint_eq(cml_sanitizers_needed(&spec, NULL, NULL), 15u); /* no evidence */
    setenv("CML_SANITIZE_ONLY_NEEDED", "1", 1); /* any value but 0: the default */
    ck_assert_uint_eq(needed("bar.sync 0;\n", 0), mem_init | sync);
    unsetenv("CML_SANITIZE_ONLY_NEEDED");
}
END_TEST

START_TEST(sanitize_directive_keeps_only_the_tools_it_names)
{
    ck_assert_msg(load(HEAD "case n=10\nsanitize memcheck,racecheck\n") == 0, "%s", err);
    ck_assert_uint_eq(spec.tasks[0].sanitize_off, (1u << 2) | (1u << 3)); /* sync, init */
}
END_TEST

START_TEST(sanitize_off_turns_every_tool_off)
{
    ck_assert_msg(load(HEAD "case n=10\nsanitize off\n") == 0, "%s", err);
    ck_assert_uint_eq(spec.tasks[0].sanitize_off, 15);
}
END_TEST

START_TEST(sanitize_directive_rejects_an_unknown_tool)
{
    ck_assert_int_eq(load(HEAD "case n=10\nsanitize memcheck,leakcheck\n"), -1);
    ck_assert_msg(strstr(err, "unknown tool 'leakcheck'"), "%s", err);
}
END_TEST

START_TEST(sanitize_case_is_never_timed)
{
    ck_assert_int_eq(load(HEAD "case n=10\nsanitize_case n=4097,time\n"), -1);
    ck_assert_msg(strstr(err, "drop 'time'"), "%s", err);
}
END_TEST

/* The cases the tools get, joined by spaces. */
static const char *chosen(const char *text)
{
    static char joined[CML_MAX_CASES * 201];
    char cases[CML_MAX_CASES][200];
    ck_assert_msg(load(text) == 0, "%s", err);
    int n = cml_sanitize_cases(&spec.tasks[0], cases, CML_MAX_CASES);
    joined[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? " " : "",
                 cases[i]);
    return joined;
}

START_TEST(sanitizers_run_the_small_untimed_cases)
{
    ck_assert_str_eq(chosen(HEAD "case n=1000\ncase n=4097\ncase n=4194304\n"
                                 "case n=67108864 time\n"), "1.1,n=1000 1.1,n=4097");
}
END_TEST

START_TEST(sanitizers_take_the_smallest_when_no_case_is_small)
{
    ck_assert_str_eq(chosen(HEAD "case n=8388608\ncase n=4194304\ncase n=67108864 time\n"),
                     "1.1,n=4194304");
}
END_TEST

START_TEST(sanitize_case_names_the_cases)
{
    ck_assert_str_eq(chosen(HEAD "case n=1000\ncase n=67108864 time\nsanitize_case n=33\n"),
                     "1.1,n=33");
}
END_TEST

static const char *const FILES[] = { "float4.cu", "transpose.cu" };

START_TEST(memcheck_message_names_file_line_and_kernel)
{
    char line[300];
    cml_sanitizer_errors("========= COMPUTE-SANITIZER\n"
                         "========= Invalid __global__ read of size 16 bytes\n"
                         "=========     at copyVector4(const float4 *, float4 *, int)+0x70 in "
                         "/tmp/cml-runs-ab/lab-cd/float4.cu:41\n"
                         "=========     by thread (31,0,0) in block (0,0,0)\n"
                         "========= ERROR SUMMARY: 1 error\n", FILES, 2, line, sizeof line);
    ck_assert_str_eq(line, "Invalid __global__ read of size 16 bytes at float4.cu:41 in "
                           "copyVector4");
}
END_TEST

START_TEST(racecheck_message_names_both_accesses)
{
    char line[300];
    cml_sanitizer_errors("========= COMPUTE-SANITIZER\n"
                         "========= Error: Race reported between Write access at "
                         "transposeCoalesced(float *, const float *, int, int)+0x1e0 in "
                         "/x/transpose.cu:30\n"
                         "=========     and Read access at transposeCoalesced(float *, const "
                         "float *, int, int)+0x2a0 in /x/transpose.cu:36 [4096 hazards]\n"
                         "========= RACECHECK SUMMARY: 1 hazard displayed\n", FILES, 2, line,
                         sizeof line);
    ck_assert_str_eq(line, "Error: Race reported between Write access at transpose.cu:30 in "
                           "transposeCoalesced and Read access at transpose.cu:36 in "
                           "transposeCoalesced [4096 hazards]");
}
END_TEST

/* The harness's own error comes first in the log; the student's is the one reported. */
START_TEST(error_in_a_student_file_is_chosen_over_the_harness)
{
    char line[300];
    int theirs = cml_sanitizer_errors("========= Invalid __global__ read of size 4 bytes\n"
                                      "=========     at fillRandom(float *)+0x10 in harness.cu:9\n"
                                      "========= Invalid __global__ write of size 4 bytes\n"
                                      "=========     at copyVector4(float *)+0x20 in float4.cu:7\n",
                                      FILES, 2, line, sizeof line);
    ck_assert_msg(theirs && strcmp(line, "Invalid __global__ write of size 4 bytes at float4.cu:7 "
                                         "in copyVector4") == 0, "%d: %s", theirs, line);
}
END_TEST

/* A run that ended early is the tool's failure when its log says so: synccheck that cannot
 * follow an mbarrier (cuda::barrier) tile, an internal error. The lines are as the tool writes
 * them to its --log-file: "=========" and a space, the text. */
START_TEST(tool_failure_is_read_from_its_own_lines)
{
    char line[300];
    ck_assert(cml_sanitizer_tool_failure("========= COMPUTE-SANITIZER\n"
                                         "========= Internal Sanitizer Error: The Sanitizer "
                                         "encountered an error while launching the kernel\n",
                                         line, sizeof line) &&
              strcmp(line, "Internal Sanitizer Error: The Sanitizer encountered an error while "
                           "launching the kernel") == 0);
    ck_assert(cml_sanitizer_tool_failure("========= COMPUTE-SANITIZER\n"
                                         "========= Error: Unsupported instruction mbarrier.try_"
                                         "wait.parity.shared::cta.b64 in synccheck\n"
                                         "========= ERROR SUMMARY: 0 errors\n", line,
                                         sizeof line) && strstr(line, "Unsupported instruction"));
}
END_TEST

/* The lab's own early end, the tool's error reports and a clean log are not the tool failing:
 * a dodge stays a dodge, an error stays the student's or the harness's. */
START_TEST(lab_ending_and_error_reports_are_not_the_tool_failing)
{
    char line[300];
    const char *const logs[] = {
        "========= COMPUTE-SANITIZER\n========= Error: process didn't terminate successfully\n"
        "========= Target application returned an error\n========= ERROR SUMMARY: 0 errors\n",
        "========= Error: Race reported between Write access at k(float *)+0x1e0 in /x/t.cu:30"
        "\n=========     and Read access at k(float *)+0x2a0 in /x/t.cu:36 [64 hazards]\n",
        "========= Barrier error detected. Divergent thread(s) in block\n"
        "=========     at transposeCoalesced(float *)+0x70 in /x/transpose.cu:41\n",
        "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", "" };
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        ck_assert_msg(!cml_sanitizer_tool_failure(logs[i], line, sizeof line),
                      "log %zu taken for the tool's failure: %s", i, line);
}
END_TEST

/* The sanitize suite. */
Suite *sanitize_suite(void)
{
    Suite *s = suite_create("sanitize");
    TCase *parts = tcase_create("parts");
    tcase_add_test(parts, sanitize_directive_keeps_only_the_tools_it_names);
    tcase_add_test(parts, sanitizers_needed_follow_the_ptx);
    tcase_add_test(parts, sanitize_off_turns_every_tool_off);
    tcase_add_test(parts, sanitize_directive_rejects_an_unknown_tool);
    tcase_add_test(parts, sanitize_case_is_never_timed);
    tcase_add_test(parts, sanitizers_run_the_small_untimed_cases);
    tcase_add_test(parts, sanitizers_take_the_smallest_when_no_case_is_small);
    tcase_add_test(parts, sanitize_case_names_the_cases);
    tcase_add_test(parts, memcheck_message_names_file_line_and_kernel);
    tcase_add_test(parts, racecheck_message_names_both_accesses);
    tcase_add_test(parts, error_in_a_student_file_is_chosen_over_the_harness);
    tcase_add_test(parts, tool_failure_is_read_from_its_own_lines);
    tcase_add_test(parts, lab_ending_and_error_reports_are_not_the_tool_failing);
    suite_add_tcase(s, parts);
    suite_add_tcase(s, sanitize_grading_tcase());
    return s;
}
