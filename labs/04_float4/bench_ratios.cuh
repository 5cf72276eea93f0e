/* Lab 04 bench (pristine, included by harness.cu): the ratios the lecture note quotes, measured
 * in this run with the library's timer (events, L2 flushed, median) on fresh buffers: the
 * float4 copy against cudaMemcpy and against copyScalar, the offset copy against the aligned
 * one, and Point4 against float3 per point. */

template <class F> static double median_ms(F launch, float *d_poison, size_t poison_bytes)
{
    return cml_time(cml_launcher_of(launch), d_poison, poison_bytes).ms;
}

/* Copies of n floats (256 MiB): scalar, float4 aligned, float4 with both pointers 1 float in. */
static void copy_ratios(float *d_in, float *d_out, size_t n)
{
    const double bytes = 2.0 * n * sizeof(float), copy = cml_copy_gbps();
    auto scalar = [&](cudaStream_t s) { launch_copy_scalar(d_out, d_in, n, s); };
    auto vec4 = [&](cudaStream_t s) { launch_copy_vec4(d_out, d_in, n, s); };
    auto offset = [&](cudaStream_t s) { launch_copy_vec4(d_out + 1, d_in + 1, n, s); };
    const double ms_scalar = median_ms(scalar, d_out, n * 4), ms_vec4 = median_ms(vec4, d_out, n * 4);
    const double ms_offset = median_ms(offset, d_out + 1, n * 4);
    const double gbps = bytes / (ms_vec4 * 1e6);
    printf("  float4 copy, 256 MiB:           %7.1f GB/s = %.3f of cudaMemcpy D2D (%.1f GB/s);"
           " target >= 0.95\n", gbps, gbps / copy, copy);
    printf("  copyScalar, 256 MiB:            %7.1f GB/s = %.3f of cudaMemcpy D2D\n",
           bytes / (ms_scalar * 1e6), bytes / (ms_scalar * 1e6) / copy);
    printf("  float4 speed-up over scalar:    %7.2fx (time scalar / time float4)\n",
           ms_scalar / ms_vec4);
    printf("  both pointers 1 float in:       %7.3f of the aligned float4 copy's bandwidth\n",
           ms_vec4 / ms_offset);
}

/* n points each way: float3 (12 B) against Point4 (16 B). */
static void point_ratios(float *d_in, float *d_out, size_t n)
{
    auto f3 = [&](cudaStream_t s) { launch_transform_float3(d_out, d_in, n, s); };
    auto p4 = [&](cudaStream_t s) { launch_transform_point4(d_out, d_in, n, s); };
    const double ms_f3 = median_ms(f3, d_out, n * 12), ms_p4 = median_ms(p4, d_out, n * 16);
    printf("  points, float3 / Point4:        %7.3f / %.3f ms; Point4 takes %.2fx the time of "
           "float3 per point\n", ms_f3, ms_p4, ms_p4 / ms_f3);
    printf("  (Point4 moves 16/12 = 1.33x the bytes; equal time would mean it reaches 1.33x "
           "the bandwidth)\n");
}

/* The ratios, for the tasks that are done. */
static void print_ratios(bool copies, bool points)
{
    cudaDeviceProp prop;
    CML_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("\nRatios measured in this run on %s:\n", prop.name);
    if (!copies && !points) {
        printf("  none yet: finish 4.1 and 4.2 to see them\n");
        return;
    }
    const size_t n = (size_t)1 << 26, np = 25165824, elems = 4 * np > n + 8 ? 4 * np : n + 8;
    float *d_in = NULL, *d_out = NULL;
    CML_CHECK(cudaMalloc(&d_in, elems * sizeof(float)));
    CML_CHECK(cudaMalloc(&d_out, elems * sizeof(float)));
    CML_CHECK(cudaMemset(d_in, 0, elems * sizeof(float)));
    if (copies)
        copy_ratios(d_in, d_out, n);
    if (points)
        point_ratios(d_in, d_out, np);
    CML_CHECK(cudaFree(d_in));
    CML_CHECK(cudaFree(d_out));
}
