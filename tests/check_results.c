/* Tests for gb_results: round trips, validation errors, the crash-safe writer. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gb_energy.h"
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
  r.cublaslt = "13.1.0";
  r.nvrtc = "13.0";
  r.nccl = "2.28.3";
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
  r.settings = "iters=30,gemm.timing=pairs";
  r.l2_bytes = 62914560;
  r.regime = "hbm";
  r.headline = 1;
  r.energy_j = 1234.5;
  r.energy_s = 2.5;
  r.power_instant_w = 493.75;
  gb_results_put_row(&b, &r);
  r.energy_j = r.energy_s = NAN;
  r.energy_note = "window 0.041 s spans 2 energy-counter updates, under 10 per window: too short for the counter";
  gb_results_put_row(&b, &r);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_mem("rt.csv", b.data, b.len, &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 3);
  /* the energy columns (issue 57): a window's energy and time, or why none */
  ck_assert(isnan(res.rows[0].energy_j) && isnan(res.rows[0].energy_s) && isnan(res.rows[0].power_instant_w));
  ck_assert_str_eq(res.rows[0].energy_note, "");
  ck_assert(isnan(gb_row_energy_power_w(&res.rows[0])));
  ck_assert_double_eq(res.rows[1].energy_j, 1234.5);
  ck_assert_double_eq(res.rows[1].energy_s, 2.5);
  ck_assert_double_eq(res.rows[1].power_instant_w, 493.75);
  ck_assert_double_eq(gb_row_energy_power_w(&res.rows[1]), 493.8);
  ck_assert(isnan(res.rows[2].energy_j));
  ck_assert_str_eq(res.rows[2].energy_note,
                   "window 0.041 s spans 2 energy-counter updates, under 10 per window: too short for the counter");
  ck_assert_str_eq(res.rows[0].detail, "variant vec16, \"quoted\", comma");
  ck_assert_double_eq(res.rows[0].value, 4400.25);
  ck_assert_int_eq(res.rows[0].bytes, 1073741824);
  ck_assert_int_eq(res.rows[0].m, GB_NA);
  ck_assert(isnan(res.rows[0].power_w));
  ck_assert_int_eq(res.rows[0].rep, -1);
  ck_assert_int_eq(res.rows[1].rep, 3);
  /* typed columns: the writer's header has them, so empty ones read as "no" */
  ck_assert_int_eq(res.rows[0].l2_bytes, GB_NA);
  ck_assert_str_eq(res.rows[0].regime, "");
  ck_assert_int_eq(res.rows[0].headline, 0);
  ck_assert_int_eq(res.rows[1].l2_bytes, 62914560);
  ck_assert_str_eq(res.rows[1].regime, "hbm");
  ck_assert_int_eq(res.rows[1].headline, 1);
  ck_assert_int_eq(res.rows[1].status, GB_STATUS_INVALID);
  ck_assert_str_eq(res.rows[1].detail, "two\nlines");
  ck_assert_int_eq(res.rows[1].line, 3);
  ck_assert_str_eq(res.rows[0].cublaslt, "13.1.0");
  ck_assert_str_eq(res.rows[0].nvrtc, "13.0");
  ck_assert_str_eq(res.rows[0].nccl, "2.28.3");
  char key[256];
  gb_row_case_key(&res.rows[0], true, key, sizeof key);
  ck_assert_str_eq(key, "membw|triad|fp64||||1073741824|1|-1||gbps");
  /* the settings are part of the identity: the same case measured otherwise is another key */
  ck_assert_str_eq(res.rows[0].settings, "");
  ck_assert_str_eq(res.rows[1].settings, "iters=30,gemm.timing=pairs");
  gb_row_case_key(&res.rows[1], false, key, sizeof key);
  ck_assert_str_eq(key, "membw|dot|fp64||||1073741824|1|3|iters=30,gemm.timing=pairs");
  gb_results_free(&res);
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_fixture_good) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("results_good.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 3);
  ck_assert_str_eq(res.rows[2].status == GB_STATUS_ERROR ? "error" : "?", "error");
  /* an old file without the typed columns: they read as not recorded, and
   * without the energy columns (issue 57): no energy, no reason, its 1-s
   * average power_w read as before */
  ck_assert_double_eq(res.rows[0].power_w, 650);
  for (size_t i = 0; i < res.nrows; i++) {
    ck_assert(isnan(res.rows[i].energy_j) && isnan(res.rows[i].energy_s) && isnan(res.rows[i].power_instant_w));
    ck_assert_str_eq(res.rows[i].energy_note, "");
    ck_assert(isnan(gb_row_energy_power_w(&res.rows[i])));
    ck_assert_int_eq(res.rows[i].l2_bytes, GB_NA);
    ck_assert_str_eq(res.rows[i].regime, "");
    ck_assert_int_eq(res.rows[i].headline, -1);
  }
  gb_results_free(&res);
}
END_TEST

