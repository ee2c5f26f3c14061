/* gb_perf: measured and projected GEMM, HBM and all-reduce figures. */
#include "gb_perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_energy.h"
#include "gb_model.h"
#include "gb_stats.h"
#include "gb_workload.h"

/* A measured point: x (log size), y (rate), and whether it came from a
 * throttled row. */
typedef struct pt {
  double x, y;
  bool throttled;
} pt;

/* By x, ok points before throttled ones at the same x. */
static int pt_cmp(const void *a, const void *b) {
  const pt *p = a, *q = b;
  if (p->x != q->x) return (p->x > q->x) - (p->x < q->x);
  return (int)p->throttled - (int)q->throttled;
}

/* Sorts points by x and merges those of one x into one: the median of its
 * ok points when it has any (throttled ones there are ignored), else the
 * median of its throttled points, marked throttled. Returns the new count;
 * *used gets the points that fed a merged one. scratch holds n doubles. */
static size_t merge_points(pt *p, size_t n, double *scratch, size_t *used) {
  qsort(p, n, sizeof *p, pt_cmp);
  size_t out = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i, k = 0;
    bool throttled = p[i].throttled; /* ok points sort first: the group has ok ones unless its first is throttled */
    while (j < n && p[j].x == p[i].x) {
      if (p[j].throttled == throttled) scratch[k++] = p[j].y;
      j++;
    }
    p[out].x = p[i].x;
    p[out].y = gb_median(scratch, k);
    p[out].throttled = throttled;
    *used += k;
    out++;
    i = j;
  }
  return out;
}

/* Linear interpolation in sorted xs at x, clamped to the ends. */
static double interp(const double *xs, const double *ys, size_t n, double x) {
  if (n == 0) return NAN;
  if (x <= xs[0]) return ys[0];
  if (x >= xs[n - 1]) return ys[n - 1];
  size_t hi = 1;
  while (xs[hi] < x) hi++;
  double f = (x - xs[hi - 1]) / (xs[hi] - xs[hi - 1]);
  return ys[hi - 1] + f * (ys[hi] - ys[hi - 1]);
}

/* The same over merged points sorted by x; *throttled says whether a point
 * the value rests on (the end clamped to, or either neighbour) is
 * throttled. */
static double interp_pts(const pt *p, size_t n, double x, bool *throttled) {
  *throttled = false;
  if (n == 0) return NAN;
  if (x <= p[0].x) return *throttled = p[0].throttled, p[0].y;
  if (x >= p[n - 1].x) return *throttled = p[n - 1].throttled, p[n - 1].y;
  size_t hi = 1;
  while (p[hi].x < x) hi++;
  if (p[hi].x == x) return *throttled = p[hi].throttled, p[hi].y;
  *throttled = p[hi - 1].throttled || p[hi].throttled;
  double f = (x - p[hi - 1].x) / (p[hi].x - p[hi - 1].x);
  return p[hi - 1].y + f * (p[hi].y - p[hi - 1].y);
}

/* A row of the type and benchmark with a positive value whose result was
 * checked (status ok, or throttled: check passed, clocks capped), measured
 * under the default settings (rows of probes with other settings are not a
 * card's figure). */
static bool usable(const gb_row *r, const char *benchmark, const char *type) {
  return (r->status == GB_STATUS_OK || r->status == GB_STATUS_THROTTLED) && strcmp(r->gpu_type, type) == 0 &&
         strcmp(r->benchmark, benchmark) == 0 && isfinite(r->value) && r->value > 0 && !r->settings[0] &&
         gb_desc_class(r) != GB_FCLASS_DERIVED && gb_desc_class(r) != GB_FCLASS_MEANINGLESS;
}

/* Whether r is a GEMM rate of the burst window (tflops, tops) or, with
 * sustained, of the sustained one (tflops_sustained, tops_sustained). */
static bool gemm_rate_metric(const gb_row *r, bool sustained) {
  return sustained ? strcmp(r->metric, "tflops_sustained") == 0 || strcmp(r->metric, "tops_sustained") == 0
                   : strcmp(r->metric, "tflops") == 0 || strcmp(r->metric, "tops") == 0;
}

/* GEMM rate at the precision, interpolated at log(gemm_size) over the
 * measured shapes (each shape: its ok rows, else its throttled rows); NaN if
 * none. *throttled: the rate rests on a throttled shape. */
