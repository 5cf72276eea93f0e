/* gradebook: the class's grades as CSV (RFC 4180, guarded against formula injection: a
 * spreadsheet runs a cell that starts with = + - @) and as a Markdown page with per-lab
 * statistics. Both read every student's summary.tsv once (gradebook_read.c) and are written
 * atomically, so an LMS import never sees half a file. */
#include "gradebook.h"
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const cml_book_entry *e;
    cml_book_row *rows;
    int n, nlabs;
    char labs[CML_BOOK_LABS][64];
} book;

/* One CSV cell: a leading ' when it starts like a formula, quoted when it holds a comma, a
 * quote, a line break or edge spaces (quotes doubled); other control characters as '?'. */
static void csv_cell(FILE *f, const char *s, char after)
{
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[n - 1] == ' '));
    fputs(quote ? "\"" : "", f);
    if (s[0] && strchr("=+-@\t\r", s[0]))
        fputc('\'', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"')
            fputs("\"\"", f);
        else
            fputc(*c < 0x20 && *c != '\r' && *c != '\n' ? '?' : *c, f);
    }
    fputs(quote ? "\"" : "", f);
    fputc(after, f);
}

/* Contract in gradebook.h: the LMS files quote their cells the same way. */
void cml_csv_cell(FILE *f, const char *s, char after)
{
    csv_cell(f, s, after);
}

/* Points as a cell (38.5, 40); "" for a student without them. */
static void points_cell(FILE *f, int have, double v, char after)
{
    char buf[32] = "";
    if (have)
        cml_format_points(v, buf, sizeof buf);
    csv_cell(f, buf, after);
}

static void write_csv(FILE *f, const void *ctx)
{
    const book *b = ctx;
    csv_cell(f, "student", ',');
    for (int l = 0; l < b->nlabs; l++)
        csv_cell(f, b->labs[l], ',');
    fputs("total,max,status,late\r\n", f); /* RFC 4180 ends lines with CRLF */
    for (int i = 0; i < b->n; i++) {
        const cml_book_row *r = &b->rows[i];
        double total = 0, max = 0;
        csv_cell(f, b->e[i].name, ',');
        for (int l = 0; l < b->nlabs; l++) {
            const cml_book_lab *lab = cml_book_find(r, b->labs[l]);
            points_cell(f, lab != NULL, lab ? lab->score : 0, ',');
            total += lab ? lab->score : 0, max += lab ? lab->max : 0;
        }
        points_cell(f, r->graded, total, ',');
        points_cell(f, r->graded, max, ',');
        csv_cell(f, r->status, ',');
        /* the platform's late marker (Canvas's LATE): the policy is the instructor's to apply */
        csv_cell(f, b->e[i].who.late ? "late" : "", '\r');
        fputc('\n', f);
    }
}

/* Reads every entry's summary into b (rows malloc'd); 0, or -1 with a message. */
static int book_load(book *b, const cml_book_entry *e, int n, char *err, size_t errlen)
{
    *b = (book){.e = e, .n = n};
    b->rows = n > 0 ? calloc((size_t)n, sizeof *b->rows) : NULL;
    if (n < 0 || (n > 0 && (!e || !b->rows))) {
        snprintf(err, errlen, n < 0 ? "gradebook: a negative number of students (%d)"
                                    : "gradebook: out of memory for %d students", n);
        free(b->rows);
        return -1;
    }
    for (int i = 0; i < n; i++)
        cml_book_read(&e[i], &b->rows[i]);
    b->nlabs = cml_book_labs(b->rows, n, b->labs);
    return 0;
}

/* Writes `write` of the loaded book to path; 0, or -1 with a message naming path. */
static int book_save(const char *path, book *b, void (*write)(FILE *, const void *), char *err,
                     size_t errlen)
{
    int rc = cml_write_atomic(path, write, b);
    if (rc < 0)
        snprintf(err, errlen, "cannot write the gradebook %s: %s", path, strerror(errno));
    free(b->rows);
    return rc < 0 ? -1 : 0;
}

/* Contract in gradebook.h. */
int cml_gradebook_write(const char *csv_path, const cml_book_entry *e, int n, char *err,
                        size_t errlen)
{
    book b;
    return book_load(&b, e, n, err, errlen) < 0 ? -1
                                                : book_save(csv_path, &b, write_csv, err, errlen);
}

/* The Markdown table: the CSV's columns, one row per student. */
static void md_table(FILE *f, const book *b)
{
    char buf[32];
    fputs("| Student |", f);
    for (int l = 0; l < b->nlabs; l++) {
        fputs(" ", f);
        cml_put_md(f, b->labs[l]);
        fputs(" |", f);
    }
    fputs(" Total | Status |\n|---|", f);
    for (int l = 0; l < b->nlabs + 2; l++)
        fputs("---|", f);
    for (int i = 0; i < b->n; i++) {
        const cml_book_row *r = &b->rows[i];
        double total = 0, max = 0;
        fputs("\n| ", f);
        cml_put_md(f, b->e[i].name);
        fputs(" |", f);
        for (int l = 0; l < b->nlabs; l++) {
            const cml_book_lab *lab = cml_book_find(r, b->labs[l]);
            cml_format_points(lab ? lab->score : 0, buf, sizeof buf);
            fprintf(f, " %s |", lab ? buf : "");
            total += lab ? lab->score : 0, max += lab ? lab->max : 0;
        }
        cml_format_points(total, buf, sizeof buf);
        fprintf(f, " %s", r->graded ? buf : "");
        cml_format_points(max, buf, sizeof buf);
        fprintf(f, "%s%s | ", r->graded ? "/" : "", r->graded ? buf : "");
        cml_put_md(f, r->status);
        fputs(" |", f);
    }
    fputs("\n\n", f);
}

/* Per lab: how many were graded on it, their mean and how many got full marks. */
static void md_stats(FILE *f, const book *b)
{
    char mean[32], max[32];
    fputs("| Lab | Graded | Mean | Max | Full marks |\n|---|---|---|---|---|\n", f);
    for (int l = 0; l < b->nlabs; l++) {
        int graded = 0, full = 0;
        double sum = 0, top = 0;
        for (int i = 0; i < b->n; i++) {
            const cml_book_lab *lab = cml_book_find(&b->rows[i], b->labs[l]);
            graded += lab != NULL;
            sum += lab ? lab->score : 0;
            full += lab && lab->full == lab->tasks;
            top = lab && lab->max > top ? lab->max : top;
        }
        cml_format_points(graded ? sum / graded : 0, mean, sizeof mean);
        cml_format_points(top, max, sizeof max);
        fputs("| ", f);
        cml_put_md(f, b->labs[l]);
        fprintf(f, " | %d | %s | %s | %d |\n", graded, mean, max, full);
    }
}

static void write_md(FILE *f, const void *ctx)
{
    const book *b = ctx;
    int graded = 0;
    for (int i = 0; i < b->n; i++)
        graded += b->rows[i].graded;
    fprintf(f, "# Gradebook\n\n%d students, %d graded.\n\n", b->n, graded);
    md_table(f, b);
    fputs("## Per lab\n\n", f);
    md_stats(f, b);
}

/* Contract in gradebook.h. */
int cml_gradebook_write_md(const char *md_path, const cml_book_entry *e, int n, char *err,
                           size_t errlen)
{
    book b;
    return book_load(&b, e, n, err, errlen) < 0 ? -1
                                                : book_save(md_path, &b, write_md, err, errlen);
}
