/* gb_perf: measured and projected GEMM, HBM and all-reduce figures. */
#include "gb_perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_stats.h"

typedef struct pt {
  double x, y;
} pt;

static int pt_cmp(const void *a, const void *b) {
  const pt *p = a, *q = b;
  return (p->x > q->x) - (p->x < q->x);
}

/* Sorts points by x and merges equal x into their median; returns the new
 * count. scratch holds n doubles. */
static size_t merge_points(pt *p, size_t n, double *scratch) {
  qsort(p, n, sizeof *p, pt_cmp);
  size_t out = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && p[j].x == p[i].x) {
      scratch[j - i] = p[j].y;
      j++;
    }
    p[out].x = p[i].x;
    p[out].y = gb_median(scratch, j - i);
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

/* The same over points sorted by x. */
static double interp_pts(const pt *p, size_t n, double x) {
  if (n == 0) return NAN;
  if (x <= p[0].x) return p[0].y;
  if (x >= p[n - 1].x) return p[n - 1].y;
  size_t hi = 1;
  while (p[hi].x < x) hi++;
  double f = (x - p[hi - 1].x) / (p[hi].x - p[hi - 1].x);
  return p[hi - 1].y + f * (p[hi].y - p[hi - 1].y);
}

/* A row of the type and benchmark with a positive value at status st. */
static bool usable(const gb_row *r, const char *benchmark, const char *type, gb_status st) {
  return r->status == st && strcmp(r->gpu_type, type) == 0 && strcmp(r->benchmark, benchmark) == 0 &&
         isfinite(r->value) && r->value > 0;
}

/* GEMM rate at the precision from rows at status st, interpolated at
 * log(gemm_size); NaN if none. */
static double gemm_measured(const gb_results *m, const char *type, const char *prec, gb_status st, double gemm_size,
                            pt *buf, double *scratch, size_t *used) {
  size_t n = 0;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!usable(r, "gemm", type, st) || strcmp(r->dtype, prec) != 0) continue;
    if (strcmp(r->metric, "tflops") != 0 && strcmp(r->metric, "tops") != 0) continue;
    if (r->m == GB_NA || r->n == GB_NA || r->k == GB_NA || r->m <= 0 || r->n <= 0 || r->k <= 0) continue;
    buf[n].x = log(cbrt((double)r->m * (double)r->n * (double)r->k));
    buf[n].y = r->value;
    n++;
  }
  if (n == 0) return NAN;
  *used += n;
  n = merge_points(buf, n, scratch);
  return interp_pts(buf, n, log(gemm_size));
}

/* HBM plateau from rows at status st: triad, else copy, else any case;
 * median at the largest size; NaN if none. */
static double hbm_measured(const gb_results *m, const char *type, gb_status st, double *scratch, size_t *used) {
  int best_prio = 3;
  int64_t best_bytes = -1;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!usable(r, "membw", type, st) || strcmp(r->metric, "gbps") != 0 || r->bytes == GB_NA) continue;
    int prio = strcmp(r->case_name, "triad") == 0 ? 0 : strcmp(r->case_name, "copy") == 0 ? 1 : 2;
    if (prio < best_prio || (prio == best_prio && r->bytes > best_bytes)) best_prio = prio, best_bytes = r->bytes;
  }
  if (best_prio == 3) return NAN;
  size_t n = 0;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!usable(r, "membw", type, st) || strcmp(r->metric, "gbps") != 0 || r->bytes != best_bytes) continue;
    int prio = strcmp(r->case_name, "triad") == 0 ? 0 : strcmp(r->case_name, "copy") == 0 ? 1 : 2;
    if (prio == best_prio) scratch[n++] = r->value;
  }
  *used += n;
  return gb_median(scratch, n);
}

static bool is_allreduce(const gb_row *r) {
  return strncmp(r->case_name, "all_reduce", 10) == 0 && strcmp(r->metric, "busbw_gbps") == 0 &&
         r->bytes != GB_NA && r->bytes > 0 && r->gpu_count >= 2;
}

/* All-reduce curves of t, one per measured gpu_count, from ok rows, or from
 * throttled rows when the type has no ok all-reduce row. */
static gb_err comm_measured(const gb_results *m, gb_perf_type *t, pt *buf, double *scratch, size_t *used) {
  const char *type = t->spec->gpu_type;
  gb_status st = GB_STATUS_THROTTLED;
  for (size_t i = 0; i < m->nrows && st != GB_STATUS_OK; i++)
    if (usable(&m->rows[i], "collective", type, GB_STATUS_OK) && is_allreduce(&m->rows[i])) st = GB_STATUS_OK;
  for (;;) {
    /* next smallest gpu_count above the last curve's */
    int last = t->ncurves ? t->curves[t->ncurves - 1].gpu_count : 1, next = 0;
    for (size_t i = 0; i < m->nrows; i++) {
      const gb_row *r = &m->rows[i];
      if (usable(r, "collective", type, st) && is_allreduce(r) && r->gpu_count > last &&
          (next == 0 || r->gpu_count < next))
        next = r->gpu_count;
    }
    if (next == 0) return GB_OK;
    t->comm_throttled = st == GB_STATUS_THROTTLED;
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++) {
      const gb_row *r = &m->rows[i];
      if (usable(r, "collective", type, st) && is_allreduce(r) && r->gpu_count == next) {
        buf[n].x = log((double)r->bytes);
        buf[n].y = r->value;
        n++;
      }
    }
    *used += n;
    n = merge_points(buf, n, scratch);
    gb_perf_curve *grown = realloc(t->curves, (t->ncurves + 1) * sizeof *grown);
    if (!grown) return gb_fail(GB_E_NOMEM, "out of memory");
    t->curves = grown;
    gb_perf_curve *c = &t->curves[t->ncurves++];
    c->gpu_count = next;
    c->n = n;
    c->log_bytes = malloc(n * sizeof(double));
    c->busbw_gbps = malloc(n * sizeof(double));
    if (!c->log_bytes || !c->busbw_gbps) return gb_fail(GB_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) c->log_bytes[i] = buf[i].x, c->busbw_gbps[i] = buf[i].y;
  }
}

