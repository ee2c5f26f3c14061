/* Tests for gb_stats, with hand-computed values. */
#include <math.h>

#include "gb_stats.h"
#include "testutil.h"

START_TEST(test_stats) {
  double x[] = {4, 1, 3, 2, 10};
  gb_stats s = gb_stats_of(x, 5);
  ck_assert_double_eq(s.median, 3.0);
  ck_assert_double_eq(s.min, 1.0);
  ck_assert_double_eq(s.max, 10.0);
  ck_assert_double_eq(s.mean, 4.0);
  /* deviations 0,-3,-1,-2,6: squares 0+9+1+4+36 = 50; 50/4 = 12.5 */
  ck_assert_double_eq_tol(s.stddev, sqrt(12.5), 1e-12);
  ck_assert_double_eq(x[0], 4.0); /* input untouched */
  double even[] = {1, 2, 3, 4};
  ck_assert_double_eq(gb_median(even, 4), 2.5);
  ck_assert_double_eq(gb_quantile(even, 4, 0.25), 1.75);
  gb_stats none = gb_stats_of(x, 0);
  ck_assert(isnan(none.median));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("stats");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_stats);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
