/* The test runner: every suite of tests/suites.h. The GPU suite is added only when the probe
 * (run in a child process: the runner never touches CUDA) finds a GPU; otherwise its tests are
 * counted as skipped, never as passed; so are the screenshot tests without Chromium and the
 * Slurm tests without Slurm. Last lines: Check's summary, the skip lines if any, then
 * "N passed, N failed, N skipped". Set CK_RUN_SUITE=run (etc.) to run one suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

int main(void)
{
    char reason[256] = "";
    const char *only = getenv("CK_RUN_SUITE");
    int want_gpu = !only || strcmp(only, "gpu") == 0;
    int gpu = want_gpu && gpu_present(reason, sizeof reason);
    Suite *(*const suites[])(void) = { spec_suite, records_suite, verify_suite, score_suite,
                                       status_suite, claims_suite, report_suite, run_suite,
                                       feedback_suite, gradebook_suite, screenshot_suite,
                                       pipeline_suite, build_suite, technique_suite,
                                       sanitize_suite,
                                       planted_suite, link_suite, sandbox_suite, attacks_suite,
                                       variants_suite, sheets_suite, batch_suite,
                                       calibration_suite, practice_suite,
                                       slurm_suite };
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(sr, suites[i]());
    if (gpu)
        srunner_add_suite(sr, gpu_suite());
    srunner_run_all(sr, CK_ENV);
    int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
    srunner_free(sr);
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
