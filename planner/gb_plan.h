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
#include <stdio.h>

#include "gb_error.h"
#include "gb_optable.h"
#include "gb_perf.h"
#include "gb_prices.h"
#include "gb_workload.h"

typedef enum gb_objective { GB_OBJ_COST, GB_OBJ_TIME, GB_OBJ_EFFICIENCY } gb_objective;

/* Which end of a configuration's band ranks it and meets the constraints:
 * low = the low end of performance (slowest, dearest: the pessimistic end,
 * the default), median, high (fastest, cheapest). */
typedef enum gb_rank_by { GB_RANK_LOW, GB_RANK_MEDIAN, GB_RANK_HIGH } gb_rank_by;

/* What --budget is checked against: cash (what must be paid for this job:
 * the bill when renting; capex plus the job's energy and operations when
 * buying) or amortized (the job's share of owned GPUs' cost). */
typedef enum gb_budget_basis { GB_BUDGET_CASH, GB_BUDGET_AMORTIZED } gb_budget_basis;

#define GB_PLAN_MAX_FILTER 32

/* Planner settings. Defaults (gb_plan_opts_default) are justified in
 * docs/planner.md. */
typedef struct gb_plan_opts {
  double max_hours, budget_usd; /* NaN: take the workload's (or none) */
  gb_objective objective;
  gb_rank_by rank_by;
  gb_budget_basis budget_basis;
  double mfu;                     /* efficiency factor: share of the GEMM rate the model sustains (NaN: the
                                     efficiency table by architecture and model size, gb_model.h) */
  double overlap;                 /* fraction of data-parallel and expert communication hidden behind compute */
  double utilization;             /* owned GPUs: share of the year doing useful work */
  double pue;                     /* data-centre power usage effectiveness */
  double electricity_usd_per_kwh;
  double amortization_years;      /* straight-line depreciation period */
  double ops_fraction_per_year;   /* staff, colocation, maintenance, spares: share of capex per year */
  double network_overhead;        /* cluster network on top of the server price (Epoch: 1.07-1.32) */
  double host_power_fraction;     /* host CPU, RAM, fans on top of the GPU TDP */
  double nic_gbps;                /* per-GPU inter-node bandwidth, GB/s (NaN: the specs' NICs per node x line rate) */
  double nics_per_node, nic_gbit; /* override the specs' node network (NaN: the specs') */
  double max_gpus;                /* largest GPU count enumerated */
  double spot_preemptions_per_node_hour;
  double spot_checkpoint_hours;   /* time to write one checkpoint */
  double spot_restart_hours;      /* time to get a replacement and reload */
  double price_scale;             /* multiplies every rate, purchase price and electricity price */
  double efficiency_scale;        /* multiplies the efficiency (sensitivity what-if; 1) */
  double jobs_per_year;           /* hybrid: how often the workload runs */
  /* filters (empty: all): GPU types, GPU counts, providers, offerings */
  const char *gpu_types[GB_PLAN_MAX_FILTER];
  size_t ngpu_types;
  int gpu_counts[GB_PLAN_MAX_FILTER];
  size_t ngpu_counts;
  const char *providers[GB_PLAN_MAX_FILTER];
  size_t nproviders;
  bool offerings[4]; /* by gb_offering; all false: every offering */
  bool only_measured; /* only configurations whose GEMM and HBM figures are measured */
  const char *today;  /* YYYY-MM-DD for price age (NULL: the clock, or $GPUBENCH_TODAY) */
  double max_price_age_days; /* price rows older than this many days are left out (NaN: none) */
  double price_age_rate;     /* cost band widening per year of a price's age (GB_PRICE_AGE_RATE_PER_YEAR) */
} gb_plan_opts;

void gb_plan_opts_default(gb_plan_opts *o);

/* The options, one gb_opt each (core/gb_optable.h), ended by an entry with
 * no name: flag name, placeholder, meaning with its default, kind, the field
 * of gb_plan_opts it sets and its range. The CLI makes its flags from it. */
