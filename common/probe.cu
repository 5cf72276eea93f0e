/* The probe: the grader builds and runs this first to learn which GPU is present. It writes
 * hello, device (or nodevice) and done to CML_RESULT_FD and one human line on stdout.
 * Exit status 0 with a usable GPU, 3 without one. Needs nothing but cml_check.h. */
#include "cml_check.h"

int main(void)
{
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
