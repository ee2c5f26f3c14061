/* Tests for the planner's inputs: prices and workload readers (each bad
 * input names file:line:field), options, and the performance figures over a
 * measured fixture (windows, throttled rows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_planner_world.h"

/* ---- prices ---- */

static const struct {
  const char *row, *expect;
} k_bad_prices[] = {
    {"P,on-demand,FAST-SXM-100GB,8,-1,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: must be > 0"},
    {"P,on-demand,FAST-SXM-100GB,8,0,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: must be > 0"},
    {"P,on-demand,FAST-SXM-100GB,8,NaN,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: not a number: \"NaN\""},
    {"P,on-demand,FAST-SXM-100GB,8,1e300,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: absurd value 1e300"},
    {"P,on-demand,FAST-SXM-100GB,8,\"1,20\",,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: not a number: \"1,20\""},
    {"P,on-demand,FAST-SXM-100GB,8,,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: empty"},
    {"P,purchase,FAST-SXM-100GB,8,,1e300,2026-01-01,s,V\n", ":2: purchase_usd_per_gpu: absurd value"},
    {"P,purchase,FAST-SXM-100GB,8,2,100,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: must be empty on a purchase"},
    {"P,on-demand,H300-SXM-1TB,8,2,,2026-01-01,s,V\n", ":2: gpu_type: unknown GPU type \"H300-SXM-1TB\""},
    {"P,on-demand,FAST-SXM-100GB,0,2,,2026-01-01,s,V\n", ":2: gpus_per_node: 0 is outside"},
    {"P,on-demand,FAST-SXM-100GB,1000000000000,2,,2026-01-01,s,V\n", ":2: gpus_per_node: 1000000000000 is outside"},
    {"P,rental,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", ":2: offering: \"rental\" is not one of"},
    {"P,on-demand,FAST-SXM-100GB,8,2,,,s,V\n", ":2: date: not a date"},
    {"P,on-demand,FAST-SXM-100GB,8,2,,2099-01-01,s,V\n", ":2: date: 2099-01-01 is in the future"},
    {"P,on-demand,FAST-SXM-100GB,8,0.001,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: 0.001 is below 0.01"},
    {"P,purchase,FAST-SXM-100GB,8,,1e-9,2026-01-01,s,V\n", ":2: purchase_usd_per_gpu: 1e-9 is below 50 USD"},
    {"P,on-demand,FAST-SXM-100GB,8,1000.5,,2026-01-01,s,V\n", ":2: price_usd_per_gpu_hour: absurd value 1000.5"},
    {"P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,,V\n", ":2: source: empty"},
    {"P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,X\n", ":2: confidence: \"X\""},
    {"P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\nQ,spot,FAST-SXM-100GB,8,1,,2026-01-01,s,V\n"
     "P,on-demand,FAST-SXM-100GB,8,3,,2026-02-01,t,S\n",
     ":4: provider: duplicate of line 2"},
};

START_TEST(test_prices_bad) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(tmp_file("specs.csv", k_specs), &specs), GB_OK);
  char text[4096];
  snprintf(text, sizeof text, "%s%s", k_prices_header, k_bad_prices[_i].row);
  gb_prices p;
  ck_assert_int_eq(gb_prices_read(tmp_file("prices.csv", text), &specs, &p), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad_prices[_i].expect) != NULL, "case %d: got \"%s\"", _i, gb_errmsg());
  ck_assert_msg(strstr(gb_errmsg(), "prices.csv:") != NULL, "names the file: %s", gb_errmsg());
  ck_assert_ptr_null(p.v);
  gb_specs_free(&specs);
}
END_TEST

START_TEST(test_prices_good) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(tmp_file("specs.csv", k_specs), &specs), GB_OK);
  char text[4096];
  /* the same provider may sell two node shapes: not a duplicate */
  snprintf(text, sizeof text, "%s%s", k_prices_header,
           "P,on-demand,FAST-SXM-100GB,8,2.5,,2026-01-01,\"src, with comma\",V\n"
           "P,on-demand,FAST-SXM-100GB,1,2.5,,2026-01-01,s,S\n"
           "P,purchase,FAST-SXM-100GB,8,,20000,2025-06-30,s,M\n");
  gb_prices p;
  ck_assert_int_eq(gb_prices_read(tmp_file("prices.csv", text), &specs, &p), GB_OK);
  ck_assert_uint_eq(p.n, 3);
  ck_assert_double_eq_tol(p.v[0].price_usd_per_gpu_hour, 2.5, TOL);
  ck_assert_str_eq(p.v[0].source, "src, with comma");
  ck_assert(isnan(p.v[0].purchase_usd_per_gpu));
  ck_assert_int_eq(p.v[2].offering, GB_OFFER_PURCHASE);
  ck_assert_double_eq_tol(p.v[2].purchase_usd_per_gpu, 20000, TOL);
  ck_assert_int_eq(p.v[2].line, 4);
  gb_prices_free(&p);
  gb_specs_free(&specs);
}
END_TEST

/* ---- workloads ---- */

