/* Honest variant `call_once_shared` (lab 04). Constructs it exercises: the SM count cached with
 * std::once_flag + std::call_once (cudaGetDevice + cudaDeviceGetAttribute with
 * cudaDevAttrMultiProcessorCount); the launch configuration held in a function-local
 * `static const std::shared_ptr<const LaunchShape>` made with std::make_shared; a launch
 * counter guarded by a std::mutex (std::lock_guard); a variadic template helper `launch_on`
 * that launches a kernel pointer it is given (4.2a, CML_CHECK_LAUNCH() in the wrapper after
 * it); grid-stride loops over a grid capped at 8 blocks per SM, `#pragma unroll 4`, `std::max`
 * of an initializer list, `static_assert` on `alignof(Point4)`. */

/* Lab 04, 16-byte vector access: the kernels you write and their launch wrappers.
 * Edit only this file; the harness (harness.cu) allocates, fills, checks and times.
 * Build and grade with `make grade LAB=04`; EXERCISE.md walks through the tasks. */
#include "vectorized.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdint.h>

// ---- host helpers shared by the wrappers ---------------------------------------------------

struct LaunchShape {
    unsigned threads;       // threads per block
    unsigned blocks_per_sm; // 8 x 256 = 2048 threads: a full Hopper SM
};

static const LaunchShape &launch_shape()
{
    static const std::shared_ptr<const LaunchShape> shape =
        std::make_shared<const LaunchShape>(LaunchShape{256u, 8u});
    return *shape;
}

// The SM count, asked of the runtime once, whichever wrapper asks first.
static int sm_count()
{
    static std::once_flag once;
    static int sms = 1;
    std::call_once(once, [] {
        int dev = 0;
        CML_CHECK(cudaGetDevice(&dev));
        int count = 0;
        CML_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
        sms = std::max(1, count);
    });
    return sms;
}

// Blocks for `work` items handed out by a grid-stride loop: enough to cover them, at most
// one full wave of resident blocks, and never zero.
static unsigned blocks_for(size_t work)
{
    const LaunchShape &shape = launch_shape();
    const size_t wanted = (work + shape.threads - 1) / shape.threads;
    const size_t wave = (size_t)sm_count() * shape.blocks_per_sm;
    return (unsigned)std::max<size_t>(1, std::min(wanted, wave));
}

// How many launches this file has made (a debugging aid; the wrappers may be called from
// several host threads of a harness, hence the lock).
static unsigned long long count_launch()
{
    static std::mutex guard;
    static unsigned long long launches = 0;
    std::lock_guard<std::mutex> lock(guard);
    return ++launches;
}

template <typename K, typename... A>
void launch_on(K kernel, dim3 g, dim3 b, cudaStream_t s, A... a)
{
    kernel<<<g, b, 0, s>>>(a...);
}

// ---- 4.1 --------------------------------------------------------------------------------
// The "before" kernel is copyScalar in harness.cu: one float, one 4-byte load per thread.

// copyVector4: the 16-byte aligned middle moves as float4 (one 128-bit load and store per
// step); the unaligned head and the tail, fewer than 4 floats each, move as floats.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x;

    // The wrapper chose head so that in + head and out + head are both 16-byte aligned.
    const float4 *__restrict__ vin = reinterpret_cast<const float4 *>(in + head);
    float4 *__restrict__ vout = reinterpret_cast<float4 *>(out + head);
#pragma unroll 4
    for (size_t j = tid; j < nvec; j += step)
        vout[j] = vin[j];

    for (size_t i = tid; i < head; i += step) // the head (all of n when no head aligns both)
        out[i] = in[i];
    for (size_t i = head + 4 * nvec + tid; i < n; i += step) // the tail, at most 3 floats
        out[i] = in[i];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned mis_in = (unsigned)((uintptr_t)d_in / 4 % 4);
    const unsigned mis_out = (unsigned)((uintptr_t)d_out / 4 % 4);
    size_t head, nvec;
    if (mis_in == mis_out) {
        head = std::min<size_t>((4 - mis_in) % 4, n); // clamp: n may be shorter than the head
        nvec = (n - head) / 4;
    } else {
        head = n; // no head aligns both: everything as floats
        nvec = 0;
    }
    const size_t tail = n - head - 4 * nvec;
    const unsigned blocks = blocks_for(std::max({nvec, head, tail}));
    count_launch();
    copyVector4<<<blocks, launch_shape().threads, 0, stream>>>(d_out, d_in, n, head, nvec);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
// The same move of n points, packed in 12 bytes (float3) or padded to 16 (Point4).

// transformFloat3: float3 is 12 bytes with 4-byte alignment, so each point takes three 32-bit
// loads and three 32-bit stores.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step) {
        const float3 p = in[i];
        out[i] = make_float3(2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ);
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    count_launch();
    launch_on(transformFloat3, dim3(blocks_for(n)), dim3(launch_shape().threads), stream,
              reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// A point padded to 16 bytes, aligned to 16 so that the compiler may move a whole point with
// one instruction: alignof(Point4) is 16, not 4.
struct __align__(16) Point4 {
    float x, y, z, w;
};
static_assert(sizeof(Point4) == 16 && alignof(Point4) == 16, "Point4 must be one 16-byte word");

// transformPoint4: the padded point is one 128-bit load and one 128-bit store; w rides along.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step) {
        const Point4 p = in[i];
        Point4 q;
        q.x = 2.0f * p.x + POINT_DX;
        q.y = 2.0f * p.y + POINT_DY;
        q.z = 2.0f * p.z + POINT_DZ;
        q.w = p.w;
        out[i] = q;
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    count_launch();
    transformPoint4<<<blocks_for(n), launch_shape().threads, 0, stream>>>(
        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
