/* Every lab's skeleton (labs/) and solution (solutions/) compiles through build.c, for sm_90
 * (or $CUDA_ARCH), with nvcc and host-compiler warnings as errors, passes the link rules, and
 * its student files give PTX (for technique checks). Needs nvcc (and binutils), not a GPU. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "evidence.h"
#include "grade.h"
#include "helpers.h"
#include "probe.h"
#include "sandbox.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

static cml_lab_spec specs[CML_MAX_LABS];
static int nspecs;

/* The evidence of a solution build (evidence.h): each .cu file's source, PTX with a kernel,
 * preprocessed text and SASS (or why not), with the digest the build reported. */
static void assert_evidence(const cml_lab_spec *spec, const cml_build *b)
{
    char path[CML_PATH], now[CML_SHA256_HEX];
    for (int f = 0; f < spec->nfiles; f++) {
        const char *exts[] = { "", ".ptx", ".ii" };
        for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
            cml_fmt(path, sizeof path, "%s/%s%s", b->ev_dir, spec->files[f], exts[e]);
            char *text = cml_read_text(path, 1u << 26, NULL);
            ck_assert_msg(text != NULL, "%s: no evidence %s", spec->lab, path);
            ck_assert_msg(e != 1 || strstr(text, ".entry"), "%s: PTX without a kernel",
                          spec->files[f]);
            free(text);
        }
        char err[CML_PATH + 8];
        cml_fmt(path, sizeof path, "%s/%s.sass", b->ev_dir, spec->files[f]);
        cml_fmt(err, sizeof err, "%s.err", path);
        ck_assert_msg(access(path, R_OK) == 0 || access(err, R_OK) == 0, "%s: neither SASS nor "
                      "why not", spec->files[f]);
    }
    ck_assert_msg(strlen(b->ev_digest) == 64 && cml_evidence_digest(b->ev_dir, now) == 0 &&
                  strcmp(now, b->ev_digest) == 0, "%s: digest %s, now %s", spec->lab,
                  b->ev_digest, now);
    ck_assert_msg(strlen(b->bin_sha) == 64, "%s: no SHA-256 of the binary", spec->lab);
}

/* Stage `side` of lab i (skeleton from labs/ or the solution) and build it strictly. */
static void build_strict(int i, enum cml_side side)
{
    char work[64], err[1024], sub[CML_PATH];
    cml_build b = { .spec = &specs[i], .cc = cml_default_cc(), .werror = 1, .timeout_s = 600,
                    .evidence = 1 };
    cml_fmt(sub, sizeof sub, "%s/labs", test_root());
    test_tmpdir(work, sizeof work);
    int staged = cml_stage(test_root(), &specs[i], side, sub, work, b.dir, sizeof b.dir, err,
                           sizeof err);
    ck_assert_msg(staged == 0, "%s: %s", specs[i].lab, err);
    int ok = cml_build_lab(&b);
    ck_assert_msg(ok, "%s (%s) does not compile warning-free for sm_%d:\n%.6000s", specs[i].lab,
                  side == CML_SIDE_STUDENT ? "skeleton" : "solution", b.cc, b.log ? b.log : "");
    ck_assert_msg(!b.log || !strstr(b.log, "link rules not enforced"), "%s: %s", specs[i].lab,
                  b.log); /* it built, and its objects passed the link rules */
    if (side == CML_SIDE_REFERENCE)
        assert_evidence(&specs[i], &b);
    cml_build_free(&b);
    cml_rmtree(work);
}

START_TEST(skeleton_compiles_without_warnings)
{
    build_strict(_i, CML_SIDE_STUDENT);
}
END_TEST

START_TEST(solution_compiles_without_warnings)
{
    build_strict(_i, CML_SIDE_REFERENCE);
}
END_TEST

/* A cached binary is reused only while its bytes have the SHA-256 stored with it: one changed
 * after the build (or cached before sums were kept) is built again, never run. */
