/* Tests for gb_report: reports rendered from fixture CSVs (two GPU types, a
 * plan and its sensitivity) with every plot checked as PNG and SVG, the
 * HTML checked well formed, numbers in the C locale under a comma-decimal
 * locale, the gnuplot-missing path, input errors, and the shipped-data
 * path. Cases that render need gnuplot; without it main() exits 77 (SKIP)
 * after running the others. */
#include <dirent.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "gb_desc.h"
#include "gb_plot.h"
#include "gb_rep_sections.h"
#include "gb_report.h"
#include "gb_results.h"
#include "reportutil.h"
#include "testutil.h"

static char *slurp_in(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%.3000s/%.1000s", dir, name);
  return gb_test_slurp(path, NULL);
}

static bool exists_in(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%.3000s/%.1000s", dir, name);
  return gb_test_file_nonempty(path);
}

static size_t count_ext(const char *dir, const char *ext) {
  DIR *d = opendir(dir);
  size_t n = 0, el = strlen(ext);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    n += l > el && strcmp(de->d_name + l - el, ext) == 0;
  }
  if (d) closedir(d);
  return n;
}

/* No plot of dir draws more than 8 series (legend entries);
 * returns the most any has. */
static size_t assert_series_at_most_8(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  size_t most = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l < 4 || strcmp(de->d_name + l - 3, ".gp") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%.3000s/%.1000s", dir, de->d_name);
    char *gp = gb_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(gp);
    size_t n = gb_test_gp_series(gp);
    ck_assert_msg(n <= 8, "%s draws %zu series, more than 8", de->d_name, n);
    if (n > most) most = n;
    free(gp);
  }
  closedir(d);
  return most;
}

/* Fixture paths (gb_fixture's buffer is static, so copy). */
static char g_h200[4096], g_a100[4096], g_plan[4096], g_sens[4096], g_specs[4096];
static void fixtures(void) {
  snprintf(g_h200, sizeof g_h200, "%s", gb_fixture("report_h200.csv"));
  snprintf(g_a100, sizeof g_a100, "%s", gb_fixture("report_a100.csv"));
  snprintf(g_plan, sizeof g_plan, "%s", gb_fixture("report_plan.csv"));
  snprintf(g_sens, sizeof g_sens, "%s", gb_fixture("report_sensitivity.csv"));
  snprintf(g_specs, sizeof g_specs, "%s", gb_fixture("report_gpu_specs.csv"));
}

static gb_err full_report(const char *dir, gb_report_summary *sum) {
  fixtures();
  const char *files[] = {g_h200, g_a100};
  gb_report_options o = {.results = files, .nresults = 2, .plan_path = g_plan, .sensitivity_path = g_sens,
                         .specs_path = g_specs, .out_dir = dir, .title = "fixture report"};
  return gb_report_write(&o, sum);
}

/* report.md of one results fixture, written without gnuplot (the tables
 * only); the caller frees it. */
static char *results_md(const char *fixture) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  char path[4096];
  snprintf(path, sizeof path, "%s", gb_fixture(fixture));
  const char *files[] = {path};
  const char *dir = gb_test_tmpdir();
  gb_report_options o = {.results = files, .nresults = 1, .out_dir = dir};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  unsetenv("GPUBENCH_GNUPLOT");
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  return md;
}

/* The report of a plan fixture with the sensitivity fixture, no results;
 * returns its directory. */
static const char *plan_report(const char *fixture, gb_report_summary *sum) {
  fixtures();
  char plan[4096];
  snprintf(plan, sizeof plan, "%s", gb_fixture(fixture));
  const char *dir = gb_test_tmpdir();
  gb_report_options o = {.plan_path = plan, .sensitivity_path = g_sens, .specs_path = g_specs, .out_dir = dir,
                         .generator = "test"};
  ck_assert_msg(gb_report_write(&o, sum) == GB_OK, "%s", gb_errmsg());
  return dir;
}

/* Every plot the fixtures make, with texts its SVG must hold (series
 * titles, markers). Values: H200 bf16 at 8192^3 has reps 740 and
 * 740 * 1.002 = 741.48, median 740.74, printed %.4g = 740.7; the H200
 * triad at 1 GiB is 4310 GB/s, the best of the largest arrays. */
static const struct {
  const char *stem;
  const char *texts[4];
} k_plots[] = {
    {"gemm_precision", {"H200-SXM-141GB", "A100-SXM-80GB", "datasheet peak (dense)", "fp8e4m3_fastaccum"}},
    {"gemm_speedup", {"H200-SXM-141GB", "bf16_vs_fp32", "speedup (x)", "precision pair (A_vs_B"}},
    /* GEMM against size, one plot per precision class */
    {"gemm_size_H200-SXM-141GB_wide", {"fp64", "tf32", "floating wide (fp64, fp32, tf32)", ""}},
    {"gemm_size_H200-SXM-141GB_16bit", {"fp16acc16", "bf16", "throughput (TFLOP/s; TOP/s for int8)", ""}},
    {"gemm_size_H200-SXM-141GB_8bit", {"fp8e4m3", "int8", "8-bit and below (fp8, int8)", ""}},
    {"gemm_size_A100-SXM-80GB_wide", {"fp64", "tf32", "", ""}},
    {"gemm_size_A100-SXM-80GB_16bit", {"bf16", "fp16", "", ""}},
    {"gemm_size_A100-SXM-80GB_8bit", {"int8", "", "", ""}},
    {"fma", {"H200-SXM-141GB", "A100-SXM-80GB", "fp16x2", "datasheet peak"}},
    /* membw: hot cases (the fixtures measured no _cold ones) */
    {"membw_H200-SXM-141GB_hot", {"triad", "dot", "L2 50 MiB", "datasheet 4800 GB/s"}},
    {"membw_A100-SXM-80GB_hot", {"copy", "triad", "L2 40 MiB", "datasheet 2039 GB/s"}},
    {"copy", {"h2d_pinned", "p2p_read", "H200-SXM-141GB", "bandwidth (GB/s)"}},
    {"collective_all-reduce_H200-SXM-141GB", {"2 GPUs, out-of-place", "8 GPUs, in-place", "bus bandwidth (GB/s)",
                                              "message size (bytes, log scale)"}},
    {"collective_all-gather_H200-SXM-141GB", {"2 GPUs, out-of-place", "4 GPUs, out-of-place", "all_gather", ""}},
    {"collective_all-reduce_A100-SXM-80GB", {"2 GPUs, out-of-place", "8 GPUs, out-of-place", "", ""}},
    /* rooflines, one per precision class of the ceilings; STREAM in the first */
    {"roofline_H200-SXM-141GB_wide", {"memory (membw): 4310 GB/s", "CUDA-core fp32: 59 TFLOP/s",
                                      "STREAM kernels (HBM-bound arrays)", "GEMM tf32"}},
    {"roofline_H200-SXM-141GB_16bit", {"memory (membw): 4310 GB/s", "GEMM bf16: 740.7 TFLOP/s", "16-bit (fp16, bf16)",
                                       "CUDA-core fp16x2"}},
    {"roofline_H200-SXM-141GB_8bit", {"memory (membw): 4310 GB/s", "GEMM int8: 1251 TOP/s", "", ""}},
    {"roofline_A100-SXM-80GB_wide", {"memory (membw): 1790 GB/s", "triad fp64", "GEMM tf32", ""}},
    {"roofline_A100-SXM-80GB_16bit", {"memory (membw): 1790 GB/s", "GEMM bf16", "", ""}},
    {"roofline_A100-SXM-80GB_8bit", {"memory (membw): 1790 GB/s", "GEMM int8: 560 TOP/s", "", ""}},
    {"plan_efficiency", {"efficiency (EFLOP per 1000 USD)", "#1 8x H100 runpod secure", "#2 8x H200 runpod secure",
                         "#7 16x A100 coreweave 8x"}},
    {"plan_time_cost", {"Pareto frontier (all types)", "deadline 200 h", "budget 20,000 USD", "A100-SXM-80GB projected"}},
    /* price -20%: 2392 / 2990 - 1 = -20.0%; +20%: 4163.64 / 2990 - 1 = +39.3% (the pick changed) */
    /* the factors named on the y axis, not numbered (issue 24's screenshot) */
    {"plan_tornado", {"price_usd_per_gpu_hour (swing 59.3 points)", "+20%: +39.3%", "-20%: -20.0%",
                      ">price_usd_per_gpu_hour<"}},
};
#define NPLOTS (sizeof k_plots / sizeof k_plots[0])

/* A plan file written before the precision and gemm_window columns still
 * reads; its Assumptions simply lack those two rows. */
START_TEST(test_plan_before_window_columns) {
  fixtures();
  char old_plan[4096];
  snprintf(old_plan, sizeof old_plan, "%s", gb_fixture("report_plan_before_window.csv"));
  const char *dir = gb_test_tmpdir();
  const char *files[] = {g_h200};
  gb_report_options o = {.results = files, .nresults = 1, .plan_path = old_plan, .sensitivity_path = g_sens,
                         .specs_path = g_specs, .out_dir = dir, .title = "old plan"};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_nonnull(strstr(md, "| workload | llm-7b-pretrain |"));
  ck_assert_ptr_null(strstr(md, "GEMM window"));
  ck_assert_ptr_null(strstr(md, "precision (GEMM rows"));
  free(md);
}
END_TEST

