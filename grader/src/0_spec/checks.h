/* The grader's CPU references ("checks"): what each `check` name of a spec means. One table entry
 * per name: the output's length for a case (the spec reader asks it whether a case gives the
 * check what it needs), the expected output from the seeded inputs (4_verify compares the lab's
 * output with it), and the bytes the case must move (5_time's bounds). They sit with the spec
 * reader because every later stage reads them and none of them reads a later stage.
 * Depends on cml.h (the spec and case types). */
#ifndef CML_CHECKS_H
#define CML_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "cml.h"

/* checks.c: the bytes case c of task t must move (read + written, or over the host
 * link), by the grader's own count from the task's check and the case's parameters; the
 * lab's `bytes=` claim is never used. 0 for an unknown check or a case it cannot size. */
uint64_t cml_case_bytes(const cml_task_spec *t, const cml_case_spec *c);

/* One CPU reference. To add a check, write its two functions and add a row to the
 * table of its lab's file (checks*.c). Every output element is a 32-bit float. */
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
     * the bound a time is held to (speed.c); NULL for a device check. */
    void (*link)(const cml_case_spec *c, uint64_t *h2d, uint64_t *d2h);
} cml_check;

/* The tables of the labs' own checks (checks_*.c), each ended by a row whose name is NULL;
 * checks.c lists them. */
extern const cml_check cml_checks_shared[], cml_checks_vector[], cml_checks_particles[],
    cml_checks_host[];

/* checks_vector.c: whether check chk copies an input through to every `period`-th output
 * element from `lane` (points4's w): 1 with both set, else 0. Those elements are compared bit
 * for bit whatever the task's tolerance, and any bits pass when equal (a NaN's payload, the
 * sign of a zero): the sheet says "copied unchanged" (issue 44). */
int cml_check_passthrough(const cml_check *chk, uint64_t *period, uint64_t *lane);

/* The entry named `name`, or NULL when no such check exists. */
const cml_check *cml_check_find(const char *name);

/* checks_size.c: a * b, or UINT64_MAX when it overflows (a size no case has). */
uint64_t cml_mul_sat(uint64_t a, uint64_t b);

/* Every check name, comma-separated, into buf (truncated to len): "copy, transpose, ...". */
void cml_check_names(char *buf, size_t len);

#endif /* CML_CHECKS_H */
