/* The GPU lock (gpu_lock.h): a flock on a file that every grading of one GPU shares. */
#include "gpu_lock.h"
#include "util.h"

#include <fcntl.h>
#include <pthread.h>
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

/* The grading's lock, held around each of its GPU runs. Holds nest within a group of threads
 * (a thread's group is 0 unless it says otherwise): the threads a holder starts (the technique
 * phase's ncu runs, the sanitizer pool) share its group and run inside its hold, while a thread
 * of another group waits until that hold ends, so that two of this grading's runs never meet
 * on the GPU either. Groups 1, 2, ... are the pipeline's labs (grade_labs.c), which go in their
 * order: a lab's first hold waits until every lab before it has held or ended, and of the labs
 * waiting, the first goes first. */
static const char *hold_path;
static int hold_fd = -1;
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_ended = PTHREAD_COND_INITIALIZER;
static int hold_depth, hold_group;
static unsigned long long waiting, passed; /* bit g: lab group g waits; has held or ended */
static _Thread_local int my_group;
static double held_s, waited_s, since; /* for cml_gpu_hold_times */

#define GROUP_BIT(g) ((g) > 0 && (g) < 64 ? 1ull << (g) : 0)

/* Contract in gpu_lock.h. */
void cml_gpu_hold_path(const char *path)
{
    hold_path = path;
}

/* Contract in gpu_lock.h. */
void cml_gpu_group_set(int group)
{
    my_group = group;
}

/* Contract in gpu_lock.h. */
void cml_gpu_group_end(void)
{
    pthread_mutex_lock(&hold_mu);
    passed |= GROUP_BIT(my_group);
    pthread_cond_broadcast(&hold_ended);
    pthread_mutex_unlock(&hold_mu);
}

/* Whether this thread's group must let another go first (under hold_mu). */
static int must_wait(void)
{
    if (hold_depth > 0)
        return hold_group != my_group;
    const unsigned long long mine = GROUP_BIT(my_group), before = (mine - 1) & ~1ull; /* 1..g-1 */
    return mine && ((passed & before) != before || (waiting & before) != 0);
}

/* Contract in gpu_lock.h. */
void cml_gpu_hold(void)
{
    pthread_mutex_lock(&hold_mu);
    waiting |= GROUP_BIT(my_group);
    while (must_wait())
        pthread_cond_wait(&hold_ended, &hold_mu); /* this grading's other run: not counted */
    waiting &= ~GROUP_BIT(my_group);
    passed |= GROUP_BIT(my_group);
    if (hold_depth++ == 0) {
        const double asked = cml_now(); /* only another grading's hold is waiting for the GPU */
        hold_group = my_group;
        if (hold_path)
            hold_fd = cml_gpu_lock(hold_path, stderr);
        since = cml_now();
        waited_s += since - asked;
    }
    pthread_mutex_unlock(&hold_mu);
}

/* Contract in gpu_lock.h. */
void cml_gpu_release(void)
{
    pthread_mutex_lock(&hold_mu);
    if (hold_depth > 0 && --hold_depth == 0) { /* else a release without its hold: ignored */
        held_s += cml_now() - since;
        cml_gpu_unlock(hold_fd);
        hold_fd = -1;
        pthread_cond_broadcast(&hold_ended);
    }
    pthread_mutex_unlock(&hold_mu);
}

static int share_n;

/* Contract in gpu_lock.h. */
void cml_gpu_share_set(int n)
{
    share_n = n > 0 ? n : 0;
}

/* Place k of the lock at `lock`, opened (created if missing); -1 when it cannot be. */
static int place_open(const char *lock, int k)
{
    char path[CML_PATH];
    return cml_fmt(path, sizeof path, "%s.place%d", lock, k) == 0
           ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
}

/* Contract in gpu_lock.h. */
int cml_gpu_places_take(const char *lock, int n, int *fds)
{
    int got = 0;
    for (int k = 0; k < n && k < CML_GPU_PLACES; k++) {
        fds[k] = place_open(lock, k);
        if (fds[k] >= 0 && flock(fds[k], LOCK_EX | LOCK_NB) < 0) {
            close(fds[k]); /* held: by a grading of another batch on this folder */
            fds[k] = -1;
        }
        got += fds[k] >= 0;
    }
    return got;
}

/* Contract in gpu_lock.h. */
void cml_gpu_places_give(int n, int *fds)
{
    for (int k = 0; k < n && k < CML_GPU_PLACES; k++) {
        if (fds[k] >= 0)
            close(fds[k]);
        fds[k] = -1;
    }
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
    for (int k = 0; k < n; k++)
        fds[k] = place_open(hold_path, k);
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
    pthread_mutex_lock(&hold_mu);
    *held = held_s;
    *waited = waited_s;
    pthread_mutex_unlock(&hold_mu);
}
