/* stream.cu: BabelStream-style device-memory bandwidth kernels for the membw
 * benchmark (bench/bench_membw.c), compiled at run time by NVRTC with
 * --fmad=false so that triad and mul round exactly as the host reference does.
 *
 * Operations (x, y inputs; z output; s the scalar), with BabelStream's roles:
 *   copy   z = x          (c = a)
 *   mul    z = s*x        (b = s*c)
 *   add    z = x + y      (c = a + b)
 *   triad  z = x + s*y    (a = b + s*c)
 *   write  z = s          (fill; write-only)
 *   dot    sum x*y        (a.b; per-block partial sums, the last block adds them)
 *   read   sum x          (read-only; sum in registers, one write per block)
 *
 * Every kernel has the one signature
 *   (const T *x, const T *y, T *z, T s, unsigned long long n,
 *    double *partial, unsigned *counter, double *result)
 * so the host builds one argument list; each kernel ignores what it does not use.
 * Names: <op>_<f64|f32>_w<bytes per access>_e<accesses per thread per trip>
 * [_cs][_pf], e.g. triad_f64_w16_e2_cs. _cs kernels store with st.global.cs
 * (streaming, evict-first); _pf kernels load with the .L2::256B prefetch hint
 * (both at 16 bytes only). Loads go through ld.global.nc (read-only path). Every access is a
 * whole vector of w bytes; a warp's accesses are contiguous (coalesced), and the
 * e accesses of one thread are a grid-stride apart and independent, so e loads
 * per input are in flight before the first use. The loops are grid-stride, so
 * any grid works (the host picks a persistent or a covering grid).
 *
 * Block sizes must be multiples of 32 (the reduction sums warps). No headers:
 * loads, stores, shuffles, fences and atomics are inline PTX valid on sm_80+. */

typedef unsigned long long gb_u64;

enum { GB_OP_COPY, GB_OP_MUL, GB_OP_ADD, GB_OP_TRIAD, GB_OP_WRITE, GB_OP_DOT, GB_OP_READ };

/* N elements of T accessed as one vector of N*sizeof(T) bytes. */
template <typename T, int N> struct alignas(sizeof(T) * N) gb_vec {
  T v[N];
};

/* ---- loads through the read-only path; PF adds the .L2::256B prefetch hint
 * (the L2 fetches the whole 256-byte block on a miss) ---- */
template <bool PF> __device__ __forceinline__ void gb_ld(gb_vec<double, 1> &r, const gb_vec<double, 1> *p) {
  if (PF)
    asm("ld.global.nc.L2::256B.f64 %0, [%1];" : "=d"(r.v[0]) : "l"(p));
  else
    asm("ld.global.nc.f64 %0, [%1];" : "=d"(r.v[0]) : "l"(p));
}
template <bool PF> __device__ __forceinline__ void gb_ld(gb_vec<double, 2> &r, const gb_vec<double, 2> *p) {
  if (PF)
    asm("ld.global.nc.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(r.v[0]), "=d"(r.v[1]) : "l"(p));
  else
    asm("ld.global.nc.v2.f64 {%0, %1}, [%2];" : "=d"(r.v[0]), "=d"(r.v[1]) : "l"(p));
}
template <bool PF> __device__ __forceinline__ void gb_ld(gb_vec<float, 1> &r, const gb_vec<float, 1> *p) {
  if (PF)
    asm("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(r.v[0]) : "l"(p));
  else
    asm("ld.global.nc.f32 %0, [%1];" : "=f"(r.v[0]) : "l"(p));
}
template <bool PF> __device__ __forceinline__ void gb_ld(gb_vec<float, 2> &r, const gb_vec<float, 2> *p) {
  if (PF)
    asm("ld.global.nc.L2::256B.v2.f32 {%0, %1}, [%2];" : "=f"(r.v[0]), "=f"(r.v[1]) : "l"(p));
  else
    asm("ld.global.nc.v2.f32 {%0, %1}, [%2];" : "=f"(r.v[0]), "=f"(r.v[1]) : "l"(p));
}
template <bool PF> __device__ __forceinline__ void gb_ld(gb_vec<float, 4> &r, const gb_vec<float, 4> *p) {
  if (PF)
    asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(r.v[0]), "=f"(r.v[1]), "=f"(r.v[2]), "=f"(r.v[3])
        : "l"(p));
  else
    asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(r.v[0]), "=f"(r.v[1]), "=f"(r.v[2]), "=f"(r.v[3])
        : "l"(p));
}

