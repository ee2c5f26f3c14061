/* gb_plan_time: the step-time model. A training step is composed of its
 * terms (compute, memory, communication tiers, pipeline, mixture of experts;
 * one file each, gb_plan_int.h); serving is gb_time_serve.c; a generic
 * demand is a roofline plus all-reduces. Each configuration is timed at its
 * figures and at both ends of their band. Formulas: docs/planner.md. */
#include <math.h>
#include <string.h>

#include "gb_goodput.h"
#include "gb_plan_int.h"

/* Share of a GPU's SMs an overlapped MoE dispatcher holds (20 of 132). */
#define GB_MOE_COMM_SM_SHARE (20.0 / 132.0)

/* The layout of n GPUs on nodes of gpn, or a rejection (out->reject set):
 * tp x pp x cp must divide n, tensor parallel stays inside a node, expert
 * parallel spans data x context (x tensor) parallel ranks. */
static bool layout_of(const gb_workload *w, const gb_perf_type *t, int n, int gpn, gb_layout *l, gb_plan_time *out) {
  memset(l, 0, sizeof *l);
  l->n = n, l->gpn = gpn;
  l->tp = (int)w->tensor_parallel, l->pp = (int)w->pipeline_parallel, l->ep = (int)w->expert_parallel;
  l->vp = (int)w->virtual_pipeline, l->cp = (int)w->context_parallel;
  int model = l->tp * l->pp * l->cp;
  if (n % model != 0 || l->tp > gpn || l->ep > n / l->pp || (n / l->pp) % l->ep != 0) {
    out->reject = GB_REJECT_LAYOUT, out->need = model, out->have = n;
    return false;
  }
  l->dp = n / model;
  l->domain = isfinite(t->spec->nvlink_domain) && gpn > 1 ? (int)t->spec->nvlink_domain : gpn;
  if (l->domain < gpn) l->domain = gpn;
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  double need = gb_term_memory_need(w, l);
  if (need > have) {
    out->reject = GB_REJECT_MEMORY, out->need = need / 1e9, out->have = have / 1e9;
    return false;
  }
  l->micro_tokens = w->micro_batch * w->seq_len;
  l->micro = fmax(1, w->tokens_per_step / (l->dp * l->micro_tokens));
  l->tokens_dp = w->tokens_per_step / l->dp;
  /* unequal stages: the fullest one (ceil of the mean) sets the pace */
  double stages = (double)l->pp * l->vp;
  l->stage_pace = w->uneven_pipeline ? ceil(w->layers / stages) * stages / w->layers : 1;
  return true;
}

/* What of the options the terms read. */
static void layout_opts(const gb_plan_opts *o, gb_layout *l) {
  l->whole_step_eff = isfinite(o->mfu);
  l->eff_scale = o->efficiency_scale > 0 ? o->efficiency_scale : 1;
}

/* Per-step seconds of each term. */
typedef struct step_terms {
  double comp, bubble, mem, elem, tp, pp, dp, a2a, cp;
  double router, permute; /* MoE: the router and the token permutation (inside elem) */
} step_terms;

static void training_terms(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                           const gb_plan_opts *o, const gb_figs *f, double eta, step_terms *s, bool *proj) {
  s->comp = gb_term_compute_seconds(w, t, l, eta, f);
  s->permute = gb_term_moe_local_seconds(w, l, f, eta, &s->router);
  /* both mostly memory-bound (the router's logits GEMM is a sliver): with the element-wise work */
  s->elem = (l->whole_step_eff ? 0 : gb_term_elementwise_seconds(w, l, f)) + s->permute + s->router;
  s->bubble = gb_term_bubble_seconds(l, s->comp + s->elem);
  s->mem = gb_term_memory_seconds(l, f);
  s->tp = gb_term_tp_seconds(w, perf, t, l, o, f, proj);
  s->pp = gb_term_pp_seconds(w, perf, t, l, o, f, proj);
  s->dp = gb_term_dp_seconds(w, perf, t, l, o, f, proj);
  s->a2a = gb_term_moe_seconds(w, perf, t, l, o, f, proj);
  double attn = s->comp * fmin(1, w->attention_flops_per_token / w->flops_per_token);
  s->cp = gb_term_cp_seconds(w, perf, t, l, o, f, attn, proj);
}

/* The run's wall time from its useful hours: an explicit goodput divides them; else the whole-run default
 * (gb_goodput.h: interruptions of n GPUs over the run, evaluation and checkpoint share, the first start). */
