/* Tests for the grouped GEMM's pure parts on the CPU (bench/gemm/bench_gemm.h,
 * gemm_grouped.c): the MoE model table and the shapes it gives, the shapes
 * and precisions of each profile, FLOP accounting, case names, the groups the
 * check compares, the options and the plan of dense and grouped cases, and
 * the row's contract (the `groups` column written and read back, the case
 * key, the registry's metric). Hand-computed values carry their arithmetic in
 * comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_desc.h"
#include "gb_device.h"
#include "testutil.h"

extern const gb_bench gb_bench_gemm;

/* ---- the model table and its shapes ---- */

START_TEST(test_moe_table) {
  size_t n;
  const gb_gemm_moe *t = gb_gemm_moes(&n);
  ck_assert_uint_eq(n, 5);
  ck_assert_str_eq(t[0].model, "mixtral-8x7b");
  const gb_gemm_moe *ds = gb_gemm_moe_find("deepseek-v3");
  ck_assert_ptr_nonnull(ds);
  ck_assert_int_eq(ds->hidden, 7168);
  ck_assert_int_eq(ds->ffn, 2048);
  ck_assert_int_eq(ds->experts, 256);
  ck_assert_int_eq(ds->top_k, 8);
  const gb_gemm_moe *q = gb_gemm_moe_find("qwen3-30b-a3b");
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(q->hidden, 2048);
  ck_assert_int_eq(q->ffn, 768);
  ck_assert_int_eq(q->experts, 128);
  ck_assert_ptr_null(gb_gemm_moe_find("llama-3-8b"));

  /* up: m tokens x ffn x hidden; down: m x hidden x ffn; G every expert */
  gb_gemm_gshape up = gb_gemm_moe_shape(ds, GB_GEMM_PROJ_UP, 128);
  ck_assert_int_eq(up.groups, 256);
  ck_assert_int_eq(up.m, 128);
  ck_assert_int_eq(up.n, 2048);
  ck_assert_int_eq(up.k, 7168);
  ck_assert_str_eq(up.proj, "up");
  gb_gemm_gshape down = gb_gemm_moe_shape(gb_gemm_moe_find("mixtral-8x7b"), GB_GEMM_PROJ_DOWN, 2048);
  ck_assert_int_eq(down.groups, 8);
  ck_assert_int_eq(down.n, 4096);
  ck_assert_int_eq(down.k, 14336);
  ck_assert_str_eq(down.model, "mixtral-8x7b");
  ck_assert_str_eq(down.proj, "down");

  /* tokens per expert: 4096 tokens top-8 of 256 = 4096 * 8 / 256 = 128;
   * top-2 of 8 = 4096 * 2 / 8 = 1024 */
  ck_assert_double_eq(gb_gemm_tokens_per_expert(4096, 8, 256), 128.0);
  ck_assert_double_eq(gb_gemm_tokens_per_expert(4096, 2, 8), 1024.0);
  ck_assert_double_eq(gb_gemm_tokens_per_expert(4096, 2, 0), 0.0);
}
END_TEST

static bool has_gshape(const gb_gemm_gshape *s, size_t n, int64_t g, int64_t m, int64_t nn, int64_t k) {
  for (size_t i = 0; i < n; i++)
    if (s[i].groups == g && s[i].m == m && s[i].n == nn && s[i].k == k) return true;
  return false;
}

