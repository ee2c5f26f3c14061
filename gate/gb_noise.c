/* gb_noise: between-run noise floors per benchmark, metric and size class. */
#include "gb_noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_desc.h"
#include "gb_runinfo.h"
#include "gb_noise_int.h"
#include "gb_num.h"

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
  gb_noise_index_free(t);
  memset(t, 0, sizeof *t);
}

static char *noise_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

gb_err gb_noise_push(gb_noise_table *t, size_t *cap, const char *gpu, const char *bench, const char *metric,
                     const char *cls, const char *figure, gb_noise_floor **out) {
  gb_noise_index_free(t);
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
    gb_err e = gb_noise_push(t, &cap, gb_csv_cell(csv, r, col[0]), gb_csv_cell(csv, r, col[1]),
                             gb_csv_cell(csv, r, col[2]), gb_csv_cell(csv, r, col[3]), gb_csv_cell(csv, r, col[10]), &f);
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
  return gb_noise_index_build(t);
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
  if (t->idx) {
    gb_noise_cat cat = same_gpu ? GB_NOISE_CAT_CLASS_SAME_GPU : GB_NOISE_CAT_CLASS;
    const char *k[4] = {r->benchmark, r->metric, cls, r->gpu_type};
    const gb_noise_floor *f = gb_noise_index_find(t, cat, k, false);
    if (f) return f;
    k[3] = "*"; /* the scan's fallback: the last "*" row */
    return gb_noise_index_find(t, cat, k, true);
  }
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
  if (t->idx) return gb_noise_index_find(t, GB_NOISE_CAT_FIGURE, (const char *[4]){fig, r->gpu_type}, false);
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (!f->same_gpu && !f->peak && !f->cards && f->figure[0] && strcmp(f->figure, fig) == 0 &&
        strcmp(f->gpu_type, r->gpu_type) == 0)
      return f;
  }
  return NULL;
}

const gb_noise_floor *gb_noise_lookup_figure_same_gpu(const gb_noise_table *t, const gb_row *r) {
  if (!t || !t->n) return NULL;
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  if (t->idx) return gb_noise_index_find(t, GB_NOISE_CAT_FIGURE_SAME_GPU, (const char *[4]){fig, r->gpu_type}, false);
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (f->same_gpu && !f->peak && !f->cards && f->figure[0] && strcmp(f->figure, fig) == 0 &&
        strcmp(f->gpu_type, r->gpu_type) == 0)
      return f;
  }
  return NULL;
}

const gb_noise_floor *gb_noise_lookup_cards(const gb_noise_table *t, const gb_row *r) {
  if (!t || !t->n) return NULL;
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  if (t->idx) return gb_noise_index_find(t, GB_NOISE_CAT_CARDS, (const char *[4]){fig, r->gpu_type}, false);
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
  if (t->idx) {
    /* the scan: the first row of the scope asked for, else (same_gpu) the last "peak" one */
    const char *k[4] = {fig, r->gpu_type};
    const gb_noise_floor *f = same_gpu ? gb_noise_index_find(t, GB_NOISE_CAT_PEAK_SAME_GPU, k, false) : NULL;
    return f ? f : gb_noise_index_find(t, GB_NOISE_CAT_PEAK, k, same_gpu);
  }
  const gb_noise_floor *any = NULL;
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (!f->peak || strcmp(f->figure, fig) || strcmp(f->gpu_type, r->gpu_type)) continue;
    if (f->same_gpu == same_gpu) return f;
    if (!f->same_gpu) any = f;
  }
  return any;
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
  if (nlooked) looked[0] = '\0';
  if ((size_t)snprintf(buf, n, "%s/noise/floors.csv", gb_data_dir()) < n && access(buf, R_OK) == 0) return true;
  gb_data_dir_tried("/noise/floors.csv", looked, nlooked);
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
    return gb_fail(GB_E_INPUT, "no noise floors file found (looked for %s); --strict: pass --noise FILE, or set "
                               "GPUBENCH_DATA_DIR", looked);
  snprintf(warning, nwarning,
           "WARNING: no noise floors file found (looked for %s): default thresholds used (the built-in floors, 1%% "
           "headline, 15%% latency), verdicts may differ; pass --noise FILE or set GPUBENCH_DATA_DIR",
           looked);
  return GB_OK;
}
