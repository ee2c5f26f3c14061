/* gb_plan: search and ranking. Enumerates GPU type x GPU count (whole nodes)
 * x offering, times each configuration (gb_plan_time.c), prices it
 * (gb_plan_money.c), applies the deadline and the budget, ranks, and marks
 * the Pareto frontier of time against cost. Formulas: docs/planner.md. */
#include "gb_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_datecheck.h"
#include "gb_num.h"
#include "gb_plan_int.h"

const char *gb_bottleneck_name(gb_bottleneck b) {
  return b == GB_BOUND_COMPUTE ? "compute" : b == GB_BOUND_MEMORY ? "memory" : "communication";
}

const char *gb_objective_name(gb_objective o) {
  return o == GB_OBJ_COST ? "cost" : o == GB_OBJ_TIME ? "time" : "efficiency";
}

static int tie_break(const gb_plan_row *a, const gb_plan_row *b) {
  int c = strcmp(a->perf->spec->gpu_type, b->perf->spec->gpu_type);
  if (c) return c;
  if (a->price && b->price) {
    if ((c = strcmp(a->price->provider, b->price->provider))) return c;
    if (a->price->offering != b->price->offering) return (int)a->price->offering - (int)b->price->offering;
  }
  if (a->gpus_per_node != b->gpus_per_node) return a->gpus_per_node - b->gpus_per_node;
  return a->gpu_count - b->gpu_count;
}

#define CMP(x, y) (((x) > (y)) - ((x) < (y)))

static int cmp_feasible_first(const gb_plan_row *a, const gb_plan_row *b) { return CMP(b->feasible, a->feasible); }

static int cmp_cost(const void *pa, const void *pb) {
  const gb_plan_row *a = pa, *b = pb;
  int c = cmp_feasible_first(a, b);
  if (c || !a->feasible) return c ? c : tie_break(a, b);
  if ((c = CMP(a->rank_cost, b->rank_cost))) return c;
  if ((c = CMP(a->rank_hours, b->rank_hours))) return c;
  return tie_break(a, b);
}

static int cmp_time(const void *pa, const void *pb) {
  const gb_plan_row *a = pa, *b = pb;
  int c = cmp_feasible_first(a, b);
  if (c || !a->feasible) return c ? c : tie_break(a, b);
  if ((c = CMP(a->rank_hours, b->rank_hours))) return c;
  if ((c = CMP(a->rank_cost, b->rank_cost))) return c;
  return tie_break(a, b);
}

static int cmp_efficiency(const void *pa, const void *pb) {
  const gb_plan_row *a = pa, *b = pb;
  int c = cmp_feasible_first(a, b);
  if (c || !a->feasible) return c ? c : tie_break(a, b);
  if ((c = CMP(b->efficiency, a->efficiency))) return c;
  if ((c = CMP(a->rank_hours, b->rank_hours))) return c;
  return tie_break(a, b);
}

static int cmp_pareto(const void *pa, const void *pb) {
  const gb_plan_row *a = *(const gb_plan_row *const *)pa, *b = *(const gb_plan_row *const *)pb;
  int c = CMP(a->rank_hours, b->rank_hours);
  return c ? c : CMP(a->rank_cost, b->rank_cost);
}

/* GPU counts for nodes of gpn: powers of two below a node, then whole nodes,
 * up to max_gpus. Returns how many; counts may be NULL to only count. */
static size_t counts_for(int gpn, int max_gpus, int *counts) {
  size_t k = 0;
  for (int c = 1; c < gpn && c <= max_gpus; c *= 2) {
    if (counts) counts[k] = c;
    k++;
  }
  for (long c = gpn; c <= max_gpus; c += gpn) {
    if (counts) counts[k] = (int)c;
    k++;
  }
  return k;
}

static bool in_list(const char *const *v, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i], s) == 0) return true;
  return false;
}

