/* Tests for gb_settings (the --opt walker) and the gemm options built on it
 * (precs, shapes, layout, search). */
#include <string.h>

#include "bench_gemm.h"
#include "gb_settings.h"
#include "testutil.h"

typedef struct seen {
  char keys[8][32], vals[8][32];
  int prefixed[8];
  int n;
} seen;

static gb_err record(void *ctx, const char *key, const char *val, bool prefixed) {
  seen *s = ctx;
  snprintf(s->keys[s->n], 32, "%s", key);
  snprintf(s->vals[s->n], 32, "%s", val);
  s->prefixed[s->n++] = prefixed;
  return GB_OK;
}

START_TEST(test_walk) {
  seen s = {0};
  ck_assert_int_eq(gb_settings_each("gemm.precs=bf16,membw.sizes=1G,ops=5,gemm.shapes=8192", "gemm.", false, record, &s), GB_OK);
  ck_assert_int_eq(s.n, 2);
  ck_assert_str_eq(s.keys[0], "precs");
  ck_assert_str_eq(s.vals[0], "bf16");
  ck_assert_str_eq(s.keys[1], "shapes");
  memset(&s, 0, sizeof s);
  /* unprefixed: plain items too, but never another benchmark's */
  ck_assert_int_eq(gb_settings_each("ops=5,membw.sizes=1G,collective.min=8", "collective.", true, record, &s), GB_OK);
  ck_assert_int_eq(s.n, 2);
  ck_assert_str_eq(s.keys[0], "ops");
  ck_assert_int_eq(s.prefixed[0], 0);
  ck_assert_str_eq(s.keys[1], "min");
  ck_assert_int_eq(s.prefixed[1], 1);
  ck_assert_int_eq(gb_settings_each(NULL, "gemm.", false, record, &s), GB_OK);
  ck_assert_int_eq(gb_settings_each("gemm.precs", "gemm.", false, record, &s), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "expected key=value"));
  ck_assert_int_eq(gb_settings_each("gemm.=x", "gemm.", false, record, &s), GB_E_USAGE);
  ck_assert_int_eq(gb_settings_each("gemm.precs=", "gemm.", false, record, &s), GB_E_USAGE);
}
END_TEST

START_TEST(test_gemm_opts) {
  gb_gemm_opts o;
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.precs=bf16:int8,gemm.shapes=8192:4096x14336x4096", &o), GB_OK);
  ck_assert_uint_eq(o.nprecs, 2);
  ck_assert_str_eq(o.precs[0]->name, "bf16");
  ck_assert_str_eq(o.precs[1]->name, "int8");
  ck_assert_uint_eq(o.nshapes, 2);
  ck_assert_int_eq(o.shapes[0].m, 8192);
  ck_assert_int_eq(o.shapes[0].k, 8192);
  ck_assert_int_eq(o.shapes[1].n, 14336);
  ck_assert_int_eq(gb_gemm_opts_parse(NULL, &o), GB_OK);
  ck_assert_uint_eq(o.nprecs + o.nshapes, 0);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.precs=bf17", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "unknown precision \"bf17\""));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.shapes=8x8", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.shapes=0", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.precs=bf16::int8", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.tile=128", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "unknown key"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "layout"));
}
END_TEST

START_TEST(test_gemm_layout_opts) {
  gb_gemm_opts o;
  /* absent: TN alone, the variants search (results keep their keys) */
  ck_assert_int_eq(gb_gemm_opts_parse(NULL, &o), GB_OK);
  ck_assert(o.layouts[GB_GEMM_TN]);
  ck_assert(!o.layouts[GB_GEMM_NN]);
  ck_assert_int_eq(o.search, GB_GEMM_SEARCH_VARIANTS);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.precs=fp64", &o), GB_OK);
  ck_assert(o.layouts[GB_GEMM_TN] && !o.layouts[GB_GEMM_NN]);
  /* both, in either order; one alone */
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.shapes=8192,gemm.layout=tn:nn,gemm.precs=fp64:fp32:tf32:bf16", &o),
                   GB_OK);
  ck_assert(o.layouts[GB_GEMM_TN] && o.layouts[GB_GEMM_NN]);
  ck_assert_uint_eq(o.nprecs, 4);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=nn:tn", &o), GB_OK);
  ck_assert(o.layouts[GB_GEMM_TN] && o.layouts[GB_GEMM_NN]);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=nn", &o), GB_OK);
  ck_assert(!o.layouts[GB_GEMM_TN] && o.layouts[GB_GEMM_NN]);
  /* errors: other layouts, other spellings, repeats, empty items */
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=nt", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "unknown layout \"nt\""));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=NN", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=tn:tn", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "listed twice"));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=tn,gemm.layout=nn", &o), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "given twice"));
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=tn::nn", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.layout=", &o), GB_E_USAGE);
  /* search */
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=extended", &o), GB_OK);
  ck_assert_int_eq(o.search, GB_GEMM_SEARCH_EXTENDED);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=heuristic", &o), GB_OK);
  ck_assert_int_eq(o.search, GB_GEMM_SEARCH_HEURISTIC);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=variants", &o), GB_OK);
  ck_assert_int_eq(o.search, GB_GEMM_SEARCH_VARIANTS);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=all", &o), GB_E_USAGE);
  ck_assert_str_eq(gb_errmsg(),
                   "--opt gemm.search: \"all\" is not variants (the heuristic's candidates, and configurations of "
                   "its #1 when it returns fewer than 8), heuristic (its candidates only) or extended (also "
                   "enumerated configurations)");
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=", &o), GB_E_USAGE);
  ck_assert_int_eq(gb_gemm_opts_parse("gemm.search=Variants", &o), GB_E_USAGE);
}
END_TEST

/* The settings list: ','-joined items; an item that does not fit whole is
 * left out and marks the list truncated. */
START_TEST(test_settings_list) {
  char buf[24];
  gb_settings s = gb_settings_start(buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  gb_settings_add(&s, "warmup=%d", 5);
  ck_assert_str_eq(buf, "warmup=5");
  gb_settings_add(&s, "iters=%d", 30);
  ck_assert_str_eq(buf, "warmup=5,iters=30");
  ck_assert(!s.truncated);
  gb_settings_add(&s, "gemm.timing=pairs"); /* 17 + 1 + 17 > 23 */
  ck_assert_str_eq(buf, "warmup=5,iters=30");
  ck_assert(s.truncated);
  gb_settings_add(&s, "a=1"); /* still fits after a refused item */
  ck_assert_str_eq(buf, "warmup=5,iters=30,a=1");
  char one[1];
  s = gb_settings_start(one, sizeof one);
  gb_settings_add(&s, "x=1");
  ck_assert_str_eq(one, "");
  ck_assert(s.truncated);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("settings");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_walk);
  tcase_add_test(tc, test_gemm_opts);
  tcase_add_test(tc, test_gemm_layout_opts);
  tcase_add_test(tc, test_settings_list);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
