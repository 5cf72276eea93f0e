/* What a task's failed cases showed, once verified: the facts (enum cml_fault) the judge's
 * table turns into a status, and the words of the first failure. */
#include "verify.h"

#include <string.h>

/* Index of the first case that did not pass, or -1. */
static int first_failure(const cml_task_result *r)
{
    for (int i = 0; i < r->spec->ncases; i++)
        if (!r->cases[i].passed)
            return i;
    return -1;
}

/* Whether a failed case's record is a guard region's finding: the kernels touched memory
 * outside the case's buffers (common/cml_guard.cpp), which faults ("illegal address") or
 * changes a canary. Found where the run itself ended it: no kernel can unsay a fault. */
static int guard_fault(const cml_case_record *c)
{
    return c && c->status == CML_CASE_ERROR && (strstr(c->msg, "cudaErrorIllegalAddress") ||
                                                strncmp(c->msg, "guard region:", 13) == 0);
}

/* Contract in verify.h. What the failed cases of r showed, as enum cml_fault bits (WRONG always):
 * the student's run reached a TODO of this task, its kernels touched memory outside their buffers,
 * the harness reported another CUDA error, a failed case has no result from a run that never said
 * `done`. Which of them names the status is the judge's table. */
unsigned cml_case_faults(const cml_task_result *r, const cml_run_record *run)
{
    const char *id = r->spec->id;
    size_t idlen = strlen(id);
    unsigned f = CML_FAULT_WRONG;
    int missing = 0;
    for (int i = 0; run && i < run->ntodos; i++)
        if (strncmp(run->todos[i], id, idlen) == 0 && run->todos[i][idlen] == ':')
            f |= CML_FAULT_TODO;
    for (int i = 0; i < r->spec->ncases; i++) {
        const cml_case_record *c = run && i < run->ncases ? &run->cases[i] : NULL;
        if (c && c->status == CML_CASE_TODO)
            f |= CML_FAULT_TODO;
        if (!r->cases[i].passed && c && c->status == CML_CASE_ERROR)
            f |= guard_fault(c) ? CML_FAULT_GUARD : CML_FAULT_ERROR;
        missing |= !r->cases[i].passed && (!c || c->status == CML_CASE_MISSING);
    }
    return f | (missing && !(run && run->done) ? CML_FAULT_NO_RESULT : 0);
}

/* Contract in verify.h. The first failing case's reason ("case n=4097: ..."; TODOs as they are)
 * into buf; "" when every case passed. */
void cml_failure_words(const cml_task_result *r, char *buf, size_t len)
{
    int f = first_failure(r);
    const char *reason = f < 0 ? "" : r->cases[f].reason[0] ? r->cases[f].reason : "failed";
    if (f < 0 || strncmp(reason, "TODO(", 5) == 0)
        snprintf(buf, len, "%s", reason);
    else
        snprintf(buf, len, "case %s: %s", r->spec->cases[f].text, reason);
}
