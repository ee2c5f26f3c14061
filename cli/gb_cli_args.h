/* gb_cli_args: each subcommand's command-line parsing, apart from what the
 * subcommand then does (reading inputs, measuring, writing files), so that
 * tests and the command-line fuzzer (fuzz/fuzz_cli.c) can run it with no
 * side effect but messages on stdout/stderr.
 *
 * Every gb_<cmd>_parse_args returns GB_CLI_CONTINUE when the command should
 * go on with *a filled in, or the exit code to return at once: 0 after
 * --help (printed to stdout), 2 after a usage error (printed to stderr), 1
 * when memory ran out. The *_args_free functions may be called either way.
 * Strings in *a are borrowed from argv unless noted. */
#ifndef GB_CLI_ARGS_H
#define GB_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_cli.h"
#include "gb_plan.h"
#include "gb_workload.h"

/* ---- compare ---- */

#define GB_COMPARE_MAX_FILES 4096

typedef struct gb_compare_args {
  const char *files[GB_COMPARE_MAX_FILES]; /* baseline inputs (CSVs, directories), then the current CSV */
  size_t nfiles;
  const char *config_path, *junit, *markdown, *noise_path;
  int format; /* 0 text, 1 short */
  double threshold_pct, alpha; /* NaN when not given */
  bool allow_mismatch, all, gate_latency;
  bool allow_missing, strict, bootstrap;
  const char *store; /* --store URL: the operands are selections of it (store/gb_store.h) */
  bool record; /* --record: each judged figure's verdict into the store (gb_compare_record.c) */
} gb_compare_args;

/* compare --store URL --record: the verdict of each judged figure of rep's
 * current runs (cur) into the store, once; *added: those new. */
struct gb_gate_report;
gb_err gb_compare_record(const char *url, const struct gb_gate_report *rep, const struct gb_results *cur,
                         size_t *found, size_t *added);

int gb_compare_parse_args(int argc, char **argv, gb_compare_args *a);

/* compare --store: the floors learned from the store at url (gb_spread.h):
 * the spreads of the last GB_SPREAD_HISTORY_CAMPAIGNS campaigns of cur's
 * host and GPU type, cur's runs left out, and of its card where all its rows
 * name one. Nothing is learned (t empty) for a cur of several hosts (a
 * merged fleet file, judged node by node against the shipped floors) or
 * none recorded. Errors: gb_store_read_url's, GB_E_NOMEM. */
struct gb_results;
struct gb_spread_table;
gb_err gb_compare_learn_store(const char *url, const struct gb_results *cur, struct gb_spread_table *t);

/* ---- history ---- */

typedef struct gb_history_args {
  char **inputs; /* malloc'd array of borrowed strings: gb_history_args_free */
  size_t ninputs;
  const char *plot_dir;
  size_t min_segment; /* 0 when not given */
  double alpha; /* NaN when not given */
  double threshold_pct; /* NaN when not given: GB_HISTORY_THRESHOLD_PCT */
  bool all;
  const char *store; /* --store URL: the operands are selections of it (store/gb_store.h) */
  bool record; /* --record: each node's change points and drifts into the store (gb_history_record.c) */
} gb_history_args;

/* history --store URL --record: each selection judged node by node, each
 * change point and drift printed and written to the store once; the exit
 * status of history. */
struct gb_cp_options;
int gb_history_record(const gb_history_args *a, const struct gb_cp_options *opt);

int gb_history_parse_args(int argc, char **argv, gb_history_args *a);
void gb_history_args_free(gb_history_args *a);

/* ---- plan ---- */

#define GB_PLAN_MAX_MEASURED 64
#define GB_PLAN_MAX_ARGS 256

typedef struct gb_plan_args {
  const char *workload_file;
  const char *measured[GB_PLAN_MAX_MEASURED];
  size_t nmeasured;
  bool no_measured, explain;
  const char *prices, *specs, *csv, *sensitivity_csv;
  const char *json, *hybrid_csv; /* the plan as JSON, the hybrid CSV */
  bool only_measured;
  long top;
  gb_plan_opts opts;  /* defaults, then the planner options given */
  gb_workload flags;  /* workload keys given as flags, checked one by one */
  char *set_keys[GB_PLAN_MAX_ARGS]; /* those keys (strdup'd) and values (borrowed), in order */
  const char *set_vals[GB_PLAN_MAX_ARGS];
  size_t nset;
  const char *store; /* --store URL: the --measured values are selections of this results store */
  bool explain_all;          /* --explain=all: every configuration, not a summary per GPU type */
  const char *workload_name; /* --workload NAME: data/workloads/NAME.ini */
  char workload_path[4096];
  bool top_given; /* --top given: the CSV holds those rows only */
} gb_plan_args;

int gb_plan_parse_args(int argc, char **argv, gb_plan_args *a);
void gb_plan_args_free(gb_plan_args *a);

/* ---- report ---- */

typedef struct gb_report_args {
  const char **files; /* malloc'd array of borrowed strings: gb_report_args_free */
  size_t nfiles;
  const char *out_dir, *plan_path, *sensitivity_path, *specs_path, *title;
  const char *generator; /* --generator: the report's "Written by" text (reproducible examples) */
  bool compare;          /* --compare BASELINE CURRENT */
  const char *store;     /* --store URL: the operands are selections of this results store */
  const char *trend;     /* --trend SEL: the nightly trend page of the store (gb_report_trend.c) */
} gb_report_args;

int gb_report_parse_args(int argc, char **argv, gb_report_args *a);
void gb_report_args_free(gb_report_args *a);

/* report --store URL --trend SEL: the trend page of the newest night (campaign) the selection names,
 * written as out_dir/report.md and report.html (docs/reports.md); *nights and *plots: what it shows. */
typedef struct gb_trend_options {
  const char *store, *sel, *out_dir, *title, *generator;
} gb_trend_options;
gb_err gb_report_trend(const gb_trend_options *o, size_t *nights, size_t *plots);

/* ---- run ---- */

#define GB_RUN_OPTS_MAX 4096 /* bytes of every --opt value together, commas included */

typedef struct gb_run_args {
  const char *bench_list, *devices, *out, *resume;
  const char *bench_opts;            /* every --opt value joined by commas (opts_text), NULL: none */
  char opts_text[GB_RUN_OPTS_MAX];
  bool full, graph;
  int repeat, warmup, iters; /* warmup and iters -1: the benchmark's default */
  int telemetry_ms;          /* NVML sampling period; 0: none */
  bool list;                 /* --list: print the benchmarks and exit 0 */
  const char *store;         /* --store URL: each case's rows also into this results store */
} gb_run_args;

int gb_run_parse_args(int argc, char **argv, gb_run_args *a);

#endif