/* The typed columns read as data; the detail is not looked at (the second
 * row's "headline" word there marks nothing). */
START_TEST(test_fixture_typed_columns) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("results_typed_columns.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 3);
  ck_assert_int_eq(res.rows[0].l2_bytes, 62914560);
  ck_assert_str_eq(res.rows[0].regime, "hbm");
  ck_assert_int_eq(res.rows[0].headline, 1);
  ck_assert_str_eq(res.rows[1].regime, "l2");
  ck_assert_int_eq(res.rows[1].headline, 0);
  ck_assert_str_eq(res.rows[2].regime, "hbm-cold");
  ck_assert_int_eq(res.rows[2].headline, 0);
  gb_results_free(&res);
}
END_TEST

/* status unsupported (a case the device cannot run: the block-scaled GEMMs
 * on an H100), added after the first four: the rows as bench/gemm writes
 * them on an H100 (/tmp/res/skip.csv, docs/results-schema.md) read with
 * their status and no value, and write back as they were; the lean reader
 * keeps their detail (only ok rows lose it). */
START_TEST(test_status_unsupported) {
  gb_status st;
  ck_assert(gb_status_parse("unsupported", &st));
  ck_assert_int_eq(st, GB_STATUS_UNSUPPORTED);
  ck_assert_str_eq(gb_status_name(GB_STATUS_UNSUPPORTED), "unsupported");
  ck_assert_str_eq(gb_status_name((gb_status)GB_STATUS_COUNT), "?");
  gb_results res = {0};
  ck_assert_msg(gb_results_read(gb_fixture("h100_unsupported_cur.csv"), &res) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(res.nrows, 416);
  const gb_row *u = &res.rows[415];
  ck_assert_int_eq(u->status, GB_STATUS_UNSUPPORTED);
  ck_assert_str_eq(u->case_name, "nvfp4");
  ck_assert_str_eq(u->dtype, "fp4e2m1");
  ck_assert(isnan(u->value));
  ck_assert_int_eq(u->headline, 1);
  ck_assert_int_eq(res.rows[414].status, GB_STATUS_UNSUPPORTED);
  ck_assert_int_eq(res.rows[413].status, GB_STATUS_OK);
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  ck_assert_int_eq(gb_results_put_row(&b, u), GB_OK);
  ck_assert_ptr_nonnull(strstr(b.data, ",TFLOP/s,,,,,,unsupported,not supported: nvfp4: needs sm_100+ "));
  gb_buf_free(&b);
  gb_results_free(&res);
  ck_assert_int_eq(gb_results_read_lean(gb_fixture("h100_unsupported_cur.csv"), &res), GB_OK);
  ck_assert_int_eq(res.rows[415].status, GB_STATUS_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(res.rows[415].detail, "needs sm_100+"));
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
    {"results_bad_headline.csv", ":2:40: headline: not 1, 0 or empty: \"yes\""},
    /* a case the device cannot run measured nothing */
    {"results_unsupported_value.csv", ":2:19: value: a row with status unsupported has no measurement: value must be empty"},
};

START_TEST(test_fixture_bad) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture(k_bad[_i].file), &res), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad[_i].expect) != NULL, "%s: got \"%s\"", k_bad[_i].file, gb_errmsg());
  ck_assert_uint_eq(res.nrows, 0);
  gb_results_free(&res);
}
END_TEST

