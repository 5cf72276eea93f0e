/* Internal to the link rules: an object file as nm and objdump describe it (linkrules_obj.c). */
#ifndef CML_LINKRULES_OBJ_H
#define CML_LINKRULES_OBJ_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    char type;               /* nm's letter: T W V u ... defined, U w v undefined */
} lr_sym;

typedef struct {
    const char *name, *section;
    uint64_t value, size;
} lr_func;                   /* a function symbol (objdump -t flag F) */

typedef struct {
    const char *section;     /* where the relocation sits */
    uint64_t offset;
    const char *target;      /* the symbol (or section) it refers to */
    int64_t addend;
} lr_reloc;

typedef struct {
    char *text[4];           /* owned tool outputs: nm -P, objdump -t, -r, -d */
    lr_sym *syms;
    int nsyms;
    lr_func *funcs;
    int nfuncs;
    lr_func *datas;          /* data symbols (objdump -t flag O), e.g. a kernel stub's handle */
    int ndatas;
    lr_reloc *rels;
    int nrels;
    const char *disasm;      /* objdump -d output (text[3]) */
} lr_object;

/* The tools: $CML_NM / $CML_OBJDUMP when set, else nm / objdump on PATH. 0 when both were
 * found; -1 with what is missing in why. */
int lr_find_tools(char *nm, char *objdump, size_t len, char *why, size_t whylen);

/* Run the tools on dir/obj and parse their output into o. 0, or -1 with why (a tool failed,
 * its output was too large to check, or no memory was left to hold its lists). Free with
 * lr_object_free either way. */
int lr_object_read(lr_object *o, const char *nm, const char *objdump, const char *dir,
                   const char *obj, char *why, size_t whylen);
void lr_object_free(lr_object *o);

/* Whether o defines (nm letter other than U, w, v) or references (U, w, v) name. */
int lr_defines(const lr_object *o, const char *name, char *type);
int lr_references(const lr_object *o, const char *name);

/* The function of o named name; NULL when o has none. */
const lr_func *lr_func_named(const lr_object *o, const char *name);
/* Whether o has a relocation in [from, to) of section: an instruction there carries one. */
int lr_relocated(const lr_object *o, const char *section, uint64_t from, uint64_t to);
/* Whether relocation r sits in f's code. */
int lr_rel_in(const lr_reloc *r, const lr_func *f);

/* The function of o whose code holds section+offset; NULL when none does. */
const lr_func *lr_func_at(const lr_object *o, const char *section, uint64_t offset);

/* The data symbol of o that starts exactly at section+offset; NULL when none does. */
const lr_func *lr_data_at(const lr_object *o, const char *section, uint64_t offset);

/* What relocation r names: its symbol, or for a section symbol (".text+0x40", how the assembler
 * names what is file-local) what lies there: the function holding the addend; with
 * LR_PAST_OPERAND (a call's or RIP-relative operand's addend is -4 from its place) first a
 * function that starts at addend + 4, and failing both the one holding addend + 4; with
 * LR_DATA also data that starts exactly at addend + 4 (`lea handle(%rip)`; only a start:
 * `cmpb $0, guard(%rip)` is -5, inside the object before it). NULL when nothing is there. */
enum { LR_PAST_OPERAND = 1, LR_DATA = 2 };
const char *lr_rel_target(const lr_object *o, const lr_reloc *r, int how);

/* objdump -d: whether the line of length len is a function's header ("0000... <name>:"); its
 * name into buf (capped) when it is. */
int lr_disasm_header(const char *line, size_t len, char *buf, size_t blen);
/* A buffer for one symbol's name: C++ template instances reach hundreds of characters
 * (std::unordered_map<std::string, unsigned>'s range constructor is 321), and a name cut short
 * matches no symbol, which the rules would read as code they cannot follow. */
#define LR_NAME_MAX 4096

/* linkrules_calls.c: "caller target\n" for every function of o that a host function (not
 * nvcc's per-kernel code) refers to or calls; malloc'd, NULL when out of memory. */
char *lr_calls_text(const lr_object *o);
/* Whether f is code nvcc writes for every kernel (stubs, registration), not the student's. */
int lr_generated(const char *f);

/* Whether target is a kernel's stub or host symbol (some stub's name holds it), or data of a
 * stub (the launch handle nvcc keeps beside an inlined stub: a template kernel's launch). */
int lr_kernel_symbol(const lr_object *o, const char *target);
/* Whether name is exactly a kernel's host function (_Z1kPf, _ZL1sPf, _ZN2ns1kEPf, _Z1tIfEvPT_):
 * a stub's identifier is "__device_stub_" and that name's external spelling, whole; code nvcc
 * writes, which launches the kernel when called and does nothing else. */
int lr_kernel_host(const lr_object *o, const char *name);

/* The function a piece of code belongs to: "f.cold" (moved out of line by gcc) is f's. */
const char *lr_whole_function(const char *name, char *buf, size_t len);

/* nm letters. */
int lr_is_undefined(char type);
int lr_is_weak(char type); /* W V u: a later definition may lose to an earlier one */
/* Whether sym matches one of the NULL-ended fnmatch patterns. Here, below the rules' files:
 * kept in linkrules.c, the constructors rule (linkrules_ctors.c) called back into it. */
int lr_glob_any(const char *sym, const char *const *patterns);

#endif /* CML_LINKRULES_OBJ_H */
