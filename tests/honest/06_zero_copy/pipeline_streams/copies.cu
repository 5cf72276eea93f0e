// Lab 06, variant: copy_saxpy in chunks, each chunk's copy in, passes and copy out pipelined
// over two helper streams forked from and joined back to `stream` with events, so that copies
// in one direction overlap copies in the other; best_saxpy by a crossover read from a constexpr.
#include "zerocopy.h"

#include <algorithm>
#include <memory>
#include <mutex>

__global__ void saxpyDevice(float *out, const float *x, const float *y, size_t n, float a)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}

namespace {
struct Pipeline {
    cudaStream_t lane[2] = {};
    cudaEvent_t fork = nullptr, done[2] = {};
    Pipeline()
    {
        for (int k = 0; k < 2; ++k) {
            CML_CHECK(cudaStreamCreateWithFlags(&lane[k], cudaStreamNonBlocking));
            CML_CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
        }
        CML_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    }
    ~Pipeline()
    {
        for (int k = 0; k < 2; ++k) {
            cudaEventDestroy(done[k]);
            cudaStreamDestroy(lane[k]);
        }
        cudaEventDestroy(fork);
    }
};

Pipeline &pipeline()
{
    static std::once_flag once;
    static std::unique_ptr<Pipeline> p;
    std::call_once(once, [] { p = std::make_unique<Pipeline>(); });
    return *p;
}

constexpr size_t kChunk = size_t{1} << 22; // 16 MiB of floats per chunk
} // namespace

void copy_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
                float *d_x, float *d_y, cudaStream_t stream)
{
    if (n <= kChunk) { // small: one chunk on the given stream
        const size_t bytes = n * sizeof(float);
        CML_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream));
        CML_CHECK(cudaMemcpyAsync(d_y, h_y, bytes, cudaMemcpyHostToDevice, stream));
        for (int p = 0; p < passes; ++p) {
            saxpyDevice<<<(unsigned)std::max<size_t>(1, (n + 255) / 256), 256, 0, stream>>>(
                d_y, d_x, d_y, n, SAXPY_A);
            CML_CHECK_LAUNCH();
        }
        CML_CHECK(cudaMemcpyAsync(h_out, d_y, bytes, cudaMemcpyDeviceToHost, stream));
        return;
    }
    Pipeline &pl = pipeline();
    CML_CHECK(cudaEventRecord(pl.fork, stream));
    for (int k = 0; k < 2; ++k)
        CML_CHECK(cudaStreamWaitEvent(pl.lane[k], pl.fork, 0));
    for (size_t c = 0, idx = 0; c < n; c += kChunk, ++idx) {
        cudaStream_t s = pl.lane[idx % 2];
        const size_t m = std::min(kChunk, n - c), bytes = m * sizeof(float);
        CML_CHECK(cudaMemcpyAsync(d_x + c, h_x + c, bytes, cudaMemcpyHostToDevice, s));
        CML_CHECK(cudaMemcpyAsync(d_y + c, h_y + c, bytes, cudaMemcpyHostToDevice, s));
        for (int p = 0; p < passes; ++p) { // each element's passes only need that element
            saxpyDevice<<<(unsigned)((m + 255) / 256), 256, 0, s>>>(d_y + c, d_x + c, d_y + c, m,
                                                                   SAXPY_A);
            CML_CHECK_LAUNCH();
        }
        CML_CHECK(cudaMemcpyAsync(h_out + c, d_y + c, bytes, cudaMemcpyDeviceToHost, s));
    }
    for (int k = 0; k < 2; ++k) { // join: `stream` waits for both lanes
        CML_CHECK(cudaEventRecord(pl.done[k], pl.lane[k]));
        CML_CHECK(cudaStreamWaitEvent(stream, pl.done[k], 0));
    }
}

namespace {
constexpr int kCrossover = 2; // passes from which the copies win (bench: between 1 and 2)
}

void best_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
                float *d_x, float *d_y, cudaStream_t stream)
{
    (passes < kCrossover ? zc_saxpy(h_out, h_x, h_y, n, passes, stream)
                         : copy_saxpy(h_out, h_x, h_y, n, passes, d_x, d_y, stream));
}
