/* Tests for the planner: prices and workload readers (each bad input names
 * file:line:field), the performance model over a measured fixture, the time
 * and cost model against hand-computed scenarios, and ranking properties. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_plan.h"
#include "testutil.h"

#define TOL 1e-9

/* ---- helpers: small inputs written to a temporary directory ---- */

static const char *tmp_file(const char *name, const char *text) {
  static char path[8][4200];
  static int slot;
  char *p = path[slot++ % 8];
  snprintf(p, 4200, "%s/%s", gb_test_tmpdir(), name);
  ck_assert_int_eq(gb_test_write(p, text, strlen(text)), 0);
  return p;
}

/* Two test GPUs, identical but for the name: BF16 1000 TFLOP/s, 100 GB,
 * 2000 GB/s, 500 W, 400 GB/s interconnect. */
static const char *k_specs =
    "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
    "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,source,date\n"
    "FAST-SXM-100GB,fast,,,,,1000,1000,,,100,2000,500,400,test,2026-12-01\n"
    "SLOW-SXM-100GB,slow,,,,,1000,1000,,,100,2000,500,400,test,2026-12-01\n";

static const char *k_prices_header =
    "provider,offering,gpu_type,gpus_per_node,price_usd_per_gpu_hour,purchase_usd_per_gpu,date,source,confidence\n";

/* Measured: FAST sustains 800 TFLOP/s BF16 at 8192^3, 1800 GB/s triad,
 * 200 GB/s all-reduce busbw on 8 GPUs at 25 MB; SLOW 400 TFLOP/s, same rest. */
static const char *k_measured =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,1,800,800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,200,1,200,200,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,400,1,400,400,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,200,1,200,200,0,ok,,,,,\n";

typedef struct world {
  gb_specs specs;
  gb_prices prices;
  gb_results measured;
  gb_perf perf;
  gb_workload w;
  gb_plan_opts o;
} world;

