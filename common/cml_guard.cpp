/* Guard regions: every device buffer cml_alloc hands to student code sits in an address range
 * of its own (CUDA's virtual memory management), mapped only where the buffer is, so that an
 * access outside it faults ("an illegal memory access") at any size, in every graded, timed or
 * tool run, instead of reading a neighbour's data or writing over it unseen.
 *
 * Layout: a reserved range of one unmapped granule (2 MiB on an H100), the mapping (the buffer
 * rounded up to 256 bytes, then to whole granules), one unmapped granule. The buffer ends where
 * the mapping ends (end-aligned: the first byte past its 256-byte rounding faults), or, in
 * alternate cases, starts where it starts (the byte before it faults). Starts stay 256-byte
 * aligned like cudaMalloc's, so no sheet's alignment promise changes and a copy runs at
 * cudaMalloc's speed (issue 23: an end-aligned start pushed off 128 bytes copied 1.74x slower).
 * The mapped bytes around a buffer that the rounding leaves (< 256 after an end-aligned
 * buffer; the rest of the granules elsewhere) hold a canary byte, checked after the task's
 * checked launch and before its case is reported (cml_case_canaries, cml_run_case.cpp): a write
 * there is the same verdict as a fault, and a read there returns no input.
 *
 * Pinned host buffers of the harness's own (lab 06's 6.2 and 6.3) get the same layout at the
 * host's page size: memory of this process's own (mmap) between two PROT_NONE pages, the middle
 * registered with cudaHostRegister. A kernel's read or write one float past such a buffer
 * faulted on an H100, and the buffers copied and served zero-copy kernels at cudaHostAlloc's
 * speed (docs/bench/2026-11-27-host-guard). Buffers the student allocates (6.1, lab 07) cannot
 * be placed this way.
 *
 * Sanitizer runs pass --no-guard: the tools know cudaMalloc's exact bounds, finer than 256 bytes.
 * The driver's functions come through cudaGetDriverEntryPointByVersion, so the lab binary
 * links no libcuda of its own. Where an entry point is missing (an old driver), buffers fall
 * back to cudaMalloc, unguarded, and the run says so on stderr once. */
#include "cml_lab_int.h"

#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_CANARY 0xC5u /* never CML_POISON_BYTE: a poison write over the slack shows */

static struct {
    int tried, ok;
    CUmemAllocationProp prop;
    size_t gran;
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*addr_free)(CUdeviceptr, size_t);
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                       unsigned long long);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                    unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
                            CUmemAllocationGranularity_flags);
} g_vmm;

static int entry(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    return cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) ==
                   cudaSuccess && q == cudaDriverEntryPointSuccess && *fn
               ? 0
               : -1;
}

