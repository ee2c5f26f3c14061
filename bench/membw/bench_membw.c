/* bench_membw: device-memory bandwidth with BabelStream's kernels (copy, mul,
 * add, triad, dot) plus read-only and write-only, fp64 and fp32, over a size
 * sweep from 1 MiB (L2-resident) to at least 4 GiB per array (HBM).
 *
 * Formula (one place, gb_membw_bytes_moved): GB/s = arrays * bytes per array
 * / seconds per operation / 1e9, arrays being BabelStream's weight (copy, mul
 * and dot 2; add and triad 3; read and write 1).
 *
 * Per case: inputs random in [1, 2) (gb_fill_random), outputs poisoned with
 * NaN; a brief auto-tune times every variant of bench/membw/stream.cu (access
 * width, accesses per thread, streaming stores, block size, persistent or
 * covering grid) and keeps the fastest; the timed repetitions then run that
 * variant (gb_measure: events, warm-up, median); last, the result is checked:
 * sampled elements (first, last, pseudo-random) against host values computed
 * from gb_random_value with the kernel's exact arithmetic, and dot/read sums
 * against the exact host sum of their periodic inputs. A failed check makes
 * the row `invalid` with the error in `detail`.
 *
 * L2: a hot case (`triad`) reuses one array set, so small sizes measure the
 * L2 plateau as L2 (the detail says regime=l2) and large ones HBM. A cold case
 * (`triad_cold`), planned where the working set is under 8 L2s, rotates
 * through enough array sets to span 8 L2s, so each operation finds its arrays
 * evicted: HBM bandwidth at small sizes. Small operations are batched (up to
 * GB_MEMBW_MAX_OPS per sample, replayed as a CUDA graph) so launch gaps do not
 * dominate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_membw.h"
#include "gb_desc.h"
#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_harness.h"
#include "gb_num.h"
#include "gb_nvrtc.h"

#define MEMBW_LO 1.0 /* inputs uniform in [LO, HI): never zero, positive sums */
#define MEMBW_HI 2.0
#define MEMBW_SCALAR 0.4 /* BabelStream's s */
#define MEMBW_CORRUPT_VALUE (-1.0) /* no kernel can produce a negative output */
#define MEMBW_PERIOD ((int64_t)1 << 20) /* dot/read inputs repeat every 2^20 elements */
#define MEMBW_SAMPLES 32   /* checked elements in the first and last set */
#define MEMBW_MAX_KERNELS 256
#define MEMBW_STAGE_ELEMS (3 * (2 * MEMBW_SAMPLES + 2 * GB_MEMBW_MAX_SETS))

static const uint64_t membw_seed[2] = {0x6d656d62772d78ULL, 0x6d656d62772d79ULL}; /* x, y */

typedef struct membw_kslot {
  char name[48];
  cudaKernel_t fn;
} membw_kslot;

typedef struct membw_state {
  gb_module mod;
  bool mod_loaded;
  cudaStream_t stream;
  int sm_count, max_blocks_sm, max_threads_sm;
  int64_t l2_bytes;
  gb_membw_opts opts;
  void *slab[3];          /* x, y, z: sets * bytes each */
  int64_t slab_bytes[3];
  double *partial;        /* per-block sums: sm_count * max_blocks_sm */
  unsigned *counter;      /* the reduction's ticket, reset by its last block */
  double *results;        /* one reduction result per array set */
  double *stage;          /* pinned host staging for the check's gathers */
  double *period[2][2];   /* [fp64/fp32][x/y]: host values of one input period */
  membw_kslot kslot[MEMBW_MAX_KERNELS];
  int nkslot;
} membw_state;

/* One timed configuration: what launch() enqueues. */
typedef struct membw_launch {
  membw_state *st;
  cudaKernel_t fn;
  dim3 grid, block;
  int sets;
  int64_t bytes;          /* bytes per array (the set stride) */
  unsigned long long n;   /* elements per launch (a prefix while tuning) */
  bool f32;
  double s64;
  float s32;
} membw_launch;

static const char *dtype_text(gb_dtype t) { return t == GB_DT_F32 ? "fp32" : "fp64"; }

