/* calls_unlike_checked (grader/src/6_measure/trace_calls.c, issue 44): every warm-up and timed
 * call of a task's function is held to its checked call. Traces shaped as the library writes
 * them (tests/test_trace.c): the harness opens a window (cuProfilerStart .. Stop, harness
 * frames) around each call; the checked one holds the case marker. The student's functions
 * are _Z6portedPfi (a kernel and its wrapper) and a Thrust instantiation (NM_TEXT below). */
#include "technique_fixture.h"
#include "suites.h"
#include "technique_run.h"

static const char NM_TEXT[] = "0000000000001000 T main\n"
                              "0000000000002000 T _Z6portedPfi\n"
                              "0000000000003000 t _ZL7harnessv\n";
static const char SYMBOLS[] = "T _Z6portedPfi\n";

static cml_trace_tally tally;
static char why[300], text[256 * 1024];
static size_t used;
static unsigned corr;

static void put_line(const char *fmt, unsigned long long a)
{
    used += (size_t)snprintf(text + used, sizeof text - used, fmt, corr, a, corr);
}

/* One call of the task's function: a window, the marker when checked, then what the student's
 * code did: `copies` copies each way of `bytes` (in, in, out as 6.2), `kernels` kernels of
 * grid `grid` (0: none). */
static void call(int checked, int copies, unsigned long long bytes, int kernels, int grid)
{
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "api drv cuProfilerStart corr=%u frames=3010,1010\n", ++corr);
    if (checked) {
        ++corr;
        used += (size_t)snprintf(text + used, sizeof text - used,
            "api drv cuLaunchKernel corr=%u frames=3020,1020\n"
            "launch stream=0x5000 ptsz=0 grid=1,1,1 block=1,1,1 smem=0 corr=%u "
            "fn=cml_case_mark\nkernel grid=1,1,1 block=1,1,1 smem=0 static=0 corr=%u graph=0 "
            "name=cml_case_mark\n", corr, corr, corr);
    }
    for (int i = 0; i < 2 * copies; i++) {
        ++corr;
        put_line("api drv cuMemcpyHtoDAsync_v2 corr=%u frames=2010,3030\n"
                 "memcpy kind=1 bytes=%llu corr=%u rtcorr=0\n", bytes);
    }
    for (int i = 0; i < kernels; i++) {
        ++corr;
        used += (size_t)snprintf(text + used, sizeof text - used,
            "api drv cuLaunchKernel corr=%u frames=2010,3030\n"
            "launch stream=0x5000 ptsz=0 grid=%d,1,1 block=256,1,1 smem=0 corr=%u "
            "fn=_Z6portedPfi\nkernel grid=%d,1,1 block=256,1,1 smem=0 static=0 corr=%u "
            "graph=0 name=_Z6portedPfi\n", corr, grid, corr, grid, corr);
    }
    for (int i = 0; i < copies; i++) {
        ++corr;
        put_line("api drv cuMemcpyDtoHAsync_v2 corr=%u frames=2010,3030\n"
                 "memcpy kind=2 bytes=%llu corr=%u rtcorr=0\n", bytes);
    }
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "api drv cuProfilerStop corr=%u frames=3040,1040\n", ++corr);
}

static void begin(void)
{
    used = (size_t)snprintf(text, sizeof text, "cml-trace 1\n");
    corr = 10;
}

static int tally_end(void)
{
    snprintf(text + used, sizeof text - used, "end\n");
    memset(why, 0, sizeof why);
    return cml_trace_tally_of(text, NM_TEXT, SYMBOLS, &tally, why, sizeof why);
}

#define UNLIKE tally.v[CML_TRACE_UNLIKE_CHECKED]

/* 6.2 written plainly: every call copies x and y in, runs its pass, copies the result out. */
START_TEST(calls_that_repeat_the_checked_one_pass)
{
    begin();
    for (int i = 0; i < 7; i++)
        call(i == 0, 1, 4194304, 1, 1056);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    ck_assert_int_eq(tally.later_calls, 6);
    /* the repetitions' windows hold no case marker: launches per call stay per checked call */
    ck_assert_int_eq(tally.windows, 1);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 1);
}
END_TEST

