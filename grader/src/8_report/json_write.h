/* A small streaming JSON writer for the reports: always valid output, whatever the strings
 * hold (control characters escaped, invalid UTF-8 replaced by U+FFFD), and non-finite numbers
 * written as null. Two-space indentation, one value per line. */
#ifndef CML_JSON_WRITE_H
#define CML_JSON_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

typedef struct {
    FILE *f;
    int depth;
    int count[JW_MAX_DEPTH]; /* values written so far at each open level */
} json_w;

/* Each writer takes the member's key inside an object, NULL inside an array or at the top. */
void jw_begin_object(json_w *w, const char *key);
void jw_end_object(json_w *w);
void jw_begin_array(json_w *w, const char *key);
void jw_end_array(json_w *w);
void jw_string(json_w *w, const char *key, const char *s);   /* NULL s: null */
void jw_number(json_w *w, const char *key, double v);        /* NaN, inf: null */
void jw_int(json_w *w, const char *key, long long v);
void jw_u64(json_w *w, const char *key, uint64_t v);
void jw_bool(json_w *w, const char *key, int v);

/* Length of the valid UTF-8 sequence at s (n bytes left, n >= 1), 0 when it is not one: no
 * overlong forms, no surrogates, nothing above U+10FFFF. The markup writers share it. */
size_t cml_utf8_seq(const unsigned char *s, size_t n);

/* s[0..n) as a JSON string literal with its quotes. */
void jw_write_escaped(FILE *f, const char *s, size_t n);

/* Writes a file through a temporary `path.tmp` renamed over `path` once complete, so a reader
 * never sees half a file. write(f, ctx) produces the content. 0 on success, -1 on any error. */
int cml_write_atomic(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx);

#endif /* CML_JSON_WRITE_H */
