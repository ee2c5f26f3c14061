/* Tests for the pure parts of the membw and copy benchmarks (bench_membw.h):
 * byte accounting, the size sweep's bounds, the headline rule, the L2
 * rotation, variants, options and the result checks, with hand-computed
 * values. No GPU needed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_membw.h"
#include "gb_desc.h"
#include "testutil.h"

#define MIB GB_MEMBW_MIB
#define GIB GB_MEMBW_GIB
#define H200_L2 ((int64_t)62914560) /* 60 MiB as the driver reports it */

/* ---- byte accounting ---- */

static const struct {
  const char *name;
  int arrays;
} weights[] = {{"copy", 2}, {"mul", 2}, {"add", 3}, {"triad", 3}, {"dot", 2}, {"read", 1}, {"write", 1}};

START_TEST(test_weights) {
  const gb_stream_kernel *k = gb_stream_find(weights[_i].name);
  ck_assert_ptr_nonnull(k);
  ck_assert_int_eq(k->arrays, weights[_i].arrays);
  /* 2^28 doubles = 2 GiB per array: bytes moved = arrays * 2^31 */
  ck_assert_int_eq(gb_membw_bytes_moved(k, 2 * GIB), (int64_t)weights[_i].arrays * 2147483648LL);
}
END_TEST

START_TEST(test_accounting_values) {
  ck_assert_uint_eq(gb_stream_nkernels, 7);
  /* triad on 2^28 doubles: 3 * 8 * 2^28 = 6442450944 bytes; at 1.4641933 ms
   * that is 6442450944 / 1.4641933e-3 / 1e9 = 4400.0 GB/s */
  const gb_stream_kernel *t = gb_stream_find("triad");
  ck_assert_int_eq(gb_membw_bytes_moved(t, (int64_t)8 << 28), 6442450944LL);
  ck_assert_double_eq_tol(6442450944.0 / 1.4641933e-3 / 1e9, 4400.0, 0.01);
  ck_assert_uint_eq(gb_membw_elem_bytes(GB_DT_F64), 8);
  ck_assert_uint_eq(gb_membw_elem_bytes(GB_DT_F32), 4);
  ck_assert_uint_eq(gb_membw_elem_bytes(GB_DT_F16), 0);
  ck_assert_ptr_null(gb_stream_find("nstream"));
  /* reductions and writers are what the check relies on */
  ck_assert(gb_stream_find("dot")->reduction && !gb_stream_find("dot")->writes_z);
  ck_assert(gb_stream_find("write")->writes_z && !gb_stream_find("write")->reads_x);
}
END_TEST

/* ---- sweep ---- */

START_TEST(test_sweep_quick_h200) {
  /* 140 GiB free: reserve 140/20 = 7 GiB; (133 GiB)/3 = 44.3 GiB -> fits
   * 32 GiB; quick max 4 GiB: 1, 4, 16, 64, 256 MiB (x4), then 1, 2, 4 GiB (x2) */
  int64_t s[GB_MEMBW_MAX_SIZES];
  size_t n = gb_membw_sweep(GB_PROFILE_QUICK, gb_membw_default_max_bytes(GB_PROFILE_QUICK), 140 * GIB, 3, s,
                            GB_MEMBW_MAX_SIZES);
  int64_t want[] = {MIB, 4 * MIB, 16 * MIB, 64 * MIB, 256 * MIB, GIB, 2 * GIB, 4 * GIB};
  ck_assert_uint_eq(n, 8);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(s[i], want[i]);
  ck_assert_int_eq(gb_membw_fit_bytes(140 * GIB, 3), 32 * GIB);
}
END_TEST

START_TEST(test_sweep_full_h200) {
  /* full doubles from 1 MiB to 16 GiB: 2^20 .. 2^34 = 15 sizes */
  int64_t s[GB_MEMBW_MAX_SIZES];
  size_t n = gb_membw_sweep(GB_PROFILE_FULL, gb_membw_default_max_bytes(GB_PROFILE_FULL), 140 * GIB, 3, s,
                            GB_MEMBW_MAX_SIZES);
  ck_assert_uint_eq(n, 15);
  ck_assert_int_eq(s[0], MIB);
  ck_assert_int_eq(s[14], 16 * GIB);
  for (size_t i = 1; i < n; i++) ck_assert_int_eq(s[i], 2 * s[i - 1]);
}
END_TEST

