/* The results store (store/): against SQLite always, and against the
 * PostgreSQL of GB_STORE_TEST_PG (a conninfo or URL of a throwaway
 * database: its gb_* tables are dropped) when it is set
 * (scripts/test-store.sh starts one). Every engine test is a loop test over
 * the engines. */
#include <check.h>
#include <libpq-fe.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gb_gate.h"
#include "gb_history.h"
#include "gb_store.h"
#include "gb_store_int.h"
#include "testutil.h"

static int nengines(void) { return getenv("GB_STORE_TEST_PG") && getenv("GB_STORE_TEST_PG")[0] ? 2 : 1; }

/* A fresh, empty store of engine i. */
static const char *fresh_url(int i) {
  static char url[4096];
  if (i == 1) {
    snprintf(url, sizeof url, "%s", getenv("GB_STORE_TEST_PG"));
    /* straight through libpq: a store the last test left refused must go too */
    PGconn *c = PQconnectdb(strncmp(url, "pg:", 3) == 0 ? url + 3 : url);
    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, "SET client_min_messages = warning; DROP TABLE IF EXISTS gb_rows, gb_runs, gb_meta, gb_changes, gb_verdicts CASCADE");
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
  } else {
    snprintf(url, sizeof url, "%s/store.db", gb_test_tmpdir());
  }
  return url;
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

static void import_ok(gb_store *s, const char *path, const char *campaign, gb_store_counts *c) {
  ck_assert_msg(gb_store_import(s, path, campaign, c) == GB_OK, "%s", gb_errmsg());
}

static size_t count_rows(gb_store *s, const char *sel) {
  gb_results r = {0};
  gb_err e = gb_store_read(s, sel, &r);
  size_t n = e ? 0 : r.nrows;
  gb_results_free(&r);
  return n;
}

START_TEST(test_import_idempotent) {
  gb_store *s = open_ok(fresh_url(_i));
  ck_assert_int_eq(gb_store_version(s), GB_STORE_VERSION);
  gb_store_counts c = {0};
  import_ok(s, aa(1), NULL, &c);
  ck_assert_uint_eq(c.rows_added, 528);
  ck_assert_uint_eq(c.runs_added, 1);
  gb_store_counts again = {0};
  import_ok(s, aa(1), NULL, &again);
  ck_assert_uint_eq(again.rows_added, 0);
  ck_assert_uint_eq(again.rows_present, 528);
  ck_assert_uint_eq(again.runs_added, 0);
  ck_assert_uint_eq(count_rows(s, "all"), 528);
  gb_store_close(s);
}
END_TEST

/* The rows of files, written as the results writer writes them. */
static char *files_as_csv(const int *k, int n, size_t *len) {
  gb_results r = {0};
  for (int i = 0; i < n; i++) ck_assert_int_eq(gb_results_read(aa(k[i]), &r), GB_OK);
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  for (size_t i = 0; i < r.nrows; i++) ck_assert_int_eq(gb_results_put_row(&b, &r.rows[i]), GB_OK);
  gb_results_free(&r);
  *len = b.len;
  return b.data;
}

START_TEST(test_export_csv_bytes) {
  gb_store *s = open_ok(fresh_url(_i));
  import_ok(s, aa(1), NULL, NULL);
  import_ok(s, aa(2), NULL, NULL);
  char path[4200];
  snprintf(path, sizeof path, "%s/out.csv", gb_test_tmpdir());
  FILE *f = fopen(path, "w");
  size_t n = 0;
  ck_assert_msg(gb_store_write_csv(s, "all", f, &n) == GB_OK, "%s", gb_errmsg());
  fclose(f);
  ck_assert_uint_eq(n, 1056);
  size_t got_len, want_len;
  char *got = gb_test_slurp(path, &got_len);
  char *want = files_as_csv((const int[]){1, 2}, 2, &want_len);
  ck_assert_uint_eq(got_len, want_len);
  ck_assert_msg(memcmp(got, want, want_len) == 0, "the exported CSV differs from the files' rows");
  /* and it reads back as a valid results file */
  gb_results back = {0};
  ck_assert_msg(gb_results_read(path, &back) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(back.nrows, 1056);
  gb_results_free(&back);
  free(got);
  free(want);
  gb_store_close(s);
}
END_TEST

/* The gate's full text (every figure) for base and cur. */
static char *gate_text(const gb_results *base, const gb_results *cur) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  memset(&rep, 0, sizeof rep);
  ck_assert_msg(gb_gate_compare(base, cur, &opt, &rep) == GB_OK, "%s", gb_errmsg());
  gb_buf b = {0};
  ck_assert_int_eq(gb_gate_format_text(&rep, true, &b), GB_OK);
  gb_gate_report_free(&rep);
  return b.data;
}

