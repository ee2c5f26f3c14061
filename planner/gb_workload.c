/* gb_workload: workload keys, the INI reader (core/gb_ini) and defaults. */
#include "gb_workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_desc.h"
#include "gb_ini.h"
#include "gb_num.h"

typedef enum key_type { K_NUM, K_BOOL, K_KIND, K_PRECISION, K_NAME, K_WINDOW, K_MONTHS, K_RECOMPUTE, K_CHOICE } key_type;

#define KT (1u << GB_WL_TRAINING)
#define KI (1u << GB_WL_INFERENCE)
#define KG (1u << GB_WL_GENERIC)
#define KALL (KT | KI | KG)

/* The share of TP communication hidden when the workload does not say: the value, on a 0.1 grid, with the
 * lowest mean |ln(predicted/published)| over the calibration fit half, both with each case's stated share
 * kept (0.2-0.3) and with every case at the default, as a workload that cannot say is planned (0.3):
 * docs/planner.md, "Training". */
#define TP_COMM_OVERLAP_DEFAULT 0.3

/* Every key: name, type, the kinds it applies to, where it goes, the accepted
 * range (min exclusive when min_open), whether it must be whole, the default
 * ("" = required or derived) and its meaning (for --help and the docs). */
typedef struct wl_key {
  const char *name;
  key_type type;
  unsigned kinds;
  size_t off;
  double min, max;
  bool min_open, whole;
  const char *dflt, *help;
} wl_key;

