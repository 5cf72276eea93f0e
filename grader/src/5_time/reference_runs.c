/* The reference solution's timed cases of a lab: read back from a calibration when it holds
 * the very run (same lab, reference binary and --case list), else measured here and now, and
 * stored when calibrating. */
#include "calibration.h"
#include "lab_run.h"
#include "time_runs.h"
#include "records.h"
#include "run.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every timed case of the lab, in task order. */
static int timed_cases(const cml_lab_spec *spec, int *ti, int *ci)
{
    int total = 0;
    for (int t = 0; t < spec->ntasks; t++)
        for (int c = 0; c < spec->tasks[t].ncases; c++)
            if (spec->tasks[t].cases[c].timed) {
                ti[total] = t;
                ci[total++] = c;
            }
    return total;
}

/* The calibration's stored run of this chunk (same lab, reference binary and --case list) read
 * back into lr: 1, else 0 (no calibration, no such run, or one the claims reader does not
 * trust or that never wrote `done`: measure it). calibrate stores only trusted, finished runs,
 * so such a run was edited after; used, it would leave the lab without reference times and
 * its students' speed unjudged. */
static int stored_run(const cml_lab_spec *spec, const case_list *chunk, const cml_run_opts *o,
                      lab_run *lr)
{
    char cases[2048];
    cml_case_list_text(spec, chunk, cases, sizeof cases);
    const cml_cal_run *r = o->cal ? cml_cal_find(o->cal, spec->lab, o->ref_sha ? o->ref_sha
                                                 : "", cases) : NULL;
    if (!r)
        return 0;
    cml_lab_run_replay(spec, chunk, r->text, r->len, lr);
    if (lr->rec.tampered || !lr->rec.done) {
        if (o->progress)
            fprintf(o->progress, "[%s] warning: calibration %s's stored reference run %s%s%s: "
                    "the reference is measured live\n", spec->lab, o->cal->id,
                    lr->rec.tampered ? "was tampered (it " : "never wrote done",
                    lr->rec.tampered ? lr->rec.tamper : "", lr->rec.tampered ? ")" : "");
        return 0;
    }
    if (o->progress)
        fprintf(o->progress, "[%s] reference solution: %d timed case(s) from calibration %s\n",
                spec->lab, chunk->n, o->cal->id);
    return 1;
}

/* The reference measured here and now; stored into o->cal_out when calibrating. */
static void live_run(const cml_lab_spec *spec, const char *ref_bin, const case_list *chunk,
                     const cml_run_opts *o, lab_run *lr)
{
    char cases[2048];
    if (o->progress)
        fprintf(o->progress, "[%s] reference solution: %d timed case(s)\n", spec->lab,
                chunk->n);
    const double t_run = cml_now();
    cml_lab_run(ref_bin, o->ref_sha, spec, chunk, NULL, o, lr);
    if (o->progress)
        fprintf(o->progress, "[%s] reference solution: %.1f s\n", spec->lab,
                cml_now() - t_run);
    cml_case_list_text(spec, chunk, cases, sizeof cases);
    if (o->cal_out && lr->text && lr->rec.done && !lr->rec.tampered &&
        cml_cal_put(o->cal_out, spec->lab, o->ref_sha ? o->ref_sha : "", cases, lr->text,
                    lr->text_len) < 0 && o->progress)
        fprintf(o->progress, "[%s] warning: the calibration is full: this run is not stored\n",
                spec->lab);
}

/* Contract in time_runs.h. */
void cml_reference_runs(const cml_lab_spec *spec, const char *ref_bin, const cml_run_opts *o,
                           cml_lab_result *out, cml_run_record *per_task)
{
    int ti[CML_MAX_TASKS * CML_MAX_CASES], ci[CML_MAX_TASKS * CML_MAX_CASES];
    int total = timed_cases(spec, ti, ci);
    lab_run *lr = malloc(sizeof *lr);
    for (int start = 0; lr && start < total; start += CML_MAX_RUN_CASES) {
        case_list chunk;
        chunk.n = total - start < CML_MAX_RUN_CASES ? total - start : CML_MAX_RUN_CASES;
        memcpy(chunk.task, ti + start, chunk.n * sizeof *ti);
        memcpy(chunk.tcase, ci + start, chunk.n * sizeof *ci);
        if (stored_run(spec, &chunk, o, lr))
            out->ref_calibrated++;
        else
            live_run(spec, ref_bin, &chunk, o, lr);
        free(lr->text);
        lr->text = NULL;
        if (start == 0)
            out->ref_run = lr->rec;
        if (lr->rec.tampered && o->progress) /* cannot happen with the real solution */
            fprintf(o->progress, "[%s] warning: the reference solution's run was tampered (it "
                    "%s): its timings are not used\n", spec->lab, lr->rec.tamper);
        if (!lr->rec.tampered)
            cml_spread_records(&lr->rec, &chunk, per_task);
        if (!lr->rec.done && o->progress) {
            char how[300];
            cml_run_unfinished_how(lr, spec->timeout_s, how, sizeof how);
            fprintf(o->progress, "[%s] warning: the reference solution %s: its timings are "
                    "missing, so no performance points can be given\n", spec->lab, how);
        }
        cml_proc_result_free(&lr->proc);
    }
    free(lr);
}
