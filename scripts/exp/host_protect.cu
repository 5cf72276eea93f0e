// Experiment (issue 9, "the GPU did the work"): can the harness take the CPU's access away from
// a host-involved task's pinned-mapped or managed buffers while the GPU works on them?
// Each step prints ok or what failed. Build: nvcc -O2 -arch=sm_90 -o hp host_protect.cu
#include <cuda_runtime.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf jb;
static void on_segv(int) { siglongjmp(jb, 1); }

static int host_touch_faults(volatile float *p)
{
    if (sigsetjmp(jb, 1) == 0) {
        float v = p[0];
        (void)v;
        return 0;
    }
    return 1;
}

__global__ void add(float *c, const float *a, const float *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

#define STEP(what, call)                                                                        \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        printf("%-60s %s\n", what, e_ == cudaSuccess ? "ok" : cudaGetErrorString(e_));        \
    } while (0)

static void prot(const char *what, void *p, size_t bytes, int flags)
{
    int rc = mprotect(p, bytes, flags);
    printf("%-60s %s\n", what, rc == 0 ? "ok" : strerror(errno));
}

static int check(const float *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (c[i] != 3.0f)
            return 0;
    return 1;
}

static void one(const char *kind, size_t n)
{
    const size_t bytes = n * sizeof(float);
    float *a, *b, *c;
    const int managed = strcmp(kind, "managed") == 0;
    printf("== %s, %zu floats\n", kind, n);
    if (managed) {
        cudaMallocManaged(&a, bytes);
        cudaMallocManaged(&b, bytes);
        cudaMallocManaged(&c, bytes);
    } else {
        cudaHostAlloc(&a, bytes, cudaHostAllocMapped);
        cudaHostAlloc(&b, bytes, cudaHostAllocMapped);
        cudaHostAlloc(&c, bytes, cudaHostAllocMapped);
    }
    for (size_t i = 0; i < n; i++) a[i] = 1, b[i] = 2, c[i] = -1;
    prot("mprotect PROT_NONE a, b, c", a, bytes, PROT_NONE);
    prot("", b, bytes, PROT_NONE);
    prot("", c, bytes, PROT_NONE);
    printf("%-60s %s\n", "host read of a faults", host_touch_faults(a) ? "yes" : "NO");
    add<<<264, 256>>>(c, a, b, n);
    STEP("kernel c = a + b under PROT_NONE", cudaDeviceSynchronize());
    if (managed) {
        STEP("prefetch c to the host under PROT_NONE",
             cudaMemPrefetchAsync(c, bytes, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, 0));
        STEP("sync", cudaDeviceSynchronize());
    } else {
        float *d;
        cudaMalloc(&d, bytes);
        STEP("cudaMemcpyAsync pinned(PROT_NONE) -> device", cudaMemcpyAsync(d, a, bytes, cudaMemcpyHostToDevice, 0));
        STEP("cudaMemcpyAsync device -> pinned(PROT_NONE)", cudaMemcpyAsync(c, d, bytes, cudaMemcpyDeviceToHost, 0));
        STEP("sync", cudaDeviceSynchronize());
        add<<<264, 256>>>(d, a, b, n); /* a, b read where they lie */
        STEP("kernel after copies", cudaDeviceSynchronize());
        STEP("cudaMemcpy device -> pinned(PROT_NONE)", cudaMemcpy(c, d, bytes, cudaMemcpyDeviceToHost));
        cudaFree(d);
    }
    prot("mprotect back to RW", a, bytes, PROT_READ | PROT_WRITE);
    prot("", b, bytes, PROT_READ | PROT_WRITE);
    prot("", c, bytes, PROT_READ | PROT_WRITE);
    printf("%-60s %s\n", "host reads the right c", check(c, n) ? "yes" : "NO");
    /* a second round: host writes, protect, GPU, unprotect */
    for (size_t i = 0; i < n; i++) c[i] = -1;
    prot("protect again", c, bytes, PROT_NONE);
    add<<<264, 256>>>(c, a, b, n);
    STEP("kernel (second round)", cudaDeviceSynchronize());
    prot("unprotect", c, bytes, PROT_READ | PROT_WRITE);
    printf("%-60s %s\n", "host reads the right c (second round)", check(c, n) ? "yes" : "NO");
    STEP("last error", cudaGetLastError());
}

int main()
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    one("mapped", 1 << 20);
    one("mapped", (64 << 20) + 3);
    one("managed", 1 << 20);
    one("managed", (64 << 20) + 3);
    return 0;
}
