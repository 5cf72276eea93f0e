/* Probe: learn which GPU is present by building (once, cached) and running common/probe.cu in
 * the sandbox. The grader itself never touches CUDA. */
#ifndef CML_PROBE_H
#define CML_PROBE_H

#include "cml.h"

#define CML_PROBE_TIMEOUT_S 60.0

typedef struct {
    int have_gpu;
    char reason[256];     /* why there is no usable GPU, when have_gpu is 0 */
    cml_run_record rec;   /* what the probe reported (device name, cc, ...) */
} cml_probe_result;

/* Fill p: have_gpu and the device's records, or the reason there is none (the probe's
 * nodevice message in plain words, e.g. "no NVIDIA driver on this machine
 * (cudaErrorInsufficientDriver): ...", "no GPU visible (cudaErrorNoDevice): ...", "no
 * permission to use /dev/nvidiactl ..."; how it crashed; or that nvcc is missing).
 * $CML_FAKE_GPU=0 forces "no GPU" without building anything. The probe binary is root/build/cml-probe (`make all`) while
 * no file of root/common is newer, else built once into cache_dir. */
void cml_probe(const char *root, const char *cache_dir, cml_probe_result *p);

/* With a GPU found, cml_probe also leaves the probe's binary holding a CUDA context open
 * (probe.c says why; CML_HOLD_CONTEXT=0: not). cml_probe_let_go ends it: the grading's last
 * GPU step (it also ends with this process). */
void cml_probe_let_go(void);

/* Copy the probe's findings into the grading record (have_gpu, reason, GPU fields). */
void cml_probe_fill(const cml_probe_result *p, cml_grading *g);

#endif /* CML_PROBE_H */