START_TEST(test_grouped_shapes) {
  gb_gemm_gshape s[64];
  size_t nq = gb_gemm_grouped_shapes(GB_PROFILE_QUICK, s, 64);
  ck_assert_uint_eq(nq, 2);
  ck_assert_uint_eq(gb_gemm_grouped_shapes(GB_PROFILE_QUICK, NULL, 0), 2);
  ck_assert(has_gshape(s, nq, 256, 128, 2048, 7168)); /* deepseek-v3 up */
  ck_assert(has_gshape(s, nq, 128, 512, 768, 2048));  /* qwen3-30b-a3b up */
  /* full: 5 models x 3 tokens per expert x up and down = 30, less gpt-oss's
   * 3 down shapes, the same as its up ones (hidden = ffn = 2880) */
  size_t nf = gb_gemm_grouped_shapes(GB_PROFILE_FULL, s, 64);
  ck_assert_uint_eq(nf, 27);
  for (size_t i = 0; i < nf; i++)
    for (size_t j = 0; j < i; j++)
      ck_assert(!(s[i].groups == s[j].groups && s[i].m == s[j].m && s[i].n == s[j].n && s[i].k == s[j].k));
  ck_assert_str_eq(s[0].model, "mixtral-8x7b");
  ck_assert_int_eq(s[0].m, 128);
  ck_assert_str_eq(s[0].proj, "up");
  ck_assert_str_eq(s[1].proj, "down");
  ck_assert(has_gshape(s, nf, 256, 2048, 7168, 2048)); /* deepseek-v3 down at 2048 */
  ck_assert(has_gshape(s, nf, 128, 512, 2880, 2880));  /* gpt-oss-120b at 512 */
  ck_assert(has_gshape(s, nf, 128, 128, 1536, 4096));  /* qwen3-235b-a22b up at 128 */
  /* a short buffer gets the first cap, the count is the whole table's */
  gb_gemm_gshape two[2];
  ck_assert_uint_eq(gb_gemm_grouped_shapes(GB_PROFILE_FULL, two, 2), 27);
  ck_assert_int_eq(two[1].n, 4096);
}
END_TEST

START_TEST(test_grouped_precs) {
  const gb_gemm_prec *p[8];
  ck_assert_uint_eq(gb_gemm_grouped_precs(GB_PROFILE_QUICK, p, 8), 2);
  ck_assert_str_eq(p[0]->name, "bf16");
  ck_assert_str_eq(p[1]->name, "fp8e4m3_fastacc");
  ck_assert_uint_eq(gb_gemm_grouped_precs(GB_PROFILE_FULL, p, 8), 4);
  ck_assert_str_eq(p[1]->name, "fp16");
  ck_assert_str_eq(p[2]->name, "fp8e4m3_slowacc");
  for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(p[i]);
}
END_TEST

/* ---- FLOPs, names, the check's groups ---- */

START_TEST(test_grouped_flops) {
  /* 2 * 512 * 14336 * 4096 = 60129542144 per expert, x 8 = 481036337152 */
  ck_assert_double_eq(gb_gemm_grouped_flops(8, 512, 14336, 4096), 481036337152.0);
  /* 2 * 128 * 2048 * 7168 = 3758096384 per expert, x 256 = 962072674304 */
  ck_assert_double_eq(gb_gemm_grouped_flops(256, 128, 2048, 7168), 962072674304.0);
  /* one group is the dense count */
  ck_assert_double_eq(gb_gemm_grouped_flops(1, 4096, 14336, 4096), gb_gemm_flops(4096, 14336, 4096));
}
END_TEST

START_TEST(test_grouped_names) {
  char buf[64];
  const gb_gemm_prec *bf = gb_gemm_prec_find("bf16");
  ck_assert_str_eq(gb_gemm_grouped_case_name(bf, buf, sizeof buf), "grouped_bf16");
  ck_assert_ptr_eq(gb_gemm_grouped_case_parse("grouped_bf16"), bf);
  ck_assert_ptr_eq(gb_gemm_grouped_case_parse("grouped_fp8e4m3_fastacc"), gb_gemm_prec_find("fp8e4m3_fastacc"));
  ck_assert_ptr_null(gb_gemm_grouped_case_parse("grouped_bf17"));
  ck_assert_ptr_null(gb_gemm_grouped_case_parse("bf16"));
  ck_assert_ptr_null(gb_gemm_grouped_case_parse(NULL));
  /* the dense readers (speedups, the summary) do not take a grouped case */
  ck_assert_ptr_null(gb_gemm_case_parse("grouped_bf16", NULL));
}
END_TEST

