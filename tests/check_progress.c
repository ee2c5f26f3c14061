/* Tests for gb_progress: the time left, its format, the terminal line and
 * the log line, with the clock given. */
#include <string.h>

#include "gb_progress.h"
#include "testutil.h"

START_TEST(test_duration) {
  char b[32];
  gb_progress_fmt_duration(0, b, sizeof b);
  ck_assert_str_eq(b, "0s");
  gb_progress_fmt_duration(59.4, b, sizeof b);
  ck_assert_str_eq(b, "59s");
  gb_progress_fmt_duration(185, b, sizeof b);
  ck_assert_str_eq(b, "3m05s");
  gb_progress_fmt_duration(3720, b, sizeof b);
  ck_assert_str_eq(b, "1h02m");
  gb_progress_fmt_duration(2 * 86400 + 3 * 3600 + 5, b, sizeof b);
  ck_assert_str_eq(b, "2d03h");
  gb_progress_fmt_duration(-1, b, sizeof b);
  ck_assert_str_eq(b, "?");
}
END_TEST

START_TEST(test_eta) {
  gb_progress p;
  gb_progress_start(&p, 100);
  ck_assert(gb_progress_eta(&p, 10) < 0); /* nothing measured yet */
  ck_assert_double_eq(gb_progress_eta(&p, 0), 0);
  /* two cases: 2 s and 4 s -> 3 s each */
  gb_progress_note(&p, 100, false);
  gb_progress_note(&p, 102, true);
  gb_progress_note(&p, 102, false);
  gb_progress_note(&p, 106, true);
  ck_assert_uint_eq(p.measured, 2);
  ck_assert_double_eq_tol(gb_progress_eta(&p, 10), 30, 1e-9);
  /* an end without a start (a skipped case) counts nothing */
  gb_progress_note(&p, 200, true);
  ck_assert_uint_eq(p.measured, 2);
  ck_assert_double_eq_tol(gb_progress_eta(&p, 1), 3, 1e-9);
}
END_TEST

START_TEST(test_format) {
  gb_progress p;
  gb_progress_start(&p, 0);
  char b[512];
  /* before any case ends: no ETA */
  gb_progress_format(&p, 5, false, 0, 0, 40, "membw triad fp64 1 GiB", "4400 GB/s ok", b, sizeof b);
  ck_assert_str_eq(b, "[0/40] membw triad fp64 1 GiB: 4400 GB/s ok (elapsed 5s)\n");
  gb_progress_note(&p, 0, false);
  gb_progress_note(&p, 62, true); /* 62 s a case, 30 left */
  gb_progress_format(&p, 62, false, 0, 10, 40, "gemm bf16 4096x4096x4096", "812.3 TFLOP/s ok", b, sizeof b);
  ck_assert_str_eq(b, "[10/40] gemm bf16 4096x4096x4096: 812.3 TFLOP/s ok (elapsed 1m02s, ETA 31m00s)\n");
  gb_progress_format(&p, 62, true, 0, 10, 40, "gemm bf16 4096x4096x4096", NULL, b, sizeof b);
  ck_assert_str_eq(b, "[#####...............] 10/40 ETA 31m00s  gemm bf16 4096x4096x4096");
  /* a narrow terminal cuts the case's text, not the counts */
  gb_progress_format(&p, 62, true, 40, 10, 40, "gemm bf16 4096x4096x4096", "812.3 TFLOP/s ok", b, sizeof b);
  ck_assert_uint_eq(strlen(b), 39);
  ck_assert_str_eq(b, "[#####...............] 10/40 ETA 31m00s");
}
END_TEST

int main(void) {
  Suite *s = suite_create("progress");
  TCase *tc = tcase_create("progress");
  tcase_add_test(tc, test_duration);
  tcase_add_test(tc, test_eta);
  tcase_add_test(tc, test_format);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