static void world_load_measured(world *x, const char *prices_body, const char *workload_ini, const char *measured) {
  memset(x, 0, sizeof *x);
  ck_assert_int_eq(gb_specs_read(tmp_file("specs.csv", k_specs), &x->specs), GB_OK);
  char prices[4096];
  snprintf(prices, sizeof prices, "%s%s", k_prices_header, prices_body);
  ck_assert_msg(gb_prices_read(tmp_file("prices.csv", prices), &x->specs, &x->prices) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_results_read_mem("measured.csv", measured, strlen(measured), &x->measured), GB_OK);
  gb_workload_init(&x->w);
  ck_assert_msg(gb_workload_read_mem("w.ini", workload_ini, &x->w) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_workload_finish(&x->w) == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(gb_perf_build(&x->specs, &x->measured, x->w.precision, x->w.gemm_size, x->w.gemm_sustained, &x->perf), GB_OK);
  gb_plan_opts_default(&x->o);
  /* the hand-computed scenarios: a fixed efficiency, no overlap, the median
   * of each band, and nodes whose NICs give a ring 50 GB/s per GPU across
   * nodes (8 GPUs x 6.94 GB/s x 0.9 efficiency) */
  x->o.mfu = 0.5;
  x->o.overlap = 0;
  x->o.rank_by = GB_RANK_MEDIAN;
  x->o.nic_gbps = 50.0 / 0.9 / 8;
  x->o.today = "2026-12-04";
  x->o.max_gpus = 16;
}

static void world_load(world *x, const char *prices_body, const char *workload_ini) {
  world_load_measured(x, prices_body, workload_ini, k_measured);
}

static void world_free(world *x) {
  gb_perf_free(&x->perf);
  gb_results_free(&x->measured);
  gb_prices_free(&x->prices);
  gb_specs_free(&x->specs);
}

static const gb_plan_row *find_row(const gb_plan *p, const char *type, const char *provider, int n) {
  for (size_t i = 0; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (strcmp(r->perf->spec->gpu_type, type) == 0 && r->price && strcmp(r->price->provider, provider) == 0 &&
        r->gpu_count == n)
      return r;
  }
  return NULL;
}

/* 1e9 parameters, 1e10 tokens, 1e6 tokens per step, replicated state. */
static const char *k_train =
    "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nsharded = false\ngoodput = 1\n";

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
    {"type = training\nprecision = fp4\n", "w.ini:2: precision: \"fp4\""},
    {"[model]\ntype = training\n", "w.ini:2: [model]: unknown section"},
    {"type = training\nthis line has no equals sign\n", "w.ini:2: syntax error"},
    {"type = training\nparams = 1e9\nparams = 2e9\n", "w.ini:3: params: given twice (first on line 2)"},
    {"type = inference\nparams = 1e9\ntokens = 5\n", "w.ini:3: tokens: does not apply to a inference workload"},
    {"type = inference\nparams = 1e9\nbatch_size = 2.5\n", "w.ini:3: batch_size: must be a whole number"},
    {"type = training\ngoodput = 1.5\n", "w.ini:2: goodput: absurd value 1.5"},
    {"type = training\ngoodput = 0\n", "w.ini:2: goodput: must be > 0"},
    {"type = training\ntensor_parallel = 0\n", "w.ini:2: tensor_parallel: must be >= 1"},
    {"type = training\npipeline_parallel = 1.5\n", "w.ini:2: pipeline_parallel: must be a whole number"},
    {"type = training\nrecompute = sometimes\n", "w.ini:2: recompute: \"sometimes\" is not true or false"},
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
    {"type = inference\nactivation_gb_per_gpu = 5\n", "w.ini:2: activation_gb_per_gpu: does not apply to a inference"},
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
    {"type = inference\nexpert_parallel = 8\n", "w.ini:2: expert_parallel: does not apply to a inference"},
    {"type = training\nmoe_top_k = 0\n", "w.ini:2: moe_top_k: must be >= 1: 0"},
    {"type = training\nmoe_top_k = 1.5\n", "w.ini:2: moe_top_k: must be a whole number: 1.5"},
    {"type = training\nmoe_top_k = 65\n", "w.ini:2: moe_top_k: absurd value 65 (above 64)"},
    {"type = generic\nmoe_top_k = 2\ntotal_flops = 1\n", "w.ini:2: moe_top_k: does not apply to a generic"},
    {"type = training\nseq_len = 0\n", "w.ini:2: seq_len: must be >= 1: 0"},
    {"type = training\nseq_len = 2048.5\n", "w.ini:2: seq_len: must be a whole number"},
    {"type = training\nmicro_batch = 0\n", "w.ini:2: micro_batch: must be >= 1: 0"},
    {"type = training\nmicro_batch = x\n", "w.ini:2: micro_batch: not a number: \"x\""},
    {"type = inference\nmicro_batch = 4\n", "w.ini:2: micro_batch: does not apply to a inference"},
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
  ck_assert_double_eq_tol(w.flops_per_token, 6 * 7e9, 1);        /* 6 x params */
  ck_assert_double_eq_tol(w.grad_bytes, 7e9 * 2, 1);             /* bf16 gradients: 2 B */
  ck_assert_double_eq_tol(w.memory_bytes_per_param, 16, TOL);   /* mixed-precision Adam */
  ck_assert_double_eq_tol(w.tokens_per_step, 2097152, TOL);
  ck_assert_double_eq_tol(gb_workload_total_flops(&w), 4.2e22, 1e9);
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

/* ---- hand-computed scenarios ---- */

START_TEST(test_training_hand) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", k_train);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  /* 8 GPUs, one node. state 1e9 x 16 B = 16 GB <= 90 GB usable; steps = 1e10/1e6 = 1e4
   * t_comp = 6e9 x 1e6 / (8 x 800e12 x 0.5) = 1.875 s
   * t_mem  = 16e9 / 1800e9 = 0.00889 s
   * t_ar   = 2 x 7/8 x 2e9 B / 200e9 = 0.0175 s (measured busbw at 8 GPUs, 25 MB bucket)
   * hours  = 1e4 x (1.875 + 0.0175) / 3600 = 5.2569444 h; cost = 5.2569444 x 8 x 2 = 84.1111 USD
   * efficiency = 6e9 x 1e10 / 1e15 = 6e4 PFLOP / 84.1111 = 713.3421 PFLOP/USD */
  const gb_plan_row *r = find_row(&p, "FAST-SXM-100GB", "P", 8);
  ck_assert_ptr_nonnull(r);
  ck_assert(r->feasible && !r->projected);
  ck_assert_double_eq_tol(r->hours, 1e4 * 1.8925 / 3600, 1e-9);
  ck_assert_double_eq_tol(r->cost_usd, 1e4 * 1.8925 / 3600 * 16, 1e-9);
  ck_assert_double_eq_tol(r->efficiency, 6e4 / (1e4 * 1.8925 / 3600 * 16), 1e-9);
  ck_assert_double_eq_tol(r->compute_hours, 1e4 * 1.875 / 3600, 1e-9);
  ck_assert_double_eq_tol(r->comm_hours, 1e4 * 0.0175 / 3600, 1e-9);
  ck_assert_int_eq(r->bottleneck, GB_BOUND_COMPUTE);
  /* 1 GPU on an 8-GPU node pays for the whole node: 1e4 x 15 s / 3600 = 41.667 h x 8 x 2 */
  r = find_row(&p, "FAST-SXM-100GB", "P", 1);
  ck_assert_int_eq(r->nodes, 1);
  ck_assert_double_eq_tol(r->cost_usd, 1e4 * 15.0 / 3600 * 16, 1e-9);
  /* 16 GPUs on 2 nodes: busbw capped at the 50 GB/s NIC, projected
   * t_ar = 2 x 15/16 x 2e9 / 50e9 = 0.075 s; t_comp = 0.9375 s
   * hours = 1e4 x 1.0125 / 3600 = 2.8125 h; cost = 2.8125 x 16 x 2 = 90 USD */
  r = find_row(&p, "FAST-SXM-100GB", "P", 16);
  ck_assert(r->projected);
  ck_assert_double_eq_tol(r->hours, 2.8125, 1e-9);
  ck_assert_double_eq_tol(r->cost_usd, 90, 1e-9);
  /* cheapest first: 8 GPUs (84.11) before 16 (90) and 4, 2, 1 (which pay a whole node) */
  ck_assert_ptr_eq(p.rows[0].perf, r->perf);
  ck_assert_int_eq(p.rows[0].gpu_count, 8);
  ck_assert_uint_eq(p.rows[0].rank, 1);
  /* the fastest is always on the Pareto frontier, and so is the cheapest */
  ck_assert(r->pareto && p.rows[0].pareto);
  /* the SLOW type runs at half the rate: 8 GPUs, t_comp 3.75 s */
  r = find_row(&p, "SLOW-SXM-100GB", "P", 8);
  ck_assert_ptr_null(r); /* no price row for SLOW */
  ck_assert_str_eq(p.oldest_price->date, "2026-01-01");
  gb_plan_free(&p);

  /* overlap 1: t_step = max(t_comp, t_mem) + 0 x t_ar = 1.875 s */
  x.o.overlap = 1;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "P", 8)->hours, 1e4 * 1.875 / 3600, 1e-9);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_constraints_and_reasons) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", k_train);
  /* deadline 3 h: only 16 GPUs (2.8125 h) make it; budget 85: 8 GPUs (84.11) */
  x.o.max_hours = 3;
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 1);
  ck_assert_int_eq(p.rows[0].gpu_count, 16);
  const gb_plan_row *r = find_row(&p, "FAST-SXM-100GB", "P", 8);
  ck_assert_int_eq(r->reject, GB_REJECT_DEADLINE);
  char reason[160];
  gb_plan_reason(r, reason, sizeof reason);
  ck_assert_str_eq(reason, "over deadline (5.3 h > 3.0 h)");
  ck_assert_uint_eq(r->rank, 0);
  gb_plan_free(&p);
  x.o.max_hours = NAN;
  x.o.budget_usd = 85;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 1);
  ck_assert_int_eq(p.rows[0].gpu_count, 8);
  gb_plan_reason(find_row(&p, "FAST-SXM-100GB", "P", 16), reason, sizeof reason);
  ck_assert_str_eq(reason, "over budget (90 USD > 85 USD)");
  /* SLOW has no price: one rejected row saying so */
  bool seen = false;
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].reject == GB_REJECT_NO_PRICE) {
      seen = true;
      ck_assert_str_eq(p.rows[i].perf->spec->gpu_type, "SLOW-SXM-100GB");
    }
  ck_assert(seen);
  gb_plan_free(&p);
  world_free(&x);

  /* memory: 1e10 params x 16 B = 160 GB replicated > 90 GB usable on every count */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nparams = 1e10\ntokens = 1e10\ntokens_per_step = 1e6\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 0);
  gb_plan_reason(find_row(&p, "FAST-SXM-100GB", "P", 8), reason, sizeof reason);
  ck_assert_str_eq(reason, "does not fit in memory (needs 160.0 GB per GPU, 90.0 GB usable)");
  gb_plan_free(&p);
  world_free(&x);
  /* sharded: 160 GB / 2 = 80 GB fits from 2 GPUs on */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nparams = 1e10\ntokens = 1e10\ntokens_per_step = 1e6\nsharded = true\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_int_eq(find_row(&p, "FAST-SXM-100GB", "P", 1)->reject, GB_REJECT_MEMORY);
  ck_assert(find_row(&p, "FAST-SXM-100GB", "P", 2)->feasible);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_owned_spot_breakeven) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "P,spot,FAST-SXM-100GB,8,1,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  /* owned: capex 20000 x 1.15 = 23000; fixed = 23000 x (1/4 + 0.10) / 8760 = 0.9189498 USD/h
   * energy = 0.5 kW x 1.3 (host) x 1.3 PUE x 0.10 USD/kWh = 0.0845 USD/h
   * per used hour at u = 0.6: 0.9189498 / 0.6 + 0.0845 = 1.6160830 */
  gb_owned_cost c = gb_plan_owned_cost(&x.prices.v[2], &x.specs.v[0], &x.o);
  ck_assert_double_eq_tol(c.fixed_usd_per_gpu_hour, 23000 * 0.35 / 8760, 1e-12);
  ck_assert_double_eq_tol(c.energy_usd_per_gpu_hour, 0.0845, 1e-12);
  ck_assert_double_eq_tol(c.usd_per_used_gpu_hour, 23000 * 0.35 / 8760 / 0.6 + 0.0845, 1e-12);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  ck_assert_double_eq_tol(own->amortized_usd, 1e4 * 1.8925 / 3600 * 8 * (23000 * 0.35 / 8760 / 0.6 + 0.0845), 1e-9);
  /* cash (the budget's default basis): capex 8 x 23000 + the job's energy and operations */
  double hrs = 1e4 * 1.8925 / 3600;
  ck_assert_double_eq_tol(own->capex_usd, 8 * 23000, 1e-9);
  ck_assert_double_eq_tol(own->cost_usd, 8 * 23000 + hrs * 8 * 0.0845 + 8 * 23000 * 0.10 * hrs / 8760, 1e-6);
  ck_assert_double_eq_tol(own->cash_usd, own->cost_usd, 1e-9);
  /* break-even: 23000 / (2 - 0.0845 - 23000 x 0.10 / 8760) hours of use */
  ck_assert_double_eq_tol(own->breakeven_hours, 23000 / (2 - 0.0845 - 2300.0 / 8760), 1e-6);
  /* spot, one node: lambda = 0.02/h, delta = 0.05 h, tau = sqrt(2 x 0.05 / 0.02) = 2.2360680 h
   * stretch = (1 + 0.05/2.2360680) / (1 - 0.02 x (0.25 + 1.1180340)) = 1.0223607 / 0.9726393 = 1.0511203 */
  const gb_plan_row *spot = NULL;
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].price && p.rows[i].price->offering == GB_OFFER_SPOT && p.rows[i].gpu_count == 8) spot = &p.rows[i];
  double tau = sqrt(5.0), stretch = (1 + 0.05 / tau) / (1 - 0.02 * (0.25 + tau / 2));
  ck_assert_double_eq_tol(stretch, 1.0511203, 1e-6);
  ck_assert_double_eq_tol(spot->hours, 1e4 * 1.8925 / 3600 * stretch, 1e-9);
  ck_assert_double_eq_tol(spot->cost_usd, spot->hours * 8 * 1, 1e-9);
  /* break-even against the cheapest non-spot rental (2 USD/h):
   * u* = 0.9189498 / (2 - 0.0845) = 0.4797441; x 8760 = 4202.56 h/year */
  gb_breakeven be[4];
  ck_assert_uint_eq(gb_plan_breakeven(&x.perf, &x.prices, &x.o, be, 4), 1);
  ck_assert_double_eq_tol(be[0].rent->price_usd_per_gpu_hour, 2, TOL);
  ck_assert_double_eq_tol(be[0].utilization_star, 23000 * 0.35 / 8760 / 1.9155, 1e-12);
  ck_assert_double_eq_tol(be[0].hours_per_year, 23000 * 0.35 / 1.9155, 1e-9);
  /* hybrid, 4 runs a year: the burst target is the cheapest rented row (spot x8,
   * 5.5257 h, 44.21 USD); owning 8 GPUs costs 8 x 0.9189 x 8760 = 64,400 USD a
   * year alone, far above 4 x 44.21: best owned base is 0 */
  gb_hybrid h[4];
  ck_assert_uint_eq(gb_plan_hybrid(&p, &x.perf, &x.prices, h, 4), 1);
  ck_assert_int_eq(h[0].owned_gpus, 0);
  ck_assert_ptr_eq(h[0].burst->price, spot->price);
  ck_assert_double_eq_tol(h[0].all_cloud_usd, 4 * spot->cost_usd, 1e-9);
  gb_plan_free(&p);
  gb_plan_free(&p);
  world_free(&x);
  /* 2000 runs a year bursting to on-demand 8 x 2 USD (84.1111 USD a run,
   * 168,222 USD a year): fixed = 0.9189498 USD/h, energy 0.0845 USD/h
   * owned 8:  T = 5.2569444 h, runs owned = floor(0.6 x 8760 / T) = 999
   *   8 x 0.9189498 x 8760 + 999 x T x 8 x 0.0845 + 1001 x 84.1111 = 152,145
   * owned 16: T = 2.8125 h, runs owned = floor(5256 / 2.8125) = 1868
   *   16 x 0.9189498 x 8760 + 1868 x 2.8125 x 16 x 0.0845 + 132 x 84.1111 = 147,006
   * owned 24: every run owned, 193,200 USD of fixed cost alone: dearer. Best: 16 */
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  x.o.jobs_per_year = 2000;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(gb_plan_hybrid(&p, &x.perf, &x.prices, h, 4), 1);
  double fixed = 23000 * 0.35 / 8760, run = 1e4 * 1.8925 / 3600 * 16;
  ck_assert_double_eq_tol(h[0].all_cloud_usd, 2000 * run, 1e-6);
  ck_assert_int_eq(h[0].owned_gpus, 16);
  ck_assert_double_eq_tol(h[0].jobs_owned, 1868, TOL);
  ck_assert_double_eq_tol(h[0].jobs_burst, 132, TOL);
  ck_assert_double_eq_tol(h[0].annual_cost_usd, 16 * fixed * 8760 + 1868 * 2.8125 * 16 * 0.0845 + 132 * run, 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_inference_generic_hand) {
  world x;
  /* 1e9 params bf16 = 2 GB of weights, batch 10, 1000 tokens/s for 100 h.
   * 1 GPU: t_comp = 2 x 1e9 x 10 / 400e12 = 5e-5 s; t_mem = 2e9 / 1800e9 = 1.111e-3 s
   * decode step 1.111e-3 s -> 10 / 1.111e-3 = 9000 tokens/s >= 1000
   * cost = 100 h x 8 GPUs (whole node) x 2 = 1600 USD
   * efficiency = 1000 x 100 x 3600 / 1e6 Mtok / 1600 = 0.225 Mtok/USD */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = inference\nparams = 1e9\ntokens_per_second = 1000\nbatch_size = 10\nserve_hours = 100\n");
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *r = find_row(&p, "FAST-SXM-100GB", "P", 1);
  ck_assert(r->feasible);
  ck_assert_double_eq_tol(r->hours, 100, TOL);
  ck_assert_double_eq_tol(r->cost_usd, 1600, 1e-9);
  ck_assert_double_eq_tol(r->efficiency, 0.225, 1e-12);
  ck_assert_int_eq(r->bottleneck, GB_BOUND_MEMORY);
  ck_assert_str_eq(p.efficiency_unit, "Mtok/USD");
  gb_plan_free(&p);
  world_free(&x);
  /* 20000 tokens/s: 1 and 2 GPUs (9000, 18000) too slow; 4 GPUs serve 36000 */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = inference\nparams = 1e9\ntokens_per_second = 20000\nbatch_size = 10\nserve_hours = 100\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  char reason[160];
  gb_plan_reason(find_row(&p, "FAST-SXM-100GB", "P", 2), reason, sizeof reason);
  ck_assert_str_eq(reason, "too slow (serves 18000 tokens/s, needs 20000)");
  ck_assert(find_row(&p, "FAST-SXM-100GB", "P", 4)->feasible);
  gb_plan_free(&p);
  world_free(&x);
  /* generic: 1e18 FLOPs, 1e15 B, 100 all-reduces of 1 GB on 8 GPUs
   * t_comp = 1e18 / (8 x 400e12) = 312.5 s; t_mem = 1e15 / (8 x 1800e9) = 69.4 s
   * t_ar = 2 x 7/8 x 1e9 / 200e9 = 8.75e-3 s (one measured size: clamped) x 100 = 0.875 s
   * hours = (312.5 + 0.875) / 3600 */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = generic\ntotal_flops = 1e18\ntotal_bytes = 1e15\nallreduce_bytes = 1e9\n"
             "allreduce_count = 100\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  r = find_row(&p, "FAST-SXM-100GB", "P", 8);
  ck_assert_double_eq_tol(r->hours, 313.375 / 3600, 1e-12);
  ck_assert_double_eq_tol(r->memory_hours, 1e15 / (8 * 1800e9) / 3600, 1e-12);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* ---- properties ---- */

static const char *k_two_types =
    "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
    "P,on-demand,SLOW-SXM-100GB,8,2,,2026-01-01,s,V\n"
    "P,spot,FAST-SXM-100GB,8,1.2,,2026-01-01,s,V\n"
    "P,spot,SLOW-SXM-100GB,8,1.2,,2026-01-01,s,V\n"
    "Q,on-demand,FAST-SXM-100GB,1,2.4,,2026-01-01,s,V\n"
    "Q,on-demand,SLOW-SXM-100GB,1,2.4,,2026-01-01,s,V\n"
    "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n";

START_TEST(test_property_budget_monotone) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.max_gpus = 64;
  double budgets[] = {30, 60, 85, 100, 200, 1000, 1e6};
  gb_plan prev = {0};
  for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
    x.o.budget_usd = budgets[b];
    gb_plan p;
    ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
    if (b) {
      ck_assert_uint_ge(p.nfeasible, prev.nfeasible);
      for (size_t i = 0; i < prev.nfeasible; i++) {
        const gb_plan_row *q = &prev.rows[i];
        bool still = false;
        for (size_t j = 0; j < p.nfeasible && !still; j++)
          still = p.rows[j].price == q->price && p.rows[j].gpu_count == q->gpu_count;
        ck_assert_msg(still, "budget %g removed %s x%d", budgets[b], q->perf->spec->gpu_type, q->gpu_count);
      }
    }
    gb_plan_free(&prev);
    prev = p;
  }
  ck_assert_uint_gt(prev.nfeasible, 0);
  gb_plan_free(&prev);
  world_free(&x);
}
END_TEST

