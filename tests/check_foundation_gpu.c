/* GPU tests of the foundation: device query, random fills against their host
 * twin, the timing harness, the fma benchmark and the campaign runner with
 * --resume. Exit 77 (SKIPPED) without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fma_pure.h"
#include "gb_bench.h"
#include "gb_harness.h"
#include "gb_runinfo.h"
#include "gb_runner.h"
#include "gb_telemetry.h"
#include "testutil_gpu.h"

static gb_system_info g_sys;

START_TEST(test_system_query) {
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  ck_assert_int_ge(g_sys.ndev, 1);
  const gb_device_info *d = &g_sys.dev[0];
  ck_assert_int_gt(d->sm_count, 0);
  ck_assert_int_gt(d->l2_bytes, 0);
  ck_assert_double_gt(d->theoretical_bw_gbps, 100.0);
  ck_assert_int_gt((int)strlen(d->gpu_type), 3);
  ck_assert_int_eq(strncmp(d->uuid, "GPU-", 4), 0);
  printf("device 0: %s (%s), %d SMs, %.0f GB/s theoretical\n", d->name, d->gpu_type, d->sm_count,
         d->theoretical_bw_gbps);
}
END_TEST

static const gb_dtype k_types[] = {GB_DT_F64, GB_DT_F32, GB_DT_F16, GB_DT_BF16, GB_DT_F8E4M3, GB_DT_F8E5M2, GB_DT_I8, GB_DT_I32};

static double decode(const unsigned char *p, gb_dtype t) {
  switch (t) {
  case GB_DT_F64: { double v; memcpy(&v, p, 8); return v; }
  case GB_DT_F32: { float v; memcpy(&v, p, 4); return v; }
  case GB_DT_I8: return (double)(signed char)p[0];
  case GB_DT_I32: { int v; memcpy(&v, p, 4); return v; }
  case GB_DT_BF16: { unsigned b = ((unsigned)p[1] << 24) | ((unsigned)p[0] << 16); float f; memcpy(&f, &b, 4); return f; }
  case GB_DT_F16: {
    unsigned h = p[0] | ((unsigned)p[1] << 8);
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return (h & 0x8000) ? -v : v;
  }
  case GB_DT_F8E4M3: {
    unsigned b = p[0];
    int e = (b >> 3) & 15, m = b & 7;
    double v = e ? ldexp(8 + m, e - 10) : ldexp(m, -9);
    return (b & 0x80) ? -v : v;
  }
  case GB_DT_F8E5M2: {
    unsigned b = p[0];
    int e = (b >> 2) & 31, m = b & 3;
    double v = e ? ldexp(4 + m, e - 17) : ldexp(m, -16);
    return (b & 0x80) ? -v : v;
  }
  default: break; /* tf32 has no fill */
  }
  return NAN;
}

START_TEST(test_fill_matches_host) {
  gb_dtype t = k_types[_i];
  size_t n = 1 << 20, es = gb_dtype_size(t);
  void *d = NULL;
  ck_assert_int_eq(cudaMalloc(&d, n * es), cudaSuccess);
  double lo = (t == GB_DT_I8 || t == GB_DT_I32) ? -8 : -3, hi = (t == GB_DT_I8 || t == GB_DT_I32) ? 8 : 3;
  ck_assert_msg(gb_fill_random(d, n, t, lo, hi, 1234, 0) == GB_OK, "%s", gb_errmsg());
  unsigned char *h = malloc(n * es);
  ck_assert_int_eq(cudaMemcpy(h, d, n * es, cudaMemcpyDeviceToHost), cudaSuccess);
  size_t bad = 0, zeros = 0;
  for (size_t i = 0; i < n; i += 97) {
    double want = gb_random_value(i, t, lo, hi, 1234), got = decode(h + i * es, t);
    if (got != want) bad++;
    if (got == 0) zeros++;
  }
  ck_assert_msg(bad == 0, "%s: %zu sampled elements differ from the host twin", gb_dtype_name(t), bad);
  ck_assert_uint_lt(zeros, n / 97 / 10);
  free(h);
  cudaFree(d);
}
END_TEST

typedef struct fill_ctx {
  void *d;
  size_t n;
} fill_ctx;

