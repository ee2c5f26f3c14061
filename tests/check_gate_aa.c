/* check_gate_aa: the gate on real A/A data and injected drops.
 *
 * tests/fixtures/aa/ holds forty-five default quick campaigns, each its own
 * process, from ten sessions on ten H200 cards (k_runs below; docs/ci.md,
 * data/noise/README.md); data/noise/floors.csv was measured from all
 * forty-five, fp64 GEMM from the current build's twenty-three only (the
 * earlier builds' search could keep another fp64 tile: K_CHANGED). Each
 * session's pairs, compared both ways, must give no regression and no
 * improvement (an earlier build's pair: on every figure but K_CHANGED's);
 * the headline figures of the second run made 10% worse must be flagged
 * (the current build's pairs: at least 95% of the 105; every pair: all of
 * HBM, fma and collectives >= 32 MiB, at least 32 of the 39 GEMMs), and
 * exit 1. Also: baselines of several runs, bad input (exit 2 naming the
 * file), the markdown cap, the noise floor measurement, the short format and
 * speedup rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_cli.h"
#include "gb_desc.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_runinfo.h"
#include "testutil.h"

static gb_noise_table g_noise;

static void load_noise(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/noise/floors.csv", gb_data_dir());
  ck_assert_msg(gb_noise_read(path, &g_noise) == GB_OK, "%s", gb_errmsg());
}

/* The A/A runs, 1-based: six back to back on one H200 (build ddddffc, card
 * 1), two on another card (build after the GEMM split), two of ddddffc and
 * two of a later build interleaved on a third card (A B A B), three
 * back to back on each of two more cards (a build of the lean reader; on
 * card 4 the second run kept fp64's 64x64 tile at both 4096 shapes, 8% slower),
 * on each of cards 7 and 8 two of ce148ea and two of the GEMM finalist
 * change interleaved (A B A B; card 8's with the STREAM retune too), and
 * six, seven and six back to back on cards 9, 10 and 11 (the current build:
 * the copy benchmark's longer window too). */
static const char *const k_runs[] = {
    "aa-quick-1",  "aa-quick-2",  "aa-quick-3",  "aa-quick-4",  "aa-quick-5",  "aa-quick-6",  "s2-quick-1",
    "s2-quick-2",  "s3-old-1",    "s3-old-2",    "s3-new-1",    "s3-new-2",    "c4-quick-1",  "c4-quick-2",
    "c4-quick-3",  "c6-quick-1",  "c6-quick-2",  "c6-quick-3",  "c7-old-1",    "c7-old-2",    "c7-new-1",
    "c7-new-2",    "c8-old-1",    "c8-old-2",    "c8-new-1",    "c8-new-2",    "c9-quick-1",  "c9-quick-2",
    "c9-quick-3",  "c9-quick-4",  "c9-quick-5",  "c9-quick-6",  "c10-quick-1", "c10-quick-2", "c10-quick-3",
    "c10-quick-4", "c10-quick-5", "c10-quick-6", "c10-quick-7", "c11-quick-1", "c11-quick-2", "c11-quick-3",
    "c11-quick-4", "c11-quick-5", "c11-quick-6"};
#define NRUNS (sizeof k_runs / sizeof k_runs[0])

/* What the GEMM finalist change (d5ca46c) measures differently: the runs of
 * the builds before it (1-20, 23, 24) count for every other figure
 * (`gpubench noise --earlier ... --changed gemm/fp64`). */
#define K_CHANGED "gemm/fp64"
static bool earlier_build(int i) { return i <= 20 || i == 23 || i == 24; }

/* Whether a figure of the pair p is left out of its A/A verdicts: one the
 * current build measures differently, in a pair of an earlier build. */
static bool changed_since(const int *p, const gb_row *r) {
  return (earlier_build(p[0]) || earlier_build(p[1])) && gb_noise_selected(K_CHANGED, r);
}

/* tests/fixtures/aa/NAME.csv */
static void read_aa(const char *name, gb_results *res) {
  char path[96];
  snprintf(path, sizeof path, "aa/%s.csv", name);
  memset(res, 0, sizeof *res);
  ck_assert_msg(gb_results_read(gb_fixture(path), res) == GB_OK, "%s", gb_errmsg());
}

static void read_run(int i, gb_results *res) { read_aa(k_runs[i - 1], res); }

/* The figures the drop is injected into, by group: the headline class of
 * core/gb_desc.c: 0 HBM arrays >= 1 GiB, 1 GEMM with m >= 4096 (not
 * speedups), 2 fma, 3 copies at their bandwidth-bound size (>= 64 MiB:
 * pinned h2d, d2h, bidir and d2d 256 MiB), 4 collectives of 2 GPUs or more
 * at >= 64 MiB (none here: on one GPU a collective is a local copy,
 * information); -1 others. */
static int drop_group(const gb_row *r) {
  if (gb_desc_class(r) != GB_FCLASS_HEADLINE) return -1;
  static const char *const bench[] = {"membw", "gemm", "fma", "copy", "collective"};
  for (int g = 0; g < 5; g++)
    if (strcmp(r->benchmark, bench[g]) == 0) return g;
  return -1;
}

