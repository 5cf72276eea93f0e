/* Checking a command's options before it does any work or writes anything. Every command
 * (grade, bench, batch, slurm, collect, regrade, calibrate) checks each option with these and
 * refuses a bad one with one line on stderr and exit status CML_EXIT_USAGE. */
#ifndef CML_ARGS_H
#define CML_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* The exit statuses every command shares: 0 done (grade: full marks), 1 done but not all of
 * it good (grade: not full marks; batch: someone not graded), 2 refused before starting (bad
 * options, no usable GPU) or nothing could be graded. */
#define CML_EXIT_USAGE 2

/* Print "cml-grade CMD: ERR" (cmd NULL: "cml-grade: ERR") as one line on stderr; returns
 * CML_EXIT_USAGE. */
int cml_arg_refuse(const char *cmd, const char *err);

/* Each checker below takes the option's name (for the message) and its text; 0 when good, or
 * -1 with one line in err saying what is wrong and what to give instead. */

/* A whole number in [min, max] (decimal, no sign, nothing after it) into *v. */
int cml_arg_int(const char *opt, const char *text, long min, long max, long *v, char *err,
                size_t len);
/* A whole number from 0 to 2^64-1 (decimal or 0x hexadecimal) into *v: a seed. */
int cml_arg_u64(const char *opt, const char *text, uint64_t *v, char *err, size_t len);
/* A number in (above, max] into *v (a fraction, a tolerance). */
int cml_arg_real(const char *opt, const char *text, double above, double max, double *v,
                 char *err, size_t len);

/* A duration: a whole number of seconds, plain or with a unit, "90", "90s", "10m", "1h", more
 * than 0 and at most a week, into *seconds. */
int cml_arg_duration(const char *opt, const char *text, double *seconds, char *err,
                     size_t len);
/* A duration as the options take it, in its largest whole unit: "90s", "10m", "1h". */
void cml_duration_text(double seconds, char *buf, size_t len);

/* An existing folder this user can read. */
int cml_arg_dir(const char *opt, const char *path, char *err, size_t len);
/* An existing regular file this user can read. */
int cml_arg_file(const char *opt, const char *path, char *err, size_t len);
/* A student's submission: a readable folder, or a readable archive file named .zip, .tar,
 * .tar.gz or .tgz. */
int cml_arg_submission(const char *opt, const char *path, char *err, size_t len);
/* Whether a file name ends in an archive suffix a submission may have (case ignored). */
int cml_is_archive_name(const char *name);
/* A folder to write into: an existing writable folder, or a path that does not exist yet
 * whose nearest existing parent is a writable folder (nothing is created here). An existing
 * file, or a link to one, is refused. */
int cml_arg_out(const char *opt, const char *path, char *err, size_t len);
/* out (which may not exist yet) and in are apart: neither the same folder as the other nor
 * inside it, compared as real paths (links and ".." resolved). */
int cml_arg_apart(const char *out_opt, const char *out, const char *in_opt, const char *in,
                  char *err, size_t len);

/* A list of GPU indexes, "0" or "0,2,3": whole numbers from 0 to 63, none twice, at most max;
 * into gpus, how many into *n. */
int cml_arg_gpus(const char *opt, const char *text, int *gpus, int max, int *n, char *err,
                 size_t len);

#endif /* CML_ARGS_H */
