/* Tests for the GEMM benchmark's layouts on the CPU (bench/gemm/bench_gemm.h):
 * case names, which precisions take NN, cuBLASLt's dimensions, the
 * reference's launch shape, the plan, and the extended search's ranking.
 * Hand-computed values carry their arithmetic in comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_device.h"
#include "testutil.h"

extern const gb_bench gb_bench_gemm;

/* ---- layouts ---- */

START_TEST(test_case_names) {
  char b[64];
  const gb_gemm_prec *fp64 = gb_gemm_prec_find("fp64");
  /* TN keeps the precision's name, so existing result keys do not change */
  ck_assert_str_eq(gb_gemm_case_name(fp64, GB_GEMM_TN, b, sizeof b), "fp64");
  ck_assert_str_eq(gb_gemm_case_name(fp64, GB_GEMM_NN, b, sizeof b), "fp64_nn");
  ck_assert_str_eq(gb_gemm_case_name(gb_gemm_prec_find("fp8e4m3xe5m2_fastacc"), GB_GEMM_NN, b, sizeof b),
                   "fp8e4m3xe5m2_fastacc_nn");
  ck_assert_str_eq(gb_gemm_layout_name(GB_GEMM_TN), "tn");
  ck_assert_str_eq(gb_gemm_layout_name(GB_GEMM_NN), "nn");
  ck_assert_str_eq(gb_gemm_layout_label(GB_GEMM_NN), "NN");

  /* every precision and layout parses back to itself; the names are all distinct */
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);
  for (size_t i = 0; i < np; i++)
    for (int l = 0; l < GB_GEMM_NLAYOUTS; l++) {
      gb_gemm_layout got = (gb_gemm_layout)(1 - l);
      ck_assert_ptr_eq(gb_gemm_case_parse(gb_gemm_case_name(&p[i], (gb_gemm_layout)l, b, sizeof b), &got), &p[i]);
      ck_assert_int_eq(got, l);
      for (size_t j = 0; j < np; j++) {
        char other[64];
        if (j != i) ck_assert_str_ne(b, gb_gemm_case_name(&p[j], GB_GEMM_NN, other, sizeof other));
      }
    }
  gb_gemm_layout l = GB_GEMM_NN;
  ck_assert_ptr_eq(gb_gemm_case_parse("fp8e4m3_slowacc", &l), gb_gemm_prec_find("fp8e4m3_slowacc"));
  ck_assert_int_eq(l, GB_GEMM_TN);
  ck_assert_ptr_eq(gb_gemm_case_parse("bf16_nn", NULL), gb_gemm_prec_find("bf16"));
  /* not cases: speedup rows, unknown precisions, a bare or doubled suffix, another spelling */
  ck_assert_ptr_null(gb_gemm_case_parse("bf16_vs_fp32", &l));
  ck_assert_ptr_null(gb_gemm_case_parse("fp64_nn_vs_fp64", &l));
  ck_assert_ptr_null(gb_gemm_case_parse("fp4_nn", &l));
  ck_assert_ptr_null(gb_gemm_case_parse("_nn", &l));
  ck_assert_ptr_null(gb_gemm_case_parse("fp64_nn_nn", &l));
  ck_assert_ptr_null(gb_gemm_case_parse("fp64_NN", &l));
  ck_assert_ptr_null(gb_gemm_case_parse("fp64_tn", &l));
  ck_assert_ptr_null(gb_gemm_case_parse(NULL, &l));
}
END_TEST

