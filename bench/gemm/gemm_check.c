/* gemm_check: the result check. The pure rules (bench_gemm.h, tested on the
 * CPU): the relative error, the per-precision thresholds, the fp8 amax
 * agreement. The device side: one call on poisoned output compared with
 * the fp64 reference of kernels/gemm_ref.cu over sampled rows (of up to
 * GB_GEMM_CHECK_GROUPS groups spread over a grouped case), and a scan of
 * all of D for non-finite values and max|D|. Called by gemm_bench.c
 * (gemm_run_check); calls gemm_op.c (the checked product), gemm_grouped.c
 * and gemm_shapes.c (the groups and rows compared). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cuda.h"
#include "gb_num.h"
#include "gemm_internal.h"


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

/* ---- on the device ---- */

static bool g_corrupt_output;

void gb_gemm_test_corrupt_output(bool on) { g_corrupt_output = on; }

/* The check's buffers: the sampled row indices, the reference and the
 * output at those rows (device and host), the scan's two words ([0]
 * non-finite count, [1] low word: absmax fp32 bits). */
typedef struct check_bufs {
  size_t nrows, nvals;   /* rows compared per product; values compared in all */
  size_t ngroups;        /* products compared: 1, or the groups of a grouped case the check takes */
  int64_t groups[GB_GEMM_CHECK_GROUPS];
  long long h_rows[GEMM_MAX_CHECK_ROWS];
  long long *d_rows;
  double *d_ref, *d_got, *h_ref, *h_got;
  unsigned long long *d_scan;
  unsigned long long h_scan[2];
  float amax;
} check_bufs;

static void check_bufs_free(check_bufs *b) {
  free(b->h_ref);
  free(b->h_got);
  if (b->d_rows) cudaFree(b->d_rows);
  if (b->d_ref) cudaFree(b->d_ref);
  if (b->d_got) cudaFree(b->d_got);
  if (b->d_scan) cudaFree(b->d_scan);
}

static gb_err check_bufs_alloc(check_bufs *b) {
  GB_CUDA(cudaMalloc((void **)&b->d_rows, b->nrows * sizeof *b->d_rows));
  GB_CUDA(cudaMalloc((void **)&b->d_ref, b->nvals * sizeof *b->d_ref));
  GB_CUDA(cudaMalloc((void **)&b->d_got, b->nvals * sizeof *b->d_got));
  GB_CUDA(cudaMalloc((void **)&b->d_scan, sizeof b->h_scan));
  b->h_ref = malloc(b->nvals * sizeof *b->h_ref);
  b->h_got = malloc(b->nvals * sizeof *b->h_got);
  if (!b->h_ref || !b->h_got)
    return gb_fail(GB_E_NOMEM, "gemm check: out of host memory for %zu reference values", b->nvals);
  return GB_OK;
}

/* The checked product: D poisoned with NaN bytes (and amax unset), one
 * product on input set 0, then the test hook's overwrite when it is on. */
static gb_err check_product(gemm_op *o, check_bufs *b, cudaStream_t s) {
  GB_CUDA(cudaMemcpyAsync(b->d_rows, b->h_rows, b->nrows * sizeof *b->d_rows, cudaMemcpyHostToDevice, s));
  GB_CUDA(cudaMemsetAsync(b->d_scan, 0, sizeof b->h_scan, s));
  if (o->p->fp8) {
    float unset = GEMM_AMAX_UNSET;
    GB_CUDA(cudaMemcpyAsync(&o->scales[GEMM_SCALE_SLOT(3)], &unset, sizeof unset, cudaMemcpyHostToDevice, s));
  }
  GB_CUDA(cudaMemsetAsync(o->d, 0xFF, o->d_bytes, s)); /* NaN in every float format */
  GB_TRY(gemm_launch(o, s, 0));
  if (g_corrupt_output) GB_CUDA(cudaMemsetAsync(o->d, 0x3F, o->d_bytes, s));
  return GB_OK;
}

/* The reference rows of product g (group g of a grouped case; 0 for a
 * dense one) into slot i of the reference and output buffers. */
