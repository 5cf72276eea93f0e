/* records: parse what a lab binary wrote through CML_RESULT_FD (docs/PROTOCOL.md, "The
 * result protocol"). The text comes from a process running student code, so nothing in it is
 * trusted: lines are read in place (never copied whole), every value is bounds- and
 * syntax-checked, strings are truncated on a UTF-8 boundary with control characters replaced
 * (the line level: records_line.c; each record type: records_types.c). */
#include "records_parse.h"

#include <stdlib.h>
#include <string.h>

/* Contract in records.h. */
cml_channel_progress cml_records_progress(const char *said)
{
    cml_channel_progress p = {0, 0, 0};
    cml_run_record *rec = malloc(sizeof *rec);
    if (rec && cml_records_parse(said ? said : "", said ? strlen(said) : 0, rec, NULL) == 0) {
        p.hello = rec->hello;
        p.done = rec->done;
        for (int k = 0; k < rec->ncases; k++) /* each case recorded once counts */
            p.cases += rec->cases[k].status != CML_CASE_MISSING;
    }
    free(rec);
    return p;
}

/* Parses the result file a lab binary wrote. Unknown record types and malformed lines are
 * skipped (counted in *bad_lines if non-NULL); empty lines are ignored. A later `case` or
 * `time` record for the same k replaces the earlier one. Returns 0; -1 when out is NULL. */
int cml_records_parse(const char *text, size_t len, cml_run_record *out, int *bad_lines)
{
    int bad = 0;
    rec_span line;
    rec_line l;
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    for (size_t pos = 0; rec_next_line(text, len, &pos, &line);)
        if (line.len > 0 && (rec_split(&line, &l) != 0 || rec_dispatch(&l, out) != 0))
            bad++;
    if (bad_lines)
        *bad_lines = bad;
    return 0;
}
