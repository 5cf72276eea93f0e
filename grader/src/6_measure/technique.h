/* Technique checks: after a task is scored, prove how it was solved. ptx and forbid need no GPU
 * (the PTX and source the build kept, evidence.h); sass needs cuobjdump; ncu runs the
 * student's lab binary under Nsight Compute (compute-sanitizer is not a technique check: it
 * runs on every solved task, sanitize.h). What the grader's
 * environment cannot check (no GPU, tool missing, no permission) is "not checked" and awarded:
 * a student never loses points for the machine that grades them. */
#ifndef CML_TECHNIQUE_H
#define CML_TECHNIQUE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cml.h"
#include "util.h" /* CML_PATH */

#include <regex.h>

/* Where the checks find what they inspect. */
typedef struct {
    const char *ev_dir;    /* the build's evidence folder (evidence.h): sources, PTX, SASS.
                              NULL: none (test binaries), ptx/sass/forbid not checked */
    const char *ev_digest; /* its digest when collected: evidence that changed is refused */
    const char *bin;      /* the student's lab binary for ncu (and the sanitizers, sanitize.h);
                             NULL: no GPU */
    int cc;               /* compute capability the PTX and cubins are built for */
    uint64_t seed;
    const char *work_dir; /* where the tools run */
    double timeout_s;     /* one run of the lab binary (the tools get a multiple) */
    struct cml_ncu_runs *ncu; /* the ncu runs the lab's checks share; NULL: each runs alone */
    const char *tool_tmp; /* the TMPDIR the ncu runs of one phase share, so that ncu's lock
                             keeps their profiling apart; NULL: each run's own folder */
    const struct cml_trace_run *traced; /* trace runs made before the checks (the sanitizer
                                           phase's), ntraced of them; a check whose case is
                                           not among them runs its own */
    int ntraced;
    const double *case_ms; /* the task's timed cases' times (cml_task_result.case_ms, set per
                              task by cml_technique_task); NULL: none */
} cml_technique_env;

/* Every kind's check has one shape (technique_kinds.c's rows): check c of task t of lab spec,
 * from env, into out. */
typedef void cml_tech_check(const cml_lab_spec *spec, const cml_task_spec *t,
                            const cml_tech_spec *c, const cml_technique_env *env,
                            cml_tech_result *out);

/* ptx or sass check c: a line of the student's code (of the kernel c->scope, when set, which
 * host code must launch) matches; into out. */
cml_tech_check cml_tech_code;

/* technique_kinds.c: one row per kind of technique check. A check that reads the build's
 * evidence (PTX, SASS, sources) runs with or without a GPU and is refused when that evidence
 * changed; one that measures a run (ncu, trace) runs only on a solved task, with a GPU, and its
 * report shows the metric and its bounds. */
enum cml_tech_reads { CML_TECH_READS_BUILD, CML_TECH_MEASURES_RUN };
typedef struct {
    const char *name;          /* in the spec and the reports: "ptx", "ncu", ... */
    enum cml_tech_reads reads;
    cml_tech_check *check;
} cml_tech_kind_row;
/* Kind k's row; a row named "?" that checks nothing for a value outside the enum. */
const cml_tech_kind_row *cml_tech_kind(enum cml_tech_kind k);
/* Its name ("ptx", "sass", "forbid", "ncu", "trace"); "passed", "FAILED", "not checked",
 * "not run" for a state. */
const char *cml_tech_kind_name(enum cml_tech_kind k);
const char *cml_tech_state_name(enum cml_tech_state s);

/* ---- the parts, exposed for the tests ---- */

/* The evidence file <file><ext> (technique.c), or NULL with why; never built here. */
char *cml_tech_evidence(const cml_technique_env *env, const char *file, const char *ext,
                        char *why, size_t wlen);

/* source_check.c: forbid, on the file as compiled and on which other student file's functions
 * it calls. */
cml_tech_check cml_tech_forbid;

/* probe_check.c: probe check c, from the outcome the build recorded (evidence_probe.c). */
cml_tech_check cml_tech_probe;

/* source_check.c: the lines of `file` in the preprocessed text `ii` (nvcc's .cpp1.ii), every
 * other line left empty so that line k of the result is line k of ii, string and character
 * literals blanked. (*linenos)[k - 1] is the source line number of line k (0 for a marker).
 * Both malloc'd; NULL when out of memory. */
char *cml_own_text(const char *ii, const char *file, long **linenos);

/* The first line of text matching the POSIX ERE `pattern` into found (trimmed, capped);
 * with a non-empty scope, only lines of the kernel named exactly `scope` (its mangled name,
 * not a substring: "copyVector4" is not "copyVector4Fast") and of the functions it calls,
 * transitively (a __noinline__ helper's lines are its kernel's work): a function runs from
 * its header (PTX ".entry" or ".func", SASS "Function :") to the next. 1 found, 0 not, -1 bad
 * pattern or out of memory. *line_no gets the 1-based line when not NULL. */
int cml_tech_find(const char *text, const char *pattern, const char *scope, char *found,
                  size_t len, int *line_no);

/* Line line[0..n) as a check quotes it, into found (len bytes at most, always terminated):
 * leading blanks dropped, each run of blanks one space. */
void cml_tech_quote_line(const char *line, size_t n, char *found, size_t len);

/* calls_check.c: walk one object's .calls evidence ("caller target" lines) from `function`
 * (a C name, the top-level name of a C++ symbol, or a whole symbol), into every function of
 * the same object it calls, any number deep: 1 with "f refers to g" into found when a
 * reference matches re (as the symbol, or as "symbol(" the way source shows a call), else 0;
 * *seen gets how many functions were followed. */
int cml_calls_reach(const char *text, const char *function, const regex_t *re, char *found,
                    size_t flen, int *seen);

#endif /* CML_TECHNIQUE_H */
