/* Evidence for the technique checks, collected right after the build (see evidence.h). */
#include "evidence.h"
#include "run.h"
#include "sandbox.h"
#include "stage.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SASS_CAP ((size_t)16 << 20)

/* dir/kept/<base of file><suffix>: what nvcc --keep left for one student file. */
static int kept(const char *dir, const char *file, const char *suffix, char *path, size_t len)
{
    const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    return cml_fmt(path, len, "%s/kept/%.*s%s", dir, (int)(strlen(name) - 3), name, suffix);
}

/* ev/<file><ext> from `from` (a copy). */
static int copy_in(const char *from, const char *ev, const char *file, const char *ext,
                   char *why, size_t wlen)
{
    char to[CML_PATH];
    if (cml_fmt(to, sizeof to, "%s/%s%s", ev, file, ext) < 0)
        return snprintf(why, wlen, "evidence path too long"), -1;
    return cml_copy_file(from, to, (size_t)64 << 20, why, wlen);
}

/* ev/<file>.sass: cuobjdump -sass of the kept cubin; or ev/<file>.sass.err with why not. */
static int sass_of(const char *dir, const char *file, int cc, const char *ev)
{
    char cubin[CML_PATH], tool[CML_PATH], path[CML_PATH], suffix[32], why[400] = "";
    cml_proc_result r = {0};
    snprintf(suffix, sizeof suffix, ".sm_%d.cubin", cc);
    if (kept(dir, file, suffix, cubin, sizeof cubin) < 0)
        snprintf(why, sizeof why, "cubin path too long");
    else if (cml_find_tool("CML_CUOBJDUMP", "cuobjdump", tool, sizeof tool) != 0)
        snprintf(why, sizeof why, "cuobjdump not found");
    else {
        char *const argv[] = { tool, "-sass", cubin, NULL };
        cml_run(argv, NULL, NULL, -1, 60, SASS_CAP, &r);
        if (!r.exited || r.exit_code != 0 || !r.output)
            snprintf(why, sizeof why, "cuobjdump -sass failed: %.300s",
                     r.output ? r.output : "no output");
    }
    int rc = -1;
    if (!why[0] && cml_fmt(path, sizeof path, "%s/%s.sass", ev, file) == 0)
        rc = cml_write_file(path, r.output, r.output_len);
    else if (cml_fmt(path, sizeof path, "%s/%s.sass.err", ev, file) == 0)
        rc = cml_write_file(path, why, strlen(why));
    cml_proc_result_free(&r);
    return rc;
}

/* Every file the preprocessor read for one student file, from the line markers of its
 * preprocessed text (# <line> "<path>"), must lie in the staged folder or outside the grader's
 * protected folders: an #include of a solution, a cached build or another submission reads it
 * into the student's object at compile time, before any sandbox could refuse it. */
static int includes_allowed(const char *dir, const char *ii, const char *file, char *why,
                            size_t wlen)
{
    char *text = cml_read_text(ii, (size_t)256 << 20, NULL), *staged = realpath(dir, NULL);
    int rc = text && staged ? 0 : -1;
    if (rc < 0)
        snprintf(why, wlen, "cannot read the preprocessed text of %.200s", file);
    for (const char *p = text; rc == 0 && p && *p;
         p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char name[CML_PATH] = "", path[CML_PATH], *real;
        long lineno;
        if (!cml_line_marker(p, &lineno, name, sizeof name) || !name[0] || name[0] == '<' ||
            cml_fmt(path, sizeof path, "%s%s%s", name[0] == '/' ? "" : dir,
                    name[0] == '/' ? "" : "/", name) < 0 || !(real = realpath(path, NULL)))
            continue; /* no file named; <built-in>, <command-line> */
        const char *grader = cml_sandbox_protected(real);
        size_t n = strlen(staged);
        int in_staged = strncmp(real, staged, n) == 0 && (real[n] == '/' || !real[n]);
        if (grader && !in_staged) {
            snprintf(why, wlen, "link rule: %.100s includes %.300s, which lies in the grader's "
                     "files (%.200s): include only your lab's files, common/ and system "
                     "headers (rule: include)", file, real, grader);
            rc = -1;
        }
        free(real);
    }
    free(text);
    free(staged);
    return rc;
}

