/* gpubench history: reads many results files (or directories of them),
 * builds each figure's series over runs and names the runs where a figure
 * shifted (binary segmentation pruned by effect size and a step-or-ramp
 * test, gate/gb_changepoint.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_history.h"
#include "gb_inputs.h"
#include "gb_num.h"
#include "gb_output.h"
#include "gb_plot.h"
#include "gb_store.h"

/* The defaults written here are gb_cp_defaults()' (tests/check_cli.c holds
 * them to it). */
#define A(m) GB_OPT_AT(gb_history_args, m)
static const gb_opt k_opts[] = {
    {"min-segment", 0, "N", "runs on each side of a change (default 3, at least 2)", GB_OPT_INT, A(min_segment),
     .min = 2, .max = 1000000},
    {"alpha", 0, "A", "level of the step test per segment (default 0.001);\nBonferroni over the segment's splits", GB_OPT_DOUBLE, A(alpha), .lo = 0, .hi = 1,
     .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"threshold", 0, "PCT", "smallest change ever reported, percent: a significant shift of\n"
     "the segment means by less is not a change (default 2, as compare's)", GB_OPT_DOUBLE, A(threshold_pct),
     .lo = 0, .hi = INFINITY},
    {"all", 0, NULL, "list (and with --plot, plot) every series, not only those\nwith a change", GB_OPT_FLAG, A(all)},
    {"plot", 0, "DIR", "trend plots: DIR/history-<figure>.{dat,gp,png,svg}, the runs\n"
     "in time order, each segment's mean, a line at each change\n"
     "(gnuplot; without it only .dat and .gp are written)", GB_OPT_PATH, A(plot_dir), .ext = "/",
     .writes = GB_OPT_WRITES_DIR},
    {"store", 0, "URL", "read the series from this results store: each operand is a\nselection "
     "(\"host=node03,benchmark=gemm,metric=tflops\"; docs/store.md)", GB_OPT_STRING, A(store), .set = gb_store_opt_url, .group = "Store"},
    {"record", 0, NULL, "with --store: judge each node's series apart and write each\nchange point and drift "
     "to the store (table gb_changes; each once)", GB_OPT_FLAG, A(record), .group = "Store"},
    GB_STORE_TIMEOUT_OPT,
    {0}};

const gb_opt_cmd gb_history_cmd = {
    .name = "history",
    .synopsis = "[OPTIONS] CSV|DIR...",
    .summary = "per-figure series over many runs, and the runs where a figure shifted",
    .description =
        "Groups the rows of every file (a directory contributes its *.csv files) by run_id,\n"
        "orders the runs by time, and for each figure (gpu_type, gpu_count, benchmark, case,\n"
        "dtype, m, n, k, bytes, metric) takes the median of its ok rows in each run. Each\n"
        "series is cut by binary segmentation: a split is kept when the medians either\n"
        "side differ by more than the step test allows against the series' own noise\n"
        "(the robust spread of successive runs; --alpha, Bonferroni over the splits), and\n"
        "the pieces are cut in turn. Each side of a change holds at least --min-segment\n"
        "runs, so a one-run spike is never a change. Then, weakest first, a change is\n"
        "dropped when its segment means differ by less than --threshold percent, or when\n"
        "one straight line through its two segments fits nearly as well as the step (a\n"
        "drift is not a staircase). A slow drift (a significant least-squares slope that\n"
        "fits as well as the steps) is reported as one drift line. A 10% step in a\n"
        "1%-noise figure is flagged once 3 runs follow 3; whole series of thousands of\n"
        "runs are analyzed in time linear in the runs per cut.\n"
        "\n"
        "The last line says what this history can see: the smallest step it flags\n"
        "(median over the headline series) once --min-segment runs follow it, and how\n"
        "many runs after a 10% step it takes to flag one; --all gives each series'\n"
        "noise and smallest step.",
    .options = k_opts,
    .operands = {.metavar = "CSV|DIR...", .help = "results files, or directories of them", .min = 1, .max = -1,
                 .ext = "csv", A(inputs), GB_OPT_COUNT(gb_history_args, ninputs),
                 .missing = "needs at least one results CSV or directory"},
    .exit_status = "0 analyzed (change points or not); 2 bad usage or input; 3 no series\n"
                   "had enough runs to test (2 x --min-segment).",
};
#undef A

