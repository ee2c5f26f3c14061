/* gb_perf_decode: the decode-floor figures a campaign measured (bench decode,
 * one row a point): one kernel launch plain and inside a CUDA graph, GEMV /
 * small-GEMM rates at batch 1..256 for model projections, and the KV-cache
 * attention read's bandwidth. gb_perf.c calls the collector per type; the
 * serving model (gb_time_serve.c) reads them, else its documented defaults
 * (docs/planner.md, "Inference"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_perf.h"
#include "gb_stats.h"

/* A decode row of the type with a positive value whose result was checked, measured under the default settings. */
static bool decode_row(const gb_row *r, const char *type) {
  return (r->status == GB_STATUS_OK || r->status == GB_STATUS_THROTTLED) && strcmp(r->gpu_type, type) == 0 &&
         strcmp(r->benchmark, "decode") == 0 && isfinite(r->value) && r->value > 0 && !r->settings[0];
}

/* Median of the values of case_name / metric rows (at bytes, when bytes >= 0); NaN when none. */
static double median_of(const gb_results *m, const char *type, const char *case_name, const char *metric,
                        int64_t bytes, double *scratch, size_t *used) {
  size_t n = 0;
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (decode_row(r, type) && strcmp(r->case_name, case_name) == 0 && strcmp(r->metric, metric) == 0 &&
        (bytes < 0 || r->bytes == bytes))
      scratch[n++] = r->value;
  }
  *used += n;
  return n ? gb_median(scratch, n) : NAN;
}

gb_err gb_perf_decode_collect(const gb_results *m, gb_perf_type *t, size_t *used) {
  const char *type = t->spec->gpu_type;
  double *scratch = malloc((m->nrows + 1) * sizeof *scratch);
  if (!scratch) return gb_fail(GB_E_NOMEM, "out of memory");
  t->launch_us = median_of(m, type, "launch", "time_us", -1, scratch, used);
  t->launch_graph_us = median_of(m, type, "launch_graph", "time_us", -1, scratch, used);
  int64_t kv_bytes = -1; /* the KV read at its largest size: the plateau */
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (decode_row(r, type) && strcmp(r->case_name, "kv_read") == 0 && strcmp(r->metric, "gbps") == 0 &&
        r->bytes != GB_NA && r->bytes > kv_bytes)
      kv_bytes = r->bytes;
  }
  t->kv_gbps = kv_bytes > 0 ? median_of(m, type, "kv_read", "gbps", kv_bytes, scratch, used) : NAN;
  free(scratch);
  for (size_t i = 0; i < m->nrows; i++) {
    const gb_row *r = &m->rows[i];
    if (!decode_row(r, type) || strncmp(r->case_name, "gemv_", 5) != 0 || strcmp(r->metric, "tflops") != 0 ||
        r->m == GB_NA || r->n == GB_NA || r->k == GB_NA || r->m <= 0 || r->n <= 0 || r->k <= 0)
      continue;
    gb_perf_grouped *g = realloc(t->gemv, (t->ngemv + 1) * sizeof *g);
    if (!g) return gb_fail(GB_E_NOMEM, "out of memory");
    t->gemv = g;
    g += t->ngemv++;
    snprintf(g->dtype, sizeof g->dtype, "%s", r->dtype[0] ? r->dtype : r->case_name + 5);
    g->m = (double)r->m, g->n = (double)r->n, g->k = (double)r->k, g->tflops = r->value, g->groups = 1;
    (*used)++;
  }
  return GB_OK;
}

double gb_perf_gemv_seconds(const gb_perf_type *t, const char *dtype, double m, double n, double k) {
  double tflops = gb_perf_shape_tflops(t->gemv, t->ngemv, dtype, m, n, k);
  return isfinite(tflops) ? 2 * m * n * k / (tflops * 1e12) : NAN;
}

void gb_perf_free_decode(gb_perf_type *t) {
  free(t->gemv);
  t->gemv = NULL, t->ngemv = 0;
}
