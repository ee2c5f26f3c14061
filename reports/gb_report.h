/* gb_report: `gpubench report` -- a campaign report (results CSVs) and a
 * procurement report (a plan CSV and its sensitivity), written as
 * OUT/report.md, OUT/report.html (self-contained, plots inlined as SVG) and
 * each plot as OUT/<stem>.png, .svg, .dat and .gp. Several result files (GPU
 * types, runs) are compared side by side. Without gnuplot the report still
 * comes out, with its tables, and says that the plots need gnuplot (the
 * .dat and .gp files are written so they can be rendered later). */
#ifndef GB_REPORT_H
#define GB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"

typedef struct gb_report_options {
  const char *const *results; /* results CSV paths (borrowed) */
  size_t nresults;
  const char *plan_path;        /* planner output CSV, or NULL */
  const char *sensitivity_path; /* planner sensitivity CSV, or NULL */
  const char *specs_path;       /* datasheet peaks; NULL: gb_data_dir()/gpu_specs.csv when it exists */
  const char *out_dir;          /* created if missing */
  const char *title;            /* NULL: "gpubench report" */
  const char *generator;        /* who wrote it, in the first line; NULL: "gpubench VERSION (git SHA)".
                                 * A fixed text keeps the report byte-for-byte reproducible
                                 * (scripts/gen-examples.sh) */
  bool compare;                 /* a comparison view: results[0] is the baseline, results[1] the
                                 * current run (reports/gb_rep_compare.c) */
} gb_report_options;

typedef struct gb_report_summary {
  size_t rows;          /* result rows read */
  size_t plots;         /* plots rendered */
  size_t plots_skipped; /* plots left out for lack of data */
  size_t plots_failed;  /* plots gnuplot could not render (named in the report) */
  bool gnuplot;         /* gnuplot was available */
  char failed[2048];    /* the failed plots, one "caption: why" line each (as many as fit) */
} gb_report_summary;

/* Reads every input, then writes the report into o->out_dir. Needs at least
 * one results file or a plan. Input errors (GB_E_INPUT, GB_E_IO) name
 * file:line:column and leave no report.md/report.html behind; they are
 * written last, atomically. A plot gnuplot fails on is noted in the report
 * and counted in sum->plots_failed, and the call still succeeds. */
gb_err gb_report_write(const gb_report_options *o, gb_report_summary *sum);

/* Creates dir and its missing parents (mkdir -p); GB_E_IO naming the path
 * when it cannot, or when it exists and is not a directory. */
gb_err gb_report_make_dir(const char *dir);

/* The shipped measured results: gb_data_dir()/measured/ *.csv in name
 * order. *paths is malloc'd (free each and the vector); *n may be 0, also
 * when the directory does not exist. */
gb_err gb_report_shipped_results(char ***paths, size_t *n);

/* The report `gpubench report` writes with no results files: the shipped
 * measured results plus the given plan and sensitivity (NULL = none) into
 * out_dir. */
gb_err gb_report_shipped(const char *plan_path, const char *sensitivity_path, const char *out_dir,
                         const char *generator, gb_report_summary *sum);

#endif