START_TEST(test_check_groups) {
  int64_t g[GB_GEMM_CHECK_GROUPS];
  /* 4 groups: every one */
  ck_assert_uint_eq(gb_gemm_check_groups(4, g, GB_GEMM_CHECK_GROUPS), 4);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(g[i], i);
  /* 256: 8 spread, i * 255 / 7 = 0, 36, 72, 109, 145, 182, 218, 255 */
  ck_assert_uint_eq(gb_gemm_check_groups(256, g, GB_GEMM_CHECK_GROUPS), 8);
  const int64_t want[] = {0, 36, 72, 109, 145, 182, 218, 255};
  for (int i = 0; i < 8; i++) ck_assert_int_eq(g[i], want[i]);
  ck_assert_uint_eq(gb_gemm_check_groups(1, g, GB_GEMM_CHECK_GROUPS), 1);
  ck_assert_int_eq(g[0], 0);
  ck_assert_uint_eq(gb_gemm_check_groups(0, g, GB_GEMM_CHECK_GROUPS), 0);
  ck_assert_uint_eq(gb_gemm_check_groups(128, NULL, 0), 8); /* counting only */
}
END_TEST

/* ---- options and the plan ---- */

static gb_err plan_prof(const char *opts, gb_profile profile, gb_case_list *out) {
  gb_run_config cfg = {.profile = profile, .warmup = -1, .iters = -1, .repeat = 1, .bench_opts = opts};
  gb_device_info dev = {.cc_major = 9, .cc_minor = 0};
  gb_run_ctx ctx = {.cfg = &cfg, .dev = &dev};
  memset(out, 0, sizeof *out);
  return gb_bench_gemm.plan(&ctx, out);
}

START_TEST(test_grouped_plan_default) {
  gb_case_list l;
  /* quick on Hopper: 52 dense cases and one each of mxfp8 and nvfp4 (skip
   * rows), then 2 grouped shapes x 2 precisions, shape-major */
  ck_assert_int_eq(plan_prof(NULL, GB_PROFILE_QUICK, &l), GB_OK);
  ck_assert_uint_eq(l.n, 58);
  for (size_t i = 0; i < 54; i++) ck_assert_int_eq(l.v[i].groups, GB_NA);
  const gb_case *c = &l.v[54];
  ck_assert_str_eq(c->name, "grouped_bf16");
  ck_assert_str_eq(c->dtype, "bf16");
  ck_assert_int_eq(c->groups, 256);
  ck_assert_int_eq(c->m, 128);
  ck_assert_int_eq(c->n, 2048);
  ck_assert_int_eq(c->k, 7168);
  ck_assert_int_eq(c->param[0], GB_GEMM_TN);
  ck_assert_ptr_eq(c->spec, gb_gemm_prec_find("bf16"));
  ck_assert_str_eq(l.v[55].name, "grouped_fp8e4m3_fastacc");
  ck_assert_str_eq(l.v[55].dtype, "fp8e4m3");
  ck_assert_int_eq(l.v[56].groups, 128);
  ck_assert_int_eq(l.v[57].m, 512);
  /* the case's row carries the group count */
  gb_row r = gb_case_row("gemm", c);
  ck_assert_int_eq(r.groups, 256);
  ck_assert_int_eq(r.m, 128);
  gb_case_list_free(&l);

  /* full, grouped only: 27 shapes x 4 precisions */
  ck_assert_int_eq(plan_prof("gemm.grouped=only", GB_PROFILE_FULL, &l), GB_OK);
  ck_assert_uint_eq(l.n, 108);
  ck_assert_str_eq(l.v[0].name, "grouped_bf16");
  ck_assert_str_eq(l.v[3].name, "grouped_fp8e4m3_fastacc");
  gb_case_list_free(&l);
  /* off: the dense cases alone */
  ck_assert_int_eq(plan_prof("gemm.grouped=off", GB_PROFILE_QUICK, &l), GB_OK);
  ck_assert_uint_eq(l.n, 54);
  gb_case_list_free(&l);
}
END_TEST

