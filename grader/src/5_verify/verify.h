/* The grader's CPU references ("checks"): one table entry per check name in a spec.
 * verify.c compares a lab's output file with what the entry says it must hold;
 * spec.c asks it whether a check exists and whether a case gives it what it needs.
 * Depends on cml.h (the spec, record and verdict types). */
#ifndef CML_VERIFY_H
#define CML_VERIFY_H

#include "cml.h"

/* verify.c: regenerate the inputs from the seed, compute the expected output of task `t`'s
 * case `c` on the CPU and compare it with the file the lab wrote. Fills v; returns v->passed. */
int cml_verify_case(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed,
                    const char *out_file, const cml_case_record *rec, cml_case_verdict *v);

/* verify_reps.c: a sample of the timed repetitions of case c (index k in its run), each
 * recomputed from its own seed (cml_rep_seed(seed, k, r)) and compared with the evidence the
 * harness reported. cml_reps_begin, before the run, draws repetitions among the first ten from
 * the grader's own random source and computes them on low-priority threads beside the run
 * (NULL for an untimed case); cml_reps_end, after it, draws more where fewer of those ran or
 * more ran, computes them, compares, and frees h: 1 when all sampled match, else 0 with v
 * failed and why. */
typedef struct cml_rep_check cml_rep_check;
cml_rep_check *cml_reps_begin(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed,
                              int k);
int cml_reps_end(cml_rep_check *h, const cml_case_record *rec, cml_case_verdict *v);
/* How many repetitions of a timed case are verified: $CML_VERIFY_REPS (1..50), default 6
 * (all of them when fewer ran). */
int cml_verify_reps_sample(void);

/* verify_checks.c: the bytes case c of task t must move (read + written, or over the host
 * link), by the grader's own count from the task's check and the case's parameters; the
 * lab's `bytes=` claim is never used. 0 for an unknown check or a case it cannot size. */
uint64_t cml_case_bytes(const cml_task_spec *t, const cml_case_spec *c);

/* One CPU reference. To add a check, write its two functions and add a row to the
 * table of its lab's file (verify_checks*.c). Every output element is a 32-bit float. */
typedef struct {
    const char *name;     /* as written after `check` in a spec */
    const char *needs;    /* the case keys it reads, for messages: "n", "rows,cols" */
    /* Output length of case c in elements; 0 with a message in err when c lacks what the
     * check needs (or the sizes overflow). */
    uint64_t (*out_elems)(const cml_case_spec *c, char *err, size_t errlen);
    /* Expected output elements [first, first + count) into dst, from the seeded inputs. */
    void (*expect)(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                   float *dst);
    /* Optional: where output index i comes from, for a mismatch message (" (row 3, ...)"). */
    void (*where)(const cml_case_spec *c, uint64_t i, char *buf, size_t len);
    /* Optional: the bytes case c must move, as its lab's harness counts them (the grader's
     * count, cml_case_bytes); NULL: every output element read once and written once, 8 bytes
     * per element. */
    uint64_t (*bytes)(const cml_case_spec *c);
    /* Host-involved checks (labs 06, 07): what case c must carry over the host link each way,
     * the bound a time is held to (score.c); NULL for a device check. */
    void (*link)(const cml_case_spec *c, uint64_t *h2d, uint64_t *d2h);
} cml_check;

/* The tables of the labs' own checks (verify_checks_*.c), each ended by a row whose name is
 * NULL; verify_checks.c lists them. */
extern const cml_check cml_checks_shared[], cml_checks_vector[], cml_checks_particles[],
    cml_checks_host[];

/* The entry named `name`, or NULL when no such check exists. */
const cml_check *cml_check_find(const char *name);

/* a * b, or UINT64_MAX when it overflows (a size no case has). */
uint64_t cml_mul_sat(uint64_t a, uint64_t b);

/* Every check name, comma-separated, into buf (truncated to len): "copy, transpose, ...". */
void cml_check_names(char *buf, size_t len);

#endif /* CML_VERIFY_H */
