/* gb_rep_series: growable plot series, grouped bars by source, and the
 * small helpers the benchmark sections share (gb_rep.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"

sbuf *gb_rep_sset_get(sset *ss, const char *title) {
  for (size_t i = 0; i < ss->n; i++)
    if (strcmp(ss->v[i].title, title) == 0) return &ss->v[i];
  sbuf *v = realloc(ss->v, (ss->n + 1) * sizeof *v);
  if (!v) return NULL;
  ss->v = v;
  sbuf *b = &v[ss->n++];
  memset(b, 0, sizeof *b);
  snprintf(b->title, sizeof b->title, "%s", title);
  return b;
}

/* Grows one of a series' arrays to cap (false: out of memory, v kept). */
static bool grow(double **v, size_t cap) {
  double *v2 = realloc(*v, cap * sizeof *v2);
  if (v2) *v = v2;
  return v2 != NULL;
}

gb_err gb_rep_sbuf_add_xyerr(sbuf *b, double x, double y, double xlo, double xhi, double lo, double hi,
                             const char *label) {
  if (!b) return gb_fail(GB_E_NOMEM, "out of memory");
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 16;
    double **arrays[] = {&b->x, &b->y, &b->lo, &b->hi, &b->xlo, &b->xhi};
    bool ok = true;
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) ok = grow(arrays[i], cap) && ok;
    const char **l2 = realloc(b->labels, cap * sizeof *l2);
    if (l2) b->labels = l2;
    if (!ok || !l2) return gb_fail(GB_E_NOMEM, "out of memory");
    b->cap = cap;
  }
  b->x[b->n] = x;
  b->y[b->n] = y;
  b->lo[b->n] = lo;
  b->hi[b->n] = hi;
  b->xlo[b->n] = xlo;
  b->xhi[b->n] = xhi;
  b->labels[b->n] = label;
  b->n++;
  return GB_OK;
}

gb_err gb_rep_sbuf_add_err(sbuf *b, double x, double y, double lo, double hi, const char *label) {
  return gb_rep_sbuf_add_xyerr(b, x, y, NAN, NAN, lo, hi, label);
}

gb_err gb_rep_sbuf_add(sbuf *b, double x, double y, const char *label) {
  return gb_rep_sbuf_add_err(b, x, y, NAN, NAN, label);
}

gb_err gb_rep_sbuf_add_max_err(sbuf *b, double x, double y, double lo, double hi) {
  if (!b) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < b->n; i++)
    if (fabs(b->x[i] - x) <= 1e-9 * fabs(x)) {
      if (y > b->y[i]) b->y[i] = y, b->lo[i] = lo, b->hi[i] = hi;
      return GB_OK;
    }
  return gb_rep_sbuf_add_err(b, x, y, lo, hi, NULL);
}

gb_err gb_rep_sbuf_add_max(sbuf *b, double x, double y) { return gb_rep_sbuf_add_max_err(b, x, y, NAN, NAN); }

bool gb_rep_sbuf_has_err(const sbuf *b) {
  for (size_t i = 0; i < b->n; i++)
    if ((isfinite(b->lo[i]) && b->lo[i] < b->y[i]) || (isfinite(b->hi[i]) && b->hi[i] > b->y[i])) return true;
  return false;
}

bool gb_rep_sbuf_has_xerr(const sbuf *b) {
  for (size_t i = 0; i < b->n; i++)
    if ((isfinite(b->xlo[i]) && b->xlo[i] < b->x[i]) || (isfinite(b->xhi[i]) && b->xhi[i] > b->x[i])) return true;
  return false;
}

bool gb_rep_sset_has_err(const sset *ss) {
  for (size_t i = 0; i < ss->n; i++)
    if (gb_rep_sbuf_has_err(&ss->v[i])) return true;
  return false;
}

static void swap_at(double *v, size_t j) {
  double t = v[j];
  v[j] = v[j - 1];
  v[j - 1] = t;
}