gb_err gb_perf_build(const gb_specs *specs, const gb_results *measured, const char *precision, double gemm_size,
                     gb_perf *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->precision, sizeof out->precision, "%s", precision);
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
  /* measured types the specs do not know cannot be planned (no memory size) */
  for (size_t i = 0; i < m->nrows; i++) {
    const char *type = m->rows[i].gpu_type;
    if (gb_specs_find(specs, type)) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = strcmp(m->rows[j].gpu_type, type) == 0;
    if (!seen)
      gb_buf_printf(&out->notes, "%s:%ld: gpu_type %s is not in gpu_specs.csv; its measurements are not used\n",
                    m->rows[i].file ? m->rows[i].file : "measured", m->rows[i].line, type);
  }
  double gsum = 0, hsum = 0, csum = 0;
  for (size_t i = 0; i < specs->n; i++) {
    gb_perf_type *t = &out->v[i];
    const gb_gpu_spec *s = &specs->v[i];
    t->spec = s;
    t->peak_tflops = gb_spec_peak(s, precision);
    size_t before = out->measured_rows_used;
    t->gemm_tflops =
        gemm_measured(m, s->gpu_type, precision, GB_STATUS_OK, gemm_size, buf, scratch, &out->measured_rows_used);
    if (isnan(t->gemm_tflops)) {
      t->gemm_tflops = gemm_measured(m, s->gpu_type, precision, GB_STATUS_THROTTLED, gemm_size, buf, scratch,
                                     &out->measured_rows_used);
      t->gemm_throttled = !isnan(t->gemm_tflops);
      if (t->gemm_throttled)
        gb_buf_printf(&out->notes,
                      "%s: no %s GEMM row with status ok; the %s rate %.1f TFLOP/s comes from %zu throttled rows "
                      "(result checked, clocks power- or thermal-capped: the capped rate)\n",
                      s->gpu_type, precision, precision, t->gemm_tflops, out->measured_rows_used - before);
    }
    t->gemm_measured = !isnan(t->gemm_tflops);
    if (t->gemm_measured && isfinite(t->peak_tflops)) {
      gsum += t->gemm_tflops / t->peak_tflops;
      out->gemm_ratio_types++;
    }
    if (!t->gemm_measured) {
      bool other = false;
      for (size_t r = 0; r < m->nrows && !other; r++)
        other = usable(&m->rows[r], "gemm", s->gpu_type, GB_STATUS_OK) ||
                usable(&m->rows[r], "gemm", s->gpu_type, GB_STATUS_THROTTLED);
      if (other)
        gb_buf_printf(&out->notes,
                      "%s: measured GEMM rows exist but none at %s with status ok or throttled; its %s rate is "
                      "projected\n",
                      s->gpu_type, precision, precision);
    }
    before = out->measured_rows_used;
    t->hbm_gbps = hbm_measured(m, s->gpu_type, GB_STATUS_OK, scratch, &out->measured_rows_used);
    if (isnan(t->hbm_gbps)) {
      t->hbm_gbps = hbm_measured(m, s->gpu_type, GB_STATUS_THROTTLED, scratch, &out->measured_rows_used);
      t->hbm_throttled = !isnan(t->hbm_gbps);
      if (t->hbm_throttled)
        gb_buf_printf(&out->notes,
                      "%s: no membw row with status ok; the HBM rate %.0f GB/s comes from %zu throttled rows\n",
                      s->gpu_type, t->hbm_gbps, out->measured_rows_used - before);
    }
    t->hbm_measured = !isnan(t->hbm_gbps);
    if (t->hbm_measured) {
      hsum += t->hbm_gbps / s->mem_bw_gbps;
      out->hbm_ratio_types++;
    }
    if ((e = comm_measured(m, t, buf, scratch, &out->measured_rows_used))) goto done;
    if (t->comm_throttled)
      gb_buf_printf(&out->notes, "%s: no all-reduce row with status ok; its busbw curves come from throttled rows\n",
                    s->gpu_type);
    if (t->ncurves && isfinite(s->interconnect_gbps)) {
      const gb_perf_curve *c = &t->curves[t->ncurves - 1];
      csum += c->busbw_gbps[c->n - 1] / (s->interconnect_gbps / 2);
      out->comm_ratio_types++;
    }
  }
  out->gemm_ratio = out->gemm_ratio_types ? gsum / (double)out->gemm_ratio_types : GB_DEFAULT_GEMM_RATIO;
  out->hbm_ratio = out->hbm_ratio_types ? hsum / (double)out->hbm_ratio_types : GB_DEFAULT_HBM_RATIO;
  out->comm_ratio = out->comm_ratio_types ? csum / (double)out->comm_ratio_types : GB_DEFAULT_COMM_RATIO;
  for (size_t i = 0; i < out->n; i++) {
    gb_perf_type *t = &out->v[i];
    if (!t->gemm_measured) t->gemm_tflops = t->peak_tflops * out->gemm_ratio; /* NaN stays NaN */
    if (!t->hbm_measured) t->hbm_gbps = t->spec->mem_bw_gbps * out->hbm_ratio;
    /* interconnect_gbps counts both directions; a ring moves data one way */
    t->comm_plateau_gbps = t->spec->interconnect_gbps / 2 * out->comm_ratio;
  }
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
  }
  free(p->v);
  gb_buf_free(&p->notes);
  memset(p, 0, sizeof *p);
}
