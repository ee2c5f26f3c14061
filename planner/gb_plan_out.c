/* gb_plan_out: the plan's outputs. The full table as CSV, every
 * configuration with its time breakdown as JSON, the sensitivity table and
 * the hybrid cost curve as CSV; each written atomically. Columns:
 * docs/planner.md, "Outputs". */
#include <math.h>
#include <stdio.h>

#include "gb_csv.h"
#include "gb_num.h"
#include "gb_plan.h"

static const char *const k_plan_cols[] = {
    "rank", "gpu_type", "gpu_count", "nodes", "gpus_per_node", "provider", "offering", "basis", "feasible",
    "reason", "hours", "cost_usd", "efficiency", "efficiency_unit", "bottleneck", "compute_hours", "memory_hours",
    "comm_hours", "pareto", "price_usd_per_gpu_hour", "purchase_usd_per_gpu", "price_date", "price_source",
    "utilization", "pue", "electricity_usd_per_kwh", "mfu", "overlap", "max_hours", "budget_usd", "workload",
    "precision", "gemm_window",
    /* added later (old readers ignore them) */
    "capex_usd", "amortized_usd", "cash_usd", "breakeven_hours", "budget_basis", "hours_low", "hours_high",
    "cost_low", "cost_high", "rank_by", "gemm_basis", "hbm_basis", "comm_basis", "price_stale", "tensor_parallel",
    "batch", "tokens_per_s_per_gpu", "token_latency_ms", "ttft_ms", "bubble_hours", "tp_comm_hours",
    "dp_comm_hours", "a2a_hours", "goodput_hours", "eta",
    /* added for the decision page, which weighs break-even against it */
    "amortization_years"};

static gb_err put_int(gb_buf *b, long v, char sep) {
  char s[32];
  snprintf(s, sizeof s, "%ld", v);
  return gb_csv_put_field(b, s, sep);
}

static gb_err put_row(gb_buf *b, const gb_plan *p, const gb_plan_row *r) {
  const gb_plan_opts *o = &p->opts;
  char reason[160];
  gb_plan_reason(r, reason, sizeof reason);
  const gb_price *pr = r->price;
  bool priced = pr != NULL;
  gb_err e = GB_OK;
  if (r->rank) e = e ? e : put_int(b, (long)r->rank, 0);
  else e = e ? e : gb_csv_put_field(b, "", 0);
  e = e ? e : gb_csv_put_field(b, r->perf->spec->gpu_type, ',');
  e = e ? e : put_int(b, r->gpu_count, ',');
  e = e ? e : put_int(b, r->nodes, ',');
  e = e ? e : put_int(b, r->gpus_per_node, ',');
  e = e ? e : gb_csv_put_field(b, priced ? pr->provider : "", ',');
  e = e ? e : gb_csv_put_field(b, priced ? gb_offering_name(pr->offering) : "", ',');
  e = e ? e : gb_csv_put_field(b, gb_plan_basis_name(r), ',');
  e = e ? e : gb_csv_put_field(b, r->feasible ? "yes" : "no", ',');
  e = e ? e : gb_csv_put_field(b, reason, ',');
  e = e ? e : gb_csv_put_double(b, r->hours, ',');
  e = e ? e : gb_csv_put_double(b, r->cost_usd, ',');
  e = e ? e : gb_csv_put_double(b, r->efficiency, ',');
  e = e ? e : gb_csv_put_field(b, p->efficiency_unit, ',');
  e = e ? e : gb_csv_put_field(b, isnan(r->compute_hours) ? "" : gb_bottleneck_name(r->bottleneck), ',');
  e = e ? e : gb_csv_put_double(b, r->compute_hours, ',');
  e = e ? e : gb_csv_put_double(b, r->memory_hours, ',');
  e = e ? e : gb_csv_put_double(b, r->comm_hours, ',');
  e = e ? e : gb_csv_put_field(b, r->pareto ? "yes" : "no", ',');
  e = e ? e : gb_csv_put_double(b, r->rate_usd_per_gpu_hour, ',');
  e = e ? e : gb_csv_put_double(b, priced ? pr->purchase_usd_per_gpu : NAN, ',');
  e = e ? e : gb_csv_put_field(b, priced ? pr->date : "", ',');
  e = e ? e : gb_csv_put_field(b, priced ? pr->source : "", ',');
  e = e ? e : gb_csv_put_double(b, o->utilization, ',');
  e = e ? e : gb_csv_put_double(b, o->pue, ',');
  e = e ? e : gb_csv_put_double(b, o->electricity_usd_per_kwh, ',');
  e = e ? e : gb_csv_put_double(b, o->mfu, ',');
  e = e ? e : gb_csv_put_double(b, o->overlap, ',');
  e = e ? e : gb_csv_put_double(b, o->max_hours, ',');
  e = e ? e : gb_csv_put_double(b, o->budget_usd, ',');
  e = e ? e : gb_csv_put_field(b, p->workload->name, ',');
  e = e ? e : gb_csv_put_field(b, p->workload->precision, ',');
  e = e ? e : gb_csv_put_field(b, p->workload->gemm_sustained ? "sustained" : "burst", ',');
  const gb_plan_time *tm = &r->time;
  const gb_perf_type *t = r->perf;
  static const char *const rb[] = {"low", "median", "high"};
  e = e ? e : gb_csv_put_double(b, r->capex_usd, ',');
  e = e ? e : gb_csv_put_double(b, r->amortized_usd, ',');
  e = e ? e : gb_csv_put_double(b, r->cash_usd, ',');
  e = e ? e : gb_csv_put_double(b, r->breakeven_hours, ',');
  e = e ? e : gb_csv_put_field(b, o->budget_basis == GB_BUDGET_CASH ? "cash" : "amortized", ',');
  e = e ? e : gb_csv_put_double(b, r->hours_low, ',');
  e = e ? e : gb_csv_put_double(b, r->hours_high, ',');
  e = e ? e : gb_csv_put_double(b, r->cost_low, ',');
  e = e ? e : gb_csv_put_double(b, r->cost_high, ',');
  e = e ? e : gb_csv_put_field(b, rb[o->rank_by], ',');
  e = e ? e : gb_csv_put_field(b, gb_basis_name(t->gemm_basis), ',');
  e = e ? e : gb_csv_put_field(b, gb_basis_name(t->hbm_basis), ',');
  e = e ? e : gb_csv_put_field(b, gb_basis_name(t->comm_basis), ',');
  e = e ? e : gb_csv_put_field(b, priced ? (r->price_stale ? "yes" : "no") : "", ',');
  if (tm->tp > 0) e = e ? e : put_int(b, tm->tp, ',');
  else e = e ? e : gb_csv_put_field(b, "", ',');
  e = e ? e : gb_csv_put_double(b, tm->batch, ',');
  e = e ? e : gb_csv_put_double(b, tm->tokens_per_s_per_gpu, ',');
  e = e ? e : gb_csv_put_double(b, tm->token_latency_ms, ',');
  e = e ? e : gb_csv_put_double(b, tm->ttft_ms, ',');
  e = e ? e : gb_csv_put_double(b, tm->bubble_hours, ',');
  e = e ? e : gb_csv_put_double(b, tm->tp_hours, ',');
  e = e ? e : gb_csv_put_double(b, tm->dp_hours, ',');
  e = e ? e : gb_csv_put_double(b, tm->a2a_hours, ',');
  e = e ? e : gb_csv_put_double(b, tm->goodput_hours, ',');
  e = e ? e : gb_csv_put_double(b, tm->eta, ',');
  e = e ? e : gb_csv_put_double(b, o->amortization_years, ',');
  e = e ? e : gb_buf_puts(b, "\n");
  return e;
}

