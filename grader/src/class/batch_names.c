/* A student's two names in a batch (batch.h): the folder name the batch's files live under,
 * ASCII only, and the name as the class list has it (UTF-8), which the gradebook, the feedback
 * and the record keep. */
#include "batch.h"
#include "json_write.h"

#include <stdio.h>
#include <string.h>

/* ASCII for U+00C0..U+017F, one character each; '*' marks the letters that take two (below),
 * '_' the signs (multiplication, division) that are no letter. */
static const char LATIN[] =
    "AAAAAA*CEEEEIIIIDNOOOOO_OUUUUY**aaaaaa*ceeeeiiiidnooooo_ouuuuy*y" /* U+00C0..U+00FF */
    "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIi**JjKkkLlLlLlLlLlNnNnNnnNnOoOoOo**"
    "RrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs"; /* U+0100..U+017F */

/* The two-letter ones. */
static const struct { unsigned cp; const char *ascii; } PAIRS[] = {
    { 0xC6, "AE" }, { 0xDE, "Th" }, { 0xDF, "ss" }, { 0xE6, "ae" }, { 0xFE, "th" },
    { 0x132, "IJ" }, { 0x133, "ij" }, { 0x152, "OE" }, { 0x153, "oe" } };

/* The code point of the valid UTF-8 sequence u[0..len). */
static unsigned code_point(const unsigned char *u, size_t len)
{
    unsigned cp = len == 1 ? u[0] : u[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++)
        cp = cp << 6 | (u[i] & 0x3F);
    return cp;
}

/* What code point cp becomes in a folder name: itself for [A-Za-z0-9._-], a Latin letter
 * without its accent, else "_". */
static const char *ascii_of(unsigned cp, char one[2])
{
    one[1] = '\0';
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
        cp == '.' || cp == '-' || cp == '_')
        return one[0] = (char)cp, one;
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++)
        if (PAIRS[i].cp == cp)
            return PAIRS[i].ascii;
    return one[0] = cp >= 0xC0 && cp <= 0x17F ? LATIN[cp - 0xC0] : '_', one;
}

/* Contract in batch.h. */
void cml_folder_name(const char *name, char *out, size_t len)
{
    const unsigned char *u = (const unsigned char *)name;
    size_t used = 0, n = strlen(name);
    char one[2];
    for (size_t i = 0; i < n && len > 0;) {
        size_t seq = cml_utf8_seq(u + i, n - i);
        const char *a = seq ? ascii_of(code_point(u + i, seq), one) : "_";
        if (used + strlen(a) >= len)
            break;
        memcpy(out + used, a, strlen(a));
        used += strlen(a);
        i += seq ? seq : 1;
    }
    if (len > 0)
        out[used] = '\0';
    if (len > 1 && !out[0]) /* never "", "." or "..": a folder needs a name of its own */
        out[0] = '_', out[1] = '\0';
    else if (len > 1 && out[0] == '.')
        out[0] = '_';
}

/* Contract in batch.h. */
void cml_display_name(const char *name, char *out, size_t len)
{
    const unsigned char *u = (const unsigned char *)name;
    size_t used = 0, n = strlen(name);
    for (size_t i = 0; i < n && len > 0;) {
        size_t seq = cml_utf8_seq(u + i, n - i);
        const char *put = seq == 0 ? "\xEF\xBF\xBD" : u[i] < 0x20 || u[i] == 0x7F ? " " : NULL;
        size_t k = put ? strlen(put) : seq;
        if (used + k >= len)
            break;
        memcpy(out + used, put ? put : name + i, k);
        used += k;
        i += seq ? seq : 1;
    }
    if (len > 0)
        out[used] = '\0';
}
