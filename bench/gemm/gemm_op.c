/* gemm_op: one case's cuBLASLt operation: its buffers (random input sets
 * rotated among, D, C where it has its own, the fp8 scales), its
 * descriptors in the TN or NN layout (bench_gemm.h), as a strided batch of
 * G products for a grouped case, one call, and the description of an
 * algorithm for the row. Called by gemm_bench.c, gemm_search.c,
 * gemm_timing.c and gemm_check.c; calls only the pure files below it
 * (gemm_grouped.c, gemm_shapes.c, gemm_precs.c, gemm_blockscale.c,
 * gemm_names.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cuda.h"
#include "gemm_internal.h"

/* kernels/gemm_ref.cu decodes elements by these codes */
_Static_assert(GB_DT_F64 == 0 && GB_DT_F32 == 1 && GB_DT_F16 == 2 && GB_DT_BF16 == 3 && GB_DT_F8E4M3 == 4 &&
                   GB_DT_F8E5M2 == 5 && GB_DT_I8 == 6 && GB_DT_I32 == 7,
               "gb_dtype codes changed: update kernels/gemm_ref.cu");

/* ---- cuBLASLt descriptors ---- */

void gemm_op_destroy_desc(gemm_op *o) {
  if (o->desc) cublasLtMatmulDescDestroy(o->desc);
  if (o->la) cublasLtMatrixLayoutDestroy(o->la);
  if (o->lb) cublasLtMatrixLayoutDestroy(o->lb);
  if (o->ld) cublasLtMatrixLayoutDestroy(o->ld);
  if (o->lc) cublasLtMatrixLayoutDestroy(o->lc);
  o->desc = NULL;
  o->la = o->lb = o->ld = o->lc = NULL;
}

/* alpha = 1, beta = 0 in the scale type */
static void gemm_scalars(gemm_op *o) {
  memset(o->alpha, 0, sizeof o->alpha);
  memset(o->beta, 0, sizeof o->beta);
  switch (o->p->scale_cuda) {
  case CUDA_R_64F: {
    double one = 1.0;
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  case CUDA_R_16F: {
    uint16_t one = 0x3C00; /* fp16 1.0 */
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  case CUDA_R_32I: {
    int32_t one = 1;
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  default: {
    float one = 1.0f;
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  }
}

/* A grouped case: each layout a strided batch of G matrices back to back. */
static gb_err gemm_op_batch(gemm_op *o, const gb_gemm_lt_dims *dims) {
  int32_t count = (int32_t)o->groups;
  int64_t stride_a = (int64_t)(dims->a_rows * dims->a_cols), stride_b = (int64_t)(dims->b_rows * dims->b_cols);
  int64_t stride_d = (int64_t)(dims->d_rows * dims->d_cols);
  struct {
    cublasLtMatrixLayout_t l;
    int64_t stride;
  } lay[] = {{o->la, stride_a}, {o->lb, stride_b}, {o->ld, stride_d}, {o->lc, stride_d}};
  gb_err err = GB_OK;
  for (size_t i = 0; i < sizeof lay / sizeof lay[0]; i++) {
    if (!lay[i].l) continue;
    GB_CUBLAS_GOTO(cublasLtMatrixLayoutSetAttribute(lay[i].l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                   err, done);
    GB_CUBLAS_GOTO(cublasLtMatrixLayoutSetAttribute(lay[i].l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                    &lay[i].stride, sizeof lay[i].stride),
                   err, done);
  }
done:
  return err;
}

gb_err gemm_op_create_desc(gemm_op *o, bool d_scale, bool amax) {
  gb_err err = GB_OK;
  const gb_gemm_prec *p = o->p;
  gb_gemm_lt_dims dims = gb_gemm_lt_layout(o->layout, o->m, o->n, o->k);
  cublasOperation_t ta = dims.trans_a, tb = dims.trans_b;
  GB_CUBLAS_GOTO(cublasLtMatmulDescCreate(&o->desc, p->compute, p->scale_cuda), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), err, fail);
  o->d_scale = o->amax = false;
  if (p->block) {
    /* cuBLASLt's A is our B, its B our A; one scale per p->block elements along K */
    int32_t mode = p->scale_mode;
    const void *sa = o->bs_b, *sb = o->bs_a;
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb),
                   err, fail);
  }
  if (p->fp8) {
    int8_t fast = (int8_t)p->fast_accum;
    const float *sa = &o->scales[GEMM_SCALE_SLOT(1)], *sb = &o->scales[GEMM_SCALE_SLOT(0)]; /* A' is our B, B' our A */
    const float *sd = &o->scales[GEMM_SCALE_SLOT(2)];
    float *am = &o->scales[GEMM_SCALE_SLOT(3)];
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb),
                   err, fail);
    if (d_scale) {
      GB_CUBLAS_GOTO(
          cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd), err, fail);
      o->d_scale = true;
    }
    if (amax) {
      GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &am, sizeof am),
                     err, fail);
      o->amax = true;
    }
  }
  /* A' = our B, B' = our A, D (gb_gemm_lt_layout has the rows, columns and leading dimensions) */
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->la, p->b_cuda, dims.a_rows, dims.a_cols, dims.lda), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->lb, p->a_cuda, dims.b_rows, dims.b_cols, dims.ldb), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->ld, p->d_cuda, dims.d_rows, dims.d_cols, dims.ldd), err, fail);
  if (p->out_fp8)
    GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->lc, CUDA_R_16BF, dims.d_rows, dims.d_cols, dims.ldd), err, fail);
  if (o->grouped) GB_TRY_GOTO(gemm_op_batch(o, &dims), err, fail);
  return GB_OK;
