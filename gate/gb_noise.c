/* gb_noise: between-run noise floors per benchmark, metric and size class. */
#include "gb_noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_desc.h"
#include "gb_runinfo.h"
#include "gb_gate.h"
#include "gb_num.h"
#include "gb_stats.h"

/* "1K" "4M" "16G": a power of 4 (>= 1) in binary units. */
static void fmt_pow2(char *buf, size_t n, int e2) {
  static const char units[] = " KMGTPE";
  int u = e2 / 10;
  if (u > 6) u = 6;
  long long v = 1LL << (e2 - 10 * u);
  if (u == 0) snprintf(buf, n, "%lld", v);
  else snprintf(buf, n, "%lld%c", v, units[u]);
}

void gb_noise_size_class(const gb_row *r, char *buf, size_t n) {
  const char *cls = gb_fclass_name(gb_desc_class(r));
  if (r->bytes != GB_NA && r->bytes > 0) {
    int e = 0;
    while (e < 62 && ((int64_t)1 << (e + 1)) <= r->bytes) e += 1;
    char lo[32], hi[32];
    fmt_pow2(lo, sizeof lo, e);
    fmt_pow2(hi, sizeof hi, e + 1);
    snprintf(buf, n, "%s/%s-%s", cls, lo, hi);
  } else if (r->m != GB_NA && r->n != GB_NA && r->k != GB_NA && r->m > 0 && r->n > 0 && r->k > 0) {
    double v = log2((double)r->m) + log2((double)r->n) + log2((double)r->k);
    int e = (int)floor(v / 2) * 2;
    snprintf(buf, n, "%s/mnk 2^%d-2^%d", cls, e, e + 2);
  } else {
    snprintf(buf, n, "%s/all", cls);
  }
}

/* Copies the selector at *p into buf and moves *p past it and its comma;
 * false when it does not fit (then buf is left as it was). */
static bool next_selector(const char **p, char *buf, size_t n) {
  const char *c = strchr(*p, ',');
  size_t len = c ? (size_t)(c - *p) : strlen(*p);
  bool fits = len < n;
  if (fits) {
    memcpy(buf, *p, len);
    buf[len] = '\0';
  }
  *p += len + (c ? 1 : 0);
  return fits;
}

gb_err gb_noise_check_selectors(const char *what, const char *list) {
  if (!list || !*list) return gb_fail(GB_E_USAGE, "%s: an empty list of benchmarks", what);
  for (const char *p = list; *p;) {
    char sel[128];
    if (!next_selector(&p, sel, sizeof sel)) return gb_fail(GB_E_USAGE, "%s: a selector is too long", what);
    char *slash = strchr(sel, '/');
    if (slash) *slash = '\0';
    if (!sel[0] || (slash && (!slash[1] || strchr(slash + 1, '/'))))
      return gb_fail(GB_E_USAGE, "%s: \"%s\": expected BENCHMARK or BENCHMARK/CASE, joined by commas", what, list);
    if (!gb_desc_find(sel)) return gb_fail(GB_E_USAGE, "%s: unknown benchmark \"%s\"", what, sel);
  }
  return GB_OK;
}

/* Whether case_name is c or a side of a derived "A_vs_B" case. */
static bool case_matches(const char *case_name, const char *c) {
  if (strcmp(case_name, c) == 0) return true;
  const char *vs = strstr(case_name, "_vs_");
  if (!vs) return false;
  size_t n = strlen(c);
  return ((size_t)(vs - case_name) == n && strncmp(case_name, c, n) == 0) || strcmp(vs + 4, c) == 0;
}

bool gb_noise_selected(const char *list, const gb_row *r) {
  for (const char *p = list ? list : ""; *p;) {
    char sel[128];
    if (!next_selector(&p, sel, sizeof sel)) continue;
    char *slash = strchr(sel, '/');
    if (slash) *slash++ = '\0';
    if (strcmp(sel, r->benchmark) == 0 && (!slash || case_matches(r->case_name, slash))) return true;
  }
  return false;
}

size_t gb_noise_leave_out(gb_results *res, size_t from, const char *list) {
  size_t k = from;
  for (size_t i = from; i < res->nrows; i++)
    if (!gb_noise_selected(list, &res->rows[i])) res->rows[k++] = res->rows[i];
  size_t gone = res->nrows - k;
  res->nrows = k;
  return gone;
}

