/* gb_rep: what the report's parts share (gb_rep.h): value formatting,
 * name lists, the precision order, datasheet peaks, plots into the
 * document, the HBM figures and provenance. */
#include "gb_rep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_energy.h"
#include "gb_num.h"

/* ---- small helpers ---- */

void gb_rep_fmt(char *buf, size_t n, double v) {
  double a = fabs(v);
  if (isnan(v)) buf[0] = '\0';
  else if (a >= 1000) gb_snprintf_c(buf, n, "%.0f", v);
  else if (a >= 100) gb_snprintf_c(buf, n, "%.1f", v);
  else if (a >= 1) gb_snprintf_c(buf, n, "%.2f", v);
  else gb_snprintf_c(buf, n, "%.3g", v);
}

/* A size or shape for tables: "8192x8192x8192", "1 GiB", "". */
void gb_rep_fmt_size(const gb_row *w, char *buf, size_t n) {
  if (w->m != GB_NA && w->n != GB_NA && w->k != GB_NA)
    snprintf(buf, n, "%lldx%lldx%lld", (long long)w->m, (long long)w->n, (long long)w->k);
  else if (w->bytes != GB_NA) gb_fmt_size(buf, n, w->bytes);
  else buf[0] = '\0';
}

/* USD for a reader: "32,251", "2,100,000", "12.50"; "n/a" for NaN. */
void gb_rep_usd(char *buf, size_t n, double usd) {
  if (!isfinite(usd)) {
    snprintf(buf, n, "n/a");
    return;
  }
  if (fabs(usd) < 100) {
    gb_snprintf_c(buf, n, "%.2f", usd);
    return;
  }
  char d[64];
  gb_snprintf_c(d, sizeof d, "%.0f", fabs(usd));
  size_t len = strlen(d), o = 0;
  char g[96];
  if (usd < 0) g[o++] = '-';
  for (size_t i = 0; i < len && o + 2 < sizeof g; i++) {
    if (i > 0 && (len - i) % 3 == 0) g[o++] = ',';
    g[o++] = d[i];
  }
  g[o] = '\0';
  snprintf(buf, n, "%s", g);
}

gb_err gb_rep_names_add(gb_rep_names *l, const char *s) {
  if (gb_rep_names_find(l, s) != (size_t)-1) return GB_OK;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    const char **v = realloc(l->v, cap * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = s;
  return GB_OK;
}

size_t gb_rep_names_find(const gb_rep_names *l, const char *s) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i], s) == 0) return i;
  return (size_t)-1;
}

void gb_rep_names_free(gb_rep_names *l) {
  free(l->v);
  memset(l, 0, sizeof *l);
}

gb_err gb_rep_hash_init(gb_rep_hash *t, size_t nmax) {
  size_t cap = 16;
  while (cap < 2 * nmax + 1) cap *= 2;
  t->cap = cap;
  t->slot = calloc(cap, sizeof *t->slot);
  t->hash = calloc(cap, sizeof *t->hash);
  if (!t->slot || !t->hash) {
    gb_rep_hash_free(t);
    return gb_fail(GB_E_NOMEM, "out of memory indexing results");
  }
  return GB_OK;
}

size_t gb_rep_hash_find(gb_rep_hash *t, uint64_t h, size_t idx, bool (*eq)(const void *ctx, size_t a, size_t b),
                        const void *ctx) {
  for (size_t i = (size_t)h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    if (!t->slot[i]) {
      t->slot[i] = idx + 1;
      t->hash[i] = h;
      return idx;
    }
    if (t->hash[i] == h && eq(ctx, t->slot[i] - 1, idx)) return t->slot[i] - 1;
  }
}

void gb_rep_hash_free(gb_rep_hash *t) {
  free(t->slot);
  free(t->hash);
  memset(t, 0, sizeof *t);
}

uint64_t gb_rep_hash_str(uint64_t h, const char *s) {
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) h = (h ^ *c) * 1099511628211ULL;
  return (h ^ 0x100) * 1099511628211ULL; /* the end, so ("ab","c") and ("a","bc") differ */
}

