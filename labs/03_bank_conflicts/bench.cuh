/* Lab 03 tables (pristine, included by harness.cu once its kernels and tasks are declared):
 * the degree table of the student's conflict_degree, the strided-read sweep with measured
 * ratios beside the predicted degrees, and the bench rows of 3.2 and 3.3 with their ratios. */
#ifndef BENCH_CUH
#define BENCH_CUH

/* Strides 0..33 in the three element sizes, from the student's conflict_degree (3.1). */
static void degree_table(void)
{
    printf("\n3.1: your conflict_degree(stride, elem_bytes), strides 0..33\n  bytes ");
    for (int s = 0; s <= 33; s++)
        printf("%3d", s);
    for (int bytes = 4; bytes <= 16; bytes *= 2) {
        printf("\n  %5d ", bytes);
        for (int s = 0; s <= 33; s++)
            printf("%3d", conflict_degree(s, bytes));
    }
    printf("\n%s", conflict_degree(0, 4) == 0 ? "  (zeros: TODO(3.1) is not done yet)\n" : "");
}

/* Median ms of one launch on fresh n-float buffers (inputs: small integers, or zeros). */
static double time_vector(vector_fn launch, size_t n, int small_ints)
{
    float *d_in = NULL, *d_out = NULL;
    CML_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CML_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    if (small_ints)
        fillSmallInts<<<cml_sm_count() * 16, 256, 0, cml_stream()>>>(d_in, n, cml_seed());
    else
        CML_CHECK(cudaMemsetAsync(d_in, 0, n * sizeof(float), cml_stream()));
    CML_CHECK_LAUNCH();
    auto go = [&](cudaStream_t s) { launch(d_out, d_in, n, s); };
    const double ms = cml_time(cml_launcher_of(go), d_out, n * sizeof(float)).ms;
    CML_CHECK(cudaFree(d_in));
    CML_CHECK(cudaFree(d_out));
    return ms;
}

static void launch_strided(float *d_out, const float *, size_t stride, cudaStream_t s)
{
    readStrided<<<8192, 256, 0, s>>>(d_out, (int)stride);
    CML_CHECK_LAUNCH();
}

/* Section 2's sweep: the time of readStrided per stride, as a multiple of stride 1. */
static void stride_sweep(void)
{
    static const int STRIDES[] = {1, 2, 3, 4, 8, 16, 17, 32, 33};
    float *d_out = NULL;
    CML_CHECK(cudaMalloc(&d_out, (size_t)8192 * 256 * sizeof(float)));
    printf("\nshared-memory reads at a stride of S words (readStrided, harness), measured\n"
           "  %6s %9s %12s %24s\n", "stride", "ms", "x stride 1", "conflict_degree(S, 4)");
    double base = 0;
    for (int stride : STRIDES) {
        auto go = [&](cudaStream_t s) { launch_strided(d_out, NULL, (size_t)stride, s); };
        const double ms = cml_time(cml_launcher_of(go), NULL, 0).ms;
        base = stride == 1 ? ms : base;
        printf("  %6d %9.4f %11.2fx %24d\n", stride, ms, ms / base, conflict_degree(stride, 4));
        cml_record("note task=3.1 msg=readStrided stride=%d %.4f ms %.2fx stride 1", stride, ms,
                   ms / base);
    }
    CML_CHECK(cudaFree(d_out));
}

/* "before / after = ratio", measured here, when the student's task ran. */
static void print_ratio(const char *what, vector_fn before, vector_fn after, size_t n, int ints)
{
    const double b = time_vector(before, n, ints), a = time_vector(after, n, ints);
    printf("  ratio %s: %.4f / %.4f ms = %.2fx\n", what, b, a, b / a);
    cml_record("note task=- msg=ratio %s %.4f / %.4f ms = %.2fx", what, b, a, b / a);
}

static void bench(void)
{
    const char *big = "n=67108864";
    degree_table();
    stride_sweep();
    cml_table_title("3.2: the 2008 experiment, 16 x 16 blocks, 64M floats: column- vs row-major");
    cml_table_run(&GIVEN[0], big);
    if (cml_table_run(&TASKS[1], big) == CML_ROW_RAN)
        print_ratio("column-major / row-major (3.2)", launch_scale_column_major,
                    launch_scale_row_major, 67108864, 0);
    cml_table_title("3.3: tile times its transpose, 65536 tiles of 32 x 32: conflicted, padded, "
                    "swizzled");
    cml_table_run(&GIVEN[1], big);
    if (cml_table_run(&TASKS[2], big) == CML_ROW_RAN)
        print_ratio("conflicted / padded (3.3a)", launch_gram_conflicted, launch_gram_padded,
                    67108864, 1);
    if (cml_table_run(&TASKS[3], big) == CML_ROW_RAN)
        print_ratio("conflicted / swizzled (3.3b)", launch_gram_conflicted, launch_gram_swizzled,
                    67108864, 1);
}

static void extras(void)
{
    degree_table();
    cml_table_title("for comparison: the given column-major and conflicted kernels");
    cml_table_run(&GIVEN[0], "n=67108864");
    cml_table_run(&GIVEN[1], "n=67108864");
}

#endif /* BENCH_CUH */