START_TEST(test_property_double_prices) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.max_gpus = 64;
  gb_plan base, twice;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &base), GB_OK);
  /* every price doubled: rates, purchase prices and the electricity tariff */
  for (size_t i = 0; i < x.prices.n; i++) {
    x.prices.v[i].price_usd_per_gpu_hour *= 2;
    x.prices.v[i].purchase_usd_per_gpu *= 2;
  }
  x.o.electricity_usd_per_kwh *= 2;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &twice), GB_OK);
  ck_assert_uint_eq(base.nfeasible, twice.nfeasible);
  size_t checked = 0;
  for (size_t i = 0; i < base.nfeasible; i++) {
    const gb_plan_row *a = &base.rows[i];
    for (size_t j = 0; j < twice.n; j++) {
      const gb_plan_row *b = &twice.rows[j];
      if (b->price != a->price || b->gpu_count != a->gpu_count) continue;
      ck_assert_double_eq_tol(b->efficiency, a->efficiency / 2, a->efficiency * 1e-12);
      ck_assert_double_eq_tol(b->cost_usd, a->cost_usd * 2, a->cost_usd * 1e-12);
      ck_assert_uint_eq(b->rank, a->rank); /* the order does not change */
      checked++;
    }
  }
  ck_assert_uint_eq(checked, base.nfeasible);
  gb_plan_free(&base);
  gb_plan_free(&twice);
  world_free(&x);
}
END_TEST

START_TEST(test_property_faster_ranks_higher) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.max_gpus = 64;
  gb_objective objs[] = {GB_OBJ_COST, GB_OBJ_TIME, GB_OBJ_EFFICIENCY};
  for (int k = 0; k < 3; k++) {
    x.o.objective = objs[k];
    gb_plan p;
    ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
    ck_assert_uint_gt(p.nfeasible, 0);
    /* FAST (800 TFLOP/s measured) and SLOW (400) at the same offering and count */
    for (size_t i = 0; i < p.nfeasible; i++) {
      const gb_plan_row *s = &p.rows[i];
      if (strcmp(s->perf->spec->gpu_type, "SLOW-SXM-100GB") != 0) continue;
      bool found = false;
      for (size_t j = 0; j < p.n; j++) {
        const gb_plan_row *f = &p.rows[j];
        if (strcmp(f->perf->spec->gpu_type, "FAST-SXM-100GB") != 0 || !f->price ||
            strcmp(f->price->provider, s->price->provider) != 0 || f->price->offering != s->price->offering ||
            f->gpus_per_node != s->gpus_per_node || f->gpu_count != s->gpu_count)
          continue;
        found = true;
        ck_assert(f->feasible);
        ck_assert_msg(f->rank < s->rank, "objective %d: FAST x%d rank %zu below SLOW rank %zu", k, f->gpu_count,
                      f->rank, s->rank);
      }
      ck_assert(found);
    }
    gb_plan_free(&p);
  }
  world_free(&x);
}
END_TEST

START_TEST(test_sensitivity_and_csv) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.budget_usd = 85; /* some rows rejected, listed after the ranked ones */
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_lt(p.nfeasible, p.n);
  gb_sensitivity_row s[GB_SENSITIVITY_ROWS];
  ck_assert_int_eq(gb_plan_sensitivity(&x.w, &x.perf, &x.prices, &x.o, s), GB_OK);
  ck_assert_str_eq(s[0].factor, "base");
  ck_assert(s[0].has_top && !s[0].changed);
  ck_assert_ptr_eq(s[0].top.price, p.rows[0].price);
  /* every price x 1.2 scales every cost alike: same top, 1.2 x cost */
  ck_assert_str_eq(s[2].factor, "price");
  ck_assert_double_eq_tol(s[2].change_pct, 20, TOL);
  ck_assert(!s[2].changed);
  ck_assert_double_eq_tol(s[2].top.cost_usd, s[0].top.cost_usd * 1.2, 1e-9);
  const char *dir = gb_test_tmpdir();
  char plan_csv[4200], sens_csv[4200];
  snprintf(plan_csv, sizeof plan_csv, "%s/plan.csv", dir);
  snprintf(sens_csv, sizeof sens_csv, "%s/sens.csv", dir);
  ck_assert_int_eq(gb_plan_write_csv(&p, plan_csv), GB_OK);
  ck_assert_int_eq(gb_plan_write_sensitivity_csv(s, GB_SENSITIVITY_ROWS, sens_csv), GB_OK);
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(plan_csv, &t), GB_OK);
  ck_assert_uint_eq(t.nrows, p.n);
  /* the 33 columns of before, in their places, then issue 27's, then the
   * GPUs' assumed life (issue 24: the report weighs break-even against it) */
  ck_assert_uint_eq(t.ncols, 59);
  ck_assert_str_eq(gb_csv_header(&t, 58), "amortization_years");
  ck_assert_str_eq(gb_csv_cell(&t, 0, 58), "4");
  ck_assert_str_eq(gb_csv_header(&t, 33), "capex_usd");
  ck_assert_str_eq(gb_csv_header(&t, 34), "amortized_usd");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "budget_basis")), "cash");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "gemm_basis")), "measured");
  ck_assert_str_eq(gb_csv_header(&t, 0), "rank");
  ck_assert_str_eq(gb_csv_header(&t, 30), "workload");
  ck_assert_str_eq(gb_csv_header(&t, 31), "precision");
  ck_assert_str_eq(gb_csv_header(&t, 32), "gemm_window");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "rank")), "1");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "feasible")), "yes");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "basis")), "measured");
  ck_assert_str_eq(gb_csv_cell(&t, t.nrows - 1, gb_csv_col(&t, "rank")), "");
  ck_assert_str_eq(gb_csv_cell(&t, t.nrows - 1, gb_csv_col(&t, "feasible")), "no");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "workload")), "w");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "precision")), p.workload->precision);
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "gemm_window")), "burst");
  gb_csv_free(&t);
  ck_assert_int_eq(gb_csv_read_file(sens_csv, &t), GB_OK);
  ck_assert_uint_eq(t.nrows, 5);
  ck_assert_str_eq(gb_csv_header(&t, 8), "changed");
  ck_assert_str_eq(gb_csv_cell(&t, 2, 1), "20");
  gb_csv_free(&t);
  gb_plan_free(&p);
  world_free(&x);
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

