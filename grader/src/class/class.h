/* Class scale (docs/ARCHITECTURE.md, "Class scale"): the commands that grade many submissions
 * (batch on every GPU of a host, Slurm arrays and their collection), calibration, regrading
 * from a record. The GPU lock the gradings of one GPU share is 3_run/gpu_lock.h. */
#ifndef CML_CLASS_H
#define CML_CLASS_H

/* The commands; argv[0] is the command's name. Each returns the exit status. */
int cml_cmd_calibrate(int argc, char **argv);
int cml_cmd_batch(int argc, char **argv);
int cml_cmd_slurm(int argc, char **argv);
int cml_cmd_collect(int argc, char **argv);
int cml_cmd_regrade(int argc, char **argv);

#endif /* CML_CLASS_H */
