/* Tests for the planner's step-time model against hand-computed scenarios:
 * each term and each workload key that feeds it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_planner_world.h"
#include "gb_goodput.h"
#include "gb_model.h"

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
  /* 20000 tokens/s: a step of 1.111 ms plus the serving floor (17 layers x 9 kernels x 3.4 us = 0.520 ms, and the
   * engine's 2.30 ms) serves 2544 tokens/s a GPU: 1, 2 and 4 GPUs (2544, 5087, 10175) too slow; 8 GPUs serve 20350 */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = inference\nparams = 1e9\ntokens_per_second = 20000\nbatch_size = 10\nserve_hours = 100\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  char reason[160];
  gb_plan_reason(find_row(&p, "FAST-SXM-100GB", "P", 2), reason, sizeof reason);
  ck_assert_str_eq(reason, "too slow (serves 5087 tokens/s, needs 20000)");
  ck_assert(!find_row(&p, "FAST-SXM-100GB", "P", 4)->feasible);
  ck_assert(find_row(&p, "FAST-SXM-100GB", "P", 8)->feasible);
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
  /* efficiency from the table: Ampere at 1e9 parameters 0.64 of peak = 0.64/0.88 of the GEMM rate */
  ck_assert_double_eq_tol(t.eta, 0.64 / 0.88, 1e-12);
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
  /* 1 GPU: t_comp = 6e9 x 1e6 / (800e12 x 0.5) = 15 s a step, 1e4 steps: 41.67 useful hours; an explicit
   * goodput 0.85 stretches them by 1/0.85 */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nflops_per_token = 6e9\ngoodput = 0.85\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert_double_eq_tol(w.goodput, 0.85, TOL);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * 15 / 3600.0, 1e-9);
  ck_assert_double_eq_tol(t.hours, 1e4 * 15 / 3600.0 / 0.85, 1e-6);
  ck_assert_double_eq_tol(t.goodput_hours, 1e4 * 15 / 3600.0 * (1 / 0.85 - 1), 1e-6);
  ck_assert_double_eq_tol(t.goodput, 0.85, 1e-12);
  ck_assert(isnan(t.interruptions)); /* given: no parts */
  /* unset: the whole-run default, (41.67 x 1.30 + 1 h start) / (1 - 466/(54 x 16384) x 1 GPU / 24 x 1 h) */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nflops_per_token = 6e9\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert(isnan(w.goodput));
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  double useful = 1e4 * 15 / 3600.0, loss = 466.0 / (54 * 16384) / 24;
  ck_assert_double_eq_tol(t.hours, (useful * 1.30 + 1) / (1 - loss), 1e-9);
  ck_assert_double_eq_tol(t.goodput, useful / t.hours, 1e-12);
  ck_assert_double_eq_tol(t.overhead_hours, useful * 0.30, 1e-9);
  ck_assert_double_eq_tol(t.goodput_hours, t.hours - useful, 1e-9);
  ck_assert_double_eq_tol(t.interruptions, t.hours * loss, 1e-12);
  /* recompute: 4/3 of the work */
  ck_assert_int_eq(gb_workload_set(&w, "recompute", "true", "t", 0), GB_OK);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t2);
  ck_assert_double_eq_tol(t2.compute_hours / t.compute_hours, 4.0 / 3.0, 1e-9);
  gb_perf_free(&p);

  /* FP8: only the GEMM share (Hopper at 1e9 parameters: 0.70) runs at the FP8 rate */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nprecision = fp8e4m3\nparams = 1e9\ntokens = 1e10\n"
                                                 "tokens_per_step = 1e6\nflops_per_token = 6e9\n", &w), GB_OK);
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
  /* fp8_share 0.5: half the GEMM FLOPs in FP8: 15 x (0.30 + 0.70 x (0.5 + 0.5 x 800/1600)) = 12.375 s */
  ck_assert_int_eq(gb_workload_set(&w, "fp8_share", "0.5", "t", 0), GB_OK);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * 12.375 / 3600, 1e-9);
  gb_perf_free(&p);
  gb_specs_free(&s8);

  /* layouts: TP 8 with PP 2 needs 16, 32, ... GPUs; TP wider than a node is rejected */
  ck_assert_int_eq(gb_perf_build(&specs, NULL, "bf16", 8192, false, &p), GB_OK);
  n1 = gb_perf_find(&p, "N1-SXM-100GB");
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                                                 "tensor_parallel = 8\npipeline_parallel = 2\ngoodput = 1\nlayers = 16\n", &w), GB_OK);
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
  /* derived shape: hidden = sqrt(1e9 / (12 x 16)) */
  ck_assert_double_eq_tol(w.hidden_size, round(sqrt(1e9 / (12 * 16.0))), TOL);

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
  /* + the serving floor: 1e10 params give 37 layers (hidden 4743), 9 kernels each at 3.4 us; + the prompts'
   * causal attention, 70/500 prompts x 2 x 37 layers x 500^2 x 4743 FLOPs at Hopper's fused attention share of
   * the peak, 0.50 x 800 / 0.80 TFLOP/s */
  double step = 20e9 / 1800e9 + 70 * 0.75e9 / 1800e9 + 70.0 / 500 * 2e10 * 500 / 400e12 + 37 * 9 * 3.4e-6 + 2.30e-3 +
                70.0 / 500 * 2 * 37 * 500.0 * 500 * 4743 / (0.50 * 800e12 / 0.80);
  ck_assert_double_eq_tol(t.token_latency_ms, step * 1e3, 1e-9);
  ck_assert_double_eq_tol(t.tokens_per_s_per_gpu, 70 / step, 1e-6);
  /* time to the first token: one prompt's GEMMs and its causal attention, then a step */
  double ttft = 2e10 * 500 / 400e12 + 2 * 37 * 500.0 * 500 * 4743 / (0.50 * 800e12 / 0.80) + step;
  ck_assert_double_eq_tol(t.ttft_ms, ttft * 1e3, 1e-9);
  /* a latency limit halves the batch until a step fits: 70 and 35 (31.5 ms with the floor) do not, 17 does */
  ck_assert_int_eq(gb_workload_set(&w, "max_token_latency_ms", "30", "t", 0), GB_OK);
  gb_plan_time_of(&w, &p, n1, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.batch, 17, TOL);
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

