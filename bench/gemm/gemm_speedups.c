/* gemm_speedups: the mixed-precision speedup rows derived from a run's
 * throughput rows, and the end-of-run table (bench_gemm.h). No CUDA calls:
 * tested on the CPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_num.h"
#include "gb_stats.h"


/* ---- speedups ---- */

/* A measured throughput row of the gemm benchmark, of either window (a run
 * measures in one): ok, or throttled (it ran and was checked; its status
 * already says the clocks were held down). */
static bool is_throughput(const gb_row *r) {
  return r->benchmark && strcmp(r->benchmark, "gemm") == 0 && r->metric &&
         (strcmp(r->metric, GB_METRIC_NAME(gemm, tflops)) == 0 || strcmp(r->metric, GB_METRIC_NAME(gemm, tops)) == 0 ||
          strcmp(r->metric, GB_METRIC_NAME(gemm, tflops_sustained)) == 0 ||
          strcmp(r->metric, GB_METRIC_NAME(gemm, tops_sustained)) == 0) &&
         r->case_name &&
         gb_gemm_case_parse(r->case_name, NULL) && (r->status == GB_STATUS_OK || r->status == GB_STATUS_THROTTLED) &&
         isfinite(r->value) && r->value > 0;
}

/* Median of the ok rates of case name prec ("bf16", "fp64_nn") at m x n x k
 * over every rep (NaN when there is none). */
static double median_rate(const gb_row *rows, size_t n, const char *prec, int64_t m, int64_t nn, int64_t k) {
  double *v = malloc((n + 1) * sizeof *v);
  if (!v) return NAN;
  size_t nv = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (is_throughput(r) && strcmp(r->case_name, prec) == 0 && r->m == m && r->n == nn && r->k == k)
      v[nv++] = r->value;
  }
  double med = gb_median(v, nv);
  free(v);
  return med;
}

/* True when an earlier row than i is an ok row of the same case and shape. */
static bool seen_before(const gb_row *rows, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (is_throughput(&rows[j]) && strcmp(rows[j].case_name, rows[i].case_name) == 0 && rows[j].m == rows[i].m &&
        rows[j].n == rows[i].n && rows[j].k == rows[i].k)
      return true;
  return false;
}

gb_err gb_gemm_speedups(const gb_row *rows, size_t n, gb_gemm_speedup **out, size_t *nout) {
  static const char *const refs[] = {"fp32", "fp64"};
  *out = NULL;
  *nout = 0;
  size_t cap = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (!is_throughput(r) || seen_before(rows, i)) continue;
    const gb_gemm_prec *p = gb_gemm_case_parse(r->case_name, NULL);
    double rate = median_rate(rows, n, r->case_name, r->m, r->n, r->k);
    for (size_t j = 0; j < 2; j++) {
      if (strcmp(r->case_name, refs[j]) == 0) continue; /* the references are the TN cases */
      double ref = median_rate(rows, n, refs[j], r->m, r->n, r->k);
      if (!(ref > 0) || !(rate > 0)) continue;
      if (*nout == cap) {
        size_t ncap = cap ? 2 * cap : 32;
        gb_gemm_speedup *v = realloc(*out, ncap * sizeof *v);
        if (!v) {
          free(*out);
          *out = NULL;
          *nout = 0;
          return gb_fail(GB_E_NOMEM, "gemm speedups: out of host memory");
        }
        *out = v;
        cap = ncap;
      }
      gb_gemm_speedup *s = &(*out)[(*nout)++];
      memset(s, 0, sizeof *s);
      snprintf(s->case_name, sizeof s->case_name, "%s_vs_%s", r->case_name, refs[j]);
      snprintf(s->dtype, sizeof s->dtype, "%s", p->dtype);
      s->m = r->m;
      s->n = r->n;
      s->k = r->k;
      s->rate = rate;
      s->ref_rate = ref;
      s->value = rate / ref; /* speedup = rate(precision) / rate(reference), same shape */
      gb_snprintf_c(s->detail, sizeof s->detail, "%s %.1f %s / %s %.1f %s (medians over repetitions)",
                    r->case_name, rate, gb_gemm_unit(p), refs[j], ref, GB_METRIC_UNIT(gemm, tflops));
    }
  }
  return GB_OK;
}

/* ---- the end-of-run table ---- */

/* The status of case p's last throughput row at the square size s, or
 * NULL when it has none there. */
static const char *summary_status(const gb_row *rows, size_t n, const char *p, int64_t s) {
  const char *st = NULL;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (r->benchmark && strcmp(r->benchmark, "gemm") == 0 && r->case_name && strcmp(r->case_name, p) == 0 &&
        r->m == s && r->n == s && r->k == s && r->metric &&
        (strcmp(r->metric, GB_METRIC_NAME(gemm, tflops)) == 0 || strcmp(r->metric, GB_METRIC_NAME(gemm, tops)) == 0))
      st = gb_status_name(r->status);
  }
  return st;
}

void gb_gemm_summary_table(const gb_row *rows, size_t n, FILE *fp) {
  int64_t size = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (!is_throughput(r) || r->m != r->n || r->n != r->k) continue;
    if (r->m == 8192) {
      size = 8192;
      break;
    }
    if (r->m > size) size = r->m;
  }
  if (size == 0) {
    fprintf(fp, "gemm: no square shape measured ok; no summary\n");
    return;
  }
  double fp32 = median_rate(rows, n, "fp32", size, size, size);
  double fp64 = median_rate(rows, n, "fp64", size, size, size);
  fprintf(fp, "gemm at %lldx%lldx%lld (median rate; speedup = rate / rate of fp32 or fp64, same shape)\n",
          (long long)size, (long long)size, (long long)size);
  fprintf(fp, "%-24s %10s %-8s %8s %8s\n", "precision", "rate", "unit", "vs fp32", "vs fp64");
  size_t np;
  const gb_gemm_prec *precs = gb_gemm_precs(&np);
  for (size_t i = 0; i < np * GB_GEMM_NLAYOUTS; i++) {
    /* each precision's TN case, then its NN case (ratios against the TN fp32 and fp64) */
    const gb_gemm_prec *p = &precs[i / GB_GEMM_NLAYOUTS];
    char name[64];
    gb_gemm_case_name(p, (gb_gemm_layout)(i % GB_GEMM_NLAYOUTS), name, sizeof name);
    const char *st = summary_status(rows, n, name, size);
    if (!st) continue;
    double v = median_rate(rows, n, name, size, size, size);
    char buf[3][32];
    if (isnan(v)) {
      fprintf(fp, "%-24s %10s %-8s\n", name, st, "");
      continue;
    }
    gb_snprintf_c(buf[0], sizeof buf[0], "%.1f", v);
    if (isnan(fp32)) snprintf(buf[1], sizeof buf[1], "-");
    else gb_snprintf_c(buf[1], sizeof buf[1], "%.2f", v / fp32);
    if (isnan(fp64)) snprintf(buf[2], sizeof buf[2], "-");
    else gb_snprintf_c(buf[2], sizeof buf[2], "%.2f", v / fp64);
    fprintf(fp, "%-24s %10s %-8s %8s %8s\n", name, buf[0], gb_gemm_unit(p), buf[1], buf[2]);
  }
}
