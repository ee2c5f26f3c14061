/* Every embedded kernels/ file compiles through NVRTC for sm_80, sm_90 and
 * sm_100 (no GPU needed), so CI catches a kernel that would fail at run time. */
#include <stdlib.h>
#include <string.h>

#include "gb_dtype.h"
#include "gb_kernels.h"
#include "gb_nvrtc.h"
#include "testutil.h"

static const int k_archs[][2] = {{8, 0}, {9, 0}, {10, 0}};

START_TEST(test_compile_all) {
  ck_assert_uint_gt(gb_kernel_source_count, 0);
  for (size_t i = 0; i < gb_kernel_source_count; i++) {
    const gb_kernel_source *ks = &gb_kernel_sources[i];
    void *cubin;
    size_t size;
    /* as gb_harness.c loads fill.cu: the dtype codes from core/gb_dtype.h */
    char defs[256];
    const char *opts[1 + GB_DT_COUNT] = {"--fmad=false"};
    ck_assert(gb_dtype_defines(defs, sizeof defs, opts + 1));
    gb_err e = gb_nvrtc_compile(ks->name, ks->text, k_archs[_i][0], k_archs[_i][1], opts, 1 + GB_DT_COUNT, &cubin,
                                &size);
    ck_assert_msg(e == GB_OK, "kernels/%s for sm_%d%d: %s", ks->name, k_archs[_i][0], k_archs[_i][1], gb_errmsg());
    ck_assert_uint_gt(size, 0);
    free(cubin);
  }
}
END_TEST

START_TEST(test_compile_error_has_log) {
  void *cubin;
  size_t size;
  gb_err e = gb_nvrtc_compile("broken.cu", "extern \"C\" __global__ void k() { undefined_thing(); }", 9, 0, NULL, 0,
                              &cubin, &size);
  ck_assert_int_eq(e, GB_E_CUDA);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "undefined_thing"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "kernels/broken.cu"));
}
END_TEST

START_TEST(test_find) {
  ck_assert_ptr_nonnull(gb_kernel_find("fma.cu"));
  ck_assert_ptr_nonnull(gb_kernel_find("fill.cu"));
  ck_assert_ptr_null(gb_kernel_find("nope.cu"));
  ck_assert_uint_eq(strlen(gb_kernel_find("fma.cu")->text), gb_kernel_find("fma.cu")->len);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("kernels");
  TCase *tc = tcase_create("nvrtc");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_compile_all, 0, 3);
  tcase_add_test(tc, test_compile_error_has_log);
  tcase_add_test(tc, test_find);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
