/* bench_gemm_math: the pure parts of the GEMM benchmark declared in
 * bench/bench_gemm.h (precision table, FLOPs, shapes, the check, timing plan,
 * speedups, the end-of-run table). No CUDA calls: tested on the CPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_opts.h"
#include "gb_num.h"
#include "gb_stats.h"

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

const char *gb_gemm_metric(const gb_gemm_prec *p) { return p->integer ? "tops" : "tflops"; }

const char *gb_gemm_metric_in(const gb_gemm_prec *p, gb_gemm_window w) {
  if (w == GB_GEMM_WINDOW_SUSTAINED) return p->integer ? "tops_sustained" : "tflops_sustained";
  return gb_gemm_metric(p);
}

const char *gb_gemm_unit(const gb_gemm_prec *p) { return p->integer ? "TOP/s" : "TFLOP/s"; }

/* ---- shapes ---- */

static size_t put_shape(gb_gemm_shape *out, size_t cap, size_t i, int64_t m, int64_t n, int64_t k,
                        const char *family) {
  if (i < cap) out[i] = (gb_gemm_shape){.m = m, .n = n, .k = k, .family = family};
  return i + 1;
}

size_t gb_gemm_shapes(gb_profile profile, gb_gemm_shape *out, size_t cap) {
  size_t i = 0;
  if (profile == GB_PROFILE_QUICK) {
    i = put_shape(out, cap, i, 8192, 8192, 8192, "square");
    i = put_shape(out, cap, i, 4096, 14336, 4096, "transformer"); /* MLP up, 8B-class model */
    i = put_shape(out, cap, i, 4096, 4096, 14336, "transformer"); /* MLP down */
    i = put_shape(out, cap, i, 8, 14336, 4096, "decode");
    return i;
  }
  static const int64_t squares[] = {1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
  for (size_t s = 0; s < sizeof squares / sizeof *squares; s++)
    i = put_shape(out, cap, i, squares[s], squares[s], squares[s], "square");
  /* (N, K) of the MLP projections of hidden 4096 (width 14336) and hidden
   * 8192 (width 28672), up (N = width) and down (K = width). */
  static const int64_t nk[][2] = {{14336, 4096}, {4096, 14336}, {28672, 8192}, {8192, 28672}};
  static const int64_t tokens[] = {4096, 16384};
  for (size_t t = 0; t < 2; t++)
    for (size_t j = 0; j < 4; j++) i = put_shape(out, cap, i, tokens[t], nk[j][0], nk[j][1], "transformer");
  static const int64_t decode[] = {1, 8, 64};
  for (size_t t = 0; t < 3; t++)
    for (size_t j = 0; j < 4; j++) i = put_shape(out, cap, i, decode[t], nk[j][0], nk[j][1], "decode");
  return i;
}

static uint64_t round256(uint64_t b) { return (b + 255) / 256 * 256; }

/* Bytes of one element of t (kept here so this file needs no device code). */
static uint64_t elem_bytes(gb_dtype t) {
  switch (t) {
  case GB_DT_F64: return 8;
  case GB_DT_F32:
  case GB_DT_I32: return 4;
  case GB_DT_F16:
  case GB_DT_BF16: return 2;
  case GB_DT_F8E4M3:
  case GB_DT_F8E5M2:
  case GB_DT_I8: return 1;
  }
  return 8;
}

uint64_t gb_gemm_input_bytes(const gb_gemm_prec *p, int64_t m, int64_t n, int64_t k) {
  return round256((uint64_t)m * (uint64_t)k * elem_bytes(p->a_type)) +
         round256((uint64_t)n * (uint64_t)k * elem_bytes(p->b_type));
}

uint64_t gb_gemm_output_bytes(const gb_gemm_prec *p, int64_t m, int64_t n) {
  return round256((uint64_t)m * (uint64_t)n * elem_bytes(p->d_type));
}

int gb_gemm_input_sets(uint64_t set_bytes, uint64_t l2_bytes, uint64_t max_bytes) {
  return gb_gemm_input_sets_for(0, set_bytes, l2_bytes, max_bytes);
}

int gb_gemm_input_sets_for(int want, uint64_t set_bytes, uint64_t l2_bytes, uint64_t max_bytes) {
  if (set_bytes == 0) return want > 0 ? want : 1;
  uint64_t sets = (uint64_t)want;
  if (want <= 0) { /* the rule: enough sets to cover three L2s, at most GB_GEMM_INPUT_SETS_MAX */
    uint64_t cover = 3 * l2_bytes;
    sets = set_bytes >= cover ? 1 : (cover + set_bytes - 1) / set_bytes;
    if (sets > GB_GEMM_INPUT_SETS_MAX) sets = GB_GEMM_INPUT_SETS_MAX;
  }
  if (max_bytes / set_bytes < sets) sets = max_bytes / set_bytes;
  return sets < 1 ? 1 : (int)sets;
}

size_t gb_gemm_sample_rows(int64_t m, int64_t *rows, size_t cap) {
  size_t nrows = m <= 256 ? (size_t)m : 128;
  for (size_t i = 0; i < nrows && i < cap; i++)
    rows[i] = nrows == (size_t)m ? (int64_t)i : (int64_t)i * (m - 1) / (int64_t)(nrows - 1);
  return nrows;
}

/* ---- support ---- */

bool gb_gemm_supported(const gb_gemm_prec *p, int cc_major, int cc_minor, char *why, size_t why_n) {
  int cc = cc_major * 10 + cc_minor;
  if (cc >= p->min_cc) return true;
  const char *what = p->fp8       ? "fp8 tensor-core GEMM"
                     : p->integer ? "int8 tensor-core GEMM (TN, int32 accumulation)"
                                  : "this precision";
  snprintf(why, why_n, "%s: %s needs compute capability %d.%d or newer; this device is %d.%d", p->name, what,
           p->min_cc / 10, p->min_cc % 10, cc_major, cc_minor);
  return false;
}

/* ---- the check ---- */

/* rel = sqrt(sum (out_i - ref_i)^2) / sqrt(sum ref_i^2) */
double gb_gemm_rel_error(const double *out, const double *ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(out[i]) || !isfinite(ref[i])) return NAN;
    double d = out[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (!(den > 0)) return NAN;
  return sqrt(num) / sqrt(den);
}

double gb_gemm_tolerance(const gb_gemm_prec *p, int64_t k) {
  return p->tol + p->tol_per_sqrt_k * sqrt((double)k);
}

gb_status gb_gemm_check_decide(const gb_gemm_prec *p, int64_t k, double rel_err, uint64_t nonfinite) {
  if (nonfinite > 0) return GB_STATUS_INVALID;
  if (!(rel_err <= gb_gemm_tolerance(p, k))) return GB_STATUS_INVALID; /* NaN fails too */
  return GB_STATUS_OK;
}

bool gb_gemm_amax_agrees(double amax_d, double max_abs_out, double scale_d, bool out_fp8) {
  if (!isfinite(amax_d) || !isfinite(max_abs_out) || !isfinite(scale_d)) return false;
  double expect = amax_d * scale_d;
  if (max_abs_out == 0) return expect == 0;
  double rounding = out_fp8 ? 1.0 / 16 : 1.0 / 256;
  return fabs(expect - max_abs_out) <= (rounding + 0.01) * max_abs_out;
}

double gb_gemm_scale_d(const gb_gemm_prec *p) { return p->out_fp8 && p->scale_d > 0 ? p->scale_d : 1.0; }

/* ---- timing ---- */

const char *gb_gemm_window_name(gb_gemm_window w) {
  return w == GB_GEMM_WINDOW_SUSTAINED ? "sustained" : "burst";
}

int gb_gemm_keep(const double *t, int n, int first) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (isfinite(t[i]) && (best < 0 || t[i] < t[best])) best = i;
  if (best >= 0 && first >= 0 && first < n && first != best && isfinite(t[first]) &&
      t[first] <= t[best] * (1.0 + GB_GEMM_KEEP_MARGIN))
    return first;
  return best;
}

