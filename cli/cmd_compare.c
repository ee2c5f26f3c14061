/* gpubench compare: the regression gate. Reads a baseline (one or several
 * runs) and a current results CSV, prints a verdict per figure that moved
 * and a summary, optionally writes markdown and JUnit XML, and picks the exit
 * code. */
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
#include "gb_output.h"
#include "gb_store.h"

/* --format: text or short (a setter, not a choice list: the completion
 * offers files after it) */
static int set_format(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)o;
  gb_compare_args *a = args;
  if (strcmp(val, "text") == 0) a->format = 0;
  else if (strcmp(val, "short") == 0) a->format = 1;
  else {
    snprintf(err, errlen, "--format: text or short, not \"%s\"", val);
    return 1;
  }
  return 0;
}

#define A(m) GB_OPT_AT(gb_compare_args, m)
static const gb_opt k_opts[] = {
    {"threshold", 0, "PCT", "smallest change ever flagged, percent (default 2,\nor [defaults] in --config)",
     GB_OPT_DOUBLE, A(threshold_pct), .lo = 0, .hi = INFINITY},
    {"alpha", 0, "A", "significance level (default 0.01)", GB_OPT_DOUBLE, A(alpha), .lo = 0, .hi = 1,
     .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"noise", 0, "FILE", "noise floors (`gpubench noise`; default @DATA@/noise/floors.csv;\n"
     "\"none\": built-in floors)", GB_OPT_PATH, A(noise_path), .ext = "csv"},
    {"config", 0, "FILE", "INI file: per-benchmark/metric thresholds, metric directions\n(format in docs/ci.md)",
     GB_OPT_PATH, A(config_path), .ext = "ini"},
    {"gate-latency", 0, NULL, "latency-class figures decide the outcome too", GB_OPT_FLAG, A(gate_latency)},
    {"allow-mismatch", 0, NULL, "compare although GPU type, GPU count, driver, CUDA or library\nversions differ",
     GB_OPT_FLAG, A(allow_mismatch)},
    {"format", 0, "F", "standard output: text (every figure not unchanged) or short\n(the summary and the "
     "regressions, for logs)", GB_OPT_CALL, .set = set_format, .group = "Output"},
    {"markdown", 0, "FILE", "write a markdown report of at most 65,536 characters\n(pull-request comment, job "
     "summary)", GB_OPT_PATH, A(markdown)},
    {"junit", 0, "FILE", "write JUnit XML: one test case per figure", GB_OPT_PATH, A(junit)},
    {"all", 0, NULL, "list every figure, unchanged ones too", GB_OPT_FLAG, A(all)},
    {"store", 0, "URL", "read BASELINE and CURRENT from this results store: each is a\nselection "
     "(\"last=5,before=C,gpu_type=T\", \"campaign=C\"; docs/store.md)", GB_OPT_STRING, A(store),
     .group = "Store"},
    {0}};

const gb_opt_cmd gb_compare_cmd = {
    .name = "compare",
    .synopsis = "[OPTIONS] BASELINE... CURRENT.csv",
    .summary = "compare results with a baseline: the CI regression gate (exit 1 on a regression)",
    .description =
        "Compares every figure of CURRENT with BASELINE: one results CSV, several, or\n"
        "directories of them (the last N runs of the main branch). Figures are matched by\n"
        "(gpu_type, gpu_count, benchmark, case, dtype, m, n, k, bytes, metric); a figure's\n"
        "value in a run (one run_id, one process) is the median of its repetitions.\n"
        "\n"
        "Noise comes from between independent runs, never from within one: sigma, one\n"
        "run's spread of ln(value), is the floor of the figure's benchmark, metric and\n"
        "size class (--noise, measured with `gpubench noise`), pooled with the spread of\n"
        "the baseline's runs when it holds several, and never below a third of the\n"
        "figure's own within-run spread. A figure is flagged when |ln(current/baseline)|\n"
        "exceeds z(1 - alpha/2) x sigma x sqrt(1/runs_base + 1/runs_cur) and the\n"
        "--threshold: that change is its MDC (minimum detectable change), printed for\n"
        "every judged figure. Two --repeat runs (3 or more repetitions each) of one GPU\n"
        "(equal gpu_uuid) are judged from their repetitions' spread plus the floor's\n"
        "same-gpu row instead: the offsets between cards are not in it.\n"
        "\n"
        "Classes (core/gb_desc.h): headline figures decide the outcome (and speedups at\n"
        "headline shapes); latency-class figures are information (worse-info,\n"
        "better-info) unless --gate-latency; meaningless ones are not judged. A figure\n"
        "measured under other settings, another profile or other library versions is\n"
        "not-comparable, naming what differs.",
    .options = k_opts,
    .operands = {.metavar = "BASELINE... CURRENT.csv",
                 .help = "the baseline (results files or directories of them), then the current results file",
                 .min = 2, .max = GB_COMPARE_MAX_FILES, .ext = "csv", A(files), GB_OPT_COUNT(gb_compare_args, nfiles),
                 .missing = "needs BASELINE (CSVs or directories) and CURRENT.csv",
                 .extra = "more files than it takes, from \"%s\": pass a directory of them"},
    .notes = "Verdicts: regression, failed, missing, not-comparable, noise, insufficient, new,\n"
             "improvement, worse-info, better-info, not-judged, unchanged.",
    .exit_status = "0 pass; 1 a regression or a newly failed row; 2 bad usage\n"
                   "or input (naming the file: a directory with no CSV, a file with a header and no\n"
                   "rows, mixed GPU types in the baseline); 3 nothing could be compared (no common\n"
                   "figures, or a machine mismatch without --allow-mismatch).",
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
  /* an output that is an input is refused before anything is read or written */
  const char *in[GB_COMPARE_MAX_FILES + 2];
  size_t nin = 0;
  for (size_t i = 0; i < a.nfiles; i++) in[nin++] = a.files[i];
  if (a.config_path) in[nin++] = a.config_path;
  if (a.noise_path) in[nin++] = a.noise_path;
  if (gb_output_check(a.markdown, in, nin) || gb_output_check(a.junit, in, nin) ||
      gb_output_check(a.junit, &a.markdown, 1))
    return fprintf(stderr, "gpubench compare: %s\n", gb_errmsg()), 2;
  gb_gate_options opt = gb_gate_defaults();
  if (!isnan(a.threshold_pct)) opt.threshold_pct = a.threshold_pct;
  if (!isnan(a.alpha)) opt.alpha = a.alpha;
  opt.allow_mismatch = a.allow_mismatch;
  opt.gate_latency = a.gate_latency;
  const char *current = a.files[a.nfiles - 1];
  bool short_format = a.format == 1;

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
  if (a.store ? (e = gb_store_read_url(a.store, (char *const *)a.files, a.nfiles - 1, &base)) ||
                    (e = gb_store_read_url(a.store, cur_input, 1, &cur))
              : (e = gb_gate_read_side((char *const *)a.files, a.nfiles - 1, true, &base)) ||
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
