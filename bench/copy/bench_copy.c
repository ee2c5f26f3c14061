/* bench_copy: copy-engine bandwidth through cudaMemcpyAsync: device to device,
 * host to device and device to host from pinned and from pageable memory,
 * both directions at once (pinned, two streams), and, with several selected
 * GPUs, peer copies between each ordered pair with peer access on and off.
 *
 * Formula: GB/s = bytes copied / seconds per copy / 1e9 (nvbandwidth's
 * convention: each byte counted once). d2d adds a row `rw_gbps` counting read
 * plus write (2 x bytes), comparable with membw copy and PyTorch copy_.
 * bidir_pinned counts both directions (2 x bytes per operation).
 *
 * Cases and their nvbandwidth counterparts: d2d (device_local_copy),
 * h2d_pinned (host_to_device_memcpy_ce), d2h_pinned (device_to_host_memcpy_ce),
 * h2d_pageable, d2h_pageable, bidir_pinned (host_device_bidirectional_memcpy_ce,
 * reported as the sum of both directions), p2p_<a>to<b>_peer_on|off
 * (device_to_device_memcpy_write_ce). Every copy is checked afterwards:
 * sampled destination elements (first, last, pseudo-random) against the
 * random source (gb_random_value), so a copy that wrote nothing or the wrong
 * bytes is `invalid`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_membw.h"
#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_harness.h"
#include "gb_num.h"

#define COPY_LO 1.0
#define COPY_HI 2.0
#define COPY_SEED_DEV 0x636f70792d64ULL  /* data that starts on a device */
#define COPY_SEED_HOST 0x636f70792d68ULL /* data that starts on the host */
#define COPY_SAMPLES 32

typedef enum copy_kind { COPY_D2D, COPY_H2D, COPY_D2H, COPY_BIDIR, COPY_P2P } copy_kind;

typedef struct copy_state {
  cudaStream_t s, s2;     /* s2: the second direction of bidir */
  cudaEvent_t fork, join;
  void *dsrc, *ddst;      /* device */
  void *hsrc, *hdst;      /* host, pinned or pageable (hpinned says which) */
  bool hpinned;
  int64_t dcap, hcap;
  int64_t hpinned_max;    /* the largest pinned case of the plan: allocated once */
  gb_membw_opts opts;
} copy_state;

typedef struct copy_launch {
  copy_state *st;
  copy_kind kind;
  void *dst, *src;   /* the copy (bidir: host to device) */
  void *dst2, *src2; /* bidir: device to host */
  int dst_dev, src_dev;
  size_t bytes;
} copy_launch;

static const char *kind_text(copy_kind k) {
  switch (k) {
  case COPY_D2D: return "device to device";
  case COPY_H2D: return "host to device";
  case COPY_D2H: return "device to host";
  case COPY_BIDIR: return "host to device and device to host at once";
  default: return "peer";
  }
}

static gb_err copy_op(void *v, cudaStream_t s, long iter) {
  copy_launch *c = v;
  (void)iter;
  switch (c->kind) {
  case COPY_D2D: GB_CUDA(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s)); break;
  case COPY_H2D: GB_CUDA(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyHostToDevice, s)); break;
  case COPY_D2H: GB_CUDA(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToHost, s)); break;
  case COPY_BIDIR:
    GB_CUDA(cudaEventRecord(c->st->fork, s));
    GB_CUDA(cudaStreamWaitEvent(c->st->s2, c->st->fork, 0));
    GB_CUDA(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyHostToDevice, s));
    GB_CUDA(cudaMemcpyAsync(c->dst2, c->src2, c->bytes, cudaMemcpyDeviceToHost, c->st->s2));
    GB_CUDA(cudaEventRecord(c->st->join, c->st->s2));
    GB_CUDA(cudaStreamWaitEvent(s, c->st->join, 0));
    break;
  case COPY_P2P: GB_CUDA(cudaMemcpyPeerAsync(c->dst, c->dst_dev, c->src, c->src_dev, c->bytes, s)); break;
  }
  return GB_OK;
}