START_TEST(test_sweep_capped_by_free_memory) {
  int64_t s[GB_MEMBW_MAX_SIZES];
  /* 8 GiB free: reserve max(512 MiB, 409.6 MiB) = 512 MiB; 7.5 GiB / 3 =
   * 2.5 GiB -> 2 GiB per array is the largest */
  ck_assert_int_eq(gb_membw_reserve_bytes(8 * GIB), 512 * MIB);
  ck_assert_int_eq(gb_membw_fit_bytes(8 * GIB, 3), 2 * GIB);
  size_t n = gb_membw_sweep(GB_PROFILE_QUICK, 4 * GIB, 8 * GIB, 3, s, GB_MEMBW_MAX_SIZES);
  ck_assert_uint_eq(n, 7);
  ck_assert_int_eq(s[n - 1], 2 * GIB);
  for (size_t i = 0; i < n; i++) ck_assert_int_le(3 * s[i], 8 * GIB - 512 * MIB);
  /* 2 GiB free: 1.5 GiB / 3 = 512 MiB; quick: 1, 4, 16, 64, 256 MiB */
  n = gb_membw_sweep(GB_PROFILE_QUICK, 4 * GIB, 2 * GIB, 3, s, GB_MEMBW_MAX_SIZES);
  ck_assert_uint_eq(n, 5);
  ck_assert_int_eq(s[4], 256 * MIB);
  /* 514 MiB free: 2 MiB usable < 3 arrays of 1 MiB: nothing */
  ck_assert_int_eq(gb_membw_fit_bytes(514 * MIB, 3), 0);
  ck_assert_uint_eq(gb_membw_sweep(GB_PROFILE_FULL, 4 * GIB, 514 * MIB, 3, s, GB_MEMBW_MAX_SIZES), 0);
  /* an explicit smaller max wins over memory */
  n = gb_membw_sweep(GB_PROFILE_FULL, 3 * MIB, 140 * GIB, 3, s, GB_MEMBW_MAX_SIZES);
  ck_assert_uint_eq(n, 2); /* 1, 2 MiB */
  /* the cap on out is honoured */
  ck_assert_uint_eq(gb_membw_sweep(GB_PROFILE_FULL, 16 * GIB, 140 * GIB, 3, s, 4), 4);
}
END_TEST

/* membw's HBM sizes are gb_desc's one rule: 1 GiB and 8 L2 sizes. */
START_TEST(test_headline_rule) {
  ck_assert_int_eq(gb_hbm_min_bytes(H200_L2), GIB); /* 8 x 60 MiB = 480 MiB < 1 GiB */
  ck_assert_int_eq(gb_hbm_min_bytes(256 * MIB), 2 * GIB);
  gb_row r = gb_row_empty();
  r.benchmark = "membw";
  r.case_name = "triad";
  r.metric = "gbps";
  r.bytes = GIB;
  r.l2_bytes = H200_L2;
  ck_assert(gb_desc_is_headline(&r, NULL, 0));
  r.l2_bytes = 256 * MIB; /* a 256 MiB cache: 1 GiB arrays no longer qualify */
  ck_assert(!gb_desc_is_headline(&r, NULL, 0));
}
END_TEST

