/* Tests for the decode benchmark's pure parts (bench/decode/bench_decode.h)
 * and its registry entry: the cases of each profile, sizes, the launch
 * count the check expects, the input-set rotation, the attention reference
 * (hand-computed), the gate class and the headline rule. No GPU. */
#include <math.h>
#include <string.h>

#include "bench_decode.h"
#include "gb_desc.h"
#include "testutil.h"

static size_t count_case(const gb_case_list *l, const char *name) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++) n += strcmp(l->v[i].name, name) == 0;
  return n;
}

START_TEST(test_plan_quick) {
  gb_case_list l = {0};
  ck_assert_int_eq(gb_decode_plan(GB_PROFILE_QUICK, NULL, &l), GB_OK);
  /* launch, launch_graph, bf16 x {mlp_up, mlp_down of 8B} x {1, 8, 64}, 2 kv shapes */
  ck_assert_uint_eq(l.n, 10);
  ck_assert_str_eq(l.v[0].name, "launch");
  ck_assert_int_eq(l.v[0].param[0], GB_DECODE_LAUNCH);
  ck_assert_str_eq(l.v[1].name, "launch_graph");
  ck_assert_int_eq(l.v[1].param[0], GB_DECODE_LAUNCH_GRAPH);
  ck_assert_uint_eq(count_case(&l, "gemv_bf16"), 6);
  ck_assert_uint_eq(count_case(&l, "gemv_fp16"), 0);
  ck_assert_str_eq(l.v[2].dtype, "bf16");
  ck_assert_int_eq(l.v[2].m, 1);
  ck_assert_int_eq(l.v[2].n, 14336);
  ck_assert_int_eq(l.v[2].k, 4096);
  ck_assert_int_eq(l.v[4].m, 64);
  ck_assert_int_eq(l.v[5].n, 4096);
  ck_assert_int_eq(l.v[5].k, 14336);
  /* kv_read (1, 8, 32768): m = batch, n = seq, k = 8 heads x 128, bytes 128 MiB */
  ck_assert_str_eq(l.v[8].name, "kv_read");
  ck_assert_int_eq(l.v[8].m, 1);
  ck_assert_int_eq(l.v[8].n, 32768);
  ck_assert_int_eq(l.v[8].k, 1024);
  ck_assert_int_eq(l.v[8].bytes, 134217728);
  ck_assert_int_eq(l.v[8].param[1], 8);
  ck_assert_int_eq(l.v[9].m, 32);
  ck_assert_int_eq(l.v[9].n, 4096);
  gb_case_list_free(&l);
}
END_TEST

START_TEST(test_plan_full) {
  gb_case_list l = {0};
  ck_assert_int_eq(gb_decode_plan(GB_PROFILE_FULL, NULL, &l), GB_OK);
  /* 2 launch cases + 2 dtypes x 6 projections x 9 batches + 8 kv shapes */
  ck_assert_uint_eq(l.n, 2 + 2 * 6 * 9 + 8);
  ck_assert_uint_eq(count_case(&l, "gemv_bf16"), 54);
  ck_assert_uint_eq(count_case(&l, "gemv_fp16"), 54);
  ck_assert_uint_eq(count_case(&l, "kv_read"), 8);
  /* every case key distinct: (case, m, n, k, bytes) */
  for (size_t i = 0; i < l.n; i++)
    for (size_t j = i + 1; j < l.n; j++)
      ck_assert_msg(!(strcmp(l.v[i].name, l.v[j].name) == 0 && l.v[i].m == l.v[j].m && l.v[i].n == l.v[j].n &&
                      l.v[i].k == l.v[j].k && l.v[i].bytes == l.v[j].bytes),
                    "cases %zu and %zu share a key", i, j);
  size_t nb;
  const int64_t *b = gb_decode_batches(&nb);
  ck_assert_uint_eq(nb, 9);
  ck_assert_int_eq(b[0], 1);
  ck_assert_int_eq(b[8], 256);
  gb_case_list_free(&l);
}
END_TEST