static gb_err kernel_get(membw_state *st, const char *name, cudaKernel_t *out) {
  for (int i = 0; i < st->nkslot; i++)
    if (strcmp(st->kslot[i].name, name) == 0) {
      *out = st->kslot[i].fn;
      return GB_OK;
    }
  GB_TRY(gb_module_kernel(&st->mod, name, out));
  if (st->nkslot < MEMBW_MAX_KERNELS) {
    membw_kslot *s = &st->kslot[st->nkslot++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->fn = *out;
  }
  return GB_OK;
}

/* Blocks of this kernel one SM holds at once (occupancy API; the thread and
 * block limits when the API declines the handle). */
static int resident_blocks(const membw_state *st, cudaKernel_t fn, int block) {
  int nb = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, (const void *)fn, block, 0) != cudaSuccess || nb < 1) {
    (void)cudaGetLastError();
    nb = st->max_threads_sm / block;
    if (nb > st->max_blocks_sm) nb = st->max_blocks_sm;
    if (nb < 1) nb = 1;
  }
  return nb;
}

/* gb_launch_fn: one operation on array set iter % sets. */
static gb_err membw_launch_op(void *vctx, cudaStream_t s, long iter) {
  membw_launch *c = vctx;
  membw_state *st = c->st;
  int set = (int)(iter % c->sets);
  char *base[3];
  for (int r = 0; r < 3; r++) base[r] = st->slab[r] ? (char *)st->slab[r] + (int64_t)set * c->bytes : NULL;
  /* unused roles get any valid pointer; the kernel ignores them */
  void *any = base[0] ? base[0] : base[2];
  void *x = base[0] ? base[0] : any, *y = base[1] ? base[1] : any, *z = base[2] ? base[2] : any;
  double *result = st->results + set;
  void *args[] = {&x, &y, &z, c->f32 ? (void *)&c->s32 : (void *)&c->s64, &c->n, &st->partial, &st->counter, &result};
  GB_CUDA(cudaLaunchKernel((const void *)c->fn, c->grid, c->block, args, 0, s));
  return GB_OK;
}

static void slabs_free(membw_state *st) {
  for (int r = 0; r < 3; r++) {
    if (st->slab[r]) cudaFree(st->slab[r]);
    st->slab[r] = NULL;
    st->slab_bytes[r] = 0;
  }
}

/* Gives each role the kernel uses a slab of need bytes (reusing one of that
 * size); fails with GB_E_OOM and a clear message when they cannot fit. */
static gb_err slabs_ensure(membw_state *st, const gb_stream_kernel *k, gb_dtype t, int64_t bytes, int sets,
                           const char *case_name) {
  bool used[3] = {k->reads_x, k->reads_y, k->writes_z};
  int64_t need = bytes * sets, missing = 0;
  for (int r = 0; r < 3; r++) {
    if (st->slab[r] && st->slab_bytes[r] != need) {
      cudaFree(st->slab[r]);
      st->slab[r] = NULL;
      st->slab_bytes[r] = 0;
    }
    if (used[r] && !st->slab[r]) missing += need;
  }
  if (missing == 0) return GB_OK;
  size_t free_b = 0, total_b = 0;
  GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  int64_t reserve = gb_membw_reserve_bytes((int64_t)free_b);
  if (missing > (int64_t)free_b - reserve) {
    /* free the idle slabs and look again before giving up */
    for (int r = 0; r < 3; r++)
      if (!used[r] && st->slab[r]) {
        cudaFree(st->slab[r]);
        st->slab[r] = NULL;
        st->slab_bytes[r] = 0;
      }
    GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    reserve = gb_membw_reserve_bytes((int64_t)free_b);
  }
  if (missing > (int64_t)free_b - reserve) {
    char sz[32], fr[32], rs[32], tot[32];
    gb_fmt_size(sz, sizeof sz, bytes);
    gb_fmt_size(tot, sizeof tot, missing);
    gb_fmt_size(fr, sizeof fr, (int64_t)free_b);
    gb_fmt_size(rs, sizeof rs, reserve);
    return gb_fail(GB_E_OOM,
                   "membw %s %s: %d array(s) of %s x %d set(s) = %s do not fit in the %s of free device memory "
                   "(less a %s reserve); skipped: lower the size with --opt membw.max=SIZE or membw.sizes=...",
                   case_name, dtype_text(t), k->arrays, sz, sets, tot, fr, rs);
  }
  for (int r = 0; r < 3; r++)
    if (used[r] && !st->slab[r]) {
      GB_CUDA(cudaMalloc(&st->slab[r], (size_t)need));
      st->slab_bytes[r] = need;
    }
  return GB_OK;
}