const gb_opt *gb_plan_opt_table(void);

/* Sets one option from text, by its flag name without the dashes ("mfu",
 * "max-hours", "objective" ...), checked as its table entry says.
 * GB_E_INPUT "--<name>: <what>" on a bad or absurd value; GB_E_USAGE when
 * name is not an option. */
gb_err gb_plan_opt_set(gb_plan_opts *o, const char *name, const char *value);
bool gb_plan_is_opt(const char *name);

typedef enum gb_reject {
  GB_REJECT_NONE = 0,
  GB_REJECT_PRECISION, /* no GEMM figure at the precision for this type */
  GB_REJECT_MEMORY,    /* need > have, GB per GPU */
  GB_REJECT_RATE,      /* inference: tokens/s served < required */
  GB_REJECT_LATENCY,   /* inference: decode step ms > limit */
  GB_REJECT_SPOT,      /* preemptions come faster than progress */
  GB_REJECT_DEADLINE,  /* hours > max_hours */
  GB_REJECT_BUDGET,    /* cost > budget */
  GB_REJECT_NO_PRICE,  /* the type has no row in prices.csv */
  GB_REJECT_LAYOUT     /* the GPU count does not fit the parallel layout (TP x PP, TP inside a node) */
} gb_reject;

typedef enum gb_bottleneck { GB_BOUND_COMPUTE, GB_BOUND_MEMORY, GB_BOUND_COMM } gb_bottleneck;

/* Modeled time of the workload on n GPUs of a type, nodes of gpn GPUs. */
typedef struct gb_plan_time {
  double hours; /* including fixed_hours, before any spot stretch */
  double compute_hours, memory_hours, comm_hours;
  /* breakdown: pipeline bubble, tensor-parallel, data-parallel (exposed) and
   * expert all-to-all (exposed) communication, time lost to goodput < 1 */
  double bubble_hours, tp_hours, dp_hours, a2a_hours, goodput_hours;
  /* training: the goodput used (given, or the whole-run default of gb_goodput.h) and, when computed, its parts:
   * expected interruptions, the hours they cost, evaluation/checkpoint/stall hours, the first start */
  double goodput, interruptions, interrupt_hours, overhead_hours, startup_hours;
  double low_precision_share; /* training: share of the FLOPs in the precision's GEMMs (NaN: BF16 or wider) */
  double hours_low, hours_high; /* the band: figures at their high end, at their low end */
  double tokens_per_s_per_gpu;  /* training: tokens trained; inference: output tokens served at capacity */
  double token_latency_ms, ttft_ms; /* inference: one decode step; time to first token */
  double batch;                 /* inference: sequences per replica */
  int tp;                       /* tensor-parallel degree used */
  double eta;                   /* efficiency used: share of the GEMM rate */
  /* MoE and serving terms (docs/planner.md, "Mixture of experts", "Inference"): the router's and the token
   * permutation's hours (training: inside compute + memory; serving: inside the step), the serving step's
   * per-layer floor (kernel launches and fixed costs), the expert GEMMs' share of the dense GEMM rate and the
   * busiest expert-parallel rank's load over the mean (NaN: a dense model) */
  double router_hours, permute_hours, floor_hours;
  double tp_hidden_hours;       /* training: TP communication hidden behind the GEMMs (tp_comm_overlap) */
  double block_scaled_eff;      /* training: a block-scaled recipe's share of the GEMM rates (1: other precisions) */
  double expert_eff, moe_imbalance;
  gb_basis basis;               /* the worst of the figures behind it */
  bool projected; /* some figure behind it is not a measurement */
  bool throttled; /* some measured figure behind it comes from throttled rows */
  gb_reject reject; /* NONE, PRECISION, MEMORY, RATE or LATENCY */
  double need, have;
} gb_plan_time;

void gb_plan_time_of(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                     const gb_plan_opts *o, gb_plan_time *out);

