/* Who calls whom in a student object, from its relocations (library calls, other files'
 * functions) and the direct calls, jumps and %rip-relative addresses of its disassembly (a
 * file-local function in the same section needs no relocation: `call 0 <_ZL6helperPf>`). Two
 * readers: the forbid check, following a file's calls into another file's functions through
 * the build's ev/<file>.calls evidence (evidence_launches.c, calls_check.c), and the link
 * rules, which find the API functions whose code reaches a refused call (linkrules_reach.c).
 * References made through data (a table of function pointers) are not followed: a refused call
 * reached only that way costs the whole lab, never less. */
#include "linkrules_obj.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Contract in linkrules_obj.h. */
int lr_generated(const char *f)
{
    return strstr(f, "__device_stub_") || strstr(f, "cudaRegister") ||
           strstr(f, "cudaEntityRegister") || strstr(f, "__sti__");
}

/* name with the internal-linkage marks of its mangling dropped (_ZL11k -> _Z11k,
 * _ZN2nsL11k -> _ZN2ns11k): nvcc gives a template kernel's host function internal linkage,
 * while its stub's name holds the external spelling. Into buf. */
static const char *external(const char *name, char *buf, size_t len)
{
    size_t n = strlen(name), k = 0, o = 0;
    if (strncmp(name, "_Z", 2) == 0) { /* the prefix: _Z [N] ([L] <length><identifier>)... */
        k = 2 + (name[2] == 'N');
        o = (size_t)snprintf(buf, len, "%.*s", (int)k, name);
        while (k < n && o < len) {
            size_t at = k + (name[k] == 'L');
            char *end;
            if (!isdigit((unsigned char)name[at]))
                break;
            size_t stop = (size_t)strtoul(name + at, &end, 10) + (size_t)(end - name);
            stop = stop > n ? n : stop;
            o += (size_t)snprintf(buf + o, len - o, "%.*s", (int)(stop - at), name + at);
            k = stop;
        }
    }
    if (o < len)
        snprintf(buf + o, len - o, "%s", name + k);
    return buf;
}

/* Contract in linkrules_obj.h. */
int lr_kernel_symbol(const lr_object *o, const char *target)
{
    char ext[LR_NAME_MAX];
    if (strstr(target, "__device_stub_"))
        return 1;
    external(target, ext, sizeof ext);
    for (int i = 0; target[0] == '_' && target[1] == 'Z' && i < o->nsyms; i++)
        if (strstr(o->syms[i].name, "__device_stub_") && strstr(o->syms[i].name, ext))
            return 1;
    return 0;
}

/* Contract in linkrules_obj.h. */
int lr_kernel_host(const lr_object *o, const char *name)
{
    char ext[LR_NAME_MAX], id[LR_NAME_MAX + 32];
    if (strncmp(name, "_Z", 2) != 0)
        return 0;
    external(name, ext, sizeof ext);
    int n = snprintf(id, sizeof id, "%zu__device_stub_%s", strlen(ext) + 14, ext);
    if (n <= 0 || (size_t)n >= sizeof id)
        return 0;
    for (int i = 0; i < o->nsyms; i++) { /* "_Z25__device_stub__ZN2ns1kEPfPf": the stub's own
                                          * name is "__device_stub_" and the kernel's, whole */
        const char *at = strstr(o->syms[i].name, id);
        if (at && at > o->syms[i].name && !isdigit((unsigned char)at[-1]))
            return 1;
    }
    return 0;
}

/* Contract in linkrules_obj.h. */
const char *lr_whole_function(const char *name, char *buf, size_t len)
{
    const char *cold = strstr(name, ".cold");
    snprintf(buf, len, "%.*s", (int)(cold ? (size_t)(cold - name) : strlen(name)), name);
    return buf;
}

/* Whether the branch (or %rip-relative reference) on objdump -d line l (length n) of function
 * func carries no relocation: the assembler resolved it (a target in func's own section), and
 * the `<name>` objdump shows is where it goes. A relocated branch's field is zero, and objdump
 * names whatever follows the instruction (the next function, after a 5-byte host stub's jump):
 * its target is the relocation's, read from the relocations. */
static int resolved_branch(const lr_object *o, const char *func, const char *l, size_t n)
{
    const lr_func *f = lr_func_named(o, func);
    char *end;
    uint64_t at = strtoull(l, &end, 16), len = 0;
    const char *bytes = f && *end == ':' ? memchr(l, '\t', n) : NULL;
    for (const char *b = bytes ? bytes + 1 : NULL; b && b + 2 <= l + n &&
         isxdigit((unsigned char)b[0]) && isxdigit((unsigned char)b[1]); b += 3)
        len++; /* "e8 00 00 00 00 " : one byte per three characters */
    return len && !lr_relocated(o, f->section, at, at + len);
}

/* Contract in linkrules_obj.h. */
char *lr_calls_text(const lr_object *o)
{
    char *t = NULL, func[LR_NAME_MAX] = "", a[LR_NAME_MAX], b[LR_NAME_MAX];
    char to[LR_NAME_MAX];
    size_t len = 0;
    int bad = cml_appendf(&t, &len, "%s", "") < 0; /* "" when no function calls another */
    for (int i = 0; !bad && i < o->nrels; i++) {
        const lr_func *fn = lr_func_at(o, o->rels[i].section, o->rels[i].offset);
        const char *target = fn ? lr_rel_target(o, &o->rels[i], LR_PAST_OPERAND) : NULL;
        if (target && !lr_generated(fn->name) &&
            strcmp(lr_whole_function(fn->name, a, sizeof a),
                   lr_whole_function(target, b, sizeof b)) != 0)
            bad = cml_appendf(&t, &len, "%s %s\n", a, b) < 0;
    }
    for (const char *l = o->disasm; !bad && l && *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t n = strcspn(l, "\n");
        if (lr_disasm_header(l, n, func, sizeof func))
            continue;
        const char *lt = memchr(l, '<', n), *gt = lt ? memchr(lt, '>', l + n - lt) : NULL;
        /* a call or jump, or an address taken relative to %rip ("lea 0x40a(%rip),%rax  # a3a
         * <_ZL1kPf>": a file-local or template kernel handed to cudaLaunchKernel, a pointer
         * to a static helper), all resolved by the assembler within the section */
        int branch = memmem(l, n, "\tcall", 5) || memmem(l, n, "\tjmp", 4) ||
                     (memmem(l, n, "(%rip)", 6) && memmem(l, n, "# ", 2));
        if (!branch || !gt || memchr(lt, '+', (size_t)(gt - lt)) || lr_generated(func) ||
            !resolved_branch(o, func, l, n))
            continue;
        snprintf(to, sizeof to, "%.*s", (int)(gt - lt - 1), lt + 1);
        if (strcmp(lr_whole_function(func, a, sizeof a), lr_whole_function(to, b, sizeof b)))
            bad = cml_appendf(&t, &len, "%s %s\n", a, b) < 0;
    }
    if (bad) {
        free(t);
        return NULL;
    }
    return t;
}