static char *history_text(const gb_results *res) {
  gb_cp_options opt = gb_cp_defaults();
  opt.min_segment = 2;
  gb_history h;
  memset(&h, 0, sizeof h);
  ck_assert_msg(gb_history_build(res, &opt, &h) == GB_OK, "%s", gb_errmsg());
  gb_buf b = {0};
  ck_assert_int_eq(gb_history_format_text(&h, true, &b), GB_OK);
  gb_history_free(&h);
  return b.data;
}

/* Every field of every row equal, numbers to the bit (shortest text). */
static void rows_equal(const gb_results *a, const gb_results *b) {
  ck_assert_uint_eq(a->nrows, b->nrows);
  for (size_t r = 0; r < a->nrows; r++)
    for (size_t i = 1; i < gb_results_ncols(); i++) {
      char x[64], y[64];
      const char *fa = gb_results_field(&a->rows[r], i, x), *fb = gb_results_field(&b->rows[r], i, y);
      ck_assert_msg(strcmp(fa, fb) == 0, "row %zu %s: \"%s\" and \"%s\"", r, gb_results_col_name(i), fa, fb);
    }
}

/* The gate's figures equal: each item's verdict and numbers, bit for bit. */
static void gate_figures_equal(const gb_results *fb, const gb_results *fc, const gb_results *sb, const gb_results *sc) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report f, g;
  ck_assert_msg(gb_gate_compare(fb, fc, &opt, &f) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_gate_compare(sb, sc, &opt, &g) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(f.nitems, g.nitems);
  ck_assert_uint_eq(f.nodes, g.nodes);
  ck_assert_uint_gt(f.nitems, 0);
  for (size_t i = 0; i < f.nitems; i++) {
    const gb_gate_item *x = &f.items[i], *y = &g.items[i];
    ck_assert_str_eq(x->key, y->key);
    ck_assert_int_eq(x->verdict, y->verdict);
    const double a[6] = {x->change_pct, x->ratio, x->threshold_pct, x->mdc_pct, x->sigma, x->p_value};
    const double b[6] = {y->change_pct, y->ratio, y->threshold_pct, y->mdc_pct, y->sigma, y->p_value};
    ck_assert_msg(memcmp(a, b, sizeof a) == 0, "%s: the figures differ", x->key);
  }
  ck_assert_msg(memcmp(&f.geomean_ratio, &g.geomean_ratio, sizeof f.geomean_ratio) == 0, "geometric means differ");
  gb_gate_report_free(&f);
  gb_gate_report_free(&g);
}

