/* The hint a report shows for a task: the lecture note and the spec's words, or, for a forged
 * record, what the grader verifies instead. */
#include "report.h"

/* Contract in report.h. One comparison of the status, here, for every report. */
void cml_task_hint(const cml_task_result *r, const char *note, const char **where,
                   const char **text)
{
    *where = note && note[0] ? note : "lecture notes";
    *text = r->spec ? r->spec->hint : "";
    if (r->status == CML_STATUS_TAMPERED) {
        *where = "how grading works";
        *text = "every output is verified by the grader against its own CPU reference, only "
                "verified cases are timed, and the grader counts the bytes a case moves: "
                "records written by the lab process are claims that earn nothing on their "
                "own. Finish the kernels and let the harness report them.";
    }
}