/* The entry points and the granularity, once; 0 when guard regions can be made here. */
static int vmm_ready(void)
{
    if (g_vmm.tried)
        return g_vmm.ok ? 0 : -1;
    g_vmm.tried = 1;
    int dev = 0;
    int bad = cudaGetDevice(&dev) != cudaSuccess;
    bad |= entry("cuMemAddressReserve", (void **)&g_vmm.reserve);
    bad |= entry("cuMemAddressFree", (void **)&g_vmm.addr_free);
    bad |= entry("cuMemCreate", (void **)&g_vmm.create);
    bad |= entry("cuMemRelease", (void **)&g_vmm.release);
    bad |= entry("cuMemMap", (void **)&g_vmm.map);
    bad |= entry("cuMemUnmap", (void **)&g_vmm.unmap);
    bad |= entry("cuMemSetAccess", (void **)&g_vmm.set_access);
    bad |= entry("cuMemGetAllocationGranularity", (void **)&g_vmm.granularity);
    g_vmm.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    g_vmm.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    g_vmm.prop.location.id = dev;
    bad = bad || g_vmm.granularity(&g_vmm.gran, &g_vmm.prop,
                                   CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS ||
          g_vmm.gran == 0;
    (void)cudaGetLastError();
    g_vmm.ok = !bad;
    if (bad)
        fprintf(stderr, "note: no guard regions here (the driver lacks the virtual memory "
                        "management API): device buffers come from cudaMalloc\n");
    return g_vmm.ok ? 0 : -1;
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* The mapped bytes of g outside its buffer: [map, p) and [p + bytes, map + map_bytes). */
static void slack(const cml_guarded *g, char **lo, size_t *nlo, char **hi, size_t *nhi)
{
    *lo = (char *)g->map;
    *nlo = (size_t)((char *)g->p - *lo);
    *hi = (char *)g->p + g->bytes;
    *nhi = (size_t)((char *)g->map + g->map_bytes - *hi);
}

/* Contract in cml_lab_int.h. */
cudaError_t cml_guard_alloc(size_t bytes, int start_aligned, cml_guarded *g)
{
    memset(g, 0, sizeof *g);
    g->bytes = bytes;
    if (cml_opts()->no_guard || vmm_ready() != 0) {
        cudaError_t err = cudaMalloc(&g->p, bytes);
        g->map = g->p;
        return err;
    }
    const size_t gran = g_vmm.gran, rounded = round_up(bytes, 256);
    g->map_bytes = round_up(rounded, gran);
    g->va_bytes = g->map_bytes + 2 * gran;
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle h = 0;
    if (g_vmm.reserve(&va, g->va_bytes, gran, 0, 0) != CUDA_SUCCESS)
        return cudaErrorMemoryAllocation;
    if (g_vmm.create(&h, g->map_bytes, &g_vmm.prop, 0) != CUDA_SUCCESS) {
        g_vmm.addr_free(va, g->va_bytes);
        return cudaErrorMemoryAllocation;
    }
    CUmemAccessDesc access = {};
    access.location = g_vmm.prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (g_vmm.map(va + gran, g->map_bytes, 0, h, 0) != CUDA_SUCCESS ||
        g_vmm.set_access(va + gran, g->map_bytes, &access, 1) != CUDA_SUCCESS) {
        g_vmm.unmap(va + gran, g->map_bytes); /* harmless when the map failed */
        g_vmm.release(h);
        g_vmm.addr_free(va, g->va_bytes);
        return cudaErrorMemoryAllocation;
    }
    g->va = (void *)va;
    g->handle = h;
    g->map = (void *)(va + gran);
    g->p = (char *)g->map + (start_aligned ? 0 : g->map_bytes - rounded);
    char *lo, *hi;
    size_t nlo, nhi;
    slack(g, &lo, &nlo, &hi, &nhi);
    if (nlo)
        CML_CHECK(cudaMemset(lo, GUARD_CANARY, nlo));
    if (nhi)
        CML_CHECK(cudaMemset(hi, GUARD_CANARY, nhi));
    return cudaSuccess;
}

/* Whether a kernel may use a registered buffer's host address (as it may cudaHostAlloc's under
 * unified addressing, which students rely on); once. */
static int host_pointer_usable(void)
{
    static int known = -1;
    int dev = 0, v = 0;
    if (known < 0)
        known = cudaGetDevice(&dev) == cudaSuccess &&
                cudaDeviceGetAttribute(&v, cudaDevAttrCanUseHostPointerForRegisteredMem, dev) ==
                    cudaSuccess && v;
    (void)cudaGetLastError();
    return known;
}

/* Contract in cml_lab_int.h. */
cudaError_t cml_guard_alloc_host(size_t bytes, int start_aligned, unsigned flags,
                                 cml_guarded *g)
{
    memset(g, 0, sizeof *g);
    g->bytes = bytes;
    g->host = 1;
    const long page = sysconf(_SC_PAGESIZE);
    if (cml_opts()->no_guard || page <= 0 || !host_pointer_usable()) {
        cudaError_t err = cudaHostAlloc(&g->p, bytes, flags);
        g->map = g->p;
        return err;
    }
    const size_t rounded = round_up(bytes, 256);
    g->map_bytes = round_up(rounded, (size_t)page);
    g->va_bytes = g->map_bytes + 2 * (size_t)page;
    void *va = mmap(NULL, g->va_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (va == MAP_FAILED)
        return cudaErrorMemoryAllocation;
    char *map = (char *)va + page;
    if (mprotect(map, g->map_bytes, PROT_READ | PROT_WRITE) != 0 ||
        cudaHostRegister(map, g->map_bytes,
                         flags & (cudaHostRegisterPortable | cudaHostRegisterMapped)) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        munmap(va, g->va_bytes);
        return cudaErrorMemoryAllocation;
    }
    g->va = va;
    g->map = map;
    g->p = map + (start_aligned ? 0 : g->map_bytes - rounded);
    char *lo, *hi;
    size_t nlo, nhi;
    slack(g, &lo, &nlo, &hi, &nhi);
    memset(lo, GUARD_CANARY, nlo);
    memset(hi, GUARD_CANARY, nhi);
    return cudaSuccess;
}

/* How many of the n host bytes at p are not v. */
static unsigned long long host_count_not(const unsigned char *p, size_t n, unsigned char v)
{
    unsigned long long c = 0;
    for (size_t i = 0; i < n; i++)
        c += p[i] != v;
    return c;
}

/* Contract in cml_lab_int.h. */
unsigned long long cml_guard_changed(const cml_guarded *g, int *after)
{
    char *range[2];
    size_t n[2];
    unsigned long long total = 0;
    *after = 0;
    if (!g->va)
        return 0;
    slack(g, &range[0], &n[0], &range[1], &n[1]);
    for (int i = 0; i < 2; i++) {
        if (!n[i])
            continue;
        const unsigned long long c =
            g->host ? host_count_not((const unsigned char *)range[i], n[i], GUARD_CANARY)
                    : cml_count_not(range[i], n[i], GUARD_CANARY);
        total += c;
        *after |= i == 1 && c;
    }
    return total;
}

/* Contract in cml_lab_int.h. */
void cml_guard_free(cml_guarded *g)
{
    cml_exact_close(g);
    if (g->host && !g->va) {
        CML_CHECK(cudaFreeHost(g->p));
    } else if (g->host) {
        CML_CHECK(cudaHostUnregister(g->map));
        munmap(g->va, g->va_bytes);
    } else if (!g->va) {
        CML_CHECK(cudaFree(g->p));
    } else {
        g_vmm.unmap((CUdeviceptr)g->map, g->map_bytes);
        g_vmm.release(g->handle);
        g_vmm.addr_free((CUdeviceptr)g->va, g->va_bytes);
    }
    memset(g, 0, sizeof *g);
}
