/* Tests for the harness's host-side parts: the random values the fill kernel
 * writes, dtype names and sizes. */
#include <math.h>

#include "gb_harness.h"
#include "testutil.h"

START_TEST(test_random_values) {
  /* deterministic, inside the range, not all equal, never all zero */
  double first = gb_random_value(0, GB_DT_F64, -1, 1, 42);
  ck_assert_double_eq(first, gb_random_value(0, GB_DT_F64, -1, 1, 42));
  int distinct = 0, zeros = 0;
  for (size_t i = 0; i < 1000; i++) {
    double v = gb_random_value(i, GB_DT_F32, -1, 1, 7);
    ck_assert(v >= -1 && v < 1);
    if (v != first) distinct++;
    if (v == 0) zeros++;
  }
  ck_assert_int_gt(distinct, 990);
  ck_assert_int_lt(zeros, 5);
  for (size_t i = 0; i < 1000; i++) {
    double v = gb_random_value(i, GB_DT_I8, -8, 8, 3);
    ck_assert(v == floor(v) && v >= -8 && v <= 8);
    double h = gb_random_value(i, GB_DT_F16, -2, 2, 3);
    /* fp16 keeps 11 significant bits: the frexp mantissa times 2^11 is whole */
    int ex;
    double mant = frexp(h, &ex) * 2048.0;
    ck_assert_double_eq(mant, floor(mant));
    double e4 = gb_random_value(i, GB_DT_F8E4M3, -1000, 1000, 3);
    ck_assert(fabs(e4) <= 448.0); /* saturates */
  }
}
END_TEST

START_TEST(test_names_sizes) {
  ck_assert_str_eq(gb_dtype_name(GB_DT_F8E4M3), "fp8e4m3");
  ck_assert_uint_eq(gb_dtype_size(GB_DT_BF16), 2);
  ck_assert_uint_eq(gb_dtype_size(GB_DT_F64), 8);
  gb_measure_opts o = gb_measure_defaults();
  ck_assert_int_eq(o.min_samples, 10);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("harness");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_random_values);
  tcase_add_test(tc, test_names_sizes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