#define F(field) offsetof(gb_workload, field)
static const wl_key k_keys[] = {
    {"type", K_KIND, KALL, 0, 0, 0, false, false, "", "training, inference or generic"},
    {"name", K_NAME, KALL, F(name), 0, 0, false, false, "file name", "label shown in the plan"},
    {"precision", K_PRECISION, KALL, F(precision), 0, 0, false, false, "bf16",
     "fp64 fp32 tf32 fp16 bf16 fp8e4m3 fp8e5m2 mxfp8 nvfp4 (fp4) int8 (GEMM rows of this dtype are used; a "
     "type without it is refused)"},
    {"gemm_size", K_NUM, KALL, F(gemm_size), 1, 1e6, false, false, "8192",
     "representative GEMM edge m=n=k; measured shapes nearest it are interpolated"},
    {"gemm_window", K_WINDOW, KALL, F(gemm_sustained), 0, 0, false, false, "burst",
     "burst (GEMM rows tflops: a short burst after an idle) or sustained (tflops_sustained: a card kept busy "
     "under its power cap)"},
    {"fixed_hours", K_NUM, KALL, F(fixed_hours), 0, 1e5, false, false, "0",
     "hours added to every run: provisioning, data loading, checkpoints, eval"},
    {"usable_memory_fraction", K_NUM, KALL, F(usable_memory_fraction), 0, 1, true, false, "0.9",
     "share of device memory the job may fill (runtime, fragmentation)"},
    {"max_hours", K_NUM, KALL, F(max_hours), 0, 1e6, true, false, "none", "deadline in hours (--max-hours)"},
    {"budget_usd", K_NUM, KALL, F(budget_usd), 0, 1e12, true, false, "none", "budget in USD (--budget)"},
    {"params", K_NUM, KT | KI, F(params), 0, 1e15, true, false, "", "model parameters (MoE: all experts)"},
    {"active_params", K_NUM, KT | KI, F(active_params), 0, 1e15, true, false, "params",
     "MoE: parameters active per token (FLOPs, efficiency); memory holds params"},
    {"tensor_parallel", K_NUM, KT | KI, F(tensor_parallel), 1, 1024, false, true, "1 (inference: smallest that fits)",
     "tensor-parallel degree (inside a node; inference: GPUs per replica)"},
    {"pipeline_parallel", K_NUM, KT, F(pipeline_parallel), 1, 1024, false, true, "1",
     "pipeline-parallel degree (1F1B bubble (pp-1)/(virtual_pipeline x micro-batches))"},
    {"virtual_pipeline", K_NUM, KT, F(virtual_pipeline), 1, 128, false, true, "1",
     "interleaved 1F1B: model chunks per pipeline rank (layers must divide by pipeline_parallel x it)"},
    {"uneven_pipeline", K_BOOL, KT, F(uneven_pipeline), 0, 0, false, false, "false",
     "stages hold unequal layer counts (Megatron's pipeline layout, DualPipe): the fullest stage sets the pace"},
    {"context_parallel", K_NUM, KT, F(context_parallel), 1, 1024, false, true, "1",
     "context-parallel degree: the sequence split over GPUs, ring attention passes K and V around"},
    {"sequence_parallel", K_BOOL, KT, F(sequence_parallel), 0, 0, false, false, "false",
     "tensor-parallel activations split along the sequence (memory / tp; same communication volume)"},
    {"tp_comm_overlap", K_NUM, KT, F(tp_comm_overlap), 0, 1, false, false, GB_STR(TP_COMM_OVERLAP_DEFAULT),
     "share of the tensor-parallel communication hidden behind the layer's GEMMs: 1 for Transformer Engine's "
     "userbuffers (TP_COMM_OVERLAP, --tp-comm-overlap), 0.4 for torchtitan's async TP, 0 for none (docs/planner.md)"},
    {"distributed_optimizer", K_BOOL, KT, F(distributed_optimizer), 0, 0, false, false, "false",
     "ZeRO-1: optimizer state (12 of 16 bytes a parameter) sharded over data parallel"},
    {"expert_parallel", K_NUM, KT, F(expert_parallel), 1, 4096, false, true, "1",
     "MoE expert-parallel degree (all-to-all of routed tokens)"},
    {"attention_dp", K_BOOL, KI, F(attention_dp), 0, 0, false, false, "false",
     "MoE serving: attention data-parallel over the replica's tensor_parallel GPUs (TensorRT-LLM DEP, SGLang "
     "--enable-dp-attention): each runs its own sequences with the non-expert weights whole and caches their KV "
     "once; the routed experts are split over the GPUs, reached by an all-to-all"},
    {"moe_top_k", K_NUM, KT | KI, F(moe_top_k), 1, 64, false, true, "2", "MoE: experts each token is routed to"},
    {"experts", K_NUM, KT | KI, F(experts), 1, 65536, false, true, "none (dense)", "MoE: routed experts per MoE layer"},
    {"expert_ffn_hidden", K_NUM, KT | KI, F(expert_ffn_hidden), 1, 1e6, false, true, "ffn_hidden",
     "MoE: FFN width of one expert (grouped-GEMM shape)"},
    {"shared_experts", K_NUM, KT | KI, F(shared_experts), 0, 64, false, true, "0",
     "MoE: experts every token goes through (dense GEMMs, no all-to-all)"},
    {"moe_layers", K_NUM, KT | KI, F(moe_layers), 1, 1e5, false, true, "layers",
     "MoE: layers with routed experts; the others run a dense FFN (DeepSeek-V3: 58 of 61, Llama 4 Maverick: 24 "
     "of 48)"},
    {"sliding_window", K_NUM, KT | KI, F(sliding_window), 1, 1e8, false, true, "none (full attention)",
     "tokens a sliding-window attention layer attends to (gpt-oss 128, Gemma 3 1024, Mistral 7B v0.1 4096): its "
     "attention FLOPs and, serving, its KV cache stop growing there"},
    {"sliding_window_layers", K_NUM, KT | KI, F(sliding_window_layers), 0, 1e5, false, true, "layers",
     "layers with the sliding window (gpt-oss: 18 of 36; Gemma 3: 5 of every 6); the others attend to everything"},
    {"seq_len", K_NUM, KT, F(seq_len), 1, 1e7, false, true, "2048", "sequence length in tokens"},
    {"micro_batch", K_NUM, KT, F(micro_batch), 1, 1e6, false, true, "1", "sequences per micro-batch"},
    {"micro_batch_size", K_NUM, KT, F(micro_batch), 1, 1e6, false, true, "1", "same as micro_batch"},
    {"recompute", K_RECOMPUTE, KT, F(recompute), 0, 0, false, false, "false",
     "activation recompute: true (full: one more forward, 4/3 of the work), selective (attention's forward "
     "again) or false"},
    {"heads", K_NUM, KT | KI, F(heads), 1, 1e5, false, true, "hidden_size / 128", "attention heads"},
    {"kv_heads", K_NUM, KT | KI, F(kv_heads), 1, 1e5, false, true, "heads", "key/value heads (GQA)"},
    {"head_dim", K_NUM, KT | KI, F(head_dim), 1, 1e5, false, true, "hidden_size / heads",
     "width of an attention head: attention's FLOPs are heads x head_dim wide (Qwen3 and gpt-oss run wider than "
     "hidden_size; DeepSeek's MLA: 160, the mean of its 192-wide QK and 128-wide AV), and K and V kv_heads x "
     "head_dim"},
    {"ffn_hidden", K_NUM, KT | KI, F(ffn_hidden), 1, 1e7, false, true, "none", "dense FFN width"},
    {"vocab_size", K_NUM, KT | KI, F(vocab_size), 1, 1e8, false, true, "none",
     "vocabulary; its input embedding is a lookup, not FLOPs"},
    {"attention_kernel", K_CHOICE, KT, F(attention_kernel), 0, 0, false, false, "fused",
     "fused (cuDNN / FlashAttention-3 class, Transformer Engine) or fa2 (FlashAttention-2 class, PyTorch SDPA): "
     "the share of peak causal attention reaches (docs/planner.md, Compute)"},
    {"moe_dispatcher", K_CHOICE, KT, F(moe_dispatcher), 0, 0, false, false, "fused",
     "MoE: fused (DeepEP, HybridEP: FP8 dispatch, hierarchical, overlapped) or alltoall (NCCL AlltoAll: BF16, a "
     "copy per expert, not overlapped)"},
    {"moe_overlap", K_NUM, KT, F(moe_overlap), 0, 1, false, false, "--overlap (alltoall: 0)",
     "MoE: share of the dispatch/combine time hidden behind compute"},
    {"low_precision_share", K_NUM, KT, F(fp8_share), 0, 1, false, false, "the linear layers' share of FLOPs",
     "share of the FLOPs run in the precision's GEMMs (fp8, mxfp8, nvfp4; attention, the output head and the "
     "optimizer stay in BF16/FP32)"},
    {"moe_routing", K_CHOICE, KT | KI, F(moe_routing), 0, 0, false, false, "learned",
     "MoE: learned (a trained router: the busiest EP rank gets more than the mean, docs/planner.md) or balanced "
     "(force-balanced benchmark routing: every rank the mean)"},
    {"moe_capacity_factor", K_NUM, KT | KI, F(moe_capacity_factor), 1, 64, false, false, "none (dropless)",
     "MoE: tokens an expert takes at most, over the mean (the busiest rank's load is capped at it)"},
    {"fp8_share", K_NUM, KT, F(fp8_share), 0, 1, false, false, "the linear layers' share of FLOPs",
     "same as low_precision_share"},
    {"goodput", K_NUM, KT, F(goodput), 0, 1, true, false, "from the GPU count and the run's length",
     "share of wall time spent on useful steps (interruptions, restarts, evaluation, checkpoints; 1 = steady state)"},
    {"demand_base_gpus", K_NUM, KALL, F(demand_base_gpus), 0, 1e6, false, false, "none",
     "hybrid: GPUs in use all the time"},
    {"demand_peak_gpus", K_NUM, KALL, F(demand_peak_gpus), 0, 1e6, false, false, "0",
     "hybrid: extra GPUs in use at peaks"},
    {"demand_peak_fraction", K_NUM, KALL, F(demand_peak_fraction), 0, 1, false, false, "0",
     "hybrid: share of the time the peak lasts"},
    {"demand_gpu_hours_per_month", K_MONTHS, KALL, 0, 0, 1e9, false, false, "none",
     "hybrid: GPU-hours used in each month, comma-separated (up to 120 months)"},
    {"tokens", K_NUM, KT, F(tokens), 0, 1e17, true, false, "", "training tokens"},
    {"flops_per_token", K_NUM, KT, F(flops_per_token), 0, 1e18, true, false,
     "6 x (active_params - vocab x hidden) + 6 x layers x seq_len x hidden",
     "model FLOPs per token (forward + backward; causal attention)"},
    {"tokens_per_step", K_NUM, KT, F(tokens_per_step), 0, 1e12, true, false, "", "global batch in tokens"},
    {"grad_bytes", K_NUM, KT, F(grad_bytes), 0, 1e16, true, false, "params x bytes_per_grad_element",
     "gradient bytes all-reduced per step"},
    {"bytes_per_grad_element", K_NUM, KT, F(bytes_per_grad_element), 0, 16, true, false,
     "2 (4 for fp32/tf32, 8 for fp64)", "bytes per gradient element"},
    {"memory_bytes_per_param", K_NUM, KT, F(memory_bytes_per_param), 0, 1024, true, false, "16",
     "weights + gradients + optimizer state per parameter (16 = mixed-precision Adam)"},
    {"sharded", K_BOOL, KT, F(sharded), 0, 0, false, false, "false",
     "model state sharded across GPUs (FSDP/ZeRO-3: memory / n, communication x 1.5)"},
    {"activation_gb_per_gpu", K_NUM, KT, F(activation_gb_per_gpu), 0, 1e5, false, false, "0",
     "activation memory per GPU in GB"},
    {"bucket_bytes", K_NUM, KT, F(bucket_bytes), 0, 1e12, true, false, "25e6",
     "all-reduce message size (DDP bucket) for the busbw lookup"},
    {"model_bytes", K_NUM, KI, F(model_bytes), 0, 1e16, true, false, "params x precision bytes",
     "bytes of weights read per decode step"},
    {"tokens_per_second", K_NUM, KI, F(tokens_per_second), 0, 1e12, true, false, "",
     "output tokens per second to serve"},
    {"batch_size", K_NUM, KI, F(batch_size), 1, 1e6, false, true, "largest that fits",
     "sequences decoded together per replica"},
    {"batch", K_NUM, KI, F(batch_size), 1, 1e6, false, true, "largest that fits", "same as batch_size"},
    {"max_batch", K_NUM, KI, F(max_batch), 1, 1e6, false, true, "256",
     "most sequences a replica decodes at once (the serving engine's limit: vLLM max_num_seqs)"},
    {"prompt_tokens", K_NUM, KI, F(prompt_tokens), 0, 1e8, false, true, "0", "prompt tokens per request (prefill)"},
    {"output_tokens", K_NUM, KI, F(output_tokens), 1, 1e8, false, true, "256", "output tokens per request"},
    {"serve_hours", K_NUM, KI, F(serve_hours), 0, 1e6, true, false, "720", "hours of service to pay for"},
    {"kv_bytes_per_token", K_NUM, KI, F(kv_bytes_per_token), 0, 1e10, false, false, "0",
     "KV-cache bytes per token of context (alternative to kv_bytes_per_sequence)"},
    {"kv_bytes_per_sequence", K_NUM, KI, F(kv_bytes_per_sequence), 0, 1e13, false, false, "0",
     "KV-cache bytes per sequence (read every decode step, held in memory)"},
    {"layers", K_NUM, KT | KI, F(layers), 1, 1e5, false, true, "from params",
     "layers, for tensor-parallel and expert all-to-all traffic"},
    {"hidden_size", K_NUM, KT | KI, F(hidden_size), 1, 1e7, false, true, "from params",
     "hidden size, same use (params = 12 x layers x hidden^2, hidden = 128 x layers)"},
    {"max_token_latency_ms", K_NUM, KI, F(max_token_latency_ms), 0, 1e7, true, false, "none",
     "per-token latency limit of a decode step"},
    {"total_flops", K_NUM, KG, F(total_flops), 0, 1e30, true, false, "", "total FLOPs at the precision"},
    {"total_bytes", K_NUM, KG, F(total_bytes), 0, 1e30, false, false, "0", "total device-memory traffic in bytes"},
    {"allreduce_bytes", K_NUM, KG, F(allreduce_bytes), 0, 1e16, false, false, "0", "bytes per all-reduce"},
    {"allreduce_count", K_NUM, KG, F(allreduce_count), 0, 1e12, false, true, "0", "number of all-reduces"},
    {"memory_gb", K_NUM, KG, F(memory_gb), 0, 1e9, false, false, "0",
     "working set in GB, split evenly across the GPUs"},
};
#undef F
#define NKEYS (sizeof k_keys / sizeof k_keys[0])
_Static_assert(sizeof k_keys / sizeof k_keys[0] <= GB_WL_MAX_KEYS, "raise GB_WL_MAX_KEYS");

