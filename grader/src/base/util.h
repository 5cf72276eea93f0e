/* Small helpers the pipeline's steps share: clocks, whole-file reads and writes, folders,
 * hashing and finding the repository root. No policy lives here. */
#ifndef CML_UTIL_H
#define CML_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define CML_PATH 4096

/* Seconds on a monotonic clock (for durations only). */
double cml_now(void);

/* snprintf into buf; -1 (errno ENAMETOOLONG) when the result does not fit. */
int cml_fmt(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append a formatted text to the malloc'd string *buf of length *len (both updated; *buf may
 * start NULL). -1 when out of memory (then *buf is unchanged). */
int cml_appendf(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The whole file as a malloc'd NUL-terminated string of at most `max` bytes (the rest is
 * ignored); *len gets the length when len is non-NULL. NULL with errno set on failure. */
char *cml_read_text(const char *path, size_t max, size_t *len);

/* Create (or truncate) `path` and write `len` bytes. 0 on success, -1 with errno. */
int cml_write_file(const char *path, const void *data, size_t len);

/* mkdir -p with mode 0755. 0 on success (also when it exists), -1 with errno. */
int cml_mkdirs(const char *path);

/* rm -rf without following symbolic links. 0 on success or when absent, -1 with errno. */
int cml_rmtree(const char *path);

/* FNV-1a 64-bit over n bytes, continuing from h (start with CML_FNV_INIT). */
#define CML_FNV_INIT 0xcbf29ce484222325ull
uint64_t cml_fnv1a(uint64_t h, const void *p, size_t n);

/* Room for element n of an array of sz-byte elements that grows 256 at a time: arr itself, or
 * arr reallocated (NULL at n == 0: a new one). NULL when out of memory, arr then freed. */
void *cml_grow(void *arr, int n, size_t sz);

/* The running program's own path (/proc/self/exe) into buf. 0, or -1 with errno. */
int cml_self_exe(char *buf, size_t len);

/* A file the grader ships beside its own binary: the path $env_var names when set, else
 * `name` (may hold a folder: "trace/libcml-trace.so") in the running program's folder, into
 * buf. 0, or -1. */
int cml_beside_self(const char *env_var, const char *name, char *buf, size_t len);

/* The repository root: two folders above the running executable (build/cml-grade or
 * build/check_tests). 0 on success, -1 with a message in err. */
int cml_find_root(char *buf, size_t len, char *err, size_t errlen);

/* Whether a file name ends in ".cu" (a CUDA source nvcc compiles; headers and .cpp not). */
int cml_is_cu(const char *name);

/* A preprocessor line marker (`# 12 "file"` or `# 12`) at l: *lineno gets the number of the
 * line before the next one, and file the name when the marker has one (else untouched).
 * 1 when l is a marker. */
int cml_line_marker(const char *l, long *lineno, char *file, size_t len);

/* The install folder of a program: two folders above its real path (.../cuda-13.0/bin/ncu ->
 * .../cuda-13.0), or above the path as given when it has no real path. 0; -1 when fewer than
 * two folders lie above it (dir then holds what is left). */
int cml_install_folder(const char *program, char *dir, size_t len);

/* Number of online CPUs, at least 1. */
int cml_ncpus(void);

/* fn(ctx, i) for every i in [0, n), on up to `workers` threads at once (at most 64), each
 * taking the next i when it is done; one after another when no thread can be started.
 * Returns when every call has returned. */
void cml_parallel(int n, int workers, void (*fn)(void *ctx, int i), void *ctx);
/* The three largest values seen, for a progress line of where a phase's time went: item i of
 * value v goes into top (indexes, -1 where none yet) and val, largest first, if it is among them. */
void cml_top3(int top[3], double val[3], int i, double v);

/* find_tool.c: an external tool. $env_var when set (a path, or a name looked up on PATH), else
 * `name` on PATH, else /usr/local/cuda/bin/<name>. 0 with the path; -1 when not found. */
int cml_find_tool(const char *env_var, const char *name, char *path, size_t len);
/* Whether path is a regular file this process may execute. */
int cml_is_executable(const char *path);

/* A whole decimal number into *out: digits only (no sign, no space), at least one, no
 * overflow. 0, or -1 with *out unchanged. */
int cml_parse_u64(const char *s, uint64_t *out);

/* Copy one regular file (never through a symbolic link) of at most max_bytes to dst
 * (copy_file.c). 0 on success; -1 with a message naming src in err. */
int cml_copy_file(const char *src, const char *dst, size_t max_bytes, char *err, size_t errlen);

#endif /* CML_UTIL_H */
