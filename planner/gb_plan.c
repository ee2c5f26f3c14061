/* gb_plan: configuration enumeration, time and cost model, ranking, Pareto
 * frontier, sensitivity, break-even and hybrid. Formulas: docs/planner.md. */
#include "gb_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"

#define HOURS_PER_YEAR 8760.0

/* ---- options ---- */

void gb_plan_opts_default(gb_plan_opts *o) {
  o->max_hours = NAN;
  o->budget_usd = NAN;
  o->objective = GB_OBJ_COST;
  o->mfu = 0.65;
  o->overlap = 0.0;
  o->utilization = 0.6;
  o->pue = 1.3;
  o->electricity_usd_per_kwh = 0.10;
  o->amortization_years = 4.0;
  o->ops_fraction_per_year = 0.10;
  o->network_overhead = 1.15;
  o->host_power_fraction = 0.3;
  o->nic_gbps = 50.0;
  o->max_gpus = 1024;
  o->spot_preemptions_per_node_hour = 0.02;
  o->spot_checkpoint_hours = 0.05;
  o->spot_restart_hours = 0.25;
  o->price_scale = 1.0;
  o->jobs_per_year = 4;
}

typedef struct opt_def {
  const char *name;
  size_t off;
  double min, max;
  bool min_open, whole;
  const char *dflt, *help;
} opt_def;

#define O(field) offsetof(gb_plan_opts, field)
static const opt_def k_opts[] = {
    {"max-hours", O(max_hours), 0, 1e6, true, false, "workload's or none", "deadline in hours"},
    {"budget", O(budget_usd), 0, 1e12, true, false, "workload's or none", "budget in USD"},
    {"mfu", O(mfu), 0, 1, true, false, "0.65", "efficiency factor: share of the measured GEMM rate a whole model sustains"},
    {"overlap", O(overlap), 0, 1, false, false, "0", "share of communication hidden behind compute (0 = upper bound on time)"},
    {"utilization", O(utilization), 0, 1, true, false, "0.6", "owned GPUs: share of the year doing useful work"},
    {"pue", O(pue), 1, 5, false, false, "1.3", "power usage effectiveness of the data centre"},
    {"electricity", O(electricity_usd_per_kwh), 0, 10, true, false, "0.10", "electricity price, USD per kWh"},
    {"years", O(amortization_years), 0, 20, true, false, "4", "depreciation period of bought GPUs, years"},
    {"ops-fraction", O(ops_fraction_per_year), 0, 1, false, false, "0.10",
     "operations (staff, colocation, spares) per year, share of capex"},
    {"network-overhead", O(network_overhead), 1, 3, false, false, "1.15", "cluster network factor on the server price"},
    {"host-power", O(host_power_fraction), 0, 3, false, false, "0.3", "host power on top of GPU TDP, share of TDP"},
    {"nic-gbps", O(nic_gbps), 0, 1e4, true, false, "50", "inter-node bandwidth per GPU, GB/s (400 Gb/s = 50)"},
    {"max-gpus", O(max_gpus), 1, 100000, false, true, "1024", "largest GPU count enumerated"},
    {"spot-preemptions", O(spot_preemptions_per_node_hour), 0, 100, false, false, "0.02",
     "spot preemptions per node-hour"},
    {"spot-checkpoint-hours", O(spot_checkpoint_hours), 0, 100, true, false, "0.05", "time to write a checkpoint"},
    {"spot-restart-hours", O(spot_restart_hours), 0, 100, false, false, "0.25", "time to replace a node and reload"},
    {"price-scale", O(price_scale), 0, 100, true, false, "1", "multiply every price (what-if)"},
    {"jobs-per-year", O(jobs_per_year), 0, 1e5, true, false, "4", "hybrid: runs of the workload per year"},
};
#undef O
#define NOPTS (sizeof k_opts / sizeof k_opts[0])

bool gb_plan_is_opt(const char *name) {
  if (strcmp(name, "objective") == 0) return true;
  for (size_t i = 0; i < NOPTS; i++)
    if (strcmp(name, k_opts[i].name) == 0) return true;
  return false;
}

