/* gb_workload: what the planner plans for, read from a small INI file
 * (core/gb_ini) or set key by key from command-line flags.
 *
 * Three kinds: training (parameters, tokens, precision, ...), inference
 * (model bytes, tokens per second to serve, batch ...) and generic (total
 * FLOPs, bytes and all-reduces). Keys and defaults: docs/planner.md. Numbers
 * are unset (NaN) until given; gb_workload_finish fills derived defaults and
 * checks that every required key is there. */
#ifndef GB_WORKLOAD_H
#define GB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_desc.h"
#include "gb_error.h"
#include "gb_optable.h"

/* Attention kernels (docs/planner.md, "Compute"): the architecture's fused
 * kernel (cuDNN / FlashAttention-3 class, Transformer Engine) or a
 * FlashAttention-2 class one (PyTorch SDPA's flash backend). */
enum { GB_ATTN_FUSED = 0, GB_ATTN_FA2 = 1 };

/* MoE token dispatchers: a fused one (DeepEP, HybridEP: FP8 dispatch, one
 * copy per remote domain forwarded inside it) or NCCL AlltoAll (BF16, one
 * copy per expert, never overlapped). */
enum { GB_MOE_FUSED = 0, GB_MOE_ALLTOALL = 1 };

/* MoE routing: a trained router (the busiest expert-parallel rank gets more
 * tokens than the mean) or force-balanced benchmark routing (every rank the
 * mean: Megatron's --moe-router-force-load-balancing). */
enum { GB_MOE_LEARNED = 0, GB_MOE_BALANCED = 1 };

typedef enum gb_workload_kind { GB_WL_NONE = 0, GB_WL_TRAINING, GB_WL_INFERENCE, GB_WL_GENERIC } gb_workload_kind;

#define GB_WL_MAX_KEYS 96
#define GB_WL_MAX_MONTHS 120

typedef struct gb_workload {
  char origin[512]; /* file the keys came from ("" when flags only) */
  char name[64];
  gb_workload_kind kind;
  char precision[16]; /* a results dtype: bf16, fp16, fp8e4m3, ... */
  /* all kinds */
  double gemm_size;              /* representative GEMM edge (m = n = k) for interpolation */
  bool gemm_sustained;           /* GEMM rows of the sustained window (tflops_sustained), else the burst one */
  double fixed_hours;            /* provisioning, data loading, checkpoints, eval */
  double usable_memory_fraction; /* share of device memory the job may use */
  double max_hours, budget_usd;  /* constraints (NaN: none) */
  /* training and inference: parallel layout and model shape */
  double tensor_parallel, pipeline_parallel, expert_parallel; /* degrees (inference: TP per replica; NaN: chosen) */
  double virtual_pipeline, context_parallel;                  /* interleaved stages per GPU; sequence split */
  bool sequence_parallel, distributed_optimizer, uneven_pipeline;
  bool attention_dp;                                           /* MoE serving: attention data-parallel (DEP) */
  double active_params;                                       /* MoE: parameters active per token (default params) */
  double moe_top_k;                                           /* MoE: experts per token (all-to-all volume) */
  double experts, expert_ffn_hidden, shared_experts;          /* MoE: routed experts, their FFN width, shared ones */
  double moe_layers;                                          /* MoE: layers with routed experts (default layers) */
  double sliding_window, sliding_window_layers;               /* tokens a windowed layer attends to; such layers */
  double seq_len, micro_batch;                                /* sequence length, sequences per micro-batch */
  double heads, kv_heads, head_dim, ffn_hidden, vocab_size;   /* shape (attention, KV traffic, embedding) */
  double fp8_share;                                           /* share of FLOPs in low-precision GEMMs */
  bool recompute;                                             /* full activation recompute: one more forward */
  bool recompute_selective;                                   /* selective: attention's forward again */
  double attention_flops_per_token;                           /* the causal attention part of flops_per_token */
  int attention_kernel;                                       /* GB_ATTN_FUSED or GB_ATTN_FA2 */
  int moe_dispatcher;                                         /* GB_MOE_FUSED or GB_MOE_ALLTOALL */
  double tp_comm_overlap;                                     /* share of the TP communication hidden behind GEMMs */
  double moe_overlap;                                         /* share of dispatch/combine hidden (NaN: --overlap) */
  int moe_routing;                                            /* GB_MOE_LEARNED or GB_MOE_BALANCED */
  double moe_capacity_factor;                                 /* MoE: most tokens an expert takes over the mean (NaN: dropless) */
  double goodput; /* share of wall time doing useful steps; NaN: the whole-run default (gb_goodput.h) */
  double kv_bytes_per_token;                                  /* inference: KV cache per token of context */
  double kv_read_bytes;                                       /* inference: KV bytes a sequence reads a decode step */
  /* demand over time (hybrid): a base plus peaks, or GPU-hours per month */
  double demand_base_gpus, demand_peak_gpus, demand_peak_fraction;
  double demand_months[GB_WL_MAX_MONTHS];
  size_t ndemand_months;
  /* training */
  double params, tokens, flops_per_token, tokens_per_step;
  double grad_bytes, bytes_per_grad_element, memory_bytes_per_param, activation_gb_per_gpu, bucket_bytes;
  bool sharded;
  /* inference */
  double model_bytes, tokens_per_second, batch_size, prompt_tokens, output_tokens, serve_hours;
  double max_batch; /* inference: most sequences a replica decodes at once (the engine's limit) */
  double kv_bytes_per_sequence, layers, hidden_size, max_token_latency_ms;
  /* generic */
  double total_flops, total_bytes, allreduce_bytes, allreduce_count, memory_gb;
  /* where each key was set: line in origin, 0 from a flag, -1 unset */
  long key_line[GB_WL_MAX_KEYS];
} gb_workload;

