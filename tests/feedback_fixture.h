/* A grading built by hand for the feedback tests (test_feedback.c, test_screenshot.c): lab
 * 01_coalescing with a passed timed copy (1.1), a slow timed transpose (1.2) and a wrong
 * untimed task (1.3); lab 06_zerocopy with a timed host-link task (6.1, check saxpy). */
#ifndef CML_TESTS_FEEDBACK_FIXTURE_H
#define CML_TESTS_FEEDBACK_FIXTURE_H

#include "cml.h"

/* A fresh grading (calloc'd; its specs are static, so one fixture at a time). */
cml_grading *feedback_fixture(void);

/* The fixture's spec of lab i (0 or 1), to change a title or a hint. */
cml_lab_spec *feedback_fixture_spec(int i);

/* Strings a student controls, to put in details and logs: markup, a CDATA end, quotes, a
 * Markdown pipe, newlines, control bytes, invalid UTF-8. */
extern const char FEEDBACK_HOSTILE[];

#endif /* CML_TESTS_FEEDBACK_FIXTURE_H */
