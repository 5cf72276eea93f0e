/* C and C++ text as the compiler tokenises it: contracts in lex.h. */
#include "lex.h"

#include <ctype.h>
#include <string.h>

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether the quote at s[i] is a digit separator (1'000, 0x7f'ff): the run of number
 * characters before it starts with a digit. A run that starts with a letter is an identifier
 * or an encoding prefix (u8'a', L'a'), and the quote opens a character literal. */
static int digit_separator(const char *s, size_t i)
{
    size_t b = i;
    while (b > 0 && (ident_char(s[b - 1]) || s[b - 1] == '.' || s[b - 1] == '\''))
        b--;
    return b < i && (isdigit((unsigned char)s[b]) ||
                     (s[b] == '.' && isdigit((unsigned char)s[b + 1])));
}

/* Whether the quote at s[i] opens a raw string: the identifier just before it is one of
 * R, u8R, uR, UR, LR. */
static int raw_string(const char *s, size_t i)
{
    static const char *const PREFIX[] = { "R", "u8R", "uR", "UR", "LR" };
    size_t b = i;
    while (b > 0 && ident_char(s[b - 1]))
        b--;
    for (size_t k = 0; k < sizeof PREFIX / sizeof PREFIX[0]; k++)
        if (i - b == strlen(PREFIX[k]) && strncmp(s + b, PREFIX[k], i - b) == 0)
            return 1;
    return 0;
}

/* Blank s[from, to) when on (newlines kept); returns to. */
static size_t blank(char *s, size_t from, size_t to, int on)
{
    for (size_t k = from; on && k < to; k++)
        if (s[k] != '\n')
            s[k] = ' ';
    return to;
}

/* End (one past the closing quote) of the raw string whose quote is at s[i]. */
static size_t raw_end(const char *s, size_t i)
{
    size_t d = i + 1, n = 0;
    while (s[d + n] && s[d + n] != '(' && n < 16)
        n++;
    if (s[d + n] != '(')
        return i + 1; /* not a raw string after all (the compiler will say so) */
    for (size_t k = d + n + 1; s[k]; k++)
        if (s[k] == ')' && strncmp(s + k + 1, s + d, n) == 0 && s[k + 1 + n] == '"')
            return k + n + 2;
    return strlen(s);
}

/* End of the ordinary literal whose quote (" or ') is at s[i]: one past the closing quote,
 * or the line's end when it has none. */
static size_t literal_end(const char *s, size_t i)
{
    size_t k = i + 1;
    for (; s[k] && s[k] != s[i]; k++) {
        if (s[k] == '\\' && s[k + 1])
            k++;
        else if (s[k] == '\n')
            return k;
    }
    return s[k] ? k + 1 : k;
}

/* End of the // comment at s[i]: its line's end, past any line splices. */
static size_t line_comment_end(const char *s, size_t i)
{
    size_t k = i;
    for (; s[k] && s[k] != '\n'; k++)
        if (s[k] == '\\' && (s[k + 1] == '\n' || (s[k + 1] == '\r' && s[k + 2] == '\n')))
            k += s[k + 1] == '\r' ? 2 : 1;
    return k;
}

/* Contract in lex.h. */
void cml_blank_code(char *s, int flags)
{
    int comments = flags & CML_BLANK_COMMENTS, literals = (flags & CML_BLANK_LITERALS) != 0;
    size_t i = 0;
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
        i = blank(s, 0, 3, 1);
    while (s[i]) {
        if (s[i] == '/' && s[i + 1] == '/') {
            i = blank(s, i, line_comment_end(s, i), comments);
        } else if (s[i] == '/' && s[i + 1] == '*') {
            const char *end = strstr(s + i + 2, "*/");
            i = blank(s, i, end ? (size_t)(end - s) + 2 : strlen(s), comments);
        } else if (s[i] == '"' && raw_string(s, i)) {
            size_t end = raw_end(s, i);
            blank(s, i + 1, end > i + 1 ? end - 1 : end, literals);
            i = end;
        } else if (s[i] == '"' || (s[i] == '\'' && !digit_separator(s, i))) {
            size_t end = literal_end(s, i);
            blank(s, i + 1, end > i + 1 && s[end - 1] == s[i] ? end - 1 : end, literals);
            i = end;
        } else {
            i++;
        }
    }
}

/* Contract in lex.h. "line" also matches the short form `# 7 "file"`. */
int cml_is_directive(const char *l, const char *name)
{
    l += strspn(l, " \t\r");
    if (*l != '#')
        return 0;
    l += 1 + strspn(l + 1, " \t");
    if (!name)
        return 1;
    size_t n = strlen(name);
    if (strcmp(name, "line") == 0 && isdigit((unsigned char)*l))
        return 1;
    return strncmp(l, name, n) == 0 && !ident_char(l[n]);
}
