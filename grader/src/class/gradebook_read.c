/* gradebook_read: one student's summary.tsv (report_json.c writes it: lab task status score
 * max_score detail, one line per task) summed per lab, with a short account of what lost
 * points. Whatever the file holds, the reader gives a row and a status, never a crash: the
 * gradebook of a class must not stop at one broken folder. */
#include "gradebook.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_MAX (4u << 20) /* far more than any grading writes */

/* Splits line at tabs into f (keeping empty fields); how many fields, at most max. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line; p && n < max;) {
        f[n++] = p;
        p = strchr(p, '\t');
        if (p)
            *p++ = '\0';
    }
    return n;
}

/* A whole field as a finite number >= 0 into *v; 0 on success. */
static int parse_points(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return s[0] && *end == '\0' && *v >= 0 && *v < 1e9 ? 0 : -1;
}

/* The row's lab named `lab`, added when new; NULL when the row is full. */
static cml_book_lab *lab_slot(cml_book_row *row, const char *lab)
{
    for (int i = 0; i < row->nlabs; i++)
        if (strcmp(row->labs[i].lab, lab) == 0)
            return &row->labs[i];
    if (row->nlabs == CML_BOOK_LABS)
        return NULL;
    cml_book_lab *l = &row->labs[row->nlabs++];
    snprintf(l->lab, sizeof l->lab, "%s", lab);
    return l;
}

/* Adds one task's line to its lab: points, and the task in problems unless it got full. */
static void add_task(cml_book_lab *l, const char *task, const char *status, double score,
                     double max)
{
    size_t len = strlen(l->problems);
    l->score += score, l->max += max, l->tasks++;
    if (score >= max - 1e-9) {
        l->full++;
        return;
    }
    if (!l->one_status[0] && l->tasks - l->full == 1)
        snprintf(l->one_status, sizeof l->one_status, "%s", status);
    else if (strcmp(l->one_status, status) != 0)
        l->mixed = 1;
    snprintf(l->problems + len, sizeof l->problems - len, "%s%s %s", len ? ", " : "", task,
             status[0] ? status : "not-graded");
}

/* The row's status: "ok", or per lab that lost points what did ("lab: 2.2 slow"), the lab's
 * one status when every task lost points the same way ("lab: build-error"). */
static void summarize(cml_book_row *row)
{
    size_t len = 0;
    row->status[0] = '\0';
    for (int i = 0; i < row->nlabs; i++) {
        const cml_book_lab *l = &row->labs[i];
        if (l->full == l->tasks)
            continue;
        const char *what = l->full == 0 && !l->mixed && l->one_status[0] ? l->one_status
                                                                          : l->problems;
        len += (size_t)snprintf(row->status + len, sizeof row->status - len, "%s%s: %s",
                                len ? "; " : "", l->lab, what);
        if (len >= sizeof row->status)
            break;
    }
    if (!row->status[0])
        snprintf(row->status, sizeof row->status, "ok");
}

/* Reads the lines of text into row; 0, or the number of the first bad line. */
static int read_lines(char *text, cml_book_row *row)
{
    char *save = NULL, *f[6];
    int lineno = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double score, max;
        lineno++;
        int n = split_tabs(line, f, 6);
        cml_book_lab *l = n >= 5 && f[0][0] && f[1][0] && parse_points(f[3], &score) == 0 &&
                          parse_points(f[4], &max) == 0 ? lab_slot(row, f[0]) : NULL;
        if (!l)
            return lineno;
        add_task(l, f[1], f[2], score, max);
    }
    return 0;
}

/* Contract in gradebook.h. */
void cml_book_read(const cml_book_entry *e, cml_book_row *row)
{
    char path[4200];
    size_t len = 0;
    memset(row, 0, sizeof *row);
    if (e->status[0]) {
        snprintf(row->status, sizeof row->status, "%s", e->status);
        return;
    }
    char *text = e->dir[0] && cml_fmt(path, sizeof path, "%s/summary.tsv", e->dir) == 0
                 ? cml_read_text(path, SUMMARY_MAX, &len) : NULL;
    int complete = text && len && text[len - 1] == '\n';
    int bad = complete ? read_lines(text, row) : 0; /* read_lines cuts text at its newlines */
    if (!text)
        snprintf(row->status, sizeof row->status, "not graded: no summary.tsv in its output "
                 "folder");
    else if (len == 0)
        snprintf(row->status, sizeof row->status, "not graded: summary.tsv is empty");
    else if (!complete)
        snprintf(row->status, sizeof row->status, "not graded: summary.tsv is truncated "
                 "(its last line has no end)");
    else if (bad)
        snprintf(row->status, sizeof row->status, "not graded: summary.tsv line %d is not "
                 "lab, task, status, score, max, detail", bad);
    row->graded = complete && !bad;
    if (row->graded)
        summarize(row);
    else
        row->nlabs = 0;
    free(text);
}

/* Contract in gradebook.h. */
int cml_book_labs(const cml_book_row *rows, int n, char names[][64])
{
    int count = 0;
    for (int r = 0; r < n; r++)
        for (int i = 0; rows[r].graded && i < rows[r].nlabs; i++) {
            const char *lab = rows[r].labs[i].lab;
            int at = 0;
            while (at < count && strcmp(names[at], lab) < 0)
                at++;
            if ((at < count && strcmp(names[at], lab) == 0) || count == CML_BOOK_LABS)
                continue;
            memmove(names[at + 1], names[at], (size_t)(count - at) * sizeof names[0]);
            snprintf(names[at], 64, "%s", lab);
            count++;
        }
    return count;
}

/* Contract in gradebook.h. */
const cml_book_lab *cml_book_find(const cml_book_row *row, const char *lab)
{
    for (int i = 0; row->graded && i < row->nlabs; i++)
        if (strcmp(row->labs[i].lab, lab) == 0)
            return &row->labs[i];
    return NULL;
}