/* The same on nodes whose NICs give node_gbps GB/s across nodes (an
 * offering's network, prices.csv nics_per_node x nic_gbit; NaN: the specs'
 * for a whole server, GB_PARTIAL_NODE_GBIT for a slice of one). */
void gb_plan_time_node(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                       double node_gbps, const gb_plan_opts *o, gb_plan_time *out);

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
  gb_plan_time time;  /* the model's answer (breakdown, band, inference figures) */
  gb_basis basis;
  double hours_low, hours_high, cost_low, cost_high; /* the band */
  double rank_hours, rank_cost; /* at the --rank-by end: what ranks and meets the constraints */
  double capex_usd;      /* purchase: GPUs x price x network overhead (NaN when renting) */
  double amortized_usd;  /* this job's share: the bill when renting */
  double cash_usd;       /* what must be paid: capex + energy + operations for the job, or the bill */
  double breakeven_hours; /* purchase: hours of use at which buying equals renting (NaN: no rental) */
  bool price_stale;      /* the price is older than 18 months */
  double price_age_days; /* days from the price's date to the plan's today (NaN: no price) */
  double price_widening; /* the share its age widened the cost band by, each end (NaN: no price) */
  double rate_usd_per_gpu_hour; /* rental rate, or owned cost per used GPU-hour */
  gb_bottleneck bottleneck;
  size_t rank; /* 1-based among feasible rows; 0 when rejected */
  /* verdicts, computed once from the ranked figures (rank_hours, rank_cost);
   * has_verdict: the row was timed and priced, so they mean something */
  bool has_verdict, meets_deadline, within_budget;
  double energy_kwh, energy_usd; /* the job at the ranked end: GPUs x power x (1 + host) x PUE x hours; x --electricity */
  double perf_per_watt;          /* training, generic: model GFLOP/s per W of GPU + host; inference: tokens/s per W */
  double gpu_power_w;            /* the power charged per GPU (gb_perf_power_w): measured, or the datasheet TDP */
  bool power_measured;           /* gpu_power_w is measured (energy counter), not the TDP */
  double tokens_per_s_low, tokens_per_s_high; /* inference: capacity per GPU at the ends of the band */
  double latency_ms_low, latency_ms_high;     /* inference: decode step at the ends of the band */
  double efficiency_low, efficiency_high;     /* work per dollar at the ends of the band */
} gb_plan_row;

typedef struct gb_plan {
  gb_plan_opts opts; /* as used: constraints merged from the workload */
  const gb_workload *workload;
  size_t n, nfeasible;
  gb_plan_row *rows;           /* feasible rows in rank order, then rejected ones */
  const gb_price *oldest_price; /* oldest price row among the configurations */
  size_t nprice_too_old;        /* price rows --max-price-age left out */
  const char *efficiency_unit;  /* "PFLOP/USD" or "Mtok/USD" */
  size_t nfiltered;             /* configurations the filters left out */
} gb_plan;

/* Ranks every configuration. The workload must be finished; perf built at
 * its precision; prices checked against the same specs. Constraints in o
 * override the workload's max_hours and budget_usd. */
gb_err gb_plan_rank(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                    gb_plan *out);

void gb_plan_free(gb_plan *p);

/* What the ranked figures are: "pessimistic" (--rank-by low), "nominal"
 * (median) or "optimistic" (high). */
const char *gb_plan_figure_basis(gb_rank_by r);
const char *gb_rank_by_name(gb_rank_by r);
const char *gb_perf_per_watt_unit(const gb_plan *p);

/* ---- near-misses: what comes closest when nothing fits ---- */
typedef struct gb_plan_near {
  const gb_plan_row *cheapest_in_time;  /* the cheapest that meets the deadline (NULL: none does) */
  const gb_plan_row *fastest_in_budget; /* the fastest within the budget (NULL: none is) */
  const char *binding;                  /* "budget", "deadline", or "fit" (nothing passes memory, rate, ...) */
  double budget_needed, deadline_needed; /* what each constraint must move to (NaN: no such row) */
  double budget_move_pct, deadline_move_pct;
} gb_plan_near;
void gb_plan_near_miss(const gb_plan *p, gb_plan_near *out);