static bool price_passes(const gb_plan_opts *o, const gb_price *p, const gb_perf_type *t) {
  if (o->ngpu_types && !in_list(o->gpu_types, o->ngpu_types, p->gpu_type)) return false;
  if (o->nproviders && !in_list(o->providers, o->nproviders, p->provider)) return false;
  bool any = false;
  for (int i = 0; i < 4; i++) any |= o->offerings[i];
  if (any && !o->offerings[p->offering]) return false;
  if (o->only_measured && (t->gemm_basis > GB_BASIS_THROTTLED || t->hbm_basis > GB_BASIS_THROTTLED)) return false;
  return true;
}

static bool count_passes(const gb_plan_opts *o, int n) {
  if (!o->ngpu_counts) return true;
  for (size_t i = 0; i < o->ngpu_counts; i++)
    if (o->gpu_counts[i] == n) return true;
  return false;
}

/* Every filter names something that exists: a type in the specs, a
 * provider in the prices (a typo would silently plan nothing). */
static gb_err check_filters(const gb_plan_opts *o, const gb_perf *perf, const gb_prices *prices) {
  const char *names[256];
  char msg[2048];
  size_t n = 0;
  for (size_t i = 0; i < perf->n && n < 256; i++) names[n++] = perf->v[i].spec->gpu_type;
  for (size_t i = 0; i < o->ngpu_types; i++)
    if (!gb_perf_find(perf, o->gpu_types[i])) {
      gb_unknown_name(msg, sizeof msg, "GPU type", o->gpu_types[i], names, n);
      return gb_fail(GB_E_INPUT, "--gpu-type: %s", msg);
    }
  n = 0; /* the providers, each once */
  for (size_t j = 0; j < prices->n && n < 256; j++)
    if (!in_list(names, n, prices->v[j].provider)) names[n++] = prices->v[j].provider;
  for (size_t i = 0; i < o->nproviders; i++)
    if (!in_list(names, n, o->providers[i])) {
      gb_unknown_name(msg, sizeof msg, "provider", o->providers[i], names, n);
      return gb_fail(GB_E_INPUT, "--provider: %s (in %s)", msg, prices->path);
    }
  return GB_OK;
}

static bool type_priced(const gb_prices *prices, const char *type) {
  for (size_t i = 0; i < prices->n; i++)
    if (strcmp(prices->v[i].gpu_type, type) == 0) return true;
  return false;
}

/* The job's energy at the ranked end, its cost at --electricity (owned or
 * not: a rental's rate includes it), and the work done per watt of GPU and
 * host power; the GPU's power measured by the energy counter where a long
 * enough window was measured, else its TDP (gb_perf_power_w), and said
 * which. */
static void plan_energy(const gb_workload *w, const gb_plan_opts *op, double work, gb_plan_row *r) {
  double gpus = (double)r->nodes * r->gpus_per_node;
  r->gpu_power_w = gb_perf_power_w(r->perf);
  r->power_measured = r->perf->power_measured;
  double watts = r->gpu_power_w * (1 + op->host_power_fraction); /* one GPU and its host share */
  r->energy_kwh = gpus * watts / 1000 * op->pue * r->rank_hours;
  r->energy_usd = r->energy_kwh * op->electricity_usd_per_kwh * op->price_scale;
  if (w->kind == GB_WL_INFERENCE) r->perf_per_watt = r->time.tokens_per_s_per_gpu / watts;
  else r->perf_per_watt = work * 1e15 / (r->rank_hours * 3600) / (gpus * watts) / 1e9;
  double h = r->hours;
  r->efficiency_low = r->efficiency * h / r->hours_high; /* the job's share scales with its hours */
  r->efficiency_high = r->efficiency * h / r->hours_low;
}

/* Inference: the band of the capacity and the decode step, from the same
 * spread rules as every other band (each figure at the ends of its band). */