START_TEST(cached_binary_changed_after_its_build_is_not_reused)
{
    char work[64], built[CML_PATH], cached[CML_PATH], sum[CML_PATH + 8];
    test_tmpdir(work, sizeof work);
    cml_fmt(built, sizeof built, "%s/lab", work);
    test_write(built, "#!/bin/sh\necho reference\n");
    ck_assert_int_eq(cml_cache_lookup(work, "01_x-sm90", 42, "lab", cached, sizeof cached), 0);
    ck_assert_int_eq(cml_cache_store(built, cached), 0);
    ck_assert_int_eq(cml_cache_lookup(work, "01_x-sm90", 42, "lab", cached, sizeof cached), 1);
    test_write(cached, "#!/bin/sh\necho forged\n");
    chmod(cached, 0755);
    ck_assert_int_eq(cml_cache_lookup(work, "01_x-sm90", 42, "lab", cached, sizeof cached), 0);
    ck_assert_int_eq(cml_cache_store(built, cached), 0); /* built again: reused again */
    ck_assert_int_eq(cml_cache_lookup(work, "01_x-sm90", 42, "lab", cached, sizeof cached), 1);
    cml_fmt(sum, sizeof sum, "%s.sha256", cached);
    unlink(sum);
    ck_assert_int_eq(cml_cache_lookup(work, "01_x-sm90", 42, "lab", cached, sizeof cached), 0);
    cml_rmtree(work);
}
END_TEST

/* Build lab 01's solution with `line` added at its top, evidence collected, the repository
 * protected as the grader protects it. The build (its log in b). */
static void build_with_line(const char *line, cml_build *b, char *work, size_t wlen)
{
    char sub[CML_PATH], err[1024], path[CML_PATH];
    const char *root = test_root();
    cml_sandbox_protect(&root, 1);
    test_tmpdir(work, wlen);
    cml_fmt(sub, sizeof sub, "%s/sub", work);
    cml_mkdirs(sub);
    char *sol = cml_read_text(test_path("solutions/01_coalescing/coalescing.cu"), 1u << 20, NULL);
    char *both = NULL;
    ck_assert(sol && asprintf(&both, "%s\n%s", line, sol) > 0);
    cml_fmt(path, sizeof path, "%s/coalescing.cu", sub);
    test_write(path, both);
    free(sol), free(both);
    *b = (cml_build){ .spec = &specs[0], .cc = cml_default_cc(), .timeout_s = 600,
                      .evidence = 1 };
    ck_assert_msg(cml_stage(test_root(), &specs[0], CML_SIDE_STUDENT, sub, work, b->dir,
                            sizeof b->dir, err, sizeof err) == 0, "%s", err);
    cml_build_lab(b);
}

/* An #include of a file in the grader's tree (a solution, say) reads it into the student's
 * object at compile time: the build fails and names the file. */
START_TEST(include_of_a_grader_file_fails_the_build)
{
    char line[CML_PATH + 32], work[64];
    cml_build b;
    cml_fmt(line, sizeof line, "#include \"%s/common/cml_rand.h\"", test_root());
    build_with_line(line, &b, work, sizeof work);
    ck_assert_msg(!b.ok && b.log && strstr(b.log, "(rule: include)") &&
                  strstr(b.log, "common/cml_rand.h"), "log: %s", b.log ? b.log : "(none)");
    cml_build_free(&b);
    cml_rmtree(work);
}
END_TEST

/* The build's sandbox (cml_run_build): nvcc reads no file outside the build folder, the
 * toolkit and the system's folders. `#include "/dev/zero"` once grew the compiler to 130 GB
 * before the host's OOM killer ended it; now it stops at once, as the include rule. */
START_TEST(include_of_dev_zero_stops_at_once_as_the_include_rule)
{
    char work[64];
    cml_build b;
    build_with_line("#include \"/dev/zero\"", &b, work, sizeof work);
    ck_assert_msg(!b.ok && b.log && strstr(b.log, "coalescing.cu:1: #include of /dev/zero") &&
                  strstr(b.log, "(rule: include)") && b.wall_s < 30,
                  "%.1f s, log: %s", b.wall_s, b.log ? b.log : "(none)");
    cml_build_free(&b);
    cml_rmtree(work);
}
END_TEST

