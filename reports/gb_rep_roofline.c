/* gb_rep_roofline: the report's measured roofline, one per GPU type,
 * combining the membw HBM figure, fma and GEMM ceilings and the kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"
#include "gb_stream.h"

/* ---- roofline ---- */

/* Arithmetic intensity of a GEMM when each matrix crosses memory once:
 * 2mnk / (e_in (mk + kn) + e_out mn), with e_out = e_in except 4 bytes for
 * int8 (int32 result) and 2 for fp8 (a bf16 result). */
static double gemm_intensity(const gb_row *w) {
  const gb_dtype_desc *d = gb_dtype_find(w->dtype); /* the input type (core/gb_desc.h) */
  if (!d || w->m == GB_NA) return NAN;
  double ein = d->bytes;
  double eout = !d->floating ? gb_dtype_bytes("int32") : ein == 1 ? gb_dtype_bytes("bf16") : ein;
  double m = (double)w->m, n = (double)w->n, k = (double)w->k;
  return 2 * m * n * k / (ein * (m * k + k * n) + eout * m * n);
}

typedef struct ceiling {
  char names[96]; /* "fp16x2", or "fp16x2 / bf16x2" when merged */
  char group[48]; /* what it is the best of: an fma case, or a GEMM input type (gemm_group) */
  char title[160];
  double tflops;
  int pass; /* 0 CUDA-core fma, 1 GEMM */
  bool tops; /* int8: TOP/s */
  size_t src; /* the run it was measured in */
} ceiling;

/* The ceiling group of a GEMM precision: its input type, so that variants
 * share one ceiling, the best of them (they would crowd the plot; the
 * tables list them): "fp8" for every fp8 case (fp8e4m3, fp8e4m3xe5m2,
 * fp8e5m2, _fastacc/_slowacc), else the name up to its first '_' or
 * "acc16" (fp16acc16 -> fp16, bf16_nt -> bf16). */
static void gemm_group(const char *c, char *buf, size_t n) {
  if (!strncmp(c, "fp8", 3)) {
    snprintf(buf, n, "fp8");
    return;
  }
  size_t l = strcspn(c, "_");
  const char *acc = strstr(c, "acc16");
  if (acc && (size_t)(acc - c) < l) l = (size_t)(acc - c);
  snprintf(buf, n, "%.*s", (int)l, c);
}

/* Ceilings of one kind within 1% of each other are one line (they would be
 * drawn over each other): "CUDA-core fp16x2 / bf16x2: 127.7 TFLOP/s", at
 * the first one's value. Returns the new count. */
static size_t merge_ceilings(ceiling *c, size_t n) {
  size_t out = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < out && !(c[j].pass == c[i].pass && c[j].tops == c[i].tops &&
                        fabs(c[j].tflops - c[i].tflops) <= 0.01 * fmax(c[j].tflops, c[i].tflops)))
      j++;
    if (j < out) {
      /* j < out <= i: distinct entries, but the compiler cannot see that */
      char name[sizeof c[i].names];
      memcpy(name, c[i].names, sizeof name);
      size_t l = strlen(c[j].names);
      snprintf(c[j].names + l, sizeof c[j].names - l, " / %s", name);
    } else {
      c[out++] = c[i];
    }
  }
  for (size_t i = 0; i < out; i++)
    gb_snprintf_c(c[i].title, sizeof c[i].title, "%s %s: %.4g %s", c[i].pass == 0 ? "CUDA-core" : "GEMM", c[i].names,
                  c[i].tflops, c[i].tops ? "TOP/s" : "TFLOP/s");
  return out;
}

/* Points at the same intensity (within 1%) and about the same height
 * (within 10%) share one label, "triad fp64, add fp32", so the labels do
 * not print over each other. merged holds b->n strings of 192 bytes. */
