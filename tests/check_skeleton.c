/* The skeleton benchmark of docs/architecture.md ("Adding a benchmark"),
 * built by tests/house.cmake from the page's two blocks: one registry
 * entry makes it runnable (gb_benches, gb_bench_find) and described
 * (gb_desc_find), and its run emits a row whose metric and unit come from
 * that entry and pass gb_rowset_add's check. */
#include <string.h>

#include "gb_bench.h"
#include "gb_desc.h"
#include "testutil.h"

extern const gb_bench gb_bench_hostmem;

START_TEST(test_skeleton_registered) {
  ck_assert_ptr_eq(gb_bench_find("hostmem"), &gb_bench_hostmem);
  bool listed = false;
  for (size_t i = 0; gb_benches[i]; i++) listed = listed || gb_benches[i] == &gb_bench_hostmem;
  ck_assert(listed);
  const gb_bench_desc *d = gb_desc_find("hostmem");
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->title, "Host memory fill bandwidth");
  ck_assert_str_eq(d->headline_metric, "gbps");
  ck_assert_int_eq(gb_desc_direction("hostmem", "gbps"), GB_DIR_HIGHER);
  ck_assert(gb_desc_is_headline_metric("hostmem", "gbps"));
  /* the registered benchmarks are still there */
  ck_assert_ptr_nonnull(gb_desc_find("membw"));
  ck_assert_ptr_nonnull(gb_bench_find("gemm"));
}
END_TEST

START_TEST(test_skeleton_emits_a_row) {
  gb_case_list l = {0};
  ck_assert_int_eq(gb_bench_hostmem.plan(NULL, &l), GB_OK);
  ck_assert_uint_eq(l.n, 1);
  gb_rowset rs = {0};
  gb_run_ctx ctx = {0};
  ck_assert_int_eq(gb_bench_hostmem.run(&ctx, &l.v[0], &rs), GB_OK);
  ck_assert_uint_eq(rs.n, 1);
  ck_assert_str_eq(rs.v[0].benchmark, "hostmem");
  ck_assert_str_eq(rs.v[0].metric, "gbps");
  ck_assert_str_eq(rs.v[0].unit, "GB/s");
  ck_assert_int_eq(rs.v[0].status, GB_STATUS_OK);
  ck_assert(rs.v[0].value > 0);
  ck_assert_int_eq(rs.v[0].bytes, (int64_t)64 << 20);
  gb_rowset_free(&rs);
  gb_case_list_free(&l);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("skeleton");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_skeleton_registered);
  tcase_add_test(tc, test_skeleton_emits_a_row);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