START_TEST(test_verdicts_equal_csv) {
  gb_store *s = open_ok(fresh_url(_i));
  gb_results fbase = {0}, fcur = {0}, sbase = {0}, scur = {0}, fall = {0}, sall = {0};
  for (int k = 1; k <= 6; k++) {
    char campaign[16];
    snprintf(campaign, sizeof campaign, "night-%d", k);
    import_ok(s, aa(k), campaign, NULL);
    ck_assert_int_eq(gb_results_read_lean(aa(k), k < 6 ? &fbase : &fcur), GB_OK);
    ck_assert_int_eq(gb_results_read_lean(aa(k), &fall), GB_OK);
  }
  ck_assert_msg(gb_store_read(s, "last=5,before=night-6", &sbase) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_store_read(s, "campaign=night-6", &scur), GB_OK);
  ck_assert_int_eq(gb_store_read(s, "all", &sall), GB_OK);
  ck_assert_uint_eq(sbase.nrows, fbase.nrows);
  ck_assert_uint_eq(scur.nrows, fcur.nrows);
  char *ft = gate_text(&fbase, &fcur), *st = gate_text(&sbase, &scur);
  ck_assert_str_eq(st, ft);
  rows_equal(&fcur, &scur);
  gate_figures_equal(&fbase, &fcur, &sbase, &scur);
  char *fh = history_text(&fall), *sh = history_text(&sall);
  ck_assert_str_eq(sh, fh);
  ck_assert_ptr_nonnull(strstr(fh, "528 series"));
  /* one figure's history, read through the host+figure index, equals the files' rows of it */
  gb_results ffig = {0}, sfig = {0};
  for (size_t i = 0; i < fall.nrows; i++)
    if (strcmp(fall.rows[i].benchmark, "gemm") == 0 && strcmp(fall.rows[i].metric, "tflops") == 0)
      ck_assert_int_eq(gb_results_add_row(&ffig, &fall.rows[i], true), GB_OK);
  char fig[128];
  snprintf(fig, sizeof fig, "host=%s,benchmark=gemm,metric=tflops", fall.rows[0].host);
  ck_assert_msg(gb_store_read(s, fig, &sfig) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(sfig.nrows, ffig.nrows);
  ck_assert_uint_gt(sfig.nrows, 0);
  char *ffh = history_text(&ffig), *sfh = history_text(&sfig);
  ck_assert_str_eq(sfh, ffh);
  free(ffh), free(sfh);
  gb_results_free(&ffig), gb_results_free(&sfig);
  free(ft), free(st), free(fh), free(sh);
  gb_results_free(&fbase), gb_results_free(&fcur), gb_results_free(&sbase);
  gb_results_free(&scur), gb_results_free(&fall), gb_results_free(&sall);
  gb_store_close(s);
}
END_TEST

/* A fleet: six nights of three nodes, each node's rows its own run; the
 * gate judges node by node (keys with host and GPU). The store's rows,
 * verdicts and figures equal the files'. */
START_TEST(test_fleet_equal_csv) {
  gb_store *s = open_ok(fresh_url(_i));
  gb_results fbase = {0}, fcur = {0}, sbase = {0}, scur = {0};
  for (int k = 1; k <= 6; k++) {
    gb_results night = {0};
    ck_assert_int_eq(gb_results_read(aa(k), &night), GB_OK);
    char campaign[16], host[3][16], uuid[3][32], run[3][128];
    snprintf(campaign, sizeof campaign, "night-%d", k);
    for (int n = 0; n < 3; n++) {
      snprintf(host[n], sizeof host[n], "node%02d", n);
      snprintf(uuid[n], sizeof uuid[n], "GPU-%08d", n);
      snprintf(run[n], sizeof run[n], "%s-%s", night.rows[0].run_id, host[n]);
      gb_row *rows = malloc(night.nrows * sizeof *rows);
      for (size_t i = 0; i < night.nrows; i++) {
        rows[i] = night.rows[i];
        rows[i].host = host[n], rows[i].gpu_uuid = uuid[n], rows[i].run_id = run[n];
        if (rows[i].status == GB_STATUS_OK) rows[i].value *= 1 + 0.003 * n; /* each node its own offset */
        ck_assert_int_eq(gb_results_add_row(k < 6 ? &fbase : &fcur, &rows[i], true), GB_OK);
      }
      ck_assert_msg(gb_store_add(s, rows, night.nrows, campaign, true, NULL) == GB_OK, "%s", gb_errmsg());
      free(rows);
    }
    gb_results_free(&night);
  }
  ck_assert_msg(gb_store_read(s, "last=5,before=night-6", &sbase) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_store_read(s, "campaign=night-6", &scur), GB_OK);
  rows_equal(&fbase, &sbase);
  rows_equal(&fcur, &scur);
  char *ft = gate_text(&fbase, &fcur), *st = gate_text(&sbase, &scur);
  ck_assert_str_eq(st, ft);
  ck_assert_ptr_nonnull(strstr(ft, "judged node by node (3 nodes)"));
  gate_figures_equal(&fbase, &fcur, &sbase, &scur);
  free(ft), free(st);
  gb_results_free(&fbase), gb_results_free(&fcur), gb_results_free(&sbase), gb_results_free(&scur);
  gb_store_close(s);
}
END_TEST

START_TEST(test_selections) {
  gb_store *s = open_ok(fresh_url(_i));
  for (int k = 1; k <= 4; k++) {
    char campaign[16];
    snprintf(campaign, sizeof campaign, "c%d", k);
    import_ok(s, aa(k), campaign, NULL);
  }
  ck_assert_uint_eq(count_rows(s, "campaign=c2"), 528);
  ck_assert_uint_eq(count_rows(s, "last=2"), 1056);
  ck_assert_uint_eq(count_rows(s, "last=1,before=c3"), 528);
  ck_assert_uint_eq(count_rows(s, "until=9999"), 4 * 528);
  ck_assert_uint_eq(count_rows(s, "host=vm,gpu_type=H200-SXM-141GB,since=2026-12-04"), 4 * 528);
  /* run keys read run by run; the row keys still hold there */
  ck_assert_uint_eq(count_rows(s, "last=2,host=vm"), 1056);
  ck_assert_uint_eq(count_rows(s, "campaign=c2,host=elsewhere"), 0);
  ck_assert_uint_eq(count_rows(s, "campaign=c2,build=nosuchsha"), 0);
  /* one figure over every run: only its rows leave the engine */
  ck_assert_uint_eq(count_rows(s, "benchmark=collective,case=all_reduce_outofplace,dtype=fp32,metric=time_us"),
                    4 * 28); /* 28 sizes in each run (grep of the fixture) */
  gb_results r = {0};
  ck_assert_int_eq(gb_store_read(s, "since=9999", &r), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "no rows"));
  ck_assert_int_eq(gb_store_read(s, "colour=red", &r), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "no key \"colour\""));
  ck_assert_int_eq(gb_store_read(s, "last=zero", &r), GB_E_USAGE);
  ck_assert_int_eq(gb_store_read(s, "host", &r), GB_E_USAGE);
  gb_results_free(&r);
  gb_store_close(s);
}
END_TEST

