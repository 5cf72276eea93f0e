/* The GPU lock (gpu_lock.h): a flock on a file that every grading of one GPU shares. */
#include "gpu_lock.h"
#include "util.h"

#include <fcntl.h>
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

/* The grading's lock, held around each of its GPU runs (main thread only: the sanitizer pool
 * is held as one run by the thread that starts it). */
static const char *hold_path;
static int hold_fd = -1, hold_depth;
static double held_s, waited_s, since; /* for cml_gpu_hold_times */

/* Contract in gpu_lock.h. */
void cml_gpu_hold_path(const char *path)
{
    hold_path = path;
}

/* Contract in gpu_lock.h. */
void cml_gpu_hold(void)
{
    if (hold_depth++ > 0)
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
    if (hold_depth == 0 || --hold_depth > 0)
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
