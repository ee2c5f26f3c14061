/* check_store_harden: the results store as hostile as a file
 * (docs/reliability.md, round four, classes 1-6): a store is an input to
 * every output guard, a row's identity is collision-free, selections are a
 * strict grammar with one "selected nothing", nothing read from a store is
 * trusted, readers open read-only and never wait for a writer, re-import
 * says what it did. Against SQLite always and the PostgreSQL of
 * GB_STORE_TEST_PG (scripts/test-store.sh) when it is set; the commands
 * run as subprocesses. */
#include <check.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_store.h"
#include "gb_store_int.h"
#include "testutil.h"

static int nengines(void) { return getenv("GB_STORE_TEST_PG") && getenv("GB_STORE_TEST_PG")[0] ? 2 : 1; }

static char g_dir[4096];

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "%s", gb_test_tmpdir());
  unsetenv("GPUBENCH_DATA_DIR");
}

/* Runs sql straight through libpq on the test database (NULL: ok). */
static void pg_exec(const char *sql) {
  const char *url = getenv("GB_STORE_TEST_PG");
  PGconn *c = PQconnectdb(strncmp(url, "pg:", 3) == 0 ? url + 3 : url);
  ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
  PGresult *r = PQexec(c, sql);
  ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql,
                PQerrorMessage(c));
  PQclear(r);
  PQfinish(c);
}

/* A fresh, empty store of engine i. */
static const char *fresh_url(int i) {
  static char url[4200];
  if (i == 1) {
    snprintf(url, sizeof url, "%s", getenv("GB_STORE_TEST_PG"));
    pg_exec("SET client_min_messages = warning; DROP TABLE IF EXISTS gb_rows, gb_runs, gb_meta, gb_changes, gb_verdicts CASCADE");
  } else {
    snprintf(url, sizeof url, "%s/store.db", g_dir);
    unlink(url);
  }
  return url;
}

/* Runs sql on the store at url, bypassing gpubench (a tampering hand). */
static void tamper(int engine, const char *url, const char *sql) {
  if (engine == 1) {
    pg_exec(sql);
    return;
  }
  sqlite3 *db;
  ck_assert_int_eq(sqlite3_open(url, &db), SQLITE_OK);
  char *err = NULL;
  ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s", sql, err ? err : "");
  sqlite3_close(db);
}

static const char *aa(int k) {
  static char path[8][4096];
  char name[64];
  snprintf(name, sizeof name, "aa/aa-quick-%d.csv", k);
  snprintf(path[k], sizeof path[k], "%s", gb_fixture(name));
  return path[k];
}

static gb_store *open_ok(const char *url) {
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  return s;
}

static size_t count_rows(gb_store *s, const char *sel) {
  gb_results r = {0};
  gb_err e = gb_store_read(s, sel, &r);
  size_t n = e ? 0 : r.nrows;
  gb_results_free(&r);
  return n;
}

/* Runs gpubench with the arguments (NULL-terminated); stdout and stderr
 * into *out (malloc'd). Returns the exit status. */
static int gpubench(char **out, ...) {
  char log[4300];
  snprintf(log, sizeof log, "%s/gpubench.log", g_dir);
  va_list ap;
  va_start(ap, out);
  int rc = gb_test_gpubench_va(log, out, ap);
  va_end(ap);
  return rc;
}

#define EXPECT_RC(rc, want, out) ck_assert_msg((rc) == (want), "exit %d, expected %d; output:\n%.3000s", rc, want, out)
#define EXPECT_HAS(text, needle) ck_assert_msg(strstr(text, needle) != NULL, "\"%s\" not in:\n%.3000s", needle, text)

/* ---- 2. row identity ---- */

START_TEST(test_sha256_vectors) {
  char h[65];
  gb_store_sha256_hex("abc", 3, h);
  ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  gb_store_sha256_hex("", 0, h);
  ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* two blocks once padded */
  gb_store_sha256_hex(two, strlen(two), h);
  ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *a = malloc(1000000);
  memset(a, 'a', 1000000);
  gb_store_sha256_hex(a, 1000000, h);
  ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(a);
}
END_TEST

/* Rows that differ only where the old key ('|'-joined, cut at 4096 bytes)
 * could not tell them apart are distinct rows; each is stored once. */
