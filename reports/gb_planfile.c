/* gb_planfile: the planner's plan and sensitivity CSVs, read for reports. */
#include "gb_planfile.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"

/* A column lookup: its index, or -1 when absent (an error when required). */
static gb_err col(const gb_csv_table *t, const char *name, bool required, int *out) {
  *out = gb_csv_col(t, name);
  if (*out < 0 && required)
    return gb_fail(GB_E_INPUT, "%s:%ld: missing column \"%s\" (is this a gpubench plan CSV?)", t->name, t->lines[0],
                   name);
  return GB_OK;
}

static gb_err num(const gb_csv_table *t, size_t r, int c, const char *name, double *out) {
  const char *s = gb_csv_cell(t, r, c);
  *out = NAN;
  if (c < 0 || !*s) return GB_OK;
  if (!gb_parse_double_any(s, out))
    return gb_fail(GB_E_INPUT, "%s:%ld: %s: not a number: \"%s\"", t->name, gb_csv_line(t, r), name, s);
  return GB_OK;
}

static gb_err integer(const gb_csv_table *t, size_t r, int c, const char *name, int *out) {
  const char *s = gb_csv_cell(t, r, c);
  int64_t v;
  *out = -1;
  if (c < 0 || !*s) return GB_OK;
  if (!gb_parse_i64(s, &v) || v < 0 || v > 1000000000)
    return gb_fail(GB_E_INPUT, "%s:%ld: %s: not a count: \"%s\"", t->name, gb_csv_line(t, r), name, s);
  *out = (int)v;
  return GB_OK;
}

