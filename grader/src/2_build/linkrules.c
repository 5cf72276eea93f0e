/* Link rules on a student object's symbols (docs/ARCHITECTURE.md, "Link rules"): what it
 * defines (no main, no C-linkage function but the lab's API, nothing the harness defines or
 * imports, no C++ runtime replacement), what it calls (an allow-list, with named refusals), and
 * what runs outside main (.init_array and exit handlers belong to nvcc's registration only). */
#include "linkrules_int.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Whether any harness or common object defines (strong or weak) / references sym. */
static int pristine_defines(const lr_ctx *c, const char *sym, char *type)
{
    for (int i = 0; i < c->npristine; i++)
        if (lr_defines(&c->pristine[i], sym, type))
            return 1;
    return 0;
}

static int pristine_imports(const lr_ctx *c, const char *sym)
{
    for (int i = 0; i < c->npristine; i++)
        if (lr_references(&c->pristine[i], sym))
            return 1;
    return 0;
}

/* Whether sym is a kernel of the object being checked: a PTX `.entry sym(`. */
static int is_kernel(const lr_ctx *c, const char *sym)
{
    char want[1100];
    snprintf(want, sizeof want, ".entry %s(", sym);
    return c->ptx && strstr(c->ptx, want) != NULL;
}

#define WHAT_MAY "a student file may define only the lab's API functions, its kernels and " \
                 "file-local helpers"

/* Whether a student object other than self refers to sym. */
static int student_references(const lr_ctx *c, const lr_object *self, const char *sym)
{
    for (int i = 0; i < c->nstudent; i++)
        if (&c->student[i] != self && lr_references(&c->student[i], sym))
            return 1;
    return 0;
}

/* One global definition of object o, the one being checked. */
static void check_define(lr_ctx *c, const lr_object *o, const char *sym, char type)
{
    static const char *const NEW_DELETE[] = { "_Znw*", "_Zna*", "_Zdl*", "_Zda*", NULL };
    static const char *const RUNTIME[] = { "_ZSt*", "_ZNSt*", "_ZNKSt*", "_ZN9__gnu_cxx*",
                                           "_ZNK9__gnu_cxx*", "_ZN10__cxxabiv1*", NULL };
    int weak = lr_is_weak(type), api = cml_link_match(c->r, CML_LINK_API, sym, NULL);
    if (strcmp(sym, "main") == 0)
        lr_say(c, "defines 'main': the harness's main() runs the lab (rule: defines)");
    else if (lr_glob_any(sym, NEW_DELETE))
        lr_say(c, "defines '%s': replacing operator new or delete replaces the C++ runtime's "
               "allocator for the harness too (rule: defines)", sym);
    else if (!weak && pristine_defines(c, sym, NULL)) /* e.g. a kernel named like the given one */
        lr_say(c, "defines '%s', which the harness defines too: give yours another name, or "
               "make it static (rule: defines)", sym);
    else if (!api && pristine_imports(c, sym))
        lr_say(c, "defines '%s', which the harness takes from a library: %s (rule: defines)",
               sym, WHAT_MAY);
    else if (api || cml_link_match(c->r, CML_LINK_INTERNAL, sym, NULL))
        return;
    else if (strncmp(sym, "_Z", 2) != 0 && weak && !pristine_defines(c, sym, NULL) &&
             !student_references(c, o, sym)) {
        /* a C++17 inline variable (`inline int launches = 0;`: GNU unique, which objcopy cannot
         * make local) or a weak definition: renamed where it is defined, to a name no library
         * or harness can hold (a C identifier has no '.'), so it interposes nothing; every
         * file that defines it gets the same name */
        char to[600];
        snprintf(to, sizeof to, "%.280s=%.280s.student", sym, sym);
        lr_edit(c, "--redefine-sym", to);
        lr_note(c, "link: %s: '%s' renamed '%s.student' (a weak or inline definition, kept "
                "out of the libraries' names)", c->obj, sym, sym);
    } else if (strncmp(sym, "_Z", 2) != 0 && !(weak && pristine_defines(c, sym, NULL)) &&
             (weak || student_references(c, o, sym)))
        lr_say(c, "defines '%s'%s, which %s: %s (rule: defines)", sym,
               is_kernel(c, sym) ? ", a kernel with C linkage (drop its extern \"C\")"
               : strchr("BCDGRSV", type) ? ", a global variable (make it static)" : "",
               weak ? "is weak" : "another of your files uses", WHAT_MAY);
    else if (strncmp(sym, "_Z", 2) != 0 && !weak) { /* no other file sees it: made its own */
        lr_edit(c, "--localize-symbol", sym);
        lr_note(c, "link: %s: '%s' made file-local (as if declared static): no other file "
                "uses it", c->obj, sym);
    }
    else if (!weak && lr_glob_any(sym, RUNTIME))
        lr_say(c, "defines '%s' in the C++ runtime's namespaces: %s (rule: defines)", sym,
               WHAT_MAY);
}

