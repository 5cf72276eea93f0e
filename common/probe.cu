/* The probe: the grader builds and runs this first to learn which GPU is present. It writes
 * hello, device (or nodevice) and done to CML_RESULT_FD and one human line on stdout.
 * Exit status 0 with a usable GPU, 3 without one. Needs nothing but cml_check.h.
 * `--hold`: keep a CUDA context open until stdin ends (grader/src/3_run/probe.c says why). */
#include "cml_check.h"

#include <string.h>
#include <unistd.h>

/* Open a context, say so on stdout, wait for EOF on stdin. Not on a GPU in an exclusive
 * compute mode: there a context held here would lock every lab out. */
static int hold(void)
{
    int mode = -1;
    if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0) != cudaSuccess ||
        mode != cudaComputeModeDefault || cudaFree(0) != cudaSuccess)
        return 1;
    if (write(1, "1", 1) != 1)
        return 1;
    char c;
    while (read(0, &c, 1) > 0)
        ;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--hold") == 0)
        return hold();
    char line[512];
    cml_record("hello protocol=1 lab=probe");
    if (cml_gpu_usable(line, sizeof line) != 0) {
        cml_record("nodevice msg=%s", line);
        cml_record("done");
        printf("no usable GPU: %s\n", line);
        return CML_EXIT_NO_GPU;
    }
    cml_record_device(line, sizeof line);
    cml_record("done");
    printf("GPU 0: %s\n", line);
    return 0;
}
