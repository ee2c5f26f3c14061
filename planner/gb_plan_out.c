/* gb_plan_out: the plan's outputs. The full table as CSV, every
 * configuration with its time breakdown as JSON, the sensitivity table and
 * the hybrid cost curve as CSV; each written atomically. Columns:
 * docs/planner.md, "Outputs". */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_csv.h"
#include "gb_num.h"
#include "gb_plan.h"
#include "gb_escape.h"
#include "gb_plan_int.h"

static gb_err put_int(gb_buf *b, long v, char sep) {
  char s[32];
  snprintf(s, sizeof s, "%ld", v);
  return gb_csv_put_field(b, s, sep);
}

/* ---- the plan record: one table of fields every writer reads ---- */

enum { SRC_ROW, SRC_TIME, SRC_OPT, SRC_SPECIAL };
enum {
  X_RANK, X_TYPE, X_COUNT, X_NODES, X_GPN, X_PROVIDER, X_OFFERING, X_BASIS, X_FEASIBLE, X_REASON, X_EFF_UNIT,
  X_BOTTLENECK, X_PARETO, X_PURCHASE, X_DATE, X_SOURCE, X_WORKLOAD, X_PRECISION, X_WINDOW, X_BUDGET_BASIS,
  X_RANK_BY, X_GEMM_BASIS, X_HBM_BASIS, X_COMM_BASIS, X_STALE, X_TP, X_FIG_BASIS, X_MEETS, X_WITHIN, X_PPW_UNIT
};

typedef struct field {
  const char *name;
  int src;       /* where it comes from: a double of the row, of its time, of the options, or special */
  size_t off;    /* offsetof the double, or the X_ id */
  bool per_plan; /* the same for every row: JSON writes it once */
  bool in_time;  /* JSON: in the configuration's "time" breakdown */
} field;

#define ROW(n, m) {n, SRC_ROW, offsetof(gb_plan_row, m), false, false}
#define TIME(n, m) {n, SRC_TIME, offsetof(gb_plan_time, m), false, false}
#define TBRK(n, m) {n, SRC_TIME, offsetof(gb_plan_time, m), false, true}
#define RBRK(n, m) {n, SRC_ROW, offsetof(gb_plan_row, m), false, true}
#define OPT(n, m) {n, SRC_OPT, offsetof(gb_plan_opts, m), true, false}
#define SPEC(n, x) {n, SRC_SPECIAL, x, false, false}
#define PLAN(n, x) {n, SRC_SPECIAL, x, true, false}

/* The CSV's columns in order: old readers find theirs where they were; later ones are added at the end. */
static const field k_fields[] = {
    SPEC("rank", X_RANK), SPEC("gpu_type", X_TYPE), SPEC("gpu_count", X_COUNT), SPEC("nodes", X_NODES),
    SPEC("gpus_per_node", X_GPN), SPEC("provider", X_PROVIDER), SPEC("offering", X_OFFERING), SPEC("basis", X_BASIS),
    SPEC("feasible", X_FEASIBLE), SPEC("reason", X_REASON), ROW("hours", hours), ROW("cost_usd", cost_usd),
    ROW("efficiency", efficiency), PLAN("efficiency_unit", X_EFF_UNIT), SPEC("bottleneck", X_BOTTLENECK),
    RBRK("compute_hours", compute_hours), RBRK("memory_hours", memory_hours), RBRK("comm_hours", comm_hours),
    SPEC("pareto", X_PARETO), ROW("price_usd_per_gpu_hour", rate_usd_per_gpu_hour),
    SPEC("purchase_usd_per_gpu", X_PURCHASE), SPEC("price_date", X_DATE), SPEC("price_source", X_SOURCE),
    OPT("utilization", utilization), OPT("pue", pue), OPT("electricity_usd_per_kwh", electricity_usd_per_kwh),
    OPT("mfu", mfu), OPT("overlap", overlap), OPT("max_hours", max_hours), OPT("budget_usd", budget_usd),
    PLAN("workload", X_WORKLOAD), PLAN("precision", X_PRECISION), PLAN("gemm_window", X_WINDOW),
    ROW("capex_usd", capex_usd), ROW("amortized_usd", amortized_usd), ROW("cash_usd", cash_usd),
    ROW("breakeven_hours", breakeven_hours), PLAN("budget_basis", X_BUDGET_BASIS), ROW("hours_low", hours_low),
    ROW("hours_high", hours_high), ROW("cost_low", cost_low), ROW("cost_high", cost_high), PLAN("rank_by", X_RANK_BY),
    SPEC("gemm_basis", X_GEMM_BASIS), SPEC("hbm_basis", X_HBM_BASIS), SPEC("comm_basis", X_COMM_BASIS),
    SPEC("price_stale", X_STALE), SPEC("tensor_parallel", X_TP), TIME("batch", batch),
    TIME("tokens_per_s_per_gpu", tokens_per_s_per_gpu), TIME("token_latency_ms", token_latency_ms),
    TIME("ttft_ms", ttft_ms), TBRK("bubble_hours", bubble_hours), TBRK("tp_comm_hours", tp_hours),
    TBRK("dp_comm_hours", dp_hours), TBRK("a2a_hours", a2a_hours), TBRK("goodput_hours", goodput_hours),
    TIME("eta", eta), OPT("amortization_years", amortization_years),
    /* the ranked figures and their verdicts, energy, the inference band */
    PLAN("figure_basis", X_FIG_BASIS), ROW("rank_hours", rank_hours), ROW("rank_cost_usd", rank_cost),
    SPEC("meets_deadline", X_MEETS), SPEC("within_budget", X_WITHIN), ROW("energy_kwh", energy_kwh),
    ROW("energy_usd", energy_usd), ROW("perf_per_watt", perf_per_watt), PLAN("perf_per_watt_unit", X_PPW_UNIT),
    ROW("efficiency_low", efficiency_low), ROW("efficiency_high", efficiency_high),
    ROW("tokens_per_s_low", tokens_per_s_low), ROW("tokens_per_s_high", tokens_per_s_high),
    ROW("token_latency_ms_low", latency_ms_low), ROW("token_latency_ms_high", latency_ms_high)};
