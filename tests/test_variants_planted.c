/* The planted corpus's static half, without a GPU: every planted submission whose verdicts are
 * only passed, slow or technique is built with nvcc and its static checks (ptx, forbid)
 * are run as if every case had passed. A task that must pass or be slow fails none of them, so
 * a correct variant written differently (another XOR swizzle, copies through a helper) is not
 * failed by a check; a task pinned `technique` whose text names a static check fails that
 * check (its ncu checks need a GPU: not judged here). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "planted.h"
#include "suites.h"
#include "technique.h"
#include "util.h"
#include "variant_build.h"

#define MAX_BUGS 128

static int is_static(enum cml_tech_kind k)
{
    return k == CML_TECH_PTX || k == CML_TECH_FORBID;
}

/* Whether the lab has a static check anywhere, and the EXPECT text pins nothing a run decides
 * (wrong, error, build-error...): only then do its static checks say all there is to say. */
static int statically_judged(const cml_lab_spec *spec, const char *expect)
{
    int checks = 0;
    for (int k = 0; k < spec->ntasks; k++)
        for (int i = 0; i < spec->tasks[k].ntech; i++)
            checks += is_static(spec->tasks[k].tech[i].kind);
    for (int k = 0; checks && k < spec->ntasks; k++) {
        char want[32] = "passed", text[256];
        planted_expected(expect, spec->tasks[k].id, want, sizeof want, text, sizeof text);
        if (strcmp(want, "passed") && strcmp(want, "slow") && strcmp(want, "technique"))
            return 0;
    }
    return checks > 0;
}

/* One task's static states against its EXPECT line; appends a disagreement to msg. A task
 * that must pass or be slow fails no static check; one pinned `technique` fails a static check
 * whose `what` holds the EXPECT text, when it has one (others may fail beside it: a scalar
 * copy has neither 128-bit loads nor stores). */
static void judge(const char *bug, const cml_task_result *r, const char *expect, char *msg,
                  size_t len)
{
    char want[32] = "passed", text[256] = "";
    planted_expected(expect, r->spec->id, want, sizeof want, text, sizeof text);
    int technique = strcmp(want, "technique") == 0, named_failed = 0, bad = -1;
    for (int i = 0; i < r->spec->ntech; i++) {
        const cml_tech_spec *c = &r->spec->tech[i];
        int failed = is_static(c->kind) && r->tech[i].state == CML_TECH_FAILED;
        int names = is_static(c->kind) && technique && text[0] && strstr(c->what, text);
        named_failed += names && failed;
        bad = bad < 0 && ((!technique && failed) || (names && !failed)) ? i : bad;
    }
    if (bad >= 0 && !(technique && named_failed))
        cml_fmt(msg + strlen(msg), len - strlen(msg), "\n%s task %s (%s): %s check '%s' %s: %s",
                bug, r->spec->id, want, cml_tech_kind_name(r->spec->tech[bad].kind),
                r->spec->tech[bad].what, cml_tech_state_name(r->tech[bad].state),
                r->tech[bad].detail);
}

START_TEST(planted_static_checks_agree_with_expect)
{
    static planted_bug bugs[MAX_BUGS];
    static cml_task_result results[CML_MAX_TASKS];
    int n = planted_find(test_path("tests/planted"), bugs, MAX_BUGS), judged = 0;
    char msg[4096] = "", path[CML_PATH];
    for (int b = 0; b < n; b++) {
        const cml_lab_spec *spec = variant_lab(bugs[b].lab);
        cml_fmt(path, sizeof path, "%s/EXPECT", bugs[b].dir);
        char *expect = cml_read_text(path, 1 << 16, NULL);
        if (expect && statically_judged(spec, expect)) {
            check_planted(spec, bugs[b].dir, results);
            for (int k = 0; k < spec->ntasks; k++)
                judge(bugs[b].dir + strlen(test_root()) + 1, &results[k], expect, msg,
                      sizeof msg);
            judged++;
        }
        free(expect);
    }
    ck_assert_msg(judged >= 8 && msg[0] == '\0', "%d planted submissions judged:%s", judged,
                  msg);
}
END_TEST

/* Adds the planted corpus's static verdicts to the variants suite. */
void variants_planted_add(TCase *tc)
{
    tcase_add_test(tc, planted_static_checks_agree_with_expect);
}
