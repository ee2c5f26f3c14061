/* Calibration of the planner's time model against published runs
 * (tests/calibration/cases.tsv, from ../shared/planner-calibration.tsv):
 * each case is a workload file planned on the published GPU type and count
 * with the shipped data (data/gpu_specs.csv, data/measured/) and default
 * options. Prints predicted / published per case, the median and the worst
 * |ln(ratio)|, and fails when the median exceeds 0.10 or a case is off by
 * more than 1.5x (issue 27's bar). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_plan.h"
#include "gb_runinfo.h"
#include "testutil.h"

#define MEDIAN_MAX 0.10
#define WORST_MAX 1.5

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

START_TEST(test_calibration) {
  char path[4096];
  gb_specs specs;
  snprintf(path, sizeof path, "%s/gpu_specs.csv", gb_data_dir());
  ck_assert_msg(gb_specs_read(path, &specs) == GB_OK, "%s", gb_errmsg());
  gb_results measured = {0};
  size_t nfiles = 0;
  snprintf(path, sizeof path, "%s/measured", gb_data_dir());
  ck_assert_msg(gb_plan_load_measured_dir(path, &measured, &nfiles) == GB_OK, "%s", gb_errmsg());
  snprintf(path, sizeof path, "%s/cases.tsv", GB_CALIBRATION_DIR);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  char line[1024];
  double logs[64];
  size_t n = 0;
  double worst = 0;
  char worst_id[64] = "";
  printf("%-32s %-16s %5s %14s %14s %8s  %s\n", "case", "gpu_type", "gpus", "predicted", "published", "ratio", "unit");
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char id[64], wl[128], type[64], unit[64];
    int count, gpn, tp;
    double nic, published;
    ck_assert_int_eq(sscanf(line, "%63[^\t]\t%127[^\t]\t%63[^\t]\t%d\t%d\t%d\t%lf\t%lf\t%63[^\t]", id, wl, type, &count,
                            &gpn, &tp, &nic, &published, unit),
                     9);
    gb_workload w;
    gb_workload_init(&w);
    char wpath[4200];
    snprintf(wpath, sizeof wpath, "%s/%s", GB_CALIBRATION_DIR, wl);
    ck_assert_msg(gb_workload_read(wpath, &w) == GB_OK, "%s", gb_errmsg());
    if (tp > 0) {
      char v[16];
      snprintf(v, sizeof v, "%d", tp);
      ck_assert_int_eq(gb_workload_set(&w, "tensor_parallel", v, "cases.tsv", 0), GB_OK);
    }
    ck_assert_msg(gb_workload_finish(&w) == GB_OK, "%s", gb_errmsg());
    gb_perf perf;
    ck_assert_msg(gb_perf_build(&specs, &measured, w.precision, w.gemm_size, w.gemm_sustained, &perf) == GB_OK, "%s",
                  gb_errmsg());
    const gb_perf_type *t = gb_perf_find(&perf, type);
    ck_assert_msg(t != NULL, "%s: %s not in gpu_specs.csv", id, type);
    gb_plan_opts o;
    gb_plan_opts_default(&o);
    if (nic > 0) o.nic_gbit = nic;
    gb_plan_time tm;
    gb_plan_time_of(&w, &perf, t, count, gpn, &o, &tm);
    ck_assert_msg(tm.reject == GB_REJECT_NONE, "%s: rejected (%d: need %g, have %g)", id, tm.reject, tm.need, tm.have);
    double pred;
    if (strcmp(unit, "gpu_hours") == 0) pred = tm.hours * count;
    else pred = tm.tokens_per_s_per_gpu; /* tokens_per_s_per_gpu, output_tokens_per_s_per_gpu */
    double ratio = pred / published;
    printf("%-32s %-16s %5d %14.6g %14.6g %8.3f  %s\n", id, type, count, pred, published, ratio, unit);
    double l = fabs(log(ratio));
    if (l > worst) worst = l, snprintf(worst_id, sizeof worst_id, "%s", id);
    ck_assert(n < 64);
    logs[n++] = l;
    gb_perf_free(&perf);
  }
  fclose(f);
  ck_assert_uint_gt(n, 10);
  qsort(logs, n, sizeof logs[0], cmp_d);
  double median = n % 2 ? logs[n / 2] : (logs[n / 2 - 1] + logs[n / 2]) / 2;
  printf("cases %zu: median |ln(ratio)| %.3f (x%.3f), worst %s |ln| %.3f (x%.3f)\n", n, median, exp(median), worst_id,
         worst, exp(worst));
  fflush(stdout);
  ck_assert_msg(median <= MEDIAN_MAX, "median |ln(ratio)| %.3f > %.2f", median, MEDIAN_MAX);
  ck_assert_msg(worst <= log(WORST_MAX), "%s is off by x%.3f (> %.1f)", worst_id, exp(worst), WORST_MAX);
  gb_results_free(&measured);
  gb_specs_free(&specs);
}
END_TEST

int main(void) {
  Suite *s = suite_create("planner_calibration");
  TCase *tc = tcase_create("calibration");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_calibration);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
