/* gb_stats: median, spread and quantiles of samples. */
#include "gb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double quantile_sorted(const double *s, size_t n, double q) {
  if (n == 0) return NAN;
  if (q <= 0) return s[0];
  if (q >= 1) return s[n - 1];
  double pos = q * (double)(n - 1);
  size_t i = (size_t)pos;
  double f = pos - (double)i;
  return i + 1 < n ? s[i] + f * (s[i + 1] - s[i]) : s[i];
}

double gb_quantile(const double *x, size_t n, double q) {
  if (n == 0) return NAN;
  double *s = malloc(n * sizeof *s);
  if (!s) return NAN;
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double v = quantile_sorted(s, n, q);
  free(s);
  return v;
}

double gb_median(const double *x, size_t n) { return gb_quantile(x, n, 0.5); }

gb_stats gb_stats_of(const double *x, size_t n) {
  gb_stats st = {.n = n, .median = NAN, .min = NAN, .max = NAN, .mean = NAN, .stddev = NAN, .p99 = NAN, .cv = NAN};
  if (n == 0) return st;
  double *s = malloc(n * sizeof *s);
  if (!s) {
    st.n = 0;
    return st;
  }
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  st.min = s[0];
  st.max = s[n - 1];
  st.median = quantile_sorted(s, n, 0.5);
  st.p99 = quantile_sorted(s, n, 0.99);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += s[i];
  st.mean = sum / (double)n;
  double ss = 0;
  for (size_t i = 0; i < n; i++) ss += (s[i] - st.mean) * (s[i] - st.mean);
  st.stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
  st.cv = st.mean != 0 ? st.stddev / fabs(st.mean) : 0.0;
  free(s);
  return st;
}
