/* The attack corpus without a GPU (tests/attacks/gpu/README.md): every attack, applied to its
 * lab's solution, is built by the grader (cml-grade with CML_FAKE_GPU=0: stage, compile, link
 * rules, link; nothing of the student's runs). An attack decided at build time gets the
 * build-error its EXPECT pins, naming the rule; every other attack builds, so that the GPU tests
 * see it run. The repository is checksummed around every grading. And one test grades a
 * build-time attack against a copy of the specs without link.rules: it builds, so the verdicts
 * above come from the link rules. Needs nvcc, nm and objdump, not a GPU. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attack_corpus.h"
#include "cml.h"
#include "helpers.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

#define MAX_THREADS 8 /* one grading per core (cml_ncpus), up to this many */

/* One attack's grading. */
typedef struct {
    char err[1024];                 /* could not be set up or graded */
    test_summary_line lines[8];
    int nlines;
    uint64_t repo_before, repo_after;
} graded;

static const planted_bug *attacks;
static int nattacks;
static graded *results;
static char base[64];
static atomic_int next_attack;

/* cml-grade on submission `sub` (lab `lab`) into `out`, no GPU; its summary into g. root:
 * NULL for the repository. */
static void grade_without_gpu(const char *root, const char *sub, const char *lab,
                              const char *out, graded *g)
{
    char prefix[3] = { lab[0], lab[1], '\0' };
    char *argv[] = { (char *)test_path("build/cml-grade"), "grade", "--root",
                     (char *)(root ? root : test_root()), "--submission", (char *)sub, "--lab",
                     prefix, "--out", (char *)out, "--no-color", NULL };
    char *env[] = { "CML_FAKE_GPU=0", NULL };
    cml_proc_result r;
    cml_run(argv, env, NULL, -1, 900, 1u << 16, &r);
    g->nlines = test_read_summary(out, g->lines, 8);
    if (g->nlines <= 0)
        snprintf(g->err, sizeof g->err, "cml-grade wrote no summary.tsv: %.800s",
                 r.output ? r.output : "");
    cml_proc_result_free(&r);
}

/* Materialise attack i in base/<i>/sub and grade it, checksumming the repository around. */
static void grade_one(int i)
{
    graded *g = &results[i];
    char dir[CML_PATH], sub[CML_PATH], out[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/%d", base, i);
    cml_fmt(sub, sizeof sub, "%s/sub", dir);
    cml_fmt(out, sizeof out, "%s/out", dir);
    if (cml_mkdirs(sub) < 0 ||
        attack_materialize(&attacks[i], sub, out, base, g->err, sizeof g->err) < 0)
        return;
    g->repo_before = attack_repo_sum();
    grade_without_gpu(NULL, sub, attacks[i].lab, out, g);
    g->repo_after = attack_repo_sum();
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i; (i = atomic_fetch_add(&next_attack, 1)) < nattacks;)
        grade_one(i);
    return NULL;
}

/* Every attack graded once, one per core at a time, before the tests (about 3 s of nvcc each:
 * the student file, the harness and the files of common/). */
