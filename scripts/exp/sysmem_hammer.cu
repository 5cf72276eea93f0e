// A load for scripts/exp/ncu-beside-load.sh: kernels that read mapped host memory (over the
// link) and shared memory with bank conflicts, launched back to back until killed, so that
// another process's Nsight Compute counters would show the traffic if the GPU counted it there.
//   nvcc -O3 -arch=sm_90 -o sysmem_hammer scripts/exp/sysmem_hammer.cu && ./sysmem_hammer
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void hammer(const float *host, float *sink, size_t n, int rounds) {
    __shared__ float tile[32 * 33];
    float acc = 0.f;
    for (int r = 0; r < rounds; ++r)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
             i += (size_t)gridDim.x * blockDim.x) {
            acc += host[i];
            tile[(threadIdx.x * 32) % (32 * 33)] = acc; // 32-way conflicts
            acc += tile[(threadIdx.x * 32 + r) % (32 * 33)];
        }
    if (acc == 12345.f) *sink = acc;
}

int main() {
    size_t n = 16u << 20; // 64 MiB of floats
    float *h, *d, *sink;
    if (cudaHostAlloc(&h, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess) return 1;
    for (size_t i = 0; i < n; ++i) h[i] = 1.f;
    cudaHostGetDevicePointer(&d, h, 0);
    cudaMalloc(&sink, sizeof(float));
    for (long k = 0;; ++k) {
        hammer<<<264, 1024>>>(d, sink, n, 4);
        if (cudaDeviceSynchronize() != cudaSuccess) return 2;
        if (k == 0) fprintf(stderr, "hammer running\n");
    }
}
