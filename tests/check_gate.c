/* Tests for the regression gate: verdicts on fixture CSVs, a 10% drop among
 * hundreds of generated figures, noise that must stay quiet, machine
 * identity, the config file, markdown and well-formed JUnit XML, history
 * change points over 30 generated runs, and every exit code of the
 * `compare` and `history` front ends. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_desc.h"
#include "gb_gate.h"
#include "gb_history.h"
#include "gb_inputs.h"
#include "gb_noise.h"
#include "gb_runinfo.h"
#include "gb_plot.h"
#include "testutil.h"

/* ---- helpers ---- */

static uint64_t g_state;
static double uniform01(void) {
  uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01()); }

/* Results read by compare_files: the report borrows strings from their rows,
 * so they live until the test's teardown (free_kept) frees them. */
static gb_results g_kept[16];
static size_t g_nkept;

static void free_kept(void) {
  for (size_t i = 0; i < g_nkept; i++) gb_results_free(&g_kept[i]);
  g_nkept = 0;
}

static gb_err compare_files(const char *b, const char *c, const gb_gate_options *opt, gb_gate_report *rep) {
  ck_assert_msg(b != c, "gb_fixture returns one static buffer: use compare_fixtures");
  ck_assert_uint_le(g_nkept + 2, sizeof g_kept / sizeof g_kept[0]);
  gb_results *base = &g_kept[g_nkept++], *cur = &g_kept[g_nkept++];
  memset(base, 0, sizeof *base);
  memset(cur, 0, sizeof *cur);
  gb_err e = gb_results_read(b, base);
  if (!e) e = gb_results_read(c, cur);
  if (!e) e = gb_gate_compare(base, cur, opt, rep);
  return e;
}

/* Fixture names: gb_fixture() returns one static buffer, so copy each. */
static gb_err compare_fixtures(const char *b, const char *c, const gb_gate_options *opt, gb_gate_report *rep) {
  char bp[4200], cp[4200];
  snprintf(bp, sizeof bp, "%s", gb_fixture(b));
  snprintf(cp, sizeof cp, "%s", gb_fixture(c));
  return compare_files(bp, cp, opt, rep);
}

static const gb_gate_item *find_item(const gb_gate_report *rep, const char *needle) {
  for (size_t i = 0; i < rep->nitems; i++)
    if (strstr(rep->items[i].key, needle)) return &rep->items[i];
  return NULL;
}

/* Generated campaign: nkeys figures ("case<i>", odd: membw gbps, even: gemm
 * time_us), reps rows each, value = level * (1 + cv * N(0,1)); figure
 * `drop_key` (-2: every figure) performs drop_factor times as well. */
typedef struct gen_spec {
  const char *run_id, *timestamp, *driver;
  int nkeys, reps;
  double cv;
  int drop_key;
  double drop_factor;
  uint64_t seed;
  bool headline; /* HBM-sized membw arrays and 8192^3 GEMMs (judged figures); else 1 MiB arrays */
} gen_spec;

static void gen_csv(const char *path, const gen_spec *g) {
  gb_buf b = {0};
  gb_results_put_header(&b);
  g_state = g->seed;
  for (int k = 0; k < g->nkeys; k++)
    for (int r = 0; r < g->reps; r++) {
      char case_name[32];
      snprintf(case_name, sizeof case_name, "case%03d", k);
      gb_row row = gb_row_empty();
      row.run_id = g->run_id;
      row.timestamp = g->timestamp;
      row.host = "gpu07";
      row.gpu_type = "H200-SXM-141GB";
      row.gpu_name = "NVIDIA H200";
      row.driver = g->driver;
      row.cuda = "13.0";
      row.benchmark = k % 2 ? "membw" : "gemm";
      row.case_name = case_name;
      row.dtype = "fp32";
      row.bytes = 1 << 20;
      if (g->headline) {
        if (k % 2) row.bytes = (int64_t)1 << 30;
        else row.bytes = GB_NA, row.m = row.n = row.k = 8192;
      }
      row.metric = k % 2 ? "gbps" : "time_us";
      row.unit = k % 2 ? "GB/s" : "us";
      double level = 1000 + 10 * k;
      double factor = (k == g->drop_key || g->drop_key == -2) ? g->drop_factor : 1.0;
      /* time_us: a drop in performance is a longer time */
      if (!(k % 2)) factor = 1.0 / factor;
      row.value = level * factor * (1 + g->cv * gauss());
      row.samples = 50;
      row.min = row.value * 0.999;
      row.max = row.value * 1.001;
      row.stddev = row.value * 0.0005;
      row.rep = r;
      gb_results_put_row(&b, &row);
    }
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_buf_free(&b);
}

static int xml_well_formed(const char *s) { return gb_test_xml_well_formed(s); }

static int count_str(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* ---- verdicts on the fixtures ---- */

/* tests/fixtures/gate_base.csv vs gate_cur.csv, one run each side, one row
 * per figure, every figure headline-class, built-in floor sigma 0.01 (no
 * noise table): MDC = exp(z(0.995) * 0.01 * sqrt(2)) - 1 = 3.71%.
 *   gemm bf16 tflops   700 -> 696.5: -0.5%                         unchanged
 *   membw triad gbps   4400 -> 3960: -10%                           regression
 *   membw copy gbps    4300 -> 4000: -6.98%, but the current row's
 *                      stddev is 10% of its value: sigma = 10%/3,
 *                      MDC 12.9%: past 2%, within its noise         noise
 *   copy h2d_pinned    only in the baseline                         missing
 *   copy d2h_pinned    only in the current                          new
 *   gemm fp16          status error now, ok before                  failed (newly)
 *   gemm tf32 time_us  2000 -> 1800: lower is better, +10%          improvement
 *   gemm fp32 tflops   60 -> 55.2: -8% (its min/max do not matter)  regression
 * Geometric mean of oriented ratios over the 5 compared figures:
 * (0.995 * 0.9 * 0.930233 * 1.111111 * 0.92)^(1/5). */
START_TEST(test_fixture_verdicts) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur.csv", &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.nitems, 8);
  static const struct { const char *key; gb_verdict v; } k[] = {
      {"gemm/bf16", GB_VERDICT_UNCHANGED},  {"membw/triad", GB_VERDICT_REGRESSION},
      {"membw/copy", GB_VERDICT_NOISE},     {"h2d_pinned", GB_VERDICT_MISSING},
      {"d2h_pinned", GB_VERDICT_NEW},       {"gemm/fp16", GB_VERDICT_FAILED},
      {"gemm/tf32", GB_VERDICT_IMPROVEMENT}, {"gemm/fp32", GB_VERDICT_REGRESSION},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    const gb_gate_item *it = find_item(&rep, k[i].key);
    ck_assert_msg(it != NULL, "no item %s", k[i].key);
    ck_assert_msg(it->verdict == k[i].v, "%s: %s, want %s", k[i].key, gb_verdict_name(it->verdict),
                  gb_verdict_name(k[i].v));
  }
  double z = gb_gate_z(0.01);
  ck_assert_double_eq_tol(z, 2.5758293, 1e-6);
  const gb_gate_item *tri = find_item(&rep, "membw/triad");
  ck_assert_double_eq_tol(tri->change_pct, -10.0, 1e-9);
  ck_assert_double_eq_tol(tri->sigma, 0.01, 1e-12);
  ck_assert_double_eq_tol(tri->mdc_pct, expm1(z * 0.01 * sqrt(2.0)) * 100, 1e-9);
  ck_assert_double_eq_tol(tri->p_value, erfc(fabs(log(0.9)) / (0.01 * sqrt(2.0)) / sqrt(2.0)), 1e-15);
  ck_assert_str_eq(tri->method, "built-in floor");
  ck_assert_int_eq(tri->fclass, GB_FCLASS_HEADLINE);
  ck_assert(tri->gated);
  const gb_gate_item *copy = find_item(&rep, "membw/copy");
  ck_assert_double_eq_tol(copy->sigma, 400.0 / 4000.0 / 3.0, 1e-12);
  ck_assert_str_eq(copy->method, "own spread");
  ck_assert_double_eq_tol(copy->mdc_pct, expm1(z * copy->sigma * sqrt(2.0)) * 100, 1e-9);
  ck_assert_double_eq_tol(find_item(&rep, "gemm/tf32")->change_pct, 10.0, 1e-9);
  const gb_gate_item *failed = find_item(&rep, "gemm/fp16");
  ck_assert(failed->newly_failed);
  ck_assert_ptr_nonnull(strstr(failed->note, "cublasLt: no algorithm"));
  ck_assert_uint_eq(rep.newly_failed, 1);
  ck_assert_uint_eq(rep.compared, 5);
  double g = pow(0.995 * 0.9 * (4000.0 / 4300.0) * (2000.0 / 1800.0) * 0.92, 0.2);
  ck_assert_double_eq_tol(rep.geomean_ratio, g, 1e-12);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  /* the list starts with the regressions (most severe first) */
  ck_assert_int_eq(rep.items[0].verdict, GB_VERDICT_REGRESSION);
  gb_buf text = {0};
  ck_assert_int_eq(gb_gate_format_text(&rep, false, &text), GB_OK);
  ck_assert_ptr_nonnull(strstr(text.data, "regression     H200-SXM-141GB x1 membw/triad fp64 bytes=1073741824 gbps: "
                                          "4400 -> 3960 (-10.00% worse; MDC 3.71%, p="));
  ck_assert_ptr_nonnull(strstr(text.data, "sigma 1.01% built-in floor, 1/1 runs) [headline]"));
  ck_assert_ptr_nonnull(strstr(text.data, "gate: FAIL: 8 figures, 5 compared: 2 regression, 1 failed, 0 collapsed, "
                                          "0 unstable, 1 missing, 0 not-comparable, 1 noise, 0 insufficient, 1 new, "
                                          "1 improvement, 0 worse-info, 0 better-info, 0 not-judged, 0 unsupported, 1 unchanged "
                                          "(1 newly failed; 4 failing)"));
  gb_buf_free(&text);
  gb_gate_report_free(&rep);
}
END_TEST

