/* The technique verdict on one task (grade_technique.h): the text checks of 2_static, ncu and
 * trace runs of 4_run, then the award. Above both, so that neither folder calls the other's
 * way back. */
#include "grade_technique.h"
#include "evidence.h"
#include "gpu_lock.h"
#include "sandbox.h"
#include "score.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether the evidence still has the digest taken at build time (no digest: nothing to hold it
 * to, as in the tests that write evidence by hand). */
static int evidence_intact(const cml_technique_env *env)
{
    return !env->ev_dir || !env->ev_digest || !env->ev_digest[0] ||
           cml_evidence_unchanged(env->ev_dir, env->ev_digest);
}

/* Contract in grade_technique.h. */
void cml_technique_task(const cml_lab_spec *spec, const cml_task_spec *t,
                        const cml_technique_env *env, cml_task_result *r)
{
    int solved = (cml_status_earns(r->status) & CML_PART_TECHNIQUE) != 0; /* passed, slow */
    int intact = evidence_intact(env);
    if (env->ncu)
        cml_ncu_task_forget(env->ncu);
    for (int i = 0; i < t->ntech && i < CML_MAX_TECH; i++) {
        const cml_tech_spec *c = &t->tech[i];
        cml_tech_result *out = &r->tech[i];
        memset(out, 0, sizeof *out);
        int text = c->kind == CML_TECH_PTX || c->kind == CML_TECH_SASS ||
                   c->kind == CML_TECH_FORBID;
        if (text && !intact)
            out->state = CML_TECH_FAILED,
                snprintf(out->detail, sizeof out->detail, "the build's evidence (PTX, SASS, "
                         "sources) changed after the build: refused");
        else if (c->kind == CML_TECH_PTX || c->kind == CML_TECH_SASS)
            cml_tech_code(spec, c, env, out);
        else if (c->kind == CML_TECH_FORBID)
            cml_tech_forbid(spec, c, env, out);
        else if (!env->bin)
            snprintf(out->detail, sizeof out->detail, "not checked (no GPU)"),
                out->state = CML_TECH_NOT_CHECKED;
        else if (!solved)
            snprintf(out->detail, sizeof out->detail, "not run: %s",
                     r->status == CML_STATUS_SANITIZER ? "a sanitizer found an error in the task"
                                                       : "a case of the task failed");
        else if (c->kind == CML_TECH_TRACE)
            cml_tech_trace(spec, c, t, env, out);
        else
            cml_tech_ncu(c, t, env, out);
    }
    if (env->ncu)
        cml_ncu_task_forget(env->ncu);
    if (!solved || t->ntech == 0)
        return;
    r->found.checked = 1;
    r->credit.technique = cml_failed_check(r) < 0;
    cml_judge(r); /* a failed check makes it `technique` */
}
