/* Trace checks (grader/src/6_measure/trace_run.c): what the student's own calls copied and
 * allocated, from the trace the grader's CUPTI library writes. The tally is fed traces shaped
 * like the ones an H100 gave (docs/bench/2026-11-27-trace); the whole check runs the fake lab,
 * which writes the trace as the library would, beside a fake nm that names its functions. */
#include "technique_fixture.h"
#include "suites.h"
#include "technique_run.h"

/* The lab binary's functions: main, the student's port and a Thrust instantiation (both in
 * the student's .symbols), and a harness function. */
static const char NM_TEXT[] = "0000000000001000 T main\n"
                              "0000000000002000 T _Z6portedPfi\n"
                              "0000000000002100 W _ZN6thrust6mallocEm\n"
                              "0000000000003000 t _ZL7harnessv\n";
static const char SYMBOLS[] = "T _Z6portedPfi\nW _ZN6thrust6mallocEm\nU cudaMallocManaged\n";

/* The harness allocates and copies (its inputs; a guard region, recorded at its cuMemMap as on
 * an H100); the student allocates managed memory. */
#define HONEST_CALLS                                                                         \
    "cml-trace 1\n"                                                                          \
    "api drv cuMemAlloc_v2 corr=10 frames=3010,1010\n"                                       \
    "api drv cuMemMap corr=15 frames=3050,1050\n"                                            \
    "memory op=1 kind=3 bytes=8388608 corr=15\n"                                             \
    "api drv cuMemcpyHtoDAsync_v2 corr=11 frames=3020,1020\n"                                \
    "api drv cuMemAllocManaged corr=12 frames=2010,3030,1030\n"                              \
    "memory op=1 kind=3 bytes=100 corr=10\n"                                                 \
    "memcpy kind=1 bytes=4096 corr=11 rtcorr=0\n"                                            \
    "memory op=1 kind=5 bytes=4000 corr=12\n"                                                \
    "memory op=1 kind=6 bytes=1 corr=0\n"
/* The explicit-copy program through Thrust: every frame but the innermost is Thrust's or the
 * student's, none names a forbidden call in the student's text. */
#define THRUST_CALLS                                                                         \
    "api drv cuMemAlloc_v2 corr=13 frames=2110,2020,3040\n"                                  \
    "memory op=1 kind=3 bytes=4000 corr=13\n"                                                \
    "api drv cuMemcpyHtoDAsync_v2 corr=14 frames=2120,2030\n"                                \
    "memcpy kind=8 bytes=4000 corr=14 rtcorr=0\n"

static cml_trace_tally tally;
static char why[300];

static int tally_of(const char *trace)
{
    memset(why, 0, sizeof why);
    return cml_trace_tally_of(trace, NM_TEXT, SYMBOLS, &tally, why, sizeof why);
}

/* The harness's own copies and allocations are never the student's: the port passes. */
START_TEST(harness_calls_are_not_the_students)
{
    ck_assert_int_eq(tally_of(HONEST_CALLS "end\n"), 0);
    ck_assert_int_eq(tally.calls, 1);
    ck_assert(tally.v[CML_TRACE_COPY] == 0 && tally.v[CML_TRACE_ALLOC] == 0);
}
END_TEST

/* Copies and device buffers through Thrust count, and the first is named with its function. */
START_TEST(copies_through_a_library_are_the_students)
{
    ck_assert_int_eq(tally_of(HONEST_CALLS THRUST_CALLS "end\n"), 0);
    ck_assert_int_eq(tally.calls, 3);
    ck_assert(tally.v[CML_TRACE_COPY] == 4000 && tally.v[CML_TRACE_ALLOC] == 4000);
    ck_assert(tally.v[CML_TRACE_HTOD] == 0); /* from managed memory: device to device */
    ck_assert_str_eq(tally.first[CML_TRACE_COPY], "cuMemcpyHtoDAsync_v2 in _ZN6thrust6mallocEm");
}
END_TEST

/* A copy whose call the library did not see (a path it does not follow) counts as the
 * student's: every call of the harness's is one it follows. */