/* A baseline compared with itself: every figure unchanged, exit 0. */
START_TEST(test_same_file_passes) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_base.csv", &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_UNCHANGED], 7);
  ck_assert_double_eq_tol(rep.geomean_ratio, 1.0, 1e-15);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
}
END_TEST

/* The same figures with every row throttled (checked, clocks held down by the
 * power cap): compared as samples, so all 7 stay unchanged and none failed. */
START_TEST(test_throttled_rows_compared) {
  size_t len;
  char *text = gb_test_slurp(gb_fixture("gate_base.csv"), &len);
  ck_assert_ptr_nonnull(text);
  gb_buf b = {0};
  for (char *p = text; *p;) {
    char *hit = strstr(p, ",ok,");
    if (!hit) {
      gb_buf_puts(&b, p);
      break;
    }
    gb_buf_append(&b, p, (size_t)(hit - p));
    gb_buf_puts(&b, ",throttled,");
    p = hit + 4;
  }
  char base[1100], cur[1100];
  const char *dir = gb_test_tmpdir();
  snprintf(base, sizeof base, "%s/base.csv", dir);
  snprintf(cur, sizeof cur, "%s/throttled.csv", dir);
  ck_assert_int_eq(gb_test_write(base, text, len), 0);
  ck_assert_int_eq(gb_test_write(cur, b.data, b.len), 0);
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_files(base, cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_UNCHANGED], 7);
  ck_assert_uint_eq(rep.count[GB_VERDICT_FAILED], 0);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  gb_buf_free(&b);
  free(text);
}
END_TEST

/* 300 headline figures x 8 repetitions in one run per side, noise CV 0.5%;
 * figure 137 (membw, gbps) 10% lower in the current run. One run each side:
 * sigma is the built-in floor 1% (the repetitions' spread, 0.5%, is below
 * it), MDC 3.71%: exactly one regression, named. Every other figure moves by
 * a few tenths of a percent: unchanged. */
START_TEST(test_drop_among_hundreds) {
  const char *dir = gb_test_tmpdir();
  char bpath[4200], cpath[4200];
  snprintf(bpath, sizeof bpath, "%s/base.csv", dir);
  snprintf(cpath, sizeof cpath, "%s/cur.csv", dir);
  gen_spec b = {"base", "2026-12-01T00:00:00Z", "580.159.04", 300, 8, 0.005, -1, 1.0, 1, true};
  gen_spec c = {"cur", "2026-12-02T00:00:00Z", "580.159.04", 300, 8, 0.005, 137, 0.9, 2, true};
  gen_csv(bpath, &b);
  gen_csv(cpath, &c);
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_files(bpath, cpath, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.nitems, 300);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 1);
  ck_assert_uint_eq(rep.count[GB_VERDICT_UNCHANGED], 299);
  ck_assert_ptr_nonnull(strstr(rep.items[0].key, "membw/case137"));
  ck_assert_str_eq(rep.items[0].method, "built-in floor");
  ck_assert_uint_eq(rep.items[0].base.nruns, 1);
  ck_assert_uint_eq(rep.items[0].base.nok, 8);
  ck_assert_double_eq_tol(rep.items[0].change_pct, -10.0, 1.0);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  /* the same drop in a time_us figure (136, gemm): the time grows by 1/0.9 */
  c.drop_key = 136;
  gen_csv(cpath, &c);
  ck_assert_int_eq(compare_files(bpath, cpath, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 1);
  ck_assert_ptr_nonnull(strstr(rep.items[0].key, "gemm/case136"));
  ck_assert_str_eq(rep.items[0].metric, "time_us");
  gb_gate_report_free(&rep);
  /* the same figures at latency-class sizes: the drop is information, exit 0 */
  b.headline = c.headline = false;
  gen_csv(bpath, &b);
  gen_csv(cpath, &c);
  ck_assert_int_eq(compare_files(bpath, cpath, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_WORSE_INFO], 0); /* built-in latency floor 15%: MDC 72% */
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  opt.gate_latency = true;
  opt.threshold_pct = 1;
  ck_assert_int_eq(compare_files(bpath, cpath, &opt, &rep), GB_OK);
  ck_assert_int_eq(rep.items[0].fclass, GB_FCLASS_LATENCY);
  gb_gate_report_free(&rep);
}
END_TEST

/* Noisy figures: CV 4% over 8 repetitions on both sides, no true change.
 * Medians of 8 wobble by ~1.8% each, so some figures differ by more than the
 * 2% threshold; the repetitions' spread (~4%) is each figure's sigma, MDC
 * ~16%: nothing is flagged. */
START_TEST(test_noise_not_flagged) {
  const char *dir = gb_test_tmpdir();
  char bpath[4200], cpath[4200];
  snprintf(bpath, sizeof bpath, "%s/base.csv", dir);
  snprintf(cpath, sizeof cpath, "%s/cur.csv", dir);
  gen_spec b = {"base", "2026-12-01T00:00:00Z", "580.159.04", 200, 8, 0.04, -1, 1.0, 3, true};
  gen_spec c = {"cur", "2026-12-02T00:00:00Z", "580.159.04", 200, 8, 0.04, -1, 1.0, 4, true};
  gen_csv(bpath, &b);
  gen_csv(cpath, &c);
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_files(bpath, cpath, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_IMPROVEMENT], 0);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  for (size_t i = 0; i < rep.nitems; i++)
    ck_assert_msg(rep.items[i].mdc_pct > 8.0, "%s: MDC %g", rep.items[i].key, rep.items[i].mdc_pct);
  ck_assert_uint_eq(rep.count[GB_VERDICT_NOISE] + rep.count[GB_VERDICT_UNCHANGED], 200);
  size_t past_base = 0; /* figures a fixed 5% threshold alone would have judged */
  for (size_t i = 0; i < rep.nitems; i++) past_base += fabs(rep.items[i].change_pct) > 5.0;
  ck_assert_uint_gt(past_base, 0);
  gb_gate_report_free(&rep);
}
END_TEST

