/* fuzz_plan_inputs: the planner's two hand-written inputs together, a
 * workload INI and a price list (planner/gb_workload.h, gb_prices.h), read
 * from one input split at a "----" line, then ranked against the shipped
 * datasheets.
 *
 * Properties: no crash or sanitizer report; when both read, ranking never
 * fails; every feasible row is ranked in order with finite, non-negative
 * hours and a cost that is not negative. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_shipped.h"
#include "fuzz_split.h"
#include "fuzz_util.h"
#include "gb_plan.h"

static gb_specs g_specs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_read_shipped(&g_specs, NULL);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *part[2];
  size_t len[2];
  if (fuzz_split(text, part, len, 2) != 2) {
    free(text);
    return 0;
  }
  gb_workload w;
  gb_workload_init(&w);
  gb_prices prices;
  memset(&prices, 0, sizeof prices);
  if (gb_workload_read_mem("fuzz.ini", part[0], &w) == GB_OK && gb_workload_finish(&w) == GB_OK &&
      gb_prices_read_mem("fuzz_prices.csv", part[1], len[1], &g_specs, &prices) == GB_OK) {
    gb_perf perf;
    FUZZ_ASSERT(gb_perf_build(&g_specs, NULL, w.precision, w.gemm_size, w.gemm_sustained, &perf) == GB_OK);
    gb_plan_opts o;
    gb_plan_opts_default(&o);
    gb_plan plan;
    FUZZ_ASSERT(gb_plan_rank(&w, &perf, &prices, &o, &plan) == GB_OK);
    FUZZ_ASSERT(plan.nfeasible <= plan.n);
    for (size_t i = 0; i < plan.nfeasible; i++) {
      const gb_plan_row *r = &plan.rows[i];
      FUZZ_ASSERT(r->feasible && r->rank == i + 1);
      FUZZ_ASSERT(isfinite(r->hours) && r->hours >= 0 && !(r->cost_usd < 0));
    }
    gb_plan_free(&plan);
    gb_perf_free(&perf);
  }
  gb_prices_free(&prices);
  free(text);
  return 0;
}
