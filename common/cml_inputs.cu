/* The case's inputs: filled from the seed (cml_input, cml_input_with), filled again before each
 * timed repetition (cml_refill_inputs), and held to "inputs are only read" (issue 44): every
 * task's sheet names buffers the task only reads, and a task that kept intermediate results in
 * one (lab 06's saxpy accumulating its passes in y) passed while it destroyed the caller's data.
 * So each input's digest (cml_digest.h) is taken when it is filled, and again after the checked
 * launch, for the input and for every host copy of it the task is handed (lab 06's x and y,
 * lab 07's A and B: cml_input_copy); a digest that changed fails the case. The timed
 * repetitions are not checked: their timing is unchanged. */
#include "cml_digest.h"
#include "cml_lab_int.h"
#include "cml_um.h"

#include <algorithm>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

enum { MAX_INPUTS = 16 };

/* The case's inputs and their host copies; emptied when the case ends (cml_inputs_forget).
 * slots (device): [0, 16) each input's digest when filled, [16, 32) after the checked launch,
 * [32, 48) each copy's after it. The key is this run's, drawn once: never in a symbol. */
static struct {
    struct {
        float *p;
        size_t elems;
        cml_fill_fn fill;
        uint64_t arg;
        const char *name;
    } in[MAX_INPUTS];
    int nin;
    struct {
        const float *p;
        int of; /* the input it copies */
        const char *name;
    } copy[MAX_INPUTS];
    int ncopy;
    unsigned long long *d_slots; /* lives as long as the run */
    uint64_t key;
} g_in;

enum { SLOT_NOW = MAX_INPUTS, SLOT_COPY = 2 * MAX_INPUTS, NSLOTS = 3 * MAX_INPUTS };

/* ---- fills ---- */

/* kind: a cml_values, the generator of cml_rand.h the grader's check of the task calls too */
__global__ void fillRandom(float *p, size_t n, uint64_t seed, uint32_t stream, int kind)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = kind == CML_VALUES_EVERY_BIT ? cml_rand_f32_all(seed, stream, i)
             : kind == CML_VALUES_FINITE    ? cml_rand_f32_any(seed, stream, i)
                                            : cml_rand_f32(seed, stream, i);
}

/* arg: the stream in its low 32 bits, the cml_values above them (cml_input_of) */
static void fill_random(float *p, size_t elems, uint64_t seed, uint64_t arg, cudaStream_t s)
{
    size_t blocks = std::min((elems + 255) / 256, (size_t)cml_sm_count() * 16);
    fillRandom<<<(unsigned)blocks, 256, 0, s>>>(p, elems, seed, (uint32_t)arg, (int)(arg >> 32));
    CML_CHECK_LAUNCH();
}

/* ---- digests ---- */

__global__ void inputDigest(const float *p, size_t n, uint64_t key, unsigned long long *slot)
{
    unsigned long long h = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        h += cml_digest_term(key, i, __float_as_uint(p[i]));
    for (int d = 16; d > 0; d /= 2) /* a warp's sum, then one atomic per warp */
        h += __shfl_down_sync(0xFFFFFFFFu, h, d);
    if ((threadIdx.x & 31) == 0 && h)
        atomicAdd(slot, h);
}

/* The run's key and slots, made on first use. */
static void digests_open(void)
{
    if (g_in.d_slots)
        return;
    uint64_t k = 0;
    if (getrandom(&k, sizeof k, 0) != (ssize_t)sizeof k) { /* no entropy call: still unknown */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        k = cml_mix64((uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 32) ^ (uint64_t)getpid());
    }
    g_in.key = k;
    CML_CHECK(cudaMalloc(&g_in.d_slots, NSLOTS * sizeof *g_in.d_slots));
    /* every slot written once: the check copies all of them back, and initcheck reported the
     * unused ones as uninitialized reads of the harness on every lab (H200), which made each
     * initcheck run "not checked" */
    CML_CHECK(cudaMemset(g_in.d_slots, 0, NSLOTS * sizeof *g_in.d_slots));
}

/* Queues the digest of the n floats a kernel reads at p into slot, on the case's stream. */
static void digest_on_gpu(const float *p, size_t n, int slot)
{
    unsigned long long *s = g_in.d_slots + slot;
    CML_CHECK(cudaMemsetAsync(s, 0, sizeof *s, cml_stream()));
    const size_t blocks = std::min((n + 255) / 256, (size_t)cml_sm_count() * 8);
    inputDigest<<<(unsigned)std::max<size_t>(blocks, 1), 256, 0, cml_stream()>>>(p, n, g_in.key,
                                                                               s);
    CML_CHECK_LAUNCH();
}

/* The digest of n floats of host memory, by host threads. */
static uint64_t digest_on_host(const float *p, size_t n)
{
    struct job {
        const float *p;
        uint64_t key, part[CML_MAX_HOST_THREADS];
    } j = {p, g_in.key, {0}};
    const size_t nt = cml_host_parts(n, 65536, [](void *ctx, size_t t, size_t b, size_t e) {
        job *jb = (job *)ctx;
        uint64_t h = 0;
        for (size_t i = b; i < e; i++) {
            uint32_t bits;
            memcpy(&bits, &jb->p[i], sizeof bits);
            h += cml_digest_term(jb->key, i, bits);
        }
        jb->part[t] = h;
    }, &j);
    uint64_t h = 0;
    for (size_t t = 0; t < nt; t++)
        h += j.part[t];
    return h;
}

/* A host copy's address a kernel reads it at (device or pinned memory, where the kernel reads
 * in place), or NULL: managed memory, whose pages a kernel would move (first brought to the
 * host in bulk, *managed set), or memory CUDA does not know; the host's threads read those. */
