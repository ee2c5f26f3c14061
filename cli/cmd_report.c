/* gpubench report: campaign and procurement reports with gnuplot plots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_store.h"
#include "gb_cli_args.h"
#include "gb_output.h"
#include "gb_plan.h"
#include "gb_plot.h"
#include "gb_report.h"
#include "gb_runinfo.h"

#define A(m) GB_OPT_AT(gb_report_args, m)
static const gb_opt k_opts[] = {
    {"out", 0, "DIR", "output directory, created if missing (default: report)", GB_OPT_PATH, A(out_dir),
     .ext = "/", .writes = GB_OPT_WRITES_DIR},
    {"plan", 0, "PLAN.csv", "a ranked plan written by the planner: adds its tables and plots", GB_OPT_PATH,
     A(plan_path), .ext = "csv"},
    {"plan-sensitivity", 0, "S.csv", "the plan's sensitivity table", GB_OPT_PATH, A(sensitivity_path), .ext = "csv"},
    {"specs", 0, "FILE", "datasheet peaks (default: @DATA@/gpu_specs.csv)", GB_OPT_PATH, A(specs_path),
     .ext = "csv"},
    {"title", 0, "TEXT", "the report's title", GB_OPT_STRING, A(title)},
    {"compare", 0, NULL, "BASELINE.csv CURRENT.csv: draw what changed (ratios, the gate's verdicts)", GB_OPT_FLAG,
     A(compare)},
    {"generator", 0, "TEXT", "the report's \"Written by\" text (default: gpubench VERSION (git SHA))", GB_OPT_STRING,
     A(generator)},
    {"store", 0, "URL", "read the results from this results store: each operand is a\nselection "
     "(\"campaign=C,host=H\"; docs/store.md)", GB_OPT_STRING, A(store), .set = gb_store_opt_url},
    {"trend", 0, "SEL", "with --store: the nightly trend page of the newest night (campaign)\nthe selection "
     "names (\"last=30\"): the gate's verdict, each headline figure\nper node over the nights, the nodes that moved",
     GB_OPT_STRING, A(trend)},
    GB_STORE_TIMEOUT_OPT,
    {0}};

const gb_opt_cmd gb_report_cmd = {
    .name = "report",
    .synopsis = "[OPTIONS] [RESULTS.csv...]",
    .summary = "write a report (Markdown, HTML, gnuplot plots) from results and a plan",
    .description =
        "Writes DIR/report.md, DIR/report.html (one self-contained file, plots inlined as\n"
        "SVG) and every plot as PNG and SVG, each with its data (.dat) and gnuplot script\n"
        "(.gp) next to it: re-run one with `gnuplot NAME.gp` in DIR. Several results files\n"
        "(GPU types, runs) are compared side by side.\n"
        "\n"
        "With no RESULTS.csv and no --plan, reports on the shipped measurements\n"
        "(@DATA@/measured/*.csv) and the default plan (as `gpubench plan` with no\n"
        "arguments), whose CSVs are written to DIR/plan.csv and DIR/plan_sensitivity.csv.\n"
        "\n"
        "With --compare and two results files BASELINE.csv CURRENT.csv (one GPU type,\n"
        "two runs), the report opens with what changed: the ratio current/baseline of\n"
        "every figure, grouped by benchmark, with the gate's verdict and threshold.\n"
        "\n"
        "The plan part opens with a decision page; `--plan PLAN.csv` alone writes only it\n"
        "and the plan's tables.\n"
        "\n"
        "With --store URL --trend SEL (no operands), writes the page of the newest night\n"
        "(campaign) SEL names: the verdicts `compare --store URL --record` recorded for it,\n"
        "each headline figure's nights per node (the median of each night, at most 7 nodes\n"
        "and the recorded change points a plot) and the changes `history --store URL\n"
        "--record` recorded in those nights.",
    .options = k_opts,
    .operands = {.metavar = "RESULTS.csv...", .help = "results files, compared side by side", .min = 0, .max = -1,
                 .ext = "csv", A(files), GB_OPT_COUNT(gb_report_args, nfiles)},
    .notes = "Plots need gnuplot with the pngcairo and svg terminals (Debian: gnuplot-nox); it\n"
             "is looked up in PATH, or set GPUBENCH_GNUPLOT to the program to run. Without it\n"
             "the report has its tables and says the plots need gnuplot.",
    .exit_status = "0 written, 1 a plot or file could not be written, 2 bad usage or input.",
};
#undef A

int gb_report_parse_args(int argc, char **argv, gb_report_args *a) {
  memset(a, 0, sizeof *a);
  a->out_dir = "report";
  int rc = gb_cli_parse(&gb_report_cmd, argc, argv, a);
  if (rc != GB_CLI_CONTINUE) return rc;
  if (a->compare && a->nfiles != 2)
    return gb_cli_usage_error("report", "--compare needs exactly two results files: BASELINE.csv CURRENT.csv");
  if (a->trend && (!a->store || a->nfiles || a->compare || a->plan_path))
    return gb_cli_usage_error("report", "--trend needs --store and takes no results, --compare or --plan");
  if (a->sensitivity_path && !a->plan_path)
    return gb_cli_usage_error("report", "--plan-sensitivity needs --plan (the plan it belongs to)");
  return GB_CLI_CONTINUE;
}

void gb_report_args_free(gb_report_args *a) { gb_opt_free(&gb_report_cmd, a); }

/* report --store URL --trend SEL */
static int trend(const gb_report_args *a) {
  static const char *const outs[] = {"report.md", "report.html", ".png", ".svg", ".gp", ".dat", NULL};
  gb_trend_options o = {.store = a->store, .sel = a->trend, .out_dir = a->out_dir, .title = a->title,
                        .generator = a->generator};
  size_t nights = 0, plots = 0;
  gb_err e = gb_store_guard_dir(a->store, a->out_dir, outs, NULL, 0);
  if (!e) e = gb_report_trend(&o, &nights, &plots);
  if (e) {
    fprintf(stderr, "gpubench report: %s\n", gb_errmsg()[0] ? gb_errmsg() : gb_strerror(e));
    return gb_exit_code(e);
  }
  printf("wrote %s/report.md and %s/report.html: %zu night(s), %zu plots\n", a->out_dir, a->out_dir, nights, plots);
  if (!gb_gnuplot_available())
    fprintf(stderr, "gpubench report: gnuplot (%s) not found: tables only; the plots' .gp scripts are in %s\n",
            gb_gnuplot_program(), a->out_dir);
  return 0;
}

