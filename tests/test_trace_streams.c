/* ops_not_on_stream (issue 44, grader/src/6_measure/trace_streams.c): every kernel, copy,
 * memset and prefetch the student's code enqueues in a call goes on the harness's stream, or on
 * a stream joined back to it by an event before the call's window closes. Recorded traces in
 * the library's format (grader/trace/cml_trace.c): the harness's stream is 0x5000 (CUPTI id
 * 13), the one its case marker ran on; the student's function is _Z6portedPfi. */
#include "technique_fixture.h"
#include "suites.h"
#include "technique_run.h"

static const char NM_TEXT[] = "0000000000001000 T main\n"
                              "0000000000002000 T _Z6portedPfi\n"
                              "0000000000003000 t _ZL7harnessv\n";
static const char SYMBOLS[] = "T _Z6portedPfi\n";

#define OPEN                                                                                 \
    "cml-trace 1\n"                                                                          \
    "api drv cuProfilerStart corr=20 frames=3010,1010\n"                                     \
    "api drv cuLaunchKernel corr=21 frames=3020,1020\n"                                      \
    "launch stream=0x5000 ptsz=0 grid=1,1,1 block=1,1,1 smem=0 corr=21 sid=13 "             \
    "fn=cml_case_mark\n"                                                                     \
    "kernel grid=1,1,1 block=1,1,1 smem=0 static=0 corr=21 graph=0 stream=13 "               \
    "name=cml_case_mark\n"
#define CLOSE "api drv cuProfilerStop corr=90 frames=3040,1040\nend\n"
/* a student's prefetch on stream S (handle) with CUPTI id I */
#define PREFETCH(corr, s, i)                                                                 \
    "api drv cuMemPrefetchAsync_v2 corr=" #corr " frames=2010,3030,1030\n"                   \
    "prefetch stream=" s " ptsz=0 corr=" #corr " op=cuMemPrefetchAsync_v2 sid=" #i "\n"
#define LAUNCH(corr, s, i)                                                                   \
    "api drv cuLaunchKernel corr=" #corr " frames=2010,3030,1030\n"                          \
    "launch stream=" s " ptsz=0 grid=4,1,1 block=256,1,1 smem=0 corr=" #corr " sid=" #i      \
    " fn=_Z6portedPfi\n"                                                                     \
    "kernel grid=4,1,1 block=256,1,1 smem=0 static=0 corr=" #corr " graph=0 stream=" #i      \
    " name=_Z6portedPfi\n"
#define RECORD(corr, ev, s, i)                                                               \
    "api drv cuEventRecord corr=" #corr " frames=2010,3030,1030\n"                           \
    "event record ev=" ev " stream=" s " corr=" #corr " sid=" #i "\n"
#define WAIT(corr, ev, s, i)                                                                 \
    "api drv cuStreamWaitEvent corr=" #corr " frames=2010,3030,1030\n"                       \
    "event wait ev=" ev " stream=" s " corr=" #corr " sid=" #i "\n"

static cml_trace_tally tally;
static char why[300];

static double off(const char *trace)
{
    memset(why, 0, sizeof why);
    ck_assert_msg(cml_trace_tally_of(trace, NM_TEXT, SYMBOLS, &tally, why, sizeof why) == 0,
                  "%s", why);
    return tally.v[CML_TRACE_OPS_OFF_STREAM];
}

/* The solution's 7.2: three prefetches, the kernel and C's prefetch back, all on `stream`. */
START_TEST(everything_on_the_stream_passes)
{
    ck_assert(off(OPEN PREFETCH(30, "0x5000", 13) PREFETCH(31, "0x5000", 13)
                  PREFETCH(32, "0x5000", 13) LAUNCH(33, "0x5000", 13)
                  PREFETCH(34, "0x5000", 13) CLOSE) == 0);
}
END_TEST

