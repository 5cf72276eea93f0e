/* The entry point of every lab binary (cml_main) and the drivers of its cases: graded cases
 * (--case) write records and output files and never compute the expected output unless no
 * grader is listening (no CML_RESULT_FD); tables (self-learner mode, --bench) check every row
 * against the task's expect function. The rest of the library: cml_lab_int.h says which file
 * does what. */
#include "cml_lab_int.h"

#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The grader's link rules point every call they refused at one of these functions
 * (CML_LINK_TRAP in grader/src/2_build/linkrules.h, one per refused symbol): the tasks whose
 * code makes that call are build errors and never run, and a path the rules could not see (a
 * function-pointer table) that still reaches one ends the run here, before the call can do
 * anything. Exit status 4. */
static void link_refused(void)
{
    static const char msg[] = "a call the grader's link rules refused was reached (the build "
                              "log names it): the run stops here\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(4);
}
#define CML_TRAP(k) extern "C" void cml_link_refused_##k(void) { link_refused(); }
CML_TRAP(0) CML_TRAP(1) CML_TRAP(2) CML_TRAP(3) CML_TRAP(4) CML_TRAP(5) CML_TRAP(6)
CML_TRAP(7) CML_TRAP(8) CML_TRAP(9) CML_TRAP(10) CML_TRAP(11) CML_TRAP(12) CML_TRAP(13)
CML_TRAP(14) CML_TRAP(15) CML_TRAP(16) CML_TRAP(17) CML_TRAP(18) CML_TRAP(19) CML_TRAP(20)
CML_TRAP(21) CML_TRAP(22) CML_TRAP(23) CML_TRAP(24) CML_TRAP(25) CML_TRAP(26) CML_TRAP(27)
CML_TRAP(28) CML_TRAP(29) CML_TRAP(30) CML_TRAP(31) /* CML_LINK_TRAPS */

static void begin_case(int k, const char *task_id)
{
    cml_row_begin();
    cml_current_k = k;
    cml_current_task = task_id;
    cml_current_reported = 0;
}

static void end_case(void)
{
    cml_free_case_allocs();
    cml_current_k = -1;
    cml_current_task = NULL;
}

/* A graded case: "TASK[,key=value]...[,time]". Errors in the spec are the case's error. */
static void run_graded(const cml_lab *lab, int k, const char *spec)
{
    static cml_case c; /* static: the task's run function may keep a pointer while it runs */
    char err[256] = "";
    char id[16];
    size_t idlen = strcspn(spec, ",");
    snprintf(id, sizeof id, "%.*s", (int)std::min(idlen, sizeof id - 1), spec);
    memset(&c, 0, sizeof c);
    c.k = k;
    snprintf(c.text, sizeof c.text, "%s", spec);
    for (int i = 0; i < lab->ntasks && !c.task; i++)
        if (strcmp(lab->tasks[i].id, id) == 0)
            c.task = &lab->tasks[i];
    begin_case(k, c.task ? c.task->id : id);
    if (strlen(spec) >= sizeof c.text)
        snprintf(err, sizeof err, "case spec longer than %zu characters", sizeof c.text - 1);
    else if (!c.task)
        snprintf(err, sizeof err, "unknown task '%s' in case '%s' (see --list)", id, spec);
    else
        cml_parse_case(&c, spec + idlen + (spec[idlen] == ','), err, sizeof err);
    if (err[0]) {
        fprintf(stderr, "%s\n", err);
        cml_case_fail("%s", err);
    } else {
        c.task->run(&c);
        if (!cml_current_reported)
            cml_case_fail("the harness reported no result for this case (a bug in harness.cu)");
    }
    end_case();
}

enum cml_row_status cml_table_run(const cml_task *task, const char *spec)
{
    static cml_case c;
    char err[256] = "";
    memset(&c, 0, sizeof c);
    c.task = task;
    snprintf(c.text, sizeof c.text, "%s", spec);
    begin_case(-1, task->id);
    if (cml_parse_case(&c, spec, err, sizeof err) != 0)
        cml_case_fail("%s", err);
    else
        task->run(&c);
    enum cml_row_status status = cml_last_row_status();
    end_case();
    return status;
}

/* Self-learner mode: every task at each of its default sizes, then the lab's extras. */
static void run_defaults(const cml_lab *lab)
{
    cml_table_title("every task at its default sizes (self-learner mode)");
    for (int i = 0; i < lab->ntasks; i++) {
        char specs[256], *save = NULL;
        snprintf(specs, sizeof specs, "%s", lab->tasks[i].defaults);
        for (char *s = strtok_r(specs, " ", &save); s; s = strtok_r(NULL, " ", &save))
            cml_table_run(&lab->tasks[i], s);
    }
    if (lab->extras)
        lab->extras();
}

