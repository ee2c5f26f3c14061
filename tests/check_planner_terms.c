/* Tests for the step-time terms that read the workload's shape and the
 * measured MoE figures: attention at its kernel's share of peak, element-wise
 * work at HBM bandwidth, a power-limited board, TP communication overlap, the
 * MoE dispatcher and its overlap, and measured grouped GEMM and alltoall rows. Each fails without
 * the key or row it names. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_planner_world.h"
#include "gb_model.h"

/* 8 GPUs of N1 (hopper: GEMM 800 of 1000 TFLOP/s, gemm_typical 0.80), a dense 16-layer model at 8K. */
static const char *const k_dense = "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\ngoodput = 1\n"
                                   "layers = 16\nhidden_size = 2048\nseq_len = 8192\n";

static void time_of(n1_world *x, const char *ini, int n, int gpn, gb_plan_time *t) {
  gb_workload w;
  wl_load(&w, ini);
  gb_plan_time_of(&w, &x->perf, x->n1, n, gpn, &x->o, t);
  ck_assert_int_eq(t->reject, GB_REJECT_NONE);
}

START_TEST(test_attention_kernel) {
  n1_world x;
  n1_load(&x);
  x.o.mfu = NAN; /* the efficiency table: attention is its own part */
  char ini[1024];
  gb_plan_time fused, fa2;
  time_of(&x, k_dense, 8, 8, &fused);
  snprintf(ini, sizeof ini, "%sattention_kernel = fa2\n", k_dense);
  time_of(&x, ini, 8, 8, &fa2);
  /* attention 6 x 16 x 8192 x 2048 model FLOPs a token (3 forwards' worth), run as the kernel's 1 + 2.5 forwards
   * (its backward recomputes QK^T); 1e6/8 tokens a GPU a step, 1e4 steps; at the peak the GEMM rate implies
   * (800 / 0.80 = 1000 TFLOP/s) x 0.50 (fused) or x 0.30 (FlashAttention-2) on Hopper */
  const gb_arch_model *m = gb_arch_model_find("hopper");
  ck_assert_double_eq_tol(m->attn_fused, 0.50, TOL);
  ck_assert_double_eq_tol(m->attn_fa2, 0.30, TOL);
  double attn = 6.0 * 16 * 8192 * 2048 / 3 * 3.5 * 1e6 / 8;
  double diff = 1e4 * attn * (1 / (1000e12 * 0.30) - 1 / (1000e12 * 0.50)) / 3600;
  ck_assert_double_eq_tol(fa2.compute_hours - fused.compute_hours, diff, 1e-9);
  /* a kernel the key does not know */
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_set(&w, "attention_kernel", "fa9", "t", 1), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "t: attention_kernel: \"fa9\" is not fused or fa2");
  n1_free(&x);
}
END_TEST

/* A stated flops_per_token: its attention part is what 6 N leaves. */
START_TEST(test_attention_from_stated_flops) {
  gb_workload w;
  wl_load(&w, "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nflops_per_token = 7e9\n"
              "layers = 16\nhidden_size = 2048\n");
  ck_assert_double_eq_tol(w.attention_flops_per_token, 1e9, 1e-3);
  /* derived from the shape: causal 6 x layers x seq x hidden */
  wl_load(&w, k_dense);
  ck_assert_double_eq_tol(w.attention_flops_per_token, 6.0 * 16 * 8192 * 2048, 1e-3);
}
END_TEST

START_TEST(test_elementwise_hbm) {
  n1_world x;
  n1_load(&x);
  gb_plan_time whole, parts;
  time_of(&x, k_dense, 8, 8, &whole); /* --mfu: one efficiency covers the step, no element-wise part */
  x.o.mfu = NAN;
  time_of(&x, k_dense, 8, 8, &parts);
  /* (3 x 12 x hidden + 3 x 3 x ffn (4 x hidden)) elements x 2 B x 16 layers a token at 1800 GB/s */
  double per_token = (36.0 * 2048 + 9.0 * 4 * 2048) * 2 * 16;
  double elem = 1e4 * per_token * 1e6 / 8 / 1800e9 / 3600;
  ck_assert_double_eq_tol(parts.memory_hours - whole.memory_hours, elem, 1e-9);
  n1_free(&x);
}
END_TEST

/* Shape keys the element-wise and FLOPs terms read: sequence_parallel, ffn_hidden, vocab_size; kv_heads in the
 * ring-attention traffic. */
