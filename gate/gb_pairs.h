/* gb_pairs: order statistics of |a - b| over every pair of values inside
 * groups, without listing the pairs.
 *
 * The noise floors (gb_noise.h) are quantiles of |ln x_i - ln x_j| over
 * every pair of runs of each figure of a class: n runs make n(n-1)/2 pairs,
 * so listing them costs time and memory quadratic in the runs (2,000 runs of
 * 7 figures: 14 million pairs, 17 s and 216 MB). Here each group (a figure's
 * runs, or its runs on one card) is kept sorted; the number of pairs whose
 * difference is at most v is counted with two pointers in O(n), and the
 * k-th smallest difference is found by bisecting on the bits of v (a
 * non-negative double's bits order as its value), 64 counts at most: the
 * exact pair value, O(n log n) time and O(n) memory.
 *
 * A pair's difference is computed as x[j] - x[i] of the sorted group (j > i),
 * which is monotone in both indices, so the counts and the value found are
 * consistent to the last bit. */
#ifndef GB_PAIRS_H
#define GB_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "gb_error.h"

typedef struct gb_pairs {
  double *v;        /* the groups' values, each group sorted ascending */
  size_t n, cap;
  size_t *end;      /* end[g]: one past group g's last value in v */
  size_t ngroups, gcap;
  uint64_t npairs;  /* pairs over all groups: sum of n_g (n_g - 1) / 2 */
  double max;       /* the largest difference (NAN with no pair) */
} gb_pairs;

/* Adds a group of n values (copied; NaN-free). GB_E_NOMEM. A group of one
 * value adds no pair. */
gb_err gb_pairs_add(gb_pairs *p, const double *x, size_t n);

/* The k-th smallest difference over every pair (0-based); NAN when k >=
 * npairs. */
double gb_pairs_kth(const gb_pairs *p, uint64_t k);

/* The q-quantile of the differences with gb_quantile's interpolation
 * (position q (N - 1) between the two order statistics around it); NAN
 * with no pair. */
double gb_pairs_quantile(const gb_pairs *p, double q);

void gb_pairs_free(gb_pairs *p);

#endif