int gb_gemm_first_of(const double *t, int a, int b) {
  if (a < 0 || (b >= 0 && !isfinite(t[a]))) return b;
  if (b < 0 || !isfinite(t[b])) return a;
  return t[b] < t[a] ? b : a;
}

int gb_gemm_finalists(const double *t, int n, int first, int max, int *out) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (isfinite(t[i]) && (best < 0 || t[i] < t[best])) best = i;
  if (best < 0 || max < 1) return 0;
  double limit = t[best] * (1.0 + GB_GEMM_FINALIST_WITHIN);
  int got = 0;
  bool first_in = false;
  /* selection by screening time, fastest first (n is at most a few dozen) */
  while (got < max) {
    int next = -1;
    for (int i = 0; i < n; i++) {
      if (!isfinite(t[i]) || t[i] > limit) continue;
      bool taken = false;
      for (int j = 0; j < got; j++) taken = taken || out[j] == i;
      if (!taken && (next < 0 || t[i] < t[next])) next = i;
    }
    if (next < 0) break;
    out[got++] = next;
    first_in = first_in || next == first;
  }
  if (!first_in && first >= 0 && first < n && isfinite(t[first]) && t[first] <= limit && got == max)
    out[got - 1] = first;
  return got;
}

int gb_gemm_rest_ms(const gb_gemm_opts *o) {
  if (o->rest_ms >= 0) return o->rest_ms;
  return o->window == GB_GEMM_WINDOW_BURST ? GB_GEMM_REST_MS_BURST : 0;
}