/* Fills n elements with the period-long random sequence repeated: one
 * gb_fill_random of the period, then doubling device copies. */
static gb_err fill_periodic(void *dst, int64_t n, gb_dtype t, uint64_t seed, cudaStream_t s) {
  size_t es = gb_membw_elem_bytes(t);
  int64_t p = n < MEMBW_PERIOD ? n : MEMBW_PERIOD;
  GB_TRY(gb_fill_random(dst, (size_t)p, t, MEMBW_LO, MEMBW_HI, seed, s));
  for (int64_t done = p; done < n;) {
    int64_t len = done < n - done ? done : n - done;
    GB_CUDA(cudaMemcpyAsync((char *)dst + done * es, dst, (size_t)(len * es), cudaMemcpyDeviceToDevice, s));
    done += len;
  }
  return GB_OK;
}

static gb_err fill_case(membw_state *st, const gb_stream_kernel *k, gb_dtype t, int64_t n, int sets, int64_t bytes,
                        bool outputs_only) {
  bool reads[2] = {k->reads_x, k->reads_y};
  for (int set = 0; set < sets; set++) {
    for (int r = 0; r < 2 && !outputs_only; r++) {
      if (!reads[r]) continue;
      void *p = (char *)st->slab[r] + (int64_t)set * bytes;
      if (k->reduction)
        GB_TRY(fill_periodic(p, n, t, membw_seed[r], st->stream));
      else
        GB_TRY(gb_fill_random(p, (size_t)n, t, MEMBW_LO, MEMBW_HI, membw_seed[r], st->stream));
    }
    if (k->writes_z) GB_TRY(gb_fill_const((char *)st->slab[2] + (int64_t)set * bytes, (size_t)n, t, NAN, st->stream));
  }
  /* reductions: all-ones bytes are a NaN, so a sum never written fails */
  if (k->reduction) GB_CUDA(cudaMemsetAsync(st->results, 0xff, sizeof(double) * (size_t)sets, st->stream));
  return GB_OK;
}

/* An input value as the device holds it: fp32 inputs are floats. */
static double as_dtype(gb_dtype t, double v) { return t == GB_DT_F32 ? (double)(float)v : v; }

/* The host values of one input period (cached per type). */
static gb_err period_values(membw_state *st, gb_dtype t, int r, const double **out) {
  int ti = t == GB_DT_F32 ? 1 : 0;
  if (!st->period[ti][r]) {
    double *v = malloc(sizeof(double) * (size_t)MEMBW_PERIOD);
    if (!v) return gb_fail(GB_E_NOMEM, "membw: out of host memory for the check's reference values");
    for (int64_t i = 0; i < MEMBW_PERIOD; i++)
      v[i] = as_dtype(t, gb_random_value((size_t)i, t, MEMBW_LO, MEMBW_HI, membw_seed[r]));
    st->period[ti][r] = v;
  }
  *out = st->period[ti][r];
  return GB_OK;
}

/* Copies elements idx[0..k) of a device array into st->stage[at..at+k) as
 * doubles (after the caller's stream sync). Asynchronous. */
static gb_err gather(membw_state *st, const void *base, gb_dtype t, const int64_t *idx, size_t k, size_t at) {
  size_t es = gb_membw_elem_bytes(t);
  for (size_t i = 0; i < k; i++)
    GB_CUDA(cudaMemcpyAsync((char *)st->stage + (at + i) * sizeof(double), (const char *)base + idx[i] * (int64_t)es,
                            es, cudaMemcpyDeviceToHost, st->stream));
  return GB_OK;
}

static double staged(const membw_state *st, gb_dtype t, size_t at) {
  if (t == GB_DT_F32) {
    float f;
    memcpy(&f, (const char *)st->stage + at * sizeof(double), sizeof f);
    return f;
  }
  return st->stage[at];
}

/* Checks the arrays (or sums) of every set after the timed run. *ok false
 * with msg on a wrong result; an error return only for CUDA failures. */