START_TEST(test_shape_keys) {
  n1_world x;
  n1_load(&x);
  x.o.mfu = NAN;
  char ini[1024];
  gb_plan_time tp, sp, ffn;
  /* TP 8 without sequence parallel: the hidden-wide element-wise work runs whole on each of the 8 ranks */
  snprintf(ini, sizeof ini, "%stensor_parallel = 8\n", k_dense);
  time_of(&x, ini, 8, 8, &tp);
  snprintf(ini, sizeof ini, "%stensor_parallel = 8\nsequence_parallel = true\n", k_dense);
  time_of(&x, ini, 8, 8, &sp);
  double hidden_part = 1e4 * 36.0 * 2048 * 2 * 16 * 1e6 / 8 / 1800e9 / 3600;
  ck_assert_double_eq_tol(tp.memory_hours - sp.memory_hours, hidden_part * 7, 1e-9);
  /* ffn_hidden 16384 instead of 4 x 2048: 9 x (16384 - 8192) more elements a token and layer */
  snprintf(ini, sizeof ini, "%sffn_hidden = 16384\n", k_dense);
  gb_plan_time base;
  time_of(&x, k_dense, 8, 8, &base);
  time_of(&x, ini, 8, 8, &ffn);
  ck_assert_double_eq_tol(ffn.memory_hours - base.memory_hours, 1e4 * 9.0 * 8192 * 2 * 16 * 1e6 / 8 / 1800e9 / 3600,
                          1e-9);
  /* vocab_size: the input embedding is a lookup: 6 x vocab x hidden fewer FLOPs a token */
  gb_workload w;
  wl_load(&w, k_dense);
  double f0 = w.flops_per_token;
  snprintf(ini, sizeof ini, "%svocab_size = 32000\n", k_dense);
  wl_load(&w, ini);
  ck_assert_double_eq_tol(f0 - w.flops_per_token, 6.0 * 32000 * 2048, 1e-3);
  /* kv_heads: ring attention passes K and V of kv_heads heads; an exposed ring (a slow NIC) shows the ratio */
  x.o.nic_gbps = 0.001;
  snprintf(ini, sizeof ini, "%scontext_parallel = 16\nheads = 16\nkv_heads = 16\n", k_dense);
  gb_plan_time full, gqa;
  time_of(&x, ini, 16, 8, &full);
  snprintf(ini, sizeof ini, "%scontext_parallel = 16\nheads = 16\nkv_heads = 4\n", k_dense);
  time_of(&x, ini, 16, 8, &gqa);
  ck_assert(gqa.tp_hours < full.tp_hours / 3.9);
  n1_free(&x);
}
END_TEST

START_TEST(test_power_limit) {
  static const char *specs =
      "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
      "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,arch,source,date,rated_w\n"
      "P5-SXM-96GB,p,,,,,989.5,989.5,1979,,96,2400,500,900,hopper,test,2026-12-01,700\n"
      "P7-SXM-80GB,p,,,,,989.5,989.5,1979,,80,3350,700,900,hopper,test,2026-12-01,\n";
  gb_specs s;
  ck_assert_int_eq(gb_specs_read_mem("s.csv", specs, strlen(specs), &s), GB_OK);
  /* (500 / 700)^0.30 = 0.9042 of the rates quoted at 700 W; none without rated_w */
  double k = pow(500.0 / 700.0, 0.30);
  ck_assert_double_eq_tol(gb_spec_power_scale(&s.v[0]), k, 1e-12);
  ck_assert_double_eq_tol(gb_spec_peak(&s.v[0], "bf16"), 989.5 * k, 1e-9);
  ck_assert_double_eq_tol(gb_spec_peak(&s.v[0], "fp8e4m3"), 1979 * k, 1e-9);
  ck_assert_double_eq_tol(gb_spec_peak(&s.v[1], "bf16"), 989.5, 1e-9);
  gb_perf p;
  ck_assert_int_eq(gb_perf_build(&s, NULL, "bf16", 8192, false, &p), GB_OK);
  ck_assert_double_eq_tol(p.v[0].gemm_tflops / p.v[1].gemm_tflops, k, 1e-9);
  gb_perf_free(&p);
  gb_specs_free(&s);
}
END_TEST

/* A sliding window caps what a layer attends to: 12 of the 16 layers at 1024 of the 8192 tokens attend to 1024 x
 * 8192 - 1024^2 / 2 token pairs a sequence instead of 8192^2 / 2, 4 x 2048 FLOPs each, forward; training runs 3
 * forwards' worth a token. The attention time falls by the FLOPs saved at Hopper's fused share of the peak, as
 * test_attention_kernel times them (1 + 2.5 forwards, 1e6 / 8 tokens a GPU, 1e4 steps). */