gb_gemm_timing gb_gemm_timing_plan(gb_profile profile, gb_gemm_window window, double t_op_s) {
  bool quick = profile == GB_PROFILE_QUICK;
  double search_budget_s = quick ? 0.08 : 0.25;
  gb_gemm_timing t = {.budget_s = quick ? 0.2 : 0.5, .max_samples = 200};
  if (!(t_op_s > 0)) t_op_s = 1e-3;
  /* at least 100 us between the two events of a sample */
  t.ops_per_sample = 1;
  if (t_op_s < 100e-6) {
    t.ops_per_sample = (int)ceil(100e-6 / t_op_s);
    if (t.ops_per_sample > 64) t.ops_per_sample = 64;
  }
  double t_sample = t_op_s * t.ops_per_sample;
  /* 3 samples up to 50 ms: with 2, fp32 8192^3 (21 ms) on an H200 kept
   * heuristic #2, over 1% ahead in the search, 1.6% behind #1 in the window */
  t.search_reps = t_sample < 1e-3 ? 5 : t_sample < 50e-3 ? 3 : 2;
  double cand = floor(search_budget_s / ((t.search_reps + 1) * t_sample));
  /* at least 4, also for products too long for the search budget: the
   * heuristic's first is not always the fastest (bf16 8192^3 on an H200 kept
   * its #2 or #7) */
  t.candidates = cand < 4 ? 4 : cand > 8 ? 8 : (int)cand;
  /* the rested confirmation: bursts of ~15 ms of products (3..10 samples)
   * after an idle, GB_GEMM_FINALISTS_DEFAULT finalists a round, as many
   * rounds (up to 2 quick, 3 full) as fit in 0.6 s (quick) or 1 s (full) of
   * products, at least one */
  {
    int samples = (int)floor(0.015 / t_sample);
    t.confirm_samples = samples < 3 ? 3 : samples > 10 ? 10 : samples;
    t.confirm_warmup = (t_sample < 20e-3 ? 2 : 1) * t.ops_per_sample;
    t.confirm_rest_ms = GB_GEMM_CONFIRM_REST_MS;
    double per_round = GB_GEMM_FINALISTS_DEFAULT * (t.confirm_samples * t_sample + t.confirm_warmup * t_op_s);
    int rounds = (int)floor((quick ? 0.6 : 1.0) / per_round + 1e-9), max_rounds = quick ? 2 : 3;
    t.confirm_rounds = rounds < 1 ? 1 : rounds > max_rounds ? max_rounds : rounds;
  }
  if (window == GB_GEMM_WINDOW_BURST) {
    double cap_s = quick ? 0.6 : 1.5;
    int n = t_sample * 30 <= cap_s ? 30 : (int)floor(cap_s / t_sample + 1e-9);
    if (n < 10) n = 10;
    t.warmup = (t_sample < 20e-3 ? 5 : 2) * t.ops_per_sample;
    t.min_samples = t.max_samples = n;
    t.budget_s = 0;
    return t;
  }
  t.warmup = t_sample < 10e-3 ? 3 : 1;
  t.min_samples = t_sample > 50e-3 ? 5 : 10;
  return t;
}

/* ---- speedups ---- */

/* A measured throughput row of the gemm benchmark, of either window (a run
 * measures in one): ok, or throttled (it ran and was checked; its status
 * already says the clocks were held down). */
