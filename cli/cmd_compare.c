/* gpubench compare: the regression gate. Reads a baseline and a current
 * results CSV, prints a verdict per changed key and a summary, optionally
 * writes markdown and JUnit XML, and picks the exit code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_num.h"
#include "gb_runinfo.h"

static void usage(FILE *fp) {
  fprintf(fp,
          "Usage: gpubench compare BASELINE... CURRENT.csv [OPTIONS]\n"
          "\n"
          "Compares every figure of CURRENT with BASELINE: one results CSV, several, or\n"
          "directories of them (the last N runs of the main branch). Figures are matched by\n"
          "(gpu_type, gpu_count, benchmark, case, dtype, m, n, k, bytes, metric); a figure's\n"
          "value in a run (one run_id, one process) is the median of its repetitions.\n"
          "\n"
          "Noise comes from between independent runs, never from within one: sigma, one\n"
          "run's spread of ln(value), is the floor of the figure's benchmark, metric and\n"
          "size class (--noise, measured with `gpubench noise`), pooled with the spread of\n"
          "the baseline's runs when it holds several, and never below the figure's own\n"
          "within-run spread. A figure is flagged when |ln(current/baseline)| exceeds\n"
          "z(1 - alpha/2) x sigma x sqrt(1/runs_base + 1/runs_cur) and the --threshold: that\n"
          "change is its MDC (minimum detectable change), printed for every judged figure.\n"
          "\n"
          "Classes (gb_desc): headline figures decide the outcome (and speedups at\n"
          "headline shapes); latency-class figures are information (worse-info,\n"
          "better-info) unless --gate-latency; meaningless ones are not judged. A figure\n"
          "measured under other settings, another profile or other library versions is\n"
          "not-comparable, naming what differs.\n"
          "\n"
          "Options:\n"
          "  --threshold PCT   smallest change ever flagged, percent (default 2, or [defaults]\n"
          "                    in --config)\n"
          "  --alpha A         significance level (default 0.01)\n"
          "  --noise FILE      noise floors (default %s/noise/floors.csv when it exists;\n"
          "                    \"none\": built-in floors)\n"
          "  --config FILE     INI file: per-benchmark/metric thresholds, metric directions\n"
          "                    (format in docs/ci.md)\n"
          "  --format F        standard output: text (every figure that is not unchanged)\n"
          "                    or short (the summary and the regressions: for logs)\n"
          "  --markdown FILE   write a markdown report, at most 65,536 characters (pull-request\n"
          "                    comment, job summary)\n"
          "  --junit FILE      write JUnit XML: one test case per figure\n"
          "  --gate-latency    latency-class figures decide the outcome too\n"
          "  --allow-mismatch  compare although GPU type, GPU count, driver, CUDA or library\n"
          "                    versions differ\n"
          "  --all             list every figure, unchanged ones too\n"
          "  -h, --help        show this help\n"
          "\n"
          "Verdicts: regression, failed, missing, not-comparable, noise, insufficient, new,\n"
          "improvement, worse-info, better-info, not-judged, unchanged. Exit codes: 0 pass;\n"
          "1 a regression or a newly failed row; 2 bad usage or input (naming the file);\n"
          "3 nothing could be compared (no common figures, or a machine mismatch without\n"
          "--allow-mismatch).\n",
          gb_data_dir());
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
    } else if ((v = opt_value(argc, argv, &i, "--noise", &missing))) {
      a->noise_path = v;
    } else if ((v = opt_value(argc, argv, &i, "--format", &missing))) {
      if (strcmp(v, "text") && strcmp(v, "short"))
        return gb_cli_usage_error(cmd, "--format: text or short, not \"%s\"", v);
      a->format = v;
    } else if (missing) {
      return gb_cli_usage_error(cmd, "%s needs a value", argv[i]);
    } else if (strcmp(argv[i], "--allow-mismatch") == 0) {
      a->allow_mismatch = true;
    } else if (strcmp(argv[i], "--all") == 0) {
      a->all = true;
    } else if (strcmp(argv[i], "--gate-latency") == 0) {
      a->gate_latency = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return gb_cli_usage_error(cmd, "unknown option \"%s\"", argv[i]);
    } else if (a->nfiles < GB_COMPARE_MAX_FILES) {
      a->files[a->nfiles++] = argv[i];
    } else {
      return gb_cli_usage_error(cmd, "more than %d files: pass a directory of them", GB_COMPARE_MAX_FILES);
    }
  }
  if (a->nfiles < 2) return gb_cli_usage_error(cmd, "needs BASELINE (CSVs or directories) and CURRENT.csv");
  return GB_CLI_CONTINUE;
}

int gb_cmd_compare(int argc, char **argv) {
  gb_compare_args a;
  int prc = gb_compare_parse_args(argc, argv, &a);
  if (prc != GB_CLI_CONTINUE) return prc;
  gb_gate_options opt = gb_gate_defaults();
  if (!isnan(a.threshold_pct)) opt.threshold_pct = a.threshold_pct;
  if (!isnan(a.alpha)) opt.alpha = a.alpha;
  opt.allow_mismatch = a.allow_mismatch;
  opt.gate_latency = a.gate_latency;
  const char *current = a.files[a.nfiles - 1];
  bool short_format = a.format && strcmp(a.format, "short") == 0;

  gb_gate_config cfg = gb_gate_config_empty();
  gb_noise_table noise;
  memset(&noise, 0, sizeof noise);
  gb_results base = {0}, cur = {0};
  gb_gate_report rep;
  memset(&rep, 0, sizeof rep);
  gb_buf text = {0}, md = {0}, xml = {0};
  int rc = 2;
  gb_err e = GB_OK;
  if (a.config_path && (e = gb_gate_config_read(a.config_path, &cfg))) goto done;
  opt.config = &cfg;
  char default_noise[4096];
  snprintf(default_noise, sizeof default_noise, "%s/noise/floors.csv", gb_data_dir());
  const char *noise_path = a.noise_path ? a.noise_path : access(default_noise, R_OK) == 0 ? default_noise : NULL;
  if (noise_path && strcmp(noise_path, "none") == 0) noise_path = NULL;
  if (noise_path && (e = gb_noise_read(noise_path, &noise))) goto done;
  opt.noise = &noise;
  char *cur_input[1] = {(char *)current};
  if ((e = gb_gate_read_side((char *const *)a.files, a.nfiles - 1, true, &base)) ||
      (e = gb_gate_read_side(cur_input, 1, false, &cur)))
    goto done;
  if ((e = gb_gate_compare(&base, &cur, &opt, &rep))) goto done;
  /* Every output is built before any is written, so a failure leaves none
   * that looks complete. */
  if ((e = short_format ? gb_gate_format_short(&rep, &text) : gb_gate_format_text(&rep, a.all, &text))) goto done;
  if (a.markdown && (e = gb_gate_format_markdown(&rep, &md))) goto done;
  if (a.junit && (e = gb_gate_format_junit(&rep, &xml))) goto done;
  if (a.markdown && write_output(a.markdown, &md)) goto done;
  if (a.junit && write_output(a.junit, &xml)) goto done;
  fwrite(text.data, 1, text.len, stdout);
  fflush(stdout);
  rc = gb_gate_exit_code(&rep);
  if (rep.mismatch) fprintf(stderr, "gpubench compare: %s; pass --allow-mismatch to compare anyway\n", rep.mismatch_msg);
  else if (rc == 3) fprintf(stderr, "gpubench compare: nothing could be compared with %s\n", current);
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
  gb_noise_free(&noise);
  return rc;
}