uint64_t gb_rep_hash_i64(uint64_t h, int64_t v) {
  for (int i = 0; i < 8; i++) h = (h ^ (uint64_t)((v >> (8 * i)) & 0xff)) * 1099511628211ULL;
  return h;
}

/* Counting sort of items 0..n-1 by key[i] < nkeys: out (n items, input
 * order kept within a key) and off (nkeys + 1). */
gb_err gb_rep_group_by(const size_t *key, size_t n, size_t nkeys, size_t **out, size_t **off) {
  *out = malloc((n ? n : 1) * sizeof **out);
  *off = calloc(nkeys + 2, sizeof **off);
  if (!*out || !*off) return gb_fail(GB_E_NOMEM, "out of memory indexing results");
  for (size_t i = 0; i < n; i++) (*off)[key[i] + 2]++;
  for (size_t k = 0; k < nkeys; k++) (*off)[k + 2] += (*off)[k + 1];
  for (size_t i = 0; i < n; i++) (*out)[(*off)[key[i] + 1]++] = i;
  return GB_OK; /* off[k] is now the start of key k, off[nkeys] the end */
}

static const char *const k_precision_order[] = {"fp64", "fp32", "tf32", "fp16", "fp16acc16", "bf16",
                                                "fp8e4m3", "fp8e4m3xe5m2", "fp8e5m2", "int8", "mxfp8", "nvfp4"};

/* Rank of a precision: the known base (longest matching prefix) times 4,
 * plus 1 for any suffix (e.g. _fastaccum), so variants follow their base. */
static int precision_rank(const char *p) {
  int best = -1;
  size_t best_len = 0;
  size_t n = sizeof k_precision_order / sizeof k_precision_order[0];
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(k_precision_order[i]);
    if (strncmp(p, k_precision_order[i], l) == 0 && l > best_len) {
      best = (int)i;
      best_len = l;
    }
  }
  if (best < 0) return 1000;
  return best * 4 + (p[best_len] ? 1 : 0);
}

int gb_rep_cmp_precision(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  int rx = precision_rank(x), ry = precision_rank(y);
  if (rx != ry) return rx < ry ? -1 : 1;
  return strcmp(x, y);
}

bool gb_rep_is(const gb_rep_point *p, const char *bench, const char *metric) {
  return strcmp(p->row->benchmark, bench) == 0 && (!metric || strcmp(p->row->metric, metric) == 0);
}

/* The datasheet dtype key (planner/gb_specs.h) of a precision label:
 * fp16acc16 -> fp16, fp8e4m3xe5m2 and _fastaccum variants -> fp8e4m3; the
 * block-scaled mxfp8 -> mxfp8, nvfp4 -> fp4. */
static const char *spec_dtype(const char *precision) {
  static const char *const bases[][2] = {{"fp64", "fp64"}, {"tf32", "tf32"}, {"fp32", "fp32"},
                                         {"bf16", "bf16"}, {"fp16", "fp16"}, {"fp8", "fp8e4m3"},
                                         {"int8", "int8"}, {"mxfp8", "mxfp8"}, {"nvfp4", "fp4"}};
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
    if (strncmp(precision, bases[i][0], strlen(bases[i][0])) == 0) return bases[i][1];
  return NULL;
}

double gb_rep_peak(const gb_rep *r, size_t s, const char *bench, const char *precision) {
  double best = NAN;
  for (size_t k = r->src_pt_off[s]; k < r->src_pt_off[s + 1]; k++) {
    const gb_rep_point *p = &r->pts[r->src_pts[k]];
    if (p->src != s || strcmp(p->row->benchmark, bench) != 0 || strcmp(p->row->case_name, precision) != 0) continue;
    if (isfinite(p->row->peak) && !(p->row->peak <= best)) best = p->row->peak;
  }
  if (isfinite(best)) return best;
  const gb_gpu_spec *spec = r->src[s].spec;
  if (!spec) return NAN;
  if (strcmp(bench, "fma") == 0) { /* CUDA cores, not tensor cores */
    if (strcmp(precision, "fp32") == 0) return spec->fp32_tflops;
    if (strcmp(precision, "fp64") == 0) return spec->fp64_tflops;
    return NAN;
  }
  if (strcmp(precision, "hbm") == 0) return spec->mem_bw_gbps;
  const char *key = spec_dtype(precision);
  return key ? gb_spec_peak(spec, key) : NAN;
}