int gb_cmd_report(int argc, char **argv) {
  gb_report_args a;
  int rc = gb_report_parse_args(argc, argv, &a);
  if (rc != GB_CLI_CONTINUE || a.trend) {
    if (rc == GB_CLI_CONTINUE) rc = trend(&a);
    gb_report_args_free(&a);
    return rc;
  }
  gb_report_options o = {.out_dir = a.out_dir,
                         .plan_path = a.plan_path,
                         .sensitivity_path = a.sensitivity_path,
                         .specs_path = a.specs_path,
                         .title = a.title,
                         .generator = a.generator,
                         .compare = a.compare};
  const char **files = a.files;
  size_t nfiles = a.nfiles;
  static const char *const outs_report[] = {"report.md", "report.html", ".png", ".svg", ".gp", ".dat", NULL};
  gb_store_tmp from_store = {0}; /* --store: each selection as a results file */
  if ((a.store && gb_store_guard_dir(a.store, o.out_dir, outs_report, NULL, 0)) ||
      (a.store && nfiles && gb_store_export_tmp(a.store, files, nfiles, &from_store))) {
    fprintf(stderr, "gpubench report: %s\n", gb_errmsg());
    gb_store_tmp_free(&from_store);
    gb_report_args_free(&a);
    return 2;
  }
  if (a.store) files = (const char **)from_store.path;
  gb_report_summary sum;
  gb_err e;
  /* an input where the report writes its files is refused before anything is written */
  static const char *const outs_shipped[] = {"report.md", "report.html", "plan.csv", "plan_sensitivity.csv",
                                             ".png", ".svg", ".gp", ".dat", NULL};
  /* the plan's CSVs are written only with no inputs (the shipped report);
   * otherwise a sensitivity CSV kept beside the report is an input it reads */
  const char *const *outs = nfiles == 0 && !o.plan_path ? outs_shipped : outs_report;
  const char *more[] = {o.plan_path, o.sensitivity_path, o.specs_path};
  if ((e = gb_output_check_dir(o.out_dir, outs, files, nfiles)) || (e = gb_output_check_dir(o.out_dir, outs, more, 3))) {
    fprintf(stderr, "gpubench report: %s\n", gb_errmsg());
    gb_report_args_free(&a);
    gb_store_tmp_free(&from_store);
    return 2;
  }
  if (nfiles == 0 && !o.plan_path) {
    /* the README's first command: the shipped measurements and the default
     * plan (planner/gb_plan.h), whose CSVs are kept in DIR with the report */
    char plan[4096], sens[4096];
    snprintf(plan, sizeof plan, "%s/plan.csv", o.out_dir);
    snprintf(sens, sizeof sens, "%s/plan_sensitivity.csv", o.out_dir);
    e = gb_report_make_dir(o.out_dir);
    if (e == GB_OK) e = gb_plan_default(plan, sens);
    if (e == GB_OK) e = gb_report_shipped(plan, sens, o.out_dir, o.generator, &sum);
  } else {
    o.results = files;
    o.nresults = nfiles;
    e = gb_report_write(&o, &sum);
  }
  gb_store_tmp_free(&from_store);
  gb_report_args_free(&a);
  if (e != GB_OK) {
    fprintf(stderr, "gpubench report: %s\n", gb_errmsg()[0] ? gb_errmsg() : gb_strerror(e));
    return gb_exit_code(e);
  }
  printf("wrote %s/report.md and %s/report.html: %zu rows, %zu plots", o.out_dir, o.out_dir, sum.rows, sum.plots);
  if (sum.plots_skipped) printf(", %zu left out for lack of data", sum.plots_skipped);
  printf("\n");
  if (!sum.gnuplot)
    fprintf(stderr, "gpubench report: gnuplot (%s) not found: tables only; the plots' .gp scripts are in %s\n",
            gb_gnuplot_program(), o.out_dir);
  if (sum.plots_failed) {
    fprintf(stderr, "gpubench report: %zu plot(s) could not be rendered; see the notes in %s/report.md\n%s",
            sum.plots_failed, o.out_dir, sum.failed);
    return 1;
  }
  return 0;
}
