/* Always-on CUDA error checks (never compiled out), and the small part of the result protocol
 * they need: one record per line written straight to the descriptor named by CML_RESULT_FD, so
 * a record survives a crash that follows it. A failed check reports an `error` for the case in
 * progress, prints the call, the error and file:line on stderr, and exits with status 1. */
#ifndef CML_CHECK_H
#define CML_CHECK_H

#include <cuda_runtime.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Exit statuses shared by every lab binary and the probe. */
#define CML_EXIT_CUDA_ERROR 1
#define CML_EXIT_USAGE 2
#define CML_EXIT_NO_GPU 3

/* The case in progress, for error reports: set by the harness library (cml_lab.cpp). */
inline int cml_current_k = -1;              /* case index, -1 outside a case */
inline const char *cml_current_task = NULL; /* task id, NULL outside a task */
inline int cml_current_reported = 0;        /* the case record was already written */

/* The descriptor from CML_RESULT_FD, or -1 when records are not wanted (looked up once). */
inline int cml_result_fd(void)
{
    static int fd = -2;
    if (fd == -2) {
        const char *s = getenv("CML_RESULT_FD");
        char *end = NULL;
        long v = s ? strtol(s, &end, 10) : -1;
        fd = -1;
        if (s && *s && *end == '\0' && v >= 0 && v < 1 << 20 && fcntl((int)v, F_GETFD) != -1)
            fd = (int)v;
        else if (s)
            fprintf(stderr, "warning: CML_RESULT_FD=%s is not an open descriptor; no records\n", s);
    }
    return fd;
}

/* Writes one record: printf-style text, to which a newline is added. Newlines inside the text
 * become spaces so a record is always one line; a failed or short write is retried. */
__attribute__((format(printf, 1, 2))) inline void cml_record(const char *fmt, ...)
{
    int fd = cml_result_fd();
    if (fd < 0)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if (len > (int)sizeof line - 2)
        len = (int)sizeof line - 2; /* truncated: only a msg= tail can be this long */
    for (int i = 0; i < len; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    line[len++] = '\n';
    for (int done = 0; done < len;) {
        ssize_t w = write(fd, line + done, (size_t)(len - done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (int)w;
    }
}

/* Reports a failed CUDA call and exits: an error record for the case in progress (or a note
 * when its case record is already out), the same text on stderr. No `done` follows. */
[[noreturn]] inline void cml_cuda_fail(cudaError_t err, const char *call, const char *file,
                                       int line)
{
    char msg[640];
    snprintf(msg, sizeof msg, line > 0 ? "CUDA error %s (%s) in %s at %s:%d"
                                       : "CUDA error %s (%s) in %s, in %s",
             cudaGetErrorName(err), cudaGetErrorString(err), call, file, line);
    if (cml_current_k >= 0 && !cml_current_reported)
        cml_record("case k=%d task=%s status=error msg=%s", cml_current_k,
                   cml_current_task ? cml_current_task : "-", msg);
    else if (cml_current_task)
        cml_record("note task=%s msg=%s", cml_current_task, msg);
    if (cml_current_task)
        fprintf(stderr, "task %s: %s\n", cml_current_task, msg);
    else
        fprintf(stderr, "%s\n", msg);
    exit(CML_EXIT_CUDA_ERROR);
}

#define CML_CHECK(call)                                                                \
    do {                                                                               \
        cudaError_t cml_err_ = (call);                                                 \
        if (cml_err_ != cudaSuccess)                                                   \
            cml_cuda_fail(cml_err_, #call, __FILE__, __LINE__);                        \
    } while (0)

/* After a kernel launch: catches a bad configuration at once. Faults inside the kernel show
 * at the next synchronize, which the harness does (and checks) after every student launch. */
#define CML_CHECK_LAUNCH() CML_CHECK(cudaGetLastError())

/* ---- the GPU that is present: shared by the probe and every lab binary ---- */

/* 0 when device 0 is usable; otherwise -1 and the reason in `why` ("cudaErrorNoDevice: ...").
 * Without a driver cudaGetDeviceCount fails and leaves the count unwritten: it starts at 0. */
inline int cml_gpu_usable(char *why, size_t len)
{
    int count = 0, major = 0, minor = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count <= 0) {
        snprintf(why, len, "no CUDA device is visible (cudaGetDeviceCount returned 0)");
        return -1;
    }
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    if (err == cudaSuccess && major * 10 + minor < 75) {
        snprintf(why, len, "compute capability %d.%d is below 7.5, the oldest CUDA 13 supports",
                 major, minor);
        return -1;
    }
    if (err == cudaSuccess)
        err = cudaSetDevice(0); /* creates the context: a busy or broken GPU fails here */
    if (err != cudaSuccess) {
        snprintf(why, len, "%s: %s", cudaGetErrorName(err), cudaGetErrorString(err));
        return -1;
    }
    return 0;
}

/* Writes the `device` record for device 0 and a one-line human summary into `summary`. */
inline void cml_record_device(char *summary, size_t len)
{
    cudaDeviceProp p;
    int driver = 0, runtime = 0, clock_khz = 0;
    CML_CHECK(cudaGetDeviceProperties(&p, 0));
    CML_CHECK(cudaDriverGetVersion(&driver));
    CML_CHECK(cudaRuntimeGetVersion(&runtime));
    CML_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    char name[sizeof p.name];
    for (size_t i = 0; i < sizeof name; i++) /* the protocol's values hold no spaces */
        name[i] = (p.name[i] == ' ' || p.name[i] == '=') ? '_' : p.name[i];
    name[sizeof name - 1] = '\0';
    cml_record("device name=%s cc=%d sms=%d l2=%d mem=%zu driver=%d runtime=%d clock_mhz=%d",
               name, p.major * 10 + p.minor, p.multiProcessorCount, p.l2CacheSize,
               p.totalGlobalMem, driver, runtime, clock_khz / 1000);
    snprintf(summary, len,
             "%s: compute capability %d.%d, %d SMs, %.0f MiB L2, %.1f GiB, %d MHz, "
             "driver %d.%d, runtime %d.%d",
             p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize / 1048576.0,
             p.totalGlobalMem / 1073741824.0, clock_khz / 1000, driver / 1000,
             driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
}

#endif /* CML_CHECK_H */