START_TEST(test_full_report) {
  const char *dir = gb_test_tmpdir();
  gb_report_summary sum;
  ck_assert_int_eq(full_report(dir, &sum), GB_OK);
  ck_assert(sum.gnuplot);
  ck_assert_uint_eq(sum.plots, NPLOTS);
  ck_assert_uint_eq(sum.plots_failed, 0);
  ck_assert_uint_eq(sum.rows, 194 + 48);
  for (size_t i = 0; i < NPLOTS; i++) {
    char name[512];
    unsigned w, h;
    snprintf(name, sizeof name, "%s/%s.png", dir, k_plots[i].stem);
    ck_assert_msg(gb_png_valid(name, &w, &h), "%s: not a valid PNG", name);
    snprintf(name, sizeof name, "%s.dat", k_plots[i].stem);
    ck_assert_msg(exists_in(dir, name), "%s missing", name);
    snprintf(name, sizeof name, "%s.gp", k_plots[i].stem);
    ck_assert_msg(exists_in(dir, name), "%s missing", name);
    snprintf(name, sizeof name, "%s.svg", k_plots[i].stem);
    char *svg = slurp_in(dir, name);
    ck_assert_msg(svg != NULL, "%s missing", name);
    char err[256];
    ck_assert_msg(gb_xml_wellformed(svg, err, sizeof err), "%s: %s", name, err);
    for (size_t t = 0; t < 4; t++)
      if (k_plots[i].texts[t][0])
        ck_assert_msg(strstr(svg, k_plots[i].texts[t]), "%s lacks \"%s\"", name, k_plots[i].texts[t]);
    free(svg);
  }
  /* at most 8 series a plot; the split rooflines still fill theirs (8) */
  ck_assert_uint_eq(assert_series_at_most_8(dir), 8);
  /* error bars where the points have a spread: the H200 bf16 GEMM has two
   * repetitions (740, 741.48), its data the low and high columns; the H200
   * membw rows have one repetition and no min and max: no bars */
  char *gp = slurp_in(dir, "gemm_size_H200-SXM-141GB_16bit.gp");
  ck_assert(gb_test_gp_has_errorbars(gp));
  ck_assert_ptr_nonnull(strstr(gp, "using 1:2:4:5 with yerrorlines"));
  free(gp);
  char *dat = slurp_in(dir, "gemm_size_H200-SXM-141GB_16bit.dat");
  ck_assert_ptr_nonnull(strstr(dat, "# x y label low high\n"));
  free(dat);
  gp = slurp_in(dir, "membw_H200-SXM-141GB_hot.gp");
  ck_assert(!gb_test_gp_has_errorbars(gp));
  free(gp);
  char *md0 = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(strstr(md0, "decode-like); error bars: lowest to highest repetition"));
  free(md0);
  /* nothing but the expected plots */
  ck_assert_uint_eq(count_ext(dir, ".png"), NPLOTS);
  ck_assert_uint_eq(count_ext(dir, ".svg"), NPLOTS);

  char *html = slurp_in(dir, "report.html");
  ck_assert_ptr_nonnull(html);
  char err[256];
  ck_assert_msg(gb_xml_wellformed(html, err, sizeof err), "report.html: %s", err);
  ck_assert_uint_eq(gb_test_count(html, "<svg"), NPLOTS); /* every plot inlined */
  ck_assert_ptr_null(strstr(html, "<?xml"));                /* prologs stripped */
  /* each inlined SVG's ids carry its figure's number, so they stay unique */
  const char *fig = strstr(html, "<figure id=\"fig-plan_time_cost\">");
  ck_assert_ptr_nonnull(fig);
  const char *canvas = strstr(fig, "-gnuplot_canvas\"");
  ck_assert_ptr_nonnull(canvas);
  ck_assert_ptr_null(strstr(html, "id=\"gnuplot_canvas\""));
  ck_assert_uint_eq(gb_test_count(html, "id=\"p1-gnuplot_canvas\""), 1);
  ck_assert_uint_eq(gb_test_count(html, "-gnuplot_canvas\""), NPLOTS);
  free(html);

  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  /* headline: 740.74 / 989.5 = 74.86% -> 75% */
  ck_assert_ptr_nonnull(strstr(md, "| GEMM bf16 (TFLOP/s) | 740.7 (75% of 989.5) |"));
  /* A100 fma fp64: 9.4 / 9.7 = 96.9% -> 97% */
  ck_assert_ptr_nonnull(strstr(md, "9.40 (97% of 9.7)"));
  ck_assert_ptr_nonnull(strstr(md, "![GEMM throughput per precision"));
  ck_assert_ptr_nonnull(strstr(md, "(gemm_precision.png)"));
  /* every non-ok row, with file:line (h200 lines 192-194, a100 line 20) */
  ck_assert_ptr_nonnull(strstr(md, "report_h200.csv:192 | H200-SXM-141GB | gemm | fp8e5m2"));
  ck_assert_ptr_nonnull(strstr(md, "report_h200.csv:193 |"));
  ck_assert_ptr_nonnull(strstr(md, "| 520.0 | throttled | clocks held down: sw power cap |"));
  ck_assert_ptr_nonnull(strstr(md, "report_a100.csv:20 | A100-SXM-80GB | gemm | fp8e4m3"));
  /* each of the 4 rows twice: its cause (4 causes) and the folded list of rows */
  ck_assert_uint_eq(gb_test_count(md, "| invalid |") + gb_test_count(md, "| error |") +
                        gb_test_count(md, "| throttled |"),
                    8);
  /* an unknown benchmark still shows */
  ck_assert_ptr_nonnull(strstr(md, "| latency | kernel_launch |  | time_us (us) | 2.10 |"));
  /* environment side by side */
  ck_assert_ptr_nonnull(strstr(md, "| host | gpu07 | node3 |"));
  ck_assert_ptr_nonnull(strstr(md, "| SM clock (MHz) | 1980 | 1410 |"));
  /* plan: assumptions, prices with date and source, sensitivity */
  ck_assert_ptr_nonnull(strstr(md, "| deadline (max_hours) | 200 h |"));
  ck_assert_ptr_nonnull(strstr(md, "| PUE | 1.3 |"));
  ck_assert_ptr_nonnull(strstr(md, "| electricity price | 0.1 USD/kWh |"));
  ck_assert_ptr_nonnull(strstr(md, "| precision (GEMM rows of this dtype) | bf16 |"));
  ck_assert_ptr_nonnull(strstr(md, "| GEMM window (burst: tflops rows; sustained: tflops_sustained) | sustained |"));
  ck_assert_ptr_nonnull(strstr(md, "| 2026-09-25 | https://example.org/prices/runpod (list, on-demand) |"));
  ck_assert_ptr_nonnull(strstr(md, "Top pick: 8x H100-SXM-80GB runpod secure, 125.0 hours, 2990 USD"));
  ck_assert_ptr_nonnull(strstr(md, "| price_usd_per_gpu_hour | +20 | 8x H200-SXM-141GB runpod secure |"));
  ck_assert_ptr_null(strstr(md, "\" left out:")); /* every plot had its data */
  /* the decision page opens the plan: the top pick, then the best on a
   * measured type (none: the fixture plan's bases are "rent") */
  const char *dec = strstr(md, "## Decision");
  ck_assert_ptr_nonnull(dec);
  ck_assert_ptr_nonnull(strstr(dec, "| recommended | 1 | 8x H100-SXM-80GB, runpod secure | rent | 125.0 | 2,990 | 2,990 |\n"));
  ck_assert_ptr_nonnull(strstr(dec, "Confidence: this plan file has no band"));
  ck_assert_ptr_nonnull(strstr(dec, "Renting against buying: the plan has no feasible purchase."));
  ck_assert(dec < strstr(md, "## Procurement plan"));
  /* the headline before the inputs */
  ck_assert(strstr(md, "## Headline figures") < strstr(md, "## Inputs"));
  /* the summary and contents first; problems one line per cause */
  const char *front = strstr(md, "## Summary"), *toc = strstr(md, "## Contents");
  ck_assert_ptr_nonnull(front);
  ck_assert(front < toc && toc < strstr(md, "## Headline figures"));
  ck_assert_ptr_nonnull(strstr(front, "Verdict: "));
  ck_assert_ptr_nonnull(strstr(toc, "- [Problems: invalid, error and throttled rows]"
                                    "(#problems-invalid-error-and-throttled-rows)"));
  ck_assert_ptr_nonnull(strstr(md, "| throttled | gemm | clocks held down: sw power cap | 1 | report_h200.csv:"));
  free(md);
}
END_TEST

/* A plan with the reworked planner's columns (issue 27): the band column,
 * cash and per-job cost from cash_usd and amortized_usd, and renting
 * against buying from capex: 100000 / (5000 - (101000 - 100000)) = 25.0
 * months to break even. */
START_TEST(test_decision_new_columns) {
  fixtures();
  char plan[4096];
  snprintf(plan, sizeof plan, "%s", gb_fixture("report_plan_bands.csv"));
  const char *dir = gb_test_tmpdir();
  gb_report_options o = {.plan_path = plan, .specs_path = g_specs, .out_dir = dir, .generator = "test"};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_nonnull(strstr(md, "Written by test from a plan."));
  ck_assert_ptr_nonnull(strstr(md, "Recommended: 8x H100-SXM-80GB, runpod secure: 100.0 hours, 5,000 USD cash needed, "
                                   "5,000 USD per job (projected within a vendor). Band: 90.00-120.0 h, 4,500-6,000 USD."));
  ck_assert_ptr_nonnull(strstr(md, "| recommended | 1 | 8x H100-SXM-80GB, runpod secure | projected within a vendor | "
                                   "100.0 | 5,000 | 5,000 | 90.00-120.0 h, 4,500-6,000 USD |"));
  ck_assert_ptr_nonnull(strstr(md, "| best on a measured GPU type | 2 | 8x H200-SXM-141GB, market purchase | measured | "
                                   "80.00 | 101,000 | 3,000 | 76.00-84.00 h, 2,850-3,150 USD |"));
  ck_assert_ptr_null(strstr(md, "| best purchase |")); /* the same row as the measured one: once */
  ck_assert_ptr_nonnull(strstr(md, "breaks even after 25.0 months. Source: plan rows 1 (rent) and 2 (buy)."));
  ck_assert_ptr_null(strstr(md, "Confidence: this plan file has no band"));
  ck_assert_ptr_null(strstr(md, "/tmp/"));
  free(md);
  if (sum.gnuplot) {
    char *svg = slurp_in(dir, "plan_rent_vs_buy.svg");
    ck_assert_ptr_nonnull(svg);
    ck_assert_ptr_nonnull(strstr(svg, "break-even 25.0 months"));
    free(svg);
  }
}
END_TEST

/* The frontier block of plan_time_cost.dat: its x y pairs into x[], y[]. */
static size_t frontier_points(const char *dat, double *x, double *y, size_t max) {
  const char *b = strstr(dat, "Pareto frontier");
  size_t n = 0;
  if (!b) return 0;
  b = strchr(b, '\n');
  while (b && n < max) {
    b++;
    if (*b == '#') { /* the column names */
      b = strchr(b, '\n');
      continue;
    }
    if (*b == '\n' || *b == '\0') break;
    if (sscanf(b, "%lf %lf", &x[n], &y[n]) != 2) break;
    n++;
    b = strchr(b, '\n');
  }
  return n;
}

/* A plan ranked at the pessimistic end of its bands (rank_by low, as the
 * planner's default; issue 24): report_plan_ranked.csv. Its frontier rows
 * (1-3) at their slow, costly ends are (625 h, 62500), (48, 84000), (40,
 * 101000): time against cost draws them there, falling with time (at
 * their nominal figures, (36.1, 63000), (36.3, 92000), (500, 50000), the
 * line zigzags). The decision page states the figures `gpubench plan`
 * prints: row 1 at 625 h, 50000 x 625 / 500 = 62,500 USD, the nominal ones
 * named; the old price flagged. Renting against buying: row 5 buys for
 * 3,000,000 USD and runs 10,000 x 320 / 300 = 10,667 USD a job; renting
 * row 1 costs 62,500: break-even 3e6 / 51,833 = 57.9 months, past the
 * GPUs' assumed 4 years. */
