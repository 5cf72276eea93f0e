/* Build: compile a staged lab folder with nvcc, as docs/ARCHITECTURE.md says: each student
 * file alone (nvcc -c, its object checked by the link rules, linkrules.h), the harness and the
 * harness library (CML_COMMON_SOURCES) meanwhile in a thread, then one link with the harness
 * objects first.
 * Reference builds are cached by a hash of sources, flags, link rules and nvcc. */
#include "build.h"
#include "evidence.h"
#include "linkrules.h"
#include "stage.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS (20 + 2 * CML_MAX_FILES + CML_NCOMMON)

/* nvcc's arguments for b (borrowed strings; arch and inc are the caller's buffers). -I
 * labs/<lab> (1_stage/stage.c) lets a file that names the lab's headers by their place in the
 * repository (`../../common/cml_lab.h`, `../04_float4/vectorized.h`) build as it did there. */
static int lab_args(const cml_build *b, char *arch, size_t archlen, char *inc, size_t inclen,
                    char **args)
{
    int n = 0;
    snprintf(arch, archlen, "-arch=sm_%d", b->cc);
    snprintf(inc, inclen, "labs/%s", b->spec->lab);
    const char *fixed[] = { CML_NVCC_LANG, arch, "-I", "common", "-I", inc };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        args[n++] = (char *)fixed[i];
    if (b->host_flag) { /* before -o: every compile step takes what comes before it */
        args[n++] = "-Xcompiler";
        args[n++] = (char *)b->host_flag;
    }
    args[n++] = "-o";
    args[n++] = "lab";
    for (int i = 0; i < b->spec->nharness; i++)
        if (cml_is_cu(b->spec->harness[i]))
            args[n++] = (char *)b->spec->harness[i];
    for (int i = 0; i < b->spec->nfiles; i++)
        if (cml_is_cu(b->spec->files[i]))
            args[n++] = (char *)b->spec->files[i];
    for (int i = 0; i < CML_NCOMMON; i++)
        args[n++] = (char *)CML_COMMON_SOURCES[i];
    if (b->werror) {
        const char *strict[] = { "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra" };
        for (size_t i = 0; i < sizeof strict / sizeof strict[0]; i++)
            args[n++] = (char *)strict[i];
    }
    args[n] = NULL;
    return n;
}

/* Add text to the end of the build log. */
static void append(char **log, const char *text)
{
    char *joined = NULL;
    if (asprintf(&joined, "%s%s", *log ? *log : "", text) >= 0) {
        free(*log);
        *log = joined;
    }
}

/* nvcc with the compile flags of args (everything before "-o"), then `extra`; the output is
 * appended to *log. 0 when nvcc succeeded. */
static int nvcc_step(const cml_build *b, char *const *args, char *const *extra, char **log)
{
    char *argv[MAX_ARGS + 16], *out = NULL;
    int n = 0;
    for (int i = 0; args[i] && strcmp(args[i], "-o") != 0; i++)
        argv[n++] = args[i];
    for (int i = 0; extra[i] && n < MAX_ARGS + 15; i++)
        argv[n++] = extra[i];
    for (int i = 0; args[i]; i++) /* -Werror and friends come after the files */
        if (strcmp(args[i], "-Werror") == 0) {
            for (; args[i] && n < MAX_ARGS + 15; i++)
                argv[n++] = args[i];
            break; /* args[i] is the terminator (or the array is full): stop here */
        }
    argv[n] = NULL;
    double limit = b->timeout_s > 0 ? b->timeout_s : CML_BUILD_TIMEOUT_S;
    int rc = cml_nvcc(argv, b->dir, 1, limit, &out);
    if (out && *out)
        append(log, out);
    free(out);
    return rc;
}

/* The link rules' report goes first in the log, so a violation is the first thing read. */
static void prepend(char **log, char *first)
{
    char *joined = NULL;
    if (first && asprintf(&joined, "%s%s", first, *log ? *log : "") >= 0) {
        free(*log);
        *log = joined;
    }
    free(first);
}

/* The copy of student object o that is linked, when the link rules' edits touch it:
 * "<base>.link.o" into *linked (else *linked stays NULL: o is linked as compiled, and the
 * evidence reads o either way). 0, or -1 with the reason in the log. */
static int link_copy(cml_build *b, const char *edits, const char *o, char **linked)
{
    char why[400], line[500];
    if (asprintf(linked, "%.*s.link.o", (int)strlen(o) - 2, o) < 0) {
        *linked = NULL;
        return -1;
    }
    int rc = cml_link_apply(edits, b->dir, o, *linked, why, sizeof why);
    if (rc < 0) {
        snprintf(line, sizeof line, "grader error: %s\n", why);
        append(&b->log, line);
    }
    if (rc <= 0) {
        free(*linked);
        *linked = NULL;
    }
    return rc < 0 ? -1 : 0;
}