/* ---- issue 27: bases, bands, money, filters, outputs ---- */

/* Three architectures: N1 (hopper, measured), N2 (ampere, NVIDIA: projected
 * within the vendor), A1 (cdna3, AMD: projected across vendors). */
static const char *k_specs_arch =
    "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
    "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,nics_per_node,nic_gbit,source,date\n"
    "N1-SXM-100GB,n1,,,,,1000,1000,,,100,2000,500,400,hopper,8,400,test,2026-12-01\n"
    "N2-SXM-100GB,n2,,,,,500,500,,,100,2000,500,400,ampere,8,200,test,2026-12-01\n"
    "A1-OAM-100GB,a1,,,,,1000,1000,,,100,2000,500,400,cdna3,8,400,test,2026-12-01\n";

static const char *k_measured_n1 =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
    "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,1,800,800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,4294967296,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n";

START_TEST(test_bases_and_bands) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), &specs), GB_OK);
  ck_assert_str_eq(specs.v[0].arch, "hopper");
  ck_assert_double_eq_tol(specs.v[1].nic_gbit, 200, TOL);
  gb_results m = {0};
  ck_assert_int_eq(gb_results_read_mem("m.csv", k_measured_n1, strlen(k_measured_n1), &m), GB_OK);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 8192, false, &p), GB_OK);
  const gb_perf_type *n1 = gb_perf_find(&p, "N1-SXM-100GB"), *n2 = gb_perf_find(&p, "N2-SXM-100GB"),
                     *a1 = gb_perf_find(&p, "A1-OAM-100GB");
  /* measured: the figure, +-3% */
  ck_assert_int_eq(n1->gemm_basis, GB_BASIS_MEASURED);
  ck_assert_str_eq(gb_basis_name(n1->gemm_basis), "measured");
  ck_assert_double_eq_tol(n1->gemm_tflops, 800, TOL);
  ck_assert_double_eq_tol(n1->gemm_band, GB_BAND_MEASURED, TOL);
  /* within the vendor: c = 800/1000/0.80 = 1; N2 = 500 x Ampere's 0.88 x 1 = 440, +-10% */
  ck_assert_int_eq(n2->gemm_basis, GB_BASIS_VENDOR);
  ck_assert_str_eq(gb_basis_name(n2->gemm_basis), "projected-vendor");
  ck_assert_double_eq_tol(n2->gemm_tflops, 440, 1e-9);
  ck_assert_double_eq_tol(n2->gemm_band, GB_BAND_VENDOR, TOL);
  ck_assert_double_eq_tol(n2->hbm_gbps, 1800, 1e-9); /* 2000 x 1800/2000 */
  /* across vendors: 1000 x CDNA3's 0.60 x 1 = 600, +-20% */
  ck_assert_int_eq(a1->gemm_basis, GB_BASIS_CROSS);
  ck_assert_str_eq(gb_basis_name(a1->gemm_basis), "projected-cross-vendor");
  ck_assert_double_eq_tol(a1->gemm_tflops, 600, 1e-9);
  ck_assert_double_eq_tol(a1->gemm_band, GB_BAND_CROSS, TOL);
  ck_assert_double_eq_tol(a1->nic_node_gbps, 8 * 400 / 8.0, TOL);
  gb_perf_free(&p);
  /* nothing measured: datasheet, +-25% */
  ck_assert_int_eq(gb_perf_build(&specs, NULL, "bf16", 8192, false, &p), GB_OK);
  ck_assert_int_eq(gb_perf_find(&p, "N1-SXM-100GB")->gemm_basis, GB_BASIS_DATASHEET);
  ck_assert_str_eq(gb_basis_name(GB_BASIS_DATASHEET), "datasheet");
  ck_assert_double_eq_tol(gb_perf_find(&p, "N1-SXM-100GB")->gemm_tflops, 800, 1e-9); /* 1000 x 0.80 */
  ck_assert_str_eq(gb_basis_name(GB_BASIS_THROTTLED), "measured-throttled");
  gb_perf_free(&p);
  /* the time band: every figure at -band and +band; a training job's hours scale with 1/rate */
  ck_assert_int_eq(gb_perf_build(&specs, &m, "bf16", 8192, false, &p), GB_OK);
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", k_train, &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  gb_plan_time t;
  gb_plan_time_of(&w, &p, gb_perf_find(&p, "N2-SXM-100GB"), 1, 8, &o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_int_eq(t.basis, GB_BASIS_VENDOR);
  ck_assert_double_eq_tol(t.hours_high / t.hours, 1 / 0.9, 1e-9);
  ck_assert_double_eq_tol(t.hours_low / t.hours, 1 / 1.1, 1e-9);
  /* efficiency from the table: Ampere at 1e9 parameters 0.58 of peak = 0.58/0.88 of the GEMM rate */
  ck_assert_double_eq_tol(t.eta, 0.58 / 0.88, 1e-12);
  gb_perf_free(&p);
  gb_results_free(&m);
  gb_specs_free(&specs);
}
END_TEST

/* The time model's parts against hand numbers: FP8 on the GEMM share only,
 * recompute, goodput, the pipeline bubble, hierarchical busbw, layouts. */
START_TEST(test_time_model_parts) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), &specs), GB_OK);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&specs, NULL, "bf16", 8192, false, &p), GB_OK);
  const gb_perf_type *n1 = gb_perf_find(&p, "N1-SXM-100GB");
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.mfu = 0.5;
  o.overlap = 0;
  gb_workload w;
  gb_plan_time t, t2;
  /* 1 GPU: t_comp = 6e9 x 1e6 / (800e12 x 0.5) = 15 s a step, 1e4 steps; goodput 0.85 stretches it */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert_double_eq_tol(w.goodput, 0.85, TOL);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * 15 / 3600.0, 1e-9);
  ck_assert_double_eq_tol(t.hours, 1e4 * 15 / 3600.0 / 0.85, 1e-6);
  ck_assert_double_eq_tol(t.goodput_hours, 1e4 * 15 / 3600.0 * (1 / 0.85 - 1), 1e-6);
  /* recompute: 4/3 of the work */
  ck_assert_int_eq(gb_workload_set(&w, "recompute", "true", "t", 0), GB_OK);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t2);
  ck_assert_double_eq_tol(t2.compute_hours / t.compute_hours, 4.0 / 3.0, 1e-9);
  gb_perf_free(&p);

  /* FP8: only the GEMM share (Hopper at 1e9 parameters: 0.70) runs at the FP8 rate */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nprecision = fp8e4m3\nparams = 1e9\ntokens = 1e10\n"
                                                 "tokens_per_step = 1e6\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  static const char *fp8_specs =
      "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
    "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,nics_per_node,nic_gbit,source,date\n"
      "N1-SXM-100GB,n1,,,,,1000,1000,2000,,100,2000,500,400,hopper,,,test,2026-12-01\n";
  gb_specs s8;
  ck_assert_int_eq(gb_specs_read_mem("s8.csv", fp8_specs, strlen(fp8_specs), &s8), GB_OK);
  ck_assert_int_eq(gb_perf_build(&s8, NULL, "fp8e4m3", 8192, false, &p), GB_OK);
  n1 = gb_perf_find(&p, "N1-SXM-100GB");
  ck_assert_double_eq_tol(n1->gemm_tflops, 1600, 1e-9);
  ck_assert_double_eq_tol(n1->gemm_base_tflops, 800, 1e-9);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  /* 15 s at BF16 x (0.30 + 0.70 x 800/1600) = 9.75 s, not 7.5 */
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * 9.75 / 3600, 1e-9);
  gb_perf_free(&p);
  gb_specs_free(&s8);

  /* layouts: TP 8 with PP 2 needs 16, 32, ... GPUs; TP wider than a node is rejected */
  ck_assert_int_eq(gb_perf_build(&specs, NULL, "bf16", 8192, false, &p), GB_OK);
  n1 = gb_perf_find(&p, "N1-SXM-100GB");
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                                                 "tensor_parallel = 8\npipeline_parallel = 2\ngoodput = 1\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  gb_plan_time_of(&w, &p, n1, 8, 8, &o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_LAYOUT);
  gb_plan_time_of(&w, &p, n1, 16, 4, &o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_LAYOUT);
  gb_plan_time_of(&w, &p, n1, 16, 8, &o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  /* bubble: dp 1, micro-batches 1e6 / 2048 = 488.28; (pp - 1) / 488.28 of compute */
  ck_assert_double_eq_tol(t.bubble_hours / t.compute_hours, 1 / (1e6 / 2048), 1e-9);
  ck_assert(t.tp_hours > 0);
  /* derived shape: hidden = cbrt(1e9 x 128 / 12) */
  ck_assert_double_eq_tol(w.hidden_size, round(cbrt(1e9 * 128 / 12)), TOL);

  /* hierarchical all-reduce: 16 GPUs on 2 nodes of 8 NICs x 400 Gb/s: busbw = min(in-node 160 (400/2 x 0.8),
   * 8 x 50 x 0.9 = 360) = 160; on nodes of 1 NIC x 400 Gb/s: 50 x 0.9 = 45 */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                                                 "goodput = 1\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  gb_plan_time_of(&w, &p, n1, 16, 8, &o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 2e9 / 160e9 / 3600, 1e-9);
  o.nics_per_node = 1;
  gb_plan_time_of(&w, &p, n1, 16, 8, &o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 2e9 / 45e9 / 3600, 1e-9);
  /* overlap hides up to that share of the compute time */
  o.overlap = 1;
  gb_plan_time_of(&w, &p, n1, 16, 8, &o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 0, 1e-12);
  gb_perf_free(&p);
  gb_specs_free(&specs);
}
END_TEST

