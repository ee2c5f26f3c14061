/* Tests for the fma benchmark's arithmetic (hand-computed). */
#include <string.h>

#include "fma_pure.h"
#include "testutil.h"

START_TEST(test_lanes_and_peak) {
  ck_assert_int_eq(fma_per_sm_per_clock(FMA_FP32, 9, 0), 128);
  ck_assert_int_eq(fma_per_sm_per_clock(FMA_FP64, 9, 0), 64);
  ck_assert_int_eq(fma_per_sm_per_clock(FMA_FP32, 8, 0), 64);
  ck_assert_int_eq(fma_per_sm_per_clock(FMA_BF16X2, 7, 0), 0);
  /* H200: 132 SMs * 128 lanes * 2 flop * 1980 MHz = 66.908 TFLOP/s */
  ck_assert_double_eq_tol(fma_clock_peak_tflops(FMA_FP32, 9, 0, 132, 1980), 66.90816, 1e-9);
  /* fp64: half of that = 33.45408 */
  ck_assert_double_eq_tol(fma_clock_peak_tflops(FMA_FP64, 9, 0, 132, 1980), 33.45408, 1e-9);
}
END_TEST

START_TEST(test_flops) {
  /* 1000 threads * 10 iters * 8 chains * 2 fma * 2 flop = 320000 */
  ck_assert_double_eq(fma_launch_flops(FMA_FP32, 1000, 10, 8), 320000.0);
  /* x2 types count both lanes */
  ck_assert_double_eq(fma_launch_flops(FMA_FP16X2, 1000, 10, 8), 640000.0);
}
END_TEST

START_TEST(test_expected_bits) {
  /* thread 5, chain 3 -> v = 8 -> 2.0: fp32 0x40000000, fp16 0x4000, bf16 0x4000 */
  ck_assert_uint_eq(fma_expected_bits(FMA_FP32, 5, 3), 0x40000000u);
  ck_assert_uint_eq(fma_expected_bits(FMA_FP64, 5, 3), 0x4000000000000000ull);
  ck_assert_uint_eq(fma_expected_bits(FMA_FP16X2, 5, 3), 0x40004000u);
  ck_assert_uint_eq(fma_expected_bits(FMA_BF16X2, 5, 3), 0x40004000u);
  /* v = 255 -> 63.75: fp16 = 0x53F8 (exp 5+15=20, mantissa 0x3F8) */
  ck_assert_uint_eq(fma_expected_bits(FMA_FP16X2, 255, 0), 0x53F853F8u);
  ck_assert_uint_eq(fma_expected_bits(FMA_FP32, 0, 0), 0u);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("fma");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_lanes_and_peak);
  tcase_add_test(tc, test_flops);
  tcase_add_test(tc, test_expected_bits);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
