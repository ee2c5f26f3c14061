/* Tests for gb_csv: parsing through libcsv, line tracking, errors, quoting. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* What a kill mid-write can leave, and what is kept of it. */
START_TEST(test_complete_prefix) {
  /* whole records: all kept (8 = strlen("a,b\n1,2\n")) */
  ck_assert_uint_eq(gb_csv_complete_prefix("a,b\n1,2\n", 8), 8);
  /* a last line without its line end goes: "a,b\n" is 4 bytes */
  ck_assert_uint_eq(gb_csv_complete_prefix("a,b\n1,2", 7), 4);
  /* cut inside a quoted field after its newline: the record started at byte 4 */
  const char *torn = "a,b\n1,\"two\nli";
  ck_assert_uint_eq(gb_csv_complete_prefix(torn, strlen(torn)), 4);
  /* the same field finished: everything (17 bytes) */
  const char *whole = "a,b\n1,\"two\nlines\"\n";
  ck_assert_uint_eq(gb_csv_complete_prefix(whole, strlen(whole)), strlen(whole));
  /* CRLF and an escaped quote before the line end */
  const char *crlf = "a,b\r\n\"q\"\"\",2\r\n3,";
  ck_assert_uint_eq(gb_csv_complete_prefix(crlf, strlen(crlf)), 14);
  /* malformed in the middle (a quote after a closing quote): kept whole, for
   * the reader to name, never cut */
  const char *bad = "a,b\n\"x\"y,1\n2,3\n";
  ck_assert_uint_eq(gb_csv_complete_prefix(bad, strlen(bad)), strlen(bad));
  ck_assert_uint_eq(gb_csv_complete_prefix("", 0), 0);
  ck_assert_uint_eq(gb_csv_complete_prefix("no line end", 11), 0);
}
END_TEST

/* The temp files next to path: none may be left after a failure. */
static int temp_files_beside(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
  closedir(d);
  return n;
}

START_TEST(test_atomic_write_failures) {
  const char *tmp = gb_test_tmpdir();
  char dir[1100], path[1200], link[1200], under_file[1300];
  snprintf(dir, sizeof dir, "%s", tmp);
  snprintf(path, sizeof path, "%s/out.txt", dir);
  /* a directory: refused, named */
  ck_assert_int_eq(gb_write_file_atomic(dir, "x", 1), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "is a directory"));
  /* a path under a regular file: not writable, even by root (ENOTDIR) */
  ck_assert_int_eq(gb_write_file_atomic(path, "old\n", 4), GB_OK);
  snprintf(under_file, sizeof under_file, "%s/x.csv", path);
  ck_assert_int_eq(gb_write_file_atomic(under_file, "x", 1), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "cannot write: Not a directory"));
  /* through a symbolic link: the file it names is replaced, the link stays */
  snprintf(link, sizeof link, "%s/link.txt", dir);
  ck_assert_int_eq(symlink(path, link), 0);
  ck_assert_int_eq(gb_write_file_atomic(link, "new\n", 4), GB_OK);
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  char *back = gb_test_slurp(path, NULL);
  ck_assert_str_eq(back, "new\n");
  free(back);
  /* a device is written in place: /dev/full says the disk is full, and
   * /dev/full is still the device afterwards */
  if (access("/dev/full", W_OK) == 0) {
    ck_assert_int_eq(gb_write_file_atomic("/dev/full", "x\n", 2), GB_E_IO);
    ck_assert_ptr_nonnull(strstr(gb_errmsg(), "/dev/full: write failed: No space left on device"));
    ck_assert_int_eq(stat("/dev/full", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
  }
  /* a full disk in the middle (RLIMIT_FSIZE, as ENOSPC would): the old
   * content stays and no temp file is left */
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {64 * 1024, RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
    size_t n = 1 << 20;
    char *big = malloc(n);
    memset(big, 'y', n);
    gb_err e = gb_write_file_atomic(path, big, n);
    _exit(e == GB_E_IO && strstr(gb_errmsg(), "write failed: File too large") ? 0 : 4);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  back = gb_test_slurp(path, NULL);
  ck_assert_str_eq(back, "new\n");
  free(back);
  ck_assert_int_eq(temp_files_beside(dir), 0);
}
END_TEST

/* Inputs the fuzzer found (tests/fixtures/fuzz_csv_*). */
START_TEST(test_fuzz_regressions) {
  gb_csv_table t;
  /* a BOM after a blank line: it was kept as part of the first column name
   * (invisible, and a writer then put it at the file's start, where it is
   * skipped): now refused where it is */
  ck_assert_int_eq(gb_csv_read_file(gb_fixture("fuzz_csv_bom_after_blank_line.csv"), &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "fuzz_csv_bom_after_blank_line.csv:2:1: column name starts with a "
                                            "byte-order mark"));
  /* the BOM as the file's first bytes is still skipped */
  ck_assert_int_eq(parse("\xEF\xBB\xBF" "a,b\n1,2\n", &t), GB_OK);
  ck_assert_str_eq(gb_csv_header(&t, 0), "a");
  gb_csv_free(&t);
}
END_TEST

/* The writer never writes what the reader refuses: bytes that are not UTF-8
 * (a Latin-1 host name, a path in an error message) become U+FFFD. */
START_TEST(test_put_field_invalid_utf8) {
  gb_buf b = {0};
  gb_buf_puts(&b, "a,b\n");
  ck_assert_int_eq(gb_csv_put_field(&b, "caf\xe9, bar", 0), GB_OK);   /* Latin-1 e-acute, and a comma */
  ck_assert_int_eq(gb_csv_put_field(&b, "\xc3\xa9t\xc3", ','), GB_OK); /* valid, then a cut sequence */
  gb_buf_puts(&b, "\n");
  ck_assert_str_eq(b.data, "a,b\n\"caf\xEF\xBF\xBD, bar\",\xc3\xa9t\xEF\xBF\xBD\n");
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_mem("u.csv", b.data, b.len, &t), GB_OK);
  ck_assert_str_eq(gb_csv_cell(&t, 0, 0), "caf\xEF\xBF\xBD, bar");
  gb_csv_free(&t);
  gb_buf_free(&b);
  size_t bad;
  ck_assert(!gb_utf8_valid("ok\xc0\xaf", 4, &bad)); /* an overlong '/' */
  ck_assert_uint_eq(bad, 2);
  ck_assert(gb_utf8_valid("\xf0\x9f\x98\x80", 4, &bad)); /* U+1F600 */
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
  tcase_add_test(tc, test_complete_prefix);
  tcase_add_test(tc, test_put_field_invalid_utf8);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("errors");
  tcase_add_test(te, test_errors);
  tcase_add_test(te, test_big_field_rejected);
  tcase_add_test(te, test_atomic_write_failures);
  tcase_add_test(te, test_fuzz_regressions);
  suite_add_tcase(s, te);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
