/* gb_planfile: reading the planner's output for reports -- the ranked plan
 * CSV and the sensitivity CSV (columns found by header name through
 * core/gb_csv; unknown columns ignored). Strings point into the table. */
#ifndef GB_PLANFILE_H
#define GB_PLANFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

/* One ranked configuration. Empty numbers are NaN, empty integers -1. */
typedef struct gb_planfile_row {
  long line;
  int rank;
  const char *gpu_type;
  int gpu_count, nodes, gpus_per_node;
  const char *provider, *offering, *basis;
  bool feasible;
  const char *reason;
  double hours, cost_usd, efficiency;
  const char *efficiency_unit, *bottleneck;
  double compute_hours, memory_hours, comm_hours;
  bool pareto;
  double price_usd_per_gpu_hour, purchase_usd_per_gpu;
  const char *price_date, *price_source;
  double utilization, pue, electricity_usd_per_kwh, mfu, overlap, max_hours, budget_usd;
  const char *workload;
  const char *precision, *gemm_window; /* "" in plan files written before they were added */
  /* the reworked planner's columns; NaN in plan files without them */
  double capex_usd;             /* purchase: what the GPUs cost up front */
  double amortized_usd;         /* the job's share (renting: the bill) */
  double cash_usd;              /* what must be paid for the job */
  double hours_low, hours_high; /* the time's band: hours_low the fast end */
  double cost_low, cost_high;   /* the cost's band */
  const char *rank_by;          /* the band's end ranked by: "low" (pessimistic), "median", "high"; "" */
  bool price_stale;             /* the planner's "old price" (over 18 months old) */
  double amortization_years;    /* owned GPUs' assumed life; NaN in plan files without it */
  double price_age_days;        /* days from the price's date to the plan's; NaN in plan files without it */
  const char *price_confidence; /* the price row's V, S or M; "" in plan files without it */
  double price_band_widening;   /* the share the price's age widened the cost band by, each end; NaN: none */
  /* derived: the hours and cost at the end of the band the planner ranked
   * by and checked the deadline and budget at, as `gpubench plan` prints
   * them (the nominal hours and cost_usd where the file has no band) */
  double rank_hours, rank_cost;
} gb_planfile_row;

typedef struct gb_planfile {
  gb_csv_table table;
  size_t n;
  gb_planfile_row *rows;
} gb_planfile;

/* Reads a plan CSV. Required columns: rank, gpu_type, gpu_count, provider,
 * offering, feasible, hours, cost_usd, efficiency, efficiency_unit, pareto;
 * the others may be absent. Errors name file:line:column. */
gb_err gb_planfile_read(const char *path, gb_planfile *out);
/* Same from memory (tests and fuzzing); name is used in messages. */
gb_err gb_planfile_read_mem(const char *name, const char *data, size_t len, gb_planfile *out);
void gb_planfile_free(gb_planfile *p);

/* Which figures rank_hours and rank_cost are, for a reader: "the
 * pessimistic end of its band", "the optimistic end of its band" or
 * "its nominal figures" (median ranking, or a file without bands). */
const char *gb_planfile_rank_end(const gb_planfile_row *p);
/* True when rank_hours and rank_cost are an end of the band, not the
 * nominal figures. */
bool gb_planfile_ranks_band_end(const gb_planfile_row *p);

/* One sensitivity row: a factor changed by change_pct and the top pick then. */
typedef struct gb_sensfile_row {
  long line;
  const char *factor;
  double change_pct;
  const char *top_gpu_type;
  int top_gpu_count;
  const char *top_provider, *top_offering;
  double hours, cost_usd;
  bool changed;
} gb_sensfile_row;

typedef struct gb_sensfile {
  gb_csv_table table;
  size_t n;
  gb_sensfile_row *rows;
} gb_sensfile;

/* Reads a sensitivity CSV (every column of the contract is required). */
gb_err gb_sensfile_read(const char *path, gb_sensfile *out);
/* Same from memory (tests and fuzzing); name is used in messages. */
gb_err gb_sensfile_read_mem(const char *name, const char *data, size_t len, gb_sensfile *out);
void gb_sensfile_free(gb_sensfile *s);

#endif