static gb_err membw_check(membw_state *st, const gb_stream_kernel *k, gb_dtype t, int64_t n, int sets, int64_t bytes,
                          bool *ok, char *msg, size_t msgn, size_t *nchecked) {
  size_t es = gb_membw_elem_bytes(t);
  *ok = true;
  *nchecked = 0;
  GB_CUDA(cudaStreamSynchronize(st->stream));
  if (st->opts.corrupt) { /* test only: a deliberately wrong result */
    if (k->reduction) {
      double bad = MEMBW_CORRUPT_VALUE;
      GB_CUDA(cudaMemcpy(st->results, &bad, sizeof bad, cudaMemcpyHostToDevice));
    } else {
      double bd = MEMBW_CORRUPT_VALUE;
      float bf = (float)MEMBW_CORRUPT_VALUE;
      GB_CUDA(cudaMemcpy((char *)st->slab[2] + (n - 1) * (int64_t)es, t == GB_DT_F32 ? (void *)&bf : (void *)&bd, es,
                         cudaMemcpyHostToDevice));
    }
  }
  const double *px = NULL, *py = NULL;
  if (k->reduction) {
    GB_TRY(period_values(st, t, 0, &px));
    GB_TRY(period_values(st, t, 1, &py));
  }
  int64_t idx[MEMBW_SAMPLES];
  gb_membw_sample smp[MEMBW_SAMPLES];
  for (int set = 0; set < sets; set++) {
    size_t m = gb_membw_sample_indices(n, (set == 0 || set == sets - 1) ? MEMBW_SAMPLES : 2, 0x636865636bULL + (uint64_t)set,
                                       idx);
    const char *arr[3];
    for (int r = 0; r < 3; r++) arr[r] = st->slab[r] ? (const char *)st->slab[r] + (int64_t)set * bytes : NULL;
    if (k->reads_x) GB_TRY(gather(st, arr[0], t, idx, m, 0));
    if (k->reads_y) GB_TRY(gather(st, arr[1], t, idx, m, MEMBW_SAMPLES));
    if (k->writes_z) GB_TRY(gather(st, arr[2], t, idx, m, 2 * MEMBW_SAMPLES));
    GB_CUDA(cudaStreamSynchronize(st->stream));
    for (size_t i = 0; i < m; i++) {
      int64_t e = idx[i];
      gb_membw_sample *s = &smp[i];
      memset(s, 0, sizeof *s);
      s->index = e;
      if (k->reads_x) {
        s->x = k->reduction ? px[e % MEMBW_PERIOD]
                             : as_dtype(t, gb_random_value((size_t)e, t, MEMBW_LO, MEMBW_HI, membw_seed[0]));
        s->x_got = staged(st, t, i);
      }
      if (k->reads_y) {
        s->y = k->reduction ? py[e % MEMBW_PERIOD]
                             : as_dtype(t, gb_random_value((size_t)e, t, MEMBW_LO, MEMBW_HI, membw_seed[1]));
        s->y_got = staged(st, t, MEMBW_SAMPLES + i);
      }
      if (k->writes_z) s->z_got = staged(st, t, 2 * MEMBW_SAMPLES + i);
    }
    *nchecked += m;
    if (!gb_membw_check_samples(k, t, MEMBW_SCALAR, smp, m, msg, msgn)) {
      *ok = false;
      return GB_OK;
    }
  }
  if (k->reduction) {
    double want = gb_membw_expected_sum(k, t, px, py, n < MEMBW_PERIOD ? n : MEMBW_PERIOD, n);
    double got[GB_MEMBW_MAX_SETS];
    GB_CUDA(cudaMemcpy(got, st->results, sizeof(double) * (size_t)sets, cudaMemcpyDeviceToHost));
    for (int set = 0; set < sets; set++) {
      if (!gb_membw_check_sum(k, got[set], want, gb_membw_sum_tolerance(), msg, msgn)) {
        *ok = false;
        return GB_OK;
      }
      (*nchecked)++;
    }
  }
  return GB_OK;
}

/* The measurement options of the run config and profile. */
static gb_measure_opts measure_opts(const gb_run_ctx *ctx, int ops) {
  gb_measure_opts o = gb_measure_defaults();
  bool full = ctx->cfg->profile == GB_PROFILE_FULL;
  o.warmup = ctx->cfg->warmup >= 0 ? ctx->cfg->warmup : 3;
  o.min_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : (full ? 20 : 10);
  o.max_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : (full ? 100 : 30);
  o.budget_s = full ? 0.25 : 0.05;
  o.ops_per_sample = ops;
  o.graph = ops > 1 || ctx->cfg->graph;
  return o;
}

