/* The honest corpus (tests/honest/README.md): correct submissions written from the exercise
 * sheets alone, in every ordinary shape of C++17 and CUDA a student may choose. Each variant is
 * staged and built as a grading builds it (evidence kept, the common library compiled once and
 * shared, the repository and the corpus protected, so the include rule is live), then every
 * task's technique checks run on that build as if every case had passed. A variant passes when
 * it builds and no check that can be judged without a GPU fails: honest code of any legal shape
 * must not lose points to a rule (DESIGN.md, decision 10). Needs nvcc and binutils, no GPU. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build.h"
#include "grade.h"
#include "helpers.h"
#include "sandbox.h"
#include "speed.h"
#include "stage.h"
#include "suites.h"
#include "technique_phase.h"
#include "util.h"

#define HONEST_MAX 96
#define HONEST_MIN 32    /* the corpus's promise: at least this many variants */
#define HONEST_PER_LAB 4 /* and at least this many per lab */

/* One variant: tests/honest/<lab>/<name>, and its build once the fixture ran. */
typedef struct {
    char lab[64], name[64], dir[CML_PATH];
    const cml_lab_spec *spec; /* NULL: no lab of that name */
    char stage_err[1024];
    int staged;
    cml_build b, cet; /* as the development machines' compiler builds it, and as the GPU
                         machines' g++ 13 does (-fcf-protection: endbr64, other layouts) */
} honest_variant;

#define CET_FLAG "-fcf-protection=full"

static cml_lab_spec specs[CML_MAX_LABS];
static int nspecs;
static honest_variant variants[HONEST_MAX];
static int nvariants;
static char base[64]; /* the fixture's scratch folder */

static int by_path(const void *a, const void *b)
{
    const honest_variant *x = a, *y = b;
    int c = strcmp(x->lab, y->lab);
    return c ? c : strcmp(x->name, y->name);
}

