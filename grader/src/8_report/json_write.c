/* json_write: the reports' JSON writer (see json_write.h) and atomic file writes. */
#include "json_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Contract in json_write.h. */
size_t cml_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t need = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
                : c >= 0xF0 && c <= 0xF4 ? 3 : 4;
    if (need == 4 || n < need + 1)
        return 0;
    for (size_t i = 1; i <= need; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return need + 1;
}

/* s[0..n) as a JSON string literal with its quotes. */
void jw_write_escaped(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        size_t len = cml_utf8_seq(u + i, n - i);
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f" : NULL;
        if (esc)
            fputs(esc, f);
        else if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\u%04x", c);
        else if (len == 0)
            fputs("\\ufffd", f);
        else
            fwrite(u + i, 1, len, f);
        i += len ? len : 1;
    }
    fputc('"', f);
}

/* The value count of the innermost open level (levels past JW_MAX_DEPTH share the last). */
static int *level_count(json_w *w)
{
    return &w->count[(w->depth < JW_MAX_DEPTH ? w->depth : JW_MAX_DEPTH) - 1];
}

/* Comma, newline and indentation before a value, then its key. */
static void before(json_w *w, const char *key)
{
    if (w->depth > 0) {
        fputs((*level_count(w))++ ? ",\n" : "\n", w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    if (key) {
        jw_write_escaped(w->f, key, strlen(key));
        fputs(": ", w->f);
    }
}

static void open_level(json_w *w, const char *key, char bracket)
{
    before(w, key);
    fputc(bracket, w->f);
    w->depth++;
    *level_count(w) = 0;
}

static void close_level(json_w *w, char bracket)
{
    int had = *level_count(w) > 0;
    w->depth--;
    if (had) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    fputc(bracket, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

void jw_begin_object(json_w *w, const char *key) { open_level(w, key, '{'); }
void jw_end_object(json_w *w) { close_level(w, '}'); }
void jw_begin_array(json_w *w, const char *key) { open_level(w, key, '['); }
void jw_end_array(json_w *w) { close_level(w, ']'); }

void jw_string(json_w *w, const char *key, const char *s)
{
    before(w, key);
    if (s)
        jw_write_escaped(w->f, s, strlen(s));
    else
        fputs("null", w->f);
}

void jw_number(json_w *w, const char *key, double v)
{
    before(w, key);
    if (isfinite(v))
        fprintf(w->f, "%.15g", v);
    else
        fputs("null", w->f);
}

void jw_int(json_w *w, const char *key, long long v)
{
    before(w, key);
    fprintf(w->f, "%lld", v);
}

void jw_u64(json_w *w, const char *key, uint64_t v)
{
    before(w, key);
    fprintf(w->f, "%llu", (unsigned long long)v);
}

void jw_bool(json_w *w, const char *key, int v)
{
    before(w, key);
    fputs(v ? "true" : "false", w->f);
}

/* Writes path through path.tmp and a rename; 0 on success, -1 (no file left behind) on error. */
int cml_write_atomic(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 5);
    if (!tmp)
        return -1;
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    int rc = f ? 0 : -1;
    if (f) {
        write(f, ctx);
        rc = (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) ? -1 : 0;
        rc |= fclose(f) != 0 ? -1 : 0;
        if (rc == 0 && rename(tmp, path) != 0)
            rc = -1;
        if (rc != 0)
            unlink(tmp);
    }
    free(tmp);
    return rc;
}
