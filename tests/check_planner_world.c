/* Fixtures shared by the planner's test suites (check_planner*.c): small
 * specs, prices, measurements and workloads written to a temporary
 * directory, and the worlds the scenarios are computed in. */
#include "check_planner_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tmp_file(const char *name, const char *text) {
  static char path[8][4200];
  static int slot;
  char *p = path[slot++ % 8];
  snprintf(p, 4200, "%s/%s", gb_test_tmpdir(), name);
  ck_assert_int_eq(gb_test_write(p, text, strlen(text)), 0);
  return p;
}

/* Two test GPUs, identical but for the name: BF16 1000 TFLOP/s, 100 GB,
 * 2000 GB/s, 500 W, 400 GB/s interconnect. */
const char *const k_specs =
    "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
    "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,source,date\n"
    "FAST-SXM-100GB,fast,,,,,1000,1000,,,100,2000,500,400,test,2026-12-01\n"
    "SLOW-SXM-100GB,slow,,,,,1000,1000,,,100,2000,500,400,test,2026-12-01\n";

const char *const k_prices_header =
    "provider,offering,gpu_type,gpus_per_node,price_usd_per_gpu_hour,purchase_usd_per_gpu,date,source,confidence\n";

/* Measured: FAST sustains 800 TFLOP/s BF16 at 8192^3, 1800 GB/s triad,
 * 200 GB/s all-reduce busbw on 8 GPUs at 25 MB; SLOW 400 TFLOP/s, same rest. */
const char *const k_measured =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,1,800,800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,FAST-SXM-100GB,f,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,200,1,200,200,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,400,1,400,400,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,1,1,1,membw,triad,fp64,,,,1073741824,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,SLOW-SXM-100GB,s,8,1,1,collective,all_reduce,bf16,,,,25000000,busbw_gbps,GB/s,200,1,200,200,0,ok,,,,,\n";

void world_load_measured(world *x, const char *prices_body, const char *workload_ini, const char *measured) {
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

void world_load(world *x, const char *prices_body, const char *workload_ini) {
  world_load_measured(x, prices_body, workload_ini, k_measured);
}

void world_free(world *x) {
  gb_perf_free(&x->perf);
  gb_results_free(&x->measured);
  gb_prices_free(&x->prices);
  gb_specs_free(&x->specs);
}

const gb_plan_row *find_row(const gb_plan *p, const char *type, const char *provider, int n) {
  for (size_t i = 0; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (strcmp(r->perf->spec->gpu_type, type) == 0 && r->price && strcmp(r->price->provider, provider) == 0 &&
        r->gpu_count == n)
      return r;
  }
  return NULL;
}

/* 1e9 parameters, 1e10 tokens, 1e6 tokens per step, replicated state. */
const char *const k_train =
    "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nsharded = false\ngoodput = 1\n"
    "flops_per_token = 6e9\n";

const char *const k_two_types =
    "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
    "P,on-demand,SLOW-SXM-100GB,8,2,,2026-01-01,s,V\n"
    "P,spot,FAST-SXM-100GB,8,1.2,,2026-01-01,s,V\n"
    "P,spot,SLOW-SXM-100GB,8,1.2,,2026-01-01,s,V\n"
    "Q,on-demand,FAST-SXM-100GB,1,2.4,,2026-01-01,s,V\n"
    "Q,on-demand,SLOW-SXM-100GB,1,2.4,,2026-01-01,s,V\n"
    "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n";

/* Three architectures: N1 (hopper, measured), N2 (ampere, NVIDIA: projected
 * within the vendor), A1 (cdna3, AMD: projected across vendors). */
const char *const k_specs_arch =
    "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
    "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,nics_per_node,nic_gbit,source,date\n"
    "N1-SXM-100GB,n1,,,,,1000,1000,,,100,2000,500,400,hopper,8,400,test,2026-12-01\n"
    "N2-SXM-100GB,n2,,,,,500,500,,,100,2000,500,400,ampere,8,200,test,2026-12-01\n"
    "A1-OAM-100GB,a1,,,,,1000,1000,,,100,2000,500,400,cdna3,8,400,test,2026-12-01\n";

const char *const k_measured_n1 =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,metric,"
    "unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n"
    "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,1,800,800,0,ok,,,,,\n"
    "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,1,1,1,membw,triad,fp64,,,,4294967296,gbps,GB/s,1800,1,1800,1800,0,ok,,,,,\n";

/* A finished workload from INI text (k_train with extra lines, or any text). */
void wl_load(gb_workload *w, const char *ini) {
  gb_workload_init(w);
  ck_assert_msg(gb_workload_read_mem("w.ini", ini, w) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_workload_finish(w) == GB_OK, "%s", gb_errmsg());
}

void wl_train(gb_workload *w, const char *extra) {
  char ini[1024];
  snprintf(ini, sizeof ini, "%s%s", k_train, extra);
  if (strstr(extra, "flops_per_token")) *strstr(ini, "flops_per_token = 6e9\n") = '\0', strcat(ini, extra);
  wl_load(w, ini);
}

void n1_load(n1_world *x) {
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), &x->specs), GB_OK);
  ck_assert_int_eq(gb_perf_build(&x->specs, NULL, "bf16", 8192, false, &x->perf), GB_OK);
  x->n1 = gb_perf_find(&x->perf, "N1-SXM-100GB");
  ck_assert_double_eq_tol(x->n1->comm_plateau_gbps, 160, 1e-9);
  gb_plan_opts_default(&x->o);
  x->o.mfu = 0.5;
  x->o.overlap = 0;
}

void n1_free(n1_world *x) {
  gb_perf_free(&x->perf);
  gb_specs_free(&x->specs);
}

const gb_plan_row *spot_row(const gb_plan *p, int n) {
  for (size_t i = 0; i < p->n; i++)
    if (p->rows[i].price && p->rows[i].price->offering == GB_OFFER_SPOT && p->rows[i].gpu_count == n)
      return &p->rows[i];
  return NULL;
}
