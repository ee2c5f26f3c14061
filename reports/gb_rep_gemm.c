/* gb_rep_gemm: the report's GEMM section -- throughput per precision
 * against the datasheet, mixed-precision speedup, throughput against size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

/* ---- GEMM ---- */

static const char *const k_gemm_metrics[] = {"tflops", "tops"};
#define GEMM_SKINNY_EDGE 256 /* a shape with an edge below this is drawn as points */

/* Speedup of source s for category cat ("bf16_vs_fp32"): the benchmark's
 * speedup row at its largest shape when there is one, else
 * TFLOP/s(p) / TFLOP/s(fp32) at the largest shape both were measured at. */
static double speedup_of(const gb_rep *r, size_t s, const char *cat) {
  const gb_rep_point *best = NULL;
  for (GB_REP_SRC_PTS(r, s, j, k)) {
    const gb_rep_point *q = &r->pts[k];
    if (q->src != s || !gb_rep_is(q, "gemm", "speedup") || strcmp(q->row->case_name, cat)) continue;
    if (!best || gb_rep_shape_volume(q->row) > gb_rep_shape_volume(best->row)) best = q;
  }
  if (best) return best->value;
  size_t l = strlen(cat);
  if (l <= 8 || strcmp(cat + l - 8, "_vs_fp32") != 0) return NAN;
  const gb_rep_point *bp = NULL, *bf = NULL;
  for (GB_REP_SRC_PTS(r, s, ja, a)) {
    const gb_rep_point *q = &r->pts[a];
    if (q->src != s || !(gb_rep_is(q, "gemm", "tflops") || gb_rep_is(q, "gemm", "tops")) ||
        strlen(q->row->case_name) != l - 8 || strncmp(q->row->case_name, cat, l - 8) != 0)
      continue;
    for (GB_REP_SRC_PTS(r, s, jb, b)) {
      const gb_rep_point *f = &r->pts[b];
      if (f->src != s || !gb_rep_is(f, "gemm", "tflops") || strcmp(f->row->case_name, "fp32") ||
          f->row->m != q->row->m || f->row->n != q->row->n || f->row->k != q->row->k)
        continue;
      if (!bp || gb_rep_shape_volume(q->row) > gb_rep_shape_volume(bp->row)) {
        bp = q;
        bf = f;
      }
    }
  }
  return bp && bf->value > 0 ? bp->value / bf->value : NAN;
}

static gb_err gemm_speedup(gb_rep *r) {
  const char *caption = "Mixed-precision GEMM speedup at the largest shape: A_vs_B is A's TFLOP/s over B's (the "
                        "benchmark's speedup rows, else the TFLOP/s ratio against fp32 at one shape); dashed line: "
                        "1x, no speedup. Source: the ok gemm rows (metric speedup, else tflops), median over repetitions";
  gb_rep_names prec = {0}, cats = {0};
  const char *speedup_metric[] = {"speedup"};
  gb_err e = gb_rep_collect_cases(r, "gemm", speedup_metric, 1, &cats);
  if (!e) e = gb_rep_collect_cases(r, "gemm", k_gemm_metrics, 2, &prec);
  char(*names)[96] = calloc(prec.n + 1, sizeof *names);
  if (!e && !names) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t j = 0; j < prec.n && !e; j++) {
    if (!strcmp(prec.v[j], "fp32")) continue;
    snprintf(names[j], sizeof names[0], "%s_vs_fp32", prec.v[j]);
    e = gb_rep_names_add(&cats, names[j]);
  }
  size_t nc = cats.n, ns = r->nsrc;
  double *vals = calloc(nc * ns + 1, sizeof *vals);
  gb_plot_series *s = calloc(ns + 1, sizeof *s);
  if (!e && (!vals || !s)) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e && nc > 1) qsort(cats.v, nc, sizeof *cats.v, gb_rep_cmp_precision);
  bool any = false;
  size_t nd = 0; /* the drawn sources, one series each */
  for (size_t i = 0; i < ns && !e; i++) {
    if (!r->src[i].drawn) continue;
    for (size_t j = 0; j < nc; j++) {
      vals[nd * nc + j] = speedup_of(r, i, cats.v[j]);
      any |= isfinite(vals[nd * nc + j]);
    }
    s[nd] = (gb_plot_series){.title = r->src[i].label, .n = nc, .y = vals + nd * nc};
    nd++;
  }
  /* the 1x line unlabelled (the caption says what it is): a label there sits on a bar */
  gb_plot_marker one = {'y', 1.0, ""};
  gb_plot_spec p = {.stem = "gemm_speedup", .title = "Mixed-precision GEMM speedup (largest shape)",
                    .xlabel = "precision pair (A_vs_B: A's TFLOP/s over B's)", .ylabel = "speedup (x)",
                    .markers = &one, .nmarkers = 1};
  /* names slanted at 30 degrees clear each other when the bars are at
   * least ~40 px apart (half of that across, more than a line of text);
   * the left margin takes up to ~300 px for the first long name */
  int width = 400 + 40 * (int)nc;
  p.width_px = width < 1000 ? 1000 : width > 2400 ? 2400 : width;
  if (!e && !any) e = gb_rep_skip(r, caption, "no speedup rows and no fp32 GEMM to compare with");
  else if (!e) e = gb_rep_bars(r, &p, cats.v, nc, s, nd, caption);
  free(vals);
  free(s);
  free(names);
  gb_rep_names_free(&cats);
  gb_rep_names_free(&prec);
  return e;
}

