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
#include "gb_output.h"

static void usage(FILE *fp) {
  fprintf(fp,
          "Usage: gpubench compare BASELINE.csv CURRENT.csv [OPTIONS]\n"
          "\n"
          "Compares every figure of CURRENT with BASELINE, matched by (gpu_type, gpu_count,\n"
          "benchmark, case, dtype, m, n, k, bytes, metric). The samples of a figure are its\n"
          "rows with status ok or throttled (one per repetition: gpubench run --repeat N). With at least 6\n"
          "samples on both sides a two-sided Mann-Whitney U test decides significance; with\n"
          "fewer, the rows' own min/max (or value -/+ 3 stddev) ranges must not overlap.\n"
          "A regression is significant and worse by more than the threshold: the larger of\n"
          "--threshold (or the config's rule for the benchmark/metric) and 3 x the\n"
          "coefficient of variation of either side.\n"
          "\n"
          "Options:\n"
          "  --threshold PCT   base threshold in percent (default 5, or [defaults] in --config)\n"
          "  --alpha A         significance level of the Mann-Whitney test (default 0.01)\n"
          "  --config FILE     INI file: per-benchmark/metric thresholds, metric directions\n"
          "                    (format in docs/ci.md)\n"
          "  --markdown FILE   write a markdown report (pull-request comment, job summary)\n"
          "  --junit FILE      write JUnit XML: one test case per figure\n"
          "  --allow-mismatch  compare although GPU type, GPU count, driver or CUDA differ\n"
          "  --all             list every figure, unchanged ones too\n"
          "  -h, --help        show this help\n"
          "\n"
          "Verdicts: regression, failed, missing, noise, insufficient, new, improvement,\n"
          "unchanged. Exit codes: 0 pass; 1 a regression or a newly failed row; 2 bad usage\n"
          "or input; 3 nothing could be compared (no common figures, or a machine mismatch\n"
          "without --allow-mismatch).\n");
}

/* "--name VALUE" or "--name=VALUE": returns the value (advancing *i) or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n) != 0) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int write_output(const char *path, const gb_buf *b) {
  gb_err e = gb_write_file_atomic(path, b->data ? b->data : "", b->len);
  if (e) {
    fprintf(stderr, "gpubench compare: %s\n", gb_errmsg());
    return 2;
  }
  return 0;
}

int gb_compare_parse_args(int argc, char **argv, gb_compare_args *a) {
  const char *cmd = "compare";
  memset(a, 0, sizeof *a);
  a->threshold_pct = NAN;
  a->alpha = NAN;
  if (gb_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if ((v = opt_value(argc, argv, &i, "--threshold", &missing))) {
      if (!gb_parse_double(v, &a->threshold_pct) || a->threshold_pct < 0)
        return gb_cli_usage_error(cmd, "--threshold: not a non-negative percentage: \"%s\"", v);
    } else if ((v = opt_value(argc, argv, &i, "--alpha", &missing))) {
      if (!gb_parse_double(v, &a->alpha) || !(a->alpha > 0 && a->alpha < 1))
        return gb_cli_usage_error(cmd, "--alpha: not a number between 0 and 1: \"%s\"", v);
    } else if ((v = opt_value(argc, argv, &i, "--config", &missing))) {
      a->config_path = v;
    } else if ((v = opt_value(argc, argv, &i, "--junit", &missing))) {
      a->junit = v;
    } else if ((v = opt_value(argc, argv, &i, "--markdown", &missing))) {
      a->markdown = v;
    } else if (missing) {
      return gb_cli_usage_error(cmd, "%s needs a value", argv[i]);
    } else if (strcmp(argv[i], "--allow-mismatch") == 0) {
      a->allow_mismatch = true;
    } else if (strcmp(argv[i], "--all") == 0) {
      a->all = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return gb_cli_usage_error(cmd, "unknown option \"%s\"", argv[i]);
    } else if (nfiles < 2) {
      a->files[nfiles++] = argv[i];
    } else {
      return gb_cli_usage_error(cmd, "one baseline and one current file, not more: \"%s\"", argv[i]);
    }
  }
  if (nfiles != 2) return gb_cli_usage_error(cmd, "needs BASELINE.csv and CURRENT.csv");
  return GB_CLI_CONTINUE;
}

int gb_cmd_compare(int argc, char **argv) {
  gb_compare_args a;
  int prc = gb_compare_parse_args(argc, argv, &a);
  if (prc != GB_CLI_CONTINUE) return prc;
  /* an output that is an input is refused before anything is read or written */
  const char *const in[] = {a.files[0], a.files[1], a.config_path};
  if (gb_output_check(a.markdown, in, 3) || gb_output_check(a.junit, in, 3) || gb_output_check(a.junit, &a.markdown, 1))
    return fprintf(stderr, "gpubench compare: %s\n", gb_errmsg()), 2;
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
