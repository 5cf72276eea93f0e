/* The constructors rule, said in the student's words for the common case: a global object
 * whose constructor or destructor does work (`static std::vector<int> cache;` at file scope).
 * The initializer the compiler writes for the file (`_GLOBAL__sub_I_<file>`) builds each such
 * object and registers its destructor, so its relocations to the object file's data name the
 * objects; lr_demangle gives their names back as the source spells them, and nvcc's host
 * translation (line markers) the line where each is first written in the student's file. */
#include "linkrules_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_GLOBALS LR_MAX_DEMANGLE

typedef struct {
    char mangled[256];
    char shown[256]; /* a::b, as the source names it */
    char ident[256]; /* b: what the line search looks for */
    long line;       /* in cu; 0 when not found */
} global_obj;

/* Whether a data symbol is the implementation's: a source name that starts with two
 * underscores (nvcc's __cudaFatCubinHandle, `_ZL20__cudaFatCubinHandle` mangled) is reserved
 * to it. Read on the symbol, so that it holds without c++filt too. */
static int reserved(const char *name)
{
    if (strncmp(name, "__", 2) == 0)
        return 1;
    for (const char *p = strstr(name, "__"); strncmp(name, "_Z", 2) == 0 && p;
         p = strstr(p + 1, "__"))
        if (isdigit((unsigned char)p[-1]))
            return 1;
    return 0;
}

/* Adds data symbol name to g (n so far) unless it is the implementation's (a guard variable,
 * <iostream>'s object, __dso_handle, a reserved name) or already there. */
static int add(const lr_ctx *c, global_obj *g, int n, const char *name)
{
    if (!name || n >= MAX_GLOBALS || strncmp(name, "_ZGV", 4) == 0 || reserved(name) ||
        cml_link_match(c->r, CML_LINK_INITIALIZER, name, NULL))
        return n;
    for (int i = 0; i < n; i++)
        if (strcmp(g[i].mangled, name) == 0)
            return n;
    memset(&g[n], 0, sizeof g[n]);
    snprintf(g[n].mangled, sizeof g[n].mangled, "%s", name);
    return n + 1;
}

/* g's names as the source spells them: c++filt's, less its ABI tags (`banner[abi:cxx11]`),
 * and the last component of it for the line search (`tally::launches`: `launches`). */
static void source_names(global_obj *g, int n)
{
    char *names[MAX_GLOBALS] = { 0 }, shown[MAX_GLOBALS][256];
    for (int i = 0; i < n; i++)
        names[i] = g[i].mangled;
    lr_demangle(names, n, shown);
    for (int i = 0; i < n; i++) {
        size_t k = 0;
        for (const char *p = shown[i]; *p && k < sizeof g[i].shown - 1;)
            if (strncmp(p, "[abi:", 5) == 0)
                p += strcspn(p, "]") + (p[strcspn(p, "]")] == ']');
            else
                g[i].shown[k++] = *p++;
        g[i].shown[k] = '\0';
        const char *last = g[i].shown;
        for (const char *p = strstr(last, "::"); p; p = strstr(p + 2, "::"))
            last = p + 2;
        snprintf(g[i].ident, sizeof g[i].ident, "%s", last);
    }
}

/* The data of o that function fn refers to (a datum at a section-relative place, or a data
 * symbol of o by name), and what the file's static-initialization helper GCC may call from it
 * refers to. */
static int collect(const lr_ctx *c, const lr_object *o, const char *fn, global_obj *g, int n,
                   int depth)
{
    const lr_func *f = lr_func_named(o, fn);
    for (int i = 0; f && i < o->nrels; i++) {
        const lr_reloc *rel = &o->rels[i];
        if (!lr_rel_in(rel, f))
            continue;
        const lr_func *d = NULL;
        if (rel->target[0] == '.') {
            d = lr_data_at(o, rel->target, (uint64_t)rel->addend);
            d = d ? d : lr_data_at(o, rel->target, (uint64_t)rel->addend + 4);
        }
        for (int k = 0; !d && k < o->ndatas; k++)
            d = strcmp(o->datas[k].name, rel->target) == 0 ? &o->datas[k] : NULL;
        const char *callee = d ? NULL : lr_rel_target(o, rel, LR_PAST_OPERAND);
        if (d)
            n = add(c, g, n, d->name);
        else if (callee && depth == 0 &&
                 strncmp(callee, "_Z41__static_initialization_and_destruction", 43) == 0)
            n = collect(c, o, callee, g, n, 1);
    }
    return n;
}

typedef struct {
    global_obj *g;
    int n;
} line_search;

/* Whether word occurs in blanked line l as a whole identifier. */
static int has_word(const char *l, const char *word)
{
    size_t n = strlen(word);
    for (const char *s = l; n && (s = strstr(s, word)); s++)
        if ((s == l || !(isalnum((unsigned char)s[-1]) || s[-1] == '_')) &&
            !(isalnum((unsigned char)s[n]) || s[n] == '_'))
            return 1;
    return 0;
}

static int find_lines(void *arg, long lineno, const char *line, const char *blanked)
{
    line_search *s = arg;
    int left = 0;
    (void)line;
    for (int i = 0; i < s->n; i++) {
        if (!s->g[i].line && has_word(blanked, s->g[i].ident))
            s->g[i].line = lineno;
        left += !s->g[i].line;
    }
    return left == 0;
}

/* Contract in linkrules_int.h. */
int lr_say_globals(lr_ctx *c, const lr_object *o, const char *fn, const char *dir,
                   const char *keep_dir, const char *cu, const char *why)
{
    global_obj g[MAX_GLOBALS];
    char path[CML_PATH], where[CML_PATH + 32];
    /* only the compiler's initializer builds objects: a constructor function of the student's
     * (`__attribute__((constructor))`) is itself what runs, whatever data it touches */
    int n = strncmp(fn, "_GLOBAL__sub_I_", 15) == 0 ? collect(c, o, fn, g, 0, 0) : 0;
    source_names(g, n);
    line_search s = { g, n };
    if (n && lr_host_translation(dir, keep_dir, cu, path, sizeof path) == 0)
        lr_host_lines(path, cu, find_lines, &s);
    for (int i = 0; i < n; i++) {
        if (g[i].line)
            snprintf(where, sizeof where, "%s:%ld", cu, g[i].line);
        else
            snprintf(where, sizeof where, "%s", cu);
        /* GCC builds every global object of a file in one initializer: the reason found may
         * be another object's, so a file with several says so */
        char others[120] = "";
        if (n > 1)
            snprintf(others, sizeof others, ", or one of the %d other global objects the "
                     "compiler builds with it,", n - 1);
        lr_say(c, "has a global object built before main or destroyed after it: '%s' (%s); "
               "building it%s does more than the standard library's construction (%s). Make "
               "it a function-local static in the function that uses it, or constexpr "
               "(rule: constructors)", g[i].shown, where, others, why && why[0] ? why : "unknown");
    }
    return n;
}
