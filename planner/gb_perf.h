/* gb_perf: the performance figures the planner needs per GPU type, taken
 * from measured results where they exist and projected from datasheet
 * figures where they do not.
 *
 * - GEMM TFLOP/s at the workload's precision: rows benchmark=gemm,
 *   metric=tflops (or tops; with the workload's gemm_window = sustained,
 *   tflops_sustained or tops_sustained), status=ok, dtype=precision,
 *   interpolated linearly in log(cbrt(m*n*k)) between the two measured
 *   shapes nearest gemm_size.
 * - HBM GB/s: rows benchmark=membw, metric=gbps, status=ok; case triad if
 *   measured, else copy, else any; the median at the largest array size.
 * - All-reduce busbw GB/s: rows benchmark=collective, case all_reduce*,
 *   metric=busbw_gbps, status=ok, by gpu_count, interpolated in log bytes.
 * - Rows with status ok and throttled (result checked, clocks held down by
 *   a power or thermal cap in most samples: the rate sustained under that
 *   cap) both count; at each point (GEMM shape, HBM array size, all-reduce
 *   message size and GPU count) the ok rows win and the throttled ones are
 *   used only where no ok row exists. Large GEMMs are the ones a power cap
 *   holds down, so a type-wide "ok if any" would plan on the small shapes.
 *   A figure resting on a throttled point is marked throttled and a note
 *   says so.
 * - A type without measurements gets datasheet x ratio, the ratio being the
 *   mean measured/datasheet ratio over the measured types (or a default when
 *   nothing is measured), and is marked projected. */
#ifndef GB_PERF_H
#define GB_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"
#include "gb_results.h"
#include "gb_specs.h"

/* Datasheet-to-sustained ratios used when no type is measured: cuBLAS GEMM
 * reaches about 70-80% of dense peak on large shapes, STREAM-like triad about
 * 90% of HBM peak, NCCL ring all-reduce about 80% of the one-way NVLink
 * rate (docs/planner.md). */
#define GB_DEFAULT_GEMM_RATIO 0.75
#define GB_DEFAULT_HBM_RATIO 0.90
#define GB_DEFAULT_COMM_RATIO 0.80

/* Where a figure comes from, best first (a configuration's basis is the
 * worst of its figures'). */
typedef enum gb_basis {
  GB_BASIS_MEASURED = 0, /* measured on this type */
  GB_BASIS_THROTTLED,    /* measured, from rows whose clocks a power or thermal cap held down */
  GB_BASIS_VENDOR,       /* projected from measured types of the same vendor */
  GB_BASIS_CROSS,        /* projected from measured types of another vendor only */
  GB_BASIS_DATASHEET,    /* nothing measured: datasheet x a default ratio */
  GB_BASIS_COUNT
} gb_basis;

/* "measured", "measured-throttled", "projected-vendor", "projected-cross-vendor", "datasheet". */
const char *gb_basis_name(gb_basis b);

/* Smallest relative half-width of a figure's band per basis: run-to-run
 * spread for a measurement; for a projection, the spread of the measured
 * types' ratios, never below these floors (docs/planner.md). */
#define GB_BAND_MEASURED 0.03
#define GB_BAND_THROTTLED 0.05
#define GB_BAND_VENDOR 0.10
#define GB_BAND_CROSS 0.20
#define GB_BAND_DATASHEET 0.25

typedef struct gb_perf_curve {
  int gpu_count;
  size_t n;
  double *log_bytes, *busbw_gbps; /* sorted by size */
} gb_perf_curve;

typedef struct gb_perf_type {
  const gb_gpu_spec *spec;
  double peak_tflops;  /* datasheet dense peak at the precision (NaN: none) */
  double gemm_tflops;  /* GEMM rate in the chosen window (NaN: precision not available) */
  bool gemm_measured;
  bool gemm_throttled; /* rests on a shape with throttled rows only (see above) */
  double hbm_gbps;
  bool hbm_measured;
  bool hbm_throttled;  /* the size used has throttled rows only */
  size_t ncurves;      /* measured all-reduce curves, by gpu_count ascending */
  gb_perf_curve *curves;
  bool comm_throttled; /* a point of some curve has throttled rows only */
  double comm_plateau_gbps; /* projected intra-node busbw when no curve */
  /* basis and band (relative half-width: the figure may be x(1-band) to
   * x(1+band)) of each figure */
  gb_basis gemm_basis, hbm_basis, comm_basis;
  /* board power from the energy counter while its GEMMs of the precision ran
   * (gb_perf_power_w; NaN: none measured, the planner then charges the TDP) */
  double power_w;
  bool power_measured;
  double gemm_band, hbm_band, comm_band;
  double gemm_base_tflops; /* the BF16 GEMM rate (FP8 workloads: the non-GEMM share runs at it); = gemm_tflops otherwise */
  double nic_node_gbps;    /* cross-node line rate of a node, GB/s (NICs x Gb/s / 8; NaN: none given) */
  const struct gb_arch_model *model; /* efficiency table row (gb_model.h) */
  /* MoE figures measured on this type (gb_perf_moe.c; none: the planner's documented models) */
  size_t ngrouped;
  struct gb_perf_grouped *grouped; /* grouped GEMM points, every dtype */
  size_t na2a, nsendrecv;
  gb_perf_curve *a2a, *sendrecv;   /* alltoall and sendrecv busbw curves by gpu_count */
  /* decode-floor figures measured on this type (bench decode, gb_perf_decode.c; NaN or none: the serving model's
   * documented defaults) */
  double launch_us, launch_graph_us; /* one plain kernel launch; one kernel inside a CUDA graph */
  double kv_gbps;                    /* the KV-cache attention read's bandwidth */
  size_t ngemv;
  struct gb_perf_grouped *gemv;      /* GEMV / small-GEMM points: m = batch, tflops = their rate */
} gb_perf_type;

