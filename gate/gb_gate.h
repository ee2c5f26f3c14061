/* gb_gate: the regression gate. Compares a current results set with a
 * baseline figure by figure and gives each a verdict, then an exit code.
 *
 * Figure: (gpu_type, gpu_count, benchmark, case, dtype, m, n, k, bytes,
 * metric). Its rows are grouped by run (run_id): a run is one process, the
 * unit of independence; its value is the median of its ok (or throttled)
 * rows, one per repetition (`rep`). Changes are oriented so that a negative
 * change is always worse (gb_metric_direction).
 *
 * Like with like: the `settings`, `samples` (profile, --iters) and library
 * versions (cublaslt, nvrtc, nccl) of a figure's rows must match between the
 * sides; otherwise the figure is "not comparable", naming the setting.
 *
 * Class (gb_desc_class): headline figures decide the outcome; derived ones
 * (speedup) too when their shape is a headline one; latency-bound ones are
 * judged against their own floor and reported as information (worse-info,
 * better-info); meaningless ones are not judged.
 *
 * Noise: sigma, one run's standard deviation of ln(value) between
 * independent runs, is the class's floor (gb_noise.h: the --noise table,
 * else a built-in one; for a GPU type the table does not hold, the
 * cross-type prior: GB_GATE_UNFLOORED_MIN_RUNS; with a store's history,
 * gb_gate_options.learned, the store's own spread pooled with that floor
 * as a prior worth NU0 runs, gb_spread.h) pooled with the spread of the baseline runs when there
 * are several (sigma^2 = (NU0 * floor^2 + sum (k_i - 1) s_i^2) / (NU0 + sum
 * (k_i - 1)), NU0 = 4, over both sides), and never below the figure's own
 * spread: GB_GATE_OWN_SPREAD times its rows' within-run stddev / value (a
 * figure whose samples scatter within a run moves its median between runs:
 * on the H200 A/A runs by up to about a third of that scatter), or the
 * spread of its repetitions.
 *   SE = sigma * sqrt(1/k_base + 1/k_cur), d = mean ln(cur) - mean ln(base)
 * One GPU, repetitions (method "repetitions, same GPU"): where each side is
 * one run of at least GB_GATE_MIN_REPS repetitions (run --repeat N: every
 * repetition a fresh setup, so its samples are independent) and both ran on
 * the same GPU (equal gpu_uuid), the noise comes from the repetitions
 * themselves, plus the floor of scope "same-gpu" for what moves between
 * processes on one card:
 *   SE^2 = (pi/2) s_w^2 (1/n_base + 1/n_cur) + 2 floor_same^2
 * with s_w the pooled sd of ln over both sides' repetitions (pi/2: each side
 * is the median of its n repetitions). Card-to-card offsets, which the "any"
 * floors carry, are not in it; without a same-gpu floor, or across GPUs,
 * the rule above applies. The own-spread bound applies here too.
 * Two states seen in the baseline: a headline figure whose baseline runs
 * (at least GB_GATE_PEAK_MIN_RUNS) hop between two states by themselves, so
 * that their peaks scatter less than their medians by GB_GATE_PEAK_RATIO, is
 * judged by its peaks against the floor above (method "peak from the
 * runs"), as the figures with peak floors are everywhere (gb_noise.h).
 * Derived figures (A_vs_B, a ratio of two measured ones) are judged after
 * the measured ones and flagged only where a side moved beyond its own
 * noise too; else their change is noise.
 *   p = two-sided normal p of d / SE
 *   flagged when |d| > T = max(z(1 - alpha/2) * SE, ln(1 + threshold/100))
 * MDC (minimum detectable change) = exp(T) - 1: the smallest change the gate
 * flags for this figure and baseline. regression: flagged and worse;
 * improvement: flagged and better; noise: beyond the threshold but within
 * z * SE; unchanged otherwise.
 * Other verdicts: failed (a current row has status other than ok; "newly"
 * when no baseline row of the figure failed), new (only in current), missing
 * (only in baseline), insufficient (a baseline median of 0, or no ok
 * baseline rows). */
#ifndef GB_GATE_H
#define GB_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_direction.h"
#include "gb_error.h"
#include "gb_gate_config.h"
#include "gb_noise.h"
#include "gb_results.h"
#include "gb_spread.h"

/* The share of a row's within-run relative stddev taken as the least
 * between-run noise of its figure (see above). */
#define GB_GATE_OWN_SPREAD (1.0 / 3.0)

