/* check_harden: hostile inputs and unlucky operators against the commands
 * (docs/reliability.md, "Held by construction"): outputs over inputs, long
 * merge keys, fleet campaigns, control text from data, names, peers that
 * misbehave. Each test failed before its fix. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <strings.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gb_csv.h"
#include "gb_escape.h"
#include "gb_output.h"
#include "gb_prom.h"

/* push options with a deadline of MS */
#define PO(ms) (&(gb_push_opts){.timeout_ms = (ms)})
#include "gb_results.h"
#include "testutil.h"

static char g_dir[4096];

/* Paths that live as long as the test (a test makes fewer than 64). */
static const char *keep(const char *fmt, const char *name) {
  static char pool[64][4400];
  static int used;
  ck_assert_int_lt(used, 64);
  snprintf(pool[used], sizeof pool[used], fmt, g_dir, name);
  return pool[used++];
}

static const char *tpath(const char *name) { return keep("%s/%s", name); }

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "%s", gb_test_tmpdir());
  unsetenv("GPUBENCH_DATA_DIR");
}

/* Runs gpubench with the arguments (NULL-terminated); its stdout and stderr
 * go to *out (malloc'd). Returns the exit status. */
static int gpubench(char **out, ...) {
  va_list ap;
  va_start(ap, out);
  int rc = gb_test_gpubench_va(tpath("gpubench.log"), out, ap);
  va_end(ap);
  return rc;
}

#define EXPECT_RC(rc, want, out) ck_assert_msg((rc) == (want), "exit %d, expected %d; output:\n%.3000s", rc, want, out)
#define EXPECT_HAS(text, needle) ck_assert_msg(strstr(text, needle) != NULL, "\"%s\" not in:\n%.3000s", needle, text)
#define EXPECT_NOT(text, needle) ck_assert_msg(strstr(text, needle) == NULL, "\"%s\" in:\n%.3000s", needle, text)

static void copy_file(const char *from, const char *to) {
  size_t n;
  char *d = gb_test_slurp(from, &n);
  ck_assert_msg(d != NULL, "cannot read %s", from);
  ck_assert_int_eq(gb_test_write(to, d, n), 0);
  free(d);
}

/* The file's bytes, to check it was left as it was. */
static char *snap(const char *path) {
  char *d = gb_test_slurp(path, NULL);
  ck_assert_ptr_nonnull(d);
  return d;
}

static void expect_same(const char *path, char *before) {
  char *now = snap(path);
  ck_assert_msg(strcmp(now, before) == 0, "%s was changed", path);
  free(now);
  free(before);
}

/* A data folder of its own (GPUBENCH_DATA_DIR), copied from the shipped one. */
static const char *data_dir(void) {
  static char d[4200];
  snprintf(d, sizeof d, "%s/data", g_dir);
  char sub[4300];
  mkdir(d, 0755);
  snprintf(sub, sizeof sub, "%s/measured", d);
  mkdir(sub, 0755);
  snprintf(sub, sizeof sub, "%s/workloads", d);
  mkdir(sub, 0755);
  static const char *const files[] = {"gpu_specs.csv", "prices.csv", "workloads/training-7b.ini",
                                      "measured/h200-quick.csv"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char from[4300], to[4300];
    snprintf(from, sizeof from, "%s/../../data/%s", gb_fixture(""), files[i]);
    snprintf(to, sizeof to, "%s/%s", d, files[i]);
    copy_file(from, to);
  }
  setenv("GPUBENCH_DATA_DIR", d, 1);
  return d;
}

static const char *dpath(const char *name) { return keep("%s/data/%s", name); }

/* ---- (a) outputs over inputs ---- */

START_TEST(test_export_out_onto_input) {
  const char *in = tpath("r.csv");
  copy_file(gb_fixture("results_good.csv"), in);
  char *before = snap(in), *out;
  int rc = gpubench(&out, "export", (char *)in, "--out", (char *)in, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "the output is also an input");
  expect_same(in, before);
  free(out);
}
END_TEST

START_TEST(test_merge_out_onto_input) {
  const char *in = tpath("r.csv");
  copy_file(gb_fixture("results_good.csv"), in);
  char *before = snap(in), *out;
  int rc = gpubench(&out, "merge", (char *)in, "--out", (char *)in, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "the output is also an input");
  expect_same(in, before);
  free(out);
}
END_TEST