static void grade_all(void)
{
    nattacks = attack_find(&attacks);
    results = calloc((size_t)nattacks + 1, sizeof *results);
    snprintf(base, sizeof base, "/tmp/cml-test-XXXXXX");
    if (!results || !mkdtemp(base))
        return;
    pthread_t tid[MAX_THREADS];
    int started = 0, want = cml_ncpus() < MAX_THREADS ? cml_ncpus() : MAX_THREADS;
    for (int t = 0; t < want; t++)
        started += pthread_create(&tid[started], NULL, worker, NULL) == 0;
    if (started == 0)
        worker(NULL);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

static void clean_all(void)
{
    cml_rmtree(base);
    free(results);
}

/* Build-time attacks: the tasks EXPECT names are build errors with its text (a link rule
 * broken in one wrapper costs only the tasks that call it), every other task built (no-gpu,
 * to be graded on a GPU). Others: every task built. */
START_TEST(attack_gets_its_build_verdict)
{
    const planted_bug *a = &attacks[_i];
    graded *g = &results[_i];
    char msg[1600] = "", *expect = attack_expect(a);
    ck_assert_msg(!g->err[0], "%s: %s", a->dir, g->err);
    for (int t = 0; t < g->nlines && !msg[0]; t++) {
        char want[32] = "", text[512] = "";
        if (attack_at_build(a))
            planted_expected(expect, g->lines[t].task, want, sizeof want, text, sizeof text);
        if (strcmp(want, "build-error") != 0)
            snprintf(want, sizeof want, "no-gpu"), text[0] = '\0';
        if (strcmp(g->lines[t].lab, a->lab) == 0 &&
            (strcmp(g->lines[t].status, want) != 0 || !strstr(g->lines[t].detail, text)))
            snprintf(msg, sizeof msg, "task %s: got %s (%.900s), want %s %s", g->lines[t].task,
                     g->lines[t].status, g->lines[t].detail, want, text);
    }
    free(expect);
    ck_assert_msg(!msg[0], "%s: %s", a->dir, msg);
}
END_TEST

START_TEST(attack_build_leaves_the_repository_unchanged)
{
    ck_assert_msg(results[_i].repo_before == results[_i].repo_after,
                  "%s: grader/, labs/, solutions/ or common/ changed while it was built",
                  attacks[_i].dir);
}
END_TEST

/* The corpus keeps at least two attacks for every lab of solutions/ (the issue asks for them). */
START_TEST(every_lab_has_two_attacks)
{
    struct dirent **labs = NULL;
    int nlabs = scandir(test_path("solutions"), &labs, NULL, alphasort), few = -1;
    char msg[256] = "";
    for (int l = 0; l < nlabs; l++) {
        int n = 0;
        for (int i = 0; i < nattacks; i++)
            n += strcmp(attacks[i].lab, labs[l]->d_name) == 0;
        if (labs[l]->d_name[0] != '.' && n < 2 && few < 0)
            few = snprintf(msg, sizeof msg, "lab %s has %d attack(s)", labs[l]->d_name, n);
        free(labs[l]);
    }
    free(nlabs >= 0 ? labs : NULL);
    ck_assert_msg(nlabs > 2 && few < 0, "%s", msg[0] ? msg : "no solutions/ folder");
}
END_TEST

/* A root whose specs folder has lab 03's spec and no link.rules; common/, labs/ and solutions/
 * are the repository's (symbolic links to its folders). */
static void root_without_link_rules(const char *root)
{
    char path[CML_PATH], err[512];
    const char *linked[] = { "common", "labs", "solutions" };
    cml_fmt(path, sizeof path, "%s/grader/specs", root);
    ck_assert(cml_mkdirs(path) == 0);
    cml_fmt(path, sizeof path, "%s/grader/specs/03_bank_conflicts.spec", root);
    ck_assert_msg(cml_copy_file(test_path("grader/specs/03_bank_conflicts.spec"), path, 1 << 20,
                                err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < sizeof linked / sizeof linked[0]; i++) {
        cml_fmt(path, sizeof path, "%s/%s", root, linked[i]);
        ck_assert(symlink(test_path(linked[i]), path) == 0);
    }
}

/* The counterpart: the atexit attack, refused above by the constructors rule, builds once
 * link.rules is gone. */
START_TEST(build_time_attack_builds_without_link_rules)
{
    const planted_bug *a = NULL;
    for (int i = 0; i < nattacks; i++)
        if (strstr(attacks[i].dir, "/03_bank_conflicts/atexit_late_records"))
            a = &attacks[i];
    ck_assert_msg(a, "the attack 03_bank_conflicts/atexit_late_records is gone");
    char dir[64], root[CML_PATH], sub[CML_PATH], out[CML_PATH];
    graded *g = calloc(1, sizeof *g);
    test_tmpdir(dir, sizeof dir);
    cml_fmt(root, sizeof root, "%s/root", dir);
    cml_fmt(sub, sizeof sub, "%s/sub", dir);
    cml_fmt(out, sizeof out, "%s/out", dir);
    root_without_link_rules(root);
    ck_assert(cml_mkdirs(sub) == 0);
    ck_assert_msg(attack_materialize(a, sub, out, dir, g->err, sizeof g->err) == 0, "%s", g->err);
    grade_without_gpu(root, sub, a->lab, out, g);
    int built = g->nlines == 4;
    for (int t = 0; t < g->nlines; t++)
        built &= strcmp(g->lines[t].status, "no-gpu") == 0;
    char got[1200];
    snprintf(got, sizeof got, "%s %s", g->nlines > 0 ? g->lines[0].status : "(none)",
             g->nlines > 0 ? g->lines[0].detail : g->err);
    free(g);
    cml_rmtree(dir);
    ck_assert_msg(built, "without link.rules the attack still did not build: %.1100s", got);
}
END_TEST

Suite *attacks_suite(void)
{
    Suite *s = suite_create("attacks");
    TCase *tc = tcase_create("attack corpus built without a GPU");
    int n = attack_find(&attacks);
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, grade_all, clean_all);
    tcase_add_loop_test(tc, attack_gets_its_build_verdict, 0, n);
    tcase_add_loop_test(tc, attack_build_leaves_the_repository_unchanged, 0, n);
    tcase_add_test(tc, every_lab_has_two_attacks);
    tcase_add_test(tc, build_time_attack_builds_without_link_rules);
    suite_add_tcase(s, tc);
    return s;
}
