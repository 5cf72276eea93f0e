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
#include <unistd.h>

#include "lex.h"
#include "util.h"

/* Contract in linkrules_int.h. */
void lr_check_instructions(lr_ctx *c, const lr_object *o)
{
    char func[LR_NAME_MAX] = "?";
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

/* The first asm keyword of a line whose comments and literals are blanked; NULL when none. */
static const char *find_asm(const char *line)
{
    for (const char *s = line; *s; s++)
        if (asm_keyword(line, s))
            return s;
    return NULL;
}

/* A line directive in the student's own source (`#line 7 "x.h"` or `# 7 "x.h"`) would make its
 * code look as if it came from a header: refused. Read as the compiler reads it: a comment or a
 * string that holds such a line is not one. */
static void check_line_directives(lr_ctx *c, const char *dir, const char *cu)
{
    char path[CML_PATH];
    char *text = cml_fmt(path, sizeof path, "%s/%s", dir, cu) == 0
                 ? cml_read_text(path, (size_t)4 << 20, NULL) : NULL;
    if (text)
        cml_blank_code(text, CML_BLANK_COMMENTS | CML_BLANK_LITERALS);
    long lineno = 1;
    for (const char *l = text; l && *l; lineno++) {
        if (cml_is_directive(l, "line"))
            lr_say(c, "has a line directive at %s:%ld: it would hide where code comes from; "
                   "delete the line (rule: asm)", cu, lineno);
        l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "";
    }
    free(text);
}

/* Contract in linkrules_int.h. */
int lr_host_lines(const char *path, const char *cu, lr_host_line_fn fn, void *arg)
{
    char *text = cml_read_text(path, (size_t)256 << 20, NULL);
    if (!text)
        return -1;
    char *plain = strdup(text), file[CML_PATH] = "";
    if (plain)
        cml_blank_code(plain, CML_BLANK_COMMENTS | CML_BLANK_LITERALS);
    long lineno = 0;
    int skip = 0, done = 0; /* skip: depth inside #if 0 (device function bodies) */
    for (char *l = text, *b = plain; plain && *l && !done; ) {
        size_t n = strcspn(l, "\n");
        char end = l[n];
        l[n] = b[n] = '\0';
        lineno++;
        if (l[0] == '#' && !cml_line_marker(l, &lineno, file, sizeof file)) {
            skip += strncmp(l, "#if", 3) == 0 && (skip || strcmp(l, "#if 0") == 0);
            skip -= skip && strncmp(l, "#endif", 6) == 0;
        } else if (l[0] != '#' && !skip && strcmp(file, cu) == 0) {
            done = fn(arg, lineno, l, b);
        }
        l += n + (end != '\0');
        b += n + (end != '\0');
    }
    free(plain);
    free(text);
    return 0;
}

typedef struct {
    lr_ctx *c;
    const char *cu;
} asm_scan;

static int say_asm(void *arg, long lineno, const char *line, const char *blanked)
{
    const asm_scan *a = arg;
    const char *at = find_asm(blanked);
    if (at)
        lr_say(a->c, "host code at %s:%ld uses inline assembly ('%.60s'): only device code "
               "may; move it into a __device__ function or drop it (rule: asm)", a->cu, lineno,
               line + (at - blanked));
    return 0;
}

/* Contract in linkrules_int.h. nvcc's host translation holds no comments of the student's;
 * its literals are blanked so that "asm" in a string is not a statement. */
void lr_check_asm_source(lr_ctx *c, const char *dir, const char *keep_dir, const char *cu)
{
    char path[CML_PATH];
    if (lr_host_translation(dir, keep_dir, cu, path, sizeof path) < 0)
        return;
    asm_scan a = { c, cu };
    if (access(path, R_OK) != 0) {
        lr_note(c, "link rules: %s.cudafe1.cpp not found: asm statements in host code were "
                "checked only by their instructions", cu);
        return;
    }
    check_line_directives(c, dir, cu);
    if (lr_host_lines(path, cu, say_asm, &a) < 0) /* over the cap, or no memory */
        lr_note(c, "link rules: %s.cudafe1.cpp could not be read: asm statements in host code "
                "were checked only by their instructions", cu);
}

/* Contract in linkrules_int.h. */
int lr_host_translation(const char *dir, const char *keep_dir, const char *cu, char *path,
                        size_t len)
{
    return cml_fmt(path, len, "%s/%s/%.*s.cudafe1.cpp", dir, keep_dir, (int)(strlen(cu) - 3),
                   cu);
}
