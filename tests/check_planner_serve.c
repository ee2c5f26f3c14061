/* The serving time model (planner/gb_time_serve.c): the engine's batch
 * limit, the start-up latency of tensor-parallel all-reduces and the expert
 * weights a mixture-of-experts decode step reads. Hand-computed on the N1
 * test GPU: GEMM 800 TFLOP/s x 0.5, HBM 1800 GB/s, NVLink-class links. */
#include <math.h>

#include "check_planner_world.h"

static void serve(n1_world *x, const char *ini, int n, gb_plan_time *t) {
  gb_workload w;
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x->perf, x->n1, n, 8, &x->o, t);
  ck_assert_int_eq(t->reject, GB_REJECT_NONE);
}

/* With no KV cache the batch is the engine's limit: 256 (vLLM's default
 * max_num_seqs) unless max_batch says otherwise; no longer 4096. */
START_TEST(test_max_batch) {
  n1_world x;
  n1_load(&x);
  gb_plan_time t;
  serve(&x, "type = inference\nparams = 1e9\ntokens_per_second = 1\n", 1, &t);
  ck_assert_double_eq_tol(t.batch, 256, TOL);
  serve(&x, "type = inference\nparams = 1e9\ntokens_per_second = 1\nmax_batch = 64\n", 1, &t);
  ck_assert_double_eq_tol(t.batch, 64, TOL);
  /* memory still binds below the limit: 1 GB of KV a sequence, 88 GB free -> 88 */
  serve(&x, "type = inference\nparams = 1e9\ntokens_per_second = 1\nkv_bytes_per_sequence = 1e9\n", 1, &t);
  ck_assert_double_eq_tol(t.batch, 88, TOL);
  n1_free(&x);
}
END_TEST

/* TP 8 at batch 1: each of the 2 x 40 all-reduces costs NCCL's ring LL
 * start-up, 6.6 + 2 x 7 x 0.6 = 15 us, on top of its bytes. */
START_TEST(test_allreduce_latency) {
  n1_world x;
  n1_load(&x);
  gb_plan_time t;
  serve(&x,
        "type = inference\nparams = 1e10\ntokens_per_second = 1\nbatch_size = 1\ntensor_parallel = 8\n"
        "layers = 40\nhidden_size = 5120\n",
        8, &t);
  double weights = 2e10 / (8 * 1800e9);
  double bytes = 5120 * 2.0;
  double comm = 2 * 40 * (15e-6 + 2.0 * 7 / 8 * bytes / 160e9);
  double floor = 40 * 9 * 3.4e-6 + 2.30e-3; /* 9 kernels a layer at NVIDIA's 3.4 us in a CUDA graph, the engine's step */
  ck_assert_double_eq_tol(t.token_latency_ms, (weights + comm + floor) * 1e3, 1e-9);
  ck_assert_double_eq_tol(t.floor_hours / (t.compute_hours + t.memory_hours + t.comm_hours),
                          floor / (weights + comm + floor), 1e-9);
  n1_free(&x);
}
END_TEST

/* The same step on an AMD type (A1, cdna3; no AMD measurement, so HBM is
 * the published 0.81 share of 2000 GB/s and busbw the cross-vendor ratio
 * of its 400 GB/s links): RCCL's ring LL start-up, 12 + 2 x 7 x 0.8 =
 * 23.2 us an all-reduce (ROCm/rccl src/graph/tuning.cc), not NCCL's 15. */
