/* Step-time term: mixture of experts. Two parts:
 * - the expert GEMMs run as grouped GEMMs of tokens-per-expert x hidden x
 *   expert FFN width, below the dense rate when few tokens reach an expert:
 *   a roofline of the shape (weights dominate the bytes) times the share of
 *   the 128-row tiles the tokens fill;
 * - dispatch and combine are a hierarchical all-to-all: each token's hidden
 *   state goes to top_k experts and back, forward and backward; copies to
 *   ranks in the NVLink domain ride NVLink, and a token crosses to another
 *   domain once per domain it has experts in (DeepEP/HybridEP forward it
 *   inside the domain), over the NICs.
 * - the router (logits GEMM, score function, top-k) and the permutation of
 *   each token's k copies into expert order and back: their own term;
 * - load imbalance: the busiest expert-parallel rank's tokens over the mean
 *   stretch the expert GEMMs, the permutation and the all-to-all.
 * Formulas: docs/planner.md, "Mixture of experts". */
#include <math.h>

#include "gb_model.h"
#include "gb_plan_int.h"

#define ACT_BYTES_MOE 2.0 /* BF16 hidden states */

/* The small-shape factor of an expert GEMM, min(1, (n k / NK_FULL)^NK_EXP): below 2^24 weights a product the
 * grouped GEMM falls short of the dense rate even where the roofline allows it. Fitted to the H100 sweep of
 * data/measured/grouped/ (bf16, over the dense 795.7 TFLOP/s): n x k = 768 x 2048 at m = 512 runs at 679 TFLOP/s
 * (0.85, the factor 0.84), 1536 x 4096 at m = 128 at 0.92 of the largest shape's rate (factor 0.93), 2048 x
 * 7168 and 14336 x 4096 at 0.97-1.0 (0.99, 1). */
#define NK_FULL 16777216.0
#define NK_EXP 0.075
/* The busiest expert-parallel rank's load over the mean with a learned router and no token dropping: 1.50, the
 * least-squares value (in log ratio) over the calibration fit half's learned-routing MoE runs (DeepSeek-V3 and -V2
 * pre-training, torchtitan Llama 4 Scout on GB200, torchao Llama 4 on B200; docs/planner.md, "Load imbalance").
 * A direct measurement bounds it: Megatron-MoE-ModelZoo best_practice/qwen3/readme.md (Qwen3-235B-A22B, 256 H100,
 * seq 16384, TP4 EP8 PP8) runs 295 TFLOP/s a GPU force-balanced and 237 dropless, a 1.245 x longer step; the
 * planner puts 37% of that step in the MoE layers' token work, which gives 1 + 0.245 / 0.367 = 1.67 for
 * Qwen3's router. */
#define LEARNED_IMBALANCE 1.50

double gb_term_moe_tokens_per_expert(const gb_workload *w, const gb_layout *l) {
  return l->micro_tokens / (l->cp * l->tp) * l->ep * w->moe_top_k / w->experts;
}

/* Share of the dense GEMM rate an m x n x k product of the precision reaches: the roofline against the ridge rate
 * / bandwidth, at most the small-shape factor, times the fill of `tile`-row tiles in m. */
static double shape_eff(double m, double n, double k, double elem, const gb_figs *f, double tile, bool roofline) {
  double flops = 2 * m * n * k;
  double bytes = elem * (m * k + n * k) + 2 * m * n;
  double ridge = f->gemm / f->bw;
  double roof = roofline ? fmin(1, flops / bytes / ridge) : 1;
  double small = fmin(1, pow(n * k / NK_FULL, NK_EXP));
  double tiles = ceil(m / tile) * tile;
  return fmin(roof, small) * (m / tiles);
}