/* Makes the dropped groups' figures `factor` as good: a rate times factor, a
 * time divided by it (min, max and stddev alike). */
static void inject(gb_results *res, double factor) {
  for (size_t i = 0; i < res->nrows; i++) {
    gb_row *r = &res->rows[i];
    if (drop_group(r) < 0) continue;
    double f = gb_metric_direction(r->benchmark, r->metric) < 0 ? 1.0 / factor : factor;
    r->value *= f;
    r->min *= f;
    r->max *= f;
    r->stddev *= f;
  }
}

/* each session's pairs, both ways */
static const int k_pairs[][2] = {{1, 2},   {3, 4},   {5, 6},   {7, 8},   {9, 10},  {11, 12}, {13, 14}, {14, 15},
                                 {15, 13}, {16, 17}, {17, 18}, {18, 16}, {2, 1},   {4, 3},   {6, 5},   {8, 7},
                                 {10, 9},  {12, 11}, {14, 13}, {15, 14}, {13, 15}, {17, 16}, {18, 17}, {16, 18},
                                 {19, 20}, {20, 19}, {21, 22}, {22, 21}, {23, 24}, {24, 23}, {25, 26}, {26, 25},
                                 {27, 28}, {28, 27}, {29, 30}, {30, 29}, {31, 32}, {32, 31}, {33, 34}, {34, 33},
                                 {35, 36}, {36, 35}, {37, 38}, {38, 37}, {40, 41}, {41, 40}, {42, 43}, {43, 42},
                                 {44, 45}, {45, 44}};
#define NPAIRS (int)(sizeof k_pairs / sizeof k_pairs[0])

START_TEST(test_aa_pairs_quiet) {
  load_noise();
  const int *p = k_pairs[_i];
  gb_results a, b;
  read_run(p[0], &a);
  read_run(p[1], &b);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
  size_t left_out = 0;
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    bool flagged = it->verdict == GB_VERDICT_REGRESSION || it->verdict == GB_VERDICT_IMPROVEMENT;
    if (changed_since(p, it->base.row)) {
      left_out += flagged;
      continue;
    }
    ck_assert_msg(!flagged, "A/A %d-%d: %s %s: change %.2f%%, MDC %.2f%%", p[0], p[1], gb_verdict_name(it->verdict),
                  it->key, it->change_pct, it->mdc_pct);
  }
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION] + rep.count[GB_VERDICT_IMPROVEMENT], left_out);
  ck_assert_uint_eq(rep.count[GB_VERDICT_NOT_COMPARABLE], 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_FAILED], 0);
  /* one-rank in-place, one-GPU busbw and broadcast: not judged (the
   * current build no longer measures them) */
  ck_assert_uint_eq(rep.count[GB_VERDICT_NOT_JUDGED], p[0] <= 10 ? 133 : 0);
  if (!left_out) ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  /* every judged figure has an MDC and a class */
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    if (it->verdict == GB_VERDICT_NOT_JUDGED) continue;
    ck_assert_msg(it->mdc_pct >= 2.0 && isfinite(it->mdc_pct), "%s: MDC %g", it->key, it->mdc_pct);
  }
  gb_gate_report_free(&rep);
  gb_results_free(&a);
  gb_results_free(&b);
  gb_noise_free(&g_noise);
}
END_TEST

/* The second run's headline figures 10% worse (90: 42 HBM arrays >= 1 GiB,
 * 39 GEMMs, 4 fma, 5 copies at 256 MiB). The flagged counts are those of
 * the shipped floors on these runs: every HBM array and fma; GEMM at least
 * 32 of 39 (fp64 at both 4096 shapes moves by 8% between the earlier
 * builds' processes); copies at least 2 of 5 (bidir_pinned 256 MiB moves by
 * 13% between processes: the host link). The current build's pairs: at
 * least 95% of the 90 in each (measured 87-89; 977 of 990, 98.7%, over the
 * 22: scripts/gate-aa.sh). */
