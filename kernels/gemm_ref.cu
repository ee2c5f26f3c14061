/* gemm_ref: the fp64 reference of the gemm benchmark's check, computed on the
 * GPU from the same typed inputs cuBLASLt read.
 *
 * Layout (bench/gemm/bench_gemm.h): A is m x k row-major and D is m x n row-major;
 * B is n x k row-major (TN, b_nmajor = 0: D = A * B^T, element (j, p) at
 * B[j*k + p]) or k x n row-major (NN, b_nmajor = 1: D = A * B, element
 * (p, j) at B[p*n + j]). Operands and outputs are decoded to double
 * by bit manipulation (no headers: NVRTC compiles this file as it is).
 * Element type codes mirror gb_dtype in bench/gb_harness.h:
 * 0 fp64, 1 fp32, 2 fp16, 3 bf16, 4 fp8 e4m3, 5 fp8 e5m2, 6 int8, 7 int32. */

#define GEMM_REF_ROWS 8 /* sampled rows per block: each B column read once per 8 rows (GB_GEMM_REF_ROWS) */

__device__ __forceinline__ double gemm_bits_f64(unsigned long long b) { return __longlong_as_double((long long)b); }

/* fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
__device__ __forceinline__ double gemm_dec_f16(unsigned int h) {
  unsigned long long s = (unsigned long long)(h >> 15) << 63;
  unsigned int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) {
    double v = (double)m * 5.9604644775390625e-08; /* subnormal: m * 2^-24 */
    return s ? -v : v;
  }
  if (e == 31) return gemm_bits_f64(s | 0x7ff0000000000000ULL | (m ? 0x0008000000000000ULL : 0));
  return gemm_bits_f64(s | ((unsigned long long)(e - 15 + 1023) << 52) | ((unsigned long long)m << 42));
}

/* bf16: the upper half of an fp32. */
__device__ __forceinline__ double gemm_dec_bf16(unsigned int h) { return (double)__int_as_float((int)(h << 16)); }

/* fp8 e4m3 (OCP): 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinity,
 * S.1111.111 is NaN. */
__device__ __forceinline__ double gemm_dec_e4m3(unsigned int b) {
  unsigned long long s = (unsigned long long)(b >> 7) << 63;
  unsigned int e = (b >> 3) & 0xf, m = b & 7;
  if (e == 15 && m == 7) return gemm_bits_f64(0x7ff8000000000000ULL);
  if (e == 0) {
    double v = (double)m * 0.001953125; /* subnormal: m * 2^-9 */
    return s ? -v : v;
  }
  return gemm_bits_f64(s | ((unsigned long long)(e - 7 + 1023) << 52) | ((unsigned long long)m << 49));
}

/* fp8 e5m2: 1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-like. */
__device__ __forceinline__ double gemm_dec_e5m2(unsigned int b) {
  unsigned long long s = (unsigned long long)(b >> 7) << 63;
  unsigned int e = (b >> 2) & 0x1f, m = b & 3;
  if (e == 31) return gemm_bits_f64(s | 0x7ff0000000000000ULL | (m ? 0x0008000000000000ULL : 0));
  if (e == 0) {
    double v = (double)m * 1.52587890625e-05; /* subnormal: m * 2^-16 */
    return s ? -v : v;
  }
  return gemm_bits_f64(s | ((unsigned long long)(e - 15 + 1023) << 52) | ((unsigned long long)m << 50));
}

template <int T> __device__ __forceinline__ double gemm_load(const void *p, unsigned long long i) {
  if (T == 0) return ((const double *)p)[i];
  if (T == 1) return (double)((const float *)p)[i];
  if (T == 2) return gemm_dec_f16(((const unsigned short *)p)[i]);
  if (T == 3) return gemm_dec_bf16(((const unsigned short *)p)[i]);
  if (T == 4) return gemm_dec_e4m3(((const unsigned char *)p)[i]);
  if (T == 5) return gemm_dec_e5m2(((const unsigned char *)p)[i]);
  if (T == 6) return (double)((const signed char *)p)[i];
  return (double)((const int *)p)[i];
}

