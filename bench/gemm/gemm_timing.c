/* gemm_timing: the timing plan of a case, the rules that keep a candidate
 * (bench_gemm.h, tested on the CPU), and the device side: a candidate's
 * burst and the timed window of the one kept. Called by gemm_bench.c (the
 * plan, the window) and gemm_search.c (bursts, the keep rule); calls
 * gemm_op.c (one product). */
#include <math.h>
#include <time.h>

#include "gb_cuda.h"
#include "gb_stats.h"
#include "gemm_internal.h"

const char *gb_gemm_window_name(gb_gemm_window w) {
  return w == GB_GEMM_WINDOW_SUSTAINED ? "sustained" : "burst";
}

int gb_gemm_keep(const double *t, int n, int first) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (isfinite(t[i]) && (best < 0 || t[i] < t[best])) best = i;
  if (best >= 0 && first >= 0 && first < n && first != best && isfinite(t[first]) &&
      t[first] <= t[best] * (1.0 + GB_GEMM_KEEP_MARGIN))
    return first;
  return best;
}

int gb_gemm_first_of(const double *t, int a, int b) {
  if (a < 0 || (b >= 0 && !isfinite(t[a]))) return b;
  if (b < 0 || !isfinite(t[b])) return a;
  return t[b] < t[a] ? b : a;
}

int gb_gemm_finalists(const double *t, int n, int first, int max, int *out) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (isfinite(t[i]) && (best < 0 || t[i] < t[best])) best = i;
  if (best < 0 || max < 1) return 0;
  double limit = t[best] * (1.0 + GB_GEMM_FINALIST_WITHIN);
  int got = 0;
  bool first_in = false;
  /* selection by screening time, fastest first (n is at most a few dozen) */
  while (got < max) {
    int next = -1;
    for (int i = 0; i < n; i++) {
      if (!isfinite(t[i]) || t[i] > limit) continue;
      bool taken = false;
      for (int j = 0; j < got; j++) taken = taken || out[j] == i;
      if (!taken && (next < 0 || t[i] < t[next])) next = i;
    }
    if (next < 0) break;
    out[got++] = next;
    first_in = first_in || next == first;
  }
  /* the heuristic's first goes on wherever its screening put it */
  if (!first_in && first >= 0 && first < n && isfinite(t[first])) {
    if (got < max) got++;
    out[got - 1] = first;
  }
  return got;
}

int gb_gemm_rest_ms(const gb_gemm_opts *o) {
  if (o->rest_ms >= 0) return o->rest_ms;
  return o->window == GB_GEMM_WINDOW_BURST ? GB_GEMM_REST_MS_BURST : 0;
}