START_TEST(test_options) {
  gb_decode_opts o;
  gb_case_list l = {0};
  ck_assert_int_eq(gb_decode_opts_parse("decode.cases=gemv_bf16:launch,decode.batches=1:2:4,gemm.precs=bf16", &o),
                   GB_OK);
  ck_assert_uint_eq(o.cases, (1u << 0) | (1u << 2));
  ck_assert_uint_eq(o.nbatches, 3);
  ck_assert_int_eq(gb_decode_plan(GB_PROFILE_FULL, &o, &l), GB_OK);
  /* launch, then 6 projections x 3 batches of bf16 */
  ck_assert_uint_eq(l.n, 1 + 18);
  ck_assert_str_eq(l.v[0].name, "launch");
  ck_assert_int_eq(l.v[3].m, 4);
  gb_case_list_free(&l);
  /* gemv_fp16 in the quick profile when named */
  ck_assert_int_eq(gb_decode_opts_parse("decode.cases=gemv_fp16", &o), GB_OK);
  ck_assert_int_eq(gb_decode_plan(GB_PROFILE_QUICK, &o, &l), GB_OK);
  ck_assert_uint_eq(count_case(&l, "gemv_fp16"), 6);
  ck_assert_uint_eq(l.n, 6);
  gb_case_list_free(&l);
  /* bad values name themselves */
  ck_assert_int_eq(gb_decode_opts_parse("decode.cases=gemv_fp8", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gemv_fp8"));
  ck_assert_int_eq(gb_decode_opts_parse("decode.batches=0", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_decode_opts_parse("decode.batches=8x", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_decode_opts_parse("decode.sizes=1", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "decode.sizes"));
  /* batches alone with no gemv case selected: nothing planned from them, the rest as the profile's */
  ck_assert_int_eq(gb_decode_opts_parse("decode.cases=kv_read,decode.batches=2", &o), GB_OK);
  ck_assert_int_eq(gb_decode_plan(GB_PROFILE_QUICK, &o, &l), GB_OK);
  ck_assert_uint_eq(l.n, 2);
  gb_case_list_free(&l);
}
END_TEST

START_TEST(test_sizes) {
  /* 2 (K, V) x 1 x 8 x 32768 x 128 x 2 bytes */
  ck_assert_int_eq(gb_decode_kv_bytes(1, 8, 32768, 128), 134217728);
  ck_assert_int_eq(gb_decode_kv_bytes(256, 8, 4096, 128), (int64_t)4 << 30);
  ck_assert_double_eq(gb_decode_gemv_flops(1, 14336, 4096), 2.0 * 14336 * 4096);
  /* weights + activations + output, 2 bytes each */
  ck_assert_int_eq(gb_decode_gemv_bytes(8, 14336, 4096, 2), (14336 * 4096 + 8 * 4096 + 8 * 14336) * 2);
}
END_TEST

START_TEST(test_kv_chunk) {
  int64_t splits = 0;
  /* 8 pairs on 132 SMs: 528 blocks wanted, 66 chunks of 497 -> 512 tokens, 64 chunks */
  ck_assert_int_eq(gb_decode_kv_chunk(1, 8, 32768, 132, &splits), 512);
  ck_assert_int_eq(splits, 64);
  /* 2048 pairs fill the grid already: one chunk per sequence */
  ck_assert_int_eq(gb_decode_kv_chunk(256, 8, 4096, 132, &splits), 4096);
  ck_assert_int_eq(splits, 1);
  /* at least 256 tokens a chunk */
  ck_assert_int_eq(gb_decode_kv_chunk(1, 8, 4096, 132, &splits), 256);
  ck_assert_int_eq(splits, 16);
  /* a short sequence: one chunk of all of it */
  ck_assert_int_eq(gb_decode_kv_chunk(1, 8, 100, 132, &splits), 100);
  ck_assert_int_eq(splits, 1);
}
END_TEST

START_TEST(test_sets_and_launches) {
  int64_t mib = 1 << 20;
  /* 16 MiB sets against a 50 MiB L2: 150 MiB to cover, 10 sets, capped at 8 */
  ck_assert_int_eq(gb_decode_sets(16 * mib, 50 * mib, 1 << 30), 8);
  /* 117 MiB: 2 sets cover 150 MiB */
  ck_assert_int_eq(gb_decode_sets(117 * mib, 50 * mib, (int64_t)8 << 30), 2);
  /* past 3 L2 sizes: one */
  ck_assert_int_eq(gb_decode_sets(512 * mib, 50 * mib, (int64_t)8 << 30), 1);
  /* memory limits them, never under 1 */
  ck_assert_int_eq(gb_decode_sets(16 * mib, 50 * mib, 40 * mib), 2);
  ck_assert_int_eq(gb_decode_sets(16 * mib, 50 * mib, 1 * mib), 1);
  /* 200 warm-up launches, 20 samples of 1000; a graph adds its warm replay */
  ck_assert_int_eq(gb_decode_launch_expected(200, 1000, 20, false), 20200);
  ck_assert_int_eq(gb_decode_launch_expected(200, 1000, 20, true), 21200);
}
END_TEST

START_TEST(test_elements) {
  ck_assert_double_eq(gb_decode_bf16(0x3F80), 1.0);
  ck_assert_double_eq(gb_decode_bf16(0xC040), -3.0);
  ck_assert_double_eq(gb_decode_elem16(0x3C00, GB_DT_F16), 1.0);
  ck_assert_double_eq(gb_decode_elem16(0xC000, GB_DT_F16), -2.0);
  ck_assert_double_eq(gb_decode_elem16(0x0001, GB_DT_F16), ldexp(1.0, -24));
  ck_assert(isinf(gb_decode_elem16(0x7C00, GB_DT_F16)));
  ck_assert(isnan(gb_decode_elem16(0xFFFF, GB_DT_F16)));
  ck_assert(isnan(gb_decode_elem16(0xFFFF, GB_DT_BF16)));
  ck_assert(isnan(gb_decode_elem16(0x3C00, GB_DT_F32)));
}
END_TEST

START_TEST(test_attention_reference) {
  /* d = 2, two tokens: q = (2, 0); K = (0, 0), (1, 0): scores 0 and 2 / sqrt 2;
   * V = (1, 0), (0, 1): out = (1, e^sqrt2) / (1 + e^sqrt2) */
  uint16_t q[2] = {0x4000, 0}, k[4] = {0, 0, 0x3F80, 0}, v[4] = {0x3F80, 0, 0, 0x3F80};
  double out[2];
  gb_decode_attn_ref(q, k, v, 2, 2, out);
  double e = exp(sqrt(2.0));
  ck_assert_double_eq_tol(out[0], 1 / (1 + e), 1e-12);
  ck_assert_double_eq_tol(out[1], e / (1 + e), 1e-12);
  /* one token: its V */
  gb_decode_attn_ref(q, k + 2, v + 2, 1, 2, out);
  ck_assert_double_eq(out[0], 0);
  ck_assert_double_eq(out[1], 1);
  /* the error figure */
  double ref[2] = {3, 4}, got[2] = {3, 4.5};
  ck_assert_double_eq_tol(gb_decode_rel_error(got, ref, 2), 0.1, 1e-12);
  double zero[2] = {0, 0}, bad[2] = {NAN, 4};
  ck_assert(isnan(gb_decode_rel_error(got, zero, 2)));
  ck_assert(isnan(gb_decode_rel_error(bad, ref, 2)));
}
END_TEST

START_TEST(test_check_samples) {
  int64_t out[GB_DECODE_CHECK_COLS];
  ck_assert_uint_eq(gb_decode_check_heads(8, out, GB_DECODE_CHECK_HEADS), 4);
  ck_assert_int_eq(out[0], 0);
  ck_assert_int_eq(out[1], 2);
  ck_assert_int_eq(out[2], 4);
  ck_assert_int_eq(out[3], 7);
  ck_assert_uint_eq(gb_decode_check_heads(2, out, GB_DECODE_CHECK_HEADS), 2);
  ck_assert_int_eq(out[1], 1);
  ck_assert_uint_eq(gb_decode_check_cols(4096, out, GB_DECODE_CHECK_COLS), 16);
  ck_assert_int_eq(out[0], 0);
  ck_assert_int_eq(out[15], 4095);
  ck_assert_uint_eq(gb_decode_check_cols(0, out, GB_DECODE_CHECK_COLS), 0);
}
END_TEST

START_TEST(test_registry) {
  const gb_bench_desc *d = gb_desc_find("decode");
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->headline_metric, "time_us");
  ck_assert_str_eq(gb_desc_metric("decode", "time_us")->unit, "us");
  ck_assert_str_eq(gb_desc_metric("decode", "tflops")->unit, "TFLOP/s");
  ck_assert_str_eq(gb_desc_metric("decode", "gbps")->unit, "GB/s");
  ck_assert_int_eq(gb_desc_direction("decode", "time_us"), GB_DIR_LOWER);
  ck_assert_int_eq(gb_desc_direction("decode", "gbps"), GB_DIR_HIGHER);
  ck_assert_int_eq(gb_desc_direction("decode", "tflops"), GB_DIR_HIGHER);
  /* classes: launches and small reads latency; a KV read of the HBM size headline */
  gb_row r = gb_row_empty();
  r.benchmark = "decode";
  r.case_name = "launch";
  r.metric = "time_us";
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.case_name = "kv_read";
  r.metric = "gbps";
  r.l2_bytes = 50 << 20;
  r.bytes = (int64_t)4 << 30;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.bytes = 128 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.case_name = "gemv_bf16";
  r.m = 1, r.n = 28672, r.k = 8192;
  r.bytes = GB_NA;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
}
END_TEST

static gb_row floor_row(const char *c, const char *metric, int64_t m, int64_t n, int64_t k, int64_t bytes) {
  gb_row r = gb_row_empty();
  r.benchmark = "decode";
  r.run_id = "r";
  r.gpu_type = "h100";
  r.settings = "";
  r.case_name = c;
  r.dtype = "bf16";
  r.metric = metric;
  r.m = m, r.n = n, r.k = k, r.bytes = bytes;
  r.status = GB_STATUS_OK;
  r.headline = -1;
  return r;
}

START_TEST(test_headline_floor) {
  gb_row rows[] = {
      floor_row("gemv_bf16", "time_us", 1, 14336, 4096, GB_NA),
      floor_row("gemv_bf16", "time_us", 1, 4096, 14336, GB_NA),
      floor_row("gemv_bf16", "time_us", 8, 4096, 14336, GB_NA),
      floor_row("gemv_bf16", "tflops", 1, 4096, 14336, GB_NA),
      floor_row("launch", "time_us", GB_NA, GB_NA, GB_NA, GB_NA),
      floor_row("kv_read", "time_us", 1, 32768, 1024, 134217728),
      floor_row("kv_read", "time_us", 32, 4096, 1024, 536870912),
  };
  size_t n = sizeof rows / sizeof rows[0];
  bool want[] = {false, true, false, false, true, true, false};
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(gb_desc_is_headline(&rows[i], rows, n) == want[i], "row %zu (%s %s m=%lld)", i, rows[i].case_name,
                  rows[i].metric, (long long)rows[i].m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("decode");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_plan_quick);
  tcase_add_test(tc, test_plan_full);
  tcase_add_test(tc, test_options);
  tcase_add_test(tc, test_sizes);
  tcase_add_test(tc, test_kv_chunk);
  tcase_add_test(tc, test_sets_and_launches);
  tcase_add_test(tc, test_elements);
  tcase_add_test(tc, test_attention_reference);
  tcase_add_test(tc, test_check_samples);
  tcase_add_test(tc, test_registry);
  tcase_add_test(tc, test_headline_floor);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