/* ---- every workload key and planner option has an effect checked by hand ---- */

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
  wl_train(&w, "tensor_parallel = 8\npipeline_parallel = 2\nseq_len = 4096\nmicro_batch = 2\nlayers = 16\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t.bubble_hours / t.compute_hours, 2 * 4096 / 1e6, 1e-12);
  /* TP 8 on one node, 32 layers of hidden 4096: 4 all-reduces a layer of each micro-batch's
   * 2048 x 4096 x 2 B activations, 1e6 / 2048 micro-batches, at 160 GB/s in the node (none of it hidden) */
  wl_train(&w, "tensor_parallel = 8\nlayers = 32\nhidden_size = 4096\ntp_comm_overlap = 0\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  double t_tp = 32 * 4 * (1e6 / 2048) * 2 * 7.0 / 8 * (2048 * 4096 * 2.0) / 160e9;
  ck_assert_double_eq_tol(t.tp_hours, 1e4 * t_tp / 3600, 1e-9);
  /* recompute adds 2 all-reduces a layer: 6/4 of the traffic */
  wl_train(&w, "tensor_parallel = 8\nlayers = 32\nhidden_size = 4096\nrecompute = true\ntp_comm_overlap = 0\n");
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
                           "goodput = 1\nlayers = 16\nhidden_size = 2048\nflops_per_token = 1.2e10\n";
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
  /* EP 16 across two nodes, hierarchical: a token's copies ride NVLink (2 x 15/16 of its hidden state,
   * 160 GB/s) and cross to the other node once per node it has experts in, 1 - (1/2)^2 = 0.75 copies,
   * at each GPU's share of its node's NICs, 400 x 0.90 / 8 = 45 GB/s; the tiers run at once, the NICs
   * are slower: 1e6 / 16 tokens x 16 layers x 2048 x 2 B x 2 (dispatch, combine) x 2 (fwd, bwd) */
  snprintf(ini, sizeof ini, "%sexpert_parallel = 16\n", moe);
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x.perf, x.n1, 16, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  double per_copy = 1e6 / 16 * 16 * 2048 * 2.0 * 2 * 2;
  ck_assert_double_eq_tol(t.a2a_hours, 1e4 * fmax(per_copy * 2 * 15 / 16 / 160e9, per_copy * 0.75 / 45e9) / 3600,
                          1e-9);
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
  ck_assert_double_eq_tol(t.token_latency_ms, (4e9 / 1800e9 + 17 * 9 * 3.4e-6 + 2.30e-3) * 1e3, 1e-9); /* + the floor */
  /* model_bytes alone: params = bytes / 2 (bf16) */
  wl_load(&w, "type = inference\nmodel_bytes = 4e9\ntokens_per_second = 1\n");
  ck_assert_double_eq_tol(w.params, 2e9, TOL);
  /* kv_bytes_per_sequence 2e9: 90 - 20 GB of room hold 35 sequences; each reads 2e9 x 0.75 a step */
  wl_load(&w, "type = inference\nparams = 1e10\ntokens_per_second = 1\nprompt_tokens = 500\noutput_tokens = 500\n"
              "kv_bytes_per_sequence = 2e9\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 1, 8, &x.o, &t);
  ck_assert_double_eq_tol(t.batch, 35, TOL);
  double step = 20e9 / 1800e9 + 35 * 1.5e9 / 1800e9 + 35.0 / 500 * 2e10 * 500 / 400e12 + 37 * 9 * 3.4e-6 + 2.30e-3 +
                35.0 / 500 * 2 * 37 * 500.0 * 500 * 4743 / (0.50 * 800e12 / 0.80); /* + the prompts' attention */
  ck_assert_double_eq_tol(t.token_latency_ms, step * 1e3, 1e-9);
  /* a sliding window of 100 tokens on 30 of the 37 layers: those hold 100 tokens a sequence, the other 7 all
   * 1000; a step reads the 7 layers' mean context (750) and the 30's 100 */
  wl_load(&w, "type = inference\nparams = 1e10\ntokens_per_second = 1\nprompt_tokens = 500\noutput_tokens = 500\n"
              "kv_bytes_per_token = 1e6\nsliding_window = 100\nsliding_window_layers = 30\n");
  ck_assert_double_eq_tol(w.kv_bytes_per_sequence, 1e6 * (7 * 1000.0 + 30 * 100) / 37, 1e-3);
  ck_assert_double_eq_tol(w.kv_read_bytes, 1e6 * (7 * 750.0 + 30 * 100) / 37, 1e-3);
  /* a window of 800 fills during the decode: 500-800 tokens held, then 800, a mean of (800^2 - 500^2) / 2 / 500 +
   * 800 x 200 / 500 = 710 */
  wl_load(&w, "type = inference\nparams = 1e10\ntokens_per_second = 1\nprompt_tokens = 500\noutput_tokens = 500\n"
              "kv_bytes_per_token = 1e6\nsliding_window = 800\n");
  ck_assert_double_eq_tol(w.kv_bytes_per_sequence, 1e6 * 800, 1e-3);
  ck_assert_double_eq_tol(w.kv_read_bytes, 1e6 * 710, 1e-3);
  /* a prompt of 500 tokens, inside the window of 800: every layer attends to all 500^2 / 2 pairs */
  ck_assert_double_eq_tol(gb_workload_attn_fwd_flops(&w, 500), 4 * 4743 * 37 * 500.0 * 500 / 2, 1);
  n1_free(&x);
}
END_TEST

/* Plans the workload text base + extra on n GPUs (8 a node) of the one-type world. */
static void plan_text(n1_world *x, const char *base, const char *extra, int n, gb_plan_time *t) {
  char text[1024];
  gb_workload w;
  snprintf(text, sizeof text, "%s%s", base, extra);
  wl_load(&w, text);
  gb_plan_time_of(&w, &x->perf, x->n1, n, 8, &x->o, t);
}

/* head_dim: attention's FLOPs are heads x head_dim wide, not hidden; serving, kv_heads under the tensor
 * parallelism copies the KV cache to r / kv_heads ranks, in memory and in what a step reads. */
START_TEST(test_head_dim_and_kv_copies) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  /* 10 layers of 8 heads x 256 = 2048 over hidden 1024: 6 layers seq_len q a token, q = 2048 */
  wl_load(&w, "type = training\nparams = 1e9\nlayers = 10\nhidden_size = 1024\nheads = 8\nhead_dim = 256\n"
              "seq_len = 1000\ntokens = 1e9\ntokens_per_step = 1e6\n");
  ck_assert_double_eq_tol(w.attention_flops_per_token, 6 * 10 * 1000.0 * 2048, 1);
  wl_load(&w, "type = training\nparams = 1e9\nlayers = 10\nhidden_size = 1024\nheads = 8\nseq_len = 1000\n"
              "tokens = 1e9\ntokens_per_step = 1e6\n");
  ck_assert_double_eq_tol(w.head_dim, 128, TOL);
  ck_assert_double_eq_tol(w.attention_flops_per_token, 6 * 10 * 1000.0 * 1024, 1);
  /* 8 GPUs of 90 GB, 2e10 B of weights: 700 GB hold 175 caches of 4e9 B with 8 KV heads over TP 8, and 43 with
   * 2 (each held on 4 ranks) */
  const char *serve = "type = inference\nparams = 1e10\ntokens_per_second = 1\nprompt_tokens = 500\n"
                      "output_tokens = 500\nkv_bytes_per_sequence = 4e9\ntensor_parallel = 8\nheads = 16\n";
  gb_plan_time t8, t2;
  plan_text(&x, serve, "kv_heads = 8\n", 8, &t8);
  ck_assert_int_eq(t8.reject, GB_REJECT_NONE);
  ck_assert_double_eq_tol(t8.batch, 175, TOL);
  plan_text(&x, serve, "kv_heads = 2\n", 8, &t2);
  ck_assert_double_eq_tol(t2.batch, 43, TOL);
  /* at a batch of 10 the step reads 4 copies of each cache's 3e9 B (0.75 of it, the decode's mean) */
  plan_text(&x, serve, "kv_heads = 8\nbatch_size = 10\n", 8, &t8);
  plan_text(&x, serve, "kv_heads = 2\nbatch_size = 10\n", 8, &t2);
  ck_assert_double_eq_tol(t2.token_latency_ms - t8.token_latency_ms, 10 * 3e9 * 3 / (8 * 1800e9) * 1e3, 1e-9);
  n1_free(&x);
}
END_TEST

/* attention_dp: each GPU of the replica holds the non-expert weights whole and its own sequences' KV once, the
 * routed experts split over the GPUs. */
START_TEST(test_attention_dp) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  gb_plan_time tp, dp;
  /* 8 experts, top 2: routed = (1e10 - 3e9) x 8 / 6 = 9.333e9 of 1e10 parameters, 2e10 B at bf16 */
  const char *moe = "type = inference\nparams = 1e10\nactive_params = 3e9\nexperts = 8\nmoe_top_k = 2\n"
                    "tokens_per_second = 1\nprompt_tokens = 500\noutput_tokens = 500\nkv_bytes_per_sequence = 4e9\n"
                    "tensor_parallel = 4\nheads = 16\nkv_heads = 1\n";
  plan_text(&x, moe, "", 4, &tp);
  ck_assert_int_eq(tp.reject, GB_REJECT_NONE);
  /* tensor-parallel: 4 x 90 GB less 2e10 B hold 340e9 / (4 copies x 4e9 B) = 21 caches */
  ck_assert_double_eq_tol(tp.batch, 21, TOL);
  plan_text(&x, moe, "attention_dp = true\n", 4, &dp);
  ck_assert_int_eq(dp.reject, GB_REJECT_NONE);
  /* data-parallel: the 0.667e9 non-expert parameters (1.333e9 B) on each of 4 GPUs and the experts' 1.867e10 B
   * once leave 360e9 - 2.4e10 = 336e9 B, 84 caches held once */
  ck_assert_double_eq_tol(dp.batch, 84, TOL);
  /* its communication is the MoE all-to-alls, not tensor parallelism's all-reduces */
  ck_assert(dp.a2a_hours > 0 && isnan(dp.tp_hours));
  ck_assert_double_eq_tol(dp.a2a_hours, dp.comm_hours, 1e-12);
  ck_assert(tp.tp_hours > 0 && isnan(tp.a2a_hours));
  /* a dense model: the key's line */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("d.ini", "type = inference\nparams = 1e9\ntokens_per_second = 1\nattention_dp = true\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "d.ini:4: attention_dp: needs experts (a dense model's data-parallel replicas are "
                                "tensor_parallel = 1)");
  n1_free(&x);
}
END_TEST

/* name, max_hours and budget_usd as workload keys; a flag wins over the file. */
START_TEST(test_keys_constraints_and_name) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nname = my run\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
             "sharded = false\ngoodput = 1\nmax_hours = 3\nflops_per_token = 6e9\n");
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
             "budget_usd = 85\nflops_per_token = 6e9\n");
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