static gb_err launch_fill(void *ctx, cudaStream_t s, long iter) {
  fill_ctx *f = ctx;
  return gb_fill_const(f->d, f->n, GB_DT_F32, (double)iter, s);
}

START_TEST(test_measure) {
  fill_ctx f = {NULL, 1 << 24};
  ck_assert_int_eq(cudaMalloc(&f.d, f.n * 4), cudaSuccess);
  gb_measure_opts o = gb_measure_defaults();
  o.min_samples = 5;
  o.max_samples = 20;
  o.budget_s = 0.05;
  gb_samples s;
  cudaStream_t st;
  ck_assert_int_eq(cudaStreamCreate(&st), cudaSuccess);
  ck_assert_int_eq(gb_measure(&o, st, launch_fill, &f, &s), GB_OK);
  ck_assert_uint_ge(s.n, 5);
  ck_assert_double_gt(s.st.median, 0);
  ck_assert(s.st.min <= s.st.median && s.st.median <= s.st.max);
  gb_stats r = gb_samples_rate(&s, (double)f.n * 4, 1e9);
  printf("fill 64 MiB: %.0f GB/s (write only)\n", r.median);
  ck_assert_double_gt(r.median, 10.0);
  gb_samples_free(&s);
  o.graph = true;
  o.ops_per_sample = 4;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_ge(s.n, 5);
  gb_samples_free(&s);
  /* the legacy stream cannot be captured: a clear error, not a stuck capture */
  ck_assert_int_eq(gb_measure(&o, 0, launch_fill, &f, &s), GB_E_INTERNAL);
  /* back to back: exactly the samples asked for, past the event ring's
   * wrap (2 x 16 + 1), each at least the kernel's time */
  o = gb_measure_defaults();
  o.back_to_back = true;
  o.min_samples = o.max_samples = 100;
  o.budget_s = 0;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(s.n, 100);
  ck_assert_double_gt(s.st.min, 0);
  gb_samples_free(&s);
  /* with a time budget: the first min_samples, then no more than end
   * within it (44 us samples: at most ~450 in 20 ms, not 100000) */
  o.min_samples = 5;
  o.max_samples = 100000;
  o.budget_s = 0.02;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_ge(s.n, 5);
  ck_assert_double_le(s.n * s.st.median, 0.02 * 1.5);
  gb_samples_free(&s);
  /* a budget the first samples already spend: min_samples and no more */
  o.min_samples = 3;
  o.budget_s = 1e-9;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(s.n, 3);
  gb_samples_free(&s);
  /* a sample timed alone holds the host's launch latency as well: 8 MiB
   * written in a few us, about what a launch takes */
  fill_ctx small = {f.d, 1 << 21};
  o.min_samples = o.max_samples = 100;
  o.budget_s = 0;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &small, &s) == GB_OK, "%s", gb_errmsg());
  double b2b = s.st.median;
  gb_samples_free(&s);
  o.back_to_back = false;
  ck_assert_int_eq(gb_measure(&o, st, launch_fill, &small, &s), GB_OK);
  double alone = s.st.median;
  gb_samples_free(&s);
  ck_assert_double_lt(b2b, alone);
  /* event pairs, back to back: no launch latency inside a sample either;
   * past the ring's wrap, exactly the samples asked for */
  o.back_to_back = o.event_pairs = true;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &small, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(s.n, 100);
  ck_assert_double_gt(s.st.min, 0);
  printf("fill 8 MiB: %.2f us back to back (chain), %.2f us back to back (pairs), %.2f us one at a time\n",
         b2b * 1e6, s.st.median * 1e6, alone * 1e6);
  ck_assert_double_lt(s.st.median, alone);
  gb_samples_free(&s);
  /* pairs under a budget: the first min_samples, then no more than end within it */
  o.min_samples = 5;
  o.max_samples = 100000;
  o.budget_s = 0.02;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_ge(s.n, 5);
  ck_assert_double_le(s.n * s.st.median, 0.02 * 1.5);
  gb_samples_free(&s);
  o.event_pairs = false;
  /* graph replay back to back */
  o.back_to_back = o.graph = true;
  o.ops_per_sample = 4;
  o.min_samples = o.max_samples = 40;
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &s) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(s.n, 40);
  gb_samples_free(&s);
  cudaStreamDestroy(st);
  cudaFree(f.d);
}
END_TEST

