/* The GPU lock (gpu_lock.h): a flock on a file that every grading of one GPU shares. */
#include "gpu_lock.h"
#include "util.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* Contract in gpu_lock.h. */
int cml_gpu_lock(const char *path, FILE *progress)
{
    if (!path)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    while (fd >= 0 && flock(fd, LOCK_EX) < 0)
        ; /* EINTR: the lock is what keeps two timings apart, so wait for it */
    if (fd < 0 && progress)
        fprintf(progress, "warning: cannot open the GPU lock %s: grading without it\n", path);
    return fd;
}

/* Contract in gpu_lock.h. */
void cml_gpu_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor releases the flock */
}

/* The grading's lock, held around each of its GPU runs. Only the main thread takes and drops
 * it; threads it starts while holding it (the technique phase's ncu runs) nest inside that
 * hold, so the depth they change is atomic and never reaches 0 in them. */
static const char *hold_path;
static int hold_fd = -1;
static atomic_int hold_depth;
static double held_s, waited_s, since; /* for cml_gpu_hold_times */

/* Contract in gpu_lock.h. */
void cml_gpu_hold_path(const char *path)
{
    hold_path = path;
}

/* Contract in gpu_lock.h. */
void cml_gpu_hold(void)
{
    if (atomic_fetch_add(&hold_depth, 1) > 0)
        return;
    const double asked = cml_now();
    if (hold_path)
        hold_fd = cml_gpu_lock(hold_path, stderr);
    since = cml_now();
    waited_s += since - asked;
}

/* Contract in gpu_lock.h. */
void cml_gpu_release(void)
{
    int depth = atomic_load(&hold_depth);
    do
        if (depth == 0)
            return; /* a release without its hold */
    while (!atomic_compare_exchange_weak(&hold_depth, &depth, depth - 1));
    if (depth > 1)
        return;
    held_s += cml_now() - since;
    cml_gpu_unlock(hold_fd);
    hold_fd = -1;
}

static int share_n;

/* Contract in gpu_lock.h. */
void cml_gpu_share_set(int n)
{
    share_n = n > 0 ? n : 0;
}

/* Contract in gpu_lock.h. The place's descriptor stays open (and locked) until the process
 * ends: the grading keeps its place through every GPU run that follows. */
void cml_gpu_enter(void)
{
    static int place_fd = -1;
    if (!hold_path || share_n == 0 || place_fd >= 0)
        return;
    const double asked = cml_now();
    int fds[CML_GPU_PLACES], n = share_n < CML_GPU_PLACES ? share_n : CML_GPU_PLACES;
    for (int k = 0; k < n; k++) {
        char path[CML_PATH];
        fds[k] = cml_fmt(path, sizeof path, "%s.place%d", hold_path, k) == 0
                 ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    }
    while (place_fd < 0) {
        int opened = 0;
        for (int k = 0; k < n && place_fd < 0; k++) {
            opened += fds[k] >= 0;
            if (fds[k] >= 0 && flock(fds[k], LOCK_EX | LOCK_NB) == 0)
                place_fd = fds[k];
        }
        if (!opened)
            break; /* no place can be opened: the lock alone keeps the runs apart */
        if (place_fd < 0)
            nanosleep(&(struct timespec){ 0, 20000000 }, NULL); /* a grading ends: 20 ms */
    }
    for (int k = 0; k < n; k++)
        if (fds[k] >= 0 && fds[k] != place_fd)
            close(fds[k]);
    waited_s += cml_now() - asked;
}

/* Contract in gpu_lock.h. */
void cml_gpu_hold_times(double *held, double *waited)
{
    *held = held_s;
    *waited = waited_s;
}
