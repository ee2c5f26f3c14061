/* gb_report_types: what a report is asked for (gb_report_options) and what
 * it says it did (gb_report_summary): the types gb_report.h (the API) and
 * gb_rep.h (the parts' shared state) both hold, in a header of their own so
 * that the parts depend on them and not on gb_report, which runs the parts. */
#ifndef GB_REPORT_TYPES_H
#define GB_REPORT_TYPES_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