__device__ double gemm_load_rt(const void *p, int t, unsigned long long i) {
  switch (t) {
  case 0: return gemm_load<0>(p, i);
  case 1: return gemm_load<1>(p, i);
  case 2: return gemm_load<2>(p, i);
  case 3: return gemm_load<3>(p, i);
  case 4: return gemm_load<4>(p, i);
  case 5: return gemm_load<5>(p, i);
  case 6: return gemm_load<6>(p, i);
  default: return gemm_load<7>(p, i);
  }
}

/* ref[r][j] = scale * sum_p A[rows[r]][p] * B[j][p] in fp64, and
 * got[r][j] = D[rows[r]][j] decoded, for r < nrows and j < n; B n x k (TN).
 * One warp per column j (lanes split k, so B is read coalesced), GEMM_REF_ROWS
 * rows per block in y. Grid: (ceil(n / warps per block), ceil(nrows / 8)). */
template <int TA, int TB>
__device__ void gemm_ref_rows_kmajor(const void *A, const void *B, const void *D, int d_type, const long long *rows,
                              int nrows, long long n, long long k, double scale, double *ref, double *got) {
  const int lane = threadIdx.x & 31;
  const long long j = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const int r0 = blockIdx.y * GEMM_REF_ROWS;
  if (j >= n) return; /* whole warps only: j is uniform in a warp */
  long long ri[GEMM_REF_ROWS];
  double acc[GEMM_REF_ROWS];
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++) {
    ri[q] = r0 + q < nrows ? rows[r0 + q] : -1;
    acc[q] = 0.0;
  }
  const unsigned long long bj = (unsigned long long)j * (unsigned long long)k;
  for (long long p = lane; p < k; p += 32) {
    const double b = gemm_load<TB>(B, bj + p);
#pragma unroll
    for (int q = 0; q < GEMM_REF_ROWS; q++)
      if (ri[q] >= 0) acc[q] += gemm_load<TA>(A, (unsigned long long)ri[q] * k + p) * b;
  }
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++)
    for (int off = 16; off > 0; off >>= 1) acc[q] += __shfl_down_sync(0xffffffffu, acc[q], off);
  if (lane != 0) return;
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++) {
    if (ri[q] < 0) continue;
    const unsigned long long o = (unsigned long long)(r0 + q) * n + j;
    ref[o] = acc[q] * scale;
    got[o] = gemm_load_rt(D, d_type, (unsigned long long)ri[q] * n + j);
  }
}

/* The same with B k x n (NN): ref[r][j] = scale * sum_p A[rows[r]][p] *
 * B[p][j]. One thread per column j, so a warp reads 32 adjacent elements of
 * a row of B (coalesced) and one element of A (a broadcast); each thread
 * runs the whole k loop for GEMM_REF_ROWS rows. Grid: (ceil(n / threads per
 * block), ceil(nrows / 8)). */
template <int TA, int TB>
__device__ void gemm_ref_rows_nmajor(const void *A, const void *B, const void *D, int d_type, const long long *rows,
                                     int nrows, long long n, long long k, double scale, double *ref, double *got) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int r0 = blockIdx.y * GEMM_REF_ROWS;
  if (j >= n) return; /* no shuffles below: a thread may leave alone */
  long long ri[GEMM_REF_ROWS];
  double acc[GEMM_REF_ROWS];
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++) {
    ri[q] = r0 + q < nrows ? rows[r0 + q] : -1;
    acc[q] = 0.0;
  }