START_TEST(test_decision_ranked_end) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  gb_report_summary sum;
  const char *dir = plan_report("report_plan_ranked.csv", &sum);
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_nonnull(strstr(md, "Recommended: 64x MI300X-OAM-192GB, tensorwave on-demand: 625.0 hours, 62,500 USD "
                                   "cash needed, 62,500 USD per job (projected-cross-vendor). These are at the "
                                   "pessimistic end of its band, which the planner ranks by and gpubench plan "
                                   "prints; nominal: 500.0 hours, 50,000 USD. Band: 400.0-625.0 h, 40,000-62,500 "
                                   "USD. Old price: tensorwave's of 2025-01-01 is over 18 months old; check it "
                                   "before buying."));
  ck_assert_ptr_nonnull(strstr(md, "| recommended | 1 | 64x MI300X-OAM-192GB, tensorwave on-demand | "
                                   "projected-cross-vendor | 625.0 | 62,500 | 62,500 |"));
  ck_assert_ptr_nonnull(strstr(md, "| best on a measured GPU type | 4 | 41x H200-SXM-141GB, runpod on-demand | "
                                   "measured | 706.0 | 132,884 | 132,884 |"));
  ck_assert_ptr_nonnull(strstr(md, "| best purchase | 5 | 48x H100-SXM-80GB, supermicro purchase | projected within "
                                   "a vendor | 320.0 | 3,010,667 | 85,333 |"));
  /* issue 56: the price rows behind the table's rows, with their date and age */
  ck_assert_ptr_nonnull(strstr(md, "Prices behind these rows (age on the plan's date): tensorwave on-demand "
                                   "MI300X-OAM-192GB, dated 2025-01-01, 705 days old, confidence S"));
  ck_assert_ptr_nonnull(strstr(md, "; supermicro purchase H100-SXM-80GB, dated 2026-09-25, 73 days old, confidence V"));
  ck_assert_ptr_nonnull(strstr(md, "buying breaks even after 57.9 months: later than the GPUs' assumed life of 4 years "
                                   "(48 months), so buying never pays back at this pace."));
  ck_assert_ptr_nonnull(strstr(md, "Top pick: 64x MI300X-OAM-192GB tensorwave on-demand, 625.0 hours, 62500 USD, at "
                                   "the pessimistic end of its band"));
  ck_assert_ptr_nonnull(strstr(md, "| hours (nominal) | cost (USD, nominal) |"));
  ck_assert_ptr_nonnull(strstr(md, "Baseline cost 50,000 USD (nominal, as the sensitivity CSV gives it)."));
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* The time-cost plot draws each point's band as error bars in both axes
 * (report_plan_ranked.csv, see above): MI300X's two rows, at their ranked
 * (slow, dear) ends, (48 h, 84,000) and (625 h, 62,500), with their bands
 * 30-48 h, 52,000-84,000 USD and 400-625 h, 40,000-62,500 USD; the caption
 * says what the bars are. A plan without bands (report_plan.csv) draws
 * none and says nothing of them. */
