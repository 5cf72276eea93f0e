/* Each task's contract, written once in its spec and shown in its sheet (issue 44): the block
 * `cml-grade contract --write` puts in labs/<lab>/EXERCISE.md must be what the spec writes now,
 * so a spec whose cases, draws, checks or limits change without its sheet fails here. No GPU. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "grade.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

static cml_lab_spec specs[CML_MAX_LABS];
static int nspecs;

static char *sheet_of(const cml_lab_spec *lab)
{
    char path[CML_PATH];
    snprintf(path, sizeof path, "%s/labs/%s/EXERCISE.md", test_root(), lab->lab);
    char *text = cml_read_text(path, 1u << 20, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    return text;
}

START_TEST(every_sheet_shows_its_specs_contract)
{
    char err[256] = "";
    int changed = -1;
    char *sheet = sheet_of(&specs[_i]);
    char *text = cml_contract_sheet(&specs[_i], sheet, &changed, err, sizeof err);
    ck_assert_msg(text != NULL, "%s", err);
    ck_assert_msg(changed == 0, "labs/%s/EXERCISE.md: %d task contract block(s) differ from "
                  "grader/specs/%s.spec: run `build/cml-grade contract --write`", specs[_i].lab,
                  changed, specs[_i].lab);
    free(sheet);
    free(text);
}
END_TEST

/* The other direction: a sheet in step with its spec stops being so when a draw's range, a
 * check's limit or a case changes in the spec alone. */
START_TEST(a_spec_changed_alone_makes_its_sheet_differ)
{
    char err[256] = "";
    static cml_lab_spec lab;
    int changed = -1;
    lab = specs[0];
    char *sheet = sheet_of(&lab), *synced = cml_contract_sheet(&lab, sheet, &changed, err,
                                                                sizeof err);
    ck_assert_msg(synced != NULL, "%s", err);
    for (int what = 0; what < 3; what++) {
        lab = specs[0];
        cml_task_spec *t = &lab.tasks[lab.ntasks - 1];
        if (what == 0 && t->ndraws > 0)
            snprintf(t->draws[0], sizeof t->draws[0], "n=1..7");
        else if (what == 1)
            t->points += 1;
        else
            snprintf(t->cases[0].text, sizeof t->cases[0].text, "n=12345");
        char *text = cml_contract_sheet(&lab, synced, &changed, err, sizeof err);
        ck_assert_msg(text && changed == 1, "change %d: %d blocks differ", what, changed);
        free(text);
    }
    free(sheet);
    free(synced);
}
END_TEST

/* A missing block goes at the end of its task's section, also under a heading that names two
 * tasks ("### 1.2a and 1.2b"), and a second pass changes nothing. */
START_TEST(missing_blocks_go_into_their_tasks_sections)
{
    static cml_lab_spec lab;
    char err[256] = "";
    int changed = -1;
    memset(&lab, 0, sizeof lab);
    snprintf(lab.lab, sizeof lab.lab, "99_fake");
    lab.ntasks = 3;
    const char *ids[] = {"1.2a", "1.2b", "1.3"};
    for (int i = 0; i < 3; i++) {
        snprintf(lab.tasks[i].id, sizeof lab.tasks[i].id, "%s", ids[i]);
        lab.tasks[i].ncases = 1, lab.tasks[i].points = 5;
        snprintf(lab.tasks[i].cases[0].text, sizeof lab.tasks[i].cases[0].text, "n=%d", i + 1);
    }
    const char *sheet = "# Lab\n\n### 1.2a and 1.2b Two (5 points each)\nText.\n\n"
                        "### 1.3 Three (5 points)\nMore.\n\n## Afterwards\nEnd.\n";
    char *text = cml_contract_sheet(&lab, sheet, &changed, err, sizeof err);
    ck_assert_msg(text && changed == 3, "%s", err);
    const char *a = strstr(text, "<!-- contract 1.2a:"), *b = strstr(text, "<!-- contract 1.2b:");
    const char *c = strstr(text, "<!-- contract 1.3:"), *h3 = strstr(text, "### 1.3 ");
    const char *after = strstr(text, "## Afterwards");
    ck_assert_msg(a && b && c && h3 && after && a < b && b < h3 && h3 < c && c < after, "%s",
                  text);
    char *again = cml_contract_sheet(&lab, text, &changed, err, sizeof err);
    ck_assert_msg(again && changed == 0 && strcmp(again, text) == 0, "not idempotent");
    free(again);
    free(text);
    lab.tasks[2].id[2] = '9'; /* "1.9": no heading names it */
    ck_assert(cml_contract_sheet(&lab, sheet, &changed, err, sizeof err) == NULL);
    ck_assert_msg(strstr(err, "1.9"), "%s", err);
}
END_TEST

/* Added to the sheets suite. */
void sheets_contract_add(Suite *s)
{
    char err[512];
    TCase *tc = tcase_create("contracts");
    nspecs = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    if (nspecs < 0) {
        fprintf(stderr, "sheets suite: %s\n", err);
        nspecs = 0;
    }
    tcase_add_loop_test(tc, every_sheet_shows_its_specs_contract, 0, nspecs);
    tcase_add_test(tc, a_spec_changed_alone_makes_its_sheet_differ);
    tcase_add_test(tc, missing_blocks_go_into_their_tasks_sections);
    suite_add_tcase(s, tc);
}
