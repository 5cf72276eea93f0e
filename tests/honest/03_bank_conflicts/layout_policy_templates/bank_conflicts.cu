/* Lab 03, shared-memory bank conflicts.
 * My version writes the Gram product once, as a device function template over a *layout
 * policy* (where element (r, c) of the tile lives, and how many floats the tile takes), and
 * the two graded kernels instantiate it: gramPadded with a 33-float pitch, gramSwizzled with
 * the XOR swizzle c ^ r in a 32 x 32 tile. 3.1 counts, per phase, how often each word occurs
 * in a std::map and then how many distinct words each bank holds. 3.2 uses a 2-D tile
 * tile[y][x], which is element y*16 + x of the block's stretch. */
#include "bank_conflicts.h"

#include <algorithm>
#include <map>

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const int q = elem_bytes / 4;     // words per element
    const int per_phase = 32 / q;     // lanes served together (128 bytes)
    int worst = 1;
    for (int first = 0; first < 32; first += per_phase) {
        std::map<long long, int> words; // distinct words of this phase (value unused)
        for (int t = first; t < first + per_phase; t++)
            for (int w = 0; w < q; w++)
                ++words[(long long)t * stride_elems * q + w];
        int passes[32] = {};
        for (const auto &kv : words)
            worst = std::max(worst, ++passes[kv.first % 32]);
    }
    return worst;
}

// ---- 3.2 ---------------------------------------------------------------------------------
// scaleRowMajor: tile[y][x] is element y*16 + x; a warp is rows y and y+1 of the tile, 32
// consecutive words: every bank once.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[16][16];
    const int x = threadIdx.x, y = threadIdx.y;
    const size_t i = (size_t)blockIdx.x * 256 + (size_t)(y * 16 + x);
    if (i < n)
        tile[y][x] = in[i];
    __syncthreads();
    if (i < n) {
        const float v = tile[y][x];
        tile[y][x] = v + v; // 2 * v, exactly
    }
    __syncthreads();
    if (i < n)
        out[i] = tile[y][x];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    scaleRowMajor<<<(unsigned)((n + 255) / 256), dim3(16, 16), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
// Layout policies: where element (r, c) of a 32 x 32 tile is stored, and the tile's size.
struct PaddedLayout { // rows of 33 floats: column k of row j in bank (j + k) % 32
    static constexpr int floats = 32 * 33;
    __device__ static int at(int r, int c) { return r * 33 + c; }
};
struct XorSwizzledLayout { // rows of 32 floats, permuted: column k of row j in bank k ^ j
    static constexpr int floats = 32 * 32;
    __device__ static int at(int r, int c) { return r * 32 + (c ^ r); }
};

// gramTile: load the block's tile through the layout, then out[i][j] = row i . row j, with
// (j, i) = (threadIdx.x, threadIdx.y). Every store and every load goes through L::at.
template <class L>
__device__ __forceinline__ void gramTile(float *__restrict__ out, const float *__restrict__ in,
                                         float *tile)
{
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * 1024;
    tile[L::at(i, j)] = in[base + i * 32 + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; k++)
        acc = fmaf(tile[L::at(i, k)], tile[L::at(j, k)], acc);
    out[base + i * 32 + j] = acc;
}

__global__ void __launch_bounds__(1024) gramPadded(float *__restrict__ out,
                                                   const float *__restrict__ in)
{
    __shared__ float tile[PaddedLayout::floats];
    gramTile<PaddedLayout>(out, in, tile);
}

__global__ void __launch_bounds__(1024) gramSwizzled(float *__restrict__ out,
                                                     const float *__restrict__ in)
{
    __shared__ float tile[XorSwizzledLayout::floats];
    gramTile<XorSwizzledLayout>(out, in, tile);
}

template <void (*K)(float *__restrict__, const float *__restrict__)>
static void launch_gram(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    K<<<(unsigned)(n / 1024), dim3(32, 32), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_gram<gramPadded>(d_out, d_in, n, stream);
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_gram<gramSwizzled>(d_out, d_in, n, stream);
}
