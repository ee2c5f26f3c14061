/* decode_gemv: the decode benchmark's gemv cases: D (m x n) = X (m x k) *
 * W (n x k)^T through cuBLASLt, m = batch, W a model projection's weights
 * (bench_decode.h), in the TN layout of the GEMM benchmark (both operands
 * K-major, PyTorch's Linear), fp32 accumulation, the heuristic's first
 * algorithm with a 32 MiB workspace (what a framework's cuBLASLt call gets).
 * The weights rotate among input sets so that each product streams them
 * from device memory, as each layer of a decode step does. The check: one
 * product on poisoned output; every row of GB_DECODE_CHECK_COLS columns
 * against the fp64 product of the inputs copied back, all of D scanned for
 * non-finite values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode_internal.h"
#include "gb_cuda.h"
#include "gb_num.h"

typedef struct gemv_op {
  decode_state *st;
  gb_dtype dt;
  int64_t m, n, k;
  int sets;
  uint64_t w_elems, x_elems; /* per set */
  uint16_t *w, *x, *d;       /* sets back to back; D one */
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t lw, lx, ld;
  cublasLtMatmulAlgo_t algo;
  int algo_id, returned;
  size_t ws_needed;
  float alpha, beta;
} gemv_op;

static void gemv_free(gemv_op *o) {
  if (o->desc) cublasLtMatmulDescDestroy(o->desc);
  if (o->lw) cublasLtMatrixLayoutDestroy(o->lw);
  if (o->lx) cublasLtMatrixLayoutDestroy(o->lx);
  if (o->ld) cublasLtMatrixLayoutDestroy(o->ld);
  if (o->w) cudaFree(o->w);
  if (o->x) cudaFree(o->x);
  if (o->d) cudaFree(o->d);
}

static gb_err gemv_launch(void *ctx, cudaStream_t s, long iter) {
  gemv_op *o = ctx;
  uint64_t set = (uint64_t)(iter % o->sets);
  const uint16_t *w = o->w + set * o->w_elems, *x = o->x + set * o->x_elems;
  cublasStatus_t e = cublasLtMatmul(o->st->lt, o->desc, &o->alpha, w, o->lw, x, o->lx, &o->beta, o->d, o->ld, o->d,
                                    o->ld, &o->algo, o->st->ws, DECODE_WS_BYTES, s);
  if (e != CUBLAS_STATUS_SUCCESS) return gb_cublas_fail((int)e, "cublasLtMatmul", __FILE__, __LINE__);
  return GB_OK;
}

/* The TN descriptor (cuBLASLt's A' = W, k x n, OP_T; B' = X, k x m; D n x m,
 * all column-major) and the heuristic's first algorithm. */
static gb_err gemv_desc(gemv_op *o) {
  gb_err err = GB_OK;
  cudaDataType_t t = o->dt == GB_DT_BF16 ? CUDA_R_16BF : CUDA_R_16F;
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t h;
  size_t ws = DECODE_WS_BYTES;
  GB_CUBLAS_GOTO(cublasLtMatmulDescCreate(&o->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), err, done);
  GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), err, done);
  GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), err, done);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->lw, t, (uint64_t)o->k, (uint64_t)o->n, o->k), err, done);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->lx, t, (uint64_t)o->k, (uint64_t)o->m, o->k), err, done);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->ld, t, (uint64_t)o->n, (uint64_t)o->m, o->n), err, done);
  GB_CUBLAS_GOTO(cublasLtMatmulPreferenceCreate(&pref), err, done);
  GB_CUBLAS_GOTO(
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), err, done);
  GB_CUBLAS_GOTO(cublasLtMatmulAlgoGetHeuristic(o->st->lt, o->desc, o->lw, o->lx, o->ld, o->ld, pref, 1, &h,
                                                &o->returned),
                 err, done);
  if (o->returned < 1 || h.state != CUBLAS_STATUS_SUCCESS) {
    err = gb_fail(GB_E_UNSUPPORTED, "cuBLASLt has no algorithm for %s %lldx%lldx%lld", gb_dtype_name(o->dt),
                  (long long)o->m, (long long)o->n, (long long)o->k);
    goto done;
  }
  o->algo = h.algo;
  o->ws_needed = h.workspaceSize;
  size_t got = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&o->algo, CUBLASLT_ALGO_CONFIG_ID, &o->algo_id, sizeof o->algo_id, &got))
    o->algo_id = -1;
