/* check_badinput: bad inputs and unusable outputs, tried on the readers and
 * on the command line (gpubench compare, plan, report, run as subprocesses).
 * Every bad input must give exit 2 and a message naming the file (and line
 * and column where there is one), and leave no output file behind that
 * looks complete: a --junit, --csv or report file is either absent or still
 * holds what it held before. The list with each result is in
 * docs/reliability.md. Inputs already covered by the module suites
 * (check_csv, check_results, check_specs, check_planner, check_gate) are not
 * repeated here beyond what the command line adds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gb_gate_config.h"
#include "gb_prices.h"
#include "gb_results.h"
#include "gb_runinfo.h"
#include "gb_specs.h"
#include "gb_workload.h"
#include "testutil.h"

/* ---- helpers ---- */

static char g_dir[1100];
static char g_paths[256][1300];
static int g_npaths;

/* A path in this test's directory; it stays valid for the whole test (each
 * test gets 256). */
static const char *tpath(const char *name) {
  ck_assert_int_lt(g_npaths, 256);
  char *p = g_paths[g_npaths++];
  snprintf(p, sizeof g_paths[0], "%s/%s", g_dir, name);
  return p;
}

static void setup(void) {
  const char *d = gb_test_tmpdir();
  ck_assert_ptr_nonnull(d);
  snprintf(g_dir, sizeof g_dir, "%s", d);
  g_npaths = 0;
}

