/* Fixtures shared by the planner's test suites (check_planner_world.c). */
#ifndef CHECK_PLANNER_WORLD_H
#define CHECK_PLANNER_WORLD_H

#include "gb_plan.h"
#include "testutil.h"

#define TOL 1e-9

typedef struct world {
  gb_specs specs;
  gb_prices prices;
  gb_results measured;
  gb_perf perf;
  gb_workload w;
  gb_plan_opts o;
} world;

/* N1 (k_specs_arch) with nothing measured: GEMM 1000 x 0.80 = 800 TFLOP/s, HBM 2000 x 0.90 = 1800 GB/s,
 * in-node busbw 400 / 2 x 0.80 = 160 GB/s, 8 NICs x 400 Gb/s = 400 GB/s a node; 90 of 100 GB usable.
 * o: efficiency 0.5, no overlap. */
typedef struct n1_world {
  gb_specs specs;
  gb_perf perf;
  const gb_perf_type *n1;
  gb_plan_opts o;
} n1_world;

/* A file of that name and text in the test's temporary directory. */
const char *tmp_file(const char *name, const char *text);

/* Two test GPUs, identical but for the name: BF16 1000 TFLOP/s, 100 GB,
 * 2000 GB/s, 500 W, 400 GB/s interconnect. */
extern const char *const k_specs;
extern const char *const k_prices_header;
/* Measured: FAST sustains 800 TFLOP/s BF16 at 8192^3, 1800 GB/s triad,
 * 200 GB/s all-reduce busbw on 8 GPUs at 25 MB; SLOW 400 TFLOP/s, same rest. */
extern const char *const k_measured;
/* 1e9 parameters, 1e10 tokens, 1e6 tokens per step, replicated state, 6 x params FLOPs a token. */
extern const char *const k_train;
extern const char *const k_two_types;
extern const char *const k_specs_arch;
extern const char *const k_measured_n1;

/* The hand-computed scenarios' world: a fixed efficiency 0.5, no overlap,
 * the median of each band, 50 GB/s per GPU across nodes, up to 16 GPUs. */
void world_load_measured(world *x, const char *prices_body, const char *workload_ini, const char *measured);
void world_load(world *x, const char *prices_body, const char *workload_ini);
void world_free(world *x);
const gb_plan_row *find_row(const gb_plan *p, const char *type, const char *provider, int n);
const gb_plan_row *spot_row(const gb_plan *p, int n);

/* A training workload: k_train with extra lines; any INI text. */
void wl_load(gb_workload *w, const char *ini);
void wl_train(gb_workload *w, const char *extra);
void n1_load(n1_world *x);
void n1_free(n1_world *x);

#endif