/* A file begun by an older writer (no git_sha nor library columns; an
 * extra column this writer does not know) is appended to in its own
 * columns: it stays a valid CSV, the old rows keep their values, the new
 * rows fill the columns the file has, the unknown one stays empty, and the
 * columns the file lacks are named in w.missing. A file with the writer's
 * own header needs no map. */
START_TEST(test_writer_appends_in_existing_columns) {
  const char *dir = gb_test_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/old.csv", dir);
  const char *old_file =
      "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,"
      "metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,site\n"
      "1,old-run,2026-11-01T00:00:00Z,h,H200-SXM-141GB,NVIDIA H200,1,570.1,12.8,membw,copy,fp64,,,,1024,gbps,"
      "GB/s,4000,10,3990,4010,5,ok,old,1900,,,,lab-3\n";
  ck_assert_int_eq(gb_test_write(path, old_file, strlen(old_file)), 0);
  gb_results_writer w;
  ck_assert_msg(gb_writer_open(&w, path) == GB_OK, "%s", gb_errmsg());
  ck_assert_ptr_nonnull(w.cols);
  ck_assert_uint_eq(w.ncols, 30);
  ck_assert_str_eq(w.missing, "rep variant peak git_sha cublaslt nvrtc nccl settings l2_bytes regime headline profile gpu_uuid groups campaign "
                   "energy_j energy_s energy_note power_instant_w");
  ck_assert(!gb_writer_records(&w, "rep"));
  ck_assert(gb_writer_records(&w, "value"));
  ck_assert(!gb_writer_records(&w, "site")); /* the file's, not the writer's */
  gb_row r = sample_row();
  r.git_sha = "0123456789ab";
  gb_writer_add(&w, &r);
  ck_assert_int_eq(gb_writer_commit(&w), GB_OK);
  gb_writer_close(&w);

  gb_results res = {0};
  ck_assert_msg(gb_results_read(path, &res) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(res.nrows, 2);
  ck_assert_str_eq(res.rows[0].run_id, "old-run");
  ck_assert_double_eq(res.rows[0].value, 4000);
  ck_assert_str_eq(res.rows[1].case_name, "triad");
  ck_assert_double_eq(res.rows[1].value, 4400.25);
  ck_assert_str_eq(res.rows[1].detail, "variant vec16, \"quoted\", comma");
  ck_assert_double_eq(res.rows[1].sm_clock_mhz, 1980);
  ck_assert_str_eq(res.rows[1].git_sha, ""); /* the file has no such column */
  ck_assert_str_eq(res.rows[1].cublaslt, "");
  gb_results_free(&res);
  size_t len;
  char *text = gb_test_slurp(path, &len);
  ck_assert_ptr_nonnull(text);
  /* the new row ends with the empty unknown column */
  ck_assert_msg(strstr(text, ",1980,,,,\n") != NULL, "%s", text);
  free(text);

  /* the writer's own header: no map, nothing missing */
  snprintf(path, sizeof path, "%s/new.csv", dir);
  ck_assert_int_eq(gb_writer_open(&w, path), GB_OK);
  gb_writer_add(&w, &r);
  ck_assert_int_eq(gb_writer_commit(&w), GB_OK);
  gb_writer_close(&w);
  ck_assert_int_eq(gb_writer_open(&w, path), GB_OK);
  ck_assert_ptr_null(w.cols);
  ck_assert_str_eq(w.missing, "");
  ck_assert(gb_writer_records(&w, "rep") && gb_writer_records(&w, "nccl"));
  gb_writer_close(&w);
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

/* ---- the commit marker and torn commits ---- */

static long long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void append_bytes(const char *path, const char *data, size_t n) {
  int fd = open(path, O_WRONLY | O_APPEND);
  ck_assert_int_ge(fd, 0);
  ck_assert(write(fd, data, n) == (ssize_t)n);
  close(fd);
}

/* A child writes case "A" (two rows), commits, and ends without closing:
 * a kill after its last commit. Returns the file size then. */
static long long killed_after_commit_a(const char *path) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    gb_results_writer w;
    if (gb_writer_open(&w, path) != GB_OK) _exit(1);
    gb_row r = sample_row();
    r.case_name = "A";
    gb_writer_add(&w, &r);
    r.metric = "time_us";
    gb_writer_add(&w, &r);
    _exit(gb_writer_commit(&w) == GB_OK ? 0 : 2);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return file_size(path);
}

/* Case "B": two rows whose details hold a newline, as the writer puts them. */
static void case_b(gb_buf *b) {
  gb_row r = sample_row();
  r.case_name = "B";
  r.detail = "first line\nsecond line";
  ck_assert_int_eq(gb_results_put_row(b, &r), GB_OK);
  r.metric = "time_us";
  ck_assert_int_eq(gb_results_put_row(b, &r), GB_OK);
}

/* The marker the writer keeps (gb_results.c): committed length, commit in
 * flight, FNV-1a of the 256 bytes before the committed length. */
static void put_marker(const char *path, long long committed, long long in_flight) {
  char *data = gb_test_slurp(path, NULL);
  ck_assert_ptr_nonnull(data);
  uint64_t h = 14695981039346656037ULL;
  long long from = committed > 256 ? committed - 256 : 0;
  for (long long i = from; i < committed; i++) h = (h ^ (unsigned char)data[i]) * 1099511628211ULL;
  free(data);
  char marker[4300], line[200];
  snprintf(marker, sizeof marker, "%s.committed", path);
  int n = snprintf(line, sizeof line, "gpubench commit marker 1: committed %020lld in_flight %020lld tail %016llx\n",
                   committed, in_flight, (unsigned long long)h);
  ck_assert_int_eq(gb_test_write(marker, line, (size_t)n), 0);
}

static void expect_cases(const char *path, const char *want) {
  gb_results res = {0};
  ck_assert_msg(gb_results_read(path, &res) == GB_OK, "%s", gb_errmsg());
  char got[256] = "";
  for (size_t i = 0; i < res.nrows; i++) strncat(got, res.rows[i].case_name, sizeof got - strlen(got) - 1);
  ck_assert_str_eq(got, want);
  gb_results_free(&res);
}

/* A kill inside the write() of case B left its first row and half of the
 * second, cut inside the quoted detail: with the marker, the next open goes
 * back to the last commit (A), so a resume runs B again in full. */
START_TEST(test_marker_cuts_unfinished_commit) {
  char path[4200];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  long long committed = killed_after_commit_a(path);
  gb_buf b = {0};
  case_b(&b);
  put_marker(path, committed, (long long)b.len); /* what the writer records before the write */
  const char *cut = strstr(strstr(b.data, "first line") + 1, "first line") + 5; /* inside row 2's detail */
  append_bytes(path, b.data, (size_t)(cut - b.data));
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(path, &res), GB_E_INPUT); /* torn: a reader says so */
  gb_results_writer w;
  ck_assert_msg(gb_writer_open(&w, path) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(file_size(path), committed);
  gb_row r = sample_row();
  r.case_name = "C";
  gb_writer_add(&w, &r);
  ck_assert_int_eq(gb_writer_commit(&w), GB_OK);
  ck_assert_int_eq(gb_writer_close(&w), GB_OK);
  expect_cases(path, "AAC");
  char marker[4300];
  snprintf(marker, sizeof marker, "%s.committed", path);
  ck_assert_int_ne(access(marker, F_OK), 0); /* a clean close removes it */
  gb_buf_free(&b);
}
END_TEST

/* Without a marker (a file from before markers, or the marker deleted):
 * a last line without its line end is cut; a record cut inside a quoted
 * field after its newline cannot be told from a stray quote that swallows
 * every later row, so the file is left alone and the open names the line. */
START_TEST(test_no_marker_cuts_only_a_last_line) {
  char path[4200], marker[4300];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  long long committed = killed_after_commit_a(path);
  snprintf(marker, sizeof marker, "%s.committed", path);
  ck_assert_int_eq(unlink(marker), 0);
  gb_buf b = {0};
  case_b(&b);
  /* cut inside row 2 before its detail: one line, no line end: cut */
  const char *row2 = strchr(b.data, '\n') + 1;
  size_t keep_b = (size_t)(strstr(row2, "first line") - b.data) - 3;
  append_bytes(path, b.data, keep_b);
  gb_results_writer w;
  ck_assert_msg(gb_writer_open(&w, path) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_writer_close(&w), GB_OK);
  expect_cases(path, "AAB"); /* row 1 of B was whole; without a marker it stays */
  /* cut inside row 2's quoted detail after its newline: left, and named */
  ck_assert_int_eq(truncate(path, committed), 0);
  const char *cut = strstr(strstr(b.data, "first line") + 1, "first line") + 15;
  append_bytes(path, b.data, (size_t)(cut - b.data));
  long long size = file_size(path);
  ck_assert_int_eq(gb_writer_open(&w, path), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "is not a valid results file, so it was not appended to"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "unterminated quote?"));
  ck_assert_int_eq(file_size(path), size);
  gb_buf_free(&b);
}
END_TEST