const char *gb_workload_kind_name(gb_workload_kind k) {
  switch (k) {
  case GB_WL_TRAINING: return "training";
  case GB_WL_INFERENCE: return "inference";
  case GB_WL_GENERIC: return "generic";
  default: return "none";
  }
}

void gb_workload_init(gb_workload *w) {
  memset(w, 0, sizeof *w);
  for (size_t i = 0; i < NKEYS; i++) {
    if (k_keys[i].type == K_NUM) *(double *)((char *)w + k_keys[i].off) = NAN;
  }
  for (size_t i = 0; i < GB_WL_MAX_KEYS; i++) w->key_line[i] = -1;
}

/* Index of a key, '-' read as '_'; -1 when unknown. */
static int key_index(const char *key) {
  char norm[64];
  size_t n = strlen(key);
  if (n >= sizeof norm) return -1;
  for (size_t i = 0; i <= n; i++) norm[i] = key[i] == '-' ? '_' : key[i];
  for (size_t i = 0; i < NKEYS; i++)
    if (strcmp(norm, k_keys[i].name) == 0) return (int)i;
  return -1;
}

bool gb_workload_is_key(const char *key) { return key_index(key) >= 0; }

/* The choices of each K_CHOICE key, index = stored value. */
static const char *const k_attn_choices[] = {"fused", "fa2", NULL};
static const char *const k_moe_choices[] = {"fused", "alltoall", NULL};
static const char *const k_routing_choices[] = {"learned", "balanced", NULL};