void gb_noise_figure(const gb_row *r, char *buf, size_t n) {
  int off = snprintf(buf, n, "%s/%s", r->benchmark, r->case_name);
  if (off < 0 || (size_t)off >= n) return;
  if (r->dtype[0]) off += snprintf(buf + off, n - (size_t)off, " %s", r->dtype);
  const char *names[4] = {"m", "n", "k", "bytes"};
  const int64_t v[4] = {r->m, r->n, r->k, r->bytes};
  for (int i = 0; i < 4 && off >= 0 && (size_t)off < n; i++)
    if (v[i] != GB_NA) off += snprintf(buf + off, n - (size_t)off, " %s=%lld", names[i], (long long)v[i]);
  if (off >= 0 && (size_t)off < n) snprintf(buf + off, n - (size_t)off, " %s x%d", r->metric, r->gpu_count);
}

double gb_noise_default_sigma(const gb_row *r) {
  return gb_desc_class(r) == GB_FCLASS_LATENCY ? 0.15 : 0.01;
}

void gb_noise_free(gb_noise_table *t) {
  for (size_t i = 0; i < t->n; i++) {
    free(t->v[i].gpu_type);
    free(t->v[i].benchmark);
    free(t->v[i].metric);
    free(t->v[i].size_class);
    free(t->v[i].figure);
  }
  free(t->v);
  memset(t, 0, sizeof *t);
}

static char *noise_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static gb_err push(gb_noise_table *t, size_t *cap, const char *gpu, const char *bench, const char *metric,
                   const char *cls, const char *figure, gb_noise_floor **out) {
  if (t->n == *cap) {
    size_t nc = *cap ? *cap * 2 : 32;
    gb_noise_floor *v = realloc(t->v, nc * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory for noise floors");
    t->v = v;
    *cap = nc;
  }
  gb_noise_floor *f = &t->v[t->n];
  memset(f, 0, sizeof *f);
  f->gpu_type = noise_dup(gpu);
  f->benchmark = noise_dup(bench);
  f->metric = noise_dup(metric);
  f->size_class = noise_dup(cls);
  f->figure = noise_dup(figure);
  t->n++;
  if (!f->gpu_type || !f->benchmark || !f->metric || !f->size_class || !f->figure)
    return gb_fail(GB_E_NOMEM, "out of memory for noise floors");
  *out = f;
  return GB_OK;
}

static const char *const k_cols[] = {"gpu_type", "benchmark", "metric", "size_class", "sigma", "figures",
                                     "pairs", "median_abs_ln", "p95_abs_ln", "max_abs_ln", "figure", "scope"};
#define NCOLS (sizeof k_cols / sizeof k_cols[0])

static gb_err read_table(gb_csv_table *csv, gb_noise_table *t) {
  int col[NCOLS];
  for (size_t c = 0; c < NCOLS; c++) {
    col[c] = gb_csv_col(csv, k_cols[c]);
    if (col[c] < 0 && c < 5) return gb_fail(GB_E_INPUT, "%s:1: no column \"%s\" (a noise floor file has %s, ...)",
                                            csv->name, k_cols[c], "gpu_type,benchmark,metric,size_class,sigma");
  }
  size_t cap = 0;
  for (size_t r = 0; r < csv->nrows; r++) {
    gb_noise_floor *f;
    gb_err e = push(t, &cap, gb_csv_cell(csv, r, col[0]), gb_csv_cell(csv, r, col[1]), gb_csv_cell(csv, r, col[2]),
                    gb_csv_cell(csv, r, col[3]), gb_csv_cell(csv, r, col[10]), &f);
    if (e) return e;
    if (!gb_parse_double(gb_csv_cell(csv, r, col[4]), &f->sigma) || !(f->sigma > 0))
      return gb_fail(GB_E_INPUT, "%s:%ld: sigma: not a positive number: \"%s\"", csv->name, gb_csv_line(csv, r),
                     gb_csv_cell(csv, r, col[4]));
    int64_t v;
    f->figures = col[5] >= 0 && gb_parse_i64(gb_csv_cell(csv, r, col[5]), &v) && v > 0 ? (size_t)v : 0;
    f->pairs = col[6] >= 0 && gb_parse_i64(gb_csv_cell(csv, r, col[6]), &v) && v > 0 ? (size_t)v : 0;
    double *d[3] = {&f->median_abs, &f->p95_abs, &f->max_abs};
    for (int k = 0; k < 3; k++)
      if (col[7 + k] < 0 || !gb_parse_double(gb_csv_cell(csv, r, col[7 + k]), d[k])) *d[k] = NAN;
    const char *scope = col[11] >= 0 ? gb_csv_cell(csv, r, col[11]) : "";
    f->same_gpu = strcmp(scope, "same-gpu") == 0 || strcmp(scope, "peak-same-gpu") == 0;
    f->peak = strcmp(scope, "peak") == 0 || strcmp(scope, "peak-same-gpu") == 0;
    f->cards = strcmp(scope, "cards") == 0;
    if (scope[0] && !f->same_gpu && !f->peak && !f->cards && strcmp(scope, "any") != 0)
      return gb_fail(GB_E_INPUT, "%s:%ld: scope: \"%s\" is not one of any, same-gpu, peak, peak-same-gpu, cards",
                     csv->name, gb_csv_line(csv, r), scope);
    if ((f->peak || f->cards) && !f->figure[0])
      return gb_fail(GB_E_INPUT, "%s:%ld: figure: a row of scope %s names its figure", csv->name,
                     gb_csv_line(csv, r), scope);
  }
  return GB_OK;
}

gb_err gb_noise_read_mem(const char *name, const char *text, size_t len, gb_noise_table *t) {
  memset(t, 0, sizeof *t);
  gb_csv_table csv;
  gb_err e = gb_csv_read_mem(name, text, len, &csv);
  if (e) return e;
  e = read_table(&csv, t);
  gb_csv_free(&csv);
  if (e) gb_noise_free(t);
  return e;
}

gb_err gb_noise_read(const char *path, gb_noise_table *t) {
  memset(t, 0, sizeof *t);
  gb_csv_table csv;
  gb_err e = gb_csv_read_file(path, &csv);
  if (e) return e;
  e = read_table(&csv, t);
  gb_csv_free(&csv);
  if (e) gb_noise_free(t);
  return e;
}

static const gb_noise_floor *lookup_class(const gb_noise_table *t, const gb_row *r, bool same_gpu) {
  if (!t || !t->n) return NULL;
  char cls[96];
  gb_noise_size_class(r, cls, sizeof cls);
  const gb_noise_floor *any = NULL;
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (f->same_gpu != same_gpu || f->peak || f->cards || f->figure[0] || strcmp(f->benchmark, r->benchmark) ||
        strcmp(f->metric, r->metric) || strcmp(f->size_class, cls))
      continue;
    if (strcmp(f->gpu_type, r->gpu_type) == 0) return f;
    if (strcmp(f->gpu_type, "*") == 0) any = f;
  }
  return any;
}

