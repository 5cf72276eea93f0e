/* A student's batch status file (batch.h) and the collect step that turns the plan and every
 * status into the gradebook. A status is written last, after the grading's reports, by a
 * rename: a student either has a complete one or none, so a killed batch regrades exactly
 * those without. */
#include "batch.h"
#include "gradebook.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Contract in batch.h. */
int cml_status_read(const char *out, const char *name, cml_student_status *s)
{
    char path[CML_PATH];
    memset(s, 0, sizeof *s);
    if (cml_fmt(path, sizeof path, "%s/students/%s/status", out, name) < 0)
        return -1;
    char *text = cml_read_text(path, 4096, NULL);
    if (!text)
        return -1;
    char *field[7] = { 0 }, *p = text;
    for (int k = 0; k < 7 && p; k++) {
        field[k] = p;
        p = strchr(p, k < 6 ? '\t' : '\n');
        if (p)
            *p++ = '\0';
    }
    int ok = field[6] != NULL;
    if (ok) {
        snprintf(s->state, sizeof s->state, "%s", field[0]);
        s->score = atof(field[1]);
        s->max = atof(field[2]);
        s->seconds = atof(field[3]);
        s->gpu = atoi(field[4]);
        snprintf(s->calibration, sizeof s->calibration, "%s", field[5]);
        snprintf(s->why, sizeof s->why, "%s", field[6]);
    }
    free(text);
    return ok ? 0 : -1;
}

/* Contract in batch.h. */
int cml_status_write(const char *out, const char *name, const cml_student_status *s)
{
    char dir[CML_PATH], path[CML_PATH], tmp[CML_PATH], why[512];
    snprintf(why, sizeof why, "%s", s->why);
    for (char *c = why; *c; c++)
        if (*c == '\t' || *c == '\n' || *c == '\r')
            *c = ' ';
    if (cml_fmt(dir, sizeof dir, "%s/students/%s", out, name) < 0 || cml_mkdirs(dir) < 0 ||
        cml_fmt(path, sizeof path, "%s/status", dir) < 0 ||
        cml_fmt(tmp, sizeof tmp, "%s/status.tmp", dir) < 0)
        return -1;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "%s\t%g\t%g\t%.1f\t%d\t%s\t%s\n", s->state, s->score, s->max, s->seconds, s->gpu,
            s->calibration[0] ? s->calibration : "-", why);
    return fclose(f) == 0 && rename(tmp, path) == 0 ? 0 : -1;
}

/* Contract in batch.h. */
int cml_collect(const char *out, const cml_plan *p, char *err, size_t errlen)
{
    char csv[CML_PATH], md[CML_PATH];
    cml_book_entry *e = calloc((size_t)p->n + 1, sizeof *e);
    int missing = 0;
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < p->n; i++) {
        cml_student_status s;
        snprintf(e[i].name, sizeof e[i].name, "%s", p->e[i].display[0] ? p->e[i].display
                                                                        : p->e[i].name);
        e[i].who = p->e[i].who;
        if (p->e[i].unusable[0]) {
            snprintf(e[i].status, sizeof e[i].status, "%s", p->e[i].unusable);
        } else if (cml_status_read(out, p->e[i].name, &s) < 0) {
            missing++;
            snprintf(e[i].status, sizeof e[i].status, "not graded: no result yet (its grading "
                     "never finished; run the batch again to grade it)");
        } else if (strcmp(s.state, "graded") != 0) {
            snprintf(e[i].status, sizeof e[i].status, "not graded: %.240s", s.why);
        } else {
            cml_fmt(e[i].dir, sizeof e[i].dir, "%s/students/%s", out, p->e[i].name);
        }
    }
    int rc = cml_fmt(csv, sizeof csv, "%s/gradebook.csv", out) < 0 ||
             cml_fmt(md, sizeof md, "%s/gradebook.md", out) < 0 ||
             cml_gradebook_write(csv, e, p->n, err, errlen) < 0 ||
             cml_gradebook_write_md(md, e, p->n, err, errlen) < 0 ||
             cml_lms_write(out, e, p->n, err, errlen) < 0 ? -1 : missing;
    free(e);
    return rc;
}