/* ---- machine identity, nothing comparable, bad input ---- */

START_TEST(test_machine_mismatch) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur_driver.csv", &opt, &rep), GB_OK);
  ck_assert(rep.mismatch);
  ck_assert_uint_eq(rep.nitems, 0);
  ck_assert_str_eq(rep.mismatch_msg, "machine mismatch: driver: baseline 580.159.04, current 590.10.01");
  ck_assert_int_eq(gb_gate_exit_code(&rep), 3);
  gb_gate_report_free(&rep);
  opt.allow_mismatch = true;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur_driver.csv", &opt, &rep), GB_OK);
  ck_assert(!rep.mismatch);
  ck_assert(rep.allowed_mismatch);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 3); /* triad, copy (its stddev is 130 there), fp32 */
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
}
END_TEST

/* Library versions that differ between the sides are named (a likely cause
 * of a change), without stopping the gate; a library one side did not
 * record (a file from before the columns) is not compared. */
START_TEST(test_libraries_differ) {
  gb_row b[2], c[2];
  for (int i = 0; i < 2; i++) {
    gb_row r = gb_row_empty();
    r.run_id = "run";
    r.gpu_type = "H200-SXM-141GB";
    r.driver = "580.159.04";
    r.cuda = "13.0";
    r.benchmark = "membw";
    r.case_name = i ? "copy" : "triad";
    r.dtype = "fp64";
    r.bytes = 1 << 30;
    r.metric = "gbps";
    r.value = 4400;
    r.samples = 100;
    r.file = "x.csv";
    r.cublaslt = "13.1.0";
    r.nccl = "2.28.3";
    b[i] = r;
    r.cublaslt = i ? "13.2.0" : "13.1.0"; /* the current run saw two versions */
    r.nvrtc = "13.0";                     /* not recorded by the baseline */
    c[i] = r;
  }
  gb_results base = {.nrows = 2, .rows = b}, cur = {.nrows = 2, .rows = c};
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert(!rep.mismatch && !rep.allowed_mismatch);
  ck_assert_str_eq(rep.libraries_msg, "cublaslt 13.1.0 -> 13.1.0 13.2.0");
  gb_buf sum = {0};
  ck_assert_int_eq(gb_gate_summary(&rep, &sum), GB_OK);
  ck_assert_msg(strstr(sum.data, "; libraries differ: cublaslt 13.1.0 -> 13.1.0 13.2.0"), "%s", sum.data);
  gb_buf_free(&sum);
  gb_gate_report_free(&rep);

  /* the same versions on both sides: nothing said */
  for (int i = 0; i < 2; i++) c[i].cublaslt = "13.1.0";
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_str_eq(rep.libraries_msg, "");
  gb_gate_report_free(&rep);
}
END_TEST

/* Rows measured under other settings, another profile or other library
 * versions are not comparable: the figure says what differs and is never a
 * regression. */
START_TEST(test_settings_are_part_of_the_key) {
  gb_row b[1], c[1];
  gb_row r = gb_row_empty();
  r.run_id = "run";
  r.gpu_type = "H200-SXM-141GB";
  r.driver = "580.159.04";
  r.benchmark = "gemm";
  r.case_name = "bf16";
  r.dtype = "bf16";
  r.m = r.n = r.k = 8192;
  r.metric = "tflops";
  r.value = 800;
  r.min = 795;
  r.max = 805;
  r.samples = 30;
  r.file = "x.csv";
  b[0] = r;
  c[0] = r;
  c[0].value = 600; /* a regression, were it compared with the default row */
  c[0].min = 595;
  c[0].max = 605;
  c[0].settings = "gemm.timing=pairs";
  gb_results base = {.nrows = 1, .rows = b}, cur = {.nrows = 1, .rows = c};
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.nitems, 1);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_NOT_COMPARABLE], 1);
  ck_assert_str_eq(rep.items[0].note, "settings differ: baseline \"\", current \"gemm.timing=pairs\"");
  ck_assert_int_eq(gb_gate_exit_code(&rep), 3); /* nothing compared */
  gb_gate_report_free(&rep);
  /* the same settings on both sides: compared, and the drop found */
  b[0].settings = "gemm.timing=pairs";
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 1);
  gb_gate_report_free(&rep);
  /* another profile */
  b[0].profile = "quick";
  c[0].profile = "full";
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_NOT_COMPARABLE], 1);
  ck_assert_str_eq(rep.items[0].note, "profile differs: baseline quick, current full");
  gb_gate_report_free(&rep);
  /* a profile one side did not record (an older file) is not compared */
  b[0].profile = "";
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 1);
  gb_gate_report_free(&rep);
  /* another cuBLASLt: not comparable, unless --allow-mismatch */
  b[0].cublaslt = "13.1.0";
  c[0].cublaslt = "13.2.0";
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_NOT_COMPARABLE], 1);
  ck_assert_ptr_nonnull(strstr(rep.items[0].note, "cublaslt differs: baseline 13.1.0, current 13.2.0"));
  gb_gate_report_free(&rep);
  opt.allow_mismatch = true;
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 1);
  gb_gate_report_free(&rep);
}
END_TEST

START_TEST(test_nothing_comparable) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_disjoint.csv", &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.common, 0);
  ck_assert_uint_eq(rep.compared, 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_MISSING], 7);
  ck_assert_uint_eq(rep.count[GB_VERDICT_NEW], 1);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 3);
  gb_gate_report_free(&rep);
}
END_TEST

/* A baseline value of 0: no ratio to judge by. */
START_TEST(test_insufficient) {
  const char *hdr = "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,"
                    "bytes,metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,"
                    "power_w\n";
  char b[2048], c[2048];
  snprintf(b, sizeof b, "%s1,r,t,h,H200-SXM-141GB,g,1,d,13.0,fma,fp32,fp32,,,,,tflops,TFLOP/s,0,,,,,ok,,,,,\n", hdr);
  snprintf(c, sizeof c, "%s1,r,t,h,H200-SXM-141GB,g,1,d,13.0,fma,fp32,fp32,,,,,tflops,TFLOP/s,50,,,,,ok,,,,,\n", hdr);
  gb_results base = {0}, cur = {0};
  ck_assert_int_eq(gb_results_read_mem("b.csv", b, strlen(b), &base), GB_OK);
  ck_assert_int_eq(gb_results_read_mem("c.csv", c, strlen(c), &cur), GB_OK);
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_INSUFFICIENT], 1);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 3); /* nothing could be compared */
  gb_buf x = {0};
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  ck_assert_int_eq(count_str(x.data, "<skipped "), 1);
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  gb_results_free(&base);
  gb_results_free(&cur);
}
END_TEST

START_TEST(test_unknown_metric) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_unknown_metric.csv", &opt, &rep),
                   GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gate_unknown_metric.csv:2: metric:"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "\"widgets\""));
  gb_gate_config cfg;
  ck_assert_int_eq(gb_gate_config_read_mem("cfg", "[metric:widgets]\ndirection = higher\n", &cfg), GB_OK);
  opt.config = &cfg;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_unknown_metric.csv", &opt, &rep),
                   GB_OK);
  gb_gate_report_free(&rep);
  gb_gate_config_free(&cfg);
}
END_TEST

