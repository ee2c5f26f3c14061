/* fuzz_specs: the datasheet reader (planner/gb_specs.h gb_specs_read_mem).
 *
 * Properties: no crash or sanitizer report; every row that reads has a
 * non-empty gpu_type found again by gb_specs_find, positive figures or NaN,
 * and a dense peak that is NaN or positive for every dtype. */
#include <math.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "gb_specs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_specs s;
  if (gb_specs_read_mem("fuzz_specs.csv", (const char *)data, size, &s) != GB_OK) {
    FUZZ_ASSERT(s.n == 0 && s.v == NULL);
    return 0;
  }
  static const char *const dtypes[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8e4m3", "fp8e5m2", "int8", "x"};
  for (size_t i = 0; i < s.n; i++) {
    const gb_gpu_spec *g = &s.v[i];
    FUZZ_ASSERT(g->gpu_type[0] && gb_specs_find(&s, g->gpu_type) == g);
    FUZZ_ASSERT(g->memory_gb > 0 && g->mem_bw_gbps > 0 && g->tdp_w > 0);
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
      double p = gb_spec_peak(g, dtypes[d]);
      FUZZ_ASSERT(isnan(p) || p > 0);
    }
  }
  gb_specs_free(&s);
  return 0;
}