static const struct {
  const char *ini, *expect;
} k_bad_ini[] = {
    {"type = training\nparams = 7e9\nfrobnicate = 3\n", "w.ini:3: frobnicate: unknown key"},
    {"type = training\nparams = 7e9x\n", "w.ini:2: params: not a number: \"7e9x\""},
    {"type = training\nparams = nan\n", "w.ini:2: params: not a number: \"nan\""},
    {"type = training\nparams = -7\n", "w.ini:2: params: must be > 0"},
    {"type = training\nparams = 0\n", "w.ini:2: params: must be > 0"},
    {"type = training\nparams = 1e300\n", "w.ini:2: params: absurd value 1e300"},
    {"type = training\n\n; comment\nsharded = maybe\n", "w.ini:4: sharded: \"maybe\" is not true or false"},
    {"type = cooking\n", "w.ini:1: type: \"cooking\" is not training"},
    {"type = training\nprecision = fp3\n", "w.ini:2: precision: \"fp3\""},
    {"[model]\ntype = training\n", "w.ini:2: [model]: unknown section"},
    {"type = training\nthis line has no equals sign\n", "w.ini:2: syntax error"},
    {"type = training\nparams = 1e9\nparams = 2e9\n", "w.ini:3: params: given twice (first on line 2)"},
    {"type = inference\nparams = 1e9\ntokens = 5\n", "w.ini:3: tokens: does not apply to an inference workload"},
    {"type = inference\nparams = 1e9\nbatch_size = 2.5\n", "w.ini:3: batch_size: must be a whole number"},
    {"type = training\ngoodput = 1.5\n", "w.ini:2: goodput: absurd value 1.5"},
    {"type = training\ngoodput = 0\n", "w.ini:2: goodput: must be > 0"},
    {"type = training\ntensor_parallel = 0\n", "w.ini:2: tensor_parallel: must be >= 1"},
    {"type = training\npipeline_parallel = 1.5\n", "w.ini:2: pipeline_parallel: must be a whole number"},
    {"type = training\nrecompute = sometimes\n", "w.ini:2: recompute: \"sometimes\" is not true, selective or false"},
    {"type = generic\ntensor_parallel = 2\ntotal_flops = 1\n", "w.ini:2: tensor_parallel: does not apply"},
    {"type = training\ndemand_gpu_hours_per_month = 10,,20\n", "w.ini:2: demand_gpu_hours_per_month: empty"},
    {"type = training\ndemand_gpu_hours_per_month = 10,x\n", "w.ini:2: demand_gpu_hours_per_month: \"x\""},
    {"type = training\ndemand_peak_fraction = 2\n", "w.ini:2: demand_peak_fraction: absurd value 2"},
    {"type = training\nparams = 1e9\nactive_params = 2e9\ntokens = 1e9\ntokens_per_step = 1e6\n",
     "active_params: 2e+09 is more than params"},
    /* issue 27: each key's out-of-range, not-a-number and wrong-kind values, at file:line */
    {"type = training\nfixed_hours = -1\n", "w.ini:2: fixed_hours: must be >= 0: -1"},
    {"type = training\nfixed_hours = 1e6\n", "w.ini:2: fixed_hours: absurd value 1e6 (above 100000)"},
    {"type = training\nfixed_hours = 2h\n", "w.ini:2: fixed_hours: not a number: \"2h\""},
    {"type = training\nusable_memory_fraction = 0\n", "w.ini:2: usable_memory_fraction: must be > 0: 0"},
    {"type = training\nusable_memory_fraction = 1.1\n", "w.ini:2: usable_memory_fraction: absurd value 1.1"},
    {"type = training\nusable_memory_fraction = 90%\n", "w.ini:2: usable_memory_fraction: not a number"},
    {"type = training\nactivation_gb_per_gpu = -1\n", "w.ini:2: activation_gb_per_gpu: must be >= 0: -1"},
    {"type = training\nactivation_gb_per_gpu = 1e6\n", "w.ini:2: activation_gb_per_gpu: absurd value 1e6"},
    {"type = training\nactivation_gb_per_gpu = lots\n", "w.ini:2: activation_gb_per_gpu: not a number: \"lots\""},
    {"type = inference\nactivation_gb_per_gpu = 5\n", "w.ini:2: activation_gb_per_gpu: does not apply to an inference"},
    {"type = training\nbucket_bytes = 0\n", "w.ini:2: bucket_bytes: must be > 0: 0"},
    {"type = training\nbucket_bytes = 1e13\n", "w.ini:2: bucket_bytes: absurd value 1e13"},
    {"type = training\nbucket_bytes = 25MB\n", "w.ini:2: bucket_bytes: not a number: \"25MB\""},
    {"type = generic\ntotal_flops = 1\nbucket_bytes = 1e6\n", "w.ini:3: bucket_bytes: does not apply to a generic"},
    {"type = training\nbytes_per_grad_element = 0\n", "w.ini:2: bytes_per_grad_element: must be > 0: 0"},
    {"type = training\nbytes_per_grad_element = 32\n", "w.ini:2: bytes_per_grad_element: absurd value 32 (above 16)"},
    {"type = training\nbytes_per_grad_element = two\n", "w.ini:2: bytes_per_grad_element: not a number"},
    {"type = training\ngrad_bytes = -5\n", "w.ini:2: grad_bytes: must be > 0: -5"},
    {"type = training\nflops_per_token = 0\n", "w.ini:2: flops_per_token: must be > 0: 0"},
    {"type = training\nmemory_bytes_per_param = 2000\n", "w.ini:2: memory_bytes_per_param: absurd value 2000"},
    {"type = training\nexpert_parallel = 0\n", "w.ini:2: expert_parallel: must be >= 1: 0"},
    {"type = training\nexpert_parallel = 2.5\n", "w.ini:2: expert_parallel: must be a whole number: 2.5"},
    {"type = training\nexpert_parallel = 5000\n", "w.ini:2: expert_parallel: absurd value 5000 (above 4096)"},
    {"type = training\nexpert_parallel = eight\n", "w.ini:2: expert_parallel: not a number: \"eight\""},
    {"type = inference\nexpert_parallel = 8\n", "w.ini:2: expert_parallel: does not apply to an inference"},
    {"type = training\nmoe_top_k = 0\n", "w.ini:2: moe_top_k: must be >= 1: 0"},
    {"type = training\nmoe_top_k = 1.5\n", "w.ini:2: moe_top_k: must be a whole number: 1.5"},
    {"type = training\nmoe_top_k = 65\n", "w.ini:2: moe_top_k: absurd value 65 (above 64)"},
    {"type = generic\nmoe_top_k = 2\ntotal_flops = 1\n", "w.ini:2: moe_top_k: does not apply to a generic"},
    {"type = training\nseq_len = 0\n", "w.ini:2: seq_len: must be >= 1: 0"},
    {"type = training\nseq_len = 2048.5\n", "w.ini:2: seq_len: must be a whole number"},
    {"type = training\nmicro_batch = 0\n", "w.ini:2: micro_batch: must be >= 1: 0"},
    {"type = training\nmicro_batch = x\n", "w.ini:2: micro_batch: not a number: \"x\""},
    {"type = inference\nmicro_batch = 4\n", "w.ini:2: micro_batch: does not apply to an inference"},
    {"type = training\nlayers = 0\n", "w.ini:2: layers: must be >= 1: 0"},
    {"type = training\nlayers = 1.5\n", "w.ini:2: layers: must be a whole number: 1.5"},
    {"type = training\nhidden_size = 0\n", "w.ini:2: hidden_size: must be >= 1: 0"},
    {"type = generic\nhidden_size = 4096\ntotal_flops = 1\n", "w.ini:2: hidden_size: does not apply to a generic"},
    {"type = inference\nmodel_bytes = 0\n", "w.ini:2: model_bytes: must be > 0: 0"},
    {"type = training\nmodel_bytes = 1e9\n", "w.ini:2: model_bytes: does not apply to a training"},
    {"type = inference\nkv_bytes_per_sequence = -1\n", "w.ini:2: kv_bytes_per_sequence: must be >= 0: -1"},
    {"type = inference\nkv_bytes_per_token = many\n", "w.ini:2: kv_bytes_per_token: not a number"},
    {"type = inference\noutput_tokens = 0\n", "w.ini:2: output_tokens: must be >= 1: 0"},
    {"type = inference\nprompt_tokens = 1.5\n", "w.ini:2: prompt_tokens: must be a whole number"},
    {"type = inference\nserve_hours = 0\n", "w.ini:2: serve_hours: must be > 0: 0"},
    {"type = inference\nmax_token_latency_ms = 0\n", "w.ini:2: max_token_latency_ms: must be > 0: 0"},
    {"type = training\ngemm_size = 0\n", "w.ini:2: gemm_size: must be >= 1: 0"},
    {"type = training\ngemm_size = 2e6\n", "w.ini:2: gemm_size: absurd value 2e6"},
    {"type = training\nmax_hours = 0\n", "w.ini:2: max_hours: must be > 0: 0"},
    {"type = training\nbudget_usd = -1\n", "w.ini:2: budget_usd: must be > 0: -1"},
    {"type = training\nname = \n", "w.ini:2: name: must be 1 to 63 characters"},
    {"type = generic\ntotal_bytes = -1\n", "w.ini:2: total_bytes: must be >= 0: -1"},
    {"type = generic\nallreduce_count = 1.5\n", "w.ini:2: allreduce_count: must be a whole number"},
    {"type = generic\nmemory_gb = -1\n", "w.ini:2: memory_gb: must be >= 0: -1"},
    {"type = generic\ndemand_peak_gpus = -8\n", "w.ini:2: demand_peak_gpus: must be >= 0: -8"},
    {"params = 1e9\n", "w.ini: type: missing"},
    {"type = training\nparams = 1e9\ntokens = 1e10\n", "w.ini: tokens_per_step: missing"},
    {"type = generic\nmemory_gb = 5\n", "w.ini: total_flops: missing"},
    {"type = training\nparams = 1e9\ntokens = 1e3\ntokens_per_step = 1e6\n", "tokens_per_step: 1e+06 is more than"},
};

