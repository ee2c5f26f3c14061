/* gb_changepoint: binary segmentation on a robust noise scale, pruned by
 * effect size and by a step-against-ramp test (gb_changepoint.h). */
#include "gb_changepoint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

gb_cp_options gb_cp_defaults(void) {
  gb_cp_options o = {.min_segment = 3, .alpha = 0.001, .max_changes = 0, .min_effect_pct = 0};
  return o;
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

/* Sum of squares about the mean, and about the least-squares line over the
 * index, of x[lo..hi) (two passes, centred: exact enough for any scale). */
static double rss_mean(const double *x, size_t lo, size_t hi) {
  double m = 0, r = 0;
  for (size_t i = lo; i < hi; i++) m += x[i];
  m /= (double)(hi - lo);
  for (size_t i = lo; i < hi; i++) r += (x[i] - m) * (x[i] - m);
  return r;
}

static double rss_line(const double *x, size_t lo, size_t hi) {
  double n = (double)(hi - lo), mi = (n - 1) / 2, my = 0, sxx = 0, sxy = 0, syy = 0;
  for (size_t i = lo; i < hi; i++) my += x[i];
  my /= n;
  for (size_t i = lo; i < hi; i++) {
    double di = (double)(i - lo) - mi, dy = x[i] - my;
    sxx += di * di;
    sxy += di * dy;
    syy += dy * dy;
  }
  double r = sxx > 0 ? syy - sxy * sxy / sxx : syy;
  return r > 0 ? r : 0;
}

int gb_cp_step_beats_ramp(const double *x, size_t lo, size_t c, size_t hi, double *score) {
  double rs = rss_mean(x, lo, c) + rss_mean(x, c, hi), rl = rss_line(x, lo, hi), m = (double)(hi - lo);
  double s;
  /* negative where the line fits better: the more so, the sooner dropped */
  if (!(rs > 0)) s = rl > 0 ? INFINITY : 0;
  else if (!(rl > 0)) s = -INFINITY;
  else s = m / 2 * log(rl / rs) / (GB_CP_STEP_OVER_RAMP * log(m));
  if (score) *score = s;
  return s >= 1;
}

/* Work space: prefix sums, a median buffer, the despiked series, the segment stack. */
typedef struct cp_work {
  double *sum;       /* sum[i] = x[0] + ... + x[i-1] (centred) */
  double *tmp;       /* medians */
  double *clean;     /* the series without its spikes */
  size_t *stack;     /* segments still to split: pairs lo, hi */
} cp_work;

/* The accepted split of [lo, hi) -- the one with the largest mean step
 * statistic, when that reaches the critical value -- or 0 when the segment
 * stays whole; its p and margin into c. */
static size_t split_segment(size_t lo, size_t hi, size_t n, double sigma, const gb_cp_options *opt,
                            const double *sum, gb_change_point *c) {
  size_t len = hi - lo, ms = opt->min_segment, best_at = 0;
  if (len < 2 * ms) return 0;
  double best = -1;
  for (size_t t = lo + ms; t + ms <= hi; t++) {
    double a = (sum[t] - sum[lo]) / (double)(t - lo), b = (sum[hi] - sum[t]) / (double)(hi - t);
    double st = fabs(b - a) / (sigma * sqrt(1.0 / (double)(t - lo) + 1.0 / (double)(hi - t)));
    if (st > best) {
      best = st;
      best_at = t;
    }
  }
  size_t ncand = len - 2 * ms + 1;
  double crit = gb_cp_critical(opt->alpha, ncand, n);
  if (best < crit) return 0;
  c->index = best_at;
  c->q = best / crit;
  c->p_value = fmin(1.0, (double)ncand * erfc(best / sqrt(2.0)));
  return best_at;
}

/* A copy of x with each spike -- a value more than GB_CP_SPIKE sigma from
 * the medians of the up to min_segment values before it and after it alike
 * (fewer than min_segment runs off: never a change) -- replaced by the
 * nearer of the two medians. */
static void despike(const double *x, size_t n, size_t ms, double sigma, double *y, double *tmp) {
  for (size_t i = 0; i < n; i++) {
    y[i] = x[i];
    size_t a = i >= ms ? i - ms : 0, b = i + 1 + ms <= n ? i + 1 + ms : n;
    if (a == i || b == i + 1) continue;
    double before = median_of(x + a, i - a, tmp), after = median_of(x + i + 1, b - i - 1, tmp);
    double db = x[i] - before, da = x[i] - after;
    if (fabs(db) > GB_CP_SPIKE * sigma && fabs(da) > GB_CP_SPIKE * sigma && db * da > 0)
      y[i] = fabs(db) < fabs(da) ? before : after;
  }
}

static double mean_of(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i];
  return n ? s / (double)n : NAN;
}

/* Step 3: drops the weakest change failing the effect size or the ramp
 * test, again and again, the neighbours taken again after each. */
