/* Tests for the GEMM benchmark's pure parts (bench/gemm/bench_gemm.h) on the CPU:
 * FLOP accounting, the precision table, shapes, check thresholds and the
 * check decision on host arrays, the unsupported-precision decision, the
 * timing plan and the options. The layouts, the plan and the extended
 * search's ranking: check_gemm_layout.c; speedup rows and the end-of-run
 * table: check_gemm_derive.c; grouped GEMM: check_gemm_grouped.c.
 * Hand-computed values carry their arithmetic in comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_device.h"
#include "testutil.h"

extern const gb_bench gb_bench_gemm;

/* ---- FLOPs and the precision table ---- */

START_TEST(test_flops) {
  /* 2 * 8192^3 = 2 * 549755813888 = 1099511627776 */
  ck_assert_double_eq(gb_gemm_flops(8192, 8192, 8192), 1099511627776.0);
  /* 2 * 4096 * 14336 * 4096 = 2 * 240518168576 = 481036337152 */
  ck_assert_double_eq(gb_gemm_flops(4096, 14336, 4096), 481036337152.0);
  /* decode: 2 * 1 * 14336 * 4096 = 117440512 */
  ck_assert_double_eq(gb_gemm_flops(1, 14336, 4096), 117440512.0);
  /* 2 * 16384 * 28672 * 8192 = 7696581394432 (no int overflow on the way) */
  ck_assert_double_eq(gb_gemm_flops(16384, 28672, 8192), 7696581394432.0);
}
END_TEST

START_TEST(test_prec_table) {
  size_t n;
  const gb_gemm_prec *p = gb_gemm_precs(&n);
  ck_assert_uint_eq(n, 15); /* 13 + the block-scaled mxfp8 and nvfp4 */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) ck_assert_str_ne(p[i].name, p[j].name);

  const gb_gemm_prec *fp32 = gb_gemm_prec_find("fp32"), *tf32 = gb_gemm_prec_find("tf32");
  ck_assert_ptr_nonnull(fp32);
  ck_assert_ptr_nonnull(tf32);
  /* fp32 is plain fp32: never the TF32 compute type, never labelled tf32 */
  ck_assert_int_eq(fp32->compute, CUBLAS_COMPUTE_32F);
  ck_assert_str_eq(fp32->dtype, "fp32");
  ck_assert_int_eq(tf32->compute, CUBLAS_COMPUTE_32F_FAST_TF32);
  ck_assert_str_eq(tf32->dtype, "tf32");

  const gb_gemm_prec *h16 = gb_gemm_prec_find("fp16acc16");
  ck_assert_int_eq(h16->compute, CUBLAS_COMPUTE_16F);
  ck_assert_int_eq(h16->scale_cuda, CUDA_R_16F);
  ck_assert_int_eq(gb_gemm_prec_find("fp16")->compute, CUBLAS_COMPUTE_32F);
  ck_assert_int_eq(gb_gemm_prec_find("bf16")->a_cuda, CUDA_R_16BF);
  ck_assert_int_eq(gb_gemm_prec_find("fp64")->compute, CUBLAS_COMPUTE_64F);

  /* fp8: both fast-accumulation settings, bf16 output, real scales */
  const char *fp8[] = {"fp8e4m3_slowacc", "fp8e4m3_fastacc", "fp8e4m3xe5m2_slowacc", "fp8e4m3xe5m2_fastacc"};
  for (int i = 0; i < 4; i++) {
    const gb_gemm_prec *f = gb_gemm_prec_find(fp8[i]);
    ck_assert_ptr_nonnull(f);
    ck_assert(f->fp8);
    ck_assert_int_eq(f->fast_accum, strstr(fp8[i], "_fastacc") ? 1 : 0);
    ck_assert_int_eq(f->a_cuda, CUDA_R_8F_E4M3);
    ck_assert_int_eq(f->b_cuda, strstr(fp8[i], "xe5m2") ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3);
    ck_assert_int_eq(f->d_cuda, CUDA_R_16BF);
    ck_assert_str_eq(f->dtype, "fp8e4m3");
    ck_assert_double_eq(f->scale_a, 0.25);
    ck_assert_int_eq(f->min_cc, 89);
    ck_assert(!f->out_fp8);
    ck_assert_double_eq(gb_gemm_scale_d(f), 1.0); /* no D scale on a bf16 output */
  }
  /* fp8 e4m3 output: both accumulation settings, D scale 0.5 */
  const char *out8[] = {"fp8e4m3_e4m3out_slowacc", "fp8e4m3_e4m3out_fastacc"};
  for (int i = 0; i < 2; i++) {
    const gb_gemm_prec *f = gb_gemm_prec_find(out8[i]);
    ck_assert_ptr_nonnull(f);
    ck_assert(f->fp8 && f->out_fp8);
    ck_assert_int_eq(f->fast_accum, i);
    ck_assert_int_eq(f->d_cuda, CUDA_R_8F_E4M3);
    ck_assert_int_eq(f->d_type, GB_DT_F8E4M3);
    ck_assert_str_eq(f->dtype, "fp8e4m3");
    ck_assert_double_eq(gb_gemm_scale_d(f), 0.5);
    /* the largest |D| expected: 5.5 sigma of sqrt(k/9) at k = 28672 (~310), halved, inside e4m3's 448 */
    ck_assert(5.5 * sqrt(28672.0 / 9.0) * gb_gemm_scale_d(f) < 448.0);
  }

  const gb_gemm_prec *i8 = gb_gemm_prec_find("int8");
  ck_assert_int_eq(i8->compute, CUBLAS_COMPUTE_32I);
  ck_assert_int_eq(i8->d_cuda, CUDA_R_32I);
  ck_assert_str_eq(gb_gemm_metric(i8), "tops");
  ck_assert_str_eq(gb_gemm_unit(i8), "TOP/s");
  ck_assert_str_eq(gb_gemm_metric(fp32), "tflops");
  ck_assert_str_eq(gb_gemm_unit(fp32), "TFLOP/s");
  ck_assert_ptr_null(gb_gemm_prec_find("fp4"));

  /* int8 range [-8, 8]: the largest |sum| 64 * 28672 = 1835008 fits int32 */
  ck_assert_double_eq(i8->a_hi * i8->b_hi * 28672, 1835008.0);
}
END_TEST

