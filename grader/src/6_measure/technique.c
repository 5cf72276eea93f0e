/* Technique checks, the parts that read text: PTX and SASS of the student's file(s), and the
 * student's source with comments blanked out (see technique.h). The verdict on a task, which
 * also runs ncu, is the pipeline's (6_measure/technique_phase.c). */
#include "technique.h"
#include "evidence.h"
#include "util.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_CAP ((size_t)16 << 20) /* PTX or SASS of one file */

const char *cml_tech_state_name(enum cml_tech_state s)
{
    static const char *const NAMES[] = {"not run", "passed", "FAILED", "not checked"};
    return (unsigned)s < sizeof NAMES / sizeof NAMES[0] ? NAMES[s] : "?";
}

/* Whether a line opens a function: PTX ".entry name(" (a kernel) or ".func name(" (a device
 * function, a declaration too), or cuobjdump's "Function : name". */
static int function_header(const char *line, size_t n)
{
    return memmem(line, n, ".entry ", 7) || memmem(line, n, ".func ", 6) ||
           memmem(line, n, ".func\t", 6) || memmem(line, n, "Function : ", 11);
}

/* Whether a function header line names the kernel `scope` exactly: its mangled name holds
 * "<length><scope>" ("_Z11copyVector4...", "_ZN3ns211copyVector4E..."; the length makes
 * "copyVector4" miss "copyVector4Fast", and no identifier starts with a digit, so a longer
 * length cannot end in these digits), or an extern "C" kernel is called scope itself
 * (".entry scope(", "Function : scope" at the end of the line). */
