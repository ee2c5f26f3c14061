/* gb_noise: how much a figure moves between independent runs of one build,
 * per benchmark, metric and size class: the floor the gate judges a figure
 * against when the baseline does not hold several runs.
 *
 * A size class is the figure's class in gb_desc (headline, latency, derived)
 * and a bucket of its size: a factor of 2 of bytes for byte-sized figures
 * ("headline/1G-2G": the sizes campaigns sweep, so that a noisy 16 MiB
 * collective does not share a floor with a quiet 32 MiB one), a factor of 4
 * of m*n*k for GEMM shapes ("headline/mnk 2^38-2^40"), "all" for figures
 * with no size (fma).
 *
 * Measuring (gb_noise_measure): the rows of several runs of the same build
 * (each run its own process, told apart by run_id) are grouped by figure; a
 * figure's value in a run is the median of its ok rows there. For every pair
 * of runs d = |ln(x_i / x_j)|. Per class, over all its figures' pairs:
 *   sigma = GB_NOISE_SAFETY * median(d) / (0.6745 * sqrt(2))
 * the robust (MAD) estimate of one run's standard deviation in ln units,
 * times a safety factor. Median, 95th percentile and maximum of d are kept
 * for the record. A figure gets a row of its own (figure = its key, without
 * gpu_type) where its own spread between the runs is wider than its
 * class's, or where at least GB_NOISE_FIG_MIN_RUNS runs measured it:
 *   sigma = GB_NOISE_SAFETY * sqrt((NU0 * c^2 + (k - 1) * s^2) / (NU0 + k - 1))
 * with c the class's robust sigma (before the safety factor), s the sd of
 * the figure's ln values over its k runs and NU0 = 4: its own spread,
 * shrunk towards the class's by a prior worth 4 runs, so never under
 * sqrt(NU0 / (NU0 + k - 1)) of the class's (0.52 with 12 runs). The gate
 * takes the figure's row where there is one, else the class's: a steady
 * figure in a class of figures that switch speed (int8 8192^3 beside tf32
 * 8192^3) is judged against its own spread. Figures noisier within a run
 * are also caught by the gate from their rows' own spread.
 *
 * Same GPU: where runs record their GPU (gpu_uuid), each class also gets a
 * row of scope "same-gpu" from the pairs of runs on one GPU only, by the
 * same estimator: the run-to-run noise of one card, without the offsets
 * between cards (2-3% on some GEMM and HBM figures of the H200). The gate
 * uses it only where both sides ran on one GPU and hold repetitions
 * (gb_gate.h); everything else is judged against the "any" rows. A figure
 * whose runs on one card give GB_NOISE_FIG_MIN_RUNS - 1 degrees of freedom
 * (runs - cards) also gets a "same-gpu" row of its own: its sd of ln pooled
 * within the cards, shrunk towards the class's same-gpu sigma as above; the
 * gate takes it for a baseline of several runs of the current run's card
 * (GB_GATE_SAME_GPU_MIN_RUNS).
 *
 * Power states: a figure whose per-run peak (its best sample: the rows'
 * max, or min where lower is better) is steadier between runs than its
 * median by GB_NOISE_PEAK_GAIN gets rows of scope "peak" (every pair) and
 * "peak-same-gpu" (runs of one card): the spread of ln(peak), shrunk
 * towards the class as above. Such a figure (tf32, fp16, fp16acc16 GEMM
 * 8192^3 on the H200: the power step falls inside the sample window in some
 * runs, after it in others) is judged by its peaks, like with like, and
 * never against less than its class's floor (gb_gate_judge.c: a run the
 * host or the clocks slow all through slows its best sample too).
 *
 * Cards: a figure measured on at least 3 cards (gpu_uuid) gets a row of
 * scope "cards": the standard deviation of the cards' mean ln(value) over
 * the cards, shrunk towards the class: the card-to-card spread the fleet
 * check (gb_fleet.h) judges a node against.
 *
 * The file (data/noise/floors.csv):
 *   gpu_type,benchmark,metric,size_class,sigma,figures,pairs,median_abs_ln,p95_abs_ln,max_abs_ln,figure,scope
 * A gpu_type of "*" applies to any GPU type; figure "" is the class row;
 * scope "" (or absent: older files) is "any". */