START_TEST(test_regime_and_cold_sets) {
  ck_assert_str_eq(gb_membw_regime(48 * MIB, H200_L2), "l2");
  ck_assert_str_eq(gb_membw_regime(H200_L2, H200_L2), "l2");
  ck_assert_str_eq(gb_membw_regime(8 * H200_L2 - 1, H200_L2), "transition");
  ck_assert_str_eq(gb_membw_regime(8 * H200_L2, H200_L2), "hbm");
  /* triad on 1 MiB arrays: 3 MiB per operation; 8 * 62914560 / 3145728 = 160 */
  ck_assert_int_eq(gb_membw_cold_sets(3 * MIB, H200_L2), 160);
  /* read on 1 MiB: 503316480 / 1048576 = 480 */
  ck_assert_int_eq(gb_membw_cold_sets(MIB, H200_L2), 480);
  /* 64 MiB copy (128 MiB): ceil(503316480 / 134217728) = ceil(3.75) = 4 */
  ck_assert_int_eq(gb_membw_cold_sets(128 * MIB, H200_L2), 4);
  /* already over 8 L2s: no rotation */
  ck_assert_int_eq(gb_membw_cold_sets(768 * MIB, H200_L2), 1);
  /* 128 MiB L2 on 1 MiB would need 1024 sets: capped at 512 */
  ck_assert_int_eq(gb_membw_cold_sets(MIB, 128 * MIB), GB_MEMBW_MAX_SETS);
}
END_TEST

START_TEST(test_ops_per_sample) {
  /* 512 MiB per sample: a 2 MiB copy -> 256 operations */
  ck_assert_int_eq(gb_membw_ops_per_sample(2 * MIB, 1), 256);
  /* 3 MiB, 160 sets: ceil(512/3) = 171 -> a multiple of 160 -> 320 */
  ck_assert_int_eq(gb_membw_ops_per_sample(3 * MIB, 160), 320);
  /* 1 MiB, 480 sets: 512 -> 960 (<= 1024) */
  ck_assert_int_eq(gb_membw_ops_per_sample(MIB, 480), 960);
  /* large operations: one per sample */
  ck_assert_int_eq(gb_membw_ops_per_sample(6 * GIB, 1), 1);
  /* 64 KiB: 8192 operations wanted, capped at 1024 */
  ck_assert_int_eq(gb_membw_ops_per_sample(64 * 1024, 1), GB_MEMBW_MAX_OPS);
}
END_TEST

/* the prefix's fastest variants, fastest first, that go on to the whole array */
START_TEST(test_fastest_variants) {
  double sec[] = {1.010e-3, 1.002e-3, NAN, 1.001e-3, 1.002e-3, INFINITY, 1.030e-3};
  size_t out[GB_MEMBW_RETUNE];
  ck_assert_uint_eq(gb_membw_fastest(sec, 7, GB_MEMBW_RETUNE, out), 3);
  ck_assert_uint_eq(out[0], 3);
  ck_assert_uint_eq(out[1], 1); /* a tie: the lower index first */
  ck_assert_uint_eq(out[2], 4);
  ck_assert_uint_eq(gb_membw_fastest(sec, 7, 1, out), 1);
  ck_assert_uint_eq(out[0], 3);
  double none[] = {NAN, INFINITY};
  ck_assert_uint_eq(gb_membw_fastest(none, 2, GB_MEMBW_RETUNE, out), 0);
  ck_assert_uint_eq(gb_membw_fastest(sec, 2, GB_MEMBW_RETUNE, out), 2); /* fewer than k ran */
  ck_assert_uint_eq(out[0], 1);
  ck_assert_uint_eq(out[1], 0);
}
END_TEST

/* ---- variants ---- */

