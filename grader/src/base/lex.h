/* The one reader of C and C++ source text as the compiler tokenises it: what is a comment,
 * what is a string or character literal, and what is code. Every rule that reads a student's
 * text goes through here, so a comment never counts and a literal never hides code: digit
 * separators (4'000'000), raw strings (R"x(...)x"), encoding prefixes (u8"", L''), line
 * splices (a backslash at a line's end) and a UTF-8 byte-order mark are all handled. */
#ifndef CML_LEX_H
#define CML_LEX_H

#include <stddef.h>

enum {
    CML_BLANK_COMMENTS = 1, /* comments become spaces (newlines kept: line numbers hold) */
    CML_BLANK_LITERALS = 2  /* the inside of string and character literals becomes spaces
                               (quotes and newlines kept) */
};

/* Blank what `flags` names in the NUL-terminated text s, in place; a leading UTF-8
 * byte-order mark becomes spaces too. Lengths never change, so an offset into the result is
 * an offset into the original. An unterminated comment or literal is blanked to the end. */
void cml_blank_code(char *s, int flags);

/* Whether line l (up to its newline) of text already blanked by cml_blank_code is a
 * preprocessing directive named `name` ("line", "include", "pragma"...): '#' first on the
 * line, then the name as a whole word. With name NULL, any directive. */
int cml_is_directive(const char *l, const char *name);

#endif /* CML_LEX_H */