static double gemm_measured(const gb_results *m, const char *type, const char *prec, bool sustained,
                            double gemm_size, pt *buf, double *scratch, size_t *used, bool *throttled) {
  size_t n = 0;
  *throttled = false;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!usable(r, "gemm", type) || strcmp(r->dtype, prec) != 0 || gb_perf_is_grouped(r)) continue;
    if (!gemm_rate_metric(r, sustained)) continue;
    if (r->m == GB_NA || r->n == GB_NA || r->k == GB_NA || r->m <= 0 || r->n <= 0 || r->k <= 0) continue;
    buf[n].x = log(cbrt((double)r->m * (double)r->n * (double)r->k));
    buf[n].y = r->value;
    buf[n].throttled = r->status == GB_STATUS_THROTTLED;
    n++;
  }
  if (n == 0) return NAN;
  n = merge_points(buf, n, scratch, used);
  return interp_pts(buf, n, log(gemm_size), throttled);
}

/* Whether a settings string holds only window-length items (iters=N,
 * warmup=N): a row measured so is the card's figure over a longer window. */
static bool settings_only_length(const char *s) {
  while (*s) {
    if (strncmp(s, "iters=", 6) != 0 && strncmp(s, "warmup=", 7) != 0) return false;
    const char *comma = strchr(s, ',');
    if (!comma) break;
    s = comma + 1;
  }
  return true;
}

/* The board power from the energy counter at the precision (see
 * gb_perf_power_w): NaN when no row has it. */
static double power_measured(const gb_results *m, const gb_perf_type *t, const char *prec, double *scratch,
                             gb_perf *out) {
  double largest = 0;
  size_t n = 0, implausible = 0;
  char why[256];
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < m->nrows; i++) {
      const gb_row *r = &m->rows[i];
      double w = gb_row_energy_power_w(r);
      if (!(r->status == GB_STATUS_OK || r->status == GB_STATUS_THROTTLED) || strcmp(r->benchmark, "gemm") ||
          strcmp(r->gpu_type, t->spec->gpu_type) || strcmp(r->dtype, prec) || gb_perf_is_grouped(r) || isnan(w) ||
          !(gemm_rate_metric(r, false) || gemm_rate_metric(r, true)) || !settings_only_length(r->settings) ||
          r->m == GB_NA || r->n == GB_NA || r->k == GB_NA)
        continue;
      if (!gb_energy_plausible(r->value / w, t->peak_tflops, t->spec->tdp_w, r->unit, why, sizeof why)) {
        if (pass == 0 && implausible++ == 0)
          gb_buf_printf(&out->notes, "%s: a %s GEMM row's power is left out: %s (%s:%ld)\n", t->spec->gpu_type, prec,
                        why, r->file, r->line);
        continue;
      }
      double size = (double)r->m * (double)r->n * (double)r->k;
      if (pass == 0 && size > largest) largest = size;
      if (pass == 1 && size == largest) scratch[n++] = w;
    }
  return n ? gb_median(scratch, n) : NAN;
}

double gb_perf_power_w(const gb_perf_type *t) { return t->power_measured ? t->power_w : t->spec->tdp_w; }

/* HBM plateau: triad, else copy, else any case; at the largest size, the
 * median of its ok rows, else of its throttled rows (*throttled). NaN if
 * none. */
static double hbm_measured(const gb_results *m, const char *type, double *scratch, size_t *used, bool *throttled) {
  int best_prio = 3;
  int64_t best_bytes = -1;
  bool any_ok = false;
  *throttled = false;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!usable(r, "membw", type) || !gb_desc_is_hbm(r, 0)) continue;
    int prio = gb_hbm_case_rank(r->case_name);
    if (prio < best_prio || (prio == best_prio && r->bytes > best_bytes)) best_prio = prio, best_bytes = r->bytes;
  }
  if (best_prio == 3) return NAN;
  for (int pass = 0; pass < 2; pass++) {
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++) {
      const gb_row *r = &m->rows[i];
      if (!usable(r, "membw", type) || !gb_desc_is_hbm(r, 0) || r->bytes != best_bytes ||
          gb_hbm_case_rank(r->case_name) != best_prio)
        continue;
      bool ok = r->status == GB_STATUS_OK;
      if (pass == 0) any_ok |= ok;
      else if (ok == any_ok) scratch[n++] = r->value;
    }
    if (pass == 1) {
      *used += n;
      *throttled = !any_ok;
      return gb_median(scratch, n);
    }
  }
  return NAN;
}

