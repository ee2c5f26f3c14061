/* gb_rep: the state and helpers the parts of a report share. Not a public
 * API. Calls go one way, from gb_report.c down this list:
 *   gb_report.c      reads the inputs, groups rows into sources and points,
 *                    calls the parts below in the report's order
 *   gb_rep_summary.c the first screen; reads gb_rep_headline.c's best
 *                    points and gb_rep_problems.c's counts
 *   gb_rep_plan.c    the procurement part; calls gb_rep_decision.c
 *   gb_rep_tables.c, gb_rep_headline.c, gb_rep_problems.c
 *                    the campaign tables (the headline table reads the
 *                    section table's headline rows)
 *   gb_rep_compare.c the comparison view (--compare)
 *   gb_rep_<name>.c  one section each, listed in gb_rep_sections.c; the
 *                    sections never call each other
 *   gb_rep_series.c  plot series and grouped bars (below)
 *   gb_rep.c         the helpers declared here, calling none of the above
 * Adding a section: a file defining gb_rep_section_<name>, its prototype in
 * gb_rep_sections.h and one line in the table of gb_rep_sections.c. */
#ifndef GB_REP_H
#define GB_REP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_doc.h"
#include "gb_planfile.h"
#include "gb_plot.h"
#include "gb_report_types.h"
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
  bool drawn;              /* among the newest GB_REP_MAX_DRAWN runs of its type: it gets per-run plots and
                            * a series in the charts that compare runs; the rest are in the tables only */
} gb_rep_source;

/* Per GPU type, the runs drawn in per-run plots and run-by-run charts: the
 * newest (by timestamp, then input order). A report over hundreds of runs
 * of one type stays a report (and its cost linear): every run's figures
 * are in the tables, its history in `gpubench history`. */
#define GB_REP_MAX_DRAWN 8

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
  double lo, hi;   /* the spread: lowest and highest repetition (one repetition: the row's min and max
                    * over its samples where recorded, else the value) */
  double power_w;  /* median board power over the repetitions from the energy counter, each row's
                    * energy_j / energy_s (gb_row_energy_power_w); NaN: none, row->energy_note says why
                    * ("" in files from before the energy columns). The rows' power_w, a 1-s average,
                    * is telemetry and never taken here */
  bool power_implausible; /* value / power_w is over the datasheet bound (gb_energy_plausible): no per-W */
  bool headline; /* its row holds its benchmark's headline figure (gb_desc_is_headline); worked out
                  * only for benchmarks whose headline-table rows ask for it (headline_rows) */
} gb_rep_point;

typedef struct gb_rep {
  const gb_report_options *o;
  const char *dir;
  gb_results res;
  size_t first_file_rows; /* rows of the first results file (res holds the files' rows in order) */
  size_t nsrc;
  gb_rep_source *src;
  size_t ntypes;
  gb_rep_type *types;
  size_t *row_src; /* per result row: its source */
  size_t npts;
  gb_rep_point *pts;
  /* indexes (gb_report.c), so that per-source work reads only its own rows
   * and points (linear in the input, not sources x rows): the rows of source
   * s are src_rows[src_row_off[s] .. src_row_off[s + 1]), its points
   * src_pts[src_pt_off[s] .. src_pt_off[s + 1]), each in input order; the
   * rows of source s lie in res.rows[src_lo[s] .. src_hi[s]] */
  size_t *src_rows, *src_row_off;
  size_t *src_pts, *src_pt_off;
  size_t *src_lo, *src_hi;
  gb_specs specs;
  bool have_plan, have_sens;
  gb_planfile plan;
  gb_sensfile sens;
  gb_doc doc;
  gb_report_summary *sum;
  size_t nundrawn; /* sources not drawn (gb_rep_source.drawn) */
} gb_rep;

/* The campaign tables (gb_rep_tables.c, gb_rep_headline.c,
 * gb_rep_problems.c) and the summary with its verdict (gb_rep_summary.c,
 * written into front, which gb_report.c puts first). */
gb_err gb_rep_table_headline(gb_rep *r);
gb_err gb_rep_table_inputs(gb_rep *r);
gb_err gb_rep_table_environment(gb_rep *r);
gb_err gb_rep_table_all(gb_rep *r);
gb_err gb_rep_table_problems(gb_rep *r);
gb_err gb_rep_summary(gb_rep *r, gb_doc *front);

/* Rows per status (indexed by gb_status) and the number of distinct causes
 * of the problem rows: not ok and not unsupported (status, benchmark, cause
 * from the detail). */
gb_err gb_rep_problem_counts(const gb_rep *r, size_t counts[GB_STATUS_COUNT], size_t *ncauses);
/* What a status other than ok means and what to do, in a sentence. */
const char *gb_rep_status_advice(gb_status s);

