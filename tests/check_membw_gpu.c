/* GPU tests of the membw and copy benchmarks: a tiny sweep end to end (every
 * row ok and checked), a deliberately corrupted result (every row invalid),
 * and a size that cannot fit (a clear error, no crash). Exit 77 (SKIPPED)
 * without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_membw.h"
#include "gb_bench.h"
#include "gb_desc.h"
#include "gb_runner.h"
#include "testutil_gpu.h"

extern const gb_bench gb_bench_membw, gb_bench_copy;

static gb_system_info g_sys;

typedef struct run_result {
  gb_rowset rows;
  size_t cases, errors;
  char first_error[512];
} run_result;

/* plan, setup, run every case and teardown, as the runner would */
static void run_bench(const gb_bench *b, const char *opts, run_result *res) {
  memset(res, 0, sizeof *res);
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  gb_run_config cfg = {.profile = GB_PROFILE_QUICK, .warmup = -1, .iters = -1, .repeat = 1, .ndevices = 1,
                       .bench_opts = opts};
  gb_run_ctx ctx = {.sys = &g_sys, .cfg = &cfg, .dev = &g_sys.dev[0]};
  gb_case_list cases = {0};
  ck_assert_msg(b->plan(&ctx, &cases) == GB_OK, "plan: %s", gb_errmsg());
  ck_assert_msg(b->setup(&ctx) == GB_OK, "setup: %s", gb_errmsg());
  for (size_t i = 0; i < cases.n; i++) {
    res->cases++;
    if (b->run(&ctx, &cases.v[i], &res->rows) != GB_OK) {
      if (res->errors++ == 0) snprintf(res->first_error, sizeof res->first_error, "%s", gb_errmsg());
    }
  }
  b->summarize(&ctx, res->rows.v, res->rows.n, stdout);
  b->teardown(&ctx);
  gb_case_list_free(&cases);
}

START_TEST(test_membw_tiny_sweep_ok) {
  run_result r;
  run_bench(&gb_bench_membw, "membw.sizes=1M:64M,membw.cold=1", &r);
  ck_assert_msg(r.errors == 0, "%zu cases failed, first: %s", r.errors, r.first_error);
  /* 2 sizes x 2 types x 7 kernels hot, plus the cold cases */
  ck_assert_uint_ge(r.cases, 28);
  ck_assert_uint_eq(r.rows.n, r.cases);
  size_t cold = 0;
  for (size_t i = 0; i < r.rows.n; i++) {
    const gb_row *w = &r.rows.v[i];
    printf("membw %-11s %s %9lld B: %8.1f GB/s %-28s %s\n", w->case_name, w->dtype, (long long)w->bytes, w->value,
           w->variant, w->detail);
    ck_assert_msg(w->status == GB_STATUS_OK, "%s %s: %s", w->case_name, w->dtype, w->detail);
    ck_assert_str_eq(w->metric, "gbps");
    ck_assert_str_eq(w->unit, "GB/s");
    ck_assert_double_gt(w->value, 1.0);
    ck_assert(w->min <= w->value && w->value <= w->max);
    ck_assert_int_gt((int)strlen(w->variant), 5);
    ck_assert_ptr_nonnull(strstr(w->detail, "check ok"));
    /* the typed columns readers use instead of the detail */
    ck_assert_int_eq(w->l2_bytes, g_sys.dev[0].l2_bytes);
    if (strstr(w->case_name, "_cold")) ck_assert_str_eq(w->regime, "hbm-cold");
    else ck_assert_str_eq(w->regime, gb_membw_regime((int64_t)gb_stream_find(w->case_name)->arrays * w->bytes,
                                                     w->l2_bytes));
    ck_assert_ptr_null(strstr(w->detail, "l2_bytes="));
    if (strstr(w->case_name, "_cold")) cold++;
  }
  ck_assert_uint_gt(cold, 0);
  gb_rowset_free(&r.rows);
}
END_TEST

START_TEST(test_membw_corrupted_is_invalid) {
  run_result r;
  run_bench(&gb_bench_membw, "membw.sizes=1M,membw.cold=0,membw.corrupt=1", &r);
  ck_assert_msg(r.errors == 0, "%s", r.first_error);
  ck_assert_uint_eq(r.rows.n, 14); /* 7 kernels x 2 types */
  for (size_t i = 0; i < r.rows.n; i++) {
    const gb_row *w = &r.rows.v[i];
    ck_assert_msg(w->status == GB_STATUS_INVALID, "%s %s passed a corrupted result", w->case_name, w->dtype);
    ck_assert_ptr_nonnull(strstr(w->detail, "check failed"));
  }
  gb_rowset_free(&r.rows);
}
END_TEST