START_TEST(test_aa_drop_10pct_flagged) {
  load_noise();
  const int *p = k_pairs[_i];
  gb_results a, b;
  read_run(p[0], &a);
  read_run(p[1], &b);
  inject(&b, 0.90);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
  size_t flagged[5] = {0}, total[5] = {0};
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    int g = drop_group(it->cur.row);
    if (g < 0) {
      ck_assert_msg(it->verdict != GB_VERDICT_REGRESSION || changed_since(p, it->base.row), "%s flagged, not dropped",
                    it->key);
      continue;
    }
    total[g]++;
    flagged[g] += it->verdict == GB_VERDICT_REGRESSION;
  }
  ck_assert_uint_eq(total[0], 42);
  ck_assert_uint_eq(flagged[0], 42);
  ck_assert_uint_eq(total[1], 39);
  ck_assert_uint_ge(flagged[1], 32);
  ck_assert_uint_eq(flagged[2], 4);
  ck_assert_uint_eq(total[3], 5);
  ck_assert_uint_ge(flagged[3], 2);
  ck_assert_uint_eq(total[4], 0);
  size_t all = flagged[0] + flagged[1] + flagged[2] + flagged[3];
  printf("A/A %d-%d, headline figures x0.90: %zu of %zu flagged (HBM %zu/%zu, GEMM %zu/%zu, fma %zu/%zu, "
         "copies %zu/%zu)\n", p[0], p[1], all, total[0] + total[1] + total[2] + total[3], flagged[0], total[0],
         flagged[1], total[1], flagged[2], total[2], flagged[3], total[3]);
  if (!earlier_build(p[0]) && !earlier_build(p[1])) ck_assert_uint_ge(all * 100, 95 * 90);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  /* 5% worse: still at least 80% of HBM and GEMM */
  gb_results_free(&b);
  read_run(p[1], &b);
  inject(&b, 0.95);
  ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
  memset(flagged, 0, sizeof flagged);
  for (size_t i = 0; i < rep.nitems; i++) {
    int g = drop_group(rep.items[i].cur.row);
    if (g >= 0) flagged[g] += rep.items[i].verdict == GB_VERDICT_REGRESSION;
  }
  /* one run a side, floors measured across cards and sessions: every HBM
   * array, but a 5% GEMM drop is within the between-card noise (GEMM class
   * sigma 2.1%, MDC ~7.6%: docs/ci.md) */
  ck_assert_uint_ge(flagged[0], 40);
  printf("A/A %d-%d, headline figures x0.95: HBM %zu/42, GEMM %zu/39 flagged\n", p[0], p[1], flagged[0], flagged[1]);
  gb_gate_report_free(&rep);
  gb_results_free(&a);
  gb_results_free(&b);
  gb_noise_free(&g_noise);
}
END_TEST

/* --repeat 5 campaigns, each its own process, not among the runs the floors
 * were measured from: four on one card (r5-card2-1..4; pairs (1,2) and
 * (3,4), both ways) and one on another card (r5-card1-1). On one GPU the
 * gate judges from the repetitions and the same-GPU floor: quiet, and the
 * second run's headline figures 5% worse flag at least 80% of HBM and GEMM
 * (measured: 96-99%), 10% worse at least 95% of all (measured: 99-100%). */
static const char *const k_r5_pairs[4][2] = {
    {"r5-card2-1", "r5-card2-2"}, {"r5-card2-2", "r5-card2-1"}, {"r5-card2-3", "r5-card2-4"}, {"r5-card2-4", "r5-card2-3"}};

START_TEST(test_repeat_pairs_one_gpu) {
  load_noise();
  gb_results a, b;
  read_aa(k_r5_pairs[_i][0], &a);
  read_aa(k_r5_pairs[_i][1], &b);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
  size_t reps_judged = 0;
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    ck_assert_msg(it->verdict != GB_VERDICT_REGRESSION && it->verdict != GB_VERDICT_IMPROVEMENT,
                  "A/A %s-%s: %s %s: change %.2f%%, MDC %.2f%% (%s)", k_r5_pairs[_i][0], k_r5_pairs[_i][1],
                  gb_verdict_name(it->verdict), it->key, it->change_pct, it->mdc_pct, it->method);
    if (strcmp(it->method, "repetitions, same GPU") == 0) {
      ck_assert_uint_eq(it->base.nok, 5);
      ck_assert_uint_eq(it->cur.nok, 5);
      reps_judged++;
    }
  }
  ck_assert_uint_gt(reps_judged, rep.nitems / 2);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  for (int k = 0; k < 2; k++) {
    double factor = k == 0 ? 0.95 : 0.90;
    gb_results_free(&b);
    read_aa(k_r5_pairs[_i][1], &b);
    inject(&b, factor);
    ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
    size_t flagged[5] = {0}, total[5] = {0};
    for (size_t i = 0; i < rep.nitems; i++) {
      int g = drop_group(rep.items[i].cur.row);
      if (g < 0) continue;
      total[g]++;
      flagged[g] += rep.items[i].verdict == GB_VERDICT_REGRESSION;
    }
    ck_assert_uint_eq(total[0] + total[1] + total[2] + total[3] + total[4], 42 + 39 + 4 + 5);
    size_t hg = flagged[0] + flagged[1], all = hg + flagged[2] + flagged[3];
    printf("--repeat 5 A/A %s-%s, headline figures x%.2f: %zu of 90 flagged (HBM %zu/42, GEMM %zu/39, fma %zu/4, "
           "copies %zu/5; HBM and GEMM %.0f%%)\n",
           k_r5_pairs[_i][0], k_r5_pairs[_i][1], factor, all, flagged[0], flagged[1], flagged[2], flagged[3],
           100.0 * (double)hg / 81);
    if (k == 0) ck_assert_uint_ge(hg * 100, 80 * 81);
    else ck_assert_uint_ge(all * 100, 95 * 90);
    ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
    gb_gate_report_free(&rep);
  }
  gb_results_free(&a);
  gb_results_free(&b);
  gb_noise_free(&g_noise);
}
END_TEST

/* Two cards: the same-GPU rule does not apply (different gpu_uuid), the
 * figures are judged against the floors of any card. HBM dot and read
 * differ by 2.3-2.9% between these two cards, past their any-card MDC of
 * 2.0-2.7%: the gate says so (docs/ci.md: compare runs of one card, or take
 * a baseline of several cards' runs). */