done:
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  return err;
}

/* Input sets past L2, random values in [-1, 1) of the type. */
static gb_err gemv_alloc(const gb_run_ctx *ctx, decode_state *st, const gb_case *c, gemv_op *o) {
  o->st = st;
  o->dt = (gb_dtype)c->param[1];
  o->m = c->m;
  o->n = c->n;
  o->k = c->k;
  o->alpha = 1.0f;
  o->beta = 0.0f;
  o->w_elems = (uint64_t)o->n * (uint64_t)o->k;
  o->x_elems = (uint64_t)o->m * (uint64_t)o->k;
  int64_t set_bytes = (int64_t)(o->w_elems + o->x_elems) * 2;
  size_t free_b = 0, total_b = 0;
  GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  int64_t room = (int64_t)free_b - DECODE_MARGIN_BYTES - o->m * o->n * 2;
  if (room < set_bytes)
    return gb_fail(GB_E_OOM, "gemv %lldx%lldx%lld: %lld bytes of inputs; %.2f GiB free", (long long)o->m,
                   (long long)o->n, (long long)o->k, (long long)set_bytes, (double)free_b / (1 << 30));
  o->sets = gb_decode_sets(set_bytes, ctx->dev->l2_bytes, room);
  GB_CUDA(cudaMalloc((void **)&o->w, o->w_elems * 2 * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc((void **)&o->x, o->x_elems * 2 * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc((void **)&o->d, (uint64_t)(o->m * o->n) * 2));
  uint64_t seed = 0x67656D76ull ^ ((uint64_t)o->m << 40) ^ ((uint64_t)o->n << 20) ^ (uint64_t)o->k ^ o->dt; /* "gemv" */
  GB_TRY(gb_fill_random(o->w, o->w_elems * (uint64_t)o->sets, o->dt, -1, 1, seed, st->stream));
  GB_TRY(gb_fill_random(o->x, o->x_elems * (uint64_t)o->sets, o->dt, -1, 1, seed + 1, st->stream));
  GB_CUDA(cudaStreamSynchronize(st->stream));
  return GB_OK;
}

/* Host copies of set 0's X, the checked rows of W and all of D; X and
 * those rows decoded to double once (xd, wd). */
typedef struct gemv_host {
  uint16_t *x, *w, *d;
  double *ref, *got, *xd, *wd;
} gemv_host;

static void gemv_host_free(gemv_host *h) {
  free(h->x);
  free(h->w);
  free(h->d);
  free(h->ref);
  free(h->got);
  free(h->xd);
  free(h->wd);
}

/* The reference of the checked columns and the non-finite count over D. */
static void gemv_compare(const gemv_op *o, const gemv_host *h, const int64_t *cols, size_t nc, double *rel_err,
                         uint64_t *nonfinite) {
  uint64_t k = (uint64_t)o->k;
  for (uint64_t i = 0; i < o->x_elems; i++) h->xd[i] = gb_decode_elem16(h->x[i], o->dt);
  for (uint64_t i = 0; i < nc * k; i++) h->wd[i] = gb_decode_elem16(h->w[i], o->dt);
  size_t v = 0;
  for (int64_t i = 0; i < o->m; i++)
    for (size_t c = 0; c < nc; c++, v++) {
      double acc = 0;
      const double *xr = h->xd + (uint64_t)i * k, *wr = h->wd + c * k;
      for (uint64_t p = 0; p < k; p++) acc += xr[p] * wr[p];
      h->ref[v] = acc;
      h->got[v] = gb_decode_elem16(h->d[(uint64_t)i * (uint64_t)o->n + (uint64_t)cols[c]], o->dt);
    }
  *nonfinite = 0;
  for (uint64_t i = 0; i < (uint64_t)(o->m * o->n); i++) *nonfinite += !isfinite(gb_decode_elem16(h->d[i], o->dt));
  *rel_err = gb_decode_rel_error(h->got, h->ref, v);
}

static gb_err gemv_check(gemv_op *o, double *rel_err, uint64_t *nonfinite, size_t *ncols) {
  cudaStream_t s = o->st->stream;
  int64_t cols[GB_DECODE_CHECK_COLS];
  size_t nc = gb_decode_check_cols(o->n, cols, GB_DECODE_CHECK_COLS);
  uint64_t dn = (uint64_t)(o->m * o->n), k = (uint64_t)o->k;
  gemv_host h = {malloc(o->x_elems * 2), malloc(nc * k * 2), malloc(dn * 2), malloc((size_t)o->m * nc * 8),
                 malloc((size_t)o->m * nc * 8), malloc(o->x_elems * 8), malloc(nc * k * 8)};
  gb_err err = GB_OK;
  if (!h.x || !h.w || !h.d || !h.ref || !h.got || !h.xd || !h.wd) {
    err = gb_fail(GB_E_NOMEM, "gemv check: out of host memory");
    goto done;
  }
  GB_CUDA_GOTO(cudaMemsetAsync(o->d, 0xFF, dn * 2, s), err, done); /* NaN in bf16 and fp16 */
  GB_TRY_GOTO(gemv_launch(o, s, 0), err, done);
  if (decode_corrupt()) GB_CUDA_GOTO(cudaMemsetAsync(o->d, 0x3F, dn * 2, s), err, done);
  GB_CUDA_GOTO(cudaMemcpyAsync(h.x, o->x, o->x_elems * 2, cudaMemcpyDeviceToHost, s), err, done);
  for (size_t c = 0; c < nc; c++)
    GB_CUDA_GOTO(cudaMemcpyAsync(h.w + c * k, o->w + (uint64_t)cols[c] * k, k * 2, cudaMemcpyDeviceToHost, s), err,
                 done);
  GB_CUDA_GOTO(cudaMemcpyAsync(h.d, o->d, dn * 2, cudaMemcpyDeviceToHost, s), err, done);
  GB_CUDA_GOTO(cudaStreamSynchronize(s), err, done);
  gemv_compare(o, &h, cols, nc, rel_err, nonfinite);
  *ncols = nc;
done:
  gemv_host_free(&h);
  return err;
}

gb_err decode_run_gemv(gb_run_ctx *ctx, decode_state *st, const gb_case *c, gb_rowset *out) {
  gemv_op o = {0};
  gb_samples samp = {0};
  gb_err err = GB_OK;
  GB_TRY_GOTO(gemv_alloc(ctx, st, c, &o), err, done);
  GB_TRY_GOTO(gemv_desc(&o), err, done);
  /* at ~3 TB/s plus a launch */
  double t_est = (double)gb_decode_gemv_bytes(o.m, o.n, o.k, 2) / 3e12 + 3e-6;
  gb_measure_opts mo = decode_measure_opts(ctx, 5, decode_ops_for(t_est));
  GB_TRY_GOTO(gb_measure(&mo, st->stream, gemv_launch, &o, &samp), err, done);
  double rel_err = NAN;
  uint64_t nonfinite = 0;
  size_t nc = 0;
  GB_TRY_GOTO(gemv_check(&o, &rel_err, &nonfinite, &nc), err, done);
  gb_status status = nonfinite == 0 && rel_err <= GB_DECODE_GEMV_TOL ? GB_STATUS_OK : GB_STATUS_INVALID;
  const gb_decode_proj *p = c->spec;
  char detail[640];
  gb_snprintf_c(detail, sizeof detail,
                "%s%s %s (n=%lld, k=%lld) at batch %lld: cuBLASLt TN, COMPUTE_32F, heuristic #1 of %d (algo=%d, ws "
                "%zu B); %d input set%s, %d product%s per sample; check: rel_err=%.3g tol=%.3g over %lld rows x %zu "
                "cols, %llu non-finite in D",
                status == GB_STATUS_OK ? "" : "check failed: ", p ? p->model : "custom", p ? p->proj : "",
                (long long)o.n, (long long)o.k, (long long)o.m, o.returned, o.algo_id, o.ws_needed, o.sets,
                o.sets == 1 ? "" : "s", mo.ops_per_sample, mo.ops_per_sample == 1 ? "" : "s", rel_err,
                GB_DECODE_GEMV_TOL, (long long)o.m, nc, (unsigned long long)nonfinite);
  err = decode_add_rows(c, &samp, gb_decode_gemv_flops(o.m, o.n, o.k), status, detail, out);
done:
  gb_samples_free(&samp);
  gemv_free(&o);
  return err;
}
