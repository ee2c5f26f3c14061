/* GPU tests of the GEMM benchmark (label gpu; exit 77, SKIPPED, with no GPU):
 * small shapes of every precision run through cuBLASLt come out `ok` against
 * the fp64 reference (or `error` with a reason where the device lacks the
 * precision), in the TN layout and, for the precisions that have it, in NN;
 * an output overwritten through the test-only hook comes out `invalid` in
 * both layouts; the extended algorithm search (gemm.search=extended) keeps a
 * checked algorithm and says where it came from; the default search adds
 * configurations of the heuristic's #1 only when it returns fewer than 8;
 * fp8 with an e4m3 output
 * runs with all four scale and amax pointers; in a build with
 * -DGB_TOOLS=ON, the lab's keys (gemm.search_log writes every candidate's
 * timings, gemm.candidate, .fp8_amax, .input_sets, .out_of_place, .timing,
 * .workspace_kib) do what they say; grouped GEMM (strided-batched) comes
 * out ok in bf16, fp16 and fp8 and invalid when its output is overwritten.
 * Runs in one process
 * (testutil_gpu.h: no CUDA state crosses a fork). */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_gemm.h"
#include "gb_bench.h"
#include "gb_device.h"
#include "testutil_gpu.h"

extern const gb_bench gb_bench_gemm;

typedef struct gpu_env {
  gb_system_info sys;
  gb_run_config cfg;
  gb_run_ctx ctx;
} gpu_env;

/* bench_opts: --opt value the benchmark's setup reads (NULL: none). */
static gpu_env *env_open_opts(const char *bench_opts) {
  gpu_env *e = calloc(1, sizeof *e);
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(gb_system_query(&e->sys), GB_OK);
  ck_assert_int_eq(cudaSetDevice(0), cudaSuccess);
  e->cfg.profile = GB_PROFILE_QUICK;
  e->cfg.devices[0] = 0;
  e->cfg.ndevices = 1;
  e->cfg.warmup = -1;
  e->cfg.iters = -1;
  e->cfg.repeat = 1;
  e->cfg.bench_opts = bench_opts;
  e->ctx.sys = &e->sys;
  e->ctx.cfg = &e->cfg;
  e->ctx.dev = &e->sys.dev[0];
  gb_err err = gb_bench_gemm.setup(&e->ctx);
  ck_assert_msg(err == GB_OK, "setup: %s", gb_errmsg());
  return e;
}

static gpu_env *env_open(void) { return env_open_opts(NULL); }

static void env_close(gpu_env *e) {
  gb_bench_gemm.teardown(&e->ctx);
  free(e);
}

/* Runs one case in layout l; returns the row's status, or -1 after checking
 * that a precision or layout the device lacks failed with GB_E_UNSUPPORTED
 * naming it. */
static int run_case_layout(gpu_env *e, const gb_gemm_prec *p, gb_gemm_layout l, int64_t m, int64_t n, int64_t k,
                           gb_rowset *rs) {
  gb_case c = gb_gemm_make_case(p, l, m, n, k);
  gb_rowset_clear(rs);
  gb_err err = gb_bench_gemm.run(&e->ctx, &c, rs);
  char why[256];
  int cc_major = e->ctx.dev->cc_major, cc_minor = e->ctx.dev->cc_minor;
  if (!gb_gemm_supported(p, cc_major, cc_minor, why, sizeof why) ||
      !gb_gemm_layout_supported(p, l, cc_major, cc_minor, why, sizeof why)) {
    ck_assert_int_eq(err, GB_E_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(gb_errmsg(), p->name));
    if (l == GB_GEMM_NN && gb_gemm_supported(p, cc_major, cc_minor, why, sizeof why))
      ck_assert_ptr_nonnull(strstr(gb_errmsg(), "only in the TN layout"));
    return -1;
  }
  ck_assert_msg(err == GB_OK, "%s %s %lldx%lldx%lld: %s", p->name, gb_gemm_layout_name(l), (long long)m,
                (long long)n, (long long)k, gb_errmsg());
  ck_assert_uint_eq(rs->n, 1);
  const gb_row *r = &rs->v[0];
  char name[64];
  gb_gemm_opts o;
  ck_assert_int_eq(gb_gemm_opts_parse(e->cfg.bench_opts, &o), GB_OK);
  ck_assert_str_eq(r->metric, gb_gemm_metric_in(p, o.window));
  ck_assert_ptr_nonnull(strstr(r->detail, o.window == GB_GEMM_WINDOW_SUSTAINED ? "; sustained window: "
                                                                               : "; burst window: "));
  if (o.window == GB_GEMM_WINDOW_BURST) ck_assert_int_eq(r->samples, 30); /* products far under 20 ms here */
  ck_assert_str_eq(r->case_name, gb_gemm_case_name(p, l, name, sizeof name));
  ck_assert_int_eq(r->m, m);
  ck_assert(r->value > 0);
  ck_assert_ptr_nonnull(strstr(r->detail, "rel_err="));
  ck_assert_ptr_nonnull(strstr(r->detail, "tile="));
  ck_assert_ptr_nonnull(strstr(r->detail, l == GB_GEMM_NN ? ", NN;" : ", TN;"));
  ck_assert_ptr_nonnull(strstr(r->detail, "kept "));
  return (int)r->status;
}