/* Sorts a series by x (insertion sort: series are short). */
void gb_rep_sbuf_sort(sbuf *b) {
  for (size_t i = 1; i < b->n; i++)
    for (size_t j = i; j > 0 && b->x[j - 1] > b->x[j]; j--) {
      swap_at(b->x, j);
      swap_at(b->y, j);
      swap_at(b->lo, j);
      swap_at(b->hi, j);
      swap_at(b->xlo, j);
      swap_at(b->xhi, j);
      const char *l = b->labels[j];
      b->labels[j] = b->labels[j - 1];
      b->labels[j - 1] = l;
    }
}

void gb_rep_sset_free(sset *ss) {
  for (size_t i = 0; i < ss->n; i++) {
    free(ss->v[i].x);
    free(ss->v[i].y);
    free(ss->v[i].lo);
    free(ss->v[i].hi);
    free(ss->v[i].xlo);
    free(ss->v[i].xhi);
    free(ss->v[i].labels);
  }
  free(ss->v);
  memset(ss, 0, sizeof *ss);
}

/* Plot series over an sset (sorted by x); with_labels keeps point labels. */
gb_plot_series *gb_rep_sset_series(sset *ss, bool with_labels) {
  gb_plot_series *s = calloc(ss->n ? ss->n : 1, sizeof *s);
  if (!s) return NULL;
  for (size_t i = 0; i < ss->n; i++) {
    gb_rep_sbuf_sort(&ss->v[i]);
    s[i] = (gb_plot_series){.title = ss->v[i].title, .n = ss->v[i].n, .x = ss->v[i].x, .y = ss->v[i].y,
                            .style = ss->v[i].style, .emphasis = ss->v[i].emphasis, .dashed = ss->v[i].dashed, .colour = ss->v[i].colour,
                            .labels = with_labels ? ss->v[i].labels : NULL, .label_side = ss->v[i].side};
    if (gb_rep_sbuf_has_err(&ss->v[i])) s[i].lo = ss->v[i].lo, s[i].hi = ss->v[i].hi;
    if (gb_rep_sbuf_has_xerr(&ss->v[i])) s[i].xlo = ss->v[i].xlo, s[i].xhi = ss->v[i].xhi;
  }
  return s;
}

gb_err gb_rep_lines_from(gb_rep *r, const gb_plot_spec *p, sset *ss, bool with_labels, const char *caption) {
  if (ss->n == 0) return gb_rep_skip(r, caption, "no data");
  gb_plot_series *s = gb_rep_sset_series(ss, with_labels);
  if (!s) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err e = gb_rep_lines(r, p, s, ss->n, caption);
  free(s);
  return e;
}

/* ---- grouped bars: categories x sources ---- */

/* Best (largest) value, or the value at the largest size when at_largest,
 * of source s for points of bench/metric with case cat. */
static double pick(const gb_rep *r, size_t s, const char *bench, const char *metric, const char *cat, bool at_largest) {
  const gb_rep_point *best = NULL;
  for (GB_REP_SRC_PTS(r, s, k, i)) { /* the source's own points: all of them per source was quadratic */
    const gb_rep_point *p = &r->pts[i];
    if (p->src != s || !gb_rep_is(p, bench, metric) || strcmp(p->row->case_name, cat) != 0) continue;
    if (!best) best = p;
    else if (at_largest ? p->row->bytes > best->row->bytes ||
                              (p->row->bytes == best->row->bytes && p->value > best->value)
                        : p->value > best->value)
      best = p;
  }
  return best ? best->value : NAN;
}

/* Bars of cats (sorted as given) by source; refs from the datasheet when
 * peak_bench is not NULL. */