START_TEST(test_sliding_window) {
  n1_world x;
  n1_load(&x);
  x.o.mfu = NAN;
  char ini[1024];
  gb_workload w;
  snprintf(ini, sizeof ini, "%ssliding_window = 1024\nsliding_window_layers = 12\n", k_dense);
  wl_load(&w, ini);
  double pairs = 4 * 8192.0 * 8192 / 2 + 12 * (1024.0 * 8192 - 1024.0 * 1024 / 2);
  ck_assert_double_eq_tol(w.attention_flops_per_token, 3 * 4 * 2048 * pairs / 8192, 1);
  ck_assert_double_eq_tol(gb_workload_attn_fwd_flops(&w, 8192), 4 * 2048 * pairs, 1);
  gb_plan_time full, win;
  time_of(&x, k_dense, 8, 8, &full);
  time_of(&x, ini, 8, 8, &win);
  double saved = 6.0 * 16 * 8192 * 2048 - w.attention_flops_per_token;
  ck_assert_double_eq_tol(full.compute_hours - win.compute_hours,
                          1e4 * saved / 3 * 3.5 * 1e6 / 8 / (1000e12 * 0.50) / 3600, 1e-9);
  /* every layer when sliding_window_layers is not given; a window past the sequence changes nothing */
  snprintf(ini, sizeof ini, "%ssliding_window = 1024\n", k_dense);
  wl_load(&w, ini);
  ck_assert_double_eq_tol(w.sliding_window_layers, 16, TOL);
  snprintf(ini, sizeof ini, "%ssliding_window = 8192\n", k_dense);
  wl_load(&w, ini);
  ck_assert_double_eq_tol(w.attention_flops_per_token, 6.0 * 16 * 8192 * 2048, 1);
  /* sliding_window_layers alone, or more than the layers: the key's line */
  gb_workload_init(&w);
  snprintf(ini, sizeof ini, "%ssliding_window_layers = 4\n", k_dense);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", ini, &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "w.ini:9: sliding_window_layers: needs sliding_window");
  gb_workload_init(&w);
  snprintf(ini, sizeof ini, "%ssliding_window = 64\nsliding_window_layers = 17\n", k_dense);
  ck_assert_int_eq(gb_workload_read_mem("w.ini", ini, &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "w.ini:10: sliding_window_layers: 17 is more than layers 16");
  n1_free(&x);
}
END_TEST

/* 16 GPUs on two N1 nodes, EP 16: the MoE of test_keys_moe. */
static const char *const k_moe = "type = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\n"
                                 "tokens_per_step = 1e6\ngoodput = 1\nlayers = 16\nhidden_size = 2048\n"
                                 "flops_per_token = 1.2e10\nexpert_parallel = 16\n";

/* 8 GPUs of one N1 node, EP 8: 16 experts of 1024, top-2 (the default), 16 layers. */
static const char *const k_moe8 = "type = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\n"
                                  "tokens_per_step = 1e6\ngoodput = 1\nlayers = 16\nhidden_size = 2048\n"
                                  "flops_per_token = 1.2e10\nexperts = 16\nexpert_ffn_hidden = 1024\nexpert_parallel = 8\n";

START_TEST(test_moe_dispatcher) {
  n1_world x;
  n1_load(&x);
  x.o.overlap = 1;
  char ini[1024];
  gb_plan_time fused, nccl, half;
  time_of(&x, k_moe, 16, 8, &fused);
  snprintf(ini, sizeof ini, "%smoe_dispatcher = alltoall\n", k_moe);
  time_of(&x, ini, 16, 8, &nccl);
  /* NCCL AlltoAll: every copy of a token to a remote expert crosses the NICs (top_k 2 x 8 of 16 ranks remote =
   * 1 copy, not the 0.75 forwarded once a node), nothing hidden behind compute */
  double per_copy = 1e6 / 16 * 16 * 2048 * 2.0 * 2 * 2;
  ck_assert_double_eq_tol(nccl.a2a_hours, 1e4 * per_copy * 1.0 / 45e9 / 3600, 1e-9);
  /* fused at --overlap 1: hidden, but the 20 of 132 SMs it holds slow the compute it hides behind */
  double a2a = per_copy * 0.75 / 45e9, sm = 20.0 / 132;
  ck_assert_double_eq_tol(fused.a2a_hours, 1e4 * a2a * sm / (1 - sm) / 3600, 1e-9);
  /* moe_overlap 0.5: half of it exposed */
  snprintf(ini, sizeof ini, "%smoe_overlap = 0.5\n", k_moe);
  time_of(&x, ini, 16, 8, &half);
  ck_assert_double_eq_tol(half.a2a_hours, 1e4 * (a2a * 0.5 + a2a * 0.5 * sm / (1 - sm)) / 3600, 1e-9);
  /* full recompute reruns the forward's dispatch and combine: 3 passes of them, not 2 */
  gb_plan_time rc;
  snprintf(ini, sizeof ini, "%smoe_dispatcher = alltoall\nrecompute = true\n", k_moe);
  time_of(&x, ini, 16, 8, &rc);
  ck_assert_double_eq_tol(rc.a2a_hours, nccl.a2a_hours * 1.5, 1e-9);
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_set(&w, "moe_dispatcher", "deepep", "t", 1), GB_E_INPUT);
  n1_free(&x);
}
END_TEST