/* The sub-folders of dir (not hidden) into names[], at most max; how many. */
static int subfolders(const char *dir, char names[][64], int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && n < max && (e = readdir(d)) != NULL) {
        char path[CML_PATH];
        struct stat st;
        if (e->d_name[0] == '.' || strlen(e->d_name) >= 64 ||
            cml_fmt(path, sizeof path, "%s/%s", dir, e->d_name) < 0 || stat(path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        snprintf(names[n++], 64, "%s", e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

/* Find every variant folder tests/honest/<lab>/<name> (in name order) and its lab's spec.
 * Safe at suite creation: reads folders and specs only. */
static void honest_find(void)
{
    char err[512], labs[CML_MAX_LABS * 2][64], names[HONEST_MAX][64], dir[CML_PATH];
    nspecs = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    if (nspecs < 0)
        nspecs = 0;
    cml_fmt(dir, sizeof dir, "%s/tests/honest", test_root());
    int nlabs = subfolders(dir, labs, CML_MAX_LABS * 2);
    for (int l = 0; l < nlabs; l++) {
        char labdir[CML_PATH];
        cml_fmt(labdir, sizeof labdir, "%s/%s", dir, labs[l]);
        int n = subfolders(labdir, names, HONEST_MAX);
        for (int k = 0; k < n && nvariants < HONEST_MAX; k++) {
            honest_variant *v = &variants[nvariants++];
            memcpy(v->lab, labs[l], sizeof v->lab); /* both 64 bytes, NUL-terminated */
            memcpy(v->name, names[k], sizeof v->name);
            cml_fmt(v->dir, sizeof v->dir, "%s/%s", labdir, names[k]);
            for (int s = 0; s < nspecs; s++)
                if (strcmp(specs[s].lab, v->lab) == 0)
                    v->spec = &specs[s];
        }
    }
    qsort(variants, (size_t)nvariants, sizeof variants[0], by_path);
}

/* Unchecked fixture: stage every variant and build them all at once, as a grading builds a
 * submission (grade.c: evidence, one shared copy of the common library, the repository and the
 * submissions protected from #include), two at a time on this machine's cores. */
static void build_all(void)
{
    char work[256], common[CML_PATH], honest[CML_PATH];
    cml_build *jobs[2 * HONEST_MAX];
    int njobs = 0;
    test_tmpdir(base, sizeof base);
    cml_fmt(honest, sizeof honest, "%s/tests/honest", test_root());
    const char *protect[] = { test_root(), honest };
    cml_sandbox_protect(protect, 2);
    for (int i = 0; i < nvariants; i++) {
        honest_variant *v = &variants[i];
        if (!v->spec)
            continue;
        for (int c = 0; c < 2; c++) {
            cml_build *b = c ? &v->cet : &v->b;
            *b = (cml_build){ .spec = v->spec, .cc = cml_default_cc(), .timeout_s = 600,
                              .evidence = 1, .host_flag = c ? CET_FLAG : NULL };
            cml_fmt(work, sizeof work, "%s/%03d%s", base, i, c ? "-cet" : "");
            v->staged = cml_stage(test_root(), v->spec, CML_SIDE_STUDENT, v->dir, work, b->dir,
                                  sizeof b->dir, v->stage_err, sizeof v->stage_err) == 0;
            if (v->staged)
                jobs[njobs++] = b;
        }
    }
    cml_fmt(common, sizeof common, "%s/common-objects-sm%d", base, cml_default_cc());
    struct cml_common *lib = cml_build_common_start(test_root(), cml_default_cc(), common);
    for (int i = 0; i < njobs; i++)
        jobs[i]->common = lib;
    cml_build_all(jobs, njobs, 0);
    cml_build_common_finish(lib);
    cml_sandbox_protect(NULL, 0); /* the other suites' tests protect what they need */
}

static void clean_all(void)
{
    for (int i = 0; i < nvariants; i++) {
        cml_build_free(&variants[i].b);
        cml_build_free(&variants[i].cet);
    }
    if (base[0])
        cml_rmtree(base);
}

/* Append to buf (size len) what failed in one technique check of task t, in the grader's
 * words: the check's kind, what it proves, and its detail. */
static void note_failure(char *buf, size_t len, const cml_task_spec *t, int k,
                         const cml_tech_result *res)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "\n  task %s, %s check \"%s\": %s: %s", t->id,
             cml_tech_kind_name(t->tech[k].kind), t->tech[k].what,
             cml_tech_state_name(res->state), res->detail);
}

/* Whether a check of this kind must be judged here: everything but ncu (needs the GPU) and
 * sass (needs cuobjdump, which may be missing) has its evidence after a build (a probe's too:
 * every honest spelling of Point4's alignment must pass it). */
static int judged_without_gpu(enum cml_tech_kind k)
{
    return k == CML_TECH_PTX || k == CML_TECH_FORBID || k == CML_TECH_PROBE;
}

/* Variant _i / 2 builds (no link- or include-rule refusal), and every technique check of
 * every task passes on its build, as if every case had passed: built as here for an even _i,
 * as the GPU machines' compiler builds it (CET_FLAG) for an odd one. */
START_TEST(honest_variant_builds_and_passes_every_static_check)
{
    honest_variant *v = &variants[_i / 2];
    const cml_build *b = _i % 2 ? &v->cet : &v->b;
    const char *how = _i % 2 ? " (built with " CET_FLAG ", as the GPU machines' g++ 13)" : "";
    ck_assert_msg(v->spec != NULL, "%s/%s: no lab named %s in grader/specs", v->lab, v->name,
                  v->lab);
    ck_assert_msg(v->staged, "%s/%s: the grader would not stage it: %s", v->lab, v->name,
                  v->stage_err);
    ck_assert_msg(b->ok, "%s/%s%s does not build:\n%.3500s", v->lab, v->name, how,
                  b->log ? b->log : "(no log)");
    /* a call refused in one wrapper builds the lab and costs that wrapper's tasks (b->refused,
     * grade_build.c): an honest variant loses nothing that way either */
    ck_assert_msg(b->refused == NULL, "%s/%s%s: link rules cost tasks their points:\n%.3000s",
                  v->lab, v->name, how, b->refused ? b->refused : "");
    if (_i % 2) { /* the flag reached the host compiler: its functions start with endbr64 */
        char cmd[CML_PATH + 64], *o = cml_object_of(v->spec->files[0]);
        cml_fmt(cmd, sizeof cmd, "objdump -d '%s/%s' | grep -c endbr64", b->dir, o);
        FILE *p = popen(cmd, "r");
        int endbr = 0;
        ck_assert_msg(p && fscanf(p, "%d", &endbr) == 1, "%s", cmd);
        pclose(p);
        free(o);
        ck_assert_msg(endbr > 0, "%s/%s: no endbr64 in its object: built without " CET_FLAG,
                      v->lab, v->name);
    }
    char failed[6000] = "", work[64];
    test_tmpdir(work, sizeof work);
    for (int i = 0; i < v->spec->ntasks; i++) {
        const cml_task_spec *t = &v->spec->tasks[i];
        cml_task_result r;
        memset(&r, 0, sizeof r);
        r.spec = t;
        judge_as(&r, CML_STATUS_PASSED, "every case passed");
        cml_technique_env env = { .ev_dir = b->ev_dir, .ev_digest = b->ev_digest,
                                  .cc = b->cc, .seed = 1, .work_dir = work, .timeout_s = 10 };
        cml_technique_task(v->spec, t, &env, &r);
        for (int k = 0; k < t->ntech; k++)
            if (r.tech[k].state == CML_TECH_FAILED ||
                (r.tech[k].state != CML_TECH_PASSED && judged_without_gpu(t->tech[k].kind)))
                note_failure(failed, sizeof failed, t, k, &r.tech[k]);
    }
    cml_rmtree(work);
    ck_assert_msg(failed[0] == '\0', "%s/%s%s loses technique points:%s", v->lab, v->name, how,
                  failed);
}
END_TEST

/* The corpus holds at least HONEST_MIN variants, at least HONEST_PER_LAB for every lab of
 * grader/specs, and every folder names a lab. */
START_TEST(honest_corpus_covers_every_lab)
{
    ck_assert_msg(nvariants >= HONEST_MIN, "%d honest variants under tests/honest, want %d",
                  nvariants, HONEST_MIN);
    ck_assert_msg(nspecs >= 7, "only %d lab specs loaded", nspecs);
    for (int s = 0; s < nspecs; s++) {
        int n = 0;
        for (int i = 0; i < nvariants; i++)
            n += variants[i].spec == &specs[s];
        ck_assert_msg(n >= HONEST_PER_LAB, "lab %s has %d honest variants, want %d",
                      specs[s].lab, n, HONEST_PER_LAB);
    }
    for (int i = 0; i < nvariants; i++)
        ck_assert_msg(variants[i].spec, "tests/honest/%s: no such lab", variants[i].lab);
}
END_TEST

Suite *honest_suite(void)
{
    Suite *s = suite_create("honest");
    honest_find();
    TCase *count = tcase_create("honest corpus size");
    tcase_add_test(count, honest_corpus_covers_every_lab);
    suite_add_tcase(s, count);
    TCase *tc = tcase_create("honest variants built by the grader");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, build_all, clean_all);
    tcase_add_loop_test(tc, honest_variant_builds_and_passes_every_static_check, 0,
                        2 * nvariants);
    suite_add_tcase(s, tc);
    return s;
}