gb_err gb_plan_opt_set(gb_plan_opts *o, const char *name, const char *value) {
  if (strcmp(name, "objective") == 0) {
    if (strcmp(value, "cost") == 0) o->objective = GB_OBJ_COST;
    else if (strcmp(value, "time") == 0) o->objective = GB_OBJ_TIME;
    else if (strcmp(value, "efficiency") == 0) o->objective = GB_OBJ_EFFICIENCY;
    else return gb_fail(GB_E_INPUT, "--objective: \"%s\" is not cost, time or efficiency", value);
    return GB_OK;
  }
  for (size_t i = 0; i < NOPTS; i++) {
    const opt_def *d = &k_opts[i];
    if (strcmp(name, d->name) != 0) continue;
    double v;
    if (!gb_parse_double(value, &v)) return gb_fail(GB_E_INPUT, "--%s: not a number: \"%s\"", name, value);
    if (d->min_open ? v <= d->min : v < d->min)
      return gb_fail(GB_E_INPUT, "--%s: must be %s %g: %s", name, d->min_open ? ">" : ">=", d->min, value);
    if (v > d->max) return gb_fail(GB_E_INPUT, "--%s: absurd value %s (above %g)", name, value, d->max);
    if (d->whole && v != floor(v)) return gb_fail(GB_E_INPUT, "--%s: must be a whole number: %s", name, value);
    *(double *)((char *)o + d->off) = v;
    return GB_OK;
  }
  return gb_fail(GB_E_USAGE, "--%s: unknown option", name);
}

void gb_plan_opts_help(char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  int w = snprintf(buf, n, "  --%-24s %s [default %s]\n", "objective COST|TIME|EFF",
                   "rank by cost, time or efficiency (work per dollar)", "cost");
  if (w > 0) used = (size_t)w;
  for (size_t i = 0; i < NOPTS && used < n; i++) {
    w = snprintf(buf + used, n - used, "  --%-24s %s [default %s]\n", k_opts[i].name, k_opts[i].help, k_opts[i].dflt);
    if (w < 0) break;
    used += (size_t)w;
  }
}

const char *gb_bottleneck_name(gb_bottleneck b) {
  return b == GB_BOUND_COMPUTE ? "compute" : b == GB_BOUND_MEMORY ? "memory" : "communication";
}

const char *gb_objective_name(gb_objective o) {
  return o == GB_OBJ_COST ? "cost" : o == GB_OBJ_TIME ? "time" : "efficiency";
}

/* ---- time model ---- */

/* All-reduce time in seconds for bytes on n GPUs (ring: each GPU sends and
 * receives 2(n-1)/n of the data at busbw). */
static double allreduce_s(const gb_perf *perf, const gb_perf_type *t, int n, int gpn, double bytes, double nic_gbps,
                          gb_plan_time *out) {
  if (n <= 1 || bytes <= 0) return 0;
  bool proj = false;
  double busbw = gb_perf_busbw_gbps(perf, t, n, gpn, bytes, nic_gbps, &proj);
  if (proj) out->projected = true;
  if (t->ncurves && t->comm_throttled) out->throttled = true; /* a measured curve fed it */
  return 2.0 * (n - 1) / n * bytes / (busbw * 1e9);
}

