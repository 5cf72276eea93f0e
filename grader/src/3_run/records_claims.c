/* records_claims: the result channel read as what it is. The student's code shares the lab process
 * with the harness, so every record is a claim that code could have written. Outputs are verified
 * and bytes counted by the grader anyway; what is left to catch here is a record no honest harness
 * writes: anything after `done`, a case or a time nobody asked for, the same case twice. One such
 * record marks the whole run tampered (docs/PROTOCOL.md, "Records are claims"). */
#include "records_parse.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
    const cml_run_asked *asked;
    cml_run_record *out;
    int line;                             /* 1-based number of the line being read */
    int after_done;
    unsigned char has_case[CML_MAX_RUN_CASES], has_time[CML_MAX_RUN_CASES];
} claims;

static void forged(claims *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Marks the run tampered with what was seen, "... (line N)"; only the first one is kept. */
static void forged(claims *s, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    if (s->out->tampered)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s->out->tampered = 1;
    snprintf(s->out->tamper, sizeof s->out->tamper, "%s (line %d)", what, s->line);
}

/* The record type of l, printable and short, for a message. */
static const char *type_name(const rec_line *l, char *buf, size_t len)
{
    rec_copy(buf, len, &l->type);
    return buf;
}

/* Whether a `case` or `time` record names a case the grader asked for, in the task it asked
 * for there, for the first time; a time also only for a case asked to be timed whose case
 * record said ok. 1 when it may be applied, 0 when it was forged (marked) or is malformed
 * (left to the handler to reject). */
static int case_claim_ok(claims *s, const rec_line *l, int is_time)
{
    const char *type = is_time ? "time" : "case";
    const rec_span *task = rec_get(l, "task");
    uint64_t k;
    int reps = 0; /* a time's repetitions, each with its evidence before it: at least one */
    char got[16];
    if (rec_u64(rec_get(l, "k"), &k) != 0)
        return 1; /* no k: malformed, the handler rejects it */
    if (is_time && rec_int(rec_get(l, "reps"), 0, CML_MAX_REPS, &reps) != 0)
        reps = 0;
    if (k >= (uint64_t)s->asked->n || k >= CML_MAX_RUN_CASES) {
        forged(s, "wrote a '%s' record for k=%llu, but the grader asked for %d case(s)", type,
               (unsigned long long)k, s->asked->n);
        return 0;
    }
    rec_copy(got, sizeof got, task);
    if (!rec_is(task, s->asked->task[k]))
        forged(s, "wrote a '%s' record for task '%s' at k=%llu, where the grader asked for "
               "task %s", type, got, (unsigned long long)k, s->asked->task[k]);
    else if ((is_time ? s->has_time : s->has_case)[k])
        forged(s, "wrote a second '%s' record for k=%llu", type, (unsigned long long)k);
    else if (is_time && !s->asked->timed[k])
        forged(s, "wrote a 'time' record for k=%llu, a case the grader did not ask to time",
               (unsigned long long)k);
    else if (is_time && (!s->has_case[k] || s->out->cases[k].status != CML_CASE_OK))
        forged(s, "wrote a 'time' record for k=%llu, whose case record %s", (unsigned long long)k,
               s->has_case[k] ? "is not status=ok" : "had not been written");
    else if (is_time && (reps < 1 || reps != s->out->cases[k].nrep))
        forged(s, "wrote a 'time' record for k=%llu of %d repetitions, but %d carried the "
               "evidence of their output", (unsigned long long)k, reps, s->out->cases[k].nrep);
    else
        return 1;
    return 0;
}

/* Whether a `rep` record belongs to a case asked to be timed whose case record said ok and
 * whose time is not written yet (the harness writes a time's repetitions just before it). */
static int rep_claim_ok(claims *s, const rec_line *l)
{
    uint64_t k;
    if (rec_u64(rec_get(l, "k"), &k) != 0)
        return 1; /* malformed: the handler rejects it */
    if (k >= (uint64_t)s->asked->n || k >= CML_MAX_RUN_CASES || !s->asked->timed[k])
        forged(s, "wrote a 'rep' record for k=%llu, a case the grader did not ask to time",
               (unsigned long long)k);
    else if (!s->has_case[k] || s->out->cases[k].status != CML_CASE_OK || s->has_time[k])
        forged(s, "wrote a 'rep' record for k=%llu %s", (unsigned long long)k,
               s->has_time[k] ? "after its time" : "before its case record said ok");
    else
        return 1;
    return 0;
}

/* Whether a line that does not parse is forged: after `hello` the harness writes only
 * well-formed records, except `todo` and `note`, whose text is the student's own (a TODO's
 * task name and message come from the student's file). */
static int malformed_is_forged(const claims *s, const rec_line *l)
{
    return s->out->hello && !rec_is(&l->type, "todo") && !rec_is(&l->type, "note");
}

/* Reads one non-blank line before or after `done`. */
static void read_line(claims *s, const rec_span *line)
{
    rec_line l;
    char type[24];
    int split = rec_split(line, &l);
    if (s->after_done) {
        if (rec_is(&l.type, "done"))
            forged(s, "wrote a second 'done'");
        else
            forged(s, "wrote a '%s' record after 'done'", type_name(&l, type, sizeof type));
        return;
    }
    int is_case = rec_is(&l.type, "case"), is_time = rec_is(&l.type, "time");
    if (split == 0 && (is_case || is_time) && !case_claim_ok(s, &l, is_time))
        return;
    if (split == 0 && rec_is(&l.type, "rep") && !rep_claim_ok(s, &l))
        return;
    if (split != 0 || rec_dispatch(&l, s->out) != 0) {
        if (malformed_is_forged(s, &l))
            forged(s, "wrote a malformed '%s' line, which the harness never writes",
                   type_name(&l, type, sizeof type));
        return;
    }
    if (is_case || is_time) {
        uint64_t k = 0;
        rec_u64(rec_get(&l, "k"), &k); /* accepted: k parsed and is in range */
        (is_time ? s->has_time : s->has_case)[k] = 1;
    }
    s->after_done = rec_is(&l.type, "done");
}

/* Contract in records.h. */
int cml_records_parse_claims(const char *text, size_t len, const cml_run_asked *asked,
                             cml_run_record *out)
{
    static const cml_run_asked nothing = {0};
    claims s = {asked ? asked : &nothing, out, 0, 0, {0}, {0}};
    rec_span line;
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    for (size_t pos = 0; rec_next_line(text, len, &pos, &line);) {
        s.line++;
        if (line.len > 0)
            read_line(&s, &line);
    }
    return 0;
}