/* ---- per-W figures: energy-counter power only ---- */

/* The datasheet bound of point p's per-W figure: false with why when over. */
static bool power_plausible(const gb_rep *r, const gb_rep_point *p, char *why, size_t n) {
  const gb_gpu_spec *spec = r->src[p->src].spec;
  double peak = gb_rep_peak(r, p->src, p->row->benchmark, p->row->case_name);
  if (!isfinite(peak) && gb_rep_membw_hbm(r, p)) peak = gb_rep_peak(r, p->src, p->row->benchmark, "hbm");
  return gb_energy_plausible(p->value / p->power_w, peak, spec ? spec->tdp_w : NAN, p->row->unit, why, n);
}

void gb_rep_judge_power(gb_rep *r) {
  char why[256];
  for (size_t i = 0; i < r->npts; i++) {
    gb_rep_point *p = &r->pts[i];
    p->power_implausible = isfinite(p->power_w) && p->power_w > 0 && !power_plausible(r, p, why, sizeof why);
  }
}

const gb_rep_point *gb_rep_power_point(const gb_rep *r, const gb_rep_point *p) {
  if (isfinite(p->power_w) && p->power_w > 0) return p;
  const gb_rep_point *best = NULL;
  size_t type = r->src[p->src].type;
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *q = &r->pts[i];
    if (!(isfinite(q->power_w) && q->power_w > 0) || r->src[q->src].type != type ||
        strcmp(q->row->benchmark, p->row->benchmark) || strcmp(q->row->case_name, p->row->case_name) ||
        strcmp(q->row->dtype, p->row->dtype) || strcmp(q->row->unit, p->row->unit))
      continue;
    if (!best || q->value > best->value) best = q;
  }
  return best;
}

int gb_rep_per_watt(const gb_rep *r, const gb_rep_point *p, char *buf, size_t n) {
  const gb_rep_point *q = gb_rep_power_point(r, p);
  if (q && q->power_implausible) {
    char why[256];
    power_plausible(r, q, why, sizeof why);
    snprintf(buf, n, "per-W figure invalid: %s (docs/perf-notes.md, Energy and power)", why);
    return -1;
  }
  if (q) {
    char pw[32], w[32], s[32];
    gb_rep_fmt(pw, sizeof pw, q->value / q->power_w);
    gb_rep_fmt(w, sizeof w, q->power_w);
    gb_rep_fmt(s, sizeof s, q->row->energy_s);
    snprintf(buf, n, "%s %s per W at %s W (energy counter over %s s, %s)", pw, q->row->unit, w, s, q->row->metric);
    return 1;
  }
  const char *why = p->row->energy_note[0] ? p->row->energy_note
                                           : "its rows have no energy reading (measured before gpubench read the "
                                             "energy counter, or without NVML; their power_w is a 1-s average, "
                                             "telemetry only)";
  snprintf(buf, n, "no per-W figure: %s; measure one over a window of 2 s or more (%s; docs/perf-notes.md, Energy "
           "and power)", why,
           strcmp(p->row->benchmark, "gemm") == 0 ? "--opt gemm.window=sustained with --iters" : "--iters");
  return 0;
}

/* ---- plots into the document ---- */