START_TEST(test_membw_too_large_is_error) {
  run_result r;
  run_bench(&gb_bench_membw, "membw.sizes=1024G,membw.kernels=copy,membw.dtypes=fp64", &r);
  ck_assert_uint_eq(r.cases, 1);
  ck_assert_uint_eq(r.errors, 1);
  ck_assert_uint_eq(r.rows.n, 0);
  ck_assert_msg(strstr(r.first_error, "do not fit") != NULL, "%s", r.first_error);
  gb_rowset_free(&r.rows);
}
END_TEST

START_TEST(test_copy_ok_and_corrupted) {
  run_result r;
  run_bench(&gb_bench_copy, "copy.sizes=1M:16M", &r);
  ck_assert_msg(r.errors == 0, "%s", r.first_error);
  ck_assert_uint_eq(r.cases, 12); /* 6 cases x 2 sizes on one GPU */
  ck_assert_uint_eq(r.rows.n, 14); /* d2d adds rw_gbps */
  for (size_t i = 0; i < r.rows.n; i++) {
    const gb_row *w = &r.rows.v[i];
    printf("copy %-14s %-8s %9lld B: %8.1f GB/s %s\n", w->case_name, w->metric, (long long)w->bytes, w->value,
           w->detail);
    ck_assert_msg(w->status == GB_STATUS_OK, "%s: %s", w->case_name, w->detail);
    ck_assert_double_gt(w->value, 0.1);
  }
  gb_rowset_free(&r.rows);
  run_bench(&gb_bench_copy, "copy.sizes=1M,copy.corrupt=1", &r);
  ck_assert_msg(r.errors == 0, "%s", r.first_error);
  for (size_t i = 0; i < r.rows.n; i++)
    ck_assert_msg(r.rows.v[i].status == GB_STATUS_INVALID, "%s passed a corrupted copy", r.rows.v[i].case_name);
  gb_rowset_free(&r.rows);
}
END_TEST

/* Through the runner: the typed columns on membw rows and the headline mark
 * (gb_desc's HBM rule over the planned cases). triad fp64 at 64 MiB and
 * 1 GiB, and triad_cold at 64 MiB: only the hot row at an HBM size is a
 * headline figure; every row records the device's L2 and its regime. */
START_TEST(test_membw_runner_typed_columns) {
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  gb_campaign c;
  memset(&c, 0, sizeof c);
  c.run.profile = GB_PROFILE_QUICK;
  c.run.warmup = -1;
  c.run.iters = -1;
  c.run.repeat = 1;
  c.run.devices[0] = 0;
  c.run.ndevices = 1;
  c.run.bench_opts = "membw.sizes=64M:1G,membw.kernels=triad,membw.dtypes=fp64,membw.cold=1";
  c.benches[0] = &gb_bench_membw;
  c.nbenches = 1;
  char path[4200];
  snprintf(path, sizeof path, "%s/membw-typed.csv", gb_test_tmpdir());
  c.out_path = path;
  c.progress = stderr;
  c.table = stdout;
  gb_campaign_result res;
  ck_assert_msg(gb_campaign_run(&c, &g_sys, &res) == GB_OK, "%s", gb_errmsg());
  gb_results rows = {0};
  ck_assert_int_eq(gb_results_read(path, &rows), GB_OK);
  int64_t l2 = g_sys.dev[0].l2_bytes;
  size_t marked = 0;
  for (size_t i = 0; i < rows.nrows; i++) {
    const gb_row *w = &rows.rows[i];
    bool cold = strstr(w->case_name, "_cold") != NULL;
    printf("membw %-10s %10lld B: headline %d regime %s l2 %lld\n", w->case_name, (long long)w->bytes, w->headline,
           w->regime, (long long)w->l2_bytes);
    ck_assert_int_eq(w->l2_bytes, l2);
    ck_assert_str_eq(w->regime, cold ? "hbm-cold" : gb_membw_regime(3 * w->bytes, l2));
    ck_assert_int_eq(w->headline, !cold && w->bytes >= gb_hbm_min_bytes(l2));
    marked += w->headline == 1;
  }
  ck_assert_uint_eq(marked, l2 * GB_HBM_L2_FACTOR <= ((int64_t)1 << 30) ? 1 : 0); /* triad at 1 GiB */
  gb_results_free(&rows);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("membw_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_membw_tiny_sweep_ok);
  tcase_add_test(tc, test_membw_corrupted_is_invalid);
  tcase_add_test(tc, test_membw_too_large_is_error);
  tcase_add_test(tc, test_copy_ok_and_corrupted);
  tcase_add_test(tc, test_membw_runner_typed_columns);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_gpu_suite(suite()); }
