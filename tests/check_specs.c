/* Tests for gb_specs: the shipped datasheet file, peaks per dtype, and each
 * class of bad input with the file:line:field it must name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gb_specs.h"
#include "testutil.h"

static const char *k_header =
    "gpu_type,name,fp64_tflops,fp64_tensor_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,"
    "int8_tops,memory_gb,mem_bw_gbps,tdp_w,interconnect_gbps,source,date\n";

static char *write_specs(const char *body) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/specs.csv", gb_test_tmpdir());
  char text[8192];
  snprintf(text, sizeof text, "%s%s", k_header, body);
  ck_assert_int_eq(gb_test_write(path, text, strlen(text)), 0);
  return path;
}

START_TEST(test_shipped) {
  gb_specs s;
  ck_assert_int_eq(gb_specs_read(GB_SOURCE_ROOT "/data/gpu_specs.csv", &s), GB_OK);
  ck_assert_uint_ge(s.n, 9);
  const gb_gpu_spec *h200 = gb_specs_find(&s, "H200-SXM-141GB");
  ck_assert_ptr_nonnull(h200);
  /* dense figures: datasheet 1979 BF16 "with sparsity" / 2 = 989.5 */
  ck_assert_double_eq_tol(gb_spec_peak(h200, "bf16"), 989.5, 1e-9);
  ck_assert_double_eq_tol(gb_spec_peak(h200, "fp8e4m3"), 1979, 1e-9);
  ck_assert_double_eq_tol(gb_spec_peak(h200, "fp8e5m2"), 1979, 1e-9);
  ck_assert_double_eq_tol(gb_spec_peak(h200, "fp64"), 67, 1e-9); /* the tensor figure */
  ck_assert_double_eq_tol(h200->mem_bw_gbps, 4800, 1e-9);
  ck_assert_double_eq_tol(h200->memory_gb, 141, 1e-9);
  ck_assert_str_eq(h200->date, "2026-12-02");
  ck_assert(strstr(h200->source, "nvidia.com") != NULL);
  const gb_gpu_spec *v100 = gb_specs_find(&s, "V100-SXM2-32GB");
  ck_assert_ptr_nonnull(v100);
  ck_assert(isnan(gb_spec_peak(v100, "bf16")));     /* no BF16 on Volta */
  ck_assert_double_eq_tol(gb_spec_peak(v100, "fp64"), 7.8, 1e-9); /* no FP64 tensor figure: vector */
  ck_assert(isnan(gb_spec_peak(v100, "int4")));     /* unknown dtype */
  const gb_gpu_spec *l4 = gb_specs_find(&s, "L4-PCIE-24GB");
  ck_assert_ptr_nonnull(l4);
  ck_assert(isnan(l4->fp64_tflops));
  ck_assert_ptr_null(gb_specs_find(&s, "H300-SXM-1TB"));
  ck_assert_int_eq(s.v[0].line, 2);
  gb_specs_free(&s);
}
END_TEST

static const struct {
  const char *body, *expect;
} k_bad[] = {
    {"X-1GB,x,,,,,,1,,,abc,100,100,,s,2026-01-01\n", ":2: memory_gb: not a number: \"abc\""},
    {"X-1GB,x,,,,,,1,,,,100,100,,s,2026-01-01\n", ":2: memory_gb: empty"},
    {"X-1GB,x,,,,,,-5,,,10,100,100,,s,2026-01-01\n", ":2: bf16_tflops: must be > 0"},
    {"X-1GB,x,,,,,,0,,,10,100,100,,s,2026-01-01\n", ":2: bf16_tflops: must be > 0"},
    {"X-1GB,x,,,,,,nan,,,10,100,100,,s,2026-01-01\n", ":2: bf16_tflops: not a number: \"nan\""},
    {"X-1GB,x,,,,,,1e300,,,10,100,100,,s,2026-01-01\n", ":2: bf16_tflops: absurd value 1e300"},
    {"X-1GB,x,,,,,,1,,,10,100,100,,,2026-01-01\n", ":2: source: empty"},
    {"X-1GB,x,,,,,,1,,,10,100,100,,s,2026-13-01\n", ":2: date: not a date"},
    {"X-1GB,x,,,,,,1,,,10,100,100,,s,2026-01-01\nX-1GB,y,,,,,,1,,,10,100,100,,s,2026-01-01\n",
     ":3: gpu_type: duplicate of line 2"},
    {"", ": no GPU rows"},
};

START_TEST(test_bad) {
  gb_specs s;
  const char *path = write_specs(k_bad[_i].body);
  ck_assert_int_eq(gb_specs_read(path, &s), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad[_i].expect) != NULL, "case %d: got \"%s\", want \"%s\"", _i, gb_errmsg(),
                k_bad[_i].expect);
  ck_assert_ptr_null(s.v);
}
END_TEST

START_TEST(test_missing_column) {
  char path[4200];
  snprintf(path, sizeof path, "%s/specs.csv", gb_test_tmpdir());
  const char *text = "gpu_type,name,memory_gb\nX,x,1\n";
  ck_assert_int_eq(gb_test_write(path, text, strlen(text)), 0);
  gb_specs s;
  ck_assert_int_eq(gb_specs_read(path, &s), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), ":1: missing column source") != NULL);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("specs");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_shipped);
  tcase_add_loop_test(tc, test_bad, 0, sizeof k_bad / sizeof k_bad[0]);
  tcase_add_test(tc, test_missing_column);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
