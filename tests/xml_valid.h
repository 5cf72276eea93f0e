/* A strict XML 1.0 well-formedness checker for the report tests (junit.xml, and feedback.html,
 * which is written as polyglot XHTML): one root element, matching end tags, quoted attributes,
 * no raw '<' or stray '&' in text or values, only the five predefined entities and character
 * references, no control character XML forbids, valid UTF-8. Not a validator of any schema.
 * Header-only (static), like json_valid.h. */
#ifndef CML_TESTS_XML_VALID_H
#define CML_TESTS_XML_VALID_H

#include <ctype.h>
#include <string.h>

typedef struct {
    const unsigned char *p, *end;
    int depth;
} xml_cursor;

static int xv_starts(const xml_cursor *c, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(c->end - c->p) >= n && memcmp(c->p, s, n) == 0;
}

static void xv_space(xml_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Skips past `close`; 0 when it never comes. */
static int xv_skip_past(xml_cursor *c, const char *close)
{
    const unsigned char *hit = memmem(c->p, (size_t)(c->end - c->p), close, strlen(close));
    if (!hit)
        return 0;
    c->p = hit + strlen(close);
    return 1;
}

/* A name: ASCII letters, digits, - _ . : (all the reports use). Returns its length, 0: none. */
static size_t xv_name(xml_cursor *c)
{
    const unsigned char *start = c->p;
    if (c->p < c->end && (isalpha(*c->p) || *c->p == '_' || *c->p == ':'))
        while (c->p < c->end && (isalnum(*c->p) || strchr("-_.:", *c->p)))
            c->p++;
    return (size_t)(c->p - start);
}

/* "&amp;" "&#39;" "&#x1F;": a reference at c->p (on '&'). */
static int xv_reference(xml_cursor *c)
{
    static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++)
        if (xv_starts(c, named[i])) {
            c->p += strlen(named[i]);
            return 1;
        }
    const unsigned char *q = c->p + 2;
    int hex = q < c->end && *q == 'x';
    q += hex;
    const unsigned char *digits = q;
    while (q < c->end && (hex ? isxdigit(*q) : isdigit(*q)))
        q++;
    if (!xv_starts(c, "&#") || q == digits || q >= c->end || *q != ';')
        return 0;
    c->p = q + 1;
    return 1;
}

/* Characters up to `stop` (text: '<'; attribute value: its quote). Text may not hold "]]>". */
static int xv_chars(xml_cursor *c, unsigned char stop)
{
    while (c->p < c->end && *c->p != stop) {
        unsigned char b = *c->p;
        if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == '<' ||
            (stop == '<' && xv_starts(c, "]]>")))
            return 0;
        if (b != '&')
            c->p++;
        else if (!xv_reference(c))
            return 0;
    }
    return 1;
}

static int xv_element(xml_cursor *c)
{
    if (++c->depth > 64 || !xv_starts(c, "<") || (c->p++, 0))
        return 0;
    const unsigned char *name = c->p;
    size_t len = xv_name(c);
    for (;;) {
        const unsigned char *before = c->p;
        xv_space(c);
        if (xv_starts(c, "/>"))
            return c->p += 2, c->depth--, len > 0;
        if (xv_starts(c, ">"))
            break;
        if (c->p == before || !xv_name(c) || (xv_space(c), !xv_starts(c, "=")))
            return 0;
        c->p++;
        xv_space(c);
        unsigned char q = c->p < c->end ? *c->p : 0;
        if ((q != '"' && q != '\'') || (c->p++, !xv_chars(c, q)) || c->p >= c->end)
            return 0;
        c->p++;
    }
    c->p++;
    for (;;) {
        if (!len || !xv_chars(c, '<') || c->p >= c->end)
            return 0;
        if (xv_starts(c, "<!--")) {
            if (!xv_skip_past(c, "-->"))
                return 0;
        } else if (xv_starts(c, "</")) {
            c->p += 2;
            if ((size_t)(c->end - c->p) < len || memcmp(c->p, name, len) != 0)
                return 0;
            c->p += len;
            xv_space(c);
            return xv_starts(c, ">") ? (c->p++, c->depth--, 1) : 0;
        } else if (!xv_element(c)) {
            return 0;
        }
    }
}

/* Whether s[0..n) is valid UTF-8 (json_valid.h's check, on its own). */
static int xv_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t need = s[i] < 0x80 ? 0 : s[i] >= 0xC2 && s[i] <= 0xDF ? 1
                    : s[i] >= 0xE0 && s[i] <= 0xEF ? 2 : s[i] >= 0xF0 && s[i] <= 0xF4 ? 3 : 9;
        if (need == 9 || (need > 0 && i + need >= n))
            return 0;
        for (size_t k = 1; k <= need; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        i += need + 1;
    }
    return 1;
}

/* Whether s[0..n) is a well-formed XML document (an XML declaration, a DOCTYPE and comments
 * allowed before the root element). */
static int xml_valid(const char *s, size_t n)
{
    xml_cursor c = {(const unsigned char *)s, (const unsigned char *)s + n, 0};
    if (!xv_utf8(c.p, n))
        return 0;
    if (xv_starts(&c, "<?xml") && !xv_skip_past(&c, "?>"))
        return 0;
    for (;;) {
        xv_space(&c);
        if (xv_starts(&c, "<!--") || xv_starts(&c, "<!DOCTYPE")) {
            if (!xv_skip_past(&c, xv_starts(&c, "<!--") ? "-->" : ">"))
                return 0;
        } else {
            break;
        }
    }
    if (!xv_element(&c))
        return 0;
    xv_space(&c);
    return c.p == c.end;
}

#endif /* CML_TESTS_XML_VALID_H */
