/* Tests for gb_energy: the energy of timed windows from counter reads, the
 * rule that withholds it from windows too short for the counter, and the
 * per-watt plausibility bound (issue 57). */
#include <math.h>
#include <string.h>

#include "gb_energy.h"
#include "testutil.h"

START_TEST(test_window_energy) {
  gb_energy_acc a = {0};
  /* 2.5 s at 700 W: 1,750,000 mJ, the counter stepping 125 times */
  gb_energy_add(&a, true, 1000000, 10.0, true, 2750000, 12.5, 125);
  double j, s;
  char why[160];
  ck_assert(gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert_double_eq_tol(j, 1750.0, 1e-9);
  ck_assert_double_eq_tol(s, 2.5, 1e-12);
  ck_assert_str_eq(why, "");
  /* two windows add up */
  gb_energy_add(&a, true, 5000000, 20.0, true, 5700000, 21.0, 50);
  ck_assert(gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert_double_eq_tol(j, 2450.0, 1e-9);
  ck_assert_double_eq_tol(s, 3.5, 1e-12);
}
END_TEST

/* The bug of issue 57: a 40 ms burst got a power figure. Now a window that
 * spans fewer than GB_ENERGY_MIN_UPDATES steps gets none, with the reason. */
START_TEST(test_too_short) {
  gb_energy_acc a = {0};
  gb_energy_add(&a, true, 1000000, 10.0, true, 1013000, 10.041, 2);
  double j = 0, s = 0;
  char why[160];
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert(isnan(j) && isnan(s));
  ck_assert_str_eq(why, "window 0.041 s spans 2 energy-counter updates, under 10 per window: too short for the counter");
  /* 9 steps: still short; 10: enough */
  a = (gb_energy_acc){0};
  gb_energy_add(&a, true, 0, 0, true, 1000, 0.5, 9);
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why));
  a = (gb_energy_acc){0};
  gb_energy_add(&a, true, 0, 0, true, 1000, 0.5, 10);
  ck_assert(gb_energy_judge(&a, &j, &s, why, sizeof why));
  /* per window: a long window does not carry three bursts */
  gb_energy_add(&a, true, 0, 1, true, 10, 1.04, 1);
  gb_energy_add(&a, true, 0, 2, true, 10, 2.04, 1);
  gb_energy_add(&a, true, 0, 3, true, 10, 3.04, 1);
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert_str_eq(why, "4 windows of 0.62 s in all span 13 energy-counter updates, under 10 per window: too short "
                   "for the counter");
}
END_TEST

START_TEST(test_absent_and_back) {
  double j, s;
  char why[160];
  gb_energy_acc a = {0};
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why)); /* nothing timed: no figure, no reason */
  ck_assert_str_eq(why, "");
  gb_energy_add(&a, false, 0, 0, true, 5000, 2, 100); /* the start read failed */
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "no energy counter"));
  a = (gb_energy_acc){0};
  gb_energy_add(&a, true, 0, 0, false, 0, 2, 100); /* the end read failed */
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "no energy counter"));
  /* the counter went back (a driver reload; a wrap of the 64-bit mJ count) */
  a = (gb_energy_acc){0};
  gb_energy_add(&a, true, 18446744073709551000ULL, 0, true, 400, 2, 100);
  gb_energy_add(&a, true, 0, 3, true, 1400000, 5, 100);
  ck_assert(!gb_energy_judge(&a, &j, &s, why, sizeof why));
  ck_assert_str_eq(why, "the energy counter went back in 1 of 2 windows (reset or wrap)");
  ck_assert(isnan(j));
}
END_TEST

START_TEST(test_plausible) {
  char why[200];
  /* H100 SXM bf16: 989 TFLOP/s over 700 W is 1.41 per W; the bound 1.25x that */
  ck_assert(gb_energy_plausible(1.2, 989, 700, "TFLOP/s", why, sizeof why));
  ck_assert_str_eq(why, "");
  ck_assert(gb_energy_plausible(1.76, 989, 700, "TFLOP/s", why, sizeof why));
  /* issue 57's figure: 813.8 TFLOP/s at 241.3 W on an H200 */
  ck_assert(!gb_energy_plausible(813.8 / 241.3, 989, 700, "TFLOP/s", why, sizeof why));
  ck_assert_str_eq(why, "3.37 TFLOP/s per W is over 1.77, 1.25 x the datasheet's 989 TFLOP/s over its 700 W TDP");
  /* a bound unknown: nothing to judge against */
  ck_assert(gb_energy_plausible(9, NAN, 700, "TFLOP/s", why, sizeof why));
  ck_assert(gb_energy_plausible(9, 989, 0, "TFLOP/s", why, sizeof why));
  ck_assert(gb_energy_plausible(NAN, 989, 700, "TFLOP/s", why, sizeof why));
}
END_TEST

static Suite *energy_suite(void) {
  Suite *s = suite_create("energy");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_window_energy);
  tcase_add_test(tc, test_too_short);
  tcase_add_test(tc, test_absent_and_back);
  tcase_add_test(tc, test_plausible);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(energy_suite()); }
