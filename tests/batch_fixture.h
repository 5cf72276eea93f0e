/* What tests/test_batch*.c and tests/test_calibration_cli.c share: a fake repository (fake_root.c) in
 * `root`, student folders under `sub`, a batch's output folder `out`, and the CLI. */
#ifndef CML_TESTS_BATCH_FIXTURE_H
#define CML_TESTS_BATCH_FIXTURE_H

#include "batch.h"
#include "cml.h"
#include "util.h"

extern char root[64], sub[CML_PATH], out[CML_PATH];
extern char *output; /* the last cli() call's stdout and stderr */

void batch_setup(void);    /* a fresh fake root with an empty submissions folder */
void batch_teardown(void);

/* Run a shell command line built from fmt with a and b (fixtures only); aborts on failure. */
void sh(const char *fmt, const char *a, const char *b);

/* A student folder sub/name, a copy of the fake labs/ tree; fake_cu replaces 01's file. */
void student(const char *name, const char *fake_cu);

/* build/cml-grade with args (NULL-terminated, after the program name); its exit status. */
int cli(const char *const *args);

/* out/students/name/status, or state "none". */
cml_student_status status_of(const char *name);

#endif /* CML_TESTS_BATCH_FIXTURE_H */