/* Whether another student object of the build defines sym. */
static int student_defines(const lr_ctx *c, const lr_object *self, const char *sym)
{
    for (int i = 0; i < c->nstudent; i++)
        if (&c->student[i] != self && lr_defines(&c->student[i], sym, NULL))
            return 1;
    return 0;
}

/* The functions of o whose code refers to sym, whole (at most max); -1 when other code
 * (data, nvcc's registration) refers to it too, or there are more: then no task holds it. */
static int origins_of(const lr_object *o, const char *sym, char (*out)[256], int max)
{
    int n = 0;
    for (int i = 0; i < o->nrels; i++) {
        if (strcmp(o->rels[i].target, sym) != 0)
            continue;
        const lr_func *f = lr_func_at(o, o->rels[i].section, o->rels[i].offset);
        char name[256];
        if (!f || lr_generated(f->name))
            return -1;
        lr_whole_function(f->name, name, sizeof name);
        int known = 0;
        for (int k = 0; k < n && !known; k++)
            known = strcmp(out[k], name) == 0;
        if (!known && n == max)
            return -1;
        if (!known)
            strcpy(out[n++], name);
    }
    return n;
}

/* The line of the student's file whose code names sym (its first, comments and strings left
 * out), from nvcc's host translation: "managed.cu:57"; "" when none does (a C++ name, a call
 * made inside a library template). */
typedef struct {
    const char *sym, *cu;
    char *where;
    size_t len;
} line_find;