static gb_err set_choice(gb_workload *w, const wl_key *k, const char *value, const char *where) {
  const char *const *c = strcmp(k->name, "attention_kernel") == 0 ? k_attn_choices
                         : strcmp(k->name, "moe_routing") == 0    ? k_routing_choices
                                                                  : k_moe_choices;
  for (int i = 0; c[i]; i++)
    if (strcmp(value, c[i]) == 0) {
      *(int *)((char *)w + k->off) = i;
      return GB_OK;
    }
  return gb_fail(GB_E_INPUT, "%s: %s: \"%s\" is not %s or %s", where, k->name, value, c[0], c[1]);
}

gb_err gb_workload_set(gb_workload *w, const char *key, const char *value, const char *where, long line) {
  int i = key_index(key);
  if (i < 0)
    return gb_fail(GB_E_INPUT, "%s: %s: unknown key (see docs/planner.md or 'gpubench plan --help')", where, key);
  const wl_key *k = &k_keys[i];
  w->key_line[i] = line;
  switch (k->type) {
  case K_KIND:
    if (strcmp(value, "training") == 0) w->kind = GB_WL_TRAINING;
    else if (strcmp(value, "inference") == 0) w->kind = GB_WL_INFERENCE;
    else if (strcmp(value, "generic") == 0) w->kind = GB_WL_GENERIC;
    else return gb_fail(GB_E_INPUT, "%s: type: \"%s\" is not training, inference or generic", where, value);
    return GB_OK;
  case K_NAME:
    if (!*value || strlen(value) >= sizeof w->name)
      return gb_fail(GB_E_INPUT, "%s: name: must be 1 to %zu characters", where, sizeof w->name - 1);
    snprintf(w->name, sizeof w->name, "%s", value);
    return GB_OK;
  case K_PRECISION:
    if (!(gb_workload_elem_bytes(value) > 0) || strcmp(value, "int32") == 0)
      return gb_fail(GB_E_INPUT,
                     "%s: precision: \"%s\" is not one of fp64 fp32 tf32 fp16 bf16 fp8e4m3 fp8e5m2 mxfp8 nvfp4 fp4 "
                     "int8",
                     where, value);
    /* fp4 is NVFP4, the FP4 training and serving format of Blackwell (E2M1, an E4M3 scale per 16) */
    snprintf(w->precision, sizeof w->precision, "%s", strcmp(value, "fp4") == 0 ? "nvfp4" : value);
    return GB_OK;
  case K_WINDOW:
    if (strcmp(value, "burst") == 0) w->gemm_sustained = false;
    else if (strcmp(value, "sustained") == 0) w->gemm_sustained = true;
    else
      return gb_fail(GB_E_INPUT,
                     "%s: gemm_window: \"%s\" is not burst or sustained (the window gemm measured in: "
                     "gpubench run --opt gemm.window=...)",
                     where, value);
    return GB_OK;
  case K_BOOL: {
    bool *b = (bool *)((char *)w + k->off);
    if (strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0) *b = true;
    else if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0) *b = false;
    else return gb_fail(GB_E_INPUT, "%s: %s: \"%s\" is not true or false", where, k->name, value);
    return GB_OK;
  }
  case K_RECOMPUTE:
    w->recompute = w->recompute_selective = false;
    if (strcmp(value, "true") == 0 || strcmp(value, "full") == 0 || strcmp(value, "yes") == 0 ||
        strcmp(value, "1") == 0)
      w->recompute = true;
    else if (strcmp(value, "selective") == 0) w->recompute_selective = true;
    else if (strcmp(value, "false") != 0 && strcmp(value, "none") != 0 && strcmp(value, "no") != 0 &&
             strcmp(value, "0") != 0)
      return gb_fail(GB_E_INPUT, "%s: recompute: \"%s\" is not true, selective or false", where, value);
    return GB_OK;
  case K_MONTHS: {
    w->ndemand_months = 0;
    const char *p = value;
    while (*p) {
      char item[64];
      size_t len = strcspn(p, ",");
      if (len == 0 || len >= sizeof item)
        return gb_fail(GB_E_INPUT, "%s: %s: empty or overlong item in \"%s\"", where, k->name, value);
      memcpy(item, p, len);
      item[len] = '\0';
      double v;
      if (!gb_parse_double(item, &v) || v < 0 || v > k->max)
        return gb_fail(GB_E_INPUT, "%s: %s: \"%s\" is not a number of GPU-hours from 0 to %g", where, k->name, item,
                       k->max);
      if (w->ndemand_months == GB_WL_MAX_MONTHS)
        return gb_fail(GB_E_INPUT, "%s: %s: more than %d months", where, k->name, GB_WL_MAX_MONTHS);
      w->demand_months[w->ndemand_months++] = v;
      p += len;
      if (*p == ',') p++;
    }
    if (!w->ndemand_months) return gb_fail(GB_E_INPUT, "%s: %s: no months given", where, k->name);
    return GB_OK;
  }
  case K_CHOICE: return set_choice(w, k, value, where);
  case K_NUM: break;
  }
  double v;
  if (!gb_parse_double(value, &v))
    return gb_fail(GB_E_INPUT, "%s: %s: not a number: \"%s\"", where, k->name, value);
  if (k->min_open ? v <= k->min : v < k->min)
    return gb_fail(GB_E_INPUT, "%s: %s: must be %s %g: %s", where, k->name, k->min_open ? ">" : ">=", k->min, value);
  if (v > k->max) return gb_fail(GB_E_INPUT, "%s: %s: absurd value %s (above %g)", where, k->name, value, k->max);
  if (k->whole && v != floor(v)) return gb_fail(GB_E_INPUT, "%s: %s: must be a whole number: %s", where, k->name, value);
  *(double *)((char *)w + k->off) = v;
  return GB_OK;
}