START_TEST(test_plan_band_bars) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  gb_report_summary sum;
  const char *dir = plan_report("report_plan_ranked.csv", &sum);
  char *dat = slurp_in(dir, "plan_time_cost.dat");
  ck_assert_ptr_nonnull(dat);
  ck_assert_ptr_nonnull(strstr(dat, "# series 0: \"B200-SXM-180GB projected\"\n# x y label low high xlow xhigh\n"
                                    "40 101000 \"\" 83000 101000 33 40\n"));
  ck_assert_ptr_nonnull(strstr(dat, "\"MI300X-OAM-192GB projected\"\n# x y label low high xlow xhigh\n"
                                    "48 84000 \"\" 52000 84000 30 48\n625 62500 \"\" 40000 62500 400 625\n"));
  free(dat);
  char *gp = slurp_in(dir, "plan_time_cost.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, ":2:6:7:4:5 with xyerrorbars pt 6 ps 1.2 lw 1.5 lc 4 title 'MI300X-OAM-192GB projected'"));
  free(gp);
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "at the pessimistic end of its band, the figures the planner ranks by and checks "
                                   "the deadline and budget at; error bars (at each type's ends and every doubling "
                                   "of hours between): the band of hours (across) and of cost (up)"));
  free(md);
  dir = plan_report("report_plan.csv", &sum);
  gp = slurp_in(dir, "plan_time_cost.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert(!gb_test_gp_has_errorbars(gp));
  free(gp);
  md = slurp_in(dir, "report.md");
  ck_assert_ptr_null(strstr(md, "error bars (at each type's ends"));
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* The plots of report_plan_ranked.csv (see above): the frontier at the
 * ranked ends, falling with time; the budget's label at the left end, clear
 * of the deadline's at the right; no lines along the tornado's frame, and its zero line
 * labelled above the top bar. */
START_TEST(test_plan_ranked_plots) {
  gb_report_summary sum;
  const char *dir = plan_report("report_plan_ranked.csv", &sum);
  ck_assert(sum.gnuplot);
  char *dat = slurp_in(dir, "plan_time_cost.dat");
  ck_assert_ptr_nonnull(dat);
  double x[16], y[16];
  size_t n = frontier_points(dat, x, y, 16);
  ck_assert_uint_eq(n, 3);
  ck_assert_double_eq_tol(x[0], 40, 1e-9);
  ck_assert_double_eq_tol(y[0], 101000, 1e-9);
  ck_assert_double_eq_tol(x[2], 625, 1e-9);
  ck_assert_double_eq_tol(y[2], 62500, 1e-9);
  for (size_t k = 1; k < n; k++) ck_assert_msg(x[k] > x[k - 1] && y[k] < y[k - 1], "frontier point %zu rises", k);
  free(dat);
  char *gp = slurp_in(dir, "plan_time_cost.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, "'budget 250,000 USD' at graph 0.01, first 250000 left"));
  ck_assert_ptr_nonnull(strstr(gp, "'deadline 720 h' at first 720, graph 0.97"));
  free(gp);
  gp = slurp_in(dir, "plan_tornado.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_null(strstr(gp, "set arrow from graph 0,")); /* no horizontal line */
  ck_assert_ptr_nonnull(strstr(gp, "set yrange [0.4:"));
  /* the zero line's label in the free half row at the top, not down across the top bar */
  ck_assert_ptr_nonnull(strstr(gp, "'as planned' at first 0, graph 1 left"));
  ck_assert_ptr_null(strstr(gp, "rotate by 90"));
  free(gp);
}
END_TEST

/* The comparison report (--compare) of the results file base against the
 * fixture cur; its folder. */
static const char *compare_report(const char *base, const char *cur_fixture) {
  char cur[4096];
  snprintf(cur, sizeof cur, "%s", gb_fixture(cur_fixture));
  const char *files[] = {base, cur};
  const char *dir = gb_test_tmpdir();
  gb_report_options o = {.results = files, .nresults = 2, .compare = true, .specs_path = g_specs, .out_dir = dir};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  return dir;
}

/* The comparison view: report_h200_current.csv is report_h200.csv with
 * every gemm bf16 tflops value (and min, max) times 0.8: the three
 * compute-bound bf16 shapes regress by -20.0% against the gate's minimum
 * detectable change (9.9% at 8192^3 with the shipped floors, as compare has it), numbered 2-4 in the gemm plot (keys in order:
 * gemm/bf16 sorts first; #1 is 1024^3, a latency-bound figure the gate
 * judges against its own floor); the rows that fail are listed as failed. */
START_TEST(test_compare_view) {
  fixtures();
  const char *dir = compare_report(g_h200, "report_h200_current.csv");
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  const char *wc = strstr(md, "## What changed");
  ck_assert_ptr_nonnull(wc);
  ck_assert(wc < strstr(md, "## Headline figures"));
  ck_assert_ptr_nonnull(strstr(wc, "3 regression"));
  ck_assert_ptr_nonnull(strstr(wc, "| regression | gemm #4 | H200-SXM-141GB x1 gemm/bf16 bf16 m=8192 n=8192 k=8192 tflops "
                                   "| 740.7 | 592.6 | -20.0 | 9.9 |"));
  ck_assert_uint_eq(gb_test_count(wc, "| regression |"), 3);
  ck_assert_ptr_nonnull(strstr(md, "(compare_gemm.png)"));
  /* the y axis: the largest change (-20.0%) and the thresholds up to the
   * third quartile's (72.7%, the latency-bound sizes'), x 1.15: +/-83.6%;
   * the collective plot cuts 12 thresholds of small messages at its frame */
  ck_assert_ptr_nonnull(strstr(md, "gemm: change per figure, current against baseline (%, up is better); colour: the "
                                   "gate's verdict; dashed bars: its minimum detectable change. Source:"));
  ck_assert_ptr_nonnull(strstr(md, "dashed bars: its minimum detectable change (12 of them beyond the axis's +/-255%, "
                                   "cut at the frame). Source:"));
  free(md);
  /* each figure's threshold is a bar of its own, drawn under the points */
  char *gp = slurp_in(dir, "compare_gemm.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, "set yrange [-83.61"));
  ck_assert_ptr_nonnull(strstr(gp, "plot \\\n  'compare_gemm.dat' index 0 using 1:2:4:5 with yerrorbars dt 2 ps 0 "
                                   "lw 1.5 lc 8 title 'the gate''s threshold"));
  free(gp);
  char *dat = slurp_in(dir, "compare_gemm.dat");
  ck_assert_ptr_nonnull(strstr(dat, "# x y label low high\n1 0 \"\" -72.70"));
  free(dat);
  /* two files are needed */
  const char *one[] = {g_h200};
  gb_report_options o = {.results = one, .nresults = 1, .compare = true, .specs_path = g_specs, .out_dir = dir};
  gb_report_summary sum;
  ck_assert_int_eq(gb_report_write(&o, &sum), GB_E_USAGE);
}
END_TEST

/* Labels in the comparison plots stay clear of each other: card 10's A/A
 * runs 1 and 2 have two gemm figures beyond their thresholds four places
 * apart at nearly the same change (#144 +12.5%, #148 +12.8%; 148 figures,
 * about 6.5 px a figure: "#148" would start 26 px right of "#144"'s point,
 * inside its 36 px): only the larger is named; the table lists both. */
START_TEST(test_compare_labels_clear) {
  fixtures();
  char base[4096];
  snprintf(base, sizeof base, "%s", gb_fixture("aa/c10-quick-1.csv"));
  const char *dir = compare_report(base, "aa/c10-quick-2.csv");
  char *dat = slurp_in(dir, "compare_gemm.dat");
  ck_assert_ptr_nonnull(dat);
  ck_assert_ptr_nonnull(strstr(dat, "\n148 12.78"));
  ck_assert_ptr_nonnull(strstr(dat, " \"#148\"\n"));
  ck_assert_ptr_null(strstr(dat, "\"#144\""));
  free(dat);
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "| noise | gemm #144 |"));
  ck_assert_ptr_nonnull(strstr(md, "| noise | gemm #148 |"));
  free(md);
}
END_TEST

/* The headline on one GPU (collective rows of the shipped
 * data/measured/h200-quick.csv): no collective figure at all (issue 24: a
 * one-GPU all_reduce is a local reduction, broadcast a local copy, busbw 0
 * by definition), and instead of an empty table a note saying why; no plot
 * of the one-GPU broadcast. */
START_TEST(test_headline_one_gpu) {
  char *md = results_md("report_collective_1gpu.csv");
  const char *h = strstr(md, "## Headline figures"), *end = strstr(md, "## Inputs");
  ck_assert(h && end && h < end);
  size_t len = (size_t)(end - h);
  char *head = strndup(h, len);
  /* no collective figure of one GPU, and no empty table: a note says why */
  ck_assert_ptr_null(strstr(head, "all_reduce"));
  ck_assert_ptr_null(strstr(head, "busbw"));
  ck_assert_ptr_null(strstr(head, "| broadcast"));
  ck_assert_ptr_null(strstr(head, "inplace"));
  ck_assert_uint_eq(gb_test_count(head, "\n| "), 0);
  ck_assert_ptr_nonnull(strstr(head, "No headline figure"));
  ck_assert_ptr_nonnull(strstr(head, "says nothing about an interconnect"));
  free(head);
  ck_assert_ptr_null(strstr(md, "collective_broadcast"));
  ck_assert_ptr_nonnull(strstr(md, "collective_all-reduce"));
  /* nor further down, under All measurements (gb_desc_class: the in-place
   * all_reduce, every busbw and the broadcast on one GPU mean nothing):
   * the out-of-place all_reduce stays, the rest is counted, not listed */
  const char *all = strstr(md, "## All measurements"), *prob = strstr(md, "## Problems");
  ck_assert(all && prob && all < prob);
  char *tab = strndup(all, (size_t)(prob - all));
  ck_assert_ptr_nonnull(strstr(tab, "| collective | all_reduce_outofplace | fp32 | algbw_gbps (GB/s) | 2065 at 256 MiB |"));
  ck_assert_ptr_null(strstr(tab, "_inplace"));
  ck_assert_ptr_null(strstr(tab, "busbw_gbps"));
  ck_assert_ptr_null(strstr(tab, "| broadcast"));
  ck_assert_ptr_nonnull(strstr(tab, "Left out: 11 measurement(s) that mean nothing for their GPU count"));
  free(tab);
  free(md);
}
END_TEST

/* Rows of cases the GPU cannot run (status unsupported: an H100's
 * block-scaled GEMM rows, tests/fixtures/h100_unsupported_cur.csv) are no
 * problem: the Problems section names them in a note and lists only the
 * three throttled rows; the summary does not count them as failed (written
 * as status error, the same rows made the verdict "2 of 416 rows failed
 * their check or could not run"). */
START_TEST(test_unsupported_not_a_problem) {
  char *md = results_md("h100_unsupported_cur.csv");
  ck_assert_ptr_nonnull(strstr(md, "Verdict: every row passed its check; 3 of 416 ran with clocks held down"));
  ck_assert_ptr_nonnull(strstr(md, "- Rows not ok: 0 invalid, 0 error, 3 throttled, of 416 (1 cause(s)); not measured: "
                                   "2 unsupported (cases this GPU cannot run: not problems)."));
  const char *prob = strstr(md, "## Problems");
  ck_assert_ptr_nonnull(prob);
  ck_assert_ptr_nonnull(strstr(prob, "Not measured: 2 case(s) this GPU or its library cannot run (status unsupported): "
                                     "gemm mxfp8 fp8e4m3 at 8192x8192x8192 (H100-SXM-80GB), gemm nvfp4 fp4e2m1 at "
                                     "8192x8192x8192 (H100-SXM-80GB). Nothing was measured"));
  ck_assert_ptr_nonnull(strstr(prob, "3 row(s) not ok, from 1 cause(s)"));
  ck_assert_ptr_null(strstr(prob, "| unsupported |"));
  ck_assert_ptr_null(strstr(prob, "| error |"));
  ck_assert_ptr_null(strstr(md, "| mxfp8 |"));
  free(md);
}
END_TEST

/* Peaks in the headline to 4 significant digits, as the values: a
 * row's own peak column of 66.9082 (the fma kernel's, from clocks and
 * units) reads "of 66.91" (59 / 66.9082 = 88.2%), 33.4541 "of 33.45". */
START_TEST(test_headline_peak_rounded) {
  char *md = results_md("report_fma_peak.csv");
  ck_assert_ptr_nonnull(strstr(md, "| CUDA-core FMA fp32 (TFLOP/s) | 59.00 (88% of 66.91) |"));
  ck_assert_ptr_nonnull(strstr(md, "| CUDA-core FMA fp64 (TFLOP/s) | 31.50 (94% of 33.45) |"));
  ck_assert_ptr_null(strstr(md, "66.9082"));
  free(md);
}
END_TEST

/* Two runs of one GPU type, one with gemm and fma, one with membw (as the
 * shipped data/measured files), next to a second GPU type: one roofline per
 * type, the H200's with every ceiling, each the best over both runs:
 * memory: write fp64 at 4 GiB, 4600 GB/s, the best row whose headline
 *   column is 1 (throttled still counts; the invalid read at 4900, the
 *   L2-resident triad at 1 MiB, 7000, copy_cold at 256 MiB, 4650, the
 *   largest array of its case, and triad at 2 GiB, 4450, an HBM size but
 *   not marked in the column, do not: the column, where a file has it,
 *   decides, and the detail is never read);
 * CUDA-core fp32 60 and fp64 33; GEMM per input type at its best case and
 *   shape: fp16 group 660 (fp16acc16 over fp16 600), bf16 700 (8192^3 over
 *   4096^3 650), fp8 1400 (fp8e4m3_fastacc over _slowacc 1250), int8 1500
 *   TOP/s; the bf16_vs_fp32 speedup row is no ceiling.
 * The caption names the run and file of each ceiling; the headline table has
 * one column per GPU type, tagging the run of each figure. */
START_TEST(test_roofline_combines_runs) {
  const char *dir = gb_test_tmpdir();
  fixtures();
  char gemm_fma[4096], membw[4096];
  snprintf(gemm_fma, sizeof gemm_fma, "%s", gb_fixture("report_roofline_gemm_fma.csv"));
  snprintf(membw, sizeof membw, "%s", gb_fixture("report_roofline_membw.csv"));
  const char *files[] = {gemm_fma, membw, g_a100};
  gb_report_options o = {.results = files, .nresults = 3, .specs_path = g_specs, .out_dir = dir};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  ck_assert(sum.gnuplot);
  ck_assert_uint_eq(sum.plots_failed, 0);
  /* one roofline per GPU type and precision class, none per run */
  ck_assert(exists_in(dir, "roofline_H200-SXM-141GB_wide.png"));
  ck_assert(exists_in(dir, "roofline_A100-SXM-80GB_wide.png"));
  ck_assert(!exists_in(dir, "roofline_H200-SXM-141GB-20261203T080000Z-gpu07-aa0001_wide.png"));
  ck_assert(!exists_in(dir, "roofline_H200-SXM-141GB-20261203T090000Z-gpu07-bb0002_wide.png"));
  /* the texts of the H200's three rooflines, one after the other */
  gb_buf all = {0};
  char err[256];
  static const char *const cls[] = {"wide", "16bit", "8bit"};
  for (size_t c = 0; c < 3; c++) {
    char name[128];
    snprintf(name, sizeof name, "roofline_H200-SXM-141GB_%s.svg", cls[c]);
    char *one = slurp_in(dir, name);
    ck_assert_msg(one != NULL, "%s missing", name);
    ck_assert_msg(gb_xml_wellformed(one, err, sizeof err), "%s: %s", name, err);
    ck_assert_int_eq(gb_buf_puts(&all, one), GB_OK);
    free(one);
  }
  char *svg = all.data;
  static const char *const titles[] = {
      "Measured roofline, H200-SXM-141GB (2 runs combined)", "memory (membw): 4600 GB/s",
      "CUDA-core fp32: 60 TFLOP/s", "CUDA-core fp64: 33 TFLOP/s", "GEMM fp16acc16: 660 TFLOP/s",
      "GEMM bf16: 700 TFLOP/s", "GEMM fp8e4m3_fastacc: 1400 TFLOP/s", "GEMM int8: 1500 TOP/s",
      "STREAM kernels (HBM-bound arrays)", "GEMM (best shape per precision)", "triad fp64"};
  for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
    ck_assert_msg(strstr(svg, titles[i]), "roofline svg lacks \"%s\"", titles[i]);
  ck_assert_ptr_null(strstr(svg, "4900"));
  ck_assert_ptr_null(strstr(svg, "7000 GB/s"));
  ck_assert_ptr_null(strstr(svg, "4650"));
  ck_assert_ptr_null(strstr(svg, "GEMM fp16: "));
  ck_assert_ptr_null(strstr(svg, "slowacc"));
  gb_buf_free(&all);
  /* the triad point from the membw run: intensity 2 FLOP / (3 x 8 bytes) =
   * 1/12; 4400 GB/s x 1/12 FLOP/byte = 366.67 GFLOP/s = 0.36667 TFLOP/s */
  char *dat = slurp_in(dir, "roofline_H200-SXM-141GB_wide.dat");
  ck_assert_ptr_nonnull(strstr(dat, "\n0.08333333333333333 0.36666666666666"));
  free(dat);
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_null(strstr(md, "Measured roofline, H200-SXM-141GB\" left out"));
  ck_assert_ptr_null(strstr(md, "Measured roofline, H200-SXM-141GB (2 runs combined)\" left out"));
  ck_assert_ptr_nonnull(strstr(md, "Memory (the best membw headline row: hot, arrays of at least 1 GiB and 8 "
                                   "L2 sizes): write fp64 at 4 GiB from run 20261203T090000Z-gpu07-bb0002 "
                                   "(report_roofline_membw.csv). CUDA-core "
                                   "(fma): fp32, fp64 from run 20261203T080000Z-gpu07-aa0001 "
                                   "(report_roofline_gemm_fma.csv). Points are measured kernels, each at its best "
                                   "run: STREAM"));
  /* each class's caption names its own ceilings only */
  ck_assert_ptr_nonnull(strstr(md, "(report_roofline_membw.csv). GEMM (best shape per input type): fp16acc16, "
                                   "bf16 from run 20261203T080000Z-gpu07-aa0001 (report_roofline_gemm_fma.csv). "
                                   "Points are measured kernels, each at its best run: GEMM at the best shape"));
  ck_assert_ptr_nonnull(strstr(md, "(report_roofline_membw.csv). GEMM (best shape per input type): "
                                   "fp8e4m3_fastacc, int8 from run 20261203T080000Z-gpu07-aa0001 "
                                   "(report_roofline_gemm_fma.csv)."));
  /* headline: a column per GPU type; 700 / 989.5 = 70.7% -> 71%;
   * 4600 / 4800 = 95.8% -> 96% */
  ck_assert_ptr_nonnull(strstr(md, "| figure | H200-SXM-141GB | A100-SXM-80GB |"));
  ck_assert_ptr_nonnull(strstr(md, "| GEMM bf16 (TFLOP/s) | 700.0 (71% of 989.5) [run 1] |"));
  ck_assert_ptr_nonnull(strstr(md, "| memory write, HBM (GB/s) | 4600 at 4 GiB (96% of 4800) [run 2] |"));
  ck_assert_ptr_nonnull(strstr(md, "| memory triad, HBM (GB/s) | 4400 at 4 GiB (92% of 4800) [run 2] |"));
  ck_assert_ptr_null(strstr(md, "| memory copy_cold")); /* cold, and not marked */
  ck_assert_ptr_null(strstr(md, "4450"));
  /* the A100 file has no headline column: gb_desc's HBM rule (hot, 1 GiB and
   * 8 x its 40 MiB L2) picks its 1 GiB arrays */
  ck_assert_ptr_nonnull(strstr(md, "| memory copy, HBM (GB/s) |  | 1720 at 1 GiB (84% of 2039) |"));
  ck_assert_ptr_nonnull(strstr(md, "Runs of H200-SXM-141GB: run 1 = 20261203T080000Z-gpu07-aa0001 "
                                   "(report_roofline_gemm_fma.csv); run 2 = 20261203T090000Z-gpu07-bb0002 "
                                   "(report_roofline_membw.csv)."));
  ck_assert_ptr_null(strstr(md, "Runs of A100-SXM-80GB")); /* one run: no tags */
  free(md);
}
END_TEST

/* Ten runs of one GPU type: per-run plots for the newest GB_REP_MAX_DRAWN
 * (8) only, by timestamp (the input order is shuffled), and a note naming
 * what is not drawn; every run stays in the tables. Before, a report over
 * hundreds of runs drew five plots per run (160 runs: 18.8 s, 467 runs in
 * 100 MB: 69 s and 4678 files, a 12 MB report.md). */
/* Collective plots carry error bars where the points have a spread (a
 * row's min and max, or repetitions), as GEMM and membw do (before: none,
 * whatever the spread); the report fixture's collective rows have none. */
START_TEST(test_collective_error_bars) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  fixtures();
  gb_results in = {0};
  ck_assert_int_eq(gb_results_read(g_h200, &in), GB_OK);
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  for (size_t i = 0; i < in.nrows; i++) {
    gb_row r = in.rows[i];
    if (strcmp(r.benchmark, "collective") == 0) {
      r.min = 0.9 * r.value;
      r.max = 1.05 * r.value;
    }
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  }
  gb_results_free(&in);
  char path[1200], out[1200], plain[1200];
  snprintf(path, sizeof path, "%s/spread.csv", dir);
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_buf_free(&b);
  snprintf(out, sizeof out, "%s/spread", dir);
  snprintf(plain, sizeof plain, "%s/plain", dir);
  const char *files[] = {path}, *files0[] = {g_h200};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  o.results = files0;
  o.out_dir = plain;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  unsetenv("GPUBENCH_GNUPLOT");
  char *gp = slurp_in(out, "collective_all-reduce_H200-SXM-141GB.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert(gb_test_gp_has_errorbars(gp));
  free(gp);
  char *dat = slurp_in(out, "collective_all-reduce_H200-SXM-141GB.dat");
  ck_assert_ptr_nonnull(strstr(dat, "# x y label low high\n"));
  free(dat);
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "busbw against message size per GPU count, H200-SXM-141GB" GB_REP_ERRBAR_NOTE));
  free(md);
  gp = slurp_in(plain, "collective_all-reduce_H200-SXM-141GB.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert(!gb_test_gp_has_errorbars(gp));
  free(gp);
  md = slurp_in(plain, "report.md");
  ck_assert_ptr_null(strstr(md, "per GPU count, H200-SXM-141GB" GB_REP_ERRBAR_NOTE));
  free(md);
}
END_TEST

START_TEST(test_newest_runs_drawn) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  fixtures();
  gb_results one = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("report_roofline_membw.csv"), &one), GB_OK);
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  static const int order[10] = {3, 9, 0, 7, 1, 5, 8, 2, 6, 4}; /* run k has timestamp hour k */
  char ids[10][32], ts[10][32];
  for (int j = 0; j < 10; j++) {
    int k = order[j];
    snprintf(ids[k], sizeof ids[k], "run%02d", k);
    snprintf(ts[k], sizeof ts[k], "2026-12-03T%02d:00:00Z", k);
    for (size_t i = 0; i < one.nrows; i++) {
      gb_row r = one.rows[i];
      r.run_id = ids[k];
      r.timestamp = ts[k];
      ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
    }
  }
  char in[1200];
  snprintf(in, sizeof in, "%s/ten.csv", dir);
  ck_assert_int_eq(gb_test_write(in, b.data, b.len), 0);
  gb_buf_free(&b);
  gb_results_free(&one);
  char out[1200];
  snprintf(out, sizeof out, "%s/rep", dir);
  const char *files[] = {in};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(sum.rows, 10 * 7);
  for (int k = 0; k < 10; k++) {
    char gp[96];
    snprintf(gp, sizeof gp, "membw_H200-SXM-141GB-run%02d_hot.gp", k);
    ck_assert_msg(exists_in(out, gp) == (k >= 2), "%s: drawn %d", gp, exists_in(out, gp));
  }
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "Drawn: the newest 8 runs of each GPU type; H200-SXM-141GB: 2 older runs not "
                                   "drawn; their figures are in the tables"));
  ck_assert_ptr_nonnull(strstr(md, "run00")); /* the oldest is in the tables */
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* Without gnuplot: tables, a note, scripts to render later, no pictures. */
START_TEST(test_without_gnuplot) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  gb_report_summary sum;
  ck_assert_int_eq(full_report(dir, &sum), GB_OK);
  ck_assert(!sum.gnuplot);
  ck_assert_uint_eq(sum.plots, 0);
  ck_assert_uint_eq(count_ext(dir, ".png"), 0);
  ck_assert_uint_eq(count_ext(dir, ".gp"), NPLOTS);
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "The plots need gnuplot, which was not found (\"/nonexistent/gnuplot\")"));
  ck_assert_ptr_nonnull(strstr(md, "| GEMM bf16 (TFLOP/s) | 740.7 (75% of 989.5) |"));
  free(md);
  char *html = slurp_in(dir, "report.html");
  char err[256];
  ck_assert_msg(gb_xml_wellformed(html, err, sizeof err), "report.html: %s", err);
  ck_assert_ptr_null(strstr(html, "<svg"));
  ck_assert_ptr_nonnull(strstr(html, "The plots need gnuplot"));
  free(html);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* Result fields holding what would break the outputs -- a newline then a
 * GitHub workflow command, table pipes, tags, control characters, backticks
 * -- in every text column the report shows (case, dtype, host, GPU name,
 * run id, detail of a throttled row, variant, library versions, settings):
 * report.md has no line that starts a workflow command, every table row
 * has its header's cells, no tag or control character passes; report.html
 * stays well formed with no tag from the data and no control character. */