/* ---- stores: default write-back, or streaming (.cs) ---- */
template <bool CS> __device__ __forceinline__ void gb_st(gb_vec<double, 1> *p, const gb_vec<double, 1> &r) {
  if (CS)
    asm volatile("st.global.cs.f64 [%0], %1;" ::"l"(p), "d"(r.v[0]));
  else
    asm volatile("st.global.f64 [%0], %1;" ::"l"(p), "d"(r.v[0]));
}
template <bool CS> __device__ __forceinline__ void gb_st(gb_vec<double, 2> *p, const gb_vec<double, 2> &r) {
  if (CS)
    asm volatile("st.global.cs.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(r.v[0]), "d"(r.v[1]));
  else
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(r.v[0]), "d"(r.v[1]));
}
template <bool CS> __device__ __forceinline__ void gb_st(gb_vec<float, 1> *p, const gb_vec<float, 1> &r) {
  if (CS)
    asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(p), "f"(r.v[0]));
  else
    asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(r.v[0]));
}
template <bool CS> __device__ __forceinline__ void gb_st(gb_vec<float, 2> *p, const gb_vec<float, 2> &r) {
  if (CS)
    asm volatile("st.global.cs.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(r.v[0]), "f"(r.v[1]));
  else
    asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(r.v[0]), "f"(r.v[1]));
}
template <bool CS> __device__ __forceinline__ void gb_st(gb_vec<float, 4> *p, const gb_vec<float, 4> &r) {
  if (CS)
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(r.v[0]), "f"(r.v[1]),
                 "f"(r.v[2]), "f"(r.v[3]));
  else
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(r.v[0]), "f"(r.v[1]),
                 "f"(r.v[2]), "f"(r.v[3]));
}

/* The element operation. With --fmad=false, x + s*y is a rounded product then
 * a rounded sum, the host reference's exact sequence. */
template <int OP, typename T> __device__ __forceinline__ T gb_apply(T x, T y, T s) {
  if (OP == GB_OP_COPY) return x;
  if (OP == GB_OP_MUL) return s * x;
  if (OP == GB_OP_ADD) return x + y;
  if (OP == GB_OP_TRIAD) return x + s * y;
  return s; /* GB_OP_WRITE */
}

template <int OP> __device__ __forceinline__ bool gb_reads_x() { return OP != GB_OP_WRITE; }
template <int OP> __device__ __forceinline__ bool gb_reads_y() {
  return OP == GB_OP_ADD || OP == GB_OP_TRIAD || OP == GB_OP_DOT;
}

/* copy, mul, add, triad, write: z[i] = op(x[i], y[i]) for i < n. */
template <int OP, typename T, int N, int E, bool CS, bool PF>
__device__ __forceinline__ void gb_stream_elementwise(const T *x, const T *y, T *z, T s, gb_u64 n) {
  typedef gb_vec<T, N> V;
  const V *xv = (const V *)x;
  const V *yv = (const V *)y;
  V *zv = (V *)z;
  const gb_u64 nv = n / N;
  const gb_u64 stride = (gb_u64)gridDim.x * blockDim.x;
  const gb_u64 tid = (gb_u64)blockIdx.x * blockDim.x + threadIdx.x;
  gb_u64 i = tid;
  /* E independent vectors per trip: all loads first, then all stores. */
  for (; i + (E - 1) * stride < nv; i += E * stride) {
    V a[E], b[E];
#pragma unroll
    for (int e = 0; e < E; e++) {
      if (gb_reads_x<OP>()) gb_ld<PF>(a[e], xv + i + e * stride);
      if (gb_reads_y<OP>()) gb_ld<PF>(b[e], yv + i + e * stride);
    }
#pragma unroll
    for (int e = 0; e < E; e++) {
      V r;
#pragma unroll
      for (int k = 0; k < N; k++) {
        T xa = gb_reads_x<OP>() ? a[e].v[k] : s;
        T yb = gb_reads_y<OP>() ? b[e].v[k] : s;
        r.v[k] = gb_apply<OP, T>(xa, yb, s);
      }
      gb_st<CS>(zv + i + e * stride, r);
    }
  }
  for (; i < nv; i += stride) {
    V a, b, r;
    if (gb_reads_x<OP>()) gb_ld<PF>(a, xv + i);
    if (gb_reads_y<OP>()) gb_ld<PF>(b, yv + i);
#pragma unroll
    for (int k = 0; k < N; k++) {
      T xa = gb_reads_x<OP>() ? a.v[k] : s;
      T yb = gb_reads_y<OP>() ? b.v[k] : s;
      r.v[k] = gb_apply<OP, T>(xa, yb, s);
    }
    gb_st<CS>(zv + i, r);
  }
  /* the n % N elements past the last whole vector */
  const gb_u64 t = nv * N + tid;
  if (t < n) {
    T xa = gb_reads_x<OP>() ? x[t] : s;
    T yb = gb_reads_y<OP>() ? y[t] : s;
    z[t] = gb_apply<OP, T>(xa, yb, s);
  }
}

