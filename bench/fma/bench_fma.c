/* bench_fma: the CUDA-core arithmetic peak, from long independent FMA chains
 * (bench/fma/fma.cu) in fp32, fp64, fp16x2 and bf16x2.
 *
 * Formula: TFLOP/s = threads * iters * 8 chains * 2 fma * 2 flop * lanes
 *          / seconds / 1e12; peak = SMs * FMA lanes per SM per clock * 2 *
 *          the SM clock measured while it ran.
 *
 * The shape of a benchmark (docs/architecture.md): this file, its kernel
 * bench/fma/fma.cu and its entry in core/gb_registry.def; nothing else. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_harness.h"
#include "gb_nvml.h"
#include "gb_nvrtc.h"

/* ---- the pure parts (no GPU; tests/check_fma.c declares and tests them) ---- */

/* The fma cases: fp32, fp64, fp16x2, bf16x2. */
typedef enum fma_kind { FMA_FP32, FMA_FP64, FMA_FP16X2, FMA_BF16X2, FMA_KINDS } fma_kind;

const char *fma_kind_name(fma_kind k);

/* Fused multiply-adds one SM retires per clock for the kind (vector lanes
 * counted separately: an fp16x2 FMA counts as 2), by compute capability;
 * 0 when unknown. */
int fma_per_sm_per_clock(fma_kind k, int cc_major, int cc_minor);

/* TFLOP/s the clocks allow: sms * fma_per_sm_per_clock * 2 flop * clock. */
double fma_clock_peak_tflops(fma_kind k, int cc_major, int cc_minor, int sms, double clock_mhz);

/* FLOPs of one launch: threads * iters * chains * 2 fma per iteration *
 * 2 flop per fma * lanes (2 for the x2 kinds). */
double fma_launch_flops(fma_kind k, uint64_t threads, long iters, int chains);

/* The start value of chain j of thread tid, encoded as the kernel stores it
 * (the bits of the float/double/half2/bfloat162), for the result check. */
uint64_t fma_expected_bits(fma_kind k, unsigned tid, int j);

/* Chain counts tried (NACC in bench/fma/fma.cu); the fastest is kept. */
static const int k_chains[] = {8, 16};
#define FMA_VARIANTS (int)(sizeof k_chains / sizeof k_chains[0])

static const char *const k_names[FMA_KINDS] = {"fp32", "fp64", "fp16x2", "bf16x2"};
static const char *const k_kernels[FMA_KINDS] = {"fma_fp32", "fma_fp64", "fma_fp16x2", "fma_bf16x2"};
static const char *const k_dtypes[FMA_KINDS] = {"fp32", "fp64", "fp16", "bf16"};

const char *fma_kind_name(fma_kind k) { return (unsigned)k < FMA_KINDS ? k_names[k] : "?"; }

int fma_per_sm_per_clock(fma_kind k, int major, int minor) {
  int cc = major * 10 + minor;
  switch (k) {
  case FMA_FP32:
    if (cc == 70 || cc == 72 || cc == 75 || cc == 80) return 64;
    return cc >= 60 ? 128 : 0;
  case FMA_FP64:
    if (cc == 70 || cc == 80) return 32;
    if (cc == 90 || cc == 100) return 64;
    return cc >= 60 ? 2 : 0;
  case FMA_FP16X2:
  case FMA_BF16X2:
    if (k == FMA_BF16X2 && cc < 80) return 0;
    if (cc == 70) return 128;
    if (cc == 80 || cc == 90 || cc == 100) return 256;
    return cc >= 60 ? 128 : 0;
  default:
    return 0;
  }
}

double fma_clock_peak_tflops(fma_kind k, int major, int minor, int sms, double clock_mhz) {
  return (double)sms * fma_per_sm_per_clock(k, major, minor) * 2.0 * clock_mhz * 1e6 / 1e12;
}

double fma_launch_flops(fma_kind k, uint64_t threads, long iters, int chains) {
  double lanes = (k == FMA_FP16X2 || k == FMA_BF16X2) ? 2.0 : 1.0;
  return (double)threads * (double)iters * chains * 2.0 * 2.0 * lanes;
}