static gb_err check_ref_group(gemm_state *st, gemm_op *o, check_bufs *b, cudaKernel_t k_ref, int64_t g, size_t i) {
  const gb_gemm_prec *p = o->p;
  double scale = p->scale_a * p->scale_b * gb_gemm_scale_d(p); /* D = scale_D * scale_A * scale_B * A.B */
  int d_type = (int)p->d_type;
  long long n = o->n, k = o->k;
  int nr = (int)b->nrows;
  int b_nmajor = o->layout == GB_GEMM_NN; /* B is k x n row-major */
  const unsigned char *a = o->a + (uint64_t)g * (uint64_t)(o->m * o->k) * gb_dtype_size(p->a_type);
  const unsigned char *bm = o->b + (uint64_t)g * (uint64_t)(o->n * o->k) * gb_dtype_size(p->b_type);
  const unsigned char *d =
      (const unsigned char *)o->d + (uint64_t)g * (uint64_t)(o->m * o->n) * gb_dtype_size(p->d_type);
  double *ref = b->d_ref + i * b->nrows * (size_t)o->n, *got = b->d_got + i * b->nrows * (size_t)o->n;
  void *args[] = {&a, &bm, &d, &d_type, &b->d_rows, &nr, &n, &k, &scale, &ref, &got, &b_nmajor};
  gb_gemm_ref_grid grid = gb_gemm_ref_launch(o->layout, o->n, b->nrows);
  GB_CUDA(cudaLaunchKernel((const void *)k_ref, gb_dim3(grid.gx, grid.gy, 1), gb_dim1(grid.block), args, 0,
                           st->stream));
  GB_CUDA(cudaGetLastError());
  return GB_OK;
}

/* Block-scaled (dense, TN): the reference of kernels/gemm_ref.cu's
 * gemm_ref_block_scaled from the elements and the scale tensors cuBLASLt
 * read, dequantised in fp64. */
static gb_err check_ref_block_scaled(gemm_state *st, gemm_op *o, check_bufs *b, cudaKernel_t k_ref) {
  const gb_gemm_prec *p = o->p;
  long long n = o->n, k = o->k, kblocks = gb_gemm_bs_kblocks(o->k, p->block);
  int nr = (int)b->nrows, block = p->block, fp4 = p->fp4;
  const void *a = o->a, *bm = o->b, *sa = o->bs_a, *sb = o->bs_b, *d = o->d;
  void *args[] = {&a, &bm, &sa, &sb, &d, &b->d_rows, &nr, &n, &k, &block, &kblocks, &fp4, &b->d_ref, &b->d_got};
  gb_gemm_ref_grid grid = gb_gemm_ref_launch(GB_GEMM_TN, o->n, b->nrows);
  GB_CUDA(cudaLaunchKernel((const void *)k_ref, gb_dim3(grid.gx, grid.gy, 1), gb_dim1(grid.block), args, 0,
                           st->stream));
  GB_CUDA(cudaGetLastError());
  return GB_OK;
}

/* The reference rows (kernels/gemm_ref.cu) of every product compared and
 * the scan over all of D. */
static gb_err check_kernels(gemm_state *st, gemm_op *o, check_bufs *b, cudaKernel_t k_ref, const gb_device_info *dev) {
  cudaStream_t s = st->stream;
  const gb_gemm_prec *p = o->p;
  if (p->block) /* never grouped (gb_gemm_case_runs) */
    GB_TRY(check_ref_block_scaled(st, o, b, k_ref));
  else
    for (size_t i = 0; i < b->ngroups; i++) GB_TRY(check_ref_group(st, o, b, k_ref, b->groups[i], i));
  unsigned long long count = (unsigned long long)o->groups * (unsigned long long)o->m * (unsigned long long)o->n;
  int d_type = (int)p->d_type;
  unsigned long long *nonfinite = &b->d_scan[0];
  unsigned int *absmax = (unsigned int *)&b->d_scan[1];
  void *args[] = {&o->d, &d_type, &count, &nonfinite, &absmax};
  unsigned grid = (unsigned)(dev->sm_count > 0 ? dev->sm_count * 4 : 128);
  GB_CUDA(cudaLaunchKernel((const void *)st->k_scan, gb_dim1(grid), gb_dim1(256), args, 0, s));
  GB_CUDA(cudaGetLastError());
  return GB_OK;
}

