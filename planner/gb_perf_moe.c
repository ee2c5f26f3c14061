/* gb_perf_moe: the measured figures the MoE terms read, when a campaign has
 * them: grouped GEMM at expert shapes (bench gemm, cases grouped_<dtype>,
 * a `groups` column) and alltoall / sendrecv bus bandwidth (bench
 * collective, nccl-tests' definitions). gb_perf.c collects the rows; this
 * file answers for a shape or a message size. Without them the planner
 * uses its documented models (gb_term_moe.c: roofline x tile fill; the
 * all-reduce curve for all-to-all). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_perf.h"

bool gb_perf_is_grouped(const gb_row *r) { return strncmp(r->case_name, "grouped_", 8) == 0; }

/* Log distance of two (n, k) shapes. */
static double nk_dist(const gb_perf_grouped *g, double n, double k) {
  return fabs(log(g->n / n)) + fabs(log(g->k / k));
}

double gb_perf_shape_tflops(const gb_perf_grouped *v, size_t nv, const char *dtype, double m, double n, double k) {
  /* the measured (n, k) nearest the asked one */
  const gb_perf_grouped *near = NULL;
  for (size_t i = 0; i < nv; i++) {
    const gb_perf_grouped *g = &v[i];
    if (strcmp(g->dtype, dtype) == 0 && (!near || nk_dist(g, n, k) < nk_dist(near, n, k))) near = g;
  }
  if (!near) return NAN;
  /* along m at that (n, k): the nearest measured m below and above */
  const gb_perf_grouped *lo = NULL, *hi = NULL;
  for (size_t i = 0; i < nv; i++) {
    const gb_perf_grouped *g = &v[i];
    if (strcmp(g->dtype, dtype) != 0 || g->n != near->n || g->k != near->k) continue;
    if (g->m <= m && (!lo || g->m > lo->m)) lo = g;
    if (g->m >= m && (!hi || g->m < hi->m)) hi = g;
  }
  if (!lo) return hi->tflops;
  if (!hi || hi->m == lo->m) return lo->tflops;
  double f = log(m / lo->m) / log(hi->m / lo->m);
  return lo->tflops + f * (hi->tflops - lo->tflops);
}

double gb_perf_grouped_tflops(const gb_perf_type *t, const char *dtype, double m, double n, double k) {
  return gb_perf_shape_tflops(t->grouped, t->ngrouped, dtype, m, n, k);
}

double gb_perf_coll_gbps(const gb_perf_type *t, const char *coll, int gpu_count, double bytes) {
  const gb_perf_curve *curves = strcmp(coll, "alltoall") == 0 ? t->a2a : t->sendrecv;
  size_t n = strcmp(coll, "alltoall") == 0 ? t->na2a : t->nsendrecv;
  const gb_perf_curve *best = NULL;
  for (size_t i = 0; i < n; i++)
    if (!best || abs(curves[i].gpu_count - gpu_count) < abs(best->gpu_count - gpu_count)) best = &curves[i];
  if (!best || best->n == 0) return NAN;
  double x = log(bytes);
  if (x <= best->log_bytes[0]) return best->busbw_gbps[0];
  if (x >= best->log_bytes[best->n - 1]) return best->busbw_gbps[best->n - 1];
  size_t hi = 1;
  while (best->log_bytes[hi] < x) hi++;
  double f = (x - best->log_bytes[hi - 1]) / (best->log_bytes[hi] - best->log_bytes[hi - 1]);
  return best->busbw_gbps[hi - 1] + f * (best->busbw_gbps[hi] - best->busbw_gbps[hi - 1]);
}

static void free_curves(gb_perf_curve *c, size_t n) {
  for (size_t i = 0; i < n; i++) free(c[i].log_bytes), free(c[i].busbw_gbps);
  free(c);
}

void gb_perf_free_moe(gb_perf_type *t) {
  free(t->grouped);
  free_curves(t->a2a, t->na2a);
  free_curves(t->sendrecv, t->nsendrecv);
  t->grouped = NULL, t->a2a = t->sendrecv = NULL;
  t->ngrouped = t->na2a = t->nsendrecv = 0;
}
