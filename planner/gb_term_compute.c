/* Step-time term: compute. Three parts, each at the rate of what bounds it:
 * - the linear layers' GEMMs (6 N a token): model FLOPs over the GPUs' GEMM
 *   rate at the efficiency factor; a low precision (FP8, MXFP8, FP4) speeds
 *   up the GEMM share of the FLOPs that runs in it, at the type's measured
 *   or datasheet rate for that precision;
 * - causal attention (QK^T and AV): at the share of the dense peak the
 *   attention kernel reaches (gb_model.h attn_fused / attn_fa2), below a
 *   GEMM's: softmax, masking and the online rescale sit between its MMAs;
 * - element-wise work (norms, residual adds, rotary embedding, the SwiGLU
 *   activation, their gradients): bound by HBM bandwidth, not FLOPs.
 * Recompute repeats the forward (1/3 of each part) it covers.
 * Formulas: docs/planner.md, "Compute". */
#include <math.h>
#include <string.h>

#include "gb_model.h"
#include "gb_plan_int.h"

/* Element-wise HBM traffic of one token through one layer, forward and
 * backward, in activation elements: the forward reads and writes about 12
 * hidden-wide vectors (two RMSNorms 2 each, two residual adds 3 each, rotary
 * on q and k 2) and 3 FFN-wide ones (SwiGLU reads gate and up, writes their
 * product); the backward moves about twice that (Korthikanti et al. 2022,
 * arXiv 2205.05198, Sec. 4.1 lists the same tensors as stored activations). */
#define ELEM_HIDDEN (3 * 12.0)
#define ELEM_FFN (3 * 3.0)
#define ACT_BYTES 2.0 /* BF16 activations */
#define ATTN_BWD_FWDS 2.5 /* a fused attention backward: five matmuls to the forward's two */

double gb_term_eff(const gb_perf_type *t, double params, const gb_plan_opts *o, bool inference) {
  double k = o->efficiency_scale > 0 ? o->efficiency_scale : 1;
  if (isfinite(o->mfu)) return fmin(1.0, o->mfu * k);
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
  if (inference) return fmin(1.0, m->infer_eff * k);
  return fmin(1.0, gb_model_at_size(m->hfu, params) / m->gemm_typical * k);
}

double gb_term_block_scaled_eff(const gb_workload *w, const gb_perf_type *t) {
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
  return gb_workload_is_block_scaled(w->precision) && m->block_scaled_eff > 0 ? m->block_scaled_eff : 1;
}

/* FFN width a token goes through in a layer, the mean over the layers: the dense FFN, or in a MoE layer its
 * top-k routed experts and the shared ones (a MoE model's dense layers at ffn_hidden when given). */
static double ffn_width(const gb_workload *w) {
  double dense = isnan(w->ffn_hidden) ? 4 * w->hidden_size : w->ffn_hidden;
  if (isnan(w->experts) || w->experts <= 1) return dense;
  double moe = w->expert_ffn_hidden * (w->moe_top_k + w->shared_experts);
  if (isnan(w->ffn_hidden)) dense = moe;
  return (w->moe_layers * moe + (w->layers - w->moe_layers) * dense) / w->layers;
}

/* Bytes an element of a block-scaled format takes with its scale: MXFP8 one byte and an E8M0 scale a 32;
 * NVFP4 half a byte and an E4M3 scale a 16 (its FP32 tensor scale is one number); 0 for the others. */
static double block_scaled_bytes(const char *precision) {
  if (strcmp(precision, "mxfp8") == 0) return 1 + 1.0 / 32;
  if (strcmp(precision, "nvfp4") == 0) return 0.5 + 1.0 / 16;
  return 0;
}

/* HBM bytes a token's block-scaled casts move in one layer (docs/planner.md, "Blackwell"): every operand of
 * the linear layers' low-precision GEMMs is quantized per block along the GEMM's reduction dimension, which
 * differs between the forward and the two backward GEMMs, so each is cast in two layouts, each cast reading
 * BF16 and writing the format with its scales. Operands: the inputs (q/k/v, gate/up: hidden wide, whole on
 * every TP rank; out-projection: hidden; down-projection: FFN) and the output gradients (q/k/v: hidden + 2
 * kv; out and down projections: hidden, whole on every TP rank; gate/up: 2 FFN). A share below the linear
 * layers' scales it. */