START_TEST(test_variants) {
  gb_membw_variant v[GB_MEMBW_MAX_VARIANTS];
  const gb_stream_kernel *triad = gb_stream_find("triad"), *dot = gb_stream_find("dot"),
                        *wr = gb_stream_find("write");
  /* quick triad: 16 bytes in 4 flavours (plain, _cs, _pf, _cs_pf) x 3 unroll
   * x 2 blocks x 2 grids = 48, fp64 and fp32 alike */
  ck_assert_uint_eq(gb_membw_variants(triad, GB_DT_F64, GB_PROFILE_QUICK, v, GB_MEMBW_MAX_VARIANTS), 48);
  ck_assert_uint_eq(gb_membw_variants(triad, GB_DT_F32, GB_PROFILE_QUICK, v, GB_MEMBW_MAX_VARIANTS), 48);
  /* full fp64 triad: w8 (3 x 4 blocks x 2 grids = 24) + w16 (4 x 24) = 120 */
  ck_assert_uint_eq(gb_membw_variants(triad, GB_DT_F64, GB_PROFILE_FULL, v, GB_MEMBW_MAX_VARIANTS), 120);
  /* full fp32 triad: w4 24 + w8 24 + w16 96 = 144 */
  ck_assert_uint_eq(gb_membw_variants(triad, GB_DT_F32, GB_PROFILE_FULL, v, GB_MEMBW_MAX_VARIANTS), 144);
  /* dot: no streaming stores, persistent grid only: quick 2 flavours x 3 x 2 = 12 */
  size_t n = gb_membw_variants(dot, GB_DT_F64, GB_PROFILE_QUICK, v, GB_MEMBW_MAX_VARIANTS);
  ck_assert_uint_eq(n, 12);
  for (size_t i = 0; i < n; i++) ck_assert(v[i].persistent && !v[i].streaming);
  /* write loads nothing: no prefetch flavour; quick 2 x 12 = 24 */
  n = gb_membw_variants(wr, GB_DT_F64, GB_PROFILE_QUICK, v, GB_MEMBW_MAX_VARIANTS);
  ck_assert_uint_eq(n, 24);
  for (size_t i = 0; i < n; i++) ck_assert(!v[i].prefetch);
  /* the cap */
  ck_assert_uint_eq(gb_membw_variants(triad, GB_DT_F64, GB_PROFILE_FULL, v, 5), 5);
}
END_TEST

START_TEST(test_variant_names_in_source) {
  /* every kernel a variant names is defined by bench/membw/stream.cu's macros:
   * the names follow <op>_<f64|f32>_w<W>_e<E>[_cs] and the source generates
   * exactly widths 8/16 (fp64), 4/8/16 (fp32), e 1/2/4, _cs at 16 bytes */
  const gb_stream_kernel *triad = gb_stream_find("triad");
  char buf[64];
  gb_membw_variant v = {16, 2, true, false, 256, true};
  gb_membw_kernel_name(triad, GB_DT_F64, &v, buf, sizeof buf);
  ck_assert_str_eq(buf, "triad_f64_w16_e2_cs");
  gb_membw_variant_name(&v, buf, sizeof buf);
  ck_assert_str_eq(buf, "w16_e2_cs_b256_persistent");
  v.prefetch = true;
  gb_membw_kernel_name(triad, GB_DT_F32, &v, buf, sizeof buf);
  ck_assert_str_eq(buf, "triad_f32_w16_e2_cs_pf");
  gb_membw_variant_name(&v, buf, sizeof buf);
  ck_assert_str_eq(buf, "w16_e2_cs_pf_b256_persistent");
  gb_membw_variant w = {4, 1, false, false, 1024, false};
  gb_membw_kernel_name(gb_stream_find("read"), GB_DT_F32, &w, buf, sizeof buf);
  ck_assert_str_eq(buf, "read_f32_w4_e1");
  gb_membw_variant_name(&w, buf, sizeof buf);
  ck_assert_str_eq(buf, "w4_e1_b1024_cover");
  size_t len = 0;
  char path[4096];
  snprintf(path, sizeof path, "%s/bench/membw/stream.cu", GB_SOURCE_ROOT);
  char *src = gb_test_slurp(path, &len);
  ck_assert_ptr_nonnull(src);
  ck_assert_ptr_nonnull(strstr(src, "GB_EW_E(op, OPC, tn, T, 16, N, _cs_pf, true, true)"));
  ck_assert_ptr_nonnull(strstr(src, "GB_EW_W16(op, OPC, f64, double, 2)"));
  ck_assert_ptr_nonnull(strstr(src, "GB_EW_E(op, OPC, f32, float, 4, 1, , false, false)"));
  ck_assert_ptr_nonnull(strstr(src, "GB_RED_E(op, OPC, f32, float, 16, 4, _pf, true)"));
  ck_assert_ptr_nonnull(strstr(src, "GB_RED_OP(read, GB_OP_READ)"));
  free(src);
}
END_TEST