static void merge_point_labels(sbuf *b, char (*merged)[192]) {
  for (size_t a = 0; a < b->n; a++) {
    if (!b->labels[a]) continue;
    snprintf(merged[a], sizeof merged[0], "%s", b->labels[a]);
    for (size_t c = a + 1; c < b->n; c++) {
      if (!b->labels[c] || fabs(b->x[c] - b->x[a]) > 0.01 * b->x[a] || fabs(log(b->y[c] / b->y[a])) > log(1.1))
        continue;
      size_t l = strlen(merged[a]);
      snprintf(merged[a] + l, sizeof merged[0] - l, ", %s", b->labels[c]);
      b->labels[c] = NULL;
    }
    b->labels[a] = merged[a];
  }
}

/* The compute ceilings of GPU type t over all its runs: pass 0 the best
 * CUDA-core fma figure per case, pass 1 the best GEMM figure (any shape) per
 * input type (gemm_group), named after the case that reached it; GEMM in
 * the usual precision order of those cases. Returns the count (at most
 * max). */
/* A roofline candidate of type t: an HBM membw figure or a GEMM rate. */
static bool roof_candidate(const gb_rep *r, size_t t, const gb_rep_point *q) {
  return r->src[q->src].type == t &&
         (gb_rep_membw_hbm(r, q) || gb_rep_is(q, "gemm", "tflops") || gb_rep_is(q, "gemm", "tops"));
}

static bool same_kernel(const void *ctx, size_t a, size_t b) {
  const gb_row *x = ((const gb_rep *)ctx)->pts[a].row, *y = ((const gb_rep *)ctx)->pts[b].row;
  return !strcmp(x->benchmark, y->benchmark) && !strcmp(x->metric, y->metric) && !strcmp(x->case_name, y->case_name) &&
         !strcmp(x->dtype, y->dtype);
}

/* (*is_best)[i]: point i is the best candidate of type t for its benchmark,
 * metric, case and dtype (ties: the first). One pass through a hash index:
 * a scan of every point per candidate was quadratic. */
static gb_err best_per_kernel(const gb_rep *r, size_t t, bool **is_best) {
  *is_best = calloc(r->npts + 1, sizeof **is_best);
  size_t *best = malloc((r->npts + 1) * sizeof *best);
  gb_rep_hash h = {0};
  gb_err e = *is_best && best ? gb_rep_hash_init(&h, r->npts) : gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < r->npts && !e; i++) {
    const gb_rep_point *q = &r->pts[i];
    best[i] = SIZE_MAX; /* set below for the first point of each kernel: its best */
    if (!roof_candidate(r, t, q)) continue;
    const gb_row *w = q->row;
    uint64_t hv = gb_rep_hash_str(gb_rep_hash_str(GB_REP_HASH_SEED, w->benchmark), w->metric);
    hv = gb_rep_hash_str(gb_rep_hash_str(hv, w->case_name), w->dtype);
    size_t f = gb_rep_hash_find(&h, hv, i, same_kernel, r);
    if (f == i) best[f] = i;
    else if (q->value > r->pts[best[f]].value) best[f] = i;
  }
  for (size_t i = 0; i < r->npts && !e; i++)
    if (best[i] != SIZE_MAX) (*is_best)[best[i]] = true;
  gb_rep_hash_free(&h);
  free(best);
  return e;
}