START_TEST(test_workload_bad) {
  gb_workload w;
  gb_workload_init(&w);
  gb_err e = gb_workload_read_mem("w.ini", k_bad_ini[_i].ini, &w);
  if (e == GB_OK) e = gb_workload_finish(&w);
  ck_assert_int_eq(e, GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad_ini[_i].expect) != NULL, "case %d: got \"%s\", want \"%s\"", _i,
                gb_errmsg(), k_bad_ini[_i].expect);
}
END_TEST

START_TEST(test_workload_defaults_and_flags) {
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("dir/t7.ini", "[workload]\ntype = training\nparams = 7e9 ; inline\n"
                                                      "tokens = 1e12\ntokens_per_step = 4194304\n",
                                        &w),
                   GB_OK);
  /* a flag overrides the file; '-' and '_' are the same */
  ck_assert_int_eq(gb_workload_set(&w, "tokens-per-step", "2097152", "--tokens-per-step", 0), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert_str_eq(w.name, "t7"); /* from the file name */
  ck_assert_str_eq(w.precision, "bf16");
  /* 6 x params + causal attention 6 x layers x seq_len x hidden, the shape derived from params:
   * hidden = cbrt(7e9 x 128 / 12) = 4211, layers = 7e9 / (12 x 4211^2) = 33 */
  ck_assert_double_eq_tol(w.hidden_size, 4211, TOL);
  ck_assert_double_eq_tol(w.layers, 33, TOL);
  ck_assert_double_eq_tol(w.flops_per_token, 6 * 7e9 + 6 * 33 * 2048 * 4211.0, 1);
  ck_assert_double_eq_tol(w.grad_bytes, 7e9 * 2, 1);             /* bf16 gradients: 2 B */
  ck_assert_double_eq_tol(w.memory_bytes_per_param, 16, TOL);   /* mixed-precision Adam */
  ck_assert_double_eq_tol(w.tokens_per_step, 2097152, TOL);
  ck_assert_double_eq_tol(gb_workload_total_flops(&w), (6 * 7e9 + 6 * 33 * 2048 * 4211.0) * 1e12, 1e9);
  ck_assert(!w.sharded);
  /* flags alone, fp32: 4-byte gradients; an inference model's bytes from params */
  gb_workload f;
  gb_workload_init(&f);
  ck_assert_int_eq(gb_workload_set(&f, "type", "inference", "--type", 0), GB_OK);
  ck_assert_int_eq(gb_workload_set(&f, "params", "70e9", "--params", 0), GB_OK);
  ck_assert_int_eq(gb_workload_set(&f, "tokens_per_second", "1000", "--tokens-per-second", 0), GB_OK);
  ck_assert_int_eq(gb_workload_set(&f, "batch_size", "8", "--batch-size", 0), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&f), GB_OK);
  ck_assert_double_eq_tol(f.model_bytes, 140e9, 1); /* 70e9 x 2 B */
  ck_assert_int_eq(gb_workload_set(&f, "params", "abc", "--params", 0), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "--params: params: not a number: \"abc\"");
}
END_TEST

