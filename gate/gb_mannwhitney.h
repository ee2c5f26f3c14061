/* gb_mannwhitney: the two-sided Mann-Whitney U (Wilcoxon rank-sum) test
 * with ties handled.
 *
 * Small samples (both sides <= GB_MW_EXACT_MAX) get the exact permutation
 * distribution of the rank sum, ties included: midranks are doubled to
 * integers and the number of ways to pick nx of the N pooled values with each
 * doubled-rank sum is counted by dynamic programming. Larger samples use the
 * normal approximation with the tie-corrected variance and a continuity
 * correction. */
#ifndef GB_MANNWHITNEY_H
#define GB_MANNWHITNEY_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"

/* Largest sample size per side for which the exact distribution is used. */
#define GB_MW_EXACT_MAX 20

typedef struct gb_mw_result {
  double u_x;      /* U of the first sample: pairs (xi, yj) with xi > yj, ties count 1/2 */
  double u_y;      /* nx * ny - u_x */
  double p_value;  /* two-sided */
  bool exact;      /* true: exact distribution; false: normal approximation */
  bool ties;       /* the pooled sample holds ties */
} gb_mw_result;

/* Two-sided test of x[0..nx) against y[0..ny) (neither modified); both sides
 * need at least one value and finite values. The exact p-value is
 * P(|W - E W| >= |w - E W|) over all C(nx+ny, nx) equally likely labelings,
 * W the (mid)rank sum of x. Errors: GB_E_INPUT (empty side, non-finite
 * value), GB_E_NOMEM. */
gb_err gb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, gb_mw_result *out);

#endif