fail:
  gemm_op_destroy_desc(o);
  return err;
}

gb_err gemm_launch(void *ctx, cudaStream_t s, long iter) {
  gemm_op *o = ctx;
  long set = iter % o->sets;
  const void *a = o->a + (uint64_t)set * o->a_stride;
  const void *b = o->b + (uint64_t)set * o->b_stride;
  cublasStatus_t st = cublasLtMatmul(o->lt, o->desc, o->alpha, b, o->la, a, o->lb, o->beta, o->c ? o->c : o->d,
                                     o->lc ? o->lc : o->ld, o->d, o->ld, &o->algo, o->ws_launch ? o->ws : NULL,
                                     o->ws_launch, s);
  if (st != CUBLAS_STATUS_SUCCESS) return gb_cublas_fail((int)st, "cublasLtMatmul", __FILE__, __LINE__);
  return GB_OK;
}

void gemm_op_use(gemm_op *o, const gemm_cand *c) {
  o->algo = c->algo;
  o->ws_launch = c->no_ws ? 0 : o->ws_bytes;
}

/* ---- buffers ---- */

/* A seed per case and input set, so every case checks fresh data (a TN
 * case keeps the seeds it had before layouts existed). */
static uint64_t gemm_seed(const gemm_op *o, int set, int operand) {
  const gb_gemm_prec *p = o->p;
  int64_t m = o->m, n = o->n, k = o->k;
  uint64_t h = 0x243F6A8885A308D3ull;
  for (const char *c = p->name; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001B3ull;
  if (o->layout == GB_GEMM_NN) h = (h ^ 0x4E4E) * 0x100000001B3ull; /* "NN" */
  if (o->grouped) h = (h ^ (uint64_t)o->groups) * 0x100000001B3ull;
  h ^= (uint64_t)m * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)n * 0xC2B2AE3D27D4EB4Full;
  h ^= (uint64_t)k * 0x165667B19E3779F9ull;
  return h + (uint64_t)set * 2 + (uint64_t)operand;
}

/* Sizes, input sets and strides: the input sets, D, C, the check's
 * reference rows and a margin must fit in the free device memory. */