START_TEST(test_repeat_pair_two_cards) {
  load_noise();
  gb_results a, b;
  read_aa("r5-card1-1", &a);
  read_aa("r5-card2-1", &b);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    ck_assert_str_ne(it->method, "repetitions, same GPU");
    if (it->verdict == GB_VERDICT_IMPROVEMENT)
      ck_assert_msg(strstr(it->key, "membw/dot") != NULL || strstr(it->key, "membw/read") != NULL, "%s", it->key);
  }
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 0);
  ck_assert_uint_gt(rep.count[GB_VERDICT_IMPROVEMENT], 0);
  gb_gate_report_free(&rep);
  gb_results_free(&a);
  gb_results_free(&b);
  gb_noise_free(&g_noise);
}
END_TEST

/* A baseline of three runs (1, 3, 5) against run 2: quiet, and each figure's
 * sigma pools the floor with the runs' own spread; with run 2 made 10% worse
 * the headline GEMMs, HBM and fma are flagged. */
START_TEST(test_baseline_of_several_runs) {
  load_noise();
  gb_results base = {0}, cur;
  for (int i = 1; i <= 5; i += 2) {
    char name[64];
    snprintf(name, sizeof name, "aa/aa-quick-%d.csv", i);
    ck_assert_int_eq(gb_results_read(gb_fixture(name), &base), GB_OK);
  }
  read_run(2, &cur);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION] + rep.count[GB_VERDICT_IMPROVEMENT], 0);
  const gb_gate_item *fma = NULL;
  for (size_t i = 0; i < rep.nitems; i++)
    if (strstr(rep.items[i].key, "fma/fp32 fp32 tflops")) fma = &rep.items[i];
  ck_assert_ptr_nonnull(fma);
  ck_assert_uint_eq(fma->base.nruns, 3);
  ck_assert_uint_eq(fma->cur.nruns, 1);
  ck_assert_str_eq(fma->method, "floor+runs, same GPU");
  /* sigma^2 = (4 floor^2 + 2 s^2) / 6 with s the sd of ln over the 3 runs;
   * all on card 1, as the current run: the floor is the figure's one-card
   * row (GB_GATE_SAME_GPU_MIN_RUNS), narrower than its any-card row */
  const gb_noise_floor *fl = gb_noise_lookup_figure_same_gpu(&g_noise, fma->base.row);
  ck_assert_ptr_nonnull(fl);
  ck_assert_double_lt(fl->sigma, gb_noise_lookup_figure(&g_noise, fma->base.row)->sigma);
  double s = fma->base.sd_ln;
  ck_assert_double_eq_tol(fma->sigma, sqrt((4 * fl->sigma * fl->sigma + 2 * s * s) / 6), 1e-12);
  ck_assert_double_eq_tol(fma->mdc_pct, fmax(2.0, expm1(gb_gate_z(0.01) * fma->sigma * sqrt(1.0 / 3 + 1)) * 100),
                          1e-9);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  inject(&cur, 0.90);
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  size_t flagged = 0;
  for (size_t i = 0; i < rep.nitems; i++) {
    int g = drop_group(rep.items[i].cur.row);
    if (g >= 0 && g <= 2) flagged += rep.items[i].verdict == GB_VERDICT_REGRESSION;
  }
  /* 42 HBM, 4 fma, 34 of 39 GEMMs: the five whose value switches between
   * processes (tf32, fp16, fp16acc16 at 8192^3; fp64 at both 4096 shapes)
   * keep MDCs over 10% with three baseline runs */
  ck_assert_uint_ge(flagged, 42 + 34 + 4);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  gb_results_free(&base);
  gb_results_free(&cur);
  gb_noise_free(&g_noise);
}
END_TEST

/* speedup rows: derived, judged from their own floor and the spread of their
 * two sides; those at headline shapes count, the decode shape (m=8) not. */
START_TEST(test_speedup_judged) {
  load_noise();
  gb_results a, b;
  read_run(1, &a);
  read_run(2, &b);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&a, &b, &opt, &rep), GB_OK);
  size_t n = 0, gated = 0;
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    if (strcmp(it->metric, "speedup")) continue;
    n++;
    ck_assert_int_eq(it->fclass, GB_FCLASS_DERIVED);
    ck_assert(!isnan(it->mdc_pct));
    ck_assert_msg(it->gated == (it->base.row->m >= 4096), "%s", it->key);
    gated += it->gated;
  }
  ck_assert_uint_eq(n, 24 * 4); /* 24 pairs of precisions at 4 shapes */
  ck_assert_uint_eq(gated, 24 * 3);
  gb_gate_report_free(&rep);
  gb_results_free(&a);
  gb_results_free(&b);
  gb_noise_free(&g_noise);
}
END_TEST

/* --earlier and --changed: an earlier build's runs count for every figure
 * but the changed ones (gpubench noise CUR... --earlier OLD --changed SEL). */
static const gb_noise_floor *class_row(const gb_noise_table *t, const char *bench, const char *metric,
                                       const char *cls) {
  for (size_t i = 0; i < t->n; i++)
    if (!t->v[i].figure[0] && !t->v[i].same_gpu && !strcmp(t->v[i].benchmark, bench) &&
        !strcmp(t->v[i].metric, metric) && !strcmp(t->v[i].size_class, cls))
      return &t->v[i];
  return NULL;
}