static size_t compute_ceilings(const gb_rep *r, size_t t, ceiling *c, size_t max) {
  size_t n = 0;
  for (int pass = 0; pass < 2; pass++) {
    size_t first = n;
    for (size_t i = 0; i < r->npts; i++) {
      const gb_rep_point *q = &r->pts[i];
      if (r->src[q->src].type != t) continue;
      bool gemm = gb_rep_is(q, "gemm", "tflops") || gb_rep_is(q, "gemm", "tops");
      if (pass == 0 ? !gb_rep_is(q, "fma", "tflops") : !gemm) continue;
      char group[48];
      if (pass == 0) snprintf(group, sizeof group, "%s", q->row->case_name);
      else gemm_group(q->row->case_name, group, sizeof group);
      size_t j = first;
      while (j < n && strcmp(c[j].group, group) != 0) j++;
      if (j == n) {
        if (n == max) continue;
        memset(&c[n], 0, sizeof c[n]);
        snprintf(c[n].group, sizeof c[n].group, "%s", group);
        c[n].pass = pass;
        c[n].tflops = -1;
        n++;
      }
      if (q->value > c[j].tflops) {
        snprintf(c[j].names, sizeof c[j].names, "%s", q->row->case_name);
        c[j].tflops = q->value;
        c[j].tops = !strcmp(q->row->metric, "tops");
        c[j].src = q->src;
      }
    }
    /* GEMM in the precision order of the cases that set the ceilings
     * (insertion sort: a handful) */
    for (size_t a = first + 1; pass == 1 && a < n; a++)
      for (size_t b = a; b > first; b--) {
        const char *x = c[b - 1].names, *y = c[b].names;
        if (gb_rep_cmp_precision(&x, &y) <= 0) break;
        ceiling tmp = c[b];
        c[b] = c[b - 1];
        c[b - 1] = tmp;
      }
  }
  return n;
}

/* Appends to the caption where the ceilings of one pass came from, grouped
 * by run: "GEMM (best shape per input type): fp64, bf16 from run R1
 * (a.csv); int8 from run R2 (b.csv). ". */
static gb_err caption_ceilings(const gb_rep *r, gb_buf *cap, const ceiling *c, size_t n, int pass, const char *what) {
  bool *done = calloc(n + 1, sizeof *done);
  if (!done) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err e = GB_OK;
  bool any = false;
  for (size_t i = 0; i < n && !e; i++) {
    if (c[i].pass != pass || done[i]) continue;
    e = gb_buf_printf(cap, "%s", any ? "; " : what);
    any = true;
    bool first = true;
    for (size_t j = i; j < n && !e; j++) {
      if (c[j].pass != pass || c[j].src != c[i].src) continue;
      done[j] = true;
      e = gb_buf_printf(cap, "%s%s", first ? "" : ", ", c[j].names);
      first = false;
    }
    char prov[768];
    gb_rep_provenance(r, c[i].src, prov, sizeof prov);
    if (!e) e = gb_buf_printf(cap, " from run %s", prov);
  }
  if (!e && any) e = gb_buf_puts(cap, ". ");
  free(done);
  return e;
}

/* STREAM points lie along the rising memory roof, so labels all on one side
 * would stack; the labelled points, in order of intensity, alternate: the
 * 1st, 3rd, ... stay in a and are labelled right of and below their point
 * (under the roof), the 2nd, 4th, ... move to b, labelled left of and
 * above it (over the roof), where both sides are empty. */
static gb_err alternate_label_sides(sbuf *a, sbuf *b) {
  gb_rep_sbuf_sort(a);
  a->side = GB_PLOT_LABEL_RIGHT_BELOW;
  b->side = GB_PLOT_LABEL_LEFT_ABOVE;
  size_t keep = 0, labelled = 0;
  gb_err e = GB_OK;
  for (size_t i = 0; i < a->n && !e; i++) {
    if (a->labels[i] && labelled++ % 2 == 1) {
      e = gb_rep_sbuf_add(b, a->x[i], a->y[i], a->labels[i]);
      continue;
    }
    a->x[keep] = a->x[i];
    a->y[keep] = a->y[i];
    a->labels[keep++] = a->labels[i];
  }
  if (!e) a->n = keep;
  return e;
}

/* The memory ceiling of GPU type t: its best HBM-bound membw figure over
 * the runs (gb_rep_membw_hbm: headline rows, out of L2), or NULL. */
static const gb_rep_point *best_bandwidth(const gb_rep *r, size_t t) {
  const gb_rep_point *bwp = NULL;
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *q = &r->pts[i];
    if (r->src[q->src].type == t && gb_rep_membw_hbm(r, q) && (!bwp || q->value > bwp->value)) bwp = q;
  }
  return bwp;
}

