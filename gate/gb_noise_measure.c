/* gb_noise_measure: noise floors measured from the runs (gb_noise.h).
 *
 * Linear in the runs: a class's pairs of runs are never listed (gb_pairs
 * finds their quantiles from the sorted runs), and a figure's runs are
 * grouped by card once, by sorting, not by comparing every run with every
 * other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_direction.h"
#include "gb_noise.h"
#include "gb_noise_int.h"
#include "gb_pairs.h"
#include "gb_stats.h"

typedef struct fig_row {
  const gb_row *row;
  char *key; /* figure key (settings included), then the run id */
} fig_row;

static int cmp_fig(const void *a, const void *b) {
  const fig_row *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c) return c;
  return strcmp(x->row->run_id, y->row->run_id);
}

typedef struct fig_sd {
  const gb_row *row;
  double sd;  /* of ln over its runs */
  size_t df;  /* runs - 1 */
  double psd, pwsd; /* of ln(peak) over its runs; pooled within GPUs */
  size_t pdf, pwdf; /* their degrees of freedom; pdf 0: no peak */
  double csd;       /* of the cards' mean ln over the cards (card-to-card spread) */
  size_t cdf;       /* cards - 1; 0: fewer than 2 cards recorded */
  double wsd;       /* of ln pooled within each card's runs (one card's run-to-run spread) */
  size_t wdf;       /* its degrees of freedom: runs - cards over the cards recorded */
} fig_sd;

typedef struct class_acc {
  char *name; /* benchmark \x1f metric \x1f size class */
  const gb_row *row;
  size_t figures;
  gb_pairs any;  /* |ln ratio| over every pair of runs of each figure */
  gb_pairs same; /* over the pairs of runs on one GPU */
  fig_sd *figs;
  size_t nfigs, figcap;
} class_acc;

static int cmp_class(const void *a, const void *b) {
  return strcmp(((const class_acc *)a)->name, ((const class_acc *)b)->name);
}

static char *fig_key(const gb_row *r) {
  gb_buf b = {0};
  gb_buf_printf(&b, "%s\x1f%d\x1f%s\x1f%s\x1f%s\x1f%lld\x1f%lld\x1f%lld\x1f%lld\x1f%s\x1f%s", r->gpu_type,
                r->gpu_count, r->benchmark, r->case_name, r->dtype, (long long)r->m, (long long)r->n,
                (long long)r->k, (long long)r->bytes, r->metric, r->settings);
  if (gb_buf_append(&b, "", 1)) {
    gb_buf_free(&b);
    return NULL;
  }
  return b.data;
}

typedef struct card_ix {
  const char *uuid;
  size_t run; /* index into the figure's runs */
} card_ix;

typedef struct card_grp {
  size_t first;    /* the card's first run */
  size_t from, to; /* its runs: ix[from] .. ix[to - 1], in order */
} card_grp;

/* One figure's runs: per run its value (the median of its repetitions),
 * peak and GPU; the runs that recorded a GPU grouped by card, the cards in
 * the order they first appear. Every buffer holds one entry per run. */
typedef struct fig_runs {
  double *vals, *peaks, *lnv, *scratch;
  const char **uuids;
  size_t nv;
  card_ix *ix;
  card_grp *grp;
  size_t ncards;
} fig_runs;

static int cmp_card_ix(const void *a, const void *b) {
  const card_ix *x = a, *y = b;
  int c = strcmp(x->uuid, y->uuid);
  return c ? c : (x->run > y->run) - (x->run < y->run);
}

