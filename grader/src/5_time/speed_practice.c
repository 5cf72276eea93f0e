/* speed_practice: speed in a practice grade, where no reference solution can be timed (the
 * student bundle has no solutions/). The student's bandwidth is compared with this GPU's own
 * copy bandwidth (or pinned link, for host-involved tasks), measured in the same run, against
 * the fraction the reference reaches on the course GPUs (the spec's practice_fraction): a
 * ratio r to the reference stands for a fraction practice_fraction / r. */
#include "speed.h"

#include <stdio.h>

/* Contract in speed.h. */
double cml_practice_credit(cml_task_result *r, double fraction, char *buf, size_t len)
{
    const cml_task_spec *t = r->spec;
    const char *bound = cml_host_link(t) ? "pinned host link" : "device-to-device copy";
    r->timed = 0;
    r->ratio = 0;
    if (t->practice_fraction <= 0) {
        snprintf(buf, len, "speed not judged: practice grade without the reference solution, "
                 "and the spec gives task %s no practice_fraction: 0 of %g speed points", t->id,
                 t->perf_points);
        return 0;
    }
    if (!(fraction > 0)) {
        snprintf(buf, len, "speed not judged: practice grade, and this run measured no %s "
                 "bandwidth to compare with: 0 of %g speed points", bound, t->perf_points);
        return 0;
    }
    r->timed = 1;
    r->ratio = t->practice_fraction / fraction;
    snprintf(buf, len, "practice grade: %.3g of this GPU's %s bandwidth, the reference reaches "
             "%.3g: as %.2f" CML_RATIO_WORDS "%gx, none from %gx)",
             fraction, bound, t->practice_fraction, r->ratio, t->full_ratio, t->zero_ratio);
    return cml_perf_fraction(r->ratio, t->full_ratio, t->zero_ratio);
}