void gb_plan_time_of(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                     const gb_plan_opts *o, gb_plan_time *out) {
  memset(out, 0, sizeof *out);
  out->hours = out->compute_hours = out->memory_hours = out->comm_hours = NAN;
  out->need = out->have = NAN;
  out->projected = !t->gemm_measured || !t->hbm_measured;
  out->throttled = t->gemm_throttled || t->hbm_throttled;
  if (!isfinite(t->gemm_tflops)) {
    out->reject = GB_REJECT_PRECISION;
    return;
  }
  const double flops_s = t->gemm_tflops * 1e12 * o->mfu; /* sustained model FLOP/s per GPU */
  const double bw = t->hbm_gbps * 1e9;                   /* bytes/s per GPU */
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  const double phi = o->overlap;
  switch (w->kind) {
  case GB_WL_TRAINING: {
    /* memory gate: model state (sharded or replicated) + activations */
    double state = w->params * w->memory_bytes_per_param / (w->sharded ? n : 1);
    double need = state + w->activation_gb_per_gpu * 1e9;
    if (need > have) {
      out->reject = GB_REJECT_MEMORY, out->need = need / 1e9, out->have = have / 1e9;
      return;
    }
    double steps = w->tokens / w->tokens_per_step;
    double t_comp = w->flops_per_token * w->tokens_per_step / (n * flops_s);
    double t_mem = state / bw; /* the step reads and writes the model state once */
    /* ZeRO-3/FSDP: reduce-scatter + two all-gathers = 1.5 x all-reduce volume */
    double vol = w->grad_bytes * (w->sharded ? 1.5 : 1.0);
    double busbw_bytes = w->bucket_bytes < w->grad_bytes ? w->bucket_bytes : w->grad_bytes;
    double t_ar = 0;
    if (n > 1) {
      bool proj = false;
      double busbw = gb_perf_busbw_gbps(perf, t, n, gpn, busbw_bytes, o->nic_gbps, &proj);
      if (proj) out->projected = true;
      if (t->ncurves && t->comm_throttled) out->throttled = true;
      t_ar = 2.0 * (n - 1) / n * vol / (busbw * 1e9);
    }
    double t_step = fmax(t_comp, t_mem) + (1 - phi) * t_ar;
    out->compute_hours = steps * t_comp / 3600;
    out->memory_hours = steps * t_mem / 3600;
    out->comm_hours = steps * (1 - phi) * t_ar / 3600;
    out->hours = steps * t_step / 3600 + w->fixed_hours;
    return;
  }
  case GB_WL_INFERENCE: {
    double b = w->batch_size;
    double need_replica = w->model_bytes + b * w->kv_bytes_per_sequence;
    int in_node = n < gpn ? n : gpn;
    int r = 1;
    while (r < in_node && need_replica / r > have) r *= 2;
    if (r > in_node || need_replica / r > have) {
      out->reject = GB_REJECT_MEMORY, out->need = need_replica / in_node / 1e9, out->have = have / 1e9;
      return;
    }
    int replicas = n / r;
    double t_comp = 2 * w->params * b / (r * flops_s);
    double t_pre = 2 * w->params * b * (w->prompt_tokens / w->output_tokens) / (r * flops_s);
    double t_mem = need_replica / (r * bw);
    double t_comm = 0;
    if (r > 1 && w->layers > 0 && w->hidden_size > 0)
      t_comm = 2 * w->layers *
               allreduce_s(perf, t, r, gpn, b * w->hidden_size * gb_dtype_bytes(w->precision), o->nic_gbps, out);
    double t_step = fmax(t_comp, t_mem) + (1 - phi) * t_comm + t_pre;
    if (!isnan(w->max_token_latency_ms) && t_step * 1e3 > w->max_token_latency_ms) {
      out->reject = GB_REJECT_LATENCY, out->need = w->max_token_latency_ms, out->have = t_step * 1e3;
      return;
    }
    double rate = replicas * b / t_step;
    if (rate < w->tokens_per_second) {
      out->reject = GB_REJECT_RATE, out->need = w->tokens_per_second, out->have = rate;
      return;
    }
    double busy = w->serve_hours * (w->tokens_per_second / rate); /* replica-hours actually decoding */
    out->compute_hours = busy * (t_comp + t_pre) / t_step;
    out->memory_hours = busy * t_mem / t_step;
    out->comm_hours = busy * (1 - phi) * t_comm / t_step;
    out->hours = w->serve_hours + w->fixed_hours;
    return;
  }
  case GB_WL_GENERIC: {
    double need = w->memory_gb * 1e9 / n;
    if (need > have) {
      out->reject = GB_REJECT_MEMORY, out->need = need / 1e9, out->have = have / 1e9;
      return;
    }
    double t_comp = w->total_flops / (n * flops_s);
    double t_mem = w->total_bytes / (n * bw);
    double t_comm =
        w->allreduce_count * allreduce_s(perf, t, n, gpn, w->allreduce_bytes, o->nic_gbps, out);
    out->compute_hours = t_comp / 3600;
    out->memory_hours = t_mem / 3600;
    out->comm_hours = (1 - phi) * t_comm / 3600;
    out->hours = (fmax(t_comp, t_mem) + (1 - phi) * t_comm) / 3600 + w->fixed_hours;
    return;
  }
  default: out->reject = GB_REJECT_PRECISION; return;
  }
}

/* ---- cost model ---- */

