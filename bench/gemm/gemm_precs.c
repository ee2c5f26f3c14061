/* gemm_precs: the precision table with its cuBLASLt types, the layouts and
 * the case names built from both, cuBLASLt's view of a product, FLOPs and
 * the metric, and whether a device runs a precision (bench_gemm.h). No CUDA
 * calls: tested on the CPU. */
#include <stdio.h>
#include <string.h>

#include "bench_gemm.h"

/* Random ranges. Floating operands are uniform in [-1, 1): a product of k
 * terms then has a standard deviation of sqrt(k/9) (each term has variance
 * 1/9), at most ~60 for k = 28672, far inside fp16 (65504) and bf16. fp8
 * operands are drawn in [-4, 4) and dequantised by a per-tensor scale of
 * 0.25, as a real recipe scales a tensor into the fp8 range and back. int8
 * operands are integers in [-8, 8]: |sum| <= 64 k = 1.8e6 for k = 28672,
 * far inside int32. */
#define FP8_RANGE 4.0
#define FP8_SCALE 0.25

static const gb_gemm_prec gb_gemm_prec_table[] = {
    {.name = "fp64", .dtype = "fp64", .a_type = GB_DT_F64, .b_type = GB_DT_F64, .d_type = GB_DT_F64,
     .a_cuda = CUDA_R_64F, .b_cuda = CUDA_R_64F, .d_cuda = CUDA_R_64F, .compute = CUBLAS_COMPUTE_64F,
     .scale_cuda = CUDA_R_64F, .compute_name = "COMPUTE_64F", .a_lo = -1, .a_hi = 1, .b_lo = -1, .b_hi = 1,
     .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 0, .tol = 1e-12, .est_tflops = 50},
    {.name = "fp32", .dtype = "fp32", .a_type = GB_DT_F32, .b_type = GB_DT_F32, .d_type = GB_DT_F32,
     .a_cuda = CUDA_R_32F, .b_cuda = CUDA_R_32F, .d_cuda = CUDA_R_32F, .compute = CUBLAS_COMPUTE_32F,
     .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -1, .a_hi = 1, .b_lo = -1, .b_hi = 1,
     .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 0, .tol = 5e-5, .est_tflops = 45},
    {.name = "tf32", .dtype = "tf32", .a_type = GB_DT_F32, .b_type = GB_DT_F32, .d_type = GB_DT_F32,
     .a_cuda = CUDA_R_32F, .b_cuda = CUDA_R_32F, .d_cuda = CUDA_R_32F, .compute = CUBLAS_COMPUTE_32F_FAST_TF32,
     .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F_FAST_TF32", .a_lo = -1, .a_hi = 1, .b_lo = -1,
     .b_hi = 1, .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 80, .tol = 2e-3, .est_tflops = 350},
    {.name = "fp16", .dtype = "fp16", .a_type = GB_DT_F16, .b_type = GB_DT_F16, .d_type = GB_DT_F16,
     .a_cuda = CUDA_R_16F, .b_cuda = CUDA_R_16F, .d_cuda = CUDA_R_16F, .compute = CUBLAS_COMPUTE_32F,
     .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -1, .a_hi = 1, .b_lo = -1, .b_hi = 1,
     .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 53, .tol = 1e-2, .est_tflops = 650},
    {.name = "bf16", .dtype = "bf16", .a_type = GB_DT_BF16, .b_type = GB_DT_BF16, .d_type = GB_DT_BF16,
     .a_cuda = CUDA_R_16BF, .b_cuda = CUDA_R_16BF, .d_cuda = CUDA_R_16BF, .compute = CUBLAS_COMPUTE_32F,
     .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -1, .a_hi = 1, .b_lo = -1, .b_hi = 1,
     .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 80, .tol = 1e-2, .est_tflops = 650},
    /* fp16 accumulation: rounding to 11 bits at every partial sum is a random
     * walk whose relative size grows like 2^-11 sqrt(k) (0.044 at k = 8192). */
    {.name = "fp16acc16", .dtype = "fp16", .a_type = GB_DT_F16, .b_type = GB_DT_F16, .d_type = GB_DT_F16,
     .a_cuda = CUDA_R_16F, .b_cuda = CUDA_R_16F, .d_cuda = CUDA_R_16F, .compute = CUBLAS_COMPUTE_16F,
     .scale_cuda = CUDA_R_16F, .compute_name = "COMPUTE_16F", .a_lo = -1, .a_hi = 1, .b_lo = -1, .b_hi = 1,
     .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 53, .tol = 1e-2, .tol_per_sqrt_k = 1.0 / 2048,
     .est_tflops = 650},
#define GB_GEMM_FP8(NAME, BT, BCUDA, FAST)                                                                     \
  {.name = NAME, .dtype = "fp8e4m3", .a_type = GB_DT_F8E4M3, .b_type = BT, .d_type = GB_DT_BF16,               \
   .a_cuda = CUDA_R_8F_E4M3, .b_cuda = BCUDA, .d_cuda = CUDA_R_16BF, .compute = CUBLAS_COMPUTE_32F,            \
   .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -FP8_RANGE, .a_hi = FP8_RANGE,             \
   .b_lo = -FP8_RANGE, .b_hi = FP8_RANGE, .fp8 = true, .fast_accum = FAST, .scale_a = FP8_SCALE,               \
   .scale_b = FP8_SCALE, .min_cc = 89, .tol = 5e-2, .est_tflops = 1200}
    GB_GEMM_FP8("fp8e4m3_slowacc", GB_DT_F8E4M3, CUDA_R_8F_E4M3, 0),
    GB_GEMM_FP8("fp8e4m3_fastacc", GB_DT_F8E4M3, CUDA_R_8F_E4M3, 1),
    GB_GEMM_FP8("fp8e4m3xe5m2_slowacc", GB_DT_F8E5M2, CUDA_R_8F_E5M2, 0),
    GB_GEMM_FP8("fp8e4m3xe5m2_fastacc", GB_DT_F8E5M2, CUDA_R_8F_E5M2, 1),
    /* e4m3 output with a bf16 C: the one fp8 form in which cuBLASLt (13.1,
     * sm_90) takes the D scale and amax-of-D pointers (with a bf16 D it
     * refuses the amax pointer). D scale 0.5: |A.B| reaches ~310 at k = 28672
     * (5.5 sigma of sqrt(k/9)), 155 after it, inside e4m3's 448. The output
     * rounding (2^-4 relative at most, ~0.024 norm-wise) is inside 5e-2. */
#define GB_GEMM_FP8_OUT8(NAME, FAST)                                                                           \
  {.name = NAME, .dtype = "fp8e4m3", .a_type = GB_DT_F8E4M3, .b_type = GB_DT_F8E4M3, .d_type = GB_DT_F8E4M3,   \
   .a_cuda = CUDA_R_8F_E4M3, .b_cuda = CUDA_R_8F_E4M3, .d_cuda = CUDA_R_8F_E4M3, .compute = CUBLAS_COMPUTE_32F,  \
   .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -FP8_RANGE, .a_hi = FP8_RANGE,             \
   .b_lo = -FP8_RANGE, .b_hi = FP8_RANGE, .fp8 = true, .out_fp8 = true, .scale_d = 0.5, .fast_accum = FAST,      \
   .scale_a = FP8_SCALE, .scale_b = FP8_SCALE, .min_cc = 89, .tol = 5e-2, .est_tflops = 1200}
    GB_GEMM_FP8_OUT8("fp8e4m3_e4m3out_slowacc", 0),
    GB_GEMM_FP8_OUT8("fp8e4m3_e4m3out_fastacc", 1),
#undef GB_GEMM_FP8_OUT8
#undef GB_GEMM_FP8
    {.name = "int8", .dtype = "int8", .a_type = GB_DT_I8, .b_type = GB_DT_I8, .d_type = GB_DT_I32,
     .a_cuda = CUDA_R_8I, .b_cuda = CUDA_R_8I, .d_cuda = CUDA_R_32I, .compute = CUBLAS_COMPUTE_32I,
     .scale_cuda = CUDA_R_32I, .compute_name = "COMPUTE_32I", .a_lo = -8, .a_hi = 8, .b_lo = -8, .b_hi = 8,
     .fast_accum = -1, .scale_a = 1, .scale_b = 1, .integer = true, .min_cc = 75, .tol = 0,
     .est_tflops = 1000},
    /* Block-scaled, sm_100 and later (bench_gemm.h, block-scaled operands):
     * MXFP8, e4m3 operands in [-4, 4) with a ue8m0 scale per 32 elements
     * along K (CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0); NVFP4, e2m1
     * operands two a byte, every bit pattern (the fill draws the bytes as
     * int8 over their whole range), with an e4m3 scale per 16
     * (CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3). bf16 D. The dequantised
     * inputs are exact in fp64; fp32 accumulation and the bf16 output
     * rounding (2^-9) stay far inside 1e-2. est_tflops: B200 dense (FP8
     * 4500, FP4 9000 TFLOP/s). */
    {.name = "mxfp8", .dtype = "fp8e4m3", .a_type = GB_DT_F8E4M3, .b_type = GB_DT_F8E4M3, .d_type = GB_DT_BF16,
     .a_cuda = CUDA_R_8F_E4M3, .b_cuda = CUDA_R_8F_E4M3, .d_cuda = CUDA_R_16BF, .compute = CUBLAS_COMPUTE_32F,
     .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -FP8_RANGE, .a_hi = FP8_RANGE,
     .b_lo = -FP8_RANGE, .b_hi = FP8_RANGE, .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 100,
     .tol = 1e-2, .est_tflops = 4500, .block = 32, .scale_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0},
    {.name = "nvfp4", .dtype = "fp4e2m1", .a_type = GB_DT_I8, .b_type = GB_DT_I8, .d_type = GB_DT_BF16,
     .a_cuda = CUDA_R_4F_E2M1, .b_cuda = CUDA_R_4F_E2M1, .d_cuda = CUDA_R_16BF, .compute = CUBLAS_COMPUTE_32F,
     .scale_cuda = CUDA_R_32F, .compute_name = "COMPUTE_32F", .a_lo = -128, .a_hi = 127, .b_lo = -128,
     .b_hi = 127, .fast_accum = -1, .scale_a = 1, .scale_b = 1, .min_cc = 100, .tol = 1e-2, .est_tflops = 9000,
     .block = 16, .scale_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3, .fp4 = true},
};

