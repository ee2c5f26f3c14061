/* Tests for gb_changepoint: the E-divisive statistic by hand, a change point
 * injected into a synthetic 30-run history, and pure noise and a single spike
 * giving none (fixed seeds throughout). */
#include <math.h>
#include <stdint.h>

#include "gb_changepoint.h"
#include "testutil.h"

/* Deterministic Gaussian noise: splitmix64 + Box-Muller. */
static uint64_t g_state;
static double uniform01(void) {
  uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01()); }

/* x = {0,0,0,1,1,1}: the best split is tau = 3. There: between-pairs sum
 * 3 * 3 * |0 - 1| = 9, so 2 * 9 / (3 * 3) = 2; within sums 0; E = 2 and
 * Q = 3 * 3 / 6 * 2 = 3. At tau = 2 (X = {0,0}, Y = {0,1,1,1}): between 2 * 3
 * = 6 -> 2 * 6 / 8 = 1.5; within Y: pairs (0,1) x 3 = 3 over C(4,2) = 6 ->
 * 0.5; E = 1; Q = 8 / 6 = 1.333 < 3. */
START_TEST(test_statistic_by_hand) {
  double x[] = {0, 0, 0, 1, 1, 1};
  double scratch[49];
  size_t tau;
  ck_assert_double_eq_tol(gb_cp_best_split(x, 6, 2, scratch, &tau), 3.0, 1e-12);
  ck_assert_uint_eq(tau, 3);
  /* too short for two segments of 4 */
  ck_assert(isinf(gb_cp_best_split(x, 6, 4, scratch, &tau)));
}
END_TEST

/* 30 runs: mean 100 for runs 0..19, 92 (an 8% drop) for runs 20..29, noise
 * sd 1. The change must be found at index 20. Several seeds of the noise. */
START_TEST(test_injected_change) {
  for (uint64_t seed = 1; seed <= 5; seed++) {
    g_state = seed;
    double x[30];
    for (int i = 0; i < 30; i++) x[i] = (i < 20 ? 100 : 92) + gauss();
    gb_cp_options o = gb_cp_defaults();
    gb_change_point cp[8];
    size_t n;
    ck_assert_int_eq(gb_changepoints(x, 30, &o, cp, &n), GB_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(cp[0].index, 20);
    ck_assert(cp[0].p_value <= o.alpha);
    /* an 8-sigma step: accepted by the step test, p far below what 1999
     * permutations could give (1/2000) */
    ck_assert_double_lt(cp[0].p_value, 1e-6);
    ck_assert_double_eq_tol(cp[0].mean_before, 100, 1.0);
    ck_assert_double_eq_tol(cp[0].mean_after, 92, 1.0);
  }
}
END_TEST

/* Two changes (up then down) in 30 runs are both found. */
START_TEST(test_two_changes) {
  g_state = 11;
  double x[30];
  for (int i = 0; i < 30; i++) x[i] = (i >= 10 && i < 20 ? 110 : 100) + 0.5 * gauss();
  gb_cp_options o = gb_cp_defaults();
  gb_change_point cp[8];
  size_t n;
  ck_assert_int_eq(gb_changepoints(x, 30, &o, cp, &n), GB_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(cp[0].index, 10);
  ck_assert_uint_eq(cp[1].index, 20);
}
END_TEST

/* 30 runs of noise alone: no change point, for 20 different noise seeds (at
 * the default alpha 0.001 a false alarm is rare; with these seeds there is
 * none). */
START_TEST(test_pure_noise) {
  for (uint64_t seed = 100; seed < 120; seed++) {
    g_state = seed;
    double x[30];
    for (int i = 0; i < 30; i++) x[i] = 100 + gauss();
    gb_cp_options o = gb_cp_defaults();
    gb_change_point cp[8];
    size_t n = 99;
    ck_assert_int_eq(gb_changepoints(x, 30, &o, cp, &n), GB_OK);
    ck_assert_uint_eq(n, 0);
  }
}
END_TEST

/* One spike (a single run 20% off) is not a change: anywhere in the series,
 * including the last run, which the minimum segment length shields. */
START_TEST(test_single_spike) {
  for (int at = 0; at < 30; at++) {
    g_state = 500 + (uint64_t)at;
    double x[30];
    for (int i = 0; i < 30; i++) x[i] = 100 + 0.5 * gauss();
    x[at] = 80;
    gb_cp_options o = gb_cp_defaults();
    gb_change_point cp[8];
    size_t n;
    ck_assert_int_eq(gb_changepoints(x, 30, &o, cp, &n), GB_OK);
    ck_assert_uint_eq(n, 0);
  }
}
END_TEST

/* Same input, same seed: same result; a constant series has no change. */
START_TEST(test_deterministic_and_constant) {
  double x[12] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
  gb_cp_options o = gb_cp_defaults();
  gb_change_point cp[8];
  size_t n;
  ck_assert_int_eq(gb_changepoints(x, 12, &o, cp, &n), GB_OK);
  ck_assert_uint_eq(n, 0);
  double y[8] = {1, 1.1, 0.9, 1, 3, 3.1, 2.9, 3};
  o.permutations = 99;
  o.alpha = 0.05;
  gb_change_point a[8], b[8];
  size_t na, nb;
  ck_assert_int_eq(gb_changepoints(y, 8, &o, a, &na), GB_OK);
  ck_assert_int_eq(gb_changepoints(y, 8, &o, b, &nb), GB_OK);
  ck_assert_uint_eq(na, nb);
  ck_assert_uint_eq(na, 1);
  ck_assert_uint_eq(a[0].index, 4);
  ck_assert_double_eq(a[0].p_value, b[0].p_value);
  /* 8 values: C(8,4) = 70 labelings, 2 of them this extreme (either half
   * high): p near 2/70 = 0.029 plus the statistic's ties; at most 0.05 */
  ck_assert(a[0].p_value <= 0.05);
}
END_TEST

START_TEST(test_bad_options) {
  double x[6] = {1, 2, 3, 4, 5, 6};
  gb_cp_options o = gb_cp_defaults();
  gb_change_point cp[8];
  size_t n;
  o.min_segment = 1;
  ck_assert_int_eq(gb_changepoints(x, 6, &o, cp, &n), GB_E_INPUT);
  o = gb_cp_defaults();
  o.alpha = 1.5;
  ck_assert_int_eq(gb_changepoints(x, 6, &o, cp, &n), GB_E_INPUT);
  o = gb_cp_defaults();
  x[2] = NAN;
  ck_assert_int_eq(gb_changepoints(x, 6, &o, cp, &n), GB_E_INPUT);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("changepoint");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_statistic_by_hand);
  tcase_add_test(tc, test_injected_change);
  tcase_add_test(tc, test_two_changes);
  tcase_add_test(tc, test_pure_noise);
  tcase_add_test(tc, test_single_spike);
  tcase_add_test(tc, test_deterministic_and_constant);
  tcase_add_test(tc, test_bad_options);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