static gb_err get_text(void *ctx, const gb_sql_val *val, size_t n) {
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  snprintf(ctx, 64, "%s", t ? t : "NULL");
  return GB_OK;
}

static void query_one(gb_store *s, const char *sql, const char *param, char out[64]) {
  const char *p[1] = {param};
  ck_assert_msg(s->eng->query(s, -1, sql, p, param ? 1 : 0, get_text, out, NULL) == GB_OK, "%s", gb_errmsg());
}

START_TEST(test_migration) {
  const char *url = fresh_url(_i);
  gb_store *s = NULL;
  ck_assert_msg(gb_store_open_at(url, 1, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_store_version(s), 1);
  /* a run and a row as a version-1 gpubench wrote them (no complete column) */
  ck_assert_int_eq(gb_sql_exec(s, "INSERT INTO gb_runs (run_id, campaign, host, gpu_type, gpu_name, gpu_uuid, driver, "
                                  "cuda, git_sha, profile, started) VALUES ('r1', 'c1', 'h', 'T', 'n', 'u', 'd', "
                                  "'13.0', 'abc', 'quick', '2026-01-01T00:00:00Z')"), GB_OK);
  ck_assert_int_eq(gb_sql_exec(s, "INSERT INTO gb_rows (khash, run_id, timestamp, host, gpu_type, gpu_name, "
                                  "gpu_count, driver, cuda, benchmark, \"case\", dtype, metric, unit, value, status, "
                                  "detail) VALUES (7, 'r1', '2026-01-01T00:00:00Z', 'h', 'T', 'n', 1, 'd', '13.0', "
                                  "'membw', 'copy', 'fp32', 'gbps', 'GB/s', 2500.5, 'ok', '')"), GB_OK);
  gb_store_close(s);
  s = open_ok(url); /* upgraded in place */
  ck_assert_int_eq(gb_store_version(s), GB_STORE_VERSION);
  char v[64];
  query_one(s, "SELECT value FROM gb_meta WHERE key = 'schema_version'", NULL, v);
  ck_assert_int_eq(atoi(v), GB_STORE_VERSION);
  query_one(s, "SELECT complete FROM gb_runs WHERE run_id = $1", "r1", v);
  ck_assert_str_eq(v, "1"); /* a run written before the column is taken as finished */
  gb_results r = {0};
  ck_assert_msg(gb_store_read(s, "campaign=c1", &r) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(r.nrows, 1);
  ck_assert(r.rows[0].value == 2500.5);
  ck_assert_str_eq(r.rows[0].case_name, "copy");
  ck_assert_int_eq(r.rows[0].headline, -1);
  ck_assert(r.rows[0].groups == GB_NA);     /* step 3's columns, empty on old rows */
  ck_assert_str_eq(r.rows[0].campaign, "");
  gb_results_free(&r);
  /* a store from a newer gpubench is refused, and left as it is */
  ck_assert_int_eq(gb_sql_exec(s, "UPDATE gb_meta SET value = '99' WHERE key = 'schema_version'"), GB_OK);
  gb_store_close(s);
  ck_assert_int_eq(gb_store_open(url, &s), GB_E_INPUT);
  ck_assert_ptr_null(s);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "schema version 99, written by a newer gpubench"));
}
END_TEST

