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

#include <errno.h>
#include <time.h>

#include "gb_csv.h"
#include "gb_output.h"
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
  /* a field over the reader's limit is not a torn tail either: kept whole
   * (and read in pieces: a 2 MiB line took minutes under ASan before) */
  size_t big_n = 2 * GB_CSV_MAX_FIELD;
  char *big = malloc(big_n + 16);
  memcpy(big, "a,b\n1,\"", 7);
  memset(big + 7, 'x', big_n);
  big[7 + big_n] = '\n';
  ck_assert_uint_eq(gb_csv_complete_prefix(big, big_n + 8), big_n + 8);
  free(big);
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


/* ---- outputs: the symlink race, signals, injected failures, output = input ---- */

/* Links planted at the temporary names the old writer used (PATH.tmp.PID)
 * for this process and the next process ids: a write through one replaced
 * the link's target. Now the temporary name is random and created with
 * O_EXCL|O_NOFOLLOW, so the victim is never touched. */
START_TEST(test_symlink_race) {
  const char *dir = gb_test_tmpdir();
  char victim[4200], out[4200], link[4300];
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(out, sizeof out, "%s/plan.csv", dir);
  ck_assert_int_eq(gb_test_write(victim, "secret\n", 7), 0);
  pid_t me = getpid();
  for (pid_t p = me; p < me + 200; p++) {
    snprintf(link, sizeof link, "%s.tmp.%ld", out, (long)p);
    ck_assert_int_eq(symlink(victim, link), 0);
  }
  ck_assert_int_eq(gb_write_file_atomic(out, "mine\n", 5), GB_OK);
  /* and from a child process, whose id is one of those planted */
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) _exit(gb_write_file_atomic(out, "child\n", 6) == GB_OK ? 0 : 1);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char *v = gb_test_slurp(victim, NULL), *o = gb_test_slurp(out, NULL);
  ck_assert_str_eq(v, "secret\n");
  ck_assert_str_eq(o, "child\n");
  free(v);
  free(o);
  struct stat st;
  ck_assert_int_eq(lstat(out, &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  /* the planted links are left alone (200), and no temporary file besides */
  ck_assert_int_eq(temp_files_beside(dir), 200);
  ck_assert_uint_eq(gb_output_live(), 0);
}
END_TEST

/* SIGINT or SIGTERM while an output is being written: the temporary file
 * goes, the destination keeps its old content, and the process still dies
 * of the signal. */
START_TEST(test_temp_removed_on_signal) {
  const char *dir = gb_test_tmpdir();
  char out[4200];
  snprintf(out, sizeof out, "%s/report.md", dir);
  ck_assert_int_eq(gb_write_file_atomic(out, "old\n", 4), GB_OK);
  int sigs[] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      signal(sigs[i], SIG_DFL); /* as in gpubench (Check's runner has its own) */
      gb_output o;
      if (gb_output_open(&o, out) != GB_OK || gb_output_write(&o, "partial", 7) != GB_OK) _exit(1);
      if (temp_files_beside(dir) != 1 || gb_output_live() != 1) _exit(2);
      raise(sigs[i]);
      _exit(3); /* not reached */
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i], "status %d", status);
    ck_assert_int_eq(temp_files_beside(dir), 0);
    char *back = gb_test_slurp(out, NULL);
    ck_assert_str_eq(back, "old\n");
    free(back);
  }
}
END_TEST

/* A write that fails part-way (as on a full disk): error, old content,
 * nothing left behind; the registry is empty again. */
START_TEST(test_injected_write_failure) {
  const char *dir = gb_test_tmpdir();
  char out[4200];
  snprintf(out, sizeof out, "%s/o.xml", dir);
  ck_assert_int_eq(gb_write_file_atomic(out, "old\n", 4), GB_OK);
  gb_output_inject_write_error(3, ENOSPC);
  ck_assert_int_eq(gb_write_file_atomic(out, "new content\n", 12), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "o.xml: write failed: No space left on device"));
  char *back = gb_test_slurp(out, NULL);
  ck_assert_str_eq(back, "old\n");
  free(back);
  ck_assert_int_eq(temp_files_beside(dir), 0);
  ck_assert_uint_eq(gb_output_live(), 0);
  /* abort is clean too */
  gb_output o;
  ck_assert_int_eq(gb_output_open(&o, out), GB_OK);
  ck_assert_uint_eq(gb_output_live(), 1);
  gb_output_abort(&o);
  ck_assert_int_eq(temp_files_beside(dir), 0);
  ck_assert_uint_eq(gb_output_live(), 0);
}
END_TEST