#pragma unroll 4
  for (long long p = 0; p < k; p++) {
    const double b = gemm_load<TB>(B, (unsigned long long)p * (unsigned long long)n + j);
#pragma unroll
    for (int q = 0; q < GEMM_REF_ROWS; q++)
      if (ri[q] >= 0) acc[q] += gemm_load<TA>(A, (unsigned long long)ri[q] * k + p) * b;
  }
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++) {
    if (ri[q] < 0) continue;
    const unsigned long long o = (unsigned long long)(r0 + q) * n + j;
    ref[o] = acc[q] * scale;
    got[o] = gemm_load_rt(D, d_type, (unsigned long long)ri[q] * n + j);
  }
}

/* b_nmajor (uniform over the grid) picks the reading of B and the launch
 * shape: 0 (TN) one warp per column, 1 (NN) one thread per column
 * (bench/gemm/gemm_precs.c gb_gemm_ref_launch). */
#define GEMM_REF_KERNEL(NAME, TA, TB)                                                                           \
  extern "C" __global__ void NAME(const void *A, const void *B, const void *D, int d_type, const long long *rows, \
                                  int nrows, long long n, long long k, double scale, double *ref, double *got,    \
                                  int b_nmajor) {                                                                 \
    if (b_nmajor)                                                                                                 \
      gemm_ref_rows_nmajor<TA, TB>(A, B, D, d_type, rows, nrows, n, k, scale, ref, got);                         \
    else                                                                                                          \
      gemm_ref_rows_kmajor<TA, TB>(A, B, D, d_type, rows, nrows, n, k, scale, ref, got);                         \
  }

GEMM_REF_KERNEL(gemm_ref_fp64_fp64, 0, 0)
GEMM_REF_KERNEL(gemm_ref_fp32_fp32, 1, 1)
GEMM_REF_KERNEL(gemm_ref_fp16_fp16, 2, 2)
GEMM_REF_KERNEL(gemm_ref_bf16_bf16, 3, 3)
GEMM_REF_KERNEL(gemm_ref_fp8e4m3_fp8e4m3, 4, 4)
GEMM_REF_KERNEL(gemm_ref_fp8e4m3_fp8e5m2, 4, 5)
GEMM_REF_KERNEL(gemm_ref_int8_int8, 6, 6)

/* ---- block-scaled operands (MXFP8, NVFP4; bench/gemm/gemm_blockscale.c) ---- */

/* Byte offset of the scale of row r, K block c, in cuBLASLt's tiled layout:
 * 128-row by 4-block tiles of 512 bytes, row-major over tiles; inside one,
 * (r % 32) * 16 + (r / 32 % 4) * 4 + c % 4 (gb_gemm_bs_scale_offset). */
__device__ __forceinline__ unsigned long long gemm_bs_offset(long long r, long long c, long long kblocks) {
  const unsigned long long tiles_k = (unsigned long long)((kblocks + 3) >> 2);
  return ((unsigned long long)(r >> 7) * tiles_k + (unsigned long long)(c >> 2)) * 512ULL +
         (unsigned long long)(r & 31) * 16ULL + (unsigned long long)((r >> 5) & 3) * 4ULL + (unsigned long long)(c & 3);
}

/* fp4 e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa bit: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}. */
__device__ __forceinline__ double gemm_dec_e2m1(unsigned int v) {
  const unsigned int e = (v >> 1) & 3, m = v & 1;
  const double mag = e == 0 ? 0.5 * m : (double)(1u << (e - 1)) * (1.0 + 0.5 * m);
  return (v & 8) ? -mag : mag;
}

/* ue8m0: 2^(b - 127); 255 is NaN. */
__device__ __forceinline__ double gemm_dec_ue8m0(unsigned int b) {
  if (b == 255) return gemm_bits_f64(0x7ff8000000000000ULL);
  return gemm_bits_f64((unsigned long long)(b + 1023 - 127) << 52);
}

/* Element p of row `row` of a K-major operand, dequantised: e4m3 or fp4
 * (two a byte, the low nibble first) times its block's scale (ue8m0 for
 * MXFP8, the e4m3 value of the low 7 bits for NVFP4). */