/* ---- shapes, memory, sampling ---- */

static bool has_shape(const gb_gemm_shape *s, size_t n, int64_t m, int64_t nn, int64_t k) {
  for (size_t i = 0; i < n; i++)
    if (s[i].m == m && s[i].n == nn && s[i].k == k) return true;
  return false;
}

START_TEST(test_shapes) {
  gb_gemm_shape s[64];
  size_t nq = gb_gemm_shapes(GB_PROFILE_QUICK, s, 64);
  ck_assert_uint_eq(nq, 4);
  ck_assert(has_shape(s, nq, 8192, 8192, 8192));
  ck_assert_uint_eq(gb_gemm_shapes(GB_PROFILE_QUICK, NULL, 0), 4);

  /* full: 8 squares + 2 token counts x 4 (N,K) + 3 decode M x 4 (N,K) = 28 */
  size_t nf = gb_gemm_shapes(GB_PROFILE_FULL, s, 64);
  ck_assert_uint_eq(nf, 28);
  const int64_t sq[] = {1024, 6144, 8192, 12288, 16384};
  for (int i = 0; i < 5; i++) ck_assert(has_shape(s, nf, sq[i], sq[i], sq[i]));
  ck_assert(has_shape(s, nf, 4096, 14336, 4096));   /* MLP up, hidden 4096 */
  ck_assert(has_shape(s, nf, 4096, 4096, 14336));   /* MLP down */
  ck_assert(has_shape(s, nf, 16384, 28672, 8192));  /* hidden 8192, 16384 tokens */
  ck_assert(has_shape(s, nf, 16384, 8192, 28672));
  ck_assert(has_shape(s, nf, 1, 14336, 4096));
  ck_assert(has_shape(s, nf, 8, 8192, 28672));
  ck_assert(has_shape(s, nf, 64, 28672, 8192));
  /* every n and k is a multiple of 16 (fp8/int8 tensor-core alignment) */
  for (size_t i = 0; i < nf; i++) {
    ck_assert_int_eq(s[i].n % 16, 0);
    ck_assert_int_eq(s[i].k % 16, 0);
  }
  /* cap smaller than the count: writes cap, returns the count */
  gb_gemm_shape two[2];
  ck_assert_uint_eq(gb_gemm_shapes(GB_PROFILE_FULL, two, 2), 28);
  ck_assert_int_eq(two[0].m, 1024);
}
END_TEST

START_TEST(test_bytes_and_sets) {
  const gb_gemm_prec *fp16 = gb_gemm_prec_find("fp16"), *i8 = gb_gemm_prec_find("int8");
  /* A: 1 * 4096 * 2 = 8192; B: 14336 * 4096 * 2 = 117440512; both multiples of 256 */
  ck_assert_uint_eq(gb_gemm_input_bytes(fp16, 1, 14336, 4096), 8192u + 117440512u);
  /* int8 output is int32: 8 * 14336 * 4 = 458752 */
  ck_assert_uint_eq(gb_gemm_output_bytes(i8, 8, 14336), 458752u);
  /* rounding to 256: int8 A 1 x 16 = 16 bytes -> 256 */
  ck_assert_uint_eq(gb_gemm_input_bytes(i8, 1, 0, 16), 256u);

  uint64_t l2 = 62914560; /* 60 MiB */
  /* 8192^2 fp16 A and B: 268435456 >= 3 L2 -> one set */
  ck_assert_int_eq(gb_gemm_input_sets(268435456u, l2, UINT64_MAX), 1);
  /* 32 MiB sets: ceil(3 * 62914560 / 33554432) = ceil(5.625) = 6 */
  ck_assert_int_eq(gb_gemm_input_sets(33554432u, l2, UINT64_MAX), 6);
  /* 4 MiB sets: ceil(45) = 45, capped at 32 */
  ck_assert_int_eq(gb_gemm_input_sets(4194304u, l2, UINT64_MAX), 32);
  /* memory allows 64 MiB: 2 sets of 32 MiB */
  ck_assert_int_eq(gb_gemm_input_sets(33554432u, l2, 67108864u), 2);
  /* never fewer than one */
  ck_assert_int_eq(gb_gemm_input_sets(33554432u, l2, 0), 1);
  /* gemm.input_sets: 0 keeps the rule; N is taken as given (8192^2 fp8: 134217728 B, 2 by the rule), but
   * never past memory and never under one */
  ck_assert_int_eq(gb_gemm_input_sets_for(0, 134217728u, l2, UINT64_MAX), 2);
  ck_assert_int_eq(gb_gemm_input_sets_for(1, 134217728u, l2, UINT64_MAX), 1);
  ck_assert_int_eq(gb_gemm_input_sets_for(4, 268435456u, l2, UINT64_MAX), 4);
  ck_assert_int_eq(gb_gemm_input_sets_for(8, 33554432u, l2, 67108864u), 2);
  ck_assert_int_eq(gb_gemm_input_sets_for(8, 33554432u, l2, 0), 1);
}
END_TEST

