/* gb_bench: the one interface every benchmark implements, and the types the
 * campaign runner hands it.
 *
 * A benchmark owns only what is its own: its cases, buffers, launches, its
 * byte or FLOP formula and its result check. The runner (gb_runner) owns the
 * order of cases, progress, telemetry, --resume and --repeat, the run's
 * identity columns, the headline mark and writing rows. A new benchmark is
 * bench/bench_<name>.c defining `const gb_bench gb_bench_<name>`, its kernel
 * kernels/<name>.cu and one entry in the registry core/gb_registry.def
 * (docs/architecture.md). */
#ifndef GB_BENCH_H
#define GB_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gb_desc.h"
#include "gb_device.h"
#include "gb_error.h"
#include "gb_results.h"
#include "gb_telemetry.h"

typedef enum gb_profile { GB_PROFILE_QUICK = 0, GB_PROFILE_FULL = 1 } gb_profile;

/* One measured case: the key fields written to every row it produces (so
 * --resume can tell which cases a file already holds), plus private
 * parameters the benchmark reads back in run(). */
typedef struct gb_case {
  char name[64];        /* `case` column */
  char dtype[16];       /* `dtype` column ("" when not applicable) */
  int64_t m, n, k;      /* GB_NA when not applicable */
  int64_t bytes;        /* GB_NA when not applicable */
  int gpu_count;        /* GPUs taking part (1 for single-GPU cases) */
  int64_t groups;       /* `groups` column: products of one grouped GEMM (GB_NA when not applicable) */
  long param[8];        /* benchmark-private */
  const void *spec;     /* benchmark-private (e.g. an entry of its table) */
} gb_case;

/* A fresh case with every key field empty and gpu_count 1. */
gb_case gb_case_init(const char *name, const char *dtype);

typedef struct gb_case_list {
  gb_case *v;
  size_t n, cap;
} gb_case_list;

gb_err gb_case_list_add(gb_case_list *l, const gb_case *c);
void gb_case_list_free(gb_case_list *l);

/* Rows a case produced. Every row keeps its case's key fields (start from
 * gb_case_row), so --resume can tell which cases are done. gb_rowset_add deep-copies the row's strings, so a
 * benchmark may pass stack buffers; it refuses (GB_E_INTERNAL) a row of a
 * registered benchmark whose metric or unit the registry lacks
 * (gb_desc_check_row). */
typedef struct gb_rowset {
  gb_row *v;
  size_t n, cap;
  char **strs;
  size_t nstrs, capstrs;
} gb_rowset;

gb_err gb_rowset_add(gb_rowset *rs, const gb_row *r);
void gb_rowset_clear(gb_rowset *rs);
void gb_rowset_free(gb_rowset *rs);

/* A row for case c with its key fields filled in (benchmark, case, dtype,
 * m, n, k, bytes, gpu_count) and everything else empty: the benchmark then
 * sets metric, unit, value, samples, min, max, stddev, status, detail,
 * variant and peak. The runner fills the identity columns and telemetry. */
gb_row gb_case_row(const char *benchmark, const gb_case *c);

/* GB_ROW(bench, metric, c): gb_case_row of benchmark `bench` with the metric
 * and unit of its registered `metric` (identifiers of core/gb_registry.def:
 * a metric the registry lacks does not compile). Every benchmark's rows
 * start here, so no metric or unit is written in bench code. */
#define GB_ROW(bench, metric, c) gb_metric_row(#bench, GB_METRIC_ID(bench, metric), (c))
gb_row gb_metric_row(const char *benchmark, size_t metric, const gb_case *c);

/* Run-wide settings the front end builds and every benchmark reads. */
typedef struct gb_run_config {
  gb_profile profile;
  int devices[GB_MAX_GPUS]; /* CUDA ordinals selected with --devices (default: all) */
  int ndevices;
  int warmup;               /* -1 = the benchmark's default */
  int iters;                /* -1 = the benchmark's default (timed samples) */
  int repeat;               /* --repeat N: run each case N times (default 1) */
  bool graph;               /* prefer CUDA-graph replay for short kernels */
  const char *bench_opts;   /* --opt key=value,... free-form, per benchmark */
} gb_run_config;

/* What a benchmark sees while it runs. */
typedef struct gb_run_ctx {
  const gb_system_info *sys;
  const gb_run_config *cfg;
  const gb_device_info *dev; /* the first selected device (the current one) */
  void *state;               /* the benchmark's own, from setup() */
  gb_telemetry *tel;         /* the case's NVML sampler (NULL without one): set it as the
                              * final gb_measure's opts.tel so that the row's clocks and
                              * status describe the timed samples alone */
} gb_run_ctx;

typedef struct gb_bench {
  const char *name;    /* --bench name and the `benchmark` column */
  const char *summary; /* one line for --help */
  const char *metric;  /* metric and unit of the row written when a case cannot run (status
                        * error); NULL: the headline metric of its description (core/gb_desc.h),
                        * "none" for a benchmark the registry lacks. A registered benchmark
                        * names one of its metrics with GB_METRIC_NAME and leaves unit NULL:
                        * the unit is the registry's */
  const char *unit;

  /* Appends the cases of the configured profile. Required. */
  gb_err (*plan)(const gb_run_ctx *ctx, gb_case_list *out);

  /* Optional: state built once before the first case (modules, handles,
   * buffers), kept in ctx->state. An error here marks every case `error`. */
  gb_err (*setup)(gb_run_ctx *ctx);

  /* Runs one case and appends its rows. A failed result check is a row with
   * status `invalid` and returns GB_OK. A case that cannot run returns an
   * error (gb_fail message): the runner writes an `error` row and goes on. */
  gb_err (*run)(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out);

  /* Optional: derived rows (e.g. speedups) from every row of this benchmark
   * in the output file for this run, resumed ones included. */
  gb_err (*derive)(gb_run_ctx *ctx, const gb_row *rows, size_t n, gb_rowset *out);

  /* Optional: prints the short table at the end of the run to fp. */
  void (*summarize)(const gb_run_ctx *ctx, const gb_row *rows, size_t n, FILE *fp);

  /* Optional: frees what setup() made. */
  void (*teardown)(gb_run_ctx *ctx);

  /* Optional: the options of cfg->bench_opts for this benchmark that change
   * how its cases are measured, where they differ from the defaults, as
   * comma-separated key=value items in a fixed order ("" for none). Options
   * that only select cases are not settings. Bad options are plan()'s to
   * report: write "" for them. */
  void (*settings)(const gb_run_config *cfg, char *buf, size_t n);
} gb_bench;

/* The `settings` column of b's rows under cfg: the runner's own non-default
 * items (warmup=N, iters=N, graph=on), then b's (gb_bench.settings), joined
 * by ','; "" when everything is at its default. */
void gb_run_settings(const gb_bench *b, const gb_run_config *cfg, char *buf, size_t n);

/* The row the runner writes when a case of b cannot run (before its status
 * and detail): case c's key fields and b's metric (gb_bench.metric, its
 * unit given or the registry's), else its headline metric's. */
gb_row gb_bench_error_row(const gb_bench *b, const gb_case *c);

/* The registry: every benchmark, sorted by name, NULL-terminated. */
extern const gb_bench *const gb_benches[];

/* A benchmark by name, or NULL. */
const gb_bench *gb_bench_find(const char *name);

#endif
