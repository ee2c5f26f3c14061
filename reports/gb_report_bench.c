/* gb_report_bench: the benchmark sections of a report -- GEMM per precision
 * against the datasheet, mixed-precision speedup, GEMM against size, CUDA-core
 * FMA, memory bandwidth against array size, host/device/peer copies,
 * collectives against message size, and a measured roofline per GPU type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_report_internal.h"

/* ---- growable series ---- */

typedef struct sbuf {
  char title[192];
  size_t n, cap;
  double *x, *y;
  const char **labels;
  gb_plot_style style;
  bool emphasis;
  int colour; /* 0: by position */
  gb_plot_label_side side;
} sbuf;

typedef struct sset {
  size_t n;
  sbuf *v;
} sset;

static sbuf *sset_get(sset *ss, const char *title) {
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

static gb_err sbuf_add(sbuf *b, double x, double y, const char *label) {
  if (!b) return gb_fail(GB_E_NOMEM, "out of memory");
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 16;
    double *x2 = realloc(b->x, cap * sizeof *x2);
    if (x2) b->x = x2;
    double *y2 = realloc(b->y, cap * sizeof *y2);
    if (y2) b->y = y2;
    const char **l2 = realloc(b->labels, cap * sizeof *l2);
    if (l2) b->labels = l2;
    if (!x2 || !y2 || !l2) return gb_fail(GB_E_NOMEM, "out of memory");
    b->cap = cap;
  }
  b->x[b->n] = x;
  b->y[b->n] = y;
  b->labels[b->n] = label;
  b->n++;
  return GB_OK;
}

/* Adds (x, y) unless the series has a point at the same x (to 1e-9), which
 * then keeps the larger y. */
static gb_err sbuf_add_max(sbuf *b, double x, double y) {
  if (!b) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < b->n; i++)
    if (fabs(b->x[i] - x) <= 1e-9 * fabs(x)) {
      if (y > b->y[i]) b->y[i] = y;
      return GB_OK;
    }
  return sbuf_add(b, x, y, NULL);
}

/* Sorts a series by x (insertion sort: series are short). */
static void sbuf_sort(sbuf *b) {
  for (size_t i = 1; i < b->n; i++)
    for (size_t j = i; j > 0 && b->x[j - 1] > b->x[j]; j--) {
      double t = b->x[j];
      b->x[j] = b->x[j - 1];
      b->x[j - 1] = t;
      t = b->y[j];
      b->y[j] = b->y[j - 1];
      b->y[j - 1] = t;
      const char *l = b->labels[j];
      b->labels[j] = b->labels[j - 1];
      b->labels[j - 1] = l;
    }
}

static void sset_free(sset *ss) {
  for (size_t i = 0; i < ss->n; i++) {
    free(ss->v[i].x);
    free(ss->v[i].y);
    free(ss->v[i].labels);
  }
  free(ss->v);
  memset(ss, 0, sizeof *ss);
}

/* Plot series over an sset (sorted by x); with_labels keeps point labels. */
static gb_plot_series *sset_series(sset *ss, bool with_labels) {
  gb_plot_series *s = calloc(ss->n ? ss->n : 1, sizeof *s);
  if (!s) return NULL;
  for (size_t i = 0; i < ss->n; i++) {
    sbuf_sort(&ss->v[i]);
    s[i] = (gb_plot_series){.title = ss->v[i].title, .n = ss->v[i].n, .x = ss->v[i].x, .y = ss->v[i].y,
                            .style = ss->v[i].style, .emphasis = ss->v[i].emphasis, .colour = ss->v[i].colour,
                            .labels = with_labels ? ss->v[i].labels : NULL, .label_side = ss->v[i].side};
  }
  return s;
}

static gb_err lines_from(gb_rep *r, const gb_plot_spec *p, sset *ss, bool with_labels, const char *caption) {
  if (ss->n == 0) return gb_rep_skip(r, caption, "no data");
  gb_plot_series *s = sset_series(ss, with_labels);
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
  for (size_t i = 0; i < r->npts; i++) {
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
static gb_err bars_by_source(gb_rep *r, const gb_plot_spec *p, const gb_rep_names *cats, const char *bench,
                             const char *const *metrics, size_t nmetrics, bool at_largest, const char *peak_bench,
                             const char *caption) {
  size_t nc = cats->n, ns = r->nsrc;
  double *vals = calloc(nc * ns + 1, sizeof *vals);
  double *refs = calloc(nc * ns + 1, sizeof *refs);
  gb_plot_series *s = calloc(ns + 1, sizeof *s);
  gb_err e = GB_OK;
  if (!vals || !refs || !s) e = gb_fail(GB_E_NOMEM, "out of memory");
  bool any_ref = false;
  for (size_t i = 0; i < ns && !e; i++) {
    for (size_t j = 0; j < nc; j++) {
      double v = NAN;
      for (size_t m = 0; m < nmetrics && isnan(v); m++) v = pick(r, i, bench, metrics[m], cats->v[j], at_largest);
      vals[i * nc + j] = v;
      refs[i * nc + j] = peak_bench && isfinite(v) ? gb_rep_peak(r, i, peak_bench, cats->v[j]) : NAN;
      any_ref |= isfinite(refs[i * nc + j]);
    }
    s[i] = (gb_plot_series){.title = r->src[i].label, .n = nc, .y = vals + i * nc, .ref = refs + i * nc};
  }
  if (!e && !any_ref)
    for (size_t i = 0; i < ns; i++) s[i].ref = NULL;
  if (!e) e = gb_rep_bars(r, p, cats->v, nc, s, ns, caption);
  free(vals);
  free(refs);
  free(s);
  return e;
}

static gb_err collect_cases(const gb_rep *r, const char *bench, const char *const *metrics, size_t nmetrics,
                            gb_rep_names *out) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < r->npts && !e; i++)
    for (size_t m = 0; m < nmetrics && !e; m++)
      if (gb_rep_is(&r->pts[i], bench, metrics[m])) e = gb_rep_names_add(out, r->pts[i].row->case_name);
  return e;
}