START_TEST(test_sample_rows) {
  int64_t r[256];
  /* m <= 256: every row */
  ck_assert_uint_eq(gb_gemm_sample_rows(8, r, 256), 8);
  for (int i = 0; i < 8; i++) ck_assert_int_eq(r[i], i);
  /* m = 8192: 128 rows from 0 to 8191; row 1 = 1 * 8191 / 127 = 64 (integer) */
  ck_assert_uint_eq(gb_gemm_sample_rows(8192, r, 256), 128);
  ck_assert_int_eq(r[0], 0);
  ck_assert_int_eq(r[1], 64);
  ck_assert_int_eq(r[127], 8191);
  for (int i = 1; i < 128; i++) ck_assert_int_gt(r[i], r[i - 1]);
}
END_TEST

/* ---- the check ---- */

START_TEST(test_tolerances) {
  ck_assert_double_eq(gb_gemm_tolerance(gb_gemm_prec_find("fp64"), 8192), 1e-12);
  ck_assert_double_eq(gb_gemm_tolerance(gb_gemm_prec_find("fp32"), 8192), 5e-5);
  ck_assert_double_eq(gb_gemm_tolerance(gb_gemm_prec_find("tf32"), 8192), 2e-3);
  ck_assert_double_eq(gb_gemm_tolerance(gb_gemm_prec_find("bf16"), 8192), 1e-2);
  ck_assert_double_eq(gb_gemm_tolerance(gb_gemm_prec_find("fp8e4m3_fastacc"), 8192), 5e-2);
  ck_assert_double_eq(gb_gemm_tolerance(gb_gemm_prec_find("int8"), 8192), 0.0);
  /* fp16 accumulation: 1e-2 + sqrt(4096) / 2048 = 0.01 + 0.03125 = 0.04125 */
  ck_assert_double_eq_tol(gb_gemm_tolerance(gb_gemm_prec_find("fp16acc16"), 4096), 0.04125, 1e-15);
}
END_TEST

START_TEST(test_rel_error) {
  /* ||ref|| = sqrt(9 + 16) = 5; out differs by 0.005 in one element: 0.005 / 5 = 1e-3 */
  double ref[2] = {3, 4}, out[2] = {3, 4.005};
  ck_assert_double_eq_tol(gb_gemm_rel_error(out, ref, 2), 1e-3, 1e-12);
  ck_assert_double_eq(gb_gemm_rel_error(ref, ref, 2), 0.0);
  double nan_out[2] = {3, NAN}, inf_out[2] = {INFINITY, 4}, zero[2] = {0, 0};
  ck_assert(isnan(gb_gemm_rel_error(nan_out, ref, 2)));
  ck_assert(isnan(gb_gemm_rel_error(inf_out, ref, 2)));
  ck_assert(isnan(gb_gemm_rel_error(ref, zero, 2))); /* nothing to compare with */
}
END_TEST

/* A corrupted output must come out invalid in every precision; an output
 * carrying only its precision's rounding must come out ok. */
START_TEST(test_check_decide) {
  enum { N = 1000 };
  double *ref = malloc(N * sizeof *ref), *out = malloc(N * sizeof *out);
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);

  /* every ref = 1, ||ref|| = sqrt(1000); out = ref * (1 + 1e-3): rel err 1e-3 */
  for (int i = 0; i < N; i++) {
    ref[i] = 1.0;
    out[i] = 1.001;
  }
  double e = gb_gemm_rel_error(out, ref, N);
  ck_assert_double_eq_tol(e, 1e-3, 1e-12);
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("tf32"), 8192, e, 0), GB_STATUS_OK);
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("bf16"), 8192, e, 0), GB_STATUS_OK);
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("fp8e4m3_slowacc"), 8192, e, 0), GB_STATUS_OK);
  /* the same error in fp32 is TF32-sized: fp32 must fail it, as must fp64 and int8 */
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("fp32"), 8192, e, 0), GB_STATUS_INVALID);
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("fp64"), 8192, e, 0), GB_STATUS_INVALID);
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("int8"), 8192, e, 0), GB_STATUS_INVALID);

  /* corrupted: exact everywhere but out[17] = 6 instead of 1:
   * rel err = 5 / sqrt(1000) = 0.158 > every threshold */
  for (int i = 0; i < N; i++) out[i] = ref[i];
  ck_assert_double_eq(gb_gemm_rel_error(out, ref, N), 0.0);
  for (size_t i = 0; i < np; i++) ck_assert_int_eq(gb_gemm_check_decide(&p[i], 8192, 0.0, 0), GB_STATUS_OK);
  out[17] = 6.0;
  e = gb_gemm_rel_error(out, ref, N);
  ck_assert_double_eq_tol(e, 5.0 / sqrt(1000.0), 1e-12);
  for (size_t i = 0; i < np; i++) ck_assert_int_eq(gb_gemm_check_decide(&p[i], 8192, e, 0), GB_STATUS_INVALID);

  /* int8 is exact: one element off by one (1 / sqrt(1000) = 0.0316) fails */
  out[17] = 2.0;
  ck_assert_int_eq(gb_gemm_check_decide(gb_gemm_prec_find("int8"), 8192, gb_gemm_rel_error(out, ref, N), 0),
                   GB_STATUS_INVALID);

  /* NaN never passes; a non-finite element elsewhere in D fails a perfect sample */
  for (size_t i = 0; i < np; i++) {
    ck_assert_int_eq(gb_gemm_check_decide(&p[i], 8192, NAN, 0), GB_STATUS_INVALID);
    ck_assert_int_eq(gb_gemm_check_decide(&p[i], 8192, 0.0, 1), GB_STATUS_INVALID);
  }
  free(ref);
  free(out);
}
END_TEST