START_TEST(a_copy_of_an_unseen_call_counts)
{
    ck_assert_int_eq(tally_of(HONEST_CALLS "memcpy kind=2 bytes=64 corr=99 rtcorr=0\nend\n"), 0);
    ck_assert(tally.v[CML_TRACE_COPY] == 64 && tally.v[CML_TRACE_DTOH] == 64);
    ck_assert_str_eq(tally.first[CML_TRACE_DTOH], "a call the trace did not see (id 99)");
}
END_TEST

/* A real binary has thousands of functions and a run hundreds of calls: the tally's arrays
 * grow past their first 256 (cml_grow). 600 harness functions, 300 of the student's (the
 * highest addresses), 300 calls each copying 1 byte, the student's function in every stack;
 * what lies after `end` is not counted. */
START_TEST(a_large_binary_and_trace_are_read_whole)
{
    static char nm[64 * 1024], symbols[32 * 1024], trace[64 * 1024];
    size_t a = 0, b = 0, c = 0;
    for (int i = 0; i < 900; i++)
        a += (size_t)snprintf(nm + a, sizeof nm - a, "%016x T f%d\n", 0x1000 + 16 * i, i);
    for (int i = 600; i < 900; i++)
        b += (size_t)snprintf(symbols + b, sizeof symbols - b, "T f%d\n", i);
    c += (size_t)snprintf(trace, sizeof trace, "cml-trace 1\n");
    for (int i = 1; i <= 300; i++)
        c += (size_t)snprintf(trace + c, sizeof trace - c, "api drv cuMemcpyHtoD_v2 corr=%d "
                              "frames=%x,%x\nmemcpy kind=1 bytes=1 corr=%d rtcorr=0\n", i,
                              0x1000 + 16 * (i % 600) + 4, 0x1000 + 16 * (600 + i % 300) + 4,
                              i);
    snprintf(trace + c, sizeof trace - c, "end\nmemcpy kind=1 bytes=7 corr=5 rtcorr=0\n");
    memset(why, 0, sizeof why);
    ck_assert_int_eq(cml_trace_tally_of(trace, nm, symbols, &tally, why, sizeof why), 0);
    ck_assert_int_eq(tally.calls, 300);
    ck_assert(tally.v[CML_TRACE_COPY] == 300 && tally.v[CML_TRACE_HTOD] == 300);
    ck_assert_str_eq(tally.first[CML_TRACE_COPY], "cuMemcpyHtoD_v2 in f601");
}
END_TEST

/* A trace that is not whole is never read as "nothing copied". */
START_TEST(a_trace_that_is_not_whole_is_refused)
{
    ck_assert_int_eq(tally_of(HONEST_CALLS), -1);
    ck_assert_msg(strstr(why, "no end"), "%s", why);
    ck_assert_int_eq(tally_of(HONEST_CALLS "error memcpy activity: CUPTI_ERROR_X\nend\n"), -1);
    ck_assert_msg(strstr(why, "CUPTI: memcpy activity"), "%s", why);
    ck_assert_int_eq(tally_of(""), -1);
    ck_assert_int_eq(tally_of(NULL), -1);
    ck_assert_msg(strstr(why, "wrote nothing"), "%s", why);
}
END_TEST

START_TEST(trace_lines_are_read_by_the_spec)
{
    ck_assert_msg(load(HEAD TASK "trace copy_bytes 0 no copies\ntrace copy_htod 8388608.. in\n"
                       "technique 2\n") == 0, "%s", err);
    ck_assert_int_eq(spec.tasks[0].tech[0].kind, CML_TECH_TRACE);
    ck_assert(spec.tasks[0].tech[1].min == 8388608 && spec.tasks[0].tech[1].max == HUGE_VAL);
    rejected(HEAD TASK "trace copies 0 what\ntechnique 1\n", "'copies' is not a measure");
    rejected(HEAD TASK "trace copy_bytes 9..1 what\ntechnique 1\n", "'trace': the range 9..1");
    rejected(HEAD TASK "trace copy_bytes x what\ntechnique 1\n", "trace's maximum");
}
END_TEST


/* ---- structure (issue 44): device memory (launches per call and their stream: test_trace_launches.c) ---- */

/* 6.1's "no device buffers": the student's cudaMalloc is device memory; pinned host memory
 * (zc_alloc_mapped's cudaHostAlloc) and the harness's device buffers are not. */