/* The red team's 6.2 (copies_only_on_first_call): copies and a device kernel on the first
 * call, a zero-copy kernel of another grid and no copy on every later one. */
START_TEST(copies_on_the_first_call_only_fail)
{
    begin();
    call(1, 1, 4194304, 1, 1056);
    for (int i = 0; i < 6; i++)
        call(0, 0, 0, 1, 1024);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 6);
    ck_assert_msg(strstr(tally.first[CML_TRACE_UNLIKE_CHECKED], "call 1 after the checked one "
                         "ran 0 of the checked call's 1 x _Z6portedPfi grid=1056,1,1"), "%s",
                  tally.first[CML_TRACE_UNLIKE_CHECKED]);
    /* the same kernels but no copies: named by the bytes */
    begin();
    call(1, 1, 4194304, 1, 1056);
    call(0, 0, 0, 1, 1056);
    call(0, 1, 4194304, 1, 1056);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_UNLIKE_CHECKED], "call 1 after the checked one "
                     "copied 0 bytes to the device, the checked call 8388608");
    /* small arrays (6.3's traced case, 16396 bytes each): the slack is half the bytes */
    begin();
    call(1, 1, 16396, 2, 17);
    call(0, 0, 0, 2, 17);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 1);
}
END_TEST

/* The red team's 7.2 (host_adds_after_checked_run): a kernel in the checked call, none after
 * it (the host's cores add). */
START_TEST(later_calls_without_the_kernel_fail)
{
    begin();
    call(1, 0, 0, 1, 32);
    for (int i = 0; i < 5; i++)
        call(0, 0, 0, 0, 0);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 5);
}
END_TEST

/* Honest shapes written differently: a call that does more than the checked one (a kernel
 * more), a one-time upload of a small table in the first call (below the 64 KiB slack), and a
 * checked call run as the harness's graph (6.1: its kernels the student's by name, launched
 * by the harness's cuGraphLaunch) against direct launches later. */
START_TEST(honest_differences_pass)
{
    begin();
    call(1, 1, 4194304, 2, 1056);
    call(0, 1, 4194304, 3, 1056);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    begin();
    call(1, 1, 4194304, 1, 1056);
    used = (size_t)(strstr(text + used - 64, "api drv cuProfilerStop") - text); /* reopen */
    ++corr;
    put_line("api drv cuMemcpyHtoD_v2 corr=%u frames=2010,3030\n"
             "memcpy kind=1 bytes=%llu corr=%u rtcorr=0\n", 4096);
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "api drv cuProfilerStop corr=%u frames=3040,1040\n", ++corr);
    call(0, 1, 4194304, 1, 1056);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    begin();
    used += (size_t)snprintf(text + used, sizeof text - used,
        "api drv cuProfilerStart corr=11 frames=3010,1010\n"
        "api drv cuLaunchKernel corr=12 frames=3020,1020\n"
        "launch stream=0x5000 ptsz=0 grid=1,1,1 block=1,1,1 smem=0 corr=12 fn=cml_case_mark\n"
        "api drv cuGraphLaunch corr=13 frames=3030,1030\n"
        "kernel grid=8,1,1 block=256,1,1 smem=0 static=0 corr=13 graph=7 name=_Z6portedPfi\n"
        "api drv cuProfilerStop corr=14 frames=3040,1040\n");
    corr = 14;
    call(0, 0, 0, 1, 8);
    call(0, 0, 0, 1, 8);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    ck_assert_int_eq(tally.later_calls, 2);
}
END_TEST

/* A run with no repetition (an untimed case) and calls before any checked one prove nothing
 * either way: nothing is counted. More windows than the cap are read without shifting the
 * last one's end. */
