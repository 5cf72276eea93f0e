/* Internal to the link rules: the state of one check, shared by linkrules.c (symbols, calls,
 * constructors) and linkrules_asm.c (host assembly). */
#ifndef CML_LINKRULES_INT_H
#define CML_LINKRULES_INT_H

#include "linkrules.h"
#include "linkrules_obj.h"

#define LR_MAX_LINES 40 /* violations listed; the rest are counted */

typedef struct {
    const cml_link_rules *r;
    const lr_object *student;   /* every student object of the build */
    int nstudent;
    const lr_object *pristine;  /* harness and common objects */
    int npristine;
    const char *obj;            /* the object being checked, for messages */
    char *ptx;                  /* its PTX (kernel names), or NULL */
    char *log;                  /* violations, one line each (malloc'd) */
    size_t len;
    int nsaid;
    char *notes;                /* what was not enforced (malloc'd) */
} lr_ctx;

/* One violation line "link rule: <obj> <text>". */
void lr_say(lr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One note line (not a violation). */
void lr_note(lr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* linkrules_asm.c: system-call instructions in o's host code; asm statements in the host-side
 * translation <dir>/<keep_dir>/<base of cu>.cudafe1.cpp. */
void lr_check_instructions(lr_ctx *c, const lr_object *o);
void lr_check_asm_source(lr_ctx *c, const char *dir, const char *keep_dir, const char *cu);

#endif /* CML_LINKRULES_INT_H */
