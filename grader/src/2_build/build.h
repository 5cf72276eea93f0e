/* Build: nvcc on a staged folder, with a timeout and a capped log; cached reference builds;
 * several builds at once (one child each); PTX for technique checks. */
#ifndef CML_BUILD_H
#define CML_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "cml.h"
#include "sha256.h"
#include "util.h"

#define CML_BUILD_TIMEOUT_S 180.0
#define CML_BUILD_LOG_CAP (64u << 10)

/* The harness library: the sources of common/ compiled into every lab binary beside its harness
 * (every .cu and .cpp of common/ but probe.cu, as the Makefile takes them; tests/test_build.c
 * checks that the two agree). The one list the grader and its tests use. */
#define CML_NCOMMON 10
/* nvcc's language and code flags for every lab build: the student's files, the harness and the
 * library. --extended-lambda and --expt-relaxed-constexpr accept ordinary CUDA C++ (a
 * `__device__` lambda handed to a template kernel, std::min in a kernel) that is otherwise a
 * compile error, and a whole lab's build-error. NVTX_DISABLE: `#include <cub/cub.cuh>` pulls
 * in NVTX's inline loader (dlopen, dlsym), which no API function reaches, so the link rules
 * failed the whole lab's build for an include; with it NVTX's calls compile to nothing. The
 * Makefile's NVCC_FLAGS hold the same (tests/test_build.c). */
#define CML_NVCC_LANG "-O3", "-std=c++17", "--extended-lambda", "--expt-relaxed-constexpr", \
                      "-lineinfo", "-DNVTX_DISABLE"
extern const char *const CML_COMMON_SOURCES[CML_NCOMMON];

/* One lab binary to build from a staged folder (see stage.h). */
typedef struct {
    const cml_lab_spec *spec;
    char dir[CML_PATH];     /* the staged folder; the binary is built there as `lab` */
    int cc;                 /* compute capability: 90 builds -arch=sm_90 */
    int werror;             /* nvcc and host-compiler warnings are errors (make check) */
    struct cml_common *common; /* the library's objects for this cc (cml_build_common), copied
                                  instead of compiled when present; NULL: compile them here */
    const char *cache_dir;  /* reuse or keep the binary under <cache_dir>/<lab>-sm<cc>-<hash>/;
                               NULL: no cache (student builds) */
    const char *object_cache; /* reuse the harness's objects under <object_cache>/
                                 <lab>-sm<cc>-harness-<hash>/ (hashed without spec->files),
                                 and keep them there when cache_dir is set too (reference
                                 builds: no student process writes their folder); NULL:
                                 compile them in every build */
    double timeout_s;       /* 0: CML_BUILD_TIMEOUT_S */
    int evidence;           /* collect the technique evidence (evidence.h): student builds */
    const char *host_flag;  /* one more option for the host compiler (part of the cache key);
                               NULL: none. The tests build with -fcf-protection=full as the GPU
                               machines' g++ 13 does by default, where objects differ */
    /* filled by cml_build_lab */
    int ok, cached;
    char bin[CML_PATH];     /* the binary to run */
    char bin_sha[CML_SHA256_HEX]; /* its SHA-256 when built: every run checks its copy */
    char ev_dir[CML_PATH];  /* with evidence: the evidence folder and its digest */
    char ev_digest[CML_SHA256_HEX];
    char *log;              /* compiler output (capped) and why it failed; malloc'd or NULL */
    char *refused;          /* built, but link rules broken in code some API functions reach:
                               "<api function> <link rule line>" lines (linkrules.h); the
                               tasks that call those functions are build errors; malloc'd */
    double wall_s;
} cml_build;

/* nvcc's path: $NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc. 0 on success; -1 with
 * a message that says how to point the grader at nvcc. */
int cml_find_nvcc(char *path, size_t len, char *err, size_t errlen);

/* The compute capability to compile for when no GPU was probed: $CUDA_ARCH, else 90. */
int cml_default_cc(void);

/* "13.0.88" from `nvcc --version`, or "unknown". */
void cml_nvcc_version(char *buf, size_t len);

/* Run nvcc with args (NULL-terminated, without argv[0]) in cwd. `confined` (a lab build, on
 * student text or beside it): cwd is its build folder, and it runs in the build's sandbox
 * (cml_run_build: the toolkit, the system and that folder only, a memory and a CPU-time cap);
 * else (the grader's own files: the probe, the harness library) as it is. 0 when it exited 0;
 * -1 otherwise. *log gets its output (capped) plus why it failed; free it. */
int cml_nvcc(char *const args[], const char *cwd, int confined, double timeout_s, char **log);

/* The harness library (CML_COMMON_SOURCES, pristine, from root/common) compiled once per
 * grading for sm_cc, with the flags every lab build uses without -Werror, into
 * out_dir/<name>.o, every file at once, while the builds compile their own files. A build
 * waits for it only when it reaches the library, then copies the objects instead of compiling
 * them: 14 builds of seven files became one. A file that failed is missing (the build then
 * compiles it itself). Start it, give it to the builds, wait for it before freeing it. */
struct cml_common *cml_build_common_start(const char *root, int cc, const char *out_dir);
void cml_build_common_finish(struct cml_common *c);

/* Copy the library's object for `obj` (a path like "common/cml_gpu.o") to dir/obj, waiting
 * for the compile first. 0 when copied; -1 (c NULL, or that file failed) when the build must
 * compile it itself. Only for builds with the same flags (not -Werror). */
int cml_common_copy(struct cml_common *c, const char *dir, const char *obj);

/* "<base>.o" for a .cu or .cpp path (a fresh string); NULL when out of memory. */
char *cml_object_of(const char *cu);

/* Build b's lab binary (see cml_build). Returns b->ok. Thread-safe. */
int cml_build_lab(cml_build *b);

/* Build the n labs b[0..n-1] points at, up to max_parallel at once (0: one per CPU). */
void cml_build_all(cml_build *const *b, int n, int max_parallel);

/* Free b->log. */
void cml_build_free(cml_build *b);

/* The build cache: <cache_dir>/<name>-<16 hex digits of hash>/<file> into path; 1 when that
 * file already exists (executable) and its bytes still have the SHA-256 cml_cache_store wrote
 * beside it (<file>.sha256), 0 when not yet, or when it changed since (it is then built again). */
int cml_cache_lookup(const char *cache_dir, const char *name, uint64_t hash, const char *file,
                     char *path, size_t len);

/* Wait until no other build (thread or process) holds cache entry <name>-<hash>, then hold
 * it: builds of one entry take turns, so that the ones after the first find what it stored
 * instead of building it again. The descriptor to close when the binary is stored (or the
 * build failed); -1 when the lock cannot be had (the build goes on alone). */
int cml_cache_lock(const char *cache_dir, const char *name, uint64_t hash);

/* The cache key of build b with nvcc arguments args: nvcc (path, size, time), the arguments,
 * the link rules, and every source in the staged folder; the lab's own files (spec->files: the
 * student's, or the solution's on the reference side) only when student_files, since a harness
 * object never includes them. */
uint64_t cml_build_hash(const cml_build *b, char *const *args, int student_files);

/* Copy `built` to the cache path atomically (temporary name, then rename), its SHA-256 beside
 * it. 0 on success. */
int cml_cache_store(const char *built, const char *cached);

/* Hash of a file's contents continuing from h; also hashes the name. */
uint64_t cml_hash_file(uint64_t h, const char *path);

#endif /* CML_BUILD_H */
