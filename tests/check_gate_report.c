/* One judge: `report --compare A B` states the verdict and counts that
 * `compare A B` gives, its exit status included, for every pair of the
 * tests' results fixtures that sit next to each other (tests/fixtures/aa/ in
 * name order, both ways: pairs of one card and pairs across cards and
 * builds) and the gate's and the report's own pairs (a regression, a driver
 * mismatch, disjoint figures). The report judged with built-in floors and
 * allowed mismatches before: on an A/A pair it printed regressions where
 * compare passed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_report.h"
#include "testutil.h"

/* The summary's verdict and counts: "gate: WORD: ... (N newly failed; M
 * failing)", without what follows (the ratio, notes), and the markdown
 * escape of the report undone where it matters ("&gt;" never occurs before). */
static void verdict_of(const char *text, char *out, size_t n) {
  const char *g = strstr(text, "gate: ");
  ck_assert_msg(g != NULL, "no gate summary in:\n%.400s", text);
  const char *end = strstr(g, " failing)");
  const char *nl = strchr(g, '\n');
  if (!end || (nl && nl < end)) end = nl ? nl : g + strlen(g);
  else end += strlen(" failing)");
  snprintf(out, n, "%.*s", (int)(end - g), g);
}

/* compare's stdout and exit status */
static int run_compare(const char *a, const char *b, char *verdict, size_t n) {
  char path[4300];
  snprintf(path, sizeof path, "%s/compare.txt", gb_test_tmpdir());
  fflush(stdout);
  FILE *f = freopen(path, "w", stdout);
  ck_assert_ptr_nonnull(f);
  const char *argv[] = {"compare", a, b};
  int rc = gb_cmd_compare(3, (char **)argv);
  fflush(stdout);
  ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
  char *text = gb_test_slurp(path, NULL);
  verdict_of(text, verdict, n);
  free(text);
  return rc;
}

static void report_verdict(const char *a, const char *b, char *verdict, size_t n) {
  char dir[4300];
  snprintf(dir, sizeof dir, "%s/report", gb_test_tmpdir());
  const char *files[] = {a, b};
  gb_report_options o = {.results = files, .nresults = 2, .compare = true,
                         .specs_path = gb_fixture("report_gpu_specs.csv"), .out_dir = dir};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "report --compare %s %s: %s", a, b, gb_errmsg());
  char path[4400];
  snprintf(path, sizeof path, "%s/report.md", dir);
  char *md = gb_test_slurp(path, NULL);
  const char *wc = strstr(md, "## What changed");
  ck_assert_msg(wc != NULL, "%s %s: no What changed section", a, b);
  verdict_of(wc, verdict, n);
  free(md);
}

static size_t g_same, g_fail, g_pass;

static void same_judge(const char *a, const char *b) {
  char cv[1024], rv[1024];
  int rc = run_compare(a, b, cv, sizeof cv);
  report_verdict(a, b, rv, sizeof rv);
  ck_assert_msg(strcmp(cv, rv) == 0, "%s -> %s:\ncompare: %s\nreport:  %s", a, b, cv, rv);
  const char *word = rc == 0 ? "gate: PASS" : rc == 1 ? "gate: FAIL" : "gate: NOT RUN";
  ck_assert_msg(strncmp(rv, word, strlen(word)) == 0, "%s -> %s: exit %d but the report says %s", a, b, rc, rv);
  g_same++;
  g_fail += rc == 1;
  g_pass += rc == 0;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

START_TEST(test_report_and_compare_agree) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  char aa[4200];
  snprintf(aa, sizeof aa, "%s", gb_fixture("aa"));
  DIR *d = opendir(aa);
  ck_assert_ptr_nonnull(d);
  char *names[128];
  size_t n = 0;
  for (struct dirent *de; (de = readdir(d)) && n < 128;) {
    size_t len = strlen(de->d_name);
    if (len > 4 && !strcmp(de->d_name + len - 4, ".csv")) {
      names[n] = malloc(strlen(aa) + len + 2);
      sprintf(names[n++], "%s/%s", aa, de->d_name);
    }
  }
  closedir(d);
  ck_assert_uint_ge(n, 40);
  qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i + 1 < n; i++) {
    same_judge(names[i], names[i + 1]);
    same_judge(names[i + 1], names[i]);
  }
  static const char *const pairs[][2] = {
      {"gate_base.csv", "gate_cur.csv"},          {"gate_cur.csv", "gate_base.csv"},
      {"gate_base.csv", "gate_cur_driver.csv"},   {"gate_base.csv", "gate_disjoint.csv"},
      {"report_h200.csv", "report_h200_current.csv"}, {"report_h200_current.csv", "report_h200.csv"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s", gb_fixture(pairs[i][0]));
    snprintf(b, sizeof b, "%s", gb_fixture(pairs[i][1]));
    same_judge(a, b);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  /* both verdicts occur among them: the agreement is not one of "PASS" alone */
  ck_assert_uint_eq(g_same, 2 * (n - 1) + 6);
  ck_assert_uint_gt(g_fail, 0);
  ck_assert_uint_gt(g_pass, 0);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate_report");
  TCase *tc = tcase_create("one judge");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_report_and_compare_agree);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
