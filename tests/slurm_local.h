/* A private single-node Slurm for tests (tests/slurm/local-slurm.sh): start it under a folder,
 * submit array jobs, read each task's end, stop it. One node, 2 CPUs, 2 fake GPUs (gres/gpu on
 * null devices), no accounting: finished tasks are read from slurmctld's memory (scontrol),
 * which keeps them for 300 s. Needs root and Debian's slurm-wlm and munge. */
#ifndef CML_TESTS_SLURM_LOCAL_H
#define CML_TESTS_SLURM_LOCAL_H

#include <stddef.h>

/* Whether the cluster can run here: 1, or 0 with the reason in why ("not found: slurmd sbatch
 * (apt-get install slurm-wlm munge)", "not root (...)"). CML_SLURM_BIN=dir makes the
 * programs be looked for only there (CML_SLURM_BIN=/nonexistent: as if not installed). */
int slurm_local_available(char *why, size_t len);

/* Start the cluster in dir (created; must hold no cluster yet); the slurm.conf clients need
 * into conf (SLURM_CONF). 0 when its node is idle; -1 with the script's message and the tails
 * of the daemons' logs in why. Call slurm_local_stop(dir) afterwards, even on failure. */
int slurm_local_start(const char *dir, char *conf, size_t len, char *why, size_t whylen);

/* Stop every process the cluster in dir started (daemons, job steps, jobs) and wait until
 * they are gone. Safe to call twice, after a failed start, or for a dir never started. */
void slurm_local_stop(const char *dir);

/* Run a Slurm client, argv (argv[0] "sbatch", "squeue", "scontrol"...), against the cluster
 * in dir, in workdir (NULL: here), up to timeout_s. Its exit status, or -1 when it did not
 * exit normally; its output into *output when non-NULL (malloc'd, free it). */
int slurm_local_client(const char *dir, const char *workdir, char *const argv[],
                       double timeout_s, char **output);

/* Submit `script` as an array job (`sbatch --parsable --array=<array> <opts...> script`; opts
 * a NULL-terminated list or NULL; array NULL: the script's own #SBATCH --array) from workdir,
 * and wait until none of its tasks is pending or running (polling squeue: faster than sbatch
 * --wait). The array job's id, or -1 with the reason in why: sbatch refused it, or tasks still
 * ran after wait_s. */
long slurm_local_array(const char *dir, const char *workdir, const char *script,
                       const char *array, const char *const opts[], double wait_s,
                       char *why, size_t len);

/* How task `task` of array job `job` ended, from `scontrol -o show job`: its JobState into
 * state ("COMPLETED", "FAILED", ...) and its exit code into *exit_code. 0, or -1 when
 * slurmctld does not know that task. */
int slurm_local_task(const char *dir, long job, int task, char *state, size_t len,
                     int *exit_code);

#endif /* CML_TESTS_SLURM_LOCAL_H */