/* A workload with every key unset. */
void gb_workload_init(gb_workload *w);

/* Sets one key from text. where names the source for messages
 * ("data/w.ini:12" or "--params"). Unknown keys, numbers that do not parse,
 * NaN, zero or negative where a positive value is needed, and absurd values
 * are GB_E_INPUT: "<where>: <key>: <what>". line is stored for later
 * messages (0 for flags). */
gb_err gb_workload_set(gb_workload *w, const char *key, const char *value, const char *where, long line);

/* True when key (with '-' read as '_') is a workload key. */
bool gb_workload_is_key(const char *key);

/* FLOPs of the causal attention forward over one sequence of `len` tokens, all layers: QK^T and AV, 4 hidden
 * FLOPs a token and each earlier token it attends to (all of them; at most sliding_window in the
 * sliding_window_layers). Needs a finished workload (layers, hidden_size). */
double gb_workload_attn_fwd_flops(const gb_workload *w, double len);

/* Reads an INI file: optional [workload] section, key = value lines, ';' or
 * '#' comments. Errors name path:line:key. Keys already set in w are
 * overwritten. */
gb_err gb_workload_read(const char *path, gb_workload *w);

/* Same from a string (tests); name is used in messages. */
gb_err gb_workload_read_mem(const char *name, const char *text, gb_workload *w);

/* Applies defaults (flops_per_token = 6 x params, grad_bytes = params x bytes
 * per gradient element, model_bytes = params x precision bytes, ...) and
 * checks the kind's required keys and that no key of another kind was given. */
gb_err gb_workload_finish(gb_workload *w);

/* Bytes per element of a precision: a results dtype's (gb_dtype_bytes,
 * core/gb_desc.h), mxfp8 1, fp4 0.5; 0 when unknown. */
double gb_workload_elem_bytes(const char *precision);
/* Whether a precision runs the linear layers' GEMMs below BF16 (fp8e4m3, fp8e5m2, mxfp8, nvfp4): the share
 * low_precision_share (fp8_share) applies. */
bool gb_workload_is_low_precision(const char *precision);
/* Whether a precision scales blocks of elements, not whole tensors (mxfp8, nvfp4). */
bool gb_workload_is_block_scaled(const char *precision);

const char *gb_workload_kind_name(gb_workload_kind k);

/* Total useful FLOPs of the workload (training: flops_per_token x tokens;
 * generic: total_flops; inference: 2 x params x (prompt + output) tokens per
 * served output token x tokens served). */
double gb_workload_total_flops(const gb_workload *w);

/* Every key as an option entry (core/gb_optable.h: name, placeholder, meaning
 * with the kinds it applies to and its default; kind GB_OPT_CALL, no setter:
 * the caller sets it, through gb_workload_set). Fills up to max entries and
 * returns the number of keys. */
size_t gb_workload_opts(gb_opt *out, size_t max);

#endif
