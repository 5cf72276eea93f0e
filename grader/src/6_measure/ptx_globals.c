/* The `__device__` memory of a student's module (issue 44: 6.1's "no device buffers"; a
 * `static __device__` array used as one passed), read from the build's PTX evidence
 * (2_build/evidence.c, digest checked): a module-scope variable in global memory is declared
 * there once, with its type and element count, whatever the source called it
 *   .global .align 4 .b8 _ZL5stage[4194304];
 *   .visible .global .align 4 .f32 buf[1024][2];
 *   .visible .global .attribute(.managed) .align 8 .u64 m;
 * Instructions (ld.global, st.global) sit in function bodies, indented, and never start with a
 * state space; `.extern` declares storage another module holds; `.const` and `.shared` are not
 * global memory a kernel can write. No GPU needed: tests/test_trace.c. */
#include "technique_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of a PTX fundamental type (".f32"), or 0. */
static int type_bytes(const char *w, size_t n)
{
    static const struct { const char *t; int b; } T[] = {
        {".b8", 1}, {".u8", 1}, {".s8", 1}, {".b16", 2}, {".u16", 2}, {".s16", 2}, {".f16", 2},
        {".bf16", 2}, {".b32", 4}, {".u32", 4}, {".s32", 4}, {".f32", 4}, {".f16x2", 4},
        {".b64", 8}, {".u64", 8}, {".s64", 8}, {".f64", 8}, {".b128", 16}, {".pred", 1}};
    for (size_t i = 0; i < sizeof T / sizeof *T; i++)
        if (strlen(T[i].t) == n && strncmp(w, T[i].t, n) == 0)
            return T[i].b;
    return 0;
}

/* The bytes one declaration line (up to its newline) reserves, its name into name; 0 when it
 * declares no global variable of this module. */
static double declared(const char *p, char *name, size_t nlen)
{
    size_t len = strcspn(p, "\n");
    double elems = 1, size = 0, vec = 1;
    int global = 0;
    for (size_t i = 0; i < len;) {
        size_t n = strcspn(p + i, " \t;=[\n");
        const char *w = p + i;
        if (n == 0) {
            if (p[i] == '=' || p[i] == ';')
                break; /* an initialiser or the end: the size is known */
            if (p[i] == '[') {
                char *e = NULL;
                double d = strtod(p + i + 1, &e);
                elems *= e && *e == ']' ? d : 1;
                i += e && *e == ']' ? (size_t)(e - (p + i)) + 1 : 1;
                continue;
            }
            i++;
            continue;
        }
        if (n == 7 && strncmp(w, ".extern", 7) == 0)
            return 0;
        if (n == 7 && strncmp(w, ".global", 7) == 0)
            global = 1;
        else if (n == 3 && (strncmp(w, ".v2", 3) == 0 || strncmp(w, ".v4", 3) == 0))
            vec = w[2] - '0';
        else if (n == 3 && strncmp(w, ".v8", 3) == 0)
            vec = 8;
        else if (type_bytes(w, n))
            size = type_bytes(w, n);
        else if (w[0] != '.' && global && size > 0)
            snprintf(name, nlen, "%.*s", (int)n, w);
        i += n;
    }
    return global && size > 0 && name[0] ? size * vec * elems : 0;
}

/* The device heap (issue 44, red team round 3: a 6.1 that cached x in memory a kernel took
 * with malloc passed "no device buffers"): a module whose code calls the device allocator
 * declares it, `.extern .func (.param .b64 func_retval0) malloc` (operator new, the aligned
 * form and the device runtime's cudaMalloc alike). Such a module can hold cudaLimitMallocHeapSize
 * bytes, 8 MiB unless the host raised it: counted as that much __device__ memory. The name
 * into name; 0 when the line declares none of them. */
#define DEVICE_HEAP_BYTES (8.0 * 1024 * 1024)
static double heap_declared(const char *p, char *name, size_t nlen)
{
    static const char *const ALLOC[] = {"malloc", "_Znwm", "_Znam", "_ZnwmSt11align_val_t",
                                        "__nv_aligned_device_malloc", "cudaMalloc"};
    const size_t len = strcspn(p, "\n");
    if (strncmp(p, ".extern", 7) != 0 || !memmem(p, len, ".func", 5)) /* this line only */
        return 0;
    for (size_t k = 0; k < sizeof ALLOC / sizeof *ALLOC; k++) {
        const size_t n = strlen(ALLOC[k]);
        for (const char *q = p + 1; q + n <= p + len; q++)
            if (strncmp(q, ALLOC[k], n) == 0 && (q[-1] == ' ' || q[-1] == ')' || q[-1] == '\t') &&
                (q + n == p + len || q[n] == ' ' || q[n] == '(' || q[n] == '\t')) {
                snprintf(name, nlen, "%s in device code: the device heap", ALLOC[k]);
                return DEVICE_HEAP_BYTES;
            }
    }
    return 0;
}

/* Contract in technique_run.h. */
double cml_ptx_global_bytes(const char *ptx, char *first, size_t flen)
{
    double total = 0;
    if (flen)
        first[0] = '\0';
    for (const char *p = ptx; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
        if (*p != '.') /* module scope: a directive at the start of its line */
            continue;
        char name[160] = "";
        double b = declared(p, name, sizeof name);
        if (b == 0)
            b = heap_declared(p, name, sizeof name);
        if (b > 0 && total == 0 && flen)
            snprintf(first, flen, "%s (%.0f bytes)", name, b);
        total += b;
    }
    return total;
}
