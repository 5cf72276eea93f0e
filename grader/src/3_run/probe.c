/* Probe: build common/probe.cu once per nvcc and source version (cached, default nvcc
 * architecture so that it runs, through the driver's JIT, on any GPU), run it, read its
 * records. */
#include "probe.h"
#include "gpu_lock.h"
#include "sandbox.h"
#include "build.h"
#include "records.h"
#include "run.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Calls fn(path, ctx) for every file of root/common but dot files; how many, -1 when the
 * folder cannot be read. */
static int each_common_file(const char *root, void (*fn)(const char *path, void *ctx), void *ctx)
{
    char dir[CML_PATH], path[CML_PATH];
    struct dirent **list = NULL;
    int n = cml_fmt(dir, sizeof dir, "%s/common", root) == 0
            ? scandir(dir, &list, NULL, alphasort) : -1;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.' &&
            cml_fmt(path, sizeof path, "%s/%s", dir, list[i]->d_name) == 0)
            fn(path, ctx);
        free(list[i]);
    }
    free(list);
    return n;
}

static void hash_into(const char *path, void *h)
{
    *(uint64_t *)h = cml_hash_file(*(uint64_t *)h, path);
}

/* Hash of nvcc's path and every file of root/common (probe.cu includes some). */
static uint64_t probe_hash(const char *root)
{
    char nvcc[CML_PATH] = "", err[256];
    cml_find_nvcc(nvcc, sizeof nvcc, err, sizeof err);
    uint64_t h = cml_hash_file(cml_fnv1a(CML_FNV_INIT, nvcc, strlen(nvcc)), nvcc);
    each_common_file(root, hash_into, &h);
    return h;
}

/* A binary and whether every file seen so far is older than it. */
typedef struct {
    struct stat bin;
    int fresh;
} age_check;

static void older_than_bin(const char *path, void *ctx)
{
    age_check *a = ctx;
    struct stat f;
    if (stat(path, &f) == 0 &&
        (f.st_mtim.tv_sec > a->bin.st_mtim.tv_sec ||
         (f.st_mtim.tv_sec == a->bin.st_mtim.tv_sec && f.st_mtim.tv_nsec > a->bin.st_mtim.tv_nsec)))
        a->fresh = 0;
}

/* root/build/cml-probe, which `make all` builds, into bin when it is there and newer than every
 * file of root/common (a probe of older sources may report in an older format). 1 when so. */
static int prebuilt(const char *root, char *bin, size_t len)
{
    age_check a = { .fresh = 1 };
    if (cml_fmt(bin, len, "%s/build/cml-probe", root) < 0 || stat(bin, &a.bin) != 0 ||
        !S_ISREG(a.bin.st_mode) || access(bin, X_OK) != 0)
        return 0;
    return each_common_file(root, older_than_bin, &a) > 0 && a.fresh;
}

/* The probe binary: make's (prebuilt), else its path in the cache, built if missing. 0 on
 * success; -1 with a reason. */
static int probe_binary(const char *root, const char *cache_dir, char *bin, size_t len,
                        char *reason, size_t rlen)
{
    char src[CML_PATH], inc[CML_PATH], tmp[CML_PATH];
    if (prebuilt(root, bin, len))
        return 0;
    uint64_t h = probe_hash(root);
    if (cml_cache_lookup(cache_dir, "probe", h, "probe", bin, len))
        return 0;
    if (cml_fmt(src, sizeof src, "%s/common/probe.cu", root) < 0 ||
        cml_fmt(inc, sizeof inc, "-I%s/common", root) < 0 ||
        cml_fmt(tmp, sizeof tmp, "%s.tmp%ld", bin, (long)getpid()) < 0) {
        snprintf(reason, rlen, "path too long building the GPU probe: use a shorter --root");
        return -1;
    }
    char dir[CML_PATH];
    snprintf(dir, sizeof dir, "%s", bin);
    *strrchr(dir, '/') = '\0';
    char *const args[] = { "-O2", "-std=c++17", inc, "-o", tmp, src, NULL };
    char *log = NULL;
    int rc = cml_mkdirs(dir) == 0 ? cml_nvcc(args, dir, 0, CML_BUILD_TIMEOUT_S, &log) : -1;
    if (rc == 0) /* stored with its SHA-256 like every cached build, or never found again */
        rc = cml_cache_store(tmp, bin);
    if (rc < 0)
        snprintf(reason, rlen, "could not build the GPU probe common/probe.cu: %.200s",
                 log ? log : "cannot create the cache folder");
    free(log);
    unlink(tmp);
    return rc;
}