/* The caption: the memory ceiling's row and run, each compute ceiling's
 * run (before merging hides names), what the points are. */
static gb_err roof_caption(const gb_rep *r, gb_buf *cap, const char *name, bool multi, const gb_rep_point *bwp,
                           const ceiling *ceil, size_t nce, bool with_stream) {
  char prov[768], sz[64] = "";
  gb_rep_provenance(r, bwp->src, prov, sizeof prov);
  if (bwp->row->bytes != GB_NA) gb_fmt_size(sz, sizeof sz, bwp->row->bytes);
  gb_err e = gb_buf_printf(cap, "%s.%s Memory (%s): %s %s at %s from run %s. ", name,
                           multi ? " Each ceiling is the best over the runs of this GPU type." : "",
                           "the best membw headline row: hot, arrays of at least 1 GiB and 8 L2 sizes",
                           bwp->row->case_name, bwp->row->dtype, sz, prov);
  if (!e) e = caption_ceilings(r, cap, ceil, nce, 0, "CUDA-core (fma): ");
  if (!e) e = caption_ceilings(r, cap, ceil, nce, 1, "GEMM (best shape per input type): ");
  if (!e)
    e = gb_buf_printf(cap, "Points are measured kernels%s: %sGEMM at the best shape (intensity counts each matrix "
                      "moved once).%s",
                      multi ? ", each at its best run" : "",
                      with_stream ? "STREAM at their HBM figures (picked as for the memory ceiling), " : "",
                      with_stream ? "" : " The STREAM kernels are in the first roofline of this GPU type.");
  return e;
}

/* The measured points of type t into kern (STREAM, labelled "triad fp64"
 * from labels, which holds r->npts entries) and gk (GEMM); widens
 * [*xmin, *xmax] to hold them. */
static gb_err roof_points(const gb_rep *r, size_t t, int cls, bool with_stream, sbuf *kern, sbuf *gk,
                          char (*labels)[96], double *xmin, double *xmax) {
  bool *is_best = NULL;
  gb_err e = best_per_kernel(r, t, &is_best);
  for (size_t i = 0; i < r->npts && !e; i++) {
    const gb_rep_point *q = &r->pts[i];
    if (r->src[q->src].type != t) continue;
    double ai = NAN, tf = NAN;
    bool stream = gb_rep_membw_hbm(r, q);
    bool gemm = gb_rep_is(q, "gemm", "tflops") || gb_rep_is(q, "gemm", "tops");
    if (!stream && !gemm) continue;
    /* STREAM points in one plot of the type's, GEMM in their class's */
    if (stream ? !with_stream : gb_rep_precision_class(q->row->case_name) != cls) continue;
    /* one point per kernel and dtype (STREAM) or precision (GEMM): the
     * best over the type's runs (and, for GEMM, shapes); ties: the first */
    if (!is_best[i]) continue;
    if (stream) {
      /* FLOPs and arrays moved per element (core/gb_stream.c); copy, read
       * and write do no arithmetic and have no place on a roofline */
      const gb_stream_kernel *k = gb_stream_find(q->row->case_name);
      double fl = k ? k->flops : 0, ar = k ? k->arrays : 0, eb = gb_dtype_bytes(q->row->dtype);
      if (fl == 0 || eb == 0) continue;
      ai = fl / (ar * eb);         /* FLOP per byte moved */
      tf = q->value * ai / 1000.0; /* GB/s x FLOP/B = GFLOP/s; /1000 -> TFLOP/s */
      snprintf(labels[i], sizeof labels[0], "%s %s", q->row->case_name, q->row->dtype);
    } else {
      ai = gemm_intensity(q->row);
      tf = q->value;
    }
    if (!isfinite(ai) || ai <= 0) continue;
    /* room left of STREAM points for labels over the roof (a factor 8 is
     * about 0.9 decades, some 15 characters at the usual width) */
    *xmin = fmin(*xmin, stream ? ai / 8 : ai / 2);
    *xmax = fmax(*xmax, ai * 2);
    /* GEMM points sit on their own ceiling, named in the key: no label */
    e = gb_rep_sbuf_add(stream ? kern : gk, ai, tf, stream ? labels[i] : NULL);
  }
  free(is_best);
  return e;
}