/* Per GPU type: configurations, feasible, rejected by reason. */
typedef struct gb_plan_type_sum {
  const gb_perf_type *perf;
  size_t n, feasible, by_reason[GB_REJECT_LAYOUT + 1];
  const gb_plan_row *best; /* best ranked, else the nearest miss (least over the binding constraint) */
} gb_plan_type_sum;
size_t gb_plan_type_summary(const gb_plan *p, gb_plan_type_sum *out, size_t max);
const char *gb_reject_short(gb_reject r);

/* Buying, per GPU type with a purchase price: the cheapest purchase that
 * meets the deadline (the budget may reject it; NULL: none meets it). */
typedef struct gb_plan_buy {
  const gb_perf_type *perf;
  const gb_plan_row *best;
  bool timed; /* some purchase of the type was timed (false: every one lacked the precision) */
} gb_plan_buy;
size_t gb_plan_buying(const gb_plan *p, gb_plan_buy *out, size_t max);

/* The nearest of names to s (case-insensitive): one that contains s or is
 * contained in it first, else the least edit distance; NULL when n is 0. */
const char *gb_nearest_name(const char *s, const char *const *names, size_t n);
/* "unknown <what> \"s\" (nearest: X; valid: a, b, c)" into buf. */
void gb_unknown_name(char *buf, size_t len, const char *what, const char *s, const char *const *names, size_t n);

/* Whether a price is 18 months or more older than today (YYYY-MM-DD; NULL:
 * never). */
bool gb_plan_price_stale(const gb_price *p, const char *today);

/* The top choices whose price rows the text names with their age (the
 * best GPU count per type, provider and offering, the first this many). */
#define GB_PLAN_DECIDING 3

/* Whether a price row is within --max-price-age (always, when not given). */
bool gb_plan_price_fresh(const gb_plan_opts *o, const gb_price *p);

/* The row's basis: the worst of its GEMM and HBM figures' (gb_basis_name). */
const char *gb_plan_basis_name(const gb_plan_row *r);

/* The reason a row was rejected ("" when feasible). */
void gb_plan_reason(const gb_plan_row *r, char *buf, size_t n);
const char *gb_bottleneck_name(gb_bottleneck b);
const char *gb_objective_name(gb_objective o);

/* Writes the whole table (ranked rows, then rejected) atomically. */
gb_err gb_plan_write_csv(const gb_plan *p, const char *path);

/* Writes every configuration as JSON (what the CSV holds, plus each
 * configuration's time breakdown under "time"), atomically. */
gb_err gb_plan_write_json(const gb_plan *p, const char *path);

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

/* ---- hybrid ---- */

/* Hybrid for a demand profile (workload keys demand_*): how many GPUs of a
 * type to own, the rest rented at the type's cheapest rental. The demand is
 * a load-duration curve (GPUs in use for a share of the year); for each
 * owned count on the curve, the cost of a year: owned fixed cost + energy of
 * the owned GPUs in use + rent for the demand above them. */
#define GB_HYBRID_POINTS 64
typedef struct gb_hybrid_curve {
  const gb_price *purchase, *rent;
  size_t n;
  int owned[GB_HYBRID_POINTS];
  double annual_usd[GB_HYBRID_POINTS];
  int best_owned;
  double best_usd, all_rent_usd, peak_gpus;
  double demand_scale; /* this type's GPUs per GPU of the profile (the reference type's speed over its own) */
} gb_hybrid_curve;

/* The type a demand profile's GPUs are counted in: the ranking's first
 * (or the first timed one; NULL: none). */
const gb_perf_type *gb_plan_hybrid_reference(const gb_plan *plan);

