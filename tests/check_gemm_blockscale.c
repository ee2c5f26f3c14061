/* Tests for the GEMM benchmark's block-scaled precisions (mxfp8, nvfp4) on
 * the CPU: the skip path with a fake capability (sm_90: one case each whose
 * row says why; sm_100: planned at every shape), the layout and grouping
 * refusals, the scale tensors' size and tiled layout, the seeded scale
 * bytes and the fp4 and scale values (hand-computed). */
#include <math.h>
#include <string.h>

#include "bench_gemm.h"
#include "gemm_internal.h"
#include "testutil.h"

extern const gb_bench gb_bench_gemm;

static size_t plan_count(int major, int minor, const char *name, gb_case_list *l) {
  gb_gemm_opts o;
  ck_assert_int_eq(gb_gemm_opts_parse(NULL, &o), GB_OK);
  memset(l, 0, sizeof *l);
  ck_assert_int_eq(gb_gemm_plan(&o, GB_PROFILE_QUICK, major, minor, l), GB_OK);
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++) n += strcmp(l->v[i].name, name) == 0;
  return n;
}

START_TEST(test_table) {
  const gb_gemm_prec *mx = gb_gemm_prec_find("mxfp8"), *nv = gb_gemm_prec_find("nvfp4");
  ck_assert_ptr_nonnull(mx);
  ck_assert_ptr_nonnull(nv);
  ck_assert_int_eq(mx->block, 32);
  ck_assert_int_eq(mx->scale_mode, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0);
  ck_assert_int_eq(mx->a_cuda, CUDA_R_8F_E4M3);
  ck_assert_str_eq(mx->dtype, "fp8e4m3");
  ck_assert(!mx->fp8 && !mx->fp4); /* no per-tensor scale pointers */
  ck_assert_int_eq(nv->block, 16);
  ck_assert_int_eq(nv->scale_mode, CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3);
  ck_assert_int_eq(nv->a_cuda, CUDA_R_4F_E2M1);
  ck_assert_str_eq(nv->dtype, "fp4e2m1");
  ck_assert(nv->fp4);
  ck_assert_int_eq(mx->d_type, GB_DT_BF16);
  ck_assert_int_eq(nv->min_cc, 100);
  /* nvfp4 operands: half a byte each; 8192^3 is two 32 MiB operands */
  ck_assert_uint_eq(gb_gemm_input_bytes(nv, 8192, 8192, 8192), 2ull * 8192 * 8192 / 2);
  ck_assert_uint_eq(gb_gemm_input_bytes(mx, 8192, 8192, 8192), 2ull * 8192 * 8192);
  ck_assert_str_eq(gemm_operand_name(nv, nv->a_type), "fp4e2m1");
  ck_assert_str_eq(gemm_operand_name(mx, mx->a_type), "fp8e4m3");
}
END_TEST

/* sm_90 (Hopper): each block-scaled precision once, at the first shape,
 * and its case says why it cannot run; the rest of the plan as before. */
