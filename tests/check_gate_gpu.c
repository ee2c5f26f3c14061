/* check_gate_gpu: what the gate needs from `gpubench run --repeat N`, on a
 * GPU: the whole campaign repeated in turn (every case once, then again),
 * each benchmark set up and torn down around each repetition (so a
 * collective gets a fresh NCCL communicator per repetition), the rows' `rep`
 * telling repetitions apart, derived rows after the last repetition, and the
 * `profile` column recorded. The benchmarks here are fakes that count their
 * calls: the runner needs the GPU only to select it. */
#include <stdio.h>
#include <string.h>

#include "gb_bench.h"
#include "gb_runner.h"
#include "testutil.h"
#include "testutil_gpu.h"

static gb_system_info g_sys;
static int g_setups[2], g_teardowns[2], g_derives[2];
static char g_order[64]; /* "a0 a1 b0 ..." per case run, 'A'/'B' at setups */
static size_t g_olen;

static void note(char c) {
  if (g_olen + 1 < sizeof g_order) g_order[g_olen++] = c;
  g_order[g_olen] = '\0';
}

static gb_err plan(const gb_run_ctx *ctx, gb_case_list *out) {
  (void)ctx;
  for (int i = 0; i < 2; i++) {
    char name[8];
    snprintf(name, sizeof name, "c%d", i);
    gb_case c = gb_case_init(name, "fp32");
    c.bytes = (int64_t)1 << 30;
    gb_err e = gb_case_list_add(out, &c);
    if (e) return e;
  }
  return GB_OK;
}

static gb_err run_case(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out, const char *bench) {
  (void)ctx;
  note(c->name[1]);
  gb_row r = gb_case_row(bench, c);
  r.metric = "gbps";
  r.unit = "GB/s";
  r.value = 1000;
  r.samples = 10;
  r.status = GB_STATUS_OK;
  return gb_rowset_add(out, &r);
}

static gb_err setup_a(gb_run_ctx *ctx) { (void)ctx; g_setups[0]++; note('A'); return GB_OK; }
static gb_err setup_b(gb_run_ctx *ctx) { (void)ctx; g_setups[1]++; note('B'); return GB_OK; }
static void teardown_a(gb_run_ctx *ctx) { (void)ctx; g_teardowns[0]++; }
static void teardown_b(gb_run_ctx *ctx) { (void)ctx; g_teardowns[1]++; }
static gb_err run_a(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) { return run_case(ctx, c, out, "fakea"); }
static gb_err run_b(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) { return run_case(ctx, c, out, "fakeb"); }
static gb_err derive_a(gb_run_ctx *ctx, const gb_row *rows, size_t n, gb_rowset *out) {
  (void)ctx, (void)rows, (void)out;
  g_derives[0]++;
  ck_assert_uint_eq(n, 6); /* every repetition's rows are there */
  return GB_OK;
}

static const gb_bench k_a = {.name = "fakea", .metric = "gbps", .unit = "GB/s", .plan = plan, .setup = setup_a,
                             .run = run_a, .derive = derive_a, .teardown = teardown_a};
static const gb_bench k_b = {.name = "fakeb", .metric = "gbps", .unit = "GB/s", .plan = plan, .setup = setup_b,
                             .run = run_b, .teardown = teardown_b};

START_TEST(test_repeat_in_turn) {
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  gb_campaign c;
  memset(&c, 0, sizeof c);
  c.run.profile = GB_PROFILE_FULL;
  c.run.warmup = c.run.iters = -1;
  c.run.repeat = 3;
  c.run.ndevices = 1;
  c.benches[0] = &k_a;
  c.benches[1] = &k_b;
  c.nbenches = 2;
  char path[4200];
  snprintf(path, sizeof path, "%s/repeat.csv", gb_test_tmpdir());
  c.out_path = path;
  gb_campaign_result res;
  ck_assert_msg(gb_campaign_run(&c, &g_sys, &res) == GB_OK, "%s", gb_errmsg());
  /* each repetition: a set up, its cases, b set up, its cases */
  ck_assert_str_eq(g_order, "A01B01A01B01A01B01");
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(g_setups[i], 3);
    ck_assert_int_eq(g_teardowns[i], 3);
  }
  ck_assert_int_eq(g_derives[0], 1);
  gb_results rows = {0};
  ck_assert_int_eq(gb_results_read(path, &rows), GB_OK);
  ck_assert_uint_eq(rows.nrows, 12);
  /* file order: rep 0 of every case of both benchmarks, then rep 1, then rep 2 */
  for (size_t i = 0; i < rows.nrows; i++) {
    ck_assert_int_eq(rows.rows[i].rep, (int)(i / 4));
    ck_assert_str_eq(rows.rows[i].benchmark, (i % 4) < 2 ? "fakea" : "fakeb");
    ck_assert_str_eq(rows.rows[i].profile, "full");
  }
  gb_results_free(&rows);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_repeat_in_turn);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_gpu_suite(suite()); }