/* A stale marker never cuts what it cannot explain: rows appended by hand
 * after a kill (more bytes than the commit in flight), or a file replaced
 * by another whose bytes before the committed length differ. */
START_TEST(test_stale_marker_ignored) {
  char path[4200];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  killed_after_commit_a(path);
  gb_buf b = {0};
  case_b(&b);
  append_bytes(path, b.data, b.len); /* whole rows, but the marker says nothing was in flight */
  gb_results_writer w;
  ck_assert_msg(gb_writer_open(&w, path) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_writer_close(&w), GB_OK);
  expect_cases(path, "AABB");

  /* replaced: a marker that would allow cutting (a long commit in flight),
   * but the bytes before its committed length are another file's */
  char path2[4300];
  snprintf(path2, sizeof path2, "%s2", path);
  long long committed2 = killed_after_commit_a(path2);
  put_marker(path2, committed2, 1 << 20);
  gb_buf other = {0};
  gb_results_put_header(&other);
  gb_row r = sample_row();
  r.case_name = "Z";
  r.detail = "another file, with a longer detail than the rows of case A had, so that it is longer";
  gb_results_put_row(&other, &r);
  gb_results_put_row(&other, &r);
  ck_assert_int_gt((long long)other.len, committed2);
  ck_assert_int_eq(gb_test_write(path2, other.data, other.len), 0);
  ck_assert_int_eq(gb_writer_open(&w, path2), GB_OK);
  ck_assert_int_eq(gb_writer_close(&w), GB_OK);
  ck_assert_int_eq(file_size(path2), (long long)other.len);
  expect_cases(path2, "ZZ");
  gb_buf_free(&b);
  gb_buf_free(&other);
}
END_TEST