/* ---- INI through core/gb_ini (lines up to 64 KiB, each with its number) ---- */

typedef struct ini_ctx {
  gb_workload *w;
  const char *name;
  gb_err err;
} ini_ctx;

static int wl_ini_handler(void *user, const char *section, const char *key, const char *value, long line) {
  ini_ctx *c = user;
  if (c->err) return 0;
  if (*section && strcmp(section, "workload") != 0) {
    c->err = gb_fail(GB_E_INPUT, "%s:%ld: [%s]: unknown section (use [workload] or none)", c->name, line, section);
    return 0;
  }
  char where[600];
  snprintf(where, sizeof where, "%s:%ld", c->name, line);
  int i = key_index(key);
  if (i >= 0 && c->w->key_line[i] > 0) {
    c->err = gb_fail(GB_E_INPUT, "%s: %s: given twice (first on line %ld)", where, key, c->w->key_line[i]);
    return 0;
  }
  c->err = gb_workload_set(c->w, key, value, where, line);
  return c->err ? 0 : 1;
}

static gb_err read_src(const char *name, int rc, ini_ctx *c, gb_workload *w) {
  if (c->err) return c->err;
  if (rc == GB_INI_REPORTED) return GB_E_INPUT; /* gb_ini's message, naming file:line */
  if (rc == -2) return gb_fail(GB_E_NOMEM, "%s: out of memory", name);
  if (rc > 0) return gb_fail(GB_E_INPUT, "%s:%d: syntax error: expected key = value or [workload]", name, rc);
  if (rc < 0) return gb_fail(GB_E_IO, "%s: cannot open the workload file: %s", name, strerror(errno));
  snprintf(w->origin, sizeof w->origin, "%s", name);
  if (!w->name[0]) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    snprintf(w->name, sizeof w->name, "%.*s", (int)strcspn(base, "."), base);
  }
  return GB_OK;
}

gb_err gb_workload_read(const char *path, gb_workload *w) {
  /* a directory (or FIFO) is refused by name */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return gb_fail(GB_E_IO, "%s: not a regular file; give a workload .ini file", path);
  ini_ctx c = {w, path, GB_OK};
  return read_src(path, gb_ini_parse(path, wl_ini_handler, &c), &c, w);
}

gb_err gb_workload_read_mem(const char *name, const char *text, gb_workload *w) {
  ini_ctx c = {w, name, GB_OK};
  return read_src(name, gb_ini_parse_mem(name, text, strlen(text), wl_ini_handler, &c), &c, w);
}

/* Sets a number to its default when unset. */
static void dflt(double *v, double d) {
  if (isnan(*v)) *v = d;
}

/* "file:line" or "--key" for a message about key i. */
static void key_where(const gb_workload *w, int i, char *buf, size_t n) {
  if (w->key_line[i] > 0) snprintf(buf, n, "%s:%ld", w->origin, w->key_line[i]);
  else snprintf(buf, n, "--%s", k_keys[i].name);
}