static bool is_throughput(const gb_row *r) {
  return r->benchmark && strcmp(r->benchmark, "gemm") == 0 && r->metric &&
         (strcmp(r->metric, "tflops") == 0 || strcmp(r->metric, "tops") == 0 ||
          strcmp(r->metric, "tflops_sustained") == 0 || strcmp(r->metric, "tops_sustained") == 0) &&
         r->case_name &&
         gb_gemm_case_parse(r->case_name, NULL) && (r->status == GB_STATUS_OK || r->status == GB_STATUS_THROTTLED) &&
         isfinite(r->value) && r->value > 0;
}

/* Median of the ok rates of case name prec ("bf16", "fp64_nn") at m x n x k
 * over every rep (NaN when there is none). */
static double median_rate(const gb_row *rows, size_t n, const char *prec, int64_t m, int64_t nn, int64_t k) {
  double *v = malloc((n + 1) * sizeof *v);
  if (!v) return NAN;
  size_t nv = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (is_throughput(r) && strcmp(r->case_name, prec) == 0 && r->m == m && r->n == nn && r->k == k)
      v[nv++] = r->value;
  }
  double med = gb_median(v, nv);
  free(v);
  return med;
}

/* True when an earlier row than i is an ok row of the same case and shape. */
static bool seen_before(const gb_row *rows, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (is_throughput(&rows[j]) && strcmp(rows[j].case_name, rows[i].case_name) == 0 && rows[j].m == rows[i].m &&
        rows[j].n == rows[i].n && rows[j].k == rows[i].k)
      return true;
  return false;
}

gb_err gb_gemm_speedups(const gb_row *rows, size_t n, gb_gemm_speedup **out, size_t *nout) {
  static const char *const refs[] = {"fp32", "fp64"};
  *out = NULL;
  *nout = 0;
  size_t cap = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (!is_throughput(r) || seen_before(rows, i)) continue;
    const gb_gemm_prec *p = gb_gemm_case_parse(r->case_name, NULL);
    double rate = median_rate(rows, n, r->case_name, r->m, r->n, r->k);
    for (size_t j = 0; j < 2; j++) {
      if (strcmp(r->case_name, refs[j]) == 0) continue; /* the references are the TN cases */
      double ref = median_rate(rows, n, refs[j], r->m, r->n, r->k);
      if (!(ref > 0) || !(rate > 0)) continue;
      if (*nout == cap) {
        size_t ncap = cap ? 2 * cap : 32;
        gb_gemm_speedup *v = realloc(*out, ncap * sizeof *v);
        if (!v) {
          free(*out);
          *out = NULL;
          *nout = 0;
          return gb_fail(GB_E_NOMEM, "gemm speedups: out of host memory");
        }
        *out = v;
        cap = ncap;
      }
      gb_gemm_speedup *s = &(*out)[(*nout)++];
      memset(s, 0, sizeof *s);
      snprintf(s->case_name, sizeof s->case_name, "%s_vs_%s", r->case_name, refs[j]);
      snprintf(s->dtype, sizeof s->dtype, "%s", p->dtype);
      s->m = r->m;
      s->n = r->n;
      s->k = r->k;
      s->rate = rate;
      s->ref_rate = ref;
      s->value = rate / ref; /* speedup = rate(precision) / rate(reference), same shape */
      gb_snprintf_c(s->detail, sizeof s->detail, "%s %.1f %s / %s %.1f TFLOP/s (medians over repetitions)",
                    r->case_name, rate, gb_gemm_unit(p), refs[j], ref);
    }
  }
  return GB_OK;
}

/* ---- the end-of-run table ---- */

/* The status of case p's last throughput row at the square size s, or
 * NULL when it has none there. */
static const char *summary_status(const gb_row *rows, size_t n, const char *p, int64_t s) {
  const char *st = NULL;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (r->benchmark && strcmp(r->benchmark, "gemm") == 0 && r->case_name && strcmp(r->case_name, p) == 0 &&
        r->m == s && r->n == s && r->k == s && r->metric &&
        (strcmp(r->metric, "tflops") == 0 || strcmp(r->metric, "tops") == 0))
      st = gb_status_name(r->status);
  }
  return st;
}