/* Runs a subcommand's entry point on argv (at most 15 words). */
static int run_cmd(int (*cmd)(int, char **), const char *const *argv, int argc) {
  char *copy[16];
  for (int i = 0; i < argc; i++) copy[i] = (char *)argv[i];
  copy[argc] = NULL;
  return cmd(argc, copy);
}

START_TEST(test_noise_earlier) {
  /* the selectors */
  gb_row r = gb_row_empty();
  r.benchmark = "gemm";
  r.case_name = "fp64";
  ck_assert(gb_noise_selected("gemm/fp64", &r));
  ck_assert(gb_noise_selected("membw,gemm", &r));
  ck_assert(!gb_noise_selected("gemm/fp6", &r));
  ck_assert(!gb_noise_selected("membw/fp64", &r));
  r.case_name = "fp64_vs_fp32";
  ck_assert(gb_noise_selected("gemm/fp64", &r));
  r.case_name = "bf16_vs_fp64";
  ck_assert(gb_noise_selected("copy,gemm/fp64", &r));
  r.case_name = "fp8e4m3_fastacc_vs_fp32";
  ck_assert(!gb_noise_selected("gemm/fp64", &r));
  ck_assert(!gb_noise_selected("", &r));
  ck_assert_int_eq(gb_noise_check_selectors("--changed", "gemm/fp64,membw"), GB_OK);
  ck_assert_int_eq(gb_noise_check_selectors("--changed", "gemmx"), GB_E_USAGE);
  ck_assert_str_eq(gb_errmsg(), "--changed: unknown benchmark \"gemmx\"");
  const char *bad[] = {"", "gemm/", "/fp64", "gemm/a/b", "gemm,,membw"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(gb_noise_check_selectors("--changed", bad[i]) == GB_E_USAGE, "\"%s\" accepted", bad[i]);

  /* two runs of the current build and one earlier: fp64 GEMM from the two */
  char run1[4200], run2[4200], old[4200], all[4300], some[4300];
  snprintf(run1, sizeof run1, "%s", gb_fixture("aa/c8-new-1.csv"));
  snprintf(run2, sizeof run2, "%s", gb_fixture("aa/c8-new-2.csv"));
  snprintf(old, sizeof old, "%s", gb_fixture("aa/aa-quick-1.csv"));
  snprintf(all, sizeof all, "%s/all.csv", gb_test_tmpdir());
  snprintf(some, sizeof some, "%s/some.csv", gb_test_tmpdir());
  const char *a1[] = {"noise", run1, run2, old, "--out", all};
  ck_assert_int_eq(run_cmd(gb_cmd_noise, a1, 6), 0);
  const char *a2[] = {"noise", run1, run2, "--earlier", old, "--changed", "gemm/fp64", "--out", some};
  ck_assert_int_eq(run_cmd(gb_cmd_noise, a2, 9), 0);
  gb_noise_table ta, ts;
  ck_assert_int_eq(gb_noise_read(all, &ta), GB_OK);
  ck_assert_int_eq(gb_noise_read(some, &ts), GB_OK);
  /* the class of the 4096x4096x14336 shapes: its 2 fp64 figures lose the 2
   * pairs the earlier run was in; fma keeps all 3 runs' pairs */
  const gb_noise_floor *ga = class_row(&ta, "gemm", "tflops", "headline/mnk 2^36-2^38"),
                       *gs = class_row(&ts, "gemm", "tflops", "headline/mnk 2^36-2^38"),
                       *fa = class_row(&ta, "fma", "tflops", "headline/all"),
                       *fs = class_row(&ts, "fma", "tflops", "headline/all");
  ck_assert_ptr_nonnull(ga);
  ck_assert_ptr_nonnull(gs);
  ck_assert_ptr_nonnull(fa);
  ck_assert_ptr_nonnull(fs);
  ck_assert_uint_eq(ga->figures, gs->figures);
  ck_assert_uint_eq(gs->pairs, ga->pairs - 2 * 2);
  ck_assert_uint_eq(fs->pairs, fa->pairs);
  ck_assert_uint_eq(fs->pairs, 4 * 3);
  gb_noise_free(&ta);
  gb_noise_free(&ts);

  /* each needs the other; a bad selector is named; all exit 2 */
  const char *b1[] = {"noise", run1, run2, "--earlier", old};
  ck_assert_int_eq(run_cmd(gb_cmd_noise, b1, 5), 2);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "--earlier needs --changed"));
  const char *b2[] = {"noise", run1, run2, "--changed", "gemm"};
  ck_assert_int_eq(run_cmd(gb_cmd_noise, b2, 5), 2);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "--changed needs --earlier"));
  const char *b3[] = {"noise", run1, run2, "--earlier", old, "--changed", "gemm/"};
  ck_assert_int_eq(run_cmd(gb_cmd_noise, b3, 7), 2);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "expected BENCHMARK or BENCHMARK/CASE"));
}
END_TEST