static void host_free(copy_state *st) {
  if (st->hpinned) {
    if (st->hsrc) cudaFreeHost(st->hsrc);
    if (st->hdst) cudaFreeHost(st->hdst);
  } else {
    free(st->hsrc);
    free(st->hdst);
  }
  st->hsrc = st->hdst = NULL;
  st->hcap = 0;
}

/* Device buffers of at least bytes on the current device. */
static gb_err dev_ensure(copy_state *st, int64_t bytes) {
  if (st->dcap >= bytes) return GB_OK;
  if (st->dsrc) cudaFree(st->dsrc);
  if (st->ddst) cudaFree(st->ddst);
  st->dsrc = st->ddst = NULL;
  st->dcap = 0;
  GB_CUDA(cudaMalloc(&st->dsrc, (size_t)bytes));
  GB_CUDA(cudaMalloc(&st->ddst, (size_t)bytes));
  st->dcap = bytes;
  return GB_OK;
}

/* Host buffers of at least bytes, pinned or pageable (pages touched).
 * Pinned ones are made once at the plan's largest pinned size: a fresh
 * cudaMallocHost per size put each size on pages of its own. */
static gb_err host_ensure(copy_state *st, int64_t bytes, bool pinned) {
  if (st->hcap >= bytes && st->hpinned == pinned) return GB_OK;
  if (pinned && st->hpinned_max > bytes) bytes = st->hpinned_max;
  host_free(st);
  st->hpinned = pinned;
  if (pinned) {
    GB_CUDA(cudaMallocHost(&st->hsrc, (size_t)bytes));
    GB_CUDA(cudaMallocHost(&st->hdst, (size_t)bytes));
  } else {
    st->hsrc = malloc((size_t)bytes);
    st->hdst = malloc((size_t)bytes);
    if (!st->hsrc || !st->hdst) {
      char sz[32];
      gb_fmt_size(sz, sizeof sz, bytes);
      host_free(st);
      return gb_fail(GB_E_NOMEM, "copy: cannot allocate two pageable host buffers of %s", sz);
    }
    memset(st->hsrc, 0, (size_t)bytes);
    memset(st->hdst, 0, (size_t)bytes);
  }
  st->hcap = bytes;
  return GB_OK;
}

/* Checks n fp64 elements at dst (device or host: cudaMemcpy reads either)
 * against the random sequence of seed. */
static gb_err check_dst(const void *dst, int64_t n, uint64_t seed, bool *ok, char *msg, size_t msgn) {
  int64_t idx[COPY_SAMPLES];
  gb_membw_sample smp[COPY_SAMPLES];
  size_t m = gb_membw_sample_indices(n, COPY_SAMPLES, seed ^ 0x5a5aULL, idx);
  for (size_t i = 0; i < m; i++) {
    double got;
    GB_CUDA(cudaMemcpy(&got, (const char *)dst + idx[i] * 8, 8, cudaMemcpyDefault));
    memset(&smp[i], 0, sizeof smp[i]);
    smp[i].index = idx[i];
    smp[i].x = smp[i].x_got = gb_random_value((size_t)idx[i], GB_DT_F64, COPY_LO, COPY_HI, seed);
    smp[i].z_got = got;
  }
  if (!gb_membw_check_samples(gb_stream_find("copy"), GB_DT_F64, 0.0, smp, m, msg, msgn)) *ok = false;
  return GB_OK;
}

/* Sets peer access between a and b (both directions) on or off. */
static gb_err peer_set(int a, int b, bool on) {
  int pair[2][2] = {{a, b}, {b, a}};
  for (int i = 0; i < 2; i++) {
    GB_CUDA(cudaSetDevice(pair[i][0]));
    cudaError_t e = on ? cudaDeviceEnablePeerAccess(pair[i][1], 0) : cudaDeviceDisablePeerAccess(pair[i][1]);
    if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
      (void)cudaGetLastError();
    } else if (e != cudaSuccess) {
      return gb_cuda_fail(e, on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess", __FILE__, __LINE__);
    }
  }
  return GB_OK;
}

