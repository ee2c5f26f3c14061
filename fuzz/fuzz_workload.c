/* fuzz_workload: the workload INI reader (planner/gb_workload.h
 * gb_workload_read_mem, through core/gb_ini), then the planner on what reads.
 *
 * Properties: no crash or sanitizer report (UBSan included: float-to-int
 * conversions of absurd sizes are undefined behaviour) for any file; a
 * workload that reads and finishes is ranked against the shipped datasheets
 * and prices (projected figures, no measurements) without error, every
 * feasible row with finite, non-negative hours and cost. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_shipped.h"
#include "fuzz_util.h"
#include "gb_plan.h"

static gb_specs g_specs;
static gb_prices g_prices;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_read_shipped(&g_specs, &g_prices);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  gb_workload w;
  gb_workload_init(&w);
  if (gb_workload_read_mem("fuzz.ini", text, &w) == GB_OK && gb_workload_finish(&w) == GB_OK) {
    (void)gb_workload_total_flops(&w);
    gb_perf perf;
    FUZZ_ASSERT(gb_perf_build(&g_specs, NULL, w.precision, w.gemm_size, w.gemm_sustained, &perf) == GB_OK);
    gb_plan_opts o;
    gb_plan_opts_default(&o);
    gb_plan plan;
    FUZZ_ASSERT(gb_plan_rank(&w, &perf, &g_prices, &o, &plan) == GB_OK);
    FUZZ_ASSERT(plan.nfeasible <= plan.n);
    for (size_t i = 0; i < plan.nfeasible; i++) {
      const gb_plan_row *r = &plan.rows[i];
      FUZZ_ASSERT(r->feasible && r->rank == i + 1);
      FUZZ_ASSERT(isfinite(r->hours) && r->hours >= 0 && !(r->cost_usd < 0));
    }
    gb_plan_free(&plan);
    gb_perf_free(&perf);
  }
  free(text);
  return 0;
}
