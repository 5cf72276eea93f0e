/* Variant builds for the static technique checks: contracts in variant_build.h. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "grade.h"
#include "helpers.h"
#include "planted.h"
#include "speed.h"
#include "stage.h"
#include "technique_phase.h"
#include "util.h"
#include "variant_build.h"

cml_lab_spec variant_specs[CML_MAX_LABS];
int variant_nspecs;
cml_task_result variant_r;
static char work[64];

/* Copy of text with its one `find` replaced by `repl` (the test fails if find is missing). */
static char *replaced(const char *text, const char *find, const char *repl)
{
    const char *at = strstr(text, find);
    ck_assert_msg(at != NULL, "the solution no longer holds: %s", find);
    char *out = NULL;
    ck_assert(asprintf(&out, "%.*s%s%s", (int)(at - text), text, repl, at + strlen(find)) > 0);
    return out;
}

/* Contract in variant_build.h. */
const cml_lab_spec *variant_lab(const char *prefix)
{
    for (int i = 0; i < variant_nspecs; i++)
        if (strncmp(variant_specs[i].lab, prefix, strlen(prefix)) == 0)
            return &variant_specs[i];
    ck_abort_msg("no spec for lab %s", prefix);
    return NULL;
}

/* Build spec's staged submission in work/sub, then run the static technique checks of every
 * task (task NULL) or of task `task` on it as if every case had passed: into results[k] for
 * task k, or into variant_r for the one task. */
static void build_and_check_tasks(const cml_lab_spec *spec, const char *task,
                                  cml_task_result *results)
{
    char sub[CML_PATH], err[1024];
    cml_fmt(sub, sizeof sub, "%s/sub", work);
    cml_build b = { .spec = spec, .cc = cml_default_cc(), .timeout_s = 600, .evidence = 1 };
    ck_assert_msg(cml_stage(test_root(), spec, CML_SIDE_STUDENT, sub, work, b.dir, sizeof b.dir,
                            err, sizeof err) == 0, "%s", err);
    ck_assert_msg(cml_build_lab(&b), "the variant does not build:\n%.4000s", b.log ? b.log : "");
    int seen = 0;
    for (int i = 0; i < spec->ntasks; i++) {
        const cml_task_spec *t = &spec->tasks[i];
        if (task && strcmp(t->id, task) != 0)
            continue;
        cml_task_result *r = task ? &variant_r : &results[i];
        memset(r, 0, sizeof *r);
        r->spec = t;
        judge_as(r, CML_STATUS_PASSED, "every case passed");
        cml_technique_env env = { .ev_dir = b.ev_dir, .ev_digest = b.ev_digest, .cc = b.cc,
                                  .seed = 1, .work_dir = work, .timeout_s = 10 };
        cml_technique_task(spec, t, &env, r);
        seen++;
    }
    ck_assert(seen > 0);
    cml_build_free(&b);
    cml_rmtree(work);
}

/* Contract in variant_build.h. */
void check_planted(const cml_lab_spec *spec, const char *bug_dir, cml_task_result *results)
{
    char sub[CML_PATH], err[512];
    test_tmpdir(work, sizeof work);
    cml_fmt(sub, sizeof sub, "%s/sub", work);
    cml_mkdirs(sub);
    ck_assert_msg(planted_materialize(test_root(), spec->lab, bug_dir, sub, err, sizeof err) == 0,
                  "%s", err);
    build_and_check_tasks(spec, NULL, results);
}

/* Contract in variant_build.h. */
void check_variant_with(const char *prefix, const char *file, const char *head,
                               const char *find, const char *repl, const char *task)
{
    const cml_lab_spec *spec = variant_lab(prefix);
    char path[CML_PATH];
    test_tmpdir(work, sizeof work);
    cml_fmt(path, sizeof path, "%s/sub", work);
    cml_mkdirs(path);
    for (int i = 0; i < spec->nfiles; i++) {
        cml_fmt(path, sizeof path, "solutions/%s/%s", spec->lab, spec->files[i]);
        char *text = cml_read_text(test_path(path), 1u << 20, NULL), *mine = NULL, *all = NULL;
        ck_assert(text != NULL);
        if (strcmp(spec->files[i], file) == 0) {
            mine = replaced(text, find, repl);
            ck_assert(asprintf(&all, "%s%s", head, mine) > 0);
        }
        cml_fmt(path, sizeof path, "%s/sub/%s", work, spec->files[i]);
        test_write(path, all ? all : text);
        free(text), free(mine), free(all);
    }
    build_and_check_tasks(spec, task, NULL);
}

void check_variant(const char *prefix, const char *file, const char *find, const char *repl,
                   const char *task)
{
    check_variant_with(prefix, file, "", find, repl, task);
}

/* Contract in variant_build.h. */
const char *kind_detail(enum cml_tech_kind k)
{
    for (int i = 0; i < variant_r.spec->ntech; i++)
        if (variant_r.spec->tech[i].kind == k)
            return variant_r.tech[i].detail;
    return "";
}

/* Contract in variant_build.h. */
void assert_kind(enum cml_tech_kind k, enum cml_tech_state want)
{
    int seen = 0;
    for (int i = 0; i < variant_r.spec->ntech; i++)
        if (variant_r.spec->tech[i].kind == k) {
            seen++;
            ck_assert_msg(variant_r.tech[i].state == want, "%s check %d: %s: %s (wanted %s)",
                          cml_tech_kind_name(k), i,
                          cml_tech_state_name(variant_r.tech[i].state),
                          variant_r.tech[i].detail, cml_tech_state_name(want));
        }
    ck_assert_msg(seen > 0, "task %s has no %s check", variant_r.spec->id,
                  cml_tech_kind_name(k));
}


/* Contract in variant_build.h. */
void variants_load(void)
{
    char err[512];
    variant_nspecs = cml_load_specs(test_root(), NULL, variant_specs, CML_MAX_LABS, err,
                                    sizeof err);
    if (variant_nspecs <= 0) {
        fprintf(stderr, "variants: %s\n", err);
        variant_nspecs = 0;
    }
}
