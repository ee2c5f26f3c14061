// fma.cu: the CUDA-core arithmetic peak (the roofline's non-tensor ceiling).
// Each thread runs NACC independent chains of fused multiply-adds. Every
// iteration applies x = x*a + b and then x = x*c + d with c = 1/a and
// d = -b/a chosen exactly representable (a = 2, b = 0.5, c = 0.5,
// d = -0.25), so each chain returns exactly to its start value: the result
// is checkable, and since a..d are run-time parameters the compiler can fold
// nothing. Each thread writes its chains' values out, so nothing is dropped.
// FLOPs per launch = threads * iters * NACC * 2 fma * 2 flop (* 2 lanes for
// the x2 vector types).

// chains per thread: a compile-time option (-DNACC=16); bench_fma.c builds
// more than one and keeps the fastest on the device in use.
#ifndef NACC
#define NACC 8
#endif

extern "C" __global__ void fma_fp32(float *out, long iters, float a, float b, float c, float d) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  float x[NACC];
#pragma unroll
  for (int j = 0; j < NACC; j++) x[j] = (float)((tid + j) & 255) * 0.25f;
  // unrolled so the loop counter and branch take under 3% of the issue slots
#pragma unroll 8
  for (long i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = fmaf(x[j], a, b);
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = fmaf(x[j], c, d);
  }
#pragma unroll
  for (int j = 0; j < NACC; j++) out[(size_t)tid * NACC + j] = x[j];
}

extern "C" __global__ void fma_fp64(double *out, long iters, double a, double b, double c, double d) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  double x[NACC];
#pragma unroll
  for (int j = 0; j < NACC; j++) x[j] = (double)((tid + j) & 255) * 0.25;
  // unrolled so the loop counter and branch take under 3% of the issue slots
#pragma unroll 8
  for (long i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = fma(x[j], a, b);
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = fma(x[j], c, d);
  }
#pragma unroll
  for (int j = 0; j < NACC; j++) out[(size_t)tid * NACC + j] = x[j];
}

// Packed half2 / bfloat162 through PTX, on 32-bit registers (no headers).
__device__ static unsigned hfma2(unsigned x, unsigned a, unsigned b) {
  unsigned r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(a), "r"(b));
  return r;
}

__device__ static unsigned bfma2(unsigned x, unsigned a, unsigned b) {
  unsigned r;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(a), "r"(b));
  return r;
}

// start values: small multiples of 0.25 in both lanes, encoded per format
__device__ static unsigned start_f16x2(unsigned v) {
  // v in 0..255 -> v * 0.25 as fp16: exact for these values
  unsigned short h = 0;
  if (v) {
    float f = v * 0.25f;
    unsigned bits = __float_as_uint(f);
    int e = (int)((bits >> 23) & 0xFF) - 127 + 15;
    h = (unsigned short)((e << 10) | ((bits >> 13) & 0x3FF));
  }
  return (unsigned)h | ((unsigned)h << 16);
}

__device__ static unsigned start_bf16x2(unsigned v) {
  unsigned short h = (unsigned short)(__float_as_uint(v * 0.25f) >> 16);
  return (unsigned)h | ((unsigned)h << 16);
}

extern "C" __global__ void fma_fp16x2(unsigned *out, long iters, unsigned a, unsigned b, unsigned c, unsigned d) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x[NACC];
#pragma unroll
  for (int j = 0; j < NACC; j++) x[j] = start_f16x2((tid + j) & 255);
  // unrolled so the loop counter and branch take under 3% of the issue slots
#pragma unroll 8
  for (long i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = hfma2(x[j], a, b);
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = hfma2(x[j], c, d);
  }
#pragma unroll
  for (int j = 0; j < NACC; j++) out[(size_t)tid * NACC + j] = x[j];
}

extern "C" __global__ void fma_bf16x2(unsigned *out, long iters, unsigned a, unsigned b, unsigned c, unsigned d) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x[NACC];
#pragma unroll
  for (int j = 0; j < NACC; j++) x[j] = start_bf16x2((tid + j) & 255);
  // unrolled so the loop counter and branch take under 3% of the issue slots
#pragma unroll 8
  for (long i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = bfma2(x[j], a, b);
#pragma unroll
    for (int j = 0; j < NACC; j++) x[j] = bfma2(x[j], c, d);
  }
#pragma unroll
  for (int j = 0; j < NACC; j++) out[(size_t)tid * NACC + j] = x[j];
}