#define NPRECS (sizeof gb_gemm_prec_table / sizeof gb_gemm_prec_table[0])

const gb_gemm_prec *gb_gemm_precs(size_t *n) {
  *n = NPRECS;
  return gb_gemm_prec_table;
}

const gb_gemm_prec *gb_gemm_prec_find(const char *name) {
  for (size_t i = 0; i < NPRECS; i++)
    if (strcmp(gb_gemm_prec_table[i].name, name) == 0) return &gb_gemm_prec_table[i];
  return NULL;
}

double gb_gemm_scale_d(const gb_gemm_prec *p) { return p->out_fp8 && p->scale_d > 0 ? p->scale_d : 1.0; }

/* ---- layouts ---- */

const char *gb_gemm_layout_name(gb_gemm_layout l) { return l == GB_GEMM_NN ? "nn" : "tn"; }

const char *gb_gemm_layout_label(gb_gemm_layout l) { return l == GB_GEMM_NN ? "NN" : "TN"; }

#define NN_SUFFIX "_nn"

const char *gb_gemm_case_name(const gb_gemm_prec *p, gb_gemm_layout l, char *buf, size_t n) {
  snprintf(buf, n, "%s%s", p->name, l == GB_GEMM_NN ? NN_SUFFIX : "");
  return buf;
}