/* Layout keys: virtual_pipeline, context_parallel, distributed_optimizer, uneven_pipeline; precisions. */
/* Whole-run goodput (planner/gb_goodput.h) against hand numbers: Llama 3's interruption rate, an hour a
 * restart, the overhead share, the first start; and its dependence on GPU count and run length. */
START_TEST(test_goodput_whole_run) {
  gb_goodput g;
  /* 16,384 GPUs, 1000 useful hours: 466/54 interruptions a day, 0.3596 an hour, each costing 1 h */
  gb_goodput_run(16384, 1000, &g);
  double per_hour = 466.0 / 54 / 24;
  ck_assert_double_eq_tol(g.overhead_hours, 300, 1e-9);
  ck_assert_double_eq_tol(g.startup_hours, 1, 1e-12);
  double wall = (1000 + 300 + 1) / (1 - per_hour);
  ck_assert_double_eq_tol(g.goodput, 1000 / wall, 1e-12);
  ck_assert_double_eq_tol(g.interruptions, wall * per_hour, 1e-9);
  ck_assert_double_eq_tol(g.interrupt_hours, wall * per_hour * 1.0, 1e-9);
  ck_assert_double_eq_tol(1000 + g.overhead_hours + g.startup_hours + g.interrupt_hours, wall, 1e-9);
  /* fewer GPUs lose less to interruptions; a short run loses more to its start */
  gb_goodput small, shortrun;
  gb_goodput_run(512, 1000, &small);
  gb_goodput_run(512, 2, &shortrun);
  ck_assert(small.goodput > g.goodput);
  ck_assert(shortrun.goodput < small.goodput);
  ck_assert_double_eq_tol(small.goodput, 1000 / ((1301) / (1 - 466.0 / (54 * 16384) * 512 / 24)), 1e-12);
  /* more GPUs than the interruption load can carry: capped, still above zero */
  gb_goodput huge;
  gb_goodput_run(1e7, 1000, &huge);
  ck_assert(huge.goodput > 0 && huge.goodput < 0.1);
}
END_TEST