bool gb_workload_is_low_precision(const char *precision) {
  return strncmp(precision, "fp8", 3) == 0 || strcmp(precision, "mxfp8") == 0 || strcmp(precision, "nvfp4") == 0 ||
         strcmp(precision, "fp4") == 0;
}

bool gb_workload_is_block_scaled(const char *precision) {
  return strcmp(precision, "mxfp8") == 0 || strcmp(precision, "nvfp4") == 0 || strcmp(precision, "fp4") == 0;
}

double gb_workload_elem_bytes(const char *precision) {
  if (strcmp(precision, "mxfp8") == 0) return 1; /* one byte an element; the E8M0 scale of 32 is 3% more */
  /* four bits an element plus an E4M3 scale of 16: 4.5 bits */
  if (strcmp(precision, "nvfp4") == 0 || strcmp(precision, "fp4") == 0) return 0.5625;
  return gb_dtype_bytes(precision);
}

/* A dense transformer's shape when not given: params = 12 layers hidden^2
 * with hidden = 128 layers; heads of 128; as many KV heads as heads. */
static void finish_shape(gb_workload *w) {
  if (isnan(w->hidden_size))
    w->hidden_size =
        fmax(1, isnan(w->layers) ? round(cbrt(w->params * 128 / 12)) : round(sqrt(w->params / (12 * w->layers))));
  if (isnan(w->layers)) w->layers = fmin(1e5, fmax(1, round(w->params / (12 * w->hidden_size * w->hidden_size))));
  dflt(&w->heads, fmax(1, round(w->hidden_size / 128)));
  dflt(&w->kv_heads, w->heads);
  dflt(&w->head_dim, w->hidden_size / w->heads);
}

/* The layers with routed experts: all of them unless the workload says (a model whose first layers, or every
 * other one, run a dense FFN); at most `layers`, and only for a mixture of experts. */
static gb_err finish_moe_layers(gb_workload *w) {
  char where[600];
  if (!isnan(w->moe_layers)) {
    key_where(w, key_index("moe_layers"), where, sizeof where);
    if (isnan(w->experts) || w->experts <= 1) return gb_fail(GB_E_INPUT, "%s: moe_layers: needs experts", where);
    if (w->moe_layers > w->layers)
      return gb_fail(GB_E_INPUT, "%s: moe_layers: %g is more than layers %g", where, w->moe_layers, w->layers);
  }
  if (w->attention_dp && (isnan(w->experts) || w->experts <= 1)) {
    key_where(w, key_index("attention_dp"), where, sizeof where);
    return gb_fail(GB_E_INPUT, "%s: attention_dp: needs experts (a dense model's data-parallel replicas are "
                               "tensor_parallel = 1)", where);
  }
  dflt(&w->moe_layers, w->layers);
  return GB_OK;
}

/* The sliding window: given, on every layer unless sliding_window_layers says how many; none, no layer. */
static gb_err finish_window(gb_workload *w) {
  char where[600];
  if (!isnan(w->sliding_window_layers)) {
    key_where(w, key_index("sliding_window_layers"), where, sizeof where);
    if (isnan(w->sliding_window))
      return gb_fail(GB_E_INPUT, "%s: sliding_window_layers: needs sliding_window", where);
    if (w->sliding_window_layers > w->layers)
      return gb_fail(GB_E_INPUT, "%s: sliding_window_layers: %g is more than layers %g", where,
                     w->sliding_window_layers, w->layers);
  }
  dflt(&w->sliding_window_layers, isnan(w->sliding_window) ? 0 : w->layers);
  return GB_OK;
}

/* Sum over a sequence's len positions of the tokens each attends to in a layer with window `win`: len^2 / 2
 * (the causal triangle), or win len - win^2 / 2 once len passes the window. */
static double attended(double len, double win) {
  return isnan(win) || len <= win ? len * len / 2 : win * len - win * win / 2;
}

double gb_workload_attn_fwd_flops(const gb_workload *w, double len) {
  double lw = w->sliding_window_layers;
  return 4 * w->heads * w->head_dim * ((w->layers - lw) * attended(len, NAN) + lw * attended(len, w->sliding_window));
}

/* Mean over a decode from context a to a + o of the tokens a layer with window `win` holds: min(c, win). */
static double held_mean(double a, double o, double win) {
  if (isnan(win) || win >= a + o) return a + o / 2;
  if (win <= a) return win;
  return ((win * win - a * a) / 2 + win * (a + o - win)) / o;
}

/* FLOPs per token from the shape (Kaplan et al. 2020, arXiv 2001.08361, Table 1; Narayanan et al. 2021,
 * arXiv 2104.04473, eq. 3): 6 N for the weights' GEMMs (forward 2 N, backward 4 N) over the parameters a
 * token touches (active_params, less the input embedding, a lookup), plus causal attention: QK^T and AV
 * are 4 seq_len q FLOPs a token and layer forward (q = heads x head_dim, hidden unless the heads are wider),
 * halved by the causal mask, times 3 with the backward: 6 layers seq_len q. */