/* A bus-bandwidth row of a collective whose case starts with prefix
 * ("all_reduce", "alltoall", "sendrecv") over 2 or more GPUs. */
static bool is_coll(const gb_row *r, const char *prefix) {
  return strncmp(r->case_name, prefix, strlen(prefix)) == 0 && strcmp(r->metric, "busbw_gbps") == 0 &&
         r->bytes != GB_NA && r->bytes > 0 && r->gpu_count >= 2;
}

/* Curves of one collective on a type, one per measured gpu_count, each
 * point (message size) from its ok rows, else its throttled rows;
 * *throttled when a point of any curve is throttled. */
static gb_err curves_measured(const gb_results *m, const char *type, const char *prefix, gb_perf_curve **curves,
                              size_t *ncurves, bool *throttled, pt *buf, double *scratch, size_t *used) {
  for (;;) {
    /* next smallest gpu_count above the last curve's */
    int last = *ncurves ? (*curves)[*ncurves - 1].gpu_count : 1, next = 0;
    for (size_t i = 0; i < m->nrows; i++) {
      const gb_row *r = &m->rows[i];
      if (usable(r, "collective", type) && is_coll(r, prefix) && r->gpu_count > last &&
          (next == 0 || r->gpu_count < next))
        next = r->gpu_count;
    }
    if (next == 0) return GB_OK;
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++) {
      const gb_row *r = &m->rows[i];
      if (usable(r, "collective", type) && is_coll(r, prefix) && r->gpu_count == next) {
        buf[n].x = log((double)r->bytes);
        buf[n].y = r->value;
        buf[n].throttled = r->status == GB_STATUS_THROTTLED;
        n++;
      }
    }
    n = merge_points(buf, n, scratch, used);
    gb_perf_curve *grown = realloc(*curves, (*ncurves + 1) * sizeof *grown);
    if (!grown) return gb_fail(GB_E_NOMEM, "out of memory");
    *curves = grown;
    gb_perf_curve *c = &grown[(*ncurves)++];
    c->gpu_count = next;
    c->n = n;
    c->log_bytes = malloc(n * sizeof(double));
    c->busbw_gbps = malloc(n * sizeof(double));
    if (!c->log_bytes || !c->busbw_gbps) return gb_fail(GB_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
      c->log_bytes[i] = buf[i].x, c->busbw_gbps[i] = buf[i].y;
      if (buf[i].throttled) *throttled = true;
    }
  }
}

/* The all-reduce, alltoall and sendrecv curves of t and its grouped GEMM
 * points (ok rows; throttled ones where a shape has no ok row). */
static gb_err comm_measured(const gb_results *m, gb_perf_type *t, pt *buf, double *scratch, size_t *used) {
  const char *type = t->spec->gpu_type;
  bool a2a_thr = false;
  gb_err e = curves_measured(m, type, "all_reduce", &t->curves, &t->ncurves, &t->comm_throttled, buf, scratch, used);
  if (!e) e = curves_measured(m, type, "alltoall", &t->a2a, &t->na2a, &a2a_thr, buf, scratch, used);
  if (!e) e = curves_measured(m, type, "sendrecv", &t->sendrecv, &t->nsendrecv, &a2a_thr, buf, scratch, used);
  if (e) return e;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!usable(r, "gemm", type) || !gb_perf_is_grouped(r) || !gemm_rate_metric(r, false) || r->m <= 0 ||
        r->n <= 0 || r->k <= 0)
      continue;
    gb_perf_grouped *g = realloc(t->grouped, (t->ngrouped + 1) * sizeof *g);
    if (!g) return gb_fail(GB_E_NOMEM, "out of memory");
    t->grouped = g;
    g += t->ngrouped++;
    snprintf(g->dtype, sizeof g->dtype, "%s", r->dtype);
    g->m = (double)r->m, g->n = (double)r->n, g->k = (double)r->k, g->tflops = r->value;
    g->groups = r->groups == GB_NA ? 1 : (double)r->groups;
    (*used)++;
  }
  return GB_OK;
}

const char *gb_basis_name(gb_basis b) {
  static const char *const names[GB_BASIS_COUNT] = {"measured", "measured-throttled", "projected-vendor",
                                                    "projected-cross-vendor", "datasheet"};
  return b < GB_BASIS_COUNT ? names[b] : "?";
}

