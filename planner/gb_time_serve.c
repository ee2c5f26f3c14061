/* Serving: the time model of an inference service. A replica of r GPUs
 * decodes a batch per step (weights streamed once, each sequence's KV cache
 * read, prompts prefilled, tensor-parallel all-reduces); the batch is the
 * largest that fits and meets the latency limit. Formulas: docs/planner.md,
 * "Inference". */
#include <math.h>
#include <string.h>

#include "gb_model.h"
#include "gb_plan_int.h"

/* One decode step of a replica of r GPUs at batch b: seconds, and its parts. */
typedef struct step {
  double total, gemm, attn, prefill, comm, weights, floor;
} step;

/* Kernels one decoder layer runs per decode step in a serving engine with fused kernels (vLLM, SGLang): input
 * RMSNorm, QKV GEMM, rotary + KV-cache write, attention, output GEMM, residual + RMSNorm, gate/up GEMM, SiLU x up,
 * down GEMM (the all-reduces are the communication term's). A MoE layer's FFN runs router GEMM, top-k, token
 * alignment, the gate/up grouped GEMM, activation, the down grouped GEMM and the weighted sum (vLLM fused_moe):
 * 7 for the dense FFN's 3, and a shared expert's 3 more. */
#define DENSE_LAYER_KERNELS 9.0
#define MOE_FFN_EXTRA_KERNELS 4.0
/* A short kernel's cost inside a CUDA graph when no decode row measured it: 3.4 us a kernel (NVIDIA, "Getting
 * Started with CUDA Graphs", developer.nvidia.com/blog/cuda-graphs: a 2.9 us kernel launched back to back in a
 * graph). HIP graphs on CDNA3: 3.0 us, fitted on the calibration fit half's seven MI300X serving runs (least
 * squares in log ratio, flat from 2.8 to 3.2: Oracle's vLLM Llama 3.1 405B FP8 TP 8 at batch 1 and 256, ROCm
 * vLLM 0.10's Llama 3.1 70B and 405B at batch 1-4); the 405B batch-1 run alone gave 6.6, which a 70B on the same
 * stack showed to overstate the per-layer cost (docs/planner.md, "Serving floor"). */
#define KERNEL_US_NVIDIA 3.4
#define KERNEL_US_AMD 3.0
/* The serving engine's own time a decode step waits on: scheduling, input preparation, sampling and
 * detokenization on the host ("the CPU overhead for tasks like ... scheduling work, preparing inputs,
 * de-tokenizing outputs ... becomes increasingly pronounced ... with smaller models", vLLM V1 blog,
 * blog.vllm.ai/2025/01/27/v1-alpha-release.html). 2.30 ms a step: fitted on the calibration fit half's NVIDIA
 * batch-1 runs (least squares in log ratio over tt-gpu-qwen3-30b-a3b-a100-c1, tt-gpu-qwen3-1.7b-a100-c1 and
 * tt-gpu-qwen3-4b-rtx4090-c1; docs/planner.md, "Serving floor"). */
#define ENGINE_STEP_S 2.30e-3
/* The share of the HBM figure a grouped GEMM streams its experts' weights at when the weights bound it: 0.92, the
 * median of measured / roofline over the H100 sweep's seven shapes at m = 128 (data/measured/grouped/, bf16:
 * 0.89 for 768 x 2048 to 0.94 for 4096 x 14336, against the planner's 795.7 TFLOP/s and 3089 GB/s). At decode
 * sizes (4-16 rows an expert, TP 8 slices of DeepSeek-V3 and Qwen3-235B, whole experts) the same kernels stream
 * 0.75-1.01 of STREAM's copy on the same H100, median 0.95 (docs/perf-notes-gemm.md, "At decode sizes"). */
#define GROUPED_BW_SHARE 0.92
/* MoE kernels at decode size tile their rows by 16 (vLLM fused_moe's smallest BLOCK_SIZE_M). */
#define SERVE_TILE_M 16.0

/* Seconds of fixed cost of one decode step: kernels per layer x one kernel's cost inside a CUDA graph (the decode
 * row launch_graph when measured, else the vendor's default) x layers, and the engine's step. */