START_TEST(test_noise_out_onto_input) {
  const char *a = tpath("a.csv"), *b = tpath("b.csv");
  copy_file(gb_fixture("gate_base.csv"), a);
  copy_file(gb_fixture("gate_cur.csv"), b);
  char *before = snap(b), *out;
  int rc = gpubench(&out, "noise", (char *)a, (char *)b, "--out", (char *)b, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "the output is also an input");
  expect_same(b, before);
  free(out);
  /* an output in an input directory, which is read for its CSVs */
  char sub[4300];
  snprintf(sub, sizeof sub, "%s/runs", g_dir);
  mkdir(sub, 0755);
  copy_file(a, tpath("runs/a.csv"));
  copy_file(b, tpath("runs/b.csv"));
  rc = gpubench(&out, "noise", sub, "--out", (char *)tpath("runs/floors.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "input directory");
  ck_assert_int_ne(access(tpath("runs/floors.csv"), F_OK), 0);
  free(out);
}
END_TEST

START_TEST(test_plan_outputs_onto_inputs) {
  data_dir();
  const char *wl = tpath("w.ini"), *meas = tpath("m.csv"), *prices = tpath("p.csv");
  copy_file(dpath("workloads/training-7b.ini"), wl);
  copy_file(dpath("measured/h200-quick.csv"), meas);
  copy_file(dpath("prices.csv"), prices);
  const char *const targets[] = {wl, meas, prices};
  const char *const flags[] = {"--json", "--hybrid-csv", "--csv", "--sensitivity-csv"};
  for (size_t t = 0; t < 3; t++)
    for (size_t f = 0; f < 4; f++) {
      char *before = snap(targets[t]), *out;
      int rc = gpubench(&out, "plan", (char *)wl, "--measured", (char *)meas, "--prices", (char *)prices,
                        (char *)flags[f], (char *)targets[t], NULL);
      EXPECT_RC(rc, 2, out);
      EXPECT_HAS(out, "the output is also an input");
      expect_same(targets[t], before);
      free(out);
    }
}
END_TEST

START_TEST(test_plan_outputs_onto_data) {
  data_dir();
  const char *wl = tpath("w.ini");
  copy_file(dpath("workloads/training-7b.ini"), wl);
  /* the default data files, and a new file in the data folders */
  const char *const targets[] = {dpath("prices.csv"), dpath("gpu_specs.csv"), dpath("measured/h200-quick.csv"),
                                 dpath("measured/plan.csv"), dpath("workloads/training-7b.ini")};
  for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
    bool existed = access(targets[t], F_OK) == 0;
    char *before = existed ? snap(targets[t]) : NULL, *out;
    int rc = gpubench(&out, "plan", (char *)wl, "--json", (char *)targets[t], NULL);
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, "data folder");
    if (existed) expect_same(targets[t], before);
    else ck_assert_int_ne(access(targets[t], F_OK), 0);
    free(out);
  }
}
END_TEST

START_TEST(test_plan_two_outputs_one_file) {
  data_dir();
  const char *wl = tpath("w.ini"), *x = tpath("x.out");
  copy_file(dpath("workloads/training-7b.ini"), wl);
  char *out;
  int rc = gpubench(&out, "plan", (char *)wl, "--csv", (char *)x, "--json", (char *)x, NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "two outputs name one file");
  ck_assert_int_ne(access(x, F_OK), 0);
  free(out);
  /* another spelling of the same file, through a link to the folder */
  char link[4300];
  snprintf(link, sizeof link, "%s/via", g_dir);
  ck_assert_int_eq(symlink(g_dir, link), 0);
  rc = gpubench(&out, "plan", (char *)wl, "--csv", (char *)x, "--hybrid-csv", (char *)tpath("via/x.out"), NULL);
  EXPECT_RC(rc, 2, out);
  free(out);
}
END_TEST

