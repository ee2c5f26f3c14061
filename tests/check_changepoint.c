/* Tests for gb_changepoint: the step-against-ramp test by hand, a change
 * point injected into a synthetic 30-run history, pure noise, a single spike
 * and a slow ramp giving none. */
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

/* x = {0,1,0,3,4,3} split at 3: the two means (1/3, 10/3) leave RSS 4/3; the
 * line through all six (slope 13.5/17.5) leaves 14.8333 - 13.5^2/17.5 =
 * 4.41905. (6/2) ln(4.41905 / 1.33333) = 3.5942 against 2 ln 6 = 3.5835:
 * margin 1.0031, a step. {0,1,0,2,3,2}: RSS 4/3 against 2.70476, margin
 * 0.5922: a ramp. A perfect step beats any line; a perfect line any step. */
START_TEST(test_step_or_ramp_by_hand) {
  double step[] = {0, 1, 0, 3, 4, 3}, ramp[] = {0, 1, 0, 2, 3, 2}, flat[] = {0, 0, 0, 1, 1, 1}, line[] = {0, 1, 2, 3, 4, 5};
  double score;
  ck_assert(gb_cp_step_beats_ramp(step, 0, 3, 6, &score));
  ck_assert_double_eq_tol(score, 1.0031275, 1e-6);
  ck_assert(!gb_cp_step_beats_ramp(ramp, 0, 3, 6, &score));
  ck_assert_double_eq_tol(score, 0.5921541, 1e-6);
  ck_assert(gb_cp_step_beats_ramp(flat, 0, 3, 6, NULL));
  ck_assert(!gb_cp_step_beats_ramp(line, 0, 3, 6, NULL));
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
    /* an 8-sigma step: p (Bonferroni over the 25 splits) far below alpha */
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

/* A long series is analyzed whole: 3000 runs of 1% noise with a 10% step
 * down at run 700 and back up at 2400 gives those two changes with the
 * right means; pure noise of that length gives none. (It was analyzed in
 * windows of 256 runs, each change found once per window that held it.) */
START_TEST(test_long_series) {
  enum { N = 3000 };
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
  ck_assert_double_le(cp[0].p_value, o.alpha);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    g_state = seed;
    for (int i = 0; i < N; i++) x[i] = 100 * (1 + 0.01 * gauss());
    ck_assert_int_eq(gb_changepoints(x, N, &o, cp, &n), GB_OK);
    ck_assert_uint_eq(n, 0);
  }
}
END_TEST

/* A slow ramp is not a staircase: 200 runs drifting 0.1% per run (20% in
 * all) in 0.5% noise give no change point, though binary segmentation cuts
 * the ramp into significant steps (and E-divisive means reported a dozen);
 * the ramp levelling off at run 120 with a 10% drop there gives that one
 * change. */
START_TEST(test_ramp_is_not_a_step) {
  enum { N = 200 };
  double x[N];
  gb_cp_options o = gb_cp_defaults();
  o.min_effect_pct = 2;
  gb_change_point cp[N];
  size_t n = 99;
  for (uint64_t seed = 1; seed <= 5; seed++) {
    g_state = 40 + seed;
    for (int i = 0; i < N; i++) x[i] = 100 * (1 + 0.001 * i) * (1 + 0.005 * gauss());
    ck_assert_int_eq(gb_changepoints(x, N, &o, cp, &n), GB_OK);
    ck_assert_uint_eq(n, 0);
    for (int i = 120; i < N; i++) x[i] = 0.9 * 112 * (1 + 0.005 * gauss());
    ck_assert_int_eq(gb_changepoints(x, N, &o, cp, &n), GB_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(cp[0].index, 120);
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
  o.alpha = 0.05;
  gb_change_point a[8], b[8];
  size_t na, nb;
  ck_assert_int_eq(gb_changepoints(y, 8, &o, a, &na), GB_OK);
  ck_assert_int_eq(gb_changepoints(y, 8, &o, b, &nb), GB_OK);
  ck_assert_uint_eq(na, nb);
  ck_assert_uint_eq(na, 1);
  ck_assert_uint_eq(a[0].index, 4);
  ck_assert_double_eq(a[0].p_value, b[0].p_value);
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
  tcase_add_test(tc, test_step_or_ramp_by_hand);
  tcase_add_test(tc, test_ramp_is_not_a_step);
  tcase_add_test(tc, test_injected_change);
  tcase_add_test(tc, test_two_changes);
  tcase_add_test(tc, test_pure_noise);
  tcase_add_test(tc, test_single_spike);
  tcase_add_test(tc, test_deterministic_and_constant);
  tcase_add_test(tc, test_bad_options);
  tcase_add_test(tc, test_long_series);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