gb_err gb_rep_bars_by_source(gb_rep *r, const gb_plot_spec *p, const gb_rep_names *cats, const char *bench,
                             const char *const *metrics, size_t nmetrics, bool at_largest, const char *peak_bench,
                             const char *caption) {
  size_t nc = cats->n, ns = r->nsrc;
  double *vals = calloc(nc * ns + 1, sizeof *vals);
  double *refs = calloc(nc * ns + 1, sizeof *refs);
  gb_plot_series *s = calloc(ns + 1, sizeof *s);
  gb_err e = GB_OK;
  if (!vals || !refs || !s) e = gb_fail(GB_E_NOMEM, "out of memory");
  bool any_ref = false;
  size_t nd = 0; /* the drawn sources, one series each */
  for (size_t i = 0; i < ns && !e; i++) {
    if (!r->src[i].drawn) continue;
    for (size_t j = 0; j < nc; j++) {
      double v = NAN;
      for (size_t m = 0; m < nmetrics && isnan(v); m++) v = pick(r, i, bench, metrics[m], cats->v[j], at_largest);
      vals[nd * nc + j] = v;
      refs[nd * nc + j] = peak_bench && isfinite(v) ? gb_rep_peak(r, i, peak_bench, cats->v[j]) : NAN;
      any_ref |= isfinite(refs[nd * nc + j]);
    }
    s[nd] = (gb_plot_series){.title = r->src[i].label, .n = nc, .y = vals + nd * nc, .ref = refs + nd * nc};
    nd++;
  }
  if (!e && !any_ref)
    for (size_t i = 0; i < nd; i++) s[i].ref = NULL;
  /* the caption names its source rows: benchmark, metrics and files */
  gb_buf cap = {0};
  if (!e) e = gb_buf_printf(&cap, "%s. Source: the ok rows of benchmark %s, metric ", caption, bench);
  for (size_t m = 0; m < nmetrics && !e; m++) e = gb_buf_printf(&cap, "%s%s", m ? " or " : "", metrics[m]);
  if (!e) e = gb_buf_puts(&cap, " (median over repetitions), in ");
  gb_rep_names files = {0};
  for (size_t i = 0; i < r->npts && !e; i++) {
    if (!gb_rep_is(&r->pts[i], bench, metrics[0]) && !(nmetrics > 1 && gb_rep_is(&r->pts[i], bench, metrics[1])))
      continue;
    const char *f = gb_rep_basename(r->pts[i].row->file);
    if (gb_rep_names_find(&files, f) != (size_t)-1) continue;
    e = gb_rep_names_add(&files, f);
    if (!e) e = gb_buf_printf(&cap, "%s%s", files.n > 1 ? ", " : "", f);
  }
  gb_rep_names_free(&files);
  if (!e) e = gb_rep_bars(r, p, cats->v, nc, s, nd, cap.data);
  gb_buf_free(&cap);
  free(vals);
  free(refs);
  free(s);
  return e;
}

gb_err gb_rep_collect_cases(const gb_rep *r, const char *bench, const char *const *metrics, size_t nmetrics,
                            gb_rep_names *out) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < r->npts && !e; i++)
    for (size_t m = 0; m < nmetrics && !e; m++)
      if (gb_rep_is(&r->pts[i], bench, metrics[m])) e = gb_rep_names_add(out, r->pts[i].row->case_name);
  return e;
}

/* File-name-safe copy of a label: letters and digits kept, each run of
 * others one '-', none at the end ("H200-SXM-141GB (r1)" -> "H200-SXM-141GB-r1"). */
void gb_rep_stem_part(char *buf, size_t n, const char *s) {
  size_t k = 0;
  for (; *s && k + 1 < n; s++) {
    char c = *s;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (ok) buf[k++] = c;
    else if (k > 0 && buf[k - 1] != '-') buf[k++] = '-';
  }
  while (k > 0 && buf[k - 1] == '-') k--;
  buf[k] = '\0';
}

/* c starts with the type name t, not followed by a digit ("fp6" is not "fp64"). */
static bool type_prefix(const char *c, const char *t) {
  size_t l = strlen(t);
  return !strncmp(c, t, l) && !(c[l] >= '0' && c[l] <= '9');
}

int gb_rep_precision_class(const char *c) {
  static const char *const narrow[] = {"fp8", "fp6", "fp4", "int8", "int4"};
  static const char *const half[] = {"fp16", "bf16"};
  for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
    if (type_prefix(c, narrow[i])) return 2;
  for (size_t i = 0; i < sizeof half / sizeof half[0]; i++)
    if (type_prefix(c, half[i])) return 1;
  return 0;
}

const char *gb_rep_precision_class_name(int cls) {
  return cls == 1 ? "16-bit (fp16, bf16)" : cls == 2 ? "8-bit and below (fp8, int8)" : "floating wide (fp64, fp32, tf32)";
}

const char *gb_rep_precision_class_stem(int cls) { return cls == 1 ? "16bit" : cls == 2 ? "8bit" : "wide"; }