/* A header of the student's own beside the lab's file is not built (the sheets: edit only the
 * lab's file): the compiler's "No such file" comes with what to do, in the student's words. */
START_TEST(include_of_a_missing_header_says_what_to_do)
{
    char work[64];
    cml_build b;
    build_with_line("#include \"my_consts.cuh\"", &b, work, sizeof work);
    ck_assert_msg(!b.ok && b.log && strstr(b.log, "my_consts.cuh: No such file or directory") &&
                  strstr(b.log, "coalescing.cu:1: my_consts.cuh was not found: if it is a "
                                "header of yours") &&
                  strstr(b.log, "put what it holds into coalescing.cu"),
                  "log: %s", b.log ? b.log : "(none)");
    cml_build_free(&b);
    cml_rmtree(work);
}
END_TEST

/* A compiler message that names no place ("cc1plus: fatal error: ...: No such file") keeps
 * the compiler's line and gets no advice: there is no file of the student's to name. */
START_TEST(missing_file_without_a_place_is_passed_through)
{
    char *said = cml_include_refusals("cc1plus: fatal error: gone.cu: No such file or directory\n"
                                      "compilation terminated.\n");
    ck_assert_msg(said && strstr(said, "cc1plus: fatal error: gone.cu: No such file") &&
                  !strstr(said, "put what it holds"), "%s", said ? said : "(null)");
    free(said);
}
END_TEST

/* A failed build quoted a system file into the student's report; the sandbox reads none. */
START_TEST(include_of_a_system_file_quotes_none_of_it)
{
    char work[64], first[256] = "";
    cml_build b;
    FILE *f = fopen("/etc/passwd", "r");
    ck_assert_msg(f && fgets(first, sizeof first, f), "this machine has no /etc/passwd");
    fclose(f);
    first[strcspn(first, "\n")] = '\0';
    build_with_line("#include \"/etc/passwd\"", &b, work, sizeof work);
    ck_assert_msg(!b.ok && b.log && !strstr(b.log, first) && strstr(b.log, "(rule: include)"),
                  "log: %s", b.log ? b.log : "(none)");
    cml_build_free(&b);
    cml_rmtree(work);
}
END_TEST

/* The build's process tree is held to CML_BUILD_MEM resident bytes, and the log says so. */
START_TEST(build_over_its_memory_cap_is_stopped_and_says_so)
{
    char work[64];
    cml_build b;
    setenv("CML_BUILD_MEM", "100M", 1);
    build_with_line("", &b, work, sizeof work);
    unsetenv("CML_BUILD_MEM");
    ck_assert_msg(!b.ok && b.log && strstr(b.log, "used more than 100 MiB of host memory"),
                  "log: %s", b.log ? b.log : "(none)");
    cml_build_free(&b);
    cml_rmtree(work);
}
END_TEST

START_TEST(include_of_the_staged_copy_builds)
{
    char work[64];
    cml_build b;
    build_with_line("#include \"common/cml_rand.h\"", &b, work, sizeof work);
    ck_assert_msg(b.ok, "log: %s", b.log ? b.log : "(none)");
    cml_build_free(&b);
    cml_rmtree(work);
}
END_TEST

START_TEST(every_spec_loads)
{
    char err[512];
    cml_lab_spec *all = calloc(CML_MAX_LABS, sizeof *all);
    int n = cml_load_specs(test_root(), NULL, all, CML_MAX_LABS, err, sizeof err);
    free(all);
    ck_assert_msg(n >= 1, "grader/specs: %s", err);
}
END_TEST

/* Whether CML_COMMON_SOURCES holds `path`. */
static int listed_common(const char *path)
{
    for (int i = 0; i < CML_NCOMMON; i++)
        if (CML_COMMON_SOURCES[i] && strcmp(CML_COMMON_SOURCES[i], path) == 0)
            return 1;
    return 0;
}

