/* The constructors rule, said in the student's words for the common case: a global object
 * whose constructor or destructor does work (`static std::vector<int> cache;` at file scope).
 * The initializer the compiler writes for the file (`_GLOBAL__sub_I_<file>`) builds each such
 * object and registers its destructor, so its relocations to the object file's data name the
 * objects; their names are demangled back to the source's, and nvcc's host translation (line
 * markers) gives the line where each is first written in the student's file. */
#include "linkrules_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_GLOBALS 8

typedef struct {
    char mangled[256];
    char shown[256]; /* a::b, as the source names it */
    char ident[256]; /* b: what the line search looks for */
    long line;       /* in cu; 0 when not found */
} global_obj;

/* One <length><identifier> of a mangled name at *p into out (capped), and the ABI tags after
 * it (`B5cxx11`, which std::string gives a name), skipped; 0 when none is there. */
static int source_id(const char **p, char *out, size_t len)
{
    char *end;
    long n = strtol(*p, &end, 10);
    if (!isdigit((unsigned char)**p) || n <= 0 || (long)strlen(end) < n)
        return 0;
    snprintf(out, len, "%.*s", (int)n, end);
    *p = end + n;
    char tag[64];
    while (**p == 'B' && isdigit((unsigned char)(*p)[1])) {
        (*p)++;
        if (!source_id(p, tag, sizeof tag))
            return 0;
    }
    return 1;
}

/* Whether id names an anonymous namespace (GCC: _GLOBAL__N_1; nvcc's front end:
 * _GLOBAL__N__<hash>_<file>_<hash>). */
static int anonymous(const char *id)
{
    return strncmp(id, "_GLOBAL__N", 10) == 0;
}

/* The source name of a data symbol: `_ZL5cache` and `_ZN2ns5cacheE` (`L` for internal
 * linkage, an anonymous namespace shown as such); an unmangled name is itself; anything
 * else (a template's static member) is shown as mangled. */
static void source_name(global_obj *g)
{
    const char *p = g->mangled;
    char id[128];
    snprintf(g->shown, sizeof g->shown, "%s", p);
    snprintf(g->ident, sizeof g->ident, "%s", p);
    if (strncmp(p, "_Z", 2) != 0)
        return;
    p += 2;
    p += *p == 'L';
    if (*p != 'N') {
        if (source_id(&p, id, sizeof id) && *p == '\0')
            snprintf(g->shown, sizeof g->shown, "%s", id), snprintf(g->ident, sizeof g->ident,
                                                                  "%s", id);
        return;
    }
    char shown[256] = "";
    for (p++; *p && *p != 'E';) {
        p += *p == 'L';
        if (!source_id(&p, id, sizeof id))
            return; /* not a plain nested name: keep it mangled */
        size_t have = strlen(shown);
        snprintf(shown + have, sizeof shown - have, "%s%s", have ? "::" : "",
                 anonymous(id) ? "(anonymous namespace)" : id);
    }
    if (*p == 'E' && p[1] == '\0' && !anonymous(id)) {
        snprintf(g->shown, sizeof g->shown, "%s", shown);
        snprintf(g->ident, sizeof g->ident, "%s", id);
    }
}

/* Adds data symbol name to g (n so far) unless it is the implementation's (a guard variable,
 * <iostream>'s object, __dso_handle, nvcc's __cudaFatCubinHandle: a name that starts with two
 * underscores is reserved to it) or already there. */
static int add(const lr_ctx *c, global_obj *g, int n, const char *name)
{
    if (!name || n >= MAX_GLOBALS || strncmp(name, "_ZGV", 4) == 0 ||
        cml_link_match(c->r, CML_LINK_INITIALIZER, name, NULL))
        return n;
    for (int i = 0; i < n; i++)
        if (strcmp(g[i].mangled, name) == 0)
            return n;
    memset(&g[n], 0, sizeof g[n]);
    snprintf(g[n].mangled, sizeof g[n].mangled, "%s", name);
    source_name(&g[n]);
    return strncmp(g[n].ident, "__", 2) == 0 ? n : n + 1;
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
                   const char *keep_dir, const char *cu)
{
    global_obj g[MAX_GLOBALS];
    char path[CML_PATH], where[CML_PATH + 32];
    /* only the compiler's initializer builds objects: a constructor function of the student's
     * (`__attribute__((constructor))`) is itself what runs, whatever data it touches */
    int n = strncmp(fn, "_GLOBAL__sub_I_", 15) == 0 ? collect(c, o, fn, g, 0, 0) : 0;
    line_search s = { g, n };
    if (n && lr_host_translation(dir, keep_dir, cu, path, sizeof path) == 0)
        lr_host_lines(path, cu, find_lines, &s);
    for (int i = 0; i < n; i++) {
        if (g[i].line)
            snprintf(where, sizeof where, "%s:%ld", cu, g[i].line);
        else
            snprintf(where, sizeof where, "%s", cu);
        lr_say(c, "has a global object built before main or destroyed after it: '%s' (%s); "
               "its constructor or destructor would run without being called. Make it a "
               "function-local static in the function that uses it, or constexpr "
               "(rule: constructors)", g[i].shown, where);
    }
    return n;
}