START_TEST(test_skip_on_hopper) {
  gb_case_list l;
  ck_assert_uint_eq(plan_count(9, 0, "mxfp8", &l), 1);
  gb_case_list_free(&l);
  ck_assert_uint_eq(plan_count(9, 0, "nvfp4", &l), 1);
  gb_case_list_free(&l);
  ck_assert_uint_eq(plan_count(9, 0, "bf16", &l), 4);
  const gb_case *c = NULL;
  for (size_t i = 0; i < l.n && !c; i++)
    if (strcmp(l.v[i].name, "nvfp4") == 0) c = &l.v[i];
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(c->m, 8192); /* the quick profile's first shape */
  char why[320];
  ck_assert(!gb_gemm_case_runs(c, 9, 0, why, sizeof why));
  ck_assert_msg(strstr(why, "nvfp4: needs sm_100+ block-scaled tensor cores; this GPU is sm_90 (NVFP4"), "%s", why);
  /* the row the runner writes for it: the headline metric, status error */
  gb_row r = gb_bench_error_row(&gb_bench_gemm, c);
  ck_assert_str_eq(r.metric, "tflops");
  ck_assert_str_eq(r.unit, "TFLOP/s");
  ck_assert_str_eq(r.case_name, "nvfp4");
  /* and the run hook refuses it before touching a device */
  gb_run_config cfg = {.profile = GB_PROFILE_QUICK, .warmup = -1, .iters = -1, .repeat = 1};
  gb_device_info dev = {.cc_major = 9, .cc_minor = 0};
  gemm_state st;
  memset(&st, 0, sizeof st);
  gb_run_ctx ctx = {.cfg = &cfg, .dev = &dev, .state = &st};
  gb_rowset rows = {0};
  ck_assert_int_eq(gb_bench_gemm.run(&ctx, c, &rows), GB_E_UNSUPPORTED);
  ck_assert_msg(strstr(gb_errmsg(), "nvfp4: needs sm_100+ block-scaled tensor cores; this GPU is sm_90") != NULL, "%s",
                gb_errmsg());
  ck_assert_uint_eq(rows.n, 0);
  gb_rowset_free(&rows);
  gb_case_list_free(&l);
  /* Ampere too, with its own capability named */
  ck_assert(!gb_gemm_supported(gb_gemm_prec_find("mxfp8"), 8, 0, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "this GPU is sm_80"));
  ck_assert_ptr_nonnull(strstr(why, "e4m3 with an ue8m0 scale per 32 elements along K"));
}
END_TEST

/* sm_100 (Blackwell) and later: planned at every shape and runnable in TN. */
START_TEST(test_planned_on_blackwell) {
  gb_case_list l;
  ck_assert_uint_eq(plan_count(10, 0, "mxfp8", &l), 4);
  gb_case_list_free(&l);
  ck_assert_uint_eq(plan_count(12, 0, "nvfp4", &l), 4);
  char why[320];
  for (size_t i = 0; i < l.n; i++)
    if (strcmp(l.v[i].name, "nvfp4") == 0) ck_assert_msg(gb_gemm_case_runs(&l.v[i], 10, 0, why, sizeof why), "%s", why);
  gb_case_list_free(&l);
  /* no device known: planned everywhere */
  ck_assert_uint_eq(plan_count(-1, 0, "mxfp8", &l), 4);
  gb_case_list_free(&l);
  /* NN and grouped: refused with the reason, on any device */
  gb_case nn = gb_gemm_make_case(gb_gemm_prec_find("mxfp8"), GB_GEMM_NN, 4096, 4096, 4096);
  ck_assert(!gb_gemm_case_runs(&nn, 10, 0, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "only in the TN layout"));
  gb_gemm_gshape g = {.groups = 8, .m = 128, .n = 1024, .k = 2048, .model = "custom", .proj = ""};
  gb_case gc = gb_gemm_make_grouped_case(gb_gemm_prec_find("nvfp4"), &g);
  ck_assert(!gb_gemm_case_runs(&gc, 10, 0, why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "grouped block-scaled GEMM is not measured"));
  /* an ordinary case runs on either */
  gb_case bf = gb_gemm_make_case(gb_gemm_prec_find("bf16"), GB_GEMM_TN, 4096, 4096, 4096);
  ck_assert(gb_gemm_case_runs(&bf, 9, 0, why, sizeof why));
}
END_TEST

