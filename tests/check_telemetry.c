/* Tests for gb_telemetry's windows, with a reader function standing in for
 * NVML: a case's summary covers the whole case until a timed window is
 * marked, then only the samples taken inside marked windows. */
#include <math.h>
#include <stdatomic.h>
#include <time.h>

#include "gb_nvml.h"
#include "gb_telemetry.h"
#include "testutil.h"

/* 0: between windows (power-capped at 1400 MHz); 1: 1980 MHz, no reason;
 * 2: 1700 MHz, hardware slowdown */
static atomic_int g_phase;

static gb_telemetry_reading fake_read(void *arg) {
  (void)arg;
  switch (atomic_load(&g_phase)) {
  case 1: return (gb_telemetry_reading){1980, 3201, 40, 500, 0};
  case 2: return (gb_telemetry_reading){1700, 3201, 50, 699, GB_NVML_REASON_HW_SLOWDOWN};
  default: return (gb_telemetry_reading){1400, 3201, 60, 690, GB_NVML_REASON_SW_POWER_CAP};
  }
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Sets the phase and waits out a sample the thread may have read before. */
static void phase(int p) {
  atomic_store(&g_phase, p);
  sleep_ms(5);
}

START_TEST(test_whole_case) {
  gb_telemetry *t = NULL;
  ck_assert_int_eq(gb_telemetry_start_reader(fake_read, NULL, 1, &t), GB_OK);
  phase(0);
  gb_telemetry_begin(t);
  sleep_ms(30);
  gb_telemetry_summary s = gb_telemetry_end(t);
  ck_assert_int_ge(s.nsamples, 1);
  ck_assert_double_eq(s.sm_clock_mhz, 1400);
  ck_assert(s.throttled);
  ck_assert_str_eq(s.reasons, "sw_power_cap");
  gb_telemetry_stop(t);
}
END_TEST

START_TEST(test_windows_only) {
  gb_telemetry *t = NULL;
  ck_assert_int_eq(gb_telemetry_start_reader(fake_read, NULL, 1, &t), GB_OK);
  phase(0);
  gb_telemetry_begin(t);
  sleep_ms(40); /* the search before the timed region: capped, forgotten */
  phase(1);
  gb_telemetry_window_begin(t);
  sleep_ms(60);
  gb_telemetry_window_end(t);
  phase(0);
  sleep_ms(60); /* between the windows: not kept */
  phase(2);
  gb_telemetry_window_begin(t);
  gb_telemetry_window_end(t);
  phase(0);
  sleep_ms(40); /* the check after: not kept */
  gb_telemetry_summary s = gb_telemetry_end(t);
  /* the samples of both windows and none from outside them: the reasons seen
   * are the second window's alone (sw_power_cap came only between windows);
   * the first window has at least as many samples as the second (its start
   * and end, plus what the thread took in 60 ms), so the slowdown was on in
   * at most half of them and the median clock is above the second's */
  ck_assert_int_ge(s.nsamples, 4);
  ck_assert_str_eq(s.reasons, "hw_slowdown");
  ck_assert_double_gt(s.sm_clock_mhz, 1700);
  ck_assert_double_le(s.sm_clock_mhz, 1980);
  ck_assert(!s.throttled);

  /* the next case starts unwindowed again: the whole case counts */
  phase(0);
  gb_telemetry_begin(t);
  sleep_ms(20);
  s = gb_telemetry_end(t);
  ck_assert_double_eq(s.sm_clock_mhz, 1400);
  ck_assert(s.throttled);

  /* a window too short for the thread still has its start and end samples */
  phase(2);
  gb_telemetry_begin(t);
  gb_telemetry_window_begin(t);
  gb_telemetry_window_end(t);
  phase(0);
  s = gb_telemetry_end(t);
  ck_assert_int_ge(s.nsamples, 2);
  ck_assert_double_eq(s.sm_clock_mhz, 1700);
  ck_assert(s.throttled);
  gb_telemetry_stop(t);
}
END_TEST

START_TEST(test_throttled_rule) {
  /* reasons in over half the samples and the clock more than 2% under the peak */
  ck_assert(gb_telemetry_is_throttled(10, 6, 1740, 1980));
  ck_assert(!gb_telemetry_is_throttled(10, 5, 1740, 1980)); /* exactly half: no */
  /* 1980 * 0.98 = 1940.4: 1965 and 1941 are within the margin, 1940 is not */
  ck_assert(!gb_telemetry_is_throttled(10, 10, 1965, 1980));
  ck_assert(!gb_telemetry_is_throttled(10, 10, 1941, 1980));
  ck_assert(gb_telemetry_is_throttled(10, 10, 1940, 1980));
  /* peak or clock unknown: the reasons alone decide */
  ck_assert(gb_telemetry_is_throttled(10, 10, 1965, 0));
  ck_assert(gb_telemetry_is_throttled(10, 10, NAN, 1980));
  ck_assert(!gb_telemetry_is_throttled(0, 0, NAN, 1980));
}
END_TEST

START_TEST(test_peak_margin) {
  /* phase 2 reads 1700 MHz with a slowdown reason: throttled under a 1980 peak, not under 1720 */
  gb_telemetry *t = NULL;
  ck_assert_int_eq(gb_telemetry_start_reader(fake_read, NULL, 1, &t), GB_OK);
  phase(2);
  gb_telemetry_set_max_sm(t, 1980);
  gb_telemetry_begin(t);
  sleep_ms(10);
  ck_assert(gb_telemetry_end(t).throttled);
  gb_telemetry_set_max_sm(t, 1720); /* 1700 >= 1720 * 0.98 = 1685.6 */
  gb_telemetry_begin(t);
  sleep_ms(10);
  gb_telemetry_summary s = gb_telemetry_end(t);
  ck_assert(!s.throttled);
  ck_assert_str_eq(s.reasons, "hw_slowdown"); /* still reported in detail */
  phase(0);
  gb_telemetry_stop(t);
}
END_TEST

START_TEST(test_no_device) {
  /* no NVML device: empty summaries, windows do nothing, NULL is safe */
  gb_telemetry *t = NULL;
  ck_assert_int_eq(gb_telemetry_start(NULL, 1, &t), GB_OK);
  gb_telemetry_begin(t);
  gb_telemetry_window_begin(t);
  gb_telemetry_window_end(t);
  gb_telemetry_summary s = gb_telemetry_end(t);
  ck_assert_int_eq(s.nsamples, 0);
  ck_assert(!s.throttled);
  gb_telemetry_stop(t);
  gb_telemetry_window_begin(NULL);
  gb_telemetry_window_end(NULL);
  gb_telemetry_begin(NULL);
  ck_assert_int_eq(gb_telemetry_end(NULL).nsamples, 0);
}
END_TEST

static Suite *telemetry_suite(void) {
  Suite *s = suite_create("telemetry");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_whole_case);
  tcase_add_test(tc, test_windows_only);
  tcase_add_test(tc, test_no_device);
  tcase_add_test(tc, test_throttled_rule);
  tcase_add_test(tc, test_peak_margin);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(telemetry_suite()); }
