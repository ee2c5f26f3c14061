/* Loads every shipped planner file under data/ (gpu_specs.csv, prices.csv,
 * the workload INI files), so a bad data commit fails CI, and runs the no-argument
 * default plan into a temporary directory. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "gb_plan.h"
#include "testutil.h"

#define DATA GB_SOURCE_ROOT "/data"

START_TEST(test_shipped_files) {
  gb_specs specs;
  ck_assert_msg(gb_specs_read(DATA "/gpu_specs.csv", &specs) == GB_OK, "%s", gb_errmsg());
  static const char *keys[] = {"H200-SXM-141GB", "H100-SXM-80GB", "A100-SXM-80GB",  "B200-SXM-180GB",
                               "L40S-PCIE-48GB", "L4-PCIE-24GB",  "V100-SXM2-32GB", "RTX4090-PCIE-24GB"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert_ptr_nonnull(gb_specs_find(&specs, keys[i]));
  gb_prices prices;
  ck_assert_msg(gb_prices_read(DATA "/prices.csv", &specs, &prices) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_ge(prices.n, 20);
  for (size_t i = 0; i < prices.n; i++) {
    ck_assert(prices.v[i].source[0] && prices.v[i].date[0]);
  }
  DIR *d = opendir(DATA "/workloads");
  ck_assert_ptr_nonnull(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/workloads/%s", DATA, e->d_name);
    gb_workload w;
    gb_workload_init(&w);
    ck_assert_msg(gb_workload_read(path, &w) == GB_OK, "%s", gb_errmsg());
    ck_assert_msg(gb_workload_finish(&w) == GB_OK, "%s", gb_errmsg());
    /* each shipped workload has at least one feasible configuration */
    gb_perf perf;
    ck_assert_int_eq(gb_perf_build(&specs, NULL, w.precision, w.gemm_size, w.gemm_sustained, &perf), GB_OK);
    gb_plan_opts o;
    gb_plan_opts_default(&o);
    gb_plan p;
    ck_assert_int_eq(gb_plan_rank(&w, &perf, &prices, &o, &p), GB_OK);
    ck_assert_msg(p.nfeasible > 0, "%s has no feasible configuration", path);
    gb_plan_free(&p);
    gb_perf_free(&perf);
    n++;
  }
  closedir(d);
  ck_assert_int_ge(n, 3);
  gb_prices_free(&prices);
  gb_specs_free(&specs);
}
END_TEST

START_TEST(test_default_plan) {
  char plan_csv[4200], sens_csv[4200];
  const char *dir = gb_test_tmpdir();
  snprintf(plan_csv, sizeof plan_csv, "%s/plan.csv", dir);
  snprintf(sens_csv, sizeof sens_csv, "%s/sensitivity.csv", dir);
  ck_assert_msg(gb_plan_default(plan_csv, sens_csv) == GB_OK, "%s", gb_errmsg());
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(plan_csv, &t), GB_OK);
  static const char *cols[] = {
      "rank", "gpu_type", "gpu_count", "nodes", "gpus_per_node", "provider", "offering", "basis", "feasible",
      "reason", "hours", "cost_usd", "efficiency", "efficiency_unit", "bottleneck", "compute_hours", "memory_hours",
      "comm_hours", "pareto", "price_usd_per_gpu_hour", "purchase_usd_per_gpu", "price_date", "price_source",
      "utilization", "pue", "electricity_usd_per_kwh", "mfu", "overlap", "max_hours", "budget_usd", "workload",
      "precision", "gemm_window"};
  /* the old columns first, in their places (reports read them); new ones after */
  ck_assert_uint_gt(t.ncols, sizeof cols / sizeof cols[0]);
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) ck_assert_str_eq(gb_csv_header(&t, i), cols[i]);
  ck_assert_int_ge(gb_csv_col(&t, "capex_usd"), 0);
  ck_assert_int_ge(gb_csv_col(&t, "amortized_usd"), 0);
  ck_assert_uint_gt(t.nrows, 100);
  ck_assert_str_eq(gb_csv_cell(&t, 0, 0), "1");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "workload")), "training-7b");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "precision")), "bf16");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "gemm_window")), "burst");
  gb_csv_free(&t);
  ck_assert_int_eq(gb_csv_read_file(sens_csv, &t), GB_OK);
  ck_assert_uint_eq(t.nrows, 5);
  ck_assert_str_eq(gb_csv_header(&t, 0), "factor");
  gb_csv_free(&t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner_data");
  TCase *tc = tcase_create("shipped");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_shipped_files);
  tcase_add_test(tc, test_default_plan);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