const gb_noise_floor *gb_noise_lookup(const gb_noise_table *t, const gb_row *r) { return lookup_class(t, r, false); }

const gb_noise_floor *gb_noise_lookup_same_gpu(const gb_noise_table *t, const gb_row *r) {
  return lookup_class(t, r, true);
}

const gb_noise_floor *gb_noise_lookup_figure(const gb_noise_table *t, const gb_row *r) {
  if (!t || !t->n) return NULL;
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (!f->same_gpu && !f->peak && !f->cards && f->figure[0] && strcmp(f->figure, fig) == 0 &&
        strcmp(f->gpu_type, r->gpu_type) == 0)
      return f;
  }
  return NULL;
}

const gb_noise_floor *gb_noise_lookup_cards(const gb_noise_table *t, const gb_row *r) {
  if (!t || !t->n) return NULL;
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (f->cards && strcmp(f->figure, fig) == 0 && strcmp(f->gpu_type, r->gpu_type) == 0) return f;
  }
  return NULL;
}

const gb_noise_floor *gb_noise_lookup_peak(const gb_noise_table *t, const gb_row *r, bool same_gpu) {
  if (!t || !t->n) return NULL;
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  const gb_noise_floor *any = NULL;
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (!f->peak || strcmp(f->figure, fig) || strcmp(f->gpu_type, r->gpu_type)) continue;
    if (f->same_gpu == same_gpu) return f;
    if (!f->same_gpu) any = f;
  }
  return any;
}

/* ---- measuring ---- */

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
} fig_sd;

