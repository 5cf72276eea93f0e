/* report_json: the machine-readable outputs. record.json keeps everything a re-grade or an
 * appeal needs (seed, GPU, versions, every case's verdict and the timings); results.json is
 * Gradescope's format, one test per task; summary.tsv is one line per task for scripts.
 * Every file is written to path.tmp and renamed, so a reader never sees half of one. */
#include "findings.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void write_case(json_w *w, const cml_case_spec *c, const cml_case_verdict *v)
{
    jw_begin_object(w, NULL);
    jw_string(w, "text", c->text);
    jw_bool(w, "timed", c->timed);
    jw_bool(w, "passed", v->passed);
    jw_string(w, "reason", v->reason);
    jw_u64(w, "nbad", v->nbad);
    jw_begin_array(w, "mismatches");
    for (int m = 0; m < v->nmis && m < CML_MAX_MISMATCH; m++) {
        jw_begin_object(w, NULL);
        jw_u64(w, "index", v->mis[m].index);
        jw_number(w, "expected", v->mis[m].expected);
        jw_number(w, "got", v->mis[m].got); /* NaN: null */
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
}

static void write_task(json_w *w, const cml_task_result *r)
{
    jw_begin_object(w, NULL);
    jw_string(w, "id", r->spec->id);
    jw_string(w, "title", r->spec->title);
    jw_string(w, "status", cml_status_name(r->status));
    jw_number(w, "score", r->score);
    jw_number(w, "max_score", r->max_score);
    jw_number(w, "correctness_score", r->correctness_score);
    jw_number(w, "perf_score", r->perf_score);
    jw_int(w, "cases_passed", r->cases_passed);
    jw_int(w, "ncases", r->spec->ncases);
    jw_int(w, "unchecked", cml_unchecked(r)); /* due checks that did not run (points kept) */
    jw_bool(w, "timed", r->timed);
    jw_number(w, "ms", r->ms);
    jw_number(w, "ref_ms", r->ref_ms);
    jw_number(w, "ratio", r->ratio);
    jw_number(w, "gbps", r->gbps);
    jw_number(w, "copy_fraction", r->copy_fraction);
    jw_bool(w, "implausible", r->implausible);
    cml_report_tech_json(w, r);
    cml_report_san_task_json(w, r);
    jw_string(w, "detail", r->detail);
    jw_u64(w, "output_bytes", r->output_len);
    jw_u64(w, "output_dropped", r->output_dropped);
    jw_begin_array(w, "cases");
    for (int i = 0; i < r->spec->ncases && i < CML_MAX_CASES; i++)
        write_case(w, &r->spec->cases[i], &r->cases[i]);
    jw_end_array(w);
    jw_end_object(w);
}

static void write_lab(json_w *w, const cml_lab_result *lab)
{
    jw_begin_object(w, NULL);
    jw_string(w, "lab", lab->spec->lab);
    jw_string(w, "title", lab->spec->title);
    jw_number(w, "score", lab->score);
    jw_number(w, "max_score", lab->max_score);
    jw_number(w, "wall_s", lab->wall_s);
    jw_string(w, "build", lab->built ? "ok" : cml_lab_missing(lab) ? "missing" : "failed");
    jw_string(w, "build_log", lab->build_log);
    jw_begin_object(w, "reference_run");
    jw_bool(w, "built", lab->ref_built);
    jw_bool(w, "practice", lab->practice); /* none to build: the practice grade */
    jw_string(w, "source", lab->ref_calibrated ? "calibration" : "measured in this grading");
    jw_bool(w, "done", lab->ref_run.done);
    jw_number(w, "copy_gbps", lab->ref_run.copy_gbps);
    jw_int(w, "clock_mhz", lab->ref_run.clock_mhz);
    jw_end_object(w);
    jw_begin_array(w, "tasks");
    for (int i = 0; i < lab->ntasks && i < CML_MAX_TASKS; i++)
        if (lab->tasks[i].spec)
            write_task(w, &lab->tasks[i]);
    jw_end_array(w);
    jw_end_object(w);
}

static void write_gpu(json_w *w, const cml_grading *g)
{
    jw_begin_object(w, "gpu");
    jw_bool(w, "present", g->have_gpu);
    jw_string(w, "no_gpu_reason", g->no_gpu_reason);
    jw_string(w, "name", g->gpu_name);
    jw_int(w, "cc", g->cc);
    jw_int(w, "sms", g->sms);
    jw_int(w, "driver", g->driver);
    jw_int(w, "runtime", g->runtime);
    jw_u64(w, "l2_bytes", g->l2_bytes);
    jw_u64(w, "mem_bytes", g->mem_bytes);
    jw_end_object(w);
}

static void write_record(FILE *f, const void *ctx)
{
    const cml_grading *g = ctx;
    json_w w = {.f = f};
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, g->seed);
    jw_begin_object(&w, NULL);
    jw_string(&w, "format", "cml-grade record 1");
    /* course: speed against the reference solution; practice: against this GPU's bandwidths */
    jw_string(&w, "mode", g->practice ? "practice" : "course");
    jw_string(&w, "mode_note", g->practice ? cml_practice_note() : "");
    jw_u64(&w, "seed", g->seed);
    jw_string(&w, "seed_string", seed); /* 64-bit: exact even where numbers are doubles */
    jw_string(&w, "student", g->student); /* "" when grade had no --student */
    jw_string(&w, "submission", g->submission);
    jw_string(&w, "protect_1", g->others[0]); /* a batch's other students (`grade --protect`) */
    jw_string(&w, "protect_2", g->others[1]);
    jw_string(&w, "started_at", g->started_at);
    jw_string(&w, "host", g->host);
    jw_string(&w, "sandbox_missing", g->sandbox_missing);
    write_gpu(&w, g);
    jw_string(&w, "nvcc_version", g->nvcc_version);
    jw_begin_object(&w, "calibration"); /* where the reference timings came from */
    jw_string(&w, "id", g->calibration_id);
    jw_string(&w, "path", g->calibration);
    jw_string(&w, "note", g->calibration_note);
    jw_end_object(&w);
    jw_number(&w, "wall_s", g->wall_s);
    jw_number(&w, "score", g->score);
    jw_number(&w, "max_score", g->max_score);
    jw_int(&w, "course_unchecked", cml_course_unchecked(g)); /* non-zero: exit 3, not final */
    cml_report_san_phase_json(&w, g);
    jw_begin_array(&w, "labs");
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        if (g->labs[i].spec)
            write_lab(&w, &g->labs[i]);
    jw_end_array(&w);
    jw_end_object(&w);
}

