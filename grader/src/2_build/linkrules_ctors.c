/* The constructors rule: no student code runs before or after main without being called,
 * beyond building and destroying global objects. .init_array & co. point only at nvcc's
 * registrar or, in the plain .init_array, at an initializer that only builds objects (the
 * C++ library's code, link.rules `initializer`: constructors_only), and exit hooks are
 * referenced only from the registrar. */
#include "linkrules_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The address a branch's text ("jmp    1b9 <f+0x149>") goes to; UINT64_MAX when it names
 * none (an indirect branch has '*' and never gets here). */
static uint64_t branch_target(const char *text, const char *end)
{
    const char *p = text;
    while (p < end && *p != ' ' && *p != '\t')
        p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    char *stop;
    uint64_t to = strtoull(p, &stop, 16);
    return stop > p && stop <= end ? to : UINT64_MAX;
}

/* The address a RIP-relative operand refers to, from objdump's comment ("# 1e8 <f+0x58>");
 * UINT64_MAX when the line has none. */
static uint64_t rip_target(const char *text, const char *end)
{
    const char *hash = memchr(text, '#', (size_t)(end - text));
    if (!hash)
        return UINT64_MAX;
    char *stop;
    uint64_t to = strtoull(hash + 1, &stop, 16);
    return stop > hash + 1 && stop <= end ? to : UINT64_MAX;
}

/* The functions f reaches without a relocation, as objdump -d shows them, each once: an
 * initializer that builds 18 tables with one helper of the file's calls it 18 times. */
typedef struct {
    const char *name[64];
    int n;
} unrelocated;

/* An operand of f at `to` that carries no relocation: the assembler resolved it because its
 * target sits in f's own section. Only the start of a function there passes (GCC 13 calls a
 * file-local clone such as std::string's `_M_construct<char const*> [clone .isra.0]` that
 * way), and it is followed like a relocated callee; anything else (data, the middle of a
 * function) fails. */
static int follow_unrelocated(const lr_object *o, const lr_func *f, uint64_t to, unrelocated *u)
{
    const lr_func *g = to == UINT64_MAX ? NULL : lr_func_at(o, f->section, to);
    if (!g || g->value != to)
        return 0;
    for (int i = 0; i < u->n; i++)
        if (u->name[i] == g->name)
            return 1;
    if (u->n == (int)(sizeof u->name / sizeof u->name[0]))
        return 0;
    u->name[u->n++] = g->name;
    return 1;
}

/* Whether every branch and RIP-relative operand of f (objdump -d) carries a relocation, stays
 * inside f (a loop), or starts a function of f's own section (follow_unrelocated, added to u),
 * so that all f reaches is in its relocations and u. An indirect branch never passes. */
static int reaches_only_by_relocation(const lr_object *o, const lr_func *f, unrelocated *u)
{
    char func[LR_NAME_MAX];
    int in = 0, found = 0;
    uint64_t pending = UINT64_MAX, pending_to = UINT64_MAX;
    for (const char *l = o->disasm; l && *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t n = strcspn(l, "\n");
        if (lr_disasm_header(l, n, func, sizeof func)) {
            in = strcmp(func, f->name) == 0;
            found |= in;
            continue;
        }
        char *end;
        uint64_t at = strtoull(l, &end, 16);
        const char *tab = in && *end == ':' ? memchr(l, '\t', n) : NULL;
        const char *text = tab ? memchr(tab + 1, '\t', (size_t)(l + n - tab - 1)) : NULL;
        if (!text) /* another function's line, or raw bytes continued */
            continue;
        text++;
        if (pending != UINT64_MAX && !lr_relocated(o, f->section, pending, at) &&
            !follow_unrelocated(o, f, pending_to, u))
            return 0;
        int branch = text[0] == 'j' || strncmp(text, "call", 4) == 0;
        if (branch && memchr(text, '*', (size_t)(l + n - text)))
            return 0;
        uint64_t to = branch ? branch_target(text, l + n) : UINT64_MAX;
        int inside = to >= f->value && to < f->value + f->size;
        int rip = memmem(text, (size_t)(l + n - text), "(%rip)", 6) != NULL;
        pending = (branch && !inside) || rip ? at : UINT64_MAX;
        pending_to = branch ? to : rip_target(text, l + n);
    }
    return found && (pending == UINT64_MAX ||
                     lr_relocated(o, f->section, pending, f->value + f->size) ||
                     follow_unrelocated(o, f, pending_to, u));
}

#define MAX_INIT_FUNCS 256 /* functions an initializer may reach before it is refused */

/* Add fn, a function of o that an initializer refers to, to the n still to look at, unless it
 * is there or is a kernel's host function (a table of kernels at file scope: that is nvcc's
 * launch code, which needs a launch configuration an initializer cannot push, as
 * __cudaPushCallConfiguration is no initializer call); 0 (and why) when full. */
