/* GPU tests of the decode benchmark: the quick profile end to end (every
 * row ok and checked, the figures in plausible ranges) and a deliberately
 * spoiled result (every row invalid). Exit 77 (SKIPPED) without a GPU. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_decode.h"
#include "gb_bench.h"
#include "gb_desc.h"
#include "testutil_gpu.h"

extern const gb_bench gb_bench_decode;

static gb_system_info g_sys;

/* plan, setup, run every case and teardown, as the runner would */
static void run_decode(gb_rowset *rows, size_t *cases, size_t *errors) {
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  gb_run_config cfg = {.profile = GB_PROFILE_QUICK, .warmup = -1, .iters = -1, .repeat = 1, .ndevices = 1};
  gb_run_ctx ctx = {.sys = &g_sys, .cfg = &cfg, .dev = &g_sys.dev[0]};
  gb_case_list cl = {0};
  ck_assert_msg(gb_bench_decode.plan(&ctx, &cl) == GB_OK, "plan: %s", gb_errmsg());
  ck_assert_msg(gb_bench_decode.setup(&ctx) == GB_OK, "setup: %s", gb_errmsg());
  *cases = cl.n;
  *errors = 0;
  for (size_t i = 0; i < cl.n; i++)
    if (gb_bench_decode.run(&ctx, &cl.v[i], rows) != GB_OK) {
      fprintf(stderr, "%s: %s\n", cl.v[i].name, gb_errmsg());
      (*errors)++;
    }
  gb_bench_decode.teardown(&ctx);
  gb_case_list_free(&cl);
}

START_TEST(test_quick_ok) {
  gb_rowset rows = {0};
  size_t cases, errors;
  run_decode(&rows, &cases, &errors);
  ck_assert_uint_eq(errors, 0);
  /* launch and launch_graph one row each; gemv and kv_read two each */
  ck_assert_uint_eq(rows.n, 2 + 2 * (cases - 2));
  for (size_t i = 0; i < rows.n; i++) {
    const gb_row *r = &rows.v[i];
    printf("decode %-12s m=%-4lld n=%-6lld k=%-6lld %-8s %10.3f %s  %s\n", r->case_name, (long long)r->m,
           (long long)r->n, (long long)r->k, r->metric, r->value, r->unit, r->detail);
    ck_assert_msg(r->status == GB_STATUS_OK, "%s %s: %s", r->case_name, r->metric, r->detail);
    ck_assert_int_eq(gb_desc_check_row(r), GB_OK);
    ck_assert_msg(isfinite(r->value) && r->value > 0, "%s %s: %g", r->case_name, r->metric, r->value);
    if (strcmp(r->metric, "time_us") == 0) /* a launch takes more than 0.05 us and any case less than 100 ms */
      ck_assert_msg(r->value > 0.05 && r->value < 1e5, "%s: %g us", r->case_name, r->value);
    if (strcmp(r->metric, "gbps") == 0) /* a KV read streams faster than 50 GB/s and slower than 20 TB/s */
      ck_assert_msg(r->value > 50 && r->value < 20000, "%s: %g GB/s", r->case_name, r->value);
  }
  /* a graph's kernel costs less than a plain launch */
  ck_assert_str_eq(rows.v[0].case_name, "launch");
  ck_assert_str_eq(rows.v[1].case_name, "launch_graph");
  ck_assert_double_lt(rows.v[1].value, rows.v[0].value);
  gb_rowset_free(&rows);
}
END_TEST

START_TEST(test_spoiled_invalid) {
  gb_rowset rows = {0};
  size_t cases, errors;
  gb_decode_test_corrupt(true);
  run_decode(&rows, &cases, &errors);
  gb_decode_test_corrupt(false);
  ck_assert_uint_eq(errors, 0);
  ck_assert_uint_gt(rows.n, 0);
  for (size_t i = 0; i < rows.n; i++)
    ck_assert_msg(rows.v[i].status == GB_STATUS_INVALID, "%s %s: %s", rows.v[i].case_name, rows.v[i].metric,
                  rows.v[i].detail);
  gb_rowset_free(&rows);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("decode_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_quick_ok);
  tcase_add_test(tc, test_spoiled_invalid);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_gpu_suite(suite()); }
