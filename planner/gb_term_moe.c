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
 * Formulas: docs/planner.md, "Mixture of experts". */
#include <math.h>

#include "gb_model.h"
#include "gb_plan_int.h"

#define TILE_M 128.0 /* rows of a Hopper/Blackwell GEMM tile (CUTLASS and cuBLAS 128 x N tiles) */

/* Tokens one expert gets per grouped GEMM (per micro-batch). */
static double tokens_per_expert(const gb_workload *w, const gb_layout *l) {
  return l->micro_tokens / (l->cp * l->tp) * l->ep * w->moe_top_k / w->experts;
}

/* Share of the dense GEMM rate an m x n x k product of the precision reaches:
 * roofline against the ridge rate / bandwidth, times tile fill in m. */
static double shape_eff(double m, double n, double k, double elem, const gb_figs *f) {
  double flops = 2 * m * n * k;
  double bytes = elem * (m * k + n * k) + 2 * m * n;
  double ridge = f->gemm / f->bw;
  double roof = fmin(1, flops / bytes / ridge);
  double tiles = ceil(m / TILE_M) * TILE_M;
  return roof * (m / tiles);
}

double gb_term_moe_compute_factor(const gb_workload *w, const gb_perf_type *t, const gb_layout *l, const gb_figs *f) {
  if (isnan(w->experts) || w->experts <= 1) return 1;
  double m = fmax(1, tokens_per_expert(w, l));
  double h = w->hidden_size, ffn = w->expert_ffn_hidden;
  double elem = gb_workload_elem_bytes(w->precision);
  /* gate and up fused (n = 2 ffn, k = hidden), down (n = hidden, k = ffn): time over FLOPs, harmonic; a measured
   * grouped GEMM at the shape (bench gemm, grouped_<dtype>) over the dense rate wins over the model */
  double e_up = shape_eff(m, 2 * ffn, h, elem, f), e_down = shape_eff(m, h, ffn, elem, f);
  double g_up = gb_perf_grouped_tflops(t, w->precision, m, 2 * ffn, h);
  double g_down = gb_perf_grouped_tflops(t, w->precision, m, h, ffn);
  if (isfinite(g_up) && isfinite(g_down) && t->gemm_tflops > 0)
    e_up = fmin(1, g_up / t->gemm_tflops), e_down = fmin(1, g_down / t->gemm_tflops);
  double inv = (2.0 / e_up + 1.0 / e_down) / 3.0;
  double flops = 6 * 3 * h * ffn * w->moe_top_k * w->layers; /* SwiGLU: 3 matrices, forward + backward */
  double share = fmin(1, flops / w->flops_per_token);
  const gb_arch_model *a = t->model ? t->model : gb_arch_model_find("");
  double g = gb_model_at_size(a->gemm_share, w->active_params);
  return 1 + g * share * (inv - 1);
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
  /* tokens a GPU dispatches per step: its share of its replica's tokens */
  double tokens = l->tokens_dp / (l->cp * l->tp) * (w->layers / l->pp);
  double per_copy = tokens * w->hidden_size * elem * 2 /* dispatch + combine */ * 2 /* forward + backward */;
  /* EP ranks sit tp apart; those in one NVLink domain talk over it */
  int in_domain = l->domain / l->tp;
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
  return fmax(t_nvl, t_nic); /* the tiers run at once */
}
