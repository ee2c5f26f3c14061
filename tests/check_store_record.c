/* What history and compare find, recorded in the store (schema step 7,
 * store/gb_store_record.c, cli/gb_history_record.c, cli/gb_compare_record.c):
 * on SQLite, and on the PostgreSQL of GB_STORE_TEST_PG too
 * (scripts/test-store.sh). A synthetic fleet of 3 nodes x 10 nights built
 * from the A/A campaign, node n1's bf16 GEMMs 10% slower from night 5:
 * history --record records exactly those changes, once; compare --record
 * each judged figure's verdict, once; the view holds each node's latest
 * headline verdict; a version-6 store migrates in one transaction. */
#include <check.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_gate.h"
#include "gb_store.h"
#include "gb_store_int.h"
#include "reportutil.h"
#include "testutil.h"

#define NODES 3
#define NIGHTS 10
#define SHIFT_NODE 1
#define SHIFT_NIGHT 5

static int nengines(void) { return getenv("GB_STORE_TEST_PG") && getenv("GB_STORE_TEST_PG")[0] ? 2 : 1; }

static const char *fresh_url(int i) {
  static char url[4096];
  if (i == 1) {
    snprintf(url, sizeof url, "%s", getenv("GB_STORE_TEST_PG"));
    PGconn *c = PQconnectdb(strncmp(url, "pg:", 3) == 0 ? url + 3 : url);
    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, "SET client_min_messages = warning; "
                            "DROP TABLE IF EXISTS gb_rows, gb_runs, gb_meta, gb_changes, gb_verdicts CASCADE");
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
  } else {
    snprintf(url, sizeof url, "%s/record.db", gb_test_tmpdir());
    for (const char *suf = ""; suf; suf = *suf ? (strcmp(suf, "-wal") == 0 ? "-shm" : NULL) : "-wal") {
      char p[4200];
      snprintf(p, sizeof p, "%s%s", url, suf);
      remove(p);
    }
  }
  return url;
}

static gb_err get_long(void *ctx, const gb_sql_val *val, size_t n) {
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  *(long *)ctx = t ? atol(t) : -1;
  return GB_OK;
}

static long count(gb_store *s, const char *sql) {
  long v = -1;
  ck_assert_msg(s->eng->query(s, -1, sql, NULL, 0, get_long, &v, NULL) == GB_OK, "%s: %s", sql, gb_errmsg());
  return v;
}

static bool shifted(const gb_row *r) { return strcmp(r->benchmark, "gemm") == 0 && strcmp(r->dtype, "bf16") == 0; }

/* The fleet of nodes (<= MAX_NODES) into url; *nshift: the figures of n1 that shift. */
#define MAX_NODES 9
static void make_fleet(const char *url, int nodes, size_t *nshift) {
  gb_results src = {0};
  ck_assert_msg(gb_results_read(gb_fixture("aa/aa-quick-1.csv"), &src) == GB_OK, "%s", gb_errmsg());
  gb_row *rows = malloc(src.nrows * sizeof *rows);
  static char run[MAX_NODES][64], host[MAX_NODES][16], ts[MAX_NODES][32], uuid[MAX_NODES][48], camp[32];
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  uint64_t lcg = 1;
  for (int night = 0; night < NIGHTS; night++) {
    snprintf(camp, sizeof camp, "night-%02d", night);
    for (int node = 0; node < nodes; node++) {
      snprintf(run[node], 64, "202601%02dT020000Z-n%d", night + 1, node);
      snprintf(host[node], 16, "n%d", node);
      snprintf(ts[node], 32, "2026-01-%02dT02:00:00Z", night + 1);
      snprintf(uuid[node], 48, "GPU-0000000%d-0000-0000-0000-000000000000", node);
      for (size_t i = 0; i < src.nrows; i++) {
        gb_row r = src.rows[i];
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        double f = 1 + ((double)(lcg >> 11) / 9007199254740992.0 - 0.5) * 0.02; /* +-1% */
        if (node == SHIFT_NODE && night >= SHIFT_NIGHT && shifted(&r)) f *= 0.9;
        r.run_id = run[node], r.host = host[node], r.timestamp = ts[node], r.gpu_uuid = uuid[node];
        r.campaign = camp;
        r.value *= f, r.min *= f, r.max *= f;
        rows[i] = r;
      }
      ck_assert_msg(gb_store_add(s, rows, src.nrows, camp, true, NULL) == GB_OK, "%s", gb_errmsg());
    }
  }
  /* the figures that shift: distinct keys of n1's ok bf16 GEMM rows */
  char **keys = calloc(src.nrows, sizeof *keys);
  size_t nk = 0;
  for (size_t i = 0; i < src.nrows; i++) {
    if (!shifted(&src.rows[i]) || src.rows[i].status != GB_STATUS_OK) continue;
    char *k = gb_gate_key_label(&src.rows[i]);
    bool seen = false;
    for (size_t j = 0; j < nk && !seen; j++) seen = strcmp(keys[j], k) == 0;
    if (seen) free(k);
    else keys[nk++] = k;
  }
  *nshift = nk;
  for (size_t j = 0; j < nk; j++) free(keys[j]);
  free(keys);
  free(rows);
  gb_store_close(s);
  gb_results_free(&src);
}