/* The Makefile links every .cu and .cpp of common/ but probe.cu; the grader,
 * CML_COMMON_SOURCES. */
START_TEST(grader_compiles_the_common_sources_the_makefile_does)
{
    char common[CML_PATH], path[CML_PATH], missing[1024] = "";
    struct dirent **list = NULL;
    cml_fmt(common, sizeof common, "%s/common", test_root());
    int n = scandir(common, &list, NULL, alphasort), found = 0;
    ck_assert_msg(n > 0, "cannot list %s", common);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        size_t len = strlen(name);
        int source = (len > 3 && strcmp(name + len - 3, ".cu") == 0) ||
                     (len > 4 && strcmp(name + len - 4, ".cpp") == 0);
        if (source && strcmp(name, "probe.cu") != 0) {
            found++;
            cml_fmt(path, sizeof path, "common/%s", name);
            if (!listed_common(path))
                snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %.60s",
                         path);
        }
        free(list[i]);
    }
    free(list);
    ck_assert_msg(!missing[0] && found == CML_NCOMMON, "CML_COMMON_SOURCES (build_common.c) "
                  "lists %d files; common/ holds %d, and these are not listed:%s", CML_NCOMMON,
                  found, missing);
}
END_TEST

/* The Makefile's NVCC_FLAGS (make grade, make all, the student bundle) hold every language flag
 * the grader compiles a lab with (CML_NVCC_LANG, build.h): a file that builds for one builds
 * for the other. */
START_TEST(makefile_compiles_labs_with_the_graders_language_flags)
{
    static const char *const lang[] = { CML_NVCC_LANG };
    char path[CML_PATH], missing[512] = "";
    cml_fmt(path, sizeof path, "%s/Makefile", test_root());
    char *text = cml_read_text(path, 1 << 20, NULL), *line;
    ck_assert_msg(text && (line = strstr(text, "\nNVCC_FLAGS :=")), "no NVCC_FLAGS in %s", path);
    char *end = line + 1;
    while ((end = strchr(end, '\n')) && end[-1] == '\\') /* continued lines */
        end++;
    if (end)
        *end = '\0';
    for (size_t i = 0; i < sizeof lang / sizeof lang[0]; i++) {
        char word[64];
        snprintf(word, sizeof word, " %s", lang[i]);
        if (!strstr(line, word))
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s", word);
    }
    free(text);
    ck_assert_msg(!missing[0], "the Makefile's NVCC_FLAGS lack:%s", missing);
}
END_TEST

/* The probe `make all` builds (build/cml-probe) is run while no file of common/ is newer; once
 * one is, the grader builds its own (the fake nvcc logs it) and runs that. The fake lab with no
 * --case acts as the probe. */
START_TEST(prebuilt_probe_is_used_while_common_is_older)
{
    char root[CML_PATH], work[CML_PATH], path[CML_PATH], cache[CML_PATH], log[CML_PATH], *text;
    cml_lab_spec two[2];
    cml_probe_result p;
    fake_root_setup(root, sizeof root, 10, 10, two, work, sizeof work);
    cml_fmt(path, sizeof path, "%s/build/cml-probe", root);
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    setenv("FAKE_NVCC_LOG", log, 1);
    char cp[3 * CML_PATH];
    snprintf(cp, sizeof cp, "cp '%s' '%s'", test_path("build/fake_lab"), path); /* newer */
    ck_assert(cml_mkdirs(cache) == 0 && system(cp) == 0);
    cml_probe(root, cache, &p);
    ck_assert_msg(p.have_gpu && p.rec.cc > 0, "%s", p.reason);
    ck_assert_ptr_null(cml_read_text(log, 4096, NULL)); /* nothing built */
    cml_fmt(path, sizeof path, "%s/common/probe.cu", root);
    struct timespec later[2] = { { time(NULL) + 60, 0 }, { time(NULL) + 60, 0 } };
    ck_assert(utimensat(AT_FDCWD, path, later, 0) == 0);
    cml_probe(root, cache, &p);
    ck_assert_msg(p.have_gpu, "%s", p.reason);
    ck_assert_ptr_nonnull(text = cml_read_text(log, 4096, NULL));
    ck_assert_ptr_nonnull(strstr(text, "/probe"));
    free(text);
    unsetenv("FAKE_NVCC_LOG");
    cml_rmtree(root);
}
END_TEST

