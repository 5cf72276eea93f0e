/* ncu checks that hold at several cases of their task (`ncu_case` more than once; issue 44, red
 * team of 2026-11-29: 4.1 copied every misaligned base as floats and kept its technique points,
 * since ncu profiled only offset 0). A fake ncu prints, for each `--case` it is given, the
 * harness's case marker and then copyVec's value for that case from $FAKE_CASE_<k> (`none`: no
 * copyVec in that case's window), as one run of several cases shows them. Technique suite. */
#include "technique_fixture.h"
#include "suites.h"

static const char PER_CASE_NCU[] =
    "#!/bin/sh\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "echo \"$@\" > \"$FAKE_ARGS\"\necho run >> \"$FAKE_ARGS.runs\"\n"
    "echo '\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
    "\"Metric Value\"'\nk=0; id=0\nfor a in \"$@\"; do case \"$a\" in 1.*,*)\n"
    "  eval v=\\${FAKE_CASE_$k:-0}\n"
    "  echo \"\\\"$id\\\",\\\"1\\\",\\\"cml_case_mark\\\",\\\"m.sum\\\",\\\"\\\",\\\"3\\\"\"\n"
    "  id=$((id+1))\n  [ \"$v\" = none ] || echo \"\\\"$id\\\",\\\"1\\\",\\\"${FAKE_KERNEL:-copyVec}(float *, "
    "const float *)\\\",\\\"m.sum\\\",\\\"\\\",\\\"$v\\\"\"\n  id=$((id+1)); k=$((k+1));;\n"
    "esac; done\nexit 0\n";

/* 4.1's load limit (bytes over 512-byte warp-wide 128-bit requests, plus a quarter), measured
 * at four alignments of one size: a float4 copy makes about 8192 at each; a copy that takes
 * float4 only at offset 0 makes 8192 there and 32768 (4-byte loads) at the others. */
#define CHECK "ncu copyVec m.sum 10240 global-load requests\n"
#define CASES "ncu_case n=1048576\nncu_case n=1048577\nncu_case n=1048578\nncu_case n=1048579"

static void per_case_ncu(const char *v0, const char *v1, const char *v2, const char *v3)
{
    put("ncu", PER_CASE_NCU, 1);
    setenv("CML_SANDBOX", "off", 1);
    setenv("FAKE_CASE_0", v0, 1);
    setenv("FAKE_CASE_1", v1, 1);
    setenv("FAKE_CASE_2", v2, 1);
    setenv("FAKE_CASE_3", v3, 1);
}

/* A vector path at one case only fails at the first case where it did not run, named; the
 * sum over the cases would have hidden nothing here, but the limit is per case. */
START_TEST(ncu_check_holds_at_every_ncu_case)
{
    char *args;
    per_case_ncu("8192", "32768", "32768", "32768");
    grade(CHECK CASES, "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 32768 > limit 10240 over 1 launch of kernels "
                 "matching copyVec (case 1.1,n=1048577; nearest its limit of the task's cases "
                 "8192, 32768, 32768, 32768)");
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_msg(strstr(args, "--kernel-name regex:copyVec|cml_case_mark --metrics m.sum") &&
                  strstr(args, "--case 1.1,n=1048576 --case 1.1,n=1048577 --case "
                         "1.1,n=1048578 --case 1.1,n=1048579"), "%s", args); /* one run */
    free(args);
    ck_assert_double_eq(r.score, 6); /* correctness kept, technique lost */
}
END_TEST

/* A float4 copy written otherwise (a head and tail of a few scalar requests at some offsets)
 * passes at every case; the detail names the case nearest the limit and every case's value. */
START_TEST(ncu_check_passes_when_every_case_is_within)
{
    per_case_ncu("8192", "8194", "8194", "8193");
    grade(CHECK CASES, "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 8194 <= 10240 over 1 launch of kernels matching "
                 "copyVec (case 1.1,n=1048577; nearest its limit of the task's cases 8192, 8194, "
                 "8194, 8193)");
    ck_assert_double_eq(r.score, 10);
}
END_TEST

/* A limit scaled by each case's n (issue 44, red team round 3: float4 where ncu profiled 2^20
 * floats, float2 at the timed 2^26): 0.009765625*n is 10240 at 2^20 and 655360 at 2^26. */
