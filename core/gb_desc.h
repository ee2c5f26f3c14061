/* gb_desc: what each benchmark is, as data, in one place.
 *
 * The runner, the reports, the gate, the planner and the exporters read this
 * table instead of switching on benchmark or metric names of their own: a
 * benchmark's metrics with their units and direction, the rule that picks its
 * headline figure, the class the gate puts each of its figures in (what it
 * judges and against which noise), and the report section that draws it.
 * Element types have one table too, and the "is this an HBM figure" question
 * one rule.
 *
 * The entries come from the benchmark registry, core/gb_registry.def: one
 * entry there, the benchmark's source and its kernel are all a new
 * benchmark takes (docs/architecture.md). A benchmark or
 * metric this table does not know still reads (old or foreign files): its
 * direction is unknown and its figures are in the headline class. */
#ifndef GB_DESC_H
#define GB_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_dtype.h"
#include "gb_error.h"
#include "gb_results.h"

/* Which way is better. */
typedef enum gb_dir { GB_DIR_LOWER = -1, GB_DIR_UNKNOWN = 0, GB_DIR_HIGHER = 1 } gb_dir;

/* What kind of figure a row is, for the gate and the headline tables. */
typedef enum gb_fclass {
  GB_FCLASS_HEADLINE = 0, /* a figure people act on (HBM bandwidth, large GEMMs, fma, large
                           * messages, pinned copies): judged, and the verdict rests on it */
  GB_FCLASS_LATENCY,      /* latency-bound: messages <= 1 MiB, L2-resident or cold small arrays,
                           * pageable copies, small GEMMs; judged against its own measured floor
                           * or shown as information */
  GB_FCLASS_DERIVED,      /* computed from other rows (speedup); judged from its sides' spread */
  GB_FCLASS_MEANINGLESS,  /* no data moves or the value is 0 by definition (one-rank in-place
                           * collectives, busbw and broadcast on one GPU): not measured by
                           * default, never judged */
  GB_FCLASS_COUNT
} gb_fclass;

/* "headline", "latency", "derived", "meaningless"; "?" out of range. */
const char *gb_fclass_name(gb_fclass c);

/* One metric of a benchmark. */
typedef struct gb_metric_desc {
  const char *name;      /* the `metric` column: "tflops" */
  const char *unit;      /* the `unit` column: "TFLOP/s" */
  gb_dir dir;
  const char *quantity;  /* what it measures, for metric names: "throughput", "bandwidth", "time" */
  const char *base_unit; /* the base unit (Prometheus naming): "flops_per_second",
                          * "bytes_per_second", "seconds", "ratio" */
  double to_base;        /* value * to_base is in base_unit: 1e12 for TFLOP/s */
  const char *help;      /* one line */
  const char *window;    /* NULL: the benchmark's default timing window; else the window it was timed in
                          * ("sustained"), part of its metric name (gpubench_gemm_sustained_throughput_...):
                          * the same quantity over another window is another figure */
} gb_metric_desc;

/* How a benchmark's headline figure is chosen among its rows. */
typedef enum gb_headline_rule {
  GB_HEADLINE_NONE = 0,
  GB_HEADLINE_LARGEST_SHAPE,   /* per case and dtype: the largest m*n*k (GEMM) */
  GB_HEADLINE_PER_CASE,        /* every case: one figure each (fma) */
  GB_HEADLINE_HBM,             /* every hot row at an HBM size (the HBM rule below); a case's
                                * HBM figure is the best of them (membw) */
  GB_HEADLINE_LARGEST_MESSAGE, /* per case, dtype and gpu_count: the largest bytes, among the
                                * figures that mean something for the GPU count (collective, copy) */
  GB_HEADLINE_FLOOR,           /* per case and dtype: rows with a shape, the smallest m (batch) at
                                * the largest n*k, ties to the largest bytes; rows without one, the
                                * largest bytes; rows with neither, every one (decode) */
} gb_headline_rule;

typedef struct gb_bench_desc {
  const char *name;            /* the `benchmark` column and --bench name */
  const char *title;           /* a heading: "GEMM throughput per precision" */
  const gb_metric_desc *metrics;
  size_t nmetrics;
  const char *headline_metric; /* the metric headline figures are read in */
  gb_headline_rule headline;
  gb_fclass (*classify)(const gb_row *r); /* the gate's class of one of its rows */
  const char *section;         /* the report section that draws it (reports/gb_rep_sections.c);
                                * "": none, its rows are in the report's general tables only */
} gb_bench_desc;

/* Every registered benchmark, sorted by name (gb_registry.def); gb_nbench_descs
 * of them. The report's order is its section table's (reports/gb_rep_sections.c). */
extern const gb_bench_desc gb_bench_descs[];
extern const size_t gb_nbench_descs;

/* A benchmark by name, or NULL. */
const gb_bench_desc *gb_desc_find(const char *benchmark);

/* ---- metric handles ----
 * GB_METRIC_ID(bench, metric) is the position of a registered metric in its
 * benchmark's list, a constant expression: `bench` and `metric` are the
 * identifiers of the registry entry, so a metric the registry lacks does not
 * compile. Benchmarks emit rows with GB_ROW (bench/gb_bench.h), which takes
 * the metric's name and unit from here. A headline metric that is not one of
 * its benchmark's metrics does not compile either. */
