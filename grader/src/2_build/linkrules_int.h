/* Internal to the link rules: the state of one check, shared by linkrules.c (symbols, calls),
 * linkrules_ctors.c (constructors) and linkrules_asm.c (host assembly). */
#ifndef CML_LINKRULES_INT_H
#define CML_LINKRULES_INT_H

#include "linkrules.h"
#include "linkrules_obj.h"

#define LR_MAX_LINES 40 /* violations listed; the rest are counted */
#define LR_MAX_ORIGINS 16 /* functions that make one refused call, kept to find its tasks */

typedef struct {
    const cml_link_rules *r;
    const lr_object *student;   /* every student object of the build */
    int nstudent;
    const lr_object *pristine;  /* harness and common objects */
    int npristine;
    const char *obj;            /* the object being checked, for messages */
    char *ptx;                  /* its PTX (kernel names), or NULL */
    const char *dir, *keep_dir, *cu; /* its build folder, nvcc's kept files, its source */
    char *log;                  /* violations, one line each (malloc'd) */
    size_t len;
    int nsaid;
    char *notes;                /* what was not enforced (malloc'd) */
    char *calls;                /* "caller target" lines of every student object (malloc'd) */
    int whole;                  /* violations that cost the whole lab */
    int ntraps;                 /* refused symbols of the object being checked */
    char *by_api;               /* "<api> <line>" per API function reaching a violation */
    size_t by_api_len;
    char *edits;                /* "<object> <option> <argument>" lines (linkrules.h) */
    size_t edits_len;
} lr_ctx;

/* One violation line "link rule: <obj> <text>" that costs the whole lab. */
void lr_say(lr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One violation line held by the functions `origins` of the object being checked: it costs
 * the tasks of the API functions that reach one of them, or the whole lab when none does. */
void lr_say_from(lr_ctx *c, char (*origins)[256], int norigins, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* One line of c->edits: the object being checked gets `option` before it is linked. */
void lr_edit(lr_ctx *c, const char *option, const char *sym);

/* linkrules_reach.c: the API functions (link_api names, space-separated, each once) whose
 * code reaches one of the functions `origins`, along c->calls; "" when none does. */
void lr_reachers(const lr_ctx *c, char (*origins)[256], int norigins, char *buf, size_t len);
/* linkrules_reach.c: names[0..n) (n <= LR_MAX_DEMANGLE) as the source spells them, by one
 * c++filt run (binutils, beside nm and objdump; $CML_CXXFILT): `_ZN5tally8launchesE` ->
 * `tally::launches`; a name it leaves alone, or no c++filt, is copied as it is. */
#define LR_MAX_DEMANGLE 16
void lr_demangle(char *const *names, int n, char (*out)[256]);
/* One note line (not a violation). */
void lr_note(lr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* linkrules_ctors.c: the constructors rule on o (built from cu in dir, nvcc's kept files in
 * keep_dir): what .init_array & co. run, who registers an exit hook. */
void lr_check_outside_main(lr_ctx *c, const lr_object *o, const char *dir, const char *keep_dir,
                           const char *cu);

/* linkrules_globals.c: for a function fn of o that an init table runs, one constructors-rule
 * line per global object of the student's it builds or registers, by its name in the source
 * and its line there, with `why` its building was refused (the first thing found that is not
 * the standard library's construction); how many were said (0: none found, the caller says
 * what fn is). */
int lr_say_globals(lr_ctx *c, const lr_object *o, const char *fn, const char *dir,
                   const char *keep_dir, const char *cu, const char *why);

/* linkrules_asm.c: system-call instructions in o's host code; asm statements in the host-side
 * translation <dir>/<keep_dir>/<base of cu>.cudafe1.cpp. */
void lr_check_instructions(lr_ctx *c, const lr_object *o);
void lr_check_asm_source(lr_ctx *c, const char *dir, const char *keep_dir, const char *cu);

/* nvcc's host-side translation of cu (<dir>/<keep_dir>/<base>.cudafe1.cpp) into path. */
int lr_host_translation(const char *dir, const char *keep_dir, const char *cu, char *path,
                        size_t len);
/* Calls fn on each line of the host translation at path that comes from cu itself (line
 * markers; not inside `#if 0`, where nvcc puts device function bodies): its line number in cu,
 * the line, and the line with comments and literals blanked. A nonzero return stops. -1 when
 * the file cannot be read. */
typedef int (*lr_host_line_fn)(void *arg, long lineno, const char *line, const char *blanked);
int lr_host_lines(const char *path, const char *cu, lr_host_line_fn fn, void *arg);

#endif /* CML_LINKRULES_INT_H */
