/* gb_report: reads the inputs, groups result rows into sources (a GPU type
 * in a run) and measured points, writes the tables and calls the plot
 * sections, then writes report.md and report.html. */
#include "gb_report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_desc.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"
#include "gb_runinfo.h"
#include "gb_stats.h"

/* ---- sources and points ---- */

/* Sources and GPU types are found through hash indexes: one pass over the
 * rows (it was a scan of every source per row). */
static bool same_source(const void *ctx, size_t a, size_t b) {
  const gb_row *x = &((const gb_rep *)ctx)->res.rows[a], *y = &((const gb_rep *)ctx)->res.rows[b];
  return !strcmp(x->gpu_type, y->gpu_type) && !strcmp(x->run_id, y->run_id) && !strcmp(x->settings, y->settings);
}

static bool same_type(const void *ctx, size_t a, size_t b) {
  const gb_rep *r = ctx;
  return !strcmp(r->res.rows[a].gpu_type, r->res.rows[b].gpu_type);
}

/* Counting sort of items 0..n-1 by key[i] < nkeys: out (n items, input
 * order kept within a key) and off (nkeys + 1). */
static gb_err group_by(const size_t *key, size_t n, size_t nkeys, size_t **out, size_t **off) {
  *out = malloc((n ? n : 1) * sizeof **out);
  *off = calloc(nkeys + 2, sizeof **off);
  if (!*out || !*off) return gb_fail(GB_E_NOMEM, "out of memory indexing results");
  for (size_t i = 0; i < n; i++) (*off)[key[i] + 2]++;
  for (size_t k = 0; k < nkeys; k++) (*off)[k + 2] += (*off)[k + 1];
  for (size_t i = 0; i < n; i++) (*out)[(*off)[key[i] + 1]++] = i;
  return GB_OK; /* off[k] is now the start of key k, off[nkeys] the end */
}

static gb_err find_sources(gb_rep *r) {
  size_t n = r->res.nrows;
  r->row_src = calloc(n ? n : 1, sizeof *r->row_src);
  r->src = calloc(n ? n : 1, sizeof *r->src);
  r->types = calloc(n ? n : 1, sizeof *r->types);
  size_t *src_row = calloc(n ? n : 1, sizeof *src_row), *type_row = calloc(n ? n : 1, sizeof *type_row);
  gb_rep_hash hs = {0}, ht = {0};
  gb_err e = GB_OK;
  if (!r->row_src || !r->src || !r->types || !src_row || !type_row)
    e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
  if (!e) e = gb_rep_hash_init(&hs, n);
  if (!e) e = gb_rep_hash_init(&ht, n);
  for (size_t i = 0; i < n && !e; i++) {
    const gb_row *w = &r->res.rows[i];
    uint64_t h = gb_rep_hash_str(GB_REP_HASH_SEED, w->gpu_type);
    size_t first = gb_rep_hash_find(&hs, gb_rep_hash_str(gb_rep_hash_str(h, w->run_id), w->settings), i,
                                    same_source, r);
    size_t s;
    if (first == i) { /* a new source */
      size_t tfirst = gb_rep_hash_find(&ht, h, i, same_type, r);
      size_t t;
      if (tfirst == i) {
        t = r->ntypes++;
        type_row[i] = t;
        r->types[t].gpu_type = w->gpu_type;
        r->types[t].spec = gb_specs_find(&r->specs, w->gpu_type);
      } else {
        t = type_row[tfirst];
      }
      s = r->nsrc++;
      src_row[i] = s;
      r->src[s].gpu_type = w->gpu_type;
      r->src[s].run_id = w->run_id;
      r->src[s].settings = w->settings;
      r->src[s].spec = r->types[t].spec;
      r->src[s].type = t;
      r->src[s].run_no = ++r->types[t].nruns;
    } else {
      s = src_row[first];
    }
    r->row_src[i] = s;
  }
  gb_rep_hash_free(&hs);
  gb_rep_hash_free(&ht);
  free(src_row);
  free(type_row);
  if (!e) e = group_by(r->row_src, n, r->nsrc, &r->src_rows, &r->src_row_off);
  if (!e) {
    r->src_lo = malloc((r->nsrc ? r->nsrc : 1) * sizeof *r->src_lo);
    r->src_hi = malloc((r->nsrc ? r->nsrc : 1) * sizeof *r->src_hi);
    if (!r->src_lo || !r->src_hi) e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
  }
  for (size_t s = 0; s < r->nsrc && !e; s++) { /* rows are in input order within a source */
    r->src_lo[s] = r->src_rows[r->src_row_off[s]];
    r->src_hi[s] = r->src_rows[r->src_row_off[s + 1] - 1];
  }
  if (e) return e;
  for (size_t s = 0; s < r->nsrc; s++) {
    const gb_rep_source *c = &r->src[s];
    bool several = r->types[c->type].nruns > 1, set = c->settings[0] != '\0';
    snprintf(r->src[s].label, sizeof r->src[s].label, "%.60s%s%.60s%s%s%.100s%s%s", c->gpu_type, several ? " (" : "",
             several ? c->run_id : "", several ? ")" : "", set ? " [" : "", c->settings,
             strlen(c->settings) > 100 ? "..." : "", set ? "]" : "");
  }
  return GB_OK;
}