/* Two states seen in the baseline: a headline figure with at least
 * GB_GATE_PEAK_MIN_RUNS baseline runs whose peaks (best samples) scatter
 * less than their medians by GB_GATE_PEAK_RATIO (standard deviations of
 * ln) is judged by its peaks (method "peak from the runs"), as the floors'
 * peak rows do for the figures that hop on every card. The ratio is that of
 * two spreads that differ beyond chance: 4^2 = 16 is the 1% point of F(4, 4)
 * (five runs; conservative for more). A smaller one picks, among thousands
 * of figures, those whose peaks look steady by luck, and judges them by an
 * underestimated noise (a 1.5 ratio false-alarmed once on the store's
 * synthetic year, scripts/bench-store.sh). */
#define GB_GATE_PEAK_MIN_RUNS 3
#define GB_GATE_PEAK_RATIO 4.0

/* A GPU type the floors do not hold (gb_noise_has_type): each figure is
 * judged against the cross-type prior, the widest floor of its class or
 * figure over every type they hold (gb_noise_prior; method "cross-type
 * prior", the note naming the types and what would tighten it); a figure
 * no type measured is "insufficient" unless its baseline holds
 * GB_GATE_UNFLOORED_MIN_RUNS runs or more, whose own spread then judges it
 * (method "baseline runs"). */
#define GB_GATE_UNFLOORED_MIN_RUNS 3

/* A type whose floors hold no "cards" row for a figure (measured on fewer
 * than 3 cards): across cards (sides not known to be one card) the
 * figure's floor is never below the widest "cards" row of the figure over
 * the other types (gb_noise_prior_cards; method "cards prior"), and a peak
 * floor never below the widest peak floor of the figure over the types
 * measured on 3 cards or more (gb_noise_prior_peak; "peak, cards prior"):
 * two cards show neither the offsets between cards nor whether every
 * card's runs reach the fast state (docs/ci.md). */

/* The fewest repetitions per side for the same-GPU repetition rule. */
#define GB_GATE_MIN_REPS 3

/* The fewest baseline runs for the same-card baseline rule: where every
 * baseline run and the current one ran on one GPU (equal gpu_uuid) and the
 * floors hold the figure's own same-card row (scope "same-gpu" with a
 * figure: its spread between runs on one card, pooled over the cards that
 * measured it, shrunk towards its class's same-card floor), that row takes
 * the cross-card floor's place in the pooling above (method "floor+runs,
 * same GPU"): what differs between cards is not in a comparison of one
 * card with itself. */
#define GB_GATE_SAME_GPU_MIN_RUNS 3

/* Unstable: a headline figure whose current rows' median stddev / value is
 * past max(GB_GATE_UNSTABLE_CV, GB_GATE_UNSTABLE_RATIO x the baseline's).
 * On 45 real H200 quick campaigns the widest headline scatter was 17.5%
 * (copy/d2d 16 MiB) and 9% on GEMM (tf32 8192^3, its two power states). */
#define GB_GATE_UNSTABLE_CV 0.25
#define GB_GATE_UNSTABLE_RATIO 4.0

/* Verdicts, most severe first (the order reports list them in). */
typedef enum gb_verdict {
  GB_VERDICT_REGRESSION = 0,
  GB_VERDICT_FAILED,
  GB_VERDICT_COLLAPSED,   /* a headline figure at 0, negative or not finite now, not in the baseline */
  GB_VERDICT_UNSTABLE,    /* a headline figure whose within-run scatter is past GB_GATE_UNSTABLE_* */
  GB_VERDICT_MISSING,
  GB_VERDICT_NOT_COMPARABLE,
  GB_VERDICT_NOISE,
  GB_VERDICT_INSUFFICIENT,
  GB_VERDICT_NEW,
  GB_VERDICT_IMPROVEMENT,
  GB_VERDICT_WORSE_INFO,  /* a latency-class figure past its floor, worse: information */
  GB_VERDICT_BETTER_INFO, /* the same, better */
  GB_VERDICT_NOT_JUDGED,  /* a meaningless figure (gb_desc) */
  GB_VERDICT_UNSUPPORTED, /* no measurement on a side that could run it: rows of status unsupported only (information) */
  GB_VERDICT_UNCHANGED,
  GB_VERDICT_COUNT
} gb_verdict;

/* "regression", "failed", "not-comparable", ... */
const char *gb_verdict_name(gb_verdict v);

/* gb_metric_direction: gb_direction.h (included above). */

/* z with P(|Z| > z) = alpha for a standard normal Z (alpha in (0, 1)). */
double gb_gate_z(double alpha);

/* A key as people read it: "H200-SXM-141GB x1 gemm/bf16 bf16 m=8192 n=8192
 * k=8192 tflops", then " [settings]" where the row has any. malloc'd; NULL
 * when out of memory. */
char *gb_gate_key_label(const gb_row *r);