static gb_measure_opts copy_measure_opts(const gb_run_ctx *ctx) {
  gb_measure_opts o = gb_measure_defaults();
  bool full = ctx->cfg->profile == GB_PROFILE_FULL;
  o.warmup = ctx->cfg->warmup >= 0 ? ctx->cfg->warmup : 2;
  /* up to the budget: 20 copies of 16 MiB over PCIe took 6 ms, and in 1 of
   * ~25 runs a host-side slow spell covered most of the window (h2d 45.6
   * against 54.5 GB/s); up to 100 of them spread it over 30 ms */
  o.min_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : (full ? 10 : 5);
  o.max_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : (full ? 250 : 100);
  o.budget_s = full ? 0.3 : 0.1;
  o.ops_per_sample = 1;
  o.graph = false; /* pageable copies cannot be captured */
  return o;
}

/* r: GB_ROW(copy, <metric>, case) */
static gb_err add_row(gb_run_ctx *ctx, gb_row r, const gb_stats *rate, size_t nsamples, bool ok, const char *detail,
                      gb_rowset *out) {
  r.value = rate->median;
  r.samples = (int64_t)nsamples;
  r.min = rate->min;
  r.max = rate->max;
  r.stddev = rate->stddev;
  r.status = ok ? GB_STATUS_OK : GB_STATUS_INVALID;
  r.detail = detail;
  r.variant = "cudaMemcpyAsync";
  (void)ctx;
  return gb_rowset_add(out, &r);
}

/* Measures one peer case: buffers on both devices, made and freed here. */
static gb_err run_p2p(gb_run_ctx *ctx, const gb_case *c, copy_launch *lc, gb_samples *smp, bool *ok, char *msg,
                      size_t msgn) {
  copy_state *st = ctx->state;
  int src = (int)c->param[1], dst = (int)c->param[2];
  bool on = c->param[3] != 0;
  int64_t n = c->bytes / 8;
  void *ds = NULL, *dd = NULL;
  cudaStream_t ps = NULL;
  gb_err e = GB_OK;
  if (on && !ctx->sys->peer[src][dst]) {
    e = gb_fail(GB_E_UNSUPPORTED, "copy %s: GPU %d cannot access GPU %d's memory (no peer access); skipped", c->name,
                src, dst);
    goto done;
  }
  GB_TRY_GOTO(peer_set(src, dst, on), e, done);
  GB_CUDA_GOTO(cudaSetDevice(dst), e, done);
  GB_CUDA_GOTO(cudaMalloc(&dd, (size_t)c->bytes), e, done);
  GB_TRY_GOTO(gb_fill_const(dd, (size_t)n, GB_DT_F64, NAN, NULL), e, done);
  GB_CUDA_GOTO(cudaDeviceSynchronize(), e, done);
  GB_CUDA_GOTO(cudaSetDevice(src), e, done);
  GB_CUDA_GOTO(cudaMalloc(&ds, (size_t)c->bytes), e, done);
  GB_CUDA_GOTO(cudaStreamCreateWithFlags(&ps, cudaStreamNonBlocking), e, done);
  GB_TRY_GOTO(gb_fill_random(ds, (size_t)n, GB_DT_F64, COPY_LO, COPY_HI, COPY_SEED_DEV, ps), e, done);
  *lc = (copy_launch){.st = st, .kind = COPY_P2P, .dst = dd, .src = ds, .dst_dev = dst, .src_dev = src,
                      .bytes = (size_t)c->bytes};
  gb_measure_opts o = copy_measure_opts(ctx);
  o.tel = ctx->tel;
  GB_TRY_GOTO(gb_measure(&o, ps, copy_op, lc, smp), e, done);
  GB_CUDA_GOTO(cudaStreamSynchronize(ps), e, done);
  if (st->opts.corrupt) {
    double bad = -1.0;
    GB_CUDA_GOTO(cudaMemcpy((char *)dd + (n - 1) * 8, &bad, 8, cudaMemcpyDefault), e, done);
  }
  GB_TRY_GOTO(check_dst(dd, n, COPY_SEED_DEV, ok, msg, msgn), e, done);
done:
  if (ps) cudaStreamDestroy(ps);
  if (ds) cudaFree(ds);
  if (dd) cudaFree(dd);
  cudaSetDevice(ctx->dev->ordinal);
  return e;
}

