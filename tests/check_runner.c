/* The runner's loop (check_runner.h). One SRunner per suite: Check prints nothing until a
 * runner ends, so a single runner over every suite left `make check` silent for minutes. */
#include "check_runner.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Contract in check_runner.h. */
void runner_run(const runner_suite *list, int n, FILE *progress, int *run, int *failed)
{
    const char *only = getenv("CK_RUN_SUITE");
    enum print_output mode = getenv("CK_VERBOSITY") ? CK_ENV : CK_SILENT;
    double t0 = cml_now();
    for (int k = 0; k < n; k++) {
        if (only && strcmp(only, list[k].name) != 0)
            continue;
        fprintf(progress, "[%2d/%d] %s ...\n", k + 1, n, list[k].name);
        fflush(progress);
        double ts = cml_now();
        SRunner *sr = srunner_create(list[k].make());
        srunner_run(sr, list[k].name, NULL, mode);
        int ran = srunner_ntests_run(sr), bad = srunner_ntests_failed(sr);
        TestResult **fails = srunner_failures(sr);
        for (int i = 0; mode == CK_SILENT && i < bad; i++) /* as Check writes them */
            fprintf(progress, "%s:%d:%c:%s: %s\n", tr_lfile(fails[i]), tr_lno(fails[i]),
                    tr_rtype(fails[i]) == CK_ERROR ? 'E' : 'F', tr_tcname(fails[i]),
                    tr_msg(fails[i]));
        free(fails);
        srunner_free(sr);
        double now = cml_now();
        fprintf(progress, "[%2d/%d] %s: %d test%s, %d failed, %.1f s (total %.1f s)\n", k + 1,
                n, list[k].name, ran, ran == 1 ? "" : "s", bad, now - ts, now - t0);
        fflush(progress);
        *run += ran;
        *failed += bad;
    }
}
