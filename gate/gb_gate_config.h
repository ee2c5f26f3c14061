/* gb_gate_config: the regression gate's small INI configuration file
 * (read with libinih): per-benchmark and per-metric thresholds, and the
 * better direction of metrics the gate does not know.
 *
 *   ; gate.ini
 *   [defaults]
 *   threshold_pct = 2        ; smallest change ever flagged (the --threshold option wins)
 *   alpha = 0.01             ; significance level (--alpha wins)
 *
 *   [gemm]                   ; every metric of benchmark gemm
 *   threshold_pct = 3
 *
 *   [collective/busbw_gbps]  ; one metric of one benchmark
 *   threshold_pct = 8
 *
 *   [metric:energy_j]        ; a metric in every benchmark
 *   direction = lower        ; higher | lower
 *
 * Lookup, most specific first: [bench/metric], [bench], [metric:name], then
 * [defaults] threshold_pct, which --threshold overrides. */
#ifndef GB_GATE_CONFIG_H
#define GB_GATE_CONFIG_H

#include <stddef.h>

#include "gb_error.h"

typedef struct gb_gate_rule {
  char *benchmark;      /* "*" for any ([metric:name]) */
  char *metric;         /* "*" for any ([bench]) */
  double threshold_pct; /* NaN when the section does not set it */
  int direction;        /* +1 higher is better, -1 lower, 0 not set */
} gb_gate_rule;

typedef struct gb_gate_config {
  double threshold_pct; /* [defaults]; NaN when not set */
  double alpha;         /* [defaults]; NaN when not set */
  size_t nrules;
  gb_gate_rule *rules;
} gb_gate_config;

/* An empty configuration (nothing set). */
gb_gate_config gb_gate_config_empty(void);

/* Reads path into *cfg (which it initializes). Errors name path:line:
 * GB_E_IO (cannot open), GB_E_INPUT (unknown key or section syntax, value
 * not a number, threshold_pct < 0, alpha outside (0, 1), direction not
 * higher/lower), GB_E_NOMEM. On error *cfg is empty. */
gb_err gb_gate_config_read(const char *path, gb_gate_config *cfg);

/* Same from a string; name is used in messages. */
gb_err gb_gate_config_read_mem(const char *name, const char *text, gb_gate_config *cfg);

void gb_gate_config_free(gb_gate_config *cfg);

/* The base threshold for (benchmark, metric): the most specific rule that
 * sets threshold_pct, else fallback_pct. */
double gb_gate_config_threshold(const gb_gate_config *cfg, const char *benchmark, const char *metric,
                                double fallback_pct);

/* The configured direction for (benchmark, metric) (most specific rule that
 * sets one), or 0. cfg may be NULL. */
int gb_gate_config_direction(const gb_gate_config *cfg, const char *benchmark, const char *metric);

#endif