START_TEST(test_metric_directions) {
  static const struct { const char *m; int d; } k[] = {
      {"tflops", 1}, {"tops", 1}, {"gbps", 1}, {"algbw_gbps", 1}, {"busbw_gbps", 1}, {"speedup", 1},
      {"time_us", -1}, {"latency_us", -1}, {"kernel_ms", -1}, {"wall_s", -1}, {"widgets", 0}, {"bus", 0}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) ck_assert_int_eq(gb_metric_direction("unknown", k[i].m), k[i].d);
}
END_TEST

/* ---- config ---- */

START_TEST(test_config) {
  gb_gate_config cfg;
  const char *text = "; gate thresholds\n"
                     "[defaults]\nthreshold_pct = 4\nalpha = 0.05\n"
                     "[membw]\nthreshold_pct = 15\n"
                     "[membw/gbps]\nthreshold_pct = 12\n"
                     "[metric:gbps]\nthreshold_pct = 7\n";
  ck_assert_int_eq(gb_gate_config_read_mem("gate.ini", text, &cfg), GB_OK);
  ck_assert_double_eq(cfg.threshold_pct, 4);
  ck_assert_double_eq(cfg.alpha, 0.05);
  ck_assert_double_eq(gb_gate_config_threshold(&cfg, "membw", "gbps", 5), 12);  /* bench/metric */
  ck_assert_double_eq(gb_gate_config_threshold(&cfg, "membw", "time_us", 5), 15); /* bench */
  ck_assert_double_eq(gb_gate_config_threshold(&cfg, "copy", "gbps", 5), 7);    /* metric:name */
  ck_assert_double_eq(gb_gate_config_threshold(&cfg, "gemm", "tflops", 5), 5);  /* fallback */
  /* a 12% membw threshold turns the 10% triad drop into unchanged */
  gb_gate_options opt = gb_gate_defaults();
  opt.config = &cfg;
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur.csv", &opt, &rep), GB_OK);
  ck_assert_int_eq(find_item(&rep, "membw/triad")->verdict, GB_VERDICT_UNCHANGED);
  ck_assert_double_eq(find_item(&rep, "membw/triad")->threshold_pct, 12);
  ck_assert_double_eq(rep.alpha, 0.05);
  ck_assert_double_eq(rep.threshold_pct, 4);
  gb_gate_report_free(&rep);
  /* --threshold on the command line wins over [defaults], not over rules */
  opt.threshold_pct = 9;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur.csv", &opt, &rep), GB_OK);
  ck_assert_double_eq(rep.threshold_pct, 9);
  ck_assert_double_eq(find_item(&rep, "gemm/fp32")->threshold_pct, 9);
  ck_assert_int_eq(find_item(&rep, "gemm/fp32")->verdict, GB_VERDICT_UNCHANGED); /* -8% < 9% */
  gb_gate_report_free(&rep);
  gb_gate_config_free(&cfg);
}
END_TEST

START_TEST(test_config_errors) {
  static const struct { const char *text, *msg; } k[] = {
      {"[defaults]\nthreshold_pct = 1,5\n", "gate.ini:2: [defaults] threshold_pct: not a non-negative number: \"1,5\""},
      {"[defaults]\nalpha = 2\n", "gate.ini:2: [defaults] alpha: not a number between 0 and 1"},
      {"\n[gemm]\ncolour = red\n", "gate.ini:3: [gemm] colour: unknown key"},
      {"[gemm/]\nthreshold_pct = 3\n", "gate.ini:2: [gemm/] threshold_pct: bad section"},
      {"[metric:x]\ndirection = up\n", "gate.ini:2: [metric:x] direction: not higher or lower"},
      {"[gemm]\nno equals sign\n", "gate.ini:2: not a section header"},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    gb_gate_config cfg;
    ck_assert_int_eq(gb_gate_config_read_mem("gate.ini", k[i].text, &cfg), GB_E_INPUT);
    ck_assert_msg(strstr(gb_errmsg(), k[i].msg) != NULL, "got: %s", gb_errmsg());
    ck_assert_uint_eq(cfg.nrules, 0);
  }
  gb_gate_config cfg;
  ck_assert_int_eq(gb_gate_config_read("/nonexistent/gate.ini", &cfg), GB_E_IO);
}
END_TEST

/* ---- markdown and JUnit ---- */

START_TEST(test_markdown) {
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur.csv", &opt, &rep), GB_OK);
  gb_buf md = {0};
  ck_assert_int_eq(gb_gate_format_markdown(&rep, &md), GB_OK);
  ck_assert_ptr_nonnull(strstr(md.data, "## gpubench regression gate: FAIL\n"));
  ck_assert_ptr_nonnull(strstr(md.data, "| regression | headline | H200-SXM-141GB x1 membw/triad fp64 "
                                        "bytes=1073741824 gbps | 4400 | 3960 | -10.00% | 3.71% | "));
  ck_assert_ptr_nonnull(strstr(md.data, "| failed (new) |"));
  ck_assert_ptr_nonnull(strstr(md.data, "1 figures unchanged (within their MDC) and 0 not judged"));
  /* regressions come first */
  ck_assert(strstr(md.data, "### regression: 2") < strstr(md.data, "### failed: 1"));
  gb_buf_free(&md);
  gb_gate_report_free(&rep);
}
END_TEST

START_TEST(test_xml_escape) {
  gb_buf b = {0};
  ck_assert_int_eq(gb_xml_escape(&b, "a<b>&\"c'\td\x01\xff\xc3\xa9"), GB_OK);
  gb_buf_append(&b, "", 1);
  /* '<' '>' '&' '"' '\'' escaped, tab as a reference, control byte removed,
   * invalid byte 0xff as U+FFFD, valid UTF-8 (e-acute) kept */
  ck_assert_str_eq(b.data, "a&lt;b&gt;&amp;&quot;c&apos;&#9;d\xef\xbf\xbd\xc3\xa9"); /* \x01 removed */
  gb_buf_free(&b);
  /* the checker itself rejects broken documents */
  ck_assert(xml_well_formed("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; u</a>\n"));
  ck_assert(!xml_well_formed("<a><b></a></b>"));
  ck_assert(!xml_well_formed("<a>x & y</a>"));
  ck_assert(!xml_well_formed("<a x=\"<\"/>"));
  ck_assert(!xml_well_formed("<a/><b/>"));
  ck_assert(!xml_well_formed("<a>"));
}
END_TEST