static int gpubench(char **out, ...) {
  char log[4200];
  snprintf(log, sizeof log, "%s/record.log", gb_test_tmpdir());
  va_list ap;
  va_start(ap, out);
  int rc = gb_test_gpubench_va(log, out, ap);
  va_end(ap);
  return rc;
}

#define EXPECT_RC(rc, want, out) ck_assert_msg((rc) == (want), "exit %d, expected %d; output:\n%.3000s", rc, want, out)

START_TEST(test_history_record) {
  const char *url = fresh_url(_i);
  size_t nshift = 0;
  make_fleet(url, NODES, &nshift);
  ck_assert_uint_gt(nshift, 0);
  char *out = NULL;
  int rc = gpubench(&out, "history", "--store", url, "--record", "all", NULL);
  EXPECT_RC(rc, 0, out);
  char want[128];
  snprintf(want, sizeof want, "history: %zu change point(s) and drift(s) on 3 node(s): %zu recorded now, 0 recorded before",
           nshift, nshift);
  ck_assert_msg(strstr(out, want), "\"%s\" not in:\n%.3000s", want, out);
  free(out);
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  /* exactly the injected change: n1's bf16 GEMMs, worse, between nights 5 and 6, about -10% */
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes"), (long)nshift);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes WHERE kind = 'change' AND host = 'n1' AND benchmark = "
                            "'gemm' AND dtype = 'bf16' AND direction = 'worse' AND run_before = '20260105T020000Z-n1' "
                            "AND run_after = '20260106T020000Z-n1' AND at_after = '2026-01-06T02:00:00Z' AND "
                            "change_pct < -8.5 AND change_pct > -11.5 AND p_value < 0.001 AND points = 10 AND "
                            "unit <> '' AND env = ''"), (long)nshift);
  gb_store_close(s);
  /* a second run adds nothing */
  rc = gpubench(&out, "history", "--store", url, "--record", "all", NULL);
  EXPECT_RC(rc, 0, out);
  snprintf(want, sizeof want, ": 0 recorded now, %zu recorded before", nshift);
  ck_assert_msg(strstr(out, want), "\"%s\" not in:\n%.3000s", want, out);
  free(out);
  /* one node named: judged alone, nothing new */
  rc = gpubench(&out, "history", "--store", url, "--record", "host=n1,benchmark=gemm", NULL);
  EXPECT_RC(rc, 0, out);
  ck_assert_msg(strstr(out, "on 1 node(s): 0 recorded now"), "%.3000s", out);
  free(out);
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes"), (long)nshift);
  gb_store_close(s);
  /* --record without --store is a usage error */
  rc = gpubench(&out, "history", "--record", gb_fixture("aa/aa-quick-1.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
}
END_TEST

START_TEST(test_compare_record) {
  const char *url = fresh_url(_i);
  size_t nshift = 0;
  make_fleet(url, NODES, &nshift);
  char *out = NULL;
  int rc = gpubench(&out, "compare", "--store", url, "--record", "last=5,before=night-08", "campaign=night-08", NULL);
  ck_assert_msg(rc == 0 || rc == 1, "exit %d: %.3000s", rc, out);
  ck_assert_msg(strstr(out, " recorded now, 0 recorded before"), "%.3000s", out);
  free(out);
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  long n8 = count(s, "SELECT count(*) FROM gb_verdicts");
  ck_assert_int_gt(n8, 0);
  /* each of the night's three runs, each judged figure once, with the run's campaign and start */
  ck_assert_int_eq(count(s, "SELECT count(DISTINCT run_id) FROM gb_verdicts WHERE campaign = 'night-08' AND "
                            "started = '2026-01-09T02:00:00Z'"), NODES);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_verdicts WHERE verdict = 'not-judged'"), 0);
  gb_store_close(s);
  rc = gpubench(&out, "compare", "--store", url, "--record", "last=5,before=night-08", "campaign=night-08", NULL);
  ck_assert_msg(strstr(out, ": 0 recorded now, "), "%.3000s", out);
  free(out);
  rc = gpubench(&out, "compare", "--store", url, "--record", "last=5,before=night-09", "campaign=night-09", NULL);
  free(out);
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  /* the view: one row per node and headline figure, the newest night's */
  long latest = count(s, "SELECT count(*) FROM gb_latest_verdicts");
  ck_assert_int_gt(latest, 0);
  ck_assert_int_eq(latest, count(s, "SELECT count(*) FROM gb_verdicts WHERE campaign = 'night-09' AND headline = 1"));
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_latest_verdicts WHERE campaign <> 'night-09' OR headline <> 1"), 0);
  ck_assert_int_eq(latest, count(s, "SELECT count(*) FROM (SELECT DISTINCT host, figure FROM gb_latest_verdicts) x"));
  gb_store_close(s);
  rc = gpubench(&out, "compare", "--record", gb_fixture("aa/aa-quick-1.csv"), gb_fixture("aa/aa-quick-2.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
}
END_TEST

/* recording through the library: idempotent, and a verdict of a run the
 * store lacks adds nothing */
START_TEST(test_record_api) {
  const char *url = fresh_url(_i);
  size_t nshift = 0;
  make_fleet(url, NODES, &nshift);
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  gb_store_change c[2] = {{.kind = "change", .host = "n0", .gpu_type = "T", .figure = "fig a", .benchmark = "gemm",
                           .case_name = "bf16", .dtype = "bf16", .metric = "tflops", .unit = "TFLOP/s", .gpu_count = 1,
                           .m = 8192, .n = 8192, .k = 8192, .bytes = GB_NA, .headline = true, .run_before = "r1",
                           .run_after = "r2", .at_before = "2026-01-01T00:00:00Z", .at_after = "2026-01-02T00:00:00Z",
                           .points = 10, .direction = "worse", .p_value = 1e-9, .mean_before = 100, .mean_after = 90,
                           .change_pct = -10, .env = ""},
                          {.kind = "drift", .host = "n0", .gpu_type = "T", .figure = "fig a", .benchmark = "gemm",
                           .case_name = "bf16", .dtype = "bf16", .metric = "tflops", .unit = "TFLOP/s", .gpu_count = 1,
                           .m = 8192, .n = 8192, .k = 8192, .bytes = GB_NA, .headline = true, .run_before = "r1",
                           .run_after = "r9", .at_before = "2026-01-01T00:00:00Z", .at_after = "2026-01-09T00:00:00Z",
                           .points = 10, .direction = "worse", .p_value = NAN, .mean_before = NAN, .mean_after = NAN,
                           .change_pct = -5, .env = ""}};
  size_t added = 99;
  ck_assert_msg(gb_store_record_changes(s, c, 2, &added) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(added, 2);
  ck_assert_msg(gb_store_record_changes(s, c, 2, &added) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(added, 0);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes WHERE p_value IS NULL"), 1);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes WHERE m = 8192 AND bytes IS NULL AND gpu_count = 1"), 2);
  gb_store_verdict v[2] = {{.run_id = "20260101T020000Z-n0", .host = "n0", .gpu_type = "T", .figure = "fig a",
                            .benchmark = "gemm", .case_name = "bf16", .dtype = "bf16", .metric = "tflops",
                            .unit = "TFLOP/s", .gpu_count = 1, .m = 8192, .n = 8192, .k = 8192, .bytes = GB_NA,
                            .headline = true, .verdict = "unchanged", .change_pct = 0.5,
                            .ratio = 1.005, .threshold_pct = 2, .p_value = 0.4, .base_median = 1, .cur_median = 1},
                           {.run_id = "no-such-run", .host = "n0", .gpu_type = "T", .figure = "fig a",
                            .benchmark = "gemm", .case_name = "", .dtype = "", .metric = "", .unit = "",
                            .gpu_count = 1, .m = GB_NA, .n = GB_NA, .k = GB_NA, .bytes = GB_NA, .verdict = "noise", .change_pct = NAN, .ratio = NAN, .threshold_pct = NAN,
                            .p_value = NAN, .base_median = NAN, .cur_median = NAN}};
  ck_assert_int_eq(gb_store_record_verdicts(s, v, 2, &added), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "no-such-run is not in the store"), "%s", gb_errmsg());
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_verdicts"), 0);
  ck_assert_msg(gb_store_record_verdicts(s, v, 1, &added) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(added, 1);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_verdicts WHERE campaign = 'night-00'"), 1);
  gb_store_close(s);
}
END_TEST

/* A version-6 store: step 7 fails on a table in its way and leaves the
 * store as it was (one transaction), then migrates once it is gone. */
START_TEST(test_migrate_7) {
  const char *url = fresh_url(_i);
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open_at(url, 6, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_store_import(s, gb_fixture("aa/aa-quick-1.csv"), "c1", NULL) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_sql_exec(s, "CREATE TABLE gb_verdicts (x INTEGER)"), GB_OK);
  gb_store_close(s);
  ck_assert_int_eq(gb_store_open(url, &s), GB_E_IO);
  ck_assert_msg(gb_store_open_at(url, 6, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_store_version(s), 6);
  ck_assert_int_eq(count(s, _i ? "SELECT count(*) FROM information_schema.tables WHERE table_name = 'gb_changes' "
                                 "AND table_schema = current_schema()"
                               : "SELECT count(*) FROM sqlite_master WHERE name = 'gb_changes'"), 0);
  ck_assert_int_eq(gb_sql_exec(s, "DROP TABLE gb_verdicts"), GB_OK);
  gb_store_close(s);
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_store_version(s), 7);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes"), 0);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_latest_verdicts"), 0);
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_rows"), 528);
  gb_store_close(s);
}
END_TEST

static size_t occurrences(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* The nightly trend page (report --store URL --trend, cli/gb_report_trend.c)
 * of 9 nodes over the last 8 of the 10 nights: the title names the newest
 * night; the gate's verdict comes first, then the headline figures, then the
 * nodes that moved (n1's recorded changes, on night-05); every plot has at
 * most 8 series (7 nodes and the recorded changes), n1's changes are marked
 * at night-05 (the 4th of night-02..night-09); both files within bounds. */
START_TEST(test_trend_report) {
  const char *url = fresh_url(_i);
  size_t nshift = 0;
  make_fleet(url, MAX_NODES, &nshift);
  char *out = NULL;
  int rc = gpubench(&out, "history", "--store", url, "--record", "all", NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  rc = gpubench(&out, "compare", "--store", url, "--record", "last=5,before=night-09", "campaign=night-09", NULL);
  ck_assert_msg(rc == 0 || rc == 1, "exit %d: %.3000s", rc, out);
  free(out);
  gb_store *s = NULL; /* the page shows the headline figures' changes: those of n1's shifted figures */
  ck_assert_msg(gb_store_open(url, &s) == GB_OK, "%s", gb_errmsg());
  size_t nhead = (size_t)count(s, "SELECT count(*) FROM gb_changes WHERE headline = 1 AND host = 'n1'");
  ck_assert_int_eq(count(s, "SELECT count(*) FROM gb_changes WHERE headline = 1"), (long)nhead);
  gb_store_close(s);
  ck_assert_uint_gt(nhead, 0);
  ck_assert_uint_lt(nhead, nshift);
  char dir[4200], path[4400];
  snprintf(dir, sizeof dir, "%s/trend-%d", gb_test_tmpdir(), _i);
  rc = gpubench(&out, "report", "--store", url, "--trend", "last=8", "--out", dir, NULL);
  EXPECT_RC(rc, 0, out);
  ck_assert_msg(strstr(out, "report.html: 8 night(s), "), "%.3000s", out);
  free(out);
  size_t mdlen = 0, htmllen = 0;
  snprintf(path, sizeof path, "%s/report.md", dir);
  char *md = gb_test_slurp(path, &mdlen);
  snprintf(path, sizeof path, "%s/report.html", dir);
  char *html = gb_test_slurp(path, &htmllen);
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_nonnull(html);
  ck_assert_uint_le(mdlen, 65536);
  ck_assert_uint_le(htmllen, 8u << 20);
  char err[512];
  ck_assert_msg(gb_xml_wellformed(html, err, sizeof err), "report.html: %s", err);
  const char *v = strstr(md, "\n## The gate's verdict\n"), *h = strstr(md, "\n## Headline figures, last 8 nights\n");
  const char *m = strstr(md, "\n## Nodes that moved\n");
  ck_assert_msg(strncmp(md, "# Nightly trend: night-09\n", 26) == 0 && v && h && m && v < h && h < m, "%.2000s", md);
  ck_assert_msg(strstr(md, "night(s), night-02 to night-09; 9 node(s)"), "%.2000s", md);
  char *verdict = strstr(v, "\nnight-09: ");
  ck_assert_msg(verdict && verdict < h && strstr(verdict, " figure(s) judged on the night's runs"), "%.2000s", v);
  ck_assert_msg(strstr(m, "On night-09: no recorded change."), "%.2000s", m);
  ck_assert_uint_eq(occurrences(m, "| night-05 | n1 | "), nhead);
  ck_assert_uint_eq(occurrences(m, " | worse | "), nhead);
  /* the plots: two per figure (7 nodes, then 2), the changes marked */
  size_t plots = 0, marked = 0;
  for (size_t fi = 0; fi < 1000; fi++) {
    for (int chunk = 0; chunk < 3; chunk++) {
      snprintf(path, sizeof path, "%s/trend-%03zu-%d.dat", dir, fi, chunk);
      char *dat = gb_test_slurp(path, NULL);
      if (!dat) continue;
      plots++;
      size_t series = occurrences(dat, "# series ");
      ck_assert_msg(series <= 8 && series == (chunk == 0 ? 7u : 2u) + (strstr(dat, "recorded change") != NULL),
                    "%s: %zu series", path, series);
      char *c = strstr(dat, "\"recorded change\"\n# x y label\n");
      if (c) {
        ck_assert_int_eq(chunk, 0); /* n1 is in the first plot */
        ck_assert_msg(strncmp(strchr(c, '\n') + 1 + strlen("# x y label\n"), "4 ", 2) == 0, "%s", c);
        marked++;
      }
      free(dat);
    }
  }
  ck_assert_uint_eq(marked, nhead);
  ck_assert_uint_gt(plots, 2 * nhead);
  ck_assert_uint_eq(plots % 2, 0);
  ck_assert_uint_eq(occurrences(html, "<svg"), plots);
  free(md);
  free(html);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("store_record");
  TCase *tc = tcase_create("engines");
  tcase_set_timeout(tc, 300);
  int n = nengines();
  tcase_add_loop_test(tc, test_migrate_7, 0, n);
  tcase_add_loop_test(tc, test_record_api, 0, n);
  tcase_add_loop_test(tc, test_history_record, 0, n);
  tcase_add_loop_test(tc, test_compare_record, 0, n);
  tcase_add_loop_test(tc, test_trend_report, 0, n);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