static void put(const char *path, const char *data, size_t n) { ck_assert_int_eq(gb_test_write(path, data, n), 0); }
static void puts_file(const char *path, const char *text) { put(path, text, strlen(text)); }

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Runs gpubench with the arguments (NULL-terminated); its output goes to
 * *out (malloc'd). Returns the exit status. */
static int gpubench(char **out, ...) {
  va_list ap;
  va_start(ap, out);
  int rc = gb_test_gpubench_va(tpath("gpubench.log"), out, ap);
  va_end(ap);
  return rc;
}

#define EXPECT_RC(rc, want, out) ck_assert_msg((rc) == (want), "exit %d, expected %d; output:\n%.3000s", rc, want, out)
#define EXPECT_HAS(text, needle) ck_assert_msg(strstr(text, needle) != NULL, "\"%s\" not in:\n%.3000s", needle, text)

/* A valid results file: header and two rows (cases triad and copy). */
static char *good_results(void) {
  gb_buf b = {0};
  gb_results_put_header(&b);
  gb_row r = gb_row_empty();
  r.run_id = "run-1";
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
  r.detail = "vec16";
  gb_results_put_row(&b, &r);
  r.case_name = "copy";
  r.value = 4100.5;
  r.min = 4000;
  r.max = 4120;
  gb_results_put_row(&b, &r);
  return b.data;
}

/* text with the first occurrence of from in its data rows (after the header) replaced by to (malloc'd). */
static char *replace(const char *text, const char *from, const char *to) {
  const char *at = strstr(strchr(text, '\n'), from); /* in the data rows, not the header */
  ck_assert_ptr_nonnull(at);
  size_t n = strlen(text) - strlen(from) + strlen(to);
  char *s = malloc(n + 1);
  size_t head = (size_t)(at - text);
  memcpy(s, text, head);
  strcpy(s + head, to);
  strcat(s, at + strlen(from));
  return s;
}

/* ---- results files: the readers and `gpubench compare` ---- */

typedef struct bad_results {
  const char *name, *from, *to; /* the good file with from -> to (from NULL: see make_bad) */
  const char *expect;           /* in the message, after the file name */
} bad_results;

static const bad_results k_bad_results[] = {
    {"nan.csv", ",4400.25,", ",nan,", ":2:19: value: not a finite number: \"nan\""},
    {"inf.csv", ",4400.25,", ",inf,", ":2:19: value: not a finite number: \"inf\""},
    {"neginf.csv", ",4400.25,", ",-inf,", ":2:19: value: not a finite number: \"-inf\""},
    {"overflow.csv", ",4400.25,", ",1e309,", ":2:19: value: not a finite number: \"1e309\""},
    {"negative.csv", ",4400.25,", ",-4400.25,", ":2:19: value: must not be negative: \"-4400.25\""},
    {"count0.csv", ",1,580", ",0,580", ":2:7: gpu_count: not a GPU count between 1 and 1000000: \"0\""},
    {"counthuge.csv", ",1,580", ",1e9,580", ":2:7: gpu_count: not a GPU count between 1 and 1000000: \"1e9\""},
    {"bytes_i64.csv", ",1073741824,", ",99999999999999999999,",
     ":2:16: bytes: not a non-negative integer: \"99999999999999999999\""},
    {"bytes_neg.csv", ",1073741824,", ",-1,", ":2:16: bytes: not a non-negative integer: \"-1\""},
    {"status.csv", ",ok,", ",fine,", ":2:24: status: not one of ok, invalid, error, throttled, unsupported: \"fine\""},
    {"nonutf8.csv", ",vec16,", ",vec\xff\xfe,", ":2:25: field is not valid UTF-8 (byte 4)"},
    {"nul.csv", NULL, NULL, ":2:25: field holds a NUL byte"},
    {"bigfield.csv", NULL, NULL, ":2:25: field is longer than the 1048576-byte limit"},
    {"empty.csv", NULL, NULL, ": empty file: expected a header row"},
    {"bom_late.csv", NULL, NULL, ":2:1: column name starts with a byte-order mark"},
    {"dupcol.csv", NULL, NULL, ":1:49: duplicate column \"detail\" in the header"},
    {"fields.csv", NULL, NULL, ":3: 48 fields where the header has 49"},
    {"quote.csv", NULL, NULL, ":2: malformed CSV at end of file (error parsing data while strict checking enabled): "
                              "unterminated quote?"},
    {"missingcol.csv", NULL, NULL, ":1: missing required column \"value\""},
    {"schema.csv", NULL, NULL, ":2:1: schema: unsupported schema version (this gpubench reads 1): \"2\""},
};

/* The bad files that are not a one-field substitution. Returns its length. */
static size_t make_bad(const char *name, const char *good, char **out) {
  gb_buf b = {0};
  if (!strcmp(name, "nul.csv")) {
    char *s = replace(good, ",vec16,", ",vec16,");
    char *at = strstr(strchr(s, '\n'), ",vec16,") + 4; /* the field becomes "vec" NUL "6" */
    *at = '\0';
    *out = s;
    return strlen(good);
  }
  if (!strcmp(name, "bigfield.csv")) {
    /* a 10 MB detail: refused as it is read, before it is all gathered */
    const char *at = strstr(strchr(good, '\n'), ",vec16,") + 1;
    gb_buf_append(&b, good, (size_t)(at - good));
    char *big = malloc(10 * 1000 * 1000);
    memset(big, 'x', 10 * 1000 * 1000);
    gb_buf_append(&b, big, 10 * 1000 * 1000);
    free(big);
    gb_buf_puts(&b, at + 5);
  } else if (!strcmp(name, "empty.csv")) {
    gb_buf_puts(&b, "");
  } else if (!strcmp(name, "bom_late.csv")) {
    gb_buf_puts(&b, "\n\xEF\xBB\xBF");
    gb_buf_puts(&b, good);
  } else if (!strcmp(name, "dupcol.csv") || !strcmp(name, "fields.csv")) {
    /* one more column named detail (or an extra one in the header only) */
    const char *nl = strchr(good, '\n');
    gb_buf_append(&b, good, (size_t)(nl - good));
    gb_buf_puts(&b, !strcmp(name, "dupcol.csv") ? ",detail" : ",extra");
    const char *row2 = strchr(nl + 1, '\n') + 1;
    gb_buf_append(&b, nl, (size_t)(row2 - nl - 1));
    gb_buf_puts(&b, ",x\n");
    gb_buf_puts(&b, row2); /* one field short */
  } else if (!strcmp(name, "quote.csv")) {
    char *s = replace(good, ",vec16,", ",\"vec16,");
    gb_buf_puts(&b, s);
    free(s);
  } else if (!strcmp(name, "missingcol.csv")) {
    char *s = strdup(good);
    memcpy(strstr(s, ",value,") + 1, "valeu", 5);
    gb_buf_puts(&b, s);
    free(s);
  } else if (!strcmp(name, "schema.csv")) {
    const char *nl = strchr(good, '\n');
    gb_buf_append(&b, good, (size_t)(nl - good) + 1);
    gb_buf_puts(&b, "2");
    gb_buf_puts(&b, nl + 2);
  }
  *out = b.data ? b.data : strdup("");
  return b.len;
}

START_TEST(test_bad_results) {
  const bad_results *c = &k_bad_results[_i];
  char *good = good_results();
  const char *bad = tpath(c->name), *ok = tpath("good.csv");
  puts_file(ok, good);
  char *text;
  size_t len;
  if (c->from) {
    text = replace(good, c->from, c->to);
    len = strlen(text);
  } else {
    len = make_bad(c->name, good, &text);
  }
  put(bad, text, len);
  char want[600];
  snprintf(want, sizeof want, "%s%s", bad, c->expect);
  /* the reader */
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(bad, &res), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), want);
  ck_assert_uint_eq(res.nrows, 0);
  /* the command line: exit 2, the message, no report written */
  char *out;
  const char *junit = tpath("gate.xml"), *md = tpath("gate.md");
  int rc = gpubench(&out, "compare", ok, bad, "--junit", junit, "--markdown", md, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "gpubench compare: ");
  EXPECT_HAS(out, want);
  ck_assert(!exists(junit) && !exists(md));
  /* appending to it (gpubench run --out) is refused before anything runs */
  gb_results_writer w;
  if (strcmp(c->name, "empty.csv") != 0) { /* an empty file just gets its header */
    ck_assert_int_eq(gb_writer_open(&w, bad), GB_E_INPUT);
    EXPECT_HAS(gb_errmsg(), "is not a valid results file, so it was not appended to");
  }
  free(out);
  free(text);
  free(good);
}
END_TEST

/* Inputs that are fine: a BOM and CRLF, quoted commas and newlines, unknown
 * columns, duplicate rows, extreme but finite numbers, a header alone. */