static void whole_run(const gb_workload *w, int n, double useful_hours, gb_plan_time *out) {
  double wall;
  if (isfinite(w->goodput)) {
    wall = useful_hours / w->goodput;
  } else {
    gb_goodput gp;
    gb_goodput_run(n, useful_hours, &gp);
    out->interruptions = gp.interruptions, out->interrupt_hours = gp.interrupt_hours;
    out->overhead_hours = gp.overhead_hours, out->startup_hours = gp.startup_hours;
    wall = useful_hours + gp.overhead_hours + gp.startup_hours + gp.interrupt_hours;
  }
  out->goodput = wall > 0 ? useful_hours / wall : 1;
  out->goodput_hours = wall - useful_hours;
  out->hours = wall;
  out->low_precision_share = gb_workload_is_low_precision(w->precision) ? w->fp8_share : NAN;
}

void gb_time_training(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                      double node_gbps, const gb_plan_opts *o, const gb_figs *f, gb_plan_time *out) {
  gb_layout l;
  if (!layout_of(w, t, n, gpn, &l, out)) return;
  layout_opts(o, &l);
  l.node_gbps = gb_term_node_gbps(t, gpn, o, node_gbps);
  double eta = gb_term_eff(t, w->active_params, o, false);
  out->eta = eta;
  /* a block-scaled recipe (MXFP8, NVFP4) reaches block_scaled_eff of the GEMM rates, the precision's and BF16's
   * alike: its quantization work beside the casts' traffic (docs/planner.md, "Blackwell"); a stated --mfu
   * covers the whole step */
  gb_figs fb = *f;
  out->block_scaled_eff = isfinite(o->mfu) ? 1 : gb_term_block_scaled_eff(w, t);
  fb.gemm *= out->block_scaled_eff, fb.gemm_base *= out->block_scaled_eff;
  f = &fb;
  double steps = w->tokens / w->tokens_per_step;
  step_terms s;
  bool proj = false;
  training_terms(w, perf, t, &l, o, f, eta, &s, &proj);
  if (proj) out->projected = true;
  if (t->ncurves && t->comm_throttled && (l.tp > 1 || l.dp > 1)) out->throttled = true;
  double busy = fmax(s.comp + s.elem + s.bubble, s.mem);
  /* the gradient reduction hides behind the step's compute at --overlap; dispatch and combine at the
   * workload's moe_overlap (NCCL AlltoAll: none), in what compute the reduction left */
  double hidden_dp = o->overlap * fmin(s.dp, busy);
  double ov_moe = w->moe_dispatcher == GB_MOE_ALLTOALL ? 0 : isnan(w->moe_overlap) ? o->overlap : w->moe_overlap;
  double hidden_moe = ov_moe * fmin(s.a2a, busy - hidden_dp);
  double hidden = hidden_dp + hidden_moe;
  /* TP all-gathers and reduce-scatters pipelined with the GEMMs they feed: the workload's tp_comm_overlap of
   * them hidden, in what compute the two above left */
  double hidden_tp = w->tp_comm_overlap * fmin(s.tp, fmax(0, busy - hidden));
  /* the dispatch and combine kernels that run beside compute hold SMs it loses (DeepEP: 20 of 132 SMs,
   * DeepSeek-V3 report, arXiv 2412.19437, sec. 3.2.2): the compute they overlap runs at (1 - share) */
  double sm_cost = hidden_moe * GB_MOE_COMM_SM_SHARE / (1 - GB_MOE_COMM_SM_SHARE);
  double exposed = s.dp + s.a2a - hidden + sm_cost;
  double share_dp = exposed > 0 ? (s.dp - hidden_dp) / exposed : 0;
  double t_step = busy + s.tp - hidden_tp + s.pp + s.cp + exposed;
  whole_run(w, n, steps * t_step / 3600, out);
  double g = out->goodput;
  out->compute_hours = steps * s.comp / 3600;
  out->memory_hours = steps * (s.mem + s.elem) / 3600;
  out->bubble_hours = steps * s.bubble / 3600;
  out->tp_hours = steps * (s.tp - hidden_tp + s.pp + s.cp) / 3600;
  out->tp_hidden_hours = steps * hidden_tp / 3600;
  out->dp_hours = steps * exposed * share_dp / 3600;
  out->a2a_hours = steps * exposed * (1 - share_dp) / 3600;
  out->comm_hours = out->tp_hours + out->dp_hours + out->a2a_hours;
  out->hours += w->fixed_hours;
  out->tokens_per_s_per_gpu = w->tokens_per_step * g / (t_step * n);
  out->tp = l.tp;
  out->router_hours = steps * s.router / 3600;
  out->permute_hours = steps * s.permute / 3600;
  if (!isnan(w->experts) && w->experts > 1) {
    out->expert_eff = gb_term_moe_expert_eff(w, t, f, gb_term_moe_tokens_per_expert(w, &l), GB_MOE_TILE_M, true);
    out->moe_imbalance = gb_term_moe_imbalance(w);
  }
}