/* Inference: the largest batch that fits, KV cache, prefill, TP per replica. */
START_TEST(test_inference_model) {
  gb_specs specs;
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), &specs), GB_OK);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&specs, NULL, "bf16", 8192, false, &p), GB_OK);
  const gb_perf_type *n1 = gb_perf_find(&p, "N1-SXM-100GB");
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.mfu = 0.5;
  gb_workload w;
  gb_workload_init(&w);
  /* 10e9 params bf16 = 20 GB; KV 1e6 B per token x 1000 tokens = 1 GB per sequence; 90 GB usable: batch 70 */
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = inference\nparams = 1e10\ntokens_per_second = 1\n"
                                                 "prompt_tokens = 500\noutput_tokens = 500\nkv_bytes_per_token = 1e6\n", &w),
                   GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert_double_eq_tol(w.kv_bytes_per_sequence, 1e9, TOL);
  gb_plan_time t;
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.batch, 70, TOL);
  ck_assert_int_eq(t.tp, 1);
  /* rate 800e12 x 0.5 = 400e12; gemm = max(2 x 1e10 x 70 / 400e12 = 3.5 ms, 20e9/1800e9 = 11.1 ms) = 11.11 ms;
   * KV read 70 x 0.75e9 / 1800e9 = 29.17 ms; prefill 70/500 x 2e10 x 500 / 400e12 = 3.5 ms */
  double step = 20e9 / 1800e9 + 70 * 0.75e9 / 1800e9 + 70.0 / 500 * 2e10 * 500 / 400e12;
  ck_assert_double_eq_tol(t.token_latency_ms, step * 1e3, 1e-9);
  ck_assert_double_eq_tol(t.tokens_per_s_per_gpu, 70 / step, 1e-6);
  /* a latency limit halves the batch until a step fits */
  ck_assert_int_eq(gb_workload_set(&w, "max_token_latency_ms", "30", "t", 0), GB_OK);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.batch, 35, TOL);
  ck_assert(t.token_latency_ms <= 30);
  /* 150 GB of weights: TP 2 per replica */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = inference\nparams = 7.5e10\ntokens_per_second = 1\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  gb_plan_time_of(&w, &p, n1, 8, 8, &o, &t);
  ck_assert_int_eq(t.tp, 2);
  gb_perf_free(&p);
  gb_specs_free(&specs);
}
END_TEST

/* Money: capex, cash vs amortized budget, break-even; a purchase row never
 * passes a cash budget its capex exceeds. */
START_TEST(test_capex_budget_rule) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  x.o.budget_usd = 1000;
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  ck_assert_int_eq(own->reject, GB_REJECT_BUDGET); /* capex 184k > 1k */
  ck_assert(own->amortized_usd < 1000);            /* its amortized share would pass */
  for (size_t i = 0; i < p.n; i++) {
    const gb_plan_row *r = &p.rows[i];
    if (r->feasible && r->price->offering == GB_OFFER_PURCHASE) ck_assert(r->cash_usd <= 1000);
    if (r->price && r->price->offering == GB_OFFER_PURCHASE && !isnan(r->capex_usd))
      ck_assert(r->cash_usd >= r->capex_usd);
  }
  gb_plan_free(&p);
  /* amortized basis: the job's share is judged */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "budget-basis", "amortized"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  ck_assert(own->feasible);
  ck_assert_double_eq_tol(own->cost_usd, own->amortized_usd, 1e-9);
  ck_assert_double_eq_tol(own->capex_usd, 8 * 20000 * 1.15, 1e-9);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "budget-basis", "capex"), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--budget-basis: \"capex\" is not cash or amortized"));
  /* rank-by: the pessimistic end ranks by default; high uses the optimistic one */
  x.o.budget_usd = NAN;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "rank-by", "high"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(p.rows[0].rank_hours, p.rows[0].hours_low, 1e-12);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "rank-by", "low"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(p.rows[0].rank_hours, p.rows[0].hours_high, 1e-12);
  ck_assert(p.rows[0].hours_high > p.rows[0].hours);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "rank-by", "worst"), GB_E_INPUT);
  /* no demand profile: the hybrid curve is --jobs-per-year runs (4) on the type's best rented row (8 GPUs,
   * 5.26 h a run: 0.24% of the year), far below break-even: own none */
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  gb_hybrid_curve c[2];
  ck_assert_uint_eq(gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 2), 1);
  ck_assert_double_eq_tol(c[0].peak_gpus, 8, TOL);
  ck_assert_int_eq(c[0].best_owned, 0);
  ck_assert_double_eq_tol(c[0].all_rent_usd, 4 * p.rows[0].hours * 8 * 2, 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_filters_and_stale) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "Q,spot,FAST-SXM-100GB,8,1,,2024-01-01,s,V\n"
             "P,on-demand,SLOW-SXM-100GB,8,1,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  size_t all = p.n;
  /* today 2026-12-04: the spot price (2024-01-01) and the purchase (2025-01-01) are 18 months old or more:
   * flagged; the 2026 ones are not */
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].price && !isnan(p.rows[i].cost_usd))
      ck_assert_int_eq(p.rows[i].price_stale, strcmp(p.rows[i].price->date, "2025-06-04") < 0);
  gb_plan_free(&p);
  gb_plan_opts o0 = x.o;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpu-type", "SLOW-SXM-100GB"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert_str_eq(p.rows[i].perf->spec->gpu_type, "SLOW-SXM-100GB");
  ck_assert_uint_eq(p.n + p.nfiltered, all);
  gb_plan_free(&p);
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpus", "8,16"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert(p.rows[i].gpu_count == 8 || p.rows[i].gpu_count == 16);
  ck_assert_uint_eq(p.n, 4 * 2);
  gb_plan_free(&p);
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "provider", "Q,B"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "offering", "purchase"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert_str_eq(p.rows[i].price->provider, "B");
  ck_assert_uint_gt(p.n, 0);
  gb_plan_free(&p);
  x.o = o0;
  x.o.only_measured = true;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert_int_le(p.rows[i].basis, GB_BASIS_THROTTLED);
  gb_plan_free(&p);
  /* rejected filter values name the flag and the value */
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpu-type", "H900-SXM-1TB"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--gpu-type: unknown GPU type \"H900-SXM-1TB\""));
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "provider", "Nowhere"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--provider: unknown provider \"Nowhere\""));
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpus", "0"), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--gpus: \"0\" is not a GPU count"));
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpus", "8,,16"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "offering", "rent"), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--offering: \"rent\" is not on-demand"));
  world_free(&x);
}
END_TEST

START_TEST(test_json_and_hybrid_demand) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
             "demand_base_gpus = 16\ndemand_peak_gpus = 48\ndemand_peak_fraction = 0.1\n");
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  char path[4200];
  snprintf(path, sizeof path, "%s/plan.json", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_json(&p, path), GB_OK);
  size_t len;
  char *j = gb_test_slurp(path, &len);
  ck_assert(strstr(j, "\"configurations\": [") && strstr(j, "\"capex_usd\": 184000,"));
  ck_assert(strstr(j, "\"time\": {\"compute_hours\": "));
  ck_assert(strstr(j, "\"budget_basis\": \"cash\""));
  free(j);
  /* hybrid: owned fixed 0.919 USD/h, energy 0.0845, rent 2: owning the base 16 (in use all year) pays,
   * owning the peak (in use 10% of the year) does not */
  gb_hybrid_curve c[2];
  ck_assert_uint_eq(gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 2), 1);
  ck_assert_int_eq(c[0].best_owned, 16);
  double fixed = 23000 * 0.35 / 8760;
  ck_assert_double_eq_tol(c[0].best_usd,
                          16 * fixed * 8760 + 16 * 0.0845 * 8760 + 48 * 2 * 0.1 * 8760, 1e-6);
  ck_assert_double_eq_tol(c[0].all_rent_usd, (16 * 0.9 + 64 * 0.1) * 2 * 8760, 1e-6);
  ck_assert_uint_eq(c[0].n, 9); /* 0, 8, ..., 64 */
  snprintf(path, sizeof path, "%s/hybrid.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_hybrid_csv(c, 1, path), GB_OK);
  gb_plan_free(&p);
  world_free(&x);
  /* GPU-hours per month: 12 months of 730 GPU-hours = 1 GPU all year */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\nB,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
             "demand_gpu_hours_per_month = 730,730,730,730,730,730,730,730,730,730,730,730\n");
  ck_assert_uint_eq(x.w.ndemand_months, 12);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 2), 1);
  /* owning a whole node (8) for 1 GPU of demand costs more than renting it */
  ck_assert_int_eq(c[0].best_owned, 0);
  ck_assert_double_eq_tol(c[0].all_rent_usd, 8760 * 2, 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* ---- issue 27: every workload key and planner option has an effect checked by hand ---- */

/* A finished workload from INI text (k_train with extra lines, or any text). */
static void wl_load(gb_workload *w, const char *ini) {
  gb_workload_init(w);
  ck_assert_msg(gb_workload_read_mem("w.ini", ini, w) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_workload_finish(w) == GB_OK, "%s", gb_errmsg());
}

static void wl_train(gb_workload *w, const char *extra) {
  char ini[1024];
  snprintf(ini, sizeof ini, "%s%s", k_train, extra);
  wl_load(w, ini);
}

/* N1 (k_specs_arch) with nothing measured: GEMM 1000 x 0.80 = 800 TFLOP/s, HBM 2000 x 0.90 = 1800 GB/s,
 * in-node busbw 400 / 2 x 0.80 = 160 GB/s, 8 NICs x 400 Gb/s = 400 GB/s a node; 90 of 100 GB usable.
 * o: efficiency 0.5, no overlap. */
typedef struct n1_world {
  gb_specs specs;
  gb_perf perf;
  const gb_perf_type *n1;
  gb_plan_opts o;
} n1_world;

static void n1_load(n1_world *x) {
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), &x->specs), GB_OK);
  ck_assert_int_eq(gb_perf_build(&x->specs, NULL, "bf16", 8192, false, &x->perf), GB_OK);
  x->n1 = gb_perf_find(&x->perf, "N1-SXM-100GB");
  ck_assert_double_eq_tol(x->n1->comm_plateau_gbps, 160, 1e-9);
  gb_plan_opts_default(&x->o);
  x->o.mfu = 0.5;
  x->o.overlap = 0;
}