START_TEST(test_incomplete_run) {
  gb_store *s = open_ok(fresh_url(_i));
  char path[4200], marker[4300];
  snprintf(path, sizeof path, "%s/killed.csv", gb_test_tmpdir());
  size_t len;
  char *text = gb_test_slurp(aa(3), &len);
  ck_assert_int_eq(gb_test_write(path, text, len), 0);
  snprintf(marker, sizeof marker, "%s.committed", path);
  ck_assert_int_eq(gb_test_write(marker, "x", 1), 0);
  import_ok(s, path, NULL, NULL);
  char run_id[128], v[64];
  gb_results r = {0};
  ck_assert_int_eq(gb_results_read(aa(3), &r), GB_OK);
  snprintf(run_id, sizeof run_id, "%s", r.rows[0].run_id);
  gb_results_free(&r);
  query_one(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "0");
  ck_assert_int_eq(gb_store_run_mark(s, run_id, true), GB_OK);
  query_one(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "1");
  free(text);
  gb_store_close(s);
}
END_TEST

/* Appends file's rows a case (8 rows) per transaction, as run --store does. */
static int append_by_case(const char *url, const char *file) {
  gb_store *s;
  gb_results r = {0};
  if (gb_store_open(url, &s) || gb_results_read(file, &r)) return 1;
  for (size_t i = 0; i < r.nrows; i += 8)
    if (gb_store_add(s, r.rows + i, r.nrows - i < 8 ? r.nrows - i : 8, NULL, true, NULL)) {
      fprintf(stderr, "writer: %s\n", gb_errmsg());
      return 1;
    }
  gb_results_free(&r);
  gb_store_close(s);
  return 0;
}

START_TEST(test_two_writers) {
  const char *url = fresh_url(_i);
  gb_store *s = open_ok(url);
  gb_store_close(s);
  pid_t pid[2];
  for (int w = 0; w < 2; w++) {
    if ((pid[w] = fork()) == 0) {
      int rc = 0;
      for (int k = 1 + 3 * w; k <= 3 + 3 * w; k++) rc |= append_by_case(url, aa(k));
      rc |= append_by_case(url, aa(1)); /* both write one file: it is stored once */
      _exit(rc);
    }
  }
  for (int w = 0; w < 2; w++) {
    int st;
    ck_assert_int_eq(waitpid(pid[w], &st, 0), pid[w]);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", w);
  }
  s = open_ok(url);
  ck_assert_uint_eq(count_rows(s, "all"), 6 * 528);
  char v[64];
  query_one(s, "SELECT count(*) FROM gb_runs", NULL, v);
  ck_assert_str_eq(v, "6");
  gb_store_close(s);
}
END_TEST

/* A campaign writing through the sink, case (8 rows) by case, as run
 * --store does; killed (SIGKILL, no clean-up) once it has queued part of
 * case kill_at, or finishing normally when kill_at is 0. */
static void sink_campaign(const char *url, const char *file, size_t kill_at) {
  gb_store_sink *k;
  gb_results r = {0};
  if (gb_store_sink_open(url, &k) || gb_results_read(file, &r)) _exit(1);
  for (size_t i = 0, c = 1; i < r.nrows; i += 8, c++) {
    for (size_t j = i; j < i + 8 && j < r.nrows; j++) {
      if (gb_store_sink_row(k, &r.rows[j])) _exit(1);
      if (c == kill_at && j == i + 3) raise(SIGKILL); /* mid-case */
    }
    if (gb_store_sink_commit(k)) _exit(1);
  }
  _exit(gb_store_sink_close(k, true) ? 1 : 0);
}

