/* The constructors rule: no student code runs before or after main without being called.
 * .init_array & co. point only at nvcc's registrar or at a library's static initializer
 * (<iostream>'s, link.rules `initializer`), and exit hooks are referenced only from the
 * registrar. */
#include "linkrules_int.h"

#include <stdlib.h>
#include <string.h>

/* Whether o has a relocation in [from, to) of section sect. */
static int relocated(const lr_object *o, const char *sect, uint64_t from, uint64_t to)
{
    for (int i = 0; i < o->nrels; i++)
        if (o->rels[i].offset >= from && o->rels[i].offset < to &&
            strcmp(o->rels[i].section, sect) == 0)
            return 1;
    return 0;
}

/* Whether every branch and RIP-relative operand of f (objdump -d) carries a relocation, so that
 * all f reaches is in its relocations: a file-local function or datum of the same section
 * needs none (`jmp 0 <_ZL9earlyWorkv>`, a `lea` of its address for an indirect call). An
 * indirect branch never passes. */
static int reaches_only_by_relocation(const lr_object *o, const lr_func *f)
{
    char func[256];
    int in = 0, found = 0;
    uint64_t pending = UINT64_MAX;
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
        if (pending != UINT64_MAX && !relocated(o, f->section, pending, at))
            return 0;
        int branch = text[0] == 'j' || strncmp(text, "call", 4) == 0;
        if (branch && memchr(text, '*', (size_t)(l + n - text)))
            return 0;
        pending = branch || memmem(text, (size_t)(l + n - text), "(%rip)", 6) ? at : UINT64_MAX;
    }
    return found && (pending == UINT64_MAX ||
                     relocated(o, f->section, pending, f->value + f->size));
}

/* Whether fn, a function of o that .init_array names, references only what a library's static
 * initializer may (link.rules `initializer`): <iostream> before GCC 13 gives each file a
 * std::ios_base::Init object, built and its destructor registered there. A student's global
 * object in the same file lands in the same function, and its references fail this. A
 * section-relative reference names the data object at that place (PC-relative: 4 before); a
 * call or jump that needs no relocation (to a file-local function in the same section) fails
 * reaches_only_by_relocation, so every call the function makes is one of these references. */
static int library_initializer(const lr_ctx *c, const lr_object *o, const char *fn)
{
    const lr_func *f = lr_func_named(o, fn);
    int seen = 0;
    for (int i = 0; f && i < o->nrels; i++) {
        const lr_reloc *rel = &o->rels[i];
        if (!lr_rel_in(rel, f))
            continue;
        const char *name = rel->target;
        const lr_func *d = NULL;
        if (name[0] == '.') { /* the datum there, or 4 bytes on (PC-relative) */
            d = lr_data_at(o, name, (uint64_t)rel->addend);
            d = d ? d : lr_data_at(o, name, (uint64_t)rel->addend + 4);
        }
        if (!cml_link_match(c->r, CML_LINK_INITIALIZER, d ? d->name : name, NULL))
            return 0;
        seen++;
    }
    return seen > 0 && reaches_only_by_relocation(o, f);
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
            if (!cml_link_match(c->r, CML_LINK_REGISTRAR, fn, NULL) &&
                !library_initializer(c, o, fn) && lr_say_globals(c, o, fn, dir, keep_dir, cu) == 0)
                lr_say(c, "runs '%s' before or after main (from %s): a student file may have "
                       "no static constructors, no global objects with constructors or "
                       "destructors, no exit handlers; call that code from the function that "
                       "needs it (rule: constructors)", fn, rel->section);
        } else if (cml_link_match(c->r, CML_LINK_HOOK, rel->target, NULL)) {
            const lr_func *f = lr_func_at(o, rel->section, rel->offset);
            if (!f || !cml_link_match(c->r, CML_LINK_REGISTRAR, f->name, NULL))
                lr_say(c, "registers an exit handler: '%s' used by '%s' (a global object with "
                       "a destructor, or an atexit call) (rule: constructors)", rel->target,
                       f ? f->name : rel->section);
        }
    }
}
