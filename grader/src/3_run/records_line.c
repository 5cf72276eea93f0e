/* records, the line level of the result protocol (records_parse.h): a line split into spans of
 * the original text, and each field's value read strictly. Below both records.c (which reads
 * the lines) and records_types.c (whose handlers read the fields): kept in records.c, these
 * made records.c and records_types.c call each other. */
#include "records_parse.h"
#include "util.h" /* cml_parse_u64 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 65536 /* longer lines are skipped and counted */

/* The value of field `key`, or NULL. */
const rec_span *rec_get(const rec_line *l, const char *key)
{
    size_t k = strlen(key);
    for (int i = 0; i < l->nfields; i++)
        if (l->keys[i].len == k && memcmp(l->keys[i].p, key, k) == 0)
            return &l->vals[i];
    return NULL;
}

/* Whether span s equals the C string w. */
int rec_is(const rec_span *s, const char *w)
{
    return s && s->len == strlen(w) && memcmp(s->p, w, s->len) == 0;
}

/* Copies a span into dst (size len): truncated on a UTF-8 character boundary, control
 * characters and NUL replaced by '?', always NUL-terminated. */
void rec_copy(char *dst, size_t len, const rec_span *s)
{
    size_t n = s ? s->len : 0;
    if (len == 0)
        return;
    if (n >= len) {
        n = len - 1;
        while (n > 0 && ((unsigned char)s->p[n] & 0xC0) == 0x80) /* s->p[n] continues a char */
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s->p[i];
        dst[i] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
    }
    dst[n] = '\0';
}

/* A span, present and not empty, as a C string in buf (size len); -1 when it does not fit. */
static int span_text(const rec_span *s, char *buf, size_t len)
{
    if (!s || s->len == 0 || s->len >= len)
        return -1;
    memcpy(buf, s->p, s->len);
    buf[s->len] = '\0';
    return 0;
}

/* A span as an unsigned decimal; -1 when absent, empty, signed, non-digit or too large. */
int rec_u64(const rec_span *s, uint64_t *out)
{
    char buf[24];
    return span_text(s, buf, sizeof buf) == 0 ? cml_parse_u64(buf, out) : -1;
}

/* A span as an int in [lo, hi]; -1 otherwise. */
int rec_int(const rec_span *s, int lo, int hi, int *out)
{
    uint64_t v;
    if (rec_u64(s, &v) != 0 || v < (uint64_t)lo || v > (uint64_t)hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* Any number strtod reads, the whole span: negative, nan and inf too. */
int rec_real(const rec_span *s, double *out)
{
    char buf[48], *end;
    if (span_text(s, buf, sizeof buf) != 0)
        return -1;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end != '\0' || (errno == ERANGE && isfinite(v) && v != 0))
        return -1;
    *out = v;
    return 0;
}

/* A span as a finite, non-negative number; -1 otherwise. */
int rec_double(const rec_span *s, double *out)
{
    double v;
    if (rec_real(s, &v) != 0 || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* Splits a line into its type and key=value fields; `msg=` takes the rest of the line. The
 * type is set even when the fields are not. -1 when a field has no '=', there are too many,
 * or the line is longer than MAX_LINE. */
int rec_split(const rec_span *line, rec_line *l)
{
    const char *p = line->p;
    size_t i = 0, len = line->len;
    memset(l, 0, sizeof *l);
    while (i < len && p[i] != ' ')
        i++;
    l->type = (rec_span){p, i};
    if (len > MAX_LINE)
        return -1;
    while (i < len) {
        while (i < len && p[i] == ' ')
            i++;
        size_t start = i;
        if (start == len)
            break;
        if (len - start >= 4 && memcmp(p + start, "msg=", 4) == 0)
            i = len;
        else
            while (i < len && p[i] != ' ')
                i++;
        const char *eq = memchr(p + start, '=', i - start);
        if (!eq || eq == p + start || l->nfields == REC_MAX_FIELDS)
            return -1;
        l->keys[l->nfields] = (rec_span){p + start, (size_t)(eq - (p + start))};
        l->vals[l->nfields++] = (rec_span){eq + 1, (size_t)(p + i - eq - 1)};
    }
    return 0;
}

/* The line of text that starts at *pos, without its newline and a final '\r', into *line;
 * moves *pos past it. 0 when no line is left. */
int rec_next_line(const char *text, size_t len, size_t *pos, rec_span *line)
{
    size_t i = *pos;
    if (!text || i >= len)
        return 0;
    const char *nl = memchr(text + i, '\n', len - i);
    size_t end = nl ? (size_t)(nl - text) : len;
    *line = (rec_span){text + i, end - i};
    if (line->len > 0 && line->p[line->len - 1] == '\r')
        line->len--;
    *pos = end + 1;
    return 1;
}