START_TEST(test_scale_layout) {
  /* k 4096 in blocks of 32: 128 blocks, 32 tiles of 4 along K */
  ck_assert_int_eq(gb_gemm_bs_kblocks(4096, 32), 128);
  ck_assert_int_eq(gb_gemm_bs_kblocks(4100, 16), 257);
  /* one row still takes a 128-row tile: 32 tiles x 512 bytes */
  ck_assert_uint_eq(gb_gemm_bs_scale_bytes(1, 4096, 32), 32 * 512);
  ck_assert_uint_eq(gb_gemm_bs_scale_bytes(14336, 4096, 16), 112ull * 64 * 512);
  /* inside a tile: (r % 32) * 16 + (r / 32) * 4 + c */
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(0, 0, 128), 0);
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(0, 1, 128), 1);
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(1, 0, 128), 16);
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(32, 0, 128), 4);
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(127, 3, 128), 31 * 16 + 3 * 4 + 3);
  /* the next tile along K, then the next row of tiles (32 tiles along K) */
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(0, 4, 128), 512);
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(128, 0, 128), 32 * 512);
  ck_assert_uint_eq(gb_gemm_bs_scale_offset(129, 5, 128), 33 * 512 + 16 + 1);
  /* every offset of a 256 x 8-block tensor is distinct and inside it */
  static unsigned char seen[2 * 2 * 512];
  memset(seen, 0, sizeof seen);
  for (int r = 0; r < 256; r++)
    for (int c = 0; c < 8; c++) {
      uint64_t off = gb_gemm_bs_scale_offset(r, c, 8);
      ck_assert_uint_lt(off, gb_gemm_bs_scale_bytes(256, 8 * 32, 32));
      ck_assert_int_eq(seen[off]++, 0);
    }
}
END_TEST

START_TEST(test_values) {
  const gb_gemm_prec *mx = gb_gemm_prec_find("mxfp8"), *nv = gb_gemm_prec_find("nvfp4");
  /* ue8m0 */
  ck_assert_double_eq(gb_gemm_bs_scale_value(mx, 127), 1.0);
  ck_assert_double_eq(gb_gemm_bs_scale_value(mx, 124), 0.125);
  ck_assert_double_eq(gb_gemm_bs_scale_value(mx, 129), 4.0);
  ck_assert(isnan(gb_gemm_bs_scale_value(mx, 255)));
  /* ue4m3: exponent bias 7, 3 mantissa bits */
  ck_assert_double_eq(gb_gemm_bs_scale_value(nv, 0x38), 1.0);
  ck_assert_double_eq(gb_gemm_bs_scale_value(nv, 0x30), 0.5);
  ck_assert_double_eq(gb_gemm_bs_scale_value(nv, 0x4F), 7.5);
  ck_assert_double_eq(gb_gemm_bs_scale_value(nv, 0x01), ldexp(1.0, -9));
  /* e2m1 */
  const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (unsigned v = 0; v < 8; v++) {
    ck_assert_double_eq(gb_gemm_e2m1_value(v), mag[v]);
    ck_assert_double_eq(gb_gemm_e2m1_value(v | 8), -mag[v]);
  }
  /* the seeded scale bytes stay in range, vary and repeat with the seed */
  int lo = 255, hi = 0;
  double vlo = 1e9, vhi = 0;
  for (uint64_t i = 0; i < 4096; i++) {
    unsigned char b = gb_gemm_bs_scale_byte(mx, 7, i);
    lo = b < lo ? b : lo;
    hi = b > hi ? b : hi;
    double v = gb_gemm_bs_scale_value(nv, gb_gemm_bs_scale_byte(nv, 7, i));
    vlo = v < vlo ? v : vlo;
    vhi = v > vhi ? v : vhi;
    ck_assert_int_eq(gb_gemm_bs_scale_byte(nv, 7, i), gb_gemm_bs_scale_byte(nv, 7, i));
  }
  ck_assert_int_eq(lo, 124);
  ck_assert_int_eq(hi, 129);
  ck_assert_double_eq(vlo, 0.5);
  ck_assert_double_eq(vhi, 7.5);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gemm_blockscale");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_table);
  tcase_add_test(tc, test_skip_on_hopper);
  tcase_add_test(tc, test_planned_on_blackwell);
  tcase_add_test(tc, test_scale_layout);
  tcase_add_test(tc, test_values);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
