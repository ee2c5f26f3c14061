/* gb_changepoint: E-divisive means change-point detection with a seeded
 * permutation test. */
#include "gb_changepoint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

gb_cp_options gb_cp_defaults(void) {
  gb_cp_options o = {.min_segment = 3, .permutations = 1999, .alpha = 0.001, .seed = 1, .max_changes = 8};
  return o;
}

/* splitmix64: a small, well-mixed generator; the same seed gives the same
 * shuffles on every machine. */
static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias (rejection). */
static size_t next_below(uint64_t *s, size_t bound) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t r;
  do r = next_u64(s);
  while (r >= limit);
  return (size_t)(r % bound);
}

double gb_cp_best_split(const double *x, size_t n, size_t min_segment, double *P, size_t *tau) {
  *tau = 0;
  if (min_segment < 1 || n < 2 * min_segment) return -INFINITY;
  /* P[(i)(n+1) + j] = sum over a < i, b < j of |x_a - x_b| (2-D prefix sums), so
   * the sum over a block [a0,a1) x [b0,b1) is four look-ups. */
  size_t w = n + 1;
  for (size_t j = 0; j <= n; j++) P[j] = 0;
  for (size_t i = 1; i <= n; i++) {
    double row = 0;
    P[i * w] = 0;
    for (size_t j = 1; j <= n; j++) {
      row += fabs(x[i - 1] - x[j - 1]);
      P[i * w + j] = P[(i - 1) * w + j] + row;
    }
  }
#define BLOCK(a0, a1, b0, b1) (P[(a1) * w + (b1)] - P[(a0) * w + (b1)] - P[(a1) * w + (b0)] + P[(a0) * w + (b0)])
  /* Matteson and James: Y may end before the segment does (kappa), so a
   * shift that comes back (a bump) is found as well as a step. */
  double best = -INFINITY;
  for (size_t t = min_segment; t + min_segment <= n; t++)
    for (size_t kap = t + min_segment; kap <= n; kap++) {
      double m = (double)t, k = (double)(kap - t);
      double between = BLOCK(0, t, t, kap);      /* sum |x_i - y_j| */
      double within_x = BLOCK(0, t, 0, t) / 2;   /* each pair counted twice */
      double within_y = BLOCK(t, kap, t, kap) / 2;
      double e = 2.0 * between / (m * k) - within_x / (m * (m - 1) / 2) - within_y / (k * (k - 1) / 2);
      double q = m * k / (m + k) * e;
      if (q > best) {
        best = q;
        *tau = t;
      }
    }
#undef BLOCK
  return best;
}

static double mean_of(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i];
  return n ? s / (double)n : NAN;
}

static int cmp_cp(const void *a, const void *b) {
  size_t x = ((const gb_change_point *)a)->index, y = ((const gb_change_point *)b)->index;
  return (x > y) - (x < y);
}

gb_err gb_changepoints(const double *x, size_t n, const gb_cp_options *opt, gb_change_point *out, size_t *nout) {
  *nout = 0;
  if (opt->min_segment < 2 || opt->permutations < 1 || !(opt->alpha > 0 && opt->alpha < 1) || opt->max_changes < 1)
    return gb_fail(GB_E_INPUT, "change points: min_segment must be >= 2, permutations >= 1, 0 < alpha < 1");
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return gb_fail(GB_E_INPUT, "change points: value %zu is not finite", i);
  if (n < 2 * opt->min_segment) return GB_OK;
  double *scratch = malloc((n + 1) * (n + 1) * sizeof *scratch);
  double *shuffled = malloc(n * sizeof *shuffled);
  size_t *bounds = malloc((opt->max_changes + 2) * sizeof *bounds); /* sorted segment starts + n */
  if (!scratch || !shuffled || !bounds) {
    free(scratch);
    free(shuffled);
    free(bounds);
    return gb_fail(GB_E_NOMEM, "out of memory for change-point detection of %zu values", n);
  }
  uint64_t rng = opt->seed;
  size_t nb = 2;
  bounds[0] = 0;
  bounds[1] = n;
  while (*nout < opt->max_changes) {
    /* the segment whose best split is strongest */
    double best_q = -INFINITY;
    size_t best_seg = 0, best_tau = 0;
    for (size_t s = 0; s + 1 < nb; s++) {
      size_t tau;
      double q = gb_cp_best_split(x + bounds[s], bounds[s + 1] - bounds[s], opt->min_segment, scratch, &tau);
      if (q > best_q) {
        best_q = q;
        best_seg = s;
        best_tau = bounds[s] + tau;
      }
    }
    if (best_q == -INFINITY) break;
    size_t a = bounds[best_seg], len = bounds[best_seg + 1] - a;
    memcpy(shuffled, x + a, len * sizeof *shuffled);
    size_t at_least = 0;
    for (size_t p = 0; p < opt->permutations; p++) {
      for (size_t i = len - 1; i > 0; i--) { /* Fisher-Yates */
        size_t j = next_below(&rng, i + 1);
        double t = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = t;
      }
      size_t tau;
      /* relative tolerance: equal statistics computed in another order */
      if (gb_cp_best_split(shuffled, len, opt->min_segment, scratch, &tau) >= best_q - 1e-12 * fabs(best_q)) at_least++;
    }
    double pv = (1.0 + (double)at_least) / (1.0 + (double)opt->permutations);
    if (pv > opt->alpha) break;
    gb_change_point *c = &out[(*nout)++];
    c->index = best_tau;
    c->p_value = pv;
    c->q = best_q;
    memmove(bounds + best_seg + 2, bounds + best_seg + 1, (nb - best_seg - 1) * sizeof *bounds);
    bounds[best_seg + 1] = best_tau;
    nb++;
  }
  qsort(out, *nout, sizeof *out, cmp_cp);
  /* means of the final segments on either side of each change */
  for (size_t i = 0; i < *nout; i++) {
    size_t lo = i ? out[i - 1].index : 0, mid = out[i].index, hi = i + 1 < *nout ? out[i + 1].index : n;
    out[i].mean_before = mean_of(x + lo, mid - lo);
    out[i].mean_after = mean_of(x + mid, hi - mid);
  }
  free(scratch);
  free(shuffled);
  free(bounds);
  return GB_OK;
}