/* The basis and band of a figure that is not measured, from the measured
 * types' correction factors c_i: the same vendor's when there are any, else
 * every measured type's, else none (datasheet). *c gets their mean (1 when
 * none). */
static void project_from(const double *c, const bool *same, size_t n, double *mean, gb_basis *basis, double *band) {
  double sum = 0, sum_v = 0;
  size_t k = 0, kv = 0;
  for (size_t i = 0; i < n; i++) {
    sum += c[i], k++;
    if (same[i]) sum_v += c[i], kv++;
  }
  if (kv) *mean = sum_v / (double)kv, *basis = GB_BASIS_VENDOR, *band = GB_BAND_VENDOR;
  else if (k) *mean = sum / (double)k, *basis = GB_BASIS_CROSS, *band = GB_BAND_CROSS;
  else *mean = 1, *basis = GB_BASIS_DATASHEET, *band = GB_BAND_DATASHEET;
  /* the spread of the ratios the projection rests on widens the band */
  for (size_t i = 0; i < n; i++)
    if ((kv == 0 || same[i]) && *mean > 0 && fabs(c[i] / *mean - 1) > *band) *band = fabs(c[i] / *mean - 1);
}

/* A measured figure's basis and band; false (nothing set) when projected. */
static bool set_measured(bool measured, bool throttled, gb_basis *basis, double *band) {
  if (!measured) return false;
  *basis = throttled ? GB_BASIS_THROTTLED : GB_BASIS_MEASURED;
  *band = throttled ? GB_BAND_THROTTLED : GB_BAND_MEASURED;
  return true;
}

static const char *vendor_of(const gb_gpu_spec *s) { return gb_arch_model_find(s->arch)->vendor; }

/* GEMM at a precision: the measured rate, else peak x gemm_typical(arch) x
 * mean c over measured types, c = (measured / peak) / gemm_typical(their
 * arch): architectures differ in how much of their peak the library
 * reaches. */
static void project_gemm(const gb_perf *p, const gb_perf_type *t, const char *precision, double peak, bool measured,
                         bool throttled, double *rate, gb_basis *basis, double *band) {
  if (set_measured(measured, throttled, basis, band)) return;
  double typical = gb_arch_model_find(t->spec->arch)->gemm_typical, mean;
  if (strcmp(precision, p->precision) != 0) {
    /* the BF16 rate of an FP8 workload: the FP8 projection's correction */
    double pk = t->peak_tflops;
    mean = isfinite(pk) && isfinite(t->gemm_tflops) && pk > 0 ? t->gemm_tflops / pk / typical : 1;
    *basis = t->gemm_basis, *band = t->gemm_band;
  } else {
    double c[64];
    bool same[64];
    size_t n = 0;
    const char *vendor = vendor_of(t->spec);
    for (size_t i = 0; i < p->n && n < 64; i++) {
      const gb_perf_type *u = &p->v[i];
      if (!u->gemm_measured || u == t) continue;
      double upeak = gb_spec_peak(u->spec, precision), urate = u->gemm_tflops;
      if (!isfinite(upeak) || !isfinite(urate)) continue;
      c[n] = urate / upeak / gb_arch_model_find(u->spec->arch)->gemm_typical;
      same[n++] = strcmp(vendor_of(u->spec), vendor) == 0;
    }
    project_from(c, same, n, &mean, basis, band);
  }
  *rate = peak * typical * mean; /* NaN peak stays NaN */
}

enum { HBM, COMM };

/* HBM bandwidth or in-node busbw plateau: measured, else datasheet x mean
 * measured/datasheet ratio (same vendor first). */
static void project_ratio(const gb_perf *p, const gb_perf_type *t, int what, bool measured, bool throttled,
                          double *value, gb_basis *basis, double *band) {
  if (set_measured(measured, throttled, basis, band)) return;
  double c[64] = {0};
  bool same[64] = {0};
  size_t n = 0;
  const char *vendor = vendor_of(t->spec);
  for (size_t i = 0; i < p->n && n < 64; i++) {
    const gb_perf_type *u = &p->v[i];
    if (u == t) continue;
    if (what == HBM && u->hbm_measured) c[n] = u->hbm_gbps / u->spec->mem_bw_gbps;
    else if (what == COMM && u->ncurves && isfinite(u->spec->interconnect_gbps)) {
      const gb_perf_curve *cv = &u->curves[u->ncurves - 1];
      c[n] = cv->busbw_gbps[cv->n - 1] / (u->spec->interconnect_gbps / 2);
    } else continue;
    same[n++] = strcmp(vendor_of(u->spec), vendor) == 0;
  }
  double mean;
  project_from(c, same, n, &mean, basis, band);
  if (n == 0) mean = what == HBM ? GB_DEFAULT_HBM_RATIO : GB_DEFAULT_COMM_RATIO;
  /* no measured type of the vendor: a published STREAM share of the architecture beats another vendor's */
  double share = gb_arch_model_find(t->spec->arch)->hbm_share;
  if (what == HBM && *basis != GB_BASIS_VENDOR && share > 0) mean = share;
  if (what == HBM) *value = t->spec->mem_bw_gbps * mean;
  else *value = t->spec->interconnect_gbps / 2 * mean;
}

