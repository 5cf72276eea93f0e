/* A student file's text as the compiler saw it: its own lines of the preprocessed translation
 * unit. `#if 0` blocks and comments are gone, macros are expanded (so `a##b` shows the name it
 * pastes), and lines that came from headers are left out. Source checks (forbid) read this. */
#include "technique.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Blank the inside of every string and character literal (the quotes stay): a stringified
 * call such as CML_CHECK's "cudaHostAlloc(...)" names a call without making it. */
static void blank_literals(char *s)
{
    char quote = 0;
    for (; *s; s++) {
        if (quote) {
            if (*s == '\\' && s[1] && s[1] != '\n')
                *s++ = ' ';
            if (*s == quote)
                quote = 0;
            else if (*s != '\n')
                *s = ' ';
        } else if (*s == '"' || *s == '\'') {
            quote = *s;
        }
    }
}

/* Whether the marker's file names `file` (the staged copy's path ends in "/<file>"). */
static int names(const char *marker_file, const char *file)
{
    size_t m = strlen(marker_file), f = strlen(file);
    return m >= f && strcmp(marker_file + m - f, file) == 0 &&
           (m == f || marker_file[m - f - 1] == '/');
}

/* Contract in technique.h. */
char *cml_own_text(const char *ii, const char *file, long **linenos)
{
    size_t len = strlen(ii), lines = 1;
    for (const char *p = ii; *p; p++)
        lines += *p == '\n';
    char *out = malloc(len + 1), current[CML_PATH] = "";
    long *map = calloc(lines + 1, sizeof *map), no = 0;
    if (!out || !map) {
        free(out);
        free(map);
        return NULL;
    }
    size_t o = 0, k = 0;
    for (const char *l = ii; *l; k++) {
        size_t n = strcspn(l, "\n");
        int marker = cml_line_marker(l, &no, current, sizeof current);
        if (!marker && names(current, file)) {
            memcpy(out + o, l, n);
            o += n;
        }
        no += !marker;
        map[k] = marker ? 0 : no;
        out[o++] = '\n';
        l += n + (l[n] == '\n');
    }
    out[o] = '\0';
    blank_literals(out);
    *linenos = map;
    return out;
}
