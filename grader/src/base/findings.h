/* What the pipeline asks of a task's findings (cml_findings and the rest of cml_task_result,
 * cml.h) to decide what to run next, and the few ways a stage records a finding that every
 * stage shares. Never a status: the judge (judge.c) alone turns findings into one, when the
 * results are published (publish.c). Each question here is the one the judge's precedence
 * would answer the same way (tests/test_status.c holds the two side by side).
 * Depends on cml.h only. */
#ifndef CML_FINDINGS_H
#define CML_FINDINGS_H

#include "cml.h"

/* Every case of r passed, its run was not cut short and did not forge a record: what the
 * sanitizers and the trace runs need before they look at a task (a sanitizer tool's own
 * error is not counted here). */
int cml_found_cases_passed(const cml_task_result *r);
/* The cases passed and no sanitizer tool found an error: the task is solved (the judge gives
 * passed, slow or technique), so its ncu and trace checks run. */
int cml_found_solved(const cml_task_result *r);
/* The cases passed, and the speed credit is short of 1 with a time measured on both sides:
 * the judge would say slow, and a second measurement may say otherwise (time_task.c). */
int cml_found_slow(const cml_task_result *r);
/* A memory error is what failed the task: a guard region's finding, or a sanitizer tool's
 * error on a task whose cases passed (a wrong case outranks the tools). */
int cml_found_memory_error(const cml_task_result *r);
/* A guard region's finding is how the task's cases failed (no TODO before it): memcheck still
 * runs on it, to name the kernel and the line. */
int cml_found_guard_fault(const cml_task_result *r);
/* The task's cases ran here: not stopped as not built, not handed in or without a GPU (a
 * forged record says a run happened). */
int cml_found_ran(const cml_task_result *r);
/* The run reached the task's TODO stub (and was neither cut short nor forged): the harness's
 * own word, which stands wherever the run was shared. */
int cml_found_todo(const cml_task_result *r);
/* The first technique check of r that neither passed nor could not be checked, once the checks
 * ran (found.checked); -1 when none, or when they did not run. */
int cml_failed_check(const cml_task_result *r);
/* The checks of r that were due (its technique checks once it was solved, its sanitizer runs
 * once its cases passed) and did not run: the tool missing, or failing on its own. Their
 * points were kept; a course grading says so in its exit status (issue 44). */
int cml_unchecked(const cml_task_result *r);
/* The same over the labs of g graded against their reference (course mode): what makes
 * `cml-grade grade` exit 3. A practice grade's report names its unchecked checks instead. */
int cml_course_unchecked(const cml_grading *g);

/* Records that task r got no verdict of its cases (s, enum cml_stop) and why; its credit stays
 * what it was (none, for a result just zeroed). */
void cml_found_stopped(cml_task_result *r, enum cml_stop s, const char *why);
/* Records that run forged a record (its own words, else "forged a record"). */
void cml_found_tampered(cml_task_result *r, const cml_run_record *run);

#endif /* CML_FINDINGS_H */