/* A prefetch on a private stream nobody joins back: the harness's stream can finish first. */
START_TEST(a_prefetch_on_another_stream_is_counted)
{
    ck_assert(off(OPEN PREFETCH(30, "0x7000", 21) LAUNCH(33, "0x5000", 13) CLOSE) == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_OPS_OFF_STREAM], "prefetch on stream 0x7000, "
                     "cuMemPrefetchAsync_v2 in _Z6portedPfi");
    /* on the legacy default stream (a handle of 0, CUPTI's id of it) */
    ck_assert(off(OPEN PREFETCH(30, "0", 3) CLOSE) == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_OPS_OFF_STREAM], "prefetch on stream 0 (the "
                     "default), cuMemPrefetchAsync_v2 in _Z6portedPfi");
}
END_TEST

/* tests/honest/07_unified_memory/side_stream_events: B's prefetch on a side stream forked from
 * `stream` and joined back to it before the kernel; lab 06's pipeline_streams, two lanes. */
START_TEST(a_side_stream_joined_back_passes)
{
    ck_assert(off(OPEN RECORD(29, "0xe1", "0x5000", 13) WAIT(30, "0xe1", "0x7000", 21)
                  PREFETCH(31, "0x7000", 21) PREFETCH(32, "0x5000", 13)
                  RECORD(35, "0xe2", "0x7000", 21) WAIT(36, "0xe2", "0x5000", 13)
                  LAUNCH(37, "0x5000", 13) CLOSE) == 0);
    /* two deep: lane 0x7100 joins 0x7000, which joins `stream` */
    ck_assert(off(OPEN PREFETCH(31, "0x7100", 22) RECORD(32, "0xe3", "0x7100", 22)
                  WAIT(33, "0xe3", "0x7000", 21) RECORD(35, "0xe2", "0x7000", 21)
                  WAIT(36, "0xe2", "0x5000", 13) CLOSE) == 0);
}
END_TEST

/* A join that does not cover the op: its event recorded before the prefetch, its wait after
 * the call (past the window), or waited on by a stream that is not `stream`'s. */
START_TEST(a_join_that_misses_the_op_is_counted)
{
    ck_assert(off(OPEN RECORD(30, "0xe2", "0x7000", 21) PREFETCH(31, "0x7000", 21)
                  WAIT(36, "0xe2", "0x5000", 13) CLOSE) == 1);
    ck_assert(off(OPEN PREFETCH(31, "0x7000", 21) RECORD(35, "0xe2", "0x7000", 21)
                  "api drv cuProfilerStop corr=40 frames=3040,1040\n"
                  WAIT(46, "0xe2", "0x5000", 13) "end\n") == 1);
    ck_assert(off(OPEN PREFETCH(31, "0x7000", 21) RECORD(35, "0xe2", "0x7000", 21)
                  WAIT(36, "0xe2", "0x7100", 22) CLOSE) == 1);
    /* the event recorded again on another stream before the wait: the wait is for that one */
    ck_assert(off(OPEN PREFETCH(31, "0x7000", 21) RECORD(35, "0xe2", "0x7000", 21)
                  RECORD(36, "0xe2", "0x7100", 22) WAIT(37, "0xe2", "0x5000", 13) CLOSE) == 1);
}
END_TEST

/* Copies and memsets by their activity records' stream; one that ran in a graph the student
 * launched on `stream` (graph_cached_copies) is that launch's; kernels by their launch. */