typedef struct gb_gate_options {
  double threshold_pct; /* smallest change ever flagged; NaN: the config's [defaults], else 2 */
  double alpha;         /* NaN: the config's [defaults], else 0.01 */
  bool allow_mismatch;  /* compare across machine identities and library versions */
  bool gate_latency;    /* latency-class figures decide the outcome too */
  bool allow_missing;   /* a headline figure only in the baseline does not fail (a deliberate change of profile) */
  const gb_gate_config *config; /* may be NULL */
  const gb_noise_table *noise;       /* floors (gb_noise.h); NULL: built-in ones */
  const gb_spread_table *learned;    /* spreads from the store's history of the type (gb_spread.h); NULL: none */
  const char *warning;  /* said in every output (no floors file found: gb_noise_load); NULL or "" for none */
} gb_gate_options;

/* threshold and alpha NaN (config or built-in defaults), no noise table. */
gb_gate_options gb_gate_defaults(void);

/* One side of one key. */
typedef struct gb_gate_side {
  size_t nrows;         /* rows of the figure, any status */
  size_t nok;           /* rows with status ok or throttled = samples */
  size_t nruns;         /* distinct run_ids among them */
  double *values;       /* per run: the median of its samples (owned by the report) */
  double median;        /* of the per-run values; NaN when none */
  double mean_ln;       /* mean of ln(per-run value); NaN when none */
  double sd_ln;         /* their standard deviation (nruns >= 2), else NaN */
  double rep_sd_ln;     /* pooled sd of ln over repetitions within runs; NaN without repetitions */
  double cv;            /* median over its rows of GB_GATE_OWN_SPREAD * stddev / value; NaN when unknown */
  double raw_cv;        /* that median of stddev / value itself */
  double *peaks;        /* per run: its best sample (largest max; smallest min where lower is better), NaN if unknown; in values' block */
  double peak_mean_ln, peak_sd_ln; /* of ln(peaks), as for the values */
  bool collapsed;       /* a run's value is 0, negative or not finite */
  const gb_row *collapsed_row;
  const char *gpu;      /* the one gpu_uuid of its ok rows; "" when they differ or none is recorded */
  const gb_row *row;    /* a representative row (first failed one if any) */
  const gb_row *failed; /* first row with status invalid or error, or NULL */
  const gb_row *unsupported; /* first row with status unsupported (a case the device cannot run), or NULL */
} gb_gate_side;

typedef struct gb_gate_item {
  char *key;            /* readable key, e.g. "H200-SXM-141GB x1 gemm/bf16 bf16 8192x8192x8192 tflops" */
  const char *benchmark, *metric; /* borrowed from the rows */
  gb_verdict verdict;
  bool newly_failed;
  bool fails;           /* this figure fails the gate (regression, newly failed, collapsed, unstable, missing) */
  bool peak;            /* judged by its per-run peaks (a figure that switches power state) */
  bool same_gpu;        /* both sides ran on one GPU (equal gpu_uuid) */
  const char *node;     /* per-node comparison: "host gpu_uuid" (borrowed); else NULL */
  int direction;
  gb_gate_side base, cur;
  double change_pct;    /* oriented, negative = worse; NaN when not compared */
  double ratio;         /* median(cur) / median(base); NaN when not compared */
  double threshold_pct; /* = mdc_pct: the smallest change flagged; NaN when not judged */
  double mdc_pct;       /* minimum detectable change at alpha, percent; NaN when not judged */
  double sigma;         /* one run's noise, ln units (see above); NaN when not judged */
  double p_value;       /* NaN when not judged */
  int fclass;           /* gb_fclass of the figure */
  bool gated;           /* its verdict decides the outcome */
  const char *method;   /* where sigma came from: "floor", "floor+baseline", "own spread", "" */
  char note[400];       /* why not comparable / insufficient / failed, or "" */
} gb_gate_item;

typedef struct gb_gate_report {
  size_t nitems;
  gb_gate_item *items;     /* sorted by verdict severity, then key */
  size_t count[GB_VERDICT_COUNT];
  size_t newly_failed;
  size_t failing;          /* items that fail (gb_gate_item.fails) */
  size_t nodes;            /* per-node comparison: the nodes of the current side (2 or more); else 0 */
  size_t compared;         /* keys with regression/improvement/noise/unchanged */
  size_t common;           /* keys present on both sides */
  double geomean_ratio;    /* geometric mean of oriented ratios (> 1 better); NaN when none */
  double threshold_pct, alpha; /* the base threshold and alpha used */
  bool mismatch;           /* machine identities differ (and not allowed) */
  char mismatch_msg[512];
  bool allowed_mismatch;   /* identities differ but --allow-mismatch */
  const char *warning;     /* gb_gate_options.warning (borrowed), "" for none */
  char libraries_msg[512]; /* "cublaslt 13.1.0 -> 13.2.0, ..." where both sides recorded a library version and
                            * the versions differ (a likely cause of what changed; not a mismatch); "" if none */
  size_t self_rows;        /* baseline rows left out: their run is also in the current results (never its own
                            * baseline); self_msg names the runs ("" when none) */
  char self_msg[512];
} gb_gate_report;