static gb_err plot_done(gb_rep *r, const gb_plot_spec *p, gb_err e, const char *caption) {
  char msg[1024];
  if (e == GB_OK && r->sum->gnuplot) {
    r->sum->plots++;
    return gb_doc_figure(&r->doc, r->dir, p->stem, caption);
  }
  if (e == GB_OK) { /* no gnuplot: script and data only */
    snprintf(msg, sizeof msg, "Plot \"%s\" not rendered: gnuplot was not found; run `gnuplot %s.gp` in this directory "
             "after installing it.", caption, p->stem);
    return gb_doc_note(&r->doc, msg);
  }
  if (e == GB_E_INPUT) return gb_rep_skip(r, caption, gb_errmsg());
  if (e == GB_E_NOMEM) return e;
  r->sum->plots_failed++;
  /* not linked (gb_plot_render leaves no picture of a failed plot); listed
   * under Problems and, by the command, on stderr */
  size_t used = strlen(r->sum->failed);
  snprintf(r->sum->failed + used, sizeof r->sum->failed - used, "%s: %s\n", caption, gb_errmsg());
  snprintf(msg, sizeof msg, "Plot \"%s\" failed: %s", caption, gb_errmsg());
  return gb_doc_note(&r->doc, msg);
}

gb_err gb_rep_lines(gb_rep *r, const gb_plot_spec *p, const gb_plot_series *s, size_t ns, const char *caption) {
  gb_err e = r->sum->gnuplot ? gb_plot_lines(r->dir, p, s, ns) : gb_plot_lines_script(r->dir, p, s, ns);
  return plot_done(r, p, e, caption);
}

gb_err gb_rep_bars(gb_rep *r, const gb_plot_spec *p, const char *const *cats, size_t ncat, const gb_plot_series *s,
                   size_t ns, const char *caption) {
  gb_err e = r->sum->gnuplot ? gb_plot_bars(r->dir, p, cats, ncat, s, ns)
                             : gb_plot_bars_script(r->dir, p, cats, ncat, s, ns);
  return plot_done(r, p, e, caption);
}

gb_err gb_rep_skip(gb_rep *r, const char *what, const char *why) {
  char msg[1024];
  snprintf(msg, sizeof msg, "Plot \"%s\" left out: %s.", what, why);
  r->sum->plots_skipped++;
  return gb_doc_note(&r->doc, msg);
}

gb_err gb_rep_note_undrawn(gb_rep *r) {
  if (!r->nundrawn) return GB_OK;
  gb_buf b = {0};
  gb_err e = gb_buf_printf(&b, "Drawn: the newest %d runs of each GPU type;", GB_REP_MAX_DRAWN);
  for (size_t t = 0; t < r->ntypes && !e; t++)
    if (r->types[t].nruns > GB_REP_MAX_DRAWN)
      e = gb_buf_printf(&b, " %s: %zu older runs not drawn;", r->types[t].gpu_type,
                        r->types[t].nruns - GB_REP_MAX_DRAWN);
  if (!e)
    e = gb_buf_puts(&b, " their figures are in the tables (All measurements), their trend in gpubench history.");
  if (!e) e = gb_doc_note(&r->doc, b.data);
  gb_buf_free(&b);
  return e;
}

/* ---- figures and where they came from ---- */

bool gb_rep_membw_hbm(const gb_rep *r, const gb_rep_point *p) {
  (void)r;
  return gb_rep_is(p, "membw", "gbps") && p->headline;
}

void gb_rep_provenance(const gb_rep *r, size_t s, char *buf, size_t n) {
  int w = snprintf(buf, n, "%s (", r->src[s].run_id);
  size_t len = w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
  gb_rep_names seen = {0};
  for (size_t k = r->src_row_off[s]; k < r->src_row_off[s + 1] && len + 1 < n; k++) {
    const char *f = r->res.rows[r->src_rows[k]].file;
    const char *base = strrchr(f, '/');
    base = base ? base + 1 : f;
    if (gb_rep_names_find(&seen, f) != (size_t)-1 || gb_rep_names_add(&seen, f) != GB_OK) continue;
    w = snprintf(buf + len, n - len, "%s%s", seen.n > 1 ? ", " : "", base);
    len += w < 0 ? 0 : (size_t)w < n - len ? (size_t)w : n - len - 1;
  }
  gb_rep_names_free(&seen);
  if (len + 1 < n) snprintf(buf + len, n - len, ")");
}

const char *gb_rep_basename(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s ? s + 1 : path ? path : "";
}