typedef struct class_acc {
  char *name; /* benchmark \x1f metric \x1f size class */
  const gb_row *row;
  size_t figures, nd, cap;
  double *d;
  size_t nds, dscap; /* pairs of runs on one GPU */
  double *ds;
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

static gb_err push_d(double **d, size_t *n, size_t *cap, double v) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 64;
    double *nv = realloc(*d, nc * sizeof *nv);
    if (!nv) return gb_fail(GB_E_NOMEM, "out of memory");
    *d = nv;
    *cap = nc;
  }
  (*d)[(*n)++] = v;
  return GB_OK;
}

/* The spread of ln(peaks) over the runs (*sd, df nv - 1) and pooled within
 * each GPU's runs (*wsd, *wdf); *sd NaN when a peak is unknown. */
static void peak_spread(const double *peaks, const char *const *uuids, size_t nv, double *sd, double *wsd,
                        size_t *wdf) {
  double mean = 0, ss = 0, wss = 0;
  *sd = *wsd = NAN;
  *wdf = 0;
  for (size_t i = 0; i < nv; i++) {
    if (!(peaks[i] > 0) || !isfinite(peaks[i])) return;
    mean += log(peaks[i]) / (double)nv;
  }
  for (size_t i = 0; i < nv; i++) ss += (log(peaks[i]) - mean) * (log(peaks[i]) - mean);
  *sd = sqrt(ss / (double)(nv - 1));
  for (size_t i = 0; i < nv; i++) {
    bool first = uuids[i][0] != '\0';
    for (size_t j = 0; j < i && first; j++) first = strcmp(uuids[i], uuids[j]) != 0;
    if (!first) continue;
    double m = 0, n = 0, s2 = 0;
    for (size_t j = i; j < nv; j++)
      if (strcmp(uuids[i], uuids[j]) == 0) m += log(peaks[j]), n++;
    m /= n;
    for (size_t j = i; j < nv; j++)
      if (strcmp(uuids[i], uuids[j]) == 0) s2 += (log(peaks[j]) - m) * (log(peaks[j]) - m);
    wss += s2;
    *wdf += (size_t)n - 1;
  }
  if (*wdf) *wsd = sqrt(wss / (double)*wdf);
}

/* The standard deviation of the cards' mean ln(value) over the cards that
 * recorded a gpu_uuid (*df = cards - 1); means: room for nv card means
 * (there are as many cards as runs at most: no fixed limit). */
static void card_spread(const double *vals, const char *const *uuids, size_t nv, double *means, double *sd,
                        size_t *df) {
  double sum = 0;
  size_t nc = 0;
  for (size_t i = 0; i < nv; i++) {
    bool first = uuids[i][0] != '\0';
    for (size_t j = 0; j < i && first; j++) first = strcmp(uuids[i], uuids[j]) != 0;
    if (!first) continue;
    double m = 0, n = 0;
    for (size_t j = i; j < nv; j++)
      if (strcmp(uuids[i], uuids[j]) == 0) m += log(vals[j]), n++;
    means[nc++] = m / n;
    sum += m / n;
  }
  *sd = NAN;
  *df = nc >= 2 ? nc - 1 : 0;
  if (nc < 2) return;
  double ss = 0;
  for (size_t k = 0; k < nc; k++) ss += (means[k] - sum / (double)nc) * (means[k] - sum / (double)nc);
  *sd = sqrt(ss / (double)(nc - 1));
}

/* uuids[i]: the GPU of vals[i] ("" where not recorded); peaks[i] its peak;
 * means: room for nv doubles */