/* Notes for measured rows the planner cannot use: types the specs do not
 * know (no memory size) and rows measured under non-default settings, but
 * for a GEMM row of the plan's precision whose settings only lengthen its
 * window and whose type's power it measured (power_measured, run before):
 * "not used" would be false (the shipped H100 row, iters=2000, drew it on
 * every bf16 plan). Its rate stays unused, which the type's GEMM basis
 * (projected) shows. */
static void note_unusable(const gb_specs *specs, const gb_results *m, const char *precision, gb_perf *out) {
  for (size_t i = 0; i < m->nrows; i++) {
    const char *type = m->rows[i].gpu_type;
    if (gb_specs_find(specs, type)) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = strcmp(m->rows[j].gpu_type, type) == 0;
    if (!seen)
      gb_buf_printf(&out->notes, "%s:%ld: gpu_type %s is not in gpu_specs.csv; its measurements are not used\n",
                    m->rows[i].file ? m->rows[i].file : "measured", m->rows[i].line, type);
  }
  size_t nset = 0, first_set = 0;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!r->settings[0]) continue;
    const gb_perf_type *t = NULL; /* the type looked up only for a candidate: rows are many, types few */
    bool power_row = strcmp(r->benchmark, "gemm") == 0 && strcmp(r->dtype, precision) == 0 &&
                     settings_only_length(r->settings) && isfinite(gb_row_energy_power_w(r)) &&
                     (t = gb_perf_find(out, r->gpu_type)) && t->power_measured;
    if (!power_row && nset++ == 0) first_set = i;
  }
  if (nset)
    gb_buf_printf(&out->notes,
                  "%s:%ld: %zu row%s measured under non-default settings (here: %s) %s not used; the planner "
                  "uses rows measured with the defaults\n",
                  m->rows[first_set].file ? m->rows[first_set].file : "measured", m->rows[first_set].line, nset,
                  nset == 1 ? "" : "s", m->rows[first_set].settings, nset == 1 ? "is" : "are");
}

/* Why a type's GEMM rate at the precision is projected although GEMM rows
 * of it exist. */
static void note_gemm_projected(const gb_results *m, const gb_gpu_spec *s, const char *precision, bool sustained,
                                gb_perf *out) {
  bool other = false, other_window = false;
  for (size_t r = 0; r < m->nrows; r++) {
    const gb_row *row = &m->rows[r];
    if (!usable(row, "gemm", s->gpu_type)) continue;
    other = true;
    other_window |= strcmp(row->dtype, precision) == 0 && gemm_rate_metric(row, !sustained);
  }
  if (other_window)
    gb_buf_printf(&out->notes,
                  "%s: GEMM rows at %s exist only in the %s window, none in the %s one (metric %s); its %s rate "
                  "is projected%s\n",
                  s->gpu_type, precision, sustained ? "burst" : "sustained", sustained ? "sustained" : "burst",
                  sustained ? "tflops_sustained or tops_sustained" : "tflops or tops", precision,
                  sustained ? " (measure it with: gpubench run --bench gemm --opt gemm.window=sustained)" : "");
  else if (other)
    gb_buf_printf(&out->notes,
                  "%s: measured GEMM rows exist but none at %s with status ok or throttled; its %s rate is "
                  "projected\n",
                  s->gpu_type, precision, precision);
}

/* Sums of measured / datasheet ratios over the measured types. */
typedef struct ratio_sums {
  double gemm, hbm, comm;
} ratio_sums;