START_TEST(test_amax) {
  /* bf16 output, no D scale: within 2^-8 + 1% = 1.39% */
  ck_assert(gb_gemm_amax_agrees(100.0, 100.3, 1.0, false)); /* 0.3% apart: bf16 rounding */
  ck_assert(!gb_gemm_amax_agrees(100.0, 102.0, 1.0, false)); /* 2% apart */
  ck_assert(!gb_gemm_amax_agrees(NAN, 100.0, 1.0, false));
  ck_assert(gb_gemm_amax_agrees(0.0, 0.0, 1.0, false));
  /* e4m3 output with D scale 0.5: amax 300 before the scale -> 150 expected; e4m3 rounds 150 to 144 or 160
   * (3 mantissa bits, step 16 at 128..256): within 2^-4 + 1% = 7.25% of max|D| */
  ck_assert(gb_gemm_amax_agrees(300.0, 144.0, 0.5, true)); /* 6/144 = 4.2% */
  ck_assert(gb_gemm_amax_agrees(300.0, 160.0, 0.5, true)); /* 10/160 = 6.25% */
  ck_assert(!gb_gemm_amax_agrees(300.0, 300.0, 0.5, true)); /* amax read as after the scale: fails */
  ck_assert(!gb_gemm_amax_agrees(300.0, 144.0, 0.5, false)); /* the same gap on a bf16 output fails */
  ck_assert(!gb_gemm_amax_agrees(300.0, 150.0, NAN, true));
}
END_TEST

/* ---- support ---- */

START_TEST(test_supported) {
  char why[256] = "";
  const gb_gemm_prec *fp8 = gb_gemm_prec_find("fp8e4m3_fastacc");
  /* A100 (8.0): no fp8 */
  ck_assert(!gb_gemm_supported(fp8, 8, 0, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "8.9"));
  ck_assert_ptr_nonnull(strstr(why, "8.0"));
  ck_assert_ptr_nonnull(strstr(why, "fp8e4m3_fastacc"));
  /* Ada (8.9), Hopper (9.0), Blackwell (10.0) */
  ck_assert(gb_gemm_supported(fp8, 8, 9, why, sizeof why));
  ck_assert(gb_gemm_supported(fp8, 9, 0, why, sizeof why));
  ck_assert(gb_gemm_supported(fp8, 10, 0, why, sizeof why));
  /* everything on Hopper but the block-scaled precisions (check_gemm_blockscale.c) */
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);
  for (size_t i = 0; i < np; i++) ck_assert(gb_gemm_supported(&p[i], 9, 0, why, sizeof why) == !p[i].block);
  /* V100 (7.0): no bf16, tf32, int8 tensor path; fp16 and fp64 yes */
  ck_assert(!gb_gemm_supported(gb_gemm_prec_find("bf16"), 7, 0, why, sizeof why));
  ck_assert(!gb_gemm_supported(gb_gemm_prec_find("tf32"), 7, 0, why, sizeof why));
  ck_assert(!gb_gemm_supported(gb_gemm_prec_find("int8"), 7, 0, why, sizeof why));
  ck_assert(gb_gemm_supported(gb_gemm_prec_find("fp16"), 7, 0, why, sizeof why));
  ck_assert(gb_gemm_supported(gb_gemm_prec_find("fp64"), 7, 0, why, sizeof why));
}
END_TEST

/* ---- timing ---- */

START_TEST(test_timing_plan) {
  /* sustained, quick, 8192^3 bf16 at ~1.8 ms: 1 op/sample, 3 reps, floor(0.08 / (4 * 1.8e-3)) = 11 -> 8
   * candidates */
  gb_gemm_timing t = gb_gemm_timing_plan(GB_PROFILE_QUICK, GB_GEMM_WINDOW_SUSTAINED, 1.8e-3);
  ck_assert_int_eq(t.ops_per_sample, 1);
  ck_assert_int_eq(t.search_reps, 3);
  ck_assert_int_eq(t.candidates, 8);
  ck_assert_int_eq(t.warmup, 3);
  ck_assert_int_eq(t.min_samples, 10);
  ck_assert_int_eq(t.max_samples, 200);
  ck_assert_double_eq(t.budget_s, 0.2);
  /* a decode product of 8 us: ceil(100 / 8) = 13 per sample (104 us), 5 reps */
  t = gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_SUSTAINED, 8e-6);
  ck_assert_int_eq(t.ops_per_sample, 13);
  ck_assert_int_eq(t.search_reps, 5);
  ck_assert_int_eq(t.candidates, 8);
  /* full, a 0.2 s fp64 product: floor(0.25 / (3 * 0.2)) = 0 -> raised to the minimum of 4 candidates,
   * 2 reps, 5 samples, 1 warm-up */
  t = gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_SUSTAINED, 0.2);
  ck_assert_int_eq(t.candidates, 4);
  ck_assert_int_eq(t.search_reps, 2);
  ck_assert_int_eq(t.min_samples, 5);
  ck_assert_int_eq(t.warmup, 1);
  ck_assert_double_eq(t.budget_s, 0.5);
  /* 30 ms: 3 reps, floor(0.25 / (4 * 0.03)) = floor(2.08) = 2 -> the minimum, 4 candidates */
  t = gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_SUSTAINED, 0.03);
  ck_assert_int_eq(t.search_reps, 3);
  ck_assert_int_eq(t.candidates, 4);
  /* 10 ms: floor(0.25 / (4 * 0.01)) = 6 candidates */
  ck_assert_int_eq(gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_SUSTAINED, 0.01).candidates, 6);
  /* 5 ms: floor(0.25 / (4 * 0.005)) = 12 -> at most 8 */
  ck_assert_int_eq(gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_SUSTAINED, 0.005).candidates, 8);
}
END_TEST