START_TEST(test_layout_supported) {
  char why[256] = "";
  size_t np;
  const gb_gemm_prec *p = gb_gemm_precs(&np);
  /* Hopper (9.0): NN for fp64, fp32, tf32, fp16, bf16, fp16acc16; not for the 4 fp8 cases and int8 */
  const char *nn_ok[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp16acc16"};
  for (int i = 0; i < 6; i++)
    ck_assert_msg(gb_gemm_layout_supported(gb_gemm_prec_find(nn_ok[i]), GB_GEMM_NN, 9, 0, why, sizeof why), "%s",
                  nn_ok[i]);
  size_t n_nn = 0;
  for (size_t i = 0; i < np; i++) {
    ck_assert(gb_gemm_layout_supported(&p[i], GB_GEMM_TN, 9, 0, why, sizeof why)); /* TN: always */
    /* Blackwell: not refused, but for the block-scaled precisions, TN only everywhere */
    ck_assert(gb_gemm_layout_supported(&p[i], GB_GEMM_NN, 10, 0, why, sizeof why) == !p[i].block);
    n_nn += gb_gemm_layout_supported(&p[i], GB_GEMM_NN, 9, 0, why, sizeof why);
  }
  ck_assert_uint_eq(n_nn, 6);
  ck_assert(!gb_gemm_layout_supported(gb_gemm_prec_find("fp8e4m3_fastacc"), GB_GEMM_NN, 9, 0, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "fp8e4m3_fastacc_nn"));
  ck_assert_ptr_nonnull(strstr(why, "fp8 tensor-core GEMMs only in the TN layout"));
  ck_assert_ptr_nonnull(strstr(why, "before compute capability 10.0"));
  ck_assert_ptr_nonnull(strstr(why, "this device is 9.0"));
  ck_assert_ptr_nonnull(strstr(why, "gemm.layout=tn"));
  ck_assert(!gb_gemm_layout_supported(gb_gemm_prec_find("int8"), GB_GEMM_NN, 8, 9, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "int8 tensor-core GEMMs only in the TN layout"));
  ck_assert_ptr_nonnull(strstr(why, "this device is 8.9"));
}
END_TEST

START_TEST(test_lt_layout) {
  /* decode shape m = 8, n = 14336, k = 4096 */
  gb_gemm_lt_dims tn = gb_gemm_lt_layout(GB_GEMM_TN, 8, 14336, 4096);
  ck_assert_int_eq(tn.trans_a, CUBLAS_OP_T);
  ck_assert_int_eq(tn.trans_b, CUBLAS_OP_N);
  /* A' = B (n x k row-major) = k x n column-major, ld k */
  ck_assert_uint_eq(tn.a_rows, 4096);
  ck_assert_uint_eq(tn.a_cols, 14336);
  ck_assert_int_eq(tn.lda, 4096);
  /* B' = A (m x k row-major) = k x m column-major, ld k */
  ck_assert_uint_eq(tn.b_rows, 4096);
  ck_assert_uint_eq(tn.b_cols, 8);
  ck_assert_int_eq(tn.ldb, 4096);
  /* D (m x n row-major) = n x m column-major, ld n */
  ck_assert_uint_eq(tn.d_rows, 14336);
  ck_assert_uint_eq(tn.d_cols, 8);
  ck_assert_int_eq(tn.ldd, 14336);

  gb_gemm_lt_dims nn = gb_gemm_lt_layout(GB_GEMM_NN, 8, 14336, 4096);
  ck_assert_int_eq(nn.trans_a, CUBLAS_OP_N);
  ck_assert_int_eq(nn.trans_b, CUBLAS_OP_N);
  /* A' = B (k x n row-major) = n x k column-major (B^T), ld n: op(A') op(B') = B^T A^T = (A B)^T */
  ck_assert_uint_eq(nn.a_rows, 14336);
  ck_assert_uint_eq(nn.a_cols, 4096);
  ck_assert_int_eq(nn.lda, 14336);
  ck_assert_uint_eq(nn.b_rows, 4096);
  ck_assert_uint_eq(nn.b_cols, 8);
  ck_assert_int_eq(nn.ldb, 4096);
  ck_assert_uint_eq(nn.d_rows, 14336);
  ck_assert_uint_eq(nn.d_cols, 8);
  ck_assert_int_eq(nn.ldd, 14336);
  /* both layouts hold the same number of B elements: 14336 * 4096 */
  ck_assert_uint_eq(nn.a_rows * nn.a_cols, tn.a_rows * tn.a_cols);
  /* a non-square product keeps m, n, k apart: 3 x 5 x 7 NN -> A' 5 x 7 ld 5, B' 7 x 3 ld 7, D 5 x 3 ld 5 */
  nn = gb_gemm_lt_layout(GB_GEMM_NN, 3, 5, 7);
  ck_assert_uint_eq(nn.a_rows, 5);
  ck_assert_uint_eq(nn.a_cols, 7);
  ck_assert_int_eq(nn.lda, 5);
  ck_assert_uint_eq(nn.b_rows, 7);
  ck_assert_uint_eq(nn.b_cols, 3);
  ck_assert_int_eq(nn.ldb, 7);
  ck_assert_int_eq(nn.ldd, 5);
}
END_TEST

START_TEST(test_ref_launch) {
  /* 8192 columns, 128 sampled rows. TN: 8 columns (warps) per 256-thread
   * block: 8192 / 8 = 1024 blocks in x; 128 / 8 = 16 in y */
  gb_gemm_ref_grid g = gb_gemm_ref_launch(GB_GEMM_TN, 8192, 128);
  ck_assert_uint_eq(g.gx, 1024);
  ck_assert_uint_eq(g.gy, 16);
  ck_assert_uint_eq(g.block, 256);
  /* NN: 256 columns (threads) per block: 8192 / 256 = 32 */
  g = gb_gemm_ref_launch(GB_GEMM_NN, 8192, 128);
  ck_assert_uint_eq(g.gx, 32);
  ck_assert_uint_eq(g.gy, 16);
  ck_assert_uint_eq(g.block, 256);
  /* rounding up: 1000 columns -> ceil(1000 / 8) = 125 (TN), ceil(1000 / 256) = 4 (NN); 1 row -> 1 */
  ck_assert_uint_eq(gb_gemm_ref_launch(GB_GEMM_TN, 1000, 1).gx, 125);
  ck_assert_uint_eq(gb_gemm_ref_launch(GB_GEMM_NN, 1000, 1).gx, 4);
  ck_assert_uint_eq(gb_gemm_ref_launch(GB_GEMM_NN, 1000, 1).gy, 1);
  /* 9 rows -> ceil(9 / 8) = 2 */
  ck_assert_uint_eq(gb_gemm_ref_launch(GB_GEMM_NN, 1000, 9).gy, 2);
}
END_TEST

/* Plans the gemm benchmark with --opt opts on a device of compute
 * capability major.minor (major < 0: no device info). */
static gb_err plan_with(const char *opts, int major, int minor, gb_case_list *out) {
  gb_run_config cfg = {.profile = GB_PROFILE_QUICK, .warmup = -1, .iters = -1, .repeat = 1, .bench_opts = opts};
  gb_device_info dev = {.cc_major = major, .cc_minor = minor};
  gb_run_ctx ctx = {.cfg = &cfg, .dev = major < 0 ? NULL : &dev};
  memset(out, 0, sizeof *out);
  return gb_bench_gemm.plan(&ctx, out);
}

START_TEST(test_plan_layouts) {
  gb_case_list l;
  /* default: TN only, 4 quick shapes x 13 precisions, names unchanged, and
   * on Hopper mxfp8 and nvfp4 at the first shape alone (their rows say why
   * they cannot run), then 4 grouped cases (TN too: check_gemm_grouped.c) */
  ck_assert_int_eq(plan_with(NULL, 9, 0, &l), GB_OK);
  ck_assert_uint_eq(l.n, 52 + 2 + 4);
  ck_assert_str_eq(l.v[0].name, "fp64");
  for (size_t i = 0; i < l.n; i++) ck_assert_int_eq(l.v[i].param[0], GB_GEMM_TN);
  gb_case_list_free(&l);

  /* tn:nn at one shape on Hopper: 15 TN + 6 NN (fp8, int8 and the block-scaled
   * left out), each precision's NN case right after its TN case */
  ck_assert_int_eq(plan_with("gemm.shapes=8192,gemm.layout=tn:nn", 9, 0, &l), GB_OK);
  ck_assert_uint_eq(l.n, 21);
  const char *order[] = {"fp64", "fp64_nn", "fp32", "fp32_nn", "tf32", "tf32_nn", "fp16", "fp16_nn", "bf16",
                         "bf16_nn", "fp16acc16", "fp16acc16_nn", "fp8e4m3_slowacc"};
  for (int i = 0; i < 13; i++) ck_assert_str_eq(l.v[i].name, order[i]);
  ck_assert_str_eq(l.v[17].name, "fp8e4m3_e4m3out_fastacc");
  ck_assert_str_eq(l.v[18].name, "int8");
  ck_assert_str_eq(l.v[19].name, "mxfp8");
  ck_assert_str_eq(l.v[20].name, "nvfp4");
  ck_assert_int_eq(l.v[1].param[0], GB_GEMM_NN);
  ck_assert_str_eq(l.v[1].dtype, "fp64"); /* same dtype as TN: only the case differs */
  ck_assert_int_eq(l.v[1].m, 8192);
  ck_assert_ptr_eq(l.v[1].spec, gb_gemm_prec_find("fp64"));
  gb_case_list_free(&l);

  /* the same on Blackwell (10.0): NN for all 13 but the block-scaled (TN only) */
  ck_assert_int_eq(plan_with("gemm.shapes=8192,gemm.layout=tn:nn", 10, 0, &l), GB_OK);
  ck_assert_uint_eq(l.n, 15 + 13);
  gb_case_list_free(&l);
  /* no device info: everything asked for */
  ck_assert_int_eq(plan_with("gemm.shapes=8192,gemm.layout=nn", -1, 0, &l), GB_OK);
  ck_assert_uint_eq(l.n, 15);
  gb_case_list_free(&l);

  /* NN only, precisions named: int8 is planned on Hopper (its row will say why it cannot run) */
  ck_assert_int_eq(plan_with("gemm.shapes=8192:1024,gemm.layout=nn,gemm.precs=fp64:int8", 9, 0, &l), GB_OK);
  ck_assert_uint_eq(l.n, 4);
  ck_assert_str_eq(l.v[0].name, "fp64_nn");
  ck_assert_str_eq(l.v[1].name, "int8_nn");
  ck_assert_int_eq(l.v[1].param[0], GB_GEMM_NN);
  ck_assert_int_eq(l.v[2].m, 1024);
  gb_case_list_free(&l);

  ck_assert_int_eq(plan_with("gemm.layout=nt", 9, 0, &l), GB_E_USAGE);
  gb_case_list_free(&l);
}
END_TEST

START_TEST(test_plan_wants) {
  gb_gemm_opts o;
  const gb_gemm_prec *fp64 = gb_gemm_prec_find("fp64"), *i8 = gb_gemm_prec_find("int8");
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=tn:nn", &o), GB_OK);
  ck_assert(gb_gemm_plan_wants(&o, fp64, GB_GEMM_NN, 9, 0));
  ck_assert(gb_gemm_plan_wants(&o, i8, GB_GEMM_TN, 9, 0));
  ck_assert(!gb_gemm_plan_wants(&o, i8, GB_GEMM_NN, 9, 0)); /* not asked by name, cannot run */
  ck_assert(gb_gemm_plan_wants(&o, i8, GB_GEMM_NN, 10, 0));
  ck_assert(gb_gemm_plan_wants(&o, i8, GB_GEMM_NN, -1, 0));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=nn,gemm.precs=int8", &o), GB_OK);
  ck_assert(gb_gemm_plan_wants(&o, i8, GB_GEMM_NN, 9, 0)); /* asked by name: planned, so its row says why */
  ck_assert(!gb_gemm_plan_wants(&o, i8, GB_GEMM_TN, 9, 0));
  ck_assert(!gb_gemm_plan_wants(&o, fp64, GB_GEMM_NN, 9, 0));
}
END_TEST

/* ---- the extended search's ranking ---- */

START_TEST(test_enum_score) {
  /* tile 20 = 128x128: area 16384; 31.03 waves -> 16384 * 31.03 / 32 */
  gb_gemm_enum_cand c = {.algo_id = 1, .tile = 20, .stages = 16, .waves = 31.03f};
  ck_assert_double_eq_tol(gb_gemm_enum_score(&c), 16384.0 * (double)31.03f / 32.0, 1e-9);
  /* whole waves: the full area; 128x256 (23) at 2 waves = 32768 */
  c.tile = 23;
  c.waves = 2.0f;
  ck_assert_double_eq(gb_gemm_enum_score(&c), 32768.0);
  /* 0.5 wave: half the SMs idle -> 32768 * 0.5 / 1 = 16384 */
  c.waves = 0.5f;
  ck_assert_double_eq(gb_gemm_enum_score(&c), 16384.0);
  c.waves = 0.0f; /* unknown waves */
  ck_assert_double_eq(gb_gemm_enum_score(&c), 0.0);
  c.waves = 1.0f;
  c.tile = 0; /* undefined tile */
  ck_assert_double_eq(gb_gemm_enum_score(&c), 0.0);
  c.tile = 99999; /* newer than the table */
  ck_assert_double_eq(gb_gemm_enum_score(&c), 0.0);

  ck_assert_int_eq(gb_gemm_stage_depth(16), 4);    /* "64x4" */
  ck_assert_int_eq(gb_gemm_stage_depth(1), 1);     /* "16x1" */
  ck_assert_int_eq(gb_gemm_stage_depth(35), 1000); /* "64xAUTO" */
  ck_assert_int_eq(gb_gemm_stage_depth(0), 0);     /* undefined */
  ck_assert_int_eq(gb_gemm_stage_depth(99999), 0);
}
END_TEST

START_TEST(test_enum_pick) {
  const gb_gemm_enum_cand c[] = {
      {.algo_id = 5, .tile = 20, .stages = 16, .waves = 2.0f}, /* 0: 16384, shadowed by 1 (same id, tile; 4 < AUTO) */
      {.algo_id = 5, .tile = 20, .stages = 35, .waves = 2.0f}, /* 1: 16384 */
      {.algo_id = 5, .tile = 23, .stages = 16, .waves = 1.0f}, /* 2: 128x256 -> 32768 */
      {.algo_id = 7, .tile = 15, .stages = 16, .waves = 4.0f}, /* 3: 64x64 -> 4096 */
      {.algo_id = 7, .tile = 0, .stages = 16, .waves = 4.0f},  /* 4: unknown tile: never */
      {.algo_id = 9, .tile = 24, .stages = 16, .waves = 0.5f}, /* 5: 256x128 half a wave -> 16384 */
  };
  size_t picked[8];
  /* round 1, ids by their best: 5 (#2, 32768), 9 (#5, 16384; ties with #1 but id 5
   * had its turn), 7 (#3, 4096); round 2: 5 again (#1) */
  ck_assert_uint_eq(gb_gemm_enum_pick(c, 6, 8, picked), 4);
  ck_assert_uint_eq(picked[0], 2);
  ck_assert_uint_eq(picked[1], 5);
  ck_assert_uint_eq(picked[2], 3);
  ck_assert_uint_eq(picked[3], 1);
  /* want bounds the count */
  ck_assert_uint_eq(gb_gemm_enum_pick(c, 6, 2, picked), 2);
  ck_assert_uint_eq(picked[1], 5);
  ck_assert_uint_eq(gb_gemm_enum_pick(c, 6, 0, picked), 0);
  ck_assert_uint_eq(gb_gemm_enum_pick(c, 0, 4, picked), 0);
  /* equal scores: enumeration order */
  const gb_gemm_enum_cand tie[] = {{.algo_id = 3, .tile = 20, .stages = 16, .waves = 1.0f},
                                   {.algo_id = 2, .tile = 20, .stages = 16, .waves = 1.0f}};
  ck_assert_uint_eq(gb_gemm_enum_pick(tie, 2, 2, picked), 2);
  ck_assert_uint_eq(picked[0], 0);
  ck_assert_uint_eq(picked[1], 1);
}
END_TEST


static Suite *suite(void) {
  Suite *s = suite_create("gemm_layout");
  TCase *layout = tcase_create("layout");
  tcase_add_test(layout, test_case_names);
  tcase_add_test(layout, test_layout_supported);
  tcase_add_test(layout, test_lt_layout);
  tcase_add_test(layout, test_ref_launch);
  tcase_add_test(layout, test_plan_layouts);
  tcase_add_test(layout, test_plan_wants);
  tcase_add_test(layout, test_enum_score);
  tcase_add_test(layout, test_enum_pick);
  suite_add_tcase(s, layout);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
