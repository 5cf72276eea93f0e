/* The GPU lock (gpu_lock.c): a file lock the gradings of one GPU share (a batch runs two at a
 * time), held around every run that uses the GPU. Below the pipeline's stages that run the GPU
 * (the probe, lab runs, ncu, the sanitizers) and the class commands that set it up. */
#ifndef CML_GPU_LOCK_H
#define CML_GPU_LOCK_H

#include <stdio.h>

/* Lock the file at path (created if missing) for this process, waiting as long as another
 * holds it; the descriptor to pass to cml_gpu_unlock, or -1 (no path, or it cannot be opened:
 * a warning on progress, and the grading goes on unlocked). */
int cml_gpu_lock(const char *path, FILE *progress);
void cml_gpu_unlock(int fd);

/* The lock a grading holds around each run that uses the GPU (a lab run, ncu, the sanitizer
 * phase, the probe), so that another grading of the same GPU (a batch runs two) builds,
 * verifies and checks on the CPU meanwhile, but never runs on the GPU at the same time.
 * cml_gpu_hold_path sets the file (NULL: no lock, the default); hold and release nest within
 * a group of threads, and groups take turns: a thread's group is 0 unless cml_gpu_group_set
 * gives it another. A thread started by a holder keeps group 0 and runs inside the hold (the
 * technique phase's ncu runs, the sanitizer pool). The pipeline grades lab i in group i + 1
 * (1 to 63), so that one lab's run waits for another's (that wait is not counted as waiting
 * for the GPU), and the labs take the GPU in their order: lab i's first hold waits until every
 * lab before it has held or called cml_gpu_group_end, and a waiting lab goes before any later
 * one. Each thread releases what it held. */
void cml_gpu_hold_path(const char *path);
void cml_gpu_group_set(int group);
void cml_gpu_group_end(void);
void cml_gpu_hold(void);
void cml_gpu_release(void);
/* A batch starts one grading more per GPU than may use it, so that one builds ahead while the
 * others run: cml_gpu_share_set(n) says that at most n gradings of the lock's GPU may be past
 * their builds at once (0, the default: no limit), and cml_gpu_enter, called once the builds
 * are done, waits for one of the n places (files <lock>.place0 .. place<n-1>, each flocked by
 * the grading that has it until it exits: a grading that dies frees its place). The wait
 * counts as waiting for the GPU. */
#define CML_GPU_PLACES 8 /* the most places: --gpu-share's bound */
void cml_gpu_share_set(int n);
void cml_gpu_enter(void);
/* The batch itself takes places 0 .. n-1 of `lock`, so that the gradings it starts build but
 * wait in cml_gpu_enter until cml_gpu_places_give: while its calibration is made. fds gets the
 * n descriptors (-1 for one that cannot be opened or is held already: never waited for); how
 * many were taken. */
int cml_gpu_places_take(const char *lock, int n, int *fds);
void cml_gpu_places_give(int n, int *fds);

/* Seconds so far inside the holds (the GPU runs, lock or not) and waiting for the lock: what a
 * grading costs a shared GPU, and what sharing cost it. */
void cml_gpu_hold_times(double *held, double *waited);

#endif /* CML_GPU_LOCK_H */
