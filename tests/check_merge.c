/* Tests for gb_merge (gpubench merge): order, de-duplication by run id,
 * schema mismatches, column order, conflicts; and the program end to end
 * (the merged file read back as one run by the results reader and by
 * gpubench compare). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_merge.h"
#include "gb_results.h"
#include "testutil.h"

/* A results file of n rows of one run: membw triad, sizes 1..n MiB. */
static void write_run(const char *path, const char *run_id, const char *host, int n, double value) {
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  for (int i = 1; i <= n; i++) {
    gb_row r = gb_row_empty();
    r.run_id = run_id;
    r.timestamp = "2026-12-04T00:00:00Z";
    r.host = host;
    r.gpu_type = "H200-SXM-141GB";
    r.gpu_name = "NVIDIA H200";
    r.driver = "580.159.04";
    r.cuda = "13.0";
    r.benchmark = "membw";
    r.case_name = "triad";
    r.dtype = "fp64";
    r.bytes = (int64_t)i << 20;
    r.metric = "gbps";
    r.unit = "GB/s";
    r.value = value + i;
    r.samples = 10;
    r.rep = 0;
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  }
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_buf_free(&b);
}

static char g_a[512], g_b[512], g_c[512];

static void setup_files(void) {
  const char *d = gb_test_tmpdir();
  snprintf(g_a, sizeof g_a, "%s/node0.csv", d);
  snprintf(g_b, sizeof g_b, "%s/node1.csv", d);
  snprintf(g_c, sizeof g_c, "%s/node2.csv", d);
  write_run(g_a, "20261204T000000Z-node0-aaaaaa", "node0", 3, 4000);
  write_run(g_b, "20261204T000000Z-node1-bbbbbb", "node1", 2, 4100);
  write_run(g_c, "20261204T000000Z-node2-cccccc", "node2", 1, 4200);
}

static gb_results read_back(const gb_buf *b) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_mem("merged", b->data, b->len, &res), GB_OK);
  return res;
}

START_TEST(test_merge_order) {
  setup_files();
  const char *paths[] = {g_b, g_a, g_c};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 3, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.files, 3);
  ck_assert_uint_eq(st.rows_in, 6);
  ck_assert_uint_eq(st.rows_out, 6);
  ck_assert_uint_eq(st.runs, 3);
  ck_assert_uint_eq(st.duplicates, 0);
  gb_results res = read_back(&b);
  ck_assert_uint_eq(res.nrows, 6);
  /* files in the order given, rows in their order */
  const char *hosts[] = {"node1", "node1", "node0", "node0", "node0", "node2"};
  const double values[] = {4101, 4102, 4001, 4002, 4003, 4201};
  for (int i = 0; i < 6; i++) {
    ck_assert_str_eq(res.rows[i].host, hosts[i]);
    ck_assert_double_eq(res.rows[i].value, values[i]);
  }
  gb_results_free(&res);
  gb_buf_free(&b);
  gb_merge_stats_free(&st);
}
END_TEST

START_TEST(test_merge_dedup) {
  setup_files();
  /* a file given twice, and another whose rows are partly the same */
  const char *paths[] = {g_a, g_b, g_a, g_b};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 4, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.rows_in, 10);
  ck_assert_uint_eq(st.rows_out, 5);
  ck_assert_uint_eq(st.duplicates, 5);
  ck_assert_uint_eq(st.conflicts, 0);
  ck_assert_uint_eq(st.runs, 2);
  /* merging a merged file with its parts changes nothing */
  char merged[600];
  snprintf(merged, sizeof merged, "%s/merged.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_test_write(merged, b.data, b.len), 0);
  const char *again[] = {merged, g_a, g_b};
  gb_buf b2 = {0};
  gb_merge_stats_free(&st);
  ck_assert_int_eq(gb_merge_files(again, 3, NULL, &b2, &st), GB_OK);
  ck_assert_uint_eq(st.rows_out, 5);
  ck_assert_uint_eq(b2.len, b.len);
  ck_assert_int_eq(memcmp(b.data, b2.data, b.len), 0);
  gb_buf_free(&b);
  gb_buf_free(&b2);
  gb_merge_stats_free(&st);
}
END_TEST

