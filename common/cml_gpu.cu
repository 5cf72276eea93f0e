/* The GPU this run uses: its properties and the one stream every launch and timer uses, the
 * device memory of the case in progress (cml_alloc, cml_input), and the bandwidths measured on
 * it that tables compare against (cudaMemcpy device to device; pinned host <-> device). */
#include "cml_lab_int.h"

#include <algorithm>
#include <string.h>

/* The session: opened by cml_main once the GPU is known to be usable. */
static struct {
    cudaStream_t stream;
    cudaDeviceProp prop;
    double copy_gbps;              /* device to device, measured at start */
    double pinned_h2d, pinned_d2h; /* GB/s, 0 until first asked for */
} g_gpu;

/* The device memory of the case in progress, freed when the case ends. */
static struct {
    void *p[16];
    int n;
} g_case_mem;

cudaStream_t cml_stream(void) { return g_gpu.stream; }
int cml_sm_count(void) { return g_gpu.prop.multiProcessorCount; }
int cml_l2_cache_bytes(void) { return g_gpu.prop.l2CacheSize; }
double cml_copy_gbps(void) { return g_gpu.copy_gbps; }

void cml_gpu_open(void)
{
    CML_CHECK(cudaGetDeviceProperties(&g_gpu.prop, 0));
    CML_CHECK(cudaStreamCreate(&g_gpu.stream));
}

void cml_gpu_close(void) { CML_CHECK(cudaStreamDestroy(g_gpu.stream)); }

/* ---- the case's device memory ---- */

__global__ void fillRandom(float *p, size_t n, uint64_t seed, uint32_t stream)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = cml_rand_f32(seed, stream, i);
}

float *cml_alloc(size_t elems)
{
    if (cml_current_reported) /* an earlier allocation of this case already failed */
        return NULL;
    size_t bytes = elems * sizeof(float), free_b = 0, total_b = 0;
    const size_t margin = (size_t)64 << 20;
    CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
    void *p = NULL;
    cudaError_t err = (elems == 0 || g_case_mem.n == 16 || elems > SIZE_MAX / 8 ||
                       bytes + margin > free_b)
                          ? cudaErrorMemoryAllocation
                          : cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it */
        cml_case_fail("not enough GPU memory: %.2f GiB asked, %.2f GiB free (64 MiB kept spare)",
                      bytes / 1073741824.0, free_b / 1073741824.0);
        return NULL;
    }
    CML_CHECK(err);
    g_case_mem.p[g_case_mem.n++] = p;
    return (float *)p;
}

float *cml_input(size_t elems, uint32_t stream)
{
    float *p = cml_alloc(elems);
    if (p) {
        size_t blocks = std::min((elems + 255) / 256, (size_t)cml_sm_count() * 16);
        fillRandom<<<(unsigned)blocks, 256, 0, g_gpu.stream>>>(p, elems, cml_seed(), stream);
        CML_CHECK_LAUNCH();
    }
    return p;
}

void cml_free_case_allocs(void)
{
    CML_CHECK(cudaDeviceSynchronize());
    while (g_case_mem.n > 0)
        CML_CHECK(cudaFree(g_case_mem.p[--g_case_mem.n]));
}

/* ---- measured bandwidths ---- */

/* cudaMemcpy device to device of 1 GiB (less when memory is short); bytes = read + written. */
void cml_measure_copy_bandwidth(void)
{
    size_t free_b = 0, total_b = 0, size = (size_t)1 << 30;
    CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (size > ((size_t)16 << 20) && 2 * size + ((size_t)256 << 20) > free_b)
        size /= 2;
    void *src = NULL, *dst = NULL;
    CML_CHECK(cudaMalloc(&src, size));
    CML_CHECK(cudaMalloc(&dst, size));
    CML_CHECK(cudaMemsetAsync(src, 0x3C, size, g_gpu.stream));
    auto copy = [&](cudaStream_t s) {
        CML_CHECK(cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, s));
    };
    cml_timing t = cml_time(cml_launcher_of(copy), NULL, 0);
    g_gpu.copy_gbps = 2.0 * size / (t.ms * 1e6);
    cml_record("copybw gbps=%.1f bytes=%zu", g_gpu.copy_gbps, 2 * size);
    CML_CHECK(cudaFree(src));
    CML_CHECK(cudaFree(dst));
}

void cml_pinned_gbps(double *h2d, double *d2h)
{
    if (g_gpu.pinned_h2d == 0) {
        size_t size = (size_t)256 << 20, free_b = 0, total_b = 0;
        CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
        while (size > ((size_t)16 << 20) && size + ((size_t)256 << 20) > free_b)
            size /= 2;
        void *h = NULL, *d = NULL;
        CML_CHECK(cudaHostAlloc(&h, size, cudaHostAllocDefault));
        CML_CHECK(cudaMalloc(&d, size));
        memset(h, 0x3C, size);
        auto up = [&](cudaStream_t s) {
            CML_CHECK(cudaMemcpyAsync(d, h, size, cudaMemcpyHostToDevice, s));
        };
        auto down = [&](cudaStream_t s) {
            CML_CHECK(cudaMemcpyAsync(h, d, size, cudaMemcpyDeviceToHost, s));
        };
        g_gpu.pinned_h2d = size / (cml_time(cml_launcher_of(up), NULL, 0).ms * 1e6);
        g_gpu.pinned_d2h = size / (cml_time(cml_launcher_of(down), NULL, 0).ms * 1e6);
        cml_record("note task=%s msg=pinned cudaMemcpy of %zu bytes: host-to-device %.1f GB/s, "
                   "device-to-host %.1f GB/s", cml_current_task ? cml_current_task : "-", size,
                   g_gpu.pinned_h2d, g_gpu.pinned_d2h);
        CML_CHECK(cudaFree(d));
        CML_CHECK(cudaFreeHost(h));
    }
    *h2d = g_gpu.pinned_h2d;
    *d2h = g_gpu.pinned_d2h;
}