static const char *const k_hostile[] = {"x\n::error::pwned", "a|b|c", "<script>alert(1)</script>", "tab\there\x01\x1f",
                                         "`tick` \r\n::warning::w", "::set-output name=x::y", "<img src=x onerror=y>"};

/* report_h200.csv with hostile text in every text field (k_hostile, or the
 * n strings of bad) written to DIR/NAME.csv; its path into in. */
static void write_hostile(const char *const *bad, size_t nbad, const char *name, char *in, size_t inlen) {
  fixtures();
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(g_h200, &res), GB_OK);
  gb_buf csv = {0};
  ck_assert_int_eq(gb_results_put_header(&csv), GB_OK);
  for (size_t i = 0; i < res.nrows; i++) {
    gb_row r = res.rows[i];
    const char *h = bad[i % nbad];
    switch (i % 5) {
    case 0: r.case_name = h; break;
    case 1: r.dtype = h; break;
    case 2: r.variant = h; break;
    case 3: r.status = GB_STATUS_THROTTLED; r.detail = h; break;
    default: r.settings = h; break;
    }
    r.host = bad[(i + 1) % nbad];
    r.gpu_name = bad[(i + 2) % nbad];
    r.cublaslt = bad[(i + 3) % nbad];
    r.nccl = bad[(i + 4) % nbad];
    if (i % 7 == 0) r.run_id = bad[(i + 5) % nbad];
    ck_assert_int_eq(gb_results_put_row(&csv, &r), GB_OK);
  }
  gb_results_free(&res);
  snprintf(in, inlen, "%s/%s.csv", gb_test_tmpdir(), name);
  ck_assert_int_eq(gb_test_write(in, csv.data, csv.len), 0);
  gb_buf_free(&csv);
}

START_TEST(test_hostile_fields) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  char dir[4096], in[4200];
  write_hostile(k_hostile, sizeof k_hostile / sizeof k_hostile[0], "hostile", in, sizeof in);
  snprintf(dir, sizeof dir, "%s/hostile", gb_test_tmpdir());
  const char *files[] = {in};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = dir, .title = "hostile"};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_nonnull(strstr(md, "pwned")); /* the fields are there, escaped */
  size_t header_cells = 0, lines = 0;
  for (char *line = md; line && *line; lines++) {
    char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *p = line;
    while (p < line + len && (*p == ' ' || *p == '\t')) p++;
    ck_assert_msg(strncmp(p, "::", 2) != 0, "report.md line %zu starts a workflow command: %.80s", lines + 1, line);
    for (size_t k = 0; k < len; k++)
      ck_assert_msg((unsigned char)line[k] >= 0x20 || line[k] == '\t', "report.md line %zu: control byte 0x%02x",
                    lines + 1, (unsigned char)line[k]);
    /* a table row: its unescaped pipes match its header's */
    if (len && line[0] == '|') {
      size_t cells = 0;
      for (size_t k = 0; k < len; k++) cells += line[k] == '|' && (k == 0 || line[k - 1] != '\\');
      if (!header_cells) header_cells = cells;
      ck_assert_msg(cells == header_cells, "report.md line %zu: %zu cells, its table %zu: %.120s", lines + 1, cells,
                    header_cells, line);
    } else {
      header_cells = 0;
    }
    line = end ? end + 1 : NULL;
  }
  ck_assert_ptr_null(strstr(md, "<script"));
  ck_assert_ptr_null(strstr(md, "<img"));
  free(md);
  char *html = slurp_in(dir, "report.html");
  char err[256];
  ck_assert_msg(gb_xml_wellformed(html, err, sizeof err), "report.html: %s", err);
  ck_assert_ptr_null(strstr(html, "<script"));
  ck_assert_ptr_null(strstr(html, "<img"));
  ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;"));
  for (const char *q = html; *q; q++)
    ck_assert_msg((unsigned char)*q >= 0x20 || *q == '\n' || *q == '\t' || *q == '\r',
                  "report.html: control byte 0x%02x at %zu", (unsigned char)*q, (size_t)(q - html));
  free(html);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* The same through gnuplot: text that would end a gnuplot string and run a
 * command (quotes, backslashes, newlines, system(), backquotes) stays text in
 * every plot script, and every plot renders. */
START_TEST(test_hostile_fields_rendered) {
  char mark[4200], cmd[13000];
  snprintf(mark, sizeof mark, "%s/pwned", gb_test_tmpdir());
  unlink(mark);
  snprintf(cmd, sizeof cmd, "x'; system('touch %s'); y='\nsystem(\"touch %s\")\n`touch %s`", mark, mark, mark);
  const char *bad[] = {cmd, "back\\slash\\", "it's \"quoted\"", "@ARG0 $0 %s %n", "a\r\nset output '/tmp/x'",
                       "k_hostile", k_hostile[0], k_hostile[3]};
  char dir[4096], in[4200];
  write_hostile(bad, sizeof bad / sizeof bad[0], "hostile_gp", in, sizeof in);
  snprintf(dir, sizeof dir, "%s/hostile_gp", gb_test_tmpdir());
  const char *files[] = {in};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = dir, .title = "hostile"};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(sum.plots > 0 && sum.plots_failed == 0, "%zu plots, %zu failed: %s", sum.plots, sum.plots_failed,
                sum.failed);
  ck_assert_msg(access(mark, F_OK) != 0, "a plot script ran a command from a result field");
}
END_TEST