/* Times one variant on n elements; *sec = median seconds per operation. */
static gb_err time_variant(membw_state *st, membw_launch *lc, const gb_measure_opts *o, double *sec) {
  gb_samples smp = {0};
  GB_TRY(gb_measure(o, st->stream, membw_launch_op, lc, &smp));
  *sec = smp.st.median;
  gb_samples_free(&smp);
  return GB_OK;
}

static gb_err launch_setup(membw_state *st, const gb_stream_kernel *k, gb_dtype t, const gb_membw_variant *v,
                           int64_t n, membw_launch *lc, char *kname, size_t knamen) {
  gb_membw_kernel_name(k, t, v, kname, knamen);
  GB_TRY(kernel_get(st, kname, &lc->fn));
  int res = resident_blocks(st, lc->fn, v->block);
  int64_t grid = gb_membw_grid(v, n, gb_membw_elem_bytes(t), st->sm_count, res);
  lc->grid = gb_dim1((unsigned)grid);
  lc->block = gb_dim1((unsigned)v->block);
  lc->n = (unsigned long long)n;
  return GB_OK;
}

/* What the auto-tune chose: the variant, how many of the prefix's fastest
 * were timed again on the whole array, and the elements it tuned on. */
typedef struct membw_tuned {
  size_t best, nfin;
  int64_t tune_n;
} membw_tuned;

/* The brief auto-tune: every variant, few samples; large hot arrays are
 * tuned on a prefix that still spans 8 L2s (max(256 MiB, 8 L2) per array),
 * then the prefix's fastest again over the whole array, one pass a sample. */
static gb_err tune_case(membw_state *st, const gb_stream_kernel *k, gb_dtype t, bool cold, int64_t n, int sets,
                        int ops, const gb_membw_variant *vars, size_t nvars, membw_launch *lc, membw_tuned *out) {
  size_t es = gb_membw_elem_bytes(t);
  int64_t tune_bytes = 256 * GB_MEMBW_MIB > 8 * st->l2_bytes ? 256 * GB_MEMBW_MIB : 8 * st->l2_bytes;
  int64_t tune_n = (!cold && n * (int64_t)es > tune_bytes) ? tune_bytes / (int64_t)es : n;
  gb_measure_opts to = gb_measure_defaults();
  to.warmup = 1;
  to.min_samples = to.max_samples = cold ? 1 : 3; /* a cold sample already runs every set */
  to.budget_s = 0.0;
  to.ops_per_sample = cold ? sets : (ops < 8 ? ops : 8);
  to.graph = false;
  double sec[GB_MEMBW_MAX_VARIANTS];
  char kname[48];
  for (size_t i = 0; i < nvars; i++) {
    GB_TRY(launch_setup(st, k, t, &vars[i], tune_n, lc, kname, sizeof kname));
    GB_TRY(time_variant(st, lc, &to, &sec[i]));
  }
  size_t fin[GB_MEMBW_RETUNE];
  size_t nfin = gb_membw_fastest(sec, nvars, tune_n < n ? GB_MEMBW_RETUNE : 1, fin);
  size_t best = nfin > 0 ? fin[0] : 0;
  if (nfin > 1) {
    gb_measure_opts ro = to;
    ro.ops_per_sample = 1;
    double best_sec = INFINITY;
    for (size_t j = 0; j < nfin; j++) {
      double whole;
      GB_TRY(launch_setup(st, k, t, &vars[fin[j]], n, lc, kname, sizeof kname));
      GB_TRY(time_variant(st, lc, &ro, &whole));
      if (whole < best_sec) {
        best_sec = whole;
        best = fin[j];
      }
    }
  }
  *out = (membw_tuned){.best = best, .nfin = nfin, .tune_n = tune_n};
  return GB_OK;
}