static int names_kernel(const char *line, size_t n, const char *scope)
{
    char mangled[CML_PATH], entry[CML_PATH], fn[CML_PATH];
    size_t k = strlen(scope), m = (size_t)snprintf(mangled, sizeof mangled, "%zu%s", k, scope);
    if (memmem(line, n, mangled, m))
        return 1;
    snprintf(entry, sizeof entry, ".entry %s(", scope);
    snprintf(fn, sizeof fn, "Function : %s", scope);
    const char *f = memmem(line, n, fn, strlen(fn));
    return memmem(line, n, entry, strlen(entry)) || (f && (size_t)(f - line) + strlen(fn) == n);
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* One function of a PTX or SASS text: the name its header declares, the lines after the
 * header up to the next one, and whether the scoped kernel reaches it. */
typedef struct {
    const char *name, *body, *end;
    size_t nlen;
    int reached;
} fn_block;

#define MAX_FNS 1024

/* The name a header line declares: the identifier that ends it, after a trailing "(" (PTX's
 * ".func (.param .b32 func_retval0) _Z3sqfPi(", ".extern .func vprintf", "Function : k"). */
static void header_name(const char *line, size_t n, fn_block *f)
{
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        n--;
    n -= n && line[n - 1] == '(';
    size_t k = n;
    while (k && ident_char(line[k - 1]))
        k--;
    f->name = line + k;
    f->nlen = n - k;
}

static int cmp_name(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

static int by_name(const void *x, const void *y)
{
    const fn_block *a = *(fn_block *const *)x, *b = *(fn_block *const *)y;
    return cmp_name(a->name, a->nlen, b->name, b->nlen);
}

/* Mark every function called name (a declaration and its definition share one) as reached,
 * pushing the newly reached on the work list; byname is sorted by name. */
static void mark(fn_block **byname, int n, const char *name, size_t len, fn_block **work,
                 int *top)
{
    int lo = 0, hi = n; /* the first whose name is not below name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cmp_name(byname[mid]->name, byname[mid]->nlen, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && cmp_name(byname[lo]->name, byname[lo]->nlen, name, len) == 0; lo++)
        if (!byname[lo]->reached) {
            byname[lo]->reached = 1;
            work[(*top)++] = byname[lo];
        }
}

/* The functions of text into fns (at most MAX_FNS; *n of them), each marked reached when it
 * is the kernel `scope` or a function that a reached one names (a call's target: "call.uni\n
 * _Z5move4P6float4PKS_,", SASS's "CALL.REL.NOINC `(_Z5move4...)"), transitively: a kernel's
 * work may sit in a __noinline__ helper, and a helper no launched kernel calls is not its
 * work. Each reached body is read once, its identifiers looked up by name. 0, or -1 when out
 * of memory. */
static int reach(const char *text, const char *scope, fn_block *fns, int *n)
{
    const char *text_end = text + strlen(text);
    *n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t len = strcspn(p, "\n");
        if (!function_header(p, len))
            continue;
        if (*n > 0)
            fns[*n - 1].end = p;
        if (*n == MAX_FNS)
            break;
        fn_block *f = &fns[(*n)++];
        header_name(p, len, f);
        f->body = p + len;
        f->end = text_end;
        f->reached = names_kernel(p, len, scope);
    }
    fn_block **byname = malloc(2 * MAX_FNS * sizeof *byname), **work = byname + MAX_FNS;
    if (!byname)
        return -1;
    int top = 0;
    for (int i = 0; i < *n; i++) {
        byname[i] = &fns[i];
        if (fns[i].reached)
            work[top++] = &fns[i];
    }
    qsort(byname, (size_t)*n, sizeof *byname, by_name);
    while (top > 0) {
        const fn_block *f = work[--top];
        for (const char *q = f->body; q < f->end;) {
            if (q[0] == '/' && q + 1 < f->end && q[1] == '/') { /* "// .globl <next kernel>" */
                q += strcspn(q, "\n");
                continue;
            }
            if (!ident_char(*q)) {
                q++;
                continue;
            }
            const char *w = q;
            while (q < f->end && ident_char(*q))
                q++;
            mark(byname, *n, w, (size_t)(q - w), work, &top);
        }
    }
    free(byname);
    return 0;
}

/* Contract in technique.h. */
void cml_tech_quote_line(const char *line, size_t n, char *found, size_t len)
{
    size_t o = 0; /* leading blanks gone, runs of blanks squeezed to one space */
    const char *s = line + strspn(line, " \t"), *end = line + n;
    for (; s < end && *s && o + 1 < len; s++)
        if (!((*s == ' ' || *s == '\t') && s + 1 < end && (s[1] == ' ' || s[1] == '\t')))
            found[o++] = *s == '\t' ? ' ' : *s;
    if (len)
        found[o] = '\0';
}

/* Contract in technique.h. */
int cml_tech_find(const char *text, const char *pattern, const char *scope, char *found,
                  size_t len, int *line_no)
{
    regex_t re;
    int scoped = scope && scope[0], nfns = 0, at = -1, hit = 0, no = 0;
    fn_block *fns = scoped ? calloc(MAX_FNS, sizeof *fns) : NULL;
    if ((scoped && !fns) || regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return free(fns), -1;
    if (scoped && reach(text, scope, fns, &nfns) != 0)
        return regfree(&re), free(fns), -1;
    char *line = NULL;
    for (const char *p = text; !hit && p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = strcspn(p, "\n");
        no++;
        at += scoped && function_header(p, n); /* the function this line belongs to */
        if ((scoped && (at < 0 || at >= nfns || !fns[at].reached)) || !(line = strndup(p, n)))
            continue;
        if (regexec(&re, line, 0, NULL, 0) == 0) {
            hit = 1;
            cml_tech_quote_line(line, n, found, len);
            if (line_no)
                *line_no = no;
        }
        free(line);
    }
    free(fns);
    regfree(&re);
    return hit;
}

/* The evidence file <file><ext>, or NULL with why (for SASS, what the build wrote in
 * <file>.sass.err: cuobjdump missing or failing). Never built here: evidence is taken at build
 * time, before any student code ran. */
char *cml_tech_evidence(const cml_technique_env *env, const char *file, const char *ext,
                        char *why, size_t wlen)
{
    char path[CML_PATH];
    if (cml_fmt(path, sizeof path, "%s/%s%s", env->ev_dir, file, ext) < 0)
        return snprintf(why, wlen, "path too long"), NULL;
    char *text = cml_read_text(path, TEXT_CAP, NULL);
    if (text)
        return text;
    char *err = cml_fmt(path, sizeof path, "%s/%s%s.err", env->ev_dir, file, ext) == 0
                ? cml_read_text(path, 400, NULL) : NULL;
    snprintf(why, wlen, "%.280s", err ? err : "no such evidence from the build");
    free(err);
    return NULL;
}

/* Whether host code in `file` launches the kernel `scope` (evidence_launches.c): a line
 * "caller target" whose target is that kernel's stub or symbol and whose caller is not the
 * kernel itself. 1 also when the build could not tell (no .launches evidence: nm or objdump
 * missing, or a hand-written evidence folder): never a false fail. */
static int launched(const cml_technique_env *env, const char *file, const char *scope)
{
    char why[300];
    char *text = cml_tech_evidence(env, file, ".launches", why, sizeof why);
    if (!text)
        return 1;
    int found = 0;
    for (const char *p = text; !found && *p; p += strcspn(p, "\n"), p += *p == '\n') {
        size_t n = strcspn(p, "\n"), c = strcspn(p, " ");
        found = c < n && names_kernel(p + c + 1, n - c - 1, scope) && !names_kernel(p, c, scope);
    }
    free(text);
    return found;
}

/* Contract in technique.h. */
void cml_tech_code(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                   const cml_technique_env *env, cml_tech_result *out)
{
    (void)t; /* the kernel is c->scope */
    char found[160], why[300] = "";
    int sass = c->kind == CML_TECH_SASS, hit = 0, tried = 0;
    out->state = CML_TECH_NOT_CHECKED;
    if (!env->ev_dir) {
        snprintf(out->detail, sizeof out->detail, "not checked (no student sources here)");
        return;
    }
    int idle = 0; /* the match lies in a kernel no host code launches */
    for (int i = 0; !hit && i < spec->nfiles; i++) {
        if (!cml_is_cu(spec->files[i]))
            continue;
        char *text = cml_tech_evidence(env, spec->files[i], sass ? ".sass" : ".ptx", why,
                                   sizeof why);
        tried += text != NULL;
        hit = text && cml_tech_find(text, c->pattern, c->scope, found, 120, NULL) == 1;
        idle = hit && c->scope[0] && !launched(env, spec->files[i], c->scope);
        free(text);
    }
    if (!tried) {
        snprintf(out->detail, sizeof out->detail, "not checked (%.280s)", why);
        return;
    }
    if (idle) {
        out->state = CML_TECH_FAILED;
        snprintf(out->detail, sizeof out->detail, "no host code launches %.60s, which holds "
                 "it (%.100s): the kernel that runs must show the technique", c->scope, found);
        return;
    }
    out->state = hit ? CML_TECH_PASSED : CML_TECH_FAILED;
    if (hit)
        snprintf(out->detail, sizeof out->detail, "found: %s", found);
    else
        snprintf(out->detail, sizeof out->detail, "no %s line%s%.60s matches %.150s",
                 sass ? "SASS" : "PTX", c->scope[0] ? " in kernel " : "", c->scope, c->pattern);
}