/* One trend plot: x = run number in time order (1-based), the figure's
 * value per run, each segment's mean as a line (NaN breaks it between
 * segments) and a vertical marker at each change labelled with its run id. */
static gb_err plot_series(const char *dir, const gb_history *h, const gb_history_series *s, const char *name,
                          bool render) {
  size_t n = s->n, m = n + s->nchanges;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  double *mx = malloc(m * sizeof *mx), *my = malloc(m * sizeof *my);
  gb_plot_marker *mk = calloc(s->nchanges ? s->nchanges : 1, sizeof *mk);
  char *stem = malloc(strlen(name) + 16), *ylabel = malloc(strlen(s->metric) + strlen(s->unit) + 8);
  gb_err e = GB_OK;
  if (!x || !y || !mx || !my || !mk || !stem || !ylabel) {
    e = gb_fail(GB_E_NOMEM, "out of memory for a plot");
    goto done;
  }
  size_t j = 0, c = 0;
  for (size_t i = 0; i < n; i++) {
    x[i] = (double)(s->run[i] + 1);
    y[i] = s->value[i];
    if (c < s->nchanges && s->changes[c].index == i) {
      mx[j] = my[j] = NAN; /* a break in the segment-mean line */
      j++;
      mk[c].axis = 'x';
      mk[c].at = x[i] - 0.5;
      mk[c].label = h->runs[s->run[i]].run_id;
      c++;
    }
    /* the segment holding point i: between the changes around it */
    size_t lo = 0, hi = n;
    for (size_t k = 0; k < s->nchanges; k++) {
      if (s->changes[k].index <= i) lo = s->changes[k].index;
      else if (s->changes[k].index < hi) hi = s->changes[k].index;
    }
    double sum = 0;
    for (size_t k = lo; k < hi; k++) sum += s->value[k];
    mx[j] = x[i];
    my[j++] = sum / (double)(hi - lo);
  }
  snprintf(stem, strlen(name) + 16, "history-%s", name);
  snprintf(ylabel, strlen(s->metric) + strlen(s->unit) + 8, "%s (%s)", s->metric, s->unit);
  gb_plot_series ser[2] = {
      {.title = "per run (median of repetitions)", .n = n, .x = x, .y = y, .style = GB_PLOT_LINESPOINTS},
      {.title = "segment mean", .n = j, .x = mx, .y = my, .style = GB_PLOT_LINES, .emphasis = true},
  };
  gb_plot_spec spec = {.stem = stem, .title = s->key, .xlabel = "run (in time order)", .ylabel = ylabel,
                       .markers = mk, .nmarkers = s->nchanges};
  e = render ? gb_plot_lines(dir, &spec, ser, 2) : gb_plot_lines_script(dir, &spec, ser, 2);
done:
  free(x);
  free(y);
  free(mx);
  free(my);
  free(mk);
  free(stem);
  free(ylabel);
  return e;
}