gb_owned_cost gb_plan_owned_cost(const gb_price *purchase, const gb_gpu_spec *spec, const gb_plan_opts *o) {
  gb_owned_cost c;
  /* capex per GPU: the server share plus the cluster network */
  double capex = purchase->purchase_usd_per_gpu * o->price_scale * o->network_overhead;
  /* straight-line depreciation plus yearly operations, spread over every hour */
  c.fixed_usd_per_gpu_hour = capex * (1.0 / o->amortization_years + o->ops_fraction_per_year) / HOURS_PER_YEAR;
  /* energy of a used hour: TDP plus host share, times PUE, times the tariff */
  c.energy_usd_per_gpu_hour =
      spec->tdp_w / 1000.0 * (1 + o->host_power_fraction) * o->pue * o->electricity_usd_per_kwh * o->price_scale;
  c.usd_per_used_gpu_hour = c.fixed_usd_per_gpu_hour / o->utilization + c.energy_usd_per_gpu_hour;
  return c;
}

/* Spot stretch (Young/Daly): checkpoint every tau = sqrt(2 delta / lambda);
 * T_spot = T (1 + delta/tau) / (1 - lambda (t_restart + tau/2)). Returns NaN
 * when preemptions outpace progress. */
static double spot_hours(double hours, int nodes, const gb_plan_opts *o) {
  double lambda = o->spot_preemptions_per_node_hour * nodes;
  if (lambda <= 0) return hours;
  double delta = o->spot_checkpoint_hours;
  double tau = sqrt(2 * delta / lambda);
  double lost = lambda * (o->spot_restart_hours + tau / 2);
  if (lost >= 0.95) return NAN;
  return hours * (1 + delta / tau) / (1 - lost);
}

static double work_units(const gb_workload *w) {
  if (w->kind == GB_WL_INFERENCE) return w->tokens_per_second * w->serve_hours * 3600 / 1e6; /* Mtok */
  return gb_workload_total_flops(w) / 1e15;                                                   /* PFLOP */
}

static void price_row(const gb_workload *w, const gb_plan_opts *o, double work, gb_plan_row *r) {
  const gb_price *p = r->price;
  double gpus_billed = (double)r->nodes * r->gpus_per_node;
  if (p->offering == GB_OFFER_PURCHASE)
    r->rate_usd_per_gpu_hour = gb_plan_owned_cost(p, r->perf->spec, o).usd_per_used_gpu_hour;
  else
    r->rate_usd_per_gpu_hour = p->price_usd_per_gpu_hour * o->price_scale;
  if (p->offering == GB_OFFER_SPOT) {
    double h = spot_hours(r->hours, r->nodes, o);
    if (isnan(h)) {
      r->reject = GB_REJECT_SPOT;
      r->need = o->spot_preemptions_per_node_hour * r->nodes;
      return;
    }
    double stretch = h / r->hours;
    r->hours = h;
    r->compute_hours *= stretch, r->memory_hours *= stretch, r->comm_hours *= stretch;
  }
  /* rented and bought alike pay whole nodes for the modeled hours */
  r->cost_usd = r->hours * gpus_billed * r->rate_usd_per_gpu_hour;
  r->efficiency = work / r->cost_usd;
  (void)w;
}

/* ---- ranking ---- */

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
  if ((c = CMP(a->cost_usd, b->cost_usd))) return c;
  if ((c = CMP(a->hours, b->hours))) return c;
  return tie_break(a, b);
}

static int cmp_time(const void *pa, const void *pb) {
  const gb_plan_row *a = pa, *b = pb;
  int c = cmp_feasible_first(a, b);
  if (c || !a->feasible) return c ? c : tie_break(a, b);
  if ((c = CMP(a->hours, b->hours))) return c;
  if ((c = CMP(a->cost_usd, b->cost_usd))) return c;
  return tie_break(a, b);
}

static int cmp_efficiency(const void *pa, const void *pb) {
  const gb_plan_row *a = pa, *b = pb;
  int c = cmp_feasible_first(a, b);
  if (c || !a->feasible) return c ? c : tie_break(a, b);
  if ((c = CMP(b->efficiency, a->efficiency))) return c;
  if ((c = CMP(a->hours, b->hours))) return c;
  return tie_break(a, b);
}