START_TEST(test_merge_same_case_other_run_kept) {
  setup_files();
  /* the same case and metric from another run id is another row */
  char d[600];
  snprintf(d, sizeof d, "%s/rerun.csv", gb_test_tmpdir());
  write_run(d, "20261204T010000Z-node0-dddddd", "node0", 3, 4000);
  const char *paths[] = {g_a, d};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 2, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.rows_out, 6);
  ck_assert_uint_eq(st.duplicates, 0);
  gb_buf_free(&b);
  gb_merge_stats_free(&st);
}
END_TEST

START_TEST(test_merge_conflict) {
  setup_files();
  char d[600];
  snprintf(d, sizeof d, "%s/edited.csv", gb_test_tmpdir());
  write_run(d, "20261204T000000Z-node0-aaaaaa", "node0", 3, 5000); /* same run and cases, other values */
  const char *paths[] = {g_a, d};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 2, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.rows_out, 3);
  ck_assert_uint_eq(st.duplicates, 3);
  ck_assert_uint_eq(st.conflicts, 3);
  ck_assert_ptr_nonnull(strstr(st.first_conflict, "edited.csv:2"));
  ck_assert_ptr_nonnull(strstr(st.first_conflict, "node0.csv:2"));
  gb_results res = read_back(&b);
  ck_assert_double_eq(res.rows[0].value, 4001); /* the first kept */
  gb_results_free(&res);
  gb_buf_free(&b);
  gb_merge_stats_free(&st);
}
END_TEST

/* a copy of path without column col (and its cells), or with the columns in reverse order */
static void rewrite_columns(const char *from, const char *to, const char *drop, bool reverse) {
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(from, &t), GB_OK);
  gb_buf b = {0};
  for (size_t r = 0; r <= t.nrows; r++) {
    bool first = true;
    for (size_t i = 0; i < t.ncols; i++) {
      size_t c = reverse ? t.ncols - 1 - i : i;
      if (drop && strcmp(gb_csv_header(&t, c), drop) == 0) continue;
      const char *cell = r == 0 ? gb_csv_header(&t, c) : gb_csv_cell(&t, r - 1, (int)c);
      ck_assert_int_eq(gb_csv_put_field(&b, cell, first ? 0 : ','), GB_OK);
      first = false;
    }
    ck_assert_int_eq(gb_buf_puts(&b, "\n"), GB_OK);
  }
  ck_assert_int_eq(gb_test_write(to, b.data, b.len), 0);
  gb_buf_free(&b);
  gb_csv_free(&t);
}

START_TEST(test_merge_schema_mismatch) {
  setup_files();
  char d[600];
  snprintf(d, sizeof d, "%s/old.csv", gb_test_tmpdir());
  rewrite_columns(g_b, d, "settings", false);
  const char *paths[] = {g_a, d};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 2, NULL, &b, &st), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "old.csv:1: no column 'settings'"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "node0.csv"));
  ck_assert_uint_eq(b.len, 0);
  /* and the other way round: a column the first file lacks */
  const char *rev[] = {d, g_a};
  gb_merge_stats_free(&st);
  ck_assert_int_eq(gb_merge_files(rev, 2, NULL, &b, &st), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "node0.csv:1: column 'settings' is not in"));
  ck_assert_uint_eq(b.len, 0);
  /* an invalid results file is named with its line */
  char bad[600];
  snprintf(bad, sizeof bad, "%s/bad.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_test_write(bad, "not,a,results,file\n1,2,3,4\n", 27), 0);
  const char *withbad[] = {g_a, bad};
  /* a file that does not read is skipped with its reason; the rest merges */
  gb_merge_stats_free(&st);
  ck_assert_int_eq(gb_merge_files(withbad, 2, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.unreadable, 1);
  ck_assert_ptr_nonnull(strstr(st.skips.data, "bad.csv"));
  ck_assert_uint_eq(st.rows_out, 3);
  gb_merge_stats_free(&st);
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_merge_column_order) {
  setup_files();
  char d[600];
  snprintf(d, sizeof d, "%s/reversed.csv", gb_test_tmpdir());
  rewrite_columns(g_b, d, NULL, true);
  const char *paths[] = {g_a, d};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 2, NULL, &b, &st), GB_OK);
  gb_results res = read_back(&b);
  ck_assert_uint_eq(res.nrows, 5);
  ck_assert_str_eq(res.rows[3].host, "node1");
  ck_assert_double_eq(res.rows[3].value, 4101);
  ck_assert_int_eq(res.rows[3].bytes, 1 << 20);
  /* the header is the first file's */
  gb_buf h = {0};
  ck_assert_int_eq(gb_results_put_header(&h), GB_OK);
  ck_assert_int_eq(strncmp(b.data, h.data, h.len), 0);
  gb_buf_free(&h);
  gb_results_free(&res);
  gb_buf_free(&b);
  gb_merge_stats_free(&st);
}
END_TEST