/* JUnit from the fixtures, plus a figure whose case name needs escaping. */
START_TEST(test_junit_well_formed) {
  const char *dir = gb_test_tmpdir();
  char bpath[4200], cpath[4200];
  snprintf(bpath, sizeof bpath, "%s/b.csv", dir);
  snprintf(cpath, sizeof cpath, "%s/c.csv", dir);
  size_t bl, cl;
  char *b = gb_test_slurp(gb_fixture("gate_base.csv"), &bl);
  char *c = gb_test_slurp(gb_fixture("gate_cur.csv"), &cl);
  const char *odd = "1,r,2026-12-02T10:00:09Z,h,H200-SXM-141GB,g,1,580.159.04,13.0,gemm,\"a<b&\"\"c'd]]>\",bf16,"
                    "1,1,1,,tflops,TFLOP/s,1,,,,,error,\"bad\x01 <detail> & more\",,,,,\n";
  char *c2 = malloc(cl + strlen(odd) + 1);
  memcpy(c2, c, cl);
  strcpy(c2 + cl, odd);
  ck_assert_int_eq(gb_test_write(bpath, b, bl), 0);
  ck_assert_int_eq(gb_test_write(cpath, c2, strlen(c2)), 0);
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(compare_files(bpath, cpath, &opt, &rep), GB_OK);
  gb_buf x = {0};
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  gb_buf_append(&x, "", 1);
  ck_assert_msg(xml_well_formed(x.data), "not well-formed:\n%s", x.data);
  ck_assert_int_eq(count_str(x.data, "<testcase "), 9);
  /* failures: the 2 regressions, the newly failed fp16 row, the new odd row that failed, the headline
   * h2d_pinned copy gone from the current results */
  ck_assert_int_eq(count_str(x.data, "<failure "), 5);
  ck_assert_ptr_nonnull(strstr(x.data, "tests=\"9\" failures=\"5\" errors=\"0\" skipped=\"0\""));
  ck_assert_ptr_nonnull(strstr(x.data, "MDC 3.71%"));
  ck_assert_ptr_nonnull(strstr(x.data, "gemm/a&lt;b&amp;&quot;c&apos;d]]&gt; bf16"));
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  /* the mismatch report is well-formed too: one test case in error */
  ck_assert_int_eq(compare_fixtures("gate_base.csv", "gate_cur_driver.csv", &opt, &rep), GB_OK);
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  gb_buf_append(&x, "", 1);
  ck_assert(xml_well_formed(x.data));
  ck_assert_ptr_nonnull(strstr(x.data, "<error type=\"mismatch\""));
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  free(b);
  free(c);
  free(c2);
}
END_TEST

/* ---- history ---- */

/* 30 runs (one file each, run ids run00..run29, one per day); 6 figures x 3
 * repetitions, noise CV 0.5%. Figure 3 (membw, gbps) drops 8% from run 20 on.
 * Expected: one change point, in figure 3, at run20; none elsewhere. */
static void write_history(const char *dir, int nruns, int shift_at) {
  for (int r = 0; r < nruns; r++) {
    char path[4200], run[16], ts[32];
    snprintf(path, sizeof path, "%.4000s/run%02d.csv", dir, r);
    snprintf(run, sizeof run, "run%02d", r);
    snprintf(ts, sizeof ts, "2026-11-%02dT08:00:00Z", r + 1);
    gen_spec g = {run, ts, "580.159.04", 6, 3, 0.005, r >= shift_at ? 3 : -1, 0.92, 1000 + (uint64_t)r, false};
    gen_csv(path, &g);
  }
}

START_TEST(test_history_change_point) {
  const char *d = gb_test_tmpdir();
  char dir[4200];
  snprintf(dir, sizeof dir, "%s", d);
  write_history(dir, 30, 20);
  char *inputs[] = {dir};
  char **paths;
  size_t npaths;
  ck_assert_int_eq(gb_inputs_collect(inputs, 1, &paths, &npaths), GB_OK);
  ck_assert_uint_eq(npaths, 30);
  gb_results res = {0};
  /* read in reverse: the order of files must not matter, timestamps do */
  for (size_t i = npaths; i-- > 0;) ck_assert_int_eq(gb_results_read(paths[i], &res), GB_OK);
  gb_cp_options o = gb_cp_defaults();
  gb_history h;
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  ck_assert_uint_eq(h.nruns, 30);
  ck_assert_str_eq(h.runs[0].run_id, "run00");
  ck_assert_str_eq(h.runs[29].run_id, "run29");
  ck_assert_uint_eq(h.nseries, 6);
  ck_assert_uint_eq(h.nanalyzed, 6);
  ck_assert_uint_eq(h.nchanged, 1);
  for (size_t i = 0; i < h.nseries; i++) {
    const gb_history_series *s = &h.series[i];
    ck_assert_uint_eq(s->n, 30);
    if (strstr(s->key, "membw/case003")) {
      ck_assert_uint_eq(s->nchanges, 1);
      ck_assert_str_eq(h.runs[s->run[s->changes[0].index]].run_id, "run20");
      ck_assert_double_eq_tol(s->changes[0].mean_after / s->changes[0].mean_before, 0.92, 0.01);
    } else {
      ck_assert_uint_eq(s->nchanges, 0);
    }
  }
  gb_buf t = {0};
  ck_assert_int_eq(gb_history_format_text(&h, false, &t), GB_OK);
  gb_buf_append(&t, "", 1);
  ck_assert_ptr_nonnull(strstr(t.data, "change  H200-SXM-141GB x1 membw/case003 fp32 bytes=1048576 gbps: shifted at "
                                       "run run20 (2026-11-21T08:00:00Z, point 21 of 30, after run run19)"));
  ck_assert_ptr_nonnull(strstr(t.data, "worse"));
  ck_assert_ptr_nonnull(strstr(t.data, "history: 30 runs, 6 series, 6 long enough to test, 1 with a change point, "
                                       "0 drifting\n"));
  /* what it can see: the figures are latency-class here (1 MiB arrays): over all series */
  ck_assert_ptr_nonnull(strstr(t.data, "history: with these runs it flags a step of "));
  ck_assert_ptr_nonnull(strstr(t.data, " once 3 runs follow it; a 10% step once 3 runs follow it (median)\n"));
  gb_buf_free(&t);
  gb_history_free(&h);
  /* 30 runs of noise alone: no change point */
  gb_results_free(&res);
  gb_inputs_free(paths, npaths);
}
END_TEST

/* Reads every results file of dir into res, in name order; the paths
 * (which res's rows point into) are freed with gb_inputs_free. */
static void read_history_dir(const char *dir, gb_results *res, char ***paths, size_t *npaths) {
  char *inputs[] = {(char *)dir};
  ck_assert_int_eq(gb_inputs_collect(inputs, 1, paths, npaths), GB_OK);
  for (size_t i = 0; i < *npaths; i++) ck_assert_int_eq(gb_results_read((*paths)[i], res), GB_OK);
}

/* --threshold: a significant shift smaller than the minimum effect is no
 * change; the neighbours' means are taken again over the merged segment. */
START_TEST(test_history_min_effect) {
  double v[15];
  for (int i = 0; i < 15; i++) v[i] = i < 5 ? 100 : i < 10 ? 101 : 120;
  gb_change_point cp[8];
  size_t ncp;
  gb_cp_options co = gb_cp_defaults(); /* 0: every change stays */
  ck_assert_int_eq(gb_changepoints(v, 15, &co, cp, &ncp), GB_OK);
  ck_assert_uint_eq(ncp, 2);
  co.min_effect_pct = 2.0;
  ck_assert_int_eq(gb_changepoints(v, 15, &co, cp, &ncp), GB_OK);
  ck_assert_uint_eq(ncp, 1);
  ck_assert_uint_eq(cp[0].index, 10);
  ck_assert_double_eq_tol(cp[0].mean_before, 100.5, 1e-12);
  ck_assert_double_eq_tol(cp[0].mean_after, 120, 1e-12);
  co.min_effect_pct = 25.0; /* a 19.4% step under a 25% minimum */
  ck_assert_int_eq(gb_changepoints(v, 15, &co, cp, &ncp), GB_OK);
  ck_assert_uint_eq(ncp, 0);
  /* the 8% drop of write_history: kept at 5%, gone at 10% */
  const char *d = gb_test_tmpdir();
  write_history(d, 30, 20);
  char **paths;
  size_t npaths;
  gb_results res = {0};
  read_history_dir(d, &res, &paths, &npaths);
  gb_cp_options o = gb_cp_defaults();
  const double min_pct[2] = {5, 10};
  const size_t changed[2] = {1, 0};
  for (int k = 0; k < 2; k++) {
    o.min_effect_pct = min_pct[k];
    gb_history h;
    ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
    ck_assert_uint_eq(h.nchanged, changed[k]);
    gb_history_free(&h);
  }
  gb_results_free(&res);
  gb_inputs_free(paths, npaths);
}
END_TEST