gb_gemm_timing gb_gemm_timing_plan(gb_profile profile, gb_gemm_window window, double t_op_s) {
  bool quick = profile == GB_PROFILE_QUICK;
  double search_budget_s = quick ? 0.08 : 0.25;
  gb_gemm_timing t = {.budget_s = quick ? 0.2 : 0.5, .max_samples = 200};
  if (!(t_op_s > 0)) t_op_s = 1e-3;
  /* at least 100 us between the two events of a sample */
  t.ops_per_sample = 1;
  if (t_op_s < 100e-6) {
    t.ops_per_sample = (int)ceil(100e-6 / t_op_s);
    if (t.ops_per_sample > 64) t.ops_per_sample = 64;
  }
  double t_sample = t_op_s * t.ops_per_sample;
  /* 3 samples up to 50 ms: with 2, fp32 8192^3 (21 ms) on an H200 kept
   * heuristic #2, over 1% ahead in the search, 1.6% behind #1 in the window */
  t.search_reps = t_sample < 1e-3 ? 5 : t_sample < 50e-3 ? 3 : 2;
  double cand = floor(search_budget_s / ((t.search_reps + 1) * t_sample));
  /* at least 4, also for products too long for the search budget: the
   * heuristic's first is not always the fastest (bf16 8192^3 on an H200 kept
   * its #2 or #7) */
  t.candidates = cand < 4 ? 4 : cand > 8 ? 8 : (int)cand;
  /* the rested confirmation: bursts of ~15 ms of products (3..10 samples)
   * after an idle, GB_GEMM_FINALISTS_DEFAULT finalists a round, as many
   * rounds (up to 2 quick, 3 full) as fit in 0.6 s (quick) or 1 s (full) of
   * products, at least one */
  {
    int samples = (int)floor(0.015 / t_sample);
    t.confirm_samples = samples < 3 ? 3 : samples > 10 ? 10 : samples;
    t.confirm_warmup = (t_sample < 20e-3 ? 2 : 1) * t.ops_per_sample;
    t.confirm_rest_ms = GB_GEMM_CONFIRM_REST_MS;
    double per_round = GB_GEMM_FINALISTS_DEFAULT * (t.confirm_samples * t_sample + t.confirm_warmup * t_op_s);
    int rounds = (int)floor((quick ? 0.6 : 1.0) / per_round + 1e-9), max_rounds = quick ? 2 : 3;
    t.confirm_rounds = rounds < 1 ? 1 : rounds > max_rounds ? max_rounds : rounds;
  }
  if (window == GB_GEMM_WINDOW_BURST) {
    double cap_s = quick ? 0.6 : 1.5;
    int n = t_sample * 30 <= cap_s ? 30 : (int)floor(cap_s / t_sample + 1e-9);
    if (n < 10) n = 10;
    t.warmup = (t_sample < 20e-3 ? 5 : 2) * t.ops_per_sample;
    t.min_samples = t.max_samples = n;
    t.budget_s = 0;
    return t;
  }
  t.warmup = t_sample < 10e-3 ? 3 : 1;
  t.min_samples = t_sample > 50e-3 ? 5 : 10;
  return t;
}

/* ---- on the device ---- */

gb_err gemm_idle(cudaStream_t s, int ms) {
  GB_CUDA(cudaStreamSynchronize(s));
  if (ms > 0) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  return GB_OK;
}

gb_err gemm_time_algo(gemm_op *o, cudaStream_t s, const gemm_cand *c, int warmup, int samples, int ops_per_sample,
                      double *median, char *failure, size_t fn) {
  gemm_op_use(o, c);
  gb_measure_opts mo = gb_measure_defaults();
  mo.warmup = warmup;
  mo.min_samples = mo.max_samples = samples;
  mo.budget_s = 0;
  mo.ops_per_sample = ops_per_sample;
  mo.back_to_back = true;
  gb_samples samp = {0};
  *median = NAN;
  gb_err e = gb_measure(&mo, s, gemm_launch, o, &samp);
  if (!e) *median = gb_median(samp.sec, samp.n);
  gb_samples_free(&samp);
  if (!e) return GB_OK;
  if (e == GB_E_CUDA && gb_cuda_context_broken()) return e;
  snprintf(failure, fn, "%s", gb_errmsg());
  gb_errclear();
  (void)cudaGetLastError(); /* clear a non-sticky launch error */
  return GB_OK;
}

gb_err gemm_window(const gb_run_ctx *ctx, const gemm_state *st, gemm_op *o, double t_best_s, gb_measure_opts *mo,
                   gb_samples *samp) {
  gb_gemm_timing plan = gb_gemm_timing_plan(ctx->cfg->profile, st->window, t_best_s);
  *mo = gb_measure_defaults();
  mo->warmup = ctx->cfg->warmup >= 0 ? ctx->cfg->warmup : plan.warmup;
  mo->min_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : plan.min_samples;
  mo->max_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : plan.max_samples;
  mo->budget_s = plan.budget_s;
  mo->ops_per_sample = plan.ops_per_sample;
  mo->graph = ctx->cfg->graph;
  mo->back_to_back = true; /* as PyTorch's and nccl-tests' loops: no launch latency inside a sample */
  mo->event_pairs = st->opts.event_pairs;
  mo->tel = ctx->tel;
  /* let the card idle first, so that the window does not start under the
   * power cap the search brought on */
  if (st->rest_ms > 0) GB_TRY(gemm_idle(st->stream, st->rest_ms));
  return gb_measure(mo, st->stream, gemm_launch, o, samp);
}