void gb_gemm_summary_table(const gb_row *rows, size_t n, FILE *fp) {
  int64_t size = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (!is_throughput(r) || r->m != r->n || r->n != r->k) continue;
    if (r->m == 8192) {
      size = 8192;
      break;
    }
    if (r->m > size) size = r->m;
  }
  if (size == 0) {
    fprintf(fp, "gemm: no square shape measured ok; no summary\n");
    return;
  }
  double fp32 = median_rate(rows, n, "fp32", size, size, size);
  double fp64 = median_rate(rows, n, "fp64", size, size, size);
  fprintf(fp, "gemm at %lldx%lldx%lld (median rate; speedup = rate / rate of fp32 or fp64, same shape)\n",
          (long long)size, (long long)size, (long long)size);
  fprintf(fp, "%-24s %10s %-8s %8s %8s\n", "precision", "rate", "unit", "vs fp32", "vs fp64");
  size_t np;
  const gb_gemm_prec *precs = gb_gemm_precs(&np);
  for (size_t i = 0; i < np * GB_GEMM_NLAYOUTS; i++) {
    /* each precision's TN case, then its NN case (ratios against the TN fp32 and fp64) */
    const gb_gemm_prec *p = &precs[i / GB_GEMM_NLAYOUTS];
    char name[64];
    gb_gemm_case_name(p, (gb_gemm_layout)(i % GB_GEMM_NLAYOUTS), name, sizeof name);
    const char *st = summary_status(rows, n, name, size);
    if (!st) continue;
    double v = median_rate(rows, n, name, size, size, size);
    char buf[3][32];
    if (isnan(v)) {
      fprintf(fp, "%-24s %10s %-8s\n", name, st, "");
      continue;
    }
    gb_snprintf_c(buf[0], sizeof buf[0], "%.1f", v);
    if (isnan(fp32)) snprintf(buf[1], sizeof buf[1], "-");
    else gb_snprintf_c(buf[1], sizeof buf[1], "%.2f", v / fp32);
    if (isnan(fp64)) snprintf(buf[2], sizeof buf[2], "-");
    else gb_snprintf_c(buf[2], sizeof buf[2], "%.2f", v / fp64);
    fprintf(fp, "%-24s %10s %-8s %8s %8s\n", name, buf[0], gb_gemm_unit(p), buf[1], buf[2]);
  }
}

/* ---- --opt gemm.* ---- */

static gb_err gemm_opt_prec(void *ctx, const char *item) {
  gb_gemm_opts *o = ctx;
  const gb_gemm_prec *p = gb_gemm_prec_find(item);
  if (!p) return gb_fail(GB_E_USAGE, "--opt gemm.precs: unknown precision \"%s\" (the case names of `gemm`, e.g. bf16, fp8e4m3_fastacc, int8)", item);
  if (o->nprecs == sizeof o->precs / sizeof o->precs[0]) return gb_fail(GB_E_USAGE, "--opt gemm.precs: too many");
  o->precs[o->nprecs++] = p;
  return GB_OK;
}

static gb_err gemm_opt_shape(void *ctx, const char *item) {
  gb_gemm_opts *o = ctx;
  long long m, n, k;
  char extra;
  int got = sscanf(item, "%lldx%lldx%lld%c", &m, &n, &k, &extra);
  if (got == 1 || (got == 0 && sscanf(item, "%lld%c", &m, &extra) == 1)) n = k = m, got = 3;
  if (got != 3 || m < 1 || n < 1 || k < 1 || m > 1 << 20 || n > 1 << 20 || k > 1 << 20)
    return gb_fail(GB_E_USAGE, "--opt gemm.shapes: \"%s\" is not N or MxNxK (each 1 to 1048576)", item);
  if (o->nshapes == GB_GEMM_MAX_OPT_SHAPES)
    return gb_fail(GB_E_USAGE, "--opt gemm.shapes: at most %d shapes", GB_GEMM_MAX_OPT_SHAPES);
  o->shapes[o->nshapes++] = (gb_gemm_shape){m, n, k, m == n && n == k ? "square" : "custom"};
  return GB_OK;
}

/* one item of gemm.layout; *seen marks that the key was given at all */
typedef struct layout_ctx {
  gb_gemm_opts *o;
  bool seen;
} layout_ctx;

static gb_err gemm_opt_layout(void *ctx, const char *item) {
  layout_ctx *lc = ctx;
  gb_gemm_layout l;
  if (strcmp(item, "tn") == 0) l = GB_GEMM_TN;
  else if (strcmp(item, "nn") == 0) l = GB_GEMM_NN;
  else
    return gb_fail(GB_E_USAGE,
                   "--opt gemm.layout: unknown layout \"%s\" (tn: B n x k, D = A B^T; nn: B k x n, D = A B; "
                   "e.g. gemm.layout=tn:nn)",
                   item);
  if (lc->o->layouts[l]) return gb_fail(GB_E_USAGE, "--opt gemm.layout: \"%s\" listed twice", item);
  lc->o->layouts[l] = true;
  return GB_OK;
}

