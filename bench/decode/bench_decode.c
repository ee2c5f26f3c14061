/* bench_decode: what a decode step costs besides streaming the weights: a
 * kernel launch (plain and inside a CUDA graph), GEMV-class products at
 * batch 1..256 on model projection shapes (cuBLASLt, decode_gemv.c) and a
 * decode attention read of a KV cache (decode.cu), each timed with events
 * around many operations after warm-up, on random inputs, and checked.
 *
 * Formulas: launch, launch_graph: time_us = event time of ops launches /
 * ops. gemv: tflops = 2 m n k / seconds / 1e12. kv_read: gbps = K and V
 * bytes / seconds / 1e9 (the query, the partials and the output, under
 * 0.1% of it, are not counted). The cases and shapes: bench_decode.h.
 *
 * The top of bench/decode/: the runner calls it through gb_bench_decode; it
 * runs the launch and kv_read cases itself and a gemv case through
 * decode_gemv.c, and both take what every case shares from decode_case.c
 * (decode_internal.h says who does what). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode_internal.h"
#include "gb_cuda.h"
#include "gb_num.h"

/* ---- launch and launch_graph ---- */

typedef struct tick_launch {
  cudaKernel_t k;
  unsigned long long *counter;
} tick_launch;

static gb_err launch_tick(void *ctx, cudaStream_t s, long iter) {
  (void)iter;
  tick_launch *l = ctx;
  void *args[] = {&l->counter};
  GB_CUDA(cudaLaunchKernel((const void *)l->k, gb_dim1(1), gb_dim1(GB_DECODE_LAUNCH_BLOCK), args, 0, s));
  return GB_OK;
}

/* ops launches per sample (plain) or one graph of ops kernels; the check:
 * the counter the kernel increments equals every execution gb_measure made. */
static gb_err run_launch(gb_run_ctx *ctx, decode_state *st, const gb_case *c, bool graph, gb_rowset *out) {
  gb_err err = GB_OK;
  gb_samples samp = {0};
  tick_launch l = {.k = st->k_tick, .counter = st->counter};
  gb_measure_opts o = decode_measure_opts(ctx, 200, GB_DECODE_LAUNCH_OPS);
  o.graph = graph;
  unsigned long long count = 0;
  GB_CUDA(cudaMemsetAsync(st->counter, 0, sizeof *st->counter, st->stream));
  GB_TRY_GOTO(gb_measure(&o, st->stream, launch_tick, &l, &samp), err, done);
  if (decode_corrupt()) GB_CUDA_GOTO(cudaMemsetAsync(st->counter, 0, sizeof *st->counter, st->stream), err, done);
  GB_CUDA_GOTO(cudaMemcpyAsync(&count, st->counter, sizeof count, cudaMemcpyDeviceToHost, st->stream), err, done);
  GB_CUDA_GOTO(cudaStreamSynchronize(st->stream), err, done);
  int64_t want = gb_decode_launch_expected(o.warmup, o.ops_per_sample, (int64_t)samp.n, graph);
  gb_status status = (int64_t)count == want ? GB_STATUS_OK : GB_STATUS_INVALID;
  char detail[512];
  gb_snprintf_c(detail, sizeof detail,
                "%s%s: one block of %d threads a kernel, %d %s per sample between two events, %d warm-up launches%s; "
                "check: %llu of %lld executions counted",
                status == GB_STATUS_OK ? "" : "check failed: ", graph ? "CUDA graph" : "back-to-back launches",
                GB_DECODE_LAUNCH_BLOCK, o.ops_per_sample, graph ? "kernel nodes replayed" : "launches", o.warmup,
                graph ? " and one warm replay" : "", count, (long long)want);
  err = decode_add_rows(c, &samp, 0, status, detail, out);
done:
  gb_samples_free(&samp);
  return err;
}

/* ---- kv_read ---- */

typedef struct kv_op {
  decode_state *st;
  int64_t pairs, seq, chunk, splits;
  int sets;
  uint64_t set_elems; /* elements of K (and of V) per set */
  unsigned short *q, *k, *v; /* sets back to back */
  float *part_m, *part_l, *part_acc, *out;
} kv_op;