START_TEST(test_report_out_into_measured) {
  data_dir();
  const char *in = tpath("r.csv");
  copy_file(gb_fixture("results_good.csv"), in);
  char *out;
  int rc = gpubench(&out, "report", (char *)in, "--out", (char *)dpath("measured"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "data folder");
  ck_assert_int_ne(access(dpath("measured/report.md"), F_OK), 0);
  free(out);
  rc = gpubench(&out, "report", "--out", (char *)dpath("measured/sub"), NULL); /* the shipped report */
  EXPECT_RC(rc, 2, out);
  ck_assert_int_ne(access(dpath("measured/sub/plan.csv"), F_OK), 0);
  free(out);
}
END_TEST

START_TEST(test_run_out_onto_data) {
  data_dir();
  char *before = snap(dpath("prices.csv")), *out;
  int rc = gpubench(&out, "run", "--bench", "fma", "--out", (char *)dpath("prices.csv"), NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_HAS(out, "data folder");
  expect_same(dpath("prices.csv"), before);
  free(out);
}
END_TEST

START_TEST(test_guard_api) {
  const char *a = tpath("a.csv"), *b = tpath("b.csv"), *hard = tpath("hard.csv");
  ck_assert_int_eq(gb_test_write(a, "x\n", 2), 0);
  ck_assert_int_eq(link(a, hard), 0);
  const char *ins[] = {a};
  const char *outs1[] = {hard};
  ck_assert_int_eq(gb_output_guard(outs1, 1, ins, 1, 0), GB_E_USAGE); /* a hard link: one inode */
  const char *outs2[] = {b, "-", NULL, b};
  ck_assert_int_eq(gb_output_guard(outs2, 4, ins, 1, 0), GB_E_USAGE);
  const char *outs3[] = {b, "-", NULL, "/dev/null", "/dev/null"};
  ck_assert_int_eq(gb_output_guard(outs3, 5, ins, 1, 0), GB_OK);
  setenv("GPUBENCH_DATA_DIR", g_dir, 1);
  ck_assert_int_eq(gb_output_guard(outs3, 1, NULL, 0, 0), GB_E_USAGE);
  mkdir(tpath("measured"), 0755);
  const char *m[] = {tpath("measured/new.csv")};
  ck_assert_int_eq(gb_output_guard(m, 1, NULL, 0, GB_OUT_MEASURED_OK), GB_OK);
  ck_assert_int_eq(gb_output_guard(m, 1, NULL, 0, 0), GB_E_USAGE);
  unsetenv("GPUBENCH_DATA_DIR");
}
END_TEST

/* ---- (c) control text from data ---- */

/* No escape byte, no line whose first non-blank characters start a workflow
 * command, no bidi override: what a terminal or a CI log may be shown. */
static void expect_log_safe(const char *what, const char *text) {
  ck_assert_msg(strchr(text, 0x1B) == NULL, "%s: an ESC byte reached the output:\n%.2000s", what, text);
  ck_assert_msg(strstr(text, "\xE2\x80\xAE") == NULL, "%s: a bidi override reached the output", what);
  /* a raw CR only ends a line (CR LF) or redraws the progress line: any
   * other lets the text after it overwrite the line on a terminal */
  for (const char *c = text; (c = strchr(c, '\r')); c++)
    ck_assert_msg(c[1] == '\n' || strncmp(c + 1, "\x1B[K", 3) == 0, "%s: a bare CR reached the output: %.200s", what,
                  c + 1);
  for (const char *l = text; l; l = strchr(l, '\n')) {
    l += *l == '\n';
    const char *p = l + strspn(l, " \t\r");
    ck_assert_msg(strncmp(p, "::", 2) != 0 && strncmp(p, "##[", 3) != 0 && strncmp(p, "##v", 3) != 0, "%s: a line starts a workflow command: %.200s",
                  what, p);
  }
}

static void expect_markdown_safe(const char *path) {
  char *md = snap(path);
  expect_log_safe(path, md);
  EXPECT_NOT(md, "<img");
  EXPECT_NOT(md, "](javascript");
  free(md);
}

/* Fields carrying ESC [, OSC, "\n::error::", a tag, a javascript: link and a
 * bidi override, in every command that quotes data: in a message (a value
 * that does not read, quoted) or in its text output. Before, the raw bytes
 * reached stderr of compare, noise, merge, history, report, fleet and plan. */
START_TEST(test_hostile_fields_in_messages) {
  data_dir();
  const char *bad = tpath("bad.csv"), *hostile = tpath("hostile.csv"), *base = tpath("base.csv");
  copy_file(gb_fixture("hostile_value.csv"), bad);
  copy_file(gb_fixture("hostile_fields.csv"), hostile);
  copy_file(gb_fixture("gate_base.csv"), base);
  /* a CR in a field: before, it reached stderr raw, so on a terminal the
   * text after it overwrote the message ("13.0" then a fake verdict) */
  const char *cr = tpath("cr.csv");
  {
    char *t = snap(base);
    gb_buf b = {0};
    for (char *l = t, *nl; *l; l = nl + 1) {
      nl = strchr(l, '\n');
      ck_assert_ptr_nonnull(nl);
      char *at = l == t ? NULL : strstr(l, ",13.0,");
      if (at && at < nl)
        ck_assert_int_eq(gb_buf_printf(&b, "%.*s,\"13.0\r  ::error::PASS all\",%.*s\n", (int)(at - l), l,
                                       (int)(nl - at - 6), at + 6), GB_OK);
      else ck_assert_int_eq(gb_buf_printf(&b, "%.*s\n", (int)(nl - l + 0), l), GB_OK);
    }
    ck_assert_int_eq(gb_test_write(cr, b.data, b.len), 0);
    gb_buf_free(&b);
    free(t);
  }
  const char *wl = dpath("workloads/training-7b.ini"), *o = tpath("o.csv"), *rep = tpath("rep");
  char *const runs[][8] = {
      {"compare", (char *)base, (char *)cr, NULL},
      {"compare", (char *)base, (char *)bad, NULL},
      {"compare", (char *)base, (char *)hostile, NULL},
      {"noise", (char *)bad, (char *)hostile, "--out", (char *)o, NULL},
      {"merge", (char *)bad, (char *)hostile, "--out", (char *)o, NULL},
      {"merge", (char *)hostile, (char *)base, (char *)hostile, "--out", (char *)o, NULL},
      {"history", (char *)bad, (char *)hostile, NULL},
      {"history", (char *)hostile, (char *)hostile, (char *)hostile, NULL},
      {"report", (char *)bad, "--out", (char *)rep, NULL},
      {"fleet", (char *)bad, NULL},
      {"fleet", (char *)hostile, NULL},
      {"plan", (char *)wl, "--measured", (char *)bad, NULL},
  };
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    char *out;
    char *const *a = runs[i];
    int rc = gpubench(&out, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    ck_assert_msg(rc >= 0 && rc <= 3, "%s: exit %d", a[0], rc);
    if (a[1] == bad) EXPECT_HAS(out, "not a finite number");
    expect_log_safe(a[0], out);
    free(out);
  }
}
END_TEST

/* import of a file that cannot be read is bad input (exit 2) like every
 * other reader's, and touches no store. Before: exit 1, "the store failed",
 * for a directory, a FIFO or a missing file. */
START_TEST(test_import_unreadable_is_bad_input) {
  const char *dir = tpath("d.csv"), *fifo = tpath("f.csv"), *db = tpath("s.db"), *good = tpath("good.csv");
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  ck_assert_int_eq(mkfifo(fifo, 0644), 0);
  copy_file(gb_fixture("gate_base.csv"), good);
  const char *bad[] = {dir, fifo, tpath("missing.csv")};
  for (size_t i = 0; i < 3; i++) {
    char *out, url[4500];
    snprintf(url, sizeof url, "sqlite:%s", db);
    int rc = gpubench(&out, "import", "--store", url, good, bad[i], NULL);
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, bad[i]);
    free(out);
    ck_assert_msg(access(db, F_OK) != 0, "the store was created for %s", bad[i]);
  }
}
END_TEST

/* The markdown outputs of a hostile results file carry no tag and no link. */
START_TEST(test_hostile_fields_in_markdown) {
  const char *hostile = tpath("hostile.csv"), *md = tpath("gate.md"), *rep = tpath("rep");
  copy_file(gb_fixture("hostile_fields.csv"), hostile);
  char *out;
  int rc = gpubench(&out, "compare", (char *)hostile, (char *)hostile, "--markdown", (char *)md, NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  expect_markdown_safe(md);
  rc = gpubench(&out, "report", (char *)hostile, "--out", (char *)rep, NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  expect_markdown_safe(tpath("rep/report.md"));
  char *html = snap(tpath("rep/report.html"));
  EXPECT_NOT(html, "<img");
  ck_assert_ptr_null(strchr(html, 0x1B));
  /* a field's line feed is a reference in the page, so printing the page in
   * a CI log starts no workflow command (before: "\n::error::" did) */
  expect_log_safe("rep/report.html", html);
  free(html);
  /* the plots' data and scripts (linked from the report) get the same
   * sanitizer: before, the .dat labels carried the raw ESC and U+202E */
  DIR *dir = opendir(rep);
  ck_assert_ptr_nonnull(dir);
  size_t plots = 0;
  for (struct dirent *de; (de = readdir(dir));) {
    size_t n = strlen(de->d_name);
    if (n < 4 || (strcmp(de->d_name + n - 4, ".dat") && strcmp(de->d_name + n - 3, ".gp"))) continue;
    char path[600];
    snprintf(path, sizeof path, "%s/%s", rep, de->d_name);
    char *t = snap(path);
    expect_log_safe(path, t);
    free(t);
    plots++;
  }
  closedir(dir);
  ck_assert_uint_gt(plots, 0);
}
END_TEST

/* The stream sanitizer itself, fed in pieces that split its sequences. */
START_TEST(test_log_stream_pieces) {
  static const struct {
    const char *in, *want;
  } cases[] = {
      {"a\x1B[31mb", "a\\x1B[31mb"},
      {"\r\x1B[Kprogress", "\r\x1B[Kprogress"},
      {"x\n::error::y", "x\n: :error::y"},
      {"x\r  ::warning::y", "x\\r  ::warning::y"},
      {"x\r\n  ::warning::y", "x\r\n  : :warning::y"},
      {"x\r\x1B[K::warning::y\r\x1B[Kz", "x\r\x1B[K: :warning::y\r\x1B[Kz"},
      {"a\r\x1B[31mb\r", "a\\r\\x1B[31mb\\r"},
      {"##[error]x\n##vso[task]\n## head", "## [error]x\n## vso[task]\n## head"},
      {"a::b :: c", "a::b :: c"},
      {"\xC2\x9B" "2J", "\\x9B2J"},
      {"\xE2\x80\xAE" "evil", "\\u202Eevil"},
      {"bad\xFF\xC3", "bad\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"\x07\x7F\t", "\\x07\\x7F\t"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t cut = 0; cut <= strlen(cases[i].in); cut++) {
      gb_esc_log_state st = {0};
      gb_buf b = {0};
      ck_assert_int_eq(gb_esc_log_feed(&st, &b, cases[i].in, cut), GB_OK);
      ck_assert_int_eq(gb_esc_log_feed(&st, &b, cases[i].in + cut, strlen(cases[i].in) - cut), GB_OK);
      ck_assert_int_eq(gb_esc_log_end(&st, &b), GB_OK);
      ck_assert_int_eq(gb_buf_puts(&b, ""), GB_OK);
      ck_assert_msg(strcmp(b.data, cases[i].want) == 0, "case %zu cut %zu: \"%s\"", i, cut, b.data);
      gb_buf_free(&b);
    }
}
END_TEST

/* ---- names ---- */

/* A results file of rows of one run, each "benchmark,metric". */
static const char *figures_file(const char *name, const char *const *bm, size_t n) {
  const char *path = tpath(name);
  char *head = snap(gb_fixture("results_good.csv"));
  *strchr(head, '\n') = '\0';
  gb_buf b = {0};
  ck_assert_int_eq(gb_buf_printf(&b, "%s\n", head), GB_OK);
  for (size_t i = 0; i < n; i++) {
    char bench[64];
    snprintf(bench, sizeof bench, "%s", bm[i]);
    char *metric = strchr(bench, ','), *bang = strchr(bench, '!');
    *metric++ = '\0';
    if (bang) *bang = '\0'; /* "bench,metric!": the row has a peak */
    ck_assert_int_eq(gb_buf_printf(&b,
                                   "1,r1,2026-12-02T00:00:00Z,h,H200-SXM-141GB,NVIDIA H200,1,580.159.04,13.0,%s,c,"
                                   "bf16,8192,8192,8192,,%s,u,%zu,30,1,2,0.1,ok,,1980,3201,60,650,,,%s,,x\n",
                                   bench, metric, i + 1, bang ? "5" : ""),
                     GB_OK);
  }
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_buf_free(&b);
  free(head);
  return path;
}

/* Two different figures never share a metric name (before: exit 0 and one
 * series the median of both, or two series of one name in two units). */
START_TEST(test_export_name_collisions) {
  static const char *const pairs[][2] = {
      {"my-bench,x", "my_bench,x"},                   /* names made the same by the name rule */
      {"a,b_c", "a_b,c"},                             /* the benchmark/metric boundary */
      {"gemm,tflops", "gemm,throughput_flops_per_second"}, /* a table name and an unknown metric */
      {"membw,x_peak", "membw,x!"},                   /* a figure and another's peak */
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const char *in = figures_file("c.csv", pairs[i], 2), *o = tpath("c.prom");
    char *out;
    int rc = gpubench(&out, "export", (char *)in, "--out", (char *)o, NULL);
    EXPECT_RC(rc, 2, out);
    EXPECT_HAS(out, "map onto the metric name");
    free(out);
  }
  static const char *const fine[] = {"gemm,tflops", "membw,gbps", "fma,tflops", "x,y"};
  const char *in = figures_file("f.csv", fine, 4);
  char *out;
  int rc = gpubench(&out, "export", (char *)in, "--out", (char *)tpath("f.prom"), NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
}
END_TEST

/* history --plot: keys that differ only in characters a file name cannot
 * hold ("a/b", "a:b", "a?b", "A/b"), and a 600-byte case name, give one file
 * each, portable and at most 255 bytes (before: the first three wrote one
 * file, and the long name failed with "File name too long"). */
START_TEST(test_history_plot_names) {
  static const char *const cases[] = {"a/b", "a:b", "a?b", "A/b", NULL};
  char longcase[601];
  memset(longcase, 'x', 600);
  longcase[600] = '\0';
  char *head = snap(gb_fixture("gate_base.csv"));
  *strchr(head, '\n') = '\0';
  gb_buf b = {0};
  ck_assert_int_eq(gb_buf_printf(&b, "%s\n", head), GB_OK);
  for (int run = 1; run <= 3; run++)
    for (int c = 0; c < 5; c++)
      ck_assert_int_eq(gb_buf_printf(&b,
                                     "1,r%d,2026-12-0%dT10:00:00Z,gpu07,H200-SXM-141GB,NVIDIA H200,1,580.159.04,13.0,"
                                     "membw,%s,fp64,,,,1073741824,gbps,GB/s,%d,30,1,2,4,ok,,1980,3201,60,650,\n",
                                     run, run, cases[c] ? cases[c] : longcase, 4000 + run * 10 + c),
                       GB_OK);
  const char *in = tpath("h.csv"), *dir = tpath("plots");
  ck_assert_int_eq(gb_test_write(in, b.data, b.len), 0);
  gb_buf_free(&b);
  free(head);
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1); /* .dat and .gp only */
  char *out;
  int rc = gpubench(&out, "history", (char *)in, "--all", "--plot", (char *)dir, NULL);
  unsetenv("GPUBENCH_GNUPLOT");
  ck_assert_msg(rc == 0 || rc == 3, "exit %d:\n%s", rc, out); /* 3: too few runs to test */
  EXPECT_HAS(out, "5 trend plots");
  free(out);
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int dats = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    ck_assert_uint_le(strlen(e->d_name), 255);
    ck_assert_msg(strspn(e->d_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") ==
                      strlen(e->d_name),
                  "not a portable name: %s", e->d_name);
    size_t l = strlen(e->d_name);
    dats += l > 4 && strcmp(e->d_name + l - 4, ".dat") == 0;
  }
  closedir(d);
  ck_assert_int_eq(dats, 5);
  /* the naming itself: distinct without case, bounded */
  gb_stem_set set = {0};
  char n1[GB_STEM_MAX], n2[GB_STEM_MAX], n3[GB_STEM_MAX];
  ck_assert_int_eq(gb_stem_unique(&set, "H200_x1", n1), GB_OK);
  ck_assert_int_eq(gb_stem_unique(&set, "h200_X1", n2), GB_OK);
  ck_assert_int_eq(gb_stem_unique(&set, longcase, n3), GB_OK);
  ck_assert_str_eq(n1, "H200_x1");
  ck_assert_int_ne(strcasecmp(n1, n2), 0);
  ck_assert_uint_lt(strlen(n3), GB_STEM_MAX);
  gb_stem_set_free(&set);
}
END_TEST

/* The gate never passes a collapsed headline figure: 700 -> 0 TFLOP/s is
 * "collapsed" and exit 1 (the rule is the gate's; this keeps the hostile
 * input). */
START_TEST(test_collapsed_headline_fails) {
  const char *base = tpath("base.csv"), *cur = tpath("zero.csv");
  copy_file(gb_fixture("gate_base.csv"), base);
  copy_file(gb_fixture("hostile_zero_headline.csv"), cur);
  char *out;
  int rc = gpubench(&out, "compare", (char *)base, (char *)cur, NULL);
  EXPECT_RC(rc, 1, out);
  EXPECT_HAS(out, "collapsed");
  free(out);
}
END_TEST

/* Data on stdout (merge's CSV, export's exposition) goes out exactly as
 * written into a pipe or file, but through the sanitizer on a terminal (a
 * pseudo-terminal from script(1); skipped where there is none). Before, the
 * 21 ESC bytes of the hostile file reached the terminal. */
START_TEST(test_data_stdout_on_a_terminal) {
  if (access("/usr/bin/script", X_OK) != 0) {
    fprintf(stderr, "test_data_stdout_on_a_terminal: skipped: no /usr/bin/script\n");
    return;
  }
  const char *hostile = tpath("hostile.csv"), *log = tpath("tty.log");
  copy_file(gb_fixture("hostile_fields.csv"), hostile);
  static const char *const cmds[] = {"merge", "export"};
  for (size_t i = 0; i < 2; i++) {
    char line[9000];
    snprintf(line, sizeof line, "%s %s %s", gb_test_gpubench(), cmds[i], hostile);
    char *argv[] = {"/usr/bin/script", "-qec", line, "/dev/null", NULL};
    int rc = gb_test_run(argv, log);
    char *out = gb_test_slurp(log, NULL);
    ck_assert_ptr_nonnull(out);
    EXPECT_RC(rc, 0, out);
    ck_assert_msg(strlen(out) > 100, "%s: no output on the terminal", cmds[i]);
    expect_log_safe(cmds[i], out);
    free(out);
  }
  /* into a pipe or file the data is the data */
  char *out;
  int rc = gpubench(&out, "merge", (char *)hostile, NULL);
  EXPECT_RC(rc, 0, out);
  ck_assert_ptr_nonnull(strchr(out, 0x1B));
  free(out);
}
END_TEST

/* No link or image from a field in markdown, a dropped CR included. */
START_TEST(test_markdown_no_links) {
  static const char *const in[] = {"[a](javascript:alert(1))", "![x](http://e/x.png)", "[a]\r(javascript:x)"};
  for (size_t i = 0; i < 3; i++) {
    gb_buf a = {0}, b = {0};
    ck_assert_int_eq(gb_esc_markdown(&a, in[i]), GB_OK);
    ck_assert_int_eq(gb_esc_markdown_text(&b, in[i]), GB_OK);
    ck_assert_int_eq(gb_buf_puts(&a, ""), GB_OK);
    ck_assert_int_eq(gb_buf_puts(&b, ""), GB_OK);
    ck_assert_msg(!strstr(a.data, "](") && !strstr(b.data, "]("), "%zu: \"%s\" / \"%s\"", i, a.data, b.data);
    gb_buf_free(&a);
    gb_buf_free(&b);
  }
}
END_TEST

/* noise writes only floors that compare reads: identical figures over runs
 * on several cards gave a "cards" floor of sigma 0, which the floor reader
 * refuses (found by fuzz_noise_runs; before: compare --noise exit 2,
 * "sigma: not a positive number"). */
START_TEST(test_noise_floors_read_back) {
  const char *in = tpath("runs.csv"), *floors = tpath("floors.csv");
  copy_file(gb_fixture("fuzz_noise_runs_zero_sigma.csv"), in);
  char *out;
  int rc = gpubench(&out, "noise", (char *)in, "--out", (char *)floors, NULL);
  EXPECT_RC(rc, 0, out);
  free(out);
  rc = gpubench(&out, "compare", (char *)in, (char *)in, "--noise", (char *)floors, NULL);
  ck_assert_msg(rc == 0 || rc == 3, "exit %d:\n%s", rc, out);
  EXPECT_NOT(out, "not a positive number");
  free(out);
}
END_TEST

/* ---- (e) peers that misbehave ---- */

START_TEST(test_push_url_crlf_and_credentials) {
  ck_assert_int_eq(gb_prom_push("http://127.0.0.1:1/x\r\nX-Evil: 1", "j", NULL, "", 0, PO(200)), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "CR/LF"));
  ck_assert_int_eq(gb_prom_push("http://user:s3cret@127.0.0.1:1", "j", NULL, "", 0, PO(200)), GB_E_USAGE);
  ck_assert_ptr_null(strstr(gb_errmsg(), "s3cret"));
  /* a query or fragment would swallow the group's path; a URL over the
   * limit was cut silently (its path shortened); non-ASCII is not HTTP */
  ck_assert_int_eq(gb_prom_push("http://127.0.0.1:1/p?q=1", "j", NULL, "", 0, PO(200)), GB_E_USAGE);
  ck_assert_int_eq(gb_prom_push("http://127.0.0.1:1/p#f", "j", NULL, "", 0, PO(200)), GB_E_USAGE);
  ck_assert_int_eq(gb_prom_push("http://127.0.0.1:1/\xC3\xA9", "j", NULL, "", 0, PO(200)), GB_E_USAGE);
  {
    char big[3000] = "http://127.0.0.1:1/";
    memset(big + strlen(big), 'a', sizeof big - strlen(big) - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(gb_prom_push(big, "j", NULL, "", 0, PO(200)), GB_E_USAGE);
    ck_assert_ptr_nonnull(strstr(gb_errmsg(), "limit"));
  }
  char *out;
  const char *in = tpath("r.csv");
  copy_file(gb_fixture("results_good.csv"), in);
  int rc = gpubench(&out, "export", (char *)in, "--push", "http://admin:s3cret@127.0.0.1:1", NULL);
  EXPECT_RC(rc, 2, out);
  EXPECT_NOT(out, "s3cret");
  free(out);
}
END_TEST

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A server that answers one byte every 100 ms, never a whole line: the
 * push ends at its deadline (before: each byte restarted the timeout). */
START_TEST(test_push_total_deadline) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  ck_assert_int_eq(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(ls, 4), 0);
  ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&a, &al), 0);
  pid_t pid = fork();
  if (pid == 0) {
    int c = accept(ls, NULL, NULL);
    char buf[4096];
    ssize_t r = read(c, buf, sizeof buf);
    (void)r;
    for (int i = 0; i < 100; i++) {
      if (write(c, "H", 1) != 1) break;
      usleep(100000);
    }
    _exit(0);
  }
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
  double t0 = now_s();
  gb_err e = gb_prom_push(url, "j", NULL, "x 1\n", 4, PO(700));
  double took = now_s() - t0;
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  close(ls);
  ck_assert_int_eq(e, GB_E_IO);
  ck_assert_msg(took < 2.0, "the push took %.1f s with a 0.7 s deadline", took);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("harden");
  TCase *t = tcase_create("outputs");
  tcase_add_checked_fixture(t, setup, NULL);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_guard_api);
  tcase_add_test(t, test_export_out_onto_input);
  tcase_add_test(t, test_merge_out_onto_input);
  tcase_add_test(t, test_noise_out_onto_input);
  tcase_add_test(t, test_plan_outputs_onto_inputs);
  tcase_add_test(t, test_plan_outputs_onto_data);
  tcase_add_test(t, test_plan_two_outputs_one_file);
  tcase_add_test(t, test_report_out_into_measured);
  tcase_add_test(t, test_run_out_onto_data);
  suite_add_tcase(s, t);
  TCase *ctl = tcase_create("control text");
  tcase_add_checked_fixture(ctl, setup, NULL);
  tcase_set_timeout(ctl, 120);
  tcase_add_test(ctl, test_log_stream_pieces);
  tcase_add_test(ctl, test_markdown_no_links);
  tcase_add_test(ctl, test_hostile_fields_in_messages);
  tcase_add_test(ctl, test_hostile_fields_in_markdown);
  tcase_add_test(ctl, test_import_unreadable_is_bad_input);
  tcase_add_test(ctl, test_export_name_collisions);
  tcase_add_test(ctl, test_history_plot_names);
  tcase_add_test(ctl, test_collapsed_headline_fails);
  tcase_add_test(ctl, test_noise_floors_read_back);
  tcase_add_test(ctl, test_data_stdout_on_a_terminal);
  suite_add_tcase(s, ctl);
  TCase *net = tcase_create("network");
  tcase_add_checked_fixture(net, setup, NULL);
  tcase_set_timeout(net, 30);
  tcase_add_test(net, test_push_url_crlf_and_credentials);
  tcase_add_test(net, test_push_total_deadline);
  suite_add_tcase(s, net);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