static void n1_free(n1_world *x) {
  gb_perf_free(&x->perf);
  gb_specs_free(&x->specs);
}

/* fixed_hours, flops_per_token, memory_bytes_per_param, activation_gb_per_gpu, usable_memory_fraction:
 * 1e9 parameters, 1e4 steps of 1e6 tokens on one N1: t_comp = 6e9 x 1e6 / (800e12 x 0.5) = 15 s. */
START_TEST(test_keys_time_and_memory) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  gb_plan_time base, t;
  wl_train(&w, "");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &base);
  ck_assert_int_eq(base.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(base.hours, 1e4 * 15 / 3600.0, 1e-9);
  /* fixed_hours: hours = steps x t_step / goodput + fixed_hours, on every end of the band */
  wl_train(&w, "fixed_hours = 12.5\n");
  ck_assert_double_eq_tol(w.fixed_hours, 12.5, TOL);
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.hours, 1e4 * 15 / 3600.0 + 12.5, 1e-9);
  ck_assert_double_eq_tol(t.hours_high, base.hours_high + 12.5, 1e-9);
  ck_assert_double_eq_tol(t.hours_low, base.hours_low + 12.5, 1e-9);
  ck_assert_double_eq_tol(t.compute_hours, base.compute_hours, 1e-12); /* not work */
  /* an inference service: serve_hours + fixed_hours */
  wl_load(&w, "type = inference\nparams = 1e9\ntokens_per_second = 1\nbatch_size = 10\nserve_hours = 100\n"
              "fixed_hours = 3\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.hours, 103, 1e-12);
  /* flops_per_token 1.2e10 (twice 6 x params): t_comp 30 s */
  wl_train(&w, "flops_per_token = 1.2e10\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * 30 / 3600.0, 1e-9);
  ck_assert_double_eq_tol(t.hours, 1e4 * 30 / 3600.0, 1e-9);
  /* memory_bytes_per_param 32: the optimizer state 32 GB, read once a step at 1800 GB/s */
  wl_train(&w, "memory_bytes_per_param = 32\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.memory_hours, 1e4 * (32e9 / 1800e9) / 3600, 1e-12);
  /* 95 B per parameter: 95 GB > 90 GB usable */
  wl_train(&w, "memory_bytes_per_param = 95\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_MEMORY);
  ck_assert_double_eq_tol(t.need, 95, 1e-9);
  ck_assert_double_eq_tol(t.have, 90, 1e-9);
  /* activation_gb_per_gpu: state 16 GB + 70 fits in 90; + 75 = 91 does not */
  wl_train(&w, "activation_gb_per_gpu = 70\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  wl_train(&w, "activation_gb_per_gpu = 75\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_MEMORY);
  ck_assert_double_eq_tol(t.need, 91, 1e-9);
  /* usable_memory_fraction 0.1: 10 GB usable < 16 GB of state; sharded over 2 GPUs (8 GB each) it fits */
  wl_train(&w, "usable_memory_fraction = 0.1\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_MEMORY);
  ck_assert_double_eq_tol(t.need, 16, 1e-9);
  ck_assert_double_eq_tol(t.have, 10, 1e-9);
  wl_load(&w, "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nsharded = true\n"
              "usable_memory_fraction = 0.1\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 2, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  /* the default: 0.9 */
  wl_train(&w, "");
  ck_assert_double_eq_tol(w.usable_memory_fraction, 0.9, TOL);
  n1_free(&x);
}
END_TEST

/* grad_bytes, bytes_per_grad_element and the node network (--nic-gbit, --nic-gbps): 16 GPUs on two
 * nodes, data parallel: t_dp = 2 x 15/16 x grad_bytes / busbw, busbw = min(in-node 160,
 * node NICs x 0.90 x 8 local / 8). */
START_TEST(test_keys_gradients_and_nics) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  gb_plan_time t;
  wl_train(&w, "");
  ck_assert_double_eq_tol(w.bytes_per_grad_element, 2, TOL);
  ck_assert_double_eq_tol(w.grad_bytes, 2e9, 1);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 2e9 / 160e9 / 3600, 1e-9);
  /* bytes_per_grad_element 4: 4e9 B of gradients, twice the time */
  wl_train(&w, "bytes_per_grad_element = 4\n");
  ck_assert_double_eq_tol(w.grad_bytes, 4e9, 1);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 4e9 / 160e9 / 3600, 1e-9);
  /* grad_bytes given wins over params x bytes_per_grad_element */
  wl_train(&w, "bytes_per_grad_element = 4\ngrad_bytes = 1e9\n");
  ck_assert_double_eq_tol(w.grad_bytes, 1e9, TOL);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 1e9 / 160e9 / 3600, 1e-9);
  /* fp32 and fp64 training all-reduce 4- and 8-byte gradients */
  wl_train(&w, "precision = fp32\n");
  ck_assert_double_eq_tol(w.bytes_per_grad_element, 4, TOL);
  wl_train(&w, "precision = fp64\n");
  ck_assert_double_eq_tol(w.grad_bytes, 8e9, 1);
  /* --nic-gbit 100: 8 x 100 / 8 = 100 GB/s a node, x 0.90 = 90 < 160 */
  wl_train(&w, "");
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "nic-gbit", "100"), GB_OK);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 2e9 / 90e9 / 3600, 1e-9);
  /* --nic-gbps 10 per GPU overrides the NICs: 10 x 8 x 0.90 = 72 */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "nic-gbps", "10"), GB_OK);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 15.0 / 16 * 2e9 / 72e9 / 3600, 1e-9);
  n1_free(&x);
}
END_TEST

/* bucket_bytes picks the point of the measured busbw curve: FAST's 8-GPU all-reduce is 40 GB/s at
 * 1e6 B and 400 at 1e8 B, interpolated in log size; the message is min(bucket, gradient bytes). */
