// fill.cu: random and constant fills for every element type gpubench uses.
// The value at index i depends only on (seed, i): a splitmix64 hash gives a
// uniform double u in [0,1), scaled to [lo,hi) and rounded to the element
// type with round-to-nearest-even (saturating for fp8). bench/gb_harness.c
// computes the same values on the host (gb_random_value), so compile this
// file with --fmad=false to keep the arithmetic identical.

typedef unsigned long long u64;
typedef unsigned int u32;

// The dtype codes DT_F64 ... DT_I32 are compile options made from the
// element-type table, core/gb_dtype.h (gb_dtype_defines): not written here.

__device__ static u64 splitmix64(u64 x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

__device__ static double uniform01(u64 seed, u64 i) {
  u64 h = splitmix64(seed ^ splitmix64(i));
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

// Rounds |x| to a float format with mbits mantissa bits, exponent bias,
// saturating at maxv; returns the encoded bits (sign included).
__device__ static u32 encode_small(double x, int ebits, int mbits, int bias, double maxv) {
  u32 sign = 0;
  if (x < 0) { sign = 1; x = -x; }
  u32 bits = 0;
  if (x != 0.0) {
    int emin = 1 - bias;
    int e;
    frexp(x, &e);
    e -= 1;  // x = m * 2^e with m in [1,2)
    if (e < emin) e = emin;
    double quantum = ldexp(1.0, e - mbits);
    double q = rint(x / quantum) * quantum;
    if (q > maxv) q = maxv;
    if (q != 0.0) {
      if (q < ldexp(1.0, emin)) {
        bits = (u32)(q / ldexp(1.0, emin - mbits));
      } else {
        int e2;
        frexp(q, &e2);
        e2 -= 1;
        u32 mant = (u32)(q / ldexp(1.0, e2 - mbits)) - (1u << mbits);
        bits = ((u32)(e2 + bias) << mbits) | mant;
      }
    }
  }
  return (sign << (ebits + mbits)) | bits;
}

__device__ static void store(void *dst, u64 i, int dtype, double v) {
  switch (dtype) {
  case DT_F64: ((double *)dst)[i] = v; break;
  case DT_F32: ((float *)dst)[i] = (float)v; break;
  case DT_F16: ((unsigned short *)dst)[i] = (unsigned short)encode_small((double)(float)v, 5, 10, 15, 65504.0); break;
  case DT_BF16: ((unsigned short *)dst)[i] = (unsigned short)encode_small((double)(float)v, 8, 7, 127, 3.3895313892515355e38); break;
  case DT_F8E4M3: ((unsigned char *)dst)[i] = (unsigned char)encode_small((double)(float)v, 4, 3, 7, 448.0); break;
  case DT_F8E5M2: ((unsigned char *)dst)[i] = (unsigned char)encode_small((double)(float)v, 5, 2, 15, 57344.0); break;
  case DT_I8: ((signed char *)dst)[i] = (signed char)v; break;
  case DT_I32: ((int *)dst)[i] = (int)v; break;
  }
}

extern "C" __global__ void gb_fill_random(void *dst, u64 n, int dtype, double lo, double hi, u64 seed) {
  u64 stride = (u64)gridDim.x * blockDim.x;
  bool integer = dtype == DT_I8 || dtype == DT_I32;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    double u = uniform01(seed, i);
    double v;
    if (integer) {
      v = floor(lo + u * (hi - lo + 1.0));
      if (v > hi) v = hi;
    } else {
      v = lo + u * (hi - lo);
    }
    store(dst, i, dtype, v);
  }
}

extern "C" __global__ void gb_fill_const(void *dst, u64 n, int dtype, double v) {
  u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) store(dst, i, dtype, v);
}