/* A driver change at the run where a figure shifts: an event line, and the
 * change marked as at an environment change rather than reported as a plain
 * performance change. */
START_TEST(test_history_env_change) {
  const char *d = gb_test_tmpdir();
  for (int r = 0; r < 30; r++) {
    char path[4200], run[16], ts[32];
    snprintf(path, sizeof path, "%.4000s/run%02d.csv", d, r);
    snprintf(run, sizeof run, "run%02d", r);
    snprintf(ts, sizeof ts, "2026-11-%02dT08:00:00Z", r + 1);
    gen_spec g = {run, ts, r >= 20 ? "590.10.01" : "580.159.04", 6, 3, 0.005, r >= 20 ? 3 : -1, 0.92,
                  1000 + (uint64_t)r, false};
    gen_csv(path, &g);
  }
  char **paths;
  size_t npaths;
  gb_results res = {0};
  read_history_dir(d, &res, &paths, &npaths);
  gb_cp_options o = gb_cp_defaults();
  gb_history h;
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  char what[256];
  ck_assert(!gb_history_env_change(&h.runs[0], &h.runs[1], what, sizeof what));
  ck_assert(gb_history_env_change(&h.runs[19], &h.runs[20], what, sizeof what));
  ck_assert_str_eq(what, "driver 580.159.04 -> 590.10.01");
  gb_buf t = {0};
  ck_assert_int_eq(gb_history_format_text(&h, false, &t), GB_OK);
  gb_buf_append(&t, "", 1);
  ck_assert_ptr_nonnull(strstr(t.data, "event   run run20 (2026-11-21T08:00:00Z): driver 580.159.04 -> 590.10.01\n"));
  ck_assert_ptr_nonnull(strstr(t.data, "env     H200-SXM-141GB x1 membw/case003 fp32 bytes=1048576 gbps: shifted at "
                                       "run run20"));
  ck_assert_ptr_nonnull(strstr(t.data, "; at an environment change: driver 580.159.04 -> 590.10.01\n"));
  ck_assert_ptr_null(strstr(t.data, "\nchange  "));
  gb_buf_free(&t);
  gb_history_free(&h);
  gb_results_free(&res);
  gb_inputs_free(paths, npaths);
}
END_TEST

START_TEST(test_history_noise_only) {
  const char *d = gb_test_tmpdir();
  char dir[4200];
  snprintf(dir, sizeof dir, "%s", d);
  write_history(dir, 30, 1000);
  char *inputs[] = {dir};
  char **paths;
  size_t npaths;
  ck_assert_int_eq(gb_inputs_collect(inputs, 1, &paths, &npaths), GB_OK);
  gb_results res = {0};
  for (size_t i = 0; i < npaths; i++) ck_assert_int_eq(gb_results_read(paths[i], &res), GB_OK);
  gb_cp_options o = gb_cp_defaults();
  gb_history h;
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  ck_assert_uint_eq(h.nanalyzed, 6);
  ck_assert_uint_eq(h.nchanged, 0);
  gb_history_free(&h);
  gb_results_free(&res);
  gb_inputs_free(paths, npaths);
}
END_TEST

/* ---- the front ends' exit codes ---- */

static int run_cmd(int (*fn)(int, char **), int argc, const char **argv) {
  /* the commands print their reports; keep the test log readable */
  fflush(stdout);
  FILE *saved = freopen("/dev/null", "w", stdout);
  (void)saved;
  int rc = fn(argc, (char **)argv);
  fflush(stdout);
  return rc;
}

/* ---- rows of a case the device cannot run (status unsupported) ---- */

/* tests/fixtures/h100_unsupported_cur.csv: the real H100 run
 * aa/h100-c1-quick-2.csv with the two block-scaled GEMM rows an H100 writes
 * (mxfp8, nvfp4: needs sm_100+) appended as this build writes them, status
 * unsupported. Written before as status error, they made the first
 * comparison with an older baseline (aa/h100-c1-quick-1.csv, without them)
 * fail as "newly failed": exit 1 on an A/A pair. */
static void rewrite(const char *src, const char *dst, const char *const *pairs, size_t npairs) {
  size_t len = 0;
  char *s = gb_test_slurp(src, &len);
  ck_assert_ptr_nonnull(s);
  for (size_t p = 0; p < npairs; p += 2) {
    size_t fl = strlen(pairs[p]), tl = strlen(pairs[p + 1]), n = 0;
    for (const char *q = s; (q = strstr(q, pairs[p])); q += fl) n++;
    char *o = malloc(len + n * (tl > fl ? tl - fl : 0) + 1), *w = o;
    ck_assert_ptr_nonnull(o);
    for (const char *q = s, *hit; ; q = hit + fl) {
      hit = strstr(q, pairs[p]);
      size_t k = hit ? (size_t)(hit - q) : strlen(q);
      memcpy(w, q, k);
      w += k;
      if (!hit) break;
      memcpy(w, pairs[p + 1], tl);
      w += tl;
    }
    *w = '\0';
    free(s);
    s = o;
    len = (size_t)(w - o);
  }
  ck_assert_int_eq(gb_test_write(dst, s, len), 0);
  free(s);
}

START_TEST(test_unsupported_rows) {
  char base[4200], cur[4200], err[4200], lost[4200], olderr[4200];
  snprintf(base, sizeof base, "%s", gb_fixture("aa/h100-c1-quick-1.csv"));
  snprintf(cur, sizeof cur, "%s", gb_fixture("h100_unsupported_cur.csv"));
  const char *dir = gb_test_tmpdir();
  snprintf(err, sizeof err, "%s/skip-as-error.csv", dir);
  snprintf(lost, sizeof lost, "%s/skip-measured.csv", dir);
  snprintf(olderr, sizeof olderr, "%s/skip-error-older.csv", dir);
  /* the same rows as the build before wrote them; as a run that measured
   * them (another run id); as an older run of the build before */
  const char *as_err[] = {",unsupported,", ",error,"};
  rewrite(cur, err, as_err, 2);
  const char *as_ok[] = {"TFLOP/s,,,,,,unsupported,", "TFLOP/s,1000,10,990,1010,5,ok,", "-vm-51ac9a", "-vm-0000aa"};
  rewrite(cur, lost, as_ok, 4);
  const char *as_old[] = {",unsupported,", ",error,", "-vm-51ac9a", "-vm-0000bb"};
  rewrite(cur, olderr, as_old, 4);

  const char *aa[] = {"compare", base, cur};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, aa), 0);
  const char *back[] = {"compare", cur, base}; /* in the baseline only: nothing is gone */
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, back), 0);
  const char *before[] = {"compare", base, err}; /* status error: a failure, as before */
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, before), 1);
  const char *older[] = {"compare", olderr, cur}; /* the build before's error rows, then unsupported */
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, older), 0);
  const char *gone[] = {"compare", lost, cur}; /* measured in the baseline, unsupported now */
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, gone), 1);

  gb_noise_table floors; /* the shipped floors, as compare finds them */
  char fpath[4200];
  snprintf(fpath, sizeof fpath, "%s/noise/floors.csv", gb_data_dir());
  ck_assert_msg(gb_noise_read(fpath, &floors) == GB_OK, "%s", gb_errmsg());
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &floors;
  gb_gate_report rep;
  ck_assert_int_eq(compare_files(base, cur, &opt, &rep), GB_OK);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_UNSUPPORTED], 2);
  ck_assert_uint_eq(rep.count[GB_VERDICT_FAILED], 0);
  ck_assert_uint_eq(rep.newly_failed, 0);
  ck_assert_uint_eq(rep.failing, 0);
  const gb_gate_item *it = find_item(&rep, "gemm/nvfp4 fp4e2m1");
  ck_assert_ptr_nonnull(it);
  ck_assert_int_eq(it->verdict, GB_VERDICT_UNSUPPORTED);
  ck_assert(!it->fails && !it->newly_failed);
  ck_assert_ptr_nonnull(strstr(it->note, "h100_unsupported_cur.csv:417: status unsupported: the device cannot run"));
  ck_assert_ptr_nonnull(strstr(it->note, "no verdict (information)"));
  gb_buf text = {0};
  ck_assert_int_eq(gb_gate_summary(&rep, &text), GB_OK);
  ck_assert_ptr_nonnull(strstr(text.data, "gate: PASS: 416 figures, 411 compared:"));
  ck_assert_ptr_nonnull(strstr(text.data, " 2 unsupported, "));
  gb_buf_free(&text);
  gb_gate_report_free(&rep);

  ck_assert_int_eq(compare_files(lost, cur, &opt, &rep), GB_OK);
  it = find_item(&rep, "gemm/mxfp8 fp8e4m3");
  ck_assert_ptr_nonnull(it);
  ck_assert_int_eq(it->verdict, GB_VERDICT_FAILED);
  ck_assert(it->newly_failed && it->fails);
  ck_assert_ptr_nonnull(strstr(it->note, "status unsupported, but the baseline measured it"));
  gb_gate_report_free(&rep);

  ck_assert_int_eq(compare_files(cur, lost, &opt, &rep), GB_OK); /* unsupported before, measured now */
  it = find_item(&rep, "gemm/mxfp8 fp8e4m3");
  ck_assert_ptr_nonnull(it);
  ck_assert_int_eq(it->verdict, GB_VERDICT_NEW);
  ck_assert_ptr_nonnull(strstr(it->note, "a first measurement: the baseline could not run it"));
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  gb_noise_free(&floors);
  free_kept();
}
END_TEST

