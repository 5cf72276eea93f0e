/* The technique phase of a grading (cml_technique_labs, technique_phase.h): the shared ncu runs
 * of every lab at once, each lab's verdicts as it would get them alone, through the fake ncu of
 * technique_fixture.h. */
#include "technique_fixture.h"
#include "suites.h"

#define TWO_TASKS HEAD TASK "ncu copyVec m.sum 0 no conflicts\ntechnique 1\ntask 1.2\ncheck copy\n" \
    "points 6\ncase n=1000\nncu other m.sum 0 no conflicts\nncu_case n=64\ntechnique 1\n"

/* In front of the fixture's fake ($MEET_NCU): waits, at most 5 s, until $MEET_N runs have
 * started, and appends to $FAKE_ARGS.meet whether it met them. Runs one after another never
 * meet: the first waits alone. */
static const char MEET[] =
    "#!/bin/sh\ntouch \"$FAKE_ARGS.started.$$\"\ni=0\n"
    "while [ \"$(ls \"$FAKE_ARGS\".started.* | wc -l)\" -lt \"$MEET_N\" ] && [ $i -lt 50 ]; do\n"
    "    sleep 0.1; i=$((i + 1))\ndone\n"
    "if [ $i -lt 50 ]; then echo met; else echo alone; fi >> \"$FAKE_ARGS.meet\"\n"
    "echo \"$TMPDIR\" >> \"$FAKE_ARGS.tmp\"\n"
    "exec \"$MEET_NCU\" \"$@\"\n";

/* In front of the fixture's fake ($KILL_NCU): a run of two cases or more (a lab's shared run)
 * dies of SIGKILL, as a tool run that fails on its own; a task's own run goes on. */
static const char KILL_SHARED[] =
    "#!/bin/sh\ncase \"$*\" in *--case*--case*) kill -9 $$;; esac\n"
    "exec \"$KILL_NCU\" \"$@\"\n";

static cml_lab_spec specs[2];
static cml_lab_result out[2];

/* Two labs of TWO_TASKS, their tasks passed, those marked in ran[l] as having run, through the
 * technique phase with the meeting fake in front, waiting for meet_n runs; its progress lines
 * to `progress`. */
static void phase_of_two_labs_to(const unsigned char ran[2][2], const char *meet_n,
                                 FILE *progress)
{
    setenv("CML_SANDBOX", "off", 1); /* to read what the fake wrote */
    setenv("FAKE_NCU", "two", 1);
    setenv("FAKE_NCU_OTHER", "9", 1);
    put("meet", MEET, 1);
    setenv("MEET_NCU", in_dir("ncu"), 1);
    const char *front = getenv("CML_NCU_FRONT"); /* a wrapper in front of meet, or none */
    setenv("CML_NCU", front ? front : in_dir("meet"), 1);
    setenv("MEET_N", meet_n, 1);
    ck_assert_msg(load(TWO_TASKS) == 0, "%s", err);
    cml_tech_lab labs[2];
    for (int l = 0; l < 2; l++) {
        specs[l] = spec;
        memset(&out[l], 0, sizeof out[l]);
        out[l].spec = &specs[l];
        out[l].ntasks = 2;
        for (int t = 0; t < 2; t++) {
            cml_task_result *x = &out[l].tasks[t];
            x->spec = &specs[l].tasks[t];
            x->credit = (cml_credit){ .cases = specs[l].tasks[t].ncases };
            judge_as(x, CML_STATUS_PASSED, "all cases passed");
            out[l].ran[t] = ran[l][t];
        }
        labs[l] = (cml_tech_lab){ &specs[l], env, &out[l] };
        labs[l].env.ncu = NULL; /* the phase keeps each lab's runs */
    }
    cml_technique_labs(labs, 2, progress);
    cml_publish_lab(&out[0]);
    cml_publish_lab(&out[1]);
    unsetenv("MEET_N");
    unsetenv("MEET_NCU");
}

static void phase_of_two_labs(const unsigned char ran[2][2], const char *meet_n)
{
    phase_of_two_labs_to(ran, meet_n, NULL);
}

static char *meetings(void)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s.meet", in_dir("args"));
    return cml_read_text(path, 4096, NULL);
}

/* The TMPDIR each run of the fake had, one line each. */
static char *tmpdirs(void)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s.tmp", in_dir("args"));
    return cml_read_text(path, 4096, NULL);
}

/* Both labs' shared runs are under way at once, and each lab gets the verdicts of a shared run
 * of its own: 1.1 passes on copy's rows, 1.2 fails on other's 9, and the lab's score counts it. */
