/* ratio: the share of a task's performance points a time ratio to the reference earns, for a
 * graded run (speed.c) and a practice grade's stand-in ratio (speed_practice.c). */
#include "speed.h"

#include <math.h>

/* Contract in speed.h. */
double cml_perf_fraction(double ratio, double full_ratio, double zero_ratio)
{
    if (!isfinite(ratio) || ratio <= 0 || isnan(full_ratio) || isnan(zero_ratio))
        return 0;
    if (ratio <= full_ratio)
        return 1;
    if (ratio >= zero_ratio)
        return 0;
    return (zero_ratio - ratio) / (zero_ratio - full_ratio);
}