static double layer_floor_s(const gb_workload *w, const gb_perf_type *t) {
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find(t->spec->arch);
  double us = isfinite(t->launch_graph_us) && t->launch_graph_us > 0 ? t->launch_graph_us
              : strcmp(m->vendor, "amd") == 0                          ? KERNEL_US_AMD
                                                                       : KERNEL_US_NVIDIA;
  double kernels = w->layers * DENSE_LAYER_KERNELS;
  if (!isnan(w->experts) && w->experts > 1)
    kernels += w->moe_layers * (MOE_FFN_EXTRA_KERNELS + (w->shared_experts > 0 ? 3 : 0));
  return kernels * us * 1e-6 + ENGINE_STEP_S;
}

/* Bandwidth the weights stream at in a decode step of batch b on r GPUs: the measured GEMV at the precision and
 * the FFN projection's shape (n = FFN width / r, k = hidden) over its bytes, else the HBM figure. */
static double weights_bw(const gb_workload *w, const gb_perf_type *t, const gb_figs *f, int r, double b) {
  double h = w->hidden_size;
  double ffn = !isnan(w->experts) && w->experts > 1 ? w->expert_ffn_hidden
               : isnan(w->ffn_hidden)               ? 4 * h
                                                    : w->ffn_hidden;
  double n = fmax(1, ffn / r), sec = gb_perf_gemv_seconds(t, w->precision, b, n, h);
  return isfinite(sec) && sec > 0 ? fmin(f->bw, n * h * gb_workload_elem_bytes(w->precision) / sec) : f->bw;
}

/* Seconds of the FLOPs of `tokens` tokens through the model on r GPUs at rate: the routed experts' share at the
 * grouped-GEMM efficiency of the GEMMs they run in, `batch` tokens a GEMM (batch x top_k / experts tokens per
 * expert), on the busiest rank's load. */
static double flops_s(const gb_workload *w, const gb_perf_type *t, const gb_figs *f, double tokens, double batch,
                      double rate) {
  double all = 2 * w->active_params * tokens;
  if (isnan(w->experts) || w->experts <= 1) return all / rate;
  double expert = fmin(all, 2 * 3 * w->hidden_size * w->expert_ffn_hidden * w->moe_top_k * w->moe_layers * tokens);
  double e = gb_term_moe_expert_eff(w, t, f, batch * w->moe_top_k / w->experts, SERVE_TILE_M, false);
  if (!isfinite(expert) || !(e > 0)) return all / rate; /* the shape is not given: the dense rate */
  return (all - expert) / rate + expert * gb_term_moe_imbalance(w) / (rate * e);
}

/* Seconds of the causal attention of `prompts` prompts of `lin` tokens each, prefilled whole on r GPUs: QK^T and
 * AV, 4 x hidden FLOPs a token and earlier token a layer, halved by the causal mask, 2 layers lin^2 hidden a
 * prompt without a sliding window (the forward of training's attention FLOPs, gb_workload_attn_fwd_flops), at
 * the architecture's fused attention kernel's share of the BF16 peak (attn_fused: FlashAttention-3 / cuDNN
 * class; the engines' prefill kernels). */
static double prefill_attn_s(const gb_workload *w, const gb_perf_type *t, const gb_figs *f, double prompts,
                             double lin, int r) {
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find(t->spec->arch);
  double flops = prompts * gb_workload_attn_fwd_flops(w, lin);
  return flops / (r * f->gemm_base / m->gemm_typical * m->attn_fused);
}

/* Start-up latency of one all-reduce over r GPUs of a node, seconds, from
 * the collective library's own tuning model for a ring with the LL protocol
 * (src/graph/tuning.cc): baseLat, then 2 (r - 1) steps of hwLat. NCCL
 * (NVIDIA): baseLat 6.6 us, hwLat 0.6 us over NVLink, 1.0 us over PCIe.
 * RCCL (AMD, ROCm/rccl's rcclTuningModel): baseLat 12 us, hwLat 0.8 us over
 * xGMI (RCCL's NVLINK class), 2.2 us over PCIe. Decode all-reduces are
 * small, so this term, not the bus bandwidth, sets their cost; it is paid
 * twice per layer per step. */
static double allreduce_latency_s(const gb_perf_type *t, int r) {
  const double pcie_gbps = 128; /* PCIe 5.0 x16, both directions */
  bool link = t->spec->interconnect_gbps > pcie_gbps;
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find(t->spec->arch);
  bool rccl = strcmp(m->vendor, "amd") == 0;
  double base = rccl ? 12.0 : 6.6;
  double hop = rccl ? (link ? 0.8 : 2.2) : (link ? 0.6 : 1.0);
  return (base + 2.0 * (r - 1) * hop) * 1e-6;
}