static void prune(const double *x, size_t n, double min_pct, gb_change_point *cp, size_t *ncp) {
  for (;;) {
    double worst = 1;
    size_t at = *ncp;
    for (size_t i = 0; i < *ncp; i++) {
      size_t lo = i ? cp[i - 1].index : 0, c = cp[i].index, hi = i + 1 < *ncp ? cp[i + 1].index : n;
      double ramp, a = mean_of(x + lo, c - lo), b = mean_of(x + c, hi - c);
      gb_cp_step_beats_ramp(x, lo, c, hi, &ramp);
      double score = ramp;
      if (min_pct > 0) {
        double pct = a != 0 ? fabs(b / a - 1.0) * 100 : INFINITY;
        if (pct / min_pct < score) score = pct / min_pct;
      }
      if (score < worst) {
        worst = score;
        at = i;
      }
    }
    if (at == *ncp) return;
    memmove(cp + at, cp + at + 1, (*ncp - at - 1) * sizeof *cp);
    (*ncp)--;
  }
}

static int cmp_cp(const void *a, const void *b) {
  size_t x = ((const gb_change_point *)a)->index, y = ((const gb_change_point *)b)->index;
  return (x > y) - (x < y);
}

static int cmp_cp_strength(const void *a, const void *b) {
  double x = ((const gb_change_point *)a)->q, y = ((const gb_change_point *)b)->q;
  return (x < y) - (x > y);
}

/* Binary segmentation of x[0..n) into cp (room for n / min_segment + 1). */
static void segment(size_t n, double sigma, const gb_cp_options *opt, cp_work *w,
                    gb_change_point *cp, size_t *ncp) {
  size_t top = 0;
  w->stack[top++] = 0;
  w->stack[top++] = n;
  while (top) {
    size_t hi = w->stack[--top], lo = w->stack[--top];
    gb_change_point c;
    size_t t = split_segment(lo, hi, n, sigma, opt, w->sum, &c);
    if (!t) continue;
    cp[(*ncp)++] = c;
    w->stack[top++] = lo;
    w->stack[top++] = t;
    w->stack[top++] = t;
    w->stack[top++] = hi;
  }
}

gb_err gb_changepoints(const double *x, size_t n, const gb_cp_options *opt, gb_change_point *out, size_t *nout) {
  *nout = 0;
  if (opt->min_segment < 2 || !(opt->alpha > 0 && opt->alpha < 1) || !(opt->min_effect_pct >= 0))
    return gb_fail(GB_E_INPUT, "change points: min_segment must be >= 2, 0 < alpha < 1, min effect >= 0");
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return gb_fail(GB_E_INPUT, "change points: value %zu is not finite", i);
  if (n < 2 * opt->min_segment) return GB_OK;
  double sigma = gb_cp_noise(x, n), scale = fabs(mean_of(x, n)) + 1.0, centre = x[0];
  if (!(sigma > 1e-12 * scale)) sigma = 1e-12 * scale;
  size_t room = n / opt->min_segment + 1, ncp = 0;
  cp_work w = {malloc((n + 1) * sizeof *w.sum), malloc(n * sizeof *w.tmp),
               malloc(n * sizeof *w.clean), malloc(4 * room * sizeof *w.stack)};
  gb_change_point *cp = malloc(room * sizeof *cp);
  gb_err e = GB_OK;
  if (!w.sum || !w.tmp || !w.clean || !w.stack || !cp) {
    e = gb_fail(GB_E_NOMEM, "out of memory for change-point detection of %zu values", n);
    goto done;
  }
  despike(x, n, opt->min_segment, sigma, w.clean, w.tmp);
  w.sum[0] = 0;
  for (size_t i = 0; i < n; i++) w.sum[i + 1] = w.sum[i] + (w.clean[i] - centre);
  segment(n, sigma, opt, &w, cp, &ncp);
  qsort(cp, ncp, sizeof *cp, cmp_cp);
  prune(w.clean, n, opt->min_effect_pct, cp, &ncp);
  size_t cap = opt->max_changes ? opt->max_changes : room;
  if (ncp > cap) { /* the strongest, back in order */
    qsort(cp, ncp, sizeof *cp, cmp_cp_strength);
    ncp = cap;
    qsort(cp, ncp, sizeof *cp, cmp_cp);
  }
  for (size_t i = 0; i < ncp; i++) {
    size_t lo = i ? cp[i - 1].index : 0, mid = cp[i].index, hi = i + 1 < ncp ? cp[i + 1].index : n;
    cp[i].mean_before = mean_of(x + lo, mid - lo);
    cp[i].mean_after = mean_of(x + mid, hi - mid);
    out[i] = cp[i];
  }
  *nout = ncp;
done:
  free(w.sum);
  free(w.tmp);
  free(w.clean);
  free(w.stack);
  free(cp);
  return e;
}
