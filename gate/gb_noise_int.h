/* gb_noise_int: what gb_noise.c (reading, writing, lookups) and
 * gb_noise_measure.c (measuring) share inside gate/ (not an interface). */
#ifndef GB_NOISE_INT_H
#define GB_NOISE_INT_H

#include <stddef.h>

#include "gb_noise.h"

/* Appends a floor (its strings copied, numbers zero) to t, growing t->v by
 * *cap; *out points at it. GB_E_NOMEM. */
gb_err gb_noise_push(gb_noise_table *t, size_t *cap, const char *gpu, const char *bench, const char *metric,
                     const char *cls, const char *figure, gb_noise_floor **out);

#endif
