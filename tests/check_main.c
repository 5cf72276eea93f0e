/* The test runner: every suite of tests/suites.h, one after another (check_runner.c), each
 * announced as it starts and ends with its count and seconds. The GPU suite is added only when
 * the probe (run in a child process: the runner never touches CUDA) finds a GPU; otherwise its
 * tests are counted as skipped, never as passed; so are the screenshot tests without Chromium
 * and the Slurm tests without Slurm. Last lines: the skip lines if any, then "N passed,
 * N failed, N skipped". Set CK_RUN_SUITE=run (etc.) to run one suite, CK_VERBOSITY=normal
 * for Check's own summaries too. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"
#include "suites.h"

int main(void)
{
    char reason[256] = "";
    /* This machine has no ncu, compute-sanitizer or trace library for the fake labs, so a
     * course grading's checks cannot run: kept, as an instructor who chose so would keep them;
     * tests/test_refuse.c's unchecked_course_grading_exits_3 unsets it. */
    setenv("CML_UNCHECKED", "keep", 0);
    const char *only = getenv("CK_RUN_SUITE");
    int want_gpu = !only || strcmp(only, "gpu") == 0;
    int gpu = want_gpu && gpu_present(reason, sizeof reason);
    /* each name is the one its suite_create gives: a wrong one runs no test, which shows */
    static const runner_suite suites[] = {
        { "spec", spec_suite }, { "records", records_suite }, { "verify", verify_suite },
        { "score", score_suite }, { "status", status_suite }, { "claims", claims_suite },
        { "report", report_suite }, { "run", run_suite }, { "feedback", feedback_suite },
        { "gradebook", gradebook_suite }, { "student_text", student_text_suite },
        { "screenshot", screenshot_suite }, { "pipeline", pipeline_suite },
        { "build", build_suite }, { "technique", technique_suite },
        { "sanitize", sanitize_suite }, { "planted", planted_suite }, { "link", link_suite },
        { "sandbox", sandbox_suite }, { "attacks", attacks_suite },
        { "variants", variants_suite }, { "honest", honest_suite },
        { "practice", practice_suite }, { "sheets", sheets_suite },
        { "find", find_suite }, { "batch", batch_suite },
        { "platforms", platforms_suite }, { "refuse", refuse_suite },
        { "calibration", calibration_suite }, { "slurm", slurm_suite },
        { "runner", runner_suite_of_tests }, { "gpu", gpu_suite } };
    int n = (int)(sizeof suites / sizeof suites[0]) - !gpu; /* gpu is last */
    int run = 0, failed = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    runner_run(suites, n, stdout, &run, &failed);
    int skipped = want_gpu && !gpu ? gpu_test_count() : 0;
    if (skipped)
        printf("GPU tests: %d skipped (no GPU: %s)\n", skipped, reason);
    int no_landlock = !only || strcmp(only, "sandbox") == 0 ? sandbox_tests_skipped() : 0;
    if (no_landlock)
        printf("sandbox attack tests: %d skipped (no Landlock in this kernel: the attacks "
               "would not be refused)\n", no_landlock);
    skipped += no_landlock;
    int no_browser = !only || strcmp(only, "screenshot") == 0
                     ? screenshot_tests_skipped(reason, sizeof reason) : 0;
    if (no_browser)
        printf("screenshot tests: %d skipped (%s: the feedback page's chart is not checked as "
               "drawn)\n", no_browser, reason);
    skipped += no_browser;
    char no_slurm_why[256] = "";
    int no_slurm = !only || strcmp(only, "slurm") == 0
                       ? slurm_tests_skipped(no_slurm_why, sizeof no_slurm_why)
                       : 0;
    if (no_slurm)
        printf("Slurm tests: %d skipped (%s)\n", no_slurm, no_slurm_why);
    skipped += no_slurm;
    printf("%d passed, %d failed, %d skipped\n", run - failed, failed, skipped);
    return failed ? 1 : 0;
}