/* ---- reduction helpers ---- */
__device__ __forceinline__ double gb_shfl_down(double v, int d) {
  int lo, hi;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "d"(v));
  asm volatile("shfl.sync.down.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(lo) : "r"(d));
  asm volatile("shfl.sync.down.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(hi) : "r"(d));
  asm("mov.b64 %0, {%1, %2};" : "=d"(v) : "r"(lo), "r"(hi));
  return v;
}

/* Sum of v over the block; the total is valid in thread 0. Ends with a
 * barrier-free return; callers put __syncthreads() between two calls. */
__device__ __forceinline__ double gb_block_sum(double v, double *warp_sums) {
  for (int d = 16; d > 0; d >>= 1) v += gb_shfl_down(v, d);
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0.0;
    for (int d = 16; d > 0; d >>= 1) v += gb_shfl_down(v, d);
  }
  return v;
}

template <int OP> __device__ __forceinline__ double gb_term(double x, double y) {
  return OP == GB_OP_DOT ? x * y : x;
}

/* dot (sum x*y) and read (sum x), accumulated in fp64. Each block writes its
 * partial sum; the last block to finish (atomic ticket) adds the partials in
 * index order, writes *result and resets *counter to 0 for the next launch.
 * partial must hold gridDim.x doubles. */
template <int OP, typename T, int N, int E, bool PF>
__device__ __forceinline__ void gb_stream_reduce(const T *x, const T *y, gb_u64 n, double *partial,
                                                 unsigned *counter, double *result) {
  typedef gb_vec<T, N> V;
  __shared__ double warp_sums[32];
  __shared__ unsigned is_last;
  const V *xv = (const V *)x;
  const V *yv = (const V *)y;
  const gb_u64 nv = n / N;
  const gb_u64 stride = (gb_u64)gridDim.x * blockDim.x;
  const gb_u64 tid = (gb_u64)blockIdx.x * blockDim.x + threadIdx.x;
  double acc[E];
#pragma unroll
  for (int e = 0; e < E; e++) acc[e] = 0.0;
  gb_u64 i = tid;
  for (; i + (E - 1) * stride < nv; i += E * stride) {
    V a[E], b[E];
#pragma unroll
    for (int e = 0; e < E; e++) {
      gb_ld<PF>(a[e], xv + i + e * stride);
      if (gb_reads_y<OP>()) gb_ld<PF>(b[e], yv + i + e * stride);
    }
#pragma unroll
    for (int e = 0; e < E; e++)
#pragma unroll
      for (int k = 0; k < N; k++)
        acc[e] += gb_term<OP>((double)a[e].v[k], gb_reads_y<OP>() ? (double)b[e].v[k] : 0.0);
  }
  for (; i < nv; i += stride) {
    V a, b;
    gb_ld<PF>(a, xv + i);
    if (gb_reads_y<OP>()) gb_ld<PF>(b, yv + i);
#pragma unroll
    for (int k = 0; k < N; k++) acc[0] += gb_term<OP>((double)a.v[k], gb_reads_y<OP>() ? (double)b.v[k] : 0.0);
  }
  const gb_u64 t = nv * N + tid;
  if (t < n) acc[0] += gb_term<OP>((double)x[t], gb_reads_y<OP>() ? (double)y[t] : 0.0);
  double v = 0.0;
#pragma unroll
  for (int e = 0; e < E; e++) v += acc[e];

  v = gb_block_sum(v, warp_sums);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = v;
    unsigned ticket;
    asm volatile("membar.gl;" ::: "memory");
    asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    is_last = (ticket == gridDim.x - 1) ? 1u : 0u;
  }
  __syncthreads();
  if (is_last) {
    asm volatile("membar.gl;" ::: "memory");
    const volatile double *vp = partial;
    double w = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) w += vp[b];
    w = gb_block_sum(w, warp_sums);
    if (threadIdx.x == 0) {
      *result = w;
      *(volatile unsigned *)counter = 0u;
    }
  }
}