/* A key with two values, a and b (each with what it means, or NULL): *is_b
 * tells which was given; anything else is a usage error naming both, e.g.
 * "--opt gemm.window: \"x\" is not burst (...) or sustained (...)". */
static gb_err gemm_opt_choice(const char *key, const char *val, const char *a, const char *a_means, const char *b,
                              const char *b_means, bool *is_b) {
  *is_b = strcmp(val, b) == 0;
  if (*is_b || strcmp(val, a) == 0) return GB_OK;
  return gb_fail(GB_E_USAGE, "--opt gemm.%s: \"%s\" is not %s%s%s%s or %s%s%s%s", key, val, a, a_means ? " (" : "",
                 a_means ? a_means : "", a_means ? ")" : "", b, b_means ? " (" : "", b_means ? b_means : "",
                 b_means ? ")" : "");
}

static gb_err gemm_opt(void *ctx, const char *key, const char *val, bool prefixed) {
  (void)prefixed;
  layout_ctx *lc = ctx;
  gb_gemm_opts *o = lc->o;
  if (strcmp(key, "precs") == 0) return gb_opts_list("gemm.precs", val, gemm_opt_prec, o);
  if (strcmp(key, "shapes") == 0) return gb_opts_list("gemm.shapes", val, gemm_opt_shape, o);
  if (strcmp(key, "layout") == 0) {
    if (lc->seen) return gb_fail(GB_E_USAGE, "--opt gemm.layout: given twice (list both: gemm.layout=tn:nn)");
    lc->seen = true;
    return gb_opts_list("gemm.layout", val, gemm_opt_layout, lc);
  }
  if (strcmp(key, "rest_ms") == 0) {
    int64_t v;
    if (!gb_parse_i64(val, &v) || v < 0 || v > GB_GEMM_REST_MS_MAX)
      return gb_fail(GB_E_USAGE, "--opt gemm.rest_ms: \"%s\" is not a whole number of milliseconds from 0 to %d",
                     val, GB_GEMM_REST_MS_MAX);
    o->rest_ms = (int)v;
    return GB_OK;
  }
  if (strcmp(key, "candidates") == 0 || strcmp(key, "candidate") == 0 || strcmp(key, "finalists") == 0 ||
      strcmp(key, "confirm") == 0 || strcmp(key, "confirm_rest_ms") == 0 || strcmp(key, "input_sets") == 0 ||
      strcmp(key, "workspace_kib") == 0) {
    bool cand = strcmp(key, "candidates") == 0, one = strcmp(key, "candidate") == 0,
         fin = strcmp(key, "finalists") == 0, rest = strcmp(key, "confirm_rest_ms") == 0,
         sets = strcmp(key, "input_sets") == 0, kib = strcmp(key, "workspace_kib") == 0;
    int64_t lo = cand || one || fin || sets ? 1 : 0;
    int64_t hi = cand || one ? GB_GEMM_CANDIDATES_MAX
                 : fin       ? GB_GEMM_FINALISTS_MAX
                 : rest      ? GB_GEMM_REST_MS_MAX
                 : sets      ? GB_GEMM_INPUT_SETS_MAX
                 : kib       ? GB_GEMM_WORKSPACE_KIB_MAX
                             : GB_GEMM_CONFIRM_MAX;
    int64_t v;
    if (!gb_parse_i64(val, &v) || v < lo || v > hi)
      return gb_fail(GB_E_USAGE, "--opt gemm.%s: \"%s\" is not a whole number from %lld to %lld%s", key, val,
                     (long long)lo, (long long)hi, rest ? " (milliseconds)" : kib ? " (KiB)" : "");
    if (cand) o->candidates = (int)v;
    else if (one) o->candidate = (int)v;
    else if (fin) o->finalists = (int)v;
    else if (rest) o->confirm_rest_ms = (int)v;
    else if (sets) o->input_sets = (int)v;
    else if (kib) o->workspace_kib = (int)v;
    else o->confirm_rounds = (int)v;
    return GB_OK;
  }
  if (strcmp(key, "search_log") == 0 || strcmp(key, "samples_log") == 0) {
    char *dst = strcmp(key, "search_log") == 0 ? o->search_log : o->samples_log;
    size_t len = strlen(val), cap = sizeof o->search_log;
    if (len == 0 || len >= cap)
      return gb_fail(GB_E_USAGE, "--opt gemm.%s: give a file path of 1 to %zu characters", key, cap - 1);
    memcpy(dst, val, len + 1);
    return GB_OK;
  }
  bool second;
  gb_err e;
  if (strcmp(key, "window") == 0) {
    e = gemm_opt_choice(key, val, "burst", "30 products after 5 warm-ups", "sustained", "at least 0.5 s of products",
                        &second);
    if (!e) o->window = second ? GB_GEMM_WINDOW_SUSTAINED : GB_GEMM_WINDOW_BURST;
    return e;
  }
  if (strcmp(key, "fp8_amax") == 0) {
    e = gemm_opt_choice(key, val, "on", NULL, "off", "whether the fp8 cases compute the amax of D", &second);
    if (!e) o->fp8_no_amax = second;
    return e;
  }
  if (strcmp(key, "out_of_place") == 0) {
    e = gemm_opt_choice(key, val, "on", NULL, "off", "whether C gets a buffer of its own instead of D", &second);
    if (!e) o->out_of_place = !second;
    return e;
  }
  if (strcmp(key, "timing") == 0) {
    e = gemm_opt_choice(key, val, "chain", "one chain of events, every gap between products inside a sample", "pairs",
                        "two events per product, as PyTorch's timing loops", &second);
    if (!e) o->event_pairs = second;
    return e;
  }
  if (strcmp(key, "search") == 0) {
    if (strcmp(val, "variants") == 0) o->search = GB_GEMM_SEARCH_VARIANTS;
    else if (strcmp(val, "heuristic") == 0) o->search = GB_GEMM_SEARCH_HEURISTIC;
    else if (strcmp(val, "extended") == 0) o->search = GB_GEMM_SEARCH_EXTENDED;
    else
      return gb_fail(GB_E_USAGE,
                     "--opt gemm.search: \"%s\" is not variants (the heuristic's candidates, and configurations "
                     "of its #1 when it returns fewer than 8), heuristic (its candidates only) or extended (also "
                     "enumerated configurations)",
                     val);
    return GB_OK;
  }
  return gb_fail(GB_E_USAGE,
                 "--opt gemm.%s: unknown key (known: precs, shapes, layout, search, window, rest_ms, candidates, "
                 "candidate, finalists, confirm, confirm_rest_ms, search_log, samples_log, fp8_amax, input_sets, "
                 "out_of_place, timing, workspace_kib)",
                 key);
}