static void serve_band(const gb_workload *w, const gb_perf *perf, const gb_plan_opts *op, gb_plan_row *r) {
  const gb_perf_type *t = r->perf;
  for (int end = -1; end <= 1; end += 2) {
    gb_figs f = {t->gemm_tflops * 1e12 * (1 + end * t->gemm_band),
                 t->gemm_base_tflops * 1e12 * (1 + end * t->gemm_band), t->hbm_gbps * 1e9 * (1 + end * t->hbm_band),
                 1 + end * t->comm_band};
    gb_plan_time tm = r->time;
    tm.reject = GB_REJECT_NONE;
    gb_time_inference(w, perf, t, r->gpu_count, r->gpus_per_node, op, &f, &tm);
    double tps = tm.tokens_per_s_per_gpu, ms = tm.token_latency_ms;
    if (end < 0) r->tokens_per_s_low = tps, r->latency_ms_high = ms;
    else r->tokens_per_s_high = tps, r->latency_ms_low = ms;
  }
}

/* Times, prices and checks one configuration against the constraints. */
static void plan_row(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *op,
                     double work, gb_plan_row *r, gb_plan *out) {
  r->cost_usd = r->efficiency = r->rate_usd_per_gpu_hour = NAN;
  r->capex_usd = r->amortized_usd = r->cash_usd = r->breakeven_hours = NAN;
  r->cost_low = r->cost_high = r->rank_cost = r->rank_hours = NAN;
  r->energy_kwh = r->energy_usd = r->perf_per_watt = r->efficiency_low = r->efficiency_high = NAN;
  r->gpu_power_w = NAN;
  r->power_measured = false;
  r->tokens_per_s_low = r->tokens_per_s_high = r->latency_ms_low = r->latency_ms_high = NAN;
  gb_plan_price_age(op, r);
  gb_plan_time *tm = &r->time;
  gb_plan_time_node(w, perf, r->perf, r->gpu_count, r->gpus_per_node, r->price->node_nic_gbit / 8, op, tm);
  r->projected = tm->projected;
  r->throttled = tm->throttled;
  r->basis = tm->basis;
  r->hours = tm->hours, r->compute_hours = tm->compute_hours;
  r->hours_low = tm->hours_low, r->hours_high = tm->hours_high;
  r->memory_hours = tm->memory_hours, r->comm_hours = tm->comm_hours;
  r->reject = tm->reject, r->need = tm->need, r->have = tm->have;
  if (r->reject) return;
  gb_plan_price_row(op, prices, work, r);
  if (r->reject) return;
  double ch = r->compute_hours, mh = r->memory_hours, kh = r->comm_hours;
  r->bottleneck = (kh > ch && kh > mh) ? GB_BOUND_COMM : (mh > ch ? GB_BOUND_MEMORY : GB_BOUND_COMPUTE);
  plan_energy(w, op, work, r);
  if (w->kind == GB_WL_INFERENCE) serve_band(w, perf, op, r);
  /* the verdicts, once, from the figures that rank */
  r->has_verdict = true;
  r->meets_deadline = isnan(op->max_hours) || r->rank_hours <= op->max_hours;
  r->within_budget = isnan(op->budget_usd) || r->rank_cost <= op->budget_usd;
  if (!r->meets_deadline) {
    r->reject = GB_REJECT_DEADLINE, r->need = op->max_hours, r->have = r->rank_hours;
    return;
  }
  if (!r->within_budget) {
    r->reject = GB_REJECT_BUDGET, r->need = op->budget_usd, r->have = r->rank_cost;
    return;
  }
  r->feasible = true;
  out->nfeasible++;
}

