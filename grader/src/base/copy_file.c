/* One regular file copied, never through a symbolic link (util.h): the stages' pristine and
 * student files, the batch's gathered submissions and feedback, the sandbox's lab binaries. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, char *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = read(fd, buf + done, n - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

/* Contract in util.h. Opened with O_NOFOLLOW and checked with fstat, so what is checked is
 * what is copied. */
int cml_copy_file(const char *src, const char *dst, size_t max_bytes, char *err, size_t errlen)
{
    int fd = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, errno == ELOOP ? "%s is a symbolic link: submit the file itself"
                 : "cannot open %s (%s)", src, strerror(errno));
        return -1;
    }
    struct stat st;
    char *buf = NULL;
    int rc = -1;
    if (fstat(fd, &st) < 0)
        snprintf(err, errlen, "cannot stat %s (%s)", src, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(err, errlen, "%s is not a regular file: submit the source file itself", src);
    else if ((size_t)st.st_size > max_bytes)
        snprintf(err, errlen, "%s is %lld bytes, more than the %zu allowed: submit the source "
                 "file only", src, (long long)st.st_size, max_bytes);
    else if (!(buf = malloc((size_t)st.st_size + 1)) || read_all(fd, buf, (size_t)st.st_size) < 0)
        snprintf(err, errlen, "cannot read %s (%s)", src, strerror(errno ? errno : EIO));
    else if (cml_write_file(dst, buf, (size_t)st.st_size) < 0)
        snprintf(err, errlen, "cannot write %s (%s): is the work folder writable?", dst,
                 strerror(errno));
    else
        rc = 0;
    free(buf);
    close(fd);
    return rc;
}