static void time_generic(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                         double node_gbps, const gb_plan_opts *o, const gb_figs *f, gb_plan_time *out) {
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  double need = w->memory_gb * 1e9 / n;
  if (need > have) {
    out->reject = GB_REJECT_MEMORY, out->need = need / 1e9, out->have = have / 1e9;
    return;
  }
  double eta = gb_term_eff(t, 1e10, o, false);
  out->eta = eta;
  double t_comp = w->total_flops / (n * f->gemm * eta);
  double t_mem = w->total_bytes / (n * f->bw);
  double t_comm = 0;
  if (n > 1 && w->allreduce_bytes > 0) {
    bool proj = false;
    double bw = gb_term_busbw_node(perf, t, n, gpn, gpn, w->allreduce_bytes, o, gb_term_node_gbps(t, gpn, o, node_gbps),
                                   f->comm_scale, &proj) * 1e9;
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
                    double node_gbps, const gb_plan_opts *o, double end, gb_plan_time *out) {
  /* end: -1 every figure at the low end of its band, 0 the figure, +1 the high end */
  gb_figs f = {t->gemm_tflops * 1e12 * (1 + end * t->gemm_band), t->gemm_base_tflops * 1e12 * (1 + end * t->gemm_band),
            t->hbm_gbps * 1e9 * (1 + end * t->hbm_band), 1 + end * t->comm_band};
  switch (w->kind) {
  case GB_WL_TRAINING: gb_time_training(w, perf, t, n, gpn, node_gbps, o, &f, out); break;
  case GB_WL_INFERENCE: gb_time_inference(w, perf, t, n, gpn, o, &f, out); break;
  case GB_WL_GENERIC: time_generic(w, perf, t, n, gpn, node_gbps, o, &f, out); break;
  default: out->reject = GB_REJECT_PRECISION; break;
  }
}

void gb_plan_time_of(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                     const gb_plan_opts *o, gb_plan_time *out) {
  gb_plan_time_node(w, perf, t, n, gpn, NAN, o, out);
}

void gb_plan_time_node(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                       double node_gbps, const gb_plan_opts *o, gb_plan_time *out) {
  memset(out, 0, sizeof *out);
  out->hours = out->compute_hours = out->memory_hours = out->comm_hours = NAN;
  out->bubble_hours = out->tp_hours = out->dp_hours = out->a2a_hours = out->goodput_hours = NAN;
  out->goodput = out->interruptions = out->interrupt_hours = out->overhead_hours = out->startup_hours = NAN;
  out->low_precision_share = NAN;
  out->block_scaled_eff = 1;
  out->hours_low = out->hours_high = out->tokens_per_s_per_gpu = NAN;
  out->token_latency_ms = out->ttft_ms = out->batch = out->eta = NAN;
  out->need = out->have = NAN;
  out->router_hours = out->permute_hours = out->floor_hours = out->expert_eff = out->moe_imbalance = NAN;
  out->projected = t->gemm_basis >= GB_BASIS_VENDOR || t->hbm_basis >= GB_BASIS_VENDOR;
  out->throttled = t->gemm_basis == GB_BASIS_THROTTLED || t->hbm_basis == GB_BASIS_THROTTLED;
  out->basis = t->gemm_basis > t->hbm_basis ? t->gemm_basis : t->hbm_basis;
  if (!isfinite(t->gemm_tflops)) {
    out->reject = GB_REJECT_PRECISION;
    return;
  }
  time_at(w, perf, t, n, gpn, node_gbps, o, 0, out);
  if (out->reject) return;
  gb_plan_time lo = *out, hi = *out;
  time_at(w, perf, t, n, gpn, node_gbps, o, +1, &lo);
  time_at(w, perf, t, n, gpn, node_gbps, o, -1, &hi);
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

