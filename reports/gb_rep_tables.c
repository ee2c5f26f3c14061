/* gb_rep_tables: the campaign tables -- the inputs, the environment of
 * each run and every case measured (All measurements). Called by
 * gb_report.c alone; calls only the shared helpers (gb_rep.c). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_stats.h"

gb_err gb_rep_table_inputs(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Inputs");
  const char *hdr[] = {"file", "rows"};
  if (!e) e = gb_doc_table_begin(&r->doc, 2, hdr, "lr");
  /* rows per file: one pass over the rows by their table's name, which is
   * the path read (files x rows was quadratic over many files) */
  size_t *count = calloc(r->o->nresults + 1, sizeof *count);
  if (!count) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0, f = 0; i < r->res.nrows && !e; i++) {
    const char *file = r->res.rows[i].file;
    if (f < r->o->nresults && strcmp(file, r->o->results[f]) != 0)
      for (size_t g = 0; g < r->o->nresults; g++) /* a new file: rows come file by file */
        if (strcmp(file, r->o->results[g]) == 0) {
          f = g;
          break;
        }
    if (f < r->o->nresults && strcmp(file, r->o->results[f]) == 0) count[f]++;
  }
  /* the same path given twice counts its rows under each, as before */
  for (size_t f = 0; f < r->o->nresults && !e; f++)
    for (size_t g = 0; g < f; g++)
      if (strcmp(r->o->results[f], r->o->results[g]) == 0) {
        count[f] = count[g];
        break;
      }
  for (size_t f = 0; f < r->o->nresults && !e; f++) {
    size_t rows = count[f];
    char nb[32];
    snprintf(nb, sizeof nb, "%zu", rows);
    const char *cells[] = {gb_rep_basename(r->o->results[f]), nb};
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  free(count);
  return e;
}

/* Median of a telemetry field over the source's rows (NaN when none). */
static double telemetry(const gb_rep *r, size_t s, size_t off, bool want_max) {
  size_t lo = r->src_row_off[s], hi = r->src_row_off[s + 1];
  double *v = malloc((hi - lo ? hi - lo : 1) * sizeof *v);
  if (!v) return NAN;
  size_t k = 0;
  for (size_t j = lo; j < hi; j++) {
    double x = *(const double *)((const char *)&r->res.rows[r->src_rows[j]] + off);
    if (isfinite(x)) v[k++] = x;
  }
  double out = NAN;
  if (k && want_max) {
    out = v[0];
    for (size_t i = 1; i < k; i++)
      if (v[i] > out) out = v[i];
  } else if (k) {
    out = gb_median(v, k);
  }
  free(v);
  return out;
}

/* The distinct values of a string field over the source's rows, joined. */
static void distinct(const gb_rep *r, size_t s, size_t off, char *buf, size_t n) {
  buf[0] = '\0';
  size_t len = 0;
  gb_rep_names seen = {0};
  for (size_t j = r->src_row_off[s]; j < r->src_row_off[s + 1]; j++) {
    const char *v = *(const char *const *)((const char *)&r->res.rows[r->src_rows[j]] + off);
    if (!v || !*v || gb_rep_names_find(&seen, v) != (size_t)-1) continue;
    if (gb_rep_names_add(&seen, v) != GB_OK) break;
    int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", v);
    if (w < 0 || (size_t)w >= n - len) break;
    len += (size_t)w;
  }
  gb_rep_names_free(&seen);
}

