/* check_gate_judge: what the gate must not be fooled by, on real A/A
 * campaigns (tests/fixtures/aa/): collapsed, erratic and missing headline
 * figures, figures that switch power state between runs (judged by their
 * peak), every shipped data file compared with itself, and floors measured
 * from more runs than any fixed buffer would hold. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_runinfo.h"
#include "testutil.h"

static gb_noise_table g_noise;
static gb_results g_base, g_cur;

static void setup(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/noise/floors.csv", gb_data_dir());
  ck_assert_msg(gb_noise_read(path, &g_noise) == GB_OK, "%s", gb_errmsg());
  memset(&g_base, 0, sizeof g_base);
  memset(&g_cur, 0, sizeof g_cur);
}

static void teardown(void) {
  gb_noise_free(&g_noise);
  gb_results_free(&g_base);
  gb_results_free(&g_cur);
}

static void read_aa(const char *name, gb_results *res) {
  char path[96];
  snprintf(path, sizeof path, "aa/%s.csv", name);
  gb_results_free(res);
  memset(res, 0, sizeof *res);
  ck_assert_msg(gb_results_read(gb_fixture(path), res) == GB_OK, "%s", gb_errmsg());
}

/* The first row of res whose label contains needle (and metric, when given). */
static gb_row *find_row(gb_results *res, const char *bench, const char *case_name, int64_t m, int64_t bytes,
                        const char *metric) {
  for (size_t i = 0; i < res->nrows; i++) {
    gb_row *r = &res->rows[i];
    if (strcmp(r->benchmark, bench) == 0 && strcmp(r->case_name, case_name) == 0 && r->m == m &&
        r->bytes == bytes && strcmp(r->metric, metric) == 0)
      return r;
  }
  ck_abort_msg("no row %s/%s m=%lld bytes=%lld %s", bench, case_name, (long long)m, (long long)bytes, metric);
  return NULL;
}

static void scale(gb_row *r, double f) {
  r->value *= f;
  r->min *= f;
  r->max *= f;
  r->stddev *= f;
}

static const gb_gate_item *item_of(const gb_gate_report *rep, const char *needle) {
  for (size_t i = 0; i < rep->nitems; i++)
    if (strstr(rep->items[i].key, needle)) return &rep->items[i];
  ck_abort_msg("no figure %s", needle);
  return NULL;
}

static gb_gate_report judge_pair(const gb_gate_options *opt) {
  gb_gate_report rep;
  ck_assert_msg(gb_gate_compare(&g_base, &g_cur, opt, &rep) == GB_OK, "%s", gb_errmsg());
  return rep;
}

#define MIB ((int64_t)1 << 20)
#define GIB ((int64_t)1 << 30)

/* A headline figure at 0 now, one at +inf, one whose rows scatter by 60%,
 * one gone: each fails with its own verdict and reason; the untouched pair
 * passes; --allow-missing lets the missing one go. */
