/* Link rules: what a student's object file may define and call (docs/TRUST.md, hold 4). The
 * student's .cu is compiled alone (nvcc -c), and its object is checked with nm and objdump
 * before it is linked with the pristine harness: a definition that would replace a harness or
 * library function, a call the lab does not need, code that runs before or after main, or a
 * system call in host code is a build error that names the symbol and the rule. */
#ifndef CML_LINKRULES_H
#define CML_LINKRULES_H

#include <stddef.h>

#include "cml.h"
#include "linkrules_spec.h"

/* Outcome of cml_link_check. */
enum cml_link_result {
    CML_LINK_PASSED = 0,
    CML_LINK_NOT_ENFORCED = 1,
    CML_LINK_VIOLATED = 2, /* a violation no API function's code holds: the lab is not linked */
    CML_LINK_SOME_API = 3  /* every violation sits in code some API functions reach: the lab
                              is linked, and only the tasks that call those functions fail */
};

/* The functions refused calls are redirected to before the link (common/cml_lab.cpp), one
 * per refused symbol of an object (objcopy maps no two symbols to one name): "<prefix><k>",
 * k < CML_LINK_TRAPS. A refused call that a path the rules could not see still reaches ends
 * the run there. An object with more refused symbols costs its whole lab. */
#define CML_LINK_TRAP "cml_link_refused_"
/* What a student object's getenv becomes: the harness's answer from one environment, the
 * same in graded and tool runs (common/cml_lab.cpp) */
#define CML_STUDENT_GETENV "cml_student_getenv"
#define CML_LINK_TRAPS 32

/* What cml_link_check found; each field malloc'd or NULL (cml_link_outcome_free). */
typedef struct {
    char *report; /* one "link rule: ..." line per violation, then notes (what was not enforced,
                     what was made file-local) */
    char *by_api; /* CML_LINK_SOME_API: "<api function> <violation line>" per API function
                     whose code reaches a violation */
    char *edits;  /* "<object> <objcopy option> <argument>" lines, applied to a copy of each
                     student object that is linked: --redefine-sym S=<a trap> for a refused
                     call, --localize-symbol S for a global definition no other file uses */
} cml_link_outcome;

void cml_link_outcome_free(cml_link_outcome *o);

/* Check the student objects of a staged folder. student_cu[i] is a student source relative to
 * dir, compiled to <base>.o beside it with nvcc --keep --keep-dir <keep_dir> (relative to dir);
 * pristine_o are the harness and common objects (relative to dir). Returns a cml_link_result
 * and fills *out (NOT_ENFORCED: no link.rules loaded, or nm/objdump missing, and the report
 * says so). */
int cml_link_check(const cml_link_rules *r, const char *dir, char *const *student_cu,
                   int nstudent, char *const *pristine_o, int npristine, const char *keep_dir,
                   cml_link_outcome *out);

/* The edits of cml_link_check's outcome for student object obj (relative to dir) applied with
 * objcopy into dir/linked. 1 when applied, 0 when obj has none (link it as it is), -1 with
 * why (objcopy missing or failed). */
int cml_link_apply(const char *edits, const char *dir, const char *obj, const char *linked,
                   char *why, size_t whylen);

#endif /* CML_LINKRULES_H */