double gb_term_moe_expert_eff(const gb_workload *w, const gb_perf_type *t, const gb_figs *f, double m, double tile,
                              bool roofline) {
  if (isnan(w->experts) || w->experts <= 1) return 1;
  m = fmax(1, m);
  double h = w->hidden_size, ffn = w->expert_ffn_hidden;
  double elem = gb_workload_elem_bytes(w->precision);
  /* gate and up fused (n = 2 ffn, k = hidden), down (n = hidden, k = ffn): time over FLOPs, harmonic; a measured
   * grouped GEMM at the shape (bench gemm, grouped_<dtype>) over the dense rate wins over the model */
  double e_up = shape_eff(m, 2 * ffn, h, elem, f, tile, roofline), e_down = shape_eff(m, h, ffn, elem, f, tile, roofline);
  if (!roofline) return 3.0 / (2.0 / e_up + 1.0 / e_down); /* the compute side only: the caller times the bytes */
  double g_up = gb_perf_grouped_tflops(t, w->precision, m, 2 * ffn, h);
  double g_down = gb_perf_grouped_tflops(t, w->precision, m, h, ffn);
  if (isfinite(g_up) && isfinite(g_down) && t->gemm_tflops > 0)
    e_up = fmin(1, g_up / t->gemm_tflops), e_down = fmin(1, g_down / t->gemm_tflops);
  return 3.0 / (2.0 / e_up + 1.0 / e_down);
}

double gb_term_moe_imbalance(const gb_workload *w) {
  if (isnan(w->experts) || w->experts <= 1 || w->moe_routing == GB_MOE_BALANCED) return 1;
  double cf = w->moe_capacity_factor; /* tokens beyond cf x the mean are dropped */
  return isnan(cf) ? LEARNED_IMBALANCE : fmin(cf, LEARNED_IMBALANCE);
}

/* Share of the FLOPs a token spends in the routed experts (SwiGLU: 3 matrices, forward + backward) of the MoE
 * layers. */
static double expert_share(const gb_workload *w) {
  double flops = 6 * 3 * w->hidden_size * w->expert_ffn_hidden * w->moe_top_k * w->moe_layers;
  return fmin(1, flops / w->flops_per_token);
}

double gb_term_moe_compute_factor(const gb_workload *w, const gb_perf_type *t, const gb_layout *l, const gb_figs *f) {
  if (isnan(w->experts) || w->experts <= 1) return 1;
  double e = gb_term_moe_expert_eff(w, t, f, gb_term_moe_tokens_per_expert(w, l), GB_MOE_TILE_M, true);
  double share = expert_share(w);
  const gb_arch_model *a = t->model ? t->model : gb_arch_model_find("");
  double g = gb_model_at_size(a->gemm_share, w->active_params);
  /* the experts' share of the linear time: its GEMM part at e, all of it on the busiest rank's tokens */
  return (1 - share) + share * gb_term_moe_imbalance(w) * ((1 - g) + g / e);
}

double gb_term_moe_local_seconds(const gb_workload *w, const gb_layout *l, const gb_figs *f, double eta,
                                 double *router) {
  *router = 0;
  if (isnan(w->experts) || w->experts <= 1) return 0;
  double h = w->hidden_size, k = w->moe_top_k, e = w->experts;
  /* passes over the tokens: forward, backward (twice the forward's traffic), a recompute's forward */
  double passes = 3 + (w->recompute ? 1 : 0);
  /* permutation: permute reads a token's hidden state and writes its k copies grouped by expert; unpermute reads
   * the k expert outputs and writes their weighted sum (BF16); per token and MoE layer, a forward pass */
  double perm_bytes = 2 * (1 + k) * h * ACT_BYTES_MOE;
  /* the NCCL all-to-all dispatcher permutes before the exchange and sorts the received chunks by local expert after
   * it (and the reverse on combine): one more read and write of the k copies each way, which the fused
   * dispatchers (DeepEP, HybridEP) do inside their kernels */
  if (w->moe_dispatcher == GB_MOE_ALLTOALL && l->ep > 1 && e / l->ep > 1)
    perm_bytes += 4 * k * h * ACT_BYTES_MOE;
  /* router: the h x E logits GEMM (2 h E FLOPs a pass), then score function, top-k and the auxiliary
   * statistics over E FP32 scores (about four reads and writes of them) */
  double router_flops = 2 * h * e, router_bytes = 4 * 4 * e;
  double replicated = w->sequence_parallel ? 1 : l->tp; /* without sequence parallel every TP rank routes all */
  double tokens = w->tokens_per_step * replicated * w->moe_layers * passes / (double)l->n * l->stage_pace;
  double imb = gb_term_moe_imbalance(w);
  *router = tokens * (router_flops / (f->gemm_base * eta) + router_bytes / f->bw);
  return tokens * imb * perm_bytes / f->bw;
}