static gb_err copy_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  copy_state *st = ctx->state;
  copy_kind kind = (copy_kind)c->param[0];
  bool pinned = c->param[4] != 0;
  int64_t bytes = c->bytes, n = bytes / 8;
  bool ok = true;
  char err[512] = "";
  copy_launch lc = {0};
  gb_samples smp = {0};

  if (kind == COPY_P2P) {
    GB_TRY(run_p2p(ctx, c, &lc, &smp, &ok, err, sizeof err));
  } else {
    GB_CUDA(cudaSetDevice(ctx->dev->ordinal));
    GB_TRY(dev_ensure(st, bytes));
    if (kind != COPY_D2D) GB_TRY(host_ensure(st, bytes, pinned));
    /* sources random, destinations poisoned (NaN) */
    GB_TRY(gb_fill_random(st->dsrc, (size_t)n, GB_DT_F64, COPY_LO, COPY_HI, COPY_SEED_DEV, st->s));
    if (kind == COPY_H2D || kind == COPY_BIDIR) {
      GB_TRY(gb_fill_random(st->ddst, (size_t)n, GB_DT_F64, COPY_LO, COPY_HI, COPY_SEED_HOST, st->s));
      GB_CUDA(cudaMemcpyAsync(st->hsrc, st->ddst, (size_t)bytes, cudaMemcpyDeviceToHost, st->s));
    }
    GB_TRY(gb_fill_const(st->ddst, (size_t)n, GB_DT_F64, NAN, st->s));
    GB_CUDA(cudaStreamSynchronize(st->s));
    if (kind == COPY_D2H || kind == COPY_BIDIR) memset(st->hdst, 0xff, (size_t)bytes); /* NaN pattern */
    lc = (copy_launch){.st = st, .kind = kind, .bytes = (size_t)bytes};
    switch (kind) {
    case COPY_D2D: lc.dst = st->ddst; lc.src = st->dsrc; break;
    case COPY_H2D: lc.dst = st->ddst; lc.src = st->hsrc; break;
    case COPY_D2H: lc.dst = st->hdst; lc.src = st->dsrc; break;
    default: /* bidir */
      lc.dst = st->ddst; lc.src = st->hsrc;
      lc.dst2 = st->hdst; lc.src2 = st->dsrc;
      break;
    }
    gb_measure_opts o = copy_measure_opts(ctx);
    o.tel = ctx->tel;
    GB_TRY(gb_measure(&o, st->s, copy_op, &lc, &smp));
    GB_CUDA(cudaStreamSynchronize(st->s));
    GB_CUDA(cudaStreamSynchronize(st->s2));
    if (st->opts.corrupt) {
      double bad = -1.0;
      void *d = (kind == COPY_D2H) ? st->hdst : st->ddst;
      GB_CUDA(cudaMemcpy((char *)d + (n - 1) * 8, &bad, 8, cudaMemcpyDefault));
    }
    if (kind == COPY_D2D) GB_TRY(check_dst(st->ddst, n, COPY_SEED_DEV, &ok, err, sizeof err));
    if (kind == COPY_H2D || kind == COPY_BIDIR) GB_TRY(check_dst(st->ddst, n, COPY_SEED_HOST, &ok, err, sizeof err));
    if (ok && (kind == COPY_D2H || kind == COPY_BIDIR))
      GB_TRY(check_dst(st->hdst, n, COPY_SEED_DEV, &ok, err, sizeof err));
  }

  double per_op = kind == COPY_BIDIR ? 2.0 * (double)bytes : (double)bytes;
  gb_stats rate = gb_samples_rate(&smp, per_op, 1e9);
  size_t ns = smp.n;
  gb_samples_free(&smp);
  char detail[800];
  const char *bytes_note = kind == COPY_BIDIR ? "GB/s of both directions together (2 x bytes per operation)"
                                              : "GB/s counting each byte once";
  char where[96] = "";
  if (kind == COPY_P2P)
    gb_snprintf_c(where, sizeof where, " GPU %ld to GPU %ld, peer access %s", c->param[1], c->param[2],
                  c->param[3] ? "enabled" : "disabled (the driver picks the path)");
  else if (kind != COPY_D2D)
    gb_snprintf_c(where, sizeof where, " from %s host memory", pinned ? "pinned" : "pageable");
  gb_snprintf_c(detail, sizeof detail, "%s%s%s%s; %s; %s", ok ? "" : err, ok ? "" : "; ", kind_text(kind), where,
                bytes_note, ok ? "check ok (32 sampled elements, exact)" : "check failed");
  GB_TRY(add_row(ctx, GB_ROW(copy, gbps, c), &rate, ns, ok, detail, out));
  if (kind == COPY_D2D) {
    /* the same copy counting read plus write, as membw copy and torch copy_ */
    gb_stats rw = rate;
    rw.median *= 2.0;
    rw.min *= 2.0;
    rw.max *= 2.0;
    rw.stddev *= 2.0;
    gb_snprintf_c(detail, sizeof detail, "%s%sdevice to device; GB/s counting read plus write (2 x bytes); %s",
                  ok ? "" : err, ok ? "" : "; ", ok ? "check ok (32 sampled elements, exact)" : "check failed");
    GB_TRY(add_row(ctx, GB_ROW(copy, rw_gbps, c), &rw, ns, ok, detail, out));
  }
  return GB_OK;
}