/* A plan whose provider and GPU type names are hostile, through the
 * decision page, its plots and gnuplot: every plot renders, no command
 * runs, report.md starts no workflow command and report.html stays well
 * formed. */
START_TEST(test_hostile_plan_rendered) {
  fixtures();
  char mark[4200], provider[8600], gpu[] = "\"G'%n|<b>x</b>\"\"\n::error::gpu\"";
  snprintf(mark, sizeof mark, "%s/pwned_plan", gb_test_tmpdir());
  unlink(mark);
  snprintf(provider, sizeof provider, "\"x'; system('touch %s'); y=' \"\"q\"\" %%s\n::warning::p `touch %s`\"", mark,
           mark);
  size_t len;
  char *text = gb_test_slurp(gb_fixture("report_plan_ranked.csv"), &len);
  ck_assert_ptr_nonnull(text);
  gb_buf out = {0};
  for (const char *c = text; *c;) {
    if (strncmp(c, ",tensorwave,", 12) == 0 || strncmp(c, ",runpod,", 8) == 0) {
      gb_buf_printf(&out, ",%s,", provider);
      c += c[1] == 't' ? 12 : 8;
    } else if (strncmp(c, ",MI300X-OAM-192GB,", 18) == 0) {
      gb_buf_printf(&out, ",%s,", gpu);
      c += 18;
    } else {
      gb_buf_append(&out, c, 1);
      c++;
    }
  }
  free(text);
  ck_assert_ptr_nonnull(strstr(out.data ? out.data : "", "system("));
  char plan[4200], dir[4200];
  snprintf(plan, sizeof plan, "%s/hostile_plan.csv", gb_test_tmpdir());
  snprintf(dir, sizeof dir, "%s/hostile_plan", gb_test_tmpdir());
  ck_assert_int_eq(gb_test_write(plan, out.data, out.len), 0);
  gb_buf_free(&out);
  gb_report_options o = {.plan_path = plan, .sensitivity_path = g_sens, .specs_path = g_specs, .out_dir = dir,
                         .generator = "test"};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(sum.plots > 0 && sum.plots_failed == 0, "%zu plots, %zu failed: %s", sum.plots, sum.plots_failed,
                sum.failed);
  ck_assert_msg(access(mark, F_OK) != 0, "a plot script ran a command from a plan field");
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_nonnull(strstr(md, "system("));
  for (const char *line = md; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    ck_assert_msg(strncmp(line, "::", 2) != 0, "report.md starts a workflow command: %.60s", line);
  free(md);
  char *html = slurp_in(dir, "report.html"), err[256];
  ck_assert_msg(gb_xml_wellformed(html, err, sizeof err), "report.html: %s", err);
  ck_assert_ptr_null(strstr(html, "<b>x</b>"));
  free(html);
}
END_TEST

/* A comma-decimal locale must not reach the tables or the plot data. */
START_TEST(test_comma_locale) {
  const char *loc = gb_test_comma_locale();
  if (!loc) {
    fprintf(stderr, "check_report: no comma-decimal locale available; locale case not exercised\n");
    return;
  }
  const char *dir = gb_test_tmpdir();
  gb_report_summary sum;
  ck_assert_int_eq(full_report(dir, &sum), GB_OK);
  char *md = slurp_in(dir, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "740.7 (75% of 989.5)"));
  ck_assert_ptr_null(strstr(md, "740,7"));
  free(md);
  /* the H200 gemm size plot: x = cbrt(1024^3) = 1024, bf16 reps 333 and
   * 333.666 at 1024^3 (740 x 0.45 x {1, 1.002}), median 333.333 */
  char *dat = slurp_in(dir, "gemm_size_H200-SXM-141GB_16bit.dat");
  ck_assert_ptr_nonnull(dat);
  ck_assert_ptr_nonnull(strstr(dat, "\n1024 333.33"));
  ck_assert_ptr_null(strstr(dat, "333,3"));
  free(dat);
  setlocale(LC_ALL, "C");
}
END_TEST

START_TEST(test_bad_inputs) {
  const char *dir = gb_test_tmpdir();
  char bad[4096], out[4096];
  snprintf(bad, sizeof bad, "%s/bad.csv", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  fixtures();
  /* a value that does not parse: the A100 fp64 8192^3 row, line 4 (header 1,
   * 1024^3 on 2, 4096^3 on 3) */
  char *good = gb_test_slurp(g_a100, NULL);
  char *second_nl = strchr(strchr(good, '\n') + 1, '\n');
  char *p = strstr(second_nl, ",18.9");
  ck_assert_ptr_nonnull(p);
  memcpy(p, ",1,89", 5);
  ck_assert_int_eq(gb_test_write(bad, good, strlen(good)), 0);
  free(good);
  const char *files[] = {bad};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o, NULL), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "bad.csv:4:"));
  ck_assert(!exists_in(out, "report.md")); /* nothing that looks complete */
  /* a plan without its columns */
  const char *notplan = "rank,gpu_type\n1,H100-SXM-80GB\n";
  snprintf(bad, sizeof bad, "%s/notplan.csv", dir);
  gb_test_write(bad, notplan, strlen(notplan));
  gb_report_options o2 = {.plan_path = bad, .specs_path = g_specs, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o2, NULL), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "notplan.csv:1: missing column \"gpu_count\""));
  /* a plan value that is not a number */
  const char *badnum = "rank,gpu_type,gpu_count,provider,offering,feasible,hours,cost_usd,efficiency,"
                       "efficiency_unit,pareto\n1,H100-SXM-80GB,8,aws,p5,true,1\"0,5\",10,1,x,true\n";
  gb_test_write(bad, badnum, strlen(badnum));
  ck_assert_int_eq(gb_report_write(&o2, NULL), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "notplan.csv:2"));
  /* a gemm_window that is neither burst nor sustained */
  const char *badwin = "rank,gpu_type,gpu_count,provider,offering,feasible,hours,cost_usd,efficiency,"
                       "efficiency_unit,pareto,gemm_window\n1,H100-SXM-80GB,8,aws,p5,true,10,5,1,x,true,long\n";
  gb_test_write(bad, badwin, strlen(badwin));
  ck_assert_int_eq(gb_report_write(&o2, NULL), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "notplan.csv:2: gemm_window: not burst or sustained: \"long\""), "%s",
                gb_errmsg());
  /* usage errors */
  gb_report_options o3 = {.specs_path = g_specs, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o3, NULL), GB_E_USAGE);
  gb_report_options o4 = {.results = files, .nresults = 1, .sensitivity_path = g_sens, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o4, NULL), GB_E_USAGE);
  ck_assert(!exists_in(out, "report.md"));
}
END_TEST

/* Data for a plot absent: the plot is left out with a note, the rest stands. */
START_TEST(test_absent_data_skipped) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  char path[4096];
  snprintf(path, sizeof path, "%s/copy_only.csv", dir);
  const char *csv =
      "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
      "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
      "1,r9,2026-12-02T00:00:00Z,h,L4-PCIE-24GB,NVIDIA L4,1,580.1,13.0,copy,h2d_pinned,,,,,1073741824,gbps,GB/s,"
      "24.5,10,24,25,0.1,ok,,,,,\n";
  gb_test_write(path, csv, strlen(csv));
  char out[4096];
  snprintf(out, sizeof out, "%s/out", dir);
  fixtures();
  const char *files[] = {path};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  gb_report_summary sum;
  ck_assert_int_eq(gb_report_write(&o, &sum), GB_OK);
  /* left out: gemm, membw, collective, two roofline reasons -> 4 notes:
   * GEMM, memory, collective, roofline of the one source */
  ck_assert_uint_eq(sum.plots_skipped, 4);
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "Plot \"GEMM throughput per precision\" left out: the results hold no ok gemm rows."));
  ck_assert_ptr_nonnull(strstr(md, "left out: no membw rows for the memory ceiling."));
  ck_assert_ptr_nonnull(strstr(md, "| copy h2d_pinned (GB/s) | 24.50 |"));
  ck_assert_ptr_nonnull(strstr(md, "not in gpu_specs.csv"));
  ck_assert_ptr_nonnull(strstr(md, "None: every row has status ok."));
  free(md);
  ck_assert(exists_in(out, "copy.gp"));
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* Three runs, each of one GPU type with different benchmarks, scripts only
 * (no gnuplot needed): each plot lists only the runs with data in it, in
 * their own colours; the L2 marker falls back to the published L2 of the
 * type when no membw row records l2_bytes; byte ticks read "1 MiB"; a
 * one-GPU collective is drawn as algbw, out of place only; roofline
 * ceilings and point labels that would print over each other are merged. */
#define ROW_HEAD "1,%s,2026-12-02T00:00:00Z,h,%s,g,%d,580.1,13.0,"
static const char *k_header =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n";

/* The library versions a run recorded (cublaslt, nvrtc, nccl columns) show
 * in the Environment table, one column per run; fields no run recorded (a
 * file from before they were added) are left out rather than shown empty. */
START_TEST(test_environment_libraries) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  char with[4096], without[4096], out[4096];
  snprintf(with, sizeof with, "%s/with.csv", dir);
  snprintf(without, sizeof without, "%s/without.csv", dir);
  const char *hdr = "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,"
                    "bytes,metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,"
                    "power_w";
  char csv[2048];
  snprintf(csv, sizeof csv,
           "%s,cublaslt,nvrtc,nccl\n"
           "1,r1,2026-12-02T00:00:00Z,h,L4-PCIE-24GB,NVIDIA L4,1,580.1,13.0,copy,h2d_pinned,,,,,1073741824,gbps,"
           "GB/s,24.5,10,24,25,0.1,ok,,,,,,13.1.0,13.0,2.28.3\n",
           hdr);
  gb_test_write(with, csv, strlen(csv));
  snprintf(csv, sizeof csv,
           "%s\n1,r2,2026-12-01T00:00:00Z,h,L4-PCIE-24GB,NVIDIA L4,1,580.1,13.0,copy,h2d_pinned,,,,,1073741824,gbps,"
           "GB/s,24.0,10,24,25,0.1,ok,,,,,\n",
           hdr);
  gb_test_write(without, csv, strlen(csv));
  fixtures();
  gb_report_summary sum;

  snprintf(out, sizeof out, "%s/both", dir);
  const char *both[] = {with, without};
  gb_report_options o = {.results = both, .nresults = 2, .specs_path = g_specs, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o, &sum), GB_OK);
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_msg(strstr(md, "| cuBLASLt | 13.1.0 |  |"), "%s", md);
  ck_assert_ptr_nonnull(strstr(md, "| NVRTC | 13.0 |  |"));
  ck_assert_ptr_nonnull(strstr(md, "| NCCL | 2.28.3 |  |"));
  free(md);

  snprintf(out, sizeof out, "%s/old", dir);
  const char *old[] = {without};
  gb_report_options o2 = {.results = old, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o2, &sum), GB_OK);
  md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_ptr_null(strstr(md, "| cuBLASLt |"));
  ck_assert_ptr_null(strstr(md, "| NCCL |"));
  ck_assert_ptr_nonnull(strstr(md, "| driver | 580.1 |"));
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* Rows measured under other settings (the settings column) are another
 * source, never one point with the defaults' rows: two copies of one point
 * in one run, 24.5 with the defaults and 30 with iters=30, stay apart (no
 * median of 27.25), and the columns and the Environment table say which. */