/* nvfp4 (fp4 an alias) at the datasheet FP4 rate, Blackwell only; low_precision_share is fp8_share. */
START_TEST(test_nvfp4_precision) {
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nprecision = fp4\nparams = 1e9\ntokens = 1e10\n"
                                                 "tokens_per_step = 1e6\nflops_per_token = 6e9\ngoodput = 1\n"
                                                 "low_precision_share = 0.5\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  ck_assert_str_eq(w.precision, "nvfp4");
  ck_assert_double_eq_tol(w.fp8_share, 0.5, 1e-12);
  ck_assert_double_eq_tol(gb_workload_elem_bytes("nvfp4"), 0.5625, 1e-12);
  ck_assert(gb_workload_is_low_precision("nvfp4") && gb_workload_is_low_precision("mxfp8"));
  ck_assert(!gb_workload_is_low_precision("bf16"));
  static const char *sp =
      "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
      "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,source,date,fp4_tflops\n"
      "H-SXM-100GB,h,,,,,1000,1000,2000,,100,2000,500,400,hopper,t,2026-12-01,\n"
      "B-SXM-100GB,b,,,,,1000,1000,2000,,100,2000,500,400,blackwell,t,2026-12-01,4000\n";
  gb_specs s;
  ck_assert_int_eq(gb_specs_read_mem("s.csv", sp, strlen(sp), &s), GB_OK);
  ck_assert_double_eq_tol(gb_spec_peak(&s.v[1], "nvfp4"), 4000, 1e-9);
  ck_assert_double_eq_tol(gb_spec_peak(&s.v[1], "fp4"), 4000, 1e-9);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&s, NULL, "nvfp4", 8192, false, &p), GB_OK);
  const gb_perf_type *h = gb_perf_find(&p, "H-SXM-100GB"), *b = gb_perf_find(&p, "B-SXM-100GB");
  ck_assert(isnan(h->gemm_tflops)); /* no FP4 rate: refused */
  ck_assert_double_eq_tol(b->gemm_tflops / b->gemm_base_tflops, 4, 1e-9);
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.mfu = 0.5;
  gb_plan_time t;
  gb_plan_time_of(&w, &p, b, 1, 8, &o, &t);
  ck_assert_double_eq_tol(t.low_precision_share, 0.5, 1e-12);
  /* --mfu: every FLOP at 0.5 of the BF16 rate, the GEMM share g of the half in NVFP4 at 4x (the stated
   * utilization covers the whole step: no block_scaled_eff): 6e9 x 1e6 / (base x 0.5) x ((1 - g/2) + g/2 / 4) */
  double g = gb_model_at_size(gb_arch_model_find("blackwell")->gemm_share, 1e9);
  ck_assert_double_eq_tol(t.block_scaled_eff, 1, 1e-12);
  double base = 6e9 * 1e6 / (b->gemm_base_tflops * 1e12 * 0.5);
  ck_assert_double_eq_tol(t.compute_hours, 1e4 * base * ((1 - g * 0.5) + g * 0.5 / 4) / 3600, 1e-9);
  gb_perf_free(&p);
  gb_specs_free(&s);
}
END_TEST

