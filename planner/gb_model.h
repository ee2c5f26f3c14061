/* gb_model: the physical constants of the planner's time model, one table
 * per GPU architecture, each figure with its source (docs/planner.md,
 * "Efficiency table").
 *
 * - gemm_typical: the share of the dense datasheet peak a large BF16/FP16
 *   GEMM reaches with the vendor library (cuBLAS, hipBLASLt). It turns a
 *   measured GEMM rate of one architecture into a projection for another:
 *   rate = peak x gemm_typical x c, c = the measured types' (measured / peak)
 *   / gemm_typical.
 * - hfu: utilization of the linear layers' GEMMs (the 6 N FLOPs of a token,
 *   with their kernel gaps and launch overheads; recomputation counted as
 *   work) as a share of the dense BF16 peak, at four model sizes (1e8, 1e9,
 *   1e10, 1e11 parameters; log-linear between, clamped at the ends): larger
 *   models have larger GEMMs. Attention and element-wise work are their own
 *   terms (gb_term_compute.c). With --mfu the planner's one utilization
 *   covers the whole step instead.
 * - gemm_share: the share of the linear layers' time spent in GEMMs, at the
 *   same sizes: a low precision speeds up only that share.
 * - infer_eff: the share of the GEMM rate a serving engine sustains on
 *   prefill and large-batch decode GEMMs.
 * - attn_fused, attn_fa2: the share of the dense BF16 peak that causal
 *   attention (forward and backward, head dim 128, sequences of 4K and
 *   more) reaches with the architecture's fused attention kernel (cuDNN /
 *   FlashAttention-3 class, what Transformer Engine runs) and with a
 *   FlashAttention-2 class kernel (PyTorch SDPA's flash backend); the
 *   workload's attention_kernel picks one. */
#ifndef GB_MODEL_H
#define GB_MODEL_H

#include <stdbool.h>

#define GB_MODEL_SIZES 4

typedef struct gb_arch_model {
  const char *arch;   /* "ampere", "hopper", ...; "" = unknown (the default row) */
  const char *vendor; /* "nvidia", "amd" */
  double gemm_typical;
  double hfu[GB_MODEL_SIZES];
  double gemm_share[GB_MODEL_SIZES];
  double infer_eff;
  double attn_fused, attn_fa2;
  const char *source;
  /* HBM bandwidth a STREAM-like kernel reaches, as a share of the datasheet
   * rate, where it is published; 0: none, project from measured types */
  double hbm_share;
  /* Training in a block-scaled format (MXFP8, NVFP4): the share of the GEMM
   * rates (at the precision and BF16) its steps reach beside a BF16 or
   * per-tensor FP8 run's; 0: 1 (docs/planner.md, "Blackwell") */
  double block_scaled_eff;
} gb_arch_model;

/* The row of an architecture (the default row for "" or an unknown one). */
const gb_arch_model *gb_arch_model_find(const char *arch);

/* The model sizes of the hfu and gemm_share columns, parameters. */
extern const double gb_model_sizes[GB_MODEL_SIZES];

/* Log-linear interpolation of one of the size columns at params. */
double gb_model_at_size(const double v[GB_MODEL_SIZES], double params);

/* Share of the cross-node line rate NCCL's ring reaches (nccl-tests on 8 x
 * 400 Gb/s rail-optimized InfiniBand: 350-400 GB/s busbw of 400). */
#define GB_NIC_EFFICIENCY 0.90

#endif