static int add_todo(const lr_object *o, const char **todo, int *n, const char *fn, char *why,
                    size_t len)
{
    if (lr_kernel_host(o, fn))
        return 1;
    for (int j = 0; j < *n; j++)
        if (strcmp(todo[j], fn) == 0)
            return 1;
    if (*n == MAX_INIT_FUNCS) {
        snprintf(why, len, "it reaches more than %d functions", MAX_INIT_FUNCS);
        return 0;
    }
    todo[(*n)++] = fn;
    return 1;
}

/* Whether fn, a function of o that the plain .init_array names (default priority: after the
 * harness's seed constructor of priority 101), only builds and destroys objects: fn and every
 * function of o it refers to, followed to the end, refer outside o only to what link.rules
 * `initializer` names (the C++ library and runtime: constructors, destructors, allocation,
 * __cxa_atexit for a destructor) and otherwise to o's own data, and reach nothing that their
 * relocations do not show (reaches_only_by_relocation). So a std::vector, a std::string or a
 * std::map at file scope, or a struct whose inline constructor fills a table, passes, and so
 * does <iostream>'s own initializer (before GCC 13); an object whose construction or
 * destruction prints, reads the environment, calls CUDA, or calls a function of o that does,
 * does not. What the code calls is also judged by the calls rule, as all the object's code. */
static int constructs_only(const lr_ctx *c, const lr_object *o, const char *fn, char *why,
                           size_t len)
{
    const char *todo[MAX_INIT_FUNCS];
    int n = 0;
    todo[n++] = fn;
    for (int k = 0; k < n; k++) {
        const lr_func *f = lr_func_named(o, todo[k]);
        unrelocated u = { .n = 0 };
        if (!f || !reaches_only_by_relocation(o, f, &u)) {
            snprintf(why, len, "'%s' %s", todo[k], f ? "calls through a pointer, or reaches "
                     "code or data its relocations do not name" : "is not a function of the "
                     "file");
            return 0;
        }
        for (int i = 0; i < u.n; i++)
            if (!add_todo(o, todo, &n, u.name[i], why, len))
                return 0;
        for (int i = 0; i < o->nrels; i++) {
            const lr_reloc *rel = &o->rels[i];
            if (!lr_rel_in(rel, f))
                continue;
            const char *callee = NULL;
            if (rel->target[0] == '.') { /* file-local: a function there, else data */
                callee = lr_rel_target(o, rel, LR_PAST_OPERAND);
                if (!callee && strncmp(rel->target, ".text", 5) == 0) {
                    snprintf(why, len, "'%s' jumps into %s", f->name, rel->target);
                    return 0;
                }
            } else if (lr_defines(o, rel->target, NULL)) { /* o's function, or o's data */
                callee = lr_func_named(o, rel->target) ? rel->target : NULL;
            } else if (!cml_link_match(c->r, CML_LINK_INITIALIZER, rel->target, NULL)) {
                snprintf(why, len, "'%s' uses '%s'", f->name, rel->target);
                return 0;
            }
            if (callee && !add_todo(o, todo, &n, callee, why, len))
                return 0;
        }
    }
    return 1;
}

/* Contract in linkrules_int.h. A student's global object is named with its line and what to
 * write instead; any other code the tables run is named by its symbol. */
void lr_check_outside_main(lr_ctx *c, const lr_object *o, const char *dir, const char *keep_dir,
                           const char *cu)
{
    static const char *const TABLES[] = { ".init_array*", ".fini_array*", ".preinit_array*",
                                          ".ctors*", ".dtors*", NULL };
    for (int i = 0; i < o->nrels; i++) {
        const lr_reloc *rel = &o->rels[i];
        if (lr_glob_any(rel->section, TABLES)) {
            const char *fn = lr_rel_target(o, rel, 0); /* exactly there, no operand's -4 */
            fn = fn ? fn : rel->target;
            int plain = strcmp(rel->section, ".init_array") == 0; /* default priority */
            char why[300] = "";
            if (!plain)
                snprintf(why, sizeof why, "it is built at a priority (%s)", rel->section);
            if (!cml_link_match(c->r, CML_LINK_REGISTRAR, fn, NULL) &&
                !(plain && constructs_only(c, o, fn, why, sizeof why)) &&
                lr_say_globals(c, o, fn, dir, keep_dir, cu, why) == 0)
                lr_say(c, "runs '%s' before or after main (from %s): what a student file "
                       "runs without being called may only build and free objects with the "
                       "standard library (no output, environment, CUDA, priority or exit "
                       "handler); call that code from the function that needs it (rule: "
                       "constructors)", fn, rel->section);
        } else if (cml_link_match(c->r, CML_LINK_HOOK, rel->target, NULL)) {
            const lr_func *f = lr_func_at(o, rel->section, rel->offset);
            if (!f || !cml_link_match(c->r, CML_LINK_REGISTRAR, f->name, NULL))
                lr_say(c, "registers an exit handler: '%s' used by '%s' (a global object with "
                       "a destructor, or an atexit call) (rule: constructors)", rel->target,
                       f ? f->name : rel->section);
        }
    }
}