START_TEST(labs_profile_at_once_with_their_own_verdicts)
{
    char *met;
    phase_of_two_labs((const unsigned char[2][2]){ { 1, 1 }, { 1, 1 } }, "2");
    ck_assert_ptr_nonnull(met = meetings());
    ck_assert_str_eq(met, "met\nmet\n");
    free(met);
    /* one TMPDIR for both (ncu keeps its profiling lock there), made for the phase and gone
     * after it */
    char *tmp, first[CML_PATH];
    ck_assert_ptr_nonnull(tmp = tmpdirs());
    snprintf(first, sizeof first, "%.*s", (int)strcspn(tmp, "\n"), tmp);
    ck_assert_msg(strncmp(first, "/tmp/cml-ncu-", 13) == 0, "%s", tmp);
    ck_assert_ptr_nonnull(strstr(tmp + strlen(first) + 1, first));
    ck_assert_int_ne(access(first, F_OK), 0);
    free(tmp);
    for (int l = 0; l < 2; l++) {
        const cml_task_result *a = &out[l].tasks[0], *b = &out[l].tasks[1];
        ck_assert_msg(a->tech[0].state == CML_TECH_PASSED &&
                      strstr(a->tech[0].detail, "(case 1.1,n=1000, in one ncu run for 2 tasks)"),
                      "lab %d: %s", l, a->tech[0].detail);
        ck_assert_msg(b->tech[0].state == CML_TECH_FAILED &&
                      strstr(b->tech[0].detail, "m.sum = 9 > limit 0 over 1 launch of"),
                      "lab %d: %s", l, b->tech[0].detail);
        ck_assert_str_eq(cml_status_name(a->status), "passed");
        ck_assert_str_eq(cml_status_name(b->status), "technique");
        ck_assert_double_eq(a->score, a->max_score);
        ck_assert_double_lt(b->score, b->max_score); /* its technique point withheld */
        ck_assert_double_eq(out[l].score, a->score + b->score);
        ck_assert_double_eq(out[l].max_score, a->max_score + b->max_score);
    }
}
END_TEST

/* A task that did not run gets no technique check, and the lab's one task that did is profiled
 * in a run of its own (1 + 1 runs: the other lab's shared one and that one). */
START_TEST(a_task_that_did_not_run_is_not_checked)
{
    char *met;
    phase_of_two_labs((const unsigned char[2][2]){ { 1, 0 }, { 1, 1 } }, "1");
    ck_assert_int_eq(out[0].tasks[1].found.checked, 0);
    ck_assert_int_eq(out[0].tasks[1].tech[0].state, 0);
    ck_assert_str_eq(out[0].tasks[1].tech[0].detail, "");
    ck_assert_msg(out[0].tasks[0].found.checked &&
                  !strstr(out[0].tasks[0].tech[0].detail, "one ncu run"), "%s",
                  out[0].tasks[0].tech[0].detail);
    ck_assert_ptr_nonnull(met = meetings());
    ck_assert_str_eq(met, "met\nmet\n");
    free(met);
    ck_assert_msg(strstr(out[1].tasks[1].tech[0].detail, "in one ncu run for 2 tasks"), "%s",
                  out[1].tasks[1].tech[0].detail);
}
END_TEST

/* A shared run that fails says so, with why, in the progress, and each check is then judged
 * from its task's own run. */
START_TEST(a_failed_shared_run_says_why_and_each_task_runs_alone)
{
    char *text = NULL;
    size_t len = 0;
    FILE *progress = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(progress);
    put("kill", KILL_SHARED, 1);
    setenv("KILL_NCU", in_dir("meet"), 1);
    setenv("CML_NCU_FRONT", in_dir("kill"), 1);
    phase_of_two_labs_to((const unsigned char[2][2]){ { 1, 1 }, { 1, 1 } }, "1", progress);
    unsetenv("KILL_NCU");
    unsetenv("CML_NCU_FRONT");
    fclose(progress);
    ck_assert_msg(strstr(text, "[04_x] the shared ncu run failed, its tasks are profiled alone: "
                               "not checked (ncu"), "%s", text);
    ck_assert_msg(strstr(text, "(0 labs' shared ncu runs at once)"), "%s", text);
    free(text);
    /* each check read its task's own run (the fake does not filter kernels, so the values
     * are the fake's, not what ncu would give) */
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 2; t++) {
            const cml_tech_result *c = &out[l].tasks[t].tech[0];
            ck_assert_msg(strstr(c->detail, t ? "(case 1.2,n=64)" : "(case 1.1,n=1000)") &&
                          !strstr(c->detail, "one ncu run"), "lab %d: %s", l, c->detail);
        }
}
END_TEST

/* Contract in suites.h: the technique phase's tests, a test case of the technique suite with
 * this file's own copy of the fixture. */
void technique_labs_add(Suite *s)
{
    TCase *tc = tcase_create("technique phase");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, labs_profile_at_once_with_their_own_verdicts);
    tcase_add_test(tc, a_task_that_did_not_run_is_not_checked);
    tcase_add_test(tc, a_failed_shared_run_says_why_and_each_task_runs_alone);
    suite_add_tcase(s, tc);
}
