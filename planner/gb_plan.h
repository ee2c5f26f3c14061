/* gb_plan: the cost planner. Enumerates GPU type x GPU count (whole nodes) x
 * offering, models the time of the workload on each configuration (roofline
 * per step, all-reduce time, overlap, efficiency factor, memory-fit gate),
 * prices it (rental, spot, ownership), keeps those meeting the deadline and
 * the budget, ranks them, marks the Pareto frontier of time against cost, and
 * answers rent-versus-buy, hybrid and sensitivity questions. Formulas and
 * defaults: docs/planner.md. */
#ifndef GB_PLAN_H
#define GB_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"
#include "gb_perf.h"
#include "gb_prices.h"
#include "gb_workload.h"

typedef enum gb_objective { GB_OBJ_COST, GB_OBJ_TIME, GB_OBJ_EFFICIENCY } gb_objective;

/* Planner settings. Defaults (gb_plan_opts_default) are justified in
 * docs/planner.md. */
typedef struct gb_plan_opts {
  double max_hours, budget_usd; /* NaN: take the workload's (or none) */
  gb_objective objective;
  double mfu;                     /* efficiency factor: share of the measured GEMM rate the model sustains */
  double overlap;                 /* fraction of communication hidden behind compute, 0..1 */
  double utilization;             /* owned GPUs: share of the year doing useful work */
  double pue;                     /* data-centre power usage effectiveness */
  double electricity_usd_per_kwh;
  double amortization_years;      /* straight-line depreciation period */
  double ops_fraction_per_year;   /* staff, colocation, maintenance, spares: share of capex per year */
  double network_overhead;        /* cluster network on top of the server price (Epoch: 1.07-1.32) */
  double host_power_fraction;     /* host CPU, RAM, fans on top of the GPU TDP */
  double nic_gbps;                /* per-GPU inter-node bandwidth, GB/s (400 Gb/s = 50) */
  double max_gpus;                /* largest GPU count enumerated */
  double spot_preemptions_per_node_hour;
  double spot_checkpoint_hours;   /* time to write one checkpoint */
  double spot_restart_hours;      /* time to get a replacement and reload */
  double price_scale;             /* multiplies every rate, purchase price and electricity price */
  double jobs_per_year;           /* hybrid: how often the workload runs */
} gb_plan_opts;

void gb_plan_opts_default(gb_plan_opts *o);

/* Sets one option from text, by its flag name without the dashes ("mfu",
 * "max-hours", "objective" ...). GB_E_INPUT "--<name>: <what>" on a bad or
 * absurd value; GB_E_USAGE when name is not an option. */
gb_err gb_plan_opt_set(gb_plan_opts *o, const char *name, const char *value);
bool gb_plan_is_opt(const char *name);

/* Writes one line per option (flag, meaning, default) to buf, for --help. */
void gb_plan_opts_help(char *buf, size_t n);

typedef enum gb_reject {
  GB_REJECT_NONE = 0,
  GB_REJECT_PRECISION, /* no GEMM figure at the precision for this type */
  GB_REJECT_MEMORY,    /* need > have, GB per GPU */
  GB_REJECT_RATE,      /* inference: tokens/s served < required */
  GB_REJECT_LATENCY,   /* inference: decode step ms > limit */
  GB_REJECT_SPOT,      /* preemptions come faster than progress */
  GB_REJECT_DEADLINE,  /* hours > max_hours */
  GB_REJECT_BUDGET,    /* cost > budget */
  GB_REJECT_NO_PRICE   /* the type has no row in prices.csv */
} gb_reject;

typedef enum gb_bottleneck { GB_BOUND_COMPUTE, GB_BOUND_MEMORY, GB_BOUND_COMM } gb_bottleneck;

/* Modeled time of the workload on n GPUs of a type, nodes of gpn GPUs. */
typedef struct gb_plan_time {
  double hours; /* including fixed_hours, before any spot stretch */
  double compute_hours, memory_hours, comm_hours;
  bool projected; /* some figure behind it is not a measurement */
  bool throttled; /* some measured figure behind it comes from throttled rows */
  gb_reject reject; /* NONE, PRECISION, MEMORY, RATE or LATENCY */
  double need, have;
} gb_plan_time;

void gb_plan_time_of(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                     const gb_plan_opts *o, gb_plan_time *out);

/* Owned cost of one GPU per hour: the fixed part (depreciation + operations,
 * paid every hour of the year) and the energy of one used hour. */
typedef struct gb_owned_cost {
  double fixed_usd_per_gpu_hour, energy_usd_per_gpu_hour;
  double usd_per_used_gpu_hour; /* fixed / utilization + energy */
} gb_owned_cost;

