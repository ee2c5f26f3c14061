/* fuzz_noise: the gate's noise floor file (gate/gb_noise.h
 * gb_noise_read_mem).
 *
 * Properties: no crash or sanitizer report; a file that reads gives floors
 * with a positive finite sigma and the strings it was given, lookups of a
 * row in every class return one of its entries or NULL, and what it writes
 * back reads again to the same floors. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_noise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_noise_table t;
  if (gb_noise_read_mem("fuzz_floors.csv", (const char *)data, size, &t) == GB_OK) {
    for (size_t i = 0; i < t.n; i++) {
      FUZZ_ASSERT(t.v[i].sigma > 0 && isfinite(t.v[i].sigma));
      FUZZ_ASSERT(t.v[i].gpu_type && t.v[i].benchmark && t.v[i].metric && t.v[i].size_class && t.v[i].figure);
    }
    gb_row r = gb_row_empty();
    r.gpu_type = t.n ? t.v[0].gpu_type : "H200-SXM-141GB";
    r.benchmark = t.n ? t.v[0].benchmark : "membw";
    r.metric = t.n ? t.v[0].metric : "gbps";
    r.case_name = "triad";
    r.bytes = (int64_t)1 << 30;
    const gb_noise_floor *f = gb_noise_lookup(&t, &r), *g = gb_noise_lookup_figure(&t, &r);
    FUZZ_ASSERT(!f || (f >= t.v && f < t.v + t.n));
    FUZZ_ASSERT(!g || (g >= t.v && g < t.v + t.n));
    gb_buf out = {0};
    FUZZ_ASSERT(gb_noise_write(&t, &out) == GB_OK);
    gb_noise_table back;
    FUZZ_ASSERT(gb_noise_read_mem("back.csv", out.data, out.len, &back) == GB_OK);
    FUZZ_ASSERT(back.n == t.n);
    for (size_t i = 0; i < t.n; i++) {
      FUZZ_ASSERT(strcmp(back.v[i].benchmark, t.v[i].benchmark) == 0);
      FUZZ_ASSERT(fabs(back.v[i].sigma - t.v[i].sigma) <= 1e-6 * (1 + t.v[i].sigma));
    }
    gb_noise_free(&back);
    gb_buf_free(&out);
  }
  gb_noise_free(&t);
  return 0;
}