static int cmp_pareto(const void *pa, const void *pb) {
  const gb_plan_row *a = *(const gb_plan_row *const *)pa, *b = *(const gb_plan_row *const *)pb;
  int c = CMP(a->hours, b->hours);
  return c ? c : CMP(a->cost_usd, b->cost_usd);
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

gb_err gb_plan_rank(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                    gb_plan *out) {
  memset(out, 0, sizeof *out);
  out->opts = *o;
  if (isnan(out->opts.max_hours)) out->opts.max_hours = w->max_hours;
  if (isnan(out->opts.budget_usd)) out->opts.budget_usd = w->budget_usd;
  out->workload = w;
  out->efficiency_unit = w->kind == GB_WL_INFERENCE ? "Mtok/USD" : "PFLOP/USD";
  const gb_plan_opts *op = &out->opts;
  int max_gpus = (int)op->max_gpus;
  /* count rows: every (price, count) plus one per type without a price */
  size_t total = 0;
  for (size_t i = 0; i < prices->n; i++)
    if (gb_perf_find(perf, prices->v[i].gpu_type)) total += counts_for(prices->v[i].gpus_per_node, max_gpus, NULL);
  for (size_t t = 0; t < perf->n; t++) {
    bool priced = false;
    for (size_t i = 0; i < prices->n && !priced; i++)
      priced = strcmp(prices->v[i].gpu_type, perf->v[t].spec->gpu_type) == 0;
    if (!priced) total++;
  }
  out->rows = calloc(total ? total : 1, sizeof *out->rows);
  int *counts = malloc(((size_t)max_gpus + 64) * sizeof *counts);
  if (!out->rows || !counts) {
    free(counts);
    gb_plan_free(out);
    return gb_fail(GB_E_NOMEM, "plan: out of memory for %zu configurations", total);
  }
  double work = work_units(w);
  for (size_t i = 0; i < prices->n; i++) {
    const gb_price *p = &prices->v[i];
    const gb_perf_type *t = gb_perf_find(perf, p->gpu_type);
    if (!t) continue;
    if (!out->oldest_price || strcmp(p->date, out->oldest_price->date) < 0) out->oldest_price = p;
    int gpn = p->gpus_per_node;
    size_t nc = counts_for(gpn, max_gpus, counts);
    for (size_t c = 0; c < nc; c++) {
      gb_plan_row *r = &out->rows[out->n++];
      r->perf = t;
      r->price = p;
      r->gpu_count = counts[c];
      r->gpus_per_node = gpn;
      r->nodes = (counts[c] + gpn - 1) / gpn;
      r->cost_usd = r->efficiency = r->rate_usd_per_gpu_hour = NAN;
      gb_plan_time tm;
      gb_plan_time_of(w, perf, t, r->gpu_count, gpn, op, &tm);
      r->projected = tm.projected;
      r->throttled = tm.throttled;
      r->hours = tm.hours, r->compute_hours = tm.compute_hours;
      r->memory_hours = tm.memory_hours, r->comm_hours = tm.comm_hours;
      r->reject = tm.reject, r->need = tm.need, r->have = tm.have;
      if (r->reject) continue;
      price_row(w, op, work, r);
      if (r->reject) continue;
      double ch = r->compute_hours, mh = r->memory_hours, kh = r->comm_hours;
      r->bottleneck = (kh > ch && kh > mh) ? GB_BOUND_COMM : (mh > ch ? GB_BOUND_MEMORY : GB_BOUND_COMPUTE);
      if (!isnan(op->max_hours) && r->hours > op->max_hours) {
        r->reject = GB_REJECT_DEADLINE, r->need = op->max_hours, r->have = r->hours;
        continue;
      }
      if (!isnan(op->budget_usd) && r->cost_usd > op->budget_usd) {
        r->reject = GB_REJECT_BUDGET, r->need = op->budget_usd, r->have = r->cost_usd;
        continue;
      }
      r->feasible = true;
      out->nfeasible++;
    }
  }
  free(counts);
  for (size_t t = 0; t < perf->n; t++) {
    bool priced = false;
    for (size_t i = 0; i < prices->n && !priced; i++)
      priced = strcmp(prices->v[i].gpu_type, perf->v[t].spec->gpu_type) == 0;
    if (priced) continue;
    gb_plan_row *r = &out->rows[out->n++];
    r->perf = &perf->v[t];
    r->reject = GB_REJECT_NO_PRICE;
    r->projected = !perf->v[t].gemm_measured || !perf->v[t].hbm_measured;
    r->throttled = perf->v[t].gemm_throttled || perf->v[t].hbm_throttled;
    r->hours = r->cost_usd = r->efficiency = r->rate_usd_per_gpu_hour = NAN;
    r->compute_hours = r->memory_hours = r->comm_hours = r->need = r->have = NAN;
  }
  int (*cmp)(const void *, const void *) =
      op->objective == GB_OBJ_TIME ? cmp_time : op->objective == GB_OBJ_EFFICIENCY ? cmp_efficiency : cmp_cost;
  qsort(out->rows, out->n, sizeof *out->rows, cmp);
  for (size_t i = 0; i < out->nfeasible; i++) out->rows[i].rank = i + 1;
  /* Pareto frontier of (hours, cost): sweep by hours, keep strictly cheaper */
  if (out->nfeasible) {
    gb_plan_row **by_time = malloc(out->nfeasible * sizeof *by_time);
    if (!by_time) {
      gb_plan_free(out);
      return gb_fail(GB_E_NOMEM, "plan: out of memory");
    }
    for (size_t i = 0; i < out->nfeasible; i++) by_time[i] = &out->rows[i];
    qsort(by_time, out->nfeasible, sizeof *by_time, cmp_pareto);
    double best = INFINITY;
    for (size_t i = 0; i < out->nfeasible; i++)
      if (by_time[i]->cost_usd < best) {
        by_time[i]->pareto = true;
        best = by_time[i]->cost_usd;
      }
    free(by_time);
  }
  return GB_OK;
}

void gb_plan_free(gb_plan *p) {
  free(p->rows);
  p->rows = NULL;
  p->n = p->nfeasible = 0;
}

const char *gb_plan_basis_name(const gb_plan_row *r) {
  return gb_perf_basis_name(!r->projected, r->throttled);
}

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
  }
}

