/* The kinds of technique check, one row each: its name in specs and reports, what it reads, and
 * the function that checks it. A new kind is a row here and its check (and its spec line,
 * 0_spec/spec_technique.c); the phase (technique_phase.c), the judge and the reports read only
 * this table. */
#include "technique_run.h"

/* Every kind's check has one shape: the text checks ignore the task, ncu its lab. */
static void ptx_or_sass(const cml_lab_spec *spec, const cml_task_spec *t,
                        const cml_tech_spec *c, const cml_technique_env *env,
                        cml_tech_result *out)
{
    (void)t;
    cml_tech_code(spec, c, env, out);
}

static void forbid(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                   const cml_technique_env *env, cml_tech_result *out)
{
    (void)t;
    cml_tech_forbid(spec, c, env, out);
}

static void ncu(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                const cml_technique_env *env, cml_tech_result *out)
{
    (void)spec;
    cml_tech_ncu(c, t, env, out);
}

static void trace(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                  const cml_technique_env *env, cml_tech_result *out)
{
    cml_tech_trace(spec, c, t, env, out);
}

/* In enum cml_tech_kind's order. */
static const cml_tech_kind_row KINDS[] = {
    [CML_TECH_PTX] = { "ptx", CML_TECH_READS_BUILD, ptx_or_sass },
    [CML_TECH_SASS] = { "sass", CML_TECH_READS_BUILD, ptx_or_sass },
    [CML_TECH_FORBID] = { "forbid", CML_TECH_READS_BUILD, forbid },
    [CML_TECH_NCU] = { "ncu", CML_TECH_MEASURES_RUN, ncu },
    [CML_TECH_TRACE] = { "trace", CML_TECH_MEASURES_RUN, trace },
};

/* Contract in technique.h. */
const cml_tech_kind_row *cml_tech_kind(enum cml_tech_kind k)
{
    static const cml_tech_kind_row unknown = { "?", CML_TECH_READS_BUILD, NULL };
    return (unsigned)k < sizeof KINDS / sizeof KINDS[0] && KINDS[k].check ? &KINDS[k]
                                                                           : &unknown;
}

/* Contract in technique.h. */
const char *cml_tech_kind_name(enum cml_tech_kind k)
{
    return cml_tech_kind(k)->name;
}
