/* The `probe` check: a C++ constant expression about a student file (4.2b's alignof(Point4)
 * == 16) held or not when the build compiled it with a static_assert after the file
 * (2_build/evidence_probe.c). Only the probe's own assertion fails a check; a probe that did
 * not compile for any other reason (the name is not at file scope, say) is not checked: never
 * a false fail. */
#include "technique.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contract in technique.h. */
void cml_tech_probe(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                    const cml_technique_env *env, cml_tech_result *out)
{
    char ext[48], why[300];
    out->state = CML_TECH_NOT_CHECKED;
    if (!env->ev_dir) {
        snprintf(out->detail, sizeof out->detail, "not checked (no student sources here)");
        return;
    }
    snprintf(ext, sizeof ext, ".probe.%d.%d", (int)(t - spec->tasks), (int)(c - t->tech));
    char *text = cml_tech_evidence(env, c->file, ext, why, sizeof why);
    if (!text) {
        snprintf(out->detail, sizeof out->detail, "not checked (%.280s)", why);
        return;
    }
    const char *line = strchr(text, '\n') ? strchr(text, '\n') + 1 : "";
    const int n = (int)strcspn(line, "\n");
    if (strncmp(text, "passed\n", 7) == 0) {
        out->state = CML_TECH_PASSED;
        snprintf(out->detail, sizeof out->detail, "%.150s holds for %.60s as compiled",
                 c->pattern, c->file);
    } else if (strncmp(text, "failed\n", 7) == 0) {
        out->state = CML_TECH_FAILED;
        snprintf(out->detail, sizeof out->detail, "%.150s does not hold for %.60s as compiled "
                 "(%.150s)", c->pattern, c->file, c->what);
    } else
        snprintf(out->detail, sizeof out->detail, "not checked (the probe of %.60s did not "
                 "compile: %.*s)", c->file, n < 200 ? n : 200, line);
    free(text);
}
