/* Evidence of which kernels host code launches: a kernel compiled into the student's object but
 * launched from nowhere (a decoy that holds the technique while a plain kernel does the work)
 * must not satisfy a ptx or sass check about it. nvcc compiles `k<<<...>>>(...)` into a call
 * of k's host stub (`__device_stub__Z1k...`), so the functions whose code refers to a kernel's
 * stub or host symbol are where it is launched; the stub itself and the registration code
 * (`__sti____cudaRegisterAll`, `__nv_cudaEntityRegisterCallback`) refer to every kernel and do
 * not count. A launch in a branch that never runs still counts: this is the static half. */
#include "evidence.h"
#include "linkrules_obj.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ev/<file>.symbols: "T name" for each function the object defines strongly, "t name" and
 * "W name" for its file-local and weak ones (a static helper, a template instantiated here,
 * Thrust's), "U name" for each it uses from elsewhere: a source check on one file can then see
 * that file hand its work to a function of another student file (forbid, technique.c), and a
 * trace check which frames of a call's stack are the student's code (trace_run.c). */
static int write_symbols(const lr_object *o, const char *file, const char *ev)
{
    char path[CML_PATH];
    FILE *f = cml_fmt(path, sizeof path, "%s/%s.symbols", ev, file) == 0 ? fopen(path, "w")
              : NULL;
    if (!f)
        return -1;
    for (int i = 0; i < o->nsyms; i++)
        if (o->syms[i].type && strchr("TtWU", o->syms[i].type))
            fprintf(f, "%c %s\n", o->syms[i].type, o->syms[i].name);
    return fclose(f) == 0 ? 0 : -1;
}

/* Whether section holds the program's own data (a table of kernel pointers), not unwind,
 * debug or registration records, which name every function. */
static int data_section(const char *section)
{
    return strncmp(section, ".data", 5) == 0 || strncmp(section, ".rodata", 7) == 0;
}

/* ev/<file>.launches: "caller target" for each reference from a host function (not nvcc's
 * own per-kernel code) to a kernel's stub or host symbol, relocated or not (`calls`, the
 * object's lr_calls_text: a launch that ends its function is a jump to the stub, which the
 * assembler resolves within .text), and "<section> target" for a kernel whose address the
 * file's data holds (`static const K table[] = { k };` launched as `table[i]<<<...>>>`: the
 * code refers to the table only). nvcc's own data names no kernel. */
static int write_launches(const lr_object *o, const char *calls, const char *file,
                          const char *ev)
{
    char path[CML_PATH];
    FILE *f = cml_fmt(path, sizeof path, "%s/%s.launches", ev, file) == 0 ? fopen(path, "w")
              : NULL;
    if (!f)
        return -1;
    for (int i = 0; i < o->nrels; i++) {
        const lr_func *fn = lr_func_at(o, o->rels[i].section, o->rels[i].offset);
        /* a launch handle is data beside an inlined stub (a template kernel's launch) */
        const char *to = fn ? lr_rel_target(o, &o->rels[i], LR_PAST_OPERAND | LR_DATA) : NULL;
        if (to && !lr_generated(fn->name) && strcmp(fn->name, to) != 0 &&
            lr_kernel_symbol(o, to))
            fprintf(f, "%s %s\n", fn->name, to);
        to = !fn && data_section(o->rels[i].section) ? lr_rel_target(o, &o->rels[i], 0) : NULL;
        if (to && lr_kernel_symbol(o, to))
            fprintf(f, "%s %s\n", o->rels[i].section, to);
    }
    for (const char *l = calls; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t n = strcspn(l, "\n"), c = strcspn(l, " \n");
        char to[LR_NAME_MAX];
        if (c < n && snprintf(to, sizeof to, "%.*s", (int)(n - c - 1), l + c + 1) > 0 &&
            lr_kernel_symbol(o, to))
            fprintf(f, "%.*s\n", (int)n, l);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ev/<file>.calls: calls, "caller target" for each symbol a host function refers to or calls
 * (lr_calls_text); the forbid check follows them into other files (calls_check.c). */
static int write_calls(const char *calls, const char *file, const char *ev)
{
    char path[CML_PATH];
    return cml_fmt(path, sizeof path, "%s/%s.calls", ev, file) == 0 &&
           cml_write_file(path, calls, strlen(calls)) == 0 ? 0 : -1;
}

/* Contract in evidence.h. */
int cml_evidence_launches(const char *dir, const char *file, const char *ev)
{
    char nm[CML_PATH], objdump[CML_PATH], why[600] = "", obj[CML_PATH], path[CML_PATH];
    lr_object o;
    memset(&o, 0, sizeof o);
    size_t n = strlen(file);
    int rc;
    if (lr_find_tools(nm, objdump, sizeof nm, why, sizeof why) == 0 &&
        cml_fmt(obj, sizeof obj, "%.*s.o", (int)(n > 3 ? n - 3 : n), file) == 0 &&
        lr_object_read(&o, nm, objdump, dir, obj, why, sizeof why) == 0) {
        char *calls = lr_calls_text(&o);
        rc = !calls || write_launches(&o, calls, file, ev) < 0 ||
             write_symbols(&o, file, ev) < 0 || write_calls(calls, file, ev) < 0 ? -1 : 0;
        free(calls);
    } else { /* no nm or objdump: no launches asked for, calls not checked (never a false fail) */
        rc = 0;
        for (int k = 0; k < 2; k++)
            if (cml_fmt(path, sizeof path, "%s/%s.%s.err", ev, file,
                        k ? "calls" : "launches") < 0 ||
                cml_write_file(path, why, strlen(why)) < 0)
                rc = -1;
    }
    lr_object_free(&o);
    return rc;
}
