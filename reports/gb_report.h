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
#include "gb_report_types.h"

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