static double cast_bytes_per_token_layer(const gb_workload *w, const gb_layout *l) {
  double q = block_scaled_bytes(w->precision);
  double attn = fmin(w->attention_flops_per_token, w->flops_per_token), lin = w->flops_per_token - attn;
  if (!(q > 0) || !(lin > 0)) return 0;
  double share = fmin(1, w->fp8_share * w->flops_per_token / lin);
  double kv = 2 * w->kv_heads * w->head_dim, ffn = ffn_width(w);
  double elems = 4 * w->hidden_size * l->tp + 2 * w->hidden_size + kv + 3 * ffn;
  return share * elems * 2 * (ACT_BYTES + q);
}

double gb_term_elementwise_seconds(const gb_workload *w, const gb_layout *l, const gb_figs *f) {
  /* the FFN-wide work splits over tensor parallelism with the FFN; the hidden-wide work (norms, residual adds)
   * runs whole on every tensor-parallel rank unless sequence parallelism splits it along the sequence
   * (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4.2.2) */
  double replicated = w->sequence_parallel ? 1 : l->tp;
  double per_token = (ELEM_HIDDEN * w->hidden_size * replicated + ELEM_FFN * ffn_width(w)) * ACT_BYTES * w->layers;
  if (w->recompute) per_token *= 4.0 / 3.0;
  per_token += cast_bytes_per_token_layer(w, l) * w->layers;
  return per_token * w->tokens_per_step / ((double)l->n * f->bw) * l->stage_pace;
}

/* The factor a low precision cuts GEMM time of FLOPs by when `share` of
 * them run in it: only the GEMM share of their time speeds up. */
static double low_precision_factor(const gb_workload *w, const gb_arch_model *m, const gb_figs *f, double share) {
  if (f->gemm == f->gemm_base) return 1;
  double s = gb_model_at_size(m->gemm_share, w->active_params) * fmin(1, share);
  return (1 - s) + s * f->gemm_base / f->gemm;
}

double gb_term_compute_seconds(const gb_workload *w, const gb_perf_type *t, const gb_layout *l, double eta,
                               const gb_figs *f) {
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
  double per_gpu = w->tokens_per_step / (double)l->n;
  double attn = fmin(w->attention_flops_per_token, w->flops_per_token), lin = w->flops_per_token - attn;
  /* full recompute runs the forward (1/3 of the work) again; selective recompute the attention's forward */
  double rc_lin = w->recompute ? 4.0 / 3.0 : 1.0, rc_attn = w->recompute || w->recompute_selective ? 4.0 / 3.0 : 1.0;
  double moe = gb_term_moe_compute_factor(w, t, l, f);
  if (l->whole_step_eff) /* a stated utilization covers the whole step: every FLOP at it */
    return (lin * rc_lin + attn * rc_attn) * per_gpu / (f->gemm_base * eta) * l->stage_pace * moe *
           low_precision_factor(w, m, f, w->fp8_share);
  /* the linear layers at BF16, then the low precision speeds up its share of their GEMM time */
  double t_lin = lin * rc_lin * per_gpu / (f->gemm_base * eta) * moe;
  if (lin > 0) t_lin *= low_precision_factor(w, m, f, w->fp8_share * w->flops_per_token / lin);
  /* attention at the kernel's share of the peak (the GEMM rate over the share of peak a GEMM reaches), on the
   * kernel's own work: its backward recomputes QK^T and runs 2.5 forwards' FLOPs, not 2 (FlashAttention,
   * arXiv 2205.14135 and 2307.08691, whose rates count it so); a recompute adds a forward */
  double share = w->attention_kernel == GB_ATTN_FA2 ? m->attn_fa2 : m->attn_fused;
  double fwd_units = 1 + ATTN_BWD_FWDS + (rc_attn > 1 ? 1 : 0);
  double t_attn = attn / 3 * fwd_units * per_gpu / (f->gemm_base / m->gemm_typical * share) / l->eff_scale;
  return (t_lin + t_attn) * l->stage_pace;
}