START_TEST(test_timing_plan_burst) {
  /* 8192^3 bf16 at 1.8 ms: 30 samples (54 ms, under both caps), exactly, after 5 warm-up products; the
   * search is the sustained window's */
  gb_gemm_timing t = gb_gemm_timing_plan(GB_PROFILE_QUICK, GB_GEMM_WINDOW_BURST, 1.8e-3);
  ck_assert_int_eq(t.ops_per_sample, 1);
  ck_assert_int_eq(t.warmup, 5);
  ck_assert_int_eq(t.min_samples, 30);
  ck_assert_int_eq(t.max_samples, 30);
  ck_assert_int_eq(t.candidates, 8);
  ck_assert_int_eq(t.search_reps, 3);
  /* 8192^3 fp64 at 19 ms: 30 x 19 ms = 0.57 s fits quick's cap of 0.6 s: 30 samples; 5 warm-ups
   * (19 ms < 20 ms) */
  t = gb_gemm_timing_plan(GB_PROFILE_QUICK, GB_GEMM_WINDOW_BURST, 19e-3);
  ck_assert_int_eq(t.min_samples, 30);
  ck_assert_int_eq(t.warmup, 5);
  /* 25 ms, quick: 30 x 25 ms = 0.75 s > 0.6 s -> floor(0.6 / 0.025) = 24 samples, 2 warm-ups */
  t = gb_gemm_timing_plan(GB_PROFILE_QUICK, GB_GEMM_WINDOW_BURST, 25e-3);
  ck_assert_int_eq(t.min_samples, 24);
  ck_assert_int_eq(t.max_samples, 24);
  ck_assert_int_eq(t.warmup, 2);
  /* full, 16384^3 fp64 at 0.16 s: floor(1.5 / 0.16) = 9 -> raised to the floor of 10 */
  t = gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_BURST, 0.16);
  ck_assert_int_eq(t.min_samples, 10);
  ck_assert_int_eq(t.warmup, 2);
  /* a decode product of 8 us: 13 per sample, warm-up 5 samples = 65 products */
  t = gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_BURST, 8e-6);
  ck_assert_int_eq(t.ops_per_sample, 13);
  ck_assert_int_eq(t.warmup, 65);
  ck_assert_int_eq(t.min_samples, 30);
}
END_TEST

START_TEST(test_keep) {
  /* the fastest is 0.0208; 1% over it is 0.021008: #1 (index 0) at 0.0211 is further behind */
  double t[] = {0.0211, 0.0208, 0.0215, NAN};
  ck_assert_int_eq(gb_gemm_keep(t, 4, 0), 1);
  t[0] = 0.0210; /* 0.0210 <= 0.021008: #1 kept */
  ck_assert_int_eq(gb_gemm_keep(t, 4, 0), 0);
  ck_assert_int_eq(gb_gemm_keep(t, 4, -1), 1); /* no heuristic #1 among them: the fastest */
  /* the heuristic's #1 with the workspace (index 0, 0.7820 ms) and without
   * (index 3, 0.7790 ms): the faster one; either alone; neither */
  double w[4] = {0.7820e-3, 0.7830e-3, NAN, 0.7790e-3};
  ck_assert_int_eq(gb_gemm_first_of(w, 0, 3), 3);
  w[3] = 0.7825e-3;
  ck_assert_int_eq(gb_gemm_first_of(w, 0, 3), 0);
  w[3] = 0.7820e-3; /* a tie keeps the one with the workspace */
  ck_assert_int_eq(gb_gemm_first_of(w, 0, 3), 0);
  ck_assert_int_eq(gb_gemm_first_of(w, 0, -1), 0);
  ck_assert_int_eq(gb_gemm_first_of(w, -1, 3), 3);
  ck_assert_int_eq(gb_gemm_first_of(w, 2, 3), 3); /* index 2 did not run */
  ck_assert_int_eq(gb_gemm_first_of(w, 1, 2), 1);
  ck_assert_int_eq(gb_gemm_first_of(w, -1, -1), -1);
  ck_assert_int_eq(gb_gemm_keep(t, 4, 2), 1);  /* the "first" 3.4% behind: the fastest */
  t[0] = NAN; /* #1 did not run */
  ck_assert_int_eq(gb_gemm_keep(t, 4, 0), 1);
  t[0] = 0.0200; /* #1 fastest outright */
  ck_assert_int_eq(gb_gemm_keep(t, 4, 0), 0);
  double none[] = {NAN, INFINITY};
  ck_assert_int_eq(gb_gemm_keep(none, 2, 0), -1);
  ck_assert_int_eq(gb_gemm_keep(none, 0, -1), -1);
}
END_TEST

START_TEST(test_finalists) {
  /* the fastest 0.0208; within 5%: up to 0.02184 -> indices 1, 0 (0.0211), 2 (0.0215); 4 (0.0230) is out */
  double t[] = {0.0211, 0.0208, 0.0215, NAN, 0.0230};
  int f[GB_GEMM_FINALISTS_MAX];
  ck_assert_int_eq(gb_gemm_finalists(t, 5, 0, 3, f), 3);
  ck_assert_int_eq(f[0], 1);
  ck_assert_int_eq(f[1], 0);
  ck_assert_int_eq(f[2], 2);
  ck_assert_int_eq(gb_gemm_finalists(t, 5, 0, 8, f), 3); /* room for more, but no more within 5% */
  /* two places, the heuristic's first is index 2 (third by time, within): it takes the last place */
  ck_assert_int_eq(gb_gemm_finalists(t, 5, 2, 2, f), 2);
  ck_assert_int_eq(f[0], 1);
  ck_assert_int_eq(f[1], 2);
  /* the first is index 4, 10.6% behind in the screening: it still goes on, in the last place */
  ck_assert_int_eq(gb_gemm_finalists(t, 5, 4, 2, f), 2);
  ck_assert_int_eq(f[0], 1);
  ck_assert_int_eq(f[1], 4);
  /* ... and in a place of its own where there is room. fp64 4096x4096x14336 in one H200 process: #1 (index 0)
   * screened 5.9% behind the fastest, so only #4 and #3 were confirmed and #3 (64x64) was kept, 51.7 TFLOP/s in
   * the window; where #1 was confirmed it led at 57.1-58.0 against 53.8-55.1 and ran 54.7-55.2 */
  ck_assert_int_eq(gb_gemm_finalists(t, 5, 4, 8, f), 4);
  ck_assert_int_eq(f[0], 1);
  ck_assert_int_eq(f[1], 0);
  ck_assert_int_eq(f[2], 2);
  ck_assert_int_eq(f[3], 4);
  double fp64[] = {1.019075e-02, 1.047302e-02, 9.954848e-03, 9.627136e-03};
  ck_assert_int_eq(gb_gemm_finalists(fp64, 4, 0, 3, f), 3);
  ck_assert_int_eq(f[0], 3);
  ck_assert_int_eq(f[1], 2);
  ck_assert_int_eq(f[2], 0);
  ck_assert_int_eq(gb_gemm_finalists(t, 5, -1, 2, f), 2);
  ck_assert_int_eq(f[1], 0);
  /* one place: the heuristic's first takes it (alone, so no confirmation follows) */
  ck_assert_int_eq(gb_gemm_finalists(t, 5, 0, 1, f), 1);
  ck_assert_int_eq(f[0], 0);
  double none[] = {NAN, INFINITY};
  ck_assert_int_eq(gb_gemm_finalists(none, 2, 0, 3, f), 0);
  ck_assert_int_eq(gb_gemm_finalists(t, 0, -1, 3, f), 0);
}
END_TEST