static gb_err membw_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  membw_state *st = ctx->state;
  const gb_stream_kernel *k = &gb_stream_kernels[c->param[0]];
  gb_dtype t = (gb_dtype)c->param[1];
  bool cold = c->param[2] != 0;
  size_t es = gb_membw_elem_bytes(t);
  int64_t bytes = c->bytes, n = bytes / (int64_t)es;
  int64_t moved = gb_membw_bytes_moved(k, bytes);
  int sets = cold ? gb_membw_cold_sets(moved, st->l2_bytes) : 1;
  int ops = gb_membw_ops_per_sample(moved, sets);

  GB_TRY(slabs_ensure(st, k, t, bytes, sets, c->name));
  GB_TRY(fill_case(st, k, t, n, sets, bytes, false));

  gb_membw_variant vars[GB_MEMBW_MAX_VARIANTS];
  size_t nvars = gb_membw_variants(k, t, ctx->cfg->profile, vars, GB_MEMBW_MAX_VARIANTS);
  membw_launch lc = {.st = st, .sets = sets, .bytes = bytes, .f32 = t == GB_DT_F32, .s64 = MEMBW_SCALAR,
                     .s32 = (float)MEMBW_SCALAR};
  membw_tuned tu = {0};
  GB_TRY(tune_case(st, k, t, cold, n, sets, ops, vars, nvars, &lc, &tu));
  size_t best = tu.best, nfin = tu.nfin;
  int64_t tune_n = tu.tune_n;
  char kname[48];

  /* the timed repetitions with the chosen variant, outputs poisoned again */
  GB_TRY(fill_case(st, k, t, n, sets, bytes, true));
  GB_TRY(launch_setup(st, k, t, &vars[best], n, &lc, kname, sizeof kname));
  gb_measure_opts mo = measure_opts(ctx, ops);
  mo.tel = ctx->tel;
  gb_samples smp = {0};
  GB_TRY(gb_measure(&mo, st->stream, membw_launch_op, &lc, &smp));
  gb_stats rate = gb_samples_rate(&smp, (double)moved, 1e9);
  size_t nsamples = smp.n;
  gb_samples_free(&smp);

  bool ok;
  char err[512] = "";
  size_t nchecked = 0;
  GB_TRY(membw_check(st, k, t, n, sets, bytes, &ok, err, sizeof err, &nchecked));

  char vname[64], detail[1024], tuned_on[48], checked[600];
  gb_membw_variant_name(&vars[best], vname, sizeof vname);
  const char *regime = cold ? "hbm-cold" : gb_membw_regime(moved, st->l2_bytes);
  gb_fmt_size(tuned_on, sizeof tuned_on, tune_n * (int64_t)es);
  if (nfin > 1) {
    size_t used = strlen(tuned_on);
    snprintf(tuned_on + used, sizeof tuned_on - used, ", the %zu fastest on all", nfin);
  }
  if (ok)
    gb_snprintf_c(checked, sizeof checked, "check ok (%zu %s)", nchecked,
                  k->reduction ? "sampled inputs and sums, rel tol 1e-10" : "sampled elements, exact");
  else
    gb_snprintf_c(checked, sizeof checked, "%s", err);
  /* a failed check leads the detail (for people: readers use the columns) */
  gb_snprintf_c(detail, sizeof detail,
                "%s%skernel=%s (%s) grid=%ux%u %s regime=%s sets=%d ops/sample=%d tuned %zu variants on %s%s%s",
                ok ? "" : checked, ok ? "" : "; ", kname, k->formula, lc.grid.x, lc.block.x,
                vars[best].persistent ? "persistent" : "cover", regime, sets, ops, nvars, tuned_on, ok ? "; " : "",
                ok ? checked : "");

  gb_row r = GB_ROW(membw, gbps, c);
  r.value = rate.median;
  r.samples = (int64_t)nsamples;
  r.min = rate.min;
  r.max = rate.max;
  r.stddev = rate.stddev;
  r.status = ok ? GB_STATUS_OK : GB_STATUS_INVALID;
  r.l2_bytes = st->l2_bytes; /* the HBM rule reads it (gb_desc_is_hbm) */
  r.regime = regime;
  /* the headline column is the runner's (gb_desc_is_headline over the plan) */
  r.detail = detail;
  r.variant = vname;
  r.peak = ctx->dev->theoretical_bw_gbps > 0 ? ctx->dev->theoretical_bw_gbps : NAN;
  return gb_rowset_add(out, &r);
}