/* ---- CSV output ---- */

static const char *const k_plan_cols[] = {
    "rank", "gpu_type", "gpu_count", "nodes", "gpus_per_node", "provider", "offering", "basis", "feasible",
    "reason", "hours", "cost_usd", "efficiency", "efficiency_unit", "bottleneck", "compute_hours", "memory_hours",
    "comm_hours", "pareto", "price_usd_per_gpu_hour", "purchase_usd_per_gpu", "price_date", "price_source",
    "utilization", "pue", "electricity_usd_per_kwh", "mfu", "overlap", "max_hours", "budget_usd", "workload",
    "precision", "gemm_window"};

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

/* ---- sensitivity ---- */

static bool same_config(const gb_plan_row *a, const gb_plan_row *b) {
  return a->perf == b->perf && a->price == b->price && a->gpu_count == b->gpu_count;
}

gb_err gb_plan_sensitivity(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                           gb_sensitivity_row out[GB_SENSITIVITY_ROWS]) {
  static const struct {
    const char *factor;
    double pct;
  } k_cases[GB_SENSITIVITY_ROWS] = {{"base", 0}, {"price", -20}, {"price", 20}, {"efficiency", -20}, {"efficiency", 20}};
  for (int i = 0; i < GB_SENSITIVITY_ROWS; i++) {
    gb_plan_opts v = *o;
    double f = 1 + k_cases[i].pct / 100;
    if (strcmp(k_cases[i].factor, "price") == 0) v.price_scale *= f;
    if (strcmp(k_cases[i].factor, "efficiency") == 0) v.mfu = fmin(1.0, v.mfu * f);
    gb_plan p;
    gb_err e = gb_plan_rank(w, perf, prices, &v, &p);
    if (e) return e;
    memset(&out[i], 0, sizeof out[i]);
    out[i].factor = k_cases[i].factor;
    out[i].change_pct = k_cases[i].pct;
    out[i].has_top = p.nfeasible > 0;
    if (out[i].has_top) out[i].top = p.rows[0];
    out[i].changed = i > 0 && (out[i].has_top != out[0].has_top ||
                               (out[i].has_top && !same_config(&out[i].top, &out[0].top)));
    gb_plan_free(&p);
  }
  return GB_OK;
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

/* ---- rent versus buy, hybrid ---- */

size_t gb_plan_breakeven(const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o, gb_breakeven *out,
                         size_t max) {
  size_t k = 0;
  for (size_t i = 0; i < prices->n && k < max; i++) {
    const gb_price *p = &prices->v[i];
    const gb_perf_type *t = gb_perf_find(perf, p->gpu_type);
    if (p->offering != GB_OFFER_PURCHASE || !t) continue;
    gb_breakeven *b = &out[k++];
    memset(b, 0, sizeof *b);
    b->purchase = p;
    b->owned = gb_plan_owned_cost(p, t->spec, o);
    /* the cheapest on-demand or reserved rental of the type (spot is not a
     * capacity one can plan a fleet on) */
    for (size_t j = 0; j < prices->n; j++) {
      const gb_price *q = &prices->v[j];
      if (q->offering == GB_OFFER_PURCHASE || q->offering == GB_OFFER_SPOT || strcmp(q->gpu_type, p->gpu_type))
        continue;
      if (!b->rent || q->price_usd_per_gpu_hour < b->rent->price_usd_per_gpu_hour) b->rent = q;
    }
    b->utilization_star = b->hours_per_year = NAN;
    if (b->rent) {
      /* u* = fixed / (rent - energy); never when renting costs no more than power */
      double margin = b->rent->price_usd_per_gpu_hour * o->price_scale - b->owned.energy_usd_per_gpu_hour;
      b->utilization_star = margin > 0 ? b->owned.fixed_usd_per_gpu_hour / margin : INFINITY;
      b->hours_per_year = b->utilization_star * HOURS_PER_YEAR;
    }
  }
  return k;
}

size_t gb_plan_hybrid(const gb_plan *plan, const gb_perf *perf, const gb_prices *prices, gb_hybrid *out,
                      size_t max) {
  const gb_plan_opts *o = &plan->opts;
  const gb_workload *w = plan->workload;
  const gb_plan_row *burst = NULL;
  for (size_t i = 0; i < plan->nfeasible && !burst; i++)
    if (plan->rows[i].price->offering != GB_OFFER_PURCHASE) burst = &plan->rows[i];
  if (!burst) return 0;
  double jobs = o->jobs_per_year;
  size_t k = 0;
  for (size_t i = 0; i < prices->n && k < max; i++) {
    const gb_price *p = &prices->v[i];
    const gb_perf_type *t = gb_perf_find(perf, p->gpu_type);
    if (p->offering != GB_OFFER_PURCHASE || !t) continue;
    gb_hybrid *h = &out[k++];
    memset(h, 0, sizeof *h);
    h->purchase = p;
    h->burst = burst;
    h->all_cloud_usd = jobs * burst->cost_usd;
    h->annual_cost_usd = h->all_cloud_usd;
    h->jobs_burst = jobs;
    h->owned_job_hours = NAN;
    gb_owned_cost oc = gb_plan_owned_cost(p, t->spec, o);
    int gpn = p->gpus_per_node;
    for (int owned = gpn; owned <= (int)o->max_gpus; owned += gpn) {
      gb_plan_time tm;
      gb_plan_time_of(w, perf, t, owned, gpn, o, &tm);
      if (tm.reject || (!isnan(o->max_hours) && tm.hours > o->max_hours)) continue;
      /* whole jobs on the owned base while it has hours (utilization cap) */
      double fit = floor(o->utilization * HOURS_PER_YEAR / tm.hours);
      double own = fmin(jobs, fit);
      if (own <= 0) continue;
      double cost = owned * oc.fixed_usd_per_gpu_hour * HOURS_PER_YEAR +
                    own * tm.hours * owned * oc.energy_usd_per_gpu_hour + (jobs - own) * burst->cost_usd;
      if (cost < h->annual_cost_usd) {
        h->annual_cost_usd = cost;
        h->owned_gpus = owned;
        h->owned_job_hours = tm.hours;
        h->jobs_owned = own;
        h->jobs_burst = jobs - own;
      }
      /* once every job runs owned, a larger base only adds fixed cost (the
       energy per job stays the same or grows with communication) */
      if (own >= jobs) break;
    }
  }
  return k;
}