START_TEST(test_grouped_plan_options) {
  gb_case_list l;
  /* a grouped shape list alone: only those, in the profile's precisions */
  ck_assert_int_eq(plan_prof("gemm.grouped_shapes=4x256x1024x2048:16x64x512x512", GB_PROFILE_QUICK, &l), GB_OK);
  ck_assert_uint_eq(l.n, 4);
  ck_assert_int_eq(l.v[0].groups, 4);
  ck_assert_int_eq(l.v[0].m, 256);
  ck_assert_int_eq(l.v[0].n, 1024);
  ck_assert_int_eq(l.v[0].k, 2048);
  ck_assert_int_eq(l.v[2].groups, 16);
  gb_case_list_free(&l);
  /* gemm.precs applies to both kinds */
  ck_assert_int_eq(plan_prof("gemm.grouped_shapes=4x256x1024x2048,gemm.precs=fp16", GB_PROFILE_QUICK, &l), GB_OK);
  ck_assert_uint_eq(l.n, 1);
  ck_assert_str_eq(l.v[0].name, "grouped_fp16");
  gb_case_list_free(&l);
  ck_assert_int_eq(plan_prof("gemm.precs=bf16", GB_PROFILE_QUICK, &l), GB_OK);
  ck_assert_uint_eq(l.n, 4 + 2); /* 4 dense shapes, 2 grouped */
  gb_case_list_free(&l);
  /* a dense shape list alone: no grouped case (the interleave scripts' runs stay as they were) */
  ck_assert_int_eq(plan_prof("gemm.shapes=8192", GB_PROFILE_QUICK, &l), GB_OK);
  ck_assert_uint_eq(l.n, 15);
  gb_case_list_free(&l);
  /* both lists: both kinds */
  ck_assert_int_eq(plan_prof("gemm.shapes=8192,gemm.grouped_shapes=8x128x256x512,gemm.precs=bf16", GB_PROFILE_QUICK,
                             &l),
                   GB_OK);
  ck_assert_uint_eq(l.n, 2);
  ck_assert_int_eq(l.v[0].groups, GB_NA);
  ck_assert_int_eq(l.v[1].groups, 8);
  gb_case_list_free(&l);
  /* a selection of nothing is a usage error */
  ck_assert_int_eq(plan_prof("gemm.shapes=8192,gemm.grouped=only", GB_PROFILE_QUICK, &l), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gemm.grouped=only"));
  gb_case_list_free(&l);
  ck_assert_int_eq(plan_prof("gemm.grouped_shapes=8x128x256x512,gemm.grouped=off", GB_PROFILE_QUICK, &l),
                   GB_E_USAGE);
  gb_case_list_free(&l);
}
END_TEST

START_TEST(test_grouped_opts) {
  gb_gemm_opts o;
  ck_assert_int_eq(gb_gemm_opts_parse(NULL, &o), GB_OK);
  ck_assert_int_eq(o.grouped, GB_GEMM_GROUPED_ON);
  ck_assert_uint_eq(o.ngshapes, 0);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.grouped=only", &o), GB_OK);
  ck_assert_int_eq(o.grouped, GB_GEMM_GROUPED_ONLY);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.grouped=off", &o), GB_OK);
  ck_assert_int_eq(o.grouped, GB_GEMM_GROUPED_OFF);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.grouped=yes", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "only (grouped only)"));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.grouped_shapes=256x128x2048x7168", &o), GB_OK);
  ck_assert_uint_eq(o.ngshapes, 1);
  ck_assert_int_eq(o.gshapes[0].groups, 256);
  ck_assert_int_eq(o.gshapes[0].k, 7168);
  ck_assert_str_eq(o.gshapes[0].model, "custom");
  static const char *const bad[] = {"gemm.grouped_shapes=512x14336x4096", "gemm.grouped_shapes=0x1x1x1",
                                    "gemm.grouped_shapes=8x1x1x1x1", "gemm.grouped_shapes=5000x1x1x1",
                                    "gemm.grouped_shapes=8x0x1x1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(gb_gemm_opts_parse(bad[i], &o), GB_E_USAGE);
    ck_assert_ptr_nonnull(strstr(gb_errmsg(), "GxMxNxK"));
  }
  /* neither key is a measurement setting: they select cases */
  char buf[256];
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.grouped=only,gemm.grouped_shapes=8x128x256x512", &o), GB_OK);
  gb_gemm_settings(&o, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
}
END_TEST