double gb_term_moe_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                           const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  int ep = l->ep;
  if (ep <= 1) return 0;
  /* bytes a token's hidden state takes: FP8 dispatch (DeepEP, HybridEP) with a BF16 combine when training in a
   * low precision, BF16 both ways otherwise */
  bool nccl = w->moe_dispatcher == GB_MOE_ALLTOALL; /* BF16 both ways, a copy per expert */
  double elem = !nccl && gb_workload_elem_bytes(w->precision) < 2 ? 1.5 : 2;
  double k = w->moe_top_k;
  /* tokens a GPU dispatches per step: its share of its replica's tokens, once per MoE layer of its stage */
  double tokens = l->tokens_dp / (l->cp * l->tp) * (w->moe_layers / l->pp);
  /* dispatch and combine run in the forward, again in their gradients, and once more when full recompute reruns
   * the forward (the layer's checkpoint holds its input, not the dispatched tokens) */
  double passes = 2 + (w->recompute ? 1 : 0);
  double per_copy = tokens * w->hidden_size * elem * 2 /* dispatch + combine */ * passes;
  /* EP ranks are consecutive: expert parallelism folds over the tp x cp (x dp) ranks of a stage (Megatron-Core's
   * MoE Parallel Folding, expert TP 1), so a domain holds min(domain, ep) of them */
  int in_domain = l->domain;
  if (in_domain < 1) in_domain = 1;
  if (in_domain > ep) in_domain = ep;
  double domains = ceil((double)ep / in_domain);
  /* NVLink: every copy that leaves the GPU crosses NVLink once (directly, or forwarded in the far domain) */
  double nvl_bytes = per_copy * k * (ep - 1.0) / ep;
  /* inside the domain: the measured alltoall busbw at this many ranks and one micro-batch's dispatch (nccl-tests'
   * busbw = bytes to the other ranks over time), else the all-reduce curve's */
  double msg = l->micro_tokens / (l->cp * l->tp) * w->hidden_size * elem * k;
  double bw_nvl = INFINITY;
  if (in_domain >= 2) {
    bw_nvl = gb_perf_coll_gbps(t, "alltoall", in_domain, msg) * f->comm_scale;
    if (!isfinite(bw_nvl))
      bw_nvl = gb_term_busbw_node(perf, t, in_domain, in_domain, l->gpn, 1e8, o, l->node_gbps, f->comm_scale, proj);
  }
  double t_nvl = nvl_bytes / (bw_nvl * 1e9);
  /* NICs: one copy per other domain the token has experts in (uniform routing over the domains) */
  double t_nic = 0;
  if (domains > 1) {
    double remote = nccl ? k * (ep - in_domain) / (double)ep : (domains - 1) * (1 - pow(1 - 1 / domains, k));
    double bw_nic = l->node_gbps * GB_NIC_EFFICIENCY / l->gpn;
    t_nic = per_copy * remote / (bw_nic * 1e9);
    *proj = true;
  }
  /* the busiest rank's NVLink traffic carries the imbalance I; a domain's NICs carry the sum over its in_domain
   * ranks, whose excess over the mean shrinks as the square root of the ranks summed (sums of independent
   * loads): 1 + (I - 1) / sqrt(in_domain) */
  double imb = gb_term_moe_imbalance(w);
  double imb_nic = 1 + (imb - 1) / sqrt((double)in_domain);
  return fmax(t_nvl * imb, t_nic * imb_nic); /* the tiers run at once */
}
