/* decode_case: what every case of the decode benchmark shares: gb_measure's
 * options for a case, the operations per sample, the rows of a case and the
 * test hook that corrupts a result. Called by bench_decode.c (launch,
 * kv_read) and decode_gemv.c (gemv); calls no other file of the folder. */
#include <math.h>

#include "decode_internal.h"

static bool g_corrupt;

void gb_decode_test_corrupt(bool on) { g_corrupt = on; }

bool decode_corrupt(void) { return g_corrupt; }

gb_measure_opts decode_measure_opts(const gb_run_ctx *ctx, int warmup, int ops) {
  gb_measure_opts o = gb_measure_defaults();
  o.warmup = ctx->cfg->warmup >= 0 ? ctx->cfg->warmup : warmup;
  o.min_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : 20;
  o.max_samples = o.min_samples > 100 ? o.min_samples : 100;
  o.budget_s = ctx->cfg->profile == GB_PROFILE_FULL ? 0.25 : 0.1;
  o.ops_per_sample = ops;
  o.tel = ctx->tel;
  return o;
}

int decode_ops_for(double t_est) {
  if (!(t_est > 0)) return 1;
  double ops = ceil(100e-6 / t_est);
  return ops < 1 ? 1 : ops > 200 ? 200 : (int)ops;
}

gb_err decode_add_rows(const gb_case *c, const gb_samples *samp, double work, gb_status status, const char *detail,
                       gb_rowset *out) {
  gb_row t = GB_ROW(decode, time_us, c);
  t.value = samp->st.median * 1e6;
  t.min = samp->st.min * 1e6;
  t.max = samp->st.max * 1e6;
  t.stddev = samp->st.stddev * 1e6;
  t.samples = (int64_t)samp->n;
  t.status = status;
  t.detail = detail;
  GB_TRY(gb_rowset_add(out, &t));
  gb_decode_kind kind = (gb_decode_kind)c->param[0];
  if (kind != GB_DECODE_GEMV && kind != GB_DECODE_KV_READ) return GB_OK;
  gb_row r = kind == GB_DECODE_GEMV ? GB_ROW(decode, tflops, c) : GB_ROW(decode, gbps, c);
  gb_stats rate = gb_samples_rate(samp, work, kind == GB_DECODE_GEMV ? 1e12 : 1e9);
  r.value = rate.median;
  r.min = rate.min;
  r.max = rate.max;
  r.stddev = rate.stddev;
  r.samples = (int64_t)rate.n;
  r.status = status;
  r.detail = detail;
  return gb_rowset_add(out, &r);
}