#define NFIELDS (sizeof k_fields / sizeof k_fields[0])

typedef struct value {
  enum { V_NUM, V_STR, V_BOOL, V_NULL } kind;
  double num;
  const char *str;
  bool b;
} value;

static value num(double v) { return (value){isfinite(v) ? V_NUM : V_NULL, v, NULL, false}; }
static value str(const char *s) { return (value){V_STR, 0, s ? s : "", false}; }
static value boolean(bool b) { return (value){V_BOOL, 0, NULL, b}; }
static const value k_null = {V_NULL, 0, NULL, false};

static value special(const gb_plan *p, const gb_plan_row *r, size_t id, char *reason, size_t rn) {
  const gb_price *pr = r ? r->price : NULL; /* r is NULL only for the plan-wide fields */
  const gb_perf_type *t = r ? r->perf : NULL;
  switch (id) {
  case X_RANK: return r->rank ? num((double)r->rank) : k_null;
  case X_TYPE: return str(t->spec->gpu_type);
  case X_COUNT: return num(r->gpu_count);
  case X_NODES: return num(r->nodes);
  case X_GPN: return num(r->gpus_per_node);
  case X_PROVIDER: return pr ? str(pr->provider) : k_null;
  case X_OFFERING: return pr ? str(gb_offering_name(pr->offering)) : k_null;
  case X_BASIS: return str(gb_plan_basis_name(r));
  case X_FEASIBLE: return boolean(r->feasible);
  case X_REASON: gb_plan_reason(r, reason, rn); return str(reason);
  case X_EFF_UNIT: return str(p->efficiency_unit);
  case X_BOTTLENECK: return isnan(r->compute_hours) ? k_null : str(gb_bottleneck_name(r->bottleneck));
  case X_PARETO: return boolean(r->pareto);
  case X_PURCHASE: return pr ? num(pr->purchase_usd_per_gpu) : k_null;
  case X_DATE: return pr ? str(pr->date) : k_null;
  case X_SOURCE: return pr ? str(pr->source) : k_null;
  case X_WORKLOAD: return str(p->workload->name);
  case X_PRECISION: return str(p->workload->precision);
  case X_WINDOW: return str(p->workload->gemm_sustained ? "sustained" : "burst");
  case X_BUDGET_BASIS: return str(p->opts.budget_basis == GB_BUDGET_CASH ? "cash" : "amortized");
  case X_RANK_BY: return str(gb_rank_by_name(p->opts.rank_by));
  case X_GEMM_BASIS: return str(gb_basis_name(t->gemm_basis));
  case X_HBM_BASIS: return str(gb_basis_name(t->hbm_basis));
  case X_COMM_BASIS: return str(gb_basis_name(t->comm_basis));
  case X_STALE: return pr ? boolean(r->price_stale) : k_null;
  case X_TP: return r->time.tp > 0 ? num(r->time.tp) : k_null;
  case X_FIG_BASIS: return str(gb_plan_figure_basis(p->opts.rank_by));
  case X_MEETS: return r->has_verdict ? boolean(r->meets_deadline) : k_null;
  case X_WITHIN: return r->has_verdict ? boolean(r->within_budget) : k_null;
  case X_PPW_UNIT: return str(gb_perf_per_watt_unit(p));
  default: return k_null;
  }
}