/* Contract in evidence.h. */
char *cml_include_refusals(const char *log)
{
    static const char DENIED[] = ": Permission denied", MISSING[] = ": No such file or directory";
    char *out = NULL;
    size_t len = 0;
    for (const char *l = log ? log : ""; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t n = strcspn(l, "\n");
        const char *fatal = memmem(l, n, ": fatal error: ", 15), *path = fatal + 15;
        size_t d = sizeof DENIED - 1, m = sizeof MISSING - 1;
        const char *colon = fatal ? memchr(l, ':', (size_t)(fatal - l)) : NULL;
        int denied = fatal && n >= d && memcmp(l + n - d, DENIED, d) == 0;
        int missing = fatal && colon && n >= m && memcmp(l + n - m, MISSING, m) == 0;
        if (!denied)
            cml_appendf(&out, &len, "%.*s\n", (int)n, l);
        if (!denied && !missing)
            continue;
        /* "<file>:<line>:<col>: fatal error: <path>: Permission denied" (or "cc1plus: fatal
         * error: ..." where the compiler names no place): the build's sandbox refused to read
         * an #include outside the build folder, the toolkit and the system */
        char where[300] = "";
        if (colon)
            snprintf(where, sizeof where, "%.*s:%ld: ", (int)(colon - l), l,
                     strtol(colon + 1, NULL, 10));
        if (denied)
            cml_appendf(&out, &len, "%s#include of %.*s: a file outside your submission, the "
                        "lab's files, the CUDA toolkit and the system headers: include only "
                        "those (rule: include)\n", where, (int)(l + n - d - path), path);
        else /* a header of the student's own: only the lab's files are staged and built */
            cml_appendf(&out, &len, "%s%.*s was not found: if it is a header of yours, the "
                        "grader builds only your lab's own files (EXERCISE.md, \"What to "
                        "edit\"), not one beside them: put what it holds into %.*s\n", where,
                        (int)(l + n - m - path), path, (int)(colon - l), l);
    }
    return out;
}

/* Contract in evidence.h. */
int cml_evidence_collect(const cml_lab_spec *spec, const char *dir, int cc, char *ev_dir,
                         size_t len, char digest[CML_SHA256_HEX], char *why, size_t wlen)
{
    char path[CML_PATH];
    digest[0] = '\0';
    if (cml_fmt(ev_dir, len, "%s/%s", dir, CML_EVIDENCE_SUBDIR) < 0 || cml_mkdirs(ev_dir) < 0)
        return snprintf(why, wlen, "cannot create the evidence folder in %.300s", dir), -1;
    for (int i = 0; i < spec->nfiles; i++) {
        const char *f = spec->files[i];
        if (cml_fmt(path, sizeof path, "%s/%s", dir, f) < 0 || copy_in(path, ev_dir, f, "", why,
                                                                        wlen) < 0)
            return -1;
        if (!cml_is_cu(f))
            continue;
        if (kept(dir, f, ".ptx", path, sizeof path) < 0 ||
            copy_in(path, ev_dir, f, ".ptx", why, wlen) < 0)
            return -1;
        if (kept(dir, f, ".cpp1.ii", path, sizeof path) < 0 ||
            includes_allowed(dir, path, f, why, wlen) < 0 ||
            copy_in(path, ev_dir, f, ".ii", why, wlen) < 0)
            return -1;
        if (sass_of(dir, f, cc, ev_dir) < 0)
            return snprintf(why, wlen, "cannot write the SASS evidence of %.200s", f), -1;
        if (cml_evidence_launches(dir, f, ev_dir) < 0)
            return snprintf(why, wlen, "cannot write the launch evidence of %.200s", f), -1;
    }
    if (cml_evidence_probes(spec, dir, cc, ev_dir, why, wlen) < 0)
        return -1;
    if (cml_evidence_digest(ev_dir, digest) < 0)
        return snprintf(why, wlen, "cannot read back the evidence in %.300s", ev_dir), -1;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Contract in evidence.h. Names and file digests are hashed in turn, so a renamed file or one
 * moved between names changes the digest too. */
int cml_evidence_digest(const char *ev_dir, char digest[CML_SHA256_HEX])
{
    struct dirent **list = NULL;
    int n = scandir(ev_dir, &list, NULL, by_name), rc = n < 0 ? -1 : 0;
    cml_sha256_ctx c;
    cml_sha256_init(&c);
    for (int i = 0; i < n; i++) {
        char path[CML_PATH], one[CML_SHA256_HEX];
        const char *name = list[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            if (cml_fmt(path, sizeof path, "%s/%s", ev_dir, name) < 0 ||
                cml_sha256_file(path, one) < 0)
                rc = -1;
            cml_sha256_update(&c, name, strlen(name) + 1);
            cml_sha256_update(&c, one, sizeof one);
        }
        free(list[i]);
    }
    free(list);
    digest[0] = '\0';
    if (rc == 0)
        cml_sha256_hex(&c, digest);
    return rc;
}

/* Contract in evidence.h. */
int cml_evidence_unchanged(const char *ev_dir, const char *digest)
{
    char now[CML_SHA256_HEX];
    return ev_dir && digest && digest[0] && cml_evidence_digest(ev_dir, now) == 0 &&
           strcmp(now, digest) == 0;
}