static gb_err membw_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  gb_membw_opts o;
  GB_TRY(gb_membw_opts_parse(ctx->cfg->bench_opts, "membw.", &o));
  int64_t sizes[GB_MEMBW_MAX_SIZES];
  size_t nsizes;
  int64_t l2 = ctx->dev->l2_bytes;
  if (o.nsizes > 0) {
    nsizes = o.nsizes;
    memcpy(sizes, o.sizes, sizeof(int64_t) * nsizes);
  } else {
    size_t free_b = 0, total_b = 0;
    GB_CUDA(cudaSetDevice(ctx->dev->ordinal));
    GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    int64_t max = o.max_bytes > 0 ? o.max_bytes : gb_membw_default_max_bytes(ctx->cfg->profile);
    nsizes = gb_membw_sweep(ctx->cfg->profile, max, (int64_t)free_b, 3, sizes, GB_MEMBW_MAX_SIZES);
    if (nsizes == 0) {
      char fr[32];
      gb_fmt_size(fr, sizeof fr, (int64_t)free_b);
      return gb_fail(GB_E_OOM, "membw: not even three arrays of 1 MiB fit in the %s of free device memory", fr);
    }
  }
  static const gb_dtype types[2] = {GB_DT_F64, GB_DT_F32};
  /* hot cases size-major (one allocation per size), then the cold ones */
  for (int pass = 0; pass < 2; pass++) {
    bool cold = pass == 1;
    if (cold && o.cold == 0) continue;
    for (size_t si = 0; si < nsizes; si++)
      for (int ti = 0; ti < 2; ti++) {
        if (o.dtype_mask && !(o.dtype_mask & (1u << ti))) continue;
        /* quick keeps the cold sweep to fp64 unless asked */
        if (cold && ti == 1 && ctx->cfg->profile == GB_PROFILE_QUICK && o.cold != 1) continue;
        for (size_t ki = 0; ki < gb_stream_nkernels; ki++) {
          const gb_stream_kernel *k = &gb_stream_kernels[ki];
          if (o.kernel_mask && !(o.kernel_mask & (1u << ki))) continue;
          if (cold && gb_membw_cold_sets(gb_membw_bytes_moved(k, sizes[si]), l2) < 2) continue;
          char name[64];
          snprintf(name, sizeof name, "%s%s", k->name, cold ? "_cold" : "");
          gb_case c = gb_case_init(name, dtype_text(types[ti]));
          c.bytes = sizes[si];
          c.param[0] = (long)ki;
          c.param[1] = (long)types[ti];
          c.param[2] = cold ? 1 : 0;
          c.spec = k;
          GB_TRY(gb_case_list_add(out, &c));
        }
      }
  }
  return GB_OK;
}

static void membw_teardown(gb_run_ctx *ctx) {
  membw_state *st = ctx->state;
  if (!st) return;
  slabs_free(st);
  if (st->partial) cudaFree(st->partial);
  if (st->counter) cudaFree(st->counter);
  if (st->results) cudaFree(st->results);
  if (st->stage) cudaFreeHost(st->stage);
  if (st->stream) cudaStreamDestroy(st->stream);
  if (st->mod_loaded) gb_module_unload(&st->mod);
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++) free(st->period[i][r]);
  free(st);
  ctx->state = NULL;
}

static gb_err membw_setup(gb_run_ctx *ctx) {
  membw_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "membw: out of host memory");
  ctx->state = st;
  gb_err e = GB_OK;
  GB_TRY_GOTO(gb_membw_opts_parse(ctx->cfg->bench_opts, "membw.", &st->opts), e, fail);
  int dev = ctx->dev->ordinal;
  GB_CUDA_GOTO(cudaSetDevice(dev), e, fail);
  GB_CUDA_GOTO(cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, dev), e, fail);
  GB_CUDA_GOTO(cudaDeviceGetAttribute(&st->max_blocks_sm, cudaDevAttrMaxBlocksPerMultiprocessor, dev), e, fail);
  GB_CUDA_GOTO(cudaDeviceGetAttribute(&st->max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev), e, fail);
  st->l2_bytes = ctx->dev->l2_bytes;
  GB_CUDA_GOTO(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking), e, fail);
  {
    const char *opts[] = {"--fmad=false"};
    GB_TRY_GOTO(gb_module_load("stream.cu", opts, 1, &st->mod), e, fail);
    st->mod_loaded = true;
  }
  GB_CUDA_GOTO(cudaMalloc((void **)&st->partial, sizeof(double) * (size_t)st->sm_count * (size_t)st->max_blocks_sm), e,
               fail);
  GB_CUDA_GOTO(cudaMalloc((void **)&st->counter, sizeof(unsigned)), e, fail);
  GB_CUDA_GOTO(cudaMemset(st->counter, 0, sizeof(unsigned)), e, fail);
  GB_CUDA_GOTO(cudaMalloc((void **)&st->results, sizeof(double) * GB_MEMBW_MAX_SETS), e, fail);
  GB_CUDA_GOTO(cudaMallocHost((void **)&st->stage, sizeof(double) * MEMBW_STAGE_ELEMS), e, fail);
  return GB_OK;