START_TEST(test_confirm_plan) {
  /* bf16 8192^3 at 1.8 ms: floor(0.015 / 0.0018) = 8 samples, 2 warm-ups; a round of 3 finalists is
   * 3 x 10 x 1.8 ms = 54 ms, so the round caps decide: 2 quick, 3 full */
  gb_gemm_timing t = gb_gemm_timing_plan(GB_PROFILE_QUICK, GB_GEMM_WINDOW_BURST, 1.8e-3);
  ck_assert_int_eq(t.confirm_samples, 8);
  ck_assert_int_eq(t.confirm_warmup, 2);
  ck_assert_int_eq(t.confirm_rounds, 2);
  ck_assert_int_eq(t.confirm_rest_ms, GB_GEMM_CONFIRM_REST_MS);
  ck_assert_int_eq(gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_BURST, 1.8e-3).confirm_rounds, 3);
  /* fp32 8192^3 at 21 ms: 3 samples (the floor), 1 warm-up; a round 3 x 4 x 21 ms = 0.252 s:
   * floor(0.6 / 0.252) = 2 rounds quick, floor(1.0 / 0.252) = 3 full */
  t = gb_gemm_timing_plan(GB_PROFILE_QUICK, GB_GEMM_WINDOW_BURST, 21e-3);
  ck_assert_int_eq(t.confirm_samples, 3);
  ck_assert_int_eq(t.confirm_warmup, 1);
  ck_assert_int_eq(t.confirm_rounds, 2);
  ck_assert_int_eq(gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_BURST, 21e-3).confirm_rounds, 3);
  /* a 0.16 s fp64 product: a round is 1.92 s, over the budget: still one round */
  ck_assert_int_eq(gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_BURST, 0.16).confirm_rounds, 1);
  /* a decode product of 8 us, 13 per sample: floor(0.015 / 104 us) = 144 -> 10 samples, 2 x 13 warm-up products */
  t = gb_gemm_timing_plan(GB_PROFILE_FULL, GB_GEMM_WINDOW_SUSTAINED, 8e-6);
  ck_assert_int_eq(t.confirm_samples, 10);
  ck_assert_int_eq(t.confirm_warmup, 26);
  ck_assert_int_eq(t.confirm_rounds, 3);
}
END_TEST

START_TEST(test_search_options) {
  gb_gemm_opts o;
  ck_assert_int_eq(gb_gemm_opts_parse("", &o), GB_OK);
  ck_assert_int_eq(o.candidates, 0);     /* the timing plan's */
  ck_assert_int_eq(o.candidate, 0);      /* a search */
  ck_assert_int_eq(o.finalists, 0);      /* GB_GEMM_FINALISTS_DEFAULT */
  ck_assert_int_eq(o.confirm_rounds, -1); /* the timing plan's */
  ck_assert_int_eq(o.confirm_rest_ms, -1);
  ck_assert_str_eq(o.search_log, "");
  ck_assert_str_eq(o.samples_log, "");
  ck_assert(!o.fp8_no_amax); /* the amax of D is computed */
  ck_assert(!o.out_of_place); /* C = D */
  ck_assert(!o.event_pairs); /* one chain of events */
  ck_assert_int_eq(o.input_sets, 0); /* gb_gemm_input_sets' rule */
  ck_assert_int_eq(o.workspace_kib, -1); /* 64 MiB */
}
END_TEST

/* The keys only probes use, with what each names in its error. */
static const char *const lab_keys[] = {"gemm.candidates",  "gemm.candidate",   "gemm.finalists",  "gemm.confirm",
                                       "gemm.confirm_rest_ms", "gemm.search_log", "gemm.samples_log", "gemm.fp8_amax",
                                       "gemm.input_sets",  "gemm.out_of_place", "gemm.timing",   "gemm.workspace_kib"};
static const char *const lab_values[] = {"4", "3", "2", "0", "250", "/tmp/s.csv", "/tmp/w.csv", "off",
                                         "1", "on", "pairs", "0"};

#ifndef GB_TOOLS
/* A default build knows the lab's keys by name only: each, with a good
 * value, is a usage error that says how to get it. */
