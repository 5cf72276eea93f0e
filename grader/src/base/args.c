/* The option checks every command runs first (args.h): numbers, durations, paths. A refusal
 * is one line that names the option, what it was given, and what to give instead. */
#include "args.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEEK_S (7 * 24 * 3600L)

/* Contract in args.h. */
int cml_arg_refuse(const char *cmd, const char *err)
{
    fprintf(stderr, "cml-grade%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", err);
    return CML_EXIT_USAGE;
}

/* Contract in args.h. */
int cml_arg_int(const char *opt, const char *text, long min, long max, long *v, char *err,
                size_t len)
{
    char *end = NULL;
    errno = 0;
    long x = text && text[0] >= '0' && text[0] <= '9' ? strtol(text, &end, 10) : -1;
    if (!end || *end || errno || x < min || x > max) {
        snprintf(err, len, "%s '%s' is not a whole number from %ld to %ld: give one in that "
                 "range", opt, text ? text : "", min, max);
        return -1;
    }
    *v = x;
    return 0;
}

/* Contract in args.h. */
int cml_arg_u64(const char *opt, const char *text, uint64_t *v, char *err, size_t len)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = text && text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 0)
                                                                     : 0;
    if (!end || *end || errno) {
        snprintf(err, len, "%s '%s' is not a whole number from 0 to 18446744073709551615: "
                 "give the seed an earlier grading printed", opt, text ? text : "");
        return -1;
    }
    *v = x;
    return 0;
}

/* Contract in args.h. */
int cml_arg_real(const char *opt, const char *text, double above, double max, double *v,
                 char *err, size_t len)
{
    char *end = NULL;
    double x = text && text[0] ? strtod(text, &end) : 0;
    if (!end || *end || !(x > above && x <= max)) {
        snprintf(err, len, "%s '%s' is not a number above %g and at most %g: give one in "
                 "that range", opt, text ? text : "", above, max);
        return -1;
    }
    *v = x;
    return 0;
}

/* Contract in args.h. */
int cml_arg_duration(const char *opt, const char *text, double *seconds, char *err,
                     size_t len)
{
    char *end = NULL;
    long n = -1, unit = 0;
    errno = 0;
    if (text && text[0] >= '0' && text[0] <= '9')
        n = strtol(text, &end, 10);
    if (end && errno == 0)
        unit = !*end || !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60
               : !strcmp(end, "h") ? 3600 : 0;
    if (unit == 0 || n <= 0 || n > WEEK_S / unit) {
        snprintf(err, len, "%s '%s' is not a duration: give whole seconds (90 or 90s), "
                 "minutes (10m) or hours (1h), more than 0 and at most a week", opt,
                 text ? text : "");
        return -1;
    }
    *seconds = (double)(n * unit);
    return 0;
}

/* Contract in args.h. */
void cml_duration_text(double seconds, char *buf, size_t len)
{
    long s = (long)(seconds + 0.5);
    if (s > 0 && s % 3600 == 0)
        snprintf(buf, len, "%ldh", s / 3600);
    else if (s > 0 && s % 60 == 0)
        snprintf(buf, len, "%ldm", s / 60);
    else
        snprintf(buf, len, "%lds", s);
}

/* stat(path) with a refusal for a missing or unreachable path; 0 when it exists. */
static int exists(const char *opt, const char *path, const char *want, struct stat *st,
                  char *err, size_t len)
{
    if (!path || !path[0]) {
        snprintf(err, len, "%s is empty: give %s", opt, want);
        return -1;
    }
    if (stat(path, st) == 0)
        return 0;
    snprintf(err, len, "%s '%s': %s: give %s", opt, path,
             errno == ENOENT ? "no such file or folder (a typo?)" : strerror(errno), want);
    return -1;
}

/* Contract in args.h. */
int cml_arg_dir(const char *opt, const char *path, char *err, size_t len)
{
    struct stat st;
    if (exists(opt, path, "an existing folder", &st, err, len) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s '%s' is a file, not a folder: give a folder", opt, path);
        return -1;
    }
    if (access(path, R_OK | X_OK) != 0) {
        snprintf(err, len, "%s '%s': this user cannot read that folder: fix its permissions "
                 "or give another", opt, path);
        return -1;
    }
    return 0;
}

/* Contract in args.h. */
int cml_arg_file(const char *opt, const char *path, char *err, size_t len)
{
    struct stat st;
    if (exists(opt, path, "an existing file", &st, err, len) < 0)
        return -1;
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s '%s' is not a regular file: give a file", opt, path);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        snprintf(err, len, "%s '%s': this user cannot read that file: fix its permissions",
                 opt, path);
        return -1;
    }
    return 0;
}

/* Contract in args.h. */
int cml_is_archive_name(const char *name)
{
    static const char *const suffix[] = { ".zip", ".tar", ".tar.gz", ".tgz" };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        size_t k = strlen(suffix[i]);
        if (n > k && strcasecmp(name + n - k, suffix[i]) == 0)
            return 1;
    }
    return 0;
}