/* fp16 / bf16 bits of v * 0.25 for v in 0..255 (exact in both formats) */
static uint16_t f16_quarter(unsigned v) {
  if (!v) return 0;
  float f = v * 0.25f;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  int e = (int)((bits >> 23) & 0xFF) - 127 + 15;
  return (uint16_t)((e << 10) | ((bits >> 13) & 0x3FF));
}

static uint16_t bf16_quarter(unsigned v) {
  float f = v * 0.25f;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return (uint16_t)(bits >> 16);
}

uint64_t fma_expected_bits(fma_kind k, unsigned tid, int j) {
  unsigned v = (tid + (unsigned)j) & 255;
  switch (k) {
  case FMA_FP32: {
    float f = (float)v * 0.25f;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  case FMA_FP64: {
    double d = (double)v * 0.25;
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
  }
  case FMA_FP16X2: {
    uint32_t h = f16_quarter(v);
    return h | (h << 16);
  }
  case FMA_BF16X2: {
    uint32_t h = bf16_quarter(v);
    return h | (h << 16);
  }
  default:
    return 0;
  }
}

/* ---- GPU side ---- */

typedef struct fma_state {
  gb_module mod[FMA_VARIANTS];
  cudaKernel_t kern[FMA_VARIANTS][FMA_KINDS];
  cudaStream_t stream;
} fma_state;

typedef struct fma_launch {
  cudaKernel_t k;
  fma_kind kind;
  void *out;
  long iters;
  unsigned grid, block;
} fma_launch;

static gb_err launch_fma(void *ctx, cudaStream_t s, long iter) {
  (void)iter;
  fma_launch *l = ctx;
  float a32 = 2.0f, b32 = 0.5f, c32 = 0.5f, d32 = -0.25f;
  double a64 = 2.0, b64 = 0.5, c64 = 0.5, d64 = -0.25;
  /* half2 / bfloat162 constants, both lanes: 2, 0.5, 0.5, -0.25 */
  unsigned ah = 0x40004000u, bh = 0x38003800u, ch = 0x38003800u, dh = 0xB400B400u;
  unsigned ab = 0x40004000u, bb = 0x3F003F00u, cb = 0x3F003F00u, db = 0xBE80BE80u;
  void *args32[] = {&l->out, &l->iters, &a32, &b32, &c32, &d32};
  void *args64[] = {&l->out, &l->iters, &a64, &b64, &c64, &d64};
  void *argsh[] = {&l->out, &l->iters, &ah, &bh, &ch, &dh};
  void *argsb[] = {&l->out, &l->iters, &ab, &bb, &cb, &db};
  void **args = l->kind == FMA_FP32 ? args32 : l->kind == FMA_FP64 ? args64 : l->kind == FMA_FP16X2 ? argsh : argsb;
  GB_CUDA(cudaLaunchKernel((const void *)l->k, gb_dim1(l->grid), gb_dim1(l->block), args, 0, s));
  return GB_OK;
}

static gb_err fma_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  for (int k = 0; k < FMA_KINDS; k++) {
    if (fma_per_sm_per_clock((fma_kind)k, ctx->dev->cc_major, ctx->dev->cc_minor) == 0) continue;
    gb_case c = gb_case_init(k_names[k], k_dtypes[k]);
    c.param[0] = k;
    GB_TRY(gb_case_list_add(out, &c));
  }
  return GB_OK;
}

static gb_err fma_setup(gb_run_ctx *ctx) {
  fma_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err err = GB_OK;
  for (int v = 0; v < FMA_VARIANTS && !err; v++) {
    char def[32];
    snprintf(def, sizeof def, "-DNACC=%d", k_chains[v]);
    const char *opts[] = {def};
    err = gb_module_load("fma.cu", opts, 1, &st->mod[v]);
    for (int k = 0; k < FMA_KINDS && !err; k++) err = gb_module_kernel(&st->mod[v], k_kernels[k], &st->kern[v][k]);
  }
  if (!err) {
    cudaError_t e = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) err = gb_cuda_fail(e, "cudaStreamCreateWithFlags", __FILE__, __LINE__);
  }
  if (err) {
    for (int v = 0; v < FMA_VARIANTS; v++) gb_module_unload(&st->mod[v]);
    free(st);
    return err;
  }
  ctx->state = st;
  return GB_OK;
}

