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
 * cml_gpu_hold_path sets the file (NULL: no lock, the default); hold and release nest. The
 * outermost hold and release belong to the grading's main thread; a thread it starts while
 * holding may hold and release inside that hold (the technique phase's ncu runs do). */
void cml_gpu_hold_path(const char *path);
void cml_gpu_hold(void);
void cml_gpu_release(void);
/* Seconds so far inside the holds (the GPU runs, lock or not) and waiting for the lock: what a
 * grading costs a shared GPU, and what sharing cost it. */
void cml_gpu_hold_times(double *held, double *waited);

#endif /* CML_GPU_LOCK_H */