/* Compares cur against base. Fills *rep (free with gb_gate_report_free).
 * A figure is also its unit: where the sides' units of a figure differ it
 * is not-comparable naming both, and a gated headline so fails. Baseline
 * rows of a run (run_id) the current results hold are left out (self_rows,
 * self_msg): a run is never its own baseline.
 * A machine mismatch (gpu_type, maximum gpu_count, driver or cuda sets differ)
 * without allow_mismatch sets rep->mismatch and compares nothing. Errors:
 * GB_E_INPUT (a metric of unknown direction with no config rule, naming its
 * file:line; bad options), GB_E_NOMEM. On error *rep is empty. */
gb_err gb_gate_compare(const gb_results *base, const gb_results *cur, const gb_gate_options *opt,
                       gb_gate_report *rep);

void gb_gate_report_free(gb_gate_report *rep);

/* Reads the results files of one side of a comparison: each input a CSV
 * or, with dirs, a directory of them (gb_inputs_collect). Every file must hold
 * rows, and all of one GPU type. Errors (naming the file): GB_E_IO,
 * GB_E_INPUT (a directory with no .csv, a file with a header and no rows,
 * mixed GPU types: "B.csv: gpu_type A100-SXM-80GB, but A.csv is on
 * H200-SXM-141GB"), GB_E_NOMEM. On error *res is freed. */
gb_err gb_gate_read_side(char *const *inputs, size_t ninputs, bool dirs, gb_results *res);

/* One baseline file against one current file, judged as `gpubench compare
 * BASELINE CURRENT` judges them with its defaults (both read by
 * gb_gate_read_side, the shipped floors by gb_noise_load, no config, a
 * machine mismatch not compared): what every other view of a comparison
 * shows, so that it never gives another verdict. rep borrows from the rest:
 * do not copy the struct; free it with gb_gate_pair_free. */
typedef struct gb_gate_pair {
  gb_results base, cur;
  gb_noise_table noise;
  char warning[1400]; /* no floors file found: said in every output; "" */
  char floors[4096];  /* the floors file judged with; "" when none was found */
  gb_gate_report rep;
} gb_gate_pair;

/* Errors: those of gb_gate_read_side, gb_noise_load and gb_gate_compare;
 * on error *p is empty. */
gb_err gb_gate_judge_pair(const char *base_path, const char *cur_path, gb_gate_pair *p);

void gb_gate_pair_free(gb_gate_pair *p);

/* The gate's exit code: 3 on a machine mismatch; 1 on any regression or
 * newly failed row of a gated figure; 3 when no figure could be compared; 0
 * otherwise. (Bad input, exit 2, never reaches a report.) */
int gb_gate_exit_code(const gb_gate_report *rep);

/* The one-line summary, e.g. "gate: FAIL: 1 regression, 0 improvement, ...". */
gb_err gb_gate_summary(const gb_gate_report *rep, gb_buf *out);

/* Plain-text report for a terminal: one line per key whose verdict is not
 * unchanged (every key with all), then the summary line. */
gb_err gb_gate_format_text(const gb_gate_report *rep, bool all, gb_buf *out);

/* A log's few lines: the summary, then one line per regression, newly
 * failed and not-comparable figure (at most 20, then a count). */
gb_err gb_gate_format_short(const gb_gate_report *rep, gb_buf *out);

/* The most characters the markdown report ever has (a pull-request comment's
 * limit). */
#define GB_GATE_MARKDOWN_MAX 65536

/* Markdown for a pull-request comment or a CI job summary, never longer
 * than GB_GATE_MARKDOWN_MAX: the summary, then the figures by verdict
 * (regressions first); unchanged figures are counted, not listed; what does
 * not fit is cut with a count. */
gb_err gb_gate_format_markdown(const gb_gate_report *rep, gb_buf *out);

/* JUnit XML: one test case per key; a failure for a regression or a newly
 * failed row, skipped for insufficient, missing and failed-before rows; a
 * machine mismatch is one test case in error. Text is XML-escaped and
 * control characters and invalid UTF-8 are replaced. */
gb_err gb_gate_format_junit(const gb_gate_report *rep, gb_buf *out);

/* Appends s to out escaped for XML text and attribute values. */
gb_err gb_xml_escape(gb_buf *out, const char *s);

#endif