/* The measured figures of one type (NaN where none). */
static gb_err measure_type(const gb_results *m, const char *precision, double gemm_size, bool sustained, pt *buf,
                           double *scratch, gb_perf *out, gb_perf_type *t, ratio_sums *sum) {
  const gb_gpu_spec *s = t->spec;
  t->peak_tflops = gb_spec_peak(s, precision);
  t->gemm_tflops = gemm_measured(m, s->gpu_type, precision, sustained, gemm_size, buf, scratch,
                                 &out->measured_rows_used, &t->gemm_throttled);
  t->gemm_measured = !isnan(t->gemm_tflops);
  if (t->gemm_throttled)
    gb_buf_printf(&out->notes,
                  "%s: the %s GEMM rate %.1f TFLOP/s at size %g rests on throttled rows (no ok row at the "
                  "shapes around it; result checked, clocks power- or thermal-capped: the capped rate)\n",
                  s->gpu_type, precision, t->gemm_tflops, gemm_size);
  if (t->gemm_measured && isfinite(t->peak_tflops)) {
    sum->gemm += t->gemm_tflops / t->peak_tflops;
    out->gemm_ratio_types++;
  }
  if (!t->gemm_measured) note_gemm_projected(m, s, precision, sustained, out);
  t->power_w = power_measured(m, t, precision, scratch, out);
  t->power_measured = isfinite(t->power_w);
  t->hbm_gbps = hbm_measured(m, s->gpu_type, scratch, &out->measured_rows_used, &t->hbm_throttled);
  t->hbm_measured = !isnan(t->hbm_gbps);
  if (t->hbm_throttled)
    gb_buf_printf(&out->notes, "%s: the HBM rate %.0f GB/s rests on throttled membw rows (no ok row at the size)\n",
                  s->gpu_type, t->hbm_gbps);
  if (t->hbm_measured) {
    sum->hbm += t->hbm_gbps / s->mem_bw_gbps;
    out->hbm_ratio_types++;
  }
  gb_err e = comm_measured(m, t, buf, scratch, &out->measured_rows_used);
  if (!e) e = gb_perf_decode_collect(m, t, &out->measured_rows_used);
  if (e) return e;
  if (t->comm_throttled)
    gb_buf_printf(&out->notes, "%s: some all-reduce busbw points rest on throttled rows (no ok row at that size)\n",
                  s->gpu_type);
  if (t->ncurves && isfinite(s->interconnect_gbps)) {
    const gb_perf_curve *c = &t->curves[t->ncurves - 1];
    sum->comm += c->busbw_gbps[c->n - 1] / (s->interconnect_gbps / 2);
    out->comm_ratio_types++;
  }
  return GB_OK;
}

/* Every figure a type lacks, projected from the measured types. */
static void project_type(gb_perf *out, gb_perf_type *t, const char *precision) {
  const gb_gpu_spec *s = t->spec;
  t->model = gb_arch_model_find(s->arch);
  t->nic_node_gbps = isfinite(s->nics_per_node) && isfinite(s->nic_gbit) ? s->nics_per_node * s->nic_gbit / 8 : NAN;
  project_gemm(out, t, precision, t->peak_tflops, t->gemm_measured, t->gemm_throttled, &t->gemm_tflops,
               &t->gemm_basis, &t->gemm_band);
  project_ratio(out, t, HBM, t->hbm_measured, t->hbm_throttled, &t->hbm_gbps, &t->hbm_basis, &t->hbm_band);
  /* interconnect_gbps counts both directions; a ring moves data one way */
  double plateau = NAN;
  gb_basis cb;
  double cband;
  project_ratio(out, t, COMM, t->ncurves > 0, t->comm_throttled, &plateau, &cb, &cband);
  t->comm_plateau_gbps = t->ncurves ? t->spec->interconnect_gbps / 2 * out->comm_ratio : plateau;
  t->comm_basis = cb, t->comm_band = cband;
  t->gemm_base_tflops = t->gemm_tflops;
}

/* FP8 workloads: the BF16 rate too (the non-GEMM share runs at it). */
static void base_rates(const gb_results *m, bool sustained, double gemm_size, pt *buf, double *scratch,
                       gb_perf *out) {
  for (size_t i = 0; i < out->n; i++) {
    gb_perf_type *t = &out->v[i];
    bool thr = false;
    double peak = gb_spec_peak(t->spec, "bf16");
    double g = gemm_measured(m, t->spec->gpu_type, "bf16", sustained, gemm_size, buf, scratch, &out->measured_rows_used,
                             &thr);
    gb_basis b;
    double band;
    project_gemm(out, t, "bf16", peak, !isnan(g), thr, &g, &b, &band);
    t->gemm_base_tflops = isfinite(g) ? g : t->gemm_tflops;
  }
}