START_TEST(test_allreduce_latency_rccl) {
  n1_world x;
  n1_load(&x);
  const gb_perf_type *a1 = gb_perf_find(&x.perf, "A1-OAM-100GB");
  ck_assert_ptr_nonnull(a1);
  gb_workload w;
  wl_load(&w,
          "type = inference\nparams = 1e10\ntokens_per_second = 1\nbatch_size = 1\ntensor_parallel = 8\n"
          "layers = 40\nhidden_size = 5120\n");
  gb_plan_time t;
  gb_plan_time_of(&w, &x.perf, a1, 8, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  double weights = 2e10 / (8 * 2000 * 0.81e9);
  double bytes = 5120 * 2.0;
  double busbw = a1->comm_plateau_gbps * 1e9;
  double comm = 2 * 40 * (23.2e-6 + 2.0 * 7 / 8 * bytes / busbw);
  double floor = 40 * 9 * 3.0e-6 + 2.30e-3; /* CDNA3: 3.0 us a kernel (fit half) */
  ck_assert_double_eq_tol(t.token_latency_ms, (weights + comm + floor) * 1e3, 1e-9);
  n1_free(&x);
}
END_TEST

/* Compute-bound decode on the AMD type with the efficiency table (no
 * --mfu): batch 256, no KV cache, TP 1, 1e9 params; the GEMM step runs at
 * CDNA3's inference eta 0.355 of A1's projected rate (fit half: vLLM 405B
 * FP8 on MI300X; docs/planner.md "Efficiency table"). */
START_TEST(test_infer_eta_cdna3) {
  n1_world x;
  n1_load(&x);
  x.o.mfu = NAN;
  const gb_perf_type *a1 = gb_perf_find(&x.perf, "A1-OAM-100GB");
  ck_assert_ptr_nonnull(a1);
  gb_workload w;
  wl_load(&w, "type = inference\nparams = 1e9\ntokens_per_second = 1\nbatch_size = 256\n");
  gb_plan_time t;
  gb_plan_time_of(&w, &x.perf, a1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.eta, 0.355, 1e-12);
  double gemm = 2 * 1e9 * 256 / (0.355 * a1->gemm_tflops * 1e12), weights = 2e9 / (2000 * 0.81e9);
  ck_assert(gemm > weights);
  /* 1e9 params: hidden round(cbrt(1e9 x 128 / 12)) = 2202, layers round(1e9 / (12 x 2202^2)) = 17 */
  double floor = 17 * 9 * 3.0e-6 + 2.30e-3;
  ck_assert_double_eq_tol(t.token_latency_ms, (gemm + floor) * 1e3, 1e-9);
  n1_free(&x);
}
END_TEST

/* Mixture of experts at batch 1: 8 experts, top 2, 40e9 params of which 13e9
 * active: routed weights 27e9 x 8 / 6 = 36e9, dense 4e9; one sequence touches
 * 2 of 8 experts a layer, so a step reads 4e9 + 36e9 / 4 = 13e9 params
 * (26 GB in bf16), not all 80 GB; the routed 18 GB stream at the grouped
 * kernels' 0.92 of the bandwidth. At batch 256 every expert is read. */
START_TEST(test_moe_weights_read) {
  n1_world x;
  n1_load(&x);
  gb_plan_time t;
  const char *moe = "type = inference\nparams = 4e10\nactive_params = 1.3e10\nexperts = 8\nmoe_top_k = 2\n"
                    "expert_ffn_hidden = 14336\ntokens_per_second = 1\nbatch_size = %s\n";
  char ini[512];
  snprintf(ini, sizeof ini, moe, "1");
  serve(&x, ini, 1, &t);
  /* 4e10 params: hidden 7529, layers 59; a MoE layer runs 9 + 4 kernels at 3.4 us */
  double floor = 59 * 13 * 3.4e-6 + 2.30e-3;
  ck_assert_double_eq_tol(t.token_latency_ms, ((8e9 + 18e9 / 0.92) / 1800e9 + floor) * 1e3, 1e-9);
  snprintf(ini, sizeof ini, moe, "256");
  serve(&x, ini, 1, &t);
  double routed = 36e9 * (1 - pow(0.75, 256)) / 4e10;
  double weights = 8e10 * (4e9 / 4e10 + routed / 0.92) / 1800e9, gemm = 2 * 1.3e10 * 256 / 400e12;
  ck_assert_double_eq_tol(t.token_latency_ms, (fmax(weights, gemm) + floor) * 1e3, 1e-9);
  n1_free(&x);
}
END_TEST

/* An AMD type with no AMD measurement: its HBM rate is the published
 * STREAM share of CDNA3 (0.81 of the datasheet), not the NVIDIA default. */
START_TEST(test_hbm_published_share) {
  n1_world x;
  n1_load(&x);
  const gb_perf_type *a1 = gb_perf_find(&x.perf, "A1-OAM-100GB");
  ck_assert_ptr_nonnull(a1);
  ck_assert_double_eq_tol(a1->hbm_gbps, 2000 * 0.81, 1e-9);
  ck_assert_double_eq_tol(x.n1->hbm_gbps, 1800, 1e-9); /* Hopper: nothing published, the default ratio */
  n1_free(&x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner_serve");
  TCase *tc = tcase_create("serve");
  tcase_add_test(tc, test_max_batch);
  tcase_add_test(tc, test_allreduce_latency);
  tcase_add_test(tc, test_allreduce_latency_rccl);
  tcase_add_test(tc, test_infer_eta_cdna3);
  tcase_add_test(tc, test_moe_weights_read);
  tcase_add_test(tc, test_hbm_published_share);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return gb_test_run_suite(suite());
}
