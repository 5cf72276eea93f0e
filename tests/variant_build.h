/* Variant builds for the static technique checks (tests/variant_build.c): a lab's solution with
 * one piece of text replaced, compiled by nvcc through build.c with its evidence, then checked
 * as a task whose cases all passed. Shared by test_variants.c and test_variants_calls.c. */
#ifndef CML_TESTS_VARIANT_BUILD_H
#define CML_TESTS_VARIANT_BUILD_H

#include "cml.h"

/* The shipped specs, loaded by variants_load(); the result of the last check. */
extern cml_lab_spec variant_specs[CML_MAX_LABS];
extern int variant_nspecs;
extern cml_task_result variant_r;

/* Load the shipped specs (a message on stderr when they cannot be loaded). */
void variants_load(void);

/* The spec of the lab whose name starts with prefix; aborts the test when there is none. */
const cml_lab_spec *variant_lab(const char *prefix);

/* Lab `prefix`'s solution with `head` put at the top of `file` and `find` there replaced by
 * `repl`, built and checked as task `task`: the states land in variant_r. */
void check_variant_with(const char *prefix, const char *file, const char *head,
                        const char *find, const char *repl, const char *task);
void check_variant(const char *prefix, const char *file, const char *find, const char *repl,
                   const char *task);

/* The planted submission in bug_dir (tests/planted/<lab>/<bug>) built, and the static checks
 * of every task of spec run on it as if every case had passed: into results[k] for task k. */
void check_planted(const cml_lab_spec *spec, const char *bug_dir, cml_task_result *results);

/* Every check of kind k in the task ended in state `want`; at least one was there. */
void assert_kind(enum cml_tech_kind k, enum cml_tech_state want);
/* The detail of the task's first check of kind k ("" when it has none). */
const char *kind_detail(enum cml_tech_kind k);

#endif /* CML_TESTS_VARIANT_BUILD_H */