static value field_value(const gb_plan *p, const gb_plan_row *r, const field *f, char *reason, size_t rn) {
  double d;
  switch (f->src) {
  case SRC_ROW: memcpy(&d, (const char *)r + f->off, sizeof d); return num(d);
  case SRC_TIME: memcpy(&d, (const char *)&r->time + f->off, sizeof d); return num(d);
  case SRC_OPT: memcpy(&d, (const char *)&p->opts + f->off, sizeof d); return num(d);
  default: return special(p, r, f->off, reason, rn);
  }
}

static gb_err put_row(gb_buf *b, const gb_plan *p, const gb_plan_row *r) {
  gb_err e = GB_OK;
  char reason[160];
  for (size_t i = 0; i < NFIELDS && !e; i++) {
    value v = field_value(p, r, &k_fields[i], reason, sizeof reason);
    char sep = i ? ',' : 0;
    if (v.kind == V_NUM) e = gb_csv_put_double(b, v.num, sep);
    else if (v.kind == V_BOOL) e = gb_csv_put_field(b, v.b ? "yes" : "no", sep);
    else e = gb_csv_put_field(b, v.kind == V_STR ? v.str : "", sep);
  }
  return e ? e : gb_buf_puts(b, "\n");
}

/* The rows --top shows: the best GPU count per type, provider and offering, the first top of them (0: all). */
size_t gb_plan_shown(const gb_plan *p, long top, const gb_plan_row **out) {
  size_t k = 0;
  for (size_t i = 0; i < p->nfeasible && (top == 0 || (long)k < top); i++) {
    const gb_plan_row *r = &p->rows[i];
    bool first = true;
    for (size_t j = 0; j < k && first; j++)
      first = !(out[j]->perf == r->perf && out[j]->price->offering == r->price->offering &&
                strcmp(out[j]->price->provider, r->price->provider) == 0);
    if (first) out[k++] = r;
  }
  return k;
}

