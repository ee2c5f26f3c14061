/* gb_changepoint: change points in a series by E-divisive means (Matteson and
 * James 2014, as used by Apache Otava / Hunter), with a permutation test for
 * significance and a minimum segment length, so one spike is never a change.
 *
 * Procedure: within each current segment find the split tau maximizing over
 * kappa
 *   Q(tau, kappa) = m n / (m + n) * ( 2/(m n) sum_i,j |x_i - y_j|
 *                                     - 1/C(m,2) sum_i<k |x_i - x_k|
 *                                     - 1/C(n,2) sum_j<k |y_j - y_k| )
 * (X = the m values before tau, Y = the n values from tau up to kappa, both
 * at least min_segment long; kappa < the segment's end lets a shift that
 * returns, a bump, be found as well as a step). The segment with the largest Q is tested: its values are
 * shuffled `permutations` times (a seeded generator, so results repeat) and
 * p = (1 + #{shuffles whose best Q >= the observed Q}) / (1 + permutations).
 * If p <= alpha the split is accepted and the search goes on in the pieces;
 * otherwise it stops. The permutations stop as soon as p can no longer reach
 * alpha (an exact early stop: the decision is that of all of them).
 *
 * Before the permutations, a step clear of the series' noise is accepted at
 * once: t = |median after - median before| / (GB_CP_MEDIAN_SE sigma sqrt(1/n1 + 1/n2))
 * over the segment split at tau, sigma the series' robust noise (gb_cp_noise), against
 * gb_cp_critical (Bonferroni over the segment's candidate splits, widened
 * for a noise estimated from few values); its p is ncand x the two-sided
 * normal tail. So a 10% step in a 1%-noise series is flagged once 3 runs
 * follow 3, where 2 x 3 values allow no permutation p below 1/20. */
#ifndef GB_CHANGEPOINT_H
#define GB_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "gb_error.h"

/* A median's standard error over a mean's: sqrt(pi/2) = 1.2533 for normal
 * noise, more for lighter tails (sqrt(3) for uniform noise): 1.5. */
#define GB_CP_MEDIAN_SE 1.5

typedef struct gb_cp_options {
  size_t min_segment;   /* values on each side of a change, at least 2 (default 3) */
  size_t permutations;  /* shuffles per significance test (default 1999) */
  double alpha;         /* accept a change when p <= alpha (default 0.001: with hundreds of series
                         * a history must not cry wolf) */
  uint64_t seed;        /* shuffles' generator seed (default 1) */
  size_t max_changes;   /* stop after this many; 0 (the default): no cap, at most n / min_segment */
  double min_effect_pct; /* history: a change whose segment means differ by less than this percent
                          * is not reported (0: every significant change); default 0 here, the
                          * CLI's default is compare's --threshold */
} gb_cp_options;

/* The defaults above. */
gb_cp_options gb_cp_defaults(void);

typedef struct gb_change_point {
  size_t index;       /* first value of the new segment (0-based) */
  double p_value;     /* of the permutation test that accepted it */
  double q;           /* the statistic Q at the split */
  double mean_before; /* of the adjacent segment before the change */
  double mean_after;  /* of the adjacent segment after the change */
} gb_change_point;

/* A series longer than GB_CP_WINDOW values is analyzed in windows of that
 * many, each starting half a window after the last (the last ending at the
 * series' end), with alpha shared among them (Bonferroni: alpha / windows);
 * a change found by two windows counts once. Cost and memory then grow
 * with the series' length, not its square (a 4663-run history took 181 s
 * and 174 MB of work space per series). A change needs at most
 * GB_CP_WINDOW / 2 values on each side to be found, so a shift too small
 * to show in 128 runs either side is not. */
#define GB_CP_WINDOW 256

/* The windows a series of n values is analyzed in (1 up to GB_CP_WINDOW). */
size_t gb_cp_windows(size_t n);

/* The length of those windows: n up to GB_CP_WINDOW, else GB_CP_WINDOW. */
size_t gb_cp_window_len(size_t n);

/* The significance level each window of a series of n values uses. */
double gb_cp_window_alpha(double alpha, size_t n);

/* Finds change points in x[0..n) (not modified). Writes up to opt->max_changes
 * (0: n / min_segment) points, sorted by index, into out (caller's array of
 * at least that many) and their count into *nout. A series shorter than 2 * min_segment has none.
 * Errors: GB_E_INPUT (bad options, non-finite value), GB_E_NOMEM. */
gb_err gb_changepoints(const double *x, size_t n, const gb_cp_options *opt, gb_change_point *out, size_t *nout);

/* The best split of x[0..n) with both sides >= min_segment: returns its Q
 * (maximized over kappa) and
 * writes the split index (first value of the second part) to *tau; returns
 * -INFINITY when n < 2 * min_segment. scratch holds (n+1)*(n+1) doubles. */
double gb_cp_best_split(const double *x, size_t n, size_t min_segment, double *scratch, size_t *tau);

/* A series' noise robust to steps and drifts: 1.4826 x the median absolute
 * difference of successive values / sqrt(2); NaN for fewer than 2 values. */
double gb_cp_noise(const double *x, size_t n);

/* The step statistic a split of a segment with ncand candidate splits, in a
 * series of n values, must reach to be accepted without permutations at
 * alpha. */
double gb_cp_critical(double alpha, size_t ncand, size_t n);

#endif
