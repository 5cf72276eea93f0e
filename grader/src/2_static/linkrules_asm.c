/* Link rules on host assembly: no system-call instruction in the student object's host code
 * (objdump -d), and no asm statement in its host-side translation (nvcc --keep's
 * <base>.cudafe1.cpp, where device function bodies sit inside `#if 0` and each line's origin is
 * given by line markers) on the lines of the student's own file, which may therefore hold no line
 * directive. Headers' host asm (CCCL's `pause`) is not the student's. Device-side inline PTX
 * stays legal. */
#include "linkrules_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Contract in linkrules_int.h. */
void lr_check_instructions(lr_ctx *c, const lr_object *o)
{
    char func[256] = "?";
    for (const char *l = o->disasm; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
        size_t len = strcspn(l, "\n");
        if (lr_disasm_header(l, len, func, sizeof func))
            continue;
        const char *t1 = memchr(l, '\t', len), *t2 = t1 ? memchr(t1 + 1, '\t', l + len - t1 - 1)
                                                          : NULL;
        if (!t2)
            continue;
        char ins[128];
        snprintf(ins, sizeof ins, "%.*s", (int)(l + len - t2 - 1), t2 + 1);
        size_t m = strcspn(ins, " ");
        int bad = (m == 7 && strncmp(ins, "syscall", 7) == 0) ||
                  (m == 8 && strncmp(ins, "sysenter", 8) == 0) ||
                  (m == 3 && strncmp(ins, "int", 3) == 0 && strstr(ins, "$0x80"));
        if (bad)
            lr_say(c, "'%s' executes '%s': a student file may not make system calls itself "
                   "(rule: asm)", func, ins);
    }
}

/* The asm keyword at s (asm, __asm, __asm__) as a whole identifier: its length, else 0. */
static size_t asm_keyword(const char *line, const char *s)
{
    static const char *const KW[] = { "__asm__", "__asm", "asm" };
    if (s > line && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
        return 0;
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(KW[i]);
        if (strncmp(s, KW[i], n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_')
            return n;
    }
    return 0;
}

/* The first asm keyword of a line outside string and character literals; NULL when none. */
static const char *find_asm(const char *line, size_t *kwlen)
{
    char quote = 0;
    for (const char *s = line; *s; s++) {
        if (quote) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == quote)
                quote = 0;
        } else if (*s == '"' || *s == '\'') {
            quote = *s;
        } else if ((*kwlen = asm_keyword(line, s)) != 0) {
            return s;
        }
    }
    return NULL;
}

/* A line directive in the student's own source (`#line 7 "x.h"` or `# 7 "x.h"`) would make its
 * code look as if it came from a header: refused. */
static void check_line_directives(lr_ctx *c, const char *dir, const char *cu)
{
    char path[CML_PATH];
    char *text = cml_fmt(path, sizeof path, "%s/%s", dir, cu) == 0
                 ? cml_read_text(path, (size_t)4 << 20, NULL) : NULL;
    long lineno = 1;
    for (const char *l = text; l && *l; lineno++) {
        const char *s = l + strspn(l, " \t");
        if (*s == '#') {
            s += 1 + strspn(s + 1, " \t");
            if (isdigit((unsigned char)*s) ||
                (strncmp(s, "line", 4) == 0 && !isalnum((unsigned char)s[4]) && s[4] != '_'))
                lr_say(c, "has a line directive at %s:%ld: it would hide where code comes "
                       "from (rule: asm)", cu, lineno);
        }
        l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "";
    }
    free(text);
}

/* Contract in linkrules_int.h. */
void lr_check_asm_source(lr_ctx *c, const char *dir, const char *keep_dir, const char *cu)
{
    char path[CML_PATH], file[CML_PATH] = "", *line = NULL;
    size_t cap = 0;
    if (cml_fmt(path, sizeof path, "%s/%s/%.*s.cudafe1.cpp", dir, keep_dir,
                (int)(strlen(cu) - 3), cu) < 0)
        return;
    FILE *f = fopen(path, "r");
    if (!f) {
        lr_note(c, "link rules: %s.cudafe1.cpp not found: asm statements in host code were "
                "checked only by their instructions", cu);
        return;
    }
    check_line_directives(c, dir, cu);
    long lineno = 0;
    int skip = 0; /* depth inside #if 0: device function bodies */
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (cml_line_marker(line, &lineno, file, sizeof file))
            continue;
        if (line[0] == '#') {
            skip += strncmp(line, "#if", 3) == 0 && (skip || strcmp(line, "#if 0") == 0);
            skip -= skip && strncmp(line, "#endif", 6) == 0;
            continue;
        }
        size_t kw = 0;
        const char *a = skip || strcmp(file, cu) != 0 ? NULL : find_asm(line, &kw);
        if (a)
            lr_say(c, "host code at %s:%ld uses inline assembly ('%.60s'): only device code "
                   "may (rule: asm)", file, lineno, a);
    }
    free(line);
    fclose(f);
}
