/* Tests for gb_telemetry's windows, with a reader function standing in for
 * NVML: a case's summary covers the whole case until a timed window is
 * marked, then only the samples taken inside marked windows. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "gb_nvml.h"
#include "gb_telemetry.h"
#include "testutil.h"

/* 0: between windows (power-capped at 1400 MHz); 1: 1980 MHz, no reason;
 * 2: 1700 MHz, hardware slowdown */
static atomic_int g_phase;

/* The energy counter: 0 none; 1 a 500 W board whose counter steps every
 * 5 ms (2500 mJ a step, from the monotonic clock); 2 the same, but it went
 * back to 0 (a driver reload) after the first read. */
static atomic_int g_counter;
static atomic_int g_reads;

static unsigned long long counter_mj(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  unsigned long long steps = ((unsigned long long)ts.tv_sec * 1000ULL + (unsigned long long)ts.tv_nsec / 1000000ULL) / 5;
  return steps * 2500ULL;
}

static gb_telemetry_reading fake_read(void *arg) {
  (void)arg;
  gb_telemetry_reading r = {.sm_clock_mhz = 1400, .mem_clock_mhz = 3201, .temp_c = 60, .power_w = 690,
                            .reasons = GB_NVML_REASON_SW_POWER_CAP, .power_instant_w = 650};
  switch (atomic_load(&g_phase)) {
  case 1: r.sm_clock_mhz = 1980, r.temp_c = 40, r.power_w = 500, r.reasons = 0; break;
  case 2: r.sm_clock_mhz = 1700, r.temp_c = 50, r.power_w = 699, r.reasons = GB_NVML_REASON_HW_SLOWDOWN; break;
  default: break;
  }
  int c = atomic_load(&g_counter);
  int n = atomic_fetch_add(&g_reads, 1);
  r.has_energy = c != 0;
  r.energy_mj = c == 0 ? 0 : c == 2 && n > 0 ? 0 : counter_mj();
  return r;
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

/* The energy over timed windows: a window spanning enough counter steps
 * gets the counter's energy and its wall time; one too short for the
 * counter, one without a counter, and one where the counter went back get
 * none, with the reason. */
START_TEST(test_energy_window) {
  gb_telemetry *t = NULL;
  atomic_store(&g_counter, 1);
  ck_assert_int_eq(gb_telemetry_start_reader(fake_read, NULL, 1, &t), GB_OK);
  phase(1);
  gb_telemetry_begin(t);
  gb_telemetry_window_begin(t);
  sleep_ms(250); /* ~50 steps of 5 ms */
  gb_telemetry_window_end(t);
  gb_telemetry_summary s = gb_telemetry_end(t);
  ck_assert_str_eq(s.energy_note, "");
  ck_assert_double_ge(s.energy_s, 0.25);
  ck_assert_double_lt(s.energy_s, 0.5);
  /* 500 W, off by at most a step (2.5 J) at either end */
  ck_assert_double_lt(fabs(s.energy_j / s.energy_s - 500) / 500, 0.05);
  ck_assert_double_eq(s.power_instant_w, 650);
  ck_assert_double_eq(s.power_w, 500); /* the 1-s average stays telemetry, not the energy */

  /* a burst: the window spans a step or two of the counter, no figure */
  gb_telemetry_begin(t);
  gb_telemetry_window_begin(t);
  sleep_ms(4);
  gb_telemetry_window_end(t);
  s = gb_telemetry_end(t);
  ck_assert(isnan(s.energy_j) && isnan(s.energy_s));
  ck_assert_ptr_nonnull(strstr(s.energy_note, "too short for the counter"));
  ck_assert_ptr_nonnull(strstr(s.energy_note, "under 10 per window"));

  /* no window marked: no figure and no reason (nothing was timed) */
  gb_telemetry_begin(t);
  sleep_ms(5);
  s = gb_telemetry_end(t);
  ck_assert(isnan(s.energy_j));
  ck_assert_str_eq(s.energy_note, "");
  gb_telemetry_stop(t);

  /* no counter */
  atomic_store(&g_counter, 0);
  ck_assert_int_eq(gb_telemetry_start_reader(fake_read, NULL, 1, &t), GB_OK);
  gb_telemetry_begin(t);
  gb_telemetry_window_begin(t);
  sleep_ms(100);
  gb_telemetry_window_end(t);
  s = gb_telemetry_end(t);
  ck_assert(isnan(s.energy_j));
  ck_assert_ptr_nonnull(strstr(s.energy_note, "no energy counter"));
  gb_telemetry_stop(t);

  /* the counter went back to 0 after the window's first read */
  atomic_store(&g_counter, 2);
  atomic_store(&g_reads, 0);
  ck_assert_int_eq(gb_telemetry_start_reader(fake_read, NULL, 1000, &t), GB_OK);
  sleep_ms(5); /* the thread's first read */
  atomic_store(&g_reads, 0);
  gb_telemetry_begin(t);
  gb_telemetry_window_begin(t);
  gb_telemetry_window_end(t);
  s = gb_telemetry_end(t);
  ck_assert(isnan(s.energy_j));
  ck_assert_ptr_nonnull(strstr(s.energy_note, "went back"));
  gb_telemetry_stop(t);
  atomic_store(&g_counter, 0);
  phase(0);
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
  tcase_add_test(tc, test_energy_window);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(telemetry_suite()); }
