/* gb_gate: the regression gate. Compares a current results set with a
 * baseline key by key and gives each key a verdict, then an exit code.
 *
 * Key: (gpu_type, gpu_count, benchmark, case, dtype, m, n, k, bytes, metric,
 * settings): rows measured under other settings are another key.
 * The samples of a key are the `value` of each of its rows with status ok
 * (one row per repetition, `rep` column). Changes are oriented so that a
 * negative change_pct is always worse (see gb_metric_direction).
 *
 * Per key, with both sides having samples:
 *   threshold_pct = max(base threshold, 3 * CV(baseline), 3 * CV(current)) in %,
 *     base threshold = config rule for the benchmark/metric, else --threshold
 *     (default 5).
 *   significance: >= min_reps (6) samples on both sides: two-sided
 *     Mann-Whitney U, p < alpha (0.01). Otherwise the rows' own spread: each
 *     side's range [min, max] over its rows (value -/+ 3 stddev where min/max
 *     are empty); significant when the ranges do not overlap.
 *   change_pct = direction * (median(cur) / median(base) - 1) * 100.
 *   regression: significant and change_pct < -threshold; improvement:
 *   significant and change_pct > threshold; noise: |change_pct| > threshold
 *   but not significant; unchanged otherwise.
 * Other verdicts: failed (a current row has status other than ok; "newly"
 * when no baseline row of the key failed), new (only in current), missing
 * (only in baseline), insufficient (no usable spread, a baseline median of 0,
 * or no ok baseline rows). */
#ifndef GB_GATE_H
#define GB_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"
#include "gb_gate_config.h"
#include "gb_results.h"

/* Verdicts, most severe first (the order reports list them in). */
typedef enum gb_verdict {
  GB_VERDICT_REGRESSION = 0,
  GB_VERDICT_FAILED,
  GB_VERDICT_MISSING,
  GB_VERDICT_NOISE,
  GB_VERDICT_INSUFFICIENT,
  GB_VERDICT_NEW,
  GB_VERDICT_IMPROVEMENT,
  GB_VERDICT_UNCHANGED,
  GB_VERDICT_COUNT
} gb_verdict;

/* "regression", "failed", ... */
const char *gb_verdict_name(gb_verdict v);

/* Better direction of a metric by name: +1 higher is better (tflops, tops,
 * gflops, gbps, *_gbps, *_tflops, speedup, *_per_s), -1 lower is better
 * (time_us and anything ending in _ns, _us, _ms, _s, latency*), 0 unknown. */
int gb_metric_direction(const char *metric);

/* A key as people read it: "H200-SXM-141GB x1 gemm/bf16 bf16 m=8192 n=8192
 * k=8192 tflops", then " [settings]" where the row has any. malloc'd; NULL
 * when out of memory. */
char *gb_gate_key_label(const gb_row *r);

typedef struct gb_gate_options {
  double threshold_pct; /* base threshold; NaN: the config's [defaults], else 5 */
  double alpha;         /* NaN: the config's [defaults], else 0.01 */
  size_t min_reps;      /* samples per side for the Mann-Whitney test (6) */
  bool allow_mismatch;  /* compare across machine identities */
  const gb_gate_config *config; /* may be NULL */
} gb_gate_options;

/* threshold and alpha NaN (config or built-in defaults), min_reps 6. */
gb_gate_options gb_gate_defaults(void);

/* One side of one key. */
typedef struct gb_gate_side {
  size_t nrows;         /* rows of the key, any status */
  size_t nok;           /* rows with status ok = samples */
  double *values;       /* the nok samples (owned by the report) */
  double median;        /* of the samples; NaN when none */
  double lo, hi;        /* spread used without enough samples; NaN when unknown */
  double cv;            /* coefficient of variation (fraction); NaN when unknown */
  const gb_row *row;    /* a representative row (first failed one if any) */
  const gb_row *failed; /* first row with status other than ok, or NULL */
} gb_gate_side;

typedef struct gb_gate_item {
  char *key;            /* readable key, e.g. "H200-SXM-141GB x1 gemm/bf16 bf16 8192x8192x8192 tflops" */
  const char *benchmark, *metric; /* borrowed from the rows */
  gb_verdict verdict;
  bool newly_failed;
  int direction;
  gb_gate_side base, cur;
  double change_pct;    /* oriented, negative = worse; NaN when not compared */
  double ratio;         /* median(cur) / median(base); NaN when not compared */
  double threshold_pct; /* effective threshold; NaN when not compared */
  double p_value;       /* Mann-Whitney p; NaN with the range method */
  const char *method;   /* "mann-whitney exact", "mann-whitney normal", "ranges", "" */
  char note[200];       /* why insufficient / failed, or "" */
} gb_gate_item;

typedef struct gb_gate_report {
  size_t nitems;
  gb_gate_item *items;     /* sorted by verdict severity, then key */
  size_t count[GB_VERDICT_COUNT];
  size_t newly_failed;
  size_t compared;         /* keys with regression/improvement/noise/unchanged */
  size_t common;           /* keys present on both sides */
  double geomean_ratio;    /* geometric mean of oriented ratios (> 1 better); NaN when none */
  double threshold_pct, alpha; /* the base threshold and alpha used */
  bool mismatch;           /* machine identities differ (and not allowed) */
  char mismatch_msg[512];
  bool allowed_mismatch;   /* identities differ but --allow-mismatch */
  char libraries_msg[512]; /* "cublaslt 13.1.0 -> 13.2.0, ..." where both sides recorded a library version and
                            * the versions differ (a likely cause of what changed; not a mismatch); "" if none */
} gb_gate_report;

/* Compares cur against base. Fills *rep (free with gb_gate_report_free).
 * A machine mismatch (gpu_type, maximum gpu_count, driver or cuda sets differ)
 * without allow_mismatch sets rep->mismatch and compares nothing. Errors:
 * GB_E_INPUT (a metric of unknown direction with no config rule, naming its
 * file:line; bad options), GB_E_NOMEM. On error *rep is empty. */
gb_err gb_gate_compare(const gb_results *base, const gb_results *cur, const gb_gate_options *opt,
                       gb_gate_report *rep);

void gb_gate_report_free(gb_gate_report *rep);

/* The gate's exit code: 3 on a machine mismatch; 1 on any regression or
 * newly failed row; 3 when no key could be compared; 0 otherwise. (Bad input,
 * exit 2, never reaches a report.) */
int gb_gate_exit_code(const gb_gate_report *rep);

/* The one-line summary, e.g. "gate: FAIL: 1 regression, 0 improvement, ...". */
gb_err gb_gate_summary(const gb_gate_report *rep, gb_buf *out);

/* Plain-text report for a terminal: one line per key whose verdict is not
 * unchanged (every key with all), then the summary line. */
gb_err gb_gate_format_text(const gb_gate_report *rep, bool all, gb_buf *out);

/* Markdown for a pull-request comment or a CI job summary. */
gb_err gb_gate_format_markdown(const gb_gate_report *rep, gb_buf *out);

/* JUnit XML: one test case per key; a failure for a regression or a newly
 * failed row, skipped for insufficient, missing and failed-before rows; a
 * machine mismatch is one test case in error. Text is XML-escaped and
 * control characters and invalid UTF-8 are replaced. */
gb_err gb_gate_format_junit(const gb_gate_report *rep, gb_buf *out);

/* Appends s to out escaped for XML text and attribute values. */
gb_err gb_xml_escape(gb_buf *out, const char *s);

#endif