static void finish_flops(gb_workload *w) {
  double embed = isnan(w->vocab_size) ? 0 : w->vocab_size * w->hidden_size;
  if (embed >= w->active_params) embed = 0;
  /* forward and backward (3 forwards' FLOPs), per token: 6 layers seq_len q without a window */
  w->attention_flops_per_token = 3 * gb_workload_attn_fwd_flops(w, w->seq_len) / w->seq_len;
  /* a stated flops_per_token: its attention part is what the weights' 6 N leave (attention wider than hidden,
   * as Qwen3's 64 x 128 heads over 4096, comes out whole) */
  if (!isnan(w->flops_per_token))
    w->attention_flops_per_token = fmax(0, w->flops_per_token - 6 * (w->active_params - embed));
  dflt(&w->flops_per_token, 6 * (w->active_params - embed) + w->attention_flops_per_token);
  /* FP8 runs the linear layers (6 N, less the output head when the vocabulary is known) in the low
   * precision; attention and the head stay in BF16 */
  double lin = 6 * (w->active_params - 2 * embed);
  dflt(&w->fp8_share, fmin(1, fmax(0, lin / w->flops_per_token)));
}

/* A layout must divide the model: layers over pipeline stages (unless the
 * stages are uneven), experts over expert parallelism, heads over tensor
 * parallelism. */
static gb_err check_layout(const gb_workload *w, const char *origin) {
  double stages = w->pipeline_parallel * w->virtual_pipeline;
  if (stages > w->layers)
    return gb_fail(GB_E_INPUT, "%s: pipeline_parallel x virtual_pipeline = %g stages is more than layers %g", origin,
                   stages, w->layers);
  if (!w->uneven_pipeline && fmod(w->layers, stages) != 0)
    return gb_fail(GB_E_INPUT,
                   "%s: layers %g do not divide into pipeline_parallel x virtual_pipeline = %g stages (set "
                   "uneven_pipeline = true for a layout with unequal stages)",
                   origin, w->layers, stages);
  if (!isnan(w->experts) && fmod(w->experts, w->expert_parallel) != 0)
    return gb_fail(GB_E_INPUT, "%s: experts %g do not divide over expert_parallel %g", origin, w->experts,
                   w->expert_parallel);
  if (isnan(w->experts) && w->expert_parallel > 1 && w->active_params >= w->params)
    return gb_fail(GB_E_INPUT, "%s: expert_parallel %g without experts (or active_params below params)", origin,
                   w->expert_parallel);
  if (w->key_line[key_index("heads")] >= 0 && fmod(w->heads, w->tensor_parallel) != 0)
    return gb_fail(GB_E_INPUT, "%s: heads %g do not divide over tensor_parallel %g", origin, w->heads,
                   w->tensor_parallel);
  return GB_OK;
}

static gb_err finish_training(gb_workload *w, const char *origin, const char **need) {
  if (isnan(w->params)) *need = "params";
  else if (isnan(w->tokens)) *need = "tokens";
  else if (isnan(w->tokens_per_step)) *need = "tokens_per_step";
  if (*need) return GB_OK;
  if (w->tokens_per_step > w->tokens)
    return gb_fail(GB_E_INPUT, "%s: tokens_per_step: %g is more than tokens %g", origin, w->tokens_per_step,
                   w->tokens);
  dflt(&w->active_params, w->params);
  if (w->active_params > w->params)
    return gb_fail(GB_E_INPUT, "%s: active_params: %g is more than params %g", origin, w->active_params, w->params);
  dflt(&w->tensor_parallel, 1);
  dflt(&w->pipeline_parallel, 1);
  dflt(&w->virtual_pipeline, 1);
  dflt(&w->context_parallel, 1);
  dflt(&w->tp_comm_overlap, TP_COMM_OVERLAP_DEFAULT);
  dflt(&w->expert_parallel, 1);
  dflt(&w->moe_top_k, 2);
  dflt(&w->shared_experts, 0);
  dflt(&w->seq_len, 2048);
  dflt(&w->micro_batch, 1);
  /* goodput stays unset unless given: the whole-run default depends on the GPU count and the run's length
   * (planner/gb_goodput.h), known only per configuration */
  /* gradients: bf16/fp16/fp8 training all-reduces 2-byte gradients */
  double eb = gb_workload_elem_bytes(w->precision);
  dflt(&w->bytes_per_grad_element, eb > 2 ? eb : 2);
  dflt(&w->grad_bytes, w->params * w->bytes_per_grad_element);
  dflt(&w->memory_bytes_per_param, 16);
  dflt(&w->activation_gb_per_gpu, 0);
  dflt(&w->bucket_bytes, 25e6);
  finish_shape(w);
  dflt(&w->expert_ffn_hidden, w->ffn_hidden);
  if (!isnan(w->experts) && isnan(w->expert_ffn_hidden))
    return gb_fail(GB_E_INPUT, "%s: experts: needs expert_ffn_hidden (or ffn_hidden)", origin);
  gb_err e = finish_moe_layers(w);
  if (!e) e = finish_window(w);
  if (e) return e;
  finish_flops(w);
  return check_layout(w, origin);
}

