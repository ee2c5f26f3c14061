/* decode: the decode benchmark's kernels (bench/decode/bench_decode.h).
 *
 * decode_tick: the launch cases' kernel, one block; thread 0 counts the
 * launch, so the host can check that every launch ran.
 *
 * decode_kv_partial + decode_kv_combine: one decode attention step over a
 * KV cache (flash-decoding): for every (sequence, KV head) pair p, the query
 * q[p] (HD bf16), K[p] and V[p] (seq x HD bf16, row-major), out[p][j] =
 * sum_t softmax_t(q.K_t * scale) V_t[j] in fp32. kv_partial splits each
 * sequence into chunks (grid: chunks x pairs) and writes each chunk's
 * running max, sum of weights and weighted sum of V; kv_combine (grid:
 * pairs, HD threads) merges the chunks. Elements are decoded by bit
 * manipulation (no headers: NVRTC compiles this file as it is). */

#define HD 128      /* head_dim: GB_DECODE_HEAD_DIM */
#define KV_HALVES 8 /* half-warps of a kv_partial block: GB_DECODE_KV_THREADS / 16 */

extern "C" __global__ void decode_tick(unsigned long long *count) {
  if (threadIdx.x == 0) atomicAdd(count, 1ULL);
}

__device__ __forceinline__ float kv_lo(unsigned int w) { return __int_as_float((int)(w << 16)); }
__device__ __forceinline__ float kv_hi(unsigned int w) { return __int_as_float((int)(w & 0xffff0000u)); }

__device__ __forceinline__ void kv_unpack(uint4 w, float *f) {
  f[0] = kv_lo(w.x); f[1] = kv_hi(w.x); f[2] = kv_lo(w.y); f[3] = kv_hi(w.y);
  f[4] = kv_lo(w.z); f[5] = kv_hi(w.z); f[6] = kv_lo(w.w); f[7] = kv_hi(w.w);
}

/* One token: its score against the half-warp's query (lanes hold 8 elements
 * each), then the online softmax update of m, l and acc. */
__device__ __forceinline__ void kv_token(uint4 kw, uint4 vw, const float *qf, float scale, unsigned mask, float *m,
                                         float *l, float *acc) {
  float kf[8], vf[8];
  kv_unpack(kw, kf);
  kv_unpack(vw, vf);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 8; i++) s += qf[i] * kf[i];
#pragma unroll
  for (int off = 8; off > 0; off >>= 1) s += __shfl_xor_sync(mask, s, off);
  s *= scale;
  float mn = fmaxf(*m, s), c = __expf(*m - mn), p = __expf(s - mn);
  *l = *l * c + p;
#pragma unroll
  for (int i = 0; i < 8; i++) acc[i] = acc[i] * c + p * vf[i];
  *m = mn;
}

/* The block's 8 half-warps' (m, l, acc) merged into the chunk's partial. */
__device__ __forceinline__ void kv_block_merge(float m, float l, const float *acc, int hw, int lane, float *part_m,
                                               float *part_l, float *part_acc, unsigned long long slot) {
  __shared__ float sm[KV_HALVES], sl[KV_HALVES], sacc[KV_HALVES][HD];
  if (lane == 0) {
    sm[hw] = m;
    sl[hw] = l;
  }
#pragma unroll
  for (int i = 0; i < 8; i++) sacc[hw][lane * 8 + i] = acc[i];
  __syncthreads();
  const int j = threadIdx.x; /* HD == blockDim.x */
  float mx = sm[0];
  for (int h = 1; h < KV_HALVES; h++) mx = fmaxf(mx, sm[h]);
  float a = 0.f, lsum = 0.f;
  for (int h = 0; h < KV_HALVES; h++) {
    float w = sl[h] > 0.f ? __expf(sm[h] - mx) : 0.f; /* a half-warp with no token has l = 0 */
    a += w * sacc[h][j];
    lsum += w * sl[h];
  }
  part_acc[slot * HD + j] = a;
  if (j == 0) {
    part_m[slot] = mx;
    part_l[slot] = lsum;
  }
}

/* Grid (chunks, pairs), GB_DECODE_KV_THREADS threads: half-warp hw takes
 * tokens t0 + hw, t0 + hw + 8, ... of the chunk, two at a time; lane l of
 * it holds elements 8l .. 8l+7 (one 16-byte load of K and of V a token). */
extern "C" __global__ void decode_kv_partial(const unsigned short *q, const unsigned short *K, const unsigned short *V,
                                             long long seq, long long chunk, float scale, float *part_m,
                                             float *part_l, float *part_acc) {
  const unsigned long long pair = blockIdx.y;
  const int hw = threadIdx.x >> 4, lane = threadIdx.x & 15;
  const unsigned mask = 0xffffu << (16 * (hw & 1));
  const unsigned long long base = pair * (unsigned long long)seq * HD;
  float qf[8], acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  kv_unpack(*(const uint4 *)(q + pair * HD + lane * 8), qf);
  float m = __int_as_float(0xff800000), l = 0.f; /* -inf */
  const long long t0 = (long long)blockIdx.x * chunk, t1 = t0 + chunk < seq ? t0 + chunk : seq;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (long long t = t0 + hw; t < t1; t += 2 * KV_HALVES) {
    const bool two = t + KV_HALVES < t1;
    const unsigned long long o0 = base + (unsigned long long)t * HD + lane * 8, o1 = o0 + KV_HALVES * HD;
    uint4 k0 = __ldg((const uint4 *)(K + o0)), v0 = __ldg((const uint4 *)(V + o0));
    uint4 k1 = two ? __ldg((const uint4 *)(K + o1)) : zero, v1 = two ? __ldg((const uint4 *)(V + o1)) : zero;
    kv_token(k0, v0, qf, scale, mask, &m, &l, acc);
    if (two) kv_token(k1, v1, qf, scale, mask, &m, &l, acc);
  }
  kv_block_merge(m, l, acc, hw, lane, part_m, part_l, part_acc, pair * gridDim.x + blockIdx.x);
}

/* Grid (pairs), HD threads: out[p][j] from the chunks' partials. */
extern "C" __global__ void decode_kv_combine(const float *part_m, const float *part_l, const float *part_acc,
                                             int splits, float *out) {
  const unsigned long long pair = blockIdx.x;
  const int j = threadIdx.x;
  const unsigned long long s0 = pair * (unsigned long long)splits;
  float mx = part_m[s0];
  for (int s = 1; s < splits; s++) mx = fmaxf(mx, part_m[s0 + s]);
  float a = 0.f, lsum = 0.f;
  for (int s = 0; s < splits; s++) {
    float w = __expf(part_m[s0 + s] - mx);
    a += w * part_acc[(s0 + s) * HD + j];
    lsum += w * part_l[s0 + s];
  }
  out[pair * HD + j] = a / lsum;
}
