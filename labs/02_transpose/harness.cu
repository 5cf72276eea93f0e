/* Lab 02 harness (pristine): the tasks and their cases, the baselines (a tile-shaped copy, the
 * ceiling a transpose can hope for, and the naive transpose) and the bench table, which also
 * times the tuning variants of variants.cuh where it is present: it lives with the solution
 * (solutions/02_transpose/) and is staged beside the reference build only, since one variant is
 * the reference 2.2. The student's kernels live in transpose.cu. */
#include "tile_copy.cuh"
#include "transpose.h"
#if __has_include("variants.cuh")
#include "variants.cuh"
#define HAVE_VARIANTS 1
#endif

// transposeNaive: the read-coalesced naive transpose of lab 01 (task 1.2a), as a baseline:
// reads coalesce, and each lane's write lands in a sector of its own.
__global__ void transposeNaive(float *__restrict__ out, const float *__restrict__ in, int rows,
                               int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

static void launch_transpose_naive(float *d_out, const float *d_in, int rows, int cols,
                                   cudaStream_t stream)
{
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    transposeNaive<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- inputs and the right outputs (self-checks; the grader computes its own) ----

/* A transpose moves floats and is compared bit for bit, so its inputs hold every kind of float
 * (cml_rand_f32_all: -0, infinities, NaNs with payloads, subnormals; issue 44): a kernel that
 * moves them by arithmetic (1*x + 0) turns -0 into +0 and rewrites NaN payloads, and fails.
 * The grader's check transpose (grader/src/0_spec/checks.c) generates the same (cml_input_of
 * with CML_VALUES_EVERY_BIT fills them). */
static float expect_transpose(const cml_case *c, uint64_t seed, uint64_t i)
{
    const uint64_t col = i / c->rows, row = i % c->rows; /* out is cols x rows */
    return cml_rand_f32_all(seed, 0, row * c->cols + col);
}

static float expect_copy(const cml_case *, uint64_t seed, uint64_t i)
{
    return cml_rand_f32_all(seed, 0, i);
}

// ---- running a transpose-shaped kernel on one case ----

typedef void (*matrix_fn)(float *, const float *, int, int, cudaStream_t);

static void run_matrix(const cml_case *c, matrix_fn launch)
{
    const int rows = (int)c->rows, cols = (int)c->cols;
    const size_t elems = (size_t)c->rows * c->cols;
    float *d_in = cml_input_of(elems, 0, CML_VALUES_EVERY_BIT);
    float *d_out = cml_alloc(elems);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, elems, 2 * elems * sizeof(float),
                 [&](cudaStream_t s) { launch(d_out, d_in, rows, cols, s); });
}

template <matrix_fn LAUNCH> static void run_with(const cml_case *c) { run_matrix(c, LAUNCH); }

// ---- the lab ----

#define SIZES "rows=8192,cols=8192 rows=8191,cols=8193"
static const cml_task TASKS[] = {
    {"2.1", "transposeCoalesced", "rows,cols", SIZES, run_with<launch_transpose_coalesced>,
     expect_transpose},
    {"2.2", "transposeNoBankConflicts", "rows,cols", SIZES,
     run_with<launch_transpose_no_bank_conflicts>, expect_transpose},
};

#define BASELINE(name, launch, expect) {"-", name, "rows,cols", "", run_with<launch>, expect}
static const cml_task BASELINES[] = {
    BASELINE("copy2D 32/32x8 (ceiling)", (launchTileCopy<32, 32, 8, false>), expect_copy),
    BASELINE("copy2D 64/32x16 fast", (launchTileCopy<64, 32, 16, true>), expect_copy),
    BASELINE("copy2D 64/64x16 fast", (launchTileCopy<64, 64, 16, true>), expect_copy),
    BASELINE("transposeNaive (1.2a)", launch_transpose_naive, expect_transpose),
};

#ifdef HAVE_VARIANTS
/* Conflict-free transposes, named TILE/BXxBY: a TILE x TILE tile per block of BX x BY threads;
 * "fast": interior tiles skip the bounds checks; "cols": blockIdx walks down columns of tiles,
 * "band32": down bands of 32 tile-rows; "skewed": stores shifted onto sector boundaries. The
 * first is the textbook kernel; "64/32x16 fast cols" is the shape of the reference 2.2 (measured
 * on an H200: 0.93-0.95 of copy at 8192^2, 0.74-0.76 at 8191 x 8193, against 0.78-0.81 and 0.54
 * for the textbook kernel; these skewed kernels measured 0.77 and 0.70). */
#define VARIANT(name, launch) {"2.2", name, "rows,cols", "", run_with<launch>, expect_transpose}
enum { COLS = 1 << 20 }; /* a band taller than any matrix: walk whole columns of tiles */
static const cml_task VARIANTS[] = {
    VARIANT("padded 32/32x8 (textbook)", (launchTileVariant<32, 32, 8, true, false>)),
    VARIANT("padded 32/32x8 cols", (launchTileVariant<32, 32, 8, true, false, COLS>)),
    VARIANT("padded 64/32x8 fast", (launchTileVariant<64, 32, 8, true, true>)),
    VARIANT("padded 64/32x8 fast cols", (launchTileVariant<64, 32, 8, true, true, COLS>)),
    VARIANT("padded 64/32x16 fast", (launchTileVariant<64, 32, 16, true, true>)),
    VARIANT("padded 64/32x16 fast band32", (launchTileVariant<64, 32, 16, true, true, 32>)),
    VARIANT("padded 64/32x16 fast cols", (launchTileVariant<64, 32, 16, true, true, COLS>)),
    VARIANT("padded 64/32x16 cols", (launchTileVariant<64, 32, 16, true, false, COLS>)),
    VARIANT("padded 64/64x16 fast cols", (launchTileVariant<64, 64, 16, true, true, COLS>)),
    VARIANT("vec4 64/16x16 fast cols", launchTransposeVec4),
    VARIANT("skewed 64/32x8 fast", (launchTransposeSkewed<8, false>)),
    VARIANT("skewed 64/32x8 fast cols", (launchTransposeSkewed<8, true>)),
    VARIANT("skewed 64/32x16 fast", (launchTransposeSkewed<16, false>)),
    VARIANT("skewed 64/32x16 fast cols", (launchTransposeSkewed<16, true>)),
};

#else
static const cml_task *const VARIANTS = NULL; /* a build beside the student's code: none */
#endif

static void bench(void)
{
#ifdef HAVE_VARIANTS
    const int nvariants = (int)(sizeof VARIANTS / sizeof VARIANTS[0]);
#else
    const int nvariants = 0;
#endif
    for (const char *size : {"rows=8192,cols=8192", "rows=8191,cols=8193"}) {
        cml_table_title("baselines, the two tasks, then the 2.2 tuning variants (variants.cuh)");
        for (const cml_task &t : BASELINES)
            cml_table_run(&t, size);
        for (const cml_task &t : TASKS)
            cml_table_run(&t, size);
        for (int i = 0; i < nvariants; i++)
            cml_table_run(&VARIANTS[i], size);
    }
}

static void extras(void)
{
    cml_table_title("for comparison: a tile-shaped copy (the ceiling) and the naive transpose");
    for (const cml_task &t : BASELINES)
        cml_table_run(&t, "rows=8192,cols=8192");
}

int main(int argc, char **argv)
{
    static const cml_lab lab = {"02_transpose", "Shared-memory transpose", TASKS,
                                (int)(sizeof TASKS / sizeof TASKS[0]), bench, extras};
    return cml_main(argc, argv, &lab);
}