/* The output of `sh -c cmd` (stdout and stderr), malloc'd; *rc its exit status. */
static char *shell(const char *cmd, int *rc)
{
    FILE *p = popen(cmd, "r");
    char *out = calloc(1, 1 << 16);
    size_t n = p && out ? fread(out, 1, (1 << 16) - 1, p) : 0;
    out[n] = '\0';
    *rc = p ? pclose(p) : -1;
    return out;
}

/* `make labs` builds for CUDA_ARCH when given, else for the GPU present (nvidia-smi), else for
 * every architecture (-arch=all); a build for another architecture rebuilds the binaries, the
 * same one does not. In a build folder of its own (BUILD=...). */
START_TEST(lab_binaries_follow_the_architecture)
{
    char tmp[64], cmd[1024], want[64];
    int rc;
    test_tmpdir(tmp, sizeof tmp);
    char *cc = shell("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | "
                     "head -n 1 | tr -d '. \\n'", &rc);
    snprintf(want, sizeof want, "-arch=%s%s", cc[0] ? "sm_" : "all", cc);
    free(cc);
    /* a make of its own: no CUDA_ARCH, and none of the outer make's flags or variables */
    const char *make = "cd '%s' && env -u CUDA_ARCH -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
                       "make --no-print-directory BUILD='%s' LAB=01 %s";
    snprintf(cmd, sizeof cmd, make, test_root(), tmp, "-n labs 2>&1");
    char *out = shell(cmd, &rc);
    ck_assert_msg(strstr(out, want), "no %s in: %.600s", want, out);
    free(out);
    snprintf(cmd, sizeof cmd, make, test_root(), tmp, "labs CUDA_ARCH=80 2>&1");
    out = shell(cmd, &rc);
    ck_assert_msg(rc == 0 && strstr(out, "-arch=sm_80"), "rc %d: %.900s", rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, make, test_root(), tmp, "-n labs CUDA_ARCH=80 2>&1");
    out = shell(cmd, &rc);
    ck_assert_msg(!strstr(out, "nvcc"), "sm_80 again rebuilt: %.600s", out);
    free(out);
    snprintf(cmd, sizeof cmd, make, test_root(), tmp, "-n labs CUDA_ARCH=89 2>&1");
    out = shell(cmd, &rc);
    ck_assert_msg(strstr(out, "-arch=sm_89") && strstr(out, "/labs/01_coalescing/lab") &&
                  strstr(out, "/solutions/01_coalescing/lab"), "sm_89 did not rebuild: %.600s",
                  out);
    free(out);
    cml_rmtree(tmp);
}
END_TEST

/* The trace checks' library (grader/trace/cml_trace.c) builds wherever the toolkit has CUPTI, in
 * a build folder of its own: it exports the entry point the CUDA driver calls at cuInit, and
 * finds libcupti beside itself (its RUNPATH is $ORIGIN, the copy is named by its soname), since
 * a traced run copies that folder and nothing else into the lab's sandbox. */
START_TEST(trace_library_builds_with_libcupti_beside_it)
{
    char tmp[64], cmd[1024];
    int rc;
    test_tmpdir(tmp, sizeof tmp);
    snprintf(cmd, sizeof cmd, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
             "--no-print-directory BUILD='%s' trace-lib 2>&1", test_root(), tmp);
    char *out = shell(cmd, &rc);
    ck_assert_msg(rc == 0, "rc %d: %.600s", rc, out);
    if (strstr(out, "no CUPTI")) { /* a toolkit without CUPTI: said, and nothing to check */
        fprintf(stderr, "build: %s", out);
        free(out);
        cml_rmtree(tmp);
        return;
    }
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s/trace' && nm -D --defined-only libcml-trace.so | "
             "grep -c ' T InitializeInjection$'; readelf -d libcml-trace.so | "
             "grep -o 'RUNPATH.*\\$ORIGIN'; for n in $(readelf -d libcml-trace.so | "
             "sed -n 's/.*NEEDED.*\\[\\(libcupti[^]]*\\)\\]/\\1/p'); do ls \"$n\"; done",
             tmp);
    out = shell(cmd, &rc);
    ck_assert_msg(strncmp(out, "1\n", 2) == 0 && strstr(out, "RUNPATH") &&
                  strstr(out, "libcupti.so."), "%.600s", out);
    free(out);
    cml_rmtree(tmp);
}
END_TEST

