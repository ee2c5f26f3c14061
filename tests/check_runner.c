/* check_runner: what gb_campaign_run refuses before it measures anything, so
 * on any machine (no CUDA call is made before these checks): a results file
 * begun by an older gpubench that lacks a column the run needs to tell its
 * rows apart. */
#include <stdio.h>
#include <string.h>

#include "gb_bench.h"
#include "gb_runner.h"
#include "testutil.h"

/* A results file whose header ends at power_w: no rep, settings, ... */
static const char *old_file(const char *name) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/%s", gb_test_tmpdir(), name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,"
        "metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n",
        f);
  fclose(f);
  return path;
}

static gb_campaign campaign(const char *path, const char *opts) {
  gb_campaign c;
  memset(&c, 0, sizeof c);
  c.run.warmup = c.run.iters = -1;
  c.run.repeat = 1;
  c.run.ndevices = 1;
  c.run.bench_opts = opts;
  c.benches[0] = gb_bench_find("gemm");
  c.nbenches = 1;
  c.out_path = path;
  return c;
}

static long file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

/* Rows measured under non-default settings need the settings column: in an
 * older file they would be taken for default rows. The file is untouched. */
START_TEST(test_settings_need_their_column) {
  static gb_system_info sys; /* one device, never touched */
  sys.ndev = 1;
  const char *path = old_file("old-settings.csv");
  long before = file_size(path);
  gb_campaign c = campaign(path, "gemm.rest_ms=1000");
  gb_campaign_result res;
  ck_assert_int_eq(gb_campaign_run(&c, &sys, &res), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "has no settings column") && strstr(gb_errmsg(), "gemm.rest_ms=1000"), "%s",
                gb_errmsg());
  ck_assert_int_eq(file_size(path), before);
  gb_errclear();
  c.run.bench_opts = NULL;
  c.run.iters = 30; /* a runner setting alike */
  ck_assert_int_eq(gb_campaign_run(&c, &sys, &res), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "measured under iters=30"), "%s", gb_errmsg());
  gb_errclear();
}
END_TEST

/* --repeat needs the rep column, for the same reason. */
START_TEST(test_repeat_needs_rep_column) {
  static gb_system_info sys;
  sys.ndev = 1;
  const char *path = old_file("old-rep.csv");
  gb_campaign c = campaign(path, NULL);
  c.run.repeat = 3;
  gb_campaign_result res;
  ck_assert_int_eq(gb_campaign_run(&c, &sys, &res), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "has no rep column"), "%s", gb_errmsg());
  gb_errclear();
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("runner");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_settings_need_their_column);
  tcase_add_test(tc, test_repeat_needs_rep_column);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