/* One measured grouped GEMM shape: `groups` products of m x n x k in one
 * call (bench gemm, case grouped_<dtype>...), its TFLOP/s. */
typedef struct gb_perf_grouped {
  char dtype[16];
  double m, n, k, groups, tflops;
} gb_perf_grouped;

typedef struct gb_perf {
  char precision[16];
  bool gemm_sustained;         /* GEMM rates from the sustained window (tflops_sustained), else the burst one */
  size_t n;
  gb_perf_type *v;             /* one per specs row, same order */
  double gemm_ratio, hbm_ratio, comm_ratio;
  size_t gemm_ratio_types, hbm_ratio_types, comm_ratio_types; /* measured types behind each ratio (0: default) */
  size_t measured_rows_used;   /* rows that fed a figure */
  gb_buf notes;                /* warnings, one per line, for the front end to print */
} gb_perf;

/* Builds the figures for every type in specs from measured (may be NULL or
 * hold no rows) at precision, interpolating GEMM shapes around gemm_size.
 * GEMM rates come from the burst window's rows (metric tflops or tops), or
 * with sustained from the sustained window's (tflops_sustained,
 * tops_sustained); the two never mix, and a type measured only in the other
 * window is projected, with a note. Measured types missing from specs are
 * noted and skipped. */
gb_err gb_perf_build(const gb_specs *specs, const gb_results *measured, const char *precision, double gemm_size,
                     bool sustained, gb_perf *out);

const gb_perf_type *gb_perf_find(const gb_perf *p, const char *gpu_type);

/* The board power the planner's energy and per-watt figures charge one GPU
 * of t: measured when t->power_measured -- the median energy-counter power
 * (energy_j / energy_s) of its GEMM rows of the precision at their largest
 * shape, either window, under the default settings or only longer ones
 * (iters, warmup), rows whose per-W figure is over the datasheet bound
 * (gb_energy_plausible) left out with a note -- else the datasheet TDP. The
 * rows' 1-s average power_w is never used. */
double gb_perf_power_w(const gb_perf_type *t);

/* The basis of one figure as printed and written: "measured",
 * "measured-throttled" or "projected". */
const char *gb_perf_basis_name(bool measured, bool throttled);

/* All-reduce bus bandwidth for gpu_count GPUs on nodes of gpus_per_node at
 * message size bytes. Measured at that count within one node: interpolated
 * in log size (clamped at the measured ends). Otherwise the ring formula
 * keeps busbw flat in n, so the nearest measured count (or the projected
 * plateau) is used; across nodes it is capped by nic_gbps per GPU. Sets
 * *projected when the figure is not a measurement at this count. Infinity
 * for one GPU. */
double gb_perf_busbw_gbps(const gb_perf *p, const gb_perf_type *t, int gpu_count, int gpus_per_node, double bytes,
                          double nic_gbps, bool *projected);

/* Grouped GEMM TFLOP/s measured on t in dtype for products of m x n x k:
 * among the measured shapes of the (n, k) nearest in log distance, linear
 * in log m between the two nearest m (clamped at the ends). NaN when t has
 * no grouped row of the dtype. */
double gb_perf_grouped_tflops(const gb_perf_type *t, const char *dtype, double m, double n, double k);

/* The same over any array of measured shapes (grouped GEMM or GEMV points). */
double gb_perf_shape_tflops(const gb_perf_grouped *v, size_t nv, const char *dtype, double m, double n, double k);

/* Bus bandwidth GB/s of a measured collective ("alltoall" or "sendrecv")
 * on t at gpu_count GPUs (the nearest measured count) and message bytes
 * (linear in log bytes, clamped). NaN when t has none measured. */
double gb_perf_coll_gbps(const gb_perf_type *t, const char *coll, int gpu_count, double bytes);

/* Whether a gemm row is a grouped GEMM (case grouped_<dtype>...): never a
 * dense GEMM rate. */
bool gb_perf_is_grouped(const gb_row *r);

/* Collects t's decode-floor rows (benchmark decode, one row a point; status ok or throttled, default
 * settings): case launch and launch_graph (metric time_us: the median), kv_read (metric gbps: the median at the
 * largest bytes) and gemv_<dtype> (metric tflops, m = batch, n and k a projection's widths). Adds the rows
 * used to *used. */
gb_err gb_perf_decode_collect(const gb_results *m, gb_perf_type *t, size_t *used);

/* Seconds a GEMV / small GEMM of batch m x n x k in dtype takes on t, from the measured gemv_<dtype> points (the
 * nearest measured (n, k) in log distance, linear in log m, clamped; the rate scaled to the asked shape's FLOPs).
 * NaN when t has none of the dtype. */
double gb_perf_gemv_seconds(const gb_perf_type *t, const char *dtype, double m, double n, double k);

/* Frees one type's MoE figures (gb_perf_free does it for every type). */
void gb_perf_free_moe(gb_perf_type *t);

/* Frees one type's decode-floor figures. */
void gb_perf_free_decode(gb_perf_type *t);

void gb_perf_free(gb_perf *p);

#endif
