/* The GPU lock (gpu_lock.h): a flock on a file that every grading of one GPU shares. */
#include "gpu_lock.h"
#include "util.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/file.h>
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

/* Contract in gpu_lock.h. */
void cml_gpu_hold_times(double *held, double *waited)
{
    *held = held_s;
    *waited = waited_s;
}