START_TEST(device_allocations_of_the_student_are_counted)
{
    ck_assert_int_eq(tally_of(HONEST_CALLS "api drv cuMemHostAlloc corr=60 frames=2010,1060\n"
                              "memory op=1 kind=2 bytes=4096 corr=60\nend\n"), 0);
    ck_assert(tally.v[CML_TRACE_ALLOC_DEVICE] == 0 && tally.v[CML_TRACE_ALLOC] == 4096);
    ck_assert_int_eq(tally_of(HONEST_CALLS THRUST_CALLS "end\n"), 0);
    ck_assert(tally.v[CML_TRACE_ALLOC_DEVICE] == 4000);
}
END_TEST

/* __device__ memory from the PTX: a static array used as a staging buffer (the 6.1 attack's
 * shape), a 2-D array, a managed scalar; not an extern declaration, not instructions, not
 * constant or shared memory. */
START_TEST(device_variables_are_counted_from_the_ptx)
{
    char first[160];
    const char *attack = ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .b8 _ZL5stage[8388608];\n"
        ".visible .entry _Z10zcSaxpyPfPKf(\n\t.param .u64 p0\n)\n{\n"
        "\tld.global.f32 %f1, [%rd4];\n\tst.global.f32 [_ZL5stage+4], %f1;\n}\n";
    ck_assert(cml_ptx_global_bytes(attack, first, sizeof first) == 8388608);
    ck_assert_str_eq(first, "_ZL5stage (8388608 bytes)");
    const char *more = ".visible .global .align 4 .f32 grid2d[16][4];\n"
        ".visible .global .attribute(.managed) .align 8 .u64 m;\n"
        ".global .align 16 .v4 .f32 quads[2] = {0f00000000};\n"
        ".extern .global .align 4 .b8 elsewhere[4096];\n"
        ".const .align 4 .b8 table[1024];\n.shared .align 4 .b8 tile[4096];\n";
    ck_assert(cml_ptx_global_bytes(more, first, sizeof first) == 256 + 8 + 32);
    /* the honest zero-copy kernel: parameters and instructions only */
    const char *honest = ".visible .entry _Z11saxpyMappedPfPKfS1_fm(\n\t.param .u64 p0\n)\n"
        "{\n\tld.global.nc.f32 %f1, [%rd4];\n\tst.global.f32 [%rd5], %f2;\n}\n";
    ck_assert(cml_ptx_global_bytes(honest, first, sizeof first) == 0);
    ck_assert_str_eq(first, "");
    /* a kernel that takes memory from the device heap (malloc, operator new) */
    const char *heap = ".extern .func  (.param .b64 func_retval0) malloc\n(\n"
        "\t.param .b64 malloc_param_0\n)\n;\n.extern .func free\n(\n\t.param .b64 p\n)\n;\n"
        ".visible .entry _Z6cachedPfPKf(\n\t.param .u64 p0\n)\n{\n}\n";
    ck_assert(cml_ptx_global_bytes(heap, first, sizeof first) == 8388608);
    ck_assert_str_eq(first, "malloc in device code: the device heap (8388608 bytes)");
    ck_assert(cml_ptx_global_bytes(".extern .func  (.param .b64 func_retval0) _Znwm(\n", first,
                                   sizeof first) == 8388608);
    /* a function merely named like one, and a call of printf (vprintf): no heap */
    ck_assert(cml_ptx_global_bytes(".extern .func  (.param .b32 func_retval0) vprintf\n(\n"
                                   ".visible .func mallocish(\n", first, sizeof first) == 0);
}
END_TEST

START_TEST(structure_measures_are_read_by_the_spec)
{
    ck_assert_msg(load(HEAD TASK "trace launches_per_call 3.. a launch per pass\n"
                       "trace launches_not_on_stream 0 on stream\ntrace alloc_device 0 none\n"
                       "trace device_symbol_bytes 1024 no buffers\ntechnique 2\n") == 0, "%s",
                  err);
    ck_assert(spec.tasks[0].tech[0].min == 3 && spec.tasks[0].tech[3].max == 1024);
}
END_TEST

/* ---- the whole check, on the fake lab ---- */

/* The fake lab writes `trace` as the library would, beside the library, nm and evidence. */
static void trace_setup(const char *trace)
{
    fake_trace_tools(NM_TEXT, SYMBOLS);
    put("trace.txt", trace, 0);
    setenv("FAKE_TRACE", in_dir("trace.txt"), 1);
}