/* Where some runs are not drawn: a note saying which and where they are
 * (once per call; call it in each section that draws per run). */
gb_err gb_rep_note_undrawn(gb_rep *r);

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

/* Marks each point whose per-W figure is over its datasheet bound
 * (gb_energy_plausible: the peak of gb_rep_peak over the type's TDP, with
 * GB_ENERGY_PLAUSIBLE_MARGIN): its power_implausible. After the points. */
void gb_rep_judge_power(gb_rep *r);

/* The point that gives p's per-W figure: p when it has energy-counter
 * power, else the best-valued point of p's GPU type, benchmark, case and
 * dtype that has (a GEMM burst figure's sustained window); NULL: none. */
const gb_rep_point *gb_rep_power_point(const gb_rep *r, const gb_rep_point *p);

/* p's per-W phrase (the figure comes from gb_rep_power_point, its value over
 * its power): "1.19 TFLOP/s per W at 683 W (energy counter over 2.5 s,
 * tflops_sustained)", returning 1; or why there is none and how to measure
 * it, returning 0; or why the figure is invalid, returning -1. */
int gb_rep_per_watt(const gb_rep *r, const gb_rep_point *p, char *buf, size_t n);

/* True when point p is an HBM figure of membw (GB/s): a membw headline
 * row, by its headline column or, in files without one, gb_desc's HBM rule
 * (hot, arrays of at least 1 GiB and 8 L2 sizes). */
bool gb_rep_membw_hbm(const gb_rep *r, const gb_rep_point *p);

/* Where source s came from, for captions: "RUN_ID (FILE)", with the
 * distinct file names (no directories) of its rows joined by ", ". */
void gb_rep_provenance(const gb_rep *r, size_t s, char *buf, size_t n);

/* The part of a path after its last '/' (file names in the report, never
 * the directories of the machine that wrote it). */
const char *gb_rep_basename(const char *path);

/* Formats a measured value for a table: about 4 significant digits in the
 * C locale; "" for NaN. */
void gb_rep_fmt(char *buf, size_t n, double v);
/* A size or shape for tables: "8192x8192x8192", "1 GiB", "". */
void gb_rep_fmt_size(const gb_row *w, char *buf, size_t n);

/* USD for a reader, in thousands grouped: "32,251", "2,100,000", "12.50";
 * "n/a" for NaN. */
void gb_rep_usd(char *buf, size_t n, double usd);

/* A sorted list of distinct strings (borrowed). */
typedef struct gb_rep_names {
  size_t n, cap;
  const char **v;
} gb_rep_names;
gb_err gb_rep_names_add(gb_rep_names *l, const char *s);
size_t gb_rep_names_find(const gb_rep_names *l, const char *s); /* index or (size_t)-1 */
void gb_rep_names_free(gb_rep_names *l);

/* Loops i over the points of source s, in order (the index above):
 *   for (GB_REP_SRC_PTS(r, s, k, i)) { const gb_rep_point *q = &r->pts[i]; ... } */
#define GB_REP_SRC_PTS(r, s, k, i)                                                                       \
  size_t k = (r)->src_pt_off[s], i = 0;                                                                  \
  k < (r)->src_pt_off[(s) + 1] && ((i = (r)->src_pts[k]), 1);                                            \
  k++

/* A small open-addressing hash index of items by a caller-computed hash:
 * gb_rep_hash_find returns the item whose hash is h and which eq accepts,
 * else inserts idx and returns it. Keeps grouping linear in the input. */
typedef struct gb_rep_hash {
  size_t cap;      /* a power of two, at least twice the items */
  size_t *slot;    /* item + 1; 0 = empty */
  uint64_t *hash;  /* hash of each slot's item */
} gb_rep_hash;
gb_err gb_rep_hash_init(gb_rep_hash *t, size_t nmax);
size_t gb_rep_hash_find(gb_rep_hash *t, uint64_t h, size_t idx, bool (*eq)(const void *ctx, size_t a, size_t b),
                        const void *ctx);
void gb_rep_hash_free(gb_rep_hash *t);
/* FNV-1a steps over a string (with its end) and a number. */
uint64_t gb_rep_hash_str(uint64_t h, const char *s);
uint64_t gb_rep_hash_i64(uint64_t h, int64_t v);
#define GB_REP_HASH_SEED 14695981039346656037ULL

/* Counting sort of items 0..n-1 by key[i] < nkeys: out (n items, input
 * order kept within a key) and off (nkeys + 1: off[k] the start of key k,
 * off[nkeys] the end). */
gb_err gb_rep_group_by(const size_t *key, size_t n, size_t nkeys, size_t **out, size_t **off);

/* ---- plot series (gb_rep_series.c) ---- */