/* In a child process: opens path, commits one row of case `first`, then
 * (after a byte on ready_fd and one from go_fd, when they are >= 0) fills
 * the disk (RLIMIT_FSIZE: the write stops short with EFBIG as it would
 * with ENOSPC) in the middle of 20 rows of case `second`. Returns the
 * child's pid; it exits 0 when that commit failed with the reason. */
static pid_t child_commit_then_fill(const char *path, const char *first, const char *second, int ready_fd,
                                    int go_fd) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid > 0) return pid;
  signal(SIGXFSZ, SIG_IGN);
  gb_results_writer w;
  if (gb_writer_open(&w, path) != GB_OK) _exit(1);
  gb_row r = sample_row();
  r.case_name = first;
  gb_writer_add(&w, &r);
  if (gb_writer_commit(&w) != GB_OK) _exit(2);
  char c = 'r';
  if (ready_fd >= 0 && (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)) _exit(3);
  struct rlimit rl = {(rlim_t)file_size(path) + 100, RLIM_INFINITY};
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(4);
  r.case_name = second;
  for (int i = 0; i < 20; i++) gb_writer_add(&w, &r);
  gb_err e = gb_writer_commit(&w);
  int ok = e == GB_E_IO && strstr(gb_errmsg(), "write failed: File too large") != NULL;
  gb_writer_close(&w);
  _exit(ok ? 0 : 5);
}

