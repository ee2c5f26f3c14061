/* Tests for the GEMM benchmark's derived rows on the CPU (bench/gemm/bench_gemm.h):
 * the mixed-precision speedup rows and the end-of-run table. Hand-computed
 * values carry their arithmetic in comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_device.h"
#include "testutil.h"

extern const gb_bench gb_bench_gemm;

/* ---- speedups and the summary ---- */

static gb_row mk(const char *prec, int64_t m, int64_t n, int64_t k, double v, gb_status st, int rep) {
  gb_row r = gb_row_empty();
  r.benchmark = "gemm";
  r.case_name = prec;
  r.dtype = gb_gemm_prec_find(prec) ? gb_gemm_prec_find(prec)->dtype : "fp32";
  r.m = m;
  r.n = n;
  r.k = k;
  r.metric = strcmp(prec, "int8") == 0 ? "tops" : "tflops";
  r.value = v;
  r.status = st;
  r.rep = rep;
  return r;
}

static const gb_gemm_speedup *find_sp(const gb_gemm_speedup *v, size_t n, const char *name, int64_t m) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].case_name, name) == 0 && v[i].m == m) return &v[i];
  return NULL;
}

static size_t speedup_rows(gb_row *r) {
  size_t n = 0;
  r[n++] = mk("fp32", 8192, 8192, 8192, 50, GB_STATUS_OK, -1);
  r[n++] = mk("fp64", 8192, 8192, 8192, 55, GB_STATUS_OK, -1);
  r[n++] = mk("bf16", 8192, 8192, 8192, 660, GB_STATUS_OK, 0);
  r[n++] = mk("bf16", 8192, 8192, 8192, 680, GB_STATUS_OK, 1);
  r[n++] = mk("bf16", 8192, 8192, 8192, 670, GB_STATUS_OK, 2);
  r[n++] = mk("int8", 8192, 8192, 8192, 1100, GB_STATUS_THROTTLED, -1); /* measured: counts */
  r[n++] = mk("fp8e4m3_fastacc", 8192, 8192, 8192, 1300, GB_STATUS_INVALID, -1); /* ignored */
  r[n++] = mk("bf16", 4096, 4096, 4096, 600, GB_STATUS_OK, -1);                  /* no reference there */
  r[n++] = mk("fp32", 4096, 4096, 4096, 40, GB_STATUS_ERROR, -1);
  gb_row old = mk("bf16_vs_fp32", 8192, 8192, 8192, 13.4, GB_STATUS_OK, -1); /* an earlier derived row */
  old.metric = "speedup";
  r[n++] = old;
  gb_row other = mk("bf16", 8192, 8192, 8192, 999, GB_STATUS_OK, -1); /* another benchmark */
  other.benchmark = "membw";
  r[n++] = other;
  return n;
}

START_TEST(test_speedups) {
  gb_row rows[16];
  size_t n = speedup_rows(rows);
  gb_gemm_speedup *v = NULL;
  size_t nv = 0;
  ck_assert_int_eq(gb_gemm_speedups(rows, n, &v, &nv), GB_OK);
  /* fp32_vs_fp64, fp64_vs_fp32, bf16 x 2, int8 x 2 */
  ck_assert_uint_eq(nv, 6);
  const gb_gemm_speedup *s = find_sp(v, nv, "bf16_vs_fp32", 8192);
  ck_assert_ptr_nonnull(s);
  /* bf16 median of 660, 680, 670 = 670; 670 / 50 = 13.4 */
  ck_assert_double_eq_tol(s->value, 13.4, 1e-12);
  ck_assert_str_eq(s->dtype, "bf16");
  ck_assert_int_eq(s->n, 8192);
  ck_assert_int_eq(s->k, 8192);
  /* 670 / 55 = 12.1818... */
  ck_assert_double_eq_tol(find_sp(v, nv, "bf16_vs_fp64", 8192)->value, 670.0 / 55.0, 1e-12);
  ck_assert_double_eq_tol(find_sp(v, nv, "fp32_vs_fp64", 8192)->value, 50.0 / 55.0, 1e-12); /* 0.909 */
  ck_assert_double_eq_tol(find_sp(v, nv, "fp64_vs_fp32", 8192)->value, 1.1, 1e-12);         /* 55 / 50 */
  ck_assert_double_eq_tol(find_sp(v, nv, "int8_vs_fp32", 8192)->value, 22.0, 1e-12);        /* 1100 / 50 */
  ck_assert_double_eq_tol(find_sp(v, nv, "int8_vs_fp64", 8192)->value, 20.0, 1e-12);        /* 1100 / 55 */
  ck_assert_ptr_null(find_sp(v, nv, "fp32_vs_fp32", 8192));
  ck_assert_ptr_null(find_sp(v, nv, "fp8e4m3_fastacc_vs_fp32", 8192)); /* invalid rows give no speedup */
  ck_assert_ptr_null(find_sp(v, nv, "bf16_vs_fp32", 4096));            /* the reference errored there */
  ck_assert_ptr_nonnull(strstr(find_sp(v, nv, "int8_vs_fp32", 8192)->detail, "TOP/s"));
  free(v);

  /* nothing to derive from */
  ck_assert_int_eq(gb_gemm_speedups(rows, 0, &v, &nv), GB_OK);
  ck_assert_uint_eq(nv, 0);
  ck_assert_ptr_null(v);
}
END_TEST