START_TEST(test_grid) {
  gb_membw_variant v = {16, 2, false, false, 256, true};
  /* 2^28 doubles, 16-byte accesses: 2^27 vectors; 256 threads x 2 = 512 per
   * block -> cover 262144 blocks; persistent: 132 SMs x 8 = 1056 */
  ck_assert_int_eq(gb_membw_grid(&v, (int64_t)1 << 28, 8, 132, 8), 1056);
  v.persistent = false;
  ck_assert_int_eq(gb_membw_grid(&v, (int64_t)1 << 28, 8, 132, 8), 262144);
  /* 1000 floats in 16-byte vectors: 250 vectors, one block */
  gb_membw_variant s = {16, 1, false, false, 256, true};
  ck_assert_int_eq(gb_membw_grid(&s, 1000, 4, 132, 8), 1);
  /* 1001 floats: 251 vectors (the tail element rides along), still 1 block */
  ck_assert_int_eq(gb_membw_grid(&s, 1001, 4, 132, 8), 1);
  ck_assert_int_eq(gb_membw_grid(&s, 0, 4, 132, 8), 1);
}
END_TEST

/* ---- options ---- */

START_TEST(test_opts_parse) {
  gb_membw_opts o;
  ck_assert_int_eq(gb_membw_opts_parse(NULL, "membw.", &o), GB_OK);
  ck_assert_uint_eq(o.nsizes, 0);
  ck_assert_int_eq(o.cold, -1);
  ck_assert(!o.corrupt);
  ck_assert_int_eq(gb_membw_opts_parse("membw.sizes=1M:4G,gemm.shapes=x,membw.kernels=triad:dot,membw.dtypes=fp64,"
                                       "membw.corrupt=1,membw.cold=0,copy.max=1G",
                                       "membw.", &o),
                   GB_OK);
  ck_assert_uint_eq(o.nsizes, 2);
  ck_assert_int_eq(o.sizes[0], MIB);
  ck_assert_int_eq(o.sizes[1], 4 * GIB);
  ck_assert_uint_eq(o.kernel_mask, (1u << 3) | (1u << 4)); /* triad is entry 3, dot 4 */
  ck_assert_uint_eq(o.dtype_mask, 1u);
  ck_assert(o.corrupt);
  ck_assert_int_eq(o.cold, 0);
  ck_assert_int_eq(o.max_bytes, 0); /* copy.max is not ours */
  ck_assert_int_eq(gb_membw_opts_parse("membw.sizes=1M,copy.max=1G", "copy.", &o), GB_OK);
  ck_assert_int_eq(o.max_bytes, GIB);
  ck_assert_uint_eq(o.nsizes, 0);
}
END_TEST

static const char *bad_opts[] = {
    "membw.sizes=1X",      "membw.sizes=17",       "membw.sizes=1M::2M", "membw.bogus=1",
    "membw.kernels=nstream", "membw.dtypes=fp16",  "membw.corrupt=yes",  "membw.max",
    "membw.max=",          "membw.cold=2",
};

START_TEST(test_opts_bad) {
  gb_membw_opts o;
  ck_assert_int_eq(gb_membw_opts_parse(bad_opts[_i], "membw.", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "membw."));
}
END_TEST

/* fuzz_cli found this (tests/fixtures/fuzz_cli_membw_cold_not_bool.bin): a
 * value that is not a boolean left `cold` set from an uninitialized bool
 * (UBSan: "load of value 14, which is not a valid value for type 'bool'").
 * Now the error comes back and cold keeps its default (-1: per profile). */
START_TEST(test_opts_cold_not_bool_keeps_default) {
  gb_membw_opts o;
  ck_assert_int_eq(gb_membw_opts_parse("membw.cold=imeout=30", "membw.", &o), GB_E_USAGE);
  ck_assert_int_eq(o.cold, -1);
}
END_TEST