/* Contract in args.h. */
int cml_arg_submission(const char *opt, const char *path, char *err, size_t len)
{
    static const char want[] = "the student's folder or archive (.zip, .tar, .tar.gz, .tgz)";
    struct stat st;
    if (exists(opt, path, want, &st, err, len) < 0)
        return -1;
    if (S_ISDIR(st.st_mode))
        return cml_arg_dir(opt, path, err, len);
    if (!S_ISREG(st.st_mode) || !cml_is_archive_name(path)) {
        snprintf(err, len, "%s '%s' is neither a folder nor an archive: give %s", opt, path,
                 want);
        return -1;
    }
    return cml_arg_file(opt, path, err, len);
}

/* Contract in args.h. */
int cml_arg_out(const char *opt, const char *path, char *err, size_t len)
{
    char up[CML_PATH];
    struct stat st;
    if (!path || !path[0] || cml_fmt(up, sizeof up, "%s", path) < 0) {
        snprintf(err, len, "%s is empty or too long: give a folder to write into", opt);
        return -1;
    }
    if (stat(up, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s '%s' is an existing file: give a folder (it is created when "
                 "missing)", opt, path);
        return -1;
    }
    /* the nearest part of the path that exists is where the folders will be made */
    while (stat(up, &st) != 0 && errno == ENOENT) {
        char *slash = strrchr(up, '/');
        if (!slash)
            snprintf(up, sizeof up, ".");
        else
            slash == up ? (void)(slash[1] = '\0') : (void)(*slash = '\0');
    }
    if (!S_ISDIR(st.st_mode) || access(up, W_OK | X_OK) != 0) {
        snprintf(err, len, "%s '%s': cannot write into '%s' (%s): give a folder this user "
                 "can write", opt, path, up, S_ISDIR(st.st_mode) ? "no permission"
                 : "a file is in the way");
        return -1;
    }
    return 0;
}

/* path's real path into buf, where only a leading part of it exists (an --out not made yet):
 * the real path of that part with the rest appended. 0, or -1. */
static int planned_real(const char *path, char *buf, size_t len)
{
    char full[CML_PATH], head[CML_PATH], cwd[CML_PATH];
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        return -1;
    if (cml_fmt(full, sizeof full, "%s%s%s", path[0] == '/' ? "" : cwd,
                path[0] == '/' ? "" : "/", path) < 0)
        return -1;
    memcpy(head, full, sizeof head);
    for (;;) { /* "/" always resolves, so this ends */
        char *real = realpath(head[0] ? head : "/", NULL);
        if (real) {
            int rc = cml_fmt(buf, len, "%s%s", strcmp(real, "/") ? real : "",
                             full + strlen(head));
            free(real);
            return rc;
        }
        char *slash = strrchr(head, '/');
        if (errno != ENOENT || !slash)
            return -1;
        *slash = '\0';
    }
}

/* Whether folder a is b or inside it (both real paths). */
static int within(const char *a, const char *b)
{
    size_t n = strlen(b);
    return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' || n <= 1);
}

/* Contract in args.h. */
int cml_arg_apart(const char *out_opt, const char *out, const char *in_opt, const char *in,
                  char *err, size_t len)
{
    char o[CML_PATH], i[CML_PATH];
    if (planned_real(out, o, sizeof o) < 0 || planned_real(in, i, sizeof i) < 0)
        return 0; /* a path that cannot be resolved is refused by its own check */
    if (within(o, i)) {
        snprintf(err, len, "%s '%s' is %s %s '%s': its files would be graded as a student; "
                 "choose an %s outside it", out_opt, out, strcmp(o, i) ? "inside" : "the same "
                 "folder as", in_opt, in, out_opt);
        return -1;
    }
    if (within(i, o)) {
        snprintf(err, len, "%s '%s' is inside %s '%s': the output would mix with the "
                 "submissions; choose an %s outside it", in_opt, in, out_opt, out, out_opt);
        return -1;
    }
    return 0;
}

/* Contract in args.h. */
int cml_arg_gpus(const char *opt, const char *text, int *gpus, int max, int *n, char *err,
                 size_t len)
{
    char copy[256], *save = NULL, why[256];
    *n = 0;
    if (!text || !text[0] || cml_fmt(copy, sizeof copy, "%s", text) < 0 ||
        text[strlen(text) - 1] == ',' || text[0] == ',' || strstr(text, ",,")) {
        snprintf(err, len, "%s '%s' is not a list of GPU indexes: give them as 0 or 0,1,3",
                 opt, text ? text : "");
        return -1;
    }
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (cml_arg_int(opt, t, 0, 63, &v, why, sizeof why) < 0) {
            snprintf(err, len, "%s '%s': '%.60s' is not a GPU index (a whole number from 0 to "
                     "63): give them as 0 or 0,1,3", opt, text, t);
            return -1;
        }
        for (int k = 0; k < *n; k++)
            if (gpus[k] == v) {
                snprintf(err, len, "%s '%s' names GPU %ld twice: name each GPU once", opt, text,
                         v);
                return -1;
            }
        if (*n == max) {
            snprintf(err, len, "%s '%s' names more than %d GPUs: name at most %d", opt, text,
                     max, max);
            return -1;
        }
        gpus[(*n)++] = (int)v;
    }
    return 0;
}