/* tp_comm_overlap hides that share of the TP time behind the compute: TP 8 on one N1 node; the step loses exactly
 * share x t_tp (the compute is longer), the TP hours keep what is exposed, and a share outside 0-1 is refused. */
START_TEST(test_tp_comm_overlap) {
  n1_world x;
  n1_load(&x);
  /* the dense model's shape at 2e10 parameters: its compute outlasts its TP traffic */
  const char *big = "type = training\nparams = 2e10\ntokens = 1e10\ntokens_per_step = 1e6\ngoodput = 1\n"
                    "layers = 16\nhidden_size = 2048\nseq_len = 8192\ntensor_parallel = 8\n";
  char ini[1024];
  gb_plan_time none, half, all, unsaid;
  snprintf(ini, sizeof ini, "%stp_comm_overlap = 0\n", big);
  time_of(&x, ini, 8, 8, &none);
  snprintf(ini, sizeof ini, "%stp_comm_overlap = 0.5\n", big);
  time_of(&x, ini, 8, 8, &half);
  snprintf(ini, sizeof ini, "%stp_comm_overlap = 1\n", big);
  time_of(&x, ini, 8, 8, &all);
  ck_assert_msg(none.tp_hours > 0 && none.compute_hours > none.tp_hours, "tp %g comp %g", none.tp_hours, none.compute_hours);
  ck_assert_double_eq_tol(half.tp_hours, none.tp_hours / 2, 1e-9);
  ck_assert_double_eq_tol(all.tp_hours, 0, 1e-9);
  ck_assert_double_eq_tol(none.hours - half.hours, none.tp_hours / 2, 1e-9);
  ck_assert_double_eq_tol(none.hours - all.hours, none.tp_hours, 1e-9);
  ck_assert_double_eq_tol(all.compute_hours, none.compute_hours, 1e-9);
  ck_assert_double_eq_tol(all.tp_hidden_hours, none.tp_hours, 1e-9); /* what --explain prints as hidden */
  ck_assert_double_eq_tol(none.tp_hidden_hours, 0, 1e-12);
  /* unstated: 0.3 of it hidden, the fit half's choice (a stated 0 above stays 0) */
  time_of(&x, big, 8, 8, &unsaid);
  ck_assert_double_eq_tol(unsaid.tp_hidden_hours, 0.3 * none.tp_hours, 1e-9);
  ck_assert_double_eq_tol(none.hours - unsaid.hours, 0.3 * none.tp_hours, 1e-9);
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_set(&w, "tp_comm_overlap", "1.5", "t", 1), GB_E_INPUT);
  n1_free(&x);
}
END_TEST

/* The measured N1 campaign plus rows of the MoE benchmarks. */
static void moe_perf(gb_results *m, gb_specs *s, gb_perf *p, const char *rows) {
  char csv[4096];
  snprintf(csv, sizeof csv, "%s%s", k_measured_n1, rows);
  ck_assert_int_eq(gb_results_read_mem("m.csv", csv, strlen(csv), m), GB_OK);
  ck_assert_int_eq(gb_specs_read_mem("s.csv", k_specs_arch, strlen(k_specs_arch), s), GB_OK);
  ck_assert_int_eq(gb_perf_build(s, m, "bf16", 8192, false, p), GB_OK);
}