static int run_case(gpu_env *e, const gb_gemm_prec *p, int64_t m, int64_t n, int64_t k, gb_rowset *rs) {
  return run_case_layout(e, p, GB_GEMM_TN, m, n, k, rs);
}

START_TEST(test_every_precision_ok) {
  gpu_env *e = env_open();
  gb_rowset rs = {0};
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);
  /* a square (full product checked), a skinny decode shape and an odd-ish size */
  const int64_t shapes[][3] = {{256, 256, 512}, {8, 1024, 2048}, {384, 640, 1536}};
  for (size_t i = 0; i < np; i++)
    for (int s = 0; s < 3; s++) {
      int st = run_case(e, &p[i], shapes[s][0], shapes[s][1], shapes[s][2], &rs);
      if (st < 0) continue;
      ck_assert_msg(st == GB_STATUS_OK, "%s %lldx%lldx%lld: %s", p[i].name, (long long)shapes[s][0],
                    (long long)shapes[s][1], (long long)shapes[s][2], rs.v[0].detail);
    }
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

START_TEST(test_corrupt_output_invalid) {
  gpu_env *e = env_open();
  gb_rowset rs = {0};
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);
  gb_gemm_test_corrupt_output(true);
  for (size_t i = 0; i < np; i++) {
    int st = run_case(e, &p[i], 256, 256, 512, &rs);
    if (st < 0) continue;
    ck_assert_msg(st == GB_STATUS_INVALID, "%s: corrupted output not caught: %s", p[i].name, rs.v[0].detail);
    ck_assert_ptr_nonnull(strstr(rs.v[0].detail, "check failed"));
  }
  gb_gemm_test_corrupt_output(false);
  ck_assert_int_eq(run_case(e, gb_gemm_prec_find("bf16"), 256, 256, 512, &rs), GB_STATUS_OK);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

/* NN (B k x n row-major): every precision that has the layout comes out ok
 * at a square, a skinny decode shape and an odd-ish size, where a reference
 * reading B the TN way would be wrong (the product of B^T is another
 * matrix); fp8 and int8 fail with the TN-only reason before sm_100. */
START_TEST(test_nn_ok) {
  gpu_env *e = env_open();
  gb_rowset rs = {0};
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);
  const int64_t shapes[][3] = {{256, 256, 512}, {8, 1024, 2048}, {384, 640, 1536}};
  for (size_t i = 0; i < np; i++)
    for (int s = 0; s < 3; s++) {
      int st = run_case_layout(e, &p[i], GB_GEMM_NN, shapes[s][0], shapes[s][1], shapes[s][2], &rs);
      if (st < 0) continue;
      ck_assert_msg(st == GB_STATUS_OK, "%s_nn %lldx%lldx%lld: %s", p[i].name, (long long)shapes[s][0],
                    (long long)shapes[s][1], (long long)shapes[s][2], rs.v[0].detail);
    }
  /* the three the brief names must have run, not been skipped */
  const char *must[] = {"fp64", "fp32", "bf16"};
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(run_case_layout(e, gb_gemm_prec_find(must[i]), GB_GEMM_NN, 384, 640, 1536, &rs), GB_STATUS_OK);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