START_TEST(untimed_runs_and_long_runs_are_read)
{
    begin();
    call(0, 0, 0, 0, 0);
    call(1, 1, 4194304, 1, 1056);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    ck_assert_int_eq(tally.later_calls, 0);
    begin();
    call(1, 1, 4096, 1, 4);
    for (int i = 0; i < 140; i++)
        call(0, 1, 4096, 1, 4);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    ck_assert_int_eq(tally.later_calls, 127);
}
END_TEST

/* A 7.2-shaped call: `prefetches` prefetches of the student's, `advice` cuMemAdvise calls, one
 * kernel (the window, the marker when checked, as call() writes them). */
static void placing_call(int checked, int prefetches, int advice)
{
    const size_t at = used;
    call(checked, 0, 0, 1, 4);
    used = at + (size_t)(strstr(text + at, "api drv cuProfilerStop") - (text + at));
    for (int i = 0; i < prefetches; i++) {
        ++corr;
        used += (size_t)snprintf(text + used, sizeof text - used,
            "api drv cuMemPrefetchAsync_v2 corr=%u frames=2010,3030\n"
            "prefetch stream=0x5000 ptsz=0 corr=%u op=cuMemPrefetchAsync_v2 sid=13\n", corr, corr);
    }
    for (int i = 0; i < advice; i++) {
        ++corr;
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "api drv cuMemAdvise_v2 corr=%u frames=2010,3030\n", corr);
    }
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "api drv cuProfilerStop corr=%u frames=3040,1040\n", ++corr);
}

/* Placement: a timed call that advises (or prefetches) beyond its checked call moves its data
 * elsewhere (a 7.2 timing 7.3's recipe) and fails; the same placement every call passes, and
 * fewer (advice given once, then cached) passes. */
START_TEST(timed_calls_that_place_memory_otherwise_fail)
{
    begin();
    placing_call(1, 4, 0);
    for (int i = 0; i < 5; i++)
        placing_call(0, 4, 0);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
    begin(); /* advice from the first timed call on */
    placing_call(1, 4, 0);
    for (int i = 0; i < 5; i++)
        placing_call(0, 4, i == 0 ? 2 : 0);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_UNLIKE_CHECKED], "call 1 after the checked one made "
                     "2 x cuMemAdvise_v2, the checked call 0: memory placed otherwise than where "
                     "the checked call put it");
    begin(); /* an extra prefetch in every timed call */
    placing_call(1, 3, 0);
    for (int i = 0; i < 3; i++)
        placing_call(0, 4, 0);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 3);
    begin(); /* advised in every call, or in the checked one only */
    placing_call(1, 2, 1);
    for (int i = 0; i < 3; i++)
        placing_call(0, 2, i == 0);
    ck_assert_msg(tally_end() == 0, "%s", why);
    ck_assert(UNLIKE == 0);
}
END_TEST

START_TEST(the_measure_is_read_by_the_spec)
{
    ck_assert_msg(load(HEAD TASK "trace calls_unlike_checked 0 every call\ntechnique 1\n") == 0,
                  "%s", err);
    ck_assert_int_eq(cml_trace_measure_of("calls_unlike_checked"), CML_TRACE_UNLIKE_CHECKED);
    ck_assert(spec.tasks[0].tech[0].max == 0);
}
END_TEST

/* Contract in suites.h. */
void technique_trace_calls_add(Suite *s)
{
    TCase *tc = tcase_create("trace_calls");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, calls_that_repeat_the_checked_one_pass);
    tcase_add_test(tc, copies_on_the_first_call_only_fail);
    tcase_add_test(tc, later_calls_without_the_kernel_fail);
    tcase_add_test(tc, honest_differences_pass);
    tcase_add_test(tc, untimed_runs_and_long_runs_are_read);
    tcase_add_test(tc, the_measure_is_read_by_the_spec);
    tcase_add_test(tc, timed_calls_that_place_memory_otherwise_fail);
    suite_add_tcase(s, tc);
}