START_TEST(test_opts_copy_rejects_membw_keys) {
  gb_membw_opts o;
  ck_assert_int_eq(gb_membw_opts_parse("copy.kernels=triad", "copy.", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "copy.kernels"));
}
END_TEST

/* ---- checks ---- */

/* inputs in [1, 2) from a small LCG, standing in for gb_random_value */
static double lcg_value(uint64_t *state, gb_dtype t) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  double u = (double)(*state >> 11) / 9007199254740992.0;
  double v = 1.0 + u;
  return t == GB_DT_F32 ? (double)(float)v : v;
}

/* a correct run of kernel k over 64 elements, as host arrays */
static void make_samples(const gb_stream_kernel *k, gb_dtype t, double s, gb_membw_sample *v, size_t n) {
  uint64_t st = 12345;
  for (size_t i = 0; i < n; i++) {
    v[i].index = (int64_t)i * 1000;
    v[i].x = v[i].x_got = lcg_value(&st, t);
    v[i].y = v[i].y_got = lcg_value(&st, t);
    v[i].z_got = gb_membw_expected(k, t, s, v[i].x, v[i].y);
  }
}

START_TEST(test_expected_values) {
  const gb_stream_kernel *triad = gb_stream_find("triad");
  /* fp64: 0.4 * 1.25 rounds to 0.5, 1.5 + 0.5 = 2 */
  ck_assert_double_eq(gb_membw_expected(triad, GB_DT_F64, 0.4, 1.5, 1.25), 2.0);
  /* fp32: 0.4f * 1.3f = 0.519999981f; 1.1f + that = 1.62000000476837158
   * (in fp64 the same triad gives 1.6200000125169751: the check must round
   * as the fp32 kernel does) */
  ck_assert_double_eq(gb_membw_expected(triad, GB_DT_F32, 0.4, 1.1, 1.3), 1.6200000047683716);
  /* mul in fp32: 0.4f * 1.7f = 0.68000000715255737 */
  ck_assert_double_eq(gb_membw_expected(gb_stream_find("mul"), GB_DT_F32, 0.4, 1.7, 0), 0.68000000715255737);
  ck_assert_double_eq(gb_membw_expected(gb_stream_find("add"), GB_DT_F64, 0.4, 1.5, 1.25), 2.75);
  ck_assert_double_eq(gb_membw_expected(gb_stream_find("copy"), GB_DT_F64, 0.4, 1.5, 9), 1.5);
  ck_assert_double_eq(gb_membw_expected(gb_stream_find("write"), GB_DT_F64, 0.4, 1.5, 9), 0.4);
}
END_TEST

START_TEST(test_check_passes_correct_result) {
  gb_membw_sample v[64];
  char msg[512] = "";
  for (size_t ki = 0; ki < gb_stream_nkernels; ki++) {
    const gb_stream_kernel *k = &gb_stream_kernels[ki];
    for (int ti = 0; ti < 2; ti++) {
      gb_dtype t = ti ? GB_DT_F32 : GB_DT_F64;
      make_samples(k, t, 0.4, v, 64);
      ck_assert_msg(gb_membw_check_samples(k, t, 0.4, v, 64, msg, sizeof msg), "%s: %s", k->name, msg);
    }
  }
}
END_TEST

START_TEST(test_check_catches_corrupted_output) {
  /* a deliberately wrong kernel result: one element off by one ulp */
  gb_membw_sample v[64];
  char msg[512] = "";
  const gb_stream_kernel *triad = gb_stream_find("triad");
  make_samples(triad, GB_DT_F64, 0.4, v, 64);
  v[37].z_got = nextafter(v[37].z_got, 10.0);
  ck_assert(!gb_membw_check_samples(triad, GB_DT_F64, 0.4, v, 64, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "triad fp64 check failed"));
  ck_assert_ptr_nonnull(strstr(msg, "element 37000"));
  ck_assert_ptr_nonnull(strstr(msg, "1 of 64 sampled elements wrong"));
}
END_TEST