const gb_gemm_prec *gb_gemm_case_parse(const char *case_name, gb_gemm_layout *layout) {
  if (!case_name) return NULL;
  const gb_gemm_prec *p = gb_gemm_prec_find(case_name);
  gb_gemm_layout l = GB_GEMM_TN;
  size_t len = strlen(case_name), sl = strlen(NN_SUFFIX);
  if (!p && len > sl && strcmp(case_name + len - sl, NN_SUFFIX) == 0) {
    char base[64];
    if (len - sl >= sizeof base) return NULL;
    memcpy(base, case_name, len - sl);
    base[len - sl] = '\0';
    p = gb_gemm_prec_find(base);
    l = GB_GEMM_NN;
  }
  if (p && layout) *layout = l;
  return p;
}

bool gb_gemm_layout_supported(const gb_gemm_prec *p, gb_gemm_layout l, int cc_major, int cc_minor, char *why,
                              size_t why_n) {
  int cc = cc_major * 10 + cc_minor;
  if (p->block && l == GB_GEMM_NN) {
    snprintf(why, why_n, "%s_nn: cuBLASLt runs block-scaled GEMMs only in the TN layout (both operands K-major, "
             "the scales along K): run %s with gemm.layout=tn", p->name, p->name);
    return false;
  }
  if (l == GB_GEMM_TN || !(p->fp8 || p->integer) || cc >= 100) return true;
  snprintf(why, why_n,
           "%s_nn: cuBLASLt runs %s tensor-core GEMMs only in the TN layout (both operands K-major) before "
           "compute capability 10.0; this device is %d.%d: run %s with gemm.layout=tn",
           p->name, p->fp8 ? "fp8" : "int8", cc_major, cc_minor, p->name);
  return false;
}