START_TEST(test_lab_keys_need_tools) {
  gb_gemm_opts o;
  for (size_t i = 0; i < sizeof lab_keys / sizeof lab_keys[0]; i++) {
    char opt[128], want[160];
    snprintf(opt, sizeof opt, "gemm.precs=bf16,%s=%s", lab_keys[i], lab_values[i]);
    ck_assert_int_eq(gb_gemm_opts_parse(opt, &o), GB_E_USAGE);
    snprintf(want, sizeof want, "--opt %s is a lab option: build with -DGB_TOOLS=ON", lab_keys[i]);
    ck_assert_str_eq(gb_errmsg(), want);
    ck_assert(gb_gemm_lab_key(lab_keys[i] + 5));
    gb_errclear();
  }
  ck_assert(!gb_gemm_lab_key("precs"));
  ck_assert(!gb_gemm_lab_key("rest_ms"));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.tile=128", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "unknown key"));
  gb_errclear();
}
END_TEST
#else
/* A lab build parses every key the default build names as the lab's. */
START_TEST(test_lab_keys_parse) {
  gb_gemm_opts o;
  for (size_t i = 0; i < sizeof lab_keys / sizeof lab_keys[0]; i++) {
    char opt[128];
    snprintf(opt, sizeof opt, "%s=%s", lab_keys[i], lab_values[i]);
    ck_assert_msg(gb_gemm_opts_parse(opt, &o) == GB_OK, "%s: %s", opt, gb_errmsg());
    ck_assert(gb_gemm_lab_key(lab_keys[i] + 5));
  }
}
END_TEST

START_TEST(test_lab_options) {
  gb_gemm_opts o;
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.fp8_amax=off", &o), GB_OK);
  ck_assert(o.fp8_no_amax);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.fp8_amax=on", &o), GB_OK);
  ck_assert(!o.fp8_no_amax);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.out_of_place=on", &o), GB_OK);
  ck_assert(o.out_of_place);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.timing=pairs", &o), GB_OK);
  ck_assert(o.event_pairs);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.timing=chain", &o), GB_OK);
  ck_assert(!o.event_pairs);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.candidates=16,gemm.finalists=8,gemm.confirm=0,gemm.confirm_rest_ms=250,"
                                      "gemm.search_log=out/s.csv,gemm.samples_log=/tmp/w.csv",
                                      &o),
                   GB_OK);
  ck_assert_int_eq(o.candidates, 16);
  ck_assert_int_eq(o.candidate, 0);
  ck_assert_int_eq(o.finalists, 8);
  ck_assert_int_eq(o.confirm_rounds, 0);
  ck_assert_int_eq(o.confirm_rest_ms, 250);
  ck_assert_str_eq(o.search_log, "out/s.csv");
  ck_assert_str_eq(o.samples_log, "/tmp/w.csv");
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.workspace_kib=0", &o), GB_OK);
  ck_assert_int_eq(o.workspace_kib, 0);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.workspace_kib=65536", &o), GB_OK);
  ck_assert_int_eq(o.workspace_kib, 65536);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.input_sets=1", &o), GB_OK);
  ck_assert_int_eq(o.input_sets, 1);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.candidate=3", &o), GB_OK);
  ck_assert_int_eq(o.candidate, 3);
  ck_assert_int_eq(o.candidates, 0);
  const char *bad[] = {"gemm.candidate=0", "gemm.candidate=17", "gemm.candidates=0",  "gemm.candidates=17", "gemm.finalists=0",         "gemm.finalists=9",
                       "gemm.confirm=-1",    "gemm.confirm=9",     "gemm.confirm_rest_ms=10001", "gemm.confirm=x",
                       "gemm.search_log=",   "gemm.samples_log=", "gemm.fp8_amax=no", "gemm.input_sets=0", "gemm.input_sets=33", "gemm.out_of_place=1",
                       "gemm.timing=pair", "gemm.workspace_kib=-1", "gemm.workspace_kib=65537", "gemm.workspace_kib=1M"};
  const char *key[] = {"gemm.candidate", "gemm.candidate", "gemm.candidates", "gemm.candidates", "gemm.finalists", "gemm.finalists",
                       "gemm.confirm",    "gemm.confirm",    "gemm.confirm_rest_ms", "gemm.confirm",
                       "gemm.search_log", "gemm.samples_log", "gemm.fp8_amax", "gemm.input_sets", "gemm.input_sets", "gemm.out_of_place",
                       "gemm.timing", "gemm.workspace_kib", "gemm.workspace_kib", "gemm.workspace_kib"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(gb_gemm_opts_parse(bad[i], &o), GB_E_USAGE);
    ck_assert_msg(strstr(gb_errmsg(), key[i]), "%s: %s", bad[i], gb_errmsg());
    gb_errclear();
  }
}
END_TEST

#endif

/* The rows' settings: only options that change how a case is measured, in a
 * fixed order whatever the order given, and nothing for the defaults. */
START_TEST(test_settings_of_options) {
  gb_gemm_opts o;
  char buf[512];
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.precs=bf16,gemm.shapes=8192,gemm.layout=tn:nn,gemm.window=sustained,"
                                      "gemm.search=variants",
                                      &o),
                   GB_OK);
  gb_gemm_settings(&o, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  /* the heuristic's candidates alone are no longer the default search */
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=heuristic", &o), GB_OK);
  gb_gemm_settings(&o, buf, sizeof buf);
  ck_assert_str_eq(buf, "gemm.search=heuristic");
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.rest_ms=0,gemm.search=extended", &o), GB_OK);
  gb_gemm_settings(&o, buf, sizeof buf);
  ck_assert_str_eq(buf, "gemm.search=extended,gemm.rest_ms=0");
#ifdef GB_TOOLS
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search_log=/tmp/s.csv,gemm.samples_log=/tmp/w.csv,gemm.timing=chain,"
                                      "gemm.fp8_amax=on,gemm.out_of_place=off",
                                      &o),
                   GB_OK);
  gb_gemm_settings(&o, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.timing=pairs,gemm.out_of_place=on,gemm.input_sets=1,gemm.fp8_amax=off,"
                                      "gemm.confirm_rest_ms=0,gemm.confirm=0,gemm.finalists=2,gemm.candidate=3,"
                                      "gemm.candidates=4,gemm.rest_ms=0,gemm.workspace_kib=0,gemm.search=extended",
                                      &o),
                   GB_OK);
  gb_gemm_settings(&o, buf, sizeof buf);
  ck_assert_str_eq(buf, "gemm.search=extended,gemm.rest_ms=0,gemm.candidates=4,gemm.candidate=3,gemm.finalists=2,"
                        "gemm.confirm=0,gemm.confirm_rest_ms=0,gemm.fp8_amax=off,gemm.input_sets=1,"
                        "gemm.out_of_place=on,gemm.timing=pairs,gemm.workspace_kib=0");