START_TEST(test_keys_bucket_bytes) {
  static const char *meas =
      "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
      "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
      "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,1,800,800,0,ok,,,,,\n"
      "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n"
      "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,8,1,1,collective,all_reduce,bf16,,,,1000000,busbw_gbps,GB/s,40,1,40,40,0,ok,,,,,\n"
      "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,8,1,1,collective,all_reduce,bf16,,,,100000000,busbw_gbps,GB/s,400,1,400,400,0,ok,,,,,\n";
  world x;
  world_load_measured(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", k_train, meas);
  const gb_perf_type *f = gb_perf_find(&x.perf, "FAST-SXM-100GB");
  static const struct {
    const char *extra;
    double busbw;
  } cases[] = {
      {"", 40 + 360 * (log(25e6) - log(1e6)) / (log(1e8) - log(1e6))}, /* default 25e6 */
      {"bucket_bytes = 1e7\n", 220},
      {"bucket_bytes = 1e6\n", 40},
      {"bucket_bytes = 1e11\n", 400}, /* above the 2e9 B of gradients: the gradients, clamped to 400 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gb_workload w;
    wl_train(&w, cases[i].extra);
    gb_plan_time t;
    gb_plan_time_of(&w, &x.perf, f, 8, 8, &x.o, &t);
    ck_assert_msg(fabs(t.dp_hours - 1e4 * 2 * 7.0 / 8 * 2e9 / (cases[i].busbw * 1e9) / 3600) < 1e-9,
                  "case %zu: dp_hours %.12g", i, t.dp_hours);
  }
  world_free(&x);
}
END_TEST

/* seq_len and micro_batch (the pipeline bubble), layers and hidden_size (tensor-parallel traffic). */
START_TEST(test_keys_shape) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  gb_plan_time t;
  /* TP 8 x PP 2 on 16 GPUs: dp 1, micro-batches = 1e6 / (2 x 4096); bubble = (2-1) / that of compute */
  wl_train(&w, "tensor_parallel = 8\npipeline_parallel = 2\nseq_len = 4096\nmicro_batch = 2\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.bubble_hours / t.compute_hours, 2 * 4096 / 1e6, 1e-12);
  /* TP 8 on one node, 32 layers of hidden 4096: 4 all-reduces a layer of each micro-batch's
   * 2048 x 4096 x 2 B activations, 1e6 / 2048 micro-batches, at 160 GB/s in the node */
  wl_train(&w, "tensor_parallel = 8\nlayers = 32\nhidden_size = 4096\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  double t_tp = 32 * 4 * (1e6 / 2048) * 2 * 7.0 / 8 * (2048 * 4096 * 2.0) / 160e9;
  ck_assert_double_eq_tol(t.tp_hours, 1e4 * t_tp / 3600, 1e-9);
  /* recompute adds 2 all-reduces a layer: 6/4 of the traffic */
  wl_train(&w, "tensor_parallel = 8\nlayers = 32\nhidden_size = 4096\nrecompute = true\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.tp_hours, 1e4 * t_tp * 1.5 / 3600, 1e-9);
  /* one of layers and hidden_size derives the other: params = 12 layers hidden^2 */
  wl_train(&w, "layers = 24\n");
  ck_assert_double_eq_tol(w.hidden_size, round(sqrt(1e9 / (12 * 24))), TOL);
  wl_train(&w, "hidden_size = 2048\n");
  ck_assert_double_eq_tol(w.layers, round(1e9 / (12 * 2048.0 * 2048)), TOL);
  n1_free(&x);
}
END_TEST

/* MoE: expert_parallel and moe_top_k. 8e9 parameters, 2e9 active, 16 layers of hidden 2048, on N1. */
START_TEST(test_keys_moe) {
  n1_world x;
  n1_load(&x);
  static const char *moe = "type = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                           "goodput = 1\nlayers = 16\nhidden_size = 2048\n";
  char ini[1024];
  gb_workload w;
  gb_plan_time t;
  /* no expert parallelism: every GPU holds 8e9 x 16 B = 128 GB > 90 */
  wl_load(&w, moe);
  ck_assert_double_eq_tol(w.expert_parallel, 1, TOL);
  ck_assert_double_eq_tol(w.moe_top_k, 2, TOL);
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_MEMORY);
  ck_assert_double_eq_tol(t.need, 128, 1e-9);
  /* EP 8 on one node: a GPU holds the active 2e9 whole and 1/8 of the other 6e9: 2.75e9 x 16 B = 44 GB.
   * all-to-all: 4 x top_k 2 x 2048 x 2 B x 7/8 x 1e6/8 tokens x 16 layers at 160 GB/s in the node */
  snprintf(ini, sizeof ini, "%sexpert_parallel = 8\n", moe);
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  double a2a = 4 * 2 * 2048 * 2.0 * 7 / 8 * (1e6 / 8) * 16 / 160e9;
  ck_assert_double_eq_tol(t.a2a_hours, 1e4 * a2a / 3600, 1e-9);
  /* FLOPs from the active parameters: 6 x 2e9 x 1e6 / (8 x 800e12 x 0.5) = 3.75 s */
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * 3.75 / 3600, 1e-9);
  /* gradients of the parameters held: 2 B x 2.75e9, all-reduced over dp 8 */
  ck_assert_double_eq_tol(t.dp_hours, 1e4 * 2 * 7.0 / 8 * (2 * 2.75e9) / 160e9 / 3600, 1e-9);
  /* moe_top_k 4: twice the routed traffic */
  snprintf(ini, sizeof ini, "%sexpert_parallel = 8\nmoe_top_k = 4\n", moe);
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.a2a_hours, 1e4 * 2 * a2a / 3600, 1e-9);
  /* EP 16 across two nodes: each GPU's share of its node's NICs, 400 x 0.90 / 8 = 45 GB/s;
   * tokens per replica 1e6 / 16, (e-1)/e = 15/16 */
  snprintf(ini, sizeof ini, "%sexpert_parallel = 16\n", moe);
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.a2a_hours, 1e4 * (4 * 2 * 2048 * 2.0 * 15 / 16 * (1e6 / 16) * 16 / 45e9) / 3600, 1e-9);
  /* more experts' GPUs than GPUs: the layout does not fit */
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_LAYOUT);
  n1_free(&x);
}
END_TEST

/* Inference: model_bytes and kv_bytes_per_sequence given directly. */
START_TEST(test_keys_inference_bytes) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  gb_plan_time t;
  /* 4e9 B of weights for 1e9 parameters (say fp32 weights served at bf16 rates): a decode step streams
   * them, 4e9 / 1800e9 s, above the GEMM's 2 x 1e9 x 10 / 400e12 */
  wl_load(&w, "type = inference\nparams = 1e9\nmodel_bytes = 4e9\ntokens_per_second = 1\nbatch_size = 10\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.token_latency_ms, 4e9 / 1800e9 * 1e3, 1e-9);
  /* model_bytes alone: params = bytes / 2 (bf16) */
  wl_load(&w, "type = inference\nmodel_bytes = 4e9\ntokens_per_second = 1\n");
  ck_assert_double_eq_tol(w.params, 2e9, TOL);
  /* kv_bytes_per_sequence 2e9: 90 - 20 GB of room hold 35 sequences; each reads 2e9 x 0.75 a step */
  wl_load(&w, "type = inference\nparams = 1e10\ntokens_per_second = 1\nprompt_tokens = 500\noutput_tokens = 500\n"
              "kv_bytes_per_sequence = 2e9\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.batch, 35, TOL);
  double step = 20e9 / 1800e9 + 35 * 1.5e9 / 1800e9 + 35.0 / 500 * 2e10 * 500 / 400e12;
  ck_assert_double_eq_tol(t.token_latency_ms, step * 1e3, 1e-9);
  n1_free(&x);
}
END_TEST

/* name, max_hours and budget_usd as workload keys; a flag wins over the file. */
START_TEST(test_keys_constraints_and_name) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nname = my run\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
             "sharded = false\ngoodput = 1\nmax_hours = 3\n");
  ck_assert_str_eq(x.w.name, "my run");
  gb_plan p;
  /* 8 GPUs take 5.26 h, 16 take 2.8125 h (test_training_hand): only 16 meet the file's 3 h */
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 1);
  ck_assert_int_eq(p.rows[0].gpu_count, 16);
  ck_assert_double_eq_tol(p.opts.max_hours, 3, TOL);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "max-hours", "6"), GB_OK); /* --max-hours over the file's */
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert(find_row(&p, "FAST-SXM-100GB", "P", 8)->feasible);
  gb_plan_free(&p);
  world_free(&x);
  /* budget_usd 85: only 8 GPUs (84.11 USD) */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nsharded = false\ngoodput = 1\n"
             "budget_usd = 85\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 1);
  ck_assert_int_eq(p.rows[0].gpu_count, 8);
  gb_plan_free(&p);
  world_free(&x);
  /* generic memory_gb: 300 GB split over n GPUs: 4 x 75 fit, 2 x 150 do not */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", "type = generic\ntotal_flops = 1e18\nmemory_gb = 300\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_int_eq(find_row(&p, "FAST-SXM-100GB", "P", 2)->reject, GB_REJECT_MEMORY);
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "P", 2)->need, 150, 1e-9);
  ck_assert(find_row(&p, "FAST-SXM-100GB", "P", 4)->feasible);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* Money options: --years, --ops-fraction, --network-overhead, --host-power, --pue, --electricity,
 * --utilization and --price-scale, by the purchase formulas of docs/planner.md. */
START_TEST(test_opts_money) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  static const char *const set[][2] = {{"years", "2"},     {"ops-fraction", "0.2"}, {"network-overhead", "1.3"},
                                       {"host-power", "0.5"}, {"pue", "1.5"},        {"electricity", "0.2"},
                                       {"utilization", "0.8"}};
  for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
    ck_assert_int_eq(gb_plan_opt_set(&x.o, set[i][0], set[i][1]), GB_OK);
  /* capex per GPU 20000 x 1.3 = 26000; fixed = 26000 x (1/2 + 0.2) / 8760;
   * energy = 0.5 kW x (1 + 0.5) x 1.5 x 0.2 = 0.225 USD/h; per used hour fixed / 0.8 + energy */
  double capex = 26000, fixed = capex * 0.7 / 8760, energy = 0.225;
  gb_owned_cost c = gb_plan_owned_cost(&x.prices.v[1], &x.specs.v[0], &x.o);
  ck_assert_double_eq_tol(c.fixed_usd_per_gpu_hour, fixed, 1e-12);
  ck_assert_double_eq_tol(c.energy_usd_per_gpu_hour, energy, 1e-12);
  ck_assert_double_eq_tol(c.usd_per_used_gpu_hour, fixed / 0.8 + energy, 1e-12);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  double h = 1e4 * 1.8925 / 3600; /* test_training_hand */
  ck_assert_double_eq_tol(own->capex_usd, 8 * capex, 1e-9);
  ck_assert_double_eq_tol(own->amortized_usd, h * 8 * (fixed / 0.8 + energy), 1e-9);
  ck_assert_double_eq_tol(own->cash_usd, 8 * capex + h * 8 * energy + 8 * capex * 0.2 * h / 8760, 1e-6);
  ck_assert_double_eq_tol(own->breakeven_hours, capex / (2 - energy - capex * 0.2 / 8760), 1e-6);
  gb_plan_free(&p);
  /* --price-scale 2: rents, purchase prices and the tariff double */
  gb_plan_opts_default(&x.o);
  x.o.mfu = 0.5, x.o.overlap = 0, x.o.rank_by = GB_RANK_MEDIAN, x.o.nic_gbps = 50.0 / 0.9 / 8;
  x.o.today = "2026-12-04", x.o.max_gpus = 16;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "price-scale", "2"), GB_OK);
  c = gb_plan_owned_cost(&x.prices.v[1], &x.specs.v[0], &x.o);
  ck_assert_double_eq_tol(c.fixed_usd_per_gpu_hour, 2 * 23000 * 0.35 / 8760, 1e-12);
  ck_assert_double_eq_tol(c.energy_usd_per_gpu_hour, 2 * 0.0845, 1e-12);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "P", 8)->cost_usd, h * 8 * 2 * 2, 1e-9);
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "B", 8)->capex_usd, 8 * 20000 * 1.15 * 2, 1e-9);
  /* break-even is a ratio of prices: unchanged in hours */
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "B", 8)->breakeven_hours,
                          23000 / (2 - 0.0845 - 2300.0 / 8760), 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