/* Throughput against size of source s, the precisions of class cls: per
 * precision a line through the shapes with every edge >= GEMM_SKINNY_EDGE,
 * and the skinny ones (decode-like m = 1..64, memory-bound) as points of the
 * same colour without a line (joining them to the square ones would draw a
 * saw); error bars from the repetitions. No plot when the class has no rows. */
static gb_err gemm_size_plot(gb_rep *r, size_t s, const gb_rep_names *prec, int cls) {
  sset ss = {0};
  gb_err e = GB_OK;
  int colour = 0; /* by position within the class: each plot starts at colour 1 */
  for (size_t j = 0; j < prec->n && !e; j++) {
    if (gb_rep_precision_class(prec->v[j]) != cls) continue;
    bool any = false;
    for (GB_REP_SRC_PTS(r, s, k, i)) {
      if (e) break;
      const gb_rep_point *q = &r->pts[i];
      if (q->src != s || !gb_rep_is(q, "gemm", NULL) || strcmp(q->row->case_name, prec->v[j]) ||
          !strcmp(q->row->metric, "speedup") || q->row->m == GB_NA)
        continue;
      if (!any) colour++;
      any = true;
      bool skinny = q->row->m < GEMM_SKINNY_EDGE || q->row->n < GEMM_SKINNY_EDGE || q->row->k < GEMM_SKINNY_EDGE;
      char key[112];
      snprintf(key, sizeof key, "%s%s", skinny ? "\x01" : "", prec->v[j]); /* a private name for the points */
      sbuf *b = gb_rep_sset_get(&ss, key);
      if (b) {
        b->colour = colour;
        b->style = skinny ? GB_PLOT_POINTS : GB_PLOT_LINESPOINTS;
      }
      /* size as the edge of a cube of the same volume: (m*n*k)^(1/3); shapes
       * of one volume (4096x14336x4096, 4096x4096x14336) share an x: the
       * best of them is drawn, not a vertical jump between them */
      e = gb_rep_sbuf_add_max_err(b, cbrt(gb_rep_shape_volume(q->row)), q->value, q->lo, q->hi);
    }
  }
  /* the points' series have no legend entry when their line's has it;
   * a precision measured only at skinny shapes keeps its name */
  for (size_t i = 0; i < ss.n; i++) {
    if (ss.v[i].title[0] != '\x01') continue;
    bool has_line = false;
    for (size_t k = 0; k < ss.n && !has_line; k++) has_line = !strcmp(ss.v[k].title, ss.v[i].title + 1);
    if (has_line) ss.v[i].title[0] = '\0';
    else memmove(ss.v[i].title, ss.v[i].title + 1, strlen(ss.v[i].title));
  }
  if (!e && ss.n > 0) { /* a run without GEMM rows of the class (a membw run): no plot, no note */
    char stem[256], part[100], title[320], caption[640];
    const char *cn = gb_rep_precision_class_name(cls);
    gb_rep_stem_part(part, sizeof part, r->src[s].label);
    snprintf(stem, sizeof stem, "gemm_size_%s_%s", part, gb_rep_precision_class_stem(cls));
    snprintf(title, sizeof title, "GEMM throughput against size, %s, %s", cn, r->src[s].label);
    snprintf(caption, sizeof caption,
             "GEMM throughput against matrix size per precision, %s precisions, %s; of shapes with the same m*n*k, "
             "the best; lone points: skinny shapes (an edge under 256, decode-like)%s",
             cn, r->src[s].label, gb_rep_sset_has_err(&ss) ? GB_REP_ERRBAR_NOTE : "");
    gb_plot_spec ps = {.stem = stem, .title = title, .xlabel = "matrix size (m*n*k)^(1/3), elements (log scale)",
                       .ylabel = "throughput (TFLOP/s; TOP/s for int8)", .logx = true};
    e = gb_rep_lines_from(r, &ps, &ss, false, caption);
  }
  gb_rep_sset_free(&ss);
  return e;
}

gb_err gb_rep_section_gemm(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "GEMM (cuBLASLt)");
  gb_rep_names prec = {0};
  if (!e) e = gb_rep_collect_cases(r, "gemm", k_gemm_metrics, 2, &prec);
  if (!e && prec.n == 0) {
    e = gb_rep_skip(r, "GEMM throughput per precision", "the results hold no ok gemm rows");
    gb_rep_names_free(&prec);
    return e;
  }
  if (!e && prec.n > 1) qsort(prec.v, prec.n, sizeof *prec.v, gb_rep_cmp_precision);
  gb_plot_spec p = {.stem = "gemm_precision", .title = "GEMM throughput per precision (best shape)",
                    .xlabel = "precision", .ylabel = "throughput (TFLOP/s; TOP/s for int8)",
                    .ref_title = "datasheet peak (dense)"};
  if (!e)
    e = gb_rep_bars_by_source(r, &p, &prec, "gemm", k_gemm_metrics, 2, false, "gemm",
                       "GEMM throughput per precision and GPU type, best over shapes; black ticks: datasheet peak");
  if (!e) e = gemm_speedup(r);
  /* throughput against size, one plot per source and precision class */
  if (!e) e = gb_rep_note_undrawn(r);
  for (size_t s = 0; s < r->nsrc && !e; s++)
    for (int cls = 0; cls < GB_REP_PRECISION_CLASSES && r->src[s].drawn && !e; cls++) e = gemm_size_plot(r, s, &prec, cls);
  gb_rep_names_free(&prec);
  return e;
}
