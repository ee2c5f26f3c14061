/* gb_fleet: the slow-node finder. Ranks the nodes (host, gpu_uuid) of one
 * campaign (a merged fleet file) against each other, headline figure by
 * headline figure, and names the nodes that are slower than their peers by
 * more than the card-to-card spread.
 *
 * For each headline figure (gb_desc_class) measured by at least
 * GB_FLEET_MIN_NODES nodes: a node's value is the median of its runs'
 * values (each the median of its repetitions) or, for a figure that
 * switches power state (a "peak" floor, gb_noise.h), of its runs' peaks.
 * Its reference is the median of the other nodes' values (leave one out:
 * a slow node does not pull its own reference down), d = direction x
 * ln(value / reference), and sigma the figure's card-to-card floor (scope
 * "cards"; for a power-state figure its "peak" floor; else its figure or
 * class floor, else the built-in one). The node is slow on the figure when
 *   -d > T = max(z(1 - alpha/2) x sigma x sqrt(1 + 1/(nodes - 1)), ln(1 + threshold/100))
 * and fast when d > T (information). The default threshold is
 * GB_FLEET_THRESHOLD: above the 2-3% by which sound H200 cards differ on
 * some GEMM and HBM figures, below the 10% of a node worth pulling. A node
 * slow on any headline figure fails the check. */
#ifndef GB_FLEET_H
#define GB_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"
#include "gb_noise.h"
#include "gb_results.h"

#define GB_FLEET_MIN_NODES 3
#define GB_FLEET_THRESHOLD 5.0

typedef struct gb_fleet_options {
  double threshold_pct; /* NaN: GB_FLEET_THRESHOLD */
  double alpha;         /* NaN: 0.01 */
  const gb_noise_table *noise; /* may be NULL: built-in floors */
} gb_fleet_options;

typedef struct gb_fleet_entry {
  size_t node, fig;     /* indexes into nodes and figs */
  double value, ref;    /* the node's value and the median of the others' */
  double change_pct;    /* oriented against the reference, negative = slower */
  double mdc_pct;       /* the change T stands for, percent */
  bool slow, fast;
} gb_fleet_entry;

typedef struct gb_fleet_node {
  const char *host, *gpu_uuid; /* borrowed from the rows */
  size_t figures, slow, fast;
  double geomean;       /* geometric mean of oriented value / reference over its figures (> 1 faster) */
} gb_fleet_node;

typedef struct gb_fleet_report {
  size_t nnodes, nfigs, nentries;
  gb_fleet_node *nodes; /* sorted: slowest (most slow figures, then lowest geomean) first */
  char **figs;          /* figure labels (gb_gate_key_label) */
  bool *fig_peak;       /* judged by peaks */
  gb_fleet_entry *entries; /* by figure, then node */
  size_t slow_nodes;
  double threshold_pct, alpha;
} gb_fleet_report;

/* Ranks the nodes of res. Errors: GB_E_INPUT (fewer than GB_FLEET_MIN_NODES
 * nodes; bad options), GB_E_NOMEM. */
gb_err gb_fleet_check(const gb_results *res, const gb_fleet_options *opt, gb_fleet_report *rep);
void gb_fleet_free(gb_fleet_report *rep);

/* 0 no slow node, 1 a slow node. */
int gb_fleet_exit_code(const gb_fleet_report *rep);

/* Text (the ranking, then every slow and fast figure), markdown (a table
 * of nodes, then the slow figures) and JUnit (one test case per node, a
 * failure naming its slow figures). */
gb_err gb_fleet_format_text(const gb_fleet_report *rep, gb_buf *out);
gb_err gb_fleet_format_markdown(const gb_fleet_report *rep, gb_buf *out);
gb_err gb_fleet_format_junit(const gb_fleet_report *rep, gb_buf *out);

/* The per-node verdict in the Prometheus text format (core/gb_prom.h):
 * gauges gpubench_node_slow (1 slow, 0 not), gpubench_node_slow_figures and
 * gpubench_node_relative_speed, labelled host and gpu_uuid; *nsamples (may
 * be NULL) counts the samples written. */
gb_err gb_fleet_prom_put(const gb_fleet_report *rep, gb_buf *out, size_t *nsamples);

/* For `gpubench export`: when res holds GB_FLEET_MIN_NODES nodes or more of
 * one GPU type, ranks them (gb_fleet_check with its defaults and the
 * shipped floors) and appends gb_fleet_prom_put's gauges; otherwise
 * appends nothing. Errors: gb_fleet_check's, GB_E_NOMEM. */
gb_err gb_fleet_prom(const gb_results *res, gb_buf *out, size_t *nsamples);

#endif
