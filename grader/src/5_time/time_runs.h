/* The runs that time a task: the reference's timed cases (reference_runs.c) and, after the
 * student's run, the task's time findings with a second measurement where speed falls short
 * (time_task.c). Depends on lab_run.h (the runs) and through it on records.h. */
#ifndef CML_TIME_RUNS_H
#define CML_TIME_RUNS_H

#include "lab_run.h"

/* reference_runs.c: the reference's timed cases of a lab, with --no-output, CML_MAX_RUN_CASES per
 * run (one run for any ordinary lab): each taken from o->cal where it holds that run, else measured
 * (and stored into o->cal_out when set). Fills out->ref_run with the first run's records,
 * out->ref_calibrated with how many runs came from the calibration, and per_task[t] with task t's
 * records. */
void cml_reference_runs(const cml_lab_spec *spec, const char *ref_bin, const cml_run_opts *o,
                        cml_lab_result *out, cml_run_record *per_task);

/* time_task.c: task ti's findings from its verified cases and the time records of the
 * student's run and the reference's (ref; none in a practice grade, o->practice), then, when
 * speed is short of full credit and ref_bin is given (NULL: the run cannot be trusted to time
 * again, as one that never said done), a second measurement (cml_confirm_slow). */
void cml_time_task(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                   const cml_run_record *student, const cml_run_record *ref,
                   const cml_run_opts *o, cml_task_result *r);

/* time_task.c: speed short of full credit (cml_found_slow) costs points only once a second
 * measurement agrees: the task's timed cases run again, the reference first, then the student
 * (outputs and sampled repetitions verified again); the task keeps the timings of the better
 * of the two ratios, and its note says both. A forged record in the second run is recorded. */
void cml_confirm_slow(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                      const cml_run_record *student, const cml_run_opts *o, cml_task_result *r);

#endif /* CML_TIME_RUNS_H */
