// Whether pinned, mapped host buffers can have guard regions (issue 23): a buffer in memory of
// the program's own (mmap), end-aligned to a page whose successor is PROT_NONE, registered with
// cudaHostRegister(..., cudaHostRegisterMapped). Does a kernel's access one float past its end
// fault, and does the buffer copy and serve zero-copy kernels as fast as cudaHostAlloc's?
//   nvcc -O3 -arch=sm_90 -o host_guard scripts/exp/host_guard.cu
//   ./host_guard read_in | read_past | write_past | bw      (one mode per process: a fault
//                                                            leaves the context unusable)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                                    \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static const size_t PAGE = 4096;

// n floats ending where a page ends; the page after them PROT_NONE; the pages registered.
static float *guarded(size_t n)
{
    size_t bytes = n * sizeof(float), pages = (bytes + PAGE - 1) / PAGE;
    char *base = (char *)mmap(NULL, (pages + 1) * PAGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    mprotect(base + pages * PAGE, PAGE, PROT_NONE);
    CK(cudaHostRegister(base, pages * PAGE, cudaHostRegisterMapped));
    return (float *)(base + pages * PAGE - bytes);
}

__global__ void touch(float *p, size_t i, int write)
{
    if (write)
        p[i] = 1.0f;
    else if (p[i] == 12345.0f)
        p[0] = 0.0f;
}

__global__ void saxpy(float *out, const float *x, const float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = 2.0f * x[i] + y[i];
}

static double median(double *v, int n)
{
    std::sort(v, v + n);
    return v[n / 2];
}

// Median ms of 7: an H2D and a D2H copy of n floats, and a zero-copy saxpy over them.
static void time_kind(const char *name, float *h[3], size_t n)
{
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    double t[3][7];
    float *dp[3];
    for (int k = 0; k < 3; k++)
        CK(cudaHostGetDevicePointer((void **)&dp[k], h[k], 0));
    for (int r = 0; r < 8; r++)
        for (int m = 0; m < 3; m++) {
            CK(cudaEventRecord(a));
            if (m == 0)
                CK(cudaMemcpyAsync(d, h[0], n * sizeof(float), cudaMemcpyHostToDevice));
            else if (m == 1)
                CK(cudaMemcpyAsync(h[2], d, n * sizeof(float), cudaMemcpyDeviceToHost));
            else
                saxpy<<<132 * 8, 256>>>(dp[2], dp[0], dp[1], n);
            CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float ms;
            CK(cudaEventElapsedTime(&ms, a, b));
            if (r > 0)
                t[m][r - 1] = ms;
        }
    const double gb = n * sizeof(float) / 1e9;
    printf("%-12s H2D %.2f ms (%.1f GB/s)  D2H %.2f ms (%.1f GB/s)  zero-copy saxpy %.2f ms "
           "(%.1f GB/s over the link)\n", name, median(t[0], 7), gb / median(t[0], 7) * 1e3,
           median(t[1], 7), gb / median(t[1], 7) * 1e3, median(t[2], 7),
           3 * gb / median(t[2], 7) * 1e3);
    CK(cudaFree(d));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "bw";
    CK(cudaSetDeviceFlags(cudaDeviceMapHost));
    if (strcmp(mode, "bw") != 0) {
        const size_t n = 1000; /* not a whole page: the buffer starts inside its first page */
        float *h = guarded(n), *d;
        for (size_t i = 0; i < n; i++)
            h[i] = 1.0f;
        CK(cudaHostGetDevicePointer((void **)&d, h, 0));
        const int past = strcmp(mode, "read_in") != 0;
        touch<<<1, 1>>>(d, past ? n : n - 1, strcmp(mode, "write_past") == 0);
        cudaError_t e = cudaDeviceSynchronize();
        printf("%s: %s\n", mode, e == cudaSuccess ? "no fault" : cudaGetErrorString(e));
        return 0;
    }
    const size_t n = (size_t)64 << 20; /* 256 MiB per buffer, as lab 06's timed cases */
    for (int pass = 0; pass < 2; pass++) {
        float *alloc[3], *reg[3];
        for (int k = 0; k < 3; k++) {
            CK(cudaHostAlloc((void **)&alloc[k], n * sizeof(float), cudaHostAllocMapped));
            reg[k] = guarded(n);
            memset(alloc[k], 0, n * sizeof(float));
            memset(reg[k], 0, n * sizeof(float));
        }
        time_kind("cudaHostAlloc", alloc, n);
        time_kind("mmap+register", reg, n);
        for (int k = 0; k < 3; k++) {
            CK(cudaFreeHost(alloc[k]));
            CK(cudaHostUnregister((char *)reg[k] - 0)); /* n*4 is whole pages: its base */
        }
    }
    return 0;
}