gb_owned_cost gb_plan_owned_cost(const gb_price *purchase, const gb_gpu_spec *spec, const gb_plan_opts *o);

typedef struct gb_plan_row {
  const gb_perf_type *perf;
  const gb_price *price; /* NULL when the type has no price */
  int gpu_count, nodes, gpus_per_node;
  bool feasible, projected, throttled, pareto;
  gb_reject reject;
  double need, have;
  double hours, cost_usd, efficiency;
  double compute_hours, memory_hours, comm_hours;
  double rate_usd_per_gpu_hour; /* rental rate, or owned cost per used GPU-hour */
  gb_bottleneck bottleneck;
  size_t rank; /* 1-based among feasible rows; 0 when rejected */
} gb_plan_row;

typedef struct gb_plan {
  gb_plan_opts opts; /* as used: constraints merged from the workload */
  const gb_workload *workload;
  size_t n, nfeasible;
  gb_plan_row *rows;           /* feasible rows in rank order, then rejected ones */
  const gb_price *oldest_price; /* oldest price row among the configurations */
  const char *efficiency_unit;  /* "PFLOP/USD" or "Mtok/USD" */
} gb_plan;

/* Ranks every configuration. The workload must be finished; perf built at
 * its precision; prices checked against the same specs. Constraints in o
 * override the workload's max_hours and budget_usd. */
gb_err gb_plan_rank(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                    gb_plan *out);

void gb_plan_free(gb_plan *p);

/* The row's basis: "projected" when any figure behind it is projected, else
 * "measured-throttled" when any comes from throttled rows, else "measured". */
const char *gb_plan_basis_name(const gb_plan_row *r);

/* The reason a row was rejected ("" when feasible). */
void gb_plan_reason(const gb_plan_row *r, char *buf, size_t n);
const char *gb_bottleneck_name(gb_bottleneck b);
const char *gb_objective_name(gb_objective o);

/* Writes the whole table (ranked rows, then rejected) atomically. */
gb_err gb_plan_write_csv(const gb_plan *p, const char *path);

/* ---- sensitivity: the top choice under price and efficiency +/- 20% ---- */

typedef struct gb_sensitivity_row {
  const char *factor; /* "base", "price", "efficiency" */
  double change_pct;
  bool has_top;
  gb_plan_row top;
  bool changed; /* top configuration differs from the base one */
} gb_sensitivity_row;

#define GB_SENSITIVITY_ROWS 5

gb_err gb_plan_sensitivity(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                           gb_sensitivity_row out[GB_SENSITIVITY_ROWS]);
gb_err gb_plan_write_sensitivity_csv(const gb_sensitivity_row *rows, size_t n, const char *path);

/* ---- rent versus buy ---- */

typedef struct gb_breakeven {
  const gb_price *purchase, *rent; /* rent: cheapest rental of the type (NULL: none) */
  gb_owned_cost owned;
  double utilization_star; /* fixed / (rent - energy); infinity when renting is never dearer */
  double hours_per_year;   /* utilization_star x 8760 */
} gb_breakeven;

/* One entry per purchase row with a known type; returns the count (<= max). */
size_t gb_plan_breakeven(const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o, gb_breakeven *out,
                         size_t max);

/* Hybrid: an owned base of owned_gpus of one type running whole jobs while
 * it has time, and the rest of jobs_per_year bursting to the best-ranked
 * rented configuration. */
typedef struct gb_hybrid {
  const gb_price *purchase;
  const gb_plan_row *burst;  /* the rented configuration jobs burst to */
  int owned_gpus;            /* best owned base (0: all cloud) */
  double owned_job_hours;    /* one job on the owned base */
  double jobs_owned, jobs_burst;
  double annual_cost_usd, all_cloud_usd;
} gb_hybrid;

/* One entry per purchase row; returns the count (<= max). Needs a plan with
 * a feasible rented row (else 0). */
size_t gb_plan_hybrid(const gb_plan *plan, const gb_perf *perf, const gb_prices *prices, gb_hybrid *out,
                      size_t max);

/* ---- the shipped default ---- */

/* Loads every *.csv under dir (sorted by name) into *res; a missing
 * directory is no files. *nfiles counts the files read. */
gb_err gb_plan_load_measured_dir(const char *dir, gb_results *res, size_t *nfiles);

/* Runs the no-argument plan (data/workloads/training-7b.ini, data/prices.csv,
 * data/gpu_specs.csv, every CSV in data/measured/ under gb_data_dir(), default
 * options) and writes the plan CSV and the sensitivity CSV (either may be
 * NULL to skip it). */
gb_err gb_plan_default(const char *plan_csv, const char *sensitivity_csv);

#endif
