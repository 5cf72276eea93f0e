/* A fake repository for the pipeline tests: two small labs whose binaries are build/fake_lab,
 * and a fake nvcc (see helpers.h). */
#include "helpers.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build.h"
#include "grade.h"
#include "util.h"

static const char SPEC1[] =
    "lab 01_fake\ntitle Fake lab one\nfiles fake.cu\nharness harness.cu fake.h\n"
    "note docs/01_fake.md\ntimeout %g\n\n"
    "task 1.1\ntitle Copy\ncheck copy\ntolerance exact\npoints 6\n"
    "case n=1000\ncase n=4097\ncase n=65536 time\nperf 4 1.15 2.5\nhint Section 1\n\n"
    "task 1.2\ntitle Transpose\ncheck transpose\npoints 5\n"
    "case rows=31,cols=33\ncase rows=64,cols=128 time\nperf 5 1.15 2.5\n\n"
    "task 1.3\ntitle Gather\ncheck gather\npoints 4\ncase n=1000,offset=3,stride=2\n";

static const char SPEC2[] =
    "lab 02_fake\ntitle Fake lab two\nfiles other.cu\nharness harness.cu other.h\n"
    "timeout %g\n\n"
    "task 2.1\ntitle Copy again\ncheck copy\npoints 3\ncase n=777\ncase n=8192 time\n"
    "perf 2 1.15 2.5\n\n"
    "task 2.2\ntitle Offsets\ncheck gather\npoints 3\ncase n=500,offset=7\n";

static const char NVCC[] =
    "#!/bin/sh\n# fake nvcc: copies $FAKE_LAB_BIN to the -o path; fails on BROKEN sources, hangs on\n# HANG ones; with\n"
    "# --keep-dir, leaves a PTX (the source, commented) and a preprocessed file there as nvcc does\n"
    "[ \"$1\" = --version ] && { echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; }\n"
    "out=\nfor a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
    "for a; do case $a in *.cu) grep -q BROKEN \"$a\" 2>/dev/null && "
    "{ echo \"$a(3): error: expected a ';'\"; exit 1; };; esac; done\n"
    "for a; do case $a in *.cu) grep -q HANG \"$a\" 2>/dev/null && sleep 300;; esac; done\n"
    "[ -n \"$FAKE_NVCC_SLEEP\" ] && sleep \"$FAKE_NVCC_SLEEP\"\n" /* a build of N seconds */
    "[ -n \"$FAKE_NVCC_LOG\" ] && echo \"$out\" >> \"$FAKE_NVCC_LOG\"\n"
    /* the folder it builds in and its nice value (field 19 of /proc/PID/stat) */
    "[ -n \"$FAKE_NVCC_NICE_LOG\" ] && echo \"$PWD $(cut -d' ' -f19 /proc/$$/stat)\" >> "
    "\"$FAKE_NVCC_NICE_LOG\"\n"
    /* a batch's GPU lock must be free while a grading builds */
    "[ -n \"$FAKE_NVCC_LOCK\" ] && ! flock -s -n \"$FAKE_NVCC_LOCK\" true && "
    "echo \"LOCKED $out\" >> \"$FAKE_NVCC_LOG\"\n"
    "kd=; for a; do [ \"$prev2\" = --keep-dir ] && kd=$a; prev2=$a; done\n" /* what --keep leaves */
    "[ -n \"$kd\" ] && for a; do case $a in *.cu) b=$(basename \"$a\" .cu); "
    "{ echo \"// PTX of $a\"; cat \"$a\"; } > \"$kd/$b.ptx\"; cp \"$a\" \"$kd/$b.cpp1.ii\";; "
    "esac; done\n"
    "cp \"$FAKE_LAB_BIN\" \"$out\"\n";

static void put(const char *dir, const char *rel, const char *text)
{
    char path[CML_PATH];
    ck_assert(cml_fmt(path, sizeof path, "%s/%s", dir, rel) == 0);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    ck_assert_msg(cml_mkdirs(path) == 0, "cannot create %s", path);
    *slash = '/';
    test_write(path, text);
}

/* Contract in helpers.h. */
void fake_root_make(const char *dir, double timeout1_s, double timeout2_s)
{
    char spec[2048], nvcc[CML_PATH];
    snprintf(spec, sizeof spec, SPEC1, timeout1_s);
    put(dir, "grader/specs/01_fake.spec", spec);
    snprintf(spec, sizeof spec, SPEC2, timeout2_s);
    put(dir, "grader/specs/02_fake.spec", spec);
    for (int i = 0; i < CML_NCOMMON; i++)
        put(dir, CML_COMMON_SOURCES[i], "// pristine harness library\n");
    put(dir, "common/probe.cu", "// probe\n");
    const char *files[] = { "labs/01_fake/harness.cu", "labs/01_fake/fake.h",
                            "labs/01_fake/fake.cu", "solutions/01_fake/fake.cu",
                            "labs/02_fake/harness.cu", "labs/02_fake/other.h",
                            "labs/02_fake/other.cu", "solutions/02_fake/other.cu" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) /* the fake PTX holds the */
        put(dir, files[i], "// fake source: ld.shared bar.sync\n"); /* source: every tool runs */
    put(dir, "bin/nvcc", NVCC);
    cml_fmt(nvcc, sizeof nvcc, "%s/bin/nvcc", dir);
    chmod(nvcc, 0755);
    setenv("NVCC", nvcc, 1);
    setenv("FAKE_LAB_BIN", test_path("build/fake_lab"), 1);
    /* the fake nvcc runs in the build's sandbox: it reads the fake lab and logs into /tmp */
    char relax[CML_PATH + 16];
    cml_fmt(relax, sizeof relax, "x:%s,w:/tmp", test_path("build"));
    setenv("CML_BUILD_RELAX", relax, 1);
    setenv("FAKE_CHECKS", "1.1=copy,1.2=transpose,1.3=gather,2.1=copy,2.2=gather", 1);
    unsetenv("CML_FAKE_GPU");
    unsetenv("FAKE_MODE");
    unsetenv("FAKE_TASK");
    unsetenv("FAKE_REF_MODE");
}

/* Contract in helpers.h. */
void fake_root_specs(const char *dir, cml_lab_spec *specs)
{
    char err[512];
    int n = cml_load_specs(dir, NULL, specs, 2, err, sizeof err);
    ck_assert_msg(n == 2, "fake specs: %s", err);
}

/* Contract in helpers.h. */
void fake_root_setup(char *root, size_t rlen, double timeout1_s, double timeout2_s,
                     cml_lab_spec *specs, char *work, size_t wlen)
{
    test_tmpdir(root, rlen);
    fake_root_make(root, timeout1_s, timeout2_s);
    fake_root_specs(root, specs);
    cml_fmt(work, wlen, "%s/work", root);
}

/* Contract in helpers.h. */
void fake_grade(const cml_lab_spec *spec, const char *mode, const char *task,
                const cml_run_opts *o, cml_lab_result *result)
{
    if (mode) {
        setenv("FAKE_MODE", mode, 1);
        setenv("FAKE_TASK", task, 1);
    }
    const char *bin = test_path("build/fake_lab");
    ck_assert_int_eq(cml_grade_lab_with_binaries(spec, bin, bin, o, result), 0);
}
