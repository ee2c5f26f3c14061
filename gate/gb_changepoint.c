/* gb_changepoint: E-divisive means change-point detection with a seeded
 * permutation test. */
#include "gb_changepoint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

gb_cp_options gb_cp_defaults(void) {
  gb_cp_options o = {.min_segment = 3, .permutations = 1999, .alpha = 0.001, .seed = 1, .max_changes = 0};
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

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double gb_cp_noise(const double *x, size_t n) {
  if (n < 2) return NAN;
  double *d = malloc((n - 1) * sizeof *d);
  if (!d) return NAN;
  for (size_t i = 0; i + 1 < n; i++) d[i] = fabs(x[i + 1] - x[i]);
  qsort(d, n - 1, sizeof *d, cmp_dbl);
  size_t m = n - 1;
  double med = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
  free(d);
  return 1.4826 * med / sqrt(2.0);
}

double gb_cp_critical(double alpha, size_t ncand, size_t n) {
  double a = alpha / (double)(ncand ? ncand : 1), lo = 0, hi = 40;
  for (int i = 0; i < 200; i++) {
    double mid = (lo + hi) / 2;
    if (erfc(mid / sqrt(2.0)) > a) lo = mid;
    else hi = mid;
  }
  double z = (lo + hi) / 2;
  /* the noise is estimated from the series itself: a Student-t-like widening
   * for its ~0.4 (n - 1) degrees of freedom (the MAD's efficiency) */
  double df = 0.4 * (double)(n > 1 ? n - 1 : 1);
  return z * (1.0 + (z * z + 1.0) / (4.0 * df));
}

static double median_of(const double *x, size_t n, double *tmp) {
  memcpy(tmp, x, n * sizeof *tmp);
  qsort(tmp, n, sizeof *tmp, cmp_dbl);
  return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* The step statistic of splitting x[0..len) at tau: |median after - median
 * before| / (GB_CP_MEDIAN_SE sigma sqrt(1/tau + 1/(len - tau))) (medians, so
 * that one spike is not a step). tmp holds len doubles. */
static double step_t(const double *x, size_t len, size_t tau, double sigma, double *tmp) {
  double a = median_of(x, tau, tmp), b = median_of(x + tau, len - tau, tmp);
  return fabs(b - a) / (GB_CP_MEDIAN_SE * sigma * sqrt(1.0 / (double)tau + 1.0 / (double)(len - tau)));
}

static int cmp_cp(const void *a, const void *b) {
  size_t x = ((const gb_change_point *)a)->index, y = ((const gb_change_point *)b)->index;
  return (x > y) - (x < y);
}

size_t gb_cp_windows(size_t n) {
  if (n <= GB_CP_WINDOW) return 1;
  return (n - GB_CP_WINDOW + GB_CP_WINDOW / 2 - 1) / (GB_CP_WINDOW / 2) + 1;
}

size_t gb_cp_window_len(size_t n) { return n < GB_CP_WINDOW ? n : GB_CP_WINDOW; }

double gb_cp_window_alpha(double alpha, size_t n) { return alpha / (double)gb_cp_windows(n); }

/* Work space of one analysis of up to n values. */
typedef struct cp_work {
  double *scratch, *shuffled;
  size_t *bounds;
} cp_work;

/* E-divisive on x[0..n) (one window of a series of n_series values whose
 * noise is sigma), accepting changes at alpha; up to cap of them, in the
 * order accepted, into out. */
static void cp_run(const double *x, size_t n, size_t n_series, const gb_cp_options *opt, double alpha, double sigma,
                   uint64_t *rng, cp_work *w, size_t cap, gb_change_point *out, size_t *nout) {
  double *scratch = w->scratch, *shuffled = w->shuffled;
  size_t *bounds = w->bounds;
  size_t nb = 2;
  bounds[0] = 0;
  bounds[1] = n;
  *nout = 0;
  while (*nout < cap) {
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
    /* a step clear of the series' noise is accepted at once (Bonferroni over
     * the candidate splits); otherwise the permutation test decides, stopped
     * as soon as its p can no longer reach alpha */
    size_t ncand = len - 2 * opt->min_segment + 1;
    double tstat = step_t(x + a, len, best_tau - a, sigma, shuffled);
    double p_par = fmin(1.0, (double)ncand * erfc(tstat / sqrt(2.0)));
    double pv;
    if (tstat >= gb_cp_critical(alpha, ncand, n_series)) {
      pv = p_par;
    } else {
      memcpy(shuffled, x + a, len * sizeof *shuffled);
      size_t at_least = 0, done = 0;
      double stop = alpha * (double)(opt->permutations + 1) - 1.0; /* at_least above this: p > alpha */
      for (size_t p = 0; p < opt->permutations && (double)at_least <= stop; p++, done++) {
        for (size_t i = len - 1; i > 0; i--) { /* Fisher-Yates */
          size_t j = next_below(rng, i + 1);
          double t = shuffled[i];
          shuffled[i] = shuffled[j];
          shuffled[j] = t;
        }
        size_t tau;
        /* relative tolerance: equal statistics computed in another order */
        if (gb_cp_best_split(shuffled, len, opt->min_segment, scratch, &tau) >= best_q - 1e-12 * fabs(best_q))
          at_least++;
      }
      pv = (1.0 + (double)at_least) / (1.0 + (double)(done < opt->permutations ? done : opt->permutations));
      if ((double)at_least > stop) break;
    }
    if (pv > alpha) break;
    gb_change_point *c = &out[(*nout)++];
    c->index = best_tau;
    c->p_value = pv;
    c->q = best_q;
    memmove(bounds + best_seg + 2, bounds + best_seg + 1, (nb - best_seg - 1) * sizeof *bounds);
    bounds[best_seg + 1] = best_tau;
    nb++;
  }
}

static int cmp_cp_p(const void *a, const void *b) {
  const gb_change_point *x = a, *y = b;
  if (x->p_value != y->p_value) return x->p_value < y->p_value ? -1 : 1;
  if (x->q != y->q) return x->q > y->q ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

gb_err gb_changepoints(const double *x, size_t n, const gb_cp_options *opt, gb_change_point *out, size_t *nout) {
  *nout = 0;
  if (opt->min_segment < 2 || opt->permutations < 1 || !(opt->alpha > 0 && opt->alpha < 1))
    return gb_fail(GB_E_INPUT, "change points: min_segment must be >= 2, permutations >= 1, 0 < alpha < 1");
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return gb_fail(GB_E_INPUT, "change points: value %zu is not finite", i);
  if (n < 2 * opt->min_segment) return GB_OK;
  size_t cap = opt->max_changes ? opt->max_changes : n / opt->min_segment;
  /* the series' own noise, robust to steps: for the parametric test */
  double sigma = gb_cp_noise(x, n), scale = fabs(mean_of(x, n)) + 1.0;
  if (!(sigma > 1e-12 * scale)) sigma = 1e-12 * scale;
  size_t nwin = gb_cp_windows(n), wlen = gb_cp_window_len(n);
  size_t wcap = wlen / opt->min_segment + 1, ncand = 0;
  cp_work w = {malloc((wlen + 1) * (wlen + 1) * sizeof *w.scratch), malloc(wlen * sizeof *w.shuffled),
               malloc((wcap + 2) * sizeof *w.bounds)};
  gb_change_point *found = malloc(nwin * wcap * sizeof *found);
  if (!w.scratch || !w.shuffled || !w.bounds || !found) {
    free(w.scratch);
    free(w.shuffled);
    free(w.bounds);
    free(found);
    return gb_fail(GB_E_NOMEM, "out of memory for change-point detection of %zu values", n);
  }
  /* windows of GB_CP_WINDOW values, each half a window after the last, the
   * last ending at the series' end; alpha shared among them (Bonferroni) */
  double alpha = gb_cp_window_alpha(opt->alpha, n);
  for (size_t k = 0; k < nwin; k++) {
    size_t start = k + 1 < nwin ? k * (GB_CP_WINDOW / 2) : n - wlen, got = 0;
    uint64_t rng = opt->seed + (uint64_t)k * 0x9E3779B97F4A7C15ull;
    cp_run(x + start, wlen, n, opt, alpha, sigma, &rng, &w, cap < wcap ? cap : wcap, found + ncand, &got);
    for (size_t i = 0; i < got; i++) found[ncand + i].index += start;
    ncand += got;
  }
  /* one change where overlapping windows found it twice (closer than a
   * minimum segment): the most significant; the strongest first when over cap */
  qsort(found, ncand, sizeof *found, cmp_cp_p);
  for (size_t i = 0; i < ncand && *nout < cap; i++) {
    bool near = false;
    for (size_t j = 0; j < *nout && !near; j++) {
      size_t a = found[i].index, b = out[j].index;
      near = (a > b ? a - b : b - a) < opt->min_segment;
    }
    if (!near) out[(*nout)++] = found[i];
  }
  qsort(out, *nout, sizeof *out, cmp_cp);
  /* means of the final segments on either side of each change */
  for (size_t i = 0; i < *nout; i++) {
    size_t lo = i ? out[i - 1].index : 0, mid = out[i].index, hi = i + 1 < *nout ? out[i + 1].index : n;
    out[i].mean_before = mean_of(x + lo, mid - lo);
    out[i].mean_after = mean_of(x + mid, hi - mid);
  }
  free(w.scratch);
  free(w.shuffled);
  free(w.bounds);
  free(found);
  return GB_OK;
}
