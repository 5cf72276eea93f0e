/* Technique checks: the spec directives (ptx, sass, forbid, ncu, ncu_case, technique), the text
 * checks on fixture PTX and sources (no GPU), and the reports; ncu through the fake tool of
 * technique_fixture.h is test_technique_ncu.c. compute-sanitizer is no technique check:
 * test_sanitize.c. */
#include <math.h>

#include "evidence.h"
#include "report.h"
#include "suites.h"
#include "technique_fixture.h"

START_TEST(parses_every_directive)
{
    ck_assert_msg(load(HEAD TASK "ptx in=copyVec " V4 " 128-bit loads\nsass LDG.E.128 128-bit "
                       "loads in SASS\nforbid k.cu cudaMemcpy no copies\nncu copyVec "
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
    ck_assert(t->tech[3].min == -HUGE_VAL && !t->tech[3].per_launch);
    ck_assert_str_eq(t->ncu_case, "n=256");
    ck_assert_double_eq(t->technique_points, 3);
}
END_TEST

/* `<min>..<max>` and per-launch properties (launch__ metrics, alone or summed). */
START_TEST(parses_an_ncu_range_of_a_launch_property)
{
    ck_assert_msg(load(HEAD TASK "ncu gram launch__smem_static+launch__smem_dynamic 4096..8191 "
                       "one tile per block\ntechnique 1\n") == 0, "%s", err);
    const cml_tech_spec *c = &spec.tasks[0].tech[0];
    ck_assert_str_eq(c->metric, "launch__smem_static+launch__smem_dynamic");
    ck_assert(c->per_launch);
    ck_assert_double_eq(c->min, 4096);
    ck_assert_double_eq(c->max, 8191);
    ck_assert(!c->task_kernels);
    /* `*`: every kernel of the task's case; `<min>..`: no maximum */
    ck_assert_msg(load(HEAD TASK "ncu * m.sum 262144.. reads x and y\ntechnique 1\n") == 0, "%s",
                  err);
    c = &spec.tasks[0].tech[0];
    ck_assert(c->task_kernels && !c->per_launch);
    ck_assert_str_eq(c->pattern, ".*");
    ck_assert_double_eq(c->min, 262144);
    ck_assert(isinf(c->max) && c->max > 0);
}
END_TEST

START_TEST(rejects_bad_directives)
{
    rejected(HEAD TASK "ptx ld[ bad\ntechnique 1\n", "not a POSIX extended regex");
    rejected(HEAD TASK "ptx ld\\.global\ntechnique 1\n", "ends with what the check proves");
    rejected(HEAD TASK "forbid other.cu x y\ntechnique 1\n", "not one of the lab's 'files'");
    rejected(HEAD TASK "ncu k m.sum lots what\ntechnique 1\n", "must be a number");
    rejected(HEAD TASK "ncu k m.sum++n.sum 8 what\ntechnique 1\n", "nor a sum of up to 4");
    rejected(HEAD TASK "ncu k m.sum+ 8 what\ntechnique 1\n", "nor a sum of up to 4");
    rejected(HEAD TASK "ncu k m-sum 8 what\ntechnique 1\n", "not a metric name");
    /* a per-launch property and a count do not add up, and a sum has at most 4 terms */
    rejected(HEAD TASK "ncu k launch__a+m.sum 8 what\ntechnique 1\n", "all per-launch");
    rejected(HEAD TASK "ncu k a+b+c+d+e 8 what\ntechnique 1\n", "up to 4");
    rejected(HEAD TASK "ncu k m.sum 9..8 what\ntechnique 1\n", "is empty");
    rejected(HEAD TASK "ncu k m.sum x..8 what\ntechnique 1\n", "ncu's minimum must be a number");
    rejected(HEAD TASK "ncu k m.sum ..8 what\ntechnique 1\n", "ncu's minimum must be a number");
    rejected(HEAD TASK "ncu k m.sum 1..x what\ntechnique 1\n", "ncu's maximum must be a number");
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


/* A kernel's work may sit in a __noinline__ device function it calls (PTX ".func", SASS a
 * CALL to it), at any depth; a function no scoped kernel calls is not its work, even when it
 * follows the kernel in the text (once read as the kernel's own lines) and a comment there
 * names it (PTX's "// .globl" line before each function). */
START_TEST(kernel_scope_follows_calls)
{
    char found[128];
    static const char CALLS[] =
        ".func _Z4leafPfPKf(\n\t.param .b64 _Z4leafPfPKf_param_0\n)\n{\n"
        "\tld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];\n}\n"
        ".func  (.param .b32 func_retval0) _Z3midPfPKf(\n)\n{\n"
        "\tcall.uni\n\t_Z4leafPfPKf,\n\t(\n\tparam0\n\t);\n}\n"
        ".visible .entry _Z7copyVecPKfPfm(\n{\n\tcall.uni (retval0),\n\t_Z3midPfPKf,\n}\n"
        ".visible .entry _Z8copyOnlyPKfPfm(\n{\n\tld.global.f32 %f1, [%rd4];\n}\n"
        "\t// .globl\t_Z5decoyPfPKf\n" /* PTX names what follows: no call */
        ".func _Z5decoyPfPKf(\n)\n{\n\tst.global.v4.f32 [%rd1], {%f1,%f2,%f3,%f4};\n}\n";
    ck_assert_int_eq(cml_tech_find(CALLS, V4, "copyVec", found, sizeof found, NULL), 1);
    ck_assert_str_eq(found, "ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];");
    ck_assert_int_eq(cml_tech_find(CALLS, V4, "copyOnly", found, sizeof found, NULL), 0);
    ck_assert_int_eq(cml_tech_find(CALLS, "st\\.global(\\.[a-z0-9:_]+)*\\.v4", "copyOnly", found,
                                   sizeof found, NULL), 0); /* the decoy after it */
    ck_assert_int_eq(cml_tech_find(CALLS, "st\\.global(\\.[a-z0-9:_]+)*\\.v4", NULL, found,
                                   sizeof found, NULL), 1); /* unscoped: the whole text */
    static const char SASS[] =
        "\tFunction : _Z4leafPfPKf\n\tLDG.E.128 R4, desc[UR4][R2.64] ;\n"
        "\tFunction : _Z7copyVecPKfPfm\n\tCALL.REL.NOINC `(_Z4leafPfPKf) ;\n"
        "\tFunction : _Z8copyOnlyPKfPfm\n\tCALL.REL.NOINC `(_Z4leafPfPKfx) ;\n";
    ck_assert_int_eq(cml_tech_find(SASS, "LDG\\.E\\.128", "copyVec", found, sizeof found, NULL),
                     1);
    ck_assert_int_eq(cml_tech_find(SASS, "LDG\\.E\\.128", "copyOnly", found, sizeof found,
                                   NULL), 0); /* a longer name is not the helper's */
}
END_TEST

/* A chain of 1000 device functions, each calling the next, the last holding the load: found
 * from the kernel at the chain's head (each function is read once), and not from a kernel
 * outside the chain. */
START_TEST(kernel_scope_follows_a_long_chain_of_calls)
{
    char found[128], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    fprintf(f, ".visible .entry _Z7copyVecPKfPfm(\n{\n\tcall.uni\n\tfn_0,\n}\n");
    fprintf(f, ".visible .entry _Z8copyOnlyPKfPfm(\n{\n\tld.global.f32 %%f1, [%%rd4];\n}\n");
    for (int i = 0; i < 1000; i++)
        fprintf(f, ".func fn_%d(\n)\n{\n\tcall.uni\n\tfn_%d,\n}\n", i, i + 1);
    fprintf(f, ".func fn_1000(\n)\n{\n\tld.global.nc.v4.f32 {%%f1,%%f2,%%f3,%%f4}, [%%rd1];\n}\n");
    fclose(f);
    ck_assert_int_eq(cml_tech_find(text, V4, "copyVec", found, sizeof found, NULL), 1);
    ck_assert_int_eq(cml_tech_find(text, V4, "copyOnly", found, sizeof found, NULL), 0);
    free(text);
}
END_TEST

START_TEST(sums_an_ncu_metric)
{
    double sum = 0;
    const char *csv = "==PROF== Connected\n\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric "
                      "Value\"\n\"0\",\"k(int, \"\"a\"\")\",\"m.sum\",\"1,024\"\n"
                      "\"1\",\"k\",\"m.sum\",\"2\"\n\"1\",\"k\",\"n.sum\",\"5\"\nprogram output\n";
    ck_assert_int_eq(cml_ncu_value(csv, "m.sum", NULL, 0, -1, &sum, NULL), 2);
    ck_assert_double_eq(sum, 1026);
    ck_assert_int_eq(cml_ncu_value("no csv here\n", "m.sum", NULL, 0, -1, &sum, NULL), 0);
}
END_TEST

/* A sum of counts: each term's rows summed, the fewest rows of any term counted, and a term
 * nobody measured makes the whole unmeasured. */
START_TEST(sums_a_sum_of_ncu_metrics)
{
    double sum = -1;
    const char *csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n"
                      "\"0\",\"gram(float *)\",\"ld.sum\",\"4,096\"\n"
                      "\"0\",\"gram(float *)\",\"st.sum\",\"1\"\n"
                      "\"1\",\"gram(float *)\",\"ld.sum\",\"2\"\n"
                      "\"1\",\"gram(float *)\",\"st.sum\",\"4096\"\n";
    ck_assert_int_eq(cml_ncu_value(csv, "ld.sum+st.sum", "gram", 0, -1, &sum, NULL), 2);
    ck_assert_double_eq(sum, 8195);
    ck_assert_int_eq(cml_ncu_value(csv, "ld.sum", "gram", 0, -1, &sum, NULL), 2);
    ck_assert_double_eq(sum, 4098);
    ck_assert_int_eq(cml_ncu_value(csv, "ld.sum+other.sum", "gram", 0, -1, &sum, NULL), 0);
    ck_assert_double_eq(sum, 0);
}
END_TEST

/* A per-launch property (static + dynamic shared memory per block): the terms add up within a
 * launch (one "ID"), and the value is the largest launch's, whatever the number of launches, so
 * a task split into more launches is not charged more; the count is of launches. */
START_TEST(reads_a_per_launch_ncu_property)
{
    double v = -1;
    const char *csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n"
                      "\"0\",\"gramSwizzled(float *)\",\"launch__s\",\"4,096\"\n"
                      "\"0\",\"gramSwizzled(float *)\",\"launch__d\",\"0\"\n"
                      "\"1\",\"gramSwizzled(float *)\",\"launch__s\",\"4096\"\n"
                      "\"1\",\"gramSwizzled(float *)\",\"launch__d\",\"128\"\n"
                      "\"2\",\"gramSwizzled(float *)\",\"launch__s\",\"4096\"\n"
                      "\"2\",\"gramSwizzled(float *)\",\"launch__d\",\"0\"\n"
                      "\"3\",\"other(float *)\",\"launch__s\",\"99999\"\n"
                      "\"3\",\"other(float *)\",\"launch__d\",\"0\"\n";
    ck_assert_int_eq(cml_ncu_value(csv, "launch__s+launch__d", "gramSwizzled", 1, -1, &v, NULL), 3);
    ck_assert_double_eq(v, 4224);
    ck_assert_int_eq(cml_ncu_value(csv, "launch__s", "gramSwizzled", 1, -1, &v, NULL), 3);
    ck_assert_double_eq(v, 4096);
    ck_assert_int_eq(cml_ncu_value(csv, "launch__s", NULL, 1, -1, &v, NULL), 4);
    ck_assert_double_eq(v, 99999);
    ck_assert_int_eq(cml_ncu_value(csv, "launch__s+launch__x", "gramSwizzled", 1, -1, &v, NULL), 0);
    ck_assert_double_eq(v, 0);
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

/* forbid reads names as the compiler's tokens: a name that only contains the forbidden one,
 * or a number's suffix, is not it; the call is found however the lines are broken. */
START_TEST(forbid_reads_whole_names)
{
    put("ev/k.cu", "static int replaces_cudaMemcpy = 1, cudaMemcpyCount = 0x1e5f;\n"
        "float f = 4'000.5e-3f, g = .5f;\n", 0);
    grade("forbid k.cu cudaMemcpy|f|e5f|e|000 no copies", "passed");
    assert_check(0, CML_TECH_FAILED, "k.cu line 2: float f = 4'000.5e-3f, g = .5f;");
    grade("forbid k.cu cudaMemcpy|e5f|e|000|5f no copies", "passed");
    assert_check(0, CML_TECH_PASSED, "nothing matching");
    put("ev/k.cu", "void f() {\n  cudaMemcpy\n      (a, b, n, k);\n}\n", 0);
    grade("forbid k.cu cudaMemcpy no copies", "passed");
    assert_check(0, CML_TECH_FAILED, "k.cu line 2: cudaMemcpy");
    grade("forbid k.cu cudaMemcpy.+ no copies", "passed"); /* cudaMemcpyAsync and the like */
    assert_check(0, CML_TECH_PASSED, "nothing matching");
    put("ev/k.cu", "int n = 4'000", 0); /* the text ends inside a number, without a newline */
    grade("forbid k.cu cudaMemcpy no copies", "passed");
    assert_check(0, CML_TECH_PASSED, "nothing matching");
}
END_TEST

START_TEST(no_gpu_reports_checks_and_keeps_status)
{
    env.bin = NULL;
    grade("ptx " V4 " loads\nncu copyVec m.sum 0 conflicts", "no-gpu");
    assert_check(0, CML_TECH_PASSED, "found");
    assert_check(1, CML_TECH_NOT_CHECKED, "no GPU");
    ck_assert_str_eq(cml_status_name(r.status), "no-gpu");
    ck_assert_double_eq(r.score, 0);
}
END_TEST

START_TEST(wrong_task_gets_no_technique_points)
{
    grade("ptx " V4 " loads\nncu copyVec m.sum 0 conflicts", "wrong");
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

START_TEST(reports_show_the_checks)
{
    char *buf = NULL;
    size_t len = 0;
    setenv("FAKE_NCU_VALUE", "5000", 1);
    grade("ptx " V4 " 128-bit loads\nncu copyVec m.sum 0 no bank conflicts", "passed");
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
    tcase_add_test(spec_tc, parses_an_ncu_range_of_a_launch_property);
    tcase_add_test(text, finds_lines_within_a_kernel);
    tcase_add_test(text, kernel_scope_is_the_exact_name);
    tcase_add_test(text, kernel_scope_follows_calls);
    tcase_add_test(text, kernel_scope_follows_a_long_chain_of_calls);
    tcase_add_test(text, sums_an_ncu_metric);
    tcase_add_test(text, sums_a_sum_of_ncu_metrics);
    tcase_add_test(text, reads_a_per_launch_ncu_property);
    tcase_add_test(text, ptx_and_forbid_pass_and_award_points);
    tcase_add_test(text, scalar_ptx_fails_the_technique);
    tcase_add_test(text, forbidden_call_in_code_fails);
    tcase_add_test(text, forbid_reads_whole_names);
    tcase_add_test(text, no_gpu_reports_checks_and_keeps_status);
    tcase_add_test(text, wrong_task_gets_no_technique_points);
    tcase_add_test(tools, missing_cuobjdump_is_not_checked_and_awarded);
    tcase_add_test(tools, evidence_changed_after_the_build_is_refused);
    tcase_add_test(tools, evidence_with_its_build_digest_is_read);
    tcase_add_test(tools, reports_show_the_checks);
    suite_add_tcase(s, spec_tc);
    suite_add_tcase(s, text);
    suite_add_tcase(s, tools);
    technique_ncu_add(s);
    technique_ncu_run_add(s);
    technique_ncu_cases_add(s);
    technique_trace_add(s);
    technique_trace_launches_add(s);
    technique_trace_calls_add(s);
    technique_trace_cases_add(s);
    technique_trace_streams_add(s);
    technique_labs_add(s);
    lex_add(s);
    return s;
}