/* The energy of timed windows from the board's counter (bench/gb_telemetry.c,
 * core/gb_energy.h): 1.5 s of fills gets energy over at least that long and a
 * power a board draws; a window of three fills (well under a millisecond)
 * gets none, and says why. Where the driver lacks the counter, the long
 * window says so instead. */
START_TEST(test_window_energy) {
  gb_system_info sys;
  ck_assert_int_eq(gb_system_query(&sys), GB_OK);
  gb_telemetry *tel = NULL;
  ck_assert_int_eq(gb_telemetry_start(sys.dev[0].pci_bus_id, GB_TELEMETRY_DEFAULT_MS, &tel), GB_OK);
  fill_ctx f = {NULL, 1 << 26};
  ck_assert_int_eq(cudaMalloc(&f.d, f.n * 4), cudaSuccess);
  cudaStream_t st;
  ck_assert_int_eq(cudaStreamCreate(&st), cudaSuccess);
  gb_measure_opts o = gb_measure_defaults();
  o.back_to_back = true;
  o.min_samples = 5;
  o.max_samples = 1000000;
  o.budget_s = 1.5;
  o.tel = tel;
  gb_samples smp;
  gb_telemetry_begin(tel);
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &smp) == GB_OK, "%s", gb_errmsg());
  gb_samples_free(&smp);
  gb_telemetry_summary s = gb_telemetry_end(tel);
  printf("fill window: %.3f s, %.1f J, %.1f W from the energy counter; 1-s average %.1f W, instant %.1f W; %s\n",
         s.energy_s, s.energy_j, s.energy_j / s.energy_s, s.power_w, s.power_instant_w, s.energy_note);
  if (isnan(s.energy_j)) {
    ck_assert_ptr_nonnull(strstr(s.energy_note, "no energy counter"));
  } else {
    ck_assert_str_eq(s.energy_note, "");
    ck_assert_double_ge(s.energy_s, 1.5);
    ck_assert_double_lt(s.energy_s, 3.0);
    ck_assert_double_gt(s.energy_j / s.energy_s, 20);
    ck_assert_double_lt(s.energy_j / s.energy_s, 2000);
  }
  o.min_samples = o.max_samples = 3;
  o.budget_s = 0;
  gb_telemetry_begin(tel);
  ck_assert_msg(gb_measure(&o, st, launch_fill, &f, &smp) == GB_OK, "%s", gb_errmsg());
  gb_samples_free(&smp);
  s = gb_telemetry_end(tel);
  printf("burst of 3 fills: %s\n", s.energy_note);
  ck_assert(isnan(s.energy_j) && isnan(s.energy_s));
  ck_assert(strstr(s.energy_note, "too short for the counter") || strstr(s.energy_note, "no energy counter"));
  gb_telemetry_stop(tel);
  cudaStreamDestroy(st);
  cudaFree(f.d);
}
END_TEST

static const char *tmpfile_path(const char *name) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/%s", gb_test_tmpdir(), name);
  return path;
}