static void expect_child_ok(pid_t pid) {
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

/* A full disk in the middle of a commit: the commit fails with the reason
 * and the partial rows are taken back out, so the file ends at the last
 * commit and reads. */
START_TEST(test_full_disk_mid_commit) {
  char path[4200];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  expect_child_ok(child_commit_then_fill(path, "A", "B", -1, -1));
  expect_cases(path, "A");
}
END_TEST

/* Two writers on one results file. Before the lock, a second writer opened
 * the file while a run wrote it, and the first one's disk-full rollback
 * then cut the second one's committed rows (and both could write a
 * header). Now the second is refused, naming the holder's pid, before it
 * cuts or writes anything; a failed commit removes only the failing
 * writer's own rows. */
START_TEST(test_two_writers) {
  char path[4200];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  int ready[2], go[2];
  ck_assert_int_eq(pipe(ready), 0);
  ck_assert_int_eq(pipe(go), 0);
  pid_t a = child_commit_then_fill(path, "A", "A2", ready[1], go[0]);
  char c;
  ck_assert_int_eq(read(ready[0], &c, 1), 1);
  /* B, while A holds the file: refused with the file and A's pid */
  gb_results_writer b;
  gb_err e = gb_writer_open(&b, path);
  if (e == GB_OK) { /* the old behaviour: B commits a case, which A's rollback then cut */
    gb_row r = sample_row();
    r.case_name = "B";
    gb_writer_add(&b, &r);
    gb_writer_commit(&b);
    gb_writer_close(&b);
  }
  ck_assert_int_eq(write(go[1], "g", 1), 1);
  expect_child_ok(a);
  ck_assert_int_eq(e, GB_E_IO);
  char want[64];
  snprintf(want, sizeof want, "another gpubench (pid %ld) is writing", (long)a);
  ck_assert_msg(strstr(gb_errmsg(), path) && strstr(gb_errmsg(), want), "%s", gb_errmsg());
  expect_cases(path, "A"); /* A's own failed case went, nothing else */
  /* after A: B appends; B's own failure cuts only B's rows */
  expect_child_ok(child_commit_then_fill(path, "B", "B2", -1, -1));
  expect_cases(path, "AB");
}
END_TEST

/* The marker names its writer. */
START_TEST(test_marker_names_writer) {
  char path[4200], marker[4300];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  snprintf(marker, sizeof marker, "%s.committed", path);
  gb_results_writer w;
  ck_assert_int_eq(gb_writer_open(&w, path), GB_OK);
  char *m = gb_test_slurp(marker, NULL);
  char want[64];
  snprintf(want, sizeof want, " pid %010ld\n", (long)getpid());
  ck_assert_msg(m && strstr(m, want), "%s", m ? m : "(none)");
  free(m);
  ck_assert_int_eq(gb_writer_close(&w), GB_OK);
  ck_assert_int_ne(access(marker, F_OK), 0);
}
END_TEST

/* A link planted at the marker's predictable name (RESULTS.committed) in a
 * shared directory: the writer wrote its marker line through it into the
 * link's target. Now the marker is never opened through a link. */
START_TEST(test_marker_link_not_followed) {
  char path[4200], marker[4300], victim[4300];
  snprintf(path, sizeof path, "%s/r.csv", gb_test_tmpdir());
  snprintf(marker, sizeof marker, "%s.committed", path);
  snprintf(victim, sizeof victim, "%s/victim", gb_test_tmpdir());
  ck_assert_int_eq(gb_test_write(victim, "secret\n", 7), 0);
  ck_assert_int_eq(symlink(victim, marker), 0);
  gb_results_writer w;
  ck_assert_int_eq(gb_writer_open(&w, path), GB_OK);
  gb_row r = sample_row();
  ck_assert_int_eq(gb_writer_add(&w, &r), GB_OK);
  ck_assert_int_eq(gb_writer_commit(&w), GB_OK);
  ck_assert_int_eq(gb_writer_close(&w), GB_OK);
  char *v = gb_test_slurp(victim, NULL);
  ck_assert_str_eq(v, "secret\n");
  free(v);
  expect_cases(path, "triad");
}
END_TEST

/* Every row the writer can produce reads back: the inputs that broke a
 * round trip under the fuzzer (tests/fixtures/fuzz_results_*) among them. */
START_TEST(test_fuzz_regressions) {
  gb_results res = {0};
  /* a valid header without the metric column: refused, and nothing to free */
  ck_assert_int_eq(gb_results_read(gb_fixture("fuzz_results_missing_metric.csv"), &res), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), ":1: missing required column \"metric\""));
  ck_assert_ptr_null(res.rows);
  ck_assert_ptr_null(res.tables);
  ck_assert_uint_eq(res.nrows, 0);
}
END_TEST