START_TEST(test_opts_bad) {
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  ck_assert_int_eq(gb_plan_opt_set(&o, "max-gpus", "1e12"), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "--max-gpus: absurd value 1e12 (above 100000)");
  ck_assert_int_eq(gb_plan_opt_set(&o, "budget", "0"), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "--budget: must be > 0: 0");
  ck_assert_int_eq(gb_plan_opt_set(&o, "budget", "-5"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&o, "mfu", "nan"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&o, "mfu", "1.5"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&o, "overlap", "0"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&o, "objective", "speed"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&o, "objective", "time"), GB_OK);
  ck_assert_int_eq(o.objective, GB_OBJ_TIME);
  ck_assert_int_eq(gb_plan_opt_set(&o, "frobnicate", "1"), GB_E_USAGE);
}
END_TEST

/* An empty measured directory: no files, no rows, and no qsort(NULL, 0, ...)
 * (undefined behaviour the sanitizer build reported before the fix). */
START_TEST(test_measured_dir_empty) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/empty-measured", gb_test_tmpdir());
  mkdir(dir, 0700);
  gb_results r = {0};
  size_t n = 7;
  ck_assert_int_eq(gb_plan_load_measured_dir(dir, &r, &n), GB_OK);
  ck_assert_uint_eq(n, 0);
  ck_assert_uint_eq(r.nrows, 0);
  gb_results_free(&r);
}
END_TEST

/* ---- performance model over the H200 fixture ---- */

START_TEST(test_perf_fixture) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(GB_SOURCE_ROOT "/data/gpu_specs.csv", &specs), GB_OK);
  gb_results m = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("planner_h200.csv"), &m), GB_OK);
  gb_perf p;
  /* 4096 x sqrt(2) lies halfway between 4096 and 8192 in log size:
   * (600 + 700) / 2 = 650 TFLOP/s; the throttled 100 is ignored */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 4096 * sqrt(2.0), false, &p), GB_OK);
  const gb_perf_type *h = gb_perf_find(&p, "H200-SXM-141GB");
  ck_assert(h->gemm_measured && h->hbm_measured);
  ck_assert(!h->gemm_throttled && !h->hbm_throttled && !h->comm_throttled); /* ok rows exist: preferred */
  ck_assert_double_eq_tol(h->gemm_tflops, 650, 1e-6);
  /* triad at the largest size: median(4400, 4420) = 4410 (copy 4500 not preferred) */
  ck_assert_double_eq_tol(h->hbm_gbps, 4410, 1e-9);
  /* ratios: GEMM 650 / 989.5; HBM 4410 / 4800 = 0.91875; all-reduce 420 / (900 / 2) */
  ck_assert_double_eq_tol(p.gemm_ratio, 650 / 989.5, 1e-9);
  ck_assert_double_eq_tol(p.hbm_ratio, 0.91875, 1e-12);
  ck_assert_double_eq_tol(p.comm_ratio, 420.0 / 450.0, 1e-12);
  /* H100 is projected with them: 989.5 x 650/989.5 = 650; 3350 x 0.91875 */
  const gb_perf_type *h100 = gb_perf_find(&p, "H100-SXM-80GB");
  ck_assert(!h100->gemm_measured && !h100->hbm_measured);
  ck_assert_double_eq_tol(h100->gemm_tflops, 650, 1e-6);
  ck_assert_double_eq_tol(h100->hbm_gbps, 3350 * 0.91875, 1e-9);
  ck_assert(isnan(gb_perf_find(&p, "V100-SXM2-32GB")->gemm_tflops)); /* no BF16 on V100 */
  /* busbw on 8 GPUs at 1e7 B: halfway between 1e6 (40) and 1e8 (400) in log size = 220 */
  bool proj = true;
  ck_assert_double_eq_tol(gb_perf_busbw_gbps(&p, h, 8, 8, 1e7, 50, &proj), 220, 1e-9);
  ck_assert(!proj);
  /* beyond the largest size: clamped to 420 */
  ck_assert_double_eq_tol(gb_perf_busbw_gbps(&p, h, 8, 8, 1e10, 50, &proj), 420, 1e-9);
  /* 4 GPUs not measured: the ring keeps busbw flat, so the nearest count below
   * (2 GPUs: 1e7 is halfway, (50 + 300) / 2 = 175) is used, flagged projected */
  ck_assert_double_eq_tol(gb_perf_busbw_gbps(&p, h, 4, 8, 1e7, 50, &proj), 175, 1e-9);
  ck_assert(proj);
  /* 16 GPUs over two nodes: capped at the 50 GB/s NIC, projected */
  proj = false;
  ck_assert_double_eq_tol(gb_perf_busbw_gbps(&p, h, 16, 8, 1e9, 50, &proj), 50, 1e-9);
  ck_assert(proj);
  ck_assert(isinf(gb_perf_busbw_gbps(&p, h, 1, 8, 1e9, 50, &proj)));
  /* the type the specs do not know is reported, not used */
  ck_assert(strstr(p.notes.data, "MYSTERY-GPU-8GB is not in gpu_specs.csv") != NULL);
  gb_perf_free(&p);

  /* no rows at the workload's precision: a warning, and the figure projected
   * from the datasheet alone (no type measured at fp8): 1979 x Hopper's
   * typical cuBLAS share 0.80 (planner/gb_model.c) */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "fp8e4m3", 8192, false, &p), GB_OK);
  h = gb_perf_find(&p, "H200-SXM-141GB");
  ck_assert(!h->gemm_measured);
  ck_assert_double_eq_tol(h->gemm_tflops, 1979 * 0.80, 1e-9);
  ck_assert_int_eq(h->gemm_basis, GB_BASIS_DATASHEET);
  ck_assert_double_eq_tol(h->gemm_band, GB_BAND_DATASHEET, 1e-12);
  ck_assert(strstr(p.notes.data, "H200-SXM-141GB: measured GEMM rows exist but none at fp8e4m3 with status ok or "
                                 "throttled") != NULL);
  gb_perf_free(&p);

  /* nothing measured: default ratios everywhere */
  ck_assert_int_eq(gb_perf_build(&specs, NULL, "bf16", 8192, false, &p), GB_OK);
  ck_assert_uint_eq(p.measured_rows_used, 0);
  ck_assert_double_eq_tol(gb_perf_find(&p, "H200-SXM-141GB")->hbm_gbps, 4800 * 0.90, 1e-9);
  ck_assert_double_eq_tol(gb_perf_find(&p, "H200-SXM-141GB")->comm_plateau_gbps, 450 * 0.80, 1e-9);
  gb_perf_free(&p);
  gb_results_free(&m);
  gb_specs_free(&specs);
}
END_TEST