static const gb_plan_row *spot_row(const gb_plan *p, int n) {
  for (size_t i = 0; i < p->n; i++)
    if (p->rows[i].price && p->rows[i].price->offering == GB_OFFER_SPOT && p->rows[i].gpu_count == n)
      return &p->rows[i];
  return NULL;
}

/* --spot-preemptions, --spot-checkpoint-hours, --spot-restart-hours: the Young/Daly stretch
 * hours x (1 + d/tau) / (1 - l (restart + tau/2)), l = preemptions x nodes, tau = sqrt(2 d / l). */
START_TEST(test_opts_spot) {
  world x;
  world_load(&x, "P,spot,FAST-SXM-100GB,8,1,,2026-01-01,s,V\n", k_train);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-preemptions", "0.1"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-checkpoint-hours", "0.1"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-restart-hours", "0.5"), GB_OK);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  /* one node: l 0.1, tau sqrt(2); two nodes (16 GPUs, 2.8125 h): l 0.2, tau 1 */
  double s1 = (1 + 0.1 / sqrt(2.0)) / (1 - 0.1 * (0.5 + sqrt(2.0) / 2));
  double s2 = (1 + 0.1 / 1) / (1 - 0.2 * (0.5 + 0.5));
  ck_assert_double_eq_tol(spot_row(&p, 8)->hours, 1e4 * 1.8925 / 3600 * s1, 1e-9);
  ck_assert_double_eq_tol(spot_row(&p, 8)->cost_usd, 1e4 * 1.8925 / 3600 * s1 * 8, 1e-9);
  ck_assert_double_eq_tol(spot_row(&p, 16)->hours, 2.8125 * s2, 1e-9);
  gb_plan_free(&p);
  /* no preemptions: no stretch */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-preemptions", "0"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(spot_row(&p, 8)->hours, 1e4 * 1.8925 / 3600, 1e-9);
  gb_plan_free(&p);
  /* 10 an hour on one node: l x (0.5 + tau/2) = 10 x 0.55 >= 0.95: rejected */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-preemptions", "10"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_int_eq(spot_row(&p, 8)->reject, GB_REJECT_SPOT);
  char reason[160];
  gb_plan_reason(spot_row(&p, 8), reason, sizeof reason);
  ck_assert_str_eq(reason, "spot: 10.00 preemptions per hour outpace progress");
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* Every numeric planner option refuses what is out of range or not a number, naming the option. */
static const struct {
  const char *name, *value, *expect;
} k_bad_opts[] = {
    {"years", "0", "--years: must be > 0: 0"},
    {"years", "25", "--years: absurd value 25 (above 20)"},
    {"years", "four", "--years: not a number: \"four\""},
    {"ops-fraction", "-0.1", "--ops-fraction: must be >= 0: -0.1"},
    {"ops-fraction", "2", "--ops-fraction: absurd value 2 (above 1)"},
    {"ops-fraction", "10%", "--ops-fraction: not a number: \"10%\""},
    {"network-overhead", "0.9", "--network-overhead: must be >= 1: 0.9"},
    {"network-overhead", "4", "--network-overhead: absurd value 4 (above 3)"},
    {"network-overhead", "nan", "--network-overhead: not a number: \"nan\""},
    {"host-power", "-1", "--host-power: must be >= 0: -1"},
    {"host-power", "5", "--host-power: absurd value 5 (above 3)"},
    {"host-power", "", "--host-power: not a number: \"\""},
    {"pue", "0.9", "--pue: must be >= 1: 0.9"},
    {"pue", "6", "--pue: absurd value 6 (above 5)"},
    {"electricity", "0", "--electricity: must be > 0: 0"},
    {"electricity", "11", "--electricity: absurd value 11 (above 10)"},
    {"utilization", "0", "--utilization: must be > 0: 0"},
    {"utilization", "1.5", "--utilization: absurd value 1.5 (above 1)"},
    {"overlap", "-0.5", "--overlap: must be >= 0: -0.5"},
    {"nic-gbps", "0", "--nic-gbps: must be > 0: 0"},
    {"nic-gbit", "0", "--nic-gbit: must be > 0: 0"},
    {"nic-gbit", "1e6", "--nic-gbit: absurd value 1e6 (above 100000)"},
    {"nics-per-node", "0", "--nics-per-node: must be >= 1: 0"},
    {"nics-per-node", "1.5", "--nics-per-node: must be a whole number: 1.5"},
    {"max-gpus", "8.5", "--max-gpus: must be a whole number: 8.5"},
    {"spot-preemptions", "-1", "--spot-preemptions: must be >= 0: -1"},
    {"spot-preemptions", "101", "--spot-preemptions: absurd value 101 (above 100)"},
    {"spot-preemptions", "often", "--spot-preemptions: not a number: \"often\""},
    {"spot-checkpoint-hours", "0", "--spot-checkpoint-hours: must be > 0: 0"},
    {"spot-checkpoint-hours", "1e3", "--spot-checkpoint-hours: absurd value 1e3 (above 100)"},
    {"spot-restart-hours", "-0.25", "--spot-restart-hours: must be >= 0: -0.25"},
    {"spot-restart-hours", "soon", "--spot-restart-hours: not a number: \"soon\""},
    {"price-scale", "0", "--price-scale: must be > 0: 0"},
    {"price-scale", "1000", "--price-scale: absurd value 1000 (above 100)"},
    {"price-scale", "x2", "--price-scale: not a number: \"x2\""},
    {"jobs-per-year", "0", "--jobs-per-year: must be > 0: 0"},
    {"max-hours", "inf", "--max-hours: not a number: \"inf\""},
    {"only-measured", "maybe", "--only-measured: \"maybe\" is not true or false"},
    {"gpu-type", "H100-SXM-80GB,", "--gpu-type: empty item"},
};

START_TEST(test_opts_bad_values) {
  gb_plan_opts o, d;
  memset(&o, 0, sizeof o), memset(&d, 0, sizeof d); /* padding too: compared below */
  gb_plan_opts_default(&o);
  gb_plan_opts_default(&d);
  ck_assert_int_eq(gb_plan_opt_set(&o, k_bad_opts[_i].name, k_bad_opts[_i].value), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad_opts[_i].expect) != NULL, "case %d: got \"%s\", want \"%s\"", _i,
                gb_errmsg(), k_bad_opts[_i].expect);
  /* nothing was set */
  ck_assert(memcmp(&o, &d, offsetof(gb_plan_opts, gpu_types)) == 0);
  gb_errclear();
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner");
  TCase *tc = tcase_create("readers");
  tcase_add_loop_test(tc, test_prices_bad, 0, sizeof k_bad_prices / sizeof k_bad_prices[0]);
  tcase_add_test(tc, test_prices_good);
  tcase_add_loop_test(tc, test_workload_bad, 0, sizeof k_bad_ini / sizeof k_bad_ini[0]);
  tcase_add_test(tc, test_workload_defaults_and_flags);
  tcase_add_test(tc, test_opts_bad);
  suite_add_tcase(s, tc);
  tc = tcase_create("model");
  tcase_add_test(tc, test_perf_fixture);
  tcase_add_test(tc, test_perf_ignores_settings_rows);
  tcase_add_test(tc, test_perf_gemm_window);
  tcase_add_test(tc, test_workload_gemm_window);
  tcase_add_test(tc, test_perf_throttled_points);
  tcase_add_test(tc, test_training_hand);
  tcase_add_test(tc, test_constraints_and_reasons);
  tcase_add_test(tc, test_owned_spot_breakeven);
  tcase_add_test(tc, test_inference_generic_hand);
  tcase_add_test(tc, test_measured_dir_empty);
  tcase_add_test(tc, test_bases_and_bands);
  tcase_add_test(tc, test_time_model_parts);
  tcase_add_test(tc, test_inference_model);
  tcase_add_test(tc, test_capex_budget_rule);
  tcase_add_test(tc, test_filters_and_stale);
  tcase_add_test(tc, test_json_and_hybrid_demand);
  tcase_add_test(tc, test_keys_time_and_memory);
  tcase_add_test(tc, test_keys_gradients_and_nics);
  tcase_add_test(tc, test_keys_bucket_bytes);
  tcase_add_test(tc, test_keys_shape);
  tcase_add_test(tc, test_keys_moe);
  tcase_add_test(tc, test_keys_inference_bytes);
  tcase_add_test(tc, test_keys_constraints_and_name);
  tcase_add_test(tc, test_opts_money);
  tcase_add_test(tc, test_opts_spot);
  tcase_add_loop_test(tc, test_opts_bad_values, 0, sizeof k_bad_opts / sizeof k_bad_opts[0]);
  suite_add_tcase(s, tc);
  tc = tcase_create("properties");
  tcase_add_test(tc, test_property_budget_monotone);
  tcase_add_test(tc, test_property_double_prices);
  tcase_add_test(tc, test_property_faster_ranks_higher);
  tcase_add_test(tc, test_sensitivity_and_csv);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