/* gb_results_read_lean gives the rows gb_results_read gives, but for the
 * detail of ok rows (dropped); equal strings are one copy. */
static void same_double(double a, double b) {
  ck_assert(isnan(a) ? isnan(b) : a == b);
}

static void expect_lean_same(const char *path) {
  gb_results full = {0}, lean = {0};
  ck_assert_int_eq(gb_results_read(path, &full), GB_OK);
  ck_assert_int_eq(gb_results_read_lean(path, &lean), GB_OK);
  ck_assert_uint_eq(full.nrows, lean.nrows);
  ck_assert_uint_eq(lean.ntables, 0);
  for (size_t i = 0; i < full.nrows; i++) {
    const gb_row *a = &full.rows[i], *b = &lean.rows[i];
    const char *const sa[] = {a->run_id, a->timestamp, a->host, a->gpu_type, a->gpu_name, a->driver, a->cuda,
                              a->benchmark, a->case_name, a->dtype, a->metric, a->unit, a->variant, a->git_sha,
                              a->cublaslt, a->nvrtc, a->nccl, a->settings, a->regime, a->profile, a->gpu_uuid,
                              a->file};
    const char *const sb[] = {b->run_id, b->timestamp, b->host, b->gpu_type, b->gpu_name, b->driver, b->cuda,
                              b->benchmark, b->case_name, b->dtype, b->metric, b->unit, b->variant, b->git_sha,
                              b->cublaslt, b->nvrtc, b->nccl, b->settings, b->regime, b->profile, b->gpu_uuid,
                              b->file};
    for (size_t k = 0; k < sizeof sa / sizeof sa[0]; k++) ck_assert_str_eq(sa[k], sb[k]);
    ck_assert_str_eq(b->detail, a->status == GB_STATUS_OK ? "" : a->detail);
    ck_assert_int_eq(a->line, b->line);
    ck_assert_int_eq(a->status, b->status);
    ck_assert_int_eq(a->gpu_count, b->gpu_count);
    ck_assert_int_eq(a->rep, b->rep);
    ck_assert_int_eq(a->headline, b->headline);
    const int64_t ia[] = {a->m, a->n, a->k, a->bytes, a->samples, a->l2_bytes};
    const int64_t ib[] = {b->m, b->n, b->k, b->bytes, b->samples, b->l2_bytes};
    for (size_t k = 0; k < 6; k++) ck_assert_int_eq(ia[k], ib[k]);
    const double da[] = {a->value, a->min, a->max, a->stddev, a->sm_clock_mhz, a->mem_clock_mhz, a->temp_c,
                         a->power_w, a->peak};
    const double db[] = {b->value, b->min, b->max, b->stddev, b->sm_clock_mhz, b->mem_clock_mhz, b->temp_c,
                         b->power_w, b->peak};
    for (size_t k = 0; k < 9; k++) same_double(da[k], db[k]);
    if (i > 0) { /* one copy of each string */
      if (!strcmp(b->run_id, lean.rows[0].run_id)) ck_assert_ptr_eq(b->run_id, lean.rows[0].run_id);
      if (!strcmp(b->gpu_type, lean.rows[0].gpu_type)) ck_assert_ptr_eq(b->gpu_type, lean.rows[0].gpu_type);
    }
  }
  gb_results_free(&full);
  gb_results_free(&lean);
}

