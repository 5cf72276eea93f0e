/* The kinds of technique check, one row each: its name in specs and reports, what it reads, and
 * the function that checks it. A new kind is a row here and its check (and its spec line,
 * 0_spec/spec_technique.c); the phase (technique_phase.c), the judge and the reports read only
 * this table. */
#include "technique_run.h"

/* In enum cml_tech_kind's order. */
static const cml_tech_kind_row KINDS[] = {
    [CML_TECH_PTX] = { "ptx", CML_TECH_READS_BUILD, cml_tech_code },
    [CML_TECH_SASS] = { "sass", CML_TECH_READS_BUILD, cml_tech_code },
    [CML_TECH_FORBID] = { "forbid", CML_TECH_READS_BUILD, cml_tech_forbid },
    [CML_TECH_NCU] = { "ncu", CML_TECH_MEASURES_RUN, cml_tech_ncu },
    [CML_TECH_TRACE] = { "trace", CML_TECH_MEASURES_RUN, cml_tech_trace },
    [CML_TECH_PROBE] = { "probe", CML_TECH_READS_BUILD, cml_tech_probe },
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
