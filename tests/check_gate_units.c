/* check_gate_units: the gate's inputs as hostile as files (issue 52, class
 * 11), through `gpubench compare` on files and on a store (--store):
 *   - a headline recorded in another unit (GFLOP/s against TFLOP/s) is
 *     not-comparable naming both units and fails the gate (it was judged
 *     +49,900% and passed);
 *   - a run that is also in the baseline (a baseline folder holding the
 *     current file; a store selection holding the current run) never counts
 *     as its own baseline: its rows are left out, and the summary says so
 *     (a 15% drop was "noise" and passed); a baseline of nothing but the
 *     current run (a file compared with itself) is an A/A check, compared. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* gate_base.csv with its run renamed c9 (the next day) and the text from
 * replaced by to (NULL: none), as path. */
static void variant(const char *path, const char *from, const char *to) {
  char *s = gb_test_slurp(gb_fixture("gate_base.csv"), NULL);
  ck_assert_ptr_nonnull(s);
  FILE *f = fopen(path, "w");
  for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
    char *hit = from ? strstr(line, from) : NULL;
    if (strncmp(line, "1,b1,2026-12-01", 15) == 0) fprintf(f, "1,c9,2026-12-02");
    else fprintf(f, "%.15s", line);
    if (hit) fprintf(f, "%.*s%s%s\n", (int)(hit - line - 15), line + 15, to, hit + strlen(from));
    else fprintf(f, "%s\n", line + 15);
  }
  fclose(f);
  free(s);
}

static const char *const k_bf16 = ",tflops,TFLOP/s,700,30,698,702,0.8,";

START_TEST(test_other_unit_is_not_comparable) {
  variant("same.csv", NULL, NULL);
  variant("giga.csv", k_bf16, ",tflops,GFLOP/s,700000,30,698000,702000,800,");
  char *out;
  ck_assert_int_eq(gpubench(&out, "compare", gb_fixture("gate_base.csv"), "same.csv", NULL), 0);
  free(out);
  /* files */
  int rc = gpubench(&out, "compare", gb_fixture("gate_base.csv"), "giga.csv", NULL);
  ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
  EXPECT_HAS(out, "not-comparable H200-SXM-141GB x1 gemm/bf16");
  EXPECT_HAS(out, "units differ: baseline TFLOP/s, current GFLOP/s");
  free(out);
  /* a store */
  ck_assert_int_eq(gpubench(&out, "import", "--store", "u.db", gb_fixture("gate_base.csv"), "giga.csv", NULL), 0);
  free(out);
  rc = gpubench(&out, "compare", "--store", "u.db", "run=b1", "run=c9", NULL);
  ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
  EXPECT_HAS(out, "units differ: baseline TFLOP/s, current GFLOP/s");
  free(out);
  /* one side mixing units is not comparable either */
  ck_assert_int_eq(mkdir("mixed", 0755), 0);
  variant("mixed/a.csv", NULL, NULL);
  char *s = gb_test_slurp("giga.csv", NULL);
  for (char *p; (p = strstr(s, "c9,"));) memcpy(p, "d9,", 3);
  ck_assert_int_eq(gb_test_write("mixed/b.csv", s, strlen(s)), 0);
  free(s);
  rc = gpubench(&out, "compare", "mixed", gb_fixture("gate_base.csv"), NULL);
  ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
  EXPECT_HAS(out, "units differ: baseline GFLOP/s TFLOP/s, current TFLOP/s");
  free(out);
}
END_TEST

START_TEST(test_current_run_is_never_its_baseline) {
  variant("drop.csv", k_bf16, ",tflops,TFLOP/s,595,30,593,597,0.8,"); /* -15% */
  ck_assert_int_eq(mkdir("base", 0755), 0);
  variant("base/drop.csv", k_bf16, ",tflops,TFLOP/s,595,30,593,597,0.8,");
  char *s = gb_test_slurp(gb_fixture("gate_base.csv"), NULL);
  ck_assert_int_eq(gb_test_write("base/gate_base.csv", s, strlen(s)), 0);
  free(s);
  char *out;
  /* files: the baseline folder holds the current file too */
  int rc = gpubench(&out, "compare", "base", "drop.csv", NULL);
  ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
  EXPECT_HAS(out, "regression     H200-SXM-141GB x1 gemm/bf16 bf16 m=8192 n=8192 k=8192 tflops: 700 -> 595 (-15.00%");
  EXPECT_HAS(out, "7 baseline row(s) left out, of run(s) also in the current results (never their own baseline): c9");
  free(out);
  /* a store: "all" holds the current run */
  ck_assert_int_eq(gpubench(&out, "import", "--store", "s.db", gb_fixture("gate_base.csv"), "drop.csv", NULL), 0);
  free(out);
  rc = gpubench(&out, "compare", "--store", "s.db", "all", "run=c9", NULL);
  ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
  EXPECT_HAS(out, "tflops: 700 -> 595 (-15.00% worse");
  EXPECT_HAS(out, "(never their own baseline): c9");
  free(out);
  /* a baseline of nothing but the current run is an A/A check of it: compared as it is */
  rc = gpubench(&out, "compare", "--store", "s.db", "run=c9", "run=c9", NULL);
  ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
  EXPECT_HAS(out, "7 unchanged");
  free(out);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate_units");
  TCase *tc = tcase_create("gate_units");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_other_unit_is_not_comparable);
  tcase_add_test(tc, test_current_run_is_never_its_baseline);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