/* The memory roof (bandwidth bw, GB/s) from xmin to the highest ridge,
 * then each compute roof from its ridge to xmax. The ridge point of ceiling
 * P (TFLOP/s) is I* = P*1e12 / (BW*1e9) = 1000 P / BW FLOP/byte. */
static gb_err roof_lines(sset *ss, double bw, const ceiling *ceil, size_t nce, double xmin, double xmax) {
  double pmax = 0;
  for (size_t c = 0; c < nce; c++) pmax = fmax(pmax, ceil[c].tflops);
  char bwt[128];
  gb_snprintf_c(bwt, sizeof bwt, "memory (membw): %.0f GB/s", bw);
  sbuf *roof = gb_rep_sset_get(ss, bwt);
  if (!roof) return gb_fail(GB_E_NOMEM, "out of memory");
  roof->style = GB_PLOT_LINES;
  roof->emphasis = true;
  gb_err e = gb_rep_sbuf_add(roof, xmin, bw * xmin / 1000.0, NULL);
  if (!e) e = gb_rep_sbuf_add(roof, 1000.0 * pmax / bw, pmax, NULL);
  for (size_t c = 0; c < nce && !e; c++) {
    sbuf *b = gb_rep_sset_get(ss, ceil[c].title);
    if (!b) return gb_fail(GB_E_NOMEM, "out of memory");
    b->style = GB_PLOT_LINES;
    e = gb_rep_sbuf_add(b, 1000.0 * ceil[c].tflops / bw, ceil[c].tflops, NULL);
    if (!e) e = gb_rep_sbuf_add(b, xmax, ceil[c].tflops, NULL);
  }
  return e;
}

/* The class of a ceiling: its fma case's or GEMM precision's. */
static int ceiling_class(const ceiling *c) { return gb_rep_precision_class(c->names); }

/* The roofline of GPU type t for the ceilings of one precision class (ceil,
 * nce: that class's, not yet merged), so that no plot draws more than ~8
 * series; the memory roof bwp in each, the STREAM points in one
 * (with_stream). name: the type's title. */
static gb_err roofline_class(gb_rep *r, size_t t, const char *name, const gb_rep_point *bwp, ceiling *ceil,
                             size_t nce, int cls, bool with_stream) {
  const gb_rep_type *ty = &r->types[t];
  char title[400];
  snprintf(title, sizeof title, "%s, %s", name, gb_rep_precision_class_name(cls));
  gb_buf cap = {0};
  gb_err e = roof_caption(r, &cap, title, ty->nruns > 1, bwp, ceil, nce, with_stream);
  if (e) {
    gb_buf_free(&cap);
    return e;
  }
  nce = merge_ceilings(ceil, nce);
  /* the measured series: STREAM kernels, GEMM, and the STREAM points whose
   * labels go on the other side (no legend entry of their own) */
  sset ss = {0};
  if (!gb_rep_sset_get(&ss, "STREAM kernels (HBM-bound arrays)") || !gb_rep_sset_get(&ss, "GEMM (best shape per precision)") ||
      !gb_rep_sset_get(&ss, "")) {
    gb_rep_sset_free(&ss);
    gb_buf_free(&cap);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  sbuf *kern = &ss.v[0], *gk = &ss.v[1], *kern2 = &ss.v[2];
  kern->style = gk->style = kern2->style = GB_PLOT_POINTS;
  /* measured points in black and red (line types 8, 7), apart from the roofs */
  kern->colour = kern2->colour = 8;
  gk->colour = 7;
  double xmin = 1.0 / 32, xmax = 4096;
  char(*labels)[96] = calloc(r->npts + 1, sizeof *labels);
  if (!labels) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) e = roof_points(r, t, cls, with_stream, kern, gk, labels, &xmin, &xmax);
  char(*merged)[192] = e ? NULL : calloc(ss.v[0].n + 1, sizeof *merged);
  if (!e && !merged) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) {
    merge_point_labels(kern, merged);
    e = alternate_label_sides(kern, kern2);
  }
  if (!e) e = roof_lines(&ss, bwp->value, ceil, nce, xmin, xmax);
  /* measured kernels (the first three series) drawn last, on top */
  if (!e && ss.n > 3) {
    sbuf k[3] = {ss.v[0], ss.v[1], ss.v[2]};
    memmove(ss.v, ss.v + 3, (ss.n - 3) * sizeof *ss.v);
    memcpy(ss.v + ss.n - 3, k, sizeof k);
  }
  char stem[256], part[100];
  gb_rep_stem_part(part, sizeof part, ty->gpu_type);
  snprintf(stem, sizeof stem, "roofline_%s_%s", part, gb_rep_precision_class_stem(cls));
  gb_plot_spec p = {.stem = stem, .title = title, .xlabel = "arithmetic intensity (FLOP/byte, log scale)",
                    .ylabel = "throughput (TFLOP/s, log scale)", .logx = true, .logy = true, .width_px = 1250,
                    .height_px = 700};
  if (!e) e = gb_rep_lines_from(r, &p, &ss, true, cap.data);
  gb_rep_sset_free(&ss);
  free(labels);
  free(merged);
  gb_buf_free(&cap);
  return e;
}

