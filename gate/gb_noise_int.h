/* gb_noise_int: what gb_noise.c (reading, writing, lookups),
 * gb_noise_index.c (the lookups' index) and gb_noise_measure.c (measuring)
 * share inside gate/ (not an interface). */
#ifndef GB_NOISE_INT_H
#define GB_NOISE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_noise.h"

/* Appends a floor (its strings copied, numbers zero) to t, growing t->v by
 * *cap; *out points at it. Drops t's index (gb_noise_index_build builds it
 * again). GB_E_NOMEM. */
gb_err gb_noise_push(gb_noise_table *t, size_t *cap, const char *gpu, const char *bench, const char *metric,
                     const char *cls, const char *figure, gb_noise_floor **out);

/* The index's kinds of rows, one per lookup (a row may be of several):
 * class rows ("any", "same-gpu"; no figure, not peak, not cards) keyed by
 * benchmark, metric, size class, gpu_type; figure rows (the same, with a
 * figure), cards rows, peak rows (same_gpu or not) keyed by figure and
 * gpu_type. */
typedef enum gb_noise_cat {
  GB_NOISE_CAT_CLASS,
  GB_NOISE_CAT_CLASS_SAME_GPU,
  GB_NOISE_CAT_FIGURE,
  GB_NOISE_CAT_FIGURE_SAME_GPU,
  GB_NOISE_CAT_CARDS,
  GB_NOISE_CAT_PEAK,
  GB_NOISE_CAT_PEAK_SAME_GPU,
  GB_NOISE_CAT_COUNT
} gb_noise_cat;

/* (Re)builds t->idx over t's rows as they are now. GB_E_NOMEM. */
gb_err gb_noise_index_build(gb_noise_table *t);
void gb_noise_index_free(gb_noise_table *t);

/* The row of kind cat whose key equals k (4 strings for class rows, 2 for
 * the others): the first in the table's order, or with last the last one;
 * NULL when none. t->idx must be built. */
const gb_noise_floor *gb_noise_index_find(const gb_noise_table *t, gb_noise_cat cat, const char *const *k,
                                          bool last);

#endif