/* ---- the extern "C" kernels ---- */
#define GB_EW_KERNEL(op, OPC, tn, T, w, N, e, sfx, CS, PF)                                             \
  extern "C" __global__ void op##_##tn##_w##w##_e##e##sfx(const T *x, const T *y, T *z, T s, gb_u64 n, \
                                                          double *partial, unsigned *counter,          \
                                                          double *result) {                            \
    gb_stream_elementwise<OPC, T, N, e, CS, PF>(x, y, z, s, n);                                        \
  }

#define GB_RED_KERNEL(op, OPC, tn, T, w, N, e, sfx, PF)                                                 \
  extern "C" __global__ void op##_##tn##_w##w##_e##e##sfx(const T *x, const T *y, T *z, T s, gb_u64 n, \
                                                          double *partial, unsigned *counter,          \
                                                          double *result) {                            \
    gb_stream_reduce<OPC, T, N, e, PF>(x, y, n, partial, counter, result);                             \
  }

#define GB_EW_E(op, OPC, tn, T, w, N, sfx, CS, PF)   \
  GB_EW_KERNEL(op, OPC, tn, T, w, N, 1, sfx, CS, PF) \
  GB_EW_KERNEL(op, OPC, tn, T, w, N, 2, sfx, CS, PF) \
  GB_EW_KERNEL(op, OPC, tn, T, w, N, 4, sfx, CS, PF)

/* 16-byte kernels in four flavours: plain, streaming stores (_cs), L2
 * prefetch-hinted loads (_pf), both (_cs_pf) */
#define GB_EW_W16(op, OPC, tn, T, N)                   \
  GB_EW_E(op, OPC, tn, T, 16, N, , false, false)       \
  GB_EW_E(op, OPC, tn, T, 16, N, _cs, true, false)     \
  GB_EW_E(op, OPC, tn, T, 16, N, _pf, false, true)     \
  GB_EW_E(op, OPC, tn, T, 16, N, _cs_pf, true, true)

/* fp64: 8- and 16-byte accesses; fp32: 4, 8 and 16 */
#define GB_EW_OP(op, OPC)                                 \
  GB_EW_E(op, OPC, f64, double, 8, 1, , false, false)    \
  GB_EW_W16(op, OPC, f64, double, 2)                     \
  GB_EW_E(op, OPC, f32, float, 4, 1, , false, false)     \
  GB_EW_E(op, OPC, f32, float, 8, 2, , false, false)     \
  GB_EW_W16(op, OPC, f32, float, 4)

#define GB_RED_E(op, OPC, tn, T, w, N, sfx, PF) \
  GB_RED_KERNEL(op, OPC, tn, T, w, N, 1, sfx, PF) \
  GB_RED_KERNEL(op, OPC, tn, T, w, N, 2, sfx, PF) \
  GB_RED_KERNEL(op, OPC, tn, T, w, N, 4, sfx, PF)

#define GB_RED_OP(op, OPC)                            \
  GB_RED_E(op, OPC, f64, double, 8, 1, , false)      \
  GB_RED_E(op, OPC, f64, double, 16, 2, , false)     \
  GB_RED_E(op, OPC, f64, double, 16, 2, _pf, true)   \
  GB_RED_E(op, OPC, f32, float, 4, 1, , false)       \
  GB_RED_E(op, OPC, f32, float, 8, 2, , false)       \
  GB_RED_E(op, OPC, f32, float, 16, 4, , false)      \
  GB_RED_E(op, OPC, f32, float, 16, 4, _pf, true)

GB_EW_OP(copy, GB_OP_COPY)
GB_EW_OP(mul, GB_OP_MUL)
GB_EW_OP(add, GB_OP_ADD)
GB_EW_OP(triad, GB_OP_TRIAD)
GB_EW_OP(write, GB_OP_WRITE)
GB_RED_OP(dot, GB_OP_DOT)
GB_RED_OP(read, GB_OP_READ)