/* Rows measured under non-default settings (a probe's) are not a card's
 * figure: the planner leaves them out and says so. A probe row at 9999
 * TFLOP/s beside the fixture's 8192^3 bf16 row (700) changes nothing. */
START_TEST(test_perf_ignores_settings_rows) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(GB_SOURCE_ROOT "/data/gpu_specs.csv", &specs), GB_OK);
  gb_results m = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("planner_h200.csv"), &m), GB_OK);
  gb_row *rows = malloc((m.nrows + 1) * sizeof *rows);
  ck_assert_ptr_nonnull(rows);
  memcpy(rows, m.rows, m.nrows * sizeof *rows);
  size_t probe = m.nrows;
  for (size_t i = 0; i < m.nrows; i++)
    if (strcmp(rows[i].benchmark, "gemm") == 0 && strcmp(rows[i].dtype, "bf16") == 0 && rows[i].m == 8192 &&
        rows[i].status == GB_STATUS_OK)
      probe = i;
  ck_assert_uint_lt(probe, m.nrows);
  rows[m.nrows] = rows[probe];
  rows[m.nrows].value = 9999;
  rows[m.nrows].settings = "gemm.candidate=3";
  rows[m.nrows].line = 99;
  gb_results with = {.nrows = m.nrows + 1, .rows = rows};
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&specs, &with, "bf16", 8192, false, &p), GB_OK);
  ck_assert_double_eq_tol(gb_perf_find(&p, "H200-SXM-141GB")->gemm_tflops, 700, 1e-9);
  ck_assert_msg(strstr(p.notes.data, ":99: 1 row measured under non-default settings (here: gemm.candidate=3) is not "
                                     "used; the planner uses rows measured with the defaults"),
                "%s", p.notes.data);
  gb_perf_free(&p);
  free(rows);
  gb_results_free(&m);
  gb_specs_free(&specs);
}
END_TEST

/* The power behind the planner's energy and per-watt figures: the datasheet
 * TDP until a GEMM row of the precision carries energy-counter power; then
 * the median of those at the largest shape (a row measured with only a
 * longer window, iters=N, counts), never the 1-s average power_w, and a row
 * whose per-W figure is over the datasheet bound is left out with a note. */
START_TEST(test_perf_measured_power) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(GB_SOURCE_ROOT "/data/gpu_specs.csv", &specs), GB_OK);
  gb_results m = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("planner_h200.csv"), &m), GB_OK);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 8192, false, &p), GB_OK);
  const gb_perf_type *h = gb_perf_find(&p, "H200-SXM-141GB");
  ck_assert(!h->power_measured); /* the fixture's rows have power_w only */
  ck_assert_double_eq(gb_perf_power_w(h), 700);
  gb_perf_free(&p);
  gb_row *rows = malloc((m.nrows + 3) * sizeof *rows);
  ck_assert_ptr_nonnull(rows);
  memcpy(rows, m.rows, m.nrows * sizeof *rows);
  size_t big = m.nrows, small = m.nrows;
  for (size_t i = 0; i < m.nrows; i++)
    if (strcmp(rows[i].gpu_type, "H200-SXM-141GB") == 0 && strcmp(rows[i].benchmark, "gemm") == 0 &&
        strcmp(rows[i].dtype, "bf16") == 0 && rows[i].status == GB_STATUS_OK && rows[i].m <= 8192)
      *(rows[i].m == 8192 ? &big : &small) = i;
  ck_assert_uint_lt(big, m.nrows);
  ck_assert_uint_lt(small, m.nrows);
  gb_row *e = &rows[m.nrows];
  e[0] = rows[big]; /* 8192^3 sustained over 2.5 s: 1625 J, 650 W */
  e[0].metric = "tflops_sustained", e[0].settings = "iters=2000", e[0].energy_j = 1625, e[0].energy_s = 2.5;
  e[1] = rows[small]; /* a smaller shape at 400 W: not the largest, not used */
  e[1].energy_j = 1000, e[1].energy_s = 2.5;
  e[2] = rows[big]; /* 700 TFLOP/s at 200 W: 3.5 per W, over 1.25 x 989.5 / 700 */
  e[2].energy_j = 500, e[2].energy_s = 2.5, e[2].line = 77;
  gb_results with = {.nrows = m.nrows + 3, .rows = rows};
  ck_assert_int_eq(gb_perf_build(&specs, &with, "bf16", 8192, false, &p), GB_OK);
  h = gb_perf_find(&p, "H200-SXM-141GB");
  ck_assert(h->power_measured);
  ck_assert_double_eq_tol(gb_perf_power_w(h), 650, 1e-9);
  ck_assert_double_eq(gb_perf_power_w(gb_perf_find(&p, "H100-SXM-80GB")), 700); /* not measured: its TDP */
  ck_assert_msg(strstr(p.notes.data, "H200-SXM-141GB: a bf16 GEMM row's power is left out: 3.5 TFLOP/s per W is over "
                                     "1.77, 1.25 x the datasheet's 989.5 TFLOP/s over its 700 W TDP"),
                "%s", p.notes.data);
  ck_assert_ptr_nonnull(strstr(p.notes.data, ":77)"));
  /* the iters=2000 row's power is used: no note calls it unused (one did, on every plan) */
  ck_assert_msg(!strstr(p.notes.data, "non-default settings"), "%s", p.notes.data);
  gb_perf_free(&p);
  /* at another precision it gives nothing: the note says so */
  ck_assert_int_eq(gb_perf_build(&specs, &with, "fp8e4m3", 8192, false, &p), GB_OK);
  ck_assert_msg(strstr(p.notes.data, "1 row measured under non-default settings (here: iters=2000) is not used"), "%s",
                p.notes.data);
  gb_perf_free(&p);
  free(rows);
  gb_results_free(&m);
  gb_specs_free(&specs);
}
END_TEST