#define ROW "1,r,2026-12-02T00:00:00Z,h,N1-SXM-100GB,f,"

/* shared_experts widen the FFN every token passes (element-wise work); micro_batch_size is micro_batch. */
/* Expert parallelism folds over the tensor-parallel ranks (Megatron-Core's MoE Parallel Folding, expert TP 1): TP 2
 * EP 16 on 32 N1 GPUs (4 nodes of 8) puts 16 consecutive ranks, 2 whole nodes, in an EP group, not 4 nodes of 4
 * EP ranks each. A GPU dispatches its sequence-parallel half of its replica's tokens: 1e6 / 16 / 2 tokens x 16
 * layers x 2048 x 2 B x 2 (dispatch, combine) x 2 (fwd, bwd) a copy; NVLink carries 2 x 15/16 copies at 160 GB/s,
 * the NICs 1 - (1/2)^2 = 0.75 (two domains; with 4 they would carry 3 (1 - (3/4)^2) = 1.31) at 45 GB/s; nothing
 * overlapped. */
START_TEST(test_moe_ep_folds_over_tp) {
  n1_world x;
  n1_load(&x);
  x.o.overlap = 0;
  char ini[1024];
  snprintf(ini, sizeof ini, "%stensor_parallel = 2\nsequence_parallel = true\nmoe_routing = balanced\n", k_moe);
  gb_plan_time t;
  time_of(&x, ini, 32, 8, &t);
  double per_copy = 1e6 / 16 / 2 * 16 * 2048 * 2.0 * 2 * 2;
  ck_assert_double_eq_tol(t.a2a_hours, 1e4 * fmax(per_copy * 2 * 15 / 16 / 160e9, per_copy * 0.75 / 45e9) / 3600, 1e-9);
  n1_free(&x);
}
END_TEST

START_TEST(test_moe_shape_keys) {
  n1_world x;
  n1_load(&x);
  x.o.mfu = NAN;
  char ini[1024];
  gb_plan_time routed, shared;
  time_of(&x, k_moe8, 8, 8, &routed);
  snprintf(ini, sizeof ini, "%sshared_experts = 1\n", k_moe8);
  time_of(&x, ini, 8, 8, &shared);
  /* one more expert's 1024 wide FFN a token: 9 x 1024 elements x 2 B x 16 layers at 1800 GB/s */
  ck_assert_double_eq_tol(shared.memory_hours - routed.memory_hours,
                          1e4 * 9.0 * 1024 * 2 * 16 * 1e6 / 8 / 1800e9 / 3600, 1e-9);
  gb_workload w;
  snprintf(ini, sizeof ini, "%smicro_batch_size = 3\n", k_moe8);
  wl_load(&w, ini);
  ck_assert_double_eq_tol(w.micro_batch, 3, TOL);
  n1_free(&x);
}
END_TEST

/* The router and the token permutation, by hand, on 8 N1 GPUs (1800 GB/s; --mfu 0.5 of 800 TFLOP/s): each of the
 * 1e6 tokens of a step, in each of 16 layers and 3 passes (forward, backward twice its traffic), is permuted into
 * its 2 expert copies and back, 2 x (1 + 2) x 2048 x 2 B, on the busiest rank's load (learned routing: 1.5); the
 * router runs its 2 x 2048 x 16 FLOP logits at the BF16 rate and moves 16 x 16 B of scores. Balanced routing
 * takes the 1.5 away; a capacity factor of 1.25 caps it. */