START_TEST(test_check_catches_unwritten_and_fp64_rounding) {
  gb_membw_sample v[8];
  char msg[512] = "";
  const gb_stream_kernel *copy = gb_stream_find("copy");
  make_samples(copy, GB_DT_F32, 0.4, v, 8);
  v[0].z_got = NAN; /* the poison: never written */
  v[7].z_got = NAN;
  ck_assert(!gb_membw_check_samples(copy, GB_DT_F32, 0.4, v, 8, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "element 0:"));
  ck_assert_ptr_nonnull(strstr(msg, "2 of 8"));
  /* an fp32 triad computed in fp64 (the wrong precision) is caught */
  const gb_stream_kernel *triad = gb_stream_find("triad");
  /* 1.1f + 0.4f*1.1f = 1.5400000810623169 in fp32; fp64 gives 1.540000033378601 */
  ck_assert_double_eq(gb_membw_expected(triad, GB_DT_F32, 0.4, 1.1f, 1.1f), 1.5400000810623169);
  gb_membw_sample w = {0, 1.1f, 1.1f, 1.1f, 1.1f, (double)1.1f + 0.4 * (double)1.1f};
  ck_assert(!gb_membw_check_samples(triad, GB_DT_F32, 0.4, &w, 1, msg, sizeof msg));
}
END_TEST

START_TEST(test_check_catches_clobbered_input) {
  gb_membw_sample v[4];
  char msg[512] = "";
  const gb_stream_kernel *add = gb_stream_find("add");
  make_samples(add, GB_DT_F64, 0.4, v, 4);
  v[2].y_got = 0.0;
  ck_assert(!gb_membw_check_samples(add, GB_DT_F64, 0.4, v, 4, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "input y holds 0"));
  /* dot writes no array: only its inputs are sampled */
  const gb_stream_kernel *dot = gb_stream_find("dot");
  make_samples(dot, GB_DT_F64, 0.4, v, 4);
  ck_assert(gb_membw_check_samples(dot, GB_DT_F64, 0.4, v, 4, msg, sizeof msg));
  v[1].x_got = -1.0;
  ck_assert(!gb_membw_check_samples(dot, GB_DT_F64, 0.4, v, 4, msg, sizeof msg));
}
END_TEST

START_TEST(test_expected_sum) {
  const gb_stream_kernel *dot = gb_stream_find("dot"), *rd = gb_stream_find("read");
  double x[] = {1, 2, 3}, y[] = {4, 5, 6};
  /* one period: 1*4 + 2*5 + 3*6 = 32 */
  ck_assert_double_eq(gb_membw_expected_sum(dot, GB_DT_F64, x, y, 3, 3), 32.0);
  /* 7 elements of period 3: 2 * 32 + 1*4 = 68 */
  ck_assert_double_eq(gb_membw_expected_sum(dot, GB_DT_F64, x, y, 3, 7), 68.0);
  /* read: 2 * (1+2+3) + 1 = 13 */
  ck_assert_double_eq(gb_membw_expected_sum(rd, GB_DT_F64, x, y, 3, 7), 13.0);
  /* a period longer than n is cut to n: 1*4 + 2*5 = 14 */
  ck_assert_double_eq(gb_membw_expected_sum(dot, GB_DT_F64, x, y, 3, 2), 14.0);
  /* period 3 repeated 2^29 times */
  ck_assert_double_eq(gb_membw_expected_sum(dot, GB_DT_F64, x, y, 3, (int64_t)3 << 29), 32.0 * (double)(1 << 29));
  /* fp32 inputs: the fp64 product of the floats, 1.1f * 1.3f */
  double xf[] = {1.1}, yf[] = {1.3};
  ck_assert_double_eq(gb_membw_expected_sum(dot, GB_DT_F32, xf, yf, 1, 1), (double)1.1f * (double)1.3f);
}
END_TEST