static gb_err finish_inference(gb_workload *w, const char *origin, const char **need) {
  if (isnan(w->params) && isnan(w->model_bytes)) *need = "params (or model_bytes)";
  else if (isnan(w->tokens_per_second)) *need = "tokens_per_second";
  if (*need) return GB_OK;
  double eb = gb_workload_elem_bytes(w->precision);
  dflt(&w->batch_size, 0); /* 0: the largest batch that fits and meets the latency limit */
  dflt(&w->max_batch, 256); /* vLLM's default max_num_seqs */
  dflt(&w->model_bytes, w->params * eb);
  dflt(&w->params, w->model_bytes / eb);
  dflt(&w->active_params, w->params);
  if (w->active_params > w->params)
    return gb_fail(GB_E_INPUT, "%s: active_params: %g is more than params %g", origin, w->active_params, w->params);
  dflt(&w->prompt_tokens, 0);
  dflt(&w->output_tokens, 256);
  dflt(&w->serve_hours, 720);
  dflt(&w->kv_bytes_per_token, 0);
  dflt(&w->tensor_parallel, 0); /* 0: the smallest power of two that holds the weights */
  finish_shape(w);
  gb_err e = finish_moe_layers(w);
  if (!e) e = finish_window(w);
  if (e) return e;
  /* the KV cache: per token of context on every layer, a windowed layer's at most sliding_window tokens; a
   * sequence holds its whole context's at the end, and a decode step reads the mean over its decode */
  double lin = w->prompt_tokens, lout = w->output_tokens, win = w->sliding_window, lw = w->sliding_window_layers;
  double full = (w->layers - lw) / w->layers, windowed = lw / w->layers;
  if (isnan(w->kv_bytes_per_sequence)) {
    double end = lin + lout;
    w->kv_bytes_per_sequence = w->kv_bytes_per_token * (full * end + windowed * (isnan(win) ? end : fmin(end, win)));
    w->kv_read_bytes = w->kv_bytes_per_token * (full * (lin + lout / 2) + windowed * held_mean(lin, lout, win));
  } else { /* a stated sequence's cache fills as its context grows */
    w->kv_read_bytes = w->kv_bytes_per_sequence * (lin + lout / 2) / (lin + lout);
  }
  return GB_OK;
}

static void finish_generic(gb_workload *w, const char **need) {
  if (isnan(w->total_flops)) *need = "total_flops";
  if (*need) return;
  dflt(&w->total_bytes, 0);
  dflt(&w->allreduce_bytes, 0);
  dflt(&w->allreduce_count, 0);
  dflt(&w->memory_gb, 0);
}

/* The article before a kind's name in messages: "a training", "an inference", "a generic". */
static const char *kind_article(gb_workload_kind kind) {
  return strchr("aeiou", gb_workload_kind_name(kind)[0]) ? "an" : "a";
}

gb_err gb_workload_finish(gb_workload *w) {
  const char *origin = w->origin[0] ? w->origin : "command line";
  if (w->kind == GB_WL_NONE)
    return gb_fail(GB_E_INPUT, "%s: type: missing; set type = training, inference or generic (or --type)", origin);
  unsigned bit = 1u << w->kind;
  for (size_t i = 0; i < NKEYS; i++) {
    if (w->key_line[i] < 0 || (k_keys[i].kinds & bit)) continue;
    char where[600];
    key_where(w, (int)i, where, sizeof where);
    return gb_fail(GB_E_INPUT, "%s: %s: does not apply to %s %s workload", where, k_keys[i].name,
                   kind_article(w->kind), gb_workload_kind_name(w->kind));
  }
  if (!w->precision[0]) snprintf(w->precision, sizeof w->precision, "bf16");
  if (!w->name[0]) snprintf(w->name, sizeof w->name, "%s", gb_workload_kind_name(w->kind));
  dflt(&w->gemm_size, 8192);
  dflt(&w->fixed_hours, 0);
  dflt(&w->usable_memory_fraction, 0.9);
  const char *need = NULL;
  gb_err e = GB_OK;
  if (w->kind == GB_WL_TRAINING) e = finish_training(w, origin, &need);
  else if (w->kind == GB_WL_INFERENCE) e = finish_inference(w, origin, &need);
  else finish_generic(w, &need);
  if (e) return e;
  if (need)
    return gb_fail(GB_E_INPUT, "%s: %s: missing; %s %s workload needs it", origin, need, kind_article(w->kind),
                   gb_workload_kind_name(w->kind));
  dflt(&w->demand_peak_gpus, 0);
  dflt(&w->demand_peak_fraction, 0);
  return GB_OK;
}

double gb_workload_total_flops(const gb_workload *w) {
  switch (w->kind) {
  case GB_WL_TRAINING: return w->flops_per_token * w->tokens;
  case GB_WL_GENERIC: return w->total_flops;
  case GB_WL_INFERENCE: {
    double served = w->tokens_per_second * w->serve_hours * 3600.0;
    return 2.0 * w->params * (1.0 + w->prompt_tokens / w->output_tokens) * served;
  }
  default: return NAN;
  }
}

size_t gb_workload_opts(gb_opt *out, size_t max) {
  static char help[NKEYS][320];
  for (size_t i = 0; i < NKEYS && i < max; i++) {
    const wl_key *k = &k_keys[i];
    char kinds[32] = "";
    if (k->kinds == KALL) snprintf(kinds, sizeof kinds, "all");
    else
      snprintf(kinds, sizeof kinds, "%s%s%s", k->kinds & KT ? "training " : "", k->kinds & KI ? "inference " : "",
               k->kinds & KG ? "generic " : "");
    size_t kl = strlen(kinds);
    if (kl && kinds[kl - 1] == ' ') kinds[kl - 1] = '\0';
    snprintf(help[i], sizeof help[i], "%s [%s; default %s]", k->help, kinds, *k->dflt ? k->dflt : "required");
    out[i] = (gb_opt){.name = k->name, .metavar = "VALUE", .help = help[i], .kind = GB_OPT_CALL};
  }
  return NKEYS;
}
