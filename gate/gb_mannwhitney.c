/* gb_mannwhitney: exact (ties included) and normal-approximation
 * Mann-Whitney U test. */
#include "gb_mannwhitney.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct mw_item {
  double v;
  int from_x;
} mw_item;

static int cmp_item(const void *a, const void *b) {
  double x = ((const mw_item *)a)->v, y = ((const mw_item *)b)->v;
  return (x > y) - (x < y);
}

/* Exact two-sided p from doubled midranks r2[0..n): count[j][s] = number of
 * j-subsets with doubled-rank sum s, built item by item (0/1 knapsack).
 * Counts are doubles: C(40, 20) = 1.4e11 < 2^53, so they stay exact. */
static gb_err exact_p(const long *r2, size_t n, size_t nx, long w2_obs, double *p) {
  long smax = 0;
  for (size_t i = 0; i < n; i++) smax += r2[i];
  size_t width = (size_t)smax + 1;
  double *count = calloc((nx + 1) * width, sizeof *count);
  if (!count) return gb_fail(GB_E_NOMEM, "out of memory for the exact Mann-Whitney distribution");
  count[0] = 1.0;
  for (size_t i = 0; i < n; i++) {
    size_t jmax = i + 1 < nx ? i + 1 : nx;
    for (size_t j = jmax; j >= 1; j--) {
      double *dst = count + j * width, *src = count + (j - 1) * width;
      for (long s = smax; s >= r2[i]; s--) dst[s] += src[s - r2[i]];
    }
  }
  /* E[2W] = nx (N + 1); two-sided: |2W - E| >= |2w - E|. All quantities are
   * integers, so the comparison is exact. */
  long e2 = (long)nx * (long)(n + 1);
  long d_obs = labs(w2_obs - e2);
  double total = 0, tail = 0;
  for (long s = 0; s <= smax; s++) {
    double c = count[nx * width + (size_t)s];
    total += c;
    if (labs(s - e2) >= d_obs) tail += c;
  }
  free(count);
  *p = tail / total;
  return GB_OK;
}

gb_err gb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, gb_mw_result *out) {
  memset(out, 0, sizeof *out);
  if (nx == 0 || ny == 0) return gb_fail(GB_E_INPUT, "Mann-Whitney test: a sample is empty (%zu, %zu)", nx, ny);
  size_t n = nx + ny;
  mw_item *it = malloc(n * sizeof *it);
  long *r2 = malloc(n * sizeof *r2);
  if (!it || !r2) {
    free(it);
    free(r2);
    return gb_fail(GB_E_NOMEM, "out of memory for a Mann-Whitney test");
  }
  for (size_t i = 0; i < n; i++) {
    it[i].v = i < nx ? x[i] : y[i - nx];
    it[i].from_x = i < nx;
    if (!isfinite(it[i].v)) {
      free(it);
      free(r2);
      return gb_fail(GB_E_INPUT, "Mann-Whitney test: a sample value is not finite");
    }
  }
  qsort(it, n, sizeof *it, cmp_item);
  /* Doubled midranks: a tie group at 1-based ranks a..b gets rank (a+b)/2,
   * doubled a+b. Tie term sum(t^3 - t) for the variance correction. */
  long w2 = 0;
  double tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && it[j + 1].v == it[i].v) j++;
    long doubled = (long)(i + 1) + (long)(j + 1);
    double t = (double)(j - i + 1);
    tie_term += t * t * t - t;
    for (size_t k = i; k <= j; k++) {
      r2[k] = doubled;
      if (it[k].from_x) w2 += doubled;
    }
    i = j + 1;
  }
  out->ties = tie_term > 0;
  /* U_x = W_x - nx (nx + 1) / 2 */
  out->u_x = (double)w2 / 2.0 - (double)nx * (double)(nx + 1) / 2.0;
  out->u_y = (double)nx * (double)ny - out->u_x;
  gb_err e = GB_OK;
  if (nx <= GB_MW_EXACT_MAX && ny <= GB_MW_EXACT_MAX) {
    out->exact = true;
    e = exact_p(r2, n, nx, w2, &out->p_value);
  } else {
    /* sigma^2 = nx ny / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1)));
     * z = (|U - nx ny / 2| - 1/2) / sigma; p = erfc(z / sqrt 2). */
    double dn = (double)n, mu = (double)nx * (double)ny / 2.0;
    double var = (double)nx * (double)ny / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
    if (var <= 0) {
      out->p_value = 1.0; /* every value equal: no evidence of a difference */
    } else {
      double d = fabs(out->u_x - mu) - 0.5;
      if (d < 0) d = 0;
      out->p_value = erfc(d / sqrt(var) / sqrt(2.0));
    }
  }
  if (out->p_value > 1.0) out->p_value = 1.0;
  free(it);
  free(r2);
  return e;
}