/* The rooflines of GPU type t, combining all its runs, one per precision
 * class that has a ceiling: the memory ceiling is the best membw HBM figure
 * (best_bandwidth), the compute ceilings come from fma and gemm
 * (compute_ceilings); the points are the measured kernels, each at its best
 * run, the STREAM ones in the first plot. */
static gb_err roofline_type(gb_rep *r, size_t t) {
  const gb_rep_type *ty = &r->types[t];
  char name[320], why[160];
  if (ty->nruns > 1) snprintf(name, sizeof name, "Measured roofline, %s (%zu runs combined)", ty->gpu_type, ty->nruns);
  else snprintf(name, sizeof name, "Measured roofline, %s", ty->gpu_type);
  char runs[64] = "";
  if (ty->nruns > 1) snprintf(runs, sizeof runs, " in any of its %zu runs", ty->nruns);
  const gb_rep_point *bwp = best_bandwidth(r, t);
  if (!bwp) {
    snprintf(why, sizeof why, "no membw rows%s for the memory ceiling", runs);
    return gb_rep_skip(r, name, why);
  }
  ceiling ceil[64], part[64];
  size_t nce = compute_ceilings(r, t, ceil, 64);
  if (nce == 0) {
    snprintf(why, sizeof why, "no fma or gemm rows%s for the compute ceilings", runs);
    return gb_rep_skip(r, name, why);
  }
  gb_err e = GB_OK;
  bool stream_done = false;
  for (int cls = 0; cls < GB_REP_PRECISION_CLASSES && !e; cls++) {
    size_t np = 0;
    for (size_t c = 0; c < nce; c++)
      if (ceiling_class(&ceil[c]) == cls) part[np++] = ceil[c];
    if (np == 0) continue;
    e = roofline_class(r, t, name, bwp, part, np, cls, !stream_done);
    stream_done = true;
  }
  return e;
}

gb_err gb_rep_section_roofline(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Measured roofline");
  if (!e)
    e = gb_doc_para(&r->doc, "One roofline per GPU type and precision class (floating wide, 16-bit, 8-bit and below), "
                             "combining every run of that type: one run may have measured GEMM and fma, another "
                             "membw. The caption names the run and file each ceiling came from; the STREAM "
                             "kernels are in the first plot.");
  if (!e && r->ntypes == 0) e = gb_rep_skip(r, "Measured roofline", "no results");
  for (size_t t = 0; t < r->ntypes && !e; t++) e = roofline_type(r, t);
  return e;
}
