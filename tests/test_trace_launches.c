/* launches_per_call and launches_not_on_stream (issue 44, grader/src/6_measure/trace_tally.c and
 * trace_calls.c): the student's kernels inside the harness's profiling windows, each counted
 * when it did a pass's share of the work, and the stream each launch went on. Recorded traces in
 * the library's format (grader/trace/cml_trace.c); the student's function is _Z6portedPfi (split
 * from test_trace.c, which keeps the copies, allocations and the whole check). */
#include "technique_fixture.h"
#include "suites.h"
#include "technique_run.h"

static const char NM_TEXT[] = "0000000000001000 T main\n"
                              "0000000000002000 T _Z6portedPfi\n"
                              "0000000000003000 t _ZL7harnessv\n";
static const char SYMBOLS[] = "T _Z6portedPfi\n";

static cml_trace_tally tally;

static int tally_of(const char *trace)
{
    char why[300] = "";
    return cml_trace_tally_of(trace, NM_TEXT, SYMBOLS, &tally, why, sizeof why);
}


/* 6.3 at three passes: a kernel launch per pass is 3 per call; the passes fused into one kernel
 * launch is 1. */
START_TEST(fused_passes_are_one_launch_per_call)
{
    ck_assert_int_eq(tally_of(WINDOW_OPEN STUDENT_LAUNCH(22, "0x5000", 0)
                              STUDENT_LAUNCH(23, "0x5000", 0) STUDENT_LAUNCH(24, "0x5000", 0)
                              WINDOW_CLOSE), 0);
    ck_assert_int_eq(tally.windows, 1);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 3);
    ck_assert(tally.v[CML_TRACE_OFF_STREAM] == 0);
    ck_assert_int_eq(tally_of(WINDOW_OPEN STUDENT_LAUNCH(22, "0x5000", 0) WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_LAUNCHES_PER_CALL], "_Z6portedPfi");
}
END_TEST

/* A pass is a pass's work (issue 44, red team round 3): the passes fused into one 14 ms kernel
 * beside two empty ones (4 us) are one pass's share; three passes of 14 ms each, or of 14, 12
 * and 13 ms with a 1 ms helper beside them, are three. */
#define TIMED_LAUNCH(corr, ns)                                                               \
    "api drv cuLaunchKernel corr=" #corr " frames=2010,3030,1030\n"                          \
    "launch stream=0x5000 ptsz=0 grid=4096,1,1 block=256,1,1 smem=0 corr=" #corr            \
    " fn=_Z6portedPfi\n"                                                                     \
    "kernel grid=4096,1,1 block=256,1,1 smem=0 static=0 corr=" #corr " graph=0 stream=13 "   \
    "ns=" #ns " name=_Z6portedPfi\n"