/* The first NVIDIA device file that exists but this user may not open, or NULL. */
static const char *denied_device(void)
{
    static const char *const dev[] = { "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0" };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (access(dev[i], F_OK) == 0 && access(dev[i], R_OK | W_OK) != 0)
            return dev[i];
    return NULL;
}

/* The probe's "cudaErrorX: CUDA's words" as the reason a person can act on: CUDA says "driver
 * version is insufficient" where no driver is installed at all. The error's name stays, in
 * brackets, for whoever searches for it. */
static void plain_reason(const char *msg, char *out, size_t len)
{
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(msg, ":"), msg);
    const char *denied = denied_device();
    int driver = access("/dev/nvidiactl", F_OK) == 0;
    if (denied)
        snprintf(out, len, "no permission to use %s (%s): ask the machine's administrator to "
                 "give this user access (ls -l %s shows its group)", denied, name, denied);
    else if (!strcmp(name, "cudaErrorInsufficientDriver"))
        snprintf(out, len, driver ? "the NVIDIA driver is older than this CUDA needs (%s): "
                 "update the driver" : "no NVIDIA driver on this machine (%s): use a machine "
                 "with an NVIDIA GPU and its driver", name);
    else if (!strcmp(name, "cudaErrorNoDevice"))
        snprintf(out, len, "no GPU visible (%s): this machine has none, or "
                 "CUDA_VISIBLE_DEVICES hides it", name);
    else if (!strcmp(name, "cudaErrorDevicesUnavailable"))
        snprintf(out, len, "the GPU is busy (%s): it is in an exclusive compute mode and "
                 "another process holds it", name);
    else
        snprintf(out, len, "%s", msg);
}

/* Run the probe and read its records into p. */
static void run_probe(const char *bin, const char *cache_dir, cml_probe_result *p)
{
    char *argv[] = { "./lab", NULL }, how[300], tail[200], dir[CML_PATH], err[300];
    cml_proc_result r;
    if (cml_sandbox_scratch(cache_dir, "probe-run", bin, dir, sizeof dir, err, sizeof err) < 0) {
        snprintf(p->reason, sizeof p->reason, "%.250s", err);
        return;
    }
    int fd = cml_result_fd_open();
    if (fd < 0) {
        snprintf(p->reason, sizeof p->reason, "cannot create a result file for the GPU probe");
        cml_rmtree(dir);
        return;
    }
    cml_run_sandboxed(argv, NULL, dir, NULL, fd, NULL, CML_PROBE_TIMEOUT_S, 16u << 10, &r);
    cml_rmtree(dir);
    size_t len = 0;
    char *text = cml_result_fd_read(fd, &len);
    close(fd);
    if (text)
        cml_records_parse(text, len, &p->rec, NULL);
    free(text);
    cml_proc_describe(&r, CML_PROBE_TIMEOUT_S, how, sizeof how);
    cml_proc_tail(&r, 120, tail, sizeof tail);
    if (p->rec.nodevice)
        plain_reason(p->rec.nodevice_msg, p->reason, sizeof p->reason);
    else if (p->rec.cc > 0)
        p->have_gpu = 1;
    else
        snprintf(p->reason, sizeof p->reason, "the GPU probe %.80s without naming a device%s%.120s",
                 how, tail[0] ? "; it said: " : "", tail);
    cml_proc_result_free(&r);
}

