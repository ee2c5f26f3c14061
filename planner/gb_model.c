/* gb_model: the efficiency table. Every number is a reading of a published
 * measurement or run, named in source; docs/planner.md tabulates them. The
 * same row serves every model size and every job on the architecture; rows
 * may be refit on the calibration fit half only (tests/calibration/cases.tsv). */
#include "gb_model.h"

#include <math.h>
#include <string.h>

const double gb_model_sizes[GB_MODEL_SIZES] = {1e8, 1e9, 1e10, 1e11};

static const gb_arch_model k_models[] = {
    /* the default row: an architecture the table lacks */
    {"", "", 0.75, {0.45, 0.47, 0.50, 0.53}, {0.60, 0.70, 0.75, 0.80}, 0.70, 0.40, 0.30,
     "no published runs: Hopper-like utilization, cuBLAS 70-80% of dense peak", 0, 0},
    {"volta", "nvidia", 0.85, {0.40, 0.42, 0.45, 0.48}, {0.60, 0.70, 0.75, 0.80}, 0.70, 0.30, 0.30,
     "Megatron-LM (arXiv 1909.08053): 8.3B on 512 V100 at 30% of peak with model parallel; cuBLAS FP16 "
     "~105 of 125 TFLOP/s", 0, 0},
    {"ampere", "nvidia", 0.88, {0.64, 0.64, 0.64, 0.70}, {0.60, 0.70, 0.75, 0.80}, 0.72, 0.55, 0.55,
     "llm-foundry benchmarks (A100 MFU 7B 64%, 70B 53% with recompute = 71% HFU); Megatron-LM "
     "(arXiv 2104.04473: 52% at 1T); OPT-175B 147 TFLOP/s; cuBLAS BF16 ~275 of 312; hfu covers the linear "
     "GEMMs (attention, element-wise work: own terms), refit on the calibration fit half; FlashAttention-2 "
     "50-73% of A100 peak (arXiv 2307.08691)", 0, 0},
    {"hopper", "nvidia", 0.80, {0.50, 0.50, 0.52, 0.60}, {0.60, 0.70, 0.75, 0.80}, 0.72, 0.50, 0.30,
     "llm-foundry benchmarks (H100 MFU 7B 46%, 70B 43% with recompute = 57% HFU); llm.c GPT-2 1.6B 50%; "
     "Llama 3 405B 38-43% BF16 (arXiv 2407.21783); gpubench H200 BF16 GEMM 796 of 989.5; hfu covers the "
     "linear GEMMs, refit on the calibration fit half; attention FlashAttention-3/cuDNN ~0.50 and "
     "FlashAttention-2 ~0.30 of peak forward + backward (arXiv 2407.08608)", 0, 0},
    /* Fitted on the calibration fit half's Blackwell runs (B200, B300, GB200, GB300: MLPerf Training v5.0/v5.1
     * Llama 3.1 8B and 405B in FP8 and NVFP4, torchtitan BF16/MXFP8/NVFP4 and its DeepEP Qwen3-30B-A3B,
     * torchao's Llama 4 layers, Megatron-Core MXFP8 MoE), with the block-scaled casts their own term
     * (gb_term_compute.c), by tools/planner/fit_row.py: Hopper's row scaled by three factors chosen on a grid
     * (hfu up to 1e10 parameters x0.6-1.0, hfu at 1e11 x0.6-1.3, gemm_share x1.0-1.5) jointly with the row's
     * block_scaled_eff (0.75-1.0) to minimise those runs' mean |ln(ratio)|, none beyond 2x: x0.9, x0.8, x1.5
     * (gemm_share capped at 1) and 0.80. The sources held out from fitting (Megatron-Bridge's and NeMo's
     * performance pages) are not among them (tests/calibration/heldout.tsv). A Blackwell GPU reaches less of its
     * dense BF16 peak than Hopper does, its low-precision gain reaches all of the linear layers, and an MXFP8 or
     * NVFP4 recipe runs at 0.80 of the rates a BF16 or per-tensor FP8 one reaches (docs/planner.md, "Blackwell"). */
    {"blackwell", "nvidia", 0.75, {0.45, 0.45, 0.47, 0.48}, {0.90, 1.00, 1.00, 1.00}, 0.70, 0.50, 0.16,
     "fit half's Blackwell runs (MLPerf Training v5.0/v5.1 Llama 3.1 8B/405B FP8 and NVFP4 on B200/B300/GB200/GB300; "
     "torchtitan GB200 BF16/MXFP8/NVFP4 and B200 DeepEP MoE; torchao Llama 4 layers; Megatron-Core DeepSeek-V3/Qwen3 "
     "MXFP8): hfu 0.9 of Hopper's (0.8 at 1e11), gemm_share 1.5 of Hopper's capped at 1, block-scaled recipes at "
     "0.80 of that; cuDNN attention on B200 about half of peak forward and backward; FlashAttention-2 kernels "
     "(sm80 MMA) reach Hopper's absolute rate, 0.16 of B200's peak", 0, 0.80},
    {"ada", "nvidia", 0.70, {0.38, 0.40, 0.42, 0.44}, {0.60, 0.70, 0.75, 0.80}, 0.65, 0.40, 0.40,
     "PCIe cards at their power cap: cuBLAS about 65-75% of dense peak; no published LLM pre-training runs", 0, 0},
    /* infer_eff 0.355: fitted on the calibration fit half (vLLM, Llama 3.1 405B FP8 TP 8 at batch 256 on
     * MI300X, with the serving floor of gb_time_serve.c in the step; batch 1 is weight- and floor-bound and
     * does not move it): 0.355 x the projected 1435 FP8 TFLOP/s = 509 a GPU, 0.49 of Hopper's serving rate
     * (0.72 x 1448) on the same datasheet; arXiv 2510.27583 ("AMD MI300X GPU Performance Analysis") measures
     * MI300X realizing 37-66% of the comparable NVIDIA GPUs' throughput, i.e. 0.27-0.48 here (0.33 before
     * the floor). Training rows do not read it. */
    {"cdna3", "amd", 0.60, {0.28, 0.30, 0.33, 0.36}, {0.60, 0.70, 0.75, 0.80}, 0.355, 0.30, 0.30,
     "SemiAnalysis MI300X vs H100 training (Dec 2024): BF16 GEMM ~600-800 of 1307 TFLOP/s, training MFU "
     "below H100's; serving: fit half (vLLM 405B FP8 TP 8, batch 256), inside arXiv 2510.27583's 37-66% "
     "of NVIDIA's realized throughput",
     0.81 /* BabelStream on MI300X: 81% of 5.3 TB/s (arXiv 2510.27583, "AMD MI300X GPU Performance Analysis") */, 0},
};
#define NMODELS (sizeof k_models / sizeof k_models[0])

const gb_arch_model *gb_arch_model_find(const char *arch) {
  for (unsigned i = 1; i < NMODELS; i++)
    if (arch && strcmp(arch, k_models[i].arch) == 0) return &k_models[i];
  return &k_models[0];
}


double gb_model_at_size(const double v[GB_MODEL_SIZES], double params) {
  if (!(params > gb_model_sizes[0])) return v[0];
  double x = log10(params);
  for (int i = 1; i < GB_MODEL_SIZES; i++) {
    double a = log10(gb_model_sizes[i - 1]), b = log10(gb_model_sizes[i]);
    if (x <= b) return v[i - 1] + (x - a) / (b - a) * (v[i] - v[i - 1]);
  }
  return v[GB_MODEL_SIZES - 1];
}
