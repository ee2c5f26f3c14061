/* Tests for gb_results: round trips, validation errors, the crash-safe writer. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_results.h"
#include "testutil.h"

static gb_row sample_row(void) {
  gb_row r = gb_row_empty();
  r.run_id = "20261202T000000Z-h-abcdef";
  r.timestamp = "2026-12-02T00:00:00Z";
  r.host = "h";
  r.gpu_type = "H200-SXM-141GB";
  r.gpu_name = "NVIDIA H200";
  r.driver = "580.159.04";
  r.cuda = "13.0";
  r.benchmark = "membw";
  r.case_name = "triad";
  r.dtype = "fp64";
  r.bytes = 1073741824;
  r.metric = "gbps";
  r.unit = "GB/s";
  r.value = 4400.25;
  r.samples = 100;
  r.min = 4300;
  r.max = 4410.5;
  r.stddev = 3.25;
  r.detail = "variant vec16, \"quoted\", comma";
  r.sm_clock_mhz = 1980;
  return r;
}

START_TEST(test_roundtrip) {
  gb_buf b = {0};
  gb_results_put_header(&b);
  gb_row r = sample_row();
  gb_results_put_row(&b, &r);
  r.case_name = "dot";
  r.detail = "two\nlines";
  r.rep = 3;
  r.status = GB_STATUS_INVALID;
  gb_results_put_row(&b, &r);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_mem("rt.csv", b.data, b.len, &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 2);
  ck_assert_str_eq(res.rows[0].detail, "variant vec16, \"quoted\", comma");
  ck_assert_double_eq(res.rows[0].value, 4400.25);
  ck_assert_int_eq(res.rows[0].bytes, 1073741824);
  ck_assert_int_eq(res.rows[0].m, GB_NA);
  ck_assert(isnan(res.rows[0].power_w));
  ck_assert_int_eq(res.rows[0].rep, -1);
  ck_assert_int_eq(res.rows[1].rep, 3);
  ck_assert_int_eq(res.rows[1].status, GB_STATUS_INVALID);
  ck_assert_str_eq(res.rows[1].detail, "two\nlines");
  ck_assert_int_eq(res.rows[1].line, 3);
  char key[256];
  gb_row_case_key(&res.rows[0], true, key, sizeof key);
  ck_assert_str_eq(key, "membw|triad|fp64||||1073741824|1|-1|gbps");
  gb_results_free(&res);
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_fixture_good) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("results_good.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 3);
  ck_assert_str_eq(res.rows[2].status == GB_STATUS_ERROR ? "error" : "?", "error");
  gb_results_free(&res);
}
END_TEST

/* Each bad fixture and the text its error must hold. */
static const struct {
  const char *file, *expect;
} k_bad[] = {
    {"results_empty.csv", "empty file"},
    {"results_missing_column.csv", ":1: missing required column \"metric\""},
    {"results_not_number.csv", ":3:19: value: not a finite number: \"fast\""},
    {"results_bad_status.csv", ":2:24: status: not one of"},
    {"results_crlf_bom_nan.csv", ":3:19: value: not a finite number: \"nan\""},
    {"results_negative.csv", ":2:13: m: not a non-negative integer: \"-5\""},
};

START_TEST(test_fixture_bad) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture(k_bad[_i].file), &res), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad[_i].expect) != NULL, "%s: got \"%s\"", k_bad[_i].file, gb_errmsg());
  ck_assert_uint_eq(res.nrows, 0);
  gb_results_free(&res);
}
END_TEST

START_TEST(test_writer_appends_and_cuts_torn_line) {
  const char *dir = gb_test_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/r.csv", dir);
  gb_results_writer w;
  ck_assert_int_eq(gb_writer_open(&w, path), GB_OK);
  gb_row r = sample_row();
  gb_writer_add(&w, &r);
  ck_assert_int_eq(gb_writer_commit(&w), GB_OK);
  r.case_name = "copy";
  gb_writer_add(&w, &r); /* queued, never committed: the case in flight */
  gb_writer_close(&w);

  /* simulate a kill in the middle of a row */
  int fd = open(path, O_WRONLY | O_APPEND);
  ck_assert(write(fd, "1,run,2026", 10) == 10);
  close(fd);

  ck_assert_int_eq(gb_writer_open(&w, path), GB_OK);
  r.case_name = "add";
  gb_writer_add(&w, &r);
  ck_assert_int_eq(gb_writer_commit(&w), GB_OK);
  gb_writer_close(&w);

  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(path, &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 2);
  ck_assert_str_eq(res.rows[0].case_name, "triad");
  ck_assert_str_eq(res.rows[1].case_name, "add");
  gb_results_free(&res);
}
END_TEST

START_TEST(test_writer_refuses_bad_paths) {
  gb_results_writer w;
  ck_assert_int_eq(gb_writer_open(&w, "/nonexistent-dir/r.csv"), GB_E_IO);
  ck_assert_int_eq(gb_writer_open(&w, "/tmp"), GB_E_IO);
  ck_assert_int_eq(gb_writer_open(&w, gb_fixture("results_not_number.csv")), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "not a valid results file"));
  /* /dev/full: writing fails with a clear error */
  if (access("/dev/full", W_OK) == 0) {
    ck_assert_int_ne(gb_writer_open(&w, "/dev/full"), GB_OK);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("results");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_roundtrip);
  tcase_add_test(tc, test_fixture_good);
  tcase_add_test(tc, test_writer_appends_and_cuts_torn_line);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("errors");
  tcase_add_loop_test(te, test_fixture_bad, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
  tcase_add_test(te, test_writer_refuses_bad_paths);
  suite_add_tcase(s, te);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