gb_err gb_perf_build(const gb_specs *specs, const gb_results *measured, const char *precision, double gemm_size,
                     bool sustained, gb_perf *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->precision, sizeof out->precision, "%s", precision);
  out->gemm_sustained = sustained;
  gb_results none = {0};
  const gb_results *m = measured ? measured : &none;
  gb_err e = GB_OK;
  pt *buf = malloc((m->nrows + 1) * sizeof *buf);
  double *scratch = malloc((m->nrows + 1) * sizeof *scratch);
  out->v = calloc(specs->n ? specs->n : 1, sizeof *out->v);
  if (!buf || !scratch || !out->v) {
    e = gb_fail(GB_E_NOMEM, "out of memory");
    goto done;
  }
  out->n = specs->n;
  ratio_sums sum = {0, 0, 0};
  for (size_t i = 0; i < specs->n; i++) out->v[i].spec = &specs->v[i];
  for (size_t i = 0; i < specs->n && !e; i++)
    e = measure_type(m, precision, gemm_size, sustained, buf, scratch, out, &out->v[i], &sum);
  if (e) goto done;
  note_unusable(specs, m, precision, out);
  out->gemm_ratio = out->gemm_ratio_types ? sum.gemm / (double)out->gemm_ratio_types : GB_DEFAULT_GEMM_RATIO;
  out->hbm_ratio = out->hbm_ratio_types ? sum.hbm / (double)out->hbm_ratio_types : GB_DEFAULT_HBM_RATIO;
  out->comm_ratio = out->comm_ratio_types ? sum.comm / (double)out->comm_ratio_types : GB_DEFAULT_COMM_RATIO;
  for (size_t i = 0; i < out->n; i++) project_type(out, &out->v[i], precision);
  if (gb_workload_is_low_precision(precision))
    base_rates(m, sustained, gemm_size, buf, scratch, out);
done:
  free(buf);
  free(scratch);
  if (e) gb_perf_free(out);
  return e;
}

const char *gb_perf_basis_name(bool measured, bool throttled) {
  return !measured ? "projected" : throttled ? "measured-throttled" : "measured";
}

const gb_perf_type *gb_perf_find(const gb_perf *p, const char *gpu_type) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->v[i].spec->gpu_type, gpu_type) == 0) return &p->v[i];
  return NULL;
}

double gb_perf_busbw_gbps(const gb_perf *p, const gb_perf_type *t, int gpu_count, int gpus_per_node, double bytes,
                          double nic_gbps, bool *projected) {
  (void)p;
  *projected = false;
  if (gpu_count <= 1) return INFINITY;
  int in_node = gpu_count <= gpus_per_node ? gpu_count : gpus_per_node;
  double intra = INFINITY;
  if (in_node >= 2) {
    const gb_perf_curve *best = NULL;
    for (size_t i = 0; i < t->ncurves; i++) {
      const gb_perf_curve *c = &t->curves[i];
      if (c->gpu_count == in_node) {
        best = c;
        break;
      }
      /* nearest: the largest count below, else the smallest above */
      if (c->gpu_count < in_node) best = c;
      else if (!best) best = c;
    }
    if (best) {
      intra = interp(best->log_bytes, best->busbw_gbps, best->n, log(bytes));
      if (best->gpu_count != in_node) *projected = true;
    } else {
      intra = isfinite(t->comm_plateau_gbps) ? t->comm_plateau_gbps : nic_gbps;
      *projected = true;
    }
  }
  if (gpu_count > gpus_per_node) {
    *projected = true;
    return intra < nic_gbps ? intra : nic_gbps;
  }
  return intra;
}

void gb_perf_free(gb_perf *p) {
  for (size_t i = 0; p->v && i < p->n; i++) {
    for (size_t c = 0; c < p->v[i].ncurves; c++) {
      free(p->v[i].curves[c].log_bytes);
      free(p->v[i].curves[c].busbw_gbps);
    }
    free(p->v[i].curves);
    gb_perf_free_moe(&p->v[i]);
    gb_perf_free_decode(&p->v[i]);
  }
  free(p->v);
  gb_buf_free(&p->notes);
  memset(p, 0, sizeof *p);
}