/* The GPU session, the staging and flush buffers, and this run's copy bandwidth, announced on
 * stdout. 0, or -1 when out of host memory (said on stderr). */
static int open_session(const cml_lab *lab, const char *gpu_line)
{
    cml_gpu_open();
    if (cml_outputs_open() != 0) {
        fprintf(stderr, "out of host memory\n");
        return -1;
    }
    cml_timing_open();
    printf("%s: %s\nGPU %s\n", lab->name, lab->title, gpu_line);
    if (cml_times_anything()) {
        cml_measure_copy_bandwidth();
        printf("cudaMemcpy device-to-device: %.1f GB/s (read + written), ", cml_copy_gbps());
    } else
        printf("no timed case, so no copy bandwidth measured; ");
    if (cml_seed_from_grader()) /* printed nowhere: the lab's own output is no channel */
        printf("seed: the grader's\n");
    else
        printf("seed %llu\n", (unsigned long long)cml_seed());
    return 0;
}

/* Once CUDA is initialised (a tool's library is loaded at cuInit), the variable that names it
 * goes: ncu, compute-sanitizer and the grader's trace set CUDA_INJECTION64_PATH, and a student
 * file may call getenv, so a lab could otherwise tell a profiled, sanitized or traced run from
 * a graded one by it and take another path there (issue 23; tests/attacks/gpu/04_float4/
 * vector_path_only_when_injected). Only that one: with every other variable cleared too, ncu's
 * library in the lab failed ("An error was reported by the driver", H100, 2026-11-27). */
static void forget_tool_library(void) { unsetenv("CUDA_INJECTION64_PATH"); }

/* What student code's getenv answers: the grader's link rules point every call of getenv in a
 * student object at this function (grader/src/2_build/linkrules.c), so a student file sees
 * one environment in every run, the result channel's variable alone (cml_check.h reads it),
 * graded, timed, profiled, sanitized or traced. The tools add variables of their own besides
 * CUDA_INJECTION64_PATH (NV_TPS_LAUNCH_TOKEN, NV_NSIGHT_INJECTION_*, NV_SANITIZER_INJECTION_*,
 * NVTX_INJECTION64_PATH, H200 2026-11-29), and a 3.2 that staged through shared memory only
 * when one was set got the technique points (issue 44). Their libraries read them while the
 * lab runs (with environ swapped for a plain one around the student's calls, ncu's library
 * ended every profiled run on an H200), so the real environment stays for everyone else. A
 * student file cannot reach environ, secure_getenv or setenv (link rules). */
extern "C" char *cml_student_getenv(const char *name)
{
    return name && strcmp(name, "CML_RESULT_FD") == 0 ? getenv(name) : NULL;
}

int cml_main(int argc, char **argv, const cml_lab *lab)
{
    int parsed = cml_parse_args(argc, argv);
    if (parsed != 0) {
        cml_usage(argv[0]);
        return parsed > 0 ? 0 : CML_EXIT_USAGE;
    }
    const cml_options *opt = cml_opts();
    if (opt->list) {
        for (int i = 0; i < lab->ntasks; i++)
            printf("%s\t%s\t%s\n", lab->tasks[i].id, lab->tasks[i].kernel, lab->tasks[i].keys);
        return 0;
    }
    char line[512];
    cml_record("hello protocol=1 lab=%s", lab->name);
    if (cml_gpu_usable(line, sizeof line) != 0) {
        cml_record("nodevice msg=%s", line);
        cml_record("done");
        fprintf(stderr, "%s: no usable GPU (%s). This binary needs an NVIDIA GPU of compute "
                        "capability 7.5 or newer and its driver.\n", lab->name, line);
        return CML_EXIT_NO_GPU;
    }
    cml_early_cuda_release();
    cml_record_device(line, sizeof line);
    if (open_session(lab, line) != 0)
        return CML_EXIT_CUDA_ERROR;
    forget_tool_library();
    if (opt->ncases > 0) {
        for (int k = 0; k < opt->ncases; k++)
            run_graded(lab, k, opt->cases[k]);
    } else {
        cml_set_mode(CML_MODE_TABLE);
        if (opt->bench)
            lab->bench();
        else
            run_defaults(lab);
    }
    cml_timing_close();
    cml_gpu_close();
    cml_outputs_close();
    cml_record("done");
    return cml_case_errors() ? CML_EXIT_CUDA_ERROR : 0;
}