/* One Blackwell type (FP8 2x and FP4 4x its BF16 rate) and a dense 1e9-parameter shape, planned on 8 GPUs at a
 * precision; *bw its HBM rate. */
static void blackwell_time(const char *precision, gb_plan_time *t, double *bw) {
  static const char *sp =
      "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
      "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,source,date,fp4_tflops\n"
      "B-SXM-100GB,b,,,,,1000,1000,2000,,100,2000,500,400,blackwell,t,2026-12-01,4000\n";
  static const char *base = "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nlayers = 16\n"
                            "hidden_size = 2048\nheads = 16\nkv_heads = 4\nffn_hidden = 8192\ngoodput = 1\n";
  gb_specs s;
  ck_assert_int_eq(gb_specs_read_mem("s.csv", sp, strlen(sp), &s), GB_OK);
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  char ini[512];
  snprintf(ini, sizeof ini, "%sprecision = %s\n", base, precision);
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", ini, &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_OK);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&s, NULL, w.precision, 8192, false, &p), GB_OK);
  const gb_perf_type *b = gb_perf_find(&p, "B-SXM-100GB");
  *bw = b->hbm_gbps * 1e9;
  gb_plan_time_of(&w, &p, b, 8, 8, &o, t);
  ck_assert_int_eq(t->reject, GB_REJECT_NONE);
  gb_perf_free(&p);
  gb_specs_free(&s);
}