/* ---- bad input: exit 2, naming the file ---- */

START_TEST(test_bad_baselines) {
  const char *dir = gb_test_tmpdir();
  char empty[4200], header[4200], mixed[4200], run1[4200], run2[4200];
  snprintf(empty, sizeof empty, "%s/empty", dir);
  ck_assert_int_eq(mkdir(empty, 0777), 0);
  snprintf(run1, sizeof run1, "%s", gb_fixture("aa/aa-quick-1.csv"));
  snprintf(run2, sizeof run2, "%s", gb_fixture("aa/aa-quick-2.csv"));
  /* a baseline directory with no CSV */
  const char *a1[] = {"compare", empty, run2};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, a1, 3), 2);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), empty));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "no .csv file"));
  /* a results file with a header and no rows, as baseline or current */
  snprintf(header, sizeof header, "%s/header.csv", dir);
  gb_buf h = {0};
  gb_results_put_header(&h);
  ck_assert_int_eq(gb_test_write(header, h.data, h.len), 0);
  gb_buf_free(&h);
  const char *a2[] = {"compare", run1, header};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, a2, 3), 2);
  ck_assert_msg(strstr(gb_errmsg(), "header.csv: a header and no rows"), "%s", gb_errmsg());
  const char *a3[] = {"compare", header, run1, run2};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, a3, 4), 2);
  ck_assert_msg(strstr(gb_errmsg(), "header.csv: a header and no rows"), "%s", gb_errmsg());
  /* mixed GPU types in one baseline */
  size_t len;
  char *text = gb_test_slurp(run1, &len);
  ck_assert_ptr_nonnull(text);
  gb_buf m = {0};
  for (char *p = text; *p;) {
    char *hit = strstr(p, "H200-SXM-141GB");
    if (!hit) {
      gb_buf_puts(&m, p);
      break;
    }
    gb_buf_append(&m, p, (size_t)(hit - p));
    gb_buf_puts(&m, "A100-SXM4-80GB");
    p = hit + strlen("H200-SXM-141GB");
  }
  snprintf(mixed, sizeof mixed, "%s/mixed.csv", dir);
  ck_assert_int_eq(gb_test_write(mixed, m.data, m.len), 0);
  gb_buf_free(&m);
  free(text);
  const char *a4[] = {"compare", run1, mixed, run2};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, a4, 4), 2);
  ck_assert_msg(strstr(gb_errmsg(), "mixed.csv:2: gpu_type A100-SXM4-80GB, but ") &&
                    strstr(gb_errmsg(), "aa-quick-1.csv is on H200-SXM-141GB"),
                "%s", gb_errmsg());
  /* and the good form of each: a directory of runs as the baseline */
  char runs[4200], p1[4300], p3[4300];
  snprintf(runs, sizeof runs, "%s/runs", dir);
  ck_assert_int_eq(mkdir(runs, 0777), 0);
  snprintf(p1, sizeof p1, "%s/a.csv", runs);
  snprintf(p3, sizeof p3, "%s/b.csv", runs);
  text = gb_test_slurp(run1, &len);
  ck_assert_int_eq(gb_test_write(p1, text, len), 0);
  free(text);
  text = gb_test_slurp(gb_fixture("aa/aa-quick-3.csv"), &len);
  ck_assert_int_eq(gb_test_write(p3, text, len), 0);
  free(text);
  const char *a5[] = {"compare", runs, run2, "--format", "short"};
  ck_assert_int_eq(run_cmd(gb_cmd_compare, a5, 5), 0);
}
END_TEST

/* ---- outputs ---- */

/* 3000 figures, every one a regression with a long settings string: the
 * markdown stays within 65,536 characters, the summary and regressions
 * first, what does not fit cut with a count. */
START_TEST(test_markdown_capped) {
  enum { N = 3000 };
  gb_row *b = calloc(N, sizeof *b), *c = calloc(N, sizeof *c);
  char(*names)[32] = calloc(N, sizeof *names);
  char settings[600];
  memset(settings, 'x', sizeof settings - 1);
  settings[sizeof settings - 1] = '\0';
  memcpy(settings, "gemm.window=", 12);
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "case%04d", i);
    gb_row r = gb_row_empty();
    r.run_id = "r";
    r.gpu_type = "H200-SXM-141GB";
    r.benchmark = "fma";
    r.case_name = names[i];
    r.metric = "tflops";
    r.value = 100;
    r.samples = 30;
    r.settings = settings;
    r.file = "x.csv";
    b[i] = r;
    r.value = 50;
    c[i] = r;
  }
  gb_results base = {.nrows = N, .rows = b}, cur = {.nrows = N, .rows = c};
  gb_gate_options opt = gb_gate_defaults();
  gb_gate_report rep;
  ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], N);
  gb_buf md = {0};
  gb_buf_puts(&md, "preamble\n"); /* the cap is on what the report writes */
  ck_assert_int_eq(gb_gate_format_markdown(&rep, &md), GB_OK);
  ck_assert_uint_le(md.len - 9, GB_GATE_MARKDOWN_MAX);
  gb_buf_append(&md, "", 1);
  ck_assert_ptr_nonnull(strstr(md.data, "## gpubench regression gate: FAIL"));
  ck_assert_ptr_nonnull(strstr(md.data, "### regression: 3000"));
  ck_assert_ptr_nonnull(strstr(md.data, "more figures are not shown (the 65536-character limit)"));
  gb_buf_free(&md);
  /* the short format: the summary, 20 regressions, a count */
  gb_buf s = {0};
  ck_assert_int_eq(gb_gate_format_short(&rep, &s), GB_OK);
  gb_buf_append(&s, "", 1);
  ck_assert_ptr_nonnull(strstr(s.data, "gate: FAIL: 3000 figures"));
  ck_assert_ptr_nonnull(strstr(s.data, "  ... and 2980 more (--format text lists every one)\n"));
  gb_buf_free(&s);
  /* JUnit: one test case per figure, each with its MDC */
  gb_buf x = {0};
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  gb_buf_append(&x, "", 1);
  size_t cases = 0;
  for (const char *p = x.data; (p = strstr(p, "<testcase ")); p++) cases++;
  ck_assert_uint_eq(cases, N);
  ck_assert_ptr_nonnull(strstr(x.data, "MDC 3.71%"));
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  free(b);
  free(c);
  free(names);
}
END_TEST