START_TEST(test_settings_are_sources) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  char in[4096], out[4096];
  snprintf(in, sizeof in, "%s/settings.csv", dir);
  const char *csv =
      "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
      "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,settings\n"
      "1,r1,2026-12-02T00:00:00Z,h,L4-PCIE-24GB,NVIDIA L4,1,580.1,13.0,copy,h2d_pinned,,,,,1073741824,gbps,GB/s,"
      "24.5,10,24,25,0.1,ok,,,,,,\n"
      "1,r1,2026-12-02T00:01:00Z,h,L4-PCIE-24GB,NVIDIA L4,1,580.1,13.0,copy,h2d_pinned,,,,,1073741824,gbps,GB/s,"
      "30,30,29,31,0.1,ok,,,,,,iters=30\n";
  gb_test_write(in, csv, strlen(csv));
  fixtures();
  gb_report_summary sum;
  snprintf(out, sizeof out, "%s/settings-report", dir);
  const char *files[] = {in};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  ck_assert_int_eq(gb_report_write(&o, &sum), GB_OK);
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(md);
  ck_assert_msg(strstr(md, "|  | L4-PCIE-24GB (r1) | L4-PCIE-24GB (r1) [iters=30] |"), "%s", md);
  ck_assert_msg(strstr(md, "| non-default settings |  | iters=30 |"), "%s", md);
  ck_assert_ptr_null(strstr(md, "27.25"));
  ck_assert_ptr_null(strstr(md, "27.2"));
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

