/* The technique tests' fixture (tests/test_technique.c, tests/test_technique_ncu.c): a task
 * spec loaded through a file, a fake ncu (CML_NCU) that prints what the real one does, fixture
 * PTX and sources as a build leaves them, and helpers to grade task 1.1. Each file that includes
 * it has its own copy of this state; setup and teardown run around every test. */
#ifndef CML_TECHNIQUE_FIXTURE_H
#define CML_TECHNIQUE_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "judge.h"
#include "speed.h"
#include "spec.h"
#include "technique_phase.h"
#include "util.h"

#define HEAD "lab 04_x\nfiles k.cu\n"
#define TASK "task 1.1\ncheck copy\npoints 6\ncase n=1000\ncase n=4096 time\n"
#define V4 "ld\\.global(\\.[a-z0-9:_]+)*\\.v4\\.(f32|b32|u32)"

static char dir[64], err[512];
static cml_lab_spec spec;
static cml_task_result r;
static cml_technique_env env;
static cml_ncu_runs ncu_runs_kept; /* the runs the checks share, as grade_lab.c keeps them */

/* Loads spec text through a file; cml_spec_load's result. */
static inline int load(const char *text)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/t.spec", dir);
    test_write(path, text);
    return cml_spec_load(path, &spec, err, sizeof err);
}

static inline void rejected(const char *text, const char *what)
{
    ck_assert_int_eq(load(text), -1);
    ck_assert_msg(strstr(err, what) != NULL, "'%s' should contain '%s'", err, what);
}

static inline void put(const char *name, const char *text, int exec)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", dir, name);
    test_write(path, text);
    if (exec)
        chmod(path, 0755);
}

static inline const char *in_dir(const char *name)
{
    static char path[4][CML_PATH];
    static int next;
    char *p = path[next++ % 4];
    cml_fmt(p, CML_PATH, "%s/%s", dir, name);
    return p;
}

/* A fake ncu: writes what it says to --log-file as the real one does. FAKE_NCU=ok prints CSV
 * with $FAKE_NCU_VALUE, perm the permission error, none no kernel, error a failure of its own,
 * forged also CSV rows with 0 on its stdout, as a lab could print them, two also a row of a
 * second kernel ("other", $FAKE_NCU_OTHER), as one run for two tasks, cases the same with a
 * second case marker before it (the harness's, first in each case's window; every output
 * starts with one, as a `*` run shows it); launch__smem, a per-launch property, is $FAKE_SMEM0
 * and $FAKE_SMEM1 (default 4096) in its two launches; its arguments (after --log-file) go to
 * $FAKE_ARGS; markonly prints the case marker's row alone (a case that launched no kernel). */
static const char NCU[] =
    "#!/bin/sh\nexec 3>&1\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "echo \"$@\" > \"$FAKE_ARGS\"\necho run >> \"$FAKE_ARGS.runs\"\n"
    "echo '==PROF== Connected to process 1'\n"
    "[ \"$FAKE_NCU\" = forged ] && { echo '\"Kernel Name\",\"Metric Name\",\"Metric Value\"'; "
    "echo '\"copyVec\",\"m.sum\",\"0\"'; } >&3\n"
    "case $FAKE_NCU in\nerror) echo '==ERROR== Failed to prepare kernel for profiling'; exit 1;;\n"
    "perm) echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have "
    "permission to access NVIDIA GPU Performance Counters'; exit 1;;\n"
    "none) echo '==WARNING== No kernels were profiled.'; exit 0;;\n"
    "markonly) echo '\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"'; "
    "echo '\"0\",\"1\",\"cml_case_mark\",\"m.sum\",\"3\"'; exit 0;;\nesac\n"
    "echo '\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"'\n"
    "echo '\"8\",\"1\",\"cml_case_mark\",\"m.sum\",\"\",\"3\"'\n"
    "echo '\"0\",\"1\",\"copyVec\",\"m.sum\",\"\",\"'\"$FAKE_NCU_VALUE\"'\"'\n"
    "echo '\"1\",\"1\",\"copyVec\",\"m.sum\",\"\",\"0\"'\n"
    "echo '\"1\",\"1\",\"copyVec\",\"other.sum\",\"\",\"77\"'\n"
    "echo '\"0\",\"1\",\"copyVec\",\"launch__smem\",\"\",\"'\"${FAKE_SMEM0:-4096}\"'\"'\n"
    "echo '\"1\",\"1\",\"copyVec\",\"launch__smem\",\"\",\"'\"${FAKE_SMEM1:-4096}\"'\"'\n"
    "[ \"$FAKE_NCU\" = cases ] && echo '\"9\",\"1\",\"cml_case_mark()\",\"m.sum\",\"\",\"3\"'\n"
    "case $FAKE_NCU in two|cases) echo '\"2\",\"1\",\"void other<32>(float *, int)\",\"m.sum\","
    "\"\",\"'\"$FAKE_NCU_OTHER\"'\"';; esac\nexit 0\n";
static const char PTX[] =
    ".visible .entry _Z10copyScalarPKfPfm(\n{\n\tld.global.f32 %f1, [%rd4];\n}\n"
    ".visible .entry _Z7copyVecPKfPfm(\n{\n\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];\n"
    "\tst.global.v4.f32 [%rd5], {%f1, %f2, %f3, %f4};\n}\n";

