/* The batch's progress: on a terminal one line rewritten in place (done/total, running, rate,
 * time left, failures); elsewhere (a log, CI, Slurm) one plain line per finished student. */
#include "batch_progress.h"

#include <string.h>
#include <unistd.h>

/* "1h02m", "3m10s", "42s". */
static void duration(double s, char *buf, size_t len)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

/* Contract in batch_progress.h. */
void cml_progress_init(cml_progress *p, FILE *f, int total, int already, double now)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->tty = isatty(fileno(f));
    p->total = total;
    p->already = already;
    p->t0 = now;
}

/* Rate (seconds per student finished in this run) and the time left at that rate. */
static void rate_and_left(const cml_progress *p, double now, char *rate, char *left,
                          size_t len)
{
    int done = p->done;
    if (done == 0) {
        snprintf(rate, len, "-");
        snprintf(left, len, "-");
        return;
    }
    double r = (now - p->t0) / done;
    snprintf(rate, len, "%.1f s/submission", r);
    duration(r * (p->total - p->already - done), left, len);
}

/* Contract in batch_progress.h. */
void cml_progress_finished(cml_progress *p, double now, const char *name,
                           const cml_student_status *s)
{
    char rate[64], left[64];
    p->done++;
    p->failed += strcmp(s->state, "graded") != 0;
    rate_and_left(p, now, rate, left, sizeof rate);
    if (p->tty)
        fputs("\r\033[K", p->f);
    if (strcmp(s->state, "graded") == 0)
        fprintf(p->f, "%d/%d %s: %g/%g (%.1f s, GPU %d)", p->already + p->done, p->total, name,
                s->score, s->max, s->seconds, s->gpu);
    else
        fprintf(p->f, "%d/%d %s: %s: %s", p->already + p->done, p->total, name, s->state,
                s->why);
    fprintf(p->f, "; %s, about %s left, %d failure%s so far\n", rate, left, p->failed,
            p->failed == 1 ? "" : "s");
    fflush(p->f);
}

/* Contract in batch_progress.h. */
void cml_progress_tick(cml_progress *p, double now, int running)
{
    char rate[64], left[64], el[32];
    if (!p->tty)
        return;
    rate_and_left(p, now, rate, left, sizeof rate);
    duration(now - p->t0, el, sizeof el);
    fprintf(p->f, "\r\033[K[%d/%d done, %d running, %d failed] %s elapsed, %s, about %s left",
            p->already + p->done, p->total, running, p->failed, el, rate, left);
    fflush(p->f);
}

/* Contract in batch_progress.h. */
void cml_progress_note(cml_progress *p, const char *line)
{
    if (p->tty)
        fputs("\r\033[K", p->f);
    fprintf(p->f, "%s\n", line);
    fflush(p->f);
}