START_TEST(test_cli_compare_exit_codes) {
  char base[4200], cur[4200], drv[4200], dis[4200], unk[4200], bad[4200];
  snprintf(base, sizeof base, "%s", gb_fixture("gate_base.csv"));
  snprintf(cur, sizeof cur, "%s", gb_fixture("gate_cur.csv"));
  snprintf(drv, sizeof drv, "%s", gb_fixture("gate_cur_driver.csv"));
  snprintf(dis, sizeof dis, "%s", gb_fixture("gate_disjoint.csv"));
  snprintf(unk, sizeof unk, "%s", gb_fixture("gate_unknown_metric.csv"));
  snprintf(bad, sizeof bad, "%s", gb_fixture("results_not_number.csv"));
  const char *dir = gb_test_tmpdir();
  char junit[4200], md[4200];
  snprintf(junit, sizeof junit, "%s/gate.xml", dir);
  snprintf(md, sizeof md, "%s/gate.md", dir);

  const char *pass[] = {"compare", base, base};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, pass), 0);
  const char *regress[] = {"compare", base, cur, "--junit", junit, "--markdown", md};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 7, regress), 1);
  char *x = gb_test_slurp(junit, NULL);
  ck_assert_ptr_nonnull(x);
  ck_assert(xml_well_formed(x));
  free(x);
  char *m = gb_test_slurp(md, NULL);
  ck_assert_ptr_nonnull(strstr(m, "FAIL"));
  free(m);
  const char *loose[] = {"compare", "--threshold=20", base, cur};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 4, loose), 1); /* still 1: the newly failed row */
  const char *mismatch[] = {"compare", base, drv};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, mismatch), 3);
  const char *allowed[] = {"compare", base, drv, "--allow-mismatch"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 4, allowed), 1);
  const char *disjoint[] = {"compare", base, dis};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, disjoint), 3);
  const char *help[] = {"compare", "--help"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 2, help), 0);
  /* bad usage and bad input: 2, and no output file that looks complete */
  char junit2[4200];
  snprintf(junit2, sizeof junit2, "%s/bad.xml", dir);
  const char *badfile[] = {"compare", base, bad, "--junit", junit2};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 5, badfile), 2);
  struct stat st;
  ck_assert_int_ne(stat(junit2, &st), 0);
  const char *unknown[] = {"compare", base, unk, "--junit", junit2};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 5, unknown), 2);
  ck_assert_int_ne(stat(junit2, &st), 0);
  const char *missing[] = {"compare", base, "/nonexistent/cur.csv"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 3, missing), 2);
  const char *one[] = {"compare", base};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 2, one), 2);
  const char *three[] = {"compare", base, base, base}; /* a baseline of two runs (here the same one) */
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 4, three), 0);
  const char *badopt[] = {"compare", base, cur, "--frobnicate"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 4, badopt), 2);
  const char *badthr[] = {"compare", base, cur, "--threshold", "5%"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 5, badthr), 2);
  const char *noval[] = {"compare", base, cur, "--alpha"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 4, noval), 2);
  const char *badcfg[] = {"compare", base, cur, "--config", "/nonexistent/gate.ini"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, 5, badcfg), 2);
}
END_TEST

START_TEST(test_cli_history_exit_codes) {
  const char *d = gb_test_tmpdir();
  char dir[4200], shortdir[4200];
  snprintf(dir, sizeof dir, "%s", d);
  write_history(dir, 30, 20);
  const char *ok[] = {"history", dir, "--min-segment", "3", "--alpha", "0.01"};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 6, ok), 0);
  /* trend plots of the one series with a change: .dat and .gp always, the
   * pictures when gnuplot is installed */
  char plots[4300], stem[4400];
  snprintf(plots, sizeof plots, "%s/plots", dir);
  const char *plot[] = {"history", dir, "--plot", plots};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 4, plot), 0);
  const char *exts[] = {"dat", "gp", "png", "svg"};
  struct stat st;
  for (int i = 0; i < (gb_gnuplot_available() ? 4 : 2); i++) {
    snprintf(stem, sizeof stem, "%s/history-H200-SXM-141GB_x1_membw_case003_fp32_bytes_1048576_gbps.%s", plots, exts[i]);
    ck_assert_msg(stat(stem, &st) == 0 && st.st_size > 0, "%s missing", stem);
  }
  char *gp = gb_test_slurp(stem, NULL);
  free(gp);
  snprintf(stem, sizeof stem, "%s/history-H200-SXM-141GB_x1_membw_case001_fp32_bytes_1048576_gbps.dat", plots);
  ck_assert_int_ne(stat(stem, &st), 0); /* no change there: not plotted without --all */
  snprintf(shortdir, sizeof shortdir, "%s", gb_test_tmpdir());
  write_history(shortdir, 4, 1000); /* 4 runs < 2 x 3: nothing to test */
  const char *too_short[] = {"history", shortdir};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 2, too_short), 3);
  const char *help[] = {"history", "--help"};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 2, help), 0);
  const char *none[] = {"history"};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 1, none), 2);
  const char *nofile[] = {"history", "/nonexistent/dir"};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 2, nofile), 2);
  const char *badseg[] = {"history", dir, "--min-segment", "1"};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 4, badseg), 2);
  char bad[4200];
  snprintf(bad, sizeof bad, "%s", gb_fixture("results_not_number.csv"));
  const char *badfile[] = {"history", dir, bad};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 3, badfile), 2);
  char empty[4200];
  snprintf(empty, sizeof empty, "%s", gb_test_tmpdir());
  const char *emptydir[] = {"history", empty};
  ck_assert_int_eq(run_cmd(gb_cmd_history, 2, emptydir), 2);
}
END_TEST