static gb_err gemm_op_size(const gemm_state *st, const gb_device_info *dev, gemm_op *o, uint64_t *set_bytes) {
  const gb_gemm_prec *p = o->p;
  int64_t gm = o->groups * o->m, gn = o->groups * o->n; /* G matrices of A and of B back to back */
  *set_bytes = gb_gemm_input_bytes(p, gm, gn, o->k);
  o->d_bytes = gb_gemm_output_bytes(p, gm, o->n);
  o->c_bytes = p->out_fp8 ? (uint64_t)gm * (uint64_t)o->n * 2u : st->opts.out_of_place ? o->d_bytes : 0;
  size_t ngroups = o->grouped ? gb_gemm_check_groups(o->groups, NULL, 0) : 1;
  uint64_t check_bytes =
      2ull * ngroups * (o->m <= GEMM_MAX_CHECK_ROWS ? (uint64_t)o->m : 128u) * (uint64_t)o->n * 8u;
  size_t free_b = 0, total_b = 0;
  GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  uint64_t margin = 256ull << 20;
  uint64_t fixed = o->d_bytes + o->c_bytes + check_bytes + margin;
  if (fixed + *set_bytes > free_b)
    return gb_fail(GB_E_OOM, "%s at %lldx%lldx%lld (%lld group%s) needs %.2f GiB of device memory; %.2f GiB free",
                   p->name, (long long)o->m, (long long)o->n, (long long)o->k, (long long)o->groups,
                   o->groups == 1 ? "" : "s", (double)(fixed + *set_bytes) / (1ull << 30),
                   (double)free_b / (1ull << 30));
  o->sets = gb_gemm_input_sets_for(st->opts.input_sets, *set_bytes, (uint64_t)dev->l2_bytes, (free_b - fixed) / 2);
  o->a_stride = gb_gemm_input_bytes(p, gm, 0, o->k);
  o->b_stride = gb_gemm_input_bytes(p, 0, gn, o->k);
  return GB_OK;
}

/* Every input set of A and B filled with random values of the operand
 * type, seeded per case and set (fp4: random bytes, two elements each). */
static gb_err gemm_op_fill(gemm_op *o, cudaStream_t s) {
  const gb_gemm_prec *p = o->p;
  size_t na = (size_t)(o->groups * o->m * o->k), nb = (size_t)(o->groups * o->n * o->k);
  if (p->fp4) {
    na = (na + 1) / 2;
    nb = (nb + 1) / 2;
  }
  for (int set = 0; set < o->sets; set++) {
    GB_TRY(gb_fill_random(o->a + (uint64_t)set * o->a_stride, na, p->a_type, p->a_lo, p->a_hi, gemm_seed(o, set, 0),
                          s));
    GB_TRY(gb_fill_random(o->b + (uint64_t)set * o->b_stride, nb, p->b_type, p->b_lo, p->b_hi, gemm_seed(o, set, 1),
                          s));
  }
  return GB_OK;
}

/* Block-scaled: one scale tensor of rows x k, its bytes drawn on the host
 * (gb_gemm_bs_scale_byte) and copied to *dst. */
static gb_err gemm_op_block_scale(const gemm_op *o, int64_t rows, uint64_t seed, unsigned char **dst) {
  const gb_gemm_prec *p = o->p;
  uint64_t bytes = gb_gemm_bs_scale_bytes(rows, o->k, p->block);
  unsigned char *h = malloc(bytes);
  if (!h) return gb_fail(GB_E_NOMEM, "gemm: out of host memory for %llu scale bytes", (unsigned long long)bytes);
  for (uint64_t i = 0; i < bytes; i++) h[i] = gb_gemm_bs_scale_byte(p, seed, i);
  gb_err err = GB_OK;
  GB_CUDA_GOTO(cudaMalloc((void **)dst, bytes), err, done);
  GB_CUDA_GOTO(cudaMemcpy(*dst, h, bytes, cudaMemcpyHostToDevice), err, done);
done:
  free(h);
  return err;
}

const char *gemm_operand_name(const gb_gemm_prec *p, gb_dtype t) { return p->fp4 ? "fp4e2m1" : gb_dtype_name(t); }

/* fp8: scale of A, of B, of D (1 for a bf16 output: the reference then
 * holds whatever cuBLASLt does with a D scale there), amax of D */
static gb_err gemm_op_scales(gemm_op *o, cudaStream_t s) {
  const gb_gemm_prec *p = o->p;
  float h_scales[GEMM_SCALE_SLOT(4)] = {0};
  h_scales[GEMM_SCALE_SLOT(0)] = (float)p->scale_a;
  h_scales[GEMM_SCALE_SLOT(1)] = (float)p->scale_b;
  h_scales[GEMM_SCALE_SLOT(2)] = (float)gb_gemm_scale_d(p);
  h_scales[GEMM_SCALE_SLOT(3)] = GEMM_AMAX_UNSET;
  GB_CUDA(cudaMalloc((void **)&o->scales, sizeof h_scales));
  GB_CUDA(cudaMemcpyAsync(o->scales, h_scales, sizeof h_scales, cudaMemcpyHostToDevice, s));
  return GB_OK;
}