/* File-name-safe copy of a label: letters and digits kept, each run of
 * others one '-', none at the end ("H200-SXM-141GB (r1)" -> "H200-SXM-141GB-r1"). */
static void stem_part(char *buf, size_t n, const char *s) {
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

static double shape_volume(const gb_row *w) { return (double)w->m * (double)w->n * (double)w->k; }

/* ---- GEMM ---- */

static const char *const k_gemm_metrics[] = {"tflops", "tops"};
#define GEMM_SKINNY_EDGE 256 /* a shape with an edge below this is drawn as points */

/* Speedup of source s for category cat ("bf16_vs_fp32"): the benchmark's
 * speedup row at its largest shape when there is one, else
 * TFLOP/s(p) / TFLOP/s(fp32) at the largest shape both were measured at. */
static double speedup_of(const gb_rep *r, size_t s, const char *cat) {
  const gb_rep_point *best = NULL;
  for (size_t k = 0; k < r->npts; k++) {
    const gb_rep_point *q = &r->pts[k];
    if (q->src != s || !gb_rep_is(q, "gemm", "speedup") || strcmp(q->row->case_name, cat)) continue;
    if (!best || shape_volume(q->row) > shape_volume(best->row)) best = q;
  }
  if (best) return best->value;
  size_t l = strlen(cat);
  if (l <= 8 || strcmp(cat + l - 8, "_vs_fp32") != 0) return NAN;
  const gb_rep_point *bp = NULL, *bf = NULL;
  for (size_t a = 0; a < r->npts; a++) {
    const gb_rep_point *q = &r->pts[a];
    if (q->src != s || !(gb_rep_is(q, "gemm", "tflops") || gb_rep_is(q, "gemm", "tops")) ||
        strlen(q->row->case_name) != l - 8 || strncmp(q->row->case_name, cat, l - 8) != 0)
      continue;
    for (size_t b = 0; b < r->npts; b++) {
      const gb_rep_point *f = &r->pts[b];
      if (f->src != s || !gb_rep_is(f, "gemm", "tflops") || strcmp(f->row->case_name, "fp32") ||
          f->row->m != q->row->m || f->row->n != q->row->n || f->row->k != q->row->k)
        continue;
      if (!bp || shape_volume(q->row) > shape_volume(bp->row)) {
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
                        "1x, no speedup";
  gb_rep_names prec = {0}, cats = {0};
  const char *speedup_metric[] = {"speedup"};
  gb_err e = collect_cases(r, "gemm", speedup_metric, 1, &cats);
  if (!e) e = collect_cases(r, "gemm", k_gemm_metrics, 2, &prec);
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
  for (size_t i = 0; i < ns && !e; i++) {
    for (size_t j = 0; j < nc; j++) {
      vals[i * nc + j] = speedup_of(r, i, cats.v[j]);
      any |= isfinite(vals[i * nc + j]);
    }
    s[i] = (gb_plot_series){.title = r->src[i].label, .n = nc, .y = vals + i * nc};
  }
  /* the 1x line unlabelled (the caption says what it is): a label there sits on a bar */
  gb_plot_marker one = {'y', 1.0, ""};
  gb_plot_spec p = {.stem = "gemm_speedup", .title = "Mixed-precision GEMM speedup (largest shape)",
                    .xlabel = "precision pair (A_vs_B: A's TFLOP/s over B's)", .ylabel = "speedup (x)",
                    .markers = &one, .nmarkers = 1};
  if (!e && !any) e = gb_rep_skip(r, caption, "no speedup rows and no fp32 GEMM to compare with");
  else if (!e) e = gb_rep_bars(r, &p, cats.v, nc, s, ns, caption);
  free(vals);
  free(s);
  free(names);
  gb_rep_names_free(&cats);
  gb_rep_names_free(&prec);
  return e;
}

gb_err gb_rep_section_gemm(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "GEMM (cuBLASLt)");
  gb_rep_names prec = {0};
  if (!e) e = collect_cases(r, "gemm", k_gemm_metrics, 2, &prec);
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
    e = bars_by_source(r, &p, &prec, "gemm", k_gemm_metrics, 2, false, "gemm",
                       "GEMM throughput per precision and GPU type, best over shapes; black ticks: datasheet peak");
  if (!e) e = gemm_speedup(r);
  /* throughput against size, one plot per source: per precision a line
   * through the shapes with every edge >= GEMM_SKINNY_EDGE, and the skinny
   * ones (decode-like m = 1..64, memory-bound) as points of the same colour
   * without a line (joining them to the square ones would draw a saw) */
  for (size_t s = 0; s < r->nsrc && !e; s++) {
    sset ss = {0};
    for (size_t j = 0; j < prec.n && !e; j++)
      for (size_t i = 0; i < r->npts && !e; i++) {
        const gb_rep_point *q = &r->pts[i];
        if (q->src != s || !gb_rep_is(q, "gemm", NULL) || strcmp(q->row->case_name, prec.v[j]) ||
            !strcmp(q->row->metric, "speedup") || q->row->m == GB_NA)
          continue;
        bool skinny = q->row->m < GEMM_SKINNY_EDGE || q->row->n < GEMM_SKINNY_EDGE || q->row->k < GEMM_SKINNY_EDGE;
        char key[112];
        snprintf(key, sizeof key, "%s%s", skinny ? "\x01" : "", prec.v[j]); /* a private name for the points */
        sbuf *b = sset_get(&ss, key);
        if (b) {
          b->colour = (int)j + 1;
          b->style = skinny ? GB_PLOT_POINTS : GB_PLOT_LINESPOINTS;
        }
        /* size as the edge of a cube of the same volume: (m*n*k)^(1/3); shapes
         * of one volume (4096x14336x4096, 4096x4096x14336) share an x: the
         * best of them is drawn, not a vertical jump between them */
        e = sbuf_add_max(b, cbrt(shape_volume(q->row)), q->value);
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
    if (!e && ss.n == 0) { /* a run without GEMM rows (a membw run): no plot, no note */
      sset_free(&ss);
      continue;
    }
    char stem[256], part[100], title[320], caption[640];
    stem_part(part, sizeof part, r->src[s].label);
    snprintf(stem, sizeof stem, "gemm_size_%s", part);
    snprintf(title, sizeof title, "GEMM throughput against size, %s", r->src[s].label);
    snprintf(caption, sizeof caption,
             "GEMM throughput against matrix size per precision, %s; of shapes with the same m*n*k, the best; "
             "lone points: skinny shapes (an edge under 256, decode-like)",
             r->src[s].label);
    gb_plot_spec ps = {.stem = stem, .title = title, .xlabel = "matrix size (m*n*k)^(1/3), elements (log scale)",
                       .ylabel = "throughput (TFLOP/s; TOP/s for int8)", .logx = true};
    if (!e) e = lines_from(r, &ps, &ss, false, caption);
    sset_free(&ss);
  }
  gb_rep_names_free(&prec);
  return e;
}

gb_err gb_rep_section_fma(gb_rep *r) {
  const char *metric[] = {"tflops"};
  gb_rep_names cases = {0};
  gb_err e = collect_cases(r, "fma", metric, 1, &cases);
  if (!e && cases.n == 0) {
    gb_rep_names_free(&cases);
    return GB_OK; /* the roofline notes a missing CUDA-core ceiling */
  }
  if (!e) e = gb_doc_heading(&r->doc, 2, "CUDA-core FMA peak");
  if (!e && cases.n > 1) qsort(cases.v, cases.n, sizeof *cases.v, gb_rep_cmp_precision);
  gb_plot_spec p = {.stem = "fma", .title = "CUDA-core FMA throughput", .xlabel = "data type",
                    .ylabel = "throughput (TFLOP/s)", .ref_title = "datasheet peak"};
  if (!e)
    e = bars_by_source(r, &p, &cases, "fma", metric, 1, false, "fma",
                       "CUDA-core FMA throughput per data type and GPU type (no tensor cores)");
  gb_rep_names_free(&cases);
  return e;
}

/* ---- memory bandwidth ---- */

/* L2 size a membw row reports in its detail as "l2_bytes=N"; -1 if none. */
static double l2_bytes_of(const gb_rep *r, size_t s) {
  for (size_t i = 0; i < r->res.nrows; i++) {
    const gb_row *w = &r->res.rows[i];
    if (r->row_src[i] != s || strcmp(w->benchmark, "membw")) continue;
    const char *p = strstr(w->detail, "l2_bytes=");
    if (!p) continue;
    char num[32];
    size_t k = 0;
    for (p += 9; *p >= '0' && *p <= '9' && k + 1 < sizeof num; p++) num[k++] = *p;
    num[k] = '\0';
    double v;
    if (gb_parse_double(num, &v) && v > 0) return v;
  }
  return -1;
}

/* L2 sizes as the CUDA runtime reports them (cudaDeviceProp::l2CacheSize),
 * for results whose membw rows predate l2_bytes=N in the detail. H200 from
 * data/measured/h200-info.txt; the others are NVIDIA's published L2 sizes
 * (the runtime reports MB as MiB). Types not listed (B200, MI300X: no
 * comparable single figure checked) get no L2 marker. Add a row as
 * {gpu_type, MiB}, gpu_type as in data/gpu_specs.csv. */
static const struct {
  const char *gpu_type;
  int l2_mib;
} k_known_l2[] = {
    {"A100-SXM-80GB", 40},  {"H100-SXM-80GB", 50},     {"H200-SXM-141GB", 60}, {"L4-PCIE-24GB", 48},
    {"L40S-PCIE-48GB", 96}, {"RTX4090-PCIE-24GB", 72}, {"V100-SXM2-32GB", 6},
};

/* The L2 size of a GPU type from k_known_l2, in bytes; -1 if not listed. */
static double l2_known_bytes(const char *gpu_type) {
  for (size_t i = 0; i < sizeof k_known_l2 / sizeof k_known_l2[0]; i++)
    if (strcmp(k_known_l2[i].gpu_type, gpu_type) == 0) return (double)k_known_l2[i].l2_mib * 1048576.0;
  return -1;
}

/* The membw kernels in the benchmark's order: each has its own colour, the
 * same for its hot and its _cold case (gnuplot line types 1-7). */
static const char *const k_membw_kernels[] = {"copy", "mul", "add", "triad", "dot", "read", "write"};
#define MEMBW_NKERNELS (sizeof k_membw_kernels / sizeof k_membw_kernels[0])

/* Sort key of a membw case: kernel position x 2, + 1 for _cold; unknown
 * kernels after the known. */
static size_t membw_case_key(const char *c) {
  size_t l = strlen(c);
  bool cold = l > 5 && strcmp(c + l - 5, "_cold") == 0;
  size_t base = cold ? l - 5 : l;
  for (size_t k = 0; k < MEMBW_NKERNELS; k++)
    if (strlen(k_membw_kernels[k]) == base && strncmp(k_membw_kernels[k], c, base) == 0) return 2 * k + cold;
  return 2 * MEMBW_NKERNELS + cold;
}

/* One membw plot: source s, the points of dtype (NULL: all), series per
 * case coloured by kernel, cold cases dashed. */
static gb_err membw_plot(gb_rep *r, size_t s, const char *dtype) {
  sset ss = {0};
  gb_err e = GB_OK;
  for (size_t i = 0; i < r->npts && !e; i++) {
    const gb_rep_point *q = &r->pts[i];
    if (q->src != s || !gb_rep_is(q, "membw", "gbps") || q->row->bytes == GB_NA) continue;
    if (dtype && strcmp(q->row->dtype, dtype)) continue;
    e = sbuf_add(sset_get(&ss, q->row->case_name), (double)q->row->bytes, q->value, NULL);
  }
  /* legend order: copy, copy_cold, mul, mul_cold, ... */
  for (size_t a = 1; a < ss.n; a++)
    for (size_t b = a; b > 0 && membw_case_key(ss.v[b - 1].title) > membw_case_key(ss.v[b].title); b--) {
      sbuf t = ss.v[b];
      ss.v[b] = ss.v[b - 1];
      ss.v[b - 1] = t;
    }
  gb_plot_marker mk[2];
  size_t nmk = 0;
  char l2lab[96], hbmlab[96];
  double l2 = l2_bytes_of(r, s);
  bool l2_from_table = false;
  if (l2 <= 0) {
    l2 = l2_known_bytes(r->src[s].gpu_type);
    l2_from_table = l2 > 0;
  }
  if (l2 > 0) {
    char sz[48];
    gb_fmt_size(sz, sizeof sz, (int64_t)l2);
    snprintf(l2lab, sizeof l2lab, "L2 %s", sz);
    mk[nmk++] = (gb_plot_marker){'x', l2, l2lab};
  }
  double hbm = gb_rep_peak(r, s, "membw", "hbm");
  if (isfinite(hbm)) {
    gb_snprintf_c(hbmlab, sizeof hbmlab, "datasheet %.0f GB/s", hbm);
    mk[nmk++] = (gb_plot_marker){'y', hbm, hbmlab};
  }
  char stem[256], part[100], dpart[40] = "", title[320], caption[800];
  stem_part(part, sizeof part, r->src[s].label);
  if (dtype) stem_part(dpart, sizeof dpart, dtype);
  snprintf(stem, sizeof stem, "membw_%s%s%s", part, dtype ? "_" : "", dpart);
  snprintf(title, sizeof title, "Memory bandwidth against array size%s%s, %s", dtype ? ", " : "", dtype ? dtype : "",
           r->src[s].label);
  bool any_cold = false;
  for (size_t i = 0; i < ss.n; i++) any_cold |= membw_case_key(ss.v[i].title) % 2 == 1;
  snprintf(caption, sizeof caption, "Memory bandwidth per kernel against array size%s%s, %s%s%s", dtype ? ", " : "",
           dtype ? dtype : "", r->src[s].label, any_cold ? "; dashed: _cold cases" : "",
           l2_from_table ? " (red dashed line: L2 size of this GPU type as published; no membw row reports "
                           "l2_bytes=N)"
           : l2 > 0      ? " (red dashed line: L2 size)"
                         : " (L2 size unknown: no membw row reports l2_bytes=N)");
  gb_plot_spec p = {.stem = stem, .title = title, .xlabel = "array size (bytes per array, log scale)",
                    .ylabel = "bandwidth (GB/s)", .logx = true, .x_bytes = true, .markers = mk, .nmarkers = nmk};
  gb_plot_series *ps = e ? NULL : sset_series(&ss, false);
  if (!e && !ps) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < ss.n && !e; i++) {
    size_t key = membw_case_key(ps[i].title);
    ps[i].colour = (int)(key / 2) + 1;
    ps[i].dashed = key % 2 == 1;
  }
  if (!e) e = gb_rep_lines(r, &p, ps, ss.n, caption);
  free(ps);
  sset_free(&ss);
  return e;
}

gb_err gb_rep_section_membw(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Device memory bandwidth");
  if (!e)
    e = gb_doc_para(&r->doc, "BabelStream kernels; bytes per array on the x axis, bandwidth counts every array each "
                             "kernel moves (copy and mul 2, add and triad 3, dot 2), GB = 1e9 bytes. Arrays that "
                             "fit in L2 run faster than HBM; a _cold case rotates through array sets so each "
                             "operation finds its arrays evicted from L2.");
  bool any = false;
  for (size_t s = 0; s < r->nsrc && !e; s++) {
    /* one plot per data type when a source measured several */
    gb_rep_names dtypes = {0};
    for (size_t i = 0; i < r->npts && !e; i++)
      if (r->pts[i].src == s && gb_rep_is(&r->pts[i], "membw", "gbps") && r->pts[i].row->bytes != GB_NA)
        e = gb_rep_names_add(&dtypes, r->pts[i].row->dtype);
    if (!e && dtypes.n > 1) qsort(dtypes.v, dtypes.n, sizeof *dtypes.v, gb_rep_cmp_precision);
    if (!e && dtypes.n == 1) e = membw_plot(r, s, NULL);
    for (size_t d = 0; d < dtypes.n && dtypes.n > 1 && !e; d++) e = membw_plot(r, s, dtypes.v[d]);
    any |= dtypes.n > 0;
    gb_rep_names_free(&dtypes);
  }
  if (!e && !any) e = gb_rep_skip(r, "Memory bandwidth against array size", "the results hold no ok membw rows");
  return e;
}

/* ---- copies ---- */

gb_err gb_rep_section_copy(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Host, device and peer copies");
  const char *metric[] = {"gbps"};
  gb_rep_names cases = {0};
  if (!e) e = collect_cases(r, "copy", metric, 1, &cases);
  if (!e && cases.n == 0) e = gb_rep_skip(r, "Copy bandwidth", "the results hold no ok copy rows");
  else if (!e) {
    gb_plot_spec p = {.stem = "copy", .title = "Copy bandwidth (largest size measured)", .xlabel = "copy",
                      .ylabel = "bandwidth (GB/s)"};
    e = bars_by_source(r, &p, &cases, "copy", metric, 1, true, NULL,
                       "Host-device, device-device and peer copy bandwidth at the largest size measured");
  }
  gb_rep_names_free(&cases);
  return e;
}

/* ---- collectives ---- */

/* The collective without its placement suffix, and the placement. */
static void split_collective(const char *c, char *base, size_t n, const char **placement) {
  snprintf(base, n, "%s", c);
  *placement = "";
  size_t l = strlen(base);
  if (l > 8 && strcmp(base + l - 8, "_inplace") == 0) {
    base[l - 8] = '\0';
    *placement = "in-place";
  } else if (l > 11 && strcmp(base + l - 11, "_outofplace") == 0) {
    base[l - 11] = '\0';
    *placement = "out-of-place";
  }
}

gb_err gb_rep_section_collective(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Collectives (NCCL)");
  if (!e)
    e = gb_doc_para(&r->doc, "Bus bandwidth as nccl-tests defines it: algbw = bytes / time, busbw = algbw x 2(n-1)/n "
                             "for all_reduce, (n-1)/n for all_gather and reduce_scatter, 1 for broadcast. On one GPU "
                             "busbw is 0 for all but broadcast, so a run on one GPU is drawn as algbw.");
  bool any = false;
  for (size_t s = 0; s < r->nsrc && !e; s++) {
    /* busbw of the multi-GPU rows; a source with only one-GPU rows: algbw */
    bool multi = false;
    for (size_t i = 0; i < r->npts; i++)
      if (r->pts[i].src == s && gb_rep_is(&r->pts[i], "collective", "busbw_gbps") && r->pts[i].row->gpu_count > 1)
        multi = true;
    const char *metric = multi ? "busbw_gbps" : "algbw_gbps";
    gb_rep_names ops = {0};
    char(*bases)[96] = calloc(r->npts + 1, sizeof *bases);
    if (!bases) return gb_fail(GB_E_NOMEM, "out of memory");
    for (size_t i = 0; i < r->npts && !e; i++) {
      const gb_rep_point *q = &r->pts[i];
      if (q->src != s || !gb_rep_is(q, "collective", metric) || (multi && q->row->gpu_count < 2)) continue;
      const char *pl;
      split_collective(q->row->case_name, bases[i], sizeof bases[0], &pl);
      e = gb_rep_names_add(&ops, bases[i]);
    }
    for (size_t o = 0; o < ops.n && !e; o++) {
      sset ss = {0};
      /* the points of this operation; on one GPU only out-of-place (in place
       * NCCL moves nothing and the rate means nothing) */
      gb_rep_names dtypes = {0};
      for (int pass = 0; pass < 2 && !e; pass++)
        for (size_t i = 0; i < r->npts && !e; i++) {
          const gb_rep_point *q = &r->pts[i];
          if (q->src != s || !gb_rep_is(q, "collective", metric) || q->row->bytes == GB_NA ||
              (multi && q->row->gpu_count < 2))
            continue;
          char base[96];
          const char *pl;
          split_collective(q->row->case_name, base, sizeof base, &pl);
          if (strcmp(base, ops.v[o]) || (!multi && !strcmp(pl, "in-place"))) continue;
          if (pass == 0) {
            e = gb_rep_names_add(&dtypes, q->row->dtype);
            continue;
          }
          /* "8 GPUs, in-place" (", bf16" when the operation ran at several types) */
          char t[160];
          snprintf(t, sizeof t, "%d GPU%s%s%s%s%s", q->row->gpu_count, q->row->gpu_count == 1 ? "" : "s",
                   *pl ? ", " : "", pl, dtypes.n > 1 ? ", " : "", dtypes.n > 1 ? q->row->dtype : "");
          e = sbuf_add(sset_get(&ss, t), (double)q->row->bytes, q->value, NULL);
        }
      gb_rep_names_free(&dtypes);
      /* series sorted by GPU count (titles start with the count) */
      for (size_t a = 1; a < ss.n; a++)
        for (size_t b = a; b > 0 && atoi(ss.v[b - 1].title) > atoi(ss.v[b].title); b--) {
          sbuf t = ss.v[b];
          ss.v[b] = ss.v[b - 1];
          ss.v[b - 1] = t;
        }
      char stem[256], part[100], opp[100], title[320], caption[640];
      stem_part(part, sizeof part, r->src[s].label);
      stem_part(opp, sizeof opp, ops.v[o]);
      snprintf(stem, sizeof stem, "collective_%s_%s", opp, part);
      snprintf(title, sizeof title, "%s %s bandwidth against message size, %s", ops.v[o], multi ? "bus" : "algorithm",
               r->src[s].label);
      if (multi)
        snprintf(caption, sizeof caption, "%s busbw against message size per GPU count, %s", ops.v[o],
                 r->src[s].label);
      else
        snprintf(caption, sizeof caption,
                 "%s algbw (bytes / time) against message size on one GPU, %s: busbw is 0 there by definition; "
                 "this is NCCL's local cost (out of place; in place moves nothing on one GPU)",
                 ops.v[o], r->src[s].label);
      gb_plot_spec p = {.stem = stem, .title = title, .xlabel = "message size (bytes, log scale)",
                        .ylabel = multi ? "bus bandwidth (GB/s)" : "algorithm bandwidth (GB/s)", .logx = true,
                        .x_bytes = true};
      if (!e) e = lines_from(r, &p, &ss, false, caption);
      any = true;
      sset_free(&ss);
    }
    gb_rep_names_free(&ops);
    free(bases);
  }
  if (!e && !any)
    e = gb_rep_skip(r, "Collective bus bandwidth", "the results hold no ok collective busbw_gbps or algbw_gbps rows");
  return e;
}

/* ---- roofline ---- */

/* Bytes per element of a precision label; 0 when unknown. */
static double elem_bytes(const char *p) {
  if (!strncmp(p, "fp64", 4)) return 8;
  if (!strncmp(p, "fp32", 4) || !strncmp(p, "tf32", 4)) return 4;
  if (!strncmp(p, "fp16", 4) || !strncmp(p, "bf16", 4)) return 2;
  if (!strncmp(p, "fp8", 3) || !strncmp(p, "int8", 4)) return 1;
  return 0;
}

/* FLOPs per element and arrays moved per element of a BabelStream kernel:
 * mul b = s*c (1, 2), add c = a + b (1, 3), triad a = b + s*c (2, 3),
 * dot sum += a*b (2, 2); copy, read and write do no arithmetic (0). */
static void stream_kernel(const char *k, double *flops, double *arrays) {
  *flops = 0;
  *arrays = 0;
  if (!strcmp(k, "mul")) *flops = 1, *arrays = 2;
  else if (!strcmp(k, "add")) *flops = 1, *arrays = 3;
  else if (!strcmp(k, "triad")) *flops = 2, *arrays = 3;
  else if (!strcmp(k, "dot")) *flops = 2, *arrays = 2;
}

/* Arithmetic intensity of a GEMM when each matrix crosses memory once:
 * 2mnk / (e_in (mk + kn) + e_out mn), with e_out = e_in except 4 bytes for
 * int8 (int32 result) and 2 for fp8 (a bf16 result). */
static double gemm_intensity(const gb_row *w) {
  double ein = elem_bytes(w->case_name);
  if (ein == 0 || w->m == GB_NA) return NAN;
  double eout = !strncmp(w->case_name, "int8", 4) ? 4 : !strncmp(w->case_name, "fp8", 3) ? 2 : ein;
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
  sbuf_sort(a);
  a->side = GB_PLOT_LABEL_RIGHT_BELOW;
  b->side = GB_PLOT_LABEL_LEFT_ABOVE;
  size_t keep = 0, labelled = 0;
  gb_err e = GB_OK;
  for (size_t i = 0; i < a->n && !e; i++) {
    if (a->labels[i] && labelled++ % 2 == 1) {
      e = sbuf_add(b, a->x[i], a->y[i], a->labels[i]);
      continue;
    }
    a->x[keep] = a->x[i];
    a->y[keep] = a->y[i];
    a->labels[keep++] = a->labels[i];
  }
  if (!e) a->n = keep;
  return e;
}

/* The roofline of GPU type t, combining all its runs: the memory ceiling is
 * the best membw HBM figure (gb_rep_membw_hbm: headline rows, out of L2),
 * the compute ceilings come from fma and gemm (compute_ceilings); the
 * points are the measured kernels, each at its best run. */
static gb_err roofline_type(gb_rep *r, size_t t) {
  const gb_rep_type *ty = &r->types[t];
  char name[320], why[160];
  if (ty->nruns > 1) snprintf(name, sizeof name, "Measured roofline, %s (%zu runs combined)", ty->gpu_type, ty->nruns);
  else snprintf(name, sizeof name, "Measured roofline, %s", ty->gpu_type);
  char runs[64] = "";
  if (ty->nruns > 1) snprintf(runs, sizeof runs, " in any of its %zu runs", ty->nruns);
  /* HBM ceiling: the best HBM-bound membw figure over the runs */
  const gb_rep_point *bwp = NULL;
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *q = &r->pts[i];
    if (r->src[q->src].type == t && gb_rep_membw_hbm(r, q) && (!bwp || q->value > bwp->value)) bwp = q;
  }
  if (!bwp) {
    snprintf(why, sizeof why, "no membw rows%s for the memory ceiling", runs);
    return gb_rep_skip(r, name, why);
  }
  double bw = bwp->value;
  ceiling ceil[64];
  size_t nce = compute_ceilings(r, t, ceil, 64);
  if (nce == 0) {
    snprintf(why, sizeof why, "no fma or gemm rows%s for the compute ceilings", runs);
    return gb_rep_skip(r, name, why);
  }
  /* the caption names each ceiling's run before merging hides names */
  gb_buf cap = {0};
  char prov[768], sz[64] = "";
  gb_rep_provenance(r, bwp->src, prov, sizeof prov);
  if (bwp->row->bytes != GB_NA) gb_fmt_size(sz, sizeof sz, bwp->row->bytes);
  bool multi = ty->nruns > 1;
  gb_err e = gb_buf_printf(&cap, "%s.%s Memory (%s): %s %s at %s from run %s. ", name,
                           multi ? " Each ceiling is the best over the runs of this GPU type." : "",
                           r->src[bwp->src].membw_headline
                               ? "the best membw row marked headline: hot, arrays of at least 1 GiB and 8 L2 sizes"
                               : "membw, each kernel at the largest array of its run",
                           bwp->row->case_name, bwp->row->dtype, sz, prov);
  if (!e) e = caption_ceilings(r, &cap, ceil, nce, 0, "CUDA-core (fma): ");
  if (!e) e = caption_ceilings(r, &cap, ceil, nce, 1, "GEMM (best shape per input type): ");
  if (!e)
    e = gb_buf_printf(&cap, "Points are measured kernels%s: STREAM at their HBM figures (picked as for the memory "
                      "ceiling), GEMM at the best shape (intensity counts each matrix moved once).",
                      multi ? ", each at its best run" : "");
  if (e) {
    gb_buf_free(&cap);
    return e;
  }
  nce = merge_ceilings(ceil, nce);
  /* ridge point of ceiling P (TFLOP/s) on bandwidth BW (GB/s):
   * I* = P*1e12 / (BW*1e9) = 1000 P / BW FLOP/byte */
  double pmax = 0, xmin = 1.0 / 32, xmax = 4096;
  for (size_t c = 0; c < nce; c++) pmax = fmax(pmax, ceil[c].tflops);
  /* the measured series: STREAM kernels, GEMM, and the STREAM points whose
   * labels go on the other side (no legend entry of their own) */
  sset ss = {0};
  if (!sset_get(&ss, "STREAM kernels (HBM-bound arrays)") || !sset_get(&ss, "GEMM (best shape per precision)") ||
      !sset_get(&ss, "")) {
    sset_free(&ss);
    gb_buf_free(&cap);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  sbuf *kern = &ss.v[0], *gk = &ss.v[1], *kern2 = &ss.v[2];
  kern->style = gk->style = kern2->style = GB_PLOT_POINTS;
  /* measured points in black and red (line types 8, 7), apart from the roofs */
  kern->colour = kern2->colour = 8;
  gk->colour = 7;
  char(*labels)[96] = calloc(r->npts + 1, sizeof *labels);
  if (!labels) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < r->npts && !e; i++) {
    const gb_rep_point *q = &r->pts[i];
    if (r->src[q->src].type != t) continue;
    double ai = NAN, tf = NAN;
    bool stream = gb_rep_membw_hbm(r, q);
    bool gemm = gb_rep_is(q, "gemm", "tflops") || gb_rep_is(q, "gemm", "tops");
    if (!stream && !gemm) continue;
    /* one point per kernel and dtype (STREAM) or precision (GEMM): the
     * best over the type's runs (and, for GEMM, shapes); ties: the first */
    bool best = true;
    for (size_t j = 0; j < r->npts && best; j++) {
      const gb_rep_point *o = &r->pts[j];
      if (j == i || r->src[o->src].type != t || strcmp(o->row->benchmark, q->row->benchmark) ||
          strcmp(o->row->metric, q->row->metric) || strcmp(o->row->case_name, q->row->case_name) ||
          strcmp(o->row->dtype, q->row->dtype) || (stream && !gb_rep_membw_hbm(r, o)))
        continue;
      if (o->value > q->value || (o->value == q->value && j < i)) best = false;
    }
    if (!best) continue;
    if (stream) {
      double fl, ar, eb = elem_bytes(q->row->dtype);
      stream_kernel(q->row->case_name, &fl, &ar);
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
    xmin = fmin(xmin, stream ? ai / 8 : ai / 2);
    xmax = fmax(xmax, ai * 2);
    /* GEMM points sit on their own ceiling, named in the key: no label */
    e = sbuf_add(stream ? kern : gk, ai, tf, stream ? labels[i] : NULL);
  }
  char(*merged)[192] = e ? NULL : calloc(ss.v[0].n + 1, sizeof *merged);
  if (!e && !merged) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) {
    merge_point_labels(kern, merged);
    e = alternate_label_sides(kern, kern2);
  }
  /* the memory roof from xmin to the highest ridge, then each compute roof */
  char bwt[128];
  gb_snprintf_c(bwt, sizeof bwt, "memory (membw): %.0f GB/s", bw);
  sbuf *roof = sset_get(&ss, bwt);
  if (!e && !roof) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) {
    roof->style = GB_PLOT_LINES;
    roof->emphasis = true;
    e = sbuf_add(roof, xmin, bw * xmin / 1000.0, NULL);
    if (!e) e = sbuf_add(roof, 1000.0 * pmax / bw, pmax, NULL);
  }
  for (size_t c = 0; c < nce && !e; c++) {
    sbuf *b = sset_get(&ss, ceil[c].title);
    if (!b) {
      e = gb_fail(GB_E_NOMEM, "out of memory");
      break;
    }
    b->style = GB_PLOT_LINES;
    e = sbuf_add(b, 1000.0 * ceil[c].tflops / bw, ceil[c].tflops, NULL);
    if (!e) e = sbuf_add(b, xmax, ceil[c].tflops, NULL);
  }
  /* measured kernels (the first three series) drawn last, on top */
  if (!e && ss.n > 3) {
    sbuf k[3] = {ss.v[0], ss.v[1], ss.v[2]};
    memmove(ss.v, ss.v + 3, (ss.n - 3) * sizeof *ss.v);
    memcpy(ss.v + ss.n - 3, k, sizeof k);
  }
  char stem[256], part[100];
  stem_part(part, sizeof part, ty->gpu_type);
  snprintf(stem, sizeof stem, "roofline_%s", part);
  gb_plot_spec p = {.stem = stem, .title = name, .xlabel = "arithmetic intensity (FLOP/byte, log scale)",
                    .ylabel = "throughput (TFLOP/s, log scale)", .logx = true, .logy = true, .width_px = 1250,
                    .height_px = 700};
  if (!e) e = lines_from(r, &p, &ss, true, cap.data);
  sset_free(&ss);
  free(labels);
  free(merged);
  gb_buf_free(&cap);
  return e;
}

gb_err gb_rep_section_roofline(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Measured roofline");
  if (!e)
    e = gb_doc_para(&r->doc, "One roofline per GPU type, combining every run of that type: one run may have measured "
                             "GEMM and fma, another membw. The caption names the run and file each ceiling came "
                             "from.");
  if (!e && r->ntypes == 0) e = gb_rep_skip(r, "Measured roofline", "no results");
  for (size_t t = 0; t < r->ntypes && !e; t++) e = roofline_type(r, t);
  return e;
}