static void fma_teardown(gb_run_ctx *ctx) {
  fma_state *st = ctx->state;
  if (!st) return;
  if (st->stream) cudaStreamDestroy(st->stream);
  for (int v = 0; v < FMA_VARIANTS; v++) gb_module_unload(&st->mod[v]);
  free(st);
  ctx->state = NULL;
}

/* Current SM clock of the device, MHz (NaN when NVML cannot say). */
static double sm_clock_now(const gb_device_info *d) {
  unsigned mhz;
  gb_nvml_dev *nd = gb_nvml_device_by_pci(d->pci_bus_id);
  return nd && gb_nvml_clock_sm_mhz(nd, &mhz) ? (double)mhz : NAN;
}

/* Times one chain-count variant; fills *samp, *iters and *clock. */
static gb_err fma_time_variant(fma_state *st, const gb_run_ctx *ctx, fma_kind kind, int v, void *dout,
                               unsigned grid, unsigned block, gb_samples *samp, long *iters, double *clock) {
  const gb_device_info *d = ctx->dev;
  uint64_t threads = (uint64_t)grid * block;
  /* iterations sized for about 20 ms per launch at the clock-allowed peak */
  double peak_max = fma_clock_peak_tflops(kind, d->cc_major, d->cc_minor, d->sm_count, d->max_sm_clock_mhz);
  double per_iter = fma_launch_flops(kind, threads, 1, k_chains[v]);
  *iters = (long)(peak_max * 1e12 * 0.020 / per_iter);
  if (*iters < 64) *iters = 64;
  fma_launch l = {.k = st->kern[v][kind], .kind = kind, .out = dout, .iters = *iters, .grid = grid, .block = block};
  gb_measure_opts o = gb_measure_defaults();
  o.warmup = ctx->cfg->warmup >= 0 ? ctx->cfg->warmup : 5;
  o.min_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : 20;
  o.max_samples = o.min_samples > 50 ? o.min_samples : 50;
  o.budget_s = ctx->cfg->profile == GB_PROFILE_FULL ? 2.0 : 0.6;
  o.tel = ctx->tel;
  GB_TRY(gb_measure(&o, st->stream, launch_fma, &l, samp));
  *clock = sm_clock_now(d); /* right after the timed launches, while clocks are still up */
  return GB_OK;
}