START_TEST(test_row_identity) {
  gb_store *s = open_ok(fresh_url(_i));
  gb_results in = {0};
  ck_assert_int_eq(gb_results_read(aa(1), &in), GB_OK);
  gb_row r[6];
  for (int i = 0; i < 6; i++) r[i] = in.rows[0];
  r[0].case_name = "a|b", r[0].dtype = "c"; /* old key ...|a|b|c|... for both */
  r[1].case_name = "a", r[1].dtype = "b|c";
  r[2].host = "h|x", r[2].gpu_uuid = "u"; /* in the host/GPU part too */
  r[3].host = "h", r[3].gpu_uuid = "x|u";
  static char s1[6000], s2[6000];
  memset(s1, 's', sizeof s1 - 1);
  memcpy(s2, s1, sizeof s2);
  s2[5000] = 't'; /* the two differ only past the old 4096-byte cut */
  r[4].settings = s1, r[5].settings = s2;
  gb_store_counts c = {0};
  ck_assert_msg(gb_store_add(s, r, 6, "ids", true, &c) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(c.rows_added, 6);
  ck_assert_uint_eq(c.rows_present, 0);
  gb_store_counts again = {0};
  ck_assert_msg(gb_store_add(s, r, 6, "ids", true, &again) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(again.rows_added, 0);
  ck_assert_uint_eq(again.rows_present, 6);
  gb_results back = {0};
  ck_assert_msg(gb_store_read(s, "campaign=ids", &back) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(back.nrows, 6);
  ck_assert_str_eq(back.rows[1].dtype, "b|c");
  ck_assert_str_eq(back.rows[5].settings, s2);
  gb_results_free(&back);
  gb_results_free(&in);
  gb_store_close(s);
}
END_TEST

/* A version-4 store (rows keyed by the old hash) is upgraded: its rows get
 * their identity, so importing them again adds nothing, and a row that the
 * old key confused with one of them is added. */
START_TEST(test_identity_migration) {
  const char *url = fresh_url(_i);
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open_at(url, 4, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_sql_exec(s, "INSERT INTO gb_runs (run_id, campaign, host, gpu_type, gpu_name, gpu_uuid, driver, "
                                  "cuda, git_sha, profile, started, complete) VALUES ('r1', 'c1', 'h', 'T', 'n', 'u', "
                                  "'d', '13.0', 'abc', 'quick', '2026-01-01T00:00:00Z', 1)"), GB_OK);
  ck_assert_int_eq(gb_sql_exec(s, "INSERT INTO gb_rows (khash, run_id, timestamp, host, gpu_type, gpu_name, "
                                  "gpu_count, driver, cuda, benchmark, \"case\", dtype, metric, unit, value, status, "
                                  "detail) VALUES (7, 'r1', '2026-01-01T00:00:00Z', 'h', 'T', 'n', 1, 'd', '13.0', "
                                  "'membw', 'a|b', 'c', 'gbps', 'GB/s', 2500.5, 'ok', '')"), GB_OK);
  gb_store_close(s);
  s = open_ok(url);
  ck_assert_int_eq(gb_store_version(s), GB_STORE_VERSION);
  gb_results r = {0};
  ck_assert_msg(gb_store_read(s, "all", &r) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(r.nrows, 1);
  gb_store_counts c = {0};
  ck_assert_msg(gb_store_add(s, r.rows, 1, NULL, true, &c) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(c.rows_added, 0);
  gb_row other = r.rows[0];
  other.case_name = "a", other.dtype = "b|c";
  ck_assert_msg(gb_store_add(s, &other, 1, NULL, true, &c) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(c.rows_added, 1);
  ck_assert_uint_eq(count_rows(s, "run=r1"), 2);
  gb_results_free(&r);
  gb_store_close(s);
}
END_TEST

/* ---- 3. selections ---- */

START_TEST(test_selection_grammar) {
  static const char *const bad[][2] = {
      {"", "an empty selection"},
      {",", "part 1 is empty"},
      {",,", "part 1 is empty"},
      {"campaign=a,", "part 2 is empty"},
      {",campaign=a", "part 1 is empty"},
      {"campaign=a,,host=b", "part 2 is empty"},
      {"campaign=", "has no value"},
      {"all,host=x", "part 1 \"all\" is not KEY=VALUE"},
      {"host", "\"host\" is not KEY=VALUE"},
      {"=x", "is not KEY=VALUE"},
      {"colour=red", "no key \"colour\""},
      {"since=yesterday", "since=yesterday: not an ISO 8601 time"},
      {"until=now", "until=now: not an ISO 8601 time"},
      {"since=2026-02-30", "since=2026-02-30: no such day"},
      {"since=2025-02-29", "no such day"},
      {"until=2026-13-01", "no such month"},
      {"since=2026-12-04T25:00", "no such time of day"},
      {"since=2026-12-04T10:61:00Z", "no such time of day"},
      {"since=2026-12-04T10:00+02:00", "in UTC"},
      {"since=2026-12-04T10:00:00.5Z", "whole seconds"},
      {"host=a,since=2026-1-1", "part 2: since=2026-1-1"},
      {"m=abc", "m=abc is not a non-negative whole number"},
      {"bytes=-1", "not a non-negative whole number"},
      {"k=1e3", "not a non-negative whole number"},
      {"n=99999999999999999999", "not a non-negative whole number"},
      {"last=0", "not a count of campaigns"},
      {"host=a,host=b", "host given twice"},
      {"campaign=\"a", "a quote that is not closed"},
      {"campaign=\"a\"b", "text after its closing quote"},
  };
  gb_sel_sql q;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(gb_sel_parse("s.db", bad[i][0], &q) == GB_E_USAGE, "\"%s\" was accepted", bad[i][0]);
    EXPECT_HAS(gb_errmsg(), bad[i][1]);
    EXPECT_HAS(gb_errmsg(), "s.db: ");
  }
  static const char *const good[] = {"all", "since=2024-02-29", "until=2026-12-04T05:32:25Z", "since=2026",
                                     "since=2026-03", "since=2026-03-01T12:00", "campaign=\"a,b\"",
                                     "case=\"\"", "host=a=b", "m=0,n=4096,k=4096,bytes=0,last=3"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    ck_assert_msg(gb_sel_parse("s.db", good[i], &q) == GB_OK, "%s: %s", good[i], gb_errmsg());
  /* the time is compared without its Z, as text with the stored starts */
  ck_assert_int_eq(gb_sel_parse("s.db", "until=2026-12-04T05:32Z", &q), GB_OK);
  ck_assert_str_eq(q.all.param[0], "2026-12-04T05:32");
}
END_TEST

/* A name holding the selection's delimiters is stored and selected,
 * quoted; gb_store_sel_quote writes what selects it. */
START_TEST(test_selection_quoted_names) {
  gb_store *s = open_ok(fresh_url(_i));
  gb_results in = {0};
  ck_assert_int_eq(gb_results_read(aa(1), &in), GB_OK);
  for (size_t i = 0; i < in.nrows; i++) in.rows[i].case_name = "x,\"y\"=z";
  ck_assert_msg(gb_store_add(s, in.rows, in.nrows, "night,1", true, NULL) == GB_OK, "%s", gb_errmsg());
  gb_buf sel = {0};
  ck_assert_int_eq(gb_buf_puts(&sel, "campaign="), GB_OK);
  ck_assert_int_eq(gb_store_sel_quote("night,1", &sel), GB_OK);
  ck_assert_int_eq(gb_buf_puts(&sel, ",case="), GB_OK);
  ck_assert_int_eq(gb_store_sel_quote("x,\"y\"=z", &sel), GB_OK);
  ck_assert_str_eq(sel.data, "campaign=\"night,1\",case=\"x,\"\"y\"\"=z\"");
  size_t stored = count_rows(s, "campaign=\"night,1\""); /* rows that differed only by case are one now */
  ck_assert_uint_gt(stored, 100);
  ck_assert_uint_eq(count_rows(s, sel.data), stored);
  ck_assert_uint_eq(count_rows(s, "campaign=night"), 0);
  gb_buf_free(&sel);
  gb_results_free(&in);
  gb_store_close(s);
}
END_TEST

/* Every reader of a selection (library): no row is GB_E_INPUT, "selected
 * nothing", and the CSV writer writes nothing, not a header alone. */
START_TEST(test_selected_nothing_library) {
  const char *url = fresh_url(_i);
  gb_store *s = open_ok(url);
  ck_assert_int_eq(gb_store_import(s, aa(1), "c1", NULL), GB_OK);
  gb_results r = {0};
  ck_assert_int_eq(gb_store_read(s, "campaign=nosuch", &r), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), "selection \"campaign=nosuch\" selected nothing");
  char path[4300];
  snprintf(path, sizeof path, "%s/out.csv", g_dir);
  FILE *f = fopen(path, "w");
  size_t n = 99;
  ck_assert_int_eq(gb_store_write_csv(s, "campaign=nosuch", f, &n), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), "selected nothing");
  fclose(f);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_size, 0);
  ck_assert_uint_eq(n, 0);
  gb_store_close(s);
  gb_store_tmp t;
  const char *sels[] = {"campaign=c1", "campaign=nosuch"};
  ck_assert_int_eq(gb_store_export_tmp(url, sels, 2, &t), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), "selected nothing");
  gb_store_tmp_free(&t);
}
END_TEST

/* ---- 4. nothing read from a store is trusted ---- */

START_TEST(test_tampered_version) {
  static const char *const bad[][2] = {
      {"-5", "\"-5\""}, {"-2147483648", "\"-2147483648\""}, {"0", "\"0\""},
      {"99999999999999999999", "\"99999999999999999999\""}, {"abc", "\"abc\""}, {"", "\"\""},
      {"1e3", "\"1e3\""}, {" 3", "\" 3\""}, {"1001", "\"1001\""},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *url = fresh_url(_i);
    gb_store_close(open_ok(url));
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE gb_meta SET value = '%s' WHERE key = 'schema_version'", bad[i][0]);
    tamper(_i, url, sql);
    gb_store *s = NULL;
    ck_assert_msg(gb_store_open(url, &s) == GB_E_INPUT, "version \"%s\" was taken", bad[i][0]);
    ck_assert_ptr_null(s);
    EXPECT_HAS(gb_errmsg(), "schema version is ");
    EXPECT_HAS(gb_errmsg(), bad[i][1]);
    EXPECT_HAS(gb_errmsg(), "damaged or not a gpubench store");
  }
  const char *url = fresh_url(_i);
  gb_store_close(open_ok(url));
  tamper(_i, url, "DELETE FROM gb_meta");
  gb_store *s = NULL;
  ck_assert_int_eq(gb_store_open(url, &s), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), "schema version is missing");
  /* a newer gpubench's store is still told apart */
  tamper(_i, url, "INSERT INTO gb_meta (key, value) VALUES ('schema_version', '9')");
  ck_assert_int_eq(gb_store_open(url, &s), GB_E_INPUT);
  EXPECT_HAS(gb_errmsg(), "schema version 9, written by a newer gpubench");
}
END_TEST

/* Each tampered value is refused as the CSV reader refuses the field. */
START_TEST(test_tampered_values) {
  struct {
    const char *set, *want;
    int engines; /* 1: SQLite only (PostgreSQL's text cannot hold it) */
  } bad[] = {
      {"value = -1", "value: must not be negative", 2},
      {"gpu_count = 0", "gpu_count: not a GPU count", 2},
      {"bytes = -5", "bytes: not a non-negative integer", 2},
      {"rep = 2000000", "rep: not a repetition index", 2},
      {"status = 'bogus'", "status: not one of ok", 2},
      {"value = NULL", "needs a value", 2},
      {"benchmark = ''", "benchmark: must not be empty", 2},
      {"m = 'x'", "m: not a non-negative integer", 1},
      {"gpu_count = 2.5", "gpu_count: not a GPU count", 1},
      {"host = CAST(X'610062' AS TEXT)", "host: holds a NUL byte", 1},
      {"host = CAST(X'61ff' AS TEXT)", "host: not valid UTF-8", 1},
      {"detail = printf('%.*c', 1048577, 'x')", "detail: longer than the 1048576-byte limit", 1},
      {"detail = repeat('x', 1048577)", "detail: longer than the 1048576-byte limit", -1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if ((bad[i].engines == 1 && _i == 1) || (bad[i].engines == -1 && _i == 0)) continue;
    const char *url = fresh_url(_i);
    gb_store *s = open_ok(url);
    ck_assert_int_eq(gb_store_import(s, aa(1), "c1", NULL), GB_OK);
    gb_store_close(s);
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE gb_rows SET %s WHERE id = (SELECT MIN(id) FROM gb_rows)", bad[i].set);
    tamper(_i, url, sql);
    s = open_ok(url);
    gb_results r = {0};
    ck_assert_msg(gb_store_read(s, "campaign=c1", &r) == GB_E_INPUT, "%s was read", bad[i].set);
    EXPECT_HAS(gb_errmsg(), bad[i].want);
    EXPECT_HAS(gb_errmsg(), "damaged");
    ck_assert_int_eq(gb_store_read(s, "gpu_type=H200-SXM-141GB", &r), GB_E_INPUT); /* by row keys too */
    gb_results_free(&r);
    gb_store_close(s);
  }
}
END_TEST

/* Every command that reads a selection, on a selection of no row, an empty
 * one, one of commas and one with a word for a time: exit 2, the same
 * message, no output file. */
START_TEST(test_selected_nothing_commands) {
  const char *url = fresh_url(_i);
  char *out = NULL;
  int rc = gpubench(&out, "import", "--store", url, "--campaign", "c1", aa(1), aa(2), NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  char rep[4300], prom[4300];
  snprintf(rep, sizeof rep, "%s/rep", g_dir);
  snprintf(prom, sizeof prom, "%s/out.prom", g_dir);
  static const char *const sels[][2] = {{"campaign=nosuch", "selected nothing"},
                                        {"", "an empty selection"},
                                        {",,", "part 1 is empty"},
                                        {"since=yesterday", "since=yesterday: not an ISO 8601 time"}};
  for (size_t k = 0; k < sizeof sels / sizeof sels[0]; k++) {
    const char *sel = sels[k][0];
    char *const cmds[][10] = {
        {"compare", "--store", (char *)url, (char *)sel, "campaign=c1", NULL},
        {"compare", "--store", (char *)url, "campaign=c1", (char *)sel, NULL},
        {"history", "--store", (char *)url, (char *)sel, NULL},
        {"export", "--store", (char *)url, "--out", prom, (char *)sel, NULL},
        {"export", "--store", (char *)url, "--csv", (char *)sel, NULL},
        {"report", "--store", (char *)url, "--out", rep, (char *)sel, NULL},
        {"plan", "--store", (char *)url, "--measured", (char *)sel, NULL},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
      char *const *a = cmds[c];
      rc = gpubench(&out, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
      ck_assert_msg(rc == 2, "%s on \"%s\": exit %d\n%.2000s", a[0], sel, rc, out);
      if (!(c == 6 && !sel[0])) EXPECT_HAS(out, sels[k][1]); /* plan's parser: "--measured needs a value" */
      free(out);
    }
    ck_assert_int_ne(access(prom, F_OK), 0);
    ck_assert_int_ne(access(rep, F_OK), 0);
  }
}
END_TEST

/* ---- 1. a store is an input ---- */

/* The operands a command needs to get as far as its output guard. */
static void operands(const char *cmd, const char **extra, size_t *n) {
  static const struct {
    const char *cmd, *ops[2];
  } k[] = {{"compare", {"all", "all"}}, {"export", {"all"}}, {"history", {"all"}}, {"report", {"all"}}};
  *n = 0;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strcmp(k[i].cmd, cmd) == 0)
      for (size_t j = 0; j < 2 && k[i].ops[j]; j++) extra[(*n)++] = k[i].ops[j];
}

static bool takes_store(const gb_opt_cmd *c) {
  for (const gb_opt *o = c->options; o && o->name; o++)
    if (strcmp(o->name, "store") == 0) return true;
  return false;
}

/* gpubench CMD --store STORE --OPT TARGET OPERANDS: exit 2, the store as
 * it was (and still a store). */
static void refused(const char *store, const char *cmd, const char *opt, const char *target, const char *want) {
  const char *extra[2];
  size_t n;
  operands(cmd, extra, &n);
  char flag[64];
  snprintf(flag, sizeof flag, "--%s", opt);
  size_t before_len;
  char *before = gb_test_slurp(store, &before_len);
  char *out = NULL;
  int rc = gpubench(&out, cmd, "--store", store, flag, target, n > 0 ? extra[0] : NULL, n > 1 ? extra[1] : NULL, NULL);
  ck_assert_msg(rc == 2, "%s --store %s %s %s: exit %d\n%.2000s", cmd, store, flag, target, rc, out);
  if (want) EXPECT_HAS(out, want);
  else /* run: two outputs (the store is one); --resume of a -wal that is not there: no such file */
    ck_assert_msg(strstr(out, "also an input") || strstr(out, "two outputs name one file") ||
                      (strcmp(opt, "resume") == 0 && access(target, F_OK) != 0 && strstr(out, "no such file")),
                  "%.2000s", out);
  size_t after_len;
  char *after = gb_test_slurp(store, &after_len);
  ck_assert_msg(after_len == before_len && memcmp(before, after, before_len) == 0, "%s %s changed the store", cmd,
                flag);
  free(before), free(after), free(out);
}

/* Every output option (.writes) of every command that takes --store,
 * pointed at the SQLite store, its -wal and its -shm file (absent, then
 * held open by a reader so that they exist), and every output directory
 * at the store, or at the folder of a store named as a file it writes. */
START_TEST(test_store_is_an_input) {
  char store[4300], sub[4300], png[4400], wal[4400], shm[4400];
  snprintf(store, sizeof store, "%s/results.db", g_dir);
  snprintf(sub, sizeof sub, "%s/sub", g_dir);
  snprintf(png, sizeof png, "%s/trend.png", sub);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  char *out = NULL;
  ck_assert_int_eq(gpubench(&out, "import", "--store", store, aa(1), NULL), 0);
  free(out);
  ck_assert_int_eq(gpubench(&out, "import", "--store", png, aa(1), NULL), 0);
  free(out);
  snprintf(wal, sizeof wal, "%s-wal", store);
  snprintf(shm, sizeof shm, "%s-shm", store);
  size_t walked = 0;
  for (int held = 0; held < 2; held++) {
    sqlite3 *db = NULL;
    if (held) { /* a reader in WAL mode keeps -wal and -shm */
      ck_assert_int_eq(sqlite3_open(store, &db), SQLITE_OK);
      ck_assert_int_eq(sqlite3_exec(db, "BEGIN; SELECT count(*) FROM gb_rows", NULL, NULL, NULL), SQLITE_OK);
      ck_assert_int_eq(access(shm, F_OK), 0);
    }
    for (const gb_command *c = gb_commands; c->spec; c++) {
      if (!takes_store(c->spec)) continue;
      for (const gb_opt *o = c->spec->options; o->name; o++) {
        if (o->writes == GB_OPT_WRITES_FILE) {
          const char *t[] = {store, wal, shm};
          for (int k = 0; k < 3; k++) refused(store, c->spec->name, o->name, t[k], NULL); /* run: two outputs */
        } else if (o->writes == GB_OPT_WRITES_DIR) {
          refused(store, c->spec->name, o->name, store, "also an input");
          refused(png, c->spec->name, o->name, sub, "would overwrite the input");
        } else {
          continue;
        }
        walked++;
      }
    }
    if (db) sqlite3_close(db);
  }
  /* compare (2), export (1), history (1), plan (4), report (1), run (2): twice */
  ck_assert_uint_eq(walked, 2 * 11);
  /* run --store writes the store: its results file is not the store */
  refused(store, "run", "out", store, "two outputs name one file");
  /* import writes the store: never over a file it reads */
  char csv[4300];
  snprintf(csv, sizeof csv, "%s/r.csv", g_dir);
  size_t len;
  char *text = gb_test_slurp(aa(2), &len);
  ck_assert_int_eq(gb_test_write(csv, text, len), 0);
  free(text);
  int rc = gpubench(&out, "import", "--store", csv, csv, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "also an input");
  free(out);
}
END_TEST

/* Standard output appended to the store (export --csv ... >> results.db)
 * is refused, and the store keeps its bytes. */
START_TEST(test_stdout_is_the_store) {
  char store[4300];
  snprintf(store, sizeof store, "%s/results.db", g_dir);
  char *out = NULL;
  ck_assert_int_eq(gpubench(&out, "import", "--store", store, aa(1), NULL), 0);
  free(out);
  size_t before_len;
  char *before = gb_test_slurp(store, &before_len);
  const char *gb = gb_test_gpubench();
  char *const argv[][8] = {{(char *)gb, "export", "--store", store, "--csv", "all", NULL},
                           {(char *)gb, "compare", "--store", store, "all", "all", NULL},
                           {(char *)gb, "history", "--store", store, "all", NULL}};
  for (size_t i = 0; i < sizeof argv / sizeof argv[0]; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(store, O_WRONLY | O_APPEND);
      int null = open("/dev/null", O_WRONLY);
      if (fd < 0 || null < 0 || dup2(fd, 1) < 0 || dup2(null, 2) < 0) _exit(99);
      execv(gb, argv[i]);
      _exit(98);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d", argv[i][1], st);
  }
  size_t after_len;
  char *after = gb_test_slurp(store, &after_len);
  ck_assert_msg(after_len == before_len && memcmp(before, after, before_len) == 0, "the store was changed");
  free(before), free(after);
}
END_TEST

/* ---- 5. read-only and concurrent readers ---- */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* A writer in another connection holding its write transaction open (and,
 * on PostgreSQL, the migration's advisory lock, which every open took):
 * each reader, library and command, finishes at once, in its snapshot. */
START_TEST(test_reader_never_waits) {
  const char *url = fresh_url(_i);
  gb_store *s = open_ok(url);
  ck_assert_int_eq(gb_store_import(s, aa(1), "c1", NULL), GB_OK);
  gb_store_close(s);
  sqlite3 *db = NULL;
  PGconn *pg = NULL;
  const char *hold = "BEGIN; INSERT INTO gb_meta (key, value) VALUES ('writer', 'holds')";
  if (_i == 0) {
    ck_assert_int_eq(sqlite3_open(url, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO gb_meta (key, value) VALUES ('writer', 'holds')",
                                  NULL, NULL, NULL), SQLITE_OK);
  } else {
    pg = PQconnectdb(strncmp(url, "pg:", 3) == 0 ? url + 3 : url);
    ck_assert_int_eq(PQstatus(pg), CONNECTION_OK);
    PQclear(PQexec(pg, hold));
    PQclear(PQexec(pg, "SELECT pg_advisory_xact_lock(7340392)"));
  }
  double t0 = now_s();
  s = NULL;
  ck_assert_msg(gb_store_open_read(url, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(count_rows(s, "all"), 528);
  /* the snapshot: a run committed meanwhile by another writer is not seen */
  if (_i == 0) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  else PQclear(PQexec(pg, "ROLLBACK"));
  gb_store *w = open_ok(url);
  ck_assert_int_eq(gb_store_import(w, aa(2), "c2", NULL), GB_OK);
  gb_store_close(w);
  ck_assert_uint_eq(count_rows(s, "all"), 528);
  gb_store_close(s);
  s = open_ok(url);
  ck_assert_uint_eq(count_rows(s, "all"), 1056);
  gb_store_close(s);
  /* the commands, with the writer holding again */
  if (_i == 0) ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE; DELETE FROM gb_meta WHERE key = 'none'", NULL,
                                             NULL, NULL), SQLITE_OK);
  else PQclear(PQexec(pg, "BEGIN; SELECT pg_advisory_xact_lock(7340392)"));
  char *out = NULL;
  int rc = gpubench(&out, "export", "--store", url, "--csv", "campaign=c2", NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  rc = gpubench(&out, "compare", "--store", url, "campaign=c1", "campaign=c2", NULL);
  ck_assert_msg(rc == 0 || rc == 1 || rc == 3, "exit %d\n%.2000s", rc, out);
  free(out);
  double took = now_s() - t0;
  ck_assert_msg(took < 20, "the readers took %.1f s behind a writer", took); /* a writer's wait is 60 s */
  if (db) sqlite3_close(db);
  if (pg) PQfinish(pg);
}
END_TEST

/* Runs argv as the nobody user when root (mode bits do not stop root),
 * stdout into out_path; returns the exit status. */
static int run_unprivileged(char *const argv[], const char *out_path) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out_path, O_WRONLY | O_TRUNC), null = open("/dev/null", O_WRONLY);
    if (fd < 0 || null < 0 || dup2(fd, 1) < 0 || dup2(null, 2) < 0) _exit(99);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(77);
    execv(argv[0], argv);
    _exit(98);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static size_t lines_of(const char *path) {
  char *t = gb_test_slurp(path, NULL);
  size_t n = 0;
  for (char *p = t; p && *p; p++) n += *p == '\n';
  free(t);
  return n;
}

/* A store the reader may not write: the file read-only, then its folder
 * too (no -shm can be made there): every reader command reads it. And a
 * reader never creates a store that is not there. */
START_TEST(test_read_only_store) {
  char dir[4300], store[4400], out_path[4300];
  snprintf(dir, sizeof dir, "%s/ro", g_dir);
  snprintf(store, sizeof store, "%s/results.db", dir);
  snprintf(out_path, sizeof out_path, "%s/stdout", g_dir);
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  char *out = NULL;
  ck_assert_int_eq(gpubench(&out, "import", "--store", store, "--campaign", "c1", aa(1), aa(2), NULL), 0);
  free(out);
  ck_assert_int_eq(chmod(g_dir, 0755), 0);
  ck_assert_int_eq(gb_test_write(out_path, "", 0), 0);
  ck_assert_int_eq(chmod(out_path, 0666), 0);
  ck_assert_int_eq(chmod(store, 0444), 0);
  const char *gb = gb_test_gpubench();
  for (int ro_dir = 0; ro_dir < 2; ro_dir++) {
    ck_assert_int_eq(chmod(dir, ro_dir ? 0555 : 0777), 0);
    char *const exp[] = {(char *)gb, "export", "--store", store, "--csv", "all", NULL};
    int rc = run_unprivileged(exp, out_path);
    if (rc == 77) return; /* cannot drop to nobody here */
    ck_assert_msg(rc == 0, "export of a read-only store (folder %s): exit %d", ro_dir ? "read-only" : "writable", rc);
    ck_assert_uint_eq(lines_of(out_path), 1 + 1056);
    char *const his[] = {(char *)gb, "history", "--store", store, "all", NULL};
    rc = run_unprivileged(his, out_path);
    ck_assert_msg(rc == 0 || rc == 3, "history: exit %d", rc);
    char *const cmp[] = {(char *)gb, "compare", "--store", store, "run=20261204T053224Z-vm-646c5c", "all", NULL};
    rc = run_unprivileged(cmp, out_path);
    ck_assert_msg(rc <= 1 || rc == 3, "compare: exit %d", rc);
  }
  ck_assert_int_eq(chmod(dir, 0755), 0);
  char missing[4400];
  snprintf(missing, sizeof missing, "%s/nosuch.db", g_dir);
  int rc = gpubench(&out, "export", "--store", missing, "--csv", "all", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "no such store");
  ck_assert_int_ne(access(missing, F_OK), 0);
  free(out);
}
END_TEST

/* ---- 6. importing again ---- */

static gb_err get_text(void *ctx, const gb_sql_val *val, size_t n) {
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  snprintf(ctx, 64, "%s", t ? t : "NULL");
  return GB_OK;
}

static void query_text(gb_store *s, const char *sql, const char *param, char out[64]) {
  const char *p[1] = {param};
  ck_assert_msg(s->eng->query(s, -1, sql, p, param ? 1 : 0, get_text, out, NULL) == GB_OK, "%s", gb_errmsg());
}

/* A run keeps the campaign it was stored under: importing it under
 * another is refused, naming both, and adds nothing of that file; without
 * --campaign, or with its own, importing again adds nothing and says so. */
START_TEST(test_reimport_other_campaign) {
  const char *url = fresh_url(_i);
  char *out = NULL;
  int rc = gpubench(&out, "import", "--store", url, "--campaign", "night-1", aa(1), NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  rc = gpubench(&out, "import", "--store", url, "--campaign", "night-2", aa(1), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "is stored under campaign \"night-1\", not \"night-2\"");
  EXPECT_HAS(out, aa(1));
  free(out);
  rc = gpubench(&out, "import", "--store", url, "--campaign", "night-2", aa(2), aa(1), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "the 1 file(s) before it were imported");
  free(out);
  gb_store *s = open_ok(url);
  ck_assert_uint_eq(count_rows(s, "campaign=night-1"), 528);
  ck_assert_uint_eq(count_rows(s, "campaign=night-2"), 528); /* aa(2) only */
  gb_store_close(s);
  rc = gpubench(&out, "import", "--store", url, aa(1), NULL);
  EXPECT_RC(rc, 0, out);
  EXPECT_HAS(out, "0 row(s) added, 528 already stored; 0 new run(s)");
  free(out);
  rc = gpubench(&out, "import", "--store", url, "--campaign", "night-1", aa(1), NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  /* a campaign named with the selection's delimiter: import says how to select it, and that selects it */
  rc = gpubench(&out, "import", "--store", url, "--campaign", "night,\"3\"", aa(3), NULL);
  EXPECT_RC(rc, 0, out);
  EXPECT_HAS(out, "select it as 'campaign=\"night,\"\"3\"\"\"'");
  free(out);
  rc = gpubench(&out, "export", "--store", url, "--csv", "campaign=\"night,\"\"3\"\"\"", NULL);
  EXPECT_RC(rc, 0, out);
  EXPECT_HAS(out, "528 row(s)");
  free(out);
}
END_TEST

/* The recovery import (docs/store.md): a run --store killed mid-way leaves
 * its run unfinished; the file, completed by --resume and imported, marks
 * it finished, and says so. A killed file's import never unmarks one. */
START_TEST(test_recovery_import_completes) {
  const char *url = fresh_url(_i);
  gb_store *s = open_ok(url);
  gb_results r = {0};
  ck_assert_int_eq(gb_results_read(aa(3), &r), GB_OK);
  char run_id[128], v[64];
  snprintf(run_id, sizeof run_id, "%s", r.rows[0].run_id);
  ck_assert_int_eq(gb_store_add(s, r.rows, 80, NULL, false, NULL), GB_OK); /* what the killed run --store left */
  query_text(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "0");
  gb_store_close(s);
  char *out = NULL;
  int rc = gpubench(&out, "import", "--store", url, aa(3), NULL);
  EXPECT_RC(rc, 0, out);
  EXPECT_HAS(out, "448 row(s) added, 80 already stored; 0 new run(s)");
  EXPECT_HAS(out, "1 run(s) stored unfinished are now marked finished");
  free(out);
  s = open_ok(url);
  query_text(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "1");
  gb_store_close(s);
  /* the same file with a commit marker (killed) changes nothing back */
  char path[4300], marker[4400];
  snprintf(path, sizeof path, "%s/killed.csv", g_dir);
  snprintf(marker, sizeof marker, "%s.committed", path);
  size_t len;
  char *text = gb_test_slurp(aa(3), &len);
  ck_assert_int_eq(gb_test_write(path, text, len), 0);
  ck_assert_int_eq(gb_test_write(marker, "x", 1), 0);
  free(text);
  rc = gpubench(&out, "import", "--store", url, path, NULL);
  EXPECT_RC(rc, 0, out);
  ck_assert_ptr_null(strstr(out, "marked finished"));
  free(out);
  s = open_ok(url);
  query_text(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "1");
  gb_store_close(s);
  gb_results_free(&r);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("store_harden");
  TCase *tc = tcase_create("engines");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 300);
  int n = nengines();
  tcase_add_test(tc, test_sha256_vectors);
  tcase_add_loop_test(tc, test_row_identity, 0, n);
  tcase_add_loop_test(tc, test_identity_migration, 0, n);
  tcase_add_test(tc, test_selection_grammar);
  tcase_add_loop_test(tc, test_selection_quoted_names, 0, n);
  tcase_add_loop_test(tc, test_selected_nothing_library, 0, n);
  tcase_add_loop_test(tc, test_selected_nothing_commands, 0, n);
  tcase_add_loop_test(tc, test_tampered_version, 0, n);
  tcase_add_loop_test(tc, test_tampered_values, 0, n);
  tcase_add_test(tc, test_store_is_an_input);
  tcase_add_loop_test(tc, test_reader_never_waits, 0, n);
  tcase_add_test(tc, test_read_only_store);
  tcase_add_loop_test(tc, test_reimport_other_campaign, 0, n);
  tcase_add_loop_test(tc, test_recovery_import_completes, 0, n);
  tcase_add_test(tc, test_stdout_is_the_store);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
