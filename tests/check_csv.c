/* Tests for gb_csv: parsing through libcsv, line tracking, errors, quoting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_csv.h"
#include "testutil.h"

static gb_err parse(const char *text, gb_csv_table *t) { return gb_csv_read_mem("t.csv", text, strlen(text), t); }

START_TEST(test_simple) {
  gb_csv_table t;
  ck_assert_int_eq(parse("a,b,c\n1,2,3\n4,5,6\n", &t), GB_OK);
  ck_assert_uint_eq(t.ncols, 3);
  ck_assert_uint_eq(t.nrows, 2);
  ck_assert_str_eq(gb_csv_cell(&t, 1, gb_csv_col(&t, "c")), "6");
  ck_assert_int_eq(gb_csv_col(&t, "zz"), -1);
  ck_assert_str_eq(gb_csv_cell(&t, 0, -1), "");
  ck_assert_int_eq(gb_csv_line(&t, 1), 3);
  gb_csv_free(&t);
}
END_TEST

START_TEST(test_quoted_newline_lines) {
  gb_csv_table t;
  ck_assert_int_eq(parse("a,b\n\"x,1\",\"two\nlines\"\n\"q\"\"uote\",z\n", &t), GB_OK);
  ck_assert_uint_eq(t.nrows, 2);
  ck_assert_str_eq(gb_csv_cell(&t, 0, 0), "x,1");
  ck_assert_str_eq(gb_csv_cell(&t, 0, 1), "two\nlines");
  ck_assert_str_eq(gb_csv_cell(&t, 1, 0), "q\"uote");
  ck_assert_int_eq(gb_csv_line(&t, 0), 2);
  ck_assert_int_eq(gb_csv_line(&t, 1), 4); /* the record after a two-line one */
  gb_csv_free(&t);
}
END_TEST

START_TEST(test_crlf_bom_blank) {
  gb_csv_table t;
  ck_assert_int_eq(parse("\xEF\xBB\xBF" "a,b\r\n1,2\r\n\r\n3,4\r\n", &t), GB_OK);
  ck_assert_int_eq(gb_csv_col(&t, "a"), 0);
  ck_assert_uint_eq(t.nrows, 2);
  ck_assert_str_eq(gb_csv_cell(&t, 1, 1), "4");
  ck_assert_int_eq(gb_csv_line(&t, 1), 4);
  gb_csv_free(&t);
}
END_TEST

START_TEST(test_no_final_newline) {
  gb_csv_table t;
  ck_assert_int_eq(parse("a,b\n1,2", &t), GB_OK);
  ck_assert_uint_eq(t.nrows, 1);
  ck_assert_str_eq(gb_csv_cell(&t, 0, 1), "2");
  gb_csv_free(&t);
}
END_TEST

START_TEST(test_header_only) {
  gb_csv_table t;
  ck_assert_int_eq(parse("a,b\n", &t), GB_OK);
  ck_assert_uint_eq(t.nrows, 0);
  gb_csv_free(&t);
}
END_TEST

START_TEST(test_errors) {
  gb_csv_table t;
  ck_assert_int_eq(parse("", &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "empty file"));
  ck_assert_int_eq(parse("a,b\n1,2\n3\n", &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "t.csv:3:"));
  ck_assert_int_eq(parse("a,a\n", &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "duplicate column"));
  ck_assert_int_eq(parse("a,b\n\"unterminated,2\n", &t), GB_E_INPUT);
  ck_assert_int_eq(parse("a,b\n1,\xff\xfe\n", &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "t.csv:2:2: field is not valid UTF-8"));
  ck_assert_int_eq(gb_csv_read_file("/nonexistent/x.csv", &t), GB_E_IO);
  ck_assert_int_eq(gb_csv_read_file("/tmp", &t), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "not a regular file"));
}
END_TEST

START_TEST(test_put_field_roundtrip) {
  const char *fields[] = {"plain", "with,comma", "with \"quote\"", "two\nlines", " padded ", "", "1.5"};
  gb_buf b = {0};
  for (size_t i = 0; i < 7; i++) gb_csv_put_field(&b, fields[i], ',');
  /* the first separator makes an empty leading field: header a0..a7 */
  gb_buf all = {0};
  gb_buf_puts(&all, "a0,a1,a2,a3,a4,a5,a6,a7\n");
  gb_buf_append(&all, b.data, b.len);
  gb_buf_puts(&all, "\n");
  ck_assert_ptr_nonnull(strstr(b.data, ",plain,\"with,comma\","));
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_mem("rt", all.data, all.len, &t), GB_OK);
  for (size_t i = 0; i < 7; i++) ck_assert_str_eq(gb_csv_cell(&t, 0, (int)i + 1), fields[i]);
  gb_csv_free(&t);
  gb_buf_free(&b);
  gb_buf_free(&all);
}
END_TEST

START_TEST(test_big_field_rejected) {
  size_t n = GB_CSV_MAX_FIELD + 10;
  char *s = malloc(n + 16);
  memcpy(s, "a\n", 2);
  memset(s + 2, 'x', n);
  s[n + 2] = '\n';
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_mem("big", s, n + 3, &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "longer than"));
  free(s);
}
END_TEST

START_TEST(test_atomic_write) {
  const char *dir = gb_test_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/out.txt", dir);
  ck_assert_int_eq(gb_write_file_atomic(path, "hello\n", 6), GB_OK);
  size_t len;
  char *back = gb_test_slurp(path, &len);
  ck_assert_str_eq(back, "hello\n");
  free(back);
  ck_assert_int_eq(gb_write_file_atomic("/nonexistent-dir/x", "a", 1), GB_E_IO);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("csv");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_simple);
  tcase_add_test(tc, test_quoted_newline_lines);
  tcase_add_test(tc, test_crlf_bom_blank);
  tcase_add_test(tc, test_no_final_newline);
  tcase_add_test(tc, test_header_only);
  tcase_add_test(tc, test_put_field_roundtrip);
  tcase_add_test(tc, test_atomic_write);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("errors");
  tcase_add_test(te, test_errors);
  tcase_add_test(te, test_big_field_rejected);
  suite_add_tcase(s, te);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