/* Share of a mixture-of-experts model's weights that one decode step reads
 * at batch b: the dense part always, each routed expert when at least one
 * of the b sequences is routed to it. With E experts and top-k routing
 * spread evenly, an expert is untouched with probability (1 - k/E)^b. The
 * routed weights follow from params = dense + routed and active = dense +
 * routed k/E. 1 for a dense model. */
static double moe_weight_share(const gb_workload *w, double b, double *routed_share) {
  double e = w->experts, k = w->moe_top_k;
  *routed_share = 0;
  if (isnan(e) || e <= k || w->params <= w->active_params) return 1;
  double routed = (w->params - w->active_params) * e / (e - k);
  if (routed > w->params) routed = w->params;
  double touched = 1 - pow(1 - k / e, b);
  *routed_share = routed * touched / w->params;
  return (w->params - routed + routed * touched) / w->params;
}

/* Whether the replica's attention is data-parallel over its r GPUs (attention_dp), each GPU running its own
 * sequences' attention and caching their KV, with the routed experts split over the GPUs. */
static bool dp_attention(const gb_workload *w, int r) { return w->attention_dp && r > 1; }

/* Copies of the KV cache a replica of r GPUs holds: tensor parallelism splits the cache by KV head, and once r
 * passes kv_heads each head is held whole on r / kv_heads ranks (vLLM, SGLang, TensorRT-LLM replicate the heads;
 * DeepSeek's MLA caches one latent a token that every rank holds: kv_heads 1). Data-parallel attention caches
 * each sequence once. */
static double kv_copies(const gb_workload *w, int r) { return dp_attention(w, r) ? 1 : fmax(1, r / w->kv_heads); }

/* Bytes of weights a replica of r GPUs holds: the model once, or with data-parallel attention the non-expert
 * weights on every GPU and the routed experts once. */
static double replica_weight_bytes(const gb_workload *w, int r) {
  if (!dp_attention(w, r)) return w->model_bytes;
  double routed;
  moe_weight_share(w, INFINITY, &routed); /* every expert touched: the routed experts' share of params */
  return w->model_bytes * ((1 - routed) * r + routed);
}

/* Seconds a decode step of batch b spends in a data-parallel-attention replica's all-to-alls: in each MoE layer
 * the tokens of a GPU (its b / r decoded and its share of the prompts prefilled) go to their top_k experts and
 * come back, BF16, the copies to experts on the other r - 1 GPUs crossing the links (a copy per expert, as the
 * training all-to-all counts them, gb_term_moe.c); at the measured alltoall bus bandwidth, else the all-reduce
 * curve's, each with the collective's start-up latency. */
static double dp_alltoall_s(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int r, int gpn,
                            double b, const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  double tokens = b / r * (1 + w->prompt_tokens / w->output_tokens);
  double bytes = tokens * w->moe_top_k * w->hidden_size * 2 * (r - 1.0) / r;
  double msg = b / r * w->moe_top_k * w->hidden_size * 2;
  double bw = gb_perf_coll_gbps(t, "alltoall", r, msg) * f->comm_scale;
  if (!isfinite(bw)) bw = gb_term_busbw(perf, t, r, r, gpn, msg, o, f->comm_scale, proj);
  return 2 * w->moe_layers * (allreduce_latency_s(t, r) + bytes / (bw * 1e9));
}

