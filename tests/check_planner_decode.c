/* The decode benchmark's rows as the planner reads them (planner/gb_perf_decode.c) and the serving floor they set
 * (planner/gb_time_serve.c): a hand-made CSV in the contract of bench decode (one row a point: case launch and
 * launch_graph, metric time_us; gemv_<dtype>, metric tflops, m = batch; kv_read, metric gbps at its bytes). */
#include <math.h>
#include <stdio.h>

#include "check_planner_world.h"

#define R "1,r,2026-12-07T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,decode,"

/* Repeated points take their median; failed rows, rows under non-default settings and another type's are left out;
 * the KV read is its largest size's. */
static const char *const k_decode =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,settings\n"
    "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,1,800,800,0,ok,,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,4294967296,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,,\n"
    R "launch,,,,,,time_us,us,5.0,1,5,5,0,ok,,,,,,\n"
    R "launch,,,,,,time_us,us,7.0,1,7,7,0,ok,,,,,,\n"
    R "launch,,,,,,time_us,us,90.0,1,90,90,0,ok,,,,,,iters=3\n"
    R "launch_graph,,,,,,time_us,us,2.0,1,2,2,0,ok,,,,,,\n"
    R "launch_graph,,,,,,time_us,us,2.4,1,2.4,2.4,0,ok,,,,,,\n"
    R "launch_graph,,,,,,time_us,us,2.2,1,2.2,2.2,0,ok,,,,,,\n"
    R "launch_graph,,,,,,time_us,us,0.1,1,0.1,0.1,0,error,,,,,,\n"
    R "kv_read,,,,,1000000,gbps,GB/s,1000,1,1000,1000,0,ok,,,,,,\n"
    R "kv_read,,,,,1000000000,gbps,GB/s,1500,1,1500,1500,0,ok,,,,,,\n"
    R "kv_read,,,,,1000000000,time_us,us,666,1,666,666,0,ok,,,,,,\n"
    R "gemv_bf16,bf16,1,4096,4096,,tflops,TFLOP/s,0.9,1,0.9,0.9,0,ok,,,,,,\n"
    R "gemv_bf16,bf16,1,4096,4096,,time_us,us,37.28,1,37.28,37.28,0,ok,,,,,,\n"
    R "gemv_bf16,bf16,16,4096,4096,,tflops,TFLOP/s,12.0,1,12,12,0,ok,,,,,,\n"
    "1,r,2026-12-07T00:00:00Z,h,A1-OAM-100GB,f,1,1,1,decode,launch_graph,,,,,,time_us,us,9.9,1,9.9,9.9,0,ok,,,,,,\n";

typedef struct decode_world {
  gb_results m;
  gb_specs s;
  gb_perf p;
  const gb_perf_type *n1;
} decode_world;

static void decode_load(decode_world *x, const char *csv) {
  memset(x, 0, sizeof *x);
  ck_assert_msg(gb_results_read_mem("m.csv", csv, strlen(csv), &x->m) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), &x->s), GB_OK);
  ck_assert_int_eq(gb_perf_build(&x->s, &x->m, "bf16", 8192, false, &x->p), GB_OK);
  x->n1 = gb_perf_find(&x->p, "N1-SXM-100GB");
  ck_assert_ptr_nonnull(x->n1);
}

static void decode_free(decode_world *x) {
  gb_perf_free(&x->p);
  gb_specs_free(&x->s);
  gb_results_free(&x->m);
}

START_TEST(test_decode_rows) {
  decode_world x;
  decode_load(&x, k_decode);
  ck_assert_double_eq_tol(x.n1->launch_us, 6.0, TOL);       /* median of 5 and 7; the iters=3 row left out */
  ck_assert_double_eq_tol(x.n1->launch_graph_us, 2.2, TOL); /* median of 2.0, 2.4, 2.2; the failed row left out */
  ck_assert_double_eq_tol(x.n1->kv_gbps, 1500, TOL);        /* the largest size's */
  ck_assert_uint_eq(x.n1->ngemv, 2);                        /* the tflops rows */
  /* 2 x 1 x 4096 x 4096 FLOPs at 0.9 TFLOP/s; between the batches linear in log m: at 4, half-way 0.9 -> 12 */
  ck_assert_double_eq_tol(gb_perf_gemv_seconds(x.n1, "bf16", 1, 4096, 4096), 2.0 * 4096 * 4096 / 0.9e12, 1e-15);
  ck_assert_double_eq_tol(gb_perf_gemv_seconds(x.n1, "bf16", 4, 4096, 4096), 2.0 * 4 * 4096 * 4096 / 6.45e12, 1e-15);
  ck_assert(isnan(gb_perf_gemv_seconds(x.n1, "fp8e4m3", 1, 4096, 4096)));
  const gb_perf_type *a1 = gb_perf_find(&x.p, "A1-OAM-100GB");
  ck_assert_double_eq_tol(a1->launch_graph_us, 9.9, TOL);
  ck_assert(isnan(a1->launch_us) && isnan(a1->kv_gbps) && a1->ngemv == 0);
  decode_free(&x);
}
END_TEST