/* The program: merge to a file, then compare reads it as one run. */
START_TEST(test_merge_cli) {
  const char *exe = gb_test_gpubench();
  if (!exe) return;
  setup_files();
  char out[600], log[600];
  snprintf(out, sizeof out, "%s/fleet.csv", gb_test_tmpdir());
  snprintf(log, sizeof log, "%s/log", gb_test_tmpdir());
  char *argv[] = {(char *)exe, "merge", g_a, g_b, g_a, "--out", out, NULL};
  ck_assert_int_eq(gb_test_run(argv, log), 0);
  char *msg = gb_test_slurp(log, NULL);
  ck_assert_ptr_nonnull(strstr(msg, "3 file(s), 8 row(s) in, 5 out (2 run(s)); 3 repeated row(s) dropped"));
  free(msg);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(out, &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 5);
  gb_results_free(&res);
  char *cmp[] = {(char *)exe, "compare", out, out, NULL};
  ck_assert_int_eq(gb_test_run(cmp, log), 0);
  /* a schema mismatch: exit 2, the file and column named, no output */
  char old[600], out2[600];
  snprintf(old, sizeof old, "%s/old.csv", gb_test_tmpdir());
  snprintf(out2, sizeof out2, "%s/never.csv", gb_test_tmpdir());
  rewrite_columns(g_b, old, "variant", false);
  char *bad[] = {(char *)exe, "merge", g_a, old, "--out", out2, NULL};
  ck_assert_int_eq(gb_test_run(bad, log), 2);
  msg = gb_test_slurp(log, NULL);
  ck_assert_ptr_nonnull(strstr(msg, "old.csv:1: no column 'variant'"));
  free(msg);
  ck_assert_int_ne(access(out2, F_OK), 0);
  char *none[] = {(char *)exe, "merge", NULL};
  ck_assert_int_eq(gb_test_run(none, log), 2);
}
END_TEST

/* A node's file torn by a crash (cut inside its last row) is skipped with
 * the reader's reason; the fleet file is still written. */
START_TEST(test_merge_torn_node_skipped) {
  setup_files();
  size_t n;
  char *d = gb_test_slurp(g_b, &n);
  ck_assert_int_eq(gb_test_write(g_b, d, n - 20), 0); /* cut inside the last row */
  free(d);
  const char *paths[] = {g_a, g_b, g_c};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 3, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.files, 2);
  ck_assert_uint_eq(st.unreadable, 1);
  ck_assert_uint_eq(st.rows_out, 4);
  ck_assert_ptr_nonnull(strstr(st.skips.data, "node1.csv"));
  gb_merge_stats_free(&st);
  gb_buf_free(&b);
  /* the program: written, exit 3, the file named */
  const char *exe = gb_test_gpubench();
  if (!exe) return;
  char out[600], log[600];
  snprintf(out, sizeof out, "%s/fleet.csv", gb_test_tmpdir());
  snprintf(log, sizeof log, "%s/log", gb_test_tmpdir());
  char *argv[] = {(char *)exe, "merge", g_a, g_b, g_c, "--out", out, NULL};
  ck_assert_int_eq(gb_test_run(argv, log), 3);
  char *msg = gb_test_slurp(log, NULL);
  ck_assert_ptr_nonnull(strstr(msg, "skipped "));
  ck_assert_ptr_nonnull(strstr(msg, "node1.csv"));
  free(msg);
  ck_assert_int_eq(access(out, F_OK), 0);
}
END_TEST