gb_err gb_gemm_opts_parse(const char *bench_opts, gb_gemm_opts *out) {
  memset(out, 0, sizeof *out);
  out->rest_ms = -1;
  out->confirm_rounds = -1;
  out->confirm_rest_ms = -1;
  out->workspace_kib = -1;
  layout_ctx lc = {.o = out};
  gb_err err = gb_opts_each(bench_opts, "gemm.", false, gemm_opt, &lc);
  if (!err && !lc.seen) out->layouts[GB_GEMM_TN] = true;
  return err;
}

void gb_gemm_settings(const gb_gemm_opts *o, char *buf, size_t n) {
  gb_settings s = gb_settings_start(buf, n);
  if (o->search != GB_GEMM_SEARCH_VARIANTS)
    gb_settings_add(&s, "gemm.search=%s", o->search == GB_GEMM_SEARCH_EXTENDED ? "extended" : "heuristic");
  if (o->rest_ms >= 0) gb_settings_add(&s, "gemm.rest_ms=%d", o->rest_ms);
  if (o->candidates > 0) gb_settings_add(&s, "gemm.candidates=%d", o->candidates);
  if (o->candidate > 0) gb_settings_add(&s, "gemm.candidate=%d", o->candidate);
  if (o->finalists > 0) gb_settings_add(&s, "gemm.finalists=%d", o->finalists);
  if (o->confirm_rounds >= 0) gb_settings_add(&s, "gemm.confirm=%d", o->confirm_rounds);
  if (o->confirm_rest_ms >= 0) gb_settings_add(&s, "gemm.confirm_rest_ms=%d", o->confirm_rest_ms);
  if (o->fp8_no_amax) gb_settings_add(&s, "gemm.fp8_amax=off");
  if (o->input_sets > 0) gb_settings_add(&s, "gemm.input_sets=%d", o->input_sets);
  if (o->out_of_place) gb_settings_add(&s, "gemm.out_of_place=on");
  if (o->event_pairs) gb_settings_add(&s, "gemm.timing=pairs");
  if (o->workspace_kib >= 0) gb_settings_add(&s, "gemm.workspace_kib=%d", o->workspace_kib);
}

