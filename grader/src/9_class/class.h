/* Class scale (docs/ARCHITECTURE.md, "Class scale"): the commands that grade many submissions
 * (batch on every GPU of a host, Slurm arrays and their collection), calibration, regrading
 * from a record, and the GPU lock the gradings of one GPU share. */
#ifndef CML_CLASS_H
#define CML_CLASS_H

#include <stdio.h>

/* Lock the file at path (created if missing) for this process, waiting as long as another
 * holds it; the descriptor to pass to cml_gpu_unlock, or -1 (no path, or it cannot be opened:
 * a warning on progress, and the grading goes on unlocked). */
int cml_gpu_lock(const char *path, FILE *progress);
void cml_gpu_unlock(int fd);

/* The lock a grading holds around each run that uses the GPU (a lab run, ncu, the sanitizer
 * phase, the probe), so that another grading of the same GPU (a batch runs two) builds,
 * verifies and checks on the CPU meanwhile, but never runs on the GPU at the same time.
 * cml_gpu_hold_path sets the file (NULL: no lock, the default); hold and release nest, and are
 * called from the grading's main thread only. */
void cml_gpu_hold_path(const char *path);
void cml_gpu_hold(void);
void cml_gpu_release(void);
/* Seconds so far inside the holds (the GPU runs, lock or not) and waiting for the lock: what a
 * grading costs a shared GPU, and what sharing cost it. */
void cml_gpu_hold_times(double *held, double *waited);

/* The commands; argv[0] is the command's name. Each returns the exit status. */
int cml_cmd_calibrate(int argc, char **argv);
int cml_cmd_batch(int argc, char **argv);
int cml_cmd_slurm(int argc, char **argv);
int cml_cmd_collect(int argc, char **argv);
int cml_cmd_regrade(int argc, char **argv);

#endif /* CML_CLASS_H */