/* Block-scaled casts (MXFP8, NVFP4): each operand of the linear layers' GEMMs cast in two layouts, BF16
 * read, the format and its scales written, at HBM bandwidth; tensorwise FP8 has no such term. */
START_TEST(test_block_scaled_casts) {
  double mem[3], bw = 0;
  static const char *prec[] = {"fp8e4m3", "mxfp8", "nvfp4"};
  for (int i = 0; i < 3; i++) {
    gb_plan_time t;
    blackwell_time(prec[i], &t, &bw);
    mem[i] = t.memory_hours;
  }
  /* operands a token and layer: 4 x 2048 (whole on every TP rank, tp 1) + 2 x 2048 + 2 x 4 x 128 + 3 x 8192 =
   * 37,888 elements, two layouts each; 16 layers, 1e6 / 8 tokens a GPU a step, 1e4 steps */
  double elems = 4 * 2048 + 2 * 2048 + 2 * 4 * 128 + 3 * 8192.0;
  double per = 1e4 * 16 * 1e6 / 8 / bw / 3600;
  ck_assert_double_eq_tol(mem[1] - mem[0], per * elems * 2 * (2 + 1 + 1.0 / 32), 1e-9);
  ck_assert_double_eq_tol(mem[2] - mem[0], per * elems * 2 * (2 + 0.5 + 1.0 / 16), 1e-9);
}
END_TEST