/* One entry per purchase row whose type has a rental; returns the count.
 * Without a demand profile the demand is opts.jobs_per_year runs on the
 * best rented configuration (0 for inference, or with no rented row). */
size_t gb_plan_hybrid_demand(const gb_plan *plan, const gb_perf *perf, const gb_prices *prices,
                             gb_hybrid_curve *out, size_t max);
/* Which types hybrid considers and why, in a sentence. */
const char *gb_plan_hybrid_scope(void);
gb_err gb_plan_write_hybrid_csv(const gb_hybrid_curve *c, size_t n, const char *path);

/* ---- the shipped default ---- */

/* Loads every *.csv under dir (sorted by name) into *res; a missing
 * directory is no files. *nfiles counts the files read. */
gb_err gb_plan_load_measured_dir(const char *dir, gb_results *res, size_t *nfiles);

/* What a plan is made from. Every NULL or zero falls back to the shipped
 * data under gb_data_dir(): data/gpu_specs.csv, data/prices.csv, every CSV in
 * data/measured/ and, without a workload file or a type among the keys,
 * data/workloads/training-7b.ini. keys/vals are workload keys given as flags,
 * applied over the file's. */
typedef struct gb_plan_inputs {
  const char *workload_file;
  const char *const *keys, *const *vals;
  size_t nkeys;
  const char *const *measured;
  size_t nmeasured;
  bool no_measured;
  const char *prices, *specs;
  gb_plan_opts opts;
} gb_plan_inputs;

/* Everything a plan is made of, for the front ends to print or write. */
typedef struct gb_plan_run {
  gb_specs specs;
  gb_prices prices;
  gb_results measured;
  gb_perf perf;
  gb_workload w;
  gb_plan plan;
  gb_sensitivity_row sens[GB_SENSITIVITY_ROWS];
  size_t nfiles;           /* measured files read */
  char specs_path[4096], meas_dir[4096], wl_path[4096];
} gb_plan_run;

/* The one pipeline: reads the inputs, builds the figures, ranks and runs
 * the sensitivity. The built-in default plan and `gpubench plan FILE` both
 * go through it. On error *out is freed. */
gb_err gb_plan_run_make(const gb_plan_inputs *in, gb_plan_run *out);
void gb_plan_run_free(gb_plan_run *r);

/* Runs the no-argument plan (gb_plan_run_make with every input defaulted)
 * and writes the plan CSV and the sensitivity CSV (either may be NULL to
 * skip it). */
gb_err gb_plan_default(const char *plan_csv, const char *sensitivity_csv);

/* ---- the outputs of one run ---- */

/* What the text and JSON show: the top rows (0: all) and, when nothing
 * fits or asked, the rejected ones: 0 a count by reason, 1 a summary per
 * GPU type (--explain), 2 every configuration (--explain=all). */
typedef struct gb_plan_show {
  long top;
  int explain;
} gb_plan_show;

/* Writes the plan for a person to fp: figures, ranking, near-misses,
 * rejected, buying, hybrid (hy, nh), sensitivity, old prices. */
void gb_plan_print_text(FILE *fp, const gb_plan_run *run, const gb_plan_show *show, const gb_hybrid_curve *hy,
                        size_t nh);

/* The rows --top shows (the best GPU count per type, provider and
 * offering, the first top of them; 0: all) into out (room for nfeasible);
 * returns how many. */
size_t gb_plan_shown(const gb_plan *p, long top, const gb_plan_row **out);

/* Writes only those rows as CSV (the columns of gb_plan_write_csv). */
gb_err gb_plan_write_csv_top(const gb_plan *p, long top, const char *path);

/* Writes the plan as JSON (docs/plan.schema.json): the inputs, the top
 * configurations (show->top, 0: all; the rejected with show->explain), the
 * near-misses, buying per type, hybrid and sensitivity. */
gb_err gb_plan_write_json_run(const gb_plan_run *run, const gb_plan_show *show, const gb_hybrid_curve *hy, size_t nh,
                              const char *path);

#endif