/* Rewrites path's rows with campaign id and timestamp ts. */
static void set_campaign(const char *path, const char *id, const char *ts) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(path, &res), GB_OK);
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  for (size_t i = 0; i < res.nrows; i++) {
    gb_row r = res.rows[i];
    r.campaign = id;
    r.timestamp = ts;
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  }
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_buf_free(&b);
  gb_results_free(&res);
}

/* Stale files of an earlier campaign in the folder are left out, named. */
START_TEST(test_merge_one_campaign) {
  setup_files();
  set_campaign(g_a, "job-200", "2026-12-05T00:00:00Z");
  set_campaign(g_b, "job-100", "2026-12-01T00:00:00Z"); /* stale */
  set_campaign(g_c, "job-200", "2026-12-05T00:00:01Z");
  const char *paths[] = {g_a, g_b, g_c};
  gb_buf b = {0};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 3, NULL, &b, &st), GB_OK);
  ck_assert_str_eq(st.campaign, "job-200");
  ck_assert_uint_eq(st.rows_out, 4);
  ck_assert_uint_eq(st.skipped, 1);
  ck_assert_uint_eq(st.unreadable, 0);
  ck_assert_ptr_nonnull(strstr(st.skips.data, "node1.csv: campaign \"job-100\""));
  gb_merge_stats_free(&st);
  gb_buf_free(&b);
  gb_merge_stats_free(&st);
  ck_assert_int_eq(gb_merge_files(paths, 3, "job-100", &b, &st), GB_OK);
  ck_assert_uint_eq(st.rows_out, 2);
  gb_merge_stats_free(&st);
  gb_buf_free(&b);
}
END_TEST

/* Two rows whose case names differ only past 2 KB stay two rows (the key
 * was cut at 2048 bytes). */
START_TEST(test_merge_long_keys) {
  char *name1 = malloc(5001), *name2 = malloc(5001);
  memset(name1, 'x', 5000);
  name1[5000] = '\0';
  memcpy(name2, name1, 5001);
  name2[4999] = 'y';
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  for (int i = 0; i < 2; i++) {
    gb_row r = gb_row_empty();
    r.run_id = "run";
    r.timestamp = "2026-12-04T00:00:00Z";
    r.gpu_type = "H200-SXM-141GB";
    r.benchmark = "membw";
    r.case_name = i ? name2 : name1;
    r.metric = "gbps";
    r.value = 1;
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  }
  char p[600];
  snprintf(p, sizeof p, "%s/long.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_test_write(p, b.data, b.len), 0);
  gb_buf_free(&b);
  const char *paths[] = {p};
  gb_merge_stats st;
  ck_assert_int_eq(gb_merge_files(paths, 1, NULL, &b, &st), GB_OK);
  ck_assert_uint_eq(st.rows_out, 2);
  ck_assert_uint_eq(st.duplicates, 0);
  gb_merge_stats_free(&st);
  gb_buf_free(&b);
  free(name1);
  free(name2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("merge");
  TCase *tc = tcase_create("merge");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_merge_torn_node_skipped);
  tcase_add_test(tc, test_merge_one_campaign);
  tcase_add_test(tc, test_merge_long_keys);
  tcase_add_test(tc, test_merge_order);
  tcase_add_test(tc, test_merge_dedup);
  tcase_add_test(tc, test_merge_same_case_other_run_kept);
  tcase_add_test(tc, test_merge_conflict);
  tcase_add_test(tc, test_merge_schema_mismatch);
  tcase_add_test(tc, test_merge_column_order);
  tcase_add_test(tc, test_merge_cli);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
