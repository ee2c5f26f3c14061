/* The benchmark registry is sorted, names are unique, and each entry has
 * the required hooks. */
#include <stdlib.h>
#include <string.h>

#include "bench_fault.h"
#include "gb_bench.h"
#include "testutil.h"

START_TEST(test_sorted_complete) {
  ck_assert_ptr_nonnull(gb_benches[0]);
  for (size_t i = 0; gb_benches[i]; i++) {
    const gb_bench *b = gb_benches[i];
    ck_assert_ptr_nonnull(b->name);
    ck_assert_ptr_nonnull(b->summary);
    ck_assert_ptr_nonnull(b->plan);
    ck_assert_ptr_nonnull(b->run);
    if (gb_benches[i + 1]) ck_assert_msg(strcmp(b->name, gb_benches[i + 1]->name) < 0, "registry not sorted at %s", b->name);
    ck_assert_ptr_eq(gb_bench_find(b->name), b);
  }
  ck_assert_ptr_null(gb_bench_find("no-such-benchmark"));
}
END_TEST

/* The test-only `fault` benchmark exists only with GPUBENCH_TEST_FAULT=1,
 * and never in the table (so never in "all benchmarks"). */
START_TEST(test_fault_bench_is_test_only) {
  unsetenv("GPUBENCH_TEST_FAULT");
  ck_assert_ptr_null(gb_bench_find("fault"));
  setenv("GPUBENCH_TEST_FAULT", "0", 1);
  ck_assert_ptr_null(gb_bench_find("fault"));
  setenv("GPUBENCH_TEST_FAULT", "1", 1);
  ck_assert_ptr_eq(gb_bench_find("fault"), &gb_bench_fault);
  for (size_t i = 0; gb_benches[i]; i++) ck_assert_ptr_ne(gb_benches[i], &gb_bench_fault);
  gb_case_list l = {0};
  ck_assert_int_eq(gb_bench_fault.plan(NULL, &l), GB_OK);
  ck_assert_uint_eq(l.n, GB_FAULT_NCASES);
  ck_assert_str_eq(l.v[1].name, "oom");
  ck_assert_str_eq(l.v[4].name, "fault");
  gb_case_list_free(&l);
  unsetenv("GPUBENCH_TEST_FAULT");
}
END_TEST

/* The rows' settings: the runner's non-default items, then the benchmark's;
 * "" at the defaults; a benchmark with no settings hook adds none. */
START_TEST(test_run_settings) {
  char buf[512];
  gb_run_config cfg = {.warmup = -1, .iters = -1, .repeat = 1, .graph = false, .bench_opts = NULL};
  const gb_bench *gemm = gb_bench_find("gemm"), *membw = gb_bench_find("membw"), *copy = gb_bench_find("copy");
  ck_assert_ptr_nonnull(gemm);
  gb_run_settings(gemm, &cfg, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  cfg.warmup = 5;
  cfg.iters = 30;
  cfg.graph = true;
  cfg.bench_opts = "gemm.precs=bf16,gemm.rest_ms=1000,membw.corrupt=1,gemm.search=heuristic";
  gb_run_settings(gemm, &cfg, buf, sizeof buf);
  ck_assert_str_eq(buf, "warmup=5,iters=30,graph=on,gemm.search=heuristic,gemm.rest_ms=1000");
  gb_run_settings(membw, &cfg, buf, sizeof buf);
  ck_assert_str_eq(buf, "warmup=5,iters=30,graph=on,membw.corrupt=on");
  cfg.warmup = 0; /* zero warm-ups is a setting too; --iters 0 is not given */
  cfg.iters = 0;
  cfg.graph = false;
  gb_run_settings(copy, &cfg, buf, sizeof buf);
  ck_assert_str_eq(buf, "warmup=0");
  /* bad options are plan()'s to report: no settings from them, no error left behind */
  cfg.warmup = -1;
  cfg.bench_opts = "gemm.timing=sometimes";
  gb_run_settings(gemm, &cfg, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  ck_assert_str_eq(gb_errmsg(), "");
  gb_run_settings(gb_bench_find("fma"), &cfg, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
}
END_TEST

/* Every benchmark's rows go through gb_rowset_add, which refuses a metric
 * or unit core/gb_registry.def lacks: a benchmark emitting an undescribed
 * metric fails its run (and this test shows the refusal). GB_ROW takes both
 * from the registry. */
START_TEST(test_rows_through_registry) {
  gb_case c = gb_case_init("d2d", "");
  gb_rowset rs = {0};
  gb_row r = GB_ROW(copy, rw_gbps, &c);
  ck_assert_str_eq(r.benchmark, "copy");
  ck_assert_str_eq(r.metric, "rw_gbps");
  ck_assert_str_eq(r.unit, "GB/s");
  ck_assert_int_eq(gb_rowset_add(&rs, &r), GB_OK);
  r.metric = "rw_gibps";
  ck_assert_int_eq(gb_rowset_add(&rs, &r), GB_E_INTERNAL);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "copy emits metric 'rw_gibps'"));
  r = GB_ROW(membw, gbps, &c);
  r.unit = "MB/s";
  ck_assert_int_eq(gb_rowset_add(&rs, &r), GB_E_INTERNAL);
  ck_assert_uint_eq(rs.n, 1);
  gb_rowset_free(&rs);
}
END_TEST

/* The row written when a case cannot run: the benchmark's error metric
 * (collective: busbw, its unit from the registry), else its headline
 * metric (gemm); registered either way. A benchmark the registry lacks
 * (fault) gives its own metric and unit. */
START_TEST(test_error_rows) {
  gb_case c = gb_case_init("x", "");
  for (size_t i = 0; gb_benches[i]; i++) {
    gb_row r = gb_bench_error_row(gb_benches[i], &c);
    ck_assert_msg(gb_desc_check_row(&r) == GB_OK, "%s: %s", gb_benches[i]->name, gb_errmsg());
  }
  gb_row r = gb_bench_error_row(gb_bench_find("collective"), &c);
  ck_assert_str_eq(r.metric, "busbw_gbps");
  ck_assert_str_eq(r.unit, "GB/s");
  r = gb_bench_error_row(gb_bench_find("gemm"), &c);
  ck_assert_str_eq(r.metric, "tflops");
  ck_assert_str_eq(r.unit, "TFLOP/s");
  r = gb_bench_error_row(&gb_bench_fault, &c);
  ck_assert_str_eq(r.metric, "check");
  ck_assert_str_eq(r.unit, "");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("registry");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_sorted_complete);
  tcase_add_test(tc, test_fault_bench_is_test_only);
  tcase_add_test(tc, test_run_settings);
  tcase_add_test(tc, test_rows_through_registry);
  tcase_add_test(tc, test_error_rows);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
