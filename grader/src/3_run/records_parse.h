/* Internal to the protocol reader: a line split into spans of the original text
 * (records_line.c) and the handlers of each record type (records_types.c).
 * Depends on records.h (the reader's entry points, and through it cml.h); records.h does not
 * include it back. */
#ifndef CML_RECORDS_PARSE_H
#define CML_RECORDS_PARSE_H

#include "records.h"

#define REC_MAX_FIELDS 24

typedef struct {
    const char *p;
    size_t len;
} rec_span;

typedef struct {
    rec_span type;
    int nfields;
    rec_span keys[REC_MAX_FIELDS], vals[REC_MAX_FIELDS];
} rec_line;

/* The value of field `key`, or NULL. */
const rec_span *rec_get(const rec_line *l, const char *key);
/* Whether span s (may be NULL) equals the C string w. */
int rec_is(const rec_span *s, const char *w);
/* Bounded, NUL-terminated, UTF-8-safe copy with control characters replaced by '?'. */
void rec_copy(char *dst, size_t len, const rec_span *s);
/* Strict conversions; -1 when the span is absent or malformed. */
int rec_u64(const rec_span *s, uint64_t *out);
int rec_int(const rec_span *s, int lo, int hi, int *out);
int rec_double(const rec_span *s, double *out);
int rec_real(const rec_span *s, double *out);

/* The line of text at *pos (no newline, no final '\r'); moves *pos on. 0 when none is left. */
int rec_next_line(const char *text, size_t len, size_t *pos, rec_span *line);
/* Splits a line into its type (always set) and key=value fields; -1 when malformed. */
int rec_split(const rec_span *line, rec_line *l);

/* Applies one split line to out by its type; 0 when accepted, -1 when skipped. */
int rec_dispatch(const rec_line *l, cml_run_record *out);

#endif /* CML_RECORDS_PARSE_H */