gb_err gb_plan_write_csv(const gb_plan *p, const char *path) {
  gb_buf b = {0};
  gb_err e = GB_OK;
  for (size_t i = 0; i < sizeof k_plan_cols / sizeof k_plan_cols[0] && !e; i++)
    e = gb_csv_put_field(&b, k_plan_cols[i], i ? ',' : 0);
  if (!e) e = gb_buf_puts(&b, "\n");
  for (size_t i = 0; i < p->n && !e; i++) e = put_row(&b, p, &p->rows[i]);
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

/* ---- JSON output ---- */

static gb_err json_str(gb_buf *b, const char *key, const char *v) {
  gb_err e = gb_buf_printf(b, "\"%s\": \"", key);
  for (const char *p = v ? v : ""; *p && !e; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\') e = gb_buf_printf(b, "\\%c", c);
    else if (c < 0x20) e = gb_buf_printf(b, "\\u%04x", c);
    else e = gb_buf_printf(b, "%c", c);
  }
  return e ? e : gb_buf_puts(b, "\", ");
}

static gb_err json_num(gb_buf *b, const char *key, double v) {
  if (!isfinite(v)) return gb_buf_printf(b, "\"%s\": null, ", key);
  char s[64];
  gb_snprintf_c(s, sizeof s, "%.10g", v);
  return gb_buf_printf(b, "\"%s\": %s, ", key, s);
}

gb_err gb_plan_write_json(const gb_plan *p, const char *path) {
  gb_buf b = {0};
  const gb_plan_opts *o = &p->opts;
  static const char *const rb[] = {"low", "median", "high"};
  gb_err e = gb_buf_puts(&b, "{");
  e = e ? e : json_str(&b, "workload", p->workload->name);
  e = e ? e : json_str(&b, "kind", gb_workload_kind_name(p->workload->kind));
  e = e ? e : json_str(&b, "precision", p->workload->precision);
  e = e ? e : json_str(&b, "objective", gb_objective_name(o->objective));
  e = e ? e : json_str(&b, "rank_by", rb[o->rank_by]);
  e = e ? e : json_str(&b, "budget_basis", o->budget_basis == GB_BUDGET_CASH ? "cash" : "amortized");
  e = e ? e : json_num(&b, "max_hours", o->max_hours);
  e = e ? e : json_num(&b, "budget_usd", o->budget_usd);
  e = e ? e : json_num(&b, "amortization_years", o->amortization_years);
  e = e ? e : json_str(&b, "efficiency_unit", p->efficiency_unit);
  e = e ? e : gb_buf_puts(&b, "\"configurations\": [\n");
  for (size_t i = 0; i < p->n && !e; i++) {
    const gb_plan_row *r = &p->rows[i];
    const gb_price *pr = r->price;
    const gb_plan_time *t = &r->time;
    char reason[160];
    gb_plan_reason(r, reason, sizeof reason);
    e = gb_buf_puts(&b, i ? ",\n  {" : "  {");
    e = e ? e : json_num(&b, "rank", r->rank ? (double)r->rank : NAN);
    e = e ? e : json_str(&b, "gpu_type", r->perf->spec->gpu_type);
    e = e ? e : json_num(&b, "gpu_count", r->gpu_count);
    e = e ? e : json_num(&b, "nodes", r->nodes);
    e = e ? e : json_num(&b, "gpus_per_node", r->gpus_per_node);
    e = e ? e : json_str(&b, "provider", pr ? pr->provider : "");
    e = e ? e : json_str(&b, "offering", pr ? gb_offering_name(pr->offering) : "");
    e = e ? e : json_str(&b, "basis", gb_plan_basis_name(r));
    e = e ? e : json_str(&b, "gemm_basis", gb_basis_name(r->perf->gemm_basis));
    e = e ? e : json_str(&b, "hbm_basis", gb_basis_name(r->perf->hbm_basis));
    e = e ? e : json_str(&b, "comm_basis", gb_basis_name(r->perf->comm_basis));
    e = e ? e : json_str(&b, "feasible", r->feasible ? "yes" : "no");
    e = e ? e : json_str(&b, "reason", reason);
    e = e ? e : json_num(&b, "hours", r->hours);
    e = e ? e : json_num(&b, "hours_low", r->hours_low);
    e = e ? e : json_num(&b, "hours_high", r->hours_high);
    e = e ? e : json_num(&b, "cost_usd", r->cost_usd);
    e = e ? e : json_num(&b, "cost_low", r->cost_low);
    e = e ? e : json_num(&b, "cost_high", r->cost_high);
    e = e ? e : json_num(&b, "capex_usd", r->capex_usd);
    e = e ? e : json_num(&b, "amortized_usd", r->amortized_usd);
    e = e ? e : json_num(&b, "cash_usd", r->cash_usd);
    e = e ? e : json_num(&b, "breakeven_hours", r->breakeven_hours);
    e = e ? e : json_num(&b, "efficiency", r->efficiency);
    e = e ? e : json_str(&b, "bottleneck", isnan(r->compute_hours) ? "" : gb_bottleneck_name(r->bottleneck));
    e = e ? e : json_str(&b, "pareto", r->pareto ? "yes" : "no");
    e = e ? e : json_num(&b, "price_usd_per_gpu_hour", r->rate_usd_per_gpu_hour);
    e = e ? e : json_num(&b, "purchase_usd_per_gpu", pr ? pr->purchase_usd_per_gpu : NAN);
    e = e ? e : json_str(&b, "price_date", pr ? pr->date : "");
    e = e ? e : json_str(&b, "price_source", pr ? pr->source : "");
    e = e ? e : json_str(&b, "price_stale", pr ? (r->price_stale ? "yes" : "no") : "");
    e = e ? e : json_num(&b, "tensor_parallel", t->tp > 0 ? t->tp : NAN);
    e = e ? e : json_num(&b, "batch", t->batch);
    e = e ? e : json_num(&b, "tokens_per_s_per_gpu", t->tokens_per_s_per_gpu);
    e = e ? e : json_num(&b, "token_latency_ms", t->token_latency_ms);
    e = e ? e : json_num(&b, "ttft_ms", t->ttft_ms);
    e = e ? e : json_num(&b, "eta", t->eta);
    e = e ? e : gb_buf_puts(&b, "\"time\": {");
    e = e ? e : json_num(&b, "compute_hours", r->compute_hours);
    e = e ? e : json_num(&b, "memory_hours", r->memory_hours);
    e = e ? e : json_num(&b, "bubble_hours", t->bubble_hours);
    e = e ? e : json_num(&b, "tp_comm_hours", t->tp_hours);
    e = e ? e : json_num(&b, "dp_comm_hours", t->dp_hours);
    e = e ? e : json_num(&b, "a2a_hours", t->a2a_hours);
    e = e ? e : json_num(&b, "goodput_hours", t->goodput_hours);
    if (!e) {
      char s[64];
      if (isfinite(r->comm_hours)) gb_snprintf_c(s, sizeof s, "%.10g", r->comm_hours);
      else snprintf(s, sizeof s, "null");
      e = gb_buf_printf(&b, "\"comm_hours\": %s}}", s);
    }
  }
  e = e ? e : gb_buf_puts(&b, "\n]}\n");
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

gb_err gb_plan_write_sensitivity_csv(const gb_sensitivity_row *rows, size_t n, const char *path) {
  static const char *const cols[] = {"factor",       "change_pct",  "top_gpu_type", "top_gpu_count", "top_provider",
                                     "top_offering", "hours",       "cost_usd",     "changed"};
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
