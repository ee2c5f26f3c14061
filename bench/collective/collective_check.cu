/* collective_check: known inputs and the result check of the NCCL collective
 * benchmark (bench_collective.c). The device twin of the host functions
 * in collective_plan.c (gb_coll_input_value, gb_coll_expected,
 * gb_coll_count_wrong_host): the same hash, the same expected values. It
 * knows no collective and no type code: the caller passes the collective's
 * check rule (gb_coll_rule, bench_collective.h) as numbers, and the element
 * format by its significand bits (23 fp32, 7 bf16, 10 fp16).
 *
 * Rank r's input element idx is a hashed integer in {-4..-1, 1..4}; sums of
 * up to 64 ranks are integers exact in bf16, fp16 and fp32, so the check is
 * exact equality whatever order NCCL reduces in. Poisoned elements are NaN,
 * which never equals an expected value, so unwritten outputs are counted.
 * No #include: bf16/fp16 conversions by bit manipulation. */

__device__ __forceinline__ unsigned long long coll_mix64(unsigned long long x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

__device__ __forceinline__ int coll_input_value(int rank, unsigned long long idx, unsigned int seed) {
  unsigned long long x =
      coll_mix64(idx * 0x9e3779b97f4a7c15ULL + ((((unsigned long long)(unsigned int)rank) << 32) | seed));
  int v = (int)(x & 7ULL); /* 0..7 -> -4..-1, 1..4 */
  return v < 4 ? v - 4 : v - 3;
}

/* The expected value of output element k of rank `rank` (gb_coll_expected):
 * the sum over the source ranks of input(q, index), where the sources are
 * every rank when reduce, else the one rank
 * ((src_block ? k / count : 0) + (src_self ? rank : 0) + src_shift) mod n,
 * and index = (idx_block ? rank * count : 0) + (idx_mod ? k % count : k). */
__device__ __forceinline__ int coll_expected(int rank, int nranks, unsigned long long count, unsigned long long k,
                                             unsigned int seed, int reduce, int src_block, int src_self, int src_shift,
                                             int idx_block, int idx_mod) {
  unsigned long long idx = (idx_block ? (unsigned long long)rank * count : 0ULL) + (idx_mod ? k % count : k);
  if (reduce) {
    int sum = 0;
    for (int q = 0; q < nranks; q++) sum += coll_input_value(q, idx, seed);
    return sum;
  }
  long long src = (src_block ? (long long)(k / count) : 0LL) + (src_self ? rank : 0) + src_shift;
  return coll_input_value((int)(((src % nranks) + nranks) % nranks), idx, seed);
}

__device__ __forceinline__ unsigned short coll_f32_to_bf16(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
  return (unsigned short)(u >> 16);
}

__device__ __forceinline__ unsigned short coll_f32_to_f16(float f) {
  unsigned int u = __float_as_uint(f);
  unsigned int sign = (u >> 16) & 0x8000u;
  int exp = (int)((u >> 23) & 0xffu);
  unsigned int mant = u & 0x7fffffu;
  if (exp == 0xff) return (unsigned short)(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = exp - 127 + 15;
  if (e >= 31) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (unsigned short)sign;
    unsigned int full = mant | 0x800000u;
    int shift = 14 - e;
    unsigned int half = full >> shift, rem = full & ((1u << shift) - 1u), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) half++;
    return (unsigned short)(sign | half);
  }
  unsigned int half = ((unsigned int)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++;
  return (unsigned short)(sign | half);
}

__device__ __forceinline__ float coll_f16_to_f32(unsigned short h) {
  unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
  int exp = (h >> 10) & 0x1f;
  unsigned int mant = h & 0x3ffu;
  if (exp == 0) {
    float v = (float)mant * 5.9604644775390625e-8f; /* 2^-24 */
    return sign ? -v : v;
  }
  if (exp == 31) return __uint_as_float(sign | 0x7f800000u | (mant << 13));
  return __uint_as_float(sign | ((unsigned int)(exp - 15 + 127) << 23) | (mant << 13));
}

/* mant: significand bits of the element format: 23 fp32, 7 bf16, 10 fp16. */
__device__ __forceinline__ float coll_load(const void *buf, unsigned long long i, int mant) {
  if (mant == 23) return ((const float *)buf)[i];
  unsigned short h = ((const unsigned short *)buf)[i];
  return mant == 7 ? __uint_as_float(((unsigned int)h) << 16) : coll_f16_to_f32(h);
}

__device__ __forceinline__ void coll_store(void *buf, unsigned long long i, int mant, float v) {
  if (mant == 23) ((float *)buf)[i] = v;
  else if (mant == 7) ((unsigned short *)buf)[i] = coll_f32_to_bf16(v);
  else ((unsigned short *)buf)[i] = coll_f32_to_f16(v);
}

/* buf[i] = input(rank, first_idx + i) for i < n, or NaN everywhere when
 * poison is non-zero. Grid-stride. */
extern "C" __global__ void coll_fill(void *buf, unsigned long long n, int mant, int rank,
                                     unsigned long long first_idx, unsigned int seed, int poison) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  float nan = __uint_as_float(0x7fc00000u);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = poison ? nan : (float)coll_input_value(rank, first_idx + i, seed);
    coll_store(buf, i, mant, v);
  }
}

/* Adds to *wrong the number of elements of buf[0..n) (rank `rank`'s checked
 * output region) that differ from the expected value under the check rule
 * (reduce .. idx_mod, coll_expected) over nranks ranks with per-rank count
 * `count`. Grid-stride; one atomic per warp that saw a wrong element. */
extern "C" __global__ void coll_check(const void *buf, unsigned long long n, int mant, int rank, int nranks,
                                      unsigned long long count, unsigned int seed, int reduce, int src_block,
                                      int src_self, int src_shift, int idx_block, int idx_mod,
                                      unsigned long long *wrong) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long local = 0;
  for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
    float got = coll_load(buf, k, mant);
    float want = (float)coll_expected(rank, nranks, count, k, seed, reduce, src_block, src_self, src_shift,
                                      idx_block, idx_mod);
    if (!(got == want)) local++;
  }
  for (int off = 16; off > 0; off >>= 1) local += __shfl_down_sync(0xffffffffu, local, off);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(wrong, local);
}