static gb_err boolean(const gb_csv_table *t, size_t r, int c, const char *name, bool *out) {
  const char *s = gb_csv_cell(t, r, c);
  *out = false;
  if (c < 0 || !*s) return GB_OK;
  if (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes")) *out = true;
  else if (!strcmp(s, "false") || !strcmp(s, "0") || !strcmp(s, "no")) *out = false;
  else
    return gb_fail(GB_E_INPUT, "%s:%ld: %s: not true/false: \"%s\"", t->name, gb_csv_line(t, r), name, s);
  return GB_OK;
}

enum {
  P_RANK, P_GPU_TYPE, P_GPU_COUNT, P_NODES, P_GPN, P_PROVIDER, P_OFFERING, P_BASIS, P_FEASIBLE, P_REASON, P_HOURS,
  P_COST, P_EFF, P_EFF_UNIT, P_BOTTLENECK, P_COMPUTE_H, P_MEMORY_H, P_COMM_H, P_PARETO, P_PRICE, P_PURCHASE,
  P_PRICE_DATE, P_PRICE_SOURCE, P_UTIL, P_PUE, P_ELEC, P_MFU, P_OVERLAP, P_MAX_HOURS, P_BUDGET, P_WORKLOAD,
  P_PRECISION, P_GEMM_WINDOW, P_CAPEX, P_AMORTIZED, P_CASH, P_HOURS_LOW, P_HOURS_HIGH, P_COST_LOW,
  P_COST_HIGH, P_RANK_BY, P_PRICE_STALE, P_AMORT_YEARS, P_PRICE_AGE, P_PRICE_CONF, P_PRICE_WIDEN, P_NCOLS
};

static const struct {
  const char *name;
  bool required;
} k_plan_cols[P_NCOLS] = {
    {"rank", true},       {"gpu_type", true},        {"gpu_count", true},
    {"nodes", false},     {"gpus_per_node", false},  {"provider", true},
    {"offering", true},   {"basis", false},          {"feasible", true},
    {"reason", false},    {"hours", true},           {"cost_usd", true},
    {"efficiency", true}, {"efficiency_unit", true}, {"bottleneck", false},
    {"compute_hours", false}, {"memory_hours", false}, {"comm_hours", false},
    {"pareto", true},     {"price_usd_per_gpu_hour", false}, {"purchase_usd_per_gpu", false},
    {"price_date", false}, {"price_source", false},  {"utilization", false},
    {"pue", false},       {"electricity_usd_per_kwh", false}, {"mfu", false},
    {"overlap", false},   {"max_hours", false},      {"budget_usd", false},
    {"workload", false},  {"precision", false},     {"gemm_window", false},
    /* the reworked planner's: absent in older plan files */
    {"capex_usd", false}, {"amortized_usd", false},  {"cash_usd", false},
    {"hours_low", false}, {"hours_high", false},     {"cost_low", false},
    {"cost_high", false}, {"rank_by", false},        {"price_stale", false},
    {"amortization_years", false},
    /* the price row's age and confidence */
    {"price_age_days", false}, {"price_confidence", false}, {"price_band_widening", false},
};

/* The end of its band the planner ranked a row by and checked the deadline
 * and budget at (rank_by low: the slow, costly end; high: the fast, cheap
 * one; median or no band: the nominal figures). */
static void rank_end(gb_planfile_row *p) {
  bool lo = gb_planfile_ranks_band_end(p) && !strcmp(p->rank_by, "low");
  bool hi = gb_planfile_ranks_band_end(p) && !strcmp(p->rank_by, "high");
  p->rank_hours = lo ? p->hours_high : hi ? p->hours_low : p->hours;
  p->rank_cost = lo ? p->cost_high : hi ? p->cost_low : p->cost_usd;
}

/* Validates out->table (already read) into out->rows. */
static gb_err planfile_rows(const char *path, gb_planfile *out) {
  gb_err e = GB_OK;
  const gb_csv_table *t = &out->table;
  int c[P_NCOLS];
  for (int i = 0; i < P_NCOLS && !e; i++) e = col(t, k_plan_cols[i].name, k_plan_cols[i].required, &c[i]);
  if (!e && t->nrows > 0) {
    out->rows = calloc(t->nrows, sizeof *out->rows);
    if (!out->rows) e = gb_fail(GB_E_NOMEM, "out of memory reading %s", path);
  }
  for (size_t r = 0; r < t->nrows && !e; r++) {
    gb_planfile_row *p = &out->rows[r];
    p->line = gb_csv_line(t, r);
    e = integer(t, r, c[P_RANK], "rank", &p->rank);
    p->gpu_type = gb_csv_cell(t, r, c[P_GPU_TYPE]);
    if (!e) e = integer(t, r, c[P_GPU_COUNT], "gpu_count", &p->gpu_count);
    if (!e) e = integer(t, r, c[P_NODES], "nodes", &p->nodes);
    if (!e) e = integer(t, r, c[P_GPN], "gpus_per_node", &p->gpus_per_node);
    p->provider = gb_csv_cell(t, r, c[P_PROVIDER]);
    p->offering = gb_csv_cell(t, r, c[P_OFFERING]);
    p->basis = gb_csv_cell(t, r, c[P_BASIS]);
    if (!e) e = boolean(t, r, c[P_FEASIBLE], "feasible", &p->feasible);
    p->reason = gb_csv_cell(t, r, c[P_REASON]);
    if (!e) e = num(t, r, c[P_HOURS], "hours", &p->hours);
    if (!e) e = num(t, r, c[P_COST], "cost_usd", &p->cost_usd);
    if (!e) e = num(t, r, c[P_EFF], "efficiency", &p->efficiency);
    p->efficiency_unit = gb_csv_cell(t, r, c[P_EFF_UNIT]);
    p->bottleneck = gb_csv_cell(t, r, c[P_BOTTLENECK]);
    if (!e) e = num(t, r, c[P_COMPUTE_H], "compute_hours", &p->compute_hours);
    if (!e) e = num(t, r, c[P_MEMORY_H], "memory_hours", &p->memory_hours);
    if (!e) e = num(t, r, c[P_COMM_H], "comm_hours", &p->comm_hours);
    if (!e) e = boolean(t, r, c[P_PARETO], "pareto", &p->pareto);
    if (!e) e = num(t, r, c[P_PRICE], "price_usd_per_gpu_hour", &p->price_usd_per_gpu_hour);
    if (!e) e = num(t, r, c[P_PURCHASE], "purchase_usd_per_gpu", &p->purchase_usd_per_gpu);
    p->price_date = gb_csv_cell(t, r, c[P_PRICE_DATE]);
    p->price_source = gb_csv_cell(t, r, c[P_PRICE_SOURCE]);
    if (!e) e = num(t, r, c[P_UTIL], "utilization", &p->utilization);
    if (!e) e = num(t, r, c[P_PUE], "pue", &p->pue);
    if (!e) e = num(t, r, c[P_ELEC], "electricity_usd_per_kwh", &p->electricity_usd_per_kwh);
    if (!e) e = num(t, r, c[P_MFU], "mfu", &p->mfu);
    if (!e) e = num(t, r, c[P_OVERLAP], "overlap", &p->overlap);
    if (!e) e = num(t, r, c[P_MAX_HOURS], "max_hours", &p->max_hours);
    if (!e) e = num(t, r, c[P_BUDGET], "budget_usd", &p->budget_usd);
    p->workload = gb_csv_cell(t, r, c[P_WORKLOAD]);
    p->precision = gb_csv_cell(t, r, c[P_PRECISION]);
    p->gemm_window = gb_csv_cell(t, r, c[P_GEMM_WINDOW]);
    if (!e) e = num(t, r, c[P_CAPEX], "capex_usd", &p->capex_usd);
    if (!e) e = num(t, r, c[P_AMORTIZED], "amortized_usd", &p->amortized_usd);
    if (!e) e = num(t, r, c[P_CASH], "cash_usd", &p->cash_usd);
    if (!e) e = num(t, r, c[P_HOURS_LOW], "hours_low", &p->hours_low);
    if (!e) e = num(t, r, c[P_HOURS_HIGH], "hours_high", &p->hours_high);
    if (!e) e = num(t, r, c[P_COST_LOW], "cost_low", &p->cost_low);
    if (!e) e = num(t, r, c[P_COST_HIGH], "cost_high", &p->cost_high);
    p->rank_by = gb_csv_cell(t, r, c[P_RANK_BY]);
    if (!e && *p->rank_by && strcmp(p->rank_by, "low") && strcmp(p->rank_by, "median") && strcmp(p->rank_by, "high"))
      e = gb_fail(GB_E_INPUT, "%s:%ld: rank_by: not low, median or high: \"%.40s\"", t->name, p->line, p->rank_by);
    if (!e) e = boolean(t, r, c[P_PRICE_STALE], "price_stale", &p->price_stale);
    if (!e) e = num(t, r, c[P_AMORT_YEARS], "amortization_years", &p->amortization_years);
    if (!e) e = num(t, r, c[P_PRICE_AGE], "price_age_days", &p->price_age_days);
    p->price_confidence = gb_csv_cell(t, r, c[P_PRICE_CONF]);
    if (!e) e = num(t, r, c[P_PRICE_WIDEN], "price_band_widening", &p->price_band_widening);
    rank_end(p);
    if (!e && *p->gemm_window && strcmp(p->gemm_window, "burst") && strcmp(p->gemm_window, "sustained"))
      e = gb_fail(GB_E_INPUT, "%s:%ld: gemm_window: not burst or sustained: \"%.40s\"", t->name, p->line,
                  p->gemm_window);
  }
  if (e) {
    gb_planfile_free(out);
    return e;
  }
  out->n = t->nrows;
  return GB_OK;
}

gb_err gb_planfile_read(const char *path, gb_planfile *out) {
  memset(out, 0, sizeof *out);
  gb_err e = gb_csv_read_file(path, &out->table);
  return e ? e : planfile_rows(path, out);
}

gb_err gb_planfile_read_mem(const char *name, const char *data, size_t len, gb_planfile *out) {
  memset(out, 0, sizeof *out);
  gb_err e = gb_csv_read_mem(name, data, len, &out->table);
  return e ? e : planfile_rows(name, out);
}

bool gb_planfile_ranks_band_end(const gb_planfile_row *p) {
  bool band = isfinite(p->hours_low) && isfinite(p->hours_high) && isfinite(p->cost_low) && isfinite(p->cost_high);
  return band && (!strcmp(p->rank_by, "low") || !strcmp(p->rank_by, "high"));
}

const char *gb_planfile_rank_end(const gb_planfile_row *p) {
  if (!gb_planfile_ranks_band_end(p)) return "its nominal figures";
  return !strcmp(p->rank_by, "low") ? "the pessimistic end of its band" : "the optimistic end of its band";
}

void gb_planfile_free(gb_planfile *p) {
  gb_csv_free(&p->table);
  free(p->rows);
  memset(p, 0, sizeof *p);
}

/* Validates out->table (already read) into out->rows. */
static gb_err sensfile_rows(const char *path, gb_sensfile *out) {
  gb_err e = GB_OK;
  const gb_csv_table *t = &out->table;
  static const char *const names[] = {"factor", "change_pct", "top_gpu_type", "top_gpu_count", "top_provider",
                                      "top_offering", "hours", "cost_usd", "changed"};
  int c[9];
  for (int i = 0; i < 9 && !e; i++) {
    c[i] = gb_csv_col(t, names[i]);
    if (c[i] < 0)
      e = gb_fail(GB_E_INPUT, "%s:%ld: missing column \"%s\" (is this a gpubench sensitivity CSV?)", t->name,
                  t->lines[0], names[i]);
  }
  if (!e && t->nrows > 0) {
    out->rows = calloc(t->nrows, sizeof *out->rows);
    if (!out->rows) e = gb_fail(GB_E_NOMEM, "out of memory reading %s", path);
  }
  for (size_t r = 0; r < t->nrows && !e; r++) {
    gb_sensfile_row *s = &out->rows[r];
    s->line = gb_csv_line(t, r);
    s->factor = gb_csv_cell(t, r, c[0]);
    e = num(t, r, c[1], "change_pct", &s->change_pct);
    s->top_gpu_type = gb_csv_cell(t, r, c[2]);
    if (!e) e = integer(t, r, c[3], "top_gpu_count", &s->top_gpu_count);
    s->top_provider = gb_csv_cell(t, r, c[4]);
    s->top_offering = gb_csv_cell(t, r, c[5]);
    if (!e) e = num(t, r, c[6], "hours", &s->hours);
    if (!e) e = num(t, r, c[7], "cost_usd", &s->cost_usd);
    if (!e) e = boolean(t, r, c[8], "changed", &s->changed);
  }
  if (e) {
    gb_sensfile_free(out);
    return e;
  }
  out->n = t->nrows;
  return GB_OK;
}

gb_err gb_sensfile_read(const char *path, gb_sensfile *out) {
  memset(out, 0, sizeof *out);
  gb_err e = gb_csv_read_file(path, &out->table);
  return e ? e : sensfile_rows(path, out);
}

gb_err gb_sensfile_read_mem(const char *name, const char *data, size_t len, gb_sensfile *out) {
  memset(out, 0, sizeof *out);
  gb_err e = gb_csv_read_mem(name, data, len, &out->table);
  return e ? e : sensfile_rows(name, out);
}

void gb_sensfile_free(gb_sensfile *s) {
  gb_csv_free(&s->table);
  free(s->rows);
  memset(s, 0, sizeof *s);
}