START_TEST(test_output_check) {
  const char *dir = gb_test_tmpdir();
  char a[4200], b[4200], l[4200], rel[4300], none[4200], sub[4200];
  snprintf(a, sizeof a, "%s/a.csv", dir);
  snprintf(b, sizeof b, "%s/b.csv", dir);
  snprintf(l, sizeof l, "%s/l.csv", dir);
  snprintf(rel, sizeof rel, "%s/./x/../a.csv", dir);
  snprintf(none, sizeof none, "%s/none.xml", dir);
  snprintf(sub, sizeof sub, "%s/x", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  ck_assert_int_eq(gb_test_write(a, "x\n", 2), 0);
  ck_assert_int_eq(gb_test_write(b, "y\n", 2), 0);
  ck_assert_int_eq(symlink(a, l), 0);
  const char *in[] = {NULL, "-", a, b};
  ck_assert_int_eq(gb_output_check(a, in, 4), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "a.csv: the output is also an input"));
  ck_assert_int_eq(gb_output_check(l, in, 4), GB_E_USAGE);   /* a link to an input */
  ck_assert_int_eq(gb_output_check(rel, in, 4), GB_E_USAGE); /* another spelling */
  ck_assert_int_eq(gb_output_check(none, in, 4), GB_OK);
  ck_assert_int_eq(gb_output_check("-", in, 4), GB_OK);
  ck_assert_int_eq(gb_output_check(NULL, in, 4), GB_OK);
  const char *in2[] = {none};
  char none2[4300];
  snprintf(none2, sizeof none2, "%s/x/../none.xml", dir); /* neither exists: same resolved path */
  ck_assert_int_eq(gb_output_check(none2, in2, 1), GB_E_USAGE);
  /* an output directory */
  const char *names[] = {"report.md", ".png", NULL};
  char md[4200], png[4200];
  snprintf(md, sizeof md, "%s/report.md", dir);
  snprintf(png, sizeof png, "%s/x/t.png", dir);
  const char *in3[] = {md, png, a};
  ck_assert_int_eq(gb_output_check_dir(dir, names, in3 + 2, 1), GB_OK);
  ck_assert_int_eq(gb_output_check_dir(dir, names, in3, 1), GB_E_USAGE);
  ck_assert_int_eq(gb_output_check_dir(dir, names, in3 + 1, 1), GB_OK); /* in a subfolder */
  ck_assert_int_eq(gb_output_check_dir(sub, names, in3 + 1, 1), GB_E_USAGE);
}
END_TEST

/* ---- inputs ---- */

/* A FIFO given as input hung the reader forever (a blocking open); a
 * directory or a device is refused too, naming the path. */
START_TEST(test_fifo_input) {
  const char *dir = gb_test_tmpdir();
  char fifo[4200];
  snprintf(fifo, sizeof fifo, "%s/in.csv", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  alarm(5); /* a hang fails the test (SIGALRM) instead of stalling it */
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(fifo, &t), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "in.csv: not a regular file (a FIFO"));
  ck_assert_int_eq(gb_csv_read_file(dir, &t), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "not a regular file (a directory)"));
  ck_assert_int_eq(gb_csv_read_file("/dev/zero", &t), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "/dev/zero: not a regular file (a character device)"));
  alarm(0);
}
END_TEST

/* The file is read in 1 MiB pieces: records, quoted newlines, CRLF and line
 * numbers across the piece boundaries read as from memory. */