static gb_err acc_add(class_acc **accs, size_t *nacc, size_t *cap, const gb_row *r, const double *vals,
                      const double *peaks, const char *const *uuids, size_t nv, double *means) {
  char cls[96];
  gb_noise_size_class(r, cls, sizeof cls);
  gb_buf name = {0};
  gb_buf_printf(&name, "%s\x1f%s\x1f%s", r->benchmark, r->metric, cls);
  if (gb_buf_append(&name, "", 1)) {
    gb_buf_free(&name);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  class_acc *a = NULL;
  for (size_t i = 0; i < *nacc; i++)
    if (strcmp((*accs)[i].name, name.data) == 0) a = &(*accs)[i];
  if (!a) {
    if (*nacc == *cap) {
      size_t nc = *cap ? *cap * 2 : 64;
      class_acc *v = realloc(*accs, nc * sizeof *v);
      if (!v) {
        gb_buf_free(&name);
        return gb_fail(GB_E_NOMEM, "out of memory");
      }
      *accs = v;
      *cap = nc;
    }
    a = &(*accs)[(*nacc)++];
    memset(a, 0, sizeof *a);
    a->name = name.data;
    a->row = r;
  } else {
    gb_buf_free(&name);
  }
  a->figures++;
  if (a->nfigs == a->figcap) {
    size_t nc = a->figcap ? a->figcap * 2 : 16;
    fig_sd *v = realloc(a->figs, nc * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
    a->figs = v;
    a->figcap = nc;
  }
  double mean = 0, ss = 0;
  for (size_t i = 0; i < nv; i++) mean += log(vals[i]);
  mean /= (double)nv;
  for (size_t i = 0; i < nv; i++) ss += (log(vals[i]) - mean) * (log(vals[i]) - mean);
  fig_sd *fs = &a->figs[a->nfigs++];
  *fs = (fig_sd){.row = r, .sd = sqrt(ss / (double)(nv - 1)), .df = nv - 1};
  peak_spread(peaks, uuids, nv, &fs->psd, &fs->pwsd, &fs->pwdf);
  fs->pdf = isnan(fs->psd) ? 0 : nv - 1;
  card_spread(vals, uuids, nv, means, &fs->csd, &fs->cdf);
  for (size_t i = 0; i < nv; i++)
    for (size_t j = i + 1; j < nv; j++) {
      double d = fabs(log(vals[i] / vals[j]));
      gb_err e = push_d(&a->d, &a->nd, &a->cap, d);
      if (!e && uuids[i][0] && strcmp(uuids[i], uuids[j]) == 0) e = push_d(&a->ds, &a->nds, &a->dscap, d);
      if (e) return e;
    }
  return GB_OK;
}

/* sigma of a figure: its own spread s (df degrees of freedom) shrunk
 * towards the class's c with a prior worth NU0 runs, times the safety factor. */
static double shrunk(double c, double s, size_t df) {
  double v = GB_NOISE_SAFETY * sqrt((GB_NOISE_NU0 * c * c + (double)df * s * s) / (GB_NOISE_NU0 + (double)df));
  return v > 1e-4 ? v : 1e-4; /* the class floors' minimum: a floor file holds no 0 (found by fuzz_noise_runs) */
}

/* The robust sigma of pooled |ln ratio| pairs (before the safety factor). */
static double robust(const double *d, size_t n) {
  gb_stats st = gb_stats_of(d, n);
  return st.median / (0.6745 * sqrt(2.0));
}

/* A figure's own rows: its spread where wider than its class's (or measured
 * by GB_NOISE_FIG_MIN_RUNS runs), and its peak's where the peak is steadier
 * than the figure by GB_NOISE_PEAK_GAIN (a figure that switches power state). */
static gb_err emit_figure(gb_noise_table *t, size_t *cap, const char *gpu, const char *cls, const fig_sd *fs,
                          double c, double cs, double class_sigma) {
  double fsig = shrunk(c, fs->sd, fs->df);
  char fig[512];
  gb_noise_figure(fs->row, fig, sizeof fig);
  gb_noise_floor *g;
  gb_err e = GB_OK;
  if (fsig > class_sigma || fs->df + 1 >= GB_NOISE_FIG_MIN_RUNS) {
    if ((e = push(t, cap, gpu, fs->row->benchmark, fs->row->metric, cls, fig, &g))) return e;
    g->sigma = fsig;
    g->figures = 1;
    g->pairs = fs->df * (fs->df + 1) / 2;
    g->median_abs = g->p95_abs = g->max_abs = NAN;
  }
  if (fs->cdf >= 2) {
    if ((e = push(t, cap, gpu, fs->row->benchmark, fs->row->metric, cls, fig, &g))) return e;
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
    if ((e = push(t, cap, gpu, fs->row->benchmark, fs->row->metric, cls, fig, &g))) break;
    g->peak = true;
    g->same_gpu = same;
    g->sigma = same ? shrunk(cs, fs->pwsd, fs->pwdf) : psig;
    g->figures = 1;
    g->pairs = same ? fs->pwdf : fs->pdf * (fs->pdf + 1) / 2;
    g->median_abs = g->p95_abs = g->max_abs = NAN;
  }
  return e;
}

/* The rows of one class: its floor, its figures' rows, its same-GPU floor. */
static gb_err emit_class(gb_noise_table *t, size_t *cap, const char *gpu, const class_acc *a) {
  char cls[96];
  gb_noise_size_class(a->row, cls, sizeof cls);
  gb_noise_floor *f;
  gb_err e = push(t, cap, gpu, a->row->benchmark, a->row->metric, cls, "", &f);
  if (e) return e;
  gb_stats st = gb_stats_of(a->d, a->nd);
  f->figures = a->figures;
  f->pairs = a->nd;
  f->median_abs = st.median;
  f->p95_abs = gb_quantile(a->d, a->nd, 0.95);
  f->max_abs = st.max;
  /* a floor of exactly 0 (identical runs) would make any change significant */
  double c = robust(a->d, a->nd), cs = a->nds ? robust(a->ds, a->nds) : c;
  double sigma = GB_NOISE_SAFETY * c;
  f->sigma = sigma > 1e-4 ? sigma : 1e-4;
  double class_sigma = f->sigma;
  for (size_t k = 0; k < a->nfigs && !e; k++) e = emit_figure(t, cap, gpu, cls, &a->figs[k], c, cs, class_sigma);
  /* the same estimator over the pairs of runs on one GPU */
  if (!e && a->nds) {
    gb_noise_floor *s;
    if ((e = push(t, cap, gpu, a->row->benchmark, a->row->metric, cls, "", &s))) return e;
    gb_stats ss = gb_stats_of(a->ds, a->nds);
    s->same_gpu = true;
    s->figures = a->figures;
    s->pairs = a->nds;
    s->median_abs = ss.median;
    s->p95_abs = gb_quantile(a->ds, a->nds, 0.95);
    s->max_abs = ss.max;
    double sg = GB_NOISE_SAFETY * cs;
    s->sigma = sg > 1e-4 ? sg : 1e-4;
  }
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

  fig_row *fr = calloc(res->nrows + 1, sizeof *fr);
  double *vals = malloc(3 * (nruns + 1) * sizeof *vals), *reps = malloc((res->nrows + 1) * sizeof *reps);
  const char **uuids = malloc((nruns + 1) * sizeof *uuids);
  class_acc *accs = NULL;
  size_t nacc = 0, acap = 0, nfr = 0;
  if (!fr || !vals || !reps || !uuids) e = gb_fail(GB_E_NOMEM, "out of memory");
  double *peaks = vals ? vals + nruns + 1 : NULL;
  for (size_t i = 0; i < res->nrows && !e; i++) {
    const gb_row *r = &res->rows[i];
    if ((r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) || !(r->value > 0) ||
        gb_desc_class(r) == GB_FCLASS_MEANINGLESS)
      continue;
    fr[nfr].row = r;
    if (!(fr[nfr].key = fig_key(r))) e = gb_fail(GB_E_NOMEM, "out of memory");
    nfr++;
  }
  if (!e) qsort(fr, nfr, sizeof *fr, cmp_fig);
  for (size_t i = 0; i < nfr && !e;) {
    size_t j = i, nv = 0;
    while (j < nfr && strcmp(fr[j].key, fr[i].key) == 0) j++;
    /* one value per run: the median of its repetitions; its peak: the largest max */
    for (size_t a = i; a < j;) {
      size_t b = a, nr = 0;
      double peak = NAN;
      int dir = gb_metric_direction(fr[a].row->benchmark, fr[a].row->metric);
      for (bool first = true; b < j && strcmp(fr[b].row->run_id, fr[a].row->run_id) == 0; b++, first = false) {
        double best = dir < 0 ? fr[b].row->min : fr[b].row->max;
        peak = first ? best : isnan(best) || isnan(peak) ? NAN : (dir < 0 ? best < peak : best > peak) ? best : peak;
        reps[nr++] = fr[b].row->value;
      }
      uuids[nv] = fr[a].row->gpu_uuid;
      peaks[nv] = peak;
      vals[nv++] = gb_median(reps, nr);
      a = b;
    }
    if (nv >= 2) e = acc_add(&accs, &nacc, &acap, fr[i].row, vals, peaks, uuids, nv, peaks + nruns + 1);
    i = j;
  }
  if (!e && nacc) qsort(accs, nacc, sizeof *accs, cmp_class);
  size_t cap = 0;
  for (size_t i = 0; i < nacc && !e; i++)
    if (accs[i].nd) e = emit_class(t, &cap, gpu, &accs[i]);
  for (size_t i = 0; i < nfr; i++) free(fr[i].key);
  for (size_t i = 0; i < nacc; i++) {
    free(accs[i].name);
    free(accs[i].d);
    free(accs[i].ds);
    free(accs[i].figs);
  }
  free(accs);
  free(fr);
  free(vals);
  free(reps);
  free(uuids);
  if (e) gb_noise_free(t);
  return e;
}

gb_err gb_noise_write(const gb_noise_table *t, gb_buf *out) {
  gb_err e = GB_OK;
  for (size_t c = 0; c < NCOLS && !e; c++) e = gb_buf_printf(out, "%s%s", c ? "," : "", k_cols[c]);
  if (!e) e = gb_buf_puts(out, "\n");
  for (size_t i = 0; i < t->n && !e; i++) {
    const gb_noise_floor *f = &t->v[i];
    char num[4][32];
    gb_snprintf_c(num[0], sizeof num[0], "%.9g", f->sigma);
    const double d[3] = {f->median_abs, f->p95_abs, f->max_abs};
    for (int k = 0; k < 3; k++) {
      if (isnan(d[k])) num[k + 1][0] = '\0';
      else gb_snprintf_c(num[k + 1], sizeof num[k + 1], "%.9g", d[k]);
    }
    e = gb_csv_put_field(out, f->gpu_type, 0);
    if (!e) e = gb_csv_put_field(out, f->benchmark, ',');
    if (!e) e = gb_csv_put_field(out, f->metric, ',');
    if (!e) e = gb_csv_put_field(out, f->size_class, ',');
    if (!e) e = gb_buf_printf(out, ",%s,%zu,%zu,%s,%s,%s", num[0], f->figures, f->pairs, num[1], num[2], num[3]);
    if (!e) e = gb_csv_put_field(out, f->figure, ',');
    const char *scope = f->cards  ? "cards"
                        : f->peak ? (f->same_gpu ? "peak-same-gpu" : "peak")
                        : f->same_gpu ? "same-gpu"
                                      : "any";
    if (!e) e = gb_csv_put_field(out, scope, ',');
    if (!e) e = gb_buf_puts(out, "\n");
  }
  return e;
}

bool gb_noise_find_default(char *buf, size_t n, char *looked, size_t nlooked) {
  char dirs[2][4200];
  size_t nd = 0, off = 0;
  const char *env = getenv("GPUBENCH_DATA_DIR");
  snprintf(dirs[nd++], sizeof dirs[0], "%s", gb_data_dir());
  char exe[4096];
  if (!(env && *env) && gb_exe_dir(exe, sizeof exe) == 0) snprintf(dirs[nd++], sizeof dirs[0], "%s/data", exe);
  if (nlooked) looked[0] = '\0';
  for (size_t i = 0; i < nd; i++) {
    if ((size_t)snprintf(buf, n, "%s/noise/floors.csv", dirs[i]) < n && access(buf, R_OK) == 0) return true;
    if (off < nlooked) off += (size_t)snprintf(looked + off, nlooked - off, "%s%s", i ? ", " : "", buf);
  }
  if (n) buf[0] = '\0';
  return false;
}

gb_err gb_noise_load(const char *path, bool strict, gb_noise_table *t, char *warning, size_t nwarning) {
  memset(t, 0, sizeof *t);
  if (nwarning) warning[0] = '\0';
  if (path && strcmp(path, "none") == 0) return GB_OK;
  if (path) return gb_noise_read(path, t);
  char found[4200], looked[1024];
  if (gb_noise_find_default(found, sizeof found, looked, sizeof looked)) return gb_noise_read(found, t);
  if (strict)
    return gb_fail(GB_E_INPUT, "no noise floors file (looked for %s); --strict: pass --noise FILE, or set "
                               "GPUBENCH_DATA_DIR", looked);
  snprintf(warning, nwarning,
           "WARNING: no noise floors file (looked for %s): judged against built-in floors (1%% headline, 15%% "
           "latency), verdicts may differ; pass --noise FILE or set GPUBENCH_DATA_DIR",
           looked);
  return GB_OK;
}