/* The harness and library objects of a build: compiled (or copied) beside the student's files,
 * by a thread of their own, since they never depend on them. Each build's longest chain was
 * student compile, then harness compile, then link; a harness compile takes about 1.4 s of
 * nvcc on the development machine (0.4 s of it --extended-lambda's). */
typedef struct {
    const cml_build *b;
    char *const *args;
    char *objs[CML_MAX_FILES + CML_NCOMMON]; /* malloc'd */
    int n, rc;
    char *log; /* their compiler output, appended after the student's */
} pristine_job;

/* The harness object o (relative to b->dir) in b's object cache: its path there into cached;
 * 1 when it is there, unchanged since it was kept (cml_cache_lookup), and copied into b->dir. */
static int harness_cached(const pristine_job *j, const char *o, char *cached, size_t len)
{
    const cml_build *b = j->b;
    char key[96], to[CML_PATH], err[256];
    snprintf(key, sizeof key, "%s-sm%d-harness", b->spec->lab, b->cc);
    return cml_cache_lookup(b->object_cache, key, cml_build_hash(b, j->args, 0), o, cached,
                            len) &&
           cml_fmt(to, sizeof to, "%s/%s", b->dir, o) == 0 &&
           cml_copy_file(cached, to, (size_t)64 << 20, err, sizeof err) == 0;
}

static void *compile_pristine(void *arg)
{
    pristine_job *j = arg;
    const cml_build *b = j->b;
    for (int i = 0, nh = b->spec->nharness; i < nh + CML_NCOMMON && j->rc == 0; i++) {
        char *cu = (char *)(i < nh ? b->spec->harness[i] : CML_COMMON_SOURCES[i - nh]);
        if (i < nh && !cml_is_cu(cu)) /* the harness list names its headers too */
            continue;
        char *o = j->objs[j->n++] = cml_object_of(cu), cached[CML_PATH] = "", built[CML_PATH];
        if (o && i >= nh && !b->werror && cml_common_copy(b->common, b->dir, o) == 0)
            continue; /* compiled once for every build of this grading */
        if (o && i < nh && b->object_cache && harness_cached(j, o, cached, sizeof cached))
            continue; /* compiled by an earlier build of this lab, side and compiler */
        char *const step[] = { "-c", cu, "-o", o, NULL };
        j->rc = o ? nvcc_step(b, j->args, step, &j->log) : -1;
        /* kept from reference builds only: a student's build folder is also written by the
           compile of the student's file, and what is kept is linked into every later build */
        if (j->rc == 0 && cached[0] && b->cache_dir &&
            cml_fmt(built, sizeof built, "%s/%s", b->dir, o) == 0)
            cml_cache_store(built, cached); /* no cache: the next build compiles it again */
    }
    return NULL;
}

/* Compile every student file to an object (kept files under kept/), check it against the link
 * rules, compile the harness and common objects meanwhile, and link them harness first. 0 on
 * success. */
static int compile_check_link(cml_build *b, char *const *args)
{
    char *student[CML_MAX_FILES], **pristine;
    char *objs[2 * CML_MAX_FILES + CML_NCOMMON + 3];
    char kept[CML_PATH];
    int ns = 0, np, rc = 0;
    pristine_job pj = { .b = b, .args = args };
    pthread_t tid;
    int threaded = pthread_create(&tid, NULL, compile_pristine, &pj) == 0;
    if (cml_fmt(kept, sizeof kept, "%s/kept", b->dir) < 0 || cml_mkdirs(kept) < 0)
        rc = -1;
    for (int i = 0; i < b->spec->nfiles && rc == 0; i++)
        if (cml_is_cu(b->spec->files[i])) {
            char *cu = (char *)b->spec->files[i], *o = student[ns++] = cml_object_of(cu);
            char *const step[] = { "-c", cu, "-o", o, "--keep", "--keep-dir", "kept", NULL };
            rc = o ? nvcc_step(b, args, step, &b->log) : -1;
            char *said = rc ? cml_include_refusals(b->log) : NULL; /* the student's words */
            if (said) {
                free(b->log);
                b->log = said;
            }
        }
    if (threaded)
        pthread_join(tid, NULL);
    else
        compile_pristine(&pj);
    if (pj.log)
        append(&b->log, pj.log);
    free(pj.log);
    pristine = pj.objs;
    np = pj.n;
    rc = rc ? rc : pj.rc;
    char *cus[CML_MAX_FILES], *linked[CML_MAX_FILES] = { 0 };
    for (int i = 0, k = 0; i < b->spec->nfiles; i++)
        if (cml_is_cu(b->spec->files[i]))
            cus[k++] = (char *)b->spec->files[i];
    cml_link_outcome lo = { 0 };
    int verdict = rc == 0 ? cml_link_check(&b->spec->link, b->dir, cus, ns, pristine, np,
                                           "kept", &lo) : CML_LINK_PASSED;
    rc = verdict == CML_LINK_VIOLATED ? -1 : rc;
    prepend(&b->log, lo.report);
    lo.report = NULL;
    for (int i = 0; i < ns && rc == 0; i++) /* the linked copies: refused calls trapped */
        rc = link_copy(b, lo.edits, student[i], &linked[i]);
    if (verdict == CML_LINK_SOME_API) {
        b->refused = lo.by_api;
        lo.by_api = NULL;
    }
    cml_link_outcome_free(&lo);
    int n = 0;
    objs[n++] = "-o";
    objs[n++] = "lab";
    for (int i = 0; i < np; i++)
        objs[n++] = pristine[i];
    for (int i = 0; i < ns; i++)
        objs[n++] = linked[i] ? linked[i] : student[i];
    objs[n] = NULL;
    if (rc == 0)
        rc = nvcc_step(b, args, objs, &b->log);
    for (int i = 0; i < ns; i++)
        free(student[i]), free(linked[i]);
    for (int i = 0; i < np; i++)
        free(pristine[i]);
    return rc;
}