static void setup(void)
{
    test_tmpdir(dir, sizeof dir);
    put("ncu", NCU, 1);
    /* the evidence a build leaves (evidence.h), in a folder of its own: source, PTX, and why
     * there is no SASS */
    cml_mkdirs(in_dir("ev"));
    put("ev/k.cu.ptx", PTX, 0);
    put("ev/k.cu.sass.err", "cuobjdump not found", 0);
    put("ev/k.cu", "// cudaMemcpy(a, b) is what we do not do\n__global__ void copyVec() {}\n", 0);
    setenv("CML_NCU", in_dir("ncu"), 1);
    setenv("CML_CUOBJDUMP", "/nonexistent/cuobjdump", 1);
    setenv("FAKE_ARGS", in_dir("args"), 1);
    setenv("FAKE_NCU", "ok", 1);
    setenv("FAKE_NCU_VALUE", "0", 1);
    static char ev[CML_PATH];
    cml_fmt(ev, sizeof ev, "%s/ev", dir);
    cml_ncu_runs_free(&ncu_runs_kept);
    env = (cml_technique_env){ .ev_dir = ev, .bin = "/bin/true", .cc = 90, .seed = 7,
                               .work_dir = dir, .timeout_s = 10, .ncu = &ncu_runs_kept };
    memset(&r, 0, sizeof r);
}

static void teardown(void)
{
    cml_rmtree(dir);
    const char *vars[] = {"CML_NCU", "CML_CUOBJDUMP", "FAKE_NCU_OTHER", "FAKE_SMEM0", "FAKE_SMEM1",
                          "FAKE_ARGS", "FAKE_NCU", "FAKE_NCU_VALUE", "CML_SANDBOX"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* Load `checks` into task 1.1 (worth 6 + 4 technique points) and grade it as `status`. */
/* The trace tools as the fake lab needs them (no sandbox): a trace library beside CUPTI (never
 * loaded: the fake lab writes $FAKE_TRACE as the library would), an nm that prints nm_text, the
 * student object's symbols; the lab binary is the fake lab. */
static inline void fake_trace_tools(const char *nm_text, const char *symbols)
{
    setenv("CML_SANDBOX", "off", 1);
    cml_mkdirs(in_dir("lib"));
    put("lib/libcml-trace.so", "not loaded by the fake lab", 0);
    put("lib/libcupti.so.13", "beside it", 0);
    setenv("CML_TRACE_LIB", in_dir("lib/libcml-trace.so"), 1);
    put("nm.txt", nm_text, 0);
    char nm[CML_PATH + 32];
    snprintf(nm, sizeof nm, "#!/bin/sh\nexec cat '%s'\n", in_dir("nm.txt"));
    put("nm", nm, 1);
    setenv("CML_NM", in_dir("nm"), 1);
    put("ev/k.cu.symbols", symbols, 0);
    env.bin = test_path("build/fake_lab");
}

static inline void grade(const char *checks, const char *status)
{
    char text[2048];
    snprintf(text, sizeof text, HEAD TASK "%s\ntechnique 4\n", checks);
    ck_assert_msg(load(text) == 0, "%s", err);
    enum cml_status s;
    ck_assert_int_eq(cml_status_from_name(status, &s), 0);
    r.spec = &spec.tasks[0];
    r.credit = (cml_credit){ .cases = s == CML_STATUS_PASSED ? 2 : 0 }; /* 6 points if passed */
    memset(r.tech, 0, sizeof r.tech);
    judge_as(&r, s, "all 2 cases passed");
    cml_technique_task(&spec, &spec.tasks[0], &env, &r);
    cml_publish_task(&r);
}

static inline void assert_check(int k, enum cml_tech_state state, const char *detail)
{
    ck_assert_msg(r.tech[k].state == state && strstr(r.tech[k].detail, detail),
                  "check %d: %s: %s (wanted %s: %s)", k, cml_tech_state_name(r.tech[k].state),
                  r.tech[k].detail, cml_tech_state_name(state), detail);
}

/* Trace text for tests/test_trace*.c, in the library's format (grader/trace/cml_trace.c): one
 * call of the task's function inside the harness's window, its case marker first on the
 * harness's stream 0x5000 (a harness frame), then what the student's ported() launched. */
#define WINDOW_OPEN                                                                          \
    "cml-trace 1\n"                                                                          \
    "api drv cuProfilerStart corr=20 frames=3010,1010\n"                                     \
    "api drv cuLaunchKernel corr=21 frames=3020,1020\n"                                      \
    "launch stream=0x5000 ptsz=0 grid=1,1,1 block=1,1,1 smem=0 corr=21 fn=cml_case_mark\n"   \
    "kernel grid=1,1,1 block=1,1,1 smem=0 static=0 corr=21 graph=0 name=cml_case_mark\n"
#define STUDENT_LAUNCH(corr, stream, ptsz)                                                   \
    "api drv cuLaunchKernel corr=" #corr " frames=2010,3030,1030\n"                          \
    "launch stream=" stream " ptsz=" #ptsz " grid=4096,1,1 block=256,1,1 smem=0 corr=" #corr \
    " fn=_Z6portedPfi\n"                                                                     \
    "kernel grid=4096,1,1 block=256,1,1 smem=0 static=0 corr=" #corr " graph=0 "             \
    "name=_Z6portedPfi\n"
#define WINDOW_CLOSE "api drv cuProfilerStop corr=40 frames=3040,1040\nend\n"

#endif /* CML_TECHNIQUE_FIXTURE_H */
