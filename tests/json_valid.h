/* A strict recursive-descent JSON validator (RFC 8259) for the report tests: no dependency,
 * and strict where a lax reader would hide a bug: raw control characters in strings, invalid
 * UTF-8, bad escapes, leading zeros, trailing commas, trailing garbage. Header-only (static). */
#ifndef CML_TESTS_JSON_VALID_H
#define CML_TESTS_JSON_VALID_H

#include <string.h>

typedef struct {
    const unsigned char *p, *end;
    int depth;
} json_cursor;

static int jv_value(json_cursor *c);

static void jv_space(json_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int jv_literal(json_cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static int jv_digits(json_cursor *c)
{
    const unsigned char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > start;
}

static int jv_number(json_cursor *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!jv_digits(c))
        return 0;
    if (c->p < c->end && *c->p == '.' && (c->p++, !jv_digits(c)))
        return 0;
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!jv_digits(c))
            return 0;
    }
    return 1;
}

/* One UTF-8 character of a string (no overlongs, surrogates or values past U+10FFFF). */
static int jv_utf8(json_cursor *c)
{
    unsigned char b = *c->p;
    int need = b < 0x80 ? 0 : b >= 0xC2 && b <= 0xDF ? 1 : b >= 0xE0 && b <= 0xEF ? 2
             : b >= 0xF0 && b <= 0xF4 ? 3 : -1;
    if (need < 0 || c->end - c->p <= need)
        return 0;
    for (int i = 1; i <= need; i++)
        if ((c->p[i] & 0xC0) != 0x80)
            return 0;
    if ((b == 0xE0 && c->p[1] < 0xA0) || (b == 0xED && c->p[1] > 0x9F) ||
        (b == 0xF0 && c->p[1] < 0x90) || (b == 0xF4 && c->p[1] > 0x8F))
        return 0;
    c->p += need + 1;
    return 1;
}

static int jv_string(json_cursor *c)
{
    if (c->p >= c->end || *c->p++ != '"')
        return 0;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p < 0x20)
            return 0;
        if (*c->p != '\\') {
            if (!jv_utf8(c))
                return 0;
            continue;
        }
        if (++c->p >= c->end)
            return 0;
        if (*c->p == 'u') {
            for (int i = 1; i <= 4; i++)
                if (c->p + i >= c->end || !strchr("0123456789abcdefABCDEF", c->p[i]) || !c->p[i])
                    return 0;
            c->p += 5;
        } else if (*c->p && strchr("\"\\/bfnrt", *c->p)) {
            c->p++;
        } else {
            return 0;
        }
    }
    return c->p < c->end && *c->p++ == '"';
}

/* An object (is_object) or array after its opening bracket. */
static int jv_members(json_cursor *c, int is_object)
{
    char close = is_object ? '}' : ']';
    jv_space(c);
    if (c->p < c->end && *c->p == close)
        return c->p++, 1;
    for (;;) {
        jv_space(c);
        if (is_object) {
            if (!jv_string(c))
                return 0;
            jv_space(c);
            if (c->p >= c->end || *c->p++ != ':')
                return 0;
        }
        if (!jv_value(c))
            return 0;
        jv_space(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        return c->p < c->end && *c->p++ == close;
    }
}

static int jv_value(json_cursor *c)
{
    jv_space(c);
    if (c->p >= c->end || ++c->depth > 64)
        return 0;
    int ok;
    if (*c->p == '{' || *c->p == '[')
        ok = jv_members(c, *c->p++ == '{');
    else if (*c->p == '"')
        ok = jv_string(c);
    else if (*c->p == 't' || *c->p == 'f' || *c->p == 'n')
        ok = jv_literal(c, "true") || jv_literal(c, "false") || jv_literal(c, "null");
    else
        ok = jv_number(c);
    c->depth--;
    return ok;
}

/* Whether text[0..len) is exactly one valid JSON value (surrounding whitespace allowed). */
static inline int json_valid(const char *text, size_t len)
{
    json_cursor c = {(const unsigned char *)text, (const unsigned char *)text + len, 0};
    if (!jv_value(&c))
        return 0;
    jv_space(&c);
    return c.p == c.end;
}

#endif /* CML_TESTS_JSON_VALID_H */