/* Newest first: the run's first timestamp (ISO 8601 sorts as text), then
 * the later in the input. */
static const gb_rep *g_sort_rep;
static int cmp_src_newest(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  const gb_rep *r = g_sort_rep;
  if (r->src[x].type != r->src[y].type) return r->src[x].type < r->src[y].type ? -1 : 1;
  int c = strcmp(r->res.rows[r->src_lo[y]].timestamp, r->res.rows[r->src_lo[x]].timestamp);
  if (c) return c;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Marks the newest GB_REP_MAX_DRAWN sources of each GPU type drawn. */
static gb_err mark_drawn(gb_rep *r) {
  size_t *order = malloc((r->nsrc ? r->nsrc : 1) * sizeof *order);
  if (!order) return gb_fail(GB_E_NOMEM, "out of memory grouping results");
  for (size_t s = 0; s < r->nsrc; s++) order[s] = s;
  g_sort_rep = r;
  if (r->nsrc > 1) qsort(order, r->nsrc, sizeof *order, cmp_src_newest);
  size_t in_type = 0;
  for (size_t k = 0; k < r->nsrc; k++) {
    size_t s = order[k];
    if (k == 0 || r->src[order[k - 1]].type != r->src[s].type) in_type = 0;
    r->src[s].drawn = in_type++ < GB_REP_MAX_DRAWN;
    r->nundrawn += !r->src[s].drawn;
  }
  free(order);
  return GB_OK;
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

/* The identity of a point (everything but the repetition). */
static bool same_point(const void *ctx, size_t a, size_t b) {
  const gb_rep *r = ctx;
  const gb_row *x = &r->res.rows[a], *y = &r->res.rows[b];
  return r->row_src[a] == r->row_src[b] && !strcmp(x->benchmark, y->benchmark) && !strcmp(x->case_name, y->case_name) &&
         !strcmp(x->dtype, y->dtype) && !strcmp(x->metric, y->metric) && x->m == y->m && x->n == y->n &&
         x->k == y->k && x->bytes == y->bytes && x->gpu_count == y->gpu_count;
}

static uint64_t point_hash(const gb_rep *r, size_t i) {
  const gb_row *w = &r->res.rows[i];
  uint64_t h = gb_rep_hash_i64(GB_REP_HASH_SEED, (int64_t)r->row_src[i]);
  h = gb_rep_hash_str(gb_rep_hash_str(gb_rep_hash_str(gb_rep_hash_str(h, w->benchmark), w->case_name), w->dtype),
                      w->metric);
  h = gb_rep_hash_i64(gb_rep_hash_i64(gb_rep_hash_i64(h, w->m), w->n), w->k);
  return gb_rep_hash_i64(gb_rep_hash_i64(h, w->bytes), w->gpu_count);
}

/* Measured and checked: ok, or throttled (the check passed; the clocks were
 * held down by power or heat, which is the sustained figure on that card).
 * Throttled rows are still listed in the report's problem table. */
static bool plotted(const gb_row *w) {
  return (w->status == GB_STATUS_OK || w->status == GB_STATUS_THROTTLED) && isfinite(w->value);
}

/* Whether some headline-table row kind reads the headline mark of w's
 * benchmark (gb_rep_headline.headline_rows): only those points pay for
 * gb_desc_is_headline, whose group rules scan every row. */
static bool wants_headline(const gb_row *w) {
  for (size_t i = 0; i < gb_rep_nsections; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench; k++)
      if (gb_rep_sections[i].headline[k].headline_rows && !strcmp(gb_rep_sections[i].headline[k].bench, w->benchmark))
        return true;
  return false;
}

/* Points through a hash index of their identity, in the order of their
 * first rows; each point's values gathered by a counting sort (linear: it
 * was a scan of the later rows per row). */
static gb_err find_points(gb_rep *r) {
  size_t n = r->res.nrows;
  size_t *pt_of = malloc((n ? n : 1) * sizeof *pt_of);  /* row -> point, or SIZE_MAX */
  size_t *first = malloc((n ? n : 1) * sizeof *first);  /* point -> its first row */
  size_t *cnt = calloc(n + 1, sizeof *cnt);
  size_t *slot_pt = malloc((n ? n : 1) * sizeof *slot_pt); /* row -> point (for first rows) */
  double *vals = malloc((n ? n : 1) * sizeof *vals);
  r->pts = calloc(n ? n : 1, sizeof *r->pts);
  gb_rep_hash hp = {0};
  gb_err e = GB_OK;
  if (!pt_of || !first || !cnt || !slot_pt || !vals || !r->pts) e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
  if (!e) e = gb_rep_hash_init(&hp, n);
  size_t np = 0;
  for (size_t i = 0; i < n && !e; i++) {
    pt_of[i] = SIZE_MAX;
    if (!plotted(&r->res.rows[i])) continue;
    size_t f = gb_rep_hash_find(&hp, point_hash(r, i), i, same_point, r);
    if (f == i) {
      slot_pt[i] = np;
      first[np++] = i;
    }
    pt_of[i] = slot_pt[f];
    cnt[pt_of[i] + 1]++;
  }
  gb_rep_hash_free(&hp);
  for (size_t p = 0; p < np && !e; p++) cnt[p + 1] += cnt[p]; /* cnt[p]: start of point p's values */
  for (size_t i = 0; i < n && !e; i++)
    if (pt_of[i] != SIZE_MAX) vals[cnt[pt_of[i]]++] = r->res.rows[i].value;
  for (size_t p = 0; p < np && !e; p++) { /* cnt[p] is now the end of point p's values */
    size_t lo = p ? cnt[p - 1] : 0, k = cnt[p] - lo, i = first[p];
    const gb_row *w = &r->res.rows[i];
    size_t s = r->row_src[i];
    /* the headline rule compares rows of one source: hand it that source's span */
    bool headline = wants_headline(w) &&
                    gb_desc_is_headline(w, r->res.rows + r->src_lo[s], r->src_hi[s] - r->src_lo[s] + 1);
    r->pts[r->npts++] = (gb_rep_point){.src = s, .row = w, .value = gb_median(vals + lo, k), .reps = k,
                                       .headline = headline};
  }
  if (!e) {
    size_t *key = malloc((r->npts ? r->npts : 1) * sizeof *key);
    if (!key) e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
    for (size_t p = 0; p < r->npts && !e; p++) key[p] = r->pts[p].src;
    if (!e) e = group_by(key, r->npts, r->nsrc, &r->src_pts, &r->src_pt_off);
    free(key);
  }
  free(pt_of);
  free(first);
  free(cnt);
  free(slot_pt);
  free(vals);
  return e;
}

/* ---- tables ---- */

static gb_err table_inputs(gb_rep *r) {
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

static gb_err table_environment(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Environment");
  if (!e) e = gb_doc_para(&r->doc, "One column per GPU type and run. Clocks, temperature and power are the medians "
                                   "(maximum for temperature and power) of the telemetry recorded with each row.");
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
              {"power, max (W)", offsetof(gb_row, power_w), true}};
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

/* A size or shape for tables: "8192x8192x8192", "1 GiB", "". */
static void fmt_size(const gb_row *w, char *buf, size_t n) {
  if (w->m != GB_NA && w->n != GB_NA && w->k != GB_NA)
    snprintf(buf, n, "%lldx%lldx%lld", (long long)w->m, (long long)w->n, (long long)w->k);
  else if (w->bytes != GB_NA) gb_fmt_size(buf, n, w->bytes);
  else buf[0] = '\0';
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
static gb_err table_all(gb_rep *r) {
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
  if (!e) e = group_by(grp, r->npts, ngrp, &members, &off);
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
        fmt_size(best[s]->row, sz, sizeof sz);
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

/* The plots gnuplot failed on, so far (those of the plan follow later and
 * are noted where they would be). */
static gb_err failed_plots(gb_rep *r) {
  if (!r->sum->plots_failed) return GB_OK;
  gb_buf b = {0};
  gb_err e = gb_buf_printf(&b, "%zu plot(s) could not be rendered and are not shown: ", r->sum->plots_failed);
  for (const char *l = r->sum->failed; *l && !e;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    e = gb_buf_printf(&b, "%s%.*s", l == r->sum->failed ? "" : "; ", (int)len, l);
    l += len + (nl ? 1 : 0);
  }
  if (!e) e = gb_doc_note(&r->doc, b.data);
  gb_buf_free(&b);
  return e;
}

static gb_err table_problems(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Problems: invalid, error and throttled rows");
  if (!e) e = failed_plots(r);
  size_t bad = 0;
  for (size_t i = 0; i < r->res.nrows; i++) bad += r->res.rows[i].status != GB_STATUS_OK;
  if (!e && bad == 0) return gb_doc_para(&r->doc, "None: every row has status ok.");
  if (!e)
    e = gb_doc_para(&r->doc, "Rows whose result check failed (invalid), that could not run (error) or ran with "
                             "clocks held down (throttled). Invalid and error rows are left out of the plots and the "
                             "tables above; throttled rows passed their check and are in them, as the rate the GPU "
                             "sustains under its power or thermal cap.");
  const char *hdr[] = {"where", "GPU", "benchmark", "case", "dtype", "size", "metric", "value", "status", "detail"};
  if (!e) e = gb_doc_table_begin(&r->doc, 10, hdr, NULL);
  for (size_t i = 0; i < r->res.nrows && !e; i++) {
    const gb_row *w = &r->res.rows[i];
    if (w->status == GB_STATUS_OK) continue;
    char where[600], sz[64], v[64];
    snprintf(where, sizeof where, "%s:%ld", gb_rep_basename(w->file), w->line);
    fmt_size(w, sz, sizeof sz);
    gb_rep_fmt(v, sizeof v, w->value);
    const char *cells[] = {where, r->src[r->row_src[i]].label, w->benchmark, w->case_name, w->dtype, sz,
                           w->metric, v, gb_status_name(w->status), w->detail};
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  return e;
}

/* Under the headline table: which run each "[run N]" tag names, for the GPU
 * types measured in more than one run. */
static gb_err headline_runs(gb_rep *r) {
  gb_err e = GB_OK;
  for (size_t t = 0; t < r->ntypes && !e; t++) {
    if (r->types[t].nruns < 2) continue;
    gb_buf b = {0};
    e = gb_buf_printf(&b, "Runs of %s: ", r->types[t].gpu_type);
    for (size_t s = 0; s < r->nsrc && !e; s++) {
      if (r->src[s].type != t) continue;
      char prov[768];
      gb_rep_provenance(r, s, prov, sizeof prov);
      e = gb_buf_printf(&b, "%srun %zu = %s", r->src[s].run_no > 1 ? "; " : "", r->src[s].run_no, prov);
    }
    if (!e) e = gb_buf_puts(&b, ".");
    if (!e) e = gb_doc_para(&r->doc, b.data);
    gb_buf_free(&b);
  }
  return e;
}

/* Whether point p may stand in the headline table's row kind. */
static bool headline_candidate(const gb_rep_point *p, const gb_rep_headline *kind) {
  /* a figure meaningless for its GPU count (one-rank in-place collectives,
   * busbw and broadcast on one GPU: gb_desc_class) never heads anything */
  return gb_rep_is(p, kind->bench, kind->metric) && (!kind->headline_rows || p->headline) &&
         gb_desc_class(p->row) != GB_FCLASS_MEANINGLESS && (!kind->one_gpu || p->row->gpu_count == 1) &&
         (!kind->only_case || strcmp(p->row->case_name, kind->only_case) == 0);
}

/* The headline table's cell of GPU type t for case cs of a row kind: the
 * best point over the type's runs, its size or GPU count, the share of its
 * peak, its run. */
static void headline_cell(const gb_rep *r, const gb_rep_headline *kind, size_t t, const char *cs, char *buf,
                          size_t n) {
  const gb_rep_point *best = NULL;
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *p = &r->pts[i];
    if (r->src[p->src].type != t || !headline_candidate(p, kind) || strcmp(p->row->case_name, cs)) continue;
    if (!best || p->value > best->value) best = p;
  }
  buf[0] = '\0';
  if (!best) return;
  size_t s = best->src;
  char v[64], at[80] = "", tag[32] = "";
  gb_rep_fmt(v, sizeof v, best->value);
  if (kind->at == GB_REP_AT_SIZE && best->row->bytes != GB_NA) {
    char sz[64];
    gb_fmt_size(sz, sizeof sz, best->row->bytes);
    snprintf(at, sizeof at, " at %s", sz);
  }
  if (r->types[t].nruns > 1) snprintf(tag, sizeof tag, " [run %zu]", r->src[s].run_no);
  double peak = NAN;
  if (kind->peak) peak = gb_rep_peak(r, s, kind->bench, kind->peak[0] ? kind->peak : cs);
  if (isfinite(best->row->peak)) peak = best->row->peak;
  if (kind->at == GB_REP_AT_GPUS)
    snprintf(buf, n, "%s at %d GPUs%s", v, best->row->gpu_count, tag);
  else if (isfinite(peak) && peak > 0) {
    /* the peak to 4 significant digits, as the values (a peak computed from
     * clocks and units reads "66.9082" otherwise), no trailing zeros */
    char pk[32];
    gb_snprintf_c(pk, sizeof pk, peak >= 1000 ? "%.0f" : "%.4g", peak);
    gb_snprintf_c(buf, n, "%s%s (%.0f%% of %s)%s", v, at, 100.0 * best->value / peak, pk, tag);
  }
  else snprintf(buf, n, "%s%s%s", v, at, tag);
}

/* Headline: per GPU type, over every run of it, the rows each section asks
 * for (gb_rep_section.headline: the best GEMM per precision with % of the
 * datasheet peak, CUDA-core FMA, memory bandwidth from membw's headline
 * rows, not L2, copies and collectives); "[run N]" names the run of a type
 * measured in several. */
/* Whether any point makes a headline row. */
static bool any_headline(const gb_rep *r) {
  for (size_t i = 0; i < gb_rep_nsections; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench; k++)
      for (size_t j = 0; j < r->npts; j++)
        if (headline_candidate(&r->pts[j], &gb_rep_sections[i].headline[k])) return true;
  return false;
}

static gb_err table_headline(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Headline figures");
  /* no empty table: say why there is none (collectives measured on one GPU
   * only, for one, have no headline figure) */
  if (!e && !any_headline(r))
    return gb_doc_note(&r->doc, "No headline figure: no ok row of GEMM, fma, HBM-sized membw or copy, and no "
                                "collective measured on more than one GPU (a one-GPU collective says nothing about "
                                "an interconnect; its figures are in its section below).");
  if (!e)
    e = gb_doc_para(&r->doc, "Best measured value per GPU type (median over repetitions); in brackets the share of "
                             "the datasheet peak.");
  size_t nc = r->ntypes + 1;
  const char **hdr = calloc(nc, sizeof *hdr);
  const char **cells = calloc(nc, sizeof *cells);
  char(*buf)[256] = calloc(nc, sizeof *buf);
  if (!hdr || !cells || !buf) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) {
    hdr[0] = "figure";
    for (size_t t = 0; t < r->ntypes; t++) hdr[t + 1] = r->types[t].gpu_type;
    e = gb_doc_table_begin(&r->doc, nc, hdr, NULL);
  }
  size_t rows = 0;
  const char *notes[8];
  size_t nnotes = 0;
  for (size_t i = 0; i < gb_rep_nsections && !e; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench && !e; k++) {
      const gb_rep_headline *kind = &gb_rep_sections[i].headline[k];
      gb_rep_names cases = {0};
      for (size_t j = 0; j < r->npts && !e; j++)
        if (headline_candidate(&r->pts[j], kind)) e = gb_rep_names_add(&cases, r->pts[j].row->case_name);
      if (!e && cases.n > 1 && kind->precision_order) qsort(cases.v, cases.n, sizeof *cases.v, gb_rep_cmp_precision);
      for (size_t c = 0; c < cases.n && !e; c++) {
        char title[160];
        snprintf(title, sizeof title, kind->title, cases.v[c]);
        cells[0] = title;
        for (size_t t = 0; t < r->ntypes; t++) {
          headline_cell(r, kind, t, cases.v[c], buf[t + 1], sizeof buf[0]);
          cells[t + 1] = buf[t + 1];
        }
        e = gb_doc_table_row(&r->doc, cells);
        rows++;
      }
      if (cases.n && kind->note && nnotes < sizeof notes / sizeof notes[0]) notes[nnotes++] = kind->note;
      gb_rep_names_free(&cases);
    }
  if (!e) e = gb_doc_table_end(&r->doc);
  /* how to read it, under the figures (the first screen is for the figures) */
  if (!e && rows > 0)
    e = gb_doc_para(&r->doc, "Each figure is the best over all runs of the GPU type and over shapes and sizes; [run N] "
                             "names the run it came from where a GPU type was measured in several runs. Memory is the "
                             "HBM figure: the best of membw's headline rows (hot, arrays of at least 1 GiB and 8 L2 "
                             "sizes); the L2 plateau is in the plots and under All measurements.");
  for (size_t i = 0; i < nnotes && !e; i++) e = gb_doc_para(&r->doc, notes[i]);
  if (!e && rows > 0) e = headline_runs(r);
  free(hdr);
  free(cells);
  free(buf);
  return e;
}

/* ---- the whole report ---- */

gb_err gb_report_make_dir(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return gb_fail(GB_E_IO, "%s: cannot create: %s", path, strerror(errno));
    *p = '/';
  }
  if (mkdir(path, 0777) != 0 && errno != EEXIST) return gb_fail(GB_E_IO, "%s: cannot create: %s", path, strerror(errno));
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return gb_fail(GB_E_IO, "%s: not a directory", path);
  return GB_OK;
}

static gb_err read_inputs(gb_rep *r) {
  const gb_report_options *o = r->o;
  gb_err e = GB_OK;
  for (size_t f = 0; f < o->nresults && !e; f++) {
    e = gb_results_read_input(o->results[f], &r->res);
    if (f == 0) r->first_file_rows = r->res.nrows;
  }
  char specs_path[4096];
  const char *sp = o->specs_path;
  if (!sp) {
    snprintf(specs_path, sizeof specs_path, "%s/gpu_specs.csv", gb_data_dir());
    struct stat st;
    if (stat(specs_path, &st) == 0) sp = specs_path;
  }
  if (!e && sp) e = gb_specs_read(sp, &r->specs);
  if (!e && o->plan_path) {
    e = gb_planfile_read(o->plan_path, &r->plan);
    r->have_plan = e == GB_OK;
  }
  if (!e && o->sensitivity_path) {
    e = gb_sensfile_read(o->sensitivity_path, &r->sens);
    r->have_sens = e == GB_OK;
  }
  return e;
}

static gb_err write_outputs(gb_rep *r) {
  char path[4096];
  snprintf(path, sizeof path, "%s/report.md", r->dir);
  gb_err e = gb_write_file_atomic(path, r->doc.md.data, r->doc.md.len);
  snprintf(path, sizeof path, "%s/report.html", r->dir);
  if (!e) e = gb_write_file_atomic(path, r->doc.html.data, r->doc.html.len);
  return e;
}

static gb_err compose(gb_rep *r) {
  const gb_report_options *o = r->o;
  gb_err e = gb_doc_begin(&r->doc, o->title ? o->title : "gpubench report");
  char line[1024];
  if (!e) {
    char by[256];
    if (o->generator) snprintf(by, sizeof by, "%s", o->generator);
    else snprintf(by, sizeof by, "gpubench %s (git %s)", gb_version(), gb_git_sha());
    if (o->nresults == 0) snprintf(line, sizeof line, "Written by %s from a plan.", by);
    else
      snprintf(line, sizeof line, "Written by %s from %zu result file(s), %zu row(s)%s.", by, o->nresults,
               r->res.nrows, r->have_plan ? " and a plan" : "");
    e = gb_doc_para(&r->doc, line);
  }
  if (!e && !r->sum->gnuplot) {
    snprintf(line, sizeof line, "The plots need gnuplot, which was not found (\"%s\"): this report has its tables "
             "only. Each plot's data (.dat) and script (.gp) were written next to this file; install gnuplot "
             "(e.g. apt-get install gnuplot-nox) and run `gnuplot NAME.gp` there, or re-run gpubench report.",
             gb_gnuplot_program());
    e = gb_doc_note(&r->doc, line);
  }
  if (!e && o->nresults > 0) {
    /* the figures first, on the first screen; where they came from after */
    if (!e && r->res.nrows == 0) e = gb_doc_note(&r->doc, "The result files hold no rows.");
    if (!e && o->compare) e = gb_rep_section_compare(r);
    if (!e) e = table_headline(r);
    if (!e) e = table_inputs(r);
    if (!e && r->nsrc > 0) e = table_environment(r);
    for (size_t i = 0; i < gb_rep_nsections && !e; i++) e = gb_rep_sections[i].write(r);
    if (!e) e = table_all(r);
    if (!e) e = table_problems(r);
  }
  if (!e && r->have_plan) e = gb_rep_section_plan(r);
  if (!e) e = gb_doc_end(&r->doc);
  return e;
}

gb_err gb_report_write(const gb_report_options *o, gb_report_summary *sum) {
  gb_report_summary local;
  if (!sum) sum = &local;
  memset(sum, 0, sizeof *sum);
  if (!o->out_dir || !*o->out_dir) return gb_fail(GB_E_USAGE, "no output directory given");
  if (o->nresults == 0 && !o->plan_path)
    return gb_fail(GB_E_USAGE, "nothing to report: give results CSV files or a plan");
  if (o->sensitivity_path && !o->plan_path)
    return gb_fail(GB_E_USAGE, "a sensitivity CSV needs its plan (--plan)");
  if (o->compare && o->nresults != 2)
    return gb_fail(GB_E_USAGE, "a comparison needs two results files, the baseline and the current run");
  gb_rep r = {.o = o, .dir = o->out_dir, .sum = sum};
  gb_err e = read_inputs(&r);
  if (!e) e = find_sources(&r);
  if (!e) e = find_points(&r);
  if (!e) e = mark_drawn(&r);
  if (!e) e = gb_report_make_dir(o->out_dir);
  sum->rows = r.res.nrows;
  if (!e) sum->gnuplot = gb_gnuplot_available();
  if (!e) e = compose(&r);
  gb_plot_session_end();
  if (!e) e = write_outputs(&r);
  gb_doc_free(&r.doc);
  free(r.pts);
  free(r.row_src);
  free(r.src_rows);
  free(r.src_row_off);
  free(r.src_pts);
  free(r.src_pt_off);
  free(r.src_lo);
  free(r.src_hi);
  free(r.src);
  free(r.types);
  gb_results_free(&r.res);
  gb_specs_free(&r.specs);
  gb_planfile_free(&r.plan);
  gb_sensfile_free(&r.sens);
  return e;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

gb_err gb_report_shipped_results(char ***paths, size_t *n) {
  *paths = NULL;
  *n = 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/measured", gb_data_dir());
  DIR *d = opendir(dir);
  if (!d && errno == ENOENT) return GB_OK; /* no shipped measurements: no files */
  if (!d) return gb_fail(GB_E_IO, "%s: cannot open the shipped results: %s", dir, strerror(errno));
  size_t cap = 0;
  gb_err e = GB_OK;
  struct dirent *de;
  while (!e && (de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l < 5 || strcmp(de->d_name + l - 4, ".csv") != 0 || de->d_name[0] == '.') continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      char **v = realloc(*paths, cap * sizeof *v);
      if (!v) {
        e = gb_fail(GB_E_NOMEM, "out of memory");
        break;
      }
      *paths = v;
    }
    size_t pl = strlen(dir) + l + 2;
    char *p = malloc(pl);
    if (!p) {
      e = gb_fail(GB_E_NOMEM, "out of memory");
      break;
    }
    snprintf(p, pl, "%s/%s", dir, de->d_name);
    (*paths)[(*n)++] = p;
  }
  closedir(d);
  if (!e && *n > 1) qsort(*paths, *n, sizeof **paths, cmp_str);
  if (e) {
    for (size_t i = 0; i < *n; i++) free((*paths)[i]);
    free(*paths);
    *paths = NULL;
    *n = 0;
  }
  return e;
}

gb_err gb_report_shipped(const char *plan_path, const char *sensitivity_path, const char *out_dir,
                         const char *generator, gb_report_summary *sum) {
  char **paths;
  size_t n;
  gb_err e = gb_report_shipped_results(&paths, &n);
  if (e) return e;
  if (n == 0 && !plan_path) e = gb_fail(GB_E_INPUT, "%s/measured holds no results CSV files to report on", gb_data_dir());
  gb_report_options o = {.results = (const char *const *)paths, .nresults = n, .plan_path = plan_path,
                         .sensitivity_path = sensitivity_path, .out_dir = out_dir,
                         .title = "gpubench report: shipped measurements", .generator = generator};
  if (!e) e = gb_report_write(&o, sum);
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
  return e;
}