static void trace_unset(void)
{
    const char *vars[] = {"CML_TRACE_LIB", "CML_NM", "FAKE_TRACE", "FAKE_DODGE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
}

#define TRACE_CHECKS "trace copy_bytes 0 no copies\ntrace alloc_unmanaged 0 managed memory " \
                     "alone\nncu_case n=256"

/* Task 1.1 with the two trace checks, graded as passed, its traced run made now. */
static void traced(const char *trace)
{
    trace_setup(trace);
    grade(TRACE_CHECKS, "passed");
    trace_unset();
}

START_TEST(managed_port_passes_its_trace_checks)
{
    traced(HONEST_CALLS "end\n");
    assert_check(0, CML_TECH_PASSED, "copy_bytes = 0 bytes <= 0, traced over 1 memory call of "
                                     "your code (case 1.1,n=256)");
    assert_check(1, CML_TECH_PASSED, "alloc_unmanaged = 0 bytes");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
}
END_TEST

START_TEST(copies_through_thrust_fail_the_trace_checks)
{
    traced(HONEST_CALLS THRUST_CALLS "end\n");
    assert_check(0, CML_TECH_FAILED, "copy_bytes = 4000 bytes > limit 0, traced over 3 memory "
                                     "calls of your code (case 1.1,n=256): first "
                                     "cuMemcpyHtoDAsync_v2 in _ZN6thrust6mallocEm");
    assert_check(1, CML_TECH_FAILED, "alloc_unmanaged = 4000 bytes > limit 0");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* A lab that leaves when it finds itself traced fails, never "not checked". */
START_TEST(lab_that_leaves_its_traced_run_fails)
{
    setenv("FAKE_DODGE", "1", 1);
    traced(HONEST_CALLS "end\n");
    assert_check(0, CML_TECH_FAILED, "stopped short in its traced run of case 1.1,n=256");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* A lab that reached done but left no whole trace (the library's end missing) fails. */
START_TEST(lab_whose_trace_has_no_end_fails)
{
    traced(HONEST_CALLS);
    assert_check(0, CML_TECH_FAILED, "is not whole: the trace has no end");
}
END_TEST

/* A grader built without CUPTI says so and awards the check, as for a missing ncu. */
START_TEST(grader_without_the_library_does_not_check)
{
    setenv("CML_TRACE_LIB", "/nonexistent/libcml-trace.so", 1);
    env.bin = test_path("build/fake_lab");
    grade("trace copy_bytes 0 no copies\nncu_case n=256", "passed");
    unsetenv("CML_TRACE_LIB");
    assert_check(0, CML_TECH_NOT_CHECKED, "built without its CUPTI trace library");
}
END_TEST

/* The pipeline makes the traces ahead, beside the sanitizers (cml_trace_ahead): a check reads
 * that run, not a new one. Here the run made ahead saw Thrust's copies and the lab traced later
 * would not: the check fails; with the run made for another seed it runs its own and passes. */
START_TEST(a_trace_made_ahead_is_the_one_judged)
{
    trace_setup(HONEST_CALLS THRUST_CALLS "end\n");
    grade(TRACE_CHECKS, "passed"); /* loads the spec; its own run sees Thrust */
    static cml_lab_result out;
    static cml_trace_run ahead[CML_MAX_TASKS];
    memset(&out, 0, sizeof out);
    memset(ahead, 0, sizeof ahead);
    out.ntasks = 1, out.ran[0] = 1, out.tasks[0] = r; /* its findings: every case passed */
    cml_tech_lab lab = { &spec, env, &out };
    cml_trace_ahead(&lab, 1, ahead, NULL);
    ck_assert_msg(ahead[0].key[0] && ahead[0].c[0].rc == 0 && ahead[0].c[0].tally.v[0] == 4000,
                  "rc %d, %g: %s", ahead[0].c[0].rc, ahead[0].c[0].tally.v[0],
                  ahead[0].c[0].failed.detail);
    put("trace.txt", HONEST_CALLS "end\n", 0); /* what a run made now would see */
    env.traced = ahead, env.ntraced = CML_MAX_TASKS;
    grade(TRACE_CHECKS, "passed");
    assert_check(0, CML_TECH_FAILED, "copy_bytes = 4000 bytes > limit 0");
    env.seed++; /* not the run made ahead: its own, honest */
    grade(TRACE_CHECKS, "passed");
    trace_unset();
    assert_check(0, CML_TECH_PASSED, "copy_bytes = 0 bytes <= 0");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
}
END_TEST

/* Only a task that ran and passed every case is traced ahead; its row keeps an empty key else. */
START_TEST(only_solved_tasks_are_traced_ahead)
{
    trace_setup(HONEST_CALLS "end\n");
    grade(TRACE_CHECKS, "wrong");
    static cml_lab_result out;
    static cml_trace_run ahead[CML_MAX_TASKS];
    memset(&out, 0, sizeof out);
    memset(ahead, 0, sizeof ahead);
    out.ntasks = 1, out.ran[0] = 1, out.tasks[0] = r;
    cml_tech_lab lab = { &spec, env, &out };
    cml_trace_ahead(&lab, 1, ahead, NULL);
    ck_assert_str_eq(ahead[0].key, "");
    out.ran[0] = 0, out.tasks[0].found.faults = 0; /* passed, did not run here */
    cml_trace_ahead(&lab, 1, ahead, NULL);
    trace_unset();
    ck_assert_str_eq(ahead[0].key, "");
}
END_TEST

/* The technique phase comes after the sanitizers: a task they failed is not traced and says
 * why, in its own words, not as a failed case. */
START_TEST(a_task_the_sanitizers_failed_is_not_traced)
{
    trace_setup(HONEST_CALLS "end\n");
    grade(TRACE_CHECKS, "sanitizer");
    trace_unset();
    assert_check(0, CML_TECH_NOT_RUN, "not run: a sanitizer found an error in the task");
    grade(TRACE_CHECKS, "wrong");
    assert_check(0, CML_TECH_NOT_RUN, "not run: a case of the task failed");
}
END_TEST

/* calls_unlike_checked on the whole check (tests/test_trace_calls.c has its rule): the traced
 * case is timed, and a timed call without the checked call's kernel fails the technique. */
START_TEST(timed_calls_unlike_the_checked_one_fail)
{
    trace_setup(WINDOW_OPEN STUDENT_LAUNCH(22, "0x5000", 0)
                "api drv cuProfilerStop corr=23 frames=3040,1040\n"
                "api drv cuProfilerStart corr=30 frames=3010,1010\n"
                "api drv cuProfilerStop corr=31 frames=3040,1040\nend\n");
    grade("trace calls_unlike_checked 0 every timed call does the work\nncu_case n=256",
          "passed");
    trace_unset();
    assert_check(0, CML_TECH_FAILED, "calls_unlike_checked = 1 > limit 0, of 1 warm-up and "
                                     "timed call of the task's function, each held to the "
                                     "checked call (case 1.1,n=256,time): first call 1 after "
                                     "the checked one ran 0 of");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* Contract in suites.h. */
void technique_trace_add(Suite *s)
{
    TCase *tc = tcase_create("trace");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, harness_calls_are_not_the_students);
    tcase_add_test(tc, copies_through_a_library_are_the_students);
    tcase_add_test(tc, a_copy_of_an_unseen_call_counts);
    tcase_add_test(tc, a_large_binary_and_trace_are_read_whole);
    tcase_add_test(tc, a_trace_that_is_not_whole_is_refused);
    tcase_add_test(tc, trace_lines_are_read_by_the_spec);
    tcase_add_test(tc, device_allocations_of_the_student_are_counted);
    tcase_add_test(tc, device_variables_are_counted_from_the_ptx);
    tcase_add_test(tc, structure_measures_are_read_by_the_spec);
    tcase_add_test(tc, managed_port_passes_its_trace_checks);
    tcase_add_test(tc, copies_through_thrust_fail_the_trace_checks);
    tcase_add_test(tc, lab_that_leaves_its_traced_run_fails);
    tcase_add_test(tc, lab_whose_trace_has_no_end_fails);
    tcase_add_test(tc, grader_without_the_library_does_not_check);
    tcase_add_test(tc, a_trace_made_ahead_is_the_one_judged);
    tcase_add_test(tc, only_solved_tasks_are_traced_ahead);
    tcase_add_test(tc, a_task_the_sanitizers_failed_is_not_traced);
    tcase_add_test(tc, timed_calls_unlike_the_checked_one_fail);
    suite_add_tcase(s, tc);
}