START_TEST(test_nn_corrupt_output_invalid) {
  gpu_env *e = env_open();
  gb_rowset rs = {0};
  const char *precs[] = {"fp64", "fp32", "bf16"};
  gb_gemm_test_corrupt_output(true);
  for (int i = 0; i < 3; i++) {
    int st = run_case_layout(e, gb_gemm_prec_find(precs[i]), GB_GEMM_NN, 256, 256, 512, &rs);
    ck_assert_msg(st == GB_STATUS_INVALID, "%s_nn: corrupted output not caught: %s", precs[i], rs.v[0].detail);
    ck_assert_ptr_nonnull(strstr(rs.v[0].detail, "check failed"));
  }
  gb_gemm_test_corrupt_output(false);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

/* gemm.search=extended: the kept algorithm is checked ok and detail says
 * where it came from and what the enumeration did. */
START_TEST(test_extended_search) {
  gpu_env *e = env_open_opts("gemm.search=extended");
  gb_rowset rs = {0};
  const char *precs[] = {"fp64", "fp32", "bf16"};
  for (int i = 0; i < 3; i++)
    for (int l = 0; l < GB_GEMM_NLAYOUTS; l++) {
      int st = run_case_layout(e, gb_gemm_prec_find(precs[i]), (gb_gemm_layout)l, 512, 512, 512, &rs);
      ck_assert_msg(st == GB_STATUS_OK, "%s %s: %s", precs[i], gb_gemm_layout_name((gb_gemm_layout)l),
                    rs.v[0].detail);
      const char *d = rs.v[0].detail;
      ck_assert_msg(strstr(d, "kept the heuristic's #") || strstr(d, "kept enumerated via AlgoGetIds") ||
                        strstr(d, "kept a configuration of the heuristic's #"),
                    "%s", d);
      ck_assert_msg(strstr(d, "enumerated via AlgoGetIds ("), "%s", d);
      ck_assert_msg(strstr(d, " (cluster, swizzle, custom option)"), "%s", d);
    }
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

/* From detail's "fastest of T timed (R from the heuristic[, N configuration(s)
 * of #1 (cluster, swizzle, custom option)][, W from the heuristic without
 * workspace], F failed)" (the default and heuristic searches; the extended
 * one puts its enumeration between): T, R, N and W (N and W stay as given
 * when there is no such part). False when the text is not there. */
static bool search_counts(const char *d, int *timed, int *returned, int *nvar, int *nows) {
  const char *f = strstr(d, "fastest of ");
  int used = 0;
  if (!f || sscanf(f, "fastest of %d timed (%d from the heuristic%n", timed, returned, &used) != 2 || used == 0)
    return false;
  f += used;
  int n = 0, used2 = 0;
  if (sscanf(f, ", %d configuration%n", &n, &used2) == 1 && used2 > 0) {
    if (!strstr(f, " of #1 (cluster, swizzle, custom option)")) return false;
    *nvar = n;
    f = strstr(f, "custom option)") + strlen("custom option)");
  }
  used2 = 0;
  if (sscanf(f, ", %d from the heuristic without workspace%n", &n, &used2) == 1 && used2 > 0) *nows = n;
  return true;
}

/* The default search (variants): when the heuristic returns fewer than 8
 * candidates (here made to return 2 through the test hook), configurations
 * of its #1 fill the timed list and detail says how many (some on Hopper,
 * where cluster shapes exist); with 8 it adds none; gemm.search=heuristic
 * never adds any. */
START_TEST(test_default_search_variants) {
  const gb_gemm_prec *bf16 = gb_gemm_prec_find("bf16");
  for (int heur_only = 0; heur_only < 2; heur_only++)
    for (int cap = 0; cap <= 2; cap += 2) {
      gpu_env *e = env_open_opts(heur_only ? "gemm.search=heuristic" : NULL);
      gb_rowset rs = {0};
      gb_gemm_test_heuristic_max(cap);
      int st = run_case(e, bf16, 2048, 2048, 2048, &rs);
      gb_gemm_test_heuristic_max(0);
      const char *d = rs.v[0].detail;
      ck_assert_msg(st == GB_STATUS_OK, "%s", d);
      int timed = 0, returned = 0, nvar = -1, nows = 0;
      ck_assert_msg(search_counts(d, &timed, &returned, &nvar, &nows), "%s", d);
      if (heur_only) ck_assert_msg(nows == 0 && !strstr(d, "without workspace"), "%s", d);
      ck_assert_msg(nows >= 0 && nows <= 2, "%s", d);
      if (heur_only || returned >= 8) {
        ck_assert_msg(nvar < 0 && !strstr(d, "(cluster, swizzle, custom option)") && timed <= returned + nows, "%s",
                      d);
      } else {
        ck_assert_int_eq(returned, 2);
        ck_assert_msg(nvar >= 0 && timed <= returned + nvar + nows, "%s", d);
        if (e->ctx.dev->cc_major >= 9) ck_assert_msg(nvar > 0, "no cluster-shape variant on sm_90+: %s", d);
      }
      gb_rowset_free(&rs);
      env_close(e);
    }
}
END_TEST

#ifdef GB_TOOLS /* the lab's keys (tools/gemm/gemm_lab.c) */
/* gemm.candidate=N times the heuristic's #N alone and says so; asking for
 * more candidates than the heuristic returns is an error naming the option. */
START_TEST(test_candidate_option) {
  gpu_env *e = env_open_opts("gemm.candidate=2");
  gb_rowset rs = {0};
  ck_assert_int_eq(run_case(e, gb_gemm_prec_find("bf16"), 2048, 2048, 2048, &rs), GB_STATUS_OK);
  ck_assert_msg(strstr(rs.v[0].detail, "fastest of 1 timed") &&
                    strstr(rs.v[0].detail, "kept the heuristic's #2 (gemm.candidate)"),
                "%s", rs.v[0].detail);
  env_close(e);
  e = env_open_opts("gemm.candidate=16"); /* the heuristic returns at most 8 at this size on Hopper */
  gb_case c = gb_gemm_make_case(gb_gemm_prec_find("bf16"), GB_GEMM_TN, 2048, 2048, 2048);
  gb_rowset_clear(&rs);
  gb_err err = gb_bench_gemm.run(&e->ctx, &c, &rs);
  if (err != GB_OK) {
    ck_assert_int_eq(err, GB_E_UNSUPPORTED);
    ck_assert_msg(strstr(gb_errmsg(), "gemm.candidate asked for more than the heuristic returned"), "%s",
                  gb_errmsg());
    gb_errclear();
  }
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST
#endif

/* fp8 with an e4m3 output runs with all four per-tensor pointers (A, B and
 * D scale, amax of D) and its amax agreed with max|D|; with a bf16 output
 * the detail says what cuBLASLt refused. */
START_TEST(test_fp8_scale_pointers) {
  gpu_env *e = env_open();
  gb_rowset rs = {0};
  const char *out8[] = {"fp8e4m3_e4m3out_slowacc", "fp8e4m3_e4m3out_fastacc"};
  for (int i = 0; i < 2; i++) {
    int st = run_case(e, gb_gemm_prec_find(out8[i]), 512, 768, 1024, &rs);
    if (st < 0) continue; /* before compute capability 8.9 */
    const char *d = rs.v[0].detail;
    ck_assert_msg(st == GB_STATUS_OK, "%s: %s", out8[i], d);
    ck_assert_msg(strstr(d, "scale_a=0.25 scale_b=0.25 scale_d=0.5 amax_d="), "%s: %s", out8[i], d);
    ck_assert_msg(!strstr(d, "amax_d=not"), "%s: amax of D not written: %s", out8[i], d);
    ck_assert_msg(!strstr(d, "refused"), "%s: %s", out8[i], d);
  }
  if (run_case(e, gb_gemm_prec_find("fp8e4m3_fastacc"), 512, 768, 1024, &rs) == GB_STATUS_OK)
    ck_assert_msg(strstr(rs.v[0].detail, "scale_d=") && strstr(rs.v[0].detail, "amax_d="), "%s", rs.v[0].detail);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

#ifdef GB_TOOLS /* the lab's keys (tools/gemm/gemm_lab.c) */
/* gemm.fp8_amax=off: the fp8 cases run and pass their check with the
 * amax-of-D pointer unset, and the detail says so. */
START_TEST(test_fp8_amax_off) {
  gpu_env *e = env_open_opts("gemm.fp8_amax=off");
  gb_rowset rs = {0};
  const char *names[] = {"fp8e4m3_slowacc", "fp8e4m3_e4m3out_fastacc"};
  for (int i = 0; i < 2; i++) {
    int st = run_case(e, gb_gemm_prec_find(names[i]), 512, 768, 1024, &rs);
    if (st < 0) continue; /* before compute capability 8.9 */
    const char *d = rs.v[0].detail;
    ck_assert_msg(st == GB_STATUS_OK, "%s: %s", names[i], d);
    ck_assert_msg(strstr(d, "amax_d=not set (gemm.fp8_amax=off)"), "%s: %s", names[i], d);
    if (i == 1) /* e4m3 output: the D scale is taken (a bf16 output has cuBLASLt refuse it) */
      ck_assert_msg(strstr(d, "scale_d=0.5") && !strstr(d, "refused"), "%s: %s", names[i], d);
  }
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST
#endif

/* The default search adds the heuristic's first candidates for no
 * workspace where those for the full one need some (at most 2; on Hopper the
 * nvjet kernels of bf16 and fp8 keep a counter there), and a kept one runs
 * without: "workspace=none", variant "..._nows". gemm.workspace_kib=0 runs
 * every candidate without ("ws 0 of 0 B") and adds none beside them;
 * gemm.search=heuristic adds none. */
START_TEST(test_no_workspace_candidates) {
  const char *names[] = {"bf16", "fp8e4m3_slowacc"};
  const char *opts[] = {NULL, "gemm.workspace_kib=0", "gemm.search=heuristic"};
  for (int o = 0; o < 3; o++) {
#ifndef GB_TOOLS
    if (o == 1) continue; /* gemm.workspace_kib is the lab's */
#endif
    gpu_env *e = env_open_opts(opts[o]);
    gb_rowset rs = {0};
    for (int i = 0; i < 2; i++) {
      int st = run_case(e, gb_gemm_prec_find(names[i]), 2048, 2048, 2048, &rs);
      if (st < 0) continue; /* fp8 before compute capability 8.9 */
      const gb_row *r = &rs.v[0];
      const char *d = r->detail;
      ck_assert_msg(st == GB_STATUS_OK, "%s: %s", names[i], d);
      int timed = 0, returned = 0, nvar = -1, nows = 0;
      ck_assert_msg(search_counts(d, &timed, &returned, &nvar, &nows), "%s", d);
      ck_assert_msg(nows >= 0 && nows <= 2, "%s", d);
      size_t vl = strlen(r->variant);
      bool variant_nows = vl > 5 && strcmp(r->variant + vl - 5, "_nows") == 0;
      const char *k = strstr(d, "kept the heuristic's #");
      int kn = 0;
      if (k) sscanf(k, "kept the heuristic's #%*d without workspace%n", &kn);
      bool kept_nows = kn > 0;
      if (o == 0) {
        ck_assert_msg(kept_nows == variant_nows && variant_nows == (strstr(d, " workspace=none;") != NULL), "%s: %s",
                      r->variant, d);
        if (kept_nows) ck_assert_msg(strstr(d, ", ws 0 of 67108864 B,") && nows > 0, "%s", d);
      } else if (o == 1) {
        ck_assert_msg(nows == 0 && strstr(d, ", ws 0 of 0 B,") && variant_nows && strstr(d, " workspace=none;"),
                      "%s: %s", r->variant, d);
      } else {
        ck_assert_msg(nows == 0 && !variant_nows && !strstr(d, "without workspace"), "%s", d);
      }
    }
    gb_rowset_free(&rs);
    env_close(e);
  }
  /* at 2048^3 the heuristic's list may already hold its kernels for no
   * workspace (then not timed twice): the case that must add some is 8192^3 */
  int major = 0;
  ck_assert_int_eq(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major == 9) { /* Hopper, seen on an H200: fp8 at 8192^3 keeps a counter in the workspace */
    gpu_env *e = env_open();
    gb_rowset rs = {0};
    ck_assert_int_eq(run_case(e, gb_gemm_prec_find("fp8e4m3_slowacc"), 8192, 8192, 8192, &rs), GB_STATUS_OK);
    int timed = 0, returned = 0, nvar = -1, nows = 0;
    ck_assert_msg(search_counts(rs.v[0].detail, &timed, &returned, &nvar, &nows) && nows > 0, "%s", rs.v[0].detail);
    gb_rowset_free(&rs);
    env_close(e);
  }
}
END_TEST

#ifdef GB_TOOLS /* the lab's keys (tools/gemm/gemm_lab.c) */
/* gemm.input_sets=1: a shape that fits in L2 (32 sets by the rule) runs
 * over one set, and still passes its check. */
START_TEST(test_input_sets_option) {
  gpu_env *e = env_open_opts("gemm.input_sets=1");
  gb_rowset rs = {0};
  ck_assert_int_eq(run_case(e, gb_gemm_prec_find("bf16"), 512, 768, 1024, &rs), GB_STATUS_OK);
  ck_assert_msg(strstr(rs.v[0].detail, "; 1 input set (gemm.input_sets),"), "%s", rs.v[0].detail);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

/* gemm.out_of_place=on: C is its own buffer; the product still passes its
 * check (beta = 0: C is never read) and the detail says so. */
START_TEST(test_out_of_place_option) {
  gpu_env *e = env_open_opts("gemm.out_of_place=on");
  gb_rowset rs = {0};
  const char *names[] = {"bf16", "fp8e4m3_slowacc"};
  for (int i = 0; i < 2; i++) {
    int st = run_case(e, gb_gemm_prec_find(names[i]), 512, 768, 1024, &rs);
    if (st < 0) continue; /* fp8 before compute capability 8.9 */
    ck_assert_msg(st == GB_STATUS_OK, "%s: %s", names[i], rs.v[0].detail);
    ck_assert_msg(strstr(rs.v[0].detail, ", TN; out of place (gemm.out_of_place); algo="), "%s", rs.v[0].detail);
  }
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

/* gemm.timing=pairs: the timed samples between event pairs; the product
 * passes its check and the detail says how it was timed. */
START_TEST(test_timing_pairs_option) {
  gpu_env *e = env_open_opts("gemm.timing=pairs");
  gb_rowset rs = {0};
  ck_assert_int_eq(run_case(e, gb_gemm_prec_find("bf16"), 512, 768, 1024, &rs), GB_STATUS_OK);
  ck_assert_msg(strstr(rs.v[0].detail, " samples back to back, each between two events of its own (gemm.timing=pairs);"),
                "%s", rs.v[0].detail);
  ck_assert_double_gt(rs.v[0].value, 0);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

/* gemm.search_log: a header and one line per timed candidate, exactly one
 * of them kept; with more than one finalist the detail says they were
 * confirmed rested. */
START_TEST(test_search_log) {
  char path[] = "/tmp/gb_search_log_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  char opts[128];
  snprintf(opts, sizeof opts, "gemm.search_log=%s,gemm.candidates=6,gemm.finalists=3", path);
  gpu_env *e = env_open_opts(opts);
  gb_rowset rs = {0};
  ck_assert_int_eq(run_case(e, gb_gemm_prec_find("bf16"), 2048, 2048, 2048, &rs), GB_STATUS_OK);
  char detail[2048];
  snprintf(detail, sizeof detail, "%s", rs.v[0].detail);
  gb_rowset_free(&rs);
  env_close(e); /* closes the log */
  FILE *fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  char line[1024];
  ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
  ck_assert_str_eq(line, "case,m,n,k,candidate,variant,algo,screen_s,screen_rate,confirm_s,confirm_rate,kept\n");
  int lines = 0, kept = 0, confirmed = 0;
  while (fgets(line, sizeof line, fp)) {
    lines++;
    ck_assert_msg(strncmp(line, "bf16,2048,2048,2048,heuristic#", 30) == 0 ||
                      strncmp(line, "bf16,2048,2048,2048,heuristic-no-ws#", 36) == 0,
                  "%s", line);
    size_t len = strlen(line);
    ck_assert(len > 3);
    kept += line[len - 2] == '1';
    /* a confirmed candidate has its confirmation fields filled: no ",," before ",kept" */
    char *kept_field = line + len - 3;
    confirmed += !(kept_field[-1] == ',' && kept_field[-2] == ',');
  }
  fclose(fp);
  unlink(path);
  ck_assert_int_ge(lines, 1);
  ck_assert_int_le(lines, 6 + 2); /* and at most 2 of the heuristic's for no workspace */
  ck_assert_int_eq(kept, 1);
  if (confirmed >= 2) ck_assert_msg(strstr(detail, "finalists confirmed rested"), "%s", detail);
}
END_TEST
#endif

/* The sustained window: its own metric and speedup metric, so that its rows
 * never mix with the burst rows; it times until 0.2 s (quick) have passed or
 * 200 samples were taken, more than the burst window's 30. */
START_TEST(test_sustained_window) {
  gpu_env *e = env_open_opts("gemm.window=sustained");
  gb_rowset rs = {0}, all = {0}, derived = {0};
  const char *precs[] = {"fp32", "bf16"};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(run_case(e, gb_gemm_prec_find(precs[i]), 1024, 1024, 1024, &rs), GB_STATUS_OK);
    ck_assert_str_eq(rs.v[0].metric, "tflops_sustained");
    ck_assert_int_gt(rs.v[0].samples, 30);
    ck_assert_int_eq(gb_rowset_add(&all, &rs.v[0]), GB_OK);
  }
  ck_assert_int_eq(gb_bench_gemm.derive(&e->ctx, all.v, all.n, &derived), GB_OK);
  ck_assert_uint_eq(derived.n, 1); /* bf16_vs_fp32 */
  ck_assert_str_eq(derived.v[0].metric, "speedup_sustained");
  ck_assert_str_eq(derived.v[0].case_name, "bf16_vs_fp32");
  gb_rowset_free(&rs);
  gb_rowset_free(&all);
  gb_rowset_free(&derived);
  env_close(e);
}
END_TEST

START_TEST(test_derive_rows) {
  gpu_env *e = env_open();
  gb_rowset rs = {0}, all = {0}, derived = {0};
  const char *precs[] = {"fp64", "fp32", "bf16"};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(run_case(e, gb_gemm_prec_find(precs[i]), 512, 512, 512, &rs), GB_STATUS_OK);
    ck_assert_int_eq(gb_rowset_add(&all, &rs.v[0]), GB_OK);
  }
  ck_assert_int_eq(gb_bench_gemm.derive(&e->ctx, all.v, all.n, &derived), GB_OK);
  /* fp64_vs_fp32, fp32_vs_fp64, bf16_vs_fp32, bf16_vs_fp64 */
  ck_assert_uint_eq(derived.n, 4);
  for (size_t i = 0; i < derived.n; i++) {
    ck_assert_str_eq(derived.v[i].metric, "speedup");
    ck_assert_str_eq(derived.v[i].unit, "x");
    ck_assert_int_eq(derived.v[i].m, 512);
    ck_assert(derived.v[i].value > 0);
  }
  gb_rowset_free(&rs);
  gb_rowset_free(&all);
  gb_rowset_free(&derived);
  env_close(e);
}
END_TEST

/* Grouped GEMM (one strided-batched call): bf16, fp16 and fp8 come out ok
 * with G = 12 groups (8 of them checked, spread from the first to the last:
 * a wrong batch stride shows there, a group left unwritten in the NaN scan)
 * and with G = 3 (all checked), and an overwritten output comes out invalid.
 * The row: case grouped_<precision>, the groups column, metric and unit of
 * the registry. */
static int run_grouped(gpu_env *e, const gb_gemm_prec *p, const gb_gemm_gshape *g, gb_rowset *rs) {
  gb_case c = gb_gemm_make_grouped_case(p, g);
  gb_rowset_clear(rs);
  gb_err err = gb_bench_gemm.run(&e->ctx, &c, rs);
  char why[256];
  if (!gb_gemm_supported(p, e->ctx.dev->cc_major, e->ctx.dev->cc_minor, why, sizeof why)) {
    ck_assert_int_eq(err, GB_E_UNSUPPORTED);
    return -1;
  }
  ck_assert_msg(err == GB_OK, "grouped %s %lldx%lldx%lldx%lld: %s", p->name, (long long)g->groups, (long long)g->m,
                (long long)g->n, (long long)g->k, gb_errmsg());
  ck_assert_uint_eq(rs->n, 1);
  const gb_row *r = &rs->v[0];
  char name[64], want[96];
  ck_assert_str_eq(r->case_name, gb_gemm_grouped_case_name(p, name, sizeof name));
  ck_assert_str_eq(r->dtype, p->dtype);
  ck_assert_int_eq(r->groups, g->groups);
  ck_assert_int_eq(r->m, g->m);
  ck_assert_int_eq(r->n, g->n);
  ck_assert_int_eq(r->k, g->k);
  ck_assert_str_eq(r->metric, "tflops");
  ck_assert_str_eq(r->unit, "TFLOP/s");
  ck_assert(r->value > 0);
  snprintf(want, sizeof want, "grouped: %lld products of", (long long)g->groups);
  ck_assert_ptr_nonnull(strstr(r->detail, want));
  snprintf(want, sizeof want, "of each of %s%d groups", g->groups <= GB_GEMM_CHECK_GROUPS ? "all " : "",
           g->groups <= GB_GEMM_CHECK_GROUPS ? (int)g->groups : GB_GEMM_CHECK_GROUPS);
  ck_assert_msg(strstr(r->detail, want) != NULL, "%s not in %s", want, r->detail);
  return (int)r->status;
}

START_TEST(test_grouped_ok) {
  gpu_env *e = env_open();
  gb_rowset rs = {0};
  static const char *const precs[] = {"bf16", "fp16", "fp8e4m3_fastacc", "fp8e4m3_slowacc"};
  const gb_gemm_gshape shapes[] = {{.groups = 12, .m = 64, .n = 256, .k = 512, .model = "custom", .proj = ""},
                                   {.groups = 3, .m = 384, .n = 640, .k = 1536, .model = "custom", .proj = ""}};
  for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
    for (size_t s = 0; s < 2; s++) {
      int st = run_grouped(e, gb_gemm_prec_find(precs[i]), &shapes[s], &rs);
      if (st < 0) continue;
      ck_assert_msg(st == GB_STATUS_OK, "grouped %s: %s", precs[i], rs.v[0].detail);
    }
  gb_gemm_test_corrupt_output(true);
  int st = run_grouped(e, gb_gemm_prec_find("bf16"), &shapes[0], &rs);
  gb_gemm_test_corrupt_output(false);
  ck_assert_msg(st == GB_STATUS_INVALID, "grouped: corrupted output not caught: %s", rs.v[0].detail);
  gb_rowset_free(&rs);
  env_close(e);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gemm_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_add_test(tc, test_every_precision_ok);
  tcase_add_test(tc, test_corrupt_output_invalid);
  tcase_add_test(tc, test_nn_ok);
  tcase_add_test(tc, test_nn_corrupt_output_invalid);
  tcase_add_test(tc, test_extended_search);
  tcase_add_test(tc, test_default_search_variants);
  tcase_add_test(tc, test_derive_rows);
  tcase_add_test(tc, test_sustained_window);
  tcase_add_test(tc, test_fp8_scale_pointers);
  tcase_add_test(tc, test_no_workspace_candidates);
#ifdef GB_TOOLS
  tcase_add_test(tc, test_fp8_amax_off);
  tcase_add_test(tc, test_input_sets_option);
  tcase_add_test(tc, test_out_of_place_option);
  tcase_add_test(tc, test_timing_pairs_option);
  tcase_add_test(tc, test_search_log);
  tcase_add_test(tc, test_candidate_option);
#endif
  suite_add_tcase(s, tc);
  TCase *grouped = tcase_create("grouped"); /* CK_RUN_CASE=grouped runs it alone */
  tcase_add_test(grouped, test_grouped_ok);
  suite_add_tcase(s, grouped);
  return s;
}

int main(void) { return gb_test_run_gpu_suite(suite()); }