static int cmp_card_grp(const void *a, const void *b) {
  const card_grp *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

/* Groups the runs by card: O(n log n), where comparing every run with
 * every other was quadratic. */
static void group_cards(fig_runs *f) {
  size_t n = 0;
  for (size_t i = 0; i < f->nv; i++)
    if (f->uuids[i][0]) f->ix[n++] = (card_ix){.uuid = f->uuids[i], .run = i};
  if (n) qsort(f->ix, n, sizeof *f->ix, cmp_card_ix);
  f->ncards = 0;
  for (size_t k = 0; k < n;) {
    size_t e = k + 1;
    while (e < n && strcmp(f->ix[e].uuid, f->ix[k].uuid) == 0) e++;
    f->grp[f->ncards++] = (card_grp){.first = f->ix[k].run, .from = k, .to = e};
    k = e;
  }
  if (f->ncards) qsort(f->grp, f->ncards, sizeof *f->grp, cmp_card_grp);
}

/* The spread of ln(x) pooled within each GPU's runs (*wsd, NaN with no
 * degree of freedom; *wdf = runs - cards over the cards recorded). */
static void within_spread(const fig_runs *f, const double *x, double *wsd, size_t *wdf) {
  double wss = 0;
  *wsd = NAN;
  *wdf = 0;
  for (size_t g = 0; g < f->ncards; g++) {
    const card_grp *c = &f->grp[g];
    double m = 0, n = 0, s2 = 0;
    for (size_t k = c->from; k < c->to; k++) m += log(x[f->ix[k].run]), n++;
    m /= n;
    for (size_t k = c->from; k < c->to; k++) s2 += (log(x[f->ix[k].run]) - m) * (log(x[f->ix[k].run]) - m);
    wss += s2;
    *wdf += (size_t)n - 1;
  }
  if (*wdf) *wsd = sqrt(wss / (double)*wdf);
}

/* The spread of ln(peaks) over the runs (*sd, df nv - 1) and pooled within
 * each GPU's runs (*wsd, *wdf); *sd NaN when a peak is unknown. */
static void peak_spread(const fig_runs *f, double *sd, double *wsd, size_t *wdf) {
  const double *peaks = f->peaks;
  double mean = 0, ss = 0;
  *sd = *wsd = NAN;
  *wdf = 0;
  for (size_t i = 0; i < f->nv; i++) {
    if (!(peaks[i] > 0) || !isfinite(peaks[i])) return;
    mean += log(peaks[i]) / (double)f->nv;
  }
  for (size_t i = 0; i < f->nv; i++) ss += (log(peaks[i]) - mean) * (log(peaks[i]) - mean);
  *sd = sqrt(ss / (double)(f->nv - 1));
  within_spread(f, peaks, wsd, wdf);
}

/* The standard deviation of the cards' mean ln(value) over the cards that
 * recorded a gpu_uuid (*df = cards - 1), however many cards there are. */
static void card_spread(const fig_runs *f, double *sd, size_t *df) {
  double *means = f->scratch, sum = 0;
  for (size_t g = 0; g < f->ncards; g++) {
    const card_grp *c = &f->grp[g];
    double m = 0, n = 0;
    for (size_t k = c->from; k < c->to; k++) m += log(f->vals[f->ix[k].run]), n++;
    means[g] = m / n;
    sum += m / n;
  }
  size_t nc = f->ncards;
  *sd = NAN;
  *df = nc >= 2 ? nc - 1 : 0;
  if (nc < 2) return;
  double ss = 0;
  for (size_t k = 0; k < nc; k++) ss += (means[k] - sum / (double)nc) * (means[k] - sum / (double)nc);
  *sd = sqrt(ss / (double)(nc - 1));
}

/* The class of r in accs, added when new; NULL: out of memory. */
static class_acc *class_of(class_acc **accs, size_t *nacc, size_t *cap, const gb_row *r) {
  char cls[96];
  gb_noise_size_class(r, cls, sizeof cls);
  gb_buf name = {0};
  gb_buf_printf(&name, "%s\x1f%s\x1f%s", r->benchmark, r->metric, cls);
  if (gb_buf_append(&name, "", 1)) {
    gb_buf_free(&name);
    return NULL;
  }
  for (size_t i = 0; i < *nacc; i++)
    if (strcmp((*accs)[i].name, name.data) == 0) {
      gb_buf_free(&name);
      return &(*accs)[i];
    }
  if (*nacc == *cap) {
    size_t nc = *cap ? *cap * 2 : 64;
    class_acc *v = realloc(*accs, nc * sizeof *v);
    if (!v) {
      gb_buf_free(&name);
      return NULL;
    }
    *accs = v;
    *cap = nc;
  }
  class_acc *a = &(*accs)[(*nacc)++];
  memset(a, 0, sizeof *a);
  a->name = name.data;
  a->row = r;
  return a;
}

/* Adds a figure of nv >= 2 runs (f) to its class. */
static gb_err acc_add(class_acc **accs, size_t *nacc, size_t *cap, const gb_row *r, fig_runs *f) {
  class_acc *a = class_of(accs, nacc, cap, r);
  if (!a) return gb_fail(GB_E_NOMEM, "out of memory");
  a->figures++;
  if (a->nfigs == a->figcap) {
    size_t nc = a->figcap ? a->figcap * 2 : 16;
    fig_sd *v = realloc(a->figs, nc * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
    a->figs = v;
    a->figcap = nc;
  }
  size_t nv = f->nv;
  double mean = 0, ss = 0;
  for (size_t i = 0; i < nv; i++) mean += log(f->vals[i]);
  mean /= (double)nv;
  for (size_t i = 0; i < nv; i++) ss += (log(f->vals[i]) - mean) * (log(f->vals[i]) - mean);
  fig_sd *fs = &a->figs[a->nfigs++];
  *fs = (fig_sd){.row = r, .sd = sqrt(ss / (double)(nv - 1)), .df = nv - 1};
  group_cards(f);
  peak_spread(f, &fs->psd, &fs->pwsd, &fs->pwdf);
  fs->pdf = isnan(fs->psd) ? 0 : nv - 1;
  card_spread(f, &fs->csd, &fs->cdf);
  within_spread(f, f->vals, &fs->wsd, &fs->wdf);
  for (size_t i = 0; i < nv; i++) f->lnv[i] = log(f->vals[i]);
  gb_err e = gb_pairs_add(&a->any, f->lnv, nv);
  for (size_t g = 0; g < f->ncards && !e; g++) {
    const card_grp *c = &f->grp[g];
    for (size_t k = c->from; k < c->to; k++) f->scratch[k - c->from] = f->lnv[f->ix[k].run];
    e = gb_pairs_add(&a->same, f->scratch, c->to - c->from);
  }
  return e;
}

/* sigma of a figure: its own spread s (df degrees of freedom) shrunk
 * towards the class's c with a prior worth NU0 runs, times the safety factor. */
static double shrunk(double c, double s, size_t df) {
  double v = GB_NOISE_SAFETY * sqrt((GB_NOISE_NU0 * c * c + (double)df * s * s) / (GB_NOISE_NU0 + (double)df));
  return v > 1e-4 ? v : 1e-4; /* the class floors' minimum: a floor file holds no 0 (found by fuzz_noise_runs) */
}

/* The robust sigma of a median |ln ratio| (before the safety factor). */
static double robust(double median) { return median / (0.6745 * sqrt(2.0)); }

/* A figure's own rows: its spread where wider than its class's (or measured
 * by GB_NOISE_FIG_MIN_RUNS runs), and its peak's where the peak is steadier
 * than the figure by GB_NOISE_PEAK_GAIN (a figure that switches power state). */
static gb_err emit_figure(gb_noise_table *t, size_t *cap, const char *gpu, const char *cls, const fig_sd *fs,
                          double c, double cs, double class_sigma) {
  double fsig = shrunk(c, fs->sd, fs->df);
  char fig[512];
  gb_noise_figure(fs->row, fig, sizeof fig);
  const gb_row *r = fs->row;
  gb_noise_floor *g;
  gb_err e = GB_OK;
  if (fsig > class_sigma || fs->df + 1 >= GB_NOISE_FIG_MIN_RUNS) {
    if ((e = gb_noise_push(t, cap, gpu, r->benchmark, r->metric, cls, fig, &g))) return e;
    g->sigma = fsig;
    g->figures = 1;
    g->pairs = fs->df * (fs->df + 1) / 2;
    g->median_abs = g->p95_abs = g->max_abs = NAN;
  }
  if (fs->wdf + 1 >= GB_NOISE_FIG_MIN_RUNS) { /* one card's spread: a same-card baseline (gb_gate.h) */
    if ((e = gb_noise_push(t, cap, gpu, r->benchmark, r->metric, cls, fig, &g))) return e;
    g->same_gpu = true;
    g->sigma = shrunk(cs, fs->wsd, fs->wdf);
    g->figures = 1;
    g->pairs = fs->wdf;
    g->median_abs = g->p95_abs = g->max_abs = NAN;
  }
  if (fs->cdf >= 2) {
    if ((e = gb_noise_push(t, cap, gpu, r->benchmark, r->metric, cls, fig, &g))) return e;
    g->cards = true;
    g->sigma = shrunk(c, fs->csd, fs->cdf);
    g->figures = fs->cdf + 1;
    g->pairs = fs->cdf * (fs->cdf + 1) / 2;
    g->median_abs = g->p95_abs = g->max_abs = NAN;
  }
  if (!fs->pdf) return GB_OK;
  double psig = shrunk(c, fs->psd, fs->pdf);
  if (!(psig * GB_NOISE_PEAK_GAIN < fsig)) return GB_OK;
  for (int same = 0; same < 2 && !e; same++) {
    if (same && !fs->pwdf) break;
    if ((e = gb_noise_push(t, cap, gpu, r->benchmark, r->metric, cls, fig, &g))) break;
    g->peak = true;
    g->same_gpu = same;
    g->sigma = same ? shrunk(cs, fs->pwsd, fs->pwdf) : psig;
    g->figures = 1;
    g->pairs = same ? fs->pwdf : fs->pdf * (fs->pdf + 1) / 2;
    g->median_abs = g->p95_abs = g->max_abs = NAN;
  }
  return e;
}

/* A class row from its pairs: sigma = safety x robust(median), at least 1e-4. */
static gb_err emit_pairs(gb_noise_table *t, size_t *cap, const char *gpu, const class_acc *a, const char *cls,
                         const gb_pairs *p, bool same_gpu) {
  gb_noise_floor *f;
  gb_err e = gb_noise_push(t, cap, gpu, a->row->benchmark, a->row->metric, cls, "", &f);
  if (e) return e;
  f->same_gpu = same_gpu;
  f->figures = a->figures;
  f->pairs = (size_t)p->npairs;
  f->median_abs = gb_pairs_quantile(p, 0.5);
  f->p95_abs = gb_pairs_quantile(p, 0.95);
  f->max_abs = p->max;
  /* a floor of exactly 0 (identical runs) would make any change significant */
  double sigma = GB_NOISE_SAFETY * robust(f->median_abs);
  f->sigma = sigma > 1e-4 ? sigma : 1e-4;
  return GB_OK;
}

/* The rows of one class: its floor, its figures' rows, its same-GPU floor. */
static gb_err emit_class(gb_noise_table *t, size_t *cap, const char *gpu, const class_acc *a) {
  char cls[96];
  gb_noise_size_class(a->row, cls, sizeof cls);
  gb_err e = emit_pairs(t, cap, gpu, a, cls, &a->any, false);
  if (e) return e;
  double c = robust(t->v[t->n - 1].median_abs), class_sigma = t->v[t->n - 1].sigma;
  double cs = a->same.npairs ? robust(gb_pairs_quantile(&a->same, 0.5)) : c;
  for (size_t k = 0; k < a->nfigs && !e; k++) e = emit_figure(t, cap, gpu, cls, &a->figs[k], c, cs, class_sigma);
  /* the same estimator over the pairs of runs on one GPU */
  if (!e && a->same.npairs) e = emit_pairs(t, cap, gpu, a, cls, &a->same, true);
  return e;
}

static int cmp_cstr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Checks one GPU type and counts the distinct runs (sorted, however many). */
static gb_err count_runs(const gb_results *res, const char **gpu, size_t *nruns) {
  *gpu = NULL;
  *nruns = 0;
  const char **runs = calloc(res->nrows + 1, sizeof *runs);
  if (!runs) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < res->nrows; i++) {
    const gb_row *r = &res->rows[i];
    if (!*gpu) *gpu = r->gpu_type;
    else if (strcmp(*gpu, r->gpu_type)) {
      free(runs);
      return gb_fail(GB_E_INPUT, "%s:%ld: gpu_type: \"%s\", but other runs are on %s: measure one GPU type at a time",
                     r->file, r->line, r->gpu_type, *gpu);
    }
    runs[i] = r->run_id;
  }
  if (res->nrows) qsort(runs, res->nrows, sizeof *runs, cmp_cstr);
  for (size_t i = 0; i < res->nrows; i++)
    if (i == 0 || strcmp(runs[i], runs[i - 1])) (*nruns)++;
  free(runs);
  return GB_OK;
}

/* The runs of the figure whose rows are fr[i] .. fr[j - 1] (sorted by run):
 * one value per run, the median of its repetitions; its peak, the largest
 * max (smallest min where lower is better). reps: room for j - i values. */
static void figure_runs(const fig_row *fr, size_t i, size_t j, double *reps, fig_runs *f) {
  f->nv = 0;
  int dir = gb_metric_direction(fr[i].row->benchmark, fr[i].row->metric);
  for (size_t a = i; a < j;) {
    size_t b = a, nr = 0;
    double peak = NAN;
    for (bool first = true; b < j && strcmp(fr[b].row->run_id, fr[a].row->run_id) == 0; b++, first = false) {
      double best = dir < 0 ? fr[b].row->min : fr[b].row->max;
      peak = first ? best : isnan(best) || isnan(peak) ? NAN : (dir < 0 ? best < peak : best > peak) ? best : peak;
      reps[nr++] = fr[b].row->value;
    }
    f->uuids[f->nv] = fr[a].row->gpu_uuid;
    f->peaks[f->nv] = peak;
    f->vals[f->nv++] = gb_median(reps, nr);
    a = b;
  }
}

/* The rows that count (ok or throttled, a positive value, a class that is
 * judged), keyed and sorted by figure then run; *nfr of them. */
static gb_err key_rows(const gb_results *res, fig_row *fr, size_t *nfr) {
  *nfr = 0;
  for (size_t i = 0; i < res->nrows; i++) {
    const gb_row *r = &res->rows[i];
    if ((r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) || !(r->value > 0) ||
        gb_desc_class(r) == GB_FCLASS_MEANINGLESS)
      continue;
    fr[*nfr].row = r;
    if (!(fr[(*nfr)++].key = fig_key(r))) return gb_fail(GB_E_NOMEM, "out of memory");
  }
  qsort(fr, *nfr, sizeof *fr, cmp_fig);
  return GB_OK;
}

static void free_measure(fig_row *fr, size_t nfr, class_acc *accs, size_t nacc, fig_runs *f, double *reps) {
  for (size_t i = 0; i < nfr; i++) free(fr[i].key);
  for (size_t i = 0; i < nacc; i++) {
    free(accs[i].name);
    gb_pairs_free(&accs[i].any);
    gb_pairs_free(&accs[i].same);
    free(accs[i].figs);
  }
  free(accs);
  free(fr);
  free(f->vals);
  free(f->uuids);
  free(f->ix);
  free(f->grp);
  free(reps);
}

gb_err gb_noise_measure(const gb_results *res, gb_noise_table *t) {
  memset(t, 0, sizeof *t);
  const char *gpu;
  size_t nruns;
  gb_err e = count_runs(res, &gpu, &nruns);
  if (e) return e;
  if (nruns < 2)
    return gb_fail(GB_E_INPUT, "noise: %zu run%s (run_id): the floor needs at least 2 independent runs", nruns,
                   nruns == 1 ? "" : "s");
  t->runs = nruns;
  size_t nb = nruns + 1, nfr = 0, nacc = 0, acap = 0;
  fig_row *fr = calloc(res->nrows + 1, sizeof *fr);
  double *reps = malloc((res->nrows + 1) * sizeof *reps);
  fig_runs f = {.vals = malloc(4 * nb * sizeof(double)), .uuids = malloc(nb * sizeof(char *)),
                .ix = malloc(nb * sizeof(card_ix)), .grp = malloc(nb * sizeof(card_grp))};
  class_acc *accs = NULL;
  if (!fr || !reps || !f.vals || !f.uuids || !f.ix || !f.grp) e = gb_fail(GB_E_NOMEM, "out of memory");
  else {
    f.peaks = f.vals + nb;
    f.lnv = f.vals + 2 * nb;
    f.scratch = f.vals + 3 * nb;
    e = key_rows(res, fr, &nfr);
  }
  for (size_t i = 0; i < nfr && !e;) {
    size_t j = i;
    while (j < nfr && strcmp(fr[j].key, fr[i].key) == 0) j++;
    figure_runs(fr, i, j, reps, &f);
    if (f.nv >= 2) e = acc_add(&accs, &nacc, &acap, fr[i].row, &f);
    i = j;
  }
  if (!e && nacc) qsort(accs, nacc, sizeof *accs, cmp_class);
  size_t cap = 0;
  for (size_t i = 0; i < nacc && !e; i++)
    if (accs[i].any.npairs) e = emit_class(t, &cap, gpu, &accs[i]);
  free_measure(fr, nfr, accs, nacc, &f, reps);
  if (!e) e = gb_noise_index_build(t);
  if (e) gb_noise_free(t);
  return e;
}