static step decode_step(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int r, int gpn, double b,
                        double eta, const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  step s;
  double rate = r * f->gemm * eta, bw = r * f->bw;
  double lin = w->prompt_tokens, lout = w->output_tokens;
  double kv_avg = w->kv_read_bytes;
  /* the routed experts' weights stream at the grouped kernels' share of the bandwidth */
  double routed, share = moe_weight_share(w, b, &routed);
  /* data-parallel attention: every GPU streams the non-expert weights whole, and whole experts (no TP slices) */
  bool dp = dp_attention(w, r);
  s.weights = w->model_bytes * ((share - routed) * (dp ? r : 1) + routed / GROUPED_BW_SHARE) /
              (r * weights_bw(w, t, f, dp ? 1 : r, b));
  s.gemm = fmax(flops_s(w, t, f, b, b, rate), s.weights); /* weights stream once per step */
  /* each sequence reads its KV cache: at the measured KV read's bandwidth, else HBM's */
  double kv_bw = isfinite(t->kv_gbps) && t->kv_gbps > 0 ? r * t->kv_gbps * 1e9 : bw;
  s.attn = b * kv_avg * kv_copies(w, r) / kv_bw;
  /* prompts of the requests that start, b / lout a step, each prefilled whole (its lin tokens in one GEMM) */
  s.prefill = flops_s(w, t, f, b / lout * lin, lin, rate) + prefill_attn_s(w, t, f, b / lout, lin, r);
  s.floor = layer_floor_s(w, t);
  s.comm = 0;
  if (dp) {
    s.comm = dp_alltoall_s(w, perf, t, r, gpn, b, o, f, proj);
  } else if (r > 1) {
    double bytes = b * w->hidden_size * 2;
    double bwc = gb_term_busbw(perf, t, r, r, gpn, bytes, o, f->comm_scale, proj) * 1e9;
    /* 2 all-reduces per layer, each with its start-up latency; their bytes for each decoded token and each
     * prefilled one (chunked prefill rides in the same forward pass) */
    s.comm = 2 * w->layers * (allreduce_latency_s(t, r) + 2.0 * (r - 1) / r * bytes / bwc * (1 + lin / lout));
  }
  s.total = s.gemm + s.attn + s.prefill + s.comm + s.floor;
  return s;
}

void gb_time_inference(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                       const gb_plan_opts *o, const gb_figs *f, gb_plan_time *out) {
  const double have = t->spec->memory_gb * 1e9 * w->usable_memory_fraction;
  int in_node = n < gpn ? n : gpn;
  int r = (int)w->tensor_parallel;
  if (r == 0) {
    r = 1;
    double b1 = w->batch_size > 0 ? w->batch_size : 1;
    while (r < in_node && (replica_weight_bytes(w, r) + b1 * w->kv_bytes_per_sequence * kv_copies(w, r)) / r > have)
      r *= 2;
  }
  const double kv = w->kv_bytes_per_sequence * kv_copies(w, r); /* a sequence's cache over the replica's GPUs */
  const double weights = replica_weight_bytes(w, r);
  if (r > in_node || n % r) {
    if (r > in_node && (int)w->tensor_parallel == 0) {
      out->reject = GB_REJECT_MEMORY, out->need = (weights + kv) / in_node / 1e9, out->have = have / 1e9;
    } else {
      out->reject = GB_REJECT_LAYOUT, out->need = r, out->have = n;
    }
    return;
  }
  double room = have * r - weights;
  double bmax = kv > 0 ? floor(room / kv) : w->max_batch;
  if (bmax > w->max_batch) bmax = w->max_batch;
  double b = w->batch_size > 0 ? w->batch_size : bmax;
  if (room <= 0 || b > bmax || b < 1) {
    out->reject = GB_REJECT_MEMORY;
    out->need = (weights + (b < 1 ? 1 : b) * kv) / r / 1e9, out->have = have / 1e9;
    return;
  }
  double eta = gb_term_eff(t, w->active_params, o, true);
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
  out->ttft_ms = (flops_s(w, t, f, w->prompt_tokens, w->prompt_tokens, r * f->gemm * eta) +
                  prefill_attn_s(w, t, f, 1, w->prompt_tokens, r) + s.total) *
                 1e3;
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
  /* the floor is decode's latency side: with the memory-bound part of the step */
  out->memory_hours = busy * (s.attn + (weight_bound ? s.gemm : 0) + s.floor) / s.total;
  out->comm_hours = busy * s.comm / s.total;
  /* tensor parallelism's all-reduces, or data-parallel attention's MoE all-to-alls */
  if (dp_attention(w, r)) out->a2a_hours = out->comm_hours;
  else out->tp_hours = out->comm_hours;
  out->floor_hours = busy * s.floor / s.total;
  if (!isnan(w->experts) && w->experts > 1) {
    out->expert_eff = gb_term_moe_expert_eff(w, t, f, b * w->moe_top_k / w->experts, SERVE_TILE_M, false);
    out->moe_imbalance = gb_term_moe_imbalance(w);
  }
  out->hours = w->serve_hours + w->fixed_hours;
}

