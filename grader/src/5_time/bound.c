/* bound: what a time is measured against physically. A device task's bandwidth against the
 * device-to-device cudaMemcpy bandwidth of the same run; a host-involved task's time against
 * the least time the pinned host link allows. The plausibility flag (speed.c) and the practice
 * grade (speed_practice.c) read the same fraction. */
#include "speed.h"
#include "verify.h"

/* Contract in speed.h. */
int cml_host_link(const cml_task_spec *t)
{
    const cml_check *chk = cml_check_find(t->check);
    return chk && chk->link;
}

/* Contract in speed.h. */
double cml_bound_fraction(const cml_task_spec *t, const cml_case_spec *c, double ms,
                          double gbps, const cml_run_record *bw)
{
    const cml_check *chk = cml_check_find(t->check);
    if (!bw)
        return 0;
    if (chk && chk->link) {
        uint64_t h2d = 0, d2h = 0;
        chk->link(c, &h2d, &d2h);
        if (bw->link_h2d_gbps <= 0 || bw->link_d2h_gbps <= 0 || ms <= 0)
            return 0;
        const double up = h2d / (bw->link_h2d_gbps * 1e6), down = d2h / (bw->link_d2h_gbps * 1e6);
        return (up > down ? up : down) / ms;
    }
    return bw->copy_gbps > 0 ? gbps / bw->copy_gbps : 0;
}