START_TEST(test_collapse_fails) {
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  read_aa("c9-quick-1", &g_base);
  read_aa("c9-quick-2", &g_cur);
  gb_gate_report rep = judge_pair(&opt);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  ck_assert_uint_eq(rep.failing, 0);
  gb_gate_report_free(&rep);

  find_row(&g_cur, "gemm", "fp64", 8192, GB_NA, "tflops")->value = 0;
  find_row(&g_cur, "membw", "triad", GB_NA, 2 * GIB, "gbps")->value = INFINITY;
  gb_row *bf = find_row(&g_cur, "gemm", "bf16", 8192, GB_NA, "tflops");
  bf->stddev = 0.6 * bf->value;
  /* membw copy 1 GiB: gone (its row dropped from the current side) */
  gb_row *gone = find_row(&g_cur, "membw", "copy", GB_NA, GIB, "gbps");
  size_t at = (size_t)(gone - g_cur.rows);
  memmove(gone, gone + 1, (g_cur.nrows - at - 1) * sizeof *gone);
  g_cur.nrows--;
  rep = judge_pair(&opt);
  const gb_gate_item *z = item_of(&rep, "gemm/fp64 fp64 m=8192 n=8192 k=8192 tflops");
  ck_assert_int_eq(z->verdict, GB_VERDICT_COLLAPSED);
  ck_assert_msg(strstr(z->note, ": value 0: a headline figure at 0, negative or not finite"), "%s", z->note);
  const gb_gate_item *inf = item_of(&rep, "membw/triad fp64 bytes=2147483648 gbps");
  ck_assert_int_eq(inf->verdict, GB_VERDICT_COLLAPSED);
  ck_assert_msg(strstr(inf->note, "value inf"), "%s", inf->note);
  const gb_gate_item *u = item_of(&rep, "gemm/bf16 bf16 m=8192 n=8192 k=8192 tflops");
  ck_assert_int_eq(u->verdict, GB_VERDICT_UNSTABLE);
  ck_assert_msg(strstr(u->note, "within-run stddev 60.0% of the value, past 25.0%"), "%s", u->note);
  const gb_gate_item *m = item_of(&rep, "membw/copy fp64 bytes=1073741824 gbps");
  ck_assert_int_eq(m->verdict, GB_VERDICT_MISSING);
  ck_assert(m->fails);
  ck_assert_msg(strstr(m->note, "a headline figure is gone (--allow-missing"), "%s", m->note);
  ck_assert_uint_eq(rep.count[GB_VERDICT_COLLAPSED], 2);
  ck_assert_uint_eq(rep.count[GB_VERDICT_UNSTABLE], 1);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 0);
  ck_assert_uint_eq(rep.failing, 4);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_buf x = {0};
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  gb_buf_append(&x, "", 1);
  ck_assert_msg(strstr(x.data, "failures=\"4\""), "%s", x.data);
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  /* only the missing figure left: it fails, unless allowed */
  find_row(&g_cur, "gemm", "fp64", 8192, GB_NA, "tflops")->value = find_row(&g_base, "gemm", "fp64", 8192, GB_NA,
                                                                           "tflops")->value;
  *find_row(&g_cur, "membw", "triad", GB_NA, 2 * GIB, "gbps") = *find_row(&g_base, "membw", "triad", GB_NA, 2 * GIB,
                                                                          "gbps");
  bf->stddev = find_row(&g_base, "gemm", "bf16", 8192, GB_NA, "tflops")->stddev;
  rep = judge_pair(&opt);
  ck_assert_uint_eq(rep.failing, 1);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  opt.allow_missing = true;
  rep = judge_pair(&opt);
  ck_assert_uint_eq(rep.failing, 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_MISSING], 1);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
}
END_TEST

/* A latency-class figure at 0 is not a collapse of the gate (information
 * only): insufficient, as before. */
START_TEST(test_latency_zero_not_collapse) {
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  read_aa("c10-quick-1", &g_base);
  read_aa("c10-quick-2", &g_cur);
  find_row(&g_cur, "membw", "triad", GB_NA, MIB, "gbps")->value = 0;
  gb_gate_report rep = judge_pair(&opt);
  ck_assert_int_eq(item_of(&rep, "membw/triad fp64 bytes=1048576 gbps")->verdict, GB_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
}
END_TEST

/* tf32, fp16 and fp16acc16 at 8192^3 switch power state between runs: 10%
 * slower (every sample) is a regression in every current-build pair of
 * cards 9, 10 and 11, judged by the peak; and the untouched pairs pass. */
START_TEST(test_power_state_drop) {
  static const char *const pairs[][2] = {{"c9-quick-1", "c9-quick-2"},   {"c9-quick-3", "c9-quick-4"},
                                         {"c9-quick-5", "c9-quick-6"},   {"c10-quick-1", "c10-quick-2"},
                                         {"c10-quick-3", "c10-quick-4"}, {"c10-quick-5", "c10-quick-6"},
                                         {"c11-quick-1", "c11-quick-2"}, {"c11-quick-3", "c11-quick-4"},
                                         {"c11-quick-5", "c11-quick-6"}};
  static const char *const cases[] = {"tf32", "fp16", "fp16acc16"};
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
    read_aa(pairs[p][0], &g_base);
    read_aa(pairs[p][1], &g_cur);
    gb_gate_report rep = judge_pair(&opt);
    ck_assert_msg(gb_gate_exit_code(&rep) == 0, "%s %s", pairs[p][0], pairs[p][1]);
    gb_gate_report_free(&rep);
    for (size_t c = 0; c < 3; c++) scale(find_row(&g_cur, "gemm", cases[c], 8192, GB_NA, "tflops"), 0.9);
    rep = judge_pair(&opt);
    for (size_t c = 0; c < 3; c++) {
      char key[96];
      snprintf(key, sizeof key, "gemm/%s %s m=8192 n=8192 k=8192 tflops", cases[c], c ? "fp16" : "tf32");
      const gb_gate_item *it = item_of(&rep, key);
      ck_assert_msg(it->verdict == GB_VERDICT_REGRESSION && it->peak, "%s %s: %s %s (%s, MDC %.2f%%)", pairs[p][0],
                    pairs[p][1], key, gb_verdict_name(it->verdict), it->method, it->mdc_pct);
      ck_assert_double_lt(it->change_pct, -7.0); /* the peaks of two runs differ by up to 2.5% */
    }
    gb_gate_report_free(&rep);
  }
}
END_TEST