gb_gemm_lt_dims gb_gemm_lt_layout(gb_gemm_layout l, int64_t m, int64_t n, int64_t k) {
  gb_gemm_lt_dims d = {.trans_b = CUBLAS_OP_N, .b_rows = (uint64_t)k, .b_cols = (uint64_t)m, .ldb = k,
                       .d_rows = (uint64_t)n, .d_cols = (uint64_t)m, .ldd = n};
  if (l == GB_GEMM_NN) {
    /* B (k x n row-major) read column-major is B^T, n x k with ld n */
    d.trans_a = CUBLAS_OP_N;
    d.a_rows = (uint64_t)n;
    d.a_cols = (uint64_t)k;
    d.lda = n;
  } else {
    /* B (n x k row-major) read column-major is k x n with ld k, transposed by OP_T */
    d.trans_a = CUBLAS_OP_T;
    d.a_rows = (uint64_t)k;
    d.a_cols = (uint64_t)n;
    d.lda = k;
  }
  return d;
}

gb_gemm_ref_grid gb_gemm_ref_launch(gb_gemm_layout l, int64_t n, size_t nrows) {
  /* TN: 256 / 32 = 8 warps, one column each; NN: 256 columns, one per thread */
  uint64_t cols = l == GB_GEMM_NN ? GB_GEMM_REF_THREADS : GB_GEMM_REF_THREADS / 32;
  gb_gemm_ref_grid g = {.block = GB_GEMM_REF_THREADS};
  g.gx = (unsigned)(((uint64_t)n + cols - 1) / cols);
  g.gy = (unsigned)((nrows + GB_GEMM_REF_ROWS - 1) / GB_GEMM_REF_ROWS);
  return g;
}

/* FLOP = 2 m n k: m n dot products of length k, one multiply and one add per term. */
double gb_gemm_flops(int64_t m, int64_t n, int64_t k) { return 2.0 * (double)m * (double)n * (double)k; }

const char *gb_gemm_metric(const gb_gemm_prec *p) {
  return p->integer ? GB_METRIC_NAME(gemm, tops) : GB_METRIC_NAME(gemm, tflops);
}

const char *gb_gemm_metric_in(const gb_gemm_prec *p, gb_gemm_window w) {
  if (w == GB_GEMM_WINDOW_SUSTAINED)
    return p->integer ? GB_METRIC_NAME(gemm, tops_sustained) : GB_METRIC_NAME(gemm, tflops_sustained);
  return gb_gemm_metric(p);
}

const char *gb_gemm_unit(const gb_gemm_prec *p) {
  return p->integer ? GB_METRIC_UNIT(gemm, tops) : GB_METRIC_UNIT(gemm, tflops);
}

/* ---- support ---- */

bool gb_gemm_supported(const gb_gemm_prec *p, int cc_major, int cc_minor, char *why, size_t why_n) {
  int cc = cc_major * 10 + cc_minor;
  if (cc >= p->min_cc) return true;
  if (p->block) {
    snprintf(why, why_n, "%s: needs sm_100+ block-scaled tensor cores; this GPU is sm_%d%d (%s: %s with an %s "
             "scale per %d elements along K)", p->name, cc_major, cc_minor, p->fp4 ? "NVFP4" : "MXFP8",
             p->fp4 ? "e2m1" : "e4m3", p->fp4 ? "e4m3" : "ue8m0", p->block);
    return false;
  }
  const char *what = p->fp8       ? "fp8 tensor-core GEMM"
                     : p->integer ? "int8 tensor-core GEMM (TN, int32 accumulation)"
                                  : "this precision";
  snprintf(why, why_n, "%s: %s needs compute capability %d.%d or newer; this device is %d.%d", p->name, what,
           p->min_cc / 10, p->min_cc % 10, cc_major, cc_minor);
  return false;
}


bool gb_gemm_case_runs(const gb_case *c, int cc_major, int cc_minor, char *why, size_t why_n) {
  const gb_gemm_prec *p = c->spec;
  if (!p) {
    snprintf(why, why_n, "%s: not a GEMM case", c->name);
    return false;
  }
  if (!gb_gemm_supported(p, cc_major, cc_minor, why, why_n) ||
      !gb_gemm_layout_supported(p, (gb_gemm_layout)c->param[0], cc_major, cc_minor, why, why_n))
    return false;
  if (p->block && c->groups != GB_NA) {
    snprintf(why, why_n, "grouped_%s: grouped block-scaled GEMM is not measured (the dense %s cases are)", p->name,
             p->name);
    return false;
  }
  return true;
}