/* A block-scaled recipe (MXFP8, NVFP4) runs at the row's block_scaled_eff of the GEMM rates, BF16's too; per-tensor
 * FP8 and BF16 at all of them, and a row without the field (Hopper) at all of them. */
START_TEST(test_block_scaled_eff) {
  static const char *prec[] = {"fp8e4m3", "mxfp8", "bf16"};
  gb_plan_time t[3];
  double bw;
  for (int i = 0; i < 3; i++) blackwell_time(prec[i], &t[i], &bw);
  double k = gb_arch_model_find("blackwell")->block_scaled_eff;
  ck_assert(k > 0 && k < 1);
  ck_assert_double_eq_tol(t[0].block_scaled_eff, 1, 1e-12);
  ck_assert_double_eq_tol(t[1].block_scaled_eff, k, 1e-12);
  ck_assert_double_eq_tol(t[2].block_scaled_eff, 1, 1e-12);
  /* MXFP8 and FP8 share the datasheet rate here: MXFP8's compute is FP8's over k, attention included */
  ck_assert_double_eq_tol(t[1].compute_hours, t[0].compute_hours / k, 1e-9);
  ck_assert(t[2].compute_hours > t[0].compute_hours);
  ck_assert_double_eq_tol(gb_arch_model_find("hopper")->block_scaled_eff, 0, 1e-12); /* none: 1 */
  ck_assert(gb_workload_is_block_scaled("nvfp4") && gb_workload_is_block_scaled("mxfp8"));
  ck_assert(!gb_workload_is_block_scaled("fp8e4m3") && !gb_workload_is_block_scaled("bf16"));
}
END_TEST