/* Every shipped measurement file compared with itself passes (the
 * sustained GEMM file's metrics have their direction in the registry). */
START_TEST(test_shipped_self_compare) {
  static const char *const dirs[] = {"measured", "measured/sustained"};
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  size_t files = 0;
  for (size_t d = 0; d < 2; d++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", gb_data_dir(), dirs[d]);
    DIR *dp = opendir(dir);
    ck_assert_ptr_nonnull(dp);
    for (struct dirent *de; (de = readdir(dp));) {
      size_t n = strlen(de->d_name);
      if (n < 5 || strcmp(de->d_name + n - 4, ".csv")) continue;
      char path[8400];
      snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
      gb_results_free(&g_base);
      memset(&g_base, 0, sizeof g_base);
      ck_assert_msg(gb_results_read(path, &g_base) == GB_OK, "%s", gb_errmsg());
      gb_gate_report rep;
      ck_assert_msg(gb_gate_compare(&g_base, &g_base, &opt, &rep) == GB_OK, "%s: %s", path, gb_errmsg());
      ck_assert_msg(gb_gate_exit_code(&rep) == 0, "%s: exit %d", path, gb_gate_exit_code(&rep));
      gb_gate_report_free(&rep);
      files++;
    }
    closedir(dp);
  }
  ck_assert_uint_ge(files, 1);
}
END_TEST

/* 4200 runs of one figure: every run counted (the count used to stop at
 * 4096 and the per-run buffer overflowed past it). */
START_TEST(test_noise_many_runs) {
  enum { N = 4200 };
  gb_buf b = {0};
  gb_results_put_header(&b);
  for (int i = 0; i < N; i++) {
    char run[32];
    snprintf(run, sizeof run, "run%05d", i);
    gb_row r = gb_row_empty();
    r.run_id = run;
    r.timestamp = "2026-12-05T00:00:00Z";
    r.gpu_type = "H200-SXM-141GB";
    r.benchmark = "membw";
    r.case_name = "triad";
    r.dtype = "fp64";
    r.bytes = GIB;
    r.metric = "gbps";
    r.unit = "GB/s";
    r.value = 4000.0 * (1 + 0.01 * ((i * 7919) % 101 - 50) / 50.0);
    gb_results_put_row(&b, &r);
  }
  ck_assert_int_eq(gb_results_read_mem("many.csv", b.data, b.len, &g_base), GB_OK);
  gb_buf_free(&b);
  gb_noise_table t;
  ck_assert_msg(gb_noise_measure(&g_base, &t) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(t.runs, N);
  ck_assert_uint_ge(t.n, 1);
  ck_assert_uint_eq(t.v[0].pairs, (size_t)N * (N - 1) / 2);
  gb_noise_free(&t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate_judge");
  TCase *tc = tcase_create("judge");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_collapse_fails);
  tcase_add_test(tc, test_latency_zero_not_collapse);
  tcase_add_test(tc, test_power_state_drop);
  tcase_add_test(tc, test_shipped_self_compare);
  tcase_add_test(tc, test_noise_many_runs);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