#ifndef GB_NOISE_H
#define GB_NOISE_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"
#include "gb_results.h"

#define GB_NOISE_SAFETY 2.0
#define GB_NOISE_NU0 4.0
/* runs of a figure that give it a floor of its own below its class's */
#define GB_NOISE_FIG_MIN_RUNS 6
/* a figure gets peak rows where its peak's sigma times this is under its own */
#define GB_NOISE_PEAK_GAIN 1.5

/* Selectors of figures by benchmark ("gemm") or benchmark and case
 * ("gemm/fp64"), joined by commas: for the runs of an earlier build that
 * `gpubench noise --earlier` adds, leaving out what a change of the build
 * measures differently. A case selector also picks the derived rows of
 * which the case is a side ("fp64_vs_fp32", "bf16_vs_fp64").
 * gb_noise_check_selectors: every benchmark named exists, else GB_E_USAGE
 * naming the option (what) and the selector. */
gb_err gb_noise_check_selectors(const char *what, const char *list);
bool gb_noise_selected(const char *list, const gb_row *r);
/* Drops the rows of res from index `from` on that list selects, keeping
 * the others in order; returns how many went. */
size_t gb_noise_leave_out(gb_results *res, size_t from, const char *list);

/* The size class of a row, e.g. "headline/1G-2G" (see above). */
void gb_noise_size_class(const gb_row *r, char *buf, size_t n);

typedef struct gb_noise_floor {
  char *gpu_type, *benchmark, *metric, *size_class;
  char *figure;        /* "" for a class; else the figure (gb_noise_figure) */
  bool same_gpu;       /* scope "same-gpu": from pairs of runs on one GPU (equal gpu_uuid) only */
  bool peak;           /* scope "peak" or "peak-same-gpu": the spread of the figure's per-run peak */
  bool cards;          /* scope "cards": the spread of the figure's mean between cards (gpu_uuid) */
  double sigma;        /* one run's standard deviation of ln(value), with the safety factor */
  size_t figures;      /* figures measured in the class */
  size_t pairs;        /* run pairs pooled */
  double median_abs, p95_abs, max_abs; /* of |ln ratio| between runs */
} gb_noise_floor;

typedef struct gb_noise_index gb_noise_index;

typedef struct gb_noise_table {
  size_t n;
  gb_noise_floor *v;
  size_t runs;         /* runs measured (gb_noise_measure) */
  /* the lookups' index over v, built by gb_noise_read and gb_noise_measure
   * (owned; gb_noise_free frees it); NULL (a table filled by hand, or a
   * copy with idx set to NULL): the lookups scan v, with the same answers */
  gb_noise_index *idx;
} gb_noise_table;

/* Reads a floor file. Errors name file:line and the field: GB_E_IO,
 * GB_E_INPUT (a missing column, sigma not a positive number), GB_E_NOMEM. */
gb_err gb_noise_read(const char *path, gb_noise_table *t);
gb_err gb_noise_read_mem(const char *name, const char *text, size_t len, gb_noise_table *t);

/* Measures floors from res (rows of at least 2 runs). Errors: GB_E_INPUT
 * (fewer than 2 runs, naming how many; runs of different GPU types),
 * GB_E_NOMEM. */
gb_err gb_noise_measure(const gb_results *res, gb_noise_table *t);

/* Appends the table as CSV (header first). */
gb_err gb_noise_write(const gb_noise_table *t, gb_buf *out);

void gb_noise_free(gb_noise_table *t);

/* The figure of a row as floor files name it: "gemm/fp64 fp64 m=4096
 * n=4096 k=14336 tflops x1" (benchmark/case, dtype, sizes, metric, GPU count). */
void gb_noise_figure(const gb_row *r, char *buf, size_t n);

/* The floor of a row's class: the entry for its gpu_type, else for "*";
 * NULL when the table has neither (t may be NULL). */