/* Rows of cases the GPU cannot run (status unsupported, no value: an
 * H100's mxfp8 fp8e4m3 and nvfp4 fp4e2m1 rows, h100_unsupported_cur.csv)
 * are no measurement: the planner's figures from the run with them equal
 * those from the same run without them (aa/h100-c1-quick-2.csv), and a
 * precision with only such a row is not measured. */
START_TEST(test_perf_ignores_unsupported) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(GB_SOURCE_ROOT "/data/gpu_specs.csv", &specs), GB_OK);
  gb_results with = {0}, without = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("h100_unsupported_cur.csv"), &with), GB_OK);
  ck_assert_int_eq(gb_results_read(gb_fixture("aa/h100-c1-quick-2.csv"), &without), GB_OK);
  static const char *const precs[] = {"fp8e4m3", "fp4e2m1"};
  for (int i = 0; i < 2; i++) {
    gb_perf p, q;
    ck_assert_int_eq(gb_perf_build(&specs, &with, precs[i], 8192, false, &p), GB_OK);
    ck_assert_int_eq(gb_perf_build(&specs, &without, precs[i], 8192, false, &q), GB_OK);
    const gb_perf_type *a = gb_perf_find(&p, "H100-SXM-80GB"), *b = gb_perf_find(&q, "H100-SXM-80GB");
    ck_assert(a && b);
    ck_assert_int_eq(a->gemm_measured, i == 0);
    ck_assert_int_eq(a->gemm_measured, b->gemm_measured);
    if (i == 0) {
      ck_assert(isfinite(a->gemm_tflops));
      ck_assert_double_eq(a->gemm_tflops, b->gemm_tflops);
    } else { /* no fp4 on an H100: no figure either way */
      ck_assert(isnan(a->gemm_tflops) && isnan(b->gemm_tflops));
    }
    ck_assert_double_eq(a->hbm_gbps, b->hbm_gbps);
    gb_perf_free(&p);
    gb_perf_free(&q);
  }
  gb_results_free(&with);
  gb_results_free(&without);
  gb_specs_free(&specs);
}
END_TEST

/* ---- GEMM windows: burst rows (tflops) or sustained ones (tflops_sustained), never mixed ---- */

/* planner_gemm_windows.csv: H200 bf16 burst 600 (4096^3) and 700 (8192^3),
 * ok; sustained 540 (4096^3, ok) and 630 (8192^3, throttled); a sustained
 * speedup row (not a rate); int8 sustained only (1300 TOP/s, throttled);
 * H100 bf16 burst only (650 at 8192^3). */
START_TEST(test_perf_gemm_window) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(GB_SOURCE_ROOT "/data/gpu_specs.csv", &specs), GB_OK);
  gb_results m = {0};
  ck_assert_int_eq(gb_results_read(gb_fixture("planner_gemm_windows.csv"), &m), GB_OK);
  gb_perf p;

  /* burst: (600 + 700) / 2 halfway in log size; H100 measured */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 4096 * sqrt(2.0), false, &p), GB_OK);
  ck_assert(!p.gemm_sustained);
  const gb_perf_type *h200 = gb_perf_find(&p, "H200-SXM-141GB"), *h100 = gb_perf_find(&p, "H100-SXM-80GB");
  ck_assert(h200->gemm_measured && !h200->gemm_throttled);
  ck_assert_double_eq_tol(h200->gemm_tflops, 650, 1e-9);
  ck_assert(h100->gemm_measured);
  ck_assert_double_eq_tol(h100->gemm_tflops, 650, 1e-9);
  gb_perf_free(&p);

  /* sustained: (540 + 630) / 2 = 585, resting on the throttled 8192^3 point */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 4096 * sqrt(2.0), true, &p), GB_OK);
  ck_assert(p.gemm_sustained);
  h200 = gb_perf_find(&p, "H200-SXM-141GB");
  h100 = gb_perf_find(&p, "H100-SXM-80GB");
  ck_assert(h200->gemm_measured && h200->gemm_throttled);
  ck_assert_double_eq_tol(h200->gemm_tflops, 585, 1e-9);
  /* H100 has burst rows only: projected with the H200's sustained ratio,
   * 989.5 x 585 / 989.5 = 585, and a note says why */
  ck_assert(!h100->gemm_measured);
  ck_assert_double_eq_tol(h100->gemm_tflops, 585, 1e-9);
  /* a type of another architecture: A100's peak x Ampere's typical cuBLAS share
   * x the H200's correction (585 / 989.5 / Hopper's 0.80): 312 x 0.88 x 0.739 */
  ck_assert_double_eq_tol(gb_perf_find(&p, "A100-SXM-80GB")->gemm_tflops, 312 * 0.88 * (585 / 989.5 / 0.80), 1e-9);
  ck_assert_int_eq(gb_perf_find(&p, "A100-SXM-80GB")->gemm_basis, GB_BASIS_VENDOR);
  ck_assert_int_eq(h100->gemm_basis, GB_BASIS_VENDOR);
  ck_assert_msg(strstr(p.notes.data, "H100-SXM-80GB: GEMM rows at bf16 exist only in the burst window, none in the "
                                     "sustained one (metric tflops_sustained or tops_sustained)"),
                "%s", p.notes.data);
  ck_assert(strstr(p.notes.data, "gemm.window=sustained"));
  gb_perf_free(&p);

  /* at 8192^3 exactly: the throttled sustained point, 630 */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 8192, true, &p), GB_OK);
  ck_assert_double_eq_tol(gb_perf_find(&p, "H200-SXM-141GB")->gemm_tflops, 630, 1e-9);
  gb_perf_free(&p);

  /* int8: TOP/s rows of the sustained window count; the burst window has none */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "int8", 8192, true, &p), GB_OK);
  ck_assert(gb_perf_find(&p, "H200-SXM-141GB")->gemm_measured);
  ck_assert_double_eq_tol(gb_perf_find(&p, "H200-SXM-141GB")->gemm_tflops, 1300, 1e-9);
  gb_perf_free(&p);
  ck_assert_int_eq(gb_perf_build(&specs, &m, "int8", 8192, false, &p), GB_OK);
  ck_assert(!gb_perf_find(&p, "H200-SXM-141GB")->gemm_measured);
  ck_assert_msg(strstr(p.notes.data, "H200-SXM-141GB: GEMM rows at int8 exist only in the sustained window, none in "
                                     "the burst one (metric tflops or tops)"),
                "%s", p.notes.data);
  gb_perf_free(&p);
  gb_results_free(&m);
  gb_specs_free(&specs);
}
END_TEST