bool gb_gemm_plan_wants(const gb_gemm_opts *o, const gb_gemm_prec *p, gb_gemm_layout l, int cc_major,
                        int cc_minor) {
  if (!o->layouts[l]) return false;
  if (o->nprecs == 0) {
    char why[256];
    return cc_major < 0 || gb_gemm_layout_supported(p, l, cc_major, cc_minor, why, sizeof why);
  }
  for (size_t j = 0; j < o->nprecs; j++)
    if (o->precs[j] == p) return true;
  return false;
}

/* ---- the extended algorithm search ---- */

/* rows x columns of a tile id from its name ("128x256" -> 32768); 0 when unknown */
static double tile_area(unsigned tile) {
  char buf[24];
  const char *name = gb_gemm_tile_name(tile, buf, sizeof buf);
  unsigned r = 0, c = 0;
  char extra;
  if (sscanf(name, "%ux%u%c", &r, &c, &extra) != 2) return 0;
  return (double)r * (double)c;
}

double gb_gemm_enum_score(const gb_gemm_enum_cand *c) {
  double area = tile_area(c->tile);
  double waves = c->waves;
  if (!(area > 0) || !(waves > 0) || !isfinite(waves)) return 0;
  /* tail efficiency: 1.0 for whole waves; 2.5 waves -> 2.5 / 3 = 0.83 */
  return area * (waves / ceil(waves));
}

int gb_gemm_stage_depth(unsigned stages) {
  char buf[24];
  const char *name = gb_gemm_stages_name(stages, buf, sizeof buf);
  unsigned kdepth = 0, count = 0;
  char extra;
  if (sscanf(name, "%ux%u%c", &kdepth, &count, &extra) == 2) return (int)count;
  char tail[8];
  if (sscanf(name, "%ux%7s", &kdepth, tail) == 2 && strcmp(tail, "AUTO") == 0) return 1000;
  return 0;
}

/* candidate i is shadowed by a deeper-staged (or, equally deep, earlier)
 * candidate of the same algo id and tile (depth[] from gb_gemm_stage_depth) */
static bool enum_shadowed(const gb_gemm_enum_cand *c, const int *depth, size_t n, size_t i) {
  for (size_t j = 0; j < n; j++) {
    if (j == i || c[j].algo_id != c[i].algo_id || c[j].tile != c[i].tile) continue;
    if (depth[j] > depth[i] || (depth[j] == depth[i] && j < i)) return true;
  }
  return false;
}

size_t gb_gemm_enum_pick(const gb_gemm_enum_cand *c, size_t n, size_t want, size_t *picked) {
  if (n == 0 || want == 0) return 0;
  double *score = malloc(n * sizeof *score);
  int *depth = malloc(n * sizeof *depth);
  bool *used = calloc(n, sizeof *used), *served = calloc(n, sizeof *served);
  size_t got = 0;
  if (!score || !depth || !used || !served) goto done;
  for (size_t i = 0; i < n; i++) {
    score[i] = gb_gemm_enum_score(&c[i]);
    depth[i] = gb_gemm_stage_depth(c[i].stages);
  }
  for (size_t i = 0; i < n; i++)
    if (!(score[i] > 0) || enum_shadowed(c, depth, n, i)) used[i] = true; /* never picked */
  /* rounds: in each, every algo id gives its best unused candidate, the ids
   * taken in the order of those candidates' scores; served[i] says that
   * c[i]'s algo id has had its turn this round */
  while (got < want) {
    size_t round_start = got;
    memset(served, 0, n * sizeof *served);
    while (got < want) {
      size_t best = n;
      for (size_t i = 0; i < n; i++)
        if (!used[i] && !served[i] && (best == n || score[i] > score[best])) best = i;
      if (best == n) break;
      picked[got++] = best;
      used[best] = true;
      for (size_t i = 0; i < n; i++)
        if (c[i].algo_id == c[best].algo_id) served[i] = true;
    }
    if (got == round_start) break; /* nothing left */
  }
done:
  free(score);
  free(depth);
  free(used);
  free(served);
  return got;
}