/* ---- a CUDA context held open while the grading lasts ----
 * A lab process that finds another context open on its GPU starts faster: 0.17-0.25 s to its
 * first case instead of 0.30-0.36 s (NVIDIA H100, persistence mode on, 2026-11-24,
 * scripts/exp/fixed-costs.sh), and a grading starts 40-60 lab and tool processes. The probe's
 * binary holds one (`--hold`), idle, so nothing it does is timed beside a lab; it starts and
 * ends under the batch's GPU lock, and ends with the grader: its stdin is our pipe. */
static pid_t keeper = -1;
static int keeper_in = -1;

static void keep_context(const char *bin)
{
    const char *off = getenv("CML_HOLD_CONTEXT");
    int in[2], out[2];
    if ((off && strcmp(off, "0") == 0) || keeper > 0 || pipe2(in, O_CLOEXEC) < 0)
        return;
    if (pipe2(out, O_CLOEXEC) < 0) {
        close(in[0]), close(in[1]);
        return;
    }
    cml_gpu_hold();
    keeper = fork();
    if (keeper == 0) {
        int null = open("/dev/null", O_WRONLY);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || null < 0 || dup2(null, 2) < 0)
            _exit(127);
        execl(bin, bin, "--hold", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    keeper_in = in[1];
    char c = 0;
    struct pollfd pf = { out[0], POLLIN, 0 };
    if (keeper < 0 || poll(&pf, 1, 30000) <= 0 || read(out[0], &c, 1) != 1 || c != '1')
        cml_probe_let_go(); /* no context (no GPU, an exclusive mode, a fake probe): none held */
    close(out[0]);
    cml_gpu_release();
}

/* Contract in probe.h. */
void cml_probe_let_go(void)
{
    if (keeper > 0)
        cml_gpu_hold(); /* before the EOF: its context ends while no lab of the GPU is timed */
    if (keeper_in >= 0)
        close(keeper_in);
    keeper_in = -1;
    if (keeper <= 0)
        return;
    pid_t got = 0;
    for (int i = 0; i < 3000 && (got = waitpid(keeper, NULL, WNOHANG)) == 0; i++)
        usleep(1000); /* EOF on its stdin ends it: 3 s at most, then SIGKILL */
    if (got == 0 && kill(keeper, SIGKILL) == 0) /* never a reaped pid: it may be reused */
        waitpid(keeper, NULL, 0);
    cml_gpu_release();
    keeper = -1;
}

/* Contract in probe.h. */
void cml_probe(const char *root, const char *cache_dir, cml_probe_result *p)
{
    memset(p, 0, sizeof *p);
    const char *fake = getenv("CML_FAKE_GPU");
    if (fake && strcmp(fake, "0") == 0) {
        snprintf(p->reason, sizeof p->reason, "CML_FAKE_GPU=0 is set (GPU use turned off)");
        return;
    }
    char bin[CML_PATH];
    if (probe_binary(root, cache_dir, bin, sizeof bin, p->reason, sizeof p->reason) == 0)
    {
        cml_gpu_hold(); /* built without the batch's GPU lock, run with it (gpu_lock.h) */
        run_probe(bin, cache_dir, p);
        cml_gpu_release();
        if (p->have_gpu)
            keep_context(bin);
    }
}

/* Contract in probe.h. */
void cml_probe_fill(const cml_probe_result *p, cml_grading *g)
{
    g->have_gpu = p->have_gpu;
    snprintf(g->no_gpu_reason, sizeof g->no_gpu_reason, "%s", p->have_gpu ? "" : p->reason);
    snprintf(g->gpu_name, sizeof g->gpu_name, "%s", p->rec.device_name); /* spaces restored */
    g->cc = p->rec.cc;
    g->sms = p->rec.sms;
    g->driver = p->rec.driver;
    g->runtime = p->rec.runtime;
    g->l2_bytes = p->rec.l2_bytes;
    g->mem_bytes = p->rec.mem_bytes;
}