/* The workload key (and flag) gemm_window: burst by default, sustained, and
 * a bad value named with its file and line. */
START_TEST(test_workload_gemm_window) {
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_set(&w, "type", "generic", "--type", 0), GB_OK);
  ck_assert_int_eq(gb_workload_set(&w, "total_flops", "1e21", "--total-flops", 0), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert(!w.gemm_sustained);
  ck_assert_int_eq(gb_workload_set(&w, "gemm_window", "sustained", "w.ini:4", 4), GB_OK);
  ck_assert(w.gemm_sustained);
  ck_assert_int_eq(gb_workload_set(&w, "gemm_window", "burst", "--gemm-window", 0), GB_OK);
  ck_assert(!w.gemm_sustained);
  ck_assert_int_eq(gb_workload_set(&w, "gemm_window", "long", "w.ini:4", 4), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "w.ini:4: gemm_window: \"long\" is not burst or sustained"), "%s", gb_errmsg());
  gb_errclear();
}
END_TEST

/* ---- throttled rows: used where a point has no ok row ---- */

/* FAST, as on the H200 (a power cap holds the large GEMMs down): GEMM ok
 * only at 1024^3 (120; a throttled 50 there is ignored), throttled at 4096^3
 * (600) and 8192^3 (700), and an ok speedup row (not a rate); triad ok at
 * 1 MiB (2200) but throttled at 1 GiB (1700); all-reduce on 8 GPUs ok at
 * 1 MB (40), throttled at 25 MB (200).
 * SLOW: ok rows (GEMM 400, triad 1800, all-reduce 200) beside throttled
 * ones at the same points (100, 900, 100) that must be ignored. */
static const char *k_measured_throttled =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,1024,1024,1024,,tflops,TFLOP/s,120,1,120,120,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,1024,1024,1024,,tflops,TFLOP/s,50,1,50,50,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,4096,4096,4096,,tflops,TFLOP/s,600,1,600,600,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,700,1,700,700,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16_vs_fp32,bf16,8192,8192,8192,,speedup,x,14,1,14,14,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,1048576,gbps,GB/s,2200,1,2200,2200,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1700,1,1700,1700,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,8,1,1,collective,all_reduce,bf16,,,,1000000,busbw_gbps,GB/s,40,1,40,40,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,200,1,200,200,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,400,1,400,400,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,100,1,100,100,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,900,1,900,900,0,throttled,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,200,1,200,200,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,100,1,100,100,0,throttled,,,,,\n";

