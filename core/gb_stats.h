/* gb_stats: summary statistics of timed samples. */
#ifndef GB_STATS_H
#define GB_STATS_H

#include <stddef.h>

typedef struct gb_stats {
  size_t n;
  double median, min, max, mean, stddev; /* stddev: sample (n-1) */
  double p99;
  double cv; /* stddev / mean, 0 when mean is 0 */
} gb_stats;

/* Summarizes x[0..n) (not modified). n == 0 gives all NaN and n = 0. */
gb_stats gb_stats_of(const double *x, size_t n);

/* Median of x[0..n) (not modified); NaN when n == 0. */
double gb_median(const double *x, size_t n);

/* Quantile q in [0,1] by linear interpolation between order statistics. */
double gb_quantile(const double *x, size_t n, double q);

#endif