START_TEST(test_moe_router_permute) {
  n1_world x;
  n1_load(&x);
  gb_plan_time t;
  time_of(&x, k_moe8, 8, 8, &t);
  double tokens = 1e6 * 16 * 3 / 8.0, steps = 1e4;
  double permute = tokens * 1.5 * 2 * 3 * 2048 * 2 / 1800e9;
  double router = tokens * (2.0 * 2048 * 16 / (800e12 * 0.5) + 16.0 * 16 / 1800e9);
  ck_assert_double_eq_tol(t.permute_hours, steps * permute / 3600, 1e-9);
  ck_assert_double_eq_tol(t.router_hours, steps * router / 3600, 1e-9);
  ck_assert_double_eq_tol(t.moe_imbalance, 1.5, TOL);
  char ini[1024];
  snprintf(ini, sizeof ini, "%smoe_routing = balanced\n", k_moe8);
  time_of(&x, ini, 8, 8, &t);
  ck_assert_double_eq_tol(t.permute_hours, steps * permute / 1.5 / 3600, 1e-9);
  ck_assert_double_eq_tol(t.moe_imbalance, 1, TOL);
  snprintf(ini, sizeof ini, "%smoe_capacity_factor = 1.25\n", k_moe8);
  time_of(&x, ini, 8, 8, &t);
  ck_assert_double_eq_tol(t.moe_imbalance, 1.25, TOL);
  ck_assert_double_eq_tol(t.permute_hours, steps * permute / 1.5 * 1.25 / 3600, 1e-9);
  /* the NCCL all-to-all dispatcher sorts the exchanged copies by local expert and back (2 experts a rank here):
   * one more read and write of the 2 copies each way, 4 x 2 x 2048 x 2 B a token and pass */
  snprintf(ini, sizeof ini, "%smoe_dispatcher = alltoall\n", k_moe8);
  time_of(&x, ini, 8, 8, &t);
  ck_assert_double_eq_tol(t.permute_hours, steps * permute * (2 * 3 + 4 * 2) / (2 * 3) / 3600, 1e-9);
  /* a dense model has none of it */
  time_of(&x, "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n", 8, 8, &t);
  ck_assert_double_eq_tol(t.permute_hours + t.router_hours, 0, TOL);
  ck_assert(isnan(t.moe_imbalance) && isnan(t.expert_eff));
  gb_workload w;
  gb_workload_init(&w);
  ck_assert_int_eq(gb_workload_set(&w, "moe_routing", "random", "t", 1), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "t: moe_routing: \"random\" is not learned or balanced");
  ck_assert_int_eq(gb_workload_set(&w, "moe_capacity_factor", "0.5", "t", 1), GB_E_INPUT);
  n1_free(&x);
}
END_TEST

/* moe_layers: a model whose other layers run a dense FFN routes, permutes and dispatches its tokens only in its MoE
 * layers, and spends only their share of its FLOPs in the experts (8 N1 GPUs, EP 8, top-2, 16 layers). */