/* Writes the full record of a grading as JSON to path (atomically). 0 on success. */
int cml_report_json(const char *path, const cml_grading *g)
{
    return cml_write_atomic(path, write_record, g);
}

/* A Gradescope test's text: the detail, the first mismatches, the hint. malloc'd or NULL. */
static char *task_output(const cml_task_result *r, const char *note)
{
    char *buf = NULL, line[160];
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    fputs(r->detail, m);
    const cml_case_verdict *v = cml_first_mismatches(r);
    for (int i = 0; v && i < v->nmis && i < CML_MAX_MISMATCH; i++) {
        cml_format_mismatch(&v->mis[i], line, sizeof line);
        fprintf(m, "\n  %s", line);
    }
    cml_report_tech_text(m, r);
    cml_report_san_text(m, r);
    const char *where, *hint;
    cml_task_hint(r, note, &where, &hint);
    if (r->status != CML_STATUS_PASSED && hint[0])
        fprintf(m, "\nHint (%s): %s", where, hint);
    fclose(m);
    return buf;
}

static void write_gradescope_test(json_w *w, const cml_task_result *r, const char *note)
{
    char name[192], *out = task_output(r, note);
    snprintf(name, sizeof name, "%s %s", r->spec->id, r->spec->title);
    jw_begin_object(w, NULL);
    jw_string(w, "name", name);
    jw_string(w, "number", r->spec->id);
    jw_number(w, "score", r->score);
    jw_number(w, "max_score", r->max_score);
    jw_string(w, "status", r->status == CML_STATUS_PASSED ? "passed" : "failed");
    jw_string(w, "output", out ? out : r->detail);
    jw_string(w, "visibility", "visible");
    jw_end_object(w);
    free(out);
}

