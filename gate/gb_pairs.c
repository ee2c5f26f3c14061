/* gb_pairs: order statistics of pairwise differences without the pairs. */
#include "gb_pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

gb_err gb_pairs_add(gb_pairs *p, const double *x, size_t n) {
  if (p->ngroups == 0) p->max = NAN;
  if (n < 2) return GB_OK;
  if (p->n + n > p->cap) {
    size_t nc = p->cap ? p->cap : 64;
    while (nc < p->n + n) nc *= 2;
    double *v = realloc(p->v, nc * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory for run pairs");
    p->v = v;
    p->cap = nc;
  }
  if (p->ngroups == p->gcap) {
    size_t nc = p->gcap ? p->gcap * 2 : 16;
    size_t *e = realloc(p->end, nc * sizeof *e);
    if (!e) return gb_fail(GB_E_NOMEM, "out of memory for run pairs");
    p->end = e;
    p->gcap = nc;
  }
  double *g = p->v + p->n;
  memcpy(g, x, n * sizeof *g);
  qsort(g, n, sizeof *g, cmp_double);
  p->n += n;
  p->end[p->ngroups++] = p->n;
  p->npairs += (uint64_t)n * (n - 1) / 2;
  double d = g[n - 1] - g[0];
  if (isnan(p->max) || d > p->max) p->max = d;
  return GB_OK;
}

/* Pairs whose difference is at most v: per group, for each j the i <= j
 * with x[j] - x[i] <= v are a run ending at j; i only moves forward. */
static uint64_t count_le(const gb_pairs *p, double v) {
  uint64_t c = 0;
  size_t from = 0;
  for (size_t g = 0; g < p->ngroups; g++) {
    const double *x = p->v + from;
    size_t n = p->end[g] - from, i = 0;
    for (size_t j = 1; j < n; j++) {
      while (x[j] - x[i] > v) i++;
      c += j - i;
    }
    from = p->end[g];
  }
  return c;
}

static uint64_t bits_of(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

static double of_bits(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

double gb_pairs_kth(const gb_pairs *p, uint64_t k) {
  if (k >= p->npairs) return NAN;
  if (k == p->npairs - 1) return p->max;
  /* the smallest v with more than k pairs at or below it is a pair's value */
  uint64_t lo = 0, hi = bits_of(p->max);
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (count_le(p, of_bits(mid)) > k) hi = mid;
    else lo = mid + 1;
  }
  return of_bits(hi);
}

double gb_pairs_quantile(const gb_pairs *p, double q) {
  uint64_t n = p->npairs;
  if (n == 0) return NAN;
  if (q <= 0) return gb_pairs_kth(p, 0);
  if (q >= 1) return p->max;
  double pos = q * (double)(n - 1);
  uint64_t i = (uint64_t)pos;
  double f = pos - (double)i, lo = gb_pairs_kth(p, i);
  if (i + 1 >= n) return lo;
  double hi = gb_pairs_kth(p, i + 1);
  return lo + f * (hi - lo);
}

void gb_pairs_free(gb_pairs *p) {
  free(p->v);
  free(p->end);
  memset(p, 0, sizeof *p);
}