static const float *gpu_view(const float *p, int *managed, const char **kind)
{
    cudaPointerAttributes a;
    *managed = 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        *kind = "host";
        return NULL;
    }
    *managed = a.type == cudaMemoryTypeManaged;
    *kind = a.type == cudaMemoryTypeDevice ? "device" : a.type == cudaMemoryTypeHost ? "pinned host"
            : *managed ? "managed" : "host";
    return a.type == cudaMemoryTypeDevice ? p
           : a.type == cudaMemoryTypeHost ? (const float *)a.devicePointer : NULL;
}

/* Under compute-sanitizer the task's bytes of an input may be narrower than the buffer
 * (cml_exact): a digest reads all of it, as a fill writes all of it. */
static void widen(const float *p, int wide)
{
    cml_guarded *g = cml_case_buffer(p);
    if (g && g->task_p)
        cml_exact_set(g, wide ? g->p : g->task_p, wide ? g->bytes : g->task_bytes);
}

/* ---- the library's calls ---- */

float *cml_input_with(size_t elems, cml_fill_fn fill, uint64_t arg)
{
    float *p = cml_alloc(elems);
    if (p) { /* nin <= the case's buffers <= 16 */
        digests_open();
        fill(p, elems, cml_seed(), arg, cml_stream());
        digest_on_gpu(p, elems, g_in.nin); /* what the task must find there, and leave */
        g_in.in[g_in.nin++] = {p, elems, fill, arg, NULL};
    }
    return p;
}

float *cml_input(size_t elems, uint32_t stream) { return cml_input_with(elems, fill_random, stream); }

float *cml_input_of(size_t elems, uint32_t stream, cml_values kind)
{
    return cml_input_with(elems, fill_random, (uint64_t)kind << 32 | stream);
}

void cml_input_name(const float *input, const char *name)
{
    for (int i = 0; i < g_in.nin; i++)
        if (g_in.in[i].p == input)
            g_in.in[i].name = name;
}

void cml_input_copy(const float *copy, const float *input, const char *name)
{
    for (int i = 0; i < g_in.nin && g_in.ncopy < MAX_INPUTS; i++)
        if (g_in.in[i].p == input) {
            g_in.copy[g_in.ncopy++] = {copy, i, name};
            return;
        }
    cml_case_fail("harness error: cml_input_copy given an input the case did not make");
}

void cml_refill_inputs(void)
{
    for (int i = 0; i < g_in.nin; i++) {
        widen(g_in.in[i].p, 1); /* the fill writes the whole buffer */
        g_in.in[i].fill(g_in.in[i].p, g_in.in[i].elems, cml_seed(), g_in.in[i].arg,
                        cml_stream());
        widen(g_in.in[i].p, 0);
    }
}

void cml_inputs_forget(void) { g_in.nin = g_in.ncopy = 0; }

/* The words for a changed buffer. */
static int changed(char *why, size_t len, const char *name, int i, size_t elems,
                   const char *kind)
{
    char own[32];
    if (!name)
        snprintf(own, sizeof own, g_in.nin == 1 ? "the input" : "input %d of %d", i + 1,
                 g_in.nin);
    snprintf(why, len, "your code wrote into an input the task only reads: %s (%zu floats of %s "
             "memory) changed in the checked launch; keep intermediate results in the output "
             "or in memory of your own", name ? name : own, elems, kind);
    return -1;
}

/* Contract in cml_lab_int.h. */
int cml_case_inputs_intact(char *why, size_t len)
{
    if (g_in.nin == 0)
        return 0;
    unsigned long long got[NSLOTS];
    int managed[MAX_INPUTS] = {0};
    const char *kind[MAX_INPUTS];
    const float *view[MAX_INPUTS];
    for (int i = 0; i < g_in.nin; i++) {
        widen(g_in.in[i].p, 1);
        digest_on_gpu(g_in.in[i].p, g_in.in[i].elems, SLOT_NOW + i);
    }
    for (int j = 0; j < g_in.ncopy; j++)
        if ((view[j] = gpu_view(g_in.copy[j].p, &managed[j], &kind[j])))
            digest_on_gpu(view[j], g_in.in[g_in.copy[j].of].elems, SLOT_COPY + j);
        else if (managed[j] && cml_mem_prefetch(g_in.copy[j].p, g_in.in[g_in.copy[j].of].elems *
                                                sizeof(float), cml_loc_host(), cml_stream()) !=
                                   cudaSuccess)
            (void)cudaGetLastError(); /* refused (no concurrent managed access): faults then */
    CML_CHECK(cudaMemcpyAsync(got, g_in.d_slots, sizeof got, cudaMemcpyDeviceToHost,
                              cml_stream()));
    CML_CHECK(cudaStreamSynchronize(cml_stream()));
    for (int i = 0; i < g_in.nin; i++)
        widen(g_in.in[i].p, 0);
    for (int i = 0; i < g_in.nin; i++)
        if (got[SLOT_NOW + i] != got[i])
            return changed(why, len, g_in.in[i].name, i, g_in.in[i].elems, "device");
    for (int j = 0; j < g_in.ncopy; j++) {
        const int of = g_in.copy[j].of;
        const uint64_t now = view[j] ? got[SLOT_COPY + j]
                                     : digest_on_host(g_in.copy[j].p, g_in.in[of].elems);
        if (now != got[of])
            return changed(why, len, g_in.copy[j].name, of, g_in.in[of].elems, kind[j]);
    }
    return 0;
}