__device__ __forceinline__ double gemm_bs_elem(const unsigned char *M, const unsigned char *S, long long row,
                                               long long p, long long k, int block, long long kblocks, int fp4) {
  const unsigned long long i = (unsigned long long)row * (unsigned long long)k + (unsigned long long)p;
  const unsigned int s = S[gemm_bs_offset(row, p / block, kblocks)];
  if (fp4) {
    const unsigned int byte = M[i >> 1];
    return gemm_dec_e2m1((i & 1) ? byte >> 4 : byte & 15) * gemm_dec_e4m3(s & 0x7f);
  }
  return gemm_dec_e4m3(M[i]) * gemm_dec_ue8m0(s);
}

/* ref[r][j] = sum_p deq(A)[rows[r]][p] * deq(B)[j][p] in fp64 and got[r][j]
 * = D[rows[r]][j] (bf16), B n x k (TN); launched as the TN kernels (one warp
 * per column, GEMM_REF_ROWS rows per block in y). */
extern "C" __global__ void gemm_ref_block_scaled(const unsigned char *A, const unsigned char *B,
                                                 const unsigned char *SA, const unsigned char *SB, const void *D,
                                                 const long long *rows, int nrows, long long n, long long k, int block,
                                                 long long kblocks, int fp4, double *ref, double *got) {
  const int lane = threadIdx.x & 31;
  const long long j = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const int r0 = blockIdx.y * GEMM_REF_ROWS;
  if (j >= n) return; /* whole warps only */
  long long ri[GEMM_REF_ROWS];
  double acc[GEMM_REF_ROWS];
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++) {
    ri[q] = r0 + q < nrows ? rows[r0 + q] : -1;
    acc[q] = 0.0;
  }
  for (long long p = lane; p < k; p += 32) {
    const double b = gemm_bs_elem(B, SB, j, p, k, block, kblocks, fp4);
#pragma unroll
    for (int q = 0; q < GEMM_REF_ROWS; q++)
      if (ri[q] >= 0) acc[q] += gemm_bs_elem(A, SA, ri[q], p, k, block, kblocks, fp4) * b;
  }
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++)
    for (int off = 16; off > 0; off >>= 1) acc[q] += __shfl_down_sync(0xffffffffu, acc[q], off);
  if (lane != 0) return;
#pragma unroll
  for (int q = 0; q < GEMM_REF_ROWS; q++) {
    if (ri[q] < 0) continue;
    const unsigned long long o = (unsigned long long)(r0 + q) * n + j;
    ref[o] = acc[q];
    got[o] = gemm_load<3>(D, (unsigned long long)ri[q] * n + j);
  }
}

/* Over all count elements of D: *nonfinite += elements that are NaN or
 * infinite (the output is poisoned with NaN bytes before the checked product,
 * so an element cuBLASLt never wrote shows here), and *absmax_bits = the fp32
 * bits of max |D| (non-negative floats order like their bit patterns, so an
 * unsigned atomicMax works). Start both at 0. Grid-stride. */
extern "C" __global__ void gemm_scan_output(const void *D, int d_type, unsigned long long count,
                                            unsigned long long *nonfinite, unsigned int *absmax_bits) {
  unsigned long long bad = 0;
  float mx = 0.0f;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const double v = gemm_load_rt(D, d_type, i);
    if (((__double_as_longlong(v) >> 52) & 0x7ff) == 0x7ff) {
      bad++;
    } else {
      const float a = (float)(v < 0 ? -v : v);
      mx = a > mx ? a : mx;
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    bad += __shfl_down_sync(0xffffffffu, bad, off);
    const float o = __shfl_down_sync(0xffffffffu, mx, off);
    mx = o > mx ? o : mx;
  }
  if ((threadIdx.x & 31) == 0) {
    if (bad) atomicAdd(nonfinite, bad);
    atomicMax(absmax_bits, __float_as_uint(mx));
  }
}
