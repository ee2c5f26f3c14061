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

/* The chunks of back-to-back timing, hand-computed. */
START_TEST(test_next_chunk) {
  /* burst window: 30 samples, no budget: 16, then 14, then none */
  ck_assert_int_eq(gb_measure_next_chunk(30, 30, 0, 0, 0, 0, 0), 16);
  ck_assert_int_eq(gb_measure_next_chunk(30, 30, 16, 0, 0, 0, 0), 14);
  ck_assert_int_eq(gb_measure_next_chunk(30, 30, 30, 16, 0.016, 0, 0), 0);
  /* budget: nothing past min_samples before a sample was read */
  ck_assert_int_eq(gb_measure_next_chunk(5, 100000, 5, 0, 0, 0.02, 0.001), 0);
  /* 5 read at 1 ms each, 6 ms spent of 20: 14 more end in time */
  ck_assert_int_eq(gb_measure_next_chunk(5, 100000, 5, 5, 0.005, 0.02, 0.006), 14);
  /* 15 still unread eat the 14 ms left */
  ck_assert_int_eq(gb_measure_next_chunk(5, 100000, 20, 5, 0.005, 0.02, 0.006), 0);
  /* 19 would fit: one chunk of 16 */
  ck_assert_int_eq(gb_measure_next_chunk(5, 100000, 5, 5, 0.005, 0.02, 0.001), 16);
  /* never past max_samples */
  ck_assert_int_eq(gb_measure_next_chunk(5, 8, 5, 5, 0.005, 0.02, 0.001), 3);
  ck_assert_int_eq(gb_measure_next_chunk(40, 8, 8, 0, 0, 0, 0), 0);
  /* samples too short for the event clock (0 s): a whole chunk */
  ck_assert_int_eq(gb_measure_next_chunk(1, 100, 1, 1, 0, 0.5, 0.1), 16);
  /* the budget already spent */
  ck_assert_int_eq(gb_measure_next_chunk(5, 100, 5, 5, 0.005, 0.02, 0.03), 0);
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
  tcase_add_test(tc, test_next_chunk);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