/* Every (price row, GPU count) the filters leave. */
static void plan_priced(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, int max_gpus,
                        int *counts, gb_plan *out) {
  const gb_plan_opts *op = &out->opts;
  double work = gb_plan_work_units(w);
  for (size_t i = 0; i < prices->n; i++) {
    const gb_price *p = &prices->v[i];
    const gb_perf_type *t = gb_perf_find(perf, p->gpu_type);
    if (!t) continue;
    int gpn = p->gpus_per_node;
    size_t nc = counts_for(gpn, max_gpus, counts);
    if (!price_passes(op, p, t)) {
      out->nfiltered += nc;
      continue;
    }
    if (!gb_plan_price_fresh(op, p)) { /* --max-price-age */
      out->nfiltered += nc;
      out->nprice_too_old++;
      continue;
    }
    if (!out->oldest_price || strcmp(p->date, out->oldest_price->date) < 0) out->oldest_price = p;
    for (size_t c = 0; c < nc; c++) {
      if (!count_passes(op, counts[c])) {
        out->nfiltered++;
        continue;
      }
      gb_plan_row *r = &out->rows[out->n++];
      r->perf = t;
      r->price = p;
      r->gpu_count = counts[c];
      r->gpus_per_node = gpn;
      r->nodes = (counts[c] + gpn - 1) / gpn;
      plan_row(w, perf, prices, op, work, r, out);
    }
  }
}

/* One rejected row per type without a price (the filters permitting). */
static void plan_unpriced(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, gb_plan *out) {
  const gb_plan_opts *op = &out->opts;
  for (size_t t = 0; t < perf->n; t++) {
    if (type_priced(prices, perf->v[t].spec->gpu_type)) continue;
    if (op->ngpu_types && !in_list(op->gpu_types, op->ngpu_types, perf->v[t].spec->gpu_type)) continue;
    gb_plan_row *r = &out->rows[out->n++];
    r->perf = &perf->v[t];
    r->reject = GB_REJECT_NO_PRICE;
    r->basis = perf->v[t].gemm_basis > perf->v[t].hbm_basis ? perf->v[t].gemm_basis : perf->v[t].hbm_basis;
    r->projected = r->basis >= GB_BASIS_VENDOR;
    r->throttled = r->basis == GB_BASIS_THROTTLED;
    r->hours = r->cost_usd = r->efficiency = r->rate_usd_per_gpu_hour = NAN;
    r->compute_hours = r->memory_hours = r->comm_hours = r->need = r->have = NAN;
    r->capex_usd = r->amortized_usd = r->cash_usd = r->breakeven_hours = NAN;
    r->hours_low = r->hours_high = r->cost_low = r->cost_high = r->rank_cost = r->rank_hours = NAN;
    r->energy_kwh = r->energy_usd = r->perf_per_watt = r->efficiency_low = r->efficiency_high = NAN;
    r->tokens_per_s_low = r->tokens_per_s_high = r->latency_ms_low = r->latency_ms_high = NAN;
    r->price_age_days = r->price_widening = NAN;
    gb_plan_time_of(w, perf, r->perf, 1, 1, op, &r->time);
  }
}

/* Pareto frontier of (hours, cost) at the rank-by end: sweep by hours, keep strictly cheaper. */
static gb_err mark_pareto(gb_plan *out) {
  if (!out->nfeasible) return GB_OK;
  gb_plan_row **by_time = malloc(out->nfeasible * sizeof *by_time);
  if (!by_time) return gb_fail(GB_E_NOMEM, "plan: out of memory");
  for (size_t i = 0; i < out->nfeasible; i++) by_time[i] = &out->rows[i];
  qsort(by_time, out->nfeasible, sizeof *by_time, cmp_pareto);
  double best = INFINITY;
  for (size_t i = 0; i < out->nfeasible; i++)
    if (by_time[i]->rank_cost < best) {
      by_time[i]->pareto = true;
      best = by_time[i]->rank_cost;
    }
  free(by_time);
  return GB_OK;
}