START_TEST(test_perf_throttled_points) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read(tmp_file("specs.csv", k_specs), &specs), GB_OK);
  gb_results m = {0};
  ck_assert_int_eq(gb_results_read_mem("m.csv", k_measured_throttled, strlen(k_measured_throttled), &m), GB_OK);
  gb_perf p;
  /* 4096 x sqrt(2) is halfway between 4096 and 8192 in log size: FAST
   * (600 + 700) / 2 = 650 from its throttled shapes (not the ok 1024^3 alone:
   * 120 clamped); SLOW its ok 400 (the throttled 100 there ignored) */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 4096 * sqrt(2.0), false, &p), GB_OK);
  const gb_perf_type *f = gb_perf_find(&p, "FAST-SXM-100GB"), *s = gb_perf_find(&p, "SLOW-SXM-100GB");
  ck_assert(f->gemm_measured && f->gemm_throttled);
  ck_assert_double_eq_tol(f->gemm_tflops, 650, 1e-9);
  /* the largest triad size, 1 GiB, has only a throttled row: 1700 (not the ok 2200 at 1 MiB) */
  ck_assert(f->hbm_measured && f->hbm_throttled);
  ck_assert_double_eq_tol(f->hbm_gbps, 1700, 1e-9);
  /* the 8-GPU curve: ok 40 at 1 MB, throttled 200 at 25 MB */
  ck_assert(f->comm_throttled);
  ck_assert_uint_eq(f->ncurves, 1);
  ck_assert_uint_eq(f->curves[0].n, 2);
  ck_assert_double_eq_tol(f->curves[0].busbw_gbps[0], 40, 1e-9);
  ck_assert_double_eq_tol(f->curves[0].busbw_gbps[1], 200, 1e-9);
  ck_assert(s->gemm_measured && !s->gemm_throttled && !s->hbm_throttled && !s->comm_throttled);
  ck_assert_double_eq_tol(s->gemm_tflops, 400, 1e-9);
  ck_assert_double_eq_tol(s->hbm_gbps, 1800, 1e-9);
  ck_assert_uint_eq(s->curves[0].n, 1); /* the throttled 100 is not merged into the ok 200 */
  ck_assert_double_eq_tol(s->curves[0].busbw_gbps[0], 200, 1e-9);
  /* throttled figures count as measured for the ratios: GEMM (650/1000 + 400/1000) / 2 = 0.525;
   * HBM (1700/2000 + 1800/2000) / 2 = 0.875 */
  ck_assert_uint_eq(p.gemm_ratio_types, 2);
  ck_assert_double_eq_tol(p.gemm_ratio, 0.525, 1e-12);
  ck_assert_double_eq_tol(p.hbm_ratio, 0.875, 1e-12);
  /* rows used: FAST 3 GEMM shapes (the ignored 50 not counted) + 1 triad + 2 all-reduce,
   * SLOW 1 + 1 + 1: 9 */
  ck_assert_uint_eq(p.measured_rows_used, 9);
  ck_assert(strstr(p.notes.data, "FAST-SXM-100GB: the bf16 GEMM rate 650.0 TFLOP/s at size 5792.62 rests on "
                                 "throttled rows") != NULL);
  ck_assert(strstr(p.notes.data, "FAST-SXM-100GB: the HBM rate 1700 GB/s rests on throttled membw rows") != NULL);
  ck_assert(strstr(p.notes.data, "FAST-SXM-100GB: some all-reduce busbw points rest on throttled rows") != NULL);
  ck_assert(strstr(p.notes.data, "SLOW-SXM-100GB") == NULL);
  ck_assert_str_eq(gb_perf_basis_name(f->gemm_measured, f->gemm_throttled), "measured-throttled");
  ck_assert_str_eq(gb_perf_basis_name(s->gemm_measured, s->gemm_throttled), "measured");
  ck_assert_str_eq(gb_perf_basis_name(false, false), "projected");
  gb_perf_free(&p);
  /* at 1024 the ok shape itself: 120, not throttled; at 2048, halfway between
   * 1024 (ok 120) and 4096 (throttled 600) in log size: 360, resting on a
   * throttled neighbour */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 1024, false, &p), GB_OK);
  f = gb_perf_find(&p, "FAST-SXM-100GB");
  ck_assert(f->gemm_measured && !f->gemm_throttled);
  ck_assert_double_eq_tol(f->gemm_tflops, 120, 1e-9);
  gb_perf_free(&p);
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 2048, false, &p), GB_OK);
  f = gb_perf_find(&p, "FAST-SXM-100GB");
  ck_assert(f->gemm_throttled);
  ck_assert_double_eq_tol(f->gemm_tflops, 360, 1e-9);
  gb_perf_free(&p);
  gb_results_free(&m);
  gb_specs_free(&specs);

  /* the plan marks rows built on throttled figures, on screen and in the CSV */
  world x;
  world_load_measured(&x,
                      "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
                      "P,on-demand,SLOW-SXM-100GB,8,2,,2026-01-01,s,V\n",
                      k_train, k_measured_throttled);
  gb_plan plan;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &plan), GB_OK);
  /* FAST x8 (gemm_size 8192: 700 TFLOP/s, throttled; busbw 200 at the 25 MB bucket, throttled): steps 1e4;
   * t_comp = 6e9 x 1e6 / (8 x 700e12 x 0.5) = 2.142857 s; t_mem = 16e9 / 1700e9 = 0.0094 s;
   * t_ar = 2 x 7/8 x 2e9 / 200e9 = 0.0175 s; hours = 1e4 x (6/2.8 + 0.0175) / 3600 */
  const gb_plan_row *r = find_row(&plan, "FAST-SXM-100GB", "P", 8);
  ck_assert(r->feasible && !r->projected && r->throttled);
  ck_assert_double_eq_tol(r->hours, 1e4 * (6.0 / 2.8 + 0.0175) / 3600, 1e-9);
  ck_assert_str_eq(gb_plan_basis_name(r), "measured-throttled");
  /* one GPU: no all-reduce, still throttled GEMM and HBM */
  ck_assert_str_eq(gb_plan_basis_name(find_row(&plan, "FAST-SXM-100GB", "P", 1)), "measured-throttled");
  /* 16 GPUs over two nodes: the cross-node busbw is a projection, shown as the
   * communication figure's basis; the row's basis is its GEMM and HBM figures' */
  ck_assert_str_eq(gb_plan_basis_name(find_row(&plan, "FAST-SXM-100GB", "P", 16)), "measured-throttled");
  ck_assert(find_row(&plan, "FAST-SXM-100GB", "P", 16)->projected);
  /* SLOW: ok figures only */
  ck_assert_str_eq(gb_plan_basis_name(find_row(&plan, "SLOW-SXM-100GB", "P", 8)), "measured");
  char csv[4200];
  snprintf(csv, sizeof csv, "%s/plan-throttled.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_csv(&plan, csv), GB_OK);
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(csv, &t), GB_OK);
  size_t cg = gb_csv_col(&t, "gpu_type"), cn = gb_csv_col(&t, "gpu_count"), cb = gb_csv_col(&t, "basis");
  size_t seen = 0;
  for (size_t i = 0; i < t.nrows; i++) {
    const char *type = gb_csv_cell(&t, i, cg), *n = gb_csv_cell(&t, i, cn), *basis = gb_csv_cell(&t, i, cb);
    if (strcmp(n, "8") != 0) continue;
    ck_assert_str_eq(basis, strcmp(type, "FAST-SXM-100GB") == 0 ? "measured-throttled" : "measured");
    seen++;
  }
  ck_assert_uint_eq(seen, 2);
  gb_csv_free(&t);
  gb_plan_free(&plan);
  world_free(&x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner");
  TCase *tc;
  tc = tcase_create("readers");
  tcase_add_loop_test(tc, test_prices_bad, 0, sizeof k_bad_prices / sizeof k_bad_prices[0]);
  tcase_add_test(tc, test_prices_good);
  tcase_add_loop_test(tc, test_workload_bad, 0, sizeof k_bad_ini / sizeof k_bad_ini[0]);
  tcase_add_test(tc, test_workload_defaults_and_flags);
  tcase_add_test(tc, test_opts_bad);
  tcase_add_test(tc, test_measured_dir_empty);
  suite_add_tcase(s, tc);
  tc = tcase_create("figures");
  tcase_add_test(tc, test_perf_fixture);
  tcase_add_test(tc, test_perf_ignores_settings_rows);
  tcase_add_test(tc, test_perf_gemm_window);
  tcase_add_test(tc, test_perf_ignores_unsupported);
  tcase_add_test(tc, test_perf_measured_power);
  tcase_add_test(tc, test_workload_gemm_window);
  tcase_add_test(tc, test_perf_throttled_points);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