/* A growable series of points with its plot style. */
typedef struct sbuf {
  char title[192];
  size_t n, cap;
  double *x, *y;
  double *lo, *hi; /* each point's spread over repetitions (NaN: none) */
  double *xlo, *xhi; /* each point's spread in x, e.g. a plan's band of hours (NaN: none) */
  const char **labels;
  gb_plot_style style;
  bool emphasis;
  bool dashed; /* open circles, dashed line */
  int colour; /* 0: by position */
  gb_plot_label_side side;
} sbuf;

/* Series by title. */
typedef struct sset {
  size_t n;
  sbuf *v;
} sset;

/* The series titled title, appended empty when new; NULL when out of memory. */
sbuf *gb_rep_sset_get(sset *ss, const char *title);
/* Appends a point (label borrowed, may be NULL); b NULL: out of memory. */
gb_err gb_rep_sbuf_add(sbuf *b, double x, double y, const char *label);
/* The same with the point's spread over repetitions, lo to hi (NaN: none),
 * drawn as an error bar. */
gb_err gb_rep_sbuf_add_err(sbuf *b, double x, double y, double lo, double hi, const char *label);
/* The same with a spread in x too, xlo to xhi (NaN: none). */
gb_err gb_rep_sbuf_add_xyerr(sbuf *b, double x, double y, double xlo, double xhi, double lo, double hi,
                             const char *label);
/* Adds (x, y) unless the series has a point at the same x (to 1e-9), which
 * then keeps the larger y (and its spread, for _err). */
gb_err gb_rep_sbuf_add_max(sbuf *b, double x, double y);
gb_err gb_rep_sbuf_add_max_err(sbuf *b, double x, double y, double lo, double hi);
/* True when a point of the series has a spread (lo below or hi above y). */
bool gb_rep_sbuf_has_err(const sbuf *b);
/* True when a point of the series has a spread in x (xlo below or xhi above x). */
bool gb_rep_sbuf_has_xerr(const sbuf *b);
bool gb_rep_sset_has_err(const sset *ss);
/* What a caption says of the error bars gb_rep_point's spread gives. */
#define GB_REP_ERRBAR_NOTE "; error bars: lowest to highest repetition (one repetition: its min and max)"
/* Sorts a series by x. */
void gb_rep_sbuf_sort(sbuf *b);
void gb_rep_sset_free(sset *ss);
/* Plot series over ss (each sorted by x; malloc'd); with_labels keeps the point labels; a series
 * with a spread (gb_rep_sbuf_has_err, _has_xerr) gets error bars. */
gb_plot_series *gb_rep_sset_series(sset *ss, bool with_labels);
/* A line plot of ss into the document, or a note that there is no data. */
gb_err gb_rep_lines_from(gb_rep *r, const gb_plot_spec *p, sset *ss, bool with_labels, const char *caption);

/* Grouped bars of the categories cats by source: per source and category
 * the best value of bench in the first of metrics that has one (the value
 * at the largest size when at_largest); datasheet ticks from gb_rep_peak
 * when peak_bench is not NULL. */
gb_err gb_rep_bars_by_source(gb_rep *r, const gb_plot_spec *p, const gb_rep_names *cats, const char *bench,
                             const char *const *metrics, size_t nmetrics, bool at_largest, const char *peak_bench,
                             const char *caption);

/* The distinct cases of the points of bench in any of metrics, into out. */
gb_err gb_rep_collect_cases(const gb_rep *r, const char *bench, const char *const *metrics, size_t nmetrics,
                            gb_rep_names *out);

/* File-name-safe copy of a label: letters and digits kept, each run of
 * others one '-', none at the end ("H200-SXM-141GB (r1)" -> "H200-SXM-141GB-r1"). */
void gb_rep_stem_part(char *buf, size_t n, const char *s);

/* The precision class of a GEMM or fma case, which splits plots that would
 * draw more than ~8 series: 0 floating wide (fp64, fp32, tf32 and anything
 * not named below), 1 16-bit (fp16*, bf16*), 2 8-bit and below (fp8*, fp6*,
 * fp4*, int8*, int4*). gb_rep_precision_class_name: "floating wide (fp64,
 * fp32, tf32)" and so on, for titles and captions; gb_rep_precision_class_stem:
 * "wide", "16bit", "8bit", for file names. */
#define GB_REP_PRECISION_CLASSES 3
int gb_rep_precision_class(const char *c);
const char *gb_rep_precision_class_name(int cls);
const char *gb_rep_precision_class_stem(int cls);

/* m*n*k of a GEMM row. */
static inline double gb_rep_shape_volume(const gb_row *w) { return (double)w->m * (double)w->n * (double)w->k; }

#endif
