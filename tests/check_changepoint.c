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

/* A series longer than GB_CP_WINDOW is analyzed in overlapping windows:
 * 3000 runs of 1% noise with a 10% step down at run 700 and back up at
 * 2400 gives those two changes, each once although two windows see it,
 * with the right means; pure noise of that length gives none. Before, the
 * whole series was one segment: (n+1)^2 doubles of work space (72 MB here)
 * and time growing with n^2 per split (a 4663-run history took 181 s). */
START_TEST(test_long_series_windows) {
  enum { N = 3000 };
  ck_assert_uint_eq(gb_cp_windows(GB_CP_WINDOW), 1);
  ck_assert_uint_eq(gb_cp_windows(GB_CP_WINDOW + 1), 2);
  ck_assert_uint_eq(gb_cp_windows(N), (N - GB_CP_WINDOW + GB_CP_WINDOW / 2 - 1) / (GB_CP_WINDOW / 2) + 1);
  ck_assert_double_eq_tol(gb_cp_window_alpha(0.001, N), 0.001 / (double)gb_cp_windows(N), 1e-15);
  static double x[N];
  g_state = 7;
  for (int i = 0; i < N; i++) x[i] = (i >= 700 && i < 2400 ? 90 : 100) * (1 + 0.01 * gauss());
  gb_cp_options o = gb_cp_defaults();
  static gb_change_point cp[N];
  size_t n = 0;
  ck_assert_int_eq(gb_changepoints(x, N, &o, cp, &n), GB_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(cp[0].index, 700);
  ck_assert_uint_eq(cp[1].index, 2400);
  ck_assert_double_eq_tol(cp[0].mean_before, 100, 0.2);
  ck_assert_double_eq_tol(cp[0].mean_after, 90, 0.2);
  ck_assert_double_eq_tol(cp[1].mean_after, 100, 0.2);
  ck_assert_double_le(cp[0].p_value, gb_cp_window_alpha(o.alpha, N));
  for (uint64_t seed = 1; seed <= 3; seed++) {
    g_state = seed;
    for (int i = 0; i < N; i++) x[i] = 100 * (1 + 0.01 * gauss());
    ck_assert_int_eq(gb_changepoints(x, N, &o, cp, &n), GB_OK);
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
  tcase_add_test(tc, test_long_series_windows);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