START_TEST(test_keys_layout) {
  n1_world x;
  n1_load(&x);
  gb_workload w;
  gb_plan_time t, t2;
  /* interleaving 2 chunks halves the bubble: (pp - 1) / (v m) */
  wl_train(&w, "pipeline_parallel = 2\nlayers = 16\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 2, 8, &x.o, &t);
  wl_train(&w, "pipeline_parallel = 2\nlayers = 16\nvirtual_pipeline = 2\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 2, 8, &x.o, &t2);
  ck_assert_double_eq_tol(t2.bubble_hours, t.bubble_hours / 2, 1e-12);
  /* layers must divide into pp x vp stages, unless uneven: then the fullest stage (ceil) sets the pace */
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                                                 "layers = 15\npipeline_parallel = 2\n", &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "layers 15 do not divide"));
  wl_train(&w, "pipeline_parallel = 2\nlayers = 15\nuneven_pipeline = true\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 2, 8, &x.o, &t2);
  wl_train(&w, "pipeline_parallel = 2\nlayers = 16\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 2, 8, &x.o, &t);
  ck_assert_double_eq_tol(t2.compute_hours / t.compute_hours, 16.0 / 15, 1e-12);
  /* context parallel: tp x pp x cp must divide the GPUs; the gradients reduce over dp x cp */
  wl_train(&w, "context_parallel = 4\nseq_len = 65536\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 6, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_LAYOUT);
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_NONE);
  ck_assert(t.dp_hours > 0);
  /* distributed optimizer: 4 + 12 / dp bytes a parameter: 1e9 x (4 + 12/8) = 5.5 GB, not 16 */
  wl_train(&w, "distributed_optimizer = true\nactivation_gb_per_gpu = 86\n");
  gb_plan_time_of(&w, &x.perf, x.n1, 8, 8, &x.o, &t);
  ck_assert_int_eq(t.reject, GB_REJECT_MEMORY);
  ck_assert_double_eq_tol(t.need, 86 + 5.5, 1e-9);
  /* mxfp8 is a Blackwell mode: a Hopper type has no rate for it */
  gb_specs s;
  gb_perf p;
  static const char *mx =
      "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
      "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,source,date\n"
      "H-SXM-100GB,h,,,,,1000,1000,2000,,100,2000,500,400,hopper,t,2026-12-01\n"
      "B-SXM-100GB,b,,,,,1000,1000,2000,,100,2000,500,400,blackwell,t,2026-12-01\n";
  ck_assert_int_eq(gb_specs_read_mem("s.csv", mx, strlen(mx), &s), GB_OK);
  ck_assert_int_eq(gb_perf_build(&s, NULL, "mxfp8", 8192, false, &p), GB_OK);
  ck_assert(isnan(gb_perf_find(&p, "H-SXM-100GB")->gemm_tflops));
  ck_assert(gb_perf_find(&p, "B-SXM-100GB")->gemm_tflops > 0);
  gb_perf_free(&p);
  gb_specs_free(&s);
  n1_free(&x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner_model");
  TCase *tc;
  tc = tcase_create("hand");
  tcase_add_test(tc, test_training_hand);
  tcase_add_test(tc, test_inference_generic_hand);
  tcase_add_test(tc, test_bases_and_bands);
  tcase_add_test(tc, test_time_model_parts);
  tcase_add_test(tc, test_inference_model);
  suite_add_tcase(s, tc);
  tc = tcase_create("keys");
  tcase_add_test(tc, test_keys_time_and_memory);
  tcase_add_test(tc, test_keys_gradients_and_nics);
  tcase_add_test(tc, test_keys_bucket_bytes);
  tcase_add_test(tc, test_keys_shape);
  tcase_add_test(tc, test_keys_moe);
  tcase_add_test(tc, test_keys_layout);
  tcase_add_test(tc, test_goodput_whole_run);
  tcase_add_test(tc, test_nvfp4_precision);
  tcase_add_test(tc, test_block_scaled_eff);
  tcase_add_test(tc, test_block_scaled_casts);
  tcase_add_test(tc, test_keys_inference_bytes);
  tcase_add_test(tc, test_head_dim_and_kv_copies);
  tcase_add_test(tc, test_attention_dp);
  tcase_add_test(tc, test_keys_constraints_and_name);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