gb_err gb_rep_table_environment(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Environment");
  if (!e) e = gb_doc_para(&r->doc, "One column per GPU type and run. Clocks, temperature and power are the medians "
                                   "(maximum for temperature and power) of the telemetry recorded with each row; the power "
                                   "is the driver's 1-s average, which a short window does not fill, so no per-W "
                                   "figure is taken from it (docs/perf-notes.md, Energy and power).");
  size_t nc = r->nsrc + 1;
  const char **hdr = calloc(nc, sizeof *hdr);
  const char **cells = calloc(nc, sizeof *cells);
  char(*buf)[512] = calloc(nc, sizeof *buf);
  if (!hdr || !cells || !buf) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) {
    hdr[0] = "";
    for (size_t s = 0; s < r->nsrc; s++) hdr[s + 1] = r->src[s].label;
    e = gb_doc_table_begin(&r->doc, nc, hdr, NULL);
  }
  static const struct {
    const char *name;
    size_t off;
  } strs[] = {{"run id", offsetof(gb_row, run_id)},   {"host", offsetof(gb_row, host)},
              {"GPU", offsetof(gb_row, gpu_name)},    {"driver", offsetof(gb_row, driver)},
              {"CUDA", offsetof(gb_row, cuda)},       {"cuBLASLt", offsetof(gb_row, cublaslt)},
              {"NVRTC", offsetof(gb_row, nvrtc)},     {"NCCL", offsetof(gb_row, nccl)},
              {"gpubench revision", offsetof(gb_row, git_sha)}, {"non-default settings", offsetof(gb_row, settings)}};
  for (size_t f = 0; f < sizeof strs / sizeof strs[0] && !e; f++) {
    cells[0] = strs[f].name;
    bool any = false;
    for (size_t s = 0; s < r->nsrc; s++) {
      distinct(r, s, strs[f].off, buf[s + 1], sizeof buf[0]);
      cells[s + 1] = buf[s + 1];
      any |= buf[s + 1][0] != '\0';
    }
    if (any) e = gb_doc_table_row(&r->doc, cells); /* a field no run recorded (an older file) is left out */
  }
  /* time span */
  if (!e) {
    cells[0] = "measured (UTC)";
    for (size_t s = 0; s < r->nsrc; s++) {
      const char *lo = NULL, *hi = NULL;
      for (size_t j = r->src_row_off[s]; j < r->src_row_off[s + 1]; j++) {
        const char *t = r->res.rows[r->src_rows[j]].timestamp;
        if (!lo || strcmp(t, lo) < 0) lo = t;
        if (!hi || strcmp(t, hi) > 0) hi = t;
      }
      snprintf(buf[s + 1], sizeof buf[0], "%s .. %s", lo ? lo : "", hi ? hi : "");
      cells[s + 1] = buf[s + 1];
    }
    e = gb_doc_table_row(&r->doc, cells);
  }
  static const struct {
    const char *name;
    size_t off;
    bool max;
  } nums[] = {{"SM clock (MHz)", offsetof(gb_row, sm_clock_mhz), false},
              {"memory clock (MHz)", offsetof(gb_row, mem_clock_mhz), false},
              {"temperature, max (C)", offsetof(gb_row, temp_c), true},
              {"power, 1-s average, max (W; telemetry)", offsetof(gb_row, power_w), true}};
  for (size_t f = 0; f < sizeof nums / sizeof nums[0] && !e; f++) {
    cells[0] = nums[f].name;
    for (size_t s = 0; s < r->nsrc; s++) {
      gb_rep_fmt(buf[s + 1], sizeof buf[0], telemetry(r, s, nums[f].off, nums[f].max));
      cells[s + 1] = buf[s + 1];
    }
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) {
    cells[0] = "datasheet";
    for (size_t s = 0; s < r->nsrc; s++) {
      const gb_gpu_spec *sp = r->src[s].spec;
      if (sp) snprintf(buf[s + 1], sizeof buf[0], "%s (%s)", sp->name, sp->date);
      else snprintf(buf[s + 1], sizeof buf[0], "not in gpu_specs.csv");
      cells[s + 1] = buf[s + 1];
    }
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  free(hdr);
  free(cells);
  free(buf);
  return e;
}

/* The identity of a row of the All measurements table. */
static bool same_case(const void *ctx, size_t a, size_t b) {
  const gb_rep *r = ctx;
  const gb_row *x = r->pts[a].row, *y = r->pts[b].row;
  return !strcmp(x->benchmark, y->benchmark) && !strcmp(x->case_name, y->case_name) && !strcmp(x->dtype, y->dtype) &&
         !strcmp(x->metric, y->metric) && x->gpu_count == y->gpu_count;
}

/* One row per benchmark, case, dtype, metric and GPU count; one column per
 * source with the best value over shapes and sizes (and its size). */
