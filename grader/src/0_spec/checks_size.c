/* The size arithmetic every table of checks (checks.c and the labs' checks_*.c) shares. Its
 * own file because checks.c lists the labs' tables: kept in checks.c, it made checks.c and
 * the labs' files call each other. */
#include "checks.h"

/* Contract in checks.h. */
uint64_t cml_mul_sat(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}