START_TEST(test_lean_same_rows) {
  expect_lean_same(gb_fixture("results_good.csv"));
  expect_lean_same(gb_fixture("results_typed_columns.csv"));
  expect_lean_same(gb_fixture("aa/aa-quick-1.csv"));
  expect_lean_same(gb_fixture("report_h200.csv"));
  /* two files into one set: the second's rows follow, the first's stay */
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_lean(gb_fixture("results_good.csv"), &res), GB_OK);
  ck_assert_int_eq(gb_results_read_lean(gb_fixture("results_typed_columns.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 6);
  ck_assert_str_eq(res.rows[2].detail, "unsupported on cc 8.0"); /* an error row keeps its detail */
  ck_assert_str_eq(res.rows[0].detail, "");
  ck_assert_ptr_nonnull(strstr(res.rows[4].file, "results_typed_columns.csv"));
  /* a bad third file appends nothing and leaves the rows read */
  ck_assert_int_eq(gb_results_read_lean(gb_fixture("results_not_number.csv"), &res), GB_E_INPUT);
  ck_assert_uint_eq(res.nrows, 6);
  ck_assert_str_eq(res.rows[2].detail, "unsupported on cc 8.0");
  gb_results_free(&res);
}
END_TEST

START_TEST(test_lean_fixture_bad) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_lean(gb_fixture(k_bad[_i].file), &res), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad[_i].expect) != NULL, "%s: got \"%s\"", k_bad[_i].file, gb_errmsg());
  ck_assert_uint_eq(res.nrows, 0);
  ck_assert_ptr_null(res.rows); /* nothing to free after an error on an empty set */
  ck_assert_ptr_null(res.pool);
}
END_TEST

START_TEST(test_lean_header_only) {
  char path[4200];
  snprintf(path, sizeof path, "%s/header_only.csv", gb_test_tmpdir());
  gb_buf h = {0};
  ck_assert_int_eq(gb_results_put_header(&h), GB_OK);
  ck_assert_int_eq(gb_test_write(path, h.data, h.len), 0);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_lean(path, &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 0);
  gb_results_free(&res);
  /* a header without a required column is refused with no rows too */
  const char *bad = "schema,run_id\n";
  ck_assert_int_eq(gb_test_write(path, bad, strlen(bad)), 0);
  ck_assert_int_eq(gb_results_read_lean(path, &res), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "header_only.csv:1: missing required column \"timestamp\""));
  gb_buf_free(&h);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("results");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_roundtrip);
  tcase_add_test(tc, test_fixture_good);
  tcase_add_test(tc, test_status_unsupported);
  tcase_add_test(tc, test_fixture_typed_columns);
  tcase_add_test(tc, test_writer_appends_and_cuts_torn_line);
  tcase_add_test(tc, test_writer_appends_in_existing_columns);
  tcase_add_test(tc, test_marker_cuts_unfinished_commit);
  tcase_add_test(tc, test_no_marker_cuts_only_a_last_line);
  tcase_add_test(tc, test_stale_marker_ignored);
  tcase_add_test(tc, test_full_disk_mid_commit);
  tcase_add_test(tc, test_two_writers);
  tcase_add_test(tc, test_marker_names_writer);
  tcase_add_test(tc, test_marker_link_not_followed);
  tcase_add_test(tc, test_lean_same_rows);
  tcase_add_test(tc, test_lean_header_only);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("errors");
  tcase_add_loop_test(te, test_fixture_bad, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
  tcase_add_loop_test(te, test_lean_fixture_bad, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
  tcase_add_test(te, test_writer_refuses_bad_paths);
  tcase_add_test(te, test_fuzz_regressions);
  suite_add_tcase(s, te);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
