/* check_encodings: encodings and sizes of every document gpubench writes
 * (issue 52, class 12), through the commands:
 *   - text that is not valid UTF-8 (a workload's name, an input's file
 *     name) comes out as U+FFFD in every JSON, Markdown, HTML and XML
 *     writer (one function: core/gb_escape.c's walk), so each document is
 *     valid UTF-8 (plan --json wrote the bytes raw);
 *   - report.md keeps its documented bound (docs/reports.md: 64 KiB) on
 *     100,000 rows, ending with a note of what it left out (it was 108 KB
 *     here, 304 KiB in the issue), and fleet --markdown the 64 KiB that
 *     compare --markdown keeps, on 3,000 nodes. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_csv.h"
#include "gb_doc.h"
#include "gb_results.h"
#include "testutil.h"

static char g_dir[4096];

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "%s", gb_test_tmpdir());
  ck_assert_int_eq(chdir(g_dir), 0);
  unsetenv("GPUBENCH_DATA_DIR");
}

#define EXPECT_HAS(text, needle) ck_assert_msg(strstr(text, needle) != NULL, "\"%s\" not in:\n%.3000s", needle, text)

static int gpubench(char **out, ...) {
  va_list ap;
  va_start(ap, out);
  int rc = gb_test_gpubench_va("cmd.log", out, ap);
  va_end(ap);
  return rc;
}

static void expect_utf8(const char *path) {
  size_t n, bad;
  char *s = gb_test_slurp(path, &n);
  ck_assert_msg(s != NULL, "%s was not written", path);
  ck_assert_msg(gb_utf8_valid(s, n, &bad), "%s: not UTF-8 at byte %zu", path, bad);
  free(s);
}

static void copy(const char *from, const char *to) {
  size_t n;
  char *s = gb_test_slurp(from, &n);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(gb_test_write(to, s, n), 0);
  free(s);
}

#define BAD "\xff\xfe\xc0"
#define FFFD3 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"

/* plan --json (and --csv) with a workload named in bytes that are not UTF-8 */
START_TEST(test_plan_json_invalid_utf8) {
  char *wl = gb_test_slurp(GB_SOURCE_ROOT "/data/workloads/demand-hybrid.ini", NULL);
  ck_assert_ptr_nonnull(wl);
  char *name = strstr(wl, "name = demand-hybrid");
  ck_assert_ptr_nonnull(name);
  FILE *f = fopen("bad.ini", "w");
  fprintf(f, "%.*sname = bad" BAD "name%s", (int)(name - wl), wl, name + strlen("name = demand-hybrid"));
  fclose(f);
  free(wl);
  char *out;
  int rc = gpubench(&out, "plan", "bad.ini", "--json", "plan.json", "--csv", "plan.csv", NULL);
  ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
  free(out);
  expect_utf8("plan.json");
  expect_utf8("plan.csv");
  char *j = gb_test_slurp("plan.json", NULL);
  EXPECT_HAS(j, "\"bad" FFFD3 "name\"");
  free(j);
}
END_TEST

/* an input whose file name is not UTF-8: report (md, html), compare (text,
 * --markdown, --junit), plan --measured --json */
START_TEST(test_every_writer_invalid_utf8) {
  copy(gb_fixture("gate_base.csv"), "base" BAD ".csv");
  copy(gb_fixture("gate_cur.csv"), "cur" BAD ".csv");
  copy(gb_fixture("report_h200.csv"), "meas" BAD ".csv");
  char *out;
  int rc = gpubench(&out, "report", "--out", "rep", "meas" BAD ".csv", NULL);
  ck_assert_msg(rc == 0, "report: exit %d:\n%s", rc, out);
  free(out);
  expect_utf8("rep/report.md");
  expect_utf8("rep/report.html");
  char *md = gb_test_slurp("rep/report.md", NULL);
  EXPECT_HAS(md, "meas" FFFD3 ".csv");
  free(md);
  rc = gpubench(&out, "compare", "base" BAD ".csv", "cur" BAD ".csv", "--markdown", "gate.md", "--junit", "gate.xml",
                "--all", NULL);
  ck_assert_msg(rc == 1, "compare: exit %d:\n%s", rc, out);
  size_t bad;
  ck_assert_msg(gb_utf8_valid(out, strlen(out), &bad), "compare's output: not UTF-8 at %zu", bad);
  free(out);
  expect_utf8("gate.md");
  expect_utf8("gate.xml");
  rc = gpubench(&out, "plan", GB_SOURCE_ROOT "/data/workloads/demand-hybrid.ini", "--measured", "meas" BAD ".csv",
                "--json", "plan.json", NULL);
  ck_assert_msg(rc == 0, "plan: exit %d:\n%s", rc, out);
  free(out);
  expect_utf8("plan.json");
}
END_TEST