#endif
}
END_TEST

START_TEST(test_window_option) {
  gb_gemm_opts o;
  const gb_gemm_prec *bf16 = gb_gemm_prec_find("bf16"), *i8 = gb_gemm_prec_find("int8");
  ck_assert_int_eq(gb_gemm_opts_parse("", &o), GB_OK);
  ck_assert_int_eq(o.window, GB_GEMM_WINDOW_BURST);
  ck_assert_str_eq(gb_gemm_window_name(o.window), "burst");
  ck_assert_str_eq(gb_gemm_metric_in(bf16, o.window), "tflops");
  ck_assert_str_eq(gb_gemm_metric_in(i8, o.window), "tops");
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.window=sustained", &o), GB_OK);
  ck_assert_int_eq(o.window, GB_GEMM_WINDOW_SUSTAINED);
  ck_assert_str_eq(gb_gemm_window_name(o.window), "sustained");
  ck_assert_str_eq(gb_gemm_metric_in(bf16, o.window), "tflops_sustained");
  ck_assert_str_eq(gb_gemm_metric_in(i8, o.window), "tops_sustained");
  ck_assert_int_eq(gb_gemm_rest_ms(&o), 0); /* no idle before a sustained window */
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.window=burst", &o), GB_OK);
  ck_assert_int_eq(o.window, GB_GEMM_WINDOW_BURST);
  ck_assert_int_eq(o.rest_ms, -1);
  ck_assert_int_eq(gb_gemm_rest_ms(&o), 300); /* 300 ms before a burst window */
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.rest_ms=250,gemm.window=burst", &o), GB_OK);
  ck_assert_int_eq(o.rest_ms, 250);
  ck_assert_int_eq(gb_gemm_rest_ms(&o), 250);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.rest_ms=0", &o), GB_OK);
  ck_assert_int_eq(gb_gemm_rest_ms(&o), 0);
  const char *bad_rest[] = {"gemm.rest_ms=-1", "gemm.rest_ms=10001", "gemm.rest_ms=1.5", "gemm.rest_ms=",
                            "gemm.rest_ms=2s"};
  for (size_t i = 0; i < sizeof bad_rest / sizeof bad_rest[0]; i++) {
    ck_assert_int_eq(gb_gemm_opts_parse(bad_rest[i], &o), GB_E_USAGE);
    ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gemm.rest_ms"));
    gb_errclear();
  }
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.window=long", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gemm.window"));
  gb_errclear();
}
END_TEST

/* ---- cuBLASLt names ---- */

START_TEST(test_names) {
  char b[24];
  ck_assert_str_eq(gb_gemm_tile_name(20, b, sizeof b), "128x128");    /* CUBLASLT_MATMUL_TILE_128x128 = 20 */
  ck_assert_str_eq(gb_gemm_tile_name(23, b, sizeof b), "128x256");    /* = 23 */
  ck_assert_str_eq(gb_gemm_stages_name(16, b, sizeof b), "64x4");     /* CUBLASLT_MATMUL_STAGES_64x4 = 16 */
  ck_assert_str_eq(gb_gemm_stages_name(35, b, sizeof b), "64xAUTO");  /* = 35 */
  ck_assert_str_eq(gb_gemm_cluster_name(3, b, sizeof b), "2x1x1");    /* CUBLASLT_CLUSTER_SHAPE_2x1x1 = 3 */
  ck_assert_str_eq(gb_gemm_tile_name(0, b, sizeof b), "undefined");
  ck_assert_str_eq(gb_gemm_cluster_name(0, b, sizeof b), "auto");
  ck_assert_str_eq(gb_gemm_tile_name(99999, b, sizeof b), "#99999");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gemm");
  TCase *core = tcase_create("core");
  tcase_add_test(core, test_flops);
  tcase_add_test(core, test_prec_table);
  tcase_add_test(core, test_shapes);
  tcase_add_test(core, test_bytes_and_sets);
  tcase_add_test(core, test_sample_rows);
  tcase_add_test(core, test_timing_plan);
  tcase_add_test(core, test_timing_plan_burst);
  tcase_add_test(core, test_finalists);
  tcase_add_test(core, test_confirm_plan);
  tcase_add_test(core, test_search_options);
#ifndef GB_TOOLS
  tcase_add_test(core, test_lab_keys_need_tools);
#else
  tcase_add_test(core, test_lab_keys_parse);
  tcase_add_test(core, test_lab_options);
#endif
  tcase_add_test(core, test_window_option);
  tcase_add_test(core, test_settings_of_options);
  tcase_add_test(core, test_keep);
  tcase_add_test(core, test_names);
  suite_add_tcase(s, core);
  TCase *check = tcase_create("check");
  tcase_add_test(check, test_tolerances);
  tcase_add_test(check, test_rel_error);
  tcase_add_test(check, test_check_decide);
  tcase_add_test(check, test_amax);
  tcase_add_test(check, test_supported);
  suite_add_tcase(s, check);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