START_TEST(test_summary) {
  gb_row rows[16];
  size_t n = speedup_rows(rows);
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  gb_gemm_summary_table(rows, n, fp);
  fclose(fp);
  ck_assert_ptr_nonnull(strstr(buf, "8192x8192x8192"));
  /* bf16: 670.0 TFLOP/s, 670 / 50 = 13.40, 670 / 55 = 12.18 */
  char *line = strstr(buf, "\nbf16 ");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "670.0"));
  ck_assert_ptr_nonnull(strstr(line, "13.40"));
  ck_assert_ptr_nonnull(strstr(line, "12.18"));
  line = strstr(buf, "\nint8 ");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "TOP/s"));
  ck_assert_ptr_nonnull(strstr(line, "22.00"));
  line = strstr(buf, "\nfp8e4m3_fastacc ");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "invalid"));
  ck_assert_ptr_null(strstr(buf, "\ntf32 ")); /* not run: not listed */
  free(buf);

  buf = NULL;
  fp = open_memstream(&buf, &len);
  gb_gemm_summary_table(rows, 0, fp);
  fclose(fp);
  ck_assert_ptr_nonnull(strstr(buf, "no square shape"));
  free(buf);
}
END_TEST

/* NN rows: compared with the TN fp32 and fp64 at the same shape, so
 * <prec>_nn_vs_fp64 for fp64 is the layout's gain. */
START_TEST(test_speedups_nn) {
  gb_row rows[16];
  size_t n = speedup_rows(rows);
  rows[n++] = mk("fp64_nn", 8192, 8192, 8192, 61.6, GB_STATUS_OK, -1);
  rows[n++] = mk("bf16_nn", 8192, 8192, 8192, 700, GB_STATUS_THROTTLED, -1);
  rows[n++] = mk("int8_nn", 8192, 8192, 8192, 0, GB_STATUS_ERROR, -1); /* could not run: nothing */
  rows[n - 1].dtype = "int8";
  rows[n - 3].dtype = "fp64";
  rows[n - 2].dtype = "bf16";
  gb_gemm_speedup *v = NULL;
  size_t nv = 0;
  ck_assert_int_eq(gb_gemm_speedups(rows, n, &v, &nv), GB_OK);
  ck_assert_uint_eq(nv, 6 + 4); /* the 6 TN ones, then 2 for fp64_nn and 2 for bf16_nn */
  const gb_gemm_speedup *s = find_sp(v, nv, "fp64_nn_vs_fp64", 8192);
  ck_assert_ptr_nonnull(s);
  ck_assert_double_eq_tol(s->value, 61.6 / 55.0, 1e-12); /* 1.12: NN over TN fp64 */
  ck_assert_str_eq(s->dtype, "fp64");
  ck_assert_ptr_nonnull(strstr(s->detail, "fp64_nn 61.6"));
  ck_assert_double_eq_tol(find_sp(v, nv, "fp64_nn_vs_fp32", 8192)->value, 61.6 / 50.0, 1e-12); /* 1.232 */
  ck_assert_double_eq_tol(find_sp(v, nv, "bf16_nn_vs_fp32", 8192)->value, 14.0, 1e-12);        /* 700 / 50 */
  ck_assert_ptr_null(find_sp(v, nv, "int8_nn_vs_fp32", 8192));
  /* the TN ones are unchanged */
  ck_assert_double_eq_tol(find_sp(v, nv, "bf16_vs_fp32", 8192)->value, 13.4, 1e-12);
  free(v);

  /* the summary lists each NN case after its TN case, ratios against the TN references */
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  gb_gemm_summary_table(rows, n, fp);
  fclose(fp);
  char *tn = strstr(buf, "\nfp64 "), *nn = strstr(buf, "\nfp64_nn ");
  ck_assert_ptr_nonnull(tn);
  ck_assert_ptr_nonnull(nn);
  ck_assert(nn > tn);
  ck_assert(nn < strstr(buf, "\nfp32 "));
  ck_assert_ptr_nonnull(strstr(nn, "61.6"));
  ck_assert_ptr_nonnull(strstr(nn, "1.23")); /* 61.6 / 50 */
  ck_assert_ptr_nonnull(strstr(nn, "1.12")); /* 61.6 / 55 */
  char *i8 = strstr(buf, "\nint8_nn ");
  ck_assert_ptr_nonnull(i8);
  ck_assert_ptr_nonnull(strstr(i8, "error"));
  free(buf);
}
END_TEST


static Suite *suite(void) {
  Suite *s = suite_create("gemm_derive");
  TCase *derive = tcase_create("derive");
  tcase_add_test(derive, test_speedups);
  tcase_add_test(derive, test_summary);
  tcase_add_test(derive, test_speedups_nn);
  suite_add_tcase(s, derive);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