/* The top-level output: where it ran, each lab's score, the compiler's errors. malloc'd. */
static char *summary_output(const cml_grading *g)
{
    char *buf = NULL, got[16], max[16];
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    fprintf(m, "Seed %" PRIu64 ". ", g->seed);
    if (g->have_gpu)
        fprintf(m, "GPU: %s (compute capability %d.%d).\n", g->gpu_name, g->cc / 10, g->cc % 10);
    else
        fprintf(m, "No GPU found: %s. Only the builds were checked.\n", g->no_gpu_reason);
    if (g->practice)
        fprintf(m, "Note, %s\n", cml_practice_note());
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++) {
        const cml_lab_result *lab = &g->labs[i];
        cml_format_points(lab->score, got, sizeof got);
        cml_format_points(lab->max_score, max, sizeof max);
        const char *heading, *text = "";
        int unbuilt = cml_lab_unbuilt(lab, &heading, &text) == 0;
        fprintf(m, "%s: %s/%s%s\n", lab->spec ? lab->spec->lab : "?", got, max,
                !unbuilt ? "" : cml_lab_missing(lab) ? " (not handed in)" : " (build failed)");
        size_t n = strlen(text);
        if (unbuilt && n)
            fprintf(m, "%s%s", text, text[n - 1] == '\n' ? "" : "\n");
    }
    cml_report_san_phase(m, g);
    fclose(m);
    return buf;
}

static void write_gradescope(FILE *f, const void *ctx)
{
    const cml_grading *g = ctx;
    json_w w = {.f = f};
    char *summary = summary_output(g);
    jw_begin_object(&w, NULL);
    jw_number(&w, "score", g->score);
    jw_number(&w, "max_score", g->max_score);
    jw_number(&w, "execution_time", g->wall_s);
    jw_string(&w, "output", summary ? summary : "");
    jw_begin_array(&w, "tests");
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        for (int k = 0; g->labs[i].spec && k < g->labs[i].ntasks && k < CML_MAX_TASKS; k++)
            if (g->labs[i].tasks[k].spec)
                write_gradescope_test(&w, &g->labs[i].tasks[k], g->labs[i].spec->note);
    jw_end_array(&w);
    jw_end_object(&w);
    free(summary);
}

/* Writes Gradescope's results.json (one test per task) to path (atomically). 0 on success. */
int cml_report_gradescope(const char *path, const cml_grading *g)
{
    return cml_write_atomic(path, write_gradescope, g);
}

/* One TSV field: tabs, newlines and other control characters become spaces. */
static void tsv_field(FILE *f, const char *s, char after)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        fputc(*c < 0x20 || *c == 0x7F ? ' ' : *c, f);
    fputc(after, f);
}

static void write_tsv(FILE *f, const void *ctx)
{
    const cml_grading *g = ctx;
    char got[16], max[16];
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        for (int k = 0; g->labs[i].spec && k < g->labs[i].ntasks && k < CML_MAX_TASKS; k++) {
            const cml_task_result *r = &g->labs[i].tasks[k];
            if (!r->spec)
                continue;
            cml_format_points(r->score, got, sizeof got);
            cml_format_points(r->max_score, max, sizeof max);
            tsv_field(f, g->labs[i].spec->lab, '\t');
            tsv_field(f, r->spec->id, '\t');
            tsv_field(f, cml_status_name(r->status), '\t');
            tsv_field(f, got, '\t');
            tsv_field(f, max, '\t');
            tsv_field(f, r->detail, '\n');
        }
}

/* Writes summary.tsv, one line per task: lab task status score max_score detail. 0 on success. */
int cml_report_tsv(const char *path, const cml_grading *g)
{
    return cml_write_atomic(path, write_tsv, g);
}