#define GB_METRIC(id, ...) id
#define GB_METRICS(...) char __VA_ARGS__;
#define GB_BENCHMARK(name, title, metrics, headline_metric, ...) \
  struct gb_metric_ids_##name { metrics };                        \
  enum { gb_headline_id_##name = (int)offsetof(struct gb_metric_ids_##name, headline_metric) };
#include "gb_registry.def"
#undef GB_BENCHMARK
#undef GB_METRICS
#undef GB_METRIC
#define GB_METRIC_ID(bench, metric) offsetof(struct gb_metric_ids_##bench, metric)
/* The name and the unit of a registered metric, checked the same way. The
 * name is a constant expression (the literal's address, indexed by 0 x the
 * metric's position), so it also initializes static tables. */
#define GB_METRIC_NAME(bench, metric) (&#metric[0 * GB_METRIC_ID(bench, metric)])
#define GB_METRIC_UNIT(bench, metric) (gb_desc_metric_at(#bench, GB_METRIC_ID(bench, metric))->unit)

/* The i-th metric of a benchmark, or NULL (either unknown). */
const gb_metric_desc *gb_desc_metric_at(const char *benchmark, size_t i);

/* GB_OK when r's metric and unit are its benchmark's registered ones, or its
 * benchmark is not registered (old or foreign files, the test-only fault
 * benchmark); GB_E_INTERNAL naming the benchmark and metric otherwise. */
gb_err gb_desc_check_row(const gb_row *r);

/* A metric of a benchmark, or NULL (either unknown). */
const gb_metric_desc *gb_desc_metric(const char *benchmark, const char *metric);

/* The direction of a benchmark's metric; for an unknown benchmark, that of a
 * metric of the same name in any described benchmark; else GB_DIR_UNKNOWN. */
gb_dir gb_desc_direction(const char *benchmark, const char *metric);

/* The class of a row (GB_FCLASS_HEADLINE for a benchmark the table lacks). */
gb_fclass gb_desc_class(const gb_row *r);

/* Whether r holds its benchmark's headline figure: its `headline` column
 * where its file has one (r->headline >= 0), else the benchmark's headline
 * rule applied with rows as the measured set (the rows of r's run and GPU
 * type; rows of other runs, benchmarks or GPU types, and rows that are not
 * ok or throttled, are ignored). Only rows in a headline metric
 * (gb_desc_is_headline_metric) are headline figures; a benchmark the table
 * lacks has none. The one definition readers and the runner share (the
 * runner writes the column from its planned cases, docs/results-schema.md).
 * Without the column, the largest-shape and largest-message rules scan
 * rows: O(n) per call. */
bool gb_desc_is_headline(const gb_row *r, const gb_row *rows, size_t n);

/* Whether metric holds the benchmark's headline figures: its headline_metric
 * or another of the same quantity (gemm: tflops, and tops for int8). */
bool gb_desc_is_headline_metric(const char *benchmark, const char *metric);

/* ---- element types: core/gb_dtype.h ---- */

/* ---- the bandwidth-bound size ---- */

/* The smallest transfer a copy or a multi-GPU collective is a bandwidth
 * figure at, bytes: 64 MiB, over a millisecond on a 55 GB/s host link and
 * tens of microseconds on NVLink or HBM, where the per-operation start and
 * the host's slow spells are a small part of the time. Below it such a
 * figure is a latency figure; one-GPU collectives are information at every
 * size (core/gb_desc.c: classify_copy, classify_collective). */
#define GB_BW_BOUND_MIN_BYTES ((int64_t)64 << 20)

/* ---- the HBM rule ---- */

/* The smallest array that measures HBM rather than a cache, bytes: at least
 * GB_HBM_MIN_BYTES and at least GB_HBM_L2_FACTOR times the L2 when it is
 * known (l2_bytes > 0): where membw marks its headline (bench/membw/bench_membw.c). */
#define GB_HBM_MIN_BYTES ((int64_t)1 << 30)
#define GB_HBM_L2_FACTOR 8
int64_t gb_hbm_min_bytes(int64_t l2_bytes);

/* Whether r is an HBM bandwidth figure: a membw `gbps` row whose arrays are
 * at least gb_hbm_min_bytes(l2_bytes); l2_bytes GB_NA: the row's own
 * l2_bytes column (itself GB_NA in older files: unknown, 1 GiB). */
bool gb_desc_is_hbm(const gb_row *r, int64_t l2_bytes);

/* Whether a membw row is a cold case (its arrays evicted from L2 before
 * each operation): its regime column "hbm-cold", or in files without the
 * column a case name ending in "_cold". */
bool gb_desc_membw_cold(const gb_row *r);

/* The order in which membw cases stand for "the" HBM bandwidth: triad 0,
 * copy 1, any other 2. The headline HBM figure of a GPU type and dtype is
 * the best-ranked case at the largest HBM size. */
int gb_hbm_case_rank(const char *case_name);

#endif
