/* Reading an object file for the link rules: nm -P for the symbol table, objdump -t for where
 * each function lies, objdump -r for what each piece of code or data refers to, objdump -d for
 * the host instructions. Parsed in place: every string points into the tools' output. */
#include "linkrules_obj.h"
#include "util.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml.h"
#include "util.h"

#define TOOL_OUTPUT_CAP ((size_t)64 << 20)
#define TOOL_TIMEOUT_S 120.0

/* Contract in linkrules_obj.h. */
int lr_find_tools(char *nm, char *objdump, size_t len, char *why, size_t whylen)
{
    int a = cml_find_tool("CML_NM", "nm", nm, len);
    int b = cml_find_tool("CML_OBJDUMP", "objdump", objdump, len);
    if (a == 0 && b == 0)
        return 0;
    snprintf(why, whylen, "%s%s%s not found ($CML_NM, $CML_OBJDUMP or PATH; install binutils)",
             a ? "nm" : "", a && b ? " and " : "", b ? "objdump" : "");
    return -1;
}

/* Runs tool with one option on obj in dir; its whole output, or NULL with why. */
static char *tool_output(const char *tool, const char *opt, const char *dir, const char *obj,
                         char *why, size_t whylen)
{
    char *const argv[] = { (char *)tool, (char *)opt, (char *)obj, NULL };
    cml_proc_result r;
    cml_run(argv, NULL, dir, -1, TOOL_TIMEOUT_S, TOOL_OUTPUT_CAP, &r);
    char *out = NULL;
    if (!r.started || !r.exited || r.exit_code != 0)
        snprintf(why, whylen, "%s %s %s failed: %.200s", tool, opt, obj,
                 r.output ? r.output : "");
    else if (r.output_dropped)
        snprintf(why, whylen, "%s %s %s: over %zu MiB of output, too large to check", tool, opt,
                 obj, TOOL_OUTPUT_CAP >> 20);
    else {
        out = r.output;
        r.output = NULL;
    }
    cml_proc_result_free(&r);
    return out;
}

/* nm -P: "name type [value size]" per line. 0, or -1 out of memory (the array then freed). */
static int parse_nm(lr_object *o, char *text)
{
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(l, ' ');
        if (!sp || !sp[1])
            continue;
        if (!(o->syms = cml_grow(o->syms, o->nsyms, sizeof *o->syms)))
            return -1;
        *sp = '\0';
        o->syms[o->nsyms++] = (lr_sym){ l, sp[1] };
    }
    return 0;
}

/* objdump -t: "value flags(7) section\tsize name"; keeps function symbols (flag F) and data
 * symbols (flag O). 0, or -1 out of memory. */
static int parse_symtab(lr_object *o, char *text)
{
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(l, '\t');
        if (strlen(l) < 26 || l[16] != ' ' || (l[23] != 'F' && l[23] != 'O') || !tab)
            continue;
        int func = l[23] == 'F';
        char *sect = l + 25, *name = NULL;
        *tab = '\0';
        unsigned long long value = strtoull(l, NULL, 16), size = strtoull(tab + 1, &name, 16);
        while (*name == ' ')
            name++;
        if (strncmp(name, ".hidden ", 8) == 0)
            name += 8;
        lr_func **list = func ? &o->funcs : &o->datas;
        int *n = func ? &o->nfuncs : &o->ndatas;
        if (!(*list = cml_grow(*list, *n, sizeof **list)))
            return -1;
        (*list)[(*n)++] = (lr_func){ name, sect, value, size };
    }
    return 0;
}

/* objdump -r: "RELOCATION RECORDS FOR [section]:" then "offset type target[+-0xaddend]". 0, or
 * -1 out of memory. */
