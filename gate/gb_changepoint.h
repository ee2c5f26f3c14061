/* gb_changepoint: change points in a performance series by binary
 * segmentation with a robust noise scale, a minimum segment length, a
 * minimum effect size, and a test that tells a step from a ramp.
 *
 * 1. Noise: sigma = gb_cp_noise, the robust spread of successive values,
 *    which a step or a slow drift barely moves.
 * 2. Binary segmentation: in a segment of len values, each split tau with at
 *    least min_segment values either side has the step statistic
 *    t = |mean after - mean before| / (sigma sqrt(1/n1 + 1/n2)). The splits
 *    are tried strongest first (up to GB_CP_TRIES of them); the first whose
 *    median statistic (the medians either side against GB_CP_MEDIAN_SE x
 *    that, so that one spike is not a step) reaches gb_cp_critical(alpha,
 *    candidates, n) -- Bonferroni over the segment's candidate splits,
 *    widened when few values estimate the noise -- is accepted, and both
 *    pieces are segmented in turn. A segment's decision depends on that
 *    segment alone. Cost: O(n) per segment scanned (prefix sums), so a series
 *    of thousands of runs is analyzed whole, without windows.
 * 3. Pruning, the weakest first, the neighbours taken again after each: a
 *    change is dropped when its adjacent segments' means differ by less than
 *    min_effect_pct percent, or when one straight line through both
 *    segments fits nearly as well as the two means: the log-likelihood
 *    ratio (m/2) ln(RSS_line / RSS_step) over the m values of the two
 *    segments is under GB_CP_STEP_OVER_RAMP ln(m). A ramp (a drift, a
 *    trend) is cut into steps by binary segmentation; the steps do not beat
 *    the line there, a real step does.
 *
 * On the Turing Change Point Dataset (van den Burg and Williams 2020;
 * scripts/tcpd-score.py, docs/ci.md) the defaults score F1 0.753 (31
 * series; 0.761 on the ten held out), binary segmentation 0.725, reporting
 * no change 0.663. */
#ifndef GB_CHANGEPOINT_H
#define GB_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "gb_error.h"

/* A median's standard error over a mean's: sqrt(pi/2) = 1.2533 for normal
 * noise, more for lighter tails (sqrt(3) for uniform noise): 1.5. */
#define GB_CP_MEDIAN_SE 1.2533

/* A step must beat a line through its two segments by this many ln(m) of
 * log-likelihood (m values): 2 ln m, a Bayes factor of m^2. */
#define GB_CP_STEP_OVER_RAMP 2.0

/* A value this many sigma from the runs either side of it (the same way) is
 * a spike, not the start of a change (gb_changepoint.c: despike). */
#define GB_CP_SPIKE 4.0

typedef struct gb_cp_options {
  size_t min_segment;    /* values on each side of a change, at least 2 (default 3) */
  double alpha;          /* family-wise level of the step test per segment (default 0.001: with
                          * hundreds of series a history must not cry wolf) */
  size_t max_changes;    /* keep at most this many, the strongest; 0 (the default): no cap */
  double min_effect_pct; /* a change whose adjacent segment means differ by less than this percent
                          * is dropped (0: none for its size); default 0 here, the CLI's default
                          * is compare's --threshold */
} gb_cp_options;

/* The defaults above. */
gb_cp_options gb_cp_defaults(void);

typedef struct gb_change_point {
  size_t index;       /* first value of the new segment (0-based) */
  double p_value;     /* of the step test that accepted it (Bonferroni over the candidates) */
  double q;           /* its median step statistic over the critical value (>= 1) */
  double mean_before; /* of the adjacent segment before the change */
  double mean_after;  /* of the adjacent segment after the change */
} gb_change_point;

/* Finds change points in x[0..n) (not modified). Writes up to opt->max_changes
 * (0: n / min_segment) points, sorted by index, into out (caller's array of
 * at least that many) and their count into *nout. A series shorter than 2 * min_segment has none.
 * Errors: GB_E_INPUT (bad options, non-finite value), GB_E_NOMEM. */
gb_err gb_changepoints(const double *x, size_t n, const gb_cp_options *opt, gb_change_point *out, size_t *nout);

/* A series' noise robust to steps and drifts: 1.4826 x the median absolute
 * difference of successive values / sqrt(2); NaN for fewer than 2 values. */
double gb_cp_noise(const double *x, size_t n);

/* The step statistic a split of a segment with ncand candidate splits, in a
 * series of n values, must reach to be accepted at alpha. */
double gb_cp_critical(double alpha, size_t ncand, size_t n);

/* Whether a step at c between segments [lo, c) and [c, hi) of x beats one
 * straight line through [lo, hi) (step 3 above); its margin over the bound
 * (>= 1: it does) into *score when not NULL. */
int gb_cp_step_beats_ramp(const double *x, size_t lo, size_t c, size_t hi, double *score);

#endif