/* Every command that grades builds what grading uses (issue 44): `make grade` and `make bench`
 * (a TA's grading, the student's own) and `make check` build the trace library, so that none
 * of them silently leaves the trace checks "not checked" where the course server runs them.
 * A dry run of each in an empty build folder must name the library; where the toolkit has no
 * CUPTI, `trace-lib` says so and there is nothing to build. */
START_TEST(every_grading_command_builds_the_trace_library)
{
    static const char *const goals[] = {"grade", "bench", "check-run"};
    char tmp[64], cmd[1024];
    int rc;
    test_tmpdir(tmp, sizeof tmp);
    snprintf(cmd, sizeof cmd, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
             "--no-print-directory BUILD='%s' -n trace-lib 2>&1", test_root(), tmp);
    char *out = shell(cmd, &rc);
    const int no_cupti = strstr(out, "no CUPTI") != NULL;
    free(out);
    for (size_t i = 0; i < sizeof goals / sizeof *goals && !no_cupti; i++) {
        /* the dry run lists every object first: only its lines naming the library come back */
        snprintf(cmd, sizeof cmd, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n "
                 "--no-print-directory BUILD='%s' %s 2>&1 | grep -c 'libcml-trace[.]so'",
                 test_root(), tmp, goals[i]);
        out = shell(cmd, &rc);
        ck_assert_msg(atoi(out) > 0, "make %s does not build the trace library (%s lines name "
                      "it)", goals[i], out);
        free(out);
    }
    cml_rmtree(tmp);
}
END_TEST

/* One test per spec in grader/specs and side. */
Suite *build_suite(void)
{
    char err[512];
    Suite *s = suite_create("build");
    TCase *tc = tcase_create("every lab");
    nspecs = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    if (nspecs < 0) {
        fprintf(stderr, "build suite: %s\n", err);
        nspecs = 0;
    }
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, every_spec_loads);
    tcase_add_test(tc, cached_binary_changed_after_its_build_is_not_reused);
    tcase_add_test(tc, include_of_a_grader_file_fails_the_build);
    tcase_add_test(tc, include_of_the_staged_copy_builds);
    tcase_add_test(tc, include_of_dev_zero_stops_at_once_as_the_include_rule);
    tcase_add_test(tc, include_of_a_system_file_quotes_none_of_it);
    tcase_add_test(tc, include_of_a_missing_header_says_what_to_do);
    tcase_add_test(tc, missing_file_without_a_place_is_passed_through);
    tcase_add_test(tc, build_over_its_memory_cap_is_stopped_and_says_so);
    tcase_add_test(tc, grader_compiles_the_common_sources_the_makefile_does);
    tcase_add_test(tc, makefile_compiles_labs_with_the_graders_language_flags);
    tcase_add_test(tc, prebuilt_probe_is_used_while_common_is_older);
    tcase_add_test(tc, trace_library_builds_with_libcupti_beside_it);
    tcase_add_test(tc, every_grading_command_builds_the_trace_library);
    tcase_add_test(tc, lab_binaries_follow_the_architecture);
    tcase_add_loop_test(tc, skeleton_compiles_without_warnings, 0, nspecs);
    tcase_add_loop_test(tc, solution_compiles_without_warnings, 0, nspecs);
    suite_add_tcase(s, tc);
    build_objects_add(s);
    return s;
}
