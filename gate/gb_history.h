/* gb_history: the series of each key over many runs, and the runs where a
 * figure shifted (E-divisive means, gb_changepoint.h).
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
} gb_history_run;

typedef struct gb_history_series {
  char *key;              /* readable key */
  char *stem;             /* key as a file-name stem (letters, digits, - _ . only) */
  const char *benchmark, *metric, *unit;
  int direction;          /* gb_metric_direction: +1, -1, 0 unknown */
  size_t n;               /* points */
  size_t *run;            /* run index of each point */
  double *value;          /* median of the key's ok rows in that run */
  size_t nchanges;
  gb_change_point *changes; /* indices into the points */
} gb_history_series;

typedef struct gb_history {
  size_t nruns;
  gb_history_run *runs;   /* in time order */
  size_t nseries;
  gb_history_series *series; /* sorted by key */
  size_t nchanged;        /* series with at least one change */
  size_t nanalyzed;       /* series long enough to test (>= 2 * min_segment points) */
} gb_history;

/* Builds the history of res and runs the change-point test on every series.
 * Each series' shuffles are seeded with opt->seed mixed with a hash of its key,
 * so a result does not depend on which other keys are present. Errors:
 * GB_E_INPUT (bad options), GB_E_NOMEM. */
gb_err gb_history_build(const gb_results *res, const gb_cp_options *opt, gb_history *h);

void gb_history_free(gb_history *h);

/* Text report: one line per change point ("KEY: shifted at run R (T): ..."),
 * every series' point count with all, then a summary line. */
gb_err gb_history_format_text(const gb_history *h, bool all, gb_buf *out);

/* Expands the command line's inputs: a directory contributes its *.csv files
 * (sorted by name, not recursive), a file itself. *paths (malloc'd strings in
 * a malloc'd array) is freed with gb_history_free_paths. Errors: GB_E_IO (an
 * input cannot be read), GB_E_INPUT (a directory with no .csv file). */
gb_err gb_history_collect_paths(char *const *inputs, size_t ninputs, char ***paths, size_t *npaths);

void gb_history_free_paths(char **paths, size_t npaths);

#endif