/* ---- the row's contract ---- */

START_TEST(test_grouped_row_contract) {
  /* the metric and unit come from the registry, higher is better */
  const gb_metric_desc *md = gb_desc_metric("gemm", gb_gemm_metric(gb_gemm_prec_find("bf16")));
  ck_assert_ptr_nonnull(md);
  ck_assert_str_eq(md->name, "tflops");
  ck_assert_str_eq(md->unit, "TFLOP/s");
  ck_assert_int_eq(gb_desc_direction("gemm", "tflops"), GB_DIR_HIGHER);

  /* the groups column is written and read back; a row without reads GB_NA */
  gb_row r = gb_row_empty();
  r.run_id = "r1";
  r.gpu_type = "H200-SXM-141GB";
  r.benchmark = "gemm";
  r.case_name = "grouped_bf16";
  r.dtype = "bf16";
  r.m = 128;
  r.n = 2048;
  r.k = 7168;
  r.groups = 256;
  r.metric = "tflops";
  r.unit = "TFLOP/s";
  r.value = 500.5;
  gb_buf b = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  gb_row dense = r;
  dense.case_name = "bf16";
  dense.groups = GB_NA;
  ck_assert_int_eq(gb_results_put_row(&b, &dense), GB_OK);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read_mem("grouped.csv", b.data, b.len, &res), GB_OK);
  ck_assert_uint_eq(res.nrows, 2);
  ck_assert_int_eq(res.rows[0].groups, 256);
  ck_assert_int_eq(res.rows[0].m, 128);
  ck_assert_int_eq(res.rows[1].groups, GB_NA);

  /* the case key tells two group counts apart and leaves a dense row's as it was */
  char k1[512], k2[512];
  gb_row_case_key(&res.rows[0], true, k1, sizeof k1);
  ck_assert_ptr_nonnull(strstr(k1, "|groups=256"));
  r.groups = 128;
  gb_row_case_key(&r, true, k2, sizeof k2);
  ck_assert_str_ne(k1, k2);
  gb_row_case_key(&res.rows[1], true, k2, sizeof k2);
  ck_assert_ptr_null(strstr(k2, "groups"));
  gb_results_free(&res);
  free(b.data);

  /* an older file without the column reads as not grouped */
  const char *old = "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,"
                    "bytes,metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,"
                    "temp_c,power_w\n"
                    "1,r0,,h,H200-SXM-141GB,,1,,,gemm,bf16,bf16,8192,8192,8192,,tflops,TFLOP/s,800,30,,,,ok,,,,,\n";
  gb_results o = {0};
  ck_assert_int_eq(gb_results_read_mem("old.csv", old, strlen(old), &o), GB_OK);
  ck_assert_int_eq(o.rows[0].groups, GB_NA);
  gb_results_free(&o);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gemm_grouped");
  TCase *tc = tcase_create("grouped");
  tcase_add_test(tc, test_moe_table);
  tcase_add_test(tc, test_grouped_shapes);
  tcase_add_test(tc, test_grouped_precs);
  tcase_add_test(tc, test_grouped_flops);
  tcase_add_test(tc, test_grouped_names);
  tcase_add_test(tc, test_check_groups);
  tcase_add_test(tc, test_grouped_plan_default);
  tcase_add_test(tc, test_grouped_plan_options);
  tcase_add_test(tc, test_grouped_opts);
  tcase_add_test(tc, test_grouped_row_contract);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
