/* gb_report_internal: the state shared by the report's sections
 * (gb_report.c: inputs, tables, assembly; gb_report_bench.c: benchmark
 * plots; gb_report_plan.c: plan tables and plots). Not a public API. */
#ifndef GB_REPORT_INTERNAL_H
#define GB_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_doc.h"
#include "gb_planfile.h"
#include "gb_plot.h"
#include "gb_report.h"
#include "gb_results.h"
#include "gb_specs.h"

/* A column of the side-by-side comparison: one GPU type in one run under
 * one settings (results' `settings` column: rows measured otherwise are
 * never one point). label is the gpu_type, or "gpu_type (run_id)" when a
 * type appears in several runs, then " [settings]" where they are not the
 * defaults (cut at 100 characters, "..." then). */
typedef struct gb_rep_source {
  char label[256];
  const char *gpu_type;
  const char *run_id;
  const char *settings;
  const gb_gpu_spec *spec; /* datasheet row, or NULL */
  size_t type;             /* its GPU type: index into gb_rep.types */
  size_t run_no;           /* 1, 2, ...: its place among the runs of its type, in input order */
  bool membw_headline;     /* some ok or throttled membw row of it is marked headline (gb_rep_membw_hbm) */
} gb_rep_source;

/* A GPU type with every run of it: the roofline and the headline figures
 * combine the runs of one type (one run may have measured GEMM and fma,
 * another membw). */
typedef struct gb_rep_type {
  const char *gpu_type;
  const gb_gpu_spec *spec; /* datasheet row, or NULL */
  size_t nruns;            /* sources of this type */
} gb_rep_type;

/* One measured point: the median over the repetitions of the ok rows of
 * one source, benchmark, case, dtype, shape/size, GPU count and metric. */
typedef struct gb_rep_point {
  size_t src;
  const gb_row *row; /* the first of its rows (for names, sizes, peak) */
  double value;
  size_t reps;
} gb_rep_point;

typedef struct gb_rep {
  const gb_report_options *o;
  const char *dir;
  gb_results res;
  size_t nsrc;
  gb_rep_source *src;
  size_t ntypes;
  gb_rep_type *types;
  size_t *row_src; /* per result row: its source */
  size_t npts;
  gb_rep_point *pts;
  gb_specs specs;
  bool have_plan, have_sens;
  gb_planfile plan;
  gb_sensfile sens;
  gb_doc doc;
  gb_report_summary *sum;
} gb_rep;

/* Renders an x-y plot (or, without gnuplot, writes its .dat and .gp) and
 * puts it in the document with its caption; a plot with no data is skipped
 * with a note saying why. */
gb_err gb_rep_lines(gb_rep *r, const gb_plot_spec *p, const gb_plot_series *s, size_t ns, const char *caption);

/* The same for grouped bars. */
gb_err gb_rep_bars(gb_rep *r, const gb_plot_spec *p, const char *const *cats, size_t ncat, const gb_plot_series *s,
                   size_t ns, const char *caption);

/* Notes in the document that a plot was left out, and why. */
gb_err gb_rep_skip(gb_rep *r, const char *what, const char *why);

/* True when point p belongs to benchmark bench and metric metric. */
bool gb_rep_is(const gb_rep_point *p, const char *bench, const char *metric);

/* A GEMM precision's rank in the usual order (fp64, fp32, tf32, fp16, ...);
 * unknown ones after the known, then by name. For qsort on strings. */
int gb_rep_cmp_precision(const void *a, const void *b);

/* The datasheet peak of source s for a precision label ("bf16",
 * "fp8e4m3_fastaccum") or "hbm" (GB/s), from the rows' peak column
 * (largest) or else the datasheet (data/gpu_specs.csv); NaN when unknown. */
double gb_rep_peak(const gb_rep *r, size_t s, const char *bench, const char *precision);

/* True when point p is an HBM figure of membw (GB/s): a row the benchmark
 * marked `headline` in its detail (hot, arrays of at least 1 GiB and 8 L2
 * sizes), or, in a run with no such marks (older runs, other tools), a
 * case and dtype at the largest array its run measured it at (smaller
 * arrays may sit in L2). */
bool gb_rep_membw_hbm(const gb_rep *r, const gb_rep_point *p);

/* True when the membw row is marked as a headline (HBM) figure: the word
 * "headline" in its detail. */
bool gb_rep_row_headline(const gb_row *w);

/* Where source s came from, for captions: "RUN_ID (FILE)", with the
 * distinct file names (no directories) of its rows joined by ", ". */
void gb_rep_provenance(const gb_rep *r, size_t s, char *buf, size_t n);

/* Formats a measured value for a table: about 4 significant digits in the
 * C locale; "" for NaN. */
void gb_rep_fmt(char *buf, size_t n, double v);

/* A sorted list of distinct strings (borrowed). */
typedef struct gb_rep_names {
  size_t n, cap;
  const char **v;
} gb_rep_names;
gb_err gb_rep_names_add(gb_rep_names *l, const char *s);
size_t gb_rep_names_find(const gb_rep_names *l, const char *s); /* index or (size_t)-1 */
void gb_rep_names_free(gb_rep_names *l);

/* Sections. */
gb_err gb_rep_section_gemm(gb_rep *r);
gb_err gb_rep_section_fma(gb_rep *r);
gb_err gb_rep_section_membw(gb_rep *r);
gb_err gb_rep_section_copy(gb_rep *r);
gb_err gb_rep_section_collective(gb_rep *r);
gb_err gb_rep_section_roofline(gb_rep *r);
gb_err gb_rep_section_plan(gb_rep *r);

#endif