START_TEST(ncu_bounds_scale_with_each_case)
{
    per_case_ncu("8192", "1048576", "0", "0");
    grade("ncu copyVec m.sum 0.009765625*n global-load requests\nncu_case n=1048576\n"
          "ncu_case n=67108864", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 1048576 > limit 655360 over 1 launch of kernels "
                 "matching copyVec (case 1.1,n=67108864; nearest its limit of the task's cases "
                 "8192, 1048576)");
    per_case_ncu("8193", "524290", "0", "0");
    grade("ncu copyVec m.sum 0.009765625*n global-load requests\nncu_case n=1048576\n"
          "ncu_case n=67108864", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 8193 <= 10240 over 1 launch of kernels "
                 "matching copyVec (case 1.1,n=1048576; nearest its limit of the task's cases "
                 "8193, 524290)");
}
END_TEST

/* A case whose window holds no copyVec (the marker ran: the case did) fails, naming it: the
 * kernel was not launched at that case. */
START_TEST(ncu_case_without_the_kernel_fails)
{
    per_case_ncu("8192", "8192", "none", "8192");
    grade(CHECK CASES, "passed");
    assert_check(0, CML_TECH_FAILED, "no kernel matching 'copyVec' ran under ncu (case "
                 "1.1,n=1048578)");
}
END_TEST

/* One ncu case, as every task but 4.1 has: a kernel whose name only contains the check's
 * (ncu's filter matches within names) is not the task's kernel, and the check fails when it is
 * all that ran, where it was summed before. */
START_TEST(ncu_counts_only_the_kernel_of_that_exact_name)
{
    per_case_ncu("8192", "0", "0", "0");
    setenv("FAKE_KERNEL", "copyVecFast", 1);
    grade(CHECK "ncu_case n=1048576", "passed");
    assert_check(0, CML_TECH_FAILED, "no kernel matching 'copyVec' ran under ncu (case "
                 "1.1,n=1048576)");
    unsetenv("FAKE_KERNEL");
    grade(CHECK "ncu_case n=1048576", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 8192 <= 10240 over 1 launch of kernels matching "
                 "copyVec (case 1.1,n=1048576)");
}
END_TEST

/* The shared run of a lab: a task of several ncu cases keeps its cases' windows apart from the
 * other task's, and the marker is profiled for them. */
START_TEST(ncu_cases_share_the_labs_run)
{
    char *args;
    per_case_ncu("8192", "32768", "0", "0");
    setenv("CML_SANDBOX", "off", 1);
    ck_assert_msg(load(HEAD TASK CHECK "ncu_case n=1048576\nncu_case n=1048577\ntechnique 1\n"
                       "task 1.2\ncheck copy\npoints 6\ncase n=1000\nncu copyVec m.sum 0 none\n"
                       "ncu_case n=64\ntechnique 1\n") == 0, "%s", err);
    ck_assert_int_eq(cml_tech_ncu_lab(&spec, (int[]){1, 1}, &env), 2);
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_msg(strstr(args, "regex:copyVec|cml_case_mark ") &&
                  strstr(args, "--case 1.1,n=1048576 --case 1.1,n=1048577 --case 1.2,n=64"),
                  "%s", args);
    free(args);
    cml_task_result a;
    memset(&a, 0, sizeof a);
    a.spec = &spec.tasks[0];
    a.credit = (cml_credit){ .cases = 2 };
    judge_as(&a, CML_STATUS_PASSED, "all cases passed");
    cml_technique_task(&spec, &spec.tasks[0], &env, &a);
    ck_assert_msg(a.tech[0].state == CML_TECH_FAILED &&
                  strstr(a.tech[0].detail, "m.sum = 32768 > limit 10240") &&
                  strstr(a.tech[0].detail, "case 1.1,n=1048577") &&
                  strstr(a.tech[0].detail, "in one ncu run for 2 tasks"), "%s", a.tech[0].detail);
    cml_ncu_runs_free(env.ncu);
}
END_TEST