/* ---- measuring the floor ---- */

START_TEST(test_noise_measure) {
  gb_results res = {0};
  size_t dropped = 0;
  for (size_t i = 0; i < NRUNS; i++) {
    char name[64];
    snprintf(name, sizeof name, "aa/%s.csv", k_runs[i]);
    size_t before = res.nrows;
    ck_assert_int_eq(gb_results_read(gb_fixture(name), &res), GB_OK);
    /* as `gpubench noise CURRENT... --earlier EARLIER... --changed K_CHANGED` */
    if (earlier_build((int)i + 1)) dropped += gb_noise_leave_out(&res, before, K_CHANGED);
  }
  /* the earlier runs' fp64 GEMM rows and the speedups fp64 is a side of */
  ck_assert_uint_gt(dropped, 0);
  gb_noise_table t;
  ck_assert_int_eq(gb_noise_measure(&res, &t), GB_OK);
  ck_assert_uint_eq(t.runs, NRUNS);
  const gb_noise_floor *fma = NULL;
  for (size_t i = 0; i < t.n; i++)
    if (strcmp(t.v[i].benchmark, "fma") == 0 && !t.v[i].figure[0] && !t.v[i].same_gpu) fma = &t.v[i];
  ck_assert_ptr_nonnull(fma);
  ck_assert_str_eq(fma->size_class, "headline/all");
  ck_assert_uint_eq(fma->figures, 4);
  ck_assert_uint_eq(fma->pairs, 4 * NRUNS * (NRUNS - 1) / 2);
  ck_assert_double_eq_tol(fma->sigma, 2.0 * fma->median_abs / (0.6745 * sqrt(2.0)), 1e-12);
  ck_assert_double_lt(fma->sigma, 0.002); /* fma moves by under 0.25% between runs */
  /* what it writes reads back, and matches the shipped floors (measured from
   * the same runs before their numbers were rounded to 7 digits) */
  gb_buf out = {0};
  ck_assert_int_eq(gb_noise_write(&t, &out), GB_OK);
  gb_noise_table back, shipped;
  ck_assert_int_eq(gb_noise_read_mem("floors.csv", out.data, out.len, &back), GB_OK);
  ck_assert_uint_eq(back.n, t.n);
  load_noise();
  shipped = g_noise;
  for (size_t i = 0; i < t.n; i++) {
    ck_assert_str_eq(back.v[i].figure, t.v[i].figure);
    ck_assert_double_eq_tol(back.v[i].sigma, t.v[i].sigma, 1e-6);
    ck_assert(back.v[i].same_gpu == t.v[i].same_gpu);
    if (t.v[i].figure[0]) continue;
    bool found = false;
    for (size_t k = 0; k < shipped.n && !found; k++)
      if (!shipped.v[k].figure[0] && shipped.v[k].same_gpu == t.v[i].same_gpu &&
          !strcmp(shipped.v[k].gpu_type, t.v[i].gpu_type) && !strcmp(shipped.v[k].benchmark, t.v[i].benchmark) &&
          !strcmp(shipped.v[k].metric, t.v[i].metric) && !strcmp(shipped.v[k].size_class, t.v[i].size_class)) {
        found = true;
        ck_assert_double_eq_tol(shipped.v[k].sigma, t.v[i].sigma, 1e-4 + 1e-3 * t.v[i].sigma);
      }
    ck_assert_msg(found, "%s/%s %s not shipped", t.v[i].benchmark, t.v[i].metric, t.v[i].size_class);
  }
  /* same GPU: the fma class from the pairs of runs on one card only (card
   * 1: 15 pairs, card 2: 1, card 3: 6, cards 4 and 6: 3 each, cards 7 and 8: 6
   * each, cards 9 and 11: 15 each, card 10: 21), each of 4 figures */
  const gb_noise_floor *same = NULL;
  for (size_t i = 0; i < t.n; i++)
    if (strcmp(t.v[i].benchmark, "fma") == 0 && !t.v[i].figure[0] && t.v[i].same_gpu) same = &t.v[i];
  ck_assert_ptr_nonnull(same);
  ck_assert_uint_eq(same->pairs, 4 * (15 + 1 + 6 + 3 + 3 + 6 + 6 + 15 + 21 + 15));
  ck_assert_double_eq_tol(same->sigma, 2.0 * same->median_abs / (0.6745 * sqrt(2.0)), 1e-12);
  /* the GEMM classes: one card's run-to-run noise is below the cards' */
  gb_row g = gb_row_empty();
  g.gpu_type = "H200-SXM-141GB";
  g.benchmark = "gemm";
  g.case_name = "bf16";
  g.metric = "tflops";
  g.m = g.n = g.k = 8192;
  const gb_noise_floor *ga = gb_noise_lookup(&t, &g), *gs = gb_noise_lookup_same_gpu(&t, &g);
  ck_assert_ptr_nonnull(ga);
  ck_assert_ptr_nonnull(gs);
  ck_assert(!ga->same_gpu && gs->same_gpu);
  ck_assert_double_lt(gs->sigma, ga->sigma / 2);
  gb_buf_free(&out);
  gb_noise_free(&back);
  gb_noise_free(&g_noise);
  gb_noise_free(&t);
  gb_results_free(&res);
  /* an older floor file (no scope column) reads as "any"; a bad scope is named */
  const char *old = "gpu_type,benchmark,metric,size_class,sigma\nH200,fma,tflops,headline/all,0.01\n";
  ck_assert_int_eq(gb_noise_read_mem("o.csv", old, strlen(old), &t), GB_OK);
  ck_assert(!t.v[0].same_gpu);
  gb_noise_free(&t);
  const char *scope = "gpu_type,benchmark,metric,size_class,sigma,scope\nH200,fma,tflops,headline/all,0.01,card\n";
  ck_assert_int_eq(gb_noise_read_mem("s.csv", scope, strlen(scope), &t), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "s.csv:2: scope: \"card\" is not one of any, same-gpu, peak, peak-same-gpu, cards");
  /* one run is not enough; a bad file names its line */
  read_run(1, &res);
  ck_assert_int_eq(gb_noise_measure(&res, &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "1 run (run_id): the floor needs at least 2 independent runs"));
  gb_results_free(&res);
  const char *bad = "gpu_type,benchmark,metric,size_class,sigma\nH200,fma,tflops,headline/all,-1\n";
  ck_assert_int_eq(gb_noise_read_mem("f.csv", bad, strlen(bad), &t), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "f.csv:2: sigma: not a positive number: \"-1\"");
  const char *nocol = "gpu_type,benchmark,metric,sigma\n";
  ck_assert_int_eq(gb_noise_read_mem("g.csv", nocol, strlen(nocol), &t), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "g.csv:1: no column \"size_class\""));
}
END_TEST