static gb_err plan_add(gb_case_list *out, const char *name, copy_kind kind, int64_t bytes, bool pinned, int src,
                       int dst, bool peer_on, int gpus) {
  gb_case c = gb_case_init(name, "");
  c.bytes = bytes;
  c.gpu_count = gpus;
  c.param[0] = kind;
  c.param[1] = src;
  c.param[2] = dst;
  c.param[3] = peer_on;
  c.param[4] = pinned;
  return gb_case_list_add(out, &c);
}

/* Copy sizes: quick 1, 16 and 256 MiB; full 1 MiB to 1 GiB in steps of 4. */
static size_t copy_sizes(const gb_run_ctx *ctx, const gb_membw_opts *o, int64_t *sizes) {
  if (o->nsizes) {
    memcpy(sizes, o->sizes, sizeof(int64_t) * o->nsizes);
    return o->nsizes;
  }
  bool full = ctx->cfg->profile == GB_PROFILE_FULL;
  int64_t max = o->max_bytes > 0 ? o->max_bytes : (full ? GB_MEMBW_GIB : 256 * GB_MEMBW_MIB);
  size_t n = 0;
  for (int64_t b = GB_MEMBW_MIB; b <= max && n < GB_MEMBW_MAX_SIZES; b *= full ? 4 : 16) sizes[n++] = b;
  return n;
}

static gb_err copy_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  gb_membw_opts o;
  GB_TRY(gb_membw_opts_parse(ctx->cfg->bench_opts, "copy.", &o));
  int64_t sizes[GB_MEMBW_MAX_SIZES];
  size_t ns = copy_sizes(ctx, &o, sizes);
  static const struct {
    const char *name;
    copy_kind kind;
    bool pinned;
  } local[] = {
      /* pinned cases together, so the pinned buffers are allocated once */
      {"d2d", COPY_D2D, false},           {"h2d_pinned", COPY_H2D, true},     {"d2h_pinned", COPY_D2H, true},
      {"bidir_pinned", COPY_BIDIR, true}, {"h2d_pageable", COPY_H2D, false}, {"d2h_pageable", COPY_D2H, false},
  };
  int dev = ctx->dev->ordinal;
  for (size_t k = 0; k < sizeof local / sizeof local[0]; k++)
    for (size_t i = 0; i < ns; i++)
      GB_TRY(plan_add(out, local[k].name, local[k].kind, sizes[i], local[k].pinned, dev, dev, false, 1));
  const gb_run_config *cfg = ctx->cfg;
  for (int a = 0; a < cfg->ndevices; a++)
    for (int b = 0; b < cfg->ndevices; b++) {
      if (a == b) continue;
      for (int on = 1; on >= 0; on--) {
        char name[64];
        snprintf(name, sizeof name, "p2p_%dto%d_peer_%s", cfg->devices[a], cfg->devices[b], on ? "on" : "off");
        for (size_t i = 0; i < ns; i++)
          GB_TRY(plan_add(out, name, COPY_P2P, sizes[i], false, cfg->devices[a], cfg->devices[b], on == 1, 2));
      }
    }
  return GB_OK;
}

