/* Tests for gb_num: strict parsing and C-locale formatting. */
#include <locale.h>
#include <math.h>
#include <string.h>

#include "gb_num.h"
#include "testutil.h"

START_TEST(test_parse_double) {
  double v;
  ck_assert(gb_parse_double("1.5", &v));
  ck_assert_double_eq(v, 1.5);
  ck_assert(gb_parse_double(" -2e3 ", &v));
  ck_assert_double_eq(v, -2000.0);
  ck_assert(!gb_parse_double("", &v));
  ck_assert(!gb_parse_double("1,20", &v));
  ck_assert(!gb_parse_double("nan", &v));
  ck_assert(!gb_parse_double("inf", &v));
  ck_assert(!gb_parse_double("1e999", &v));
  ck_assert(!gb_parse_double("0x10", &v));
  ck_assert(gb_parse_double_any("nan", &v) && isnan(v));
}
END_TEST

START_TEST(test_parse_int_size) {
  int64_t v;
  ck_assert(gb_parse_i64("42", &v) && v == 42);
  ck_assert(!gb_parse_i64("4.2", &v));
  ck_assert(!gb_parse_i64("99999999999999999999", &v));
  ck_assert(gb_parse_size("64K", &v) && v == 65536);
  ck_assert(gb_parse_size("1GiB", &v) && v == 1073741824LL);
  ck_assert(gb_parse_size("8", &v) && v == 8);
  ck_assert(!gb_parse_size("-1", &v));
  ck_assert(!gb_parse_size("1X", &v));
}
END_TEST

START_TEST(test_format_roundtrip_and_locale) {
  char buf[64];
  gb_fmt_double(buf, sizeof buf, 0.1);
  ck_assert_str_eq(buf, "0.1");
  gb_fmt_double(buf, sizeof buf, 1.0 / 3.0);
  double back;
  ck_assert(gb_parse_double(buf, &back) && back == 1.0 / 3.0);
  gb_fmt_double(buf, sizeof buf, NAN);
  ck_assert_str_eq(buf, "");
  /* a comma-decimal locale must not leak into the output */
  if (setlocale(LC_ALL, "de_DE.UTF-8") || setlocale(LC_ALL, "fr_FR.UTF-8")) {
    gb_fmt_double(buf, sizeof buf, 2.5);
    ck_assert_str_eq(buf, "2.5");
    ck_assert(gb_parse_double("2.5", &back) && back == 2.5);
    setlocale(LC_ALL, "C");
  }
  gb_fmt_size(buf, sizeof buf, 1 << 20);
  ck_assert_str_eq(buf, "1 MiB");
  gb_fmt_size(buf, sizeof buf, 12);
  ck_assert_str_eq(buf, "12 B");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("num");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_parse_double);
  tcase_add_test(tc, test_parse_int_size);
  tcase_add_test(tc, test_format_roundtrip_and_locale);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
