/* A batch's grading processes (batch_child.c). */
#ifndef CML_BATCH_CHILD_H
#define CML_BATCH_CHILD_H

#include <sys/types.h>

#include "batch.h"

/* Start this program with args (NULL-terminated, after argv[0]) in a process group of its
 * own, CUDA_VISIBLE_DEVICES=gpu when gpu is not empty, stdout and stderr into log_path.
 * The child's pid, or -1. */
pid_t cml_child_start(char *const args[], const char *gpu, const char *log_path);

/* cml_child_start, then wait for it: its wait status (waitpid's), or -1 when it could not
 * start. */
int cml_child_run(char *const args[], const char *gpu, const char *log_path);

/* How a grading child ended (waitpid's status; timed_out when the batch killed it), read with
 * its log: `graded` with the log's Score line, else error, killed or timeout with why. */
void cml_child_status(int wstatus, int timed_out, const char *log_path, double timeout_s,
                      cml_student_status *s);

#endif /* CML_BATCH_CHILD_H */