/* 100,000 rows: the shipped quick campaign's rows as 264 runs */
START_TEST(test_report_md_bounded) {
  char *src = gb_test_slurp(GB_SOURCE_ROOT "/data/measured/h200-quick.csv", NULL);
  ck_assert_ptr_nonnull(src);
  char *body = strchr(src, '\n') + 1;
  FILE *f = fopen("big.csv", "w");
  fprintf(f, "%.*s", (int)(body - src), src);
  size_t rows = 0;
  for (int k = 0; rows < 100000; k++)
    for (char *l = body; *l && rows < 100000; rows++) {
      size_t n = strcspn(l, "\n");
      char *c1 = memchr(l, ',', n), *c2 = c1 ? memchr(c1 + 1, ',', n - (size_t)(c1 + 1 - l)) : NULL;
      ck_assert_ptr_nonnull(c2); /* run_id: the second column */
      fprintf(f, "%.*s-%d%.*s\n", (int)(c2 - l), l, k, (int)(l + n - c2), c2);
      l += n + (l[n] == '\n');
    }
  fclose(f);
  free(src);
  char *out;
  int rc = gpubench(&out, "report", "--out", "rep", "big.csv", NULL);
  ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
  free(out);
  struct stat st;
  ck_assert_int_eq(stat("rep/report.md", &st), 0);
  ck_assert_msg(st.st_size <= 65536, "report.md is %lld bytes", (long long)st.st_size);
  char *md = gb_test_slurp("rep/report.md", NULL);
  EXPECT_HAS(md, "> **Note:** report.md stops here, at its bound of 64 KiB; report.html holds everything. Left out:");
  EXPECT_HAS(md, "All measurements");
  free(md);
  expect_utf8("rep/report.md");
  expect_utf8("rep/report.html");
}
END_TEST

/* fleet --markdown over 3,000 nodes: the 64 KiB compare --markdown keeps
 * (it was 140,139 bytes: its node table had no bound) */
START_TEST(test_fleet_md_bounded) {
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("aa/aa-quick-1.csv"), &res), GB_OK);
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  char host[3000][16], uuid[3000][16];
  for (int n = 0; n < 3000; n++) {
    snprintf(host[n], sizeof host[n], "node%04d", n);
    snprintf(uuid[n], sizeof uuid[n], "GPU-%04d", n);
    for (size_t i = 0; i < 20 && i < res.nrows; i++) {
      gb_row r = res.rows[i];
      r.host = host[n];
      r.gpu_uuid = uuid[n];
      r.value = r.value * (1 + n % 7 * 0.001);
      ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
    }
  }
  ck_assert_int_eq(gb_test_write("fleet.csv", b.data, b.len), 0);
  gb_buf_free(&b);
  gb_results_free(&res);
  char *out;
  int rc = gpubench(&out, "fleet", "fleet.csv", "--markdown", "fleet.md", NULL);
  ck_assert_msg(rc == 0 || rc == 1, "exit %d:\n%.2000s", rc, out);
  free(out);
  struct stat st;
  ck_assert_int_eq(stat("fleet.md", &st), 0);
  ck_assert_msg(st.st_size <= 65536, "fleet.md is %lld bytes", (long long)st.st_size);
  char *md = gb_test_slurp("fleet.md", NULL);
  EXPECT_HAS(md, "more nodes (ranks ");
  EXPECT_HAS(md, " to 3000) are not shown; the text output lists them.");
  free(md);
}
END_TEST

/* The HTML's bound (gb_doc.html_max, GB_DOC_HTML_MAX in a report): rows
 * past it left out, plots linked, both counted in a note */
START_TEST(test_doc_html_bounded) {
  ck_assert_int_eq(gb_test_write("p.svg", "<svg id='a'><path id='b'/></svg>", 33), 0);
  gb_doc d;
  ck_assert_int_eq(gb_doc_begin(&d, "t"), GB_OK);
  d.html_max = 20000;
  const char *hdr[2] = {"a", "b"};
  ck_assert_int_eq(gb_doc_table_begin(&d, 2, hdr, NULL), GB_OK);
  for (int i = 0; i < 2000; i++) {
    const char *cells[2] = {"some text of a row", "12.5"};
    ck_assert_int_eq(gb_doc_table_row(&d, cells), GB_OK);
  }
  ck_assert_int_eq(gb_doc_table_end(&d), GB_OK);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(gb_doc_figure(&d, ".", "p", "a plot"), GB_OK);
  ck_assert_int_eq(gb_doc_end(&d), GB_OK);
  ck_assert_uint_lt(d.html.len, 22000);
  ck_assert_uint_eq(d.html_figs_out, 3);
  ck_assert_uint_gt(d.html_rows_out, 1500);
  char want[200];
  snprintf(want, sizeof want, "reached its bound of 0 MiB: %zu table row(s) after it are left out", d.html_rows_out);
  EXPECT_HAS(d.html.data, want);
  EXPECT_HAS(d.html.data, "and 3 plot(s) are linked");
  ck_assert_msg(gb_test_xml_well_formed(strstr(d.html.data, "<html")), "not well-formed");
  gb_doc_free(&d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("encodings");
  TCase *tc = tcase_create("encodings");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_plan_json_invalid_utf8);
  tcase_add_test(tc, test_every_writer_invalid_utf8);
  tcase_add_test(tc, test_report_md_bounded);
  tcase_add_test(tc, test_fleet_md_bounded);
  tcase_add_test(tc, test_doc_html_bounded);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