START_TEST(test_moe_layers) {
  n1_world x;
  n1_load(&x);
  x.o.mfu = NAN;
  char ini[1024];
  gb_plan_time all, t[3];
  time_of(&x, k_moe8, 8, 8, &all);
  static const int ml[3] = {4, 8, 16};
  for (int i = 0; i < 3; i++) {
    snprintf(ini, sizeof ini, "%smoe_layers = %d\n", k_moe8, ml[i]);
    time_of(&x, ini, 8, 8, &t[i]);
  }
  /* 16 of 16 is the default */
  ck_assert_double_eq_tol(t[2].compute_hours, all.compute_hours, 1e-12);
  ck_assert_double_eq_tol(t[2].a2a_hours, all.a2a_hours, 1e-12);
  /* router, permutation and all-to-all: per MoE layer */
  ck_assert(all.a2a_hours > 0 && all.permute_hours > 0);
  ck_assert_double_eq_tol(t[0].permute_hours, all.permute_hours / 4, 1e-12);
  ck_assert_double_eq_tol(t[0].router_hours, all.router_hours / 4, 1e-12);
  ck_assert_double_eq_tol(t[0].a2a_hours, all.a2a_hours / 4, 1e-12);
  /* the experts' share of the FLOPs, and with it the extra time of their GEMMs, is linear in the MoE layers */
  ck_assert(t[0].compute_hours < t[1].compute_hours && t[1].compute_hours < t[2].compute_hours);
  ck_assert_double_eq_tol(t[2].compute_hours - t[1].compute_hours, 2 * (t[1].compute_hours - t[0].compute_hours),
                          1e-12);
  /* the dense layers' FFN is ffn_hidden wide: 4 layers of 4096 for 4 of the routed 2 x 1024, 9 elements of
   * traffic each, 2 B, 1e6 / 8 tokens a GPU a step, 1e4 steps at 1800 GB/s */
  gb_plan_time wide;
  snprintf(ini, sizeof ini, "%smoe_layers = 12\nffn_hidden = 4096\n", k_moe8);
  time_of(&x, ini, 8, 8, &wide);
  snprintf(ini, sizeof ini, "%smoe_layers = 12\n", k_moe8);
  time_of(&x, ini, 8, 8, &t[0]);
  ck_assert_double_eq_tol(wide.memory_hours - t[0].memory_hours,
                          1e4 * 9.0 * 4 * (4096 - 2048) * 2 * 1e6 / 8 / 1800e9 / 3600, 1e-9);
  /* more MoE layers than layers, or MoE layers without experts: the key's line */
  gb_workload w;
  gb_workload_init(&w);
  snprintf(ini, sizeof ini, "%smoe_layers = 17\n", k_moe8);
  ck_assert_int_eq(gb_workload_read_mem("m.ini", ini, &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "m.ini:13: moe_layers: 17 is more than layers 16");
  gb_workload_init(&w);
  static const char *dense = "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nmoe_layers = 2\n";
  ck_assert_int_eq(gb_workload_read_mem("d.ini", dense, &w), GB_OK);
  ck_assert_int_eq(gb_workload_finish(&w), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "d.ini:5: moe_layers: needs experts");
  n1_free(&x);
}
END_TEST

/* Imbalance on the all-to-all's two tiers, 16 N1 GPUs on 2 nodes, EP 16, top-2, nothing overlapped: the NICs (45
 * GB/s a GPU, 0.75 remote copies a token) outweigh NVLink (160 GB/s, 1.875 copies) even after the busiest rank's
 * 1.5 x on NVLink; a node's NICs carry its 8 ranks' sum, whose excess shrinks to 0.5 / sqrt(8). */
START_TEST(test_moe_imbalance_tiers) {
  n1_world x;
  n1_load(&x);
  static const char *moe = "type = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                           "goodput = 1\nlayers = 16\nhidden_size = 2048\nflops_per_token = 1.2e10\nexperts = 16\n"
                           "expert_ffn_hidden = 1024\nexpert_parallel = 16\nmoe_routing = %s\n";
  char ini[1024];
  gb_plan_time bal, learned;
  snprintf(ini, sizeof ini, moe, "balanced");
  time_of(&x, ini, 16, 8, &bal);
  snprintf(ini, sizeof ini, moe, "learned");
  time_of(&x, ini, 16, 8, &learned);
  ck_assert(bal.a2a_hours > 0);
  ck_assert_double_eq_tol(learned.a2a_hours / bal.a2a_hours, 1 + 0.5 / sqrt(8.0), 1e-9);
  n1_free(&x);
}
END_TEST

START_TEST(test_measured_grouped_gemm) {
  /* expert FFN 1024 on hidden 2048, top-2 of 16 experts, EP 8: 1e6/8 x 2 ... tokens per expert per micro-batch:
   * micro-batch 2048 tokens x 8 x 2 / 16 = 2048 rows; grouped rows at m = 2048 for both expert GEMMs at 200 of the
   * dense 800 TFLOP/s: the expert GEMMs take 4x their dense time */
  static const char *moe = "type = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                           "goodput = 1\nlayers = 16\nhidden_size = 2048\nflops_per_token = 1.2e10\nexperts = 16\n"
                           "expert_ffn_hidden = 1024\nexpert_parallel = 8\nmoe_routing = balanced\n";
  static const char *grouped =
      ROW "1,1,1,gemm,grouped_bf16,bf16,2048,2048,2048,,tflops,TFLOP/s,200,1,200,200,0,ok,,,,,\n" ROW
      "1,1,1,gemm,grouped_bf16,bf16,2048,2048,1024,,tflops,TFLOP/s,200,1,200,200,0,ok,,,,,\n";
  gb_results m0, m1;
  gb_specs s0, s1;
  gb_perf p0, p1;
  moe_perf(&m0, &s0, &p0, "");
  moe_perf(&m1, &s1, &p1, grouped);
  const gb_perf_type *t0 = gb_perf_find(&p0, "N1-SXM-100GB"), *t1 = gb_perf_find(&p1, "N1-SXM-100GB");
  ck_assert_double_eq_tol(t1->gemm_tflops, 800, 1e-9); /* grouped rows are not a dense GEMM rate */
  ck_assert_uint_eq(t1->ngrouped, 2);
  ck_assert_double_eq_tol(gb_perf_grouped_tflops(t1, "bf16", 2048, 2048, 1024), 200, 1e-9);
  ck_assert(isnan(gb_perf_grouped_tflops(t1, "fp8e4m3", 2048, 2048, 1024)));
  gb_workload w;
  wl_load(&w, moe);
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.mfu = 0.5, o.overlap = 0;
  gb_plan_time a, b;
  gb_plan_time_of(&w, &p0, t0, 8, 8, &o, &a);
  gb_plan_time_of(&w, &p1, t1, 8, 8, &o, &b);
  /* expert FLOPs 6 x 3 x 2048 x 1024 x 2 x 16 = 1.208e9 of 1.2e10 a token, GEMM share 0.75 at 2e9 active:
   * factor 1 + 0.75 x 0.1007 x (1/0.25 - 1) over the model's (tiles full, above the ridge: 1) */
  double share = 6.0 * 3 * 2048 * 1024 * 2 * 16 / 1.2e10;
  double g = gb_model_at_size(gb_arch_model_find("hopper")->gemm_share, 2e9);
  /* the model's curve: above the ridge, tiles full, the small-shape factor (n k / 2^24)^0.075: gate/up 2048 x 2048
   * 0.9013, down 2048 x 1024 0.8555; harmonic 3 / (2 / 0.9013 + 1 / 0.8555) */
  double e_up = pow(2048.0 * 2048 / 16777216.0, 0.075), e_down = pow(2048.0 * 1024 / 16777216.0, 0.075);
  double e_model = 3 / (2 / e_up + 1 / e_down);
  double fa = (1 - share) + share * ((1 - g) + g / e_model), fb = (1 - share) + share * ((1 - g) + g / 0.25);
  ck_assert_double_eq_tol(b.compute_hours / a.compute_hours, fb / fa, 1e-9);
  gb_perf_free(&p0), gb_perf_free(&p1);
  gb_specs_free(&s0), gb_specs_free(&s1);
  gb_results_free(&m0), gb_results_free(&m1);
}
END_TEST

START_TEST(test_measured_alltoall) {
  /* EP 8 in one node: the all-reduce projection says 160 GB/s; a measured alltoall of 8 GPUs says 80 */
  static const char *rows = ROW "8,1,1,collective,alltoall,bf16,,,,1048576,busbw_gbps,GB/s,80,1,80,80,0,ok,,,,,\n" ROW
                                "8,1,1,collective,sendrecv,bf16,,,,1048576,busbw_gbps,GB/s,90,1,90,90,0,ok,,,,,\n";
  gb_results m0, m1;
  gb_specs s0, s1;
  gb_perf p0, p1;
  moe_perf(&m0, &s0, &p0, "");
  moe_perf(&m1, &s1, &p1, rows);
  const gb_perf_type *t0 = gb_perf_find(&p0, "N1-SXM-100GB"), *t1 = gb_perf_find(&p1, "N1-SXM-100GB");
  ck_assert_double_eq_tol(gb_perf_coll_gbps(t1, "alltoall", 8, 1e8), 80, 1e-9);
  ck_assert_double_eq_tol(gb_perf_coll_gbps(t1, "sendrecv", 8, 1e3), 90, 1e-9);
  ck_assert(isnan(gb_perf_coll_gbps(t0, "alltoall", 8, 1e8)));
  ck_assert_uint_eq(t1->ncurves, 0); /* not an all-reduce curve */
  gb_workload w;
  wl_load(&w, "type = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
              "goodput = 1\nlayers = 16\nhidden_size = 2048\nflops_per_token = 1.2e10\nexpert_parallel = 8\n");
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.mfu = 0.5, o.overlap = 0;
  gb_plan_time a, b;
  gb_plan_time_of(&w, &p0, t0, 8, 8, &o, &a);
  gb_plan_time_of(&w, &p1, t1, 8, 8, &o, &b);
  ck_assert_double_eq_tol(b.a2a_hours / a.a2a_hours, 160.0 / 80, 1e-9);
  gb_perf_free(&p0), gb_perf_free(&p1);
  gb_specs_free(&s0), gb_specs_free(&s1);
  gb_results_free(&m0), gb_results_free(&m1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("planner_terms");
  TCase *tc = tcase_create("terms");
  tcase_add_test(tc, test_attention_kernel);
  tcase_add_test(tc, test_attention_from_stated_flops);
  tcase_add_test(tc, test_elementwise_hbm);
  tcase_add_test(tc, test_shape_keys);
  tcase_add_test(tc, test_power_limit);
  tcase_add_test(tc, test_moe_dispatcher);
  tcase_add_test(tc, test_tp_comm_overlap);
  tcase_add_test(tc, test_moe_ep_folds_over_tp);
  tcase_add_test(tc, test_moe_shape_keys);
  tcase_add_test(tc, test_measured_grouped_gemm);
  tcase_add_test(tc, test_moe_router_permute);
  tcase_add_test(tc, test_moe_imbalance_tiers);
  tcase_add_test(tc, test_moe_layers);
  tcase_add_test(tc, test_sliding_window);
  tcase_add_test(tc, test_measured_alltoall);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