gb_err gb_plan_rank(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                    gb_plan *out) {
  memset(out, 0, sizeof *out);
  out->opts = *o;
  if (isnan(out->opts.max_hours)) out->opts.max_hours = w->max_hours;
  if (isnan(out->opts.budget_usd)) out->opts.budget_usd = w->budget_usd;
  if (!out->opts.today) out->opts.today = gb_date_today();
  out->workload = w;
  out->efficiency_unit = w->kind == GB_WL_INFERENCE ? "Mtok/USD" : "PFLOP/USD";
  const gb_plan_opts *op = &out->opts;
  gb_err e = check_filters(op, perf, prices);
  if (e) return e;
  int max_gpus = (int)op->max_gpus;
  for (size_t i = 0; i < op->ngpu_counts; i++) /* a count asked for is enumerated */
    if (op->gpu_counts[i] > max_gpus) max_gpus = op->gpu_counts[i];
  /* count rows: every (price, count) plus one per type without a price */
  size_t total = 0;
  for (size_t i = 0; i < prices->n; i++)
    if (gb_perf_find(perf, prices->v[i].gpu_type)) total += counts_for(prices->v[i].gpus_per_node, max_gpus, NULL);
  for (size_t t = 0; t < perf->n; t++)
    if (!type_priced(prices, perf->v[t].spec->gpu_type)) total++;
  out->rows = calloc(total ? total : 1, sizeof *out->rows);
  int *counts = malloc(((size_t)max_gpus + 64) * sizeof *counts);
  if (!out->rows || !counts) {
    free(counts);
    gb_plan_free(out);
    return gb_fail(GB_E_NOMEM, "plan: out of memory for %zu configurations", total);
  }
  plan_priced(w, perf, prices, max_gpus, counts, out);
  free(counts);
  plan_unpriced(w, perf, prices, out);
  int (*cmp)(const void *, const void *) =
      op->objective == GB_OBJ_TIME ? cmp_time : op->objective == GB_OBJ_EFFICIENCY ? cmp_efficiency : cmp_cost;
  if (out->n) qsort(out->rows, out->n, sizeof *out->rows, cmp);
  for (size_t i = 0; i < out->nfeasible; i++) out->rows[i].rank = i + 1;
  if ((e = mark_pareto(out))) gb_plan_free(out);
  return e;
}

void gb_plan_free(gb_plan *p) {
  free(p->rows);
  p->rows = NULL;
  p->n = p->nfeasible = 0;
}

const char *gb_plan_basis_name(const gb_plan_row *r) { return gb_basis_name(r->basis); }

void gb_plan_reason(const gb_plan_row *r, char *buf, size_t n) {
  switch (r->reject) {
  case GB_REJECT_NONE: snprintf(buf, n, "%s", ""); break;
  case GB_REJECT_PRECISION:
    snprintf(buf, n, "precision not available (no datasheet figure and no measurement)");
    break;
  case GB_REJECT_MEMORY:
    gb_snprintf_c(buf, n, "does not fit in memory (needs %.1f GB per GPU, %.1f GB usable)", r->need, r->have);
    break;
  case GB_REJECT_RATE:
    gb_snprintf_c(buf, n, "too slow (serves %.0f tokens/s, needs %.0f)", r->have, r->need);
    break;
  case GB_REJECT_LATENCY:
    gb_snprintf_c(buf, n, "over the latency limit (%.1f ms per token, limit %.1f)", r->have, r->need);
    break;
  case GB_REJECT_SPOT:
    gb_snprintf_c(buf, n, "spot: %.2f preemptions per hour outpace progress", r->need);
    break;
  case GB_REJECT_DEADLINE:
    gb_snprintf_c(buf, n, "over deadline (%.1f h > %.1f h)", r->have, r->need);
    break;
  case GB_REJECT_BUDGET:
    gb_snprintf_c(buf, n, "over budget (%.0f USD > %.0f USD)", r->have, r->need);
    break;
  case GB_REJECT_NO_PRICE: snprintf(buf, n, "no price in prices.csv"); break;
  case GB_REJECT_LAYOUT:
    gb_snprintf_c(buf, n, "parallel layout does not fit (%.0f GPUs, TP x PP = %.0f, TP inside a node)", r->have,
                  r->need);
    break;
  }
}