gb_err gemm_op_alloc(const gemm_state *st, const gb_device_info *dev, gemm_op *o, uint64_t *set_bytes) {
  cudaStream_t s = st->stream;
  GB_TRY(gemm_op_size(st, dev, o, set_bytes));
  gemm_scalars(o);
  GB_CUDA(cudaMalloc((void **)&o->a, o->a_stride * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc((void **)&o->b, o->b_stride * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc(&o->d, o->d_bytes));
  if (o->c_bytes) {
    GB_CUDA(cudaMalloc(&o->c, o->c_bytes));
    GB_CUDA(cudaMemsetAsync(o->c, 0, o->c_bytes, s));
  }
  GB_TRY(gemm_op_fill(o, s));
  if (o->p->fp8) GB_TRY(gemm_op_scales(o, s));
  if (o->p->block) {
    GB_TRY(gemm_op_block_scale(o, o->m, gemm_seed(o, 0, 2), &o->bs_a));
    GB_TRY(gemm_op_block_scale(o, o->n, gemm_seed(o, 0, 3), &o->bs_b));
  }
  GB_CUDA(cudaStreamSynchronize(s));
  return GB_OK;
}

double gemm_op_flops(const gemm_op *o) { return gb_gemm_grouped_flops(o->groups, o->m, o->n, o->k); }

void gemm_op_free(gemm_op *o) {
  gemm_op_destroy_desc(o);
  if (o->scales) cudaFree(o->scales);
  if (o->bs_a) cudaFree(o->bs_a);
  if (o->bs_b) cudaFree(o->bs_b);
  if (o->d) cudaFree(o->d);
  if (o->c) cudaFree(o->c);
  if (o->b) cudaFree(o->b);
  if (o->a) cudaFree(o->a);
}

/* ---- description ---- */

void gemm_describe_algo(const cublasLtMatmulAlgo_t *algo, bool no_ws, char *detail, size_t dn, char *variant,
                        size_t vn) {
  int32_t id = -1, splitk = -1;
  uint32_t tile = 0, stages = 0, reduction = 0, swizzle = 0;
  uint16_t cluster = 0;
  size_t w = 0;
  /* a read that fails leaves the field at its "unknown" value */
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w)) id = -1;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w)) tile = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w))
    stages = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w))
    splitk = -1;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction,
                                           sizeof reduction, &w))
    reduction = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &w))
    swizzle = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster,
                                           &w))
    cluster = 0;
  uint32_t custom = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom, &w))
    custom = 0;
  char tb[24], sb[24], cb[24];
  const char *tn = gb_gemm_tile_name(tile, tb, sizeof tb);
  const char *sn = gb_gemm_stages_name(stages, sb, sizeof sb);
  const char *cn = gb_gemm_cluster_name(cluster, cb, sizeof cb);
  snprintf(detail, dn, "algo=%d tile=%s stages=%s splitk=%d reduction=%u swizzle=%u cluster=%s custom=%u%s", (int)id,
           tn, sn, (int)splitk, (unsigned)reduction, (unsigned)swizzle, cn, (unsigned)custom,
           no_ws ? " workspace=none" : "");
  /* swizzle and custom option only where set, so that the variants of the
   * runs before them keep their names */
  char extra[40] = "";
  int used = swizzle ? snprintf(extra, sizeof extra, "_swizzle%u", (unsigned)swizzle) : 0;
  if (custom) used += snprintf(extra + used, sizeof extra - (size_t)used, "_custom%u", (unsigned)custom);
  if (no_ws && used >= 0 && (size_t)used < sizeof extra) snprintf(extra + used, sizeof extra - (size_t)used, "_nows");
  snprintf(variant, vn, "tile%s_stages%s_splitk%d_cluster%s%s", tn, sn, (int)splitk, cn, extra);
}