START_TEST(test_check_sum) {
  const gb_stream_kernel *dot = gb_stream_find("dot");
  char msg[512] = "";
  double tol = gb_membw_sum_tolerance();
  ck_assert_double_eq(tol, 1e-10);
  ck_assert(gb_membw_check_sum(dot, 68.0, 68.0, tol, msg, sizeof msg));
  ck_assert(gb_membw_check_sum(dot, 68.0 * (1 + 5e-11), 68.0, tol, msg, sizeof msg));
  /* a deliberately wrong sum: one term of 2^30 terms averaging 2.25 missing
   * is 1 / 2^30 = 9.3e-10 relative, over the 1e-10 tolerance */
  double n = (double)(1 << 30), want = 2.25 * n;
  ck_assert(!gb_membw_check_sum(dot, want - 2.25, want, tol, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "dot check failed"));
  ck_assert(!gb_membw_check_sum(dot, NAN, 68.0, tol, msg, sizeof msg));
  ck_assert(!gb_membw_check_sum(dot, -1.0, 68.0, tol, msg, sizeof msg));
}
END_TEST

START_TEST(test_sample_indices) {
  int64_t idx[32];
  size_t m = gb_membw_sample_indices(1000, 32, 7, idx);
  ck_assert_uint_eq(m, 32);
  ck_assert_int_eq(idx[0], 0);
  ck_assert_int_eq(idx[1], 999);
  for (size_t i = 0; i < m; i++) ck_assert(idx[i] >= 0 && idx[i] < 1000);
  /* fewer elements than samples */
  ck_assert_uint_eq(gb_membw_sample_indices(1, 32, 7, idx), 1);
  ck_assert_int_eq(idx[0], 0);
  ck_assert_uint_eq(gb_membw_sample_indices(2, 2, 7, idx), 2);
  ck_assert_int_eq(idx[1], 1);
  ck_assert_uint_eq(gb_membw_sample_indices(0, 32, 7, idx), 0);
  /* the same seed gives the same positions */
  int64_t again[32];
  gb_membw_sample_indices(1000, 32, 7, again);
  gb_membw_sample_indices(1000, 32, 7, idx);
  ck_assert_mem_eq(idx, again, sizeof idx);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("membw");
  TCase *acc = tcase_create("accounting");
  tcase_add_loop_test(acc, test_weights, 0, (int)(sizeof weights / sizeof weights[0]));
  tcase_add_test(acc, test_accounting_values);
  suite_add_tcase(s, acc);
  TCase *sw = tcase_create("sweep");
  tcase_add_test(sw, test_sweep_quick_h200);
  tcase_add_test(sw, test_sweep_full_h200);
  tcase_add_test(sw, test_sweep_capped_by_free_memory);
  tcase_add_test(sw, test_headline_rule);
  tcase_add_test(sw, test_regime_and_cold_sets);
  tcase_add_test(sw, test_fastest_variants);
  tcase_add_test(sw, test_ops_per_sample);
  suite_add_tcase(s, sw);
  TCase *var = tcase_create("variants");
  tcase_add_test(var, test_variants);
  tcase_add_test(var, test_variant_names_in_source);
  tcase_add_test(var, test_grid);
  suite_add_tcase(s, var);
  TCase *op = tcase_create("options");
  tcase_add_test(op, test_opts_parse);
  tcase_add_loop_test(op, test_opts_bad, 0, (int)(sizeof bad_opts / sizeof bad_opts[0]));
  tcase_add_test(op, test_opts_cold_not_bool_keeps_default);
  tcase_add_test(op, test_opts_copy_rejects_membw_keys);
  suite_add_tcase(s, op);
  TCase *ck = tcase_create("check");
  tcase_add_test(ck, test_expected_values);
  tcase_add_test(ck, test_check_passes_correct_result);
  tcase_add_test(ck, test_check_catches_corrupted_output);
  tcase_add_test(ck, test_check_catches_unwritten_and_fp64_rounding);
  tcase_add_test(ck, test_check_catches_clobbered_input);
  tcase_add_test(ck, test_expected_sum);
  tcase_add_test(ck, test_check_sum);
  tcase_add_test(ck, test_sample_indices);
  suite_add_tcase(s, ck);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