/* At most CML_MAX_NCU_CASES lines; the sheet's contract names every case. */
START_TEST(ncu_cases_are_bounded_and_shown)
{
    rejected(HEAD TASK CHECK CASES "\nncu_case n=7\nncu_case n=8\ntechnique 1\n",
             "too many 'ncu_case'");
    ck_assert_msg(load(HEAD TASK CHECK CASES "\ntechnique 1\n") == 0, "%s", err);
    ck_assert_str_eq(spec.tasks[0].ncu_case, "n=1048576");
    ck_assert_int_eq(spec.tasks[0].nncu_also, 3);
    ck_assert_str_eq(spec.tasks[0].ncu_also[2], "n=1048579");
}
END_TEST

/* What ncu profiled is what was timed (issue 44, item 4; red team round 4's 1.2a ran its naive
 * kernel only where it saw ncu's pauses, a tiled one 3.5x faster when timed): a `timed_ns` bound
 * holds the profiled kernels' time to the student's own time of that timed case; a profiled
 * case that is not timed (n=1048576 here) is not judged by it. */
#define TIMED_CHECK "ncu * m.sum 0.5*timed_ns..2*timed_ns what was measured is what was timed\n"
START_TEST(ncu_time_is_held_to_the_timed_runs)
{
    r.case_ms[1] = 1.0; /* TASK's timed case, n=4096: 1 ms */
    per_case_ncu("3500000", "99", "0", "0");
    grade(TIMED_CHECK "ncu_case n=4096\nncu_case n=1048576", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 3500000 > limit 2000000 over 1 launch of the "
                 "task's kernels (case 1.1,n=4096,timed_ns=1000000;");
    per_case_ncu("400000", "99", "0", "0"); /* the profiled run faster than half the timed */
    grade(TIMED_CHECK "ncu_case n=4096\nncu_case n=1048576", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 400000 < minimum 500000");
}
END_TEST

/* The same kernel profiled and timed, a little slower under ncu (its caches flushed), passes;
 * without a time of the student's at any profiled case the check is not judged. */
START_TEST(ncu_time_within_the_timed_runs_passes)
{
    r.case_ms[1] = 1.0;
    per_case_ncu("1180000", "99", "0", "0");
    grade(TIMED_CHECK "ncu_case n=4096\nncu_case n=1048576", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 1180000 within 500000..2000000 over 1 launch of "
                 "the task's kernels (case 1.1,n=4096,timed_ns=1000000;");
    r.case_ms[1] = 0;
    grade(TIMED_CHECK "ncu_case n=4096", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "not checked (no timed run of the task at its "
                 "profiled cases");
}
END_TEST

/* A `timed_ns` bound needs a timed case among the task's ncu cases, and only ncu has one. */
START_TEST(ncu_time_bound_needs_a_timed_ncu_case)
{
    rejected(HEAD TASK TIMED_CHECK "ncu_case n=1000\ntechnique 1\n",
             "none of its ncu cases is a timed case");
    rejected(HEAD TASK "trace copy_bytes 2*timed_ns x\ntechnique 1\n",
             "none of its trace cases is a timed case");
    ck_assert_msg(load(HEAD TASK TIMED_CHECK "ncu_case n=1000\nncu_case n=4096\ntechnique 1\n")
                  == 0, "%s", err);
}
END_TEST

/* Contract in suites.h (technique suite). */
void technique_ncu_cases_add(Suite *s)
{
    TCase *tc = tcase_create("ncu cases");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ncu_check_holds_at_every_ncu_case);
    tcase_add_test(tc, ncu_check_passes_when_every_case_is_within);
    tcase_add_test(tc, ncu_bounds_scale_with_each_case);
    tcase_add_test(tc, ncu_case_without_the_kernel_fails);
    tcase_add_test(tc, ncu_counts_only_the_kernel_of_that_exact_name);
    tcase_add_test(tc, ncu_cases_share_the_labs_run);
    tcase_add_test(tc, ncu_cases_are_bounded_and_shown);
    tcase_add_test(tc, ncu_time_is_held_to_the_timed_runs);
    tcase_add_test(tc, ncu_time_within_the_timed_runs_passes);
    tcase_add_test(tc, ncu_time_bound_needs_a_timed_ncu_case);
    suite_add_tcase(s, tc);
}