START_TEST(test_runner_fma_and_resume) {
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  extern const gb_bench gb_bench_fma;
  gb_campaign c;
  memset(&c, 0, sizeof c);
  c.run.profile = GB_PROFILE_QUICK;
  c.run.warmup = -1;
  c.run.iters = -1;
  c.run.repeat = 1;
  c.run.devices[0] = 0;
  c.run.ndevices = 1;
  c.benches[0] = &gb_bench_fma;
  c.nbenches = 1;
  char path[4200];
  snprintf(path, sizeof path, "%s", tmpfile_path("fma.csv"));
  c.out_path = path;
  c.progress = stderr;
  c.table = stdout;
  gb_campaign_result res;
  ck_assert_msg(gb_campaign_run(&c, &g_sys, &res) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_ge(res.cases_run, 2);
  ck_assert_uint_eq(res.rows_invalid + res.rows_error, 0);
  gb_results rows = {0};
  ck_assert_int_eq(gb_results_read(path, &rows), GB_OK);
  ck_assert_uint_eq(rows.nrows, res.rows_written);
  for (size_t i = 0; i < rows.nrows; i++) {
    const gb_row *r = &rows.rows[i];
    ck_assert_str_eq(r->benchmark, "fma");
    ck_assert_double_gt(r->value, 0);
    ck_assert_str_eq(r->gpu_type, g_sys.dev[0].gpu_type);
    ck_assert_str_eq(r->cublaslt, g_sys.cublaslt); /* the run's library versions on every row */
    ck_assert_str_eq(r->nccl, g_sys.nccl);
    ck_assert_str_eq(r->git_sha, gb_git_sha());
    ck_assert_ptr_null(strstr(r->detail, "telemetry off"));
    ck_assert_int_eq(r->headline, 1); /* the runner's mark: every fma case is a headline figure */
    printf("fma %s: %.2f TFLOP/s (%s) %s\n", r->case_name, r->value, gb_status_name(r->status), r->detail);
  }
  size_t before = rows.nrows;
  gb_results_free(&rows);
  /* resume: nothing left to run, nothing duplicated */
  c.resume = true;
  ck_assert_int_eq(gb_campaign_run(&c, &g_sys, &res), GB_OK);
  ck_assert_uint_eq(res.cases_run, 0);
  ck_assert_uint_ge(res.cases_skipped, 2);
  ck_assert_int_eq(gb_results_read(path, &rows), GB_OK);
  ck_assert_uint_eq(rows.nrows, before);
  gb_results_free(&rows);

  /* --telemetry-ms 0: no sampler; every row says so and none is throttled */
  snprintf(path, sizeof path, "%s", tmpfile_path("fma-no-telemetry.csv"));
  c.out_path = path;
  c.resume = false;
  c.telemetry_ms = -1;
  ck_assert_msg(gb_campaign_run(&c, &g_sys, &res) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_results_read(path, &rows), GB_OK);
  ck_assert_uint_ge(rows.nrows, 2);
  for (size_t i = 0; i < rows.nrows; i++) {
    ck_assert_msg(strstr(rows.rows[i].detail, "telemetry off (--telemetry-ms 0)"), "%s", rows.rows[i].detail);
    ck_assert_int_ne(rows.rows[i].status, GB_STATUS_THROTTLED);
    ck_assert(isnan(rows.rows[i].power_w));
  }
  gb_results_free(&rows);
}
END_TEST

START_TEST(test_fma_peak_bar) {
  /* the bar: fp32 and fp64 reach at least 90% of what the clock allows */
  ck_assert_int_eq(gb_system_query(&g_sys), GB_OK);
  extern const gb_bench gb_bench_fma;
  gb_run_config cfg = {.profile = GB_PROFILE_QUICK, .warmup = -1, .iters = -1, .repeat = 1, .ndevices = 1};
  gb_run_ctx ctx = {.sys = &g_sys, .cfg = &cfg, .dev = &g_sys.dev[0]};
  ck_assert_int_eq(gb_bench_fma.setup(&ctx), GB_OK);
  for (int k = 0; k < 2; k++) {
    gb_case c = gb_case_init(fma_kind_name((fma_kind)k), k ? "fp64" : "fp32");
    c.param[0] = k;
    gb_rowset rs = {0};
    ck_assert_msg(gb_bench_fma.run(&ctx, &c, &rs) == GB_OK, "%s", gb_errmsg());
    ck_assert_uint_eq(rs.n, 1);
    ck_assert_int_eq(rs.v[0].status, GB_STATUS_OK);
    ck_assert_msg(rs.v[0].value >= 0.9 * rs.v[0].peak, "%s: %.2f of %.2f TFLOP/s", c.name, rs.v[0].value,
                  rs.v[0].peak);
    gb_rowset_free(&rs);
  }
  gb_bench_fma.teardown(&ctx);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("foundation_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_system_query);
  tcase_add_loop_test(tc, test_fill_matches_host, 0, 8);
  tcase_add_test(tc, test_measure);
  tcase_add_test(tc, test_window_energy);
  tcase_add_test(tc, test_runner_fma_and_resume);
  tcase_add_test(tc, test_fma_peak_bar);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_gpu_suite(suite()); }