/* The technique evidence of a student build (evidence.h); a build without it fails, so that
 * no check ever falls back to files made after the lab ran. */
static int collect_evidence(cml_build *b)
{
    char why[512], line[700];
    if (cml_evidence_collect(b->spec, b->dir, b->cc, b->ev_dir, sizeof b->ev_dir, b->ev_digest,
                             why, sizeof why) == 0)
        return 0;
    if (strncmp(why, "link rule: ", 11) == 0) /* the student's own doing: say it as such */
        snprintf(line, sizeof line, "%s\n", why);
    else
        snprintf(line, sizeof line, "grader error: cannot collect the technique evidence: %s\n",
                 why);
    append(&b->log, line);
    return -1;
}

/* Contract in build.h. */
int cml_build_lab(cml_build *b)
{
    char arch[32], inc[80], *args[MAX_ARGS], key[96], built[CML_PATH];
    double t0 = cml_now();
    b->ok = b->cached = 0;
    b->log = b->refused = NULL;
    b->bin_sha[0] = b->ev_dir[0] = b->ev_digest[0] = '\0';
    lab_args(b, arch, sizeof arch, inc, sizeof inc, args);
    uint64_t h = b->cache_dir ? cml_build_hash(b, args, 1) : 0;
    snprintf(key, sizeof key, "%s-sm%d", b->spec->lab, b->cc);
    int hit = b->cache_dir && cml_cache_lookup(b->cache_dir, key, h, "lab", b->bin,
                                               sizeof b->bin);
    int lock = b->cache_dir && !hit ? cml_cache_lock(b->cache_dir, key, h) : -1;
    if (lock >= 0) /* another build of it may have stored it while this one waited */
        hit = cml_cache_lookup(b->cache_dir, key, h, "lab", b->bin, sizeof b->bin);
    if (hit) {
        b->ok = b->cached = 1;
    } else if (cml_fmt(built, sizeof built, "%s/lab", b->dir) < 0) {
        b->log = strdup("build folder path too long: use a shorter --out");
    } else {
        b->ok = compile_check_link(b, args) == 0 && access(built, X_OK) == 0;
        snprintf(b->bin, sizeof b->bin, "%s", built);
        if (b->ok && b->evidence) /* before any run: the student's code cannot touch it yet */
            b->ok = collect_evidence(b) == 0;
        if (b->ok && b->cache_dir &&
            cml_cache_lookup(b->cache_dir, key, h, "lab", b->bin, sizeof b->bin) == 0 &&
            cml_cache_store(built, b->bin) < 0)
            snprintf(b->bin, sizeof b->bin, "%s", built); /* no cache: still usable */
    }
    if (lock >= 0)
        close(lock);
    if (b->ok && cml_sha256_file(b->bin, b->bin_sha) < 0) {
        b->ok = 0;
        append(&b->log, "grader error: cannot read back the built binary\n");
    }
    b->wall_s = cml_now() - t0;
    return b->ok;
}

static void build_one(void *b, int i)
{
    /* CML_BUILD_NICE=N (a batch sets 10): this thread's compilers yield the CPU to the lab
     * another grading is timing meanwhile (Linux nice is per thread, and inherited) */
    const char *nice = getenv("CML_BUILD_NICE");
    if (nice && atoi(nice) > 0)
        setpriority(PRIO_PROCESS, (id_t)gettid(), atoi(nice));
    cml_build_lab(((cml_build *const *)b)[i]);
}

/* Contract in build.h. */
void cml_build_all(cml_build *const *b, int n, int max_parallel)
{
    cml_parallel(n, max_parallel > 0 ? max_parallel : cml_ncpus(), build_one, (void *)b);
}

/* Contract in build.h. */
void cml_build_free(cml_build *b)
{
    free(b->log);
    free(b->refused);
    b->log = b->refused = NULL;
}