static void kv_free(kv_op *o) {
  void *p[] = {o->q, o->k, o->v, o->part_m, o->part_l, o->part_acc, o->out};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
    if (p[i]) cudaFree(p[i]);
}

static gb_err kv_launch(void *ctx, cudaStream_t s, long iter) {
  kv_op *o = ctx;
  uint64_t set = (uint64_t)(iter % o->sets);
  const unsigned short *q = o->q + set * (uint64_t)o->pairs * GB_DECODE_HEAD_DIM;
  const unsigned short *k = o->k + set * o->set_elems, *v = o->v + set * o->set_elems;
  long long seq = o->seq, chunk = o->chunk;
  int splits = (int)o->splits;
  float scale = (float)(1.0 / sqrt((double)GB_DECODE_HEAD_DIM));
  void *pa[] = {&q, &k, &v, &seq, &chunk, &scale, &o->part_m, &o->part_l, &o->part_acc};
  GB_CUDA(cudaLaunchKernel((const void *)o->st->k_partial, gb_dim3((unsigned)o->splits, (unsigned)o->pairs, 1),
                           gb_dim1(GB_DECODE_KV_THREADS), pa, 0, s));
  void *ca[] = {&o->part_m, &o->part_l, &o->part_acc, &splits, &o->out};
  GB_CUDA(cudaLaunchKernel((const void *)o->st->k_combine, gb_dim1((unsigned)o->pairs), gb_dim1(GB_DECODE_HEAD_DIM),
                           ca, 0, s));
  return GB_OK;
}

/* Buffers: sets of q, K and V (random bf16: K and V in [-1, 1), q in
 * [-3, 3) so that the scores spread over about one unit and the softmax is
 * not flat), the partials and the output. */