fail:
  membw_teardown(ctx);
  return e;
}

/* The end-of-run table: per kernel and type, the best ok row at an HBM size
 * (gb_hbm_min_bytes: arrays >= 1 GiB and >= 8 L2s), else the largest ok
 * size, marked. */
static void membw_summarize(const gb_run_ctx *ctx, const gb_row *rows, size_t n, FILE *fp) {
  static const char *types[2] = {"fp64", "fp32"};
  double peak = ctx->dev->theoretical_bw_gbps;
  int64_t l2 = ctx->dev->l2_bytes;
  size_t invalid = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].status == GB_STATUS_INVALID) invalid++;
  fprintf(fp, "\nmembw: HBM bandwidth, GB/s = 1e9 B/s (BabelStream bytes; arrays >= 1 GiB and >= %d x L2)\n",
          GB_HBM_L2_FACTOR);
  fprintf(fp, "%-6s %-5s %-9s %-28s %9s %8s\n", "kernel", "dtype", "array", "best variant",
          GB_METRIC_UNIT(membw, gbps), "of peak");
  for (size_t ki = 0; ki < gb_stream_nkernels; ki++)
    for (int ti = 0; ti < 2; ti++) {
      const gb_row *best = NULL, *largest = NULL;
      for (size_t i = 0; i < n; i++) {
        const gb_row *r = &rows[i];
        if (r->status != GB_STATUS_OK || strcmp(r->metric, GB_METRIC_NAME(membw, gbps)) != 0) continue;
        if (strcmp(r->case_name, gb_stream_kernels[ki].name) != 0 || strcmp(r->dtype, types[ti]) != 0) continue;
        if (r->bytes >= gb_hbm_min_bytes(l2) && (!best || r->value > best->value)) best = r;
        if (!largest || r->bytes > largest->bytes || (r->bytes == largest->bytes && r->value > largest->value))
          largest = r;
      }
      const gb_row *show = best ? best : largest;
      if (!show) continue;
      char sz[32], pct[16] = "-";
      gb_fmt_size(sz, sizeof sz, show->bytes);
      if (peak > 0) gb_snprintf_c(pct, sizeof pct, "%.1f%%", 100.0 * show->value / peak);
      char val[32];
      gb_snprintf_c(val, sizeof val, "%.1f", show->value);
      fprintf(fp, "%-6s %-5s %-9s %-28s %9s %8s%s\n", gb_stream_kernels[ki].name, types[ti], sz,
              show->variant ? show->variant : "", val, pct, best ? "" : "  (below headline size)");
    }
  if (peak > 0) {
    char pk[32];
    gb_snprintf_c(pk, sizeof pk, "%.0f", peak);
    fprintf(fp, "theoretical peak %s GB/s (from info)\n", pk);
  }
  if (invalid) fprintf(fp, "%zu membw row(s) failed the result check (status invalid): not in this table\n", invalid);
}

static void membw_settings(const gb_run_config *cfg, char *buf, size_t n) {
  gb_membw_settings(cfg->bench_opts, "membw.", buf, n);
}

const gb_bench gb_bench_membw = {
    .name = "membw",
    .summary = "device-memory bandwidth: STREAM copy/mul/add/triad/dot, read, write; 1 MiB .. >= 4 GiB",
    .plan = membw_plan,
    .setup = membw_setup,
    .run = membw_run,
    .summarize = membw_summarize,
    .teardown = membw_teardown,
    .settings = membw_settings,
};
