/* Outputs after a case's launch: read in chunks (copied out of device memory through a staging
 * buffer, or read in place from host-visible memory, never through a copy engine), then written
 * to DIR/case<k>.bin for the grader or compared with the task's expect function. */
#include "cml_lab_int.h"

#include <algorithm>
#include <errno.h>
#include <string.h>

static const size_t CHUNK_ELEMS = (size_t)4 << 20;
static float *g_staging; /* CHUNK_ELEMS host floats: a device output's chunk, copied out */

int cml_outputs_open(void)
{
    g_staging = (float *)malloc(CHUNK_ELEMS * sizeof(float));
    return g_staging ? 0 : -1;
}

void cml_outputs_close(void) { free(g_staging); }

/* Elements [first, first + count) of an output as host memory: the staging buffer for a device
 * output, the output itself for a host-visible one. */
static const float *output_chunk(const float *out, int on_device, size_t first, size_t count)
{
    if (!on_device)
        return out + first;
    CML_CHECK(cudaMemcpy(g_staging, out + first, count * sizeof(float),
                         cudaMemcpyDeviceToHost));
    return g_staging;
}

int cml_write_output(const float *out, int on_device, size_t elems, char *name, size_t len)
{
    char path[4096];
    snprintf(name, len, "case%d.bin", cml_current_k);
    snprintf(path, sizeof path, "%s/%s", cml_opts()->out_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        cml_case_fail("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int ok = 1;
    for (size_t first = 0; first < elems && ok; first += CHUNK_ELEMS) {
        size_t count = std::min(CHUNK_ELEMS, elems - first);
        ok = fwrite(output_chunk(out, on_device, first, count), sizeof(float), count, f) == count;
    }
    if (fclose(f) != 0 || !ok) {
        cml_case_fail("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Bit for bit: a NaN passes only with the expected payload (the data-movement tasks copy
 * them), and the poison pattern, which no input generator makes, never. */
uint64_t cml_self_check(const cml_case *c, const float *out, int on_device, size_t elems,
                        char *why, size_t len)
{
    const uint64_t seed = cml_seed();
    uint64_t nbad = 0;
    why[0] = '\0';
    for (size_t first = 0; first < elems; first += CHUNK_ELEMS) {
        size_t count = std::min(CHUNK_ELEMS, elems - first);
        const float *got = output_chunk(out, on_device, first, count);
        for (size_t i = 0; i < count; i++) {
            float want = c->task->expect(c, seed, first + i);
            if (memcmp(&want, &got[i], sizeof want) != 0 && nbad++ == 0)
                snprintf(why, len, "first at %zu: expected %.9g, got %.9g", first + i,
                         (double)want, (double)got[i]);
        }
    }
    return nbad;
}