START_TEST(copies_memsets_and_kernels_by_their_stream)
{
    const char *copy_off = OPEN "api drv cuMemcpyHtoDAsync_v2 corr=30 frames=2010,1030\n"
                           "memcpy kind=1 bytes=4096 corr=30 rtcorr=0 stream=21\n" CLOSE;
    ck_assert(off(copy_off) == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_OPS_OFF_STREAM], "copy of kind 1 on stream id 21, "
                     "cuMemcpyHtoDAsync_v2 in _Z6portedPfi");
    ck_assert(off(OPEN "api drv cuMemsetD32Async corr=30 frames=2010,1030\n"
                  "memset bytes=64 corr=30 stream=13\n" CLOSE) == 0);
    ck_assert(off(OPEN "api drv cuGraphLaunch corr=30 frames=2010,1030\n"
                  "launch stream=0x5000 ptsz=0 grid=0,0,0 block=0,0,0 smem=0 corr=30 sid=13 "
                  "fn=-\n"
                  "memcpy kind=1 bytes=4096 corr=30 rtcorr=0 stream=40\n"
                  "kernel grid=4,1,1 block=256,1,1 smem=0 static=0 corr=30 graph=7 stream=40 "
                  "name=_Z6portedPfi\n" CLOSE) == 0);
    ck_assert(off(OPEN LAUNCH(30, "0x7000", 21) CLOSE) == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_OPS_OFF_STREAM], "kernel _Z6portedPfi on stream "
                     "0x7000, cuLaunchKernel in _Z6portedPfi");
    /* a launch line without CUPTI's id is judged by its handle */
    ck_assert(off(OPEN "api drv cuLaunchKernel corr=30 frames=2010,1030\n"
                  "launch stream=0x5000 ptsz=0 grid=4,1,1 block=256,1,1 smem=0 corr=30 "
                  "fn=_Z6portedPfi\n" CLOSE) == 0);
}
END_TEST

/* Outside the harness's windows (um_alloc, um_advise: no stream given) and the harness's own
 * ops are no call's work. */
START_TEST(ops_outside_a_call_or_of_the_harness_are_not_counted)
{
    ck_assert(off("cml-trace 1\n" PREFETCH(5, "0", 3)
                  "api drv cuProfilerStart corr=20 frames=3010,1010\n"
                  "api drv cuLaunchKernel corr=21 frames=3020,1020\n"
                  "launch stream=0x5000 ptsz=0 grid=1,1,1 block=1,1,1 smem=0 corr=21 sid=13 "
                  "fn=cml_case_mark\n"
                  "api drv cuMemPrefetchAsync_v2 corr=30 frames=3030,1030\n"
                  "prefetch stream=0 ptsz=0 corr=30 op=cuMemPrefetchAsync_v2 sid=3\n"
                  CLOSE) == 0);
}
END_TEST

/* The whole check: a traced 7.2-like call with B's prefetch on a private stream fails the
 * technique; the same call joined back passes. */
START_TEST(the_check_fails_a_private_stream_and_passes_a_joined_one)
{
    fake_trace_tools(NM_TEXT, SYMBOLS);
    put("trace.txt", OPEN PREFETCH(30, "0x5000", 13) PREFETCH(31, "0x7000", 21)
        LAUNCH(33, "0x5000", 13) CLOSE, 0);
    setenv("FAKE_TRACE", in_dir("trace.txt"), 1);
    grade("trace ops_not_on_stream 0 all on stream\nncu_case n=256", "passed");
    assert_check(0, CML_TECH_FAILED, "ops_not_on_stream = 1 > limit 0");
    assert_check(0, CML_TECH_FAILED, "first prefetch on stream 0x7000");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
    put("trace.txt", OPEN PREFETCH(30, "0x5000", 13) PREFETCH(31, "0x7000", 21)
        RECORD(32, "0xe2", "0x7000", 21) WAIT(33, "0xe2", "0x5000", 13)
        LAUNCH(34, "0x5000", 13) CLOSE, 0);
    env.seed++; /* a new run */
    grade("trace ops_not_on_stream 0 all on stream\nncu_case n=256", "passed");
    unsetenv("CML_TRACE_LIB"), unsetenv("CML_NM"), unsetenv("FAKE_TRACE");
    assert_check(0, CML_TECH_PASSED, "ops_not_on_stream = 0 <= 0");
}
END_TEST

/* prefetches (7.1's port: page faults move the data): every prefetch or discard call of the
 * student's, whatever its stream or form, inside a call or not; the harness's are not, and
 * advice (no prefetch line) is not one. */
