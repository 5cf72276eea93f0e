/* The GPU lock (class.h): a flock on a file that every grading of one GPU shares. */
#include "class.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

/* Contract in class.h. */
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

/* Contract in class.h. */
void cml_gpu_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor releases the flock */
}