START_TEST(test_streamed_read) {
  gb_buf b = {0};
  gb_buf_puts(&b, "\xEF\xBB\xBF" "id,text\r\n");
  for (int i = 0; b.len < (size_t)3.5 * (1 << 20); i++)
    gb_buf_printf(&b, i % 7 == 0 ? "%d,\"two\nlines %d\"\r\n" : i % 11 == 0 ? "%d,x%d\n\n" : "%d,row %d\n", i, i);
  char path[4200];
  snprintf(path, sizeof path, "%s/big.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_csv_table f, m;
  ck_assert_int_eq(gb_csv_read_file(path, &f), GB_OK);
  ck_assert_int_eq(gb_csv_read_mem(path, b.data, b.len, &m), GB_OK);
  ck_assert_uint_eq(f.nrows, m.nrows);
  ck_assert_uint_gt(f.nrows, 100000);
  ck_assert_str_eq(gb_csv_header(&f, 0), "id");
  for (size_t r = 0; r < f.nrows; r++) {
    ck_assert_int_eq(gb_csv_line(&f, r), gb_csv_line(&m, r));
    ck_assert_str_eq(gb_csv_cell(&f, r, 1), gb_csv_cell(&m, r, 1));
  }
  gb_csv_free(&f);
  gb_csv_free(&m);
  gb_buf_free(&b);
}
END_TEST

/* gb_csv_stream_file: the same records, lines and errors as
 * gb_csv_read_file, one at a time, none kept. */
typedef struct stream_seen {
  size_t n;
  long last_line;
  char second[64];
  size_t stop_at; /* return an error at this record (0: never) */
} stream_seen;

static gb_err on_streamed(void *ctx, const gb_csv_record *rec) {
  stream_seen *s = ctx;
  ck_assert_uint_eq(rec->ncols, 2);
  ck_assert_str_eq(rec->header[1], "text");
  ck_assert_uint_eq(rec->index, s->n);
  ck_assert_int_eq(rec->header_line, 1);
  if (s->n == 1) snprintf(s->second, sizeof s->second, "%s", rec->cells[1]);
  s->last_line = rec->line;
  if (s->stop_at && rec->index + 1 == s->stop_at) return gb_fail(GB_E_INPUT, "%s:%ld: stop here", rec->name, rec->line);
  s->n++;
  return GB_OK;
}

START_TEST(test_stream_file) {
  char path[4200];
  snprintf(path, sizeof path, "%s/stream.csv", gb_test_tmpdir());
  const char *text = "id,text\n1,a\n2,\"two\nlines\"\n\n3,c\n";
  ck_assert_int_eq(gb_test_write(path, text, strlen(text)), 0);
  gb_csv_table t;
  stream_seen s = {0};
  ck_assert_int_eq(gb_csv_stream_file(path, &t, on_streamed, &s), GB_OK);
  ck_assert_uint_eq(s.n, 3);
  ck_assert_str_eq(s.second, "two\nlines");
  ck_assert_int_eq(s.last_line, 6);
  ck_assert_uint_eq(t.nrows, 0); /* nothing kept but the header */
  ck_assert_int_eq(gb_csv_col(&t, "text"), 1);
  gb_csv_free(&t);
  /* the callback's error stops the read and comes back */
  stream_seen stop = {.stop_at = 2};
  ck_assert_int_eq(gb_csv_stream_file(path, &t, on_streamed, &stop), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "stream.csv:3: stop here"));
  ck_assert_uint_eq(stop.n, 1);
  /* a record of the wrong width: gb_csv_read_file's message */
  const char *bad = "id,text\n1,a\n2,b,c\n";
  ck_assert_int_eq(gb_test_write(path, bad, strlen(bad)), 0);
  stream_seen s2 = {0};
  ck_assert_int_eq(gb_csv_stream_file(path, &t, on_streamed, &s2), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "stream.csv:3: 3 fields where the header has 2"));
  ck_assert_int_eq(gb_csv_read_file(path, &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "stream.csv:3: 3 fields where the header has 2"));
}
END_TEST

/* The duplicate-header check compared every pair of names: a header of
 * 200000 columns took minutes; now linear (well under a second). */
START_TEST(test_duplicate_header_linear) {
  gb_buf b = {0};
  for (int i = 0; i < 200000; i++) gb_buf_printf(&b, "%sc%d", i ? "," : "", i);
  gb_buf_puts(&b, "\n");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_mem("wide.csv", b.data, b.len, &t), GB_OK);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ck_assert_uint_eq(t.ncols, 200000);
  gb_csv_free(&t);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  ck_assert_msg(s < 5, "200000 columns took %.1f s", s);
  b.len--; /* the newline */
  gb_buf_puts(&b, ",cX,c7\n");
  ck_assert_int_eq(gb_csv_read_mem("wide.csv", b.data, b.len, &t), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "wide.csv:1:200002: duplicate column \"c7\" in the header");
  gb_buf_free(&b);
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
  tcase_add_test(te, test_symlink_race);
  tcase_add_test(te, test_temp_removed_on_signal);
  tcase_add_test(te, test_injected_write_failure);
  tcase_add_test(te, test_output_check);
  tcase_add_test(te, test_fifo_input);
  tcase_add_test(te, test_streamed_read);
  tcase_add_test(te, test_stream_file);
  tcase_add_test(te, test_duplicate_header_linear);
  tcase_set_timeout(te, 60);
  suite_add_tcase(s, te);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
