/* The verification of one task's cases after a run (the first measurement's and a second
 * look's alike): each case's output file, and its sampled timed repetitions. */
#include "util.h"
#include "verify.h"

/* Contract in verify.h. */
int cml_case_verified(const cml_task_spec *t, int ci, uint64_t seed, const char *file,
                    const cml_case_record *rec, cml_rep_check *reps, cml_case_verdict *v)
{
    cml_case_verdict ignored;
    const int ok = cml_verify_case(t, &t->cases[ci], seed, file, rec, v);
    return cml_reps_end(reps, rec, ok ? v : &ignored) && ok;
}

/* Contract in verify.h. */
void cml_task_cases_verified(const cml_task_spec *t, const char *dir, int k0, uint64_t seed,
                             const cml_case_record *cases, cml_rep_check **reps,
                             cml_task_result *r)
{
    char file[CML_PATH];
    for (int c = 0; c < t->ncases; c++) {
        cml_fmt(file, sizeof file, "%s/case%d.bin", dir, k0 + c);
        r->cases_passed += cml_case_verified(t, c, seed, file, &cases[c], reps[c], &r->cases[c]);
    }
}
