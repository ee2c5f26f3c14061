/* fuzz_noise_runs: `gpubench noise` on runs (gate/gb_noise.h
 * gb_noise_measure) of one results file as the results reader takes it.
 *
 * Properties: no crash or sanitizer report; when it measures, at least 2
 * runs and at most the rows' count; every floor has a positive finite sigma
 * and names its figure; what it writes reads back as the same floors. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_noise.h"
#include "gb_results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_results res = {0};
  if (gb_results_read_mem("fuzz_runs.csv", (const char *)data, size, &res) != GB_OK) {
    gb_results_free(&res);
    return 0;
  }
  gb_noise_table t;
  memset(&t, 0, sizeof t);
  if (gb_noise_measure(&res, &t) == GB_OK) {
    FUZZ_ASSERT(t.runs >= 2 && t.runs <= res.nrows);
    for (size_t i = 0; i < t.n; i++) {
      FUZZ_ASSERT(t.v[i].sigma > 0 && isfinite(t.v[i].sigma));
      FUZZ_ASSERT(t.v[i].benchmark && t.v[i].metric && t.v[i].figure);
    }
    gb_buf out = {0};
    FUZZ_ASSERT(gb_noise_write(&t, &out) == GB_OK);
    gb_noise_table back;
    FUZZ_ASSERT(gb_noise_read_mem("back.csv", out.data, out.len, &back) == GB_OK);
    FUZZ_ASSERT(back.n == t.n);
    gb_noise_free(&back);
    gb_buf_free(&out);
  }
  gb_noise_free(&t);
  gb_results_free(&res);
  return 0;
}