static void copy_teardown(gb_run_ctx *ctx) {
  copy_state *st = ctx->state;
  if (!st) return;
  host_free(st);
  if (st->dsrc) cudaFree(st->dsrc);
  if (st->ddst) cudaFree(st->ddst);
  if (st->fork) cudaEventDestroy(st->fork);
  if (st->join) cudaEventDestroy(st->join);
  if (st->s) cudaStreamDestroy(st->s);
  if (st->s2) cudaStreamDestroy(st->s2);
  free(st);
  ctx->state = NULL;
}

static gb_err copy_setup(gb_run_ctx *ctx) {
  copy_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "copy: out of host memory");
  ctx->state = st;
  gb_err e = GB_OK;
  GB_TRY_GOTO(gb_membw_opts_parse(ctx->cfg->bench_opts, "copy.", &st->opts), e, fail);
  {
    int64_t sizes[GB_MEMBW_MAX_SIZES];
    size_t ns = copy_sizes(ctx, &st->opts, sizes);
    for (size_t i = 0; i < ns; i++)
      if (sizes[i] > st->hpinned_max) st->hpinned_max = sizes[i];
  }
  GB_CUDA_GOTO(cudaSetDevice(ctx->dev->ordinal), e, fail);
  GB_CUDA_GOTO(cudaStreamCreateWithFlags(&st->s, cudaStreamNonBlocking), e, fail);
  GB_CUDA_GOTO(cudaStreamCreateWithFlags(&st->s2, cudaStreamNonBlocking), e, fail);
  GB_CUDA_GOTO(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming), e, fail);
  GB_CUDA_GOTO(cudaEventCreateWithFlags(&st->join, cudaEventDisableTiming), e, fail);
  return GB_OK;
fail:
  copy_teardown(ctx);
  return e;
}

/* The end-of-run table: per case, the rate at its largest ok size. */
static void copy_summarize(const gb_run_ctx *ctx, const gb_row *rows, size_t n, FILE *fp) {
  (void)ctx;
  fprintf(fp, "\ncopy: cudaMemcpyAsync bandwidth at the largest size, GB/s = 1e9 B/s\n");
  fprintf(fp, "%-24s %-8s %-9s %9s\n", "case", "metric", "size", GB_METRIC_UNIT(copy, gbps));
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &rows[i];
    if (r->status != GB_STATUS_OK) continue;
    bool seen = false, larger = false;
    for (size_t j = 0; j < n && !seen && !larger; j++) {
      const gb_row *q = &rows[j];
      if (j == i || q->status != GB_STATUS_OK || strcmp(q->case_name, r->case_name) != 0 ||
          strcmp(q->metric, r->metric) != 0)
        continue;
      if (q->bytes > r->bytes) larger = true;
      if (q->bytes == r->bytes && j < i) seen = true;
    }
    if (seen || larger) continue;
    char sz[32], val[32];
    gb_fmt_size(sz, sizeof sz, r->bytes);
    gb_snprintf_c(val, sizeof val, "%.1f", r->value);
    fprintf(fp, "%-24s %-8s %-9s %9s\n", r->case_name, r->metric, sz, val);
  }
}

static void copy_settings(const gb_run_config *cfg, char *buf, size_t n) {
  gb_membw_settings(cfg->bench_opts, "copy.", buf, n);
}

const gb_bench gb_bench_copy = {
    .name = "copy",
    .summary = "copy engines: d2d, h2d/d2h pinned and pageable, bidirectional, peer on/off",
    .plan = copy_plan,
    .setup = copy_setup,
    .run = copy_run,
    .summarize = copy_summarize,
    .teardown = copy_teardown,
    .settings = copy_settings,
};
