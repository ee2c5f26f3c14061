/* gb_plan: configuration enumeration, time and cost model, ranking, Pareto
 * frontier, sensitivity, break-even and hybrid. Formulas: docs/planner.md. */
#include "gb_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_datecheck.h"
#include "gb_model.h"
#include "gb_num.h"

#define HOURS_PER_YEAR 8760.0
#define GB_PRICE_STALE_MONTHS 18

/* ---- options ---- */

void gb_plan_opts_default(gb_plan_opts *o) {
  o->max_hours = NAN;
  o->budget_usd = NAN;
  o->objective = GB_OBJ_COST;
  o->rank_by = GB_RANK_LOW;
  o->budget_basis = GB_BUDGET_CASH;
  o->mfu = NAN;
  o->overlap = 0.7;
  o->utilization = 0.6;
  o->pue = 1.3;
  o->electricity_usd_per_kwh = 0.10;
  o->amortization_years = 4.0;
  o->ops_fraction_per_year = 0.10;
  o->network_overhead = 1.15;
  o->host_power_fraction = 0.3;
  o->nic_gbps = NAN;
  o->nics_per_node = NAN;
  o->nic_gbit = NAN;
  o->max_gpus = 1024;
  o->spot_preemptions_per_node_hour = 0.02;
  o->spot_checkpoint_hours = 0.05;
  o->spot_restart_hours = 0.25;
  o->price_scale = 1.0;
  o->efficiency_scale = 1.0;
  o->jobs_per_year = 4;
  o->ngpu_types = o->ngpu_counts = o->nproviders = 0;
  for (int i = 0; i < 4; i++) o->offerings[i] = false;
  o->only_measured = false;
  o->today = NULL;
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
    {"mfu", O(mfu), 0, 1, true, false, "from the efficiency table",
     "efficiency factor: share of the GEMM rate a whole model sustains (overrides the table)"},
    {"overlap", O(overlap), 0, 1, false, false, "0.7",
     "share of data-parallel and expert communication hidden behind compute (0 = upper bound on time)"},
    {"utilization", O(utilization), 0, 1, true, false, "0.6", "owned GPUs: share of the year doing useful work"},
    {"pue", O(pue), 1, 5, false, false, "1.3", "power usage effectiveness of the data centre"},
    {"electricity", O(electricity_usd_per_kwh), 0, 10, true, false, "0.10", "electricity price, USD per kWh"},
    {"years", O(amortization_years), 0, 20, true, false, "4", "depreciation period of bought GPUs, years"},
    {"ops-fraction", O(ops_fraction_per_year), 0, 1, false, false, "0.10",
     "operations (staff, colocation, spares) per year, share of capex"},
    {"network-overhead", O(network_overhead), 1, 3, false, false, "1.15", "cluster network factor on the server price"},
    {"host-power", O(host_power_fraction), 0, 3, false, false, "0.3", "host power on top of GPU TDP, share of TDP"},
    {"nic-gbps", O(nic_gbps), 0, 1e4, true, false, "the specs' NICs",
     "inter-node bandwidth per GPU, GB/s (400 Gb/s = 50); overrides the node's NICs"},
    {"nics-per-node", O(nics_per_node), 1, 64, false, true, "the specs'", "NICs per node for cross-node collectives"},
    {"nic-gbit", O(nic_gbit), 0, 1e5, true, false, "the specs'", "line rate of one NIC, Gb/s"},
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

static gb_err parse_list(const char *name, const char *value, char *store, size_t cap, const char **out, size_t *n,
                         size_t max) {
  /* value is copied into store and split at commas into out */
  if (strlen(value) >= cap) return gb_fail(GB_E_INPUT, "--%s: list too long", name);
  memcpy(store, value, strlen(value) + 1);
  *n = 0;
  for (char *p = store, *next; p; p = next) {
    next = strchr(p, ',');
    if (next) *next++ = '\0';
    if (!*p) return gb_fail(GB_E_INPUT, "--%s: empty item in \"%s\"", name, value);
    if (*n == max) return gb_fail(GB_E_INPUT, "--%s: more than %zu items", name, max);
    out[(*n)++] = p;
  }
  return GB_OK;
}

static const char *const k_list_opts[] = {"objective", "rank-by", "budget-basis", "gpu-type", "gpus", "provider",
                                          "offering", "only-measured"};

bool gb_plan_is_opt(const char *name) {
  for (size_t i = 0; i < sizeof k_list_opts / sizeof k_list_opts[0]; i++)
    if (strcmp(name, k_list_opts[i]) == 0) return true;
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
  if (strcmp(name, "rank-by") == 0) {
    if (strcmp(value, "low") == 0) o->rank_by = GB_RANK_LOW;
    else if (strcmp(value, "median") == 0) o->rank_by = GB_RANK_MEDIAN;
    else if (strcmp(value, "high") == 0) o->rank_by = GB_RANK_HIGH;
    else return gb_fail(GB_E_INPUT, "--rank-by: \"%s\" is not low, median or high", value);
    return GB_OK;
  }
  if (strcmp(name, "budget-basis") == 0) {
    if (strcmp(value, "cash") == 0) o->budget_basis = GB_BUDGET_CASH;
    else if (strcmp(value, "amortized") == 0) o->budget_basis = GB_BUDGET_AMORTIZED;
    else return gb_fail(GB_E_INPUT, "--budget-basis: \"%s\" is not cash or amortized", value);
    return GB_OK;
  }
  if (strcmp(name, "only-measured") == 0) {
    if (!*value || strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
      o->only_measured = true;
    else if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
      o->only_measured = false;
    else return gb_fail(GB_E_INPUT, "--only-measured: \"%s\" is not true or false", value);
    return GB_OK;
  }
  static char store[3][4096];
  if (strcmp(name, "gpu-type") == 0)
    return parse_list(name, value, store[0], sizeof store[0], o->gpu_types, &o->ngpu_types, GB_PLAN_MAX_FILTER);
  if (strcmp(name, "provider") == 0)
    return parse_list(name, value, store[1], sizeof store[1], o->providers, &o->nproviders, GB_PLAN_MAX_FILTER);
  if (strcmp(name, "offering") == 0 || strcmp(name, "gpus") == 0) {
    const char *items[GB_PLAN_MAX_FILTER];
    size_t n;
    gb_err e = parse_list(name, value, store[2], sizeof store[2], items, &n, GB_PLAN_MAX_FILTER);
    if (e) return e;
    if (name[0] == 'o') {
      for (int i = 0; i < 4; i++) o->offerings[i] = false;
      for (size_t i = 0; i < n; i++) {
        gb_offering off;
        if (!gb_offering_parse(items[i], &off))
          return gb_fail(GB_E_INPUT, "--offering: \"%s\" is not on-demand, spot, reserved or purchase", items[i]);
        o->offerings[off] = true;
      }
    } else {
      o->ngpu_counts = 0;
      for (size_t i = 0; i < n; i++) {
        double v;
        if (!gb_parse_double(items[i], &v) || v < 1 || v > 100000 || v != floor(v))
          return gb_fail(GB_E_INPUT, "--gpus: \"%s\" is not a GPU count from 1 to 100000", items[i]);
        o->gpu_counts[o->ngpu_counts++] = (int)v;
      }
    }
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
  static const char *const lines[][3] = {
      {"objective COST|TIME|EFF", "rank by cost, time or efficiency (work per dollar)", "cost"},
      {"rank-by LOW|MEDIAN|HIGH", "which end of each band ranks and meets the constraints (low = pessimistic)",
       "low"},
      {"budget-basis CASH|AMORTIZED", "budget against the cash a job needs (capex when buying) or its share",
       "cash"},
      {"gpu-type LIST", "only these GPU types (comma-separated)", "all"},
      {"gpus N|LIST", "only these GPU counts (comma-separated)", "all"},
      {"provider LIST", "only these providers (comma-separated)", "all"},
      {"offering LIST", "only these offerings: on-demand, spot, reserved, purchase", "all"},
  };
  int w = 0;
  for (size_t i = 0; i < sizeof lines / sizeof lines[0] && used < n; i++) {
    w = snprintf(buf + used, n - used, "  --%-24s %s [default %s]\n", lines[i][0], lines[i][1], lines[i][2]);
    if (w < 0) break;
    used += (size_t)w;
  }
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

/* Figures of one type as the model uses them, scaled to one end of their
 * band (1 = the figure itself). */
typedef struct figs {
  double gemm, gemm_base; /* FLOP/s: at the precision; BF16 (the non-GEMM share of FP8) */
  double bw;              /* HBM bytes/s */
  double comm_scale;      /* busbw multiplier */
} figs;

/* Bus bandwidth in GB/s of a collective over `members` GPUs of which `local`
 * share a node: inside one node the in-node curve (measured or projected);
 * across nodes the node's NICs, shared by the gpn/local rings that cross at
 * once, at GB_NIC_EFFICIENCY, and never above the in-node figure. */
static double busbw(const gb_perf *perf, const gb_perf_type *t, int members, int local, int gpn, double bytes,
                    const gb_plan_opts *o, double scale, bool *projected) {
  if (members <= 1) return INFINITY;
  if (local > members) local = members;
  if (local < 1) local = 1;
  bool proj = false;
  double intra = local >= 2 ? gb_perf_busbw_gbps(perf, t, local, local, bytes, INFINITY, &proj) : INFINITY;
  if (proj) *projected = true;
  if (members <= local) return intra * scale;
  *projected = true;
  double node = t->nic_node_gbps;
  if (isfinite(o->nics_per_node) || isfinite(o->nic_gbit)) {
    double nics = isfinite(o->nics_per_node) ? o->nics_per_node : t->spec->nics_per_node;
    double gbit = isfinite(o->nic_gbit) ? o->nic_gbit : t->spec->nic_gbit;
    node = nics * gbit / 8;
  }
  if (isfinite(o->nic_gbps)) node = o->nic_gbps * gpn; /* per-GPU override */
  if (!isfinite(node)) node = 50.0 * gpn * 0.25;       /* unknown network: one 400 Gb/s NIC per 4 GPUs */
  double cross = node * GB_NIC_EFFICIENCY * (double)local / gpn;
  return fmin(intra, cross) * scale;
}

static double eff_of(const gb_perf_type *t, double params, const gb_plan_opts *o, bool inference) {
  double k = o->efficiency_scale > 0 ? o->efficiency_scale : 1;
  if (isfinite(o->mfu)) return fmin(1.0, o->mfu * k);
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
  if (inference) return fmin(1.0, m->infer_eff * k);
  return fmin(1.0, gb_model_at_size(m->hfu, params) / m->gemm_typical * k);
}

static void time_training(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                          const gb_plan_opts *o, const figs *f, gb_plan_time *out) {
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  int tp = (int)w->tensor_parallel, pp = (int)w->pipeline_parallel, ep = (int)w->expert_parallel;
  if (n % (tp * pp) != 0 || tp > gpn || ep > n) {
    out->reject = GB_REJECT_LAYOUT, out->need = tp * pp, out->have = n;
    return;
  }
  int dp = n / (tp * pp);
  /* parameters a GPU holds: with expert parallelism the active (dense and routed-to) share whole and
   * the other experts split over the expert-parallel group */
  double held = ep > 1 ? w->active_params + (w->params - w->active_params) / ep : w->params;
  double shard = held * w->memory_bytes_per_param / (tp * pp);
  if (w->sharded) shard /= dp;
  double need = shard + w->activation_gb_per_gpu * 1e9;
  if (need > have) {
    out->reject = GB_REJECT_MEMORY, out->need = need / 1e9, out->have = have / 1e9;
    return;
  }
  double eta = eff_of(t, w->active_params, o, false);
  out->eta = eta;
  double steps = w->tokens / w->tokens_per_step;
  double fhw = w->flops_per_token * (w->recompute ? 4.0 / 3.0 : 1.0);
  /* compute at BF16, then FP8 speeds up the GEMM share only */
  double t_comp = fhw * w->tokens_per_step / ((double)n * f->gemm_base * eta);
  if (f->gemm != f->gemm_base) {
    const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
    double s = gb_model_at_size(m->gemm_share, w->active_params);
    t_comp *= (1 - s) + s * f->gemm_base / f->gemm;
  }
  /* 1F1B pipeline: (pp - 1) idle slots per micro-batch round */
  double micro_tokens = w->micro_batch * w->seq_len;
  double micro = fmax(1, w->tokens_per_step / (dp * micro_tokens));
  double t_bubble = pp > 1 ? t_comp * (pp - 1) / micro : 0;
  double t_mem = shard / f->bw; /* the optimizer reads and writes its state once per step */
  bool proj = false;
  const double act_bytes = 2; /* BF16 activations */
  double tokens_dp = w->tokens_per_step / dp; /* tokens one model replica processes per step */
  /* tensor parallel: 4 all-reduces per layer (2 forward, 2 backward), 2 more with recompute, of the
   * micro-batch's activations, inside the node, not hidden */
  double t_tp = 0;
  if (tp > 1) {
    double bytes = micro_tokens * w->hidden_size * act_bytes;
    double bw = busbw(perf, t, tp, tp, gpn, bytes, o, f->comm_scale, &proj) * 1e9;
    t_tp = (w->layers / pp) * (4 + (w->recompute ? 2 : 0)) * (tokens_dp / micro_tokens) * 2.0 * (tp - 1) / tp * bytes /
           bw;
  }
  /* pipeline: activations forward and gradients back across each stage boundary */
  double t_pp = 0;
  if (pp > 1) {
    double bytes = tokens_dp * w->hidden_size * act_bytes * 2;
    int local = gpn / tp >= pp ? pp : 1;
    double bw = busbw(perf, t, 2, local >= 2 ? 2 : 1, gpn / tp > 0 ? gpn / tp : 1, bytes, o, f->comm_scale, &proj);
    t_pp = bytes / (bw * 1e9);
  }
  /* data parallel: ring all-reduce of the gradients (sharded state: reduce-scatter + 2 all-gathers = 1.5x),
   * hierarchical: the ranks of one node share its NICs */
  double t_dp = 0;
  if (dp > 1) {
    double grad = w->grad_bytes * (held / w->params) / (tp * pp);
    double vol = grad * (w->sharded ? 1.5 : 1.0);
    int local = gpn / (tp * pp) > 0 ? gpn / (tp * pp) : 1;
    double msg = w->bucket_bytes < grad ? w->bucket_bytes : grad;
    double bw = busbw(perf, t, dp, local, gpn, msg, o, f->comm_scale, &proj) * 1e9;
    t_dp = 2.0 * (dp - 1) / dp * vol / bw;
  }
  /* MoE: each token's hidden state goes to top_k experts and back, forward and backward */
  double t_a2a = 0;
  if (ep > 1) {
    double bytes = 4 * w->moe_top_k * w->hidden_size * act_bytes * (ep - 1.0) / ep * tokens_dp * (w->layers / pp);
    double bw;
    if (ep <= gpn / tp) bw = busbw(perf, t, ep, ep, gpn, 1e8, o, f->comm_scale, &proj);
    else bw = busbw(perf, t, ep, 1, gpn, 1e8, o, f->comm_scale, &proj); /* per-GPU NIC share */
    t_a2a = bytes / (bw * 1e9);
  }
  if (proj) out->projected = true;
  if (t->ncurves && t->comm_throttled && (tp > 1 || dp > 1)) out->throttled = true;
  double busy = fmax(t_comp + t_bubble, t_mem);
  double hidden = o->overlap * fmin(t_dp + t_a2a, busy);
  double exposed = t_dp + t_a2a - hidden;
  double share_dp = t_dp + t_a2a > 0 ? t_dp / (t_dp + t_a2a) : 0;
  double t_step = busy + t_tp + t_pp + exposed;
  double g = w->goodput;
  out->compute_hours = steps * t_comp / 3600;
  out->memory_hours = steps * t_mem / 3600;
  out->bubble_hours = steps * t_bubble / 3600;
  out->tp_hours = steps * (t_tp + t_pp) / 3600;
  out->dp_hours = steps * exposed * share_dp / 3600;
  out->a2a_hours = steps * exposed * (1 - share_dp) / 3600;
  out->comm_hours = out->tp_hours + out->dp_hours + out->a2a_hours;
  out->goodput_hours = steps * t_step / 3600 * (1 / g - 1);
  out->hours = steps * t_step / g / 3600 + w->fixed_hours;
  out->tokens_per_s_per_gpu = w->tokens_per_step * g / (t_step * n);
  out->tp = tp;
}

/* One decode step of a replica of r GPUs at batch b: seconds, and its parts. */
typedef struct step {
  double total, gemm, attn, prefill, comm, weights;
} step;

static step decode_step(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int r, int gpn, double b,
                        double eta, const gb_plan_opts *o, const figs *f, bool *proj) {
  step s;
  double rate = r * f->gemm * eta, bw = r * f->bw;
  double lin = w->prompt_tokens, lout = w->output_tokens;
  double kv_avg = w->kv_bytes_per_sequence * (lin + lout / 2) / (lin + lout > 0 ? lin + lout : 1);
  s.weights = w->model_bytes / bw;
  s.gemm = fmax(2 * w->active_params * b / rate, s.weights); /* weights stream once per step */
  s.attn = b * kv_avg / bw;                                   /* each sequence reads its KV cache */
  s.prefill = b / lout * 2 * w->active_params * lin / rate;   /* prompts of the requests that start */
  s.comm = 0;
  if (r > 1) {
    double bytes = b * w->hidden_size * 2;
    double bwc = busbw(perf, t, r, r, gpn, bytes, o, f->comm_scale, proj) * 1e9;
    /* 2 all-reduces per layer, for each decoded token and each prefilled one */
    s.comm = 2 * w->layers * 2.0 * (r - 1) / r * bytes / bwc * (1 + lin / lout);
  }
  s.total = s.gemm + s.attn + s.prefill + s.comm;
  return s;
}

static void time_inference(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                           const gb_plan_opts *o, const figs *f, gb_plan_time *out) {
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  const double kv = w->kv_bytes_per_sequence;
  int in_node = n < gpn ? n : gpn;
  int r = (int)w->tensor_parallel;
  if (r == 0) {
    r = 1;
    double b1 = w->batch_size > 0 ? w->batch_size : 1;
    while (r < in_node && (w->model_bytes + b1 * kv) / r > have) r *= 2;
  }
  if (r > in_node || n % r) {
    if (r > in_node && (int)w->tensor_parallel == 0) {
      out->reject = GB_REJECT_MEMORY, out->need = (w->model_bytes + kv) / in_node / 1e9, out->have = have / 1e9;
    } else {
      out->reject = GB_REJECT_LAYOUT, out->need = r, out->have = n;
    }
    return;
  }
  double room = have * r - w->model_bytes;
  double bmax = kv > 0 ? floor(room / kv) : 4096;
  if (bmax > 4096) bmax = 4096;
  double b = w->batch_size > 0 ? w->batch_size : bmax;
  if (room <= 0 || b > bmax || b < 1) {
    out->reject = GB_REJECT_MEMORY;
    out->need = (w->model_bytes + (b < 1 ? 1 : b) * kv) / r / 1e9, out->have = have / 1e9;
    return;
  }
  double eta = eff_of(t, w->active_params, o, true);
  out->eta = eta;
  bool proj = false;
  step s = decode_step(w, perf, t, r, gpn, b, eta, o, f, &proj);
  /* the largest batch: halve it until a step meets the latency limit */
  if (w->batch_size == 0 && !isnan(w->max_token_latency_ms))
    while (b > 1 && s.total * 1e3 > w->max_token_latency_ms) {
      b = floor(b / 2);
      s = decode_step(w, perf, t, r, gpn, b, eta, o, f, &proj);
    }
  if (proj) out->projected = true;
  out->tp = r, out->batch = b;
  out->token_latency_ms = s.total * 1e3;
  out->ttft_ms = (2 * w->active_params * w->prompt_tokens / (r * f->gemm * eta) + s.total) * 1e3;
  if (!isnan(w->max_token_latency_ms) && s.total * 1e3 > w->max_token_latency_ms) {
    out->reject = GB_REJECT_LATENCY, out->need = w->max_token_latency_ms, out->have = s.total * 1e3;
    return;
  }
  int replicas = n / r;
  double rate = replicas * b / s.total;
  out->tokens_per_s_per_gpu = b / s.total / r;
  if (rate < w->tokens_per_second) {
    out->reject = GB_REJECT_RATE, out->need = w->tokens_per_second, out->have = rate;
    return;
  }
  double busy = w->serve_hours * (w->tokens_per_second / rate); /* replica-hours actually decoding */
  bool weight_bound = s.weights >= s.gemm; /* the GEMM step is the weights streaming */
  out->compute_hours = busy * ((weight_bound ? 0 : s.gemm) + s.prefill) / s.total;
  out->memory_hours = busy * (s.attn + (weight_bound ? s.gemm : 0)) / s.total;
  out->comm_hours = out->tp_hours = busy * s.comm / s.total;
  out->hours = w->serve_hours + w->fixed_hours;
}

static void time_generic(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                         const gb_plan_opts *o, const figs *f, gb_plan_time *out) {
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  double need = w->memory_gb * 1e9 / n;
  if (need > have) {
    out->reject = GB_REJECT_MEMORY, out->need = need / 1e9, out->have = have / 1e9;
    return;
  }
  double eta = eff_of(t, 1e10, o, false);
  out->eta = eta;
  double t_comp = w->total_flops / (n * f->gemm * eta);
  double t_mem = w->total_bytes / (n * f->bw);
  double t_comm = 0;
  if (n > 1 && w->allreduce_bytes > 0) {
    bool proj = false;
    double bw = busbw(perf, t, n, gpn, gpn, w->allreduce_bytes, o, f->comm_scale, &proj) * 1e9;
    if (proj) out->projected = true;
    t_comm = w->allreduce_count * 2.0 * (n - 1) / n * w->allreduce_bytes / bw;
  }
  double exposed = t_comm - o->overlap * fmin(t_comm, fmax(t_comp, t_mem));
  out->compute_hours = t_comp / 3600;
  out->memory_hours = t_mem / 3600;
  out->comm_hours = out->dp_hours = exposed / 3600;
  out->hours = (fmax(t_comp, t_mem) + exposed) / 3600 + w->fixed_hours;
}

static void time_at(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                    const gb_plan_opts *o, double end, gb_plan_time *out) {
  /* end: -1 every figure at the low end of its band, 0 the figure, +1 the high end */
  figs f = {t->gemm_tflops * 1e12 * (1 + end * t->gemm_band), t->gemm_base_tflops * 1e12 * (1 + end * t->gemm_band),
            t->hbm_gbps * 1e9 * (1 + end * t->hbm_band), 1 + end * t->comm_band};
  switch (w->kind) {
  case GB_WL_TRAINING: time_training(w, perf, t, n, gpn, o, &f, out); break;
  case GB_WL_INFERENCE: time_inference(w, perf, t, n, gpn, o, &f, out); break;
  case GB_WL_GENERIC: time_generic(w, perf, t, n, gpn, o, &f, out); break;
  default: out->reject = GB_REJECT_PRECISION; break;
  }
}

void gb_plan_time_of(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                     const gb_plan_opts *o, gb_plan_time *out) {
  memset(out, 0, sizeof *out);
  out->hours = out->compute_hours = out->memory_hours = out->comm_hours = NAN;
  out->bubble_hours = out->tp_hours = out->dp_hours = out->a2a_hours = out->goodput_hours = NAN;
  out->hours_low = out->hours_high = out->tokens_per_s_per_gpu = NAN;
  out->token_latency_ms = out->ttft_ms = out->batch = out->eta = NAN;
  out->need = out->have = NAN;
  out->projected = t->gemm_basis >= GB_BASIS_VENDOR || t->hbm_basis >= GB_BASIS_VENDOR;
  out->throttled = t->gemm_basis == GB_BASIS_THROTTLED || t->hbm_basis == GB_BASIS_THROTTLED;
  out->basis = t->gemm_basis > t->hbm_basis ? t->gemm_basis : t->hbm_basis;
  if (!isfinite(t->gemm_tflops)) {
    out->reject = GB_REJECT_PRECISION;
    return;
  }
  time_at(w, perf, t, n, gpn, o, 0, out);
  if (out->reject) return;
  gb_plan_time lo = *out, hi = *out;
  time_at(w, perf, t, n, gpn, o, +1, &lo);
  time_at(w, perf, t, n, gpn, o, -1, &hi);
  if (w->kind == GB_WL_INFERENCE) {
    /* a service runs its hours; the band is in its capacity: at the ranked
     * end of the band it must still serve the rate within the latency */
    out->hours_low = out->hours_high = out->hours;
    const gb_plan_time *end = o->rank_by == GB_RANK_LOW ? &hi : o->rank_by == GB_RANK_HIGH ? &lo : NULL;
    if (end && end->reject) out->reject = end->reject, out->need = end->need, out->have = end->have;
  } else {
    out->hours_low = lo.reject ? out->hours : lo.hours;
    out->hours_high = hi.reject ? out->hours : hi.hours;
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

/* Months between two dates YYYY-MM-DD (b - a), by calendar month. */
static int months_between(const char *a, const char *b) {
  int ya = atoi(a), ma = atoi(a + 5), yb = atoi(b), mb = atoi(b + 5);
  int m = (yb - ya) * 12 + (mb - ma);
  if (atoi(b + 8) < atoi(a + 8)) m--;
  return m;
}

bool gb_plan_price_stale(const gb_price *p, const char *today) {
  return today && months_between(p->date, today) >= GB_PRICE_STALE_MONTHS;
}

/* The cheapest on-demand or reserved rental of a type (spot is not capacity
 * one can plan a fleet on), preferring prices younger than 18 months. */
static const gb_price *cheapest_rental(const gb_prices *prices, const char *type, const char *today) {
  const gb_price *best = NULL;
  bool best_stale = true;
  for (size_t j = 0; j < prices->n; j++) {
    const gb_price *q = &prices->v[j];
    if (q->offering == GB_OFFER_PURCHASE || q->offering == GB_OFFER_SPOT || strcmp(q->gpu_type, type)) continue;
    bool stale = gb_plan_price_stale(q, today);
    if (!best || (best_stale && !stale) ||
        (stale == best_stale && q->price_usd_per_gpu_hour < best->price_usd_per_gpu_hour))
      best = q, best_stale = stale;
  }
  return best;
}

/* Cost of the row at hours h: amortized (the job's share) and cash. */
static void cost_at(const gb_plan_opts *o, const gb_plan_row *r, double h, double *amortized, double *cash) {
  const gb_price *p = r->price;
  double gpus = (double)r->nodes * r->gpus_per_node;
  if (p->offering != GB_OFFER_PURCHASE) {
    *amortized = *cash = h * gpus * r->rate_usd_per_gpu_hour;
    return;
  }
  gb_owned_cost c = gb_plan_owned_cost(p, r->perf->spec, o);
  *amortized = h * gpus * c.usd_per_used_gpu_hour;
  /* cash: the GPUs (capex), then the job's energy and operations */
  *cash = r->capex_usd + h * gpus * c.energy_usd_per_gpu_hour + r->capex_usd * o->ops_fraction_per_year * h / HOURS_PER_YEAR;
}

static void price_row(const gb_workload *w, const gb_plan_opts *o, const gb_prices *prices, double work,
                      gb_plan_row *r) {
  const gb_price *p = r->price;
  double gpus_billed = (double)r->nodes * r->gpus_per_node;
  r->capex_usd = r->breakeven_hours = NAN;
  r->price_stale = gb_plan_price_stale(p, o->today);
  if (p->offering == GB_OFFER_PURCHASE) {
    gb_owned_cost c = gb_plan_owned_cost(p, r->perf->spec, o);
    r->rate_usd_per_gpu_hour = c.usd_per_used_gpu_hour;
    r->capex_usd = gpus_billed * p->purchase_usd_per_gpu * o->price_scale * o->network_overhead;
    /* break-even: hours of use at which owning (capex + energy + operations) costs what renting does */
    const gb_price *rent = cheapest_rental(prices, p->gpu_type, o->today);
    if (rent) {
      double capex_gpu = p->purchase_usd_per_gpu * o->price_scale * o->network_overhead;
      double margin = rent->price_usd_per_gpu_hour * o->price_scale - c.energy_usd_per_gpu_hour -
                      capex_gpu * o->ops_fraction_per_year / HOURS_PER_YEAR;
      r->breakeven_hours = margin > 0 ? capex_gpu / margin : INFINITY;
    }
  } else {
    r->rate_usd_per_gpu_hour = p->price_usd_per_gpu_hour * o->price_scale;
  }
  if (p->offering == GB_OFFER_SPOT) {
    double h = spot_hours(r->hours, r->nodes, o);
    if (isnan(h)) {
      r->reject = GB_REJECT_SPOT;
      r->need = o->spot_preemptions_per_node_hour * r->nodes;
      return;
    }
    double stretch = h / r->hours;
    r->hours = h;
    r->hours_low = spot_hours(r->hours_low, r->nodes, o);
    r->hours_high = spot_hours(r->hours_high, r->nodes, o);
    if (isnan(r->hours_high)) r->hours_high = r->hours;
    if (isnan(r->hours_low)) r->hours_low = r->hours;
    r->compute_hours *= stretch, r->memory_hours *= stretch, r->comm_hours *= stretch;
  }
  double cash;
  cost_at(o, r, r->hours, &r->amortized_usd, &r->cash_usd);
  bool amort = o->budget_basis == GB_BUDGET_AMORTIZED;
  r->cost_usd = amort ? r->amortized_usd : r->cash_usd;
  double a_lo, a_hi, c_lo, c_hi;
  cost_at(o, r, r->hours_low, &a_lo, &c_lo);
  cost_at(o, r, r->hours_high, &a_hi, &c_hi);
  r->cost_low = amort ? a_lo : c_lo;
  r->cost_high = amort ? a_hi : c_hi;
  (void)cash;
  switch (o->rank_by) {
  case GB_RANK_LOW: r->rank_hours = r->hours_high, r->rank_cost = r->cost_high; break;
  case GB_RANK_MEDIAN: r->rank_hours = r->hours, r->rank_cost = r->cost_usd; break;
  case GB_RANK_HIGH: r->rank_hours = r->hours_low, r->rank_cost = r->cost_low; break;
  }
  /* efficiency: work per dollar of the job's share (cash buys GPUs that outlive it) */
  r->efficiency = work / r->amortized_usd;
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
  for (size_t i = 0; i < o->ngpu_types; i++)
    if (!gb_perf_find(perf, o->gpu_types[i]))
      return gb_fail(GB_E_INPUT, "--gpu-type: unknown GPU type \"%s\" (not in gpu_specs.csv)", o->gpu_types[i]);
  for (size_t i = 0; i < o->nproviders; i++) {
    bool found = false;
    for (size_t j = 0; j < prices->n && !found; j++) found = strcmp(prices->v[j].provider, o->providers[i]) == 0;
    if (!found)
      return gb_fail(GB_E_INPUT, "--provider: unknown provider \"%s\" (not in %s)", o->providers[i], prices->path);
  }
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
    int gpn = p->gpus_per_node;
    size_t nc = counts_for(gpn, max_gpus, counts);
    if (!price_passes(op, p, t)) {
      out->nfiltered += nc;
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
      r->cost_usd = r->efficiency = r->rate_usd_per_gpu_hour = NAN;
      r->capex_usd = r->amortized_usd = r->cash_usd = r->breakeven_hours = NAN;
      r->cost_low = r->cost_high = r->rank_cost = r->rank_hours = NAN;
      gb_plan_time *tm = &r->time;
      gb_plan_time_of(w, perf, t, r->gpu_count, gpn, op, tm);
      r->projected = tm->projected;
      r->throttled = tm->throttled;
      r->basis = tm->basis;
      r->hours = tm->hours, r->compute_hours = tm->compute_hours;
      r->hours_low = tm->hours_low, r->hours_high = tm->hours_high;
      r->memory_hours = tm->memory_hours, r->comm_hours = tm->comm_hours;
      r->reject = tm->reject, r->need = tm->need, r->have = tm->have;
      if (r->reject) continue;
      price_row(w, op, prices, work, r);
      if (r->reject) continue;
      double ch = r->compute_hours, mh = r->memory_hours, kh = r->comm_hours;
      r->bottleneck = (kh > ch && kh > mh) ? GB_BOUND_COMM : (mh > ch ? GB_BOUND_MEMORY : GB_BOUND_COMPUTE);
      if (!isnan(op->max_hours) && r->rank_hours > op->max_hours) {
        r->reject = GB_REJECT_DEADLINE, r->need = op->max_hours, r->have = r->rank_hours;
        continue;
      }
      if (!isnan(op->budget_usd) && r->rank_cost > op->budget_usd) {
        r->reject = GB_REJECT_BUDGET, r->need = op->budget_usd, r->have = r->rank_cost;
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
    gb_plan_time_of(w, perf, r->perf, 1, 1, op, &r->time);
  }
  int (*cmp)(const void *, const void *) =
      op->objective == GB_OBJ_TIME ? cmp_time : op->objective == GB_OBJ_EFFICIENCY ? cmp_efficiency : cmp_cost;
  if (out->n) qsort(out->rows, out->n, sizeof *out->rows, cmp);
  for (size_t i = 0; i < out->nfeasible; i++) out->rows[i].rank = i + 1;
  /* Pareto frontier of (hours, cost) at the rank-by end: sweep by hours, keep strictly cheaper */
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
      if (by_time[i]->rank_cost < best) {
        by_time[i]->pareto = true;
        best = by_time[i]->rank_cost;
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

/* ---- CSV output ---- */

static const char *const k_plan_cols[] = {
    "rank", "gpu_type", "gpu_count", "nodes", "gpus_per_node", "provider", "offering", "basis", "feasible",
    "reason", "hours", "cost_usd", "efficiency", "efficiency_unit", "bottleneck", "compute_hours", "memory_hours",
    "comm_hours", "pareto", "price_usd_per_gpu_hour", "purchase_usd_per_gpu", "price_date", "price_source",
    "utilization", "pue", "electricity_usd_per_kwh", "mfu", "overlap", "max_hours", "budget_usd", "workload",
    "precision", "gemm_window",
    /* added by issue 27 (old readers ignore them) */
    "capex_usd", "amortized_usd", "cash_usd", "breakeven_hours", "budget_basis", "hours_low", "hours_high",
    "cost_low", "cost_high", "rank_by", "gemm_basis", "hbm_basis", "comm_basis", "price_stale", "tensor_parallel",
    "batch", "tokens_per_s_per_gpu", "token_latency_ms", "ttft_ms", "bubble_hours", "tp_comm_hours",
    "dp_comm_hours", "a2a_hours", "goodput_hours", "eta",
    /* added by issue 24 (the decision page weighs break-even against it) */
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
    if (strcmp(k_cases[i].factor, "efficiency") == 0) v.efficiency_scale *= f;
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

/* ---- hybrid for a demand profile ---- */

size_t gb_plan_hybrid_demand(const gb_plan *plan, const gb_perf *perf, const gb_prices *prices,
                             gb_hybrid_curve *out, size_t max) {
  const gb_workload *w = plan->workload;
  const gb_plan_opts *o = &plan->opts;
  /* the load-duration curve: (GPUs, share of the year) segments */
  double level[GB_WL_MAX_MONTHS + 2], share[GB_WL_MAX_MONTHS + 2];
  size_t ns = 0;
  if (w->ndemand_months) {
    for (size_t i = 0; i < w->ndemand_months; i++) {
      level[ns] = w->demand_months[i] / (HOURS_PER_YEAR / 12); /* average GPUs in that month */
      share[ns++] = 1.0 / (double)w->ndemand_months;
    }
  } else if (!isnan(w->demand_base_gpus)) {
    level[ns] = w->demand_base_gpus, share[ns++] = 1 - w->demand_peak_fraction;
    level[ns] = w->demand_base_gpus + w->demand_peak_gpus, share[ns++] = w->demand_peak_fraction;
  } else if (w->kind == GB_WL_INFERENCE) {
    return 0;
  }
  bool from_jobs = ns == 0; /* no profile: the workload's runs on each type's best rented configuration */
  double peak = 0;
  for (size_t i = 0; i < ns; i++) peak = fmax(peak, level[i]);
  size_t k = 0;
  for (size_t i = 0; i < prices->n && k < max; i++) {
    const gb_price *p = &prices->v[i];
    const gb_perf_type *t = gb_perf_find(perf, p->gpu_type);
    if (p->offering != GB_OFFER_PURCHASE || !t) continue;
    const gb_price *rent = cheapest_rental(prices, p->gpu_type, o->today);
    if (!rent) continue;
    if (from_jobs) {
      /* --jobs-per-year runs on this type's best rented configuration: a load of its GPUs for the share
       * of the year they take, none the rest */
      const gb_plan_row *burst = NULL;
      for (size_t j = 0; j < plan->nfeasible && !burst; j++)
        if (plan->rows[j].perf == t && plan->rows[j].price->offering != GB_OFFER_PURCHASE) burst = &plan->rows[j];
      if (!burst) continue;
      double busy = fmin(1, o->jobs_per_year * burst->hours / HOURS_PER_YEAR);
      ns = 0;
      level[ns] = (double)burst->nodes * burst->gpus_per_node, share[ns++] = busy;
      level[ns] = 0, share[ns++] = 1 - busy;
      peak = level[0];
      rent = burst->price;
    }
    gb_hybrid_curve *c = &out[k++];
    memset(c, 0, sizeof *c);
    c->purchase = p, c->rent = rent, c->peak_gpus = peak;
    gb_owned_cost oc = gb_plan_owned_cost(p, t->spec, o);
    double rate = rent->price_usd_per_gpu_hour * o->price_scale;
    int gpn = p->gpus_per_node;
    int top = (int)ceil(peak / gpn) * gpn;
    int step = gpn;
    while (top / step + 1 > GB_HYBRID_POINTS) step += gpn;
    c->best_usd = INFINITY;
    for (int own = 0; own <= top && c->n < GB_HYBRID_POINTS; own += step) {
      double cost = own * oc.fixed_usd_per_gpu_hour * HOURS_PER_YEAR;
      for (size_t j = 0; j < ns; j++) {
        double h = share[j] * HOURS_PER_YEAR;
        cost += h * (fmin(level[j], own) * oc.energy_usd_per_gpu_hour + fmax(0, level[j] - own) * rate);
      }
      c->owned[c->n] = own;
      c->annual_usd[c->n++] = cost;
      if (own == 0) c->all_rent_usd = cost;
      if (cost < c->best_usd) c->best_usd = cost, c->best_owned = own;
    }
  }
  return k;
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
