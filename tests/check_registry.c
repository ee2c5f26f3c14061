/* The benchmark registry is sorted, names are unique, and each entry has
 * the required hooks. */
#include <string.h>

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

static Suite *suite(void) {
  Suite *s = suite_create("registry");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_sorted_complete);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
