/* An archive of a submission unpacked for the batch's plan (batch.h, cml_plan_extract): by the
 * plan (batch_plan.c) and by the platforms' gathering (platform_gather.c), which the plan calls.
 * Kept in batch_plan.c, it made the plan and platform_gather.c call each other. */
#include "batch.h"
#include "unpack.h"

#include <stdio.h>

/* Contract in batch.h. The module below the batch (unpack.h) does the work and keeps the
 * caps. */
int cml_plan_extract(const char *archive, enum cml_archive kind, const char *dir, char *why,
                     size_t len)
{
    char because[sizeof ((cml_plan_entry *)0)->unusable];
    if (cml_unpack(archive, kind, dir, because, sizeof because) == 0)
        return 0;
    snprintf(why, len, "not graded: %.230s", because);
    return -1;
}