gb_err gb_rep_table_all(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "All measurements");
  if (!e)
    e = gb_doc_para(&r->doc, "Every benchmark case measured, including ones this report draws no plot for: the best "
                             "value (median over repetitions) over all shapes and sizes, with the shape or size "
                             "where it was reached. Rows with status other than ok are excluded here and listed "
                             "under Problems.");
  size_t nc = r->nsrc + 4;
  const char **hdr = calloc(nc, sizeof *hdr);
  const char **cells = calloc(nc, sizeof *cells);
  char(*buf)[160] = calloc(nc, sizeof *buf);
  /* table rows in the order of their first points, each with its points in
   * order: a hash index and a counting sort (a scan per row was quadratic) */
  size_t *grp = calloc(r->npts ? r->npts : 1, sizeof *grp), *first = calloc(r->npts ? r->npts : 1, sizeof *first);
  size_t *members = NULL, *off = NULL, ngrp = 0, dropped = 0;
  gb_rep_hash hc = {0};
  if (!hdr || !cells || !buf || !grp || !first) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) e = gb_rep_hash_init(&hc, r->npts);
  for (size_t i = 0; i < r->npts && !e; i++) {
    const gb_row *w = r->pts[i].row;
    uint64_t h = gb_rep_hash_str(gb_rep_hash_str(GB_REP_HASH_SEED, w->benchmark), w->case_name);
    h = gb_rep_hash_i64(gb_rep_hash_str(gb_rep_hash_str(h, w->dtype), w->metric), w->gpu_count);
    size_t f = gb_rep_hash_find(&hc, h, i, same_case, r);
    if (f == i) first[i] = ngrp++;
    grp[i] = first[f];
  }
  gb_rep_hash_free(&hc);
  if (!e) e = gb_rep_group_by(grp, r->npts, ngrp, &members, &off);
  if (!e) {
    hdr[0] = "benchmark";
    hdr[1] = "case";
    hdr[2] = "dtype";
    hdr[3] = "metric";
    for (size_t s = 0; s < r->nsrc; s++) hdr[s + 4] = r->src[s].label;
    e = gb_doc_table_begin(&r->doc, nc, hdr, NULL);
  }
  for (size_t g = 0; g < ngrp && !e; g++) {
    const gb_row *a = r->pts[members[off[g]]].row;
    const gb_rep_point *best[512] = {0};
    size_t nsrc = r->nsrc < 512 ? r->nsrc : 512;
    for (size_t m = off[g]; m < off[g + 1]; m++) {
      size_t j = members[m];
      const gb_row *b = r->pts[j].row;
      size_t s = r->pts[j].src;
      if (s >= nsrc) continue;
      /* a figure that means nothing for its GPU count (gb_desc_class: no
       * data moves, or 0 by definition) is left out, and said so below */
      if (gb_desc_class(b) == GB_FCLASS_MEANINGLESS) {
        dropped++;
        continue;
      }
      /* the metric's direction (core/gb_desc.h); unknown ones: larger is better */
      bool smaller = gb_desc_direction(b->benchmark, b->metric) == GB_DIR_LOWER;
      if (!best[s] || (smaller ? r->pts[j].value < best[s]->value : r->pts[j].value > best[s]->value))
        best[s] = &r->pts[j];
    }
    bool any = false;
    for (size_t s = 0; s < nsrc; s++) any = any || best[s];
    if (!any) continue;
    char metric[128];
    if (a->gpu_count > 1) snprintf(metric, sizeof metric, "%s (%s), %d GPUs", a->metric, a->unit, a->gpu_count);
    else snprintf(metric, sizeof metric, "%s (%s)", a->metric, a->unit);
    cells[0] = a->benchmark;
    cells[1] = a->case_name;
    cells[2] = a->dtype;
    cells[3] = metric;
    for (size_t s = 0; s < r->nsrc; s++) {
      buf[s][0] = '\0';
      if (s < nsrc && best[s]) {
        char v[64], sz[64];
        gb_rep_fmt(v, sizeof v, best[s]->value);
        gb_rep_fmt_size(best[s]->row, sz, sizeof sz);
        snprintf(buf[s], sizeof buf[0], sz[0] ? "%s at %s" : "%s", v, sz);
      }
      cells[s + 4] = buf[s];
    }
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  if (!e && dropped) {
    char line[400];
    snprintf(line, sizeof line, "Left out: %zu measurement(s) that mean nothing for their GPU count (one-GPU "
             "in-place collectives, bus bandwidth and broadcast on one GPU: no data crosses a link, or the value "
             "is 0 by definition). The result CSVs hold them.", dropped);
    e = gb_doc_para(&r->doc, line);
  }
  free(hdr);
  free(cells);
  free(buf);
  free(grp);
  free(first);
  free(members);
  free(off);
  return e;
}