static int parse_relocs(lr_object *o, char *text)
{
    const char *section = "";
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "RELOCATION RECORDS FOR [", 24) == 0) {
            section = l + 24;
            l[strcspn(l, "]")] = '\0';
            continue;
        }
        char type[64], target[1024];
        unsigned long long off;
        if (sscanf(l, "%llx %63s %1023s", &off, type, target) != 3)
            continue;
        char *t = strstr(l, target), *plus = strstr(t, "+0x"), *minus = strstr(t, "-0x");
        char *cut = plus ? plus : minus;
        long long addend = cut ? strtoll(cut + 1, NULL, 16) * (cut == minus ? -1 : 1) : 0;
        t[cut ? (size_t)(cut - t) : strlen(target)] = '\0';
        if (!(o->rels = cml_grow(o->rels, o->nrels, sizeof *o->rels)))
            return -1;
        o->rels[o->nrels++] = (lr_reloc){ section, off, t, addend };
    }
    return 0;
}

/* Contract in linkrules_obj.h. */
int lr_object_read(lr_object *o, const char *nm, const char *objdump, const char *dir,
                   const char *obj, char *why, size_t whylen)
{
    memset(o, 0, sizeof *o);
    const char *tool[4] = { nm, objdump, objdump, objdump };
    const char *opt[4] = { "-P", "-t", "-r", "-d" };
    for (int i = 0; i < 4; i++)
        if (!(o->text[i] = tool_output(tool[i], opt[i], dir, obj, why, whylen)))
            return -1;
    o->disasm = o->text[3]; /* scanned line by line later, unmodified */
    /* a list cut short would hide a definition or a call from the rules: none is judged */
    if (parse_nm(o, o->text[0]) < 0 || parse_symtab(o, o->text[1]) < 0 ||
        parse_relocs(o, o->text[2]) < 0) {
        snprintf(why, whylen, "out of memory reading the symbols of %s", obj);
        return -1;
    }
    return 0;
}

/* Contract in linkrules_obj.h. */
void lr_object_free(lr_object *o)
{
    for (int i = 0; i < 4; i++)
        free(o->text[i]);
    free(o->syms);
    free(o->funcs);
    free(o->datas);
    free(o->rels);
    memset(o, 0, sizeof *o);
}

/* Contract in linkrules_obj.h. */
int lr_is_undefined(char type)
{
    return type == 'U' || type == 'w' || type == 'v';
}

/* Contract in linkrules_obj.h. */
int lr_is_weak(char type)
{
    return type == 'W' || type == 'V' || type == 'u';
}

/* Contract in linkrules_obj.h. */
int lr_glob_any(const char *sym, const char *const *patterns)
{
    for (; *patterns; patterns++)
        if (fnmatch(*patterns, sym, 0) == 0)
            return 1;
    return 0;
}

/* Contract in linkrules_obj.h. */
int lr_defines(const lr_object *o, const char *name, char *type)
{
    for (int i = 0; i < o->nsyms; i++)
        if (!lr_is_undefined(o->syms[i].type) && strcmp(o->syms[i].name, name) == 0) {
            if (type)
                *type = o->syms[i].type;
            return 1;
        }
    return 0;
}

/* Contract in linkrules_obj.h. */
int lr_references(const lr_object *o, const char *name)
{
    for (int i = 0; i < o->nsyms; i++)
        if (lr_is_undefined(o->syms[i].type) && strcmp(o->syms[i].name, name) == 0)
            return 1;
    return 0;
}

/* Contract in linkrules_obj.h. */
const lr_func *lr_func_named(const lr_object *o, const char *name)
{
    for (int i = 0; i < o->nfuncs; i++)
        if (strcmp(o->funcs[i].name, name) == 0)
            return &o->funcs[i];
    return NULL;
}

/* Contract in linkrules_obj.h. */
int lr_relocated(const lr_object *o, const char *section, uint64_t from, uint64_t to)
{
    for (int i = 0; i < o->nrels; i++)
        if (o->rels[i].offset >= from && o->rels[i].offset < to &&
            strcmp(o->rels[i].section, section) == 0)
            return 1;
    return 0;
}

/* Contract in linkrules_obj.h. */
int lr_rel_in(const lr_reloc *r, const lr_func *f)
{
    return strcmp(r->section, f->section) == 0 && r->offset >= f->value &&
           r->offset < f->value + f->size;
}