/* A series from values: one run per value, one figure (HBM triad). */
static void series_results(const double *v, size_t n, gb_results *res) {
  gb_buf b = {0};
  gb_results_put_header(&b);
  for (size_t i = 0; i < n; i++) {
    char run[16], ts[32];
    snprintf(run, sizeof run, "r%03zu", i);
    snprintf(ts, sizeof ts, "2026-11-01T%02zu:%02zu:00Z", i / 60, i % 60);
    gb_row r = gb_row_empty();
    r.run_id = run;
    r.timestamp = ts;
    r.gpu_type = "H200-SXM-141GB";
    r.benchmark = "membw";
    r.case_name = "triad";
    r.dtype = "fp64";
    r.bytes = (int64_t)1 << 30;
    r.metric = "gbps";
    r.unit = "GB/s";
    r.value = v[i];
    gb_results_put_row(&b, &r);
  }
  memset(res, 0, sizeof *res);
  ck_assert_int_eq(gb_results_read_mem("series.csv", b.data, b.len, res), GB_OK);
  gb_buf_free(&b);
}

/* Six runs, a 10% step after three, 1% noise: flagged (a permutation test
 * alone cannot go below p = 1/20 on 3 + 3 values). */
START_TEST(test_history_short_step) {
  g_state = 77;
  double v[6];
  for (int i = 0; i < 6; i++) v[i] = (i < 3 ? 4400 : 3960) * (1 + 0.01 * gauss());
  gb_results res;
  series_results(v, 6, &res);
  gb_cp_options o = gb_cp_defaults();
  gb_history h;
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  ck_assert_uint_eq(h.nseries, 1);
  ck_assert_uint_eq(h.series[0].nchanges, 1);
  ck_assert_uint_eq(h.series[0].changes[0].index, 3);
  ck_assert(!h.series[0].drift);
  /* 6 values estimate their own noise poorly: the step test is widened (x2.5), so
   * the smallest step it flags here is ~10-15%; the 10% one was clear of it */
  ck_assert_double_lt(h.series[0].mdc_pct, 15.0);
  gb_buf t = {0};
  ck_assert_int_eq(gb_history_format_text(&h, true, &t), GB_OK);
  gb_buf_append(&t, "", 1);
  ck_assert_msg(strstr(t.data, "history: with these runs it flags a step of ") &&
                    strstr(t.data, "(median over 1 headline series;") && strstr(t.data, "once 3 runs follow it"),
                "%s", t.data);
  gb_buf_free(&t);
  gb_history_free(&h);
  gb_results_free(&res);
  /* five runs: too few to flag anything, and it says so */
  series_results(v, 5, &res);
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  ck_assert_int_eq(gb_history_format_text(&h, false, &t), GB_OK);
  gb_buf_append(&t, "", 1);
  ck_assert_ptr_nonnull(strstr(t.data, "history: no series has 6 runs yet (2 x min segment)"));
  gb_buf_free(&t);
  gb_history_free(&h);
  gb_results_free(&res);
}
END_TEST

/* Twelve alternating 10% shifts, 4 runs each: all 11 changes reported (the
 * search used to stop silently at 8). */
START_TEST(test_history_no_cap) {
  g_state = 78;
  double v[48];
  for (int i = 0; i < 48; i++) v[i] = ((i / 4) % 2 ? 4000 : 4400) * (1 + 0.002 * gauss());
  gb_results res;
  series_results(v, 48, &res);
  gb_cp_options o = gb_cp_defaults();
  gb_history h;
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  ck_assert_uint_eq(h.series[0].nchanges, 11);
  for (size_t c = 0; c < 11; c++) ck_assert_uint_eq(h.series[0].changes[c].index, 4 * (c + 1));
  ck_assert(!h.series[0].drift);
  gb_history_free(&h);
  gb_results_free(&res);
}
END_TEST

/* A slow drift, -0.1% per run over 120 runs with 0.5% noise: one drift line,
 * not a staircase of steps; a step of the same total size stays a step. */
START_TEST(test_history_drift) {
  g_state = 79;
  double v[120];
  for (int i = 0; i < 120; i++) v[i] = 4400 * (1 - 0.001 * i) * (1 + 0.005 * gauss());
  gb_results res;
  series_results(v, 120, &res);
  gb_cp_options o = gb_cp_defaults();
  gb_history h;
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  const gb_history_series *s = &h.series[0];
  ck_assert(s->drift);
  ck_assert_uint_eq(h.ndrift, 1);
  ck_assert_uint_eq(h.nchanged, 0);
  ck_assert_double_eq_tol(s->drift_pct_per_run, -0.1, 0.01);
  ck_assert_double_eq_tol(s->drift_total_pct, -11.9, 1.0);
  gb_buf t = {0};
  ck_assert_int_eq(gb_history_format_text(&h, false, &t), GB_OK);
  gb_buf_append(&t, "", 1);
  ck_assert_msg(strstr(t.data, "drift   H200-SXM-141GB x1 membw/triad fp64 bytes=1073741824 gbps: -0.09") &&
                    strstr(t.data, "per run, -11.") && strstr(t.data, "over runs r000..r119 (120 points, worse)"),
                "%s", t.data);
  ck_assert_ptr_null(strstr(t.data, "change  "));
  gb_buf_free(&t);
  gb_history_free(&h);
  gb_results_free(&res);
  for (int i = 0; i < 120; i++) v[i] = 4400 * (i < 60 ? 1 : 0.88) * (1 + 0.005 * gauss());
  series_results(v, 120, &res);
  ck_assert_int_eq(gb_history_build(&res, &o, &h), GB_OK);
  ck_assert(!h.series[0].drift);
  ck_assert_uint_eq(h.series[0].nchanges, 1);
  ck_assert_uint_eq(h.series[0].changes[0].index, 60);
  gb_history_free(&h);
  gb_results_free(&res);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate");
  TCase *tc = tcase_create("compare");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, NULL, free_kept);
  tcase_add_test(tc, test_fixture_verdicts);
  tcase_add_test(tc, test_same_file_passes);
  tcase_add_test(tc, test_throttled_rows_compared);
  tcase_add_test(tc, test_drop_among_hundreds);
  tcase_add_test(tc, test_noise_not_flagged);
  tcase_add_test(tc, test_machine_mismatch);
  tcase_add_test(tc, test_libraries_differ);
  tcase_add_test(tc, test_settings_are_part_of_the_key);
  tcase_add_test(tc, test_nothing_comparable);
  tcase_add_test(tc, test_insufficient);
  tcase_add_test(tc, test_unknown_metric);
  tcase_add_test(tc, test_metric_directions);
  suite_add_tcase(s, tc);
  tc = tcase_create("config");
  tcase_add_test(tc, test_config);
  tcase_add_test(tc, test_config_errors);
  suite_add_tcase(s, tc);
  tc = tcase_create("outputs");
  tcase_add_checked_fixture(tc, NULL, free_kept);
  tcase_add_test(tc, test_markdown);
  tcase_add_test(tc, test_xml_escape);
  tcase_add_test(tc, test_junit_well_formed);
  suite_add_tcase(s, tc);
  tc = tcase_create("history");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_history_change_point);
  tcase_add_test(tc, test_history_min_effect);
  tcase_add_test(tc, test_history_env_change);
  tcase_add_test(tc, test_history_short_step);
  tcase_add_test(tc, test_history_no_cap);
  tcase_add_test(tc, test_history_drift);
  tcase_add_test(tc, test_history_noise_only);
  suite_add_tcase(s, tc);
  tc = tcase_create("cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_cli_compare_exit_codes);
  tcase_add_test(tc, test_unsupported_rows);
  tcase_add_test(tc, test_cli_history_exit_codes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
