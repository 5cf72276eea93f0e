/* report_markup: writing untrusted text (details, compiler logs, the submission's path) into
 * HTML, SVG, XML and Markdown, where a student's `</svg><script>` or `|` must stay text.
 * One walker over the bytes; the output format only decides what a special character becomes.
 * And cml_put_clean, the same text as plain text (the terminal, Gradescope's text), here below
 * every report that prints it: kept in report_term.c, it made report_tech.c and
 * report_sanitize.c call back into the terminal report that calls them. */
#include "report.h"

#include <string.h>

enum markup { MARKUP_XML, MARKUP_MD, MARKUP_CODE };

/* What the XML and HTML of the reports write for c, or NULL to write c itself. */
static const char *xml_entity(unsigned char c)
{
    return c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
         : c == '\'' ? "&#39;" : NULL;
}

/* The same for a Markdown table cell or line: every character that makes emphasis, code, a
 * link, a new table cell, raw HTML (< >) or an entity (&) backslash-escaped, which CommonMark
 * allows before any ASCII punctuation and shows as the character itself. No HTML entity: a
 * Markdown reader that is not a browser would show "&quot;" as it is. */
static const char *md_entity(unsigned char c)
{
    static const char *const escaped[] = { "\\\\", "\\`", "\\*", "\\_", "\\[", "\\]", "\\|",
                                           "\\~", "\\#", "\\!", "\\&", "\\<", "\\>" };
    for (size_t i = 0; i < sizeof escaped / sizeof escaped[0]; i++)
        if (c == (unsigned char)escaped[i][1])
            return escaped[i];
    return NULL;
}

/* Writes the one character at u (n bytes left) in the chosen markup; returns its length.
 * Control characters become '?' (XML 1.0 forbids most of them), newlines, tabs and carriage
 * returns a space unless keep_lines (then a carriage return is dropped), invalid UTF-8 and
 * the non-characters U+FFFE, U+FFFF U+FFFD. */
static size_t put_one(FILE *f, const unsigned char *u, size_t n, enum markup m, int keep_lines)
{
    unsigned char c = u[0];
    size_t len = cml_utf8_seq(u, n);
    const char *ent = m == MARKUP_XML ? xml_entity(c) : m == MARKUP_MD ? md_entity(c) : NULL;
    if (c == '\r' && keep_lines)
        return 1; /* the \n of a \r\n keeps the line; a lone \r would only overwrite it */
    if (c == '\n' || c == '\t' || c == '\r')
        fputc(keep_lines ? c : ' ', f);
    else if (c < 0x20 || c == 0x7F || (len == 2 && c == 0xC2 && u[1] < 0xA0))
        fputc('?', f); /* C0, DEL and the C1 controls (U+0080..U+009F) */
    else if (ent)
        fputs(ent, f);
    else if (len == 0 || (len == 3 && c == 0xEF && u[1] == 0xBF && u[2] >= 0xBE))
        fputs("\xEF\xBF\xBD", f);
    else
        fwrite(u, 1, len, f);
    return len ? len : 1;
}

static void put_markup(FILE *f, const char *s, enum markup m, int keep_lines)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u);
    for (size_t i = 0; i < n;)
        i += put_one(f, u + i, n - i, m, keep_lines);
}

/* Contract in report.h. */
void cml_put_xml(FILE *f, const char *s, int keep_lines)
{
    put_markup(f, s, MARKUP_XML, keep_lines);
}

/* Contract in report.h. */
void cml_put_md(FILE *f, const char *s)
{
    put_markup(f, s, MARKUP_MD, 0);
}

static void put_fence(FILE *f, size_t len)
{
    for (size_t i = 0; i < len; i++)
        fputc('`', f);
    fputc('\n', f);
}

/* Contract in report.h. */
void cml_put_md_code(FILE *f, const char *s)
{
    size_t run = 0, longest = 0, n = s ? strlen(s) : 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    size_t fence = longest < 3 ? 3 : longest + 1; /* longer than any run inside */
    put_fence(f, fence);
    put_markup(f, s, MARKUP_CODE, 1); /* verbatim, but valid UTF-8 and no control bytes */
    if (n && s[n - 1] != '\n')
        fputc('\n', f);
    put_fence(f, fence);
}

/* Untrusted text with control characters neutralised (see report.h). */
void cml_put_clean(FILE *f, const char *s, int keep_lines)
{
    for (const unsigned char *c = (const unsigned char *)s; s && *c; c++) {
        if ((*c == '\n' || *c == '\t') && keep_lines)
            fputc(*c, f);
        else if (*c == '\n' || *c == '\t')
            fputc(' ', f);
        else
            fputc(*c < 0x20 || *c == 0x7F ? '?' : *c, f);
    }
}