/* Plots the series with a change (every series with all) into dir. */
static gb_err plot_history(const char *dir, const gb_history *h, bool all, size_t *nplots) {
  *nplots = 0;
  struct stat st;
  if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0)
    return gb_fail(GB_E_IO, "%s: cannot create the plot directory: %s", dir, strerror(errno));
  bool render = gb_gnuplot_available();
  if (!render)
    fprintf(stderr, "gpubench history: %s not found: writing .dat and .gp only (run gnuplot on them later)\n",
            gb_gnuplot_program());
  gb_stem_set names = {0}; /* no two series in one file, whatever their keys */
  for (size_t i = 0; i < h->nseries; i++) {
    const gb_history_series *s = &h->series[i];
    if ((!all && s->nchanges == 0) || s->n < 2) continue;
    char name[GB_STEM_MAX];
    gb_err e = gb_stem_unique(&names, s->key, name);
    if (!e) e = plot_series(dir, h, s, name, render);
    if (e) {
      gb_stem_set_free(&names);
      gb_plot_session_end();
      return e;
    }
    (*nplots)++;
  }
  gb_stem_set_free(&names);
  gb_plot_session_end();
  return GB_OK;
}

int gb_history_parse_args(int argc, char **argv, gb_history_args *a) {
  memset(a, 0, sizeof *a);
  a->alpha = a->threshold_pct = NAN;
  return gb_cli_parse(&gb_history_cmd, argc, argv, a);
}

void gb_history_args_free(gb_history_args *a) { gb_opt_free(&gb_history_cmd, a); }

int gb_cmd_history(int argc, char **argv) {
  gb_history_args a;
  int rc = gb_history_parse_args(argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_history_args_free(&a);
    return rc;
  }
  gb_cp_options opt = gb_cp_defaults();
  if (a.min_segment) opt.min_segment = a.min_segment;
  if (!isnan(a.alpha)) opt.alpha = a.alpha;
  opt.min_effect_pct = isnan(a.threshold_pct) ? GB_HISTORY_THRESHOLD_PCT : a.threshold_pct;
  if (a.record) { /* node by node, into the store */
    rc = a.store && !a.plot_dir ? gb_history_record(&a, &opt) : 2;
    if (rc == 2 && (!a.store || a.plot_dir))
      fprintf(stderr, "gpubench history: --record needs --store and takes no --plot\n");
    gb_history_args_free(&a);
    return rc;
  }
  char **inputs = a.inputs;
  size_t ninputs = a.ninputs;
  bool all = a.all;
  const char *plot_dir = a.plot_dir;
  rc = 2;
  char **paths = NULL;
  size_t npaths = 0;
  gb_results res = {0};
  gb_history h;
  memset(&h, 0, sizeof h);
  gb_buf text = {0};
  /* an input where --plot writes (the store too) is refused before anything is read or written */
  static const char *const outs[] = {".png", ".svg", ".gp", ".dat", NULL};
  gb_err e = gb_store_guard_dir(a.store, plot_dir, outs, NULL, 0);
  if (!e) e = a.store ? gb_store_read_url(a.store, inputs, ninputs, &res)
                      : gb_inputs_collect(inputs, ninputs, &paths, &npaths);
  if (!e && plot_dir) e = gb_output_check_dir(plot_dir, outs, (const char *const *)paths, npaths);
  for (size_t i = 0; i < npaths && !e; i++) e = gb_results_read_input(paths[i], &res);
  if (!e) e = gb_history_build(&res, &opt, &h);
  if (!e) e = gb_history_format_text(&h, all, &text);
  size_t nplots = 0;
  if (!e && plot_dir) e = plot_history(plot_dir, &h, all, &nplots);
  if (e) {
    fprintf(stderr, "gpubench history: %s\n", gb_errmsg());
  } else {
    fwrite(text.data, 1, text.len, stdout);
    if (plot_dir) printf("history: %zu trend plot%s in %s\n", nplots, nplots == 1 ? "" : "s", plot_dir);
    fflush(stdout);
    rc = h.nanalyzed ? 0 : 3;
    if (rc == 3)
      fprintf(stderr, "gpubench history: no figure has %zu runs (2 x --min-segment) to test\n", 2 * opt.min_segment);
  }
  gb_buf_free(&text);
  gb_history_free(&h);
  gb_results_free(&res);
  gb_inputs_free(paths, npaths);
  gb_history_args_free(&a);
  return rc;
}