static int run_child(const char *url, const char *file, size_t kill_at) {
  pid_t pid = fork();
  if (pid == 0) sink_campaign(url, file, kill_at);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

START_TEST(test_sink_kill) {
  const char *url = fresh_url(_i);
  gb_store_close(open_ok(url));
  gb_results f = {0};
  ck_assert_int_eq(gb_results_read(aa(2), &f), GB_OK);
  char run_id[128], sel[160], v[64];
  snprintf(run_id, sizeof run_id, "%s", f.rows[0].run_id);
  snprintf(sel, sizeof sel, "run=%s", run_id);
  /* killed in case 11: the 10 cases before it are stored, the run incomplete */
  ck_assert_int_eq(run_child(url, aa(2), 11), -SIGKILL);
  gb_store *s = open_ok(url);
  ck_assert_uint_eq(count_rows(s, sel), 80);
  query_one(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "0");
  gb_store_close(s);
  /* the campaign run again to its end (as --resume would): every row once, finished */
  ck_assert_int_eq(run_child(url, aa(2), 0), 0);
  s = open_ok(url);
  gb_results got = {0};
  ck_assert_msg(gb_store_read(s, sel, &got) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(got.nrows, f.nrows);
  for (size_t i = 0; i < f.nrows; i++) { /* in the order measured, the figures the file holds */
    ck_assert_str_eq(got.rows[i].benchmark, f.rows[i].benchmark);
    ck_assert_str_eq(got.rows[i].case_name, f.rows[i].case_name);
    ck_assert_str_eq(got.rows[i].metric, f.rows[i].metric);
    ck_assert(got.rows[i].value == f.rows[i].value || (isnan(got.rows[i].value) && isnan(f.rows[i].value)));
  }
  query_one(s, "SELECT complete FROM gb_runs WHERE run_id = $1", run_id, v);
  ck_assert_str_eq(v, "1");
  gb_results_free(&got);
  gb_results_free(&f);
  gb_store_close(s);
}
END_TEST

START_TEST(test_mask_password) {
  char buf[256];
  /* every form as the keyword string libpq parses from it (check_store_safety
   * holds every form libpq accepts) */
  gb_store_mask("postgresql://gb:s3cret@db.example:5432/results", buf, sizeof buf);
  ck_assert_str_eq(buf, "pg:user=gb password=*** dbname=results host=db.example port=5432");
  gb_store_mask("pg:host=db user=gb password=s3cret dbname=r", buf, sizeof buf);
  ck_assert_str_eq(buf, "pg:user=gb password=*** dbname=r host=db");
  gb_store_mask("postgresql://db/results?user=gb&password=s3cret", buf, sizeof buf);
  ck_assert_str_eq(buf, "pg:user=gb password=*** dbname=results host=db");
  gb_store_mask("postgresql://gb@db/results", buf, sizeof buf);
  ck_assert_str_eq(buf, "pg:user=gb dbname=results host=db");
  /* a connection that fails names the store without its password */
  gb_store *s;
  ck_assert_int_eq(gb_store_open("postgresql://gb:s3cret@127.0.0.1:1/results?connect_timeout=2", &s), GB_E_IO);
  ck_assert_ptr_null(strstr(gb_errmsg(), "s3cret"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "user=gb password=*** connect_timeout=2 dbname=results host=127.0.0.1 port=1:"));
}
END_TEST

/* Text with the characters a COPY's text format escapes (backslash, tab,
 * line feed, carriage return, and "\\N", its NULL) comes back as it went in,
 * and a text column left empty stays empty, not NULL. */
START_TEST(test_text_escapes) {
  gb_store *s = open_ok(fresh_url(_i));
  gb_results in = {0};
  ck_assert_msg(gb_results_read(aa(1), &in) == GB_OK, "%s", gb_errmsg());
  static const char *const k_detail[] = {"a\\b", "tab\there", "two\nlines", "cr\rhere", "\\N", "\\", "\t\n\r\\."};
  size_t nd = sizeof k_detail / sizeof k_detail[0];
  for (size_t i = 0; i < nd; i++) {
    in.rows[i].status = GB_STATUS_INVALID;
    in.rows[i].detail = k_detail[i];
  }
  in.rows[nd].variant = "v\\1\t";
  ck_assert_msg(gb_store_add(s, in.rows, in.nrows, "esc", true, NULL) == GB_OK, "%s", gb_errmsg());
  gb_results back = {0};
  ck_assert_msg(gb_store_read(s, "campaign=esc", &back) == GB_OK, "%s", gb_errmsg());
  rows_equal(&in, &back);
  gb_results_free(&back);
  gb_results_free(&in);
  gb_store_close(s);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("store");
  TCase *tc = tcase_create("engines");
  tcase_set_timeout(tc, 120);
  int n = nengines();
  tcase_add_loop_test(tc, test_import_idempotent, 0, n);
  tcase_add_loop_test(tc, test_export_csv_bytes, 0, n);
  tcase_add_loop_test(tc, test_verdicts_equal_csv, 0, n);
  tcase_add_loop_test(tc, test_fleet_equal_csv, 0, n);
  tcase_add_loop_test(tc, test_selections, 0, n);
  tcase_add_loop_test(tc, test_migration, 0, n);
  tcase_add_loop_test(tc, test_incomplete_run, 0, n);
  tcase_add_loop_test(tc, test_two_writers, 0, n);
  tcase_add_loop_test(tc, test_sink_kill, 0, n);
  tcase_add_loop_test(tc, test_text_escapes, 0, n);
  suite_add_tcase(s, tc);
  tc = tcase_create("credentials");
  tcase_add_test(tc, test_mask_password);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