START_TEST(test_series_with_data_only) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  char p1[4096], p2[4096], p3[4096], out[4096];
  snprintf(p1, sizeof p1, "%s/h200.csv", dir);
  snprintf(p2, sizeof p2, "%s/l4.csv", dir);
  snprintf(p3, sizeof p3, "%s/mi300x.csv", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  char csv[8192];
  /* H200: GEMM, fma fp16x2 127.7 and bf16x2 127.8 (within 1%: one ceiling),
   * membw at 1 MiB and 1 GiB with no l2_bytes column, triad fp64 and
   * add fp32 at 1 GiB (both 1/12 FLOP/byte: 2/(3x8) and 1/(3x4)), and a
   * one-GPU all_reduce in and out of place */
  int n = snprintf(csv, sizeof csv, "%s"
      ROW_HEAD "gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,710,10,700,720,1,ok,,,,,\n"
      ROW_HEAD "gemm,bf16,bf16,8,14336,4096,,tflops,TFLOP/s,28,10,27,29,0.1,ok,,,,,\n"
      ROW_HEAD "fma,fp16x2,fp16,,,,,tflops,TFLOP/s,127.7,10,127,128,0.1,ok,,,,,\n"
      ROW_HEAD "fma,bf16x2,bf16,,,,,tflops,TFLOP/s,127.8,10,127,128,0.1,ok,,,,,\n"
      ROW_HEAD "membw,triad,fp64,,,,1048576,gbps,GB/s,2200,10,2100,2300,1,ok,regime=l2,,,,\n"
      ROW_HEAD "membw,triad,fp64,,,,1073741824,gbps,GB/s,4000,10,3990,4010,1,ok,regime=hbm,,,,\n"
      ROW_HEAD "membw,add,fp32,,,,1073741824,gbps,GB/s,4010,10,4000,4020,1,ok,regime=hbm,,,,\n"
      ROW_HEAD "collective,all_reduce_outofplace,fp32,,,,1048576,algbw_gbps,GB/s,170,10,160,180,1,ok,,,,,\n"
      ROW_HEAD "collective,all_reduce_outofplace,fp32,,,,1073741824,algbw_gbps,GB/s,2100,10,2090,2110,1,ok,,,,,\n"
      ROW_HEAD "collective,all_reduce_outofplace,fp32,,,,1073741824,busbw_gbps,GB/s,0,10,0,0,0,ok,,,,,\n"
      ROW_HEAD "collective,all_reduce_inplace,fp32,,,,1073741824,algbw_gbps,GB/s,3500000,10,3e6,4e6,1,ok,,,,,\n",
      k_header, "r1", "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1, "r1",
      "H200-SXM-141GB", 1, "r1",
      "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1, "r1",
      "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1, "r1", "H200-SXM-141GB", 1);
  ck_assert_int_eq(gb_test_write(p1, csv, (size_t)n), 0);
  n = snprintf(csv, sizeof csv, "%s" ROW_HEAD "copy,h2d_pinned,,,,,1073741824,gbps,GB/s,24.5,10,24,25,0.1,ok,,,,,\n",
               k_header, "r2", "L4-PCIE-24GB", 1);
  ck_assert_int_eq(gb_test_write(p2, csv, (size_t)n), 0);
  n = snprintf(csv, sizeof csv, "%s" ROW_HEAD "membw,copy,fp64,,,,1073741824,gbps,GB/s,4300,10,4200,4400,1,ok,,,,,\n",
               k_header, "r3", "MI300X-OAM-192GB", 1);
  ck_assert_int_eq(gb_test_write(p3, csv, (size_t)n), 0);
  fixtures();
  const char *files[] = {p1, p2, p3};
  gb_report_options o = {.results = files, .nresults = 3, .specs_path = g_specs, .out_dir = out};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());

  /* GEMM: only the H200 run, in its colour (source 1) */
  char *gp = slurp_in(out, "gemm_precision.gp");
  ck_assert_ptr_nonnull(strstr(gp, "with boxes lc 1 title 'H200-SXM-141GB'"));
  ck_assert_ptr_null(strstr(gp, "L4-PCIE-24GB"));
  ck_assert_ptr_null(strstr(gp, "MI300X"));
  free(gp);
  char *dat = slurp_in(out, "gemm_precision.dat");
  ck_assert_ptr_null(strstr(dat, "L4-PCIE-24GB"));
  free(dat);
  /* GEMM size: the skinny 8x14336x4096 (an edge under 256) as a point of
   * bf16's colour without a line or a legend entry of its own */
  gp = slurp_in(out, "gemm_size_H200-SXM-141GB_16bit.gp");
  /* with error bars: one repetition, its min and max (700..720, 27..29) */
  ck_assert_ptr_nonnull(strstr(gp, "using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title 'bf16'"));
  ck_assert_ptr_nonnull(strstr(gp, "using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars pt 7 ps 1.2 lw 1.5 lc 1 "
                                   "notitle"));
  free(gp);
  /* copy: only the L4 run, still colour 2, the whole group width: x = 0 */
  gp = slurp_in(out, "copy.gp");
  ck_assert_ptr_nonnull(strstr(gp, "with boxes lc 2 title 'L4-PCIE-24GB'"));
  ck_assert_ptr_null(strstr(gp, "H200-SXM-141GB"));
  ck_assert_ptr_nonnull(strstr(gp, "set key at screen 0.5, screen 0.015 center bottom")); /* one entry: below */
  free(gp);
  /* membw: the H200 measured two types, one plot each; its L2 from the
   * table of published sizes, 60 MiB = 62914560 = 6.291456e+07 bytes; ticks a step of two
   * doublings from 1 MiB (2^20) to 1 GiB (2^30) */
  gp = slurp_in(out, "membw_H200-SXM-141GB_fp64_hot.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, "set label 'L2 60 MiB' at first 6.291456e+07,"));
  ck_assert_ptr_nonnull(strstr(gp, "set xtics ('1 MiB' 1048576, '4 MiB' 4194304, '16 MiB' 16777216, '64 MiB' "
                                   "67108864, '256 MiB' 268435456, '1 GiB' 1073741824)"));
  ck_assert_ptr_nonnull(strstr(gp, "lc 4 title 'triad'")); /* triad's own colour: the 4th kernel */
  free(gp);
  ck_assert(exists_in(out, "membw_H200-SXM-141GB_fp32_hot.gp"));
  ck_assert(!exists_in(out, "membw_H200-SXM-141GB_fp32_cold.gp")); /* no cold case measured */
  /* MI300X: not in the table, no marker */
  gp = slurp_in(out, "membw_MI300X-OAM-192GB_hot.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_null(strstr(gp, "L2 "));
  free(gp);
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "fp64, H200-SXM-141GB (red dashed line: L2 size of this GPU type as published; "
                                   "no membw row records l2_bytes)"));
  ck_assert_ptr_nonnull(strstr(md, "array size, hot, MI300X-OAM-192GB (L2 size unknown"));
  ck_assert_ptr_null(strstr(md, "_cold cases")); /* no cold case measured */
  free(md);
  /* one GPU: algbw, out of place only */
  gp = slurp_in(out, "collective_all-reduce_H200-SXM-141GB.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, "set ylabel 'algorithm bandwidth (GB/s)'"));
  ck_assert_ptr_nonnull(strstr(gp, "title '1 GPU, out-of-place'"));
  ck_assert_ptr_null(strstr(gp, "in-place"));
  free(gp);
  dat = slurp_in(out, "collective_all-reduce_H200-SXM-141GB.dat");
  ck_assert_ptr_nonnull(strstr(dat, "1073741824 2100 \"\""));
  ck_assert_ptr_null(strstr(dat, "3500000"));
  free(dat);
  /* roofline: one ceiling for fp16x2 and bf16x2; one label for the two
   * points at 1/12 FLOP/byte (4000 x 1/12 / 1000 = 0.3333 TFLOP/s) */
  gp = slurp_in(out, "roofline_H200-SXM-141GB_16bit.gp");
  ck_assert_ptr_nonnull(strstr(gp, "title 'CUDA-core fp16x2 / bf16x2: 127.7 TFLOP/s'"));
  ck_assert_ptr_null(strstr(gp, "title 'CUDA-core bf16x2"));
  free(gp);
  /* only 16-bit ceilings: no wide roofline; the STREAM points in the first, the 16-bit one */
  ck_assert(!exists_in(out, "roofline_H200-SXM-141GB_wide.gp"));
  dat = slurp_in(out, "roofline_H200-SXM-141GB_16bit.dat");
  ck_assert_ptr_nonnull(dat);
  ck_assert_uint_eq(gb_test_count(dat, "triad fp64, add fp32"), 1);
  ck_assert_uint_eq(gb_test_count(dat, "\"add fp32\""), 0);
  free(dat);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* The prices table: one row per offering, even when its configurations
 * differ in basis (one GPU measured from throttled rows, eight projected)
 * and the first is rejected with no rate: both bases, the first rate. */
START_TEST(test_prices_one_row_per_offering) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  char plan[4096], out[4096];
  snprintf(plan, sizeof plan, "%s/plan.csv", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  const char *csv =
      "rank,gpu_type,gpu_count,provider,offering,basis,feasible,reason,hours,cost_usd,efficiency,efficiency_unit,"
      "pareto,price_usd_per_gpu_hour,price_date,price_source\n"
      "1,H200-SXM-141GB,8,CoreWeave,on-demand,projected,yes,,100,5048,1,PFLOP/USD,yes,6.31,2026-09-05,HGX H200\n"
      ",H200-SXM-141GB,1,CoreWeave,on-demand,measured-throttled,no,over deadline,900,,,PFLOP/USD,no,,2026-09-05,"
      "HGX H200\n";
  ck_assert_int_eq(gb_test_write(plan, csv, strlen(csv)), 0);
  fixtures();
  gb_report_options o = {.plan_path = plan, .specs_path = g_specs, .out_dir = out};
  ck_assert_msg(gb_report_write(&o, NULL) == GB_OK, "%s", gb_errmsg());
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "| H200-SXM-141GB | CoreWeave | on-demand | projected / measured-throttled | 6.31 |"));
  ck_assert_uint_eq(gb_test_count(md, "| H200-SXM-141GB | CoreWeave | on-demand |"), 1);
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* No files: the shipped data/measured results (GPUBENCH_DATA_DIR here). */
START_TEST(test_shipped) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  const char *dir = gb_test_tmpdir();
  char data[4096], measured[4096], out[4096];
  snprintf(data, sizeof data, "%s", dir);
  snprintf(measured, sizeof measured, "%s/measured", dir);
  snprintf(out, sizeof out, "%s/report", dir);
  ck_assert_int_eq(mkdir(measured, 0777), 0);
  setenv("GPUBENCH_DATA_DIR", data, 1);
  /* empty: an input error naming the directory */
  ck_assert_int_eq(gb_report_shipped(NULL, NULL, out, NULL, NULL), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "measured holds no results CSV files"));
  fixtures();
  char *a = gb_test_slurp(g_a100, NULL), *h = gb_test_slurp(g_h200, NULL);
  char p1[8192], p2[8192];
  snprintf(p1, sizeof p1, "%s/b-h200.csv", measured);
  snprintf(p2, sizeof p2, "%s/a-a100.csv", measured);
  gb_test_write(p1, h, strlen(h));
  gb_test_write(p2, a, strlen(a));
  free(a);
  free(h);
  char **paths;
  size_t n;
  ck_assert_int_eq(gb_report_shipped_results(&paths, &n), GB_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(paths[0], p2); /* name order */
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
  gb_report_summary sum;
  ck_assert_int_eq(gb_report_shipped(NULL, NULL, out, NULL, &sum), GB_OK);
  ck_assert_uint_eq(sum.rows, 242);
  char *md = slurp_in(out, "report.md");
  ck_assert_ptr_nonnull(strstr(md, "# gpubench report: shipped measurements"));
  /* a-a100.csv is read first, so its GPU type is the first column */
  ck_assert_ptr_nonnull(strstr(md, "|  | A100-SXM-80GB | H200-SXM-141GB |"));
  free(md);
  unsetenv("GPUBENCH_DATA_DIR");
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* Every described benchmark names a section the report has, or none ("":
 * its rows appear under All measurements only), and the section table
 * holds each name once. */
START_TEST(test_every_benchmark_has_a_section) {
  for (size_t i = 0; i < gb_nbench_descs; i++)
    ck_assert_msg(!gb_bench_descs[i].section[0] || gb_rep_section_find(gb_bench_descs[i].section) != NULL, "%s: no report section \"%s\"",
                  gb_bench_descs[i].name, gb_bench_descs[i].section);
  for (size_t i = 0; i < gb_rep_nsections; i++)
    ck_assert_ptr_eq(gb_rep_section_find(gb_rep_sections[i].name), &gb_rep_sections[i]);
  ck_assert_ptr_null(gb_rep_section_find("nope"));
}
END_TEST

/* Per W only from the energy counter (issue 57). A bf16 burst row whose
 * 1-s average power_w read 241.3 W gave "3.37 TFLOP/s per W at 241.3 W" on
 * an H200, over twice its datasheet's 989.5 TFLOP/s over 700 W: now a row
 * without energy gives no per-W figure and says why; the sustained window's
 * energy gives it; and a per-W figure over the datasheet bound is invalid. */
static char *per_watt_report(const char *name, const char *sustained_energy, bool burst) {
  const char *dir = gb_test_tmpdir();
  char path[4096], out[4096], csv[4096];
  snprintf(path, sizeof path, "%s/%s.csv", dir, name);
  snprintf(out, sizeof out, "%s/%s", dir, name);
  int len = snprintf(csv, sizeof csv,
                     "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,"
                     "bytes,metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,"
                     "power_w,energy_j,energy_s,energy_note\n");
  if (burst)
    len += snprintf(csv + len, sizeof csv - (size_t)len,
                    "1,r1,2026-12-02T00:00:00Z,h,H200-SXM-141GB,NVIDIA H200,1,580.1,13.0,gemm,bf16,bf16,8192,8192,8192,,"
                    "tflops,TFLOP/s,813.8,30,809.4,816.2,2,ok,,1980,3201,50,241.3,,,\"window 0.041 s spans 2 "
                    "energy-counter updates, under 10 per window: too short for the counter\"\n");
  if (sustained_energy)
    snprintf(csv + len, sizeof csv - (size_t)len,
             "1,r1,2026-12-02T00:00:05Z,h,H200-SXM-141GB,NVIDIA H200,1,580.1,13.0,gemm,bf16,bf16,8192,8192,8192,,"
             "tflops_sustained,TFLOP/s,780,1800,770,790,3,ok,,1980,3201,60,436,%s,\n",
             sustained_energy);
  gb_test_write(path, csv, strlen(csv));
  fixtures();
  const char *files[] = {path};
  gb_report_options o = {.results = files, .nresults = 1, .specs_path = g_specs, .out_dir = out};
  gb_report_summary sum;
  ck_assert_msg(gb_report_write(&o, &sum) == GB_OK, "%s", gb_errmsg());
  return slurp_in(out, "report.md");
}

START_TEST(test_per_watt_energy_only) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  /* the burst row alone: no per-W figure, the reason and how to measure one */
  char *md = per_watt_report("burst", NULL, true);
  ck_assert_ptr_null(strstr(md, "3.37"));
  ck_assert_ptr_null(strstr(md, "per W at"));
  ck_assert_ptr_nonnull(strstr(md, "GEMM bf16: 813.8 TFLOP/s = 82% of the datasheet 989.5 (H200-SXM-141GB), spread "
                                   "809.4-816.2 over its samples; no per-W figure: window 0.041 s spans 2 "
                                   "energy-counter updates, under 10 per window: too short for the counter; measure "
                                   "one over a window of 2 s or more (--opt gemm.window=sustained with --iters"));
  free(md);
  /* with the sustained window's energy, 1750 J over 2.5 s = 700 W: 780 / 700 */
  md = per_watt_report("sustained", "1750,2.5", true);
  ck_assert_ptr_nonnull(strstr(md, "over its samples; 1.11 TFLOP/s per W at 700.0 W (energy counter over 2.50 s, "
                                   "tflops_sustained)"));
  ck_assert_ptr_nonnull(strstr(md, "| GEMM bf16 (TFLOP/s) | 813.8 (82% of 989.5); 1.11 TFLOP/s per W |"));
  /* the sustained window has its own headline row, with the per-W figure it carries */
  ck_assert_ptr_nonnull(strstr(md, "| GEMM bf16, sustained window (TFLOP/s) | 780.0 (79% of 989.5); 1.11 TFLOP/s per W |"));
  free(md);
  /* a type measured only in the sustained window (the shipped H100 row): its headline cell was empty, the
   * measured per-W figure nowhere in the headline table */
  md = per_watt_report("sustained-only", "1750,2.5", false);
  ck_assert_ptr_nonnull(strstr(md, "| GEMM bf16, sustained window (TFLOP/s) | 780.0 (79% of 989.5); 1.11 TFLOP/s per W |"));
  ck_assert_ptr_null(strstr(md, "| GEMM bf16 (TFLOP/s) |"));
  ck_assert_ptr_nonnull(strstr(md, "A sustained-window row is GEMM timed over a long window"));
  free(md);
  /* 600 J over 2.5 s = 240 W: 3.25 TFLOP/s per W, over 1.25 x 989.5 / 700 = 1.77 */
  md = per_watt_report("implausible", "600,2.5", true);
  ck_assert_ptr_nonnull(strstr(md, "per-W figure invalid: 3.25 TFLOP/s per W is over 1.77, 1.25 x the datasheet's "
                                   "989.5 TFLOP/s over its 700 W TDP"));
  ck_assert_ptr_nonnull(strstr(md, "; per W invalid |"));
  ck_assert_ptr_nonnull(strstr(md, "the row's energy is not used."));
  ck_assert_ptr_null(strstr(md, "3.25 TFLOP/s per W at"));
  free(md);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

int main(void) {
  bool have = gb_gnuplot_available();
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("tables");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_every_benchmark_has_a_section);
  tcase_add_test(tc, test_without_gnuplot);
  tcase_add_test(tc, test_hostile_fields);
  tcase_add_test(tc, test_bad_inputs);
  tcase_add_test(tc, test_absent_data_skipped);
  tcase_add_test(tc, test_environment_libraries);
  tcase_add_test(tc, test_settings_are_sources);
  tcase_add_test(tc, test_series_with_data_only);
  tcase_add_test(tc, test_prices_one_row_per_offering);
  tcase_add_test(tc, test_shipped);
  tcase_add_test(tc, test_decision_new_columns);
  tcase_add_test(tc, test_compare_view);
  tcase_add_test(tc, test_compare_labels_clear);
  tcase_add_test(tc, test_headline_one_gpu);
  tcase_add_test(tc, test_unsupported_not_a_problem);
  tcase_add_test(tc, test_decision_ranked_end);
  tcase_add_test(tc, test_headline_peak_rounded);
  tcase_add_test(tc, test_collective_error_bars);
  tcase_add_test(tc, test_plan_band_bars);
  tcase_add_test(tc, test_per_watt_energy_only);
  suite_add_tcase(s, tc);
  if (have) {
    TCase *tr = tcase_create("render");
    tcase_set_timeout(tr, 120);
    tcase_add_test(tr, test_full_report);
    tcase_add_test(tr, test_plan_before_window_columns);
    tcase_add_test(tr, test_plan_ranked_plots);
    tcase_add_test(tr, test_comma_locale);
    tcase_add_test(tr, test_roofline_combines_runs);
    tcase_add_test(tr, test_newest_runs_drawn);
    tcase_add_test(tr, test_hostile_fields_rendered);
    tcase_add_test(tr, test_hostile_plan_rendered);
    suite_add_tcase(s, tr);
  }
  int rc = gb_test_run_suite(s);
  if (rc == 0 && !have) {
    fprintf(stderr, "check_report: gnuplot (%s) not available: rendering tests skipped\n", gb_gnuplot_program());
    return 77;
  }
  return rc;
}