START_TEST(a_launch_counts_when_it_does_a_passs_work)
{
    ck_assert_int_eq(tally_of(WINDOW_OPEN TIMED_LAUNCH(22, 14000000) TIMED_LAUNCH(23, 4000)
                              TIMED_LAUNCH(24, 4000) WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 1);
    ck_assert_int_eq(tally_of(WINDOW_OPEN TIMED_LAUNCH(22, 14000000) TIMED_LAUNCH(23, 14000000)
                              TIMED_LAUNCH(24, 14000000) WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 3);
    ck_assert_int_eq(tally_of(WINDOW_OPEN TIMED_LAUNCH(22, 14000000) TIMED_LAUNCH(23, 1000000)
                              TIMED_LAUNCH(24, 12000000) TIMED_LAUNCH(25, 13000000)
                              WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 3);
}
END_TEST

/* A kernel's CUPTI time includes the time another process held the GPU (a traced run shares it
 * with the sanitizers): each kernel counts at its shortest over the calls that ran the same
 * kernels. Three equal passes, one stretched eightfold in the checked call, are three
 * when a repetition ran them at their length (H200: the solution's 6.3b counted 1 of 10); the
 * fused passes stay one, and so do passes whose repetitions moved the work into one kernel. */
#define REP_WINDOW(c0, a, b, c)                                                               \
    "api drv cuProfilerStart corr=" #c0 " frames=3010,1010\n"                                \
    TIMED_LAUNCH(c0##1, a) TIMED_LAUNCH(c0##2, b) TIMED_LAUNCH(c0##3, c)                      \
    "api drv cuProfilerStop corr=" #c0 "9 frames=3040,1040\n"
#define CHECKED_THEN(a, b, c)                                                                 \
    WINDOW_OPEN TIMED_LAUNCH(22, a) TIMED_LAUNCH(23, b) TIMED_LAUNCH(24, c)                   \
    "api drv cuProfilerStop corr=25 frames=3040,1040\n"
START_TEST(a_pass_counts_at_its_shortest_over_the_calls)
{
    ck_assert_int_eq(tally_of(CHECKED_THEN(14000000, 120000000, 14000000)
                              REP_WINDOW(30, 14000000, 14100000, 13900000) "end\n"), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 3);
    ck_assert_int_eq(tally_of(CHECKED_THEN(14000000, 120000000, 14000000) "end\n"), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 1); /* no repetition: as measured */
    ck_assert_int_eq(tally_of(CHECKED_THEN(14000000, 4000, 4000)
                              REP_WINDOW(30, 14000000, 4000, 4000) "end\n"), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 1);
    ck_assert_int_eq(tally_of(CHECKED_THEN(14000000, 14000000, 14000000)
                              REP_WINDOW(30, 28000000, 4000, 4000) "end\n"), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 1);
}
END_TEST

/* The passes written differently: captured into a graph of the student's and launched once on
 * the harness's stream (three kernels ran from one cuGraphLaunch), or a graph the harness
 * launched (lab 06's capture: the kernels are the student's by name). Launches outside the
 * window (a warm-up before the case) are no call's. */
START_TEST(a_graph_of_passes_counts_its_kernels)
{
    const char *graph = WINDOW_OPEN
        "api drv cuGraphLaunch corr=30 frames=2010,3030,1030\n"
        "launch stream=0x5000 ptsz=0 grid=0,0,0 block=0,0,0 smem=0 corr=30 fn=-\n"
        "kernel grid=4,1,1 block=256,1,1 smem=0 static=0 corr=30 graph=7 name=_Z6portedPfi\n"
        "kernel grid=4,1,1 block=256,1,1 smem=0 static=0 corr=30 graph=7 name=_Z6portedPfi\n"
        "api drv cuGraphLaunch corr=31 frames=3030,1030\n"
        "kernel grid=4,1,1 block=256,1,1 smem=0 static=0 corr=31 graph=8 name=_Z6portedPfi\n"
        WINDOW_CLOSE
        "api drv cuLaunchKernel corr=50 frames=2010,1050\n"
        "kernel grid=4,1,1 block=256,1,1 smem=0 static=0 corr=50 graph=0 name=_Z6portedPfi\n";
    ck_assert_int_eq(tally_of(graph), 0);
    ck_assert(tally.v[CML_TRACE_LAUNCHES_PER_CALL] == 3);
    ck_assert(tally.v[CML_TRACE_OFF_STREAM] == 0);
}
END_TEST

/* 7.2's "launch on stream": the legacy default stream (0, or CU_STREAM_LEGACY), the
 * per-thread one (a _ptsz call with 0, or CU_STREAM_PER_THREAD) and a stream of the student's
 * own are not the stream the harness passed. */
START_TEST(launches_off_the_harness_stream_are_counted)
{
    ck_assert_int_eq(tally_of(WINDOW_OPEN STUDENT_LAUNCH(22, "0", 0) WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_OFF_STREAM] == 1);
    ck_assert_str_eq(tally.first[CML_TRACE_OFF_STREAM], "_Z6portedPfi on the legacy default "
                     "stream, cuLaunchKernel in _Z6portedPfi");
    ck_assert_int_eq(tally_of(WINDOW_OPEN STUDENT_LAUNCH(22, "0", 1) STUDENT_LAUNCH(23, "0x2", 0)
                              STUDENT_LAUNCH(24, "0x1", 0) STUDENT_LAUNCH(25, "0x7000", 0)
                              WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_OFF_STREAM] == 4);
    ck_assert_str_eq(tally.first[CML_TRACE_OFF_STREAM], "_Z6portedPfi on the per-thread "
                     "default stream, cuLaunchKernel in _Z6portedPfi");
    /* the harness's own launches off its stream (none today) are never the student's */
    ck_assert_int_eq(tally_of(WINDOW_OPEN "api drv cuLaunchKernel corr=26 frames=3020,1020\n"
                              "launch stream=0 ptsz=0 grid=1,1,1 block=1,1,1 smem=0 corr=26 "
                              "fn=_ZL7harnessv\n" WINDOW_CLOSE), 0);
    ck_assert(tally.v[CML_TRACE_OFF_STREAM] == 0);
}
END_TEST

void technique_trace_launches_add(Suite *s)
{
    TCase *tc = tcase_create("trace_launches");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, fused_passes_are_one_launch_per_call);
    tcase_add_test(tc, a_launch_counts_when_it_does_a_passs_work);
    tcase_add_test(tc, a_pass_counts_at_its_shortest_over_the_calls);
    tcase_add_test(tc, a_graph_of_passes_counts_its_kernels);
    tcase_add_test(tc, launches_off_the_harness_stream_are_counted);
    suite_add_tcase(s, tc);
}
