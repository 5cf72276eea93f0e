/* The fake lab and the batch's GPU lock (tests/test_batch_lock.c): a lab run that must find the
 * lock held, and the probe's --hold. */
#include "fake_lab_lock.h"

#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* Whether another process holds the lock at path (a shared lock is refused); -1: unreadable. */
static int lock_held(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int held = flock(fd, LOCK_SH | LOCK_NB) < 0;
    close(fd);
    return held;
}

/* Contract in fake_lab_lock.h. */
int fake_lock_not_held(void)
{
    const char *path = getenv("FAKE_LOCK_HELD");
    int held = path ? lock_held(path) : 1;
    if (held == 1)
        return 0;
    fprintf(stderr, "fake lab: the GPU lock %s is %s\n", path, held < 0 ? "unreadable" : "free");
    return 1;
}

/* Contract in fake_lab_lock.h. */
int fake_run_overlaps(void)
{
    const char *path = getenv("FAKE_EXCLUSIVE"), *ms = getenv("FAKE_EXCLUSIVE_MS");
    int fd = path ? open(path, O_RDONLY) : -1; /* kept open: the flock lasts until exit */
    if (!path || fd < 0)
        return 0;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        fprintf(stderr, "fake lab: another run of this grading is on the GPU (%s)\n", path);
        return 1;
    }
    long wait = ms ? atol(ms) : 300;
    nanosleep(&(struct timespec){ wait / 1000, (wait % 1000) * 1000000 }, NULL);
    return 0;
}

/* Contract in fake_lab_lock.h. */
int fake_hold(void)
{
    const char *log = getenv("FAKE_HOLD_LOG"), *lock = getenv("FAKE_LOCK_HELD");
    if (!log)
        return 2;
    for (int end = 0; end < 2; end++) {
        int held = lock && lock_held(lock) == 1;
        FILE *f = fopen(log, "a");
        if (f) {
            fprintf(f, "%s %d %s\n", end ? "let-go" : "hold", (int)getpid(),
                    held ? "locked" : "unlocked");
            fclose(f);
        }
        char c;
        if (!end && write(1, "1", 1) == 1)
            while (read(0, &c, 1) > 0)
                ;
    }
    return 0;
}