START_TEST(test_accepted_results) {
  char *good = good_results();
  const char *ok = tpath("good.csv");
  puts_file(ok, good);
  /* BOM + CRLF: same rows; the gate finds nothing changed (exit 0) */
  gb_buf b = {0};
  gb_buf_puts(&b, "\xEF\xBB\xBF");
  for (const char *p = good; *p; p++) gb_buf_append(&b, *p == '\n' ? "\r\n" : p, *p == '\n' ? 2 : 1);
  put(tpath("crlf.csv"), b.data, b.len);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(tpath("crlf.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 2);
  ck_assert_double_eq(res.rows[1].value, 4100.5);
  ck_assert_str_eq(res.rows[0].detail, "vec16");
  gb_results_free(&res);
  char *out;
  int rc = gpubench(&out, "compare", ok, tpath("crlf.csv"), NULL);
  EXPECT_RC(rc, 0, out);
  EXPECT_HAS(out, "2 unchanged");
  free(out);
  /* quoted commas, quotes and newlines in detail; the row after it names its physical line */
  char *q = replace(good, ",vec16,", ",\"a, b \"\"c\"\"\nnext line\",");
  char *q2 = replace(q, ",4100.5,", ",x,");
  puts_file(tpath("quoted.csv"), q);
  ck_assert_int_eq(gb_results_read(tpath("quoted.csv"), &res), GB_OK);
  ck_assert_str_eq(res.rows[0].detail, "a, b \"c\"\nnext line");
  ck_assert_int_eq(res.rows[1].line, 4); /* header 1, row 2-3, row 4 */
  gb_results_free(&res);
  puts_file(tpath("quoted_bad.csv"), q2);
  ck_assert_int_eq(gb_results_read(tpath("quoted_bad.csv"), &res), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), "quoted_bad.csv:4:19: value: not a finite number: \"x\"");
  free(q);
  free(q2);
  /* an unknown column is ignored */
  gb_buf u = {0};
  const char *nl = strchr(good, '\n');
  gb_buf_append(&u, good, (size_t)(nl - good));
  gb_buf_puts(&u, ",my_note\n");
  for (const char *line = nl + 1; *line;) {
    const char *e = strchr(line, '\n');
    gb_buf_append(&u, line, (size_t)(e - line));
    gb_buf_puts(&u, ",hello\n");
    line = e + 1;
  }
  put(tpath("unknown.csv"), u.data, u.len);
  ck_assert_int_eq(gb_results_read(tpath("unknown.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 2);
  gb_results_free(&res);
  /* duplicate rows are kept: each is a sample of its figure */
  gb_buf d = {0};
  gb_buf_puts(&d, good);
  gb_buf_puts(&d, strchr(good, '\n') + 1);
  put(tpath("dup.csv"), d.data, d.len);
  ck_assert_int_eq(gb_results_read(tpath("dup.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 4);
  gb_results_free(&res);
  /* extreme but finite numbers */
  char *x = replace(good, ",4400.25,", ",1.7976931348623157e308,");
  char *x2 = replace(x, ",1073741824,", ",9223372036854775807,");
  puts_file(tpath("extreme.csv"), x2);
  ck_assert_int_eq(gb_results_read(tpath("extreme.csv"), &res), GB_OK);
  ck_assert_double_eq(res.rows[0].value, 1.7976931348623157e308);
  ck_assert(res.rows[0].bytes == INT64_MAX);
  gb_results_free(&res);
  free(x);
  free(x2);
  /* a header alone: valid, no rows; the gate refuses it as input (exit 2, naming the file) */
  gb_buf h = {0};
  gb_results_put_header(&h);
  put(tpath("header.csv"), h.data, h.len);
  ck_assert_int_eq(gb_results_read(tpath("header.csv"), &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 0);
  gb_results_free(&res);
  rc = gpubench(&out, "compare", tpath("header.csv"), tpath("header.csv"), "--junit", tpath("h.xml"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "header.csv: a header and no rows");
  ck_assert(!exists(tpath("h.xml")));
  free(out);
  /* and every command that analyzes results: report exited 0 with an empty
   * report, history 3 ("no figure has 6 runs"), plan 0 with no measurement */
  rc = gpubench(&out, "report", tpath("header.csv"), "--out", tpath("hrep"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "header.csv: a header and no rows: no results in it");
  ck_assert(!exists(tpath("hrep/report.md")));
  free(out);
  rc = gpubench(&out, "history", tpath("header.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "header.csv: a header and no rows: no results in it");
  free(out);
  char workload[4200];
  snprintf(workload, sizeof workload, "%s/workloads/generic-example.ini", gb_data_dir());
  rc = gpubench(&out, "plan", workload, "--measured", tpath("header.csv"), "--csv", tpath("hplan.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "header.csv: a header and no rows: no results in it");
  ck_assert(!exists(tpath("hplan.csv")));
  free(out);
  gb_buf_free(&b);
  gb_buf_free(&u);
  gb_buf_free(&d);
  gb_buf_free(&h);
  free(good);
}
END_TEST

/* 10^6 rows: read whole, every one validated (10^5 under AddressSanitizer,
 * whose shadow memory would make a million rows of 33 columns too big for
 * CI). The time goes to stdout for docs/reliability.md. */
START_TEST(test_million_rows) {
#if defined(__SANITIZE_ADDRESS__)
  const size_t nrows = 100000;
#else
  const size_t nrows = 1000000;
#endif
  gb_buf b = {0};
  gb_results_put_header(&b);
  gb_row r = gb_row_empty();
  r.run_id = "big";
  r.gpu_type = "H200-SXM-141GB";
  r.benchmark = "membw";
  r.metric = "gbps";
  r.status = GB_STATUS_OK;
  char cn[32];
  r.case_name = cn;
  for (size_t i = 0; i < nrows; i++) {
    snprintf(cn, sizeof cn, "c%zu", i);
    r.value = (double)i + 0.25;
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  }
  const char *path = tpath("million.csv");
  put(path, b.data, b.len);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(path, &res), GB_OK);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ck_assert_uint_eq(res.nrows, nrows);
  snprintf(cn, sizeof cn, "c%zu", nrows - 1);
  ck_assert_str_eq(res.rows[nrows - 1].case_name, cn);
  ck_assert_double_eq(res.rows[nrows - 1].value, (double)(nrows - 1) + 0.25);
  ck_assert_int_eq(res.rows[nrows - 1].line, (long)nrows + 1);
  printf("million_rows: %zu rows, %zu bytes read and validated in %.2f s\n", nrows, b.len,
         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  gb_results_free(&res);
  gb_buf_free(&b);
}
END_TEST

/* A directory, a missing file, a path through a regular file. */
START_TEST(test_not_a_file) {
  char *good = good_results();
  const char *ok = tpath("good.csv");
  puts_file(ok, good);
  char under[1400];
  snprintf(under, sizeof under, "%s/x.csv", ok);
  const char *paths[] = {g_dir, tpath("missing.csv"), under};
  const char *expect[] = {": not a regular file", ": cannot open: No such file or directory",
                          ": cannot open: Not a directory"};
  for (int i = 0; i < 3; i++) {
    gb_results res = {0};
    ck_assert_int_eq(gb_results_read(paths[i], &res), GB_E_IO);
    char want[1600];
    snprintf(want, sizeof want, "%s%s", paths[i], expect[i]);
    EXPECT_HAS(gb_errmsg(), want);
    char *out;
    int rc = gpubench(&out, "compare", ok, paths[i], NULL); /* CURRENT is one file (a baseline may be a directory) */
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, want);
    free(out);
    rc = gpubench(&out, "report", paths[i], "--out", tpath("rep"), NULL);
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, want);
    ck_assert(!exists(tpath("rep/report.md")));
    free(out);
  }
  free(good);
}
END_TEST

/* An unreadable file. chmod 000 does not stop root (CI runs as root): then
 * the check runs in a child that has dropped to nobody (65534). */
START_TEST(test_unreadable) {
  char *good = good_results();
  const char *ok = tpath("good.csv"), *secret = tpath("secret.csv");
  puts_file(ok, good);
  puts_file(secret, good);
  ck_assert_int_eq(chmod(secret, 0), 0);
  ck_assert_int_eq(chmod(g_dir, 0755), 0);
  ck_assert_int_eq(chmod(ok, 0644), 0);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(77);
    gb_results res = {0};
    if (gb_results_read(secret, &res) != GB_E_IO || !strstr(gb_errmsg(), "cannot open: Permission denied")) _exit(1);
    const char *exe = gb_test_gpubench();
    char *argv[] = {(char *)exe, "compare", (char *)secret, (char *)ok, NULL};
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(exe, argv);
    _exit(126);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    printf("test_unreadable: running as root and cannot drop to nobody here: skipped\n");
  } else {
    ck_assert_msg(WEXITSTATUS(status) == 2, "compare of an unreadable file exited %d", WEXITSTATUS(status));
  }
  chmod(secret, 0644);
  free(good);
}
END_TEST

/* ---- outputs: where they cannot be written, nothing complete-looking is left ---- */

/* Runs a gpubench command in a child whose files may not grow past
 * max_bytes (RLIMIT_FSIZE: a write stops short with EFBIG, as with ENOSPC
 * on a full disk). Returns the exit status; the output goes to *out. */
static int gpubench_limited(long max_bytes, char **out, char *const argv_tail[]) {
  const char *exe = gb_test_gpubench();
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)exe;
  for (int i = 0; argv_tail[i] && argc < 31; i++) argv[argc++] = argv_tail[i];
  argv[argc] = NULL;
  const char *log = tpath("limited.log");
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {(rlim_t)max_bytes, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &rl);
    execv(exe, argv);
    _exit(126);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  *out = gb_test_slurp(log, NULL);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* How many names in dir contain ".tmp." (temp files left behind). */
static int temps_in(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += strstr(e->d_name, ".tmp.") != NULL;
  closedir(d);
  return n;
}

START_TEST(test_compare_outputs) {
  char *good = good_results();
  const char *ok = tpath("good.csv");
  puts_file(ok, good);
  char *cur = replace(good, ",4100.5,", ",2000.5,");
  puts_file(tpath("cur.csv"), cur);
  char *out;
  /* the junit path is a directory */
  int rc = gpubench(&out, "compare", ok, tpath("cur.csv"), "--junit", g_dir, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, ": is a directory");
  free(out);
  /* under a regular file: no one can create it, root included */
  char under[1400];
  snprintf(under, sizeof under, "%s/gate.xml", ok);
  rc = gpubench(&out, "compare", ok, tpath("cur.csv"), "--junit", under, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "gate.xml: cannot write: Not a directory");
  free(out);
  /* /dev/full: the disk is full */
  if (access("/dev/full", W_OK) == 0) {
    rc = gpubench(&out, "compare", ok, tpath("cur.csv"), "--markdown", "/dev/full", NULL);
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, "/dev/full: write failed: No space left on device");
    free(out);
  }
  /* a full disk in the middle of the write: the old file stays as it was */
  const char *xml = tpath("old.xml");
  puts_file(xml, "<old/>\n");
  char *argv[] = {"compare", (char *)ok, (char *)tpath("cur.csv"), "--junit", (char *)xml, NULL};
  rc = gpubench_limited(512, &out, argv); /* the XML is larger; the message fits */
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "old.xml: write failed: File too large");
  ck_assert_int_eq(temps_in(g_dir), 0);
  char *back = gb_test_slurp(xml, NULL);
  ck_assert_str_eq(back, "<old/>\n");
  free(back);
  free(out);
  /* bad input with an old report in place: exit 2, the old report untouched */
  char *bad = replace(good, ",4100.5,", ",fast,");
  puts_file(tpath("bad.csv"), bad);
  rc = gpubench(&out, "compare", ok, tpath("bad.csv"), "--junit", xml, NULL);
  EXPECT_RC(rc, 2, out);
  back = gb_test_slurp(xml, NULL);
  ck_assert_str_eq(back, "<old/>\n");
  free(back);
  free(out);
  free(bad);
  free(cur);
  free(good);
  ck_assert_int_eq(temps_in(g_dir), 0);
}
END_TEST

/* ---- the planner's inputs through `gpubench plan` ---- */

/* data/<name> of the source tree, read whole (malloc'd). */
static char *shipped(const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/data/%s", GB_SOURCE_ROOT, name);
  char *s = gb_test_slurp(path, NULL);
  ck_assert_ptr_nonnull(s);
  return s;
}

typedef struct bad_plan_input {
  const char *flag;      /* --specs, --prices, or NULL: the workload file */
  const char *name;      /* file written */
  const char *from, *to; /* in the shipped file (NULL: the text below replaces it) */
  const char *text;
  const char *expect;    /* after the file name */
} bad_plan_input;

static const bad_plan_input k_bad_plan[] = {
    {"--specs", "specs_empty.csv", NULL, NULL, "", ": empty file: expected a header row"},
    {"--specs", "specs_header.csv", NULL, NULL, "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,"
     "tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,"
     "source,date\n", ": no GPU rows"},
    {"--specs", "specs_nan.csv", ",80,2039,", ",nan,2039,", NULL, ":2: memory_gb: not a number: \"nan\""},
    {"--specs", "specs_neg.csv", ",2039,400,", ",2039,-400,", NULL, ":2: tdp_w: must be > 0"},
    {"--specs", "specs_huge.csv", ",80,2039,", ",1e6,2039,", NULL, ":2: memory_gb: absurd value 1e6 (above 100000)"},
    {"--specs", "specs_utf8.csv", "NVIDIA A100 80GB", "NVIDIA A100 \xff" "80GB", NULL, ":2:2: field is not valid UTF-8"},
    {"--prices", "prices_nan.csv", ",3.43,,", ",nan,,", NULL, ":2: price_usd_per_gpu_hour: not a number: \"nan\""},
    {"--prices", "prices_neg.csv", ",3.43,,", ",-3.43,,", NULL, ":2: price_usd_per_gpu_hour: must be > 0"},
    {"--prices", "prices_huge.csv", ",3.43,,", ",3430,,", NULL, ":2: price_usd_per_gpu_hour: absurd value 3430"},
    {"--prices", "prices_type.csv", "A100-SXM-80GB,8,3.43", "A999-FAKE,8,3.43", NULL,
     ":2: gpu_type: unknown GPU type \"A999-FAKE\""},
    {"--prices", "prices_gpn.csv", "A100-SXM-80GB,8,3.43", "A100-SXM-80GB,0,3.43", NULL,
     ":2: gpus_per_node: 0 is outside 1..1024"},
    {NULL, "wl_empty.ini", NULL, NULL, "", ": type: missing"},
    {NULL, "wl_nan.ini", NULL, NULL, "type = training\nparams = nan\n", ":2: params: not a number: \"nan\""},
    {NULL, "wl_inf.ini", NULL, NULL, "type = training\ntokens = inf\n", ":2: tokens: not a number: \"inf\""},
    {NULL, "wl_neg.ini", NULL, NULL, "type = training\nparams = -7e9\n", ":2: params: must be > 0: -7e9"},
    {NULL, "wl_huge.ini", NULL, NULL, "type = training\nparams = 1e20\n", ":2: params: absurd value 1e20"},
    {NULL, "wl_dup.ini", NULL, NULL, "type = training\nparams = 7e9\n[workload]\nparams = 8e9\n",
     ":4: params: given twice (first on line 2)"},
    {NULL, "wl_unknown.ini", NULL, NULL, "type = training\nparamz = 7e9\n", ":2: paramz: unknown key"},
    {NULL, "wl_section.ini", NULL, NULL, "[cluster]\ntype = training\n", ":2: [cluster]: unknown section"},
    {NULL, "wl_syntax.ini", NULL, NULL, "type = training\nthis line has no equals sign\n", ":2: syntax error"},
    {NULL, "wl_window.ini", NULL, NULL, "type = generic\ntotal_flops = 1e21\ngemm_window = long\n",
     ":3: gemm_window: \"long\" is not burst or sustained"},
};

START_TEST(test_bad_plan_inputs) {
  const bad_plan_input *c = &k_bad_plan[_i];
  const char *path = tpath(c->name);
  if (c->from) {
    char *orig = shipped(!strcmp(c->flag, "--specs") ? "gpu_specs.csv" : "prices.csv");
    char *text = replace(orig, c->from, c->to);
    puts_file(path, text);
    free(text);
    free(orig);
  } else {
    puts_file(path, c->text);
  }
  const char *csv = tpath("plan.csv");
  char *out;
  int rc = c->flag ? gpubench(&out, "plan", c->flag, path, "--csv", csv, "--no-measured", NULL)
                   : gpubench(&out, "plan", path, "--csv", csv, "--no-measured", NULL);
  EXPECT_RC(rc, 2, out);
  char want[1600];
  snprintf(want, sizeof want, "gpubench plan: %s%s", path, c->expect);
  EXPECT_HAS(out, want);
  ck_assert(!exists(csv));
  free(out);
}
END_TEST

/* Accepted: BOM + CRLF in all three files; duplicates are refused. */
START_TEST(test_plan_inputs_bom_crlf_dup) {
  const char *names[] = {"gpu_specs.csv", "prices.csv", "workloads/training-7b.ini"};
  const char *out_names[] = {"specs_crlf.csv", "prices_crlf.csv", "wl_crlf.ini"};
  for (int i = 0; i < 3; i++) {
    char *orig = shipped(names[i]);
    gb_buf b = {0};
    gb_buf_puts(&b, "\xEF\xBB\xBF");
    for (const char *p = orig; *p; p++) gb_buf_append(&b, *p == '\n' ? "\r\n" : p, *p == '\n' ? 2 : 1);
    put(tpath(out_names[i]), b.data, b.len);
    gb_buf_free(&b);
    free(orig);
  }
  char *out;
  int rc = gpubench(&out, "plan", tpath("wl_crlf.ini"), "--specs", tpath("specs_crlf.csv"), "--prices",
                    tpath("prices_crlf.csv"), "--csv", tpath("plan.csv"), "--no-measured", NULL);
  EXPECT_RC(rc, 0, out);
  EXPECT_HAS(out, "gpubench plan: workload training-7b (training, bf16)");
  ck_assert(exists(tpath("plan.csv")));
  free(out);
  /* a duplicate datasheet row and a duplicate price row name both lines */
  char *specs = shipped("gpu_specs.csv"), *prices = shipped("prices.csv");
  gb_buf b = {0};
  gb_buf_puts(&b, specs);
  const char *row2 = strchr(specs, '\n') + 1;
  gb_buf_append(&b, row2, (size_t)(strchr(row2, '\n') + 1 - row2));
  put(tpath("specs_dup.csv"), b.data, b.len);
  int nlines = 0;
  for (const char *p = specs; *p; p++) nlines += *p == '\n';
  rc = gpubench(&out, "plan", "--specs", tpath("specs_dup.csv"), "--no-measured", NULL);
  EXPECT_RC(rc, 2, out);
  char want[1600];
  snprintf(want, sizeof want, "%s:%d: gpu_type: duplicate of line 2: A100-SXM-80GB", tpath("specs_dup.csv"), nlines + 1);
  EXPECT_HAS(out, want);
  free(out);
  b.len = 0;
  gb_buf_puts(&b, prices);
  row2 = strchr(prices, '\n') + 1;
  gb_buf_append(&b, row2, (size_t)(strchr(row2, '\n') + 1 - row2));
  put(tpath("prices_dup.csv"), b.data, b.len);
  rc = gpubench(&out, "plan", "--prices", tpath("prices_dup.csv"), "--no-measured", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, ": provider: duplicate of line 2 (AWS on-demand A100-SXM-80GB x8); keep one row");
  free(out);
  /* a directory as the workload file, as the specs */
  rc = gpubench(&out, "plan", g_dir, "--no-measured", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, ": not a regular file; give a workload .ini file");
  free(out);
  rc = gpubench(&out, "plan", "--specs", g_dir, "--no-measured", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, ": not a regular file");
  free(out);
  /* NaN, inf and absurd numbers as flags */
  rc = gpubench(&out, "plan", "--params", "nan", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "--params: params: not a number: \"nan\"");
  free(out);
  rc = gpubench(&out, "plan", "--budget-usd", "-1", NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
  gb_buf_free(&b);
  free(specs);
  free(prices);
}
END_TEST

START_TEST(test_plan_outputs) {
  char *out;
  const char *csv = tpath("old_plan.csv");
  puts_file(csv, "old\n");
  /* full disk in the middle of the 3 MB plan table: the old file stays */
  char *argv[] = {"plan", "--no-measured", "--csv", (char *)csv, NULL};
  int rc = gpubench_limited(64 * 1024, &out, argv);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "old_plan.csv: write failed: File too large");
  char *back = gb_test_slurp(csv, NULL);
  ck_assert_str_eq(back, "old\n");
  free(back);
  free(out);
  if (access("/dev/full", W_OK) == 0) {
    rc = gpubench(&out, "plan", "--no-measured", "--csv", "/dev/full", NULL);
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, "/dev/full: write failed: No space left on device");
    free(out);
  }
  char under[1400];
  snprintf(under, sizeof under, "%s/plan.csv", csv);
  rc = gpubench(&out, "plan", "--no-measured", "--sensitivity-csv", under, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "plan.csv: cannot write: Not a directory");
  free(out);
  ck_assert_int_eq(temps_in(g_dir), 0);
}
END_TEST

/* ---- report and run ---- */

START_TEST(test_report_outputs) {
  char *good = good_results();
  const char *ok = tpath("good.csv");
  puts_file(ok, good);
  char *out;
  /* --out names a regular file */
  int rc = gpubench(&out, "report", ok, "--out", ok, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "good.csv: not a directory");
  free(out);
  /* a bad row: nothing written into the report directory */
  char *bad = replace(good, ",4100.5,", ",-5,");
  puts_file(tpath("bad.csv"), bad);
  rc = gpubench(&out, "report", ok, tpath("bad.csv"), "--out", tpath("rep"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "bad.csv:3:19: value: must not be negative: \"-5\"");
  ck_assert(!exists(tpath("rep/report.md")) && !exists(tpath("rep/report.html")));
  free(out);
  /* a bad plan file */
  puts_file(tpath("plan.csv"), "rank,gpu_type\n1,H200\n");
  rc = gpubench(&out, "report", ok, "--plan", tpath("plan.csv"), "--out", tpath("rep"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "plan.csv:1: missing column \"gpu_count\"");
  ck_assert(!exists(tpath("rep/report.md")));
  free(out);
  free(bad);
  free(good);
}
END_TEST

START_TEST(test_run_usage) {
  char *out;
  int rc = gpubench(&out, "run", "--resume", tpath("missing.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "missing.csv: no such file (use --out to start a new one)");
  free(out);
  rc = gpubench(&out, "run", "--out", tpath("a.csv"), "--resume", tpath("b.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
  rc = gpubench(&out, "run", "--repeat", "0", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "--repeat: not a whole number from 1 to 1000: \"0\"");
  free(out);
  rc = gpubench(&out, "run", "--iters", "nan", NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
  rc = gpubench(&out, "run", "--telemetry-ms", "-1", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "--telemetry-ms: not a whole number from 0 to 10000: \"-1\"");
  free(out);
  rc = gpubench(&out, "run", "--bench", "nosuch", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "unknown benchmark 'nosuch'");
  free(out);
  /* an output that is a directory, or an invalid results file to append
   * to: refused before anything is measured -- exit 2 on a GPU machine;
   * here, without a GPU, the run stops first with exit 3. Either way no
   * file appears. */
  rc = gpubench(&out, "run", "--bench", "fma", "--out", g_dir, NULL);
  ck_assert_msg(rc == 2 || rc == 3, "exit %d:\n%s", rc, out);
  free(out);
  char under[1400];
  puts_file(tpath("file"), "x");
  snprintf(under, sizeof under, "%s/r.csv", tpath("file"));
  rc = gpubench(&out, "run", "--bench", "fma", "--out", under, NULL);
  ck_assert_msg(rc == 2 || rc == 3, "exit %d:\n%s", rc, out);
  free(out);
}
END_TEST

/* ---- a real full disk: a small tmpfs, when this machine lets us mount one ---- */

START_TEST(test_tmpfs_full) {
  const char *mnt = tpath("small");
  ck_assert_int_eq(mkdir(mnt, 0755), 0);
  if (geteuid() != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
    printf("test_tmpfs_full: cannot mount a tmpfs here (%s): the RLIMIT_FSIZE tests stand in for a full disk\n",
           geteuid() != 0 ? "not root" : strerror(errno));
    return;
  }
  char csv[1400], res[1400];
  snprintf(csv, sizeof csv, "%s/plan.csv", mnt);
  snprintf(res, sizeof res, "%s/results.csv", mnt);
  char *out;
  int rc = gpubench(&out, "plan", "--no-measured", "--csv", csv, NULL);
  int temps = temps_in(mnt);
  bool left = exists(csv);
  /* the results writer: commits until the disk is full */
  gb_results_writer w;
  gb_err e = gb_writer_open(&w, res);
  size_t commits = 0;
  gb_err ce = GB_OK;
  char msg[512] = "";
  char detail[2000];
  memset(detail, 'd', sizeof detail - 1);
  detail[sizeof detail - 1] = '\0';
  if (e == GB_OK) {
    gb_row r = gb_row_empty();
    r.run_id = "full";
    r.gpu_type = "T";
    r.benchmark = "b";
    r.case_name = "c";
    r.metric = "m";
    r.value = 1;
    r.detail = detail;
    while (ce == GB_OK && commits < 1000) {
      gb_writer_add(&w, &r);
      gb_writer_add(&w, &r);
      if ((ce = gb_writer_commit(&w)) == GB_OK) commits++;
    }
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    gb_writer_close(&w);
  }
  gb_results back = {0};
  gb_err re = gb_results_read(res, &back);
  size_t nrows = back.nrows;
  gb_results_free(&back);
  ck_assert_int_eq(umount(mnt), 0);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "plan.csv: write failed: No space left on device");
  ck_assert(!left);
  ck_assert_int_eq(temps, 0);
  ck_assert_int_eq(e, GB_OK);
  ck_assert_int_eq(ce, GB_E_IO);
  EXPECT_HAS(msg, "results.csv: write failed: No space left on device");
  ck_assert_int_eq(re, GB_OK);
  ck_assert_uint_eq(nrows, 2 * commits); /* every commit that returned, nothing of the one that failed */
  printf("test_tmpfs_full: 64 KiB tmpfs: plan --csv exit 2, no file; results writer: %zu commits, then %s\n", commits,
         msg);
  free(out);
}
END_TEST

/* An output that names an input: refused with exit 2 before anything is
 * written (compare A.csv B.csv --junit A.csv overwrote its own input and
 * exited 0). */
START_TEST(test_output_is_input) {
  char *good = good_results();
  const char *a = tpath("a.csv"), *b = tpath("b.csv"), *wl = tpath("w.ini");
  puts_file(a, good);
  puts_file(b, good);
  const char *wtext = "[workload]\ntype = training\nparams = 7e9\ntokens = 1e12\ntokens_per_step = 4e6\n";
  puts_file(wl, wtext);
  char *out;
  int rc = gpubench(&out, "compare", a, b, "--junit", a, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "the output is also an input");
  free(out);
  rc = gpubench(&out, "compare", a, b, "--markdown", b, NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
  char *back = gb_test_slurp(a, NULL);
  ck_assert_str_eq(back, good);
  free(back);
  back = gb_test_slurp(b, NULL);
  ck_assert_str_eq(back, good);
  free(back);
  rc = gpubench(&out, "plan", wl, "--no-measured", "--csv", wl, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "w.ini: the output is also an input");
  free(out);
  back = gb_test_slurp(wl, NULL);
  ck_assert_str_eq(back, wtext);
  free(back);
  /* report: an input where it writes report.md */
  const char *dir = tpath("rep");
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  const char *in_dir = tpath("rep/report.md");
  puts_file(in_dir, good);
  rc = gpubench(&out, "report", in_dir, "--out", dir, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "would overwrite the input");
  free(out);
  back = gb_test_slurp(in_dir, NULL);
  ck_assert_str_eq(back, good);
  free(back);
  /* but a plan_sensitivity.csv kept beside the report is only read when
   * results are given (scripts/gen-examples.sh): not refused */
  const char *sens_dir = tpath("rep2");
  ck_assert_int_eq(mkdir(sens_dir, 0755), 0);
  const char *sens = tpath("rep2/plan_sensitivity.csv");
  puts_file(sens, "scenario,factor,top_gpu_type,top_gpu_count,top_provider,top_offering,hours,cost_usd,changed\n");
  rc = gpubench(&out, "report", a, "--plan-sensitivity", sens, "--out", sens_dir, NULL);
  ck_assert_msg(!strstr(out, "would overwrite"), "refused: %s", out);
  free(out);
  /* every baseline of a multi-run compare counts as an input */
  const char *c = tpath("c.csv");
  puts_file(c, good);
  rc = gpubench(&out, "compare", a, b, c, "--junit", b, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "the output is also an input");
  free(out);
  rc = gpubench(&out, "compare", a, b, c, "--markdown", c, NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
  back = gb_test_slurp(c, NULL);
  ck_assert_str_eq(back, good);
  free(back);
  back = gb_test_slurp(b, NULL);
  ck_assert_str_eq(back, good);
  free(back);
  free(good);
}
END_TEST

/* A FIFO given as an input hung the command forever (a blocking open with
 * no writer): now exit 2 at once, naming it. Bounded by alarm(). */
START_TEST(test_fifo_input) {
  char *good = good_results();
  const char *ok = tpath("good.csv"), *fifo = tpath("fifo.csv");
  puts_file(ok, good);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  alarm(60);
  char *out;
  int rc = gpubench(&out, "compare", fifo, ok, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "fifo.csv: not a regular file (a FIFO");
  free(out);
  rc = gpubench(&out, "compare", ok, ok, "--config", fifo, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "fifo.csv");
  free(out);
  rc = gpubench(&out, "plan", fifo, "--no-measured", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "fifo.csv");
  free(out);
  rc = gpubench(&out, "report", fifo, "--out", tpath("rep"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "fifo.csv: not a regular file (a FIFO");
  free(out);
  alarm(0);
  free(good);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("badinput");
  TCase *tc = tcase_create("results");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_loop_test(tc, test_bad_results, 0, (int)(sizeof k_bad_results / sizeof k_bad_results[0]));
  tcase_add_test(tc, test_accepted_results);
  tcase_add_test(tc, test_million_rows);
  tcase_add_test(tc, test_not_a_file);
  tcase_add_test(tc, test_unreadable);
  suite_add_tcase(s, tc);
  tc = tcase_create("planner");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_loop_test(tc, test_bad_plan_inputs, 0, (int)(sizeof k_bad_plan / sizeof k_bad_plan[0]));
  tcase_add_test(tc, test_plan_inputs_bom_crlf_dup);
  suite_add_tcase(s, tc);
  tc = tcase_create("outputs");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_compare_outputs);
  tcase_add_test(tc, test_plan_outputs);
  tcase_add_test(tc, test_report_outputs);
  tcase_add_test(tc, test_run_usage);
  tcase_add_test(tc, test_tmpfs_full);
  tcase_add_test(tc, test_output_is_input);
  tcase_add_test(tc, test_fifo_input);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