/* Batch 1 on N1 with the decode rows: the weights stream at the GEMV's 2 x 4096^2 B / 37.28 us = 900 GB/s (not
 * the triad's 1800), each sequence's KV cache at the KV read's 1500 GB/s, and 40 layers x 9 kernels cost the
 * measured 2.2 us each inside a CUDA graph, plus the engine's 2.30 ms a step; without the rows: 1800 GB/s and
 * NVIDIA's default 3.4 us. */
START_TEST(test_decode_floor_measured) {
  decode_world x;
  decode_load(&x, k_decode);
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.mfu = 0.5, o.overlap = 0;
  gb_workload w;
  wl_load(&w, "type = inference\nparams = 1e10\nlayers = 40\nhidden_size = 4096\nffn_hidden = 4096\n"
              "tokens_per_second = 1\nbatch_size = 1\noutput_tokens = 100\nkv_bytes_per_sequence = 1.5e9\n");
  gb_plan_time t;
  gb_plan_time_of(&w, &x.p, x.n1, 1, 8, &o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  double gemv_bw = 2.0 * 4096 * 4096 / (2.0 * 4096 * 4096 / 0.9e12);
  double step = 2e10 / gemv_bw + 0.75e9 / 1500e9 + 40 * 9 * 2.2e-6 + 2.30e-3; /* no prompt: half the KV cache on average */
  ck_assert_double_eq_tol(t.token_latency_ms, step * 1e3, 1e-9);
  n1_world y;
  n1_load(&y);
  gb_plan_time_of(&w, &y.perf, y.n1, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.token_latency_ms, (2e10 / 1800e9 + 0.75e9 / 1800e9 + 40 * 9 * 3.4e-6 + 2.30e-3) * 1e3, 1e-9);
  n1_free(&y);
  decode_free(&x);
}
END_TEST

/* A MoE decode step: 4 more kernels a layer (router, top-k, alignment, the weighted sum) and 3 for a shared
 * expert; the expert GEMMs at batch 256, 64 tokens per expert, fill their 16-row tiles. */
START_TEST(test_decode_floor_moe) {
  n1_world x;
  n1_load(&x);
  static const char *const moe = "type = inference\nparams = 4e10\nactive_params = 1.3e10\nlayers = 40\n"
                                  "hidden_size = 4096\nexperts = 8\nmoe_top_k = 2\nexpert_ffn_hidden = 14336\n"
                                  "shared_experts = 1\ntokens_per_second = 1\nbatch_size = 1\n";
  gb_workload w;
  gb_plan_time t;
  wl_load(&w, moe);
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.floor_hours / (t.compute_hours + t.memory_hours + t.comm_hours),
                          (40 * 16 * 3.4e-6 + 2.30e-3) / (t.token_latency_ms * 1e-3), 1e-9);
  ck_assert_double_eq_tol(t.moe_imbalance, 1.5, TOL);
  ck_assert_double_eq_tol(t.expert_eff, 1.0 / 16, 1e-9); /* m = 1 x 2 / 8, at least 1 row of 16 */
  /* moe_layers 10: the other 30 layers run a dense FFN, the 9 kernels of a dense layer (DeepSeek-V3's first 3,
   * Llama 4 Maverick's every other one) */
  char ini[512];
  snprintf(ini, sizeof ini, "%smoe_layers = 10\n", moe);
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.floor_hours / (t.compute_hours + t.memory_hours + t.comm_hours),
                          ((40 * 9 + 10 * 7) * 3.4e-6 + 2.30e-3) / (t.token_latency_ms * 1e-3), 1e-9);
  n1_free(&x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner_decode");
  TCase *tc = tcase_create("decode");
  tcase_add_test(tc, test_decode_rows);
  tcase_add_test(tc, test_decode_floor_measured);
  tcase_add_test(tc, test_decode_floor_moe);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return gb_test_run_suite(suite());
}