const gb_noise_floor *gb_noise_lookup(const gb_noise_table *t, const gb_row *r);

/* The floor of the row's figure itself (same gpu_type only), or NULL. */
const gb_noise_floor *gb_noise_lookup_figure(const gb_noise_table *t, const gb_row *r);

/* The figure's own floor of scope "same-gpu" (its spread between runs on
 * one card), or NULL. */
const gb_noise_floor *gb_noise_lookup_figure_same_gpu(const gb_noise_table *t, const gb_row *r);

/* The class floor of scope "same-gpu" for r (NULL when the table has none). */
const gb_noise_floor *gb_noise_lookup_same_gpu(const gb_noise_table *t, const gb_row *r);

/* The peak floor of the row's figure (scope "peak-same-gpu" with
 * same_gpu where there is one, else "peak"), or NULL: the figure is not
 * one that switches power state. */
const gb_noise_floor *gb_noise_lookup_peak(const gb_noise_table *t, const gb_row *r, bool same_gpu);

/* The card-to-card floor of the row's figure (scope "cards"), or NULL. */
const gb_noise_floor *gb_noise_lookup_cards(const gb_noise_table *t, const gb_row *r);

/* The shipped floors: gb_data_dir()/noise/floors.csv, the data folder
 * found relative to the program (GPUBENCH_DATA_DIR, else DIR/data beside
 * it, DIR/../share/gpubench, the source tree it was built from: see
 * gb_runinfo.h). Writes the path and returns true when it is readable;
 * else the paths tried (gb_data_dir_tried), joined by ", ", go to looked
 * (may be NULL with nlooked 0). */
bool gb_noise_find_default(char *buf, size_t n, char *looked, size_t nlooked);

/* Loads the floors a command judges with: path ("none": none, built-in
 * floors on purpose), else the shipped ones (gb_noise_find_default). When
 * none is found, a warning for every output goes to warning (empty
 * otherwise), or with strict GB_E_INPUT naming where it looked. Other
 * errors: gb_noise_read's. */
gb_err gb_noise_load(const char *path, bool strict, gb_noise_table *t, char *warning, size_t nwarning);

/* Whether t holds any floor for gpu_type (or for "*", every type). */
bool gb_noise_has_type(const gb_noise_table *t, const char *gpu_type);

/* The cross-type prior of a row whose GPU type t has no floors for: the
 * widest "any" floor, over every type t holds, of the row's class (its
 * benchmark, metric and size class) and of its figure (a figure that moves
 * more than its class on some type); NULL when no type measured either.
 * The types it looked at go to types (", " between; may be NULL with
 * ntypes 0). A verdict on a type nobody measured rests on what holds on
 * every type measured (gb_gate.h). */
const gb_noise_floor *gb_noise_prior(const gb_noise_table *t, const gb_row *r, char *types, size_t ntypes);

/* The card-to-card prior of a row whose GPU type t holds no "cards" row
 * for its figure (the type's floors come from fewer than 3 cards, so its
 * "any" rows hold the offsets of those cards only): the widest "cards" row
 * of the figure over the other types t holds; NULL when none has one. The
 * types go to types as for gb_noise_prior. The gate never judges two cards
 * of such a type against less (gb_gate.h). */
const gb_noise_floor *gb_noise_prior_cards(const gb_noise_table *t, const gb_row *r, char *types, size_t ntypes);

/* The same for a figure judged by its peaks: the widest peak row of the
 * figure (scope "peak-same-gpu" with same_gpu, else "peak") over the other
 * types whose floors hold a "cards" row for it (3 cards or more: whether
 * every card's runs reach the fast state is a property of cards, which
 * floors of one or two cards cannot show); NULL when none. */
const gb_noise_floor *gb_noise_prior_peak(const gb_noise_table *t, const gb_row *r, bool same_gpu, char *types,
                                          size_t ntypes);

/* The built-in floor (sigma, ln units) of a class when no table has one:
 * headline and derived 0.01, latency 0.15. */
double gb_noise_default_sigma(const gb_row *r);

#endif
