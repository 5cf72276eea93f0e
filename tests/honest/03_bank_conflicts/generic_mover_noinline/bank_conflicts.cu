/* Lab 03, shared-memory bank conflicts: the function and kernels you write, with their launch
 * wrappers. Variant: 3.2 moves every element with one small __noinline__ helper, `move`, that
 * serves all three steps (global -> shared, shared -> shared doubled, shared -> global), so the
 * profiler shows the staging as its own function; 3.3a and 3.3b share one kernel body that takes
 * the tile layout as a policy class (Padded, Swizzled); 3.1 counts words per bank with a map. */
#include "bank_conflicts.h"

#include <algorithm>
#include <map>
#include <set>

// ---- 3.1 (host code) ---------------------------------------------------------------------
// Lane t touches words t*s*w .. t*s*w + w - 1 (w = elem_bytes / 4); lanes are served in phases
// of 128 bytes (32 / w lanes); within a phase a bank delivers each distinct word once.
int conflict_degree(int stride_elems, int elem_bytes)
{
    const long long w = elem_bytes / 4;
    const int lanes_per_phase = (int)(32 / w);
    int degree = 1;
    for (int first = 0; first < 32; first += lanes_per_phase) {
        std::map<int, std::set<long long>> words_of_bank; // bank -> distinct words asked of it
        for (int t = first; t < first + lanes_per_phase; t++)
            for (long long k = 0; k < w; k++) {
                const long long word = (long long)t * stride_elems * w + k;
                words_of_bank[(int)(word % 32)].insert(word);
            }
        for (const auto &bank : words_of_bank)
            degree = std::max(degree, (int)bank.second.size());
    }
    return degree;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

// move: *dst = k * *src. Not inlined on purpose (it is the step the experiment is about, and
// it shows up as one function in the profiler); it serves global, shared and mixed pointers.
__device__ __noinline__ void move(float *dst, const float *src, float k) { *dst = k * *src; }

// scaleRowMajor: thread (x, y) owns element y*16 + x of its block's 256 floats: a warp's 32
// lanes touch 32 consecutive words of the tile (32 banks) and one 128-byte line of global
// memory. Both barriers are reached by every thread; only the global accesses are guarded.
__global__ void __launch_bounds__(TILE *TILE)
    scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE * TILE];
    const int e = threadIdx.y * TILE + threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (TILE * TILE) + e;
    if (i < n)
        move(&tile[e], &in[i], 1.0f); // stage
    __syncthreads();
    if (i < n)
        move(&tile[e], &tile[e], 2.0f); // double in place
    __syncthreads();
    if (i < n)
        move(&out[i], &tile[e], 1.0f); // write back
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = (n + TILE * TILE - 1) / (TILE * TILE);
    scaleRowMajor<<<(unsigned)blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32

// Where element (r, c) of the tile lives, for the two layouts.
struct Padded { // rows of 33 floats: tile[j][k] sits in bank (j*33 + k) % 32 = (j + k) % 32
    static constexpr int kWords = GRAM * (GRAM + 1);
    __device__ static int at(int r, int c) { return r * (GRAM + 1) + c; }
};
struct Swizzled { // rows of 32 floats, column c of row r stored at column c ^ r
    static constexpr int kWords = GRAM * GRAM;
    __device__ static int at(int r, int c) { return r * GRAM + (c ^ r); }
};

// One tile times its transpose: thread (j, i) = (threadIdx.x, threadIdx.y) computes
// out[i][j] = sum_k T[i][k] * T[j][k]. The load is coalesced (thread (x, y) brings T[y][x]).
template <class Layout>
__device__ __forceinline__ void gram_tile(float *__restrict__ out, const float *__restrict__ in,
                                          float *tile)
{
    const int j = threadIdx.x, i = threadIdx.y;
    const size_t base = (size_t)blockIdx.x * (GRAM * GRAM);
    tile[Layout::at(i, j)] = in[base + i * GRAM + j];
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++) // lane j reads T[j][k]: 32 different banks in both layouts
        sum += tile[Layout::at(i, k)] * tile[Layout::at(j, k)];
    out[base + i * GRAM + j] = sum;
}

__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[Padded::kWords];
    gram_tile<Padded>(out, in, tile);
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramPadded<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[Swizzled::kWords]; // exactly 4096 bytes, nothing beside it
    gram_tile<Swizzled>(out, in, tile);
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
