/* Output capture and waiting for a child, for run.c: the pipe read up to a cap (the rest drained
 * and counted), the child watched through a pidfd until it exits or a deadline passes. */
#ifndef CML_RUN_CAPTURE_H
#define CML_RUN_CAPTURE_H

#include <stddef.h>
#include <sys/types.h>

#include "run.h"

/* Captured output: the first `cap` bytes kept, the rest counted. */
typedef struct {
    char *buf;
    size_t len, alloc, cap, dropped;
} capture;

void cml_capture_bytes(capture *c, const char *data, size_t n);
/* Read what is there; 0 on end of file, 1 when more may come. */
int cml_read_some(int fd, capture *c);
/* Whether pid has exited (left unreaped). */
int cml_child_has_exited(pid_t pid);
/* A pidfd for pid, or -1 where the kernel has none. */
int cml_open_pidfd(pid_t pid);
/* Poll the output pipe (and the child's pidfd) until the child exits or the deadline, or the
 * caller's hook (NULL: none; asked every 100 ms) says stop, which sets *stopped. Returns 1 when
 * the deadline passed. The child is left unreaped (a zombie holds its pgid). */
int cml_watch(pid_t pid, int out_r, double deadline, const cml_watch_hook *hook, int *stopped,
              capture *c);
/* Kill the group (stray grandchildren too), keep what is left in the pipe, reap. */
void cml_finish(pid_t pid, int out_r, capture *c, int *status);

#endif /* CML_RUN_CAPTURE_H */
