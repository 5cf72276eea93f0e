/* The test runner's loop (tests/check_main.c): the suites one after another, each in its own
 * Check runner, with a line as each starts and ends, so a long `make check` shows where it is. */
#ifndef CML_TESTS_CHECK_RUNNER_H
#define CML_TESTS_CHECK_RUNNER_H

#include <check.h>
#include <stdio.h>

/* A suite and the name its suite_create gives it (Check has no getter for it). */
typedef struct {
    const char *name;
    Suite *(*make)(void);
} runner_suite;

/* Runs list[0..n) in order, honouring CK_RUN_SUITE (a suite of another name is left out,
 * with no line) and Check's other variables (CK_RUN_CASE, CK_INCLUDE_TAGS, CK_FORK). Writes
 * to progress, flushed at once: "[ k/n] name ..." as suite k starts, then a line per failure
 * ("file:line:F:tcase: why", E for an error), then "[ k/n] name: T tests, F failed, S.s s (total S.s s)". Check's own
 * output only with CK_VERBOSITY set. Adds the tests run and failed to *run and *failed. */
void runner_run(const runner_suite *list, int n, FILE *progress, int *run, int *failed);

#endif /* CML_TESTS_CHECK_RUNNER_H */
