/* Canonical gpu_type keys from driver names and memory sizes. */
#include "gb_gputype.h"
#include "testutil.h"

static const struct {
  const char *name;
  unsigned long long mib;
  const char *key;
} k_cases[] = {
    {"NVIDIA H200", 143771, "H200-SXM-141GB"},
    {"NVIDIA H100 80GB HBM3", 81559, "H100-SXM-80GB"},
    {"NVIDIA H100 PCIe", 81559, "H100-PCIE-80GB"},
    {"NVIDIA A100-SXM4-80GB", 81920, "A100-SXM-80GB"},
    {"NVIDIA A100-SXM4-40GB", 40536, "A100-SXM-40GB"},
    {"NVIDIA L40S", 46068, "L40S-PCIE-48GB"},
    {"NVIDIA L4", 23034, "L4-PCIE-24GB"},
    {"NVIDIA GeForce RTX 4090", 24564, "RTX4090-PCIE-24GB"},
    {"NVIDIA B200", 183359, "B200-SXM-180GB"},
    /* "GB200" contains "B200": the superchip's own key, at its 189,471 MiB (the specs' GB200-186GB) */
    {"NVIDIA GB200", 189471, "GB200-186GB"},
    {"NVIDIA RTX 6000 Ada Generation", 49140, "RTX-6000-ADA-GENERATION-48GB"},
};

START_TEST(test_types) {
  char buf[64];
  gb_gpu_type_from_name(k_cases[_i].name, k_cases[_i].mib * 1024ULL * 1024ULL, buf, sizeof buf);
  ck_assert_str_eq(buf, k_cases[_i].key);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gputype");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_types, 0, (int)(sizeof k_cases / sizeof k_cases[0]));
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