static gb_err kv_alloc(const gb_run_ctx *ctx, decode_state *st, const gb_case *c, kv_op *o) {
  o->st = st;
  o->pairs = c->m * c->param[1];
  o->seq = c->n;
  o->chunk = gb_decode_kv_chunk(c->m, c->param[1], c->n, ctx->dev->sm_count, &o->splits);
  o->set_elems = (uint64_t)o->pairs * (uint64_t)o->seq * GB_DECODE_HEAD_DIM;
  size_t free_b = 0, total_b = 0;
  GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  int64_t room = (int64_t)free_b - DECODE_MARGIN_BYTES;
  if (room < c->bytes)
    return gb_fail(GB_E_OOM, "kv_read: %lld bytes of KV cache; %.2f GiB free", (long long)c->bytes,
                   (double)free_b / (1 << 30));
  o->sets = gb_decode_sets(c->bytes, ctx->dev->l2_bytes, room);
  uint64_t qn = (uint64_t)o->pairs * GB_DECODE_HEAD_DIM, parts = (uint64_t)o->pairs * (uint64_t)o->splits;
  GB_CUDA(cudaMalloc((void **)&o->q, qn * 2 * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc((void **)&o->k, o->set_elems * 2 * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc((void **)&o->v, o->set_elems * 2 * (uint64_t)o->sets));
  GB_CUDA(cudaMalloc((void **)&o->part_m, parts * sizeof(float)));
  GB_CUDA(cudaMalloc((void **)&o->part_l, parts * sizeof(float)));
  GB_CUDA(cudaMalloc((void **)&o->part_acc, parts * GB_DECODE_HEAD_DIM * sizeof(float)));
  GB_CUDA(cudaMalloc((void **)&o->out, qn * sizeof(float)));
  uint64_t seed = 0x6B765F72656164ull ^ ((uint64_t)o->pairs << 32) ^ (uint64_t)o->seq; /* "kv_read" */
  GB_TRY(gb_fill_random(o->q, qn * (uint64_t)o->sets, GB_DT_BF16, -3, 3, seed, st->stream));
  GB_TRY(gb_fill_random(o->k, o->set_elems * (uint64_t)o->sets, GB_DT_BF16, -1, 1, seed + 1, st->stream));
  GB_TRY(gb_fill_random(o->v, o->set_elems * (uint64_t)o->sets, GB_DT_BF16, -1, 1, seed + 2, st->stream));
  GB_CUDA(cudaStreamSynchronize(st->stream));
  return GB_OK;
}

/* One step on set 0 into an output poisoned with NaN, then the sampled
 * (sequence, head) pairs against gb_decode_attn_ref from the same inputs
 * copied back. */
static gb_err kv_check(kv_op *o, double *rel_err, size_t *npairs) {
  cudaStream_t s = o->st->stream;
  int64_t pick[GB_DECODE_CHECK_HEADS];
  size_t np = gb_decode_check_heads(o->pairs, pick, GB_DECODE_CHECK_HEADS);
  size_t d = GB_DECODE_HEAD_DIM, seq_elems = (size_t)o->seq * d;
  uint16_t *hk = malloc(seq_elems * 2), *hv = malloc(seq_elems * 2), hq[GB_DECODE_HEAD_DIM];
  double *ref = malloc(np * d * sizeof *ref), *got = malloc(np * d * sizeof *got);
  float hout[GB_DECODE_HEAD_DIM];
  gb_err err = GB_OK;
  if (!hk || !hv || !ref || !got) {
    err = gb_fail(GB_E_NOMEM, "kv_read check: out of host memory");
    goto done;
  }
  GB_CUDA_GOTO(cudaMemsetAsync(o->out, 0xFF, (size_t)o->pairs * d * sizeof(float), s), err, done);
  GB_TRY_GOTO(kv_launch(o, s, 0), err, done);
  if (decode_corrupt()) GB_CUDA_GOTO(cudaMemsetAsync(o->out, 0x3F, (size_t)o->pairs * d * sizeof(float), s), err, done);
  for (size_t i = 0; i < np; i++) {
    uint64_t p = (uint64_t)pick[i];
    GB_CUDA_GOTO(cudaMemcpyAsync(hq, o->q + p * d, d * 2, cudaMemcpyDeviceToHost, s), err, done);
    GB_CUDA_GOTO(cudaMemcpyAsync(hk, o->k + p * seq_elems, seq_elems * 2, cudaMemcpyDeviceToHost, s), err, done);
    GB_CUDA_GOTO(cudaMemcpyAsync(hv, o->v + p * seq_elems, seq_elems * 2, cudaMemcpyDeviceToHost, s), err, done);
    GB_CUDA_GOTO(cudaMemcpyAsync(hout, o->out + p * d, sizeof hout, cudaMemcpyDeviceToHost, s), err, done);
    GB_CUDA_GOTO(cudaStreamSynchronize(s), err, done);
    gb_decode_attn_ref(hq, hk, hv, o->seq, (int)d, ref + i * d);
    for (size_t j = 0; j < d; j++) got[i * d + j] = hout[j];
  }
  *rel_err = gb_decode_rel_error(got, ref, np * d);
  *npairs = np;
done:
  free(hk);
  free(hv);
  free(ref);
  free(got);
  return err;
}

static gb_err run_kv(gb_run_ctx *ctx, decode_state *st, const gb_case *c, gb_rowset *out) {
  kv_op o = {0};
  gb_samples samp = {0};
  gb_err err = GB_OK;
  GB_TRY_GOTO(kv_alloc(ctx, st, c, &o), err, done);
  /* at ~3 TB/s plus two launches */
  gb_measure_opts mo = decode_measure_opts(ctx, 3, decode_ops_for((double)c->bytes / 3e12 + 4e-6));
  GB_TRY_GOTO(gb_measure(&mo, st->stream, kv_launch, &o, &samp), err, done);
  double rel_err = NAN;
  size_t np = 0;
  GB_TRY_GOTO(kv_check(&o, &rel_err, &np), err, done);
  gb_status status = rel_err <= GB_DECODE_KV_TOL ? GB_STATUS_OK : GB_STATUS_INVALID; /* NaN fails */
  char detail[512];
  gb_snprintf_c(detail, sizeof detail,
                "%sdecode attention, %lld sequence(s) x %lld KV heads x %lld tokens x %d bf16, one query each; "
                "%lld chunks of %lld tokens a head (grid %lldx%lld, %d threads) + combine; %d input set%s, %d "
                "step%s per sample; check: rel_err=%.3g tol=%.3g over %zu heads x %d",
                status == GB_STATUS_OK ? "" : "check failed: ", (long long)c->m, (long long)c->param[1],
                (long long)c->n, GB_DECODE_HEAD_DIM, (long long)o.splits, (long long)o.chunk, (long long)o.splits,
                (long long)o.pairs, GB_DECODE_KV_THREADS, o.sets, o.sets == 1 ? "" : "s", mo.ops_per_sample,
                mo.ops_per_sample == 1 ? "" : "s", rel_err, GB_DECODE_KV_TOL, np, GB_DECODE_HEAD_DIM);
  err = decode_add_rows(c, &samp, (double)c->bytes, status, detail, out);
done:
  gb_samples_free(&samp);
  kv_free(&o);
  return err;
}

/* ---- the benchmark ---- */

static gb_err decode_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  gb_decode_opts o;
  GB_TRY(gb_decode_opts_parse(ctx->cfg->bench_opts, &o));
  return gb_decode_plan(ctx->cfg->profile, &o, out);
}

static void decode_teardown(gb_run_ctx *ctx) {
  decode_state *st = ctx->state;
  if (!st) return;
  if (st->counter) cudaFree(st->counter);
  if (st->ws) cudaFree(st->ws);
  if (st->stream) cudaStreamDestroy(st->stream);
  if (st->lt) cublasLtDestroy(st->lt);
  if (st->mod_loaded) gb_module_unload(&st->mod);
  free(st);
  ctx->state = NULL;
}

static gb_err decode_setup(gb_run_ctx *ctx) {
  gb_err err = GB_OK;
  decode_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "decode: out of host memory");
  ctx->state = st;
  GB_TRY_GOTO(gb_module_load("decode.cu", NULL, 0, &st->mod), err, fail);
  st->mod_loaded = true;
  GB_TRY_GOTO(gb_module_kernel(&st->mod, "decode_tick", &st->k_tick), err, fail);
  GB_TRY_GOTO(gb_module_kernel(&st->mod, "decode_kv_partial", &st->k_partial), err, fail);
  GB_TRY_GOTO(gb_module_kernel(&st->mod, "decode_kv_combine", &st->k_combine), err, fail);
  GB_CUBLAS_GOTO(cublasLtCreate(&st->lt), err, fail);
  GB_CUDA_GOTO(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking), err, fail);
  GB_CUDA_GOTO(cudaMalloc(&st->ws, DECODE_WS_BYTES), err, fail);
  GB_CUDA_GOTO(cudaMalloc((void **)&st->counter, sizeof *st->counter), err, fail);
  return GB_OK;
fail:
  decode_teardown(ctx);
  return err;
}

static gb_err decode_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  decode_state *st = ctx->state;
  switch ((gb_decode_kind)c->param[0]) {
  case GB_DECODE_LAUNCH: return run_launch(ctx, st, c, false, out);
  case GB_DECODE_LAUNCH_GRAPH: return run_launch(ctx, st, c, true, out);
  case GB_DECODE_GEMV: return decode_run_gemv(ctx, st, c, out);
  case GB_DECODE_KV_READ: return run_kv(ctx, st, c, out);
  }
  return gb_fail(GB_E_INTERNAL, "decode: unknown case kind %ld", c->param[0]);
}

const gb_bench gb_bench_decode = {
    .name = "decode",
    .summary = "decode-step floors: kernel launch (plain, CUDA graph), cuBLASLt GEMV at batch 1..256, KV-cache read",
    .plan = decode_plan,
    .setup = decode_setup,
    .run = decode_run,
    .teardown = decode_teardown,
};