static int line_names(void *arg, long lineno, const char *line, const char *blanked)
{
    line_find *f = arg;
    size_t n = strlen(f->sym);
    (void)line;
    for (const char *p = strstr(blanked, f->sym); p; p = strstr(p + 1, f->sym))
        if ((p == blanked || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return snprintf(f->where, f->len, "%s:%ld", f->cu, lineno), 1;
    return 0;
}

static void call_line(const lr_ctx *c, const char *sym, char *where, size_t len)
{
    char path[CML_PATH], name[LR_NAME_MAX];
    where[0] = '\0';
    /* the per-thread-stream spellings (cudaMemcpyAsync_ptsz) are the source's cudaMemcpyAsync */
    size_t n = strlen(sym), cut = n > 5 && (strcmp(sym + n - 5, "_ptsz") == 0 ||
                                           strcmp(sym + n - 5, "_ptds") == 0) ? n - 5 : n;
    snprintf(name, sizeof name, "%.*s", (int)cut, sym);
    line_find f = { name, c->cu, where, len };
    if (c->cu && strncmp(sym, "_Z", 2) != 0 &&
        lr_host_translation(c->dir, c->keep_dir, c->cu, path, sizeof path) == 0)
        lr_host_lines(path, c->cu, line_names, &f);
}

/* One undefined symbol of object o, judged in this order: the lab's own link_calls and the
 * student's own files allow; a deny of link.rules refuses (what defeats grading: process, file
 * and device control, timers, profiler, the driver API, the harness's inputs); link.rules'
 * calls allow; a link_deny of the spec refuses with its reason (what skips the lesson); the
 * CUDA runtime API (link.rules runtime) is allowed; anything else is refused as not on the
 * lists. A refused call costs the tasks whose API functions reach the code that makes it, is
 * reported at its line, and is pointed at the trap in the linked copy of the object. */
static void check_call(lr_ctx *c, const lr_object *o, const char *sym)
{
    const char *group = NULL;
    char origins[LR_MAX_ORIGINS][256], trap[300], where[CML_PATH + 40], at[CML_PATH + 48];
    if (strcmp(sym, "getenv") == 0 && !student_defines(c, o, sym)) {
        /* the student's getenv answers from one environment in every run, whatever tool
         * watches it (cml_student_getenv, common/cml_lab.cpp; issue 44) */
        lr_edit(c, "--redefine-sym", "getenv=" CML_STUDENT_GETENV);
        return;
    }
    if (student_defines(c, o, sym) || cml_link_match(c->r, CML_LINK_CALLS, sym, NULL) ||
        cml_link_match(c->r, CML_LINK_HOOK, sym, NULL)) /* hooks: checked where they are used */
        return;
    int denied = cml_link_match(c->r, CML_LINK_DENY, sym, &group);
    if (!denied && (pristine_defines(c, sym, NULL) ||
                    cml_link_match(c->r, CML_LINK_COMMON, sym, NULL)))
        return;
    int lesson = -1;
    for (int i = 0; !denied && lesson < 0 && i < c->r->n; i++)
        if (c->r->names[i].list == CML_LINK_LESSON &&
            fnmatch(c->r->names[i].pattern, sym, 0) == 0)
            lesson = c->r->names[i].reason;
    if (!denied && lesson < 0 && cml_link_match(c->r, CML_LINK_RUNTIME, sym, NULL))
        return;
    int n = c->ntraps < CML_LINK_TRAPS ? origins_of(o, sym, origins, LR_MAX_ORIGINS) : -1;
    snprintf(trap, sizeof trap, "%s=" CML_LINK_TRAP "%d", sym, c->ntraps++);
    if (n >= 0) /* else no task holds it, and the lab is not linked */
        lr_edit(c, "--redefine-sym", trap);
    call_line(c, sym, where, sizeof where);
    snprintf(at, sizeof at, "%s%s%s", where[0] ? " (" : "", where, where[0] ? ")" : "");
    if (denied)
        lr_say_from(c, origins, n < 0 ? 0 : n, "calls '%s'%s: refused in every lab "
                    "(rule: calls (%s))", sym, at, group);
    else if (lesson >= 0)
        lr_say_from(c, origins, n < 0 ? 0 : n, "calls '%s'%s: refused in this lab: %s "
                    "(rule: calls (lesson))", sym, at,
                    lesson < c->r->nreasons ? c->r->reasons[lesson] : "");
    else
        lr_say_from(c, origins, n < 0 ? 0 : n, "calls '%s'%s: not on the lab's list of allowed "
                    "calls (link_calls in its spec, calls in " CML_LINK_RULES_FILE "; the CUDA "
                    "runtime API is allowed but what a deny names) (rule: calls)", sym, at);
}

/* All rules on student object k. */
static void check_object(lr_ctx *c, int k, const char *dir, const char *keep_dir,
                         const char *cu)
{
    const lr_object *o = &c->student[k];
    char path[CML_PATH];
    c->ntraps = 0;
    c->dir = dir, c->keep_dir = keep_dir, c->cu = cu; /* where call_line reads its lines */
    c->ptx = cml_fmt(path, sizeof path, "%s/%s/%.*s.ptx", dir, keep_dir, (int)(strlen(cu) - 3),
                     cu) == 0 ? cml_read_text(path, (size_t)64 << 20, NULL) : NULL;
    for (int i = 0; i < o->nsyms; i++) {
        char t = o->syms[i].type;
        if (lr_is_undefined(t))
            check_call(c, o, o->syms[i].name);
        else if (t == 'u' || t == 'i' || (t >= 'A' && t <= 'Z' && t != 'N'))
            check_define(c, o, o->syms[i].name, t);
    }
    lr_check_outside_main(c, o, dir, keep_dir, cu);
    lr_check_instructions(c, o);
    lr_check_asm_source(c, dir, keep_dir, cu);
    free(c->ptx);
    c->ptx = NULL;
}

/* Reads n objects (names from cu files when from_cu) into objs; -1 with the reason in c. */
static int read_objects(lr_ctx *c, lr_object *objs, char *const *names, int n, int from_cu,
                        const char *nm, const char *objdump, const char *dir)
{
    char obj[CML_PATH], why[600];
    for (int i = 0; i < n; i++) {
        snprintf(obj, sizeof obj, "%.*s%s", (int)strlen(names[i]) - (from_cu ? 3 : 0), names[i],
                 from_cu ? ".o" : "");
        if (lr_object_read(&objs[i], nm, objdump, dir, obj, why, sizeof why) < 0) {
            c->obj = obj;
            lr_say(c, "could not be checked: %s (rule: readable)", why);
            return -1;
        }
    }
    return 0;
}

/* c->calls: the calls text of every student object, one after the other. */
static void read_calls(lr_ctx *c)
{
    size_t len = 0;
    for (int k = 0; k < c->nstudent; k++) {
        char *t = lr_calls_text(&c->student[k]);
        if (t)
            cml_appendf(&c->calls, &len, "%s", t);
        free(t);
    }
}

/* Contract in linkrules.h. */
void cml_link_outcome_free(cml_link_outcome *o)
{
    free(o->report);
    free(o->by_api);
    free(o->edits);
    *o = (cml_link_outcome){ 0 };
}

/* Contract in linkrules.h. */
int cml_link_check(const cml_link_rules *r, const char *dir, char *const *student_cu,
                   int nstudent, char *const *pristine_o, int npristine, const char *keep_dir,
                   cml_link_outcome *out)
{
    char nm[CML_PATH], objdump[CML_PATH], why[300];
    *out = (cml_link_outcome){ 0 };
    if (!r->common_loaded || lr_find_tools(nm, objdump, sizeof nm, why, sizeof why) < 0) {
        if (asprintf(&out->report, "link rules not enforced: %s\n", r->common_loaded ? why :
                     "no " CML_LINK_RULES_FILE " was loaded") < 0)
            out->report = NULL;
        return CML_LINK_NOT_ENFORCED;
    }
    lr_object *objs = calloc((size_t)(nstudent + npristine), sizeof *objs);
    lr_ctx c = { .r = r, .student = objs, .nstudent = nstudent, .pristine = objs + nstudent,
                 .npristine = npristine };
    if (objs && read_objects(&c, objs, student_cu, nstudent, 1, nm, objdump, dir) == 0 &&
        read_objects(&c, objs + nstudent, pristine_o, npristine, 0, nm, objdump, dir) == 0) {
        read_calls(&c);
        for (int k = 0; k < nstudent; k++) {
            char obj[CML_PATH];
            snprintf(obj, sizeof obj, "%.*s.o", (int)strlen(student_cu[k]) - 3, student_cu[k]);
            c.obj = obj;
            check_object(&c, k, dir, keep_dir, student_cu[k]);
        }
    }
    for (int i = 0; objs && i < nstudent + npristine; i++)
        lr_object_free(&objs[i]);
    free(objs);
    free(c.calls);
    if (c.nsaid > LR_MAX_LINES) {
        c.obj = "";
        lr_note(&c, "link rule: ... and %d more", c.nsaid - LR_MAX_LINES);
    }
    size_t len = 0;
    if (!objs)
        cml_appendf(&out->report, &len, "link rule: out of memory\n");
    cml_appendf(&out->report, &len, "%s%s", c.log ? c.log : "", c.notes ? c.notes : "");
    free(c.log);
    free(c.notes);
    out->by_api = c.by_api;
    out->edits = c.edits;
    if (!objs || c.whole)
        return CML_LINK_VIOLATED;
    return c.by_api ? CML_LINK_SOME_API : CML_LINK_PASSED;
}
