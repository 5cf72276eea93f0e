/* GPU g's lock file in a batch (batch_run.h, cml_batch_lock_path), shared by the scheduler's
 * gradings (batch_run.c) and the drift checks (batch_drift.c). Kept in batch_run.c, which
 * calls batch_drift.c, it made the two call each other. */
#include "batch_run.h"
#include "util.h"

/* Contract in batch_run.h. */
void cml_batch_lock_path(const cml_batch *b, int g, char *buf, size_t len)
{
    cml_fmt(buf, len, "%s/.gpu-%s.lock", b->out_abs, b->gpu[g][0] ? b->gpu[g] : "x");
}