START_TEST(test_size_classes) {
  gb_row r = gb_row_empty();
  char c[96];
  r.benchmark = "membw";
  r.case_name = "triad";
  r.metric = "gbps";
  r.bytes = (int64_t)1 << 30;
  gb_noise_size_class(&r, c, sizeof c);
  ck_assert_str_eq(c, "headline/1G-2G");
  r.bytes = (int64_t)3 << 20;
  gb_noise_size_class(&r, c, sizeof c);
  ck_assert_str_eq(c, "latency/2M-4M");
  r.benchmark = "gemm";
  r.metric = "tflops";
  r.bytes = GB_NA;
  r.m = r.n = r.k = 8192;
  gb_noise_size_class(&r, c, sizeof c);
  ck_assert_str_eq(c, "headline/mnk 2^38-2^40");
  r.benchmark = "fma";
  r.m = r.n = r.k = GB_NA;
  gb_noise_size_class(&r, c, sizeof c);
  ck_assert_str_eq(c, "headline/all");
  r.benchmark = "collective";
  r.case_name = "all_reduce_outofplace";
  r.dtype = "fp32";
  r.metric = "time_us";
  r.bytes = 8;
  gb_noise_size_class(&r, c, sizeof c);
  ck_assert_str_eq(c, "latency/8-16");
  gb_noise_figure(&r, c, sizeof c);
  ck_assert_str_eq(c, "collective/all_reduce_outofplace fp32 bytes=8 time_us x1");
  ck_assert_double_eq(gb_noise_default_sigma(&r), 0.15);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate_aa");
  TCase *tc = tcase_create("aa");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_aa_pairs_quiet, 0, NPAIRS);
  tcase_add_loop_test(tc, test_aa_drop_10pct_flagged, 0, NPAIRS);
  tcase_add_loop_test(tc, test_repeat_pairs_one_gpu, 0, 4);
  tcase_add_test(tc, test_repeat_pair_two_cards);
  tcase_add_test(tc, test_baseline_of_several_runs);
  tcase_add_test(tc, test_speedup_judged);
  tcase_add_test(tc, test_bad_baselines);
  tcase_add_test(tc, test_markdown_capped);
  tcase_add_test(tc, test_noise_measure);
  tcase_add_test(tc, test_noise_earlier);
  tcase_add_test(tc, test_size_classes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