static gb_err write_csv(const gb_plan *p, const gb_plan_row *const *rows, size_t n, const char *path) {
  gb_buf b = {0};
  gb_err e = GB_OK;
  for (size_t i = 0; i < NFIELDS && !e; i++) e = gb_csv_put_field(&b, k_fields[i].name, i ? ',' : 0);
  if (!e) e = gb_buf_puts(&b, "\n");
  for (size_t i = 0; i < (rows ? n : p->n) && !e; i++) e = put_row(&b, p, rows ? rows[i] : &p->rows[i]);
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

gb_err gb_plan_write_csv(const gb_plan *p, const char *path) { return write_csv(p, NULL, 0, path); }

gb_err gb_plan_write_csv_top(const gb_plan *p, long top, const char *path) {
  const gb_plan_row **rows = malloc((p->nfeasible + 1) * sizeof *rows);
  if (!rows) return gb_fail(GB_E_NOMEM, "plan: out of memory");
  size_t n = gb_plan_shown(p, top, rows);
  gb_err e = write_csv(p, rows, n, path);
  free(rows);
  return e;
}

/* ---- JSON: typed values ---- */

gb_err gb_json_string(gb_buf *b, const char *v) {
  gb_err e = gb_buf_puts(b, "\"");
  if (!e) e = gb_esc_json(b, v ? v : ""); /* the one escaping layer: valid UTF-8 whatever v holds */
  return e ? e : gb_buf_puts(b, "\"");
}

gb_err gb_json_number(gb_buf *b, double v) {
  if (!isfinite(v)) return gb_buf_puts(b, "null");
  char s[64];
  gb_fmt_double(s, sizeof s, v); /* the CSV's digits: both read back the same double */
  return gb_buf_puts(b, s);
}

static gb_err json_value(gb_buf *b, value v) {
  switch (v.kind) {
  case V_NUM: return gb_json_number(b, v.num);
  case V_STR: return gb_json_string(b, v.str);
  case V_BOOL: return gb_buf_puts(b, v.b ? "true" : "false");
  default: return gb_buf_puts(b, "null");
  }
}

/* One configuration as a JSON object of its fields (per_plan: the plan-wide ones instead). */
gb_err gb_plan_json_fields(gb_buf *b, const gb_plan *p, const gb_plan_row *r, bool per_plan) {
  gb_err e = gb_buf_puts(b, "{");
  char reason[160];
  const char *sep = "";
  for (int part = 0; part < (per_plan ? 1 : 2) && !e; part++) { /* the fields, then the "time" breakdown */
    if (part) e = gb_buf_puts(b, ", \"time\": {"), sep = "";
    for (size_t i = 0; i < NFIELDS && !e; i++) {
      if (k_fields[i].per_plan != per_plan || k_fields[i].in_time != (part == 1)) continue;
      e = gb_buf_printf(b, "%s\"%s\": ", sep, k_fields[i].name);
      e = e ? e : json_value(b, field_value(p, r, &k_fields[i], reason, sizeof reason));
      sep = ", ";
    }
    if (part && !e) e = gb_buf_puts(b, "}");
  }
  return e ? e : gb_buf_puts(b, "}");
}

gb_err gb_plan_write_sensitivity_csv(const gb_sensitivity_row *rows, size_t n, const char *path) {
  static const char *const cols[] = {"factor",       "change_pct",  "top_gpu_type", "top_gpu_count", "top_provider",
                                     "top_offering", "hours",       "cost_usd",     "changed",
                                     "rank_hours",   "rank_cost_usd"};
  gb_buf b = {0};
  gb_err e = GB_OK;
  for (size_t i = 0; i < sizeof cols / sizeof cols[0] && !e; i++) e = gb_csv_put_field(&b, cols[i], i ? ',' : 0);
  if (!e) e = gb_buf_puts(&b, "\n");
  for (size_t i = 0; i < n && !e; i++) {
    const gb_sensitivity_row *s = &rows[i];
    const gb_plan_row *t = s->has_top ? &s->top : NULL;
    e = gb_csv_put_field(&b, s->factor, 0);
    e = e ? e : gb_csv_put_double(&b, s->change_pct, ',');
    e = e ? e : gb_csv_put_field(&b, t ? t->perf->spec->gpu_type : "", ',');
    if (t) e = e ? e : put_int(&b, t->gpu_count, ',');
    else e = e ? e : gb_csv_put_field(&b, "", ',');
    e = e ? e : gb_csv_put_field(&b, t ? t->price->provider : "", ',');
    e = e ? e : gb_csv_put_field(&b, t ? gb_offering_name(t->price->offering) : "", ',');
    e = e ? e : gb_csv_put_double(&b, t ? t->hours : NAN, ',');
    e = e ? e : gb_csv_put_double(&b, t ? t->cost_usd : NAN, ',');
    e = e ? e : gb_csv_put_field(&b, s->changed ? "yes" : "no", ',');
    e = e ? e : gb_csv_put_double(&b, t ? t->rank_hours : NAN, ',');
    e = e ? e : gb_csv_put_double(&b, t ? t->rank_cost : NAN, ',');
    e = e ? e : gb_buf_puts(&b, "\n");
  }
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

gb_err gb_plan_write_hybrid_csv(const gb_hybrid_curve *c, size_t n, const char *path) {
  gb_buf b = {0};
  gb_err e = gb_buf_puts(&b, "gpu_type,purchase_provider,rent_provider,owned_gpus,annual_usd,best\n");
  for (size_t i = 0; i < n && !e; i++)
    for (size_t j = 0; j < c[i].n && !e; j++) {
      e = gb_csv_put_field(&b, c[i].purchase->gpu_type, 0);
      e = e ? e : gb_csv_put_field(&b, c[i].purchase->provider, ',');
      e = e ? e : gb_csv_put_field(&b, c[i].rent->provider, ',');
      e = e ? e : put_int(&b, c[i].owned[j], ',');
      e = e ? e : gb_csv_put_double(&b, c[i].annual_usd[j], ',');
      e = e ? e : gb_csv_put_field(&b, c[i].owned[j] == c[i].best_owned ? "yes" : "no", ',');
      e = e ? e : gb_buf_puts(&b, "\n");
    }
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}
