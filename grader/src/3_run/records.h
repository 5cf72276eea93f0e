/* The result protocol reader (records.c, records_line.c, records_types.c, records_claims.c):
 * what a lab binary wrote through CML_RESULT_FD into a cml_run_record (docs/PROTOCOL.md,
 * "The result protocol"). Depends on cml.h (the record types). records_parse.h, the reader's
 * internals, builds on it. */
#ifndef CML_RECORDS_H
#define CML_RECORDS_H

#include <stddef.h>

#include "cml.h"

/* records.c: parse the result file a lab binary wrote through CML_RESULT_FD.
 * Unknown record types and malformed lines are skipped (counted in *bad_lines if non-NULL). */
int cml_records_parse(const char *text, size_t len, cml_run_record *out, int *bad_lines);

/* records_claims.c: parse a run's result file as what it is, claims by the student's process.
 * Only records before the first `done` count. out->tampered is set, with what was seen in
 * out->tamper, for any record after `done`, a `case` or `time` record for a k or task the
 * grader did not ask for, a second one for the same k, a `time` record for a case not asked
 * to be timed or not `status=ok`, and a malformed line after `hello` (the harness writes none;
 * `todo` and `note` lines carry the student's own text and are only skipped). Returns 0. */
int cml_records_parse_claims(const char *text, size_t len, const cml_run_asked *asked,
                             cml_run_record *out);

/* records.c: how far a run under a tool got, from what it said on its result channel (NULL:
 * nothing): whether it said hello and done, and how many cases got a record. The tools' runs
 * get the graded runs' channel so that a lab cannot tell them apart; one that said hello but
 * stopped short of done after its cases saw only part of the work. */
typedef struct {
    int hello, done, cases;
} cml_channel_progress;
cml_channel_progress cml_records_progress(const char *said);

#endif /* CML_RECORDS_H */