START_TEST(the_students_prefetches_are_counted)
{
    off(OPEN LAUNCH(33, "0x5000", 13) CLOSE);
    ck_assert(tally.v[CML_TRACE_PREFETCHES] == 0);
    off(OPEN PREFETCH(30, "0x5000", 13) LAUNCH(33, "0x5000", 13) PREFETCH(34, "0x7000", 21)
        CLOSE);
    ck_assert(tally.v[CML_TRACE_PREFETCHES] == 2);
    ck_assert_str_eq(tally.first[CML_TRACE_PREFETCHES],
                     "cuMemPrefetchAsync_v2 in _Z6portedPfi");
    /* the batch form, before the first window (a helper called from um_alloc, say) */
    off("cml-trace 1\n"
        "api drv cuMemPrefetchBatchAsync corr=5 frames=2010,3030,1030\n"
        "prefetch stream=0x5000 ptsz=0 corr=5 op=cuMemPrefetchBatchAsync sid=13\n"
        "api drv cuProfilerStart corr=20 frames=3010,1010\n" CLOSE);
    ck_assert(tally.v[CML_TRACE_PREFETCHES] == 1);
    /* the harness's own prefetch (its frames only) and a student's advice */
    off(OPEN "api drv cuMemPrefetchAsync_v2 corr=30 frames=3030,1030\n"
        "prefetch stream=0x5000 ptsz=0 corr=30 op=cuMemPrefetchAsync_v2 sid=13\n"
        "api drv cuMemAdvise_v2 corr=31 frames=2010,3030,1030\n" LAUNCH(33, "0x5000", 13)
        CLOSE);
    ck_assert(tally.v[CML_TRACE_PREFETCHES] == 0);
}
END_TEST

/* The whole check as 7.1 has it: a port that prefetches fails, one that does not passes. */
START_TEST(the_check_fails_a_port_that_prefetches)
{
    fake_trace_tools(NM_TEXT, SYMBOLS);
    put("trace.txt", OPEN PREFETCH(30, "0x5000", 13) LAUNCH(33, "0x5000", 13) CLOSE, 0);
    setenv("FAKE_TRACE", in_dir("trace.txt"), 1);
    grade("trace prefetches 0 page faults move the data\nncu_case n=256", "passed");
    assert_check(0, CML_TECH_FAILED, "prefetches = 1 > limit 0");
    assert_check(0, CML_TECH_FAILED, "first cuMemPrefetchAsync_v2 in _Z6portedPfi");
    put("trace.txt", OPEN LAUNCH(33, "0x5000", 13) CLOSE, 0);
    env.seed++; /* a new run */
    grade("trace prefetches 0 page faults move the data\nncu_case n=256", "passed");
    unsetenv("CML_TRACE_LIB"), unsetenv("CML_NM"), unsetenv("FAKE_TRACE");
    assert_check(0, CML_TECH_PASSED, "prefetches = 0 <= 0");
}
END_TEST

/* Contract in suites.h. */
void technique_trace_streams_add(Suite *s)
{
    TCase *tc = tcase_create("trace_streams");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, everything_on_the_stream_passes);
    tcase_add_test(tc, a_prefetch_on_another_stream_is_counted);
    tcase_add_test(tc, a_side_stream_joined_back_passes);
    tcase_add_test(tc, a_join_that_misses_the_op_is_counted);
    tcase_add_test(tc, copies_memsets_and_kernels_by_their_stream);
    tcase_add_test(tc, ops_outside_a_call_or_of_the_harness_are_not_counted);
    tcase_add_test(tc, the_check_fails_a_private_stream_and_passes_a_joined_one);
    tcase_add_test(tc, the_students_prefetches_are_counted);
    tcase_add_test(tc, the_check_fails_a_port_that_prefetches);
    suite_add_tcase(s, tc);
}