static gb_err fma_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  fma_state *st = ctx->state;
  fma_kind kind = (fma_kind)c->param[0];
  const gb_device_info *d = ctx->dev;
  unsigned block = 256;
  /* 8 resident blocks of 256 threads per SM (2048 threads), times 4 waves */
  unsigned grid = (unsigned)d->sm_count * 8 * 4;
  uint64_t threads = (uint64_t)grid * block;
  size_t elem = kind == FMA_FP64 ? 8 : 4;
  int max_chains = k_chains[FMA_VARIANTS - 1];
  size_t bytes = threads * (size_t)max_chains * elem;
  void *dout = NULL;
  unsigned char *host = NULL;
  gb_err err = GB_OK;
  gb_samples samp = {0};
  double best_rate = -1, clock = NAN;
  long iters = 0;
  int best = 0;
  char tried[128] = "";
  GB_CUDA_GOTO(cudaMalloc(&dout, bytes), err, done);

  /* every variant, keep the fastest; the kept one runs last, so its output is what is checked */
  for (int pass = 0; pass < 2; pass++) {
    for (int v = 0; v < FMA_VARIANTS; v++) {
      if (pass == 1 && v != best) continue;
      gb_samples_free(&samp);
      GB_CUDA_GOTO(cudaMemsetAsync(dout, 0xFF, bytes, st->stream), err, done); /* poison */
      double clk;
      long it;
      GB_TRY_GOTO(fma_time_variant(st, ctx, kind, v, dout, grid, block, &samp, &it, &clk), err, done);
      gb_stats r = gb_samples_rate(&samp, fma_launch_flops(kind, threads, it, k_chains[v]), 1e12);
      if (pass == 0) {
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%schains%d %.1f", used ? ", " : "", k_chains[v], r.median);
        if (r.median > best_rate) {
          best_rate = r.median;
          best = v;
        }
      }
      iters = it;
      clock = clk;
    }
  }
  int chains = k_chains[best];

  /* check every chain of every thread, and that every thread wrote */
  host = malloc(bytes);
  if (!host) {
    err = gb_fail(GB_E_NOMEM, "out of memory");
    goto done;
  }
  GB_CUDA_GOTO(cudaMemcpyAsync(host, dout, bytes, cudaMemcpyDeviceToHost, st->stream), err, done);
  GB_CUDA_GOTO(cudaStreamSynchronize(st->stream), err, done);
  size_t wrong = 0, first_bad = (size_t)-1;
  for (uint64_t t = 0; t < threads; t++)
    for (int j = 0; j < chains; j++) {
      uint64_t want = fma_expected_bits(kind, (unsigned)t, j), got = 0;
      memcpy(&got, host + (t * (uint64_t)chains + (uint64_t)j) * elem, elem);
      if (got != want) {
        if (!wrong) first_bad = t * (uint64_t)chains + (uint64_t)j;
        wrong++;
      }
    }

  gb_stats rate = gb_samples_rate(&samp, fma_launch_flops(kind, threads, iters, chains), 1e12);
  double use_clock = isnan(clock) ? d->max_sm_clock_mhz : clock;
  double peak = fma_clock_peak_tflops(kind, d->cc_major, d->cc_minor, d->sm_count, use_clock);
  char detail[640], variant[64];
  snprintf(variant, sizeof variant, "chains%d_block%u_grid%u", chains, block, grid);
  gb_row r = GB_ROW(fma, tflops, c);
  r.value = rate.median;
  r.samples = (int64_t)rate.n;
  r.min = rate.min;
  r.max = rate.max;
  r.stddev = rate.stddev;
  r.peak = peak;
  r.variant = variant;
  r.sm_clock_mhz = clock;
  if (wrong) {
    r.status = GB_STATUS_INVALID;
    snprintf(detail, sizeof detail, "check failed: %zu of %llu chain results differ from their start value (first at %zu)",
             wrong, (unsigned long long)threads * chains, first_bad);
  } else {
    snprintf(detail, sizeof detail,
             "%.1f%% of the %.1f TFLOP/s the %.0f MHz SM clock allows (%d FMA lanes/SM/clk); %ld iterations, "
             "all %llu chains checked; variants tried (TFLOP/s): %s",
             100.0 * rate.median / peak, peak, use_clock, fma_per_sm_per_clock(kind, d->cc_major, d->cc_minor),
             iters, (unsigned long long)threads * chains, tried);
  }
  r.detail = detail;
  err = gb_rowset_add(out, &r);
done:
  gb_samples_free(&samp);
  free(host);
  if (dout) cudaFree(dout);
  return err;
}

static void fma_summarize(const gb_run_ctx *ctx, const gb_row *rows, size_t n, FILE *fp) {
  (void)ctx;
  fprintf(fp, "\nCUDA-core peak (fma)\n%-8s %12s %12s %8s  %s\n", "case", GB_METRIC_UNIT(fma, tflops),
          "clock peak", "share", "status");
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (strcmp(r->metric, GB_METRIC_NAME(fma, tflops)) != 0) continue;
    fprintf(fp, "%-8s %12.2f %12.2f %7.1f%%  %s\n", r->case_name, r->value, r->peak,
            r->peak > 0 ? 100.0 * r->value / r->peak : 0.0, gb_status_name(r->status));
  }
}

const gb_bench gb_bench_fma = {
    .name = "fma",
    .summary = "CUDA-core FMA peak in fp32, fp64, fp16x2, bf16x2 (the roofline's non-tensor ceiling)",
    .plan = fma_plan, /* metric, unit, headline: its entry in core/gb_registry.def */
    .setup = fma_setup,
    .run = fma_run,
    .summarize = fma_summarize,
    .teardown = fma_teardown,
};