/* Reference, output, scan and (fp8) amax back to the host. */
static gb_err check_readback(const gemm_op *o, check_bufs *b, cudaStream_t s) {
  GB_CUDA(cudaMemcpyAsync(b->h_ref, b->d_ref, b->nvals * sizeof *b->h_ref, cudaMemcpyDeviceToHost, s));
  GB_CUDA(cudaMemcpyAsync(b->h_got, b->d_got, b->nvals * sizeof *b->h_got, cudaMemcpyDeviceToHost, s));
  GB_CUDA(cudaMemcpyAsync(b->h_scan, b->d_scan, sizeof b->h_scan, cudaMemcpyDeviceToHost, s));
  b->amax = GEMM_AMAX_UNSET;
  if (o->p->fp8)
    GB_CUDA(cudaMemcpyAsync(&b->amax, &o->scales[GEMM_SCALE_SLOT(3)], sizeof b->amax, cudaMemcpyDeviceToHost, s));
  GB_CUDA(cudaStreamSynchronize(s));
  return GB_OK;
}

/* The verdict from what came back. */
static void check_decide(const gemm_op *o, const check_bufs *b, gemm_check *out) {
  const gb_gemm_prec *p = o->p;
  float amax = b->amax;
  out->rel_err = gb_gemm_rel_error(b->h_got, b->h_ref, b->nvals);
  out->tol = gb_gemm_tolerance(p, o->k);
  out->nonfinite = b->h_scan[0];
  {
    uint32_t bits = (uint32_t)(b->h_scan[1] & 0xFFFFFFFFu); /* little-endian: the word atomicMax wrote */
    float f;
    memcpy(&f, &bits, sizeof f);
    out->max_abs_out = f;
  }
  out->amax_d = amax;
  out->status = gb_gemm_check_decide(p, o->k, out->rel_err, out->nonfinite);
  if (out->nonfinite)
    snprintf(out->note, sizeof out->note, "%llu of %lld outputs NaN or infinite (unwritten or overflowed)",
             out->nonfinite, (long long)(o->groups * o->m * o->n));
  if (p->fp8 && o->amax && amax != GEMM_AMAX_UNSET &&
      !gb_gemm_amax_agrees(amax, out->max_abs_out, gb_gemm_scale_d(p), p->out_fp8)) {
    out->status = GB_STATUS_INVALID;
    gb_snprintf_c(out->note, sizeof out->note, "amax_D %.6g disagrees with max|D| %.6g", (double)amax,
                  out->max_abs_out);
  }
}

gb_err gemm_run_check(gemm_state *st, gemm_op *o, const gb_device_info *dev, gemm_check *out) {
  gb_err err = GB_OK;
  const gb_gemm_prec *p = o->p;
  int64_t rows[GEMM_MAX_CHECK_ROWS];
  check_bufs b;
  memset(&b, 0, sizeof b);
  b.nrows = gb_gemm_sample_rows(o->m, rows, GEMM_MAX_CHECK_ROWS);
  b.ngroups = o->grouped ? gb_gemm_check_groups(o->groups, b.groups, GB_GEMM_CHECK_GROUPS) : 1;
  b.nvals = b.ngroups * b.nrows * (size_t)o->n;
  memset(out, 0, sizeof *out);
  out->rows = b.nrows;
  out->groups = b.ngroups;
  out->amax_d = GEMM_AMAX_UNSET;
  for (size_t i = 0; i < b.nrows; i++) b.h_rows[i] = (long long)rows[i];

  char kname[64];
  if (p->block)
    snprintf(kname, sizeof kname, "gemm_ref_block_scaled");
  else
    snprintf(kname, sizeof kname, "gemm_ref_%s_%s", gb_dtype_name(p->a_type), gb_dtype_name(p->b_type));
  cudaKernel_t k_ref;
  GB_TRY_GOTO(gb_module_kernel(&st->mod, kname, &k_ref), err, done);
  GB_TRY_GOTO(check_bufs_alloc(&b), err, done);
  GB_TRY_GOTO(check_product(o, &b, st->stream), err, done);
  GB_TRY_GOTO(check_kernels(st, o, &b, k_ref, dev), err, done);
  GB_TRY_GOTO(check_readback(o, &b, st->stream), err, done);
  check_decide(o, &b, out);
done:
  check_bufs_free(&b);
  return err;
}
