/* gb_history: the series of each key over many runs, and the runs where a
 * figure shifted (binary segmentation, gb_changepoint.h).
 *
 * Rows are grouped into runs by run_id; runs are ordered by their earliest
 * timestamp (ISO 8601 UTC sorts as text), then by run_id. The key is the
 * gate's (gpu_type, gpu_count, benchmark, case, dtype, m, n, k, bytes,
 * metric); a key's value in a run is the median of its ok rows there (one per
 * repetition), and runs where it has none are left out of its series. */
#ifndef GB_HISTORY_H
#define GB_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_changepoint.h"
#include "gb_csv.h"
#include "gb_error.h"
#include "gb_results.h"

typedef struct gb_history_run {
  const char *run_id;
  const char *timestamp; /* earliest of the run's rows */
  /* the environment, from the run's first row ("" where not recorded): a
   * change of any of these between two runs is an event, not a performance
   * change */
  const char *gpu_uuid, *host, *driver, *cuda, *git_sha;
} gb_history_run;

typedef struct gb_history_series {
  char *key;              /* readable key */
  char *stem;             /* key as a file-name stem (letters, digits, - _ . only) */
  const char *benchmark, *metric, *unit;
  const gb_row *row;      /* a row of the figure (its first ok row; borrowed from the results) */
  int direction;          /* gb_metric_direction: +1, -1, 0 unknown */
  size_t n;               /* points */
  size_t *run;            /* run index of each point */
  double *value;          /* median of the key's ok rows in that run */
  size_t nchanges;
  gb_change_point *changes; /* indices into the points */
  int fclass;             /* gb_fclass of the figure */
  double noise_pct;       /* its run-to-run noise, % of its median (gb_cp_noise); NaN under 2 points */
  double mdc_pct;         /* the smallest step it can flag with min_segment runs after it, %; NaN when
                           * the series is too short */
  size_t runs_for_10pct;  /* runs after a 10% step needed to flag it (>= min_segment); 0: more than
                           * this history holds */
  bool drift;             /* a slow drift: a line fits as well as the steps, its slope significant */
  double drift_pct_per_run, drift_total_pct; /* the line's slope and its change over the series, % */
} gb_history_series;

typedef struct gb_history {
  size_t nruns;
  gb_history_run *runs;   /* in time order */
  size_t nseries;
  gb_history_series *series; /* sorted by key */
  size_t nchanged;        /* series with at least one change (a drift not counted) */
  size_t ndrift;          /* series drifting */
  size_t min_segment;     /* of the options used */
  size_t nanalyzed;       /* series long enough to test (>= 2 * min_segment points) */
} gb_history;

/* history's default minimum effect (--threshold), the gate's default threshold */
#define GB_HISTORY_THRESHOLD_PCT 2.0

/* Builds the history of res and runs the change-point test on every series.
 * Per series also: its noise, the smallest step it can flag (gb_cp_critical
 * with min_segment runs after the step) and the runs a 10% step needs, and
 * whether it drifts: the least-squares line's slope is significant against
 * the series' noise (gb_cp_critical, one candidate), the steps found do not
 * beat the line (gb_changepoint.h's step-or-ramp measure over the whole
 * series), and every change found goes its way.
 * Each series is analyzed alone, so a result does not depend on which other
 * keys are present. Errors: GB_E_INPUT (bad options), GB_E_NOMEM. */
gb_err gb_history_build(const gb_results *res, const gb_cp_options *opt, gb_history *h);

void gb_history_free(gb_history *h);

/* Text report: one line per change point ("change  KEY: shifted at run R
 * (T): ...") and per drifting series ("drift   KEY: -0.10% per run, -18.1%
 * over runs A..B" instead of the staircase of its steps), every series with
 * its noise and smallest detectable step with all, then a summary line
 * saying the smallest step the history can flag and how many runs after it
 * that takes, and a 10% step's runs. */
gb_err gb_history_format_text(const gb_history *h, bool all, gb_buf *out);

/* What differs between two runs' environments ("GPU A -> B, driver C -> D"),
 * values compared only where both runs recorded them; "" when nothing
 * differs. Returns whether something does. */
bool gb_history_env_change(const gb_history_run *a, const gb_history_run *b, char *buf, size_t n);

#endif