/* Contract in linkrules_obj.h. */
const lr_func *lr_func_at(const lr_object *o, const char *section, uint64_t offset)
{
    for (int i = 0; i < o->nfuncs; i++) {
        const lr_func *f = &o->funcs[i];
        if (strcmp(f->section, section) == 0 && offset >= f->value &&
            (offset < f->value + f->size || (f->size == 0 && offset == f->value)))
            return f;
    }
    return NULL;
}

/* Contract in linkrules_obj.h. */
const lr_func *lr_data_at(const lr_object *o, const char *section, uint64_t offset)
{
    for (int i = 0; i < o->ndatas; i++) {
        const lr_func *d = &o->datas[i];
        if (strcmp(d->section, section) == 0 && offset == d->value)
            return d;
    }
    return NULL;
}

/* Contract in linkrules_obj.h. */
const char *lr_rel_target(const lr_object *o, const lr_reloc *r, int how)
{
    if (r->target[0] != '.')
        return r->target;
    const uint64_t at = (uint64_t)r->addend, past = (uint64_t)(r->addend + 4);
    /* an operand's target that starts a function is that function, even where addend itself
     * falls inside the one before (`call .text+0xc` to the function at 0x10, after a 16-byte
     * one: every nvcc object's __cudaUnregisterBinaryUtil under -fcf-protection's endbr64) */
    const lr_func *f = how & LR_PAST_OPERAND ? lr_func_at(o, r->target, past) : NULL;
    f = f && f->value == past ? f : lr_func_at(o, r->target, at);
    f = f || !(how & LR_PAST_OPERAND) ? f : lr_func_at(o, r->target, past);
    f = f || !(how & LR_DATA) ? f : lr_data_at(o, r->target, past);
    return f ? f->name : NULL;
}

/* Contract in linkrules_obj.h. */
int lr_disasm_header(const char *line, size_t len, char *buf, size_t blen)
{
    const char *lt = memchr(line, '<', len);
    if (len <= 3 || line[len - 1] != ':' || line[len - 2] != '>' || !lt ||
        !isxdigit((unsigned char)line[0]))
        return 0;
    snprintf(buf, blen, "%.*s", (int)(line + len - 2 - lt - 1), lt + 1);
    return 1;
}

/* Contract in linkrules.h. */
int cml_link_apply(const char *edits, const char *dir, const char *obj, const char *linked,
                   char *why, size_t whylen)
{
    char objcopy[CML_PATH];
    size_t n = strlen(obj), k = 0, cap = 8;
    char **argv = malloc(cap * sizeof *argv);
    int rc = argv ? 0 : -1;
    for (const char *l = edits ? edits : ""; rc == 0 && *l; l += strcspn(l, "\n"),
         l += *l == '\n') {
        const char *opt = l + n + 1, *arg = opt + strcspn(opt, " \n");
        if (strncmp(l, obj, n) != 0 || l[n] != ' ' || *arg != ' ')
            continue;
        char **grown = k + 6 > cap ? realloc(argv, (cap *= 2) * sizeof *argv) : argv;
        if (!grown) {
            rc = -1;
            break;
        }
        argv = grown;
        argv[++k] = strndup(opt, (size_t)(arg - opt));
        argv[++k] = strndup(arg + 1, strcspn(arg + 1, "\n"));
    }
    if (rc == 0 && k && cml_find_tool("CML_OBJCOPY", "objcopy", objcopy, sizeof objcopy) < 0) {
        snprintf(why, whylen, "objcopy not found ($CML_OBJCOPY or PATH; install binutils)");
        rc = -1;
    }
    if (rc == 0 && k) {
        argv[0] = objcopy;
        argv[k + 1] = (char *)obj;
        argv[k + 2] = (char *)linked;
        argv[k + 3] = NULL;
        cml_proc_result r;
        cml_run(argv, NULL, dir, -1, TOOL_TIMEOUT_S, 1u << 16, &r);
        if (!r.started || !r.exited || r.exit_code != 0) {
            snprintf(why, whylen, "objcopy on %s failed: %.200s", obj, r.output ? r.output : "");
            rc = -1;
        }
        cml_proc_result_free(&r);
    }
    for (size_t i = 1; argv && i <= k; i++)
        free(argv[i]);
    free(argv);
    return rc < 0 ? -1 : k > 0;
}
