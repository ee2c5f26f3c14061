/* gpubench compare: the regression gate. Reads a baseline and a current
 * results CSV, prints a verdict per changed key and a summary, optionally
 * writes markdown and JUnit XML, and picks the exit code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_gate.h"
#include "gb_num.h"

#define A(m) GB_OPT_AT(gb_compare_args, m)
static const gb_opt k_opts[] = {
    {"threshold", 0, "PCT", "base threshold in percent (default 5, or [defaults] in --config)", GB_OPT_DOUBLE,
     A(threshold_pct), .lo = 0, .hi = INFINITY},
    {"alpha", 0, "A", "significance level of the Mann-Whitney test (default 0.01)", GB_OPT_DOUBLE, A(alpha), .lo = 0,
     .hi = 1, .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"config", 0, "FILE", "INI file: per-benchmark/metric thresholds, metric directions\n(format in docs/ci.md)",
     GB_OPT_PATH, A(config_path), .ext = "ini"},
    {"markdown", 0, "FILE", "write a markdown report (pull-request comment, job summary)", GB_OPT_PATH, A(markdown)},
    {"junit", 0, "FILE", "write JUnit XML: one test case per figure", GB_OPT_PATH, A(junit)},
    {"allow-mismatch", 0, NULL, "compare although GPU type, GPU count, driver or CUDA differ", GB_OPT_FLAG,
     A(allow_mismatch)},
    {"all", 0, NULL, "list every figure, unchanged ones too", GB_OPT_FLAG, A(all)},
    {0}};

const gb_opt_cmd gb_compare_cmd = {
    .name = "compare",
    .synopsis = "[OPTIONS] BASELINE.csv CURRENT.csv",
    .summary = "compare results with a baseline: the CI regression gate (exit 1 on a regression)",
    .description =
        "Compares every figure of CURRENT with BASELINE, matched by (gpu_type, gpu_count,\n"
        "benchmark, case, dtype, m, n, k, bytes, metric). The samples of a figure are its\n"
        "rows with status ok or throttled (one per repetition: gpubench run --repeat N). With at least 6\n"
        "samples on both sides a two-sided Mann-Whitney U test decides significance; with\n"
        "fewer, the rows' own min/max (or value -/+ 3 stddev) ranges must not overlap.\n"
        "A regression is significant and worse by more than the threshold: the larger of\n"
        "--threshold (or the config's rule for the benchmark/metric) and 3 x the\n"
        "coefficient of variation of either side.",
    .options = k_opts,
    .operands = {.metavar = "BASELINE.csv CURRENT.csv", .help = "the baseline and the current results file",
                 .min = 2, .max = 2, .ext = "csv", A(files), .missing = "needs BASELINE.csv and CURRENT.csv",
                 .extra = "one baseline and one current file, not more: \"%s\""},
    .notes = "Verdicts: regression, failed, missing, noise, insufficient, new, improvement,\nunchanged.",
    .exit_status = "0 pass; 1 a regression or a newly failed row; 2 bad usage\n"
                   "or input; 3 nothing could be compared (no common figures, or a machine mismatch\n"
                   "without --allow-mismatch).",
};
#undef A

static int write_output(const char *path, const gb_buf *b) {
  gb_err e = gb_write_file_atomic(path, b->data ? b->data : "", b->len);
  if (e) {
    fprintf(stderr, "gpubench compare: %s\n", gb_errmsg());
    return 2;
  }
  return 0;
}

int gb_compare_parse_args(int argc, char **argv, gb_compare_args *a) {
  memset(a, 0, sizeof *a);
  a->threshold_pct = NAN;
  a->alpha = NAN;
  return gb_opt_parse(&gb_compare_cmd, argc, argv, a);
}

int gb_cmd_compare(int argc, char **argv) {
  gb_compare_args a;
  int prc = gb_compare_parse_args(argc, argv, &a);
  if (prc != GB_CLI_CONTINUE) return prc;
  gb_gate_options opt = gb_gate_defaults();
  if (!isnan(a.threshold_pct)) opt.threshold_pct = a.threshold_pct;
  if (!isnan(a.alpha)) opt.alpha = a.alpha;
  opt.allow_mismatch = a.allow_mismatch;
  const char *const *files = a.files;
  const char *config_path = a.config_path, *junit = a.junit, *markdown = a.markdown;
  int all = a.all;

  gb_gate_config cfg = gb_gate_config_empty();
  gb_results base = {0}, cur = {0};
  gb_gate_report rep;
  memset(&rep, 0, sizeof rep);
  gb_buf text = {0}, md = {0}, xml = {0};
  int rc = 2;
  gb_err e = GB_OK;
  if (config_path && (e = gb_gate_config_read(config_path, &cfg))) goto done;
  opt.config = &cfg;
  if ((e = gb_results_read(files[0], &base)) || (e = gb_results_read(files[1], &cur))) goto done;
  if ((e = gb_gate_compare(&base, &cur, &opt, &rep))) goto done;
  /* Every output is built before any is written, so a failure leaves none
   * that looks complete. */
  if ((e = gb_gate_format_text(&rep, all, &text))) goto done;
  if (markdown && (e = gb_gate_format_markdown(&rep, &md))) goto done;
  if (junit && (e = gb_gate_format_junit(&rep, &xml))) goto done;
  if (markdown && write_output(markdown, &md)) goto done;
  if (junit && write_output(junit, &xml)) goto done;
  fwrite(text.data, 1, text.len, stdout);
  fflush(stdout);
  rc = gb_gate_exit_code(&rep);
  if (rep.mismatch) fprintf(stderr, "gpubench compare: %s; pass --allow-mismatch to compare anyway\n", rep.mismatch_msg);
  else if (rc == 3) fprintf(stderr, "gpubench compare: nothing could be compared between %s and %s\n", files[0], files[1]);
done:
  if (e) {
    fprintf(stderr, "gpubench compare: %s\n", gb_errmsg());
    rc = 2; /* bad input, an unreadable file, or no memory: the gate did not run */
  }
  gb_buf_free(&text);
  gb_buf_free(&md);
  gb_buf_free(&xml);
  gb_gate_report_free(&rep);
  gb_results_free(&base);
  gb_results_free(&cur);
  gb_gate_config_free(&cfg);
  return rc;
}
