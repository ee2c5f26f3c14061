/* fuzz_measured: a results file as the planner takes it (`gpubench plan
 * --measured FILE`): gb_results_read_mem, then gb_perf_build against the
 * shipped datasheets at bf16 and fp8e4m3, then gb_plan_rank of the shipped
 * 7B training workload against the shipped prices.
 *
 * Properties: no crash or sanitizer report (UBSan included) for any file the
 * reader accepts; the figures are NaN or positive; ranking never fails and
 * every feasible row has finite, non-negative hours and cost. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_shipped.h"
#include "fuzz_util.h"
#include "gb_plan.h"
#include "gb_runinfo.h"

static gb_specs g_specs;
static gb_prices g_prices;
static gb_workload g_work;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_read_shipped(&g_specs, &g_prices);
  char path[4096];
  snprintf(path, sizeof path, "%s/workloads/training-7b.ini", gb_data_dir());
  gb_workload_init(&g_work);
  if (gb_workload_read(path, &g_work) != GB_OK || gb_workload_finish(&g_work) != GB_OK) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_results res = {0};
  if (gb_results_read_mem("fuzz_measured.csv", (const char *)data, size, &res) != GB_OK) return 0;
  static const char *const precisions[] = {"bf16", "fp8e4m3", "bf16"};
  for (int p = 0; p < 3; p++) {
    gb_perf perf;
    if (gb_perf_build(&g_specs, &res, precisions[p], 8192, p == 2 /* the sustained window */, &perf) != GB_OK)
      continue;
    for (size_t i = 0; i < perf.n; i++) {
      const gb_perf_type *t = &perf.v[i];
      FUZZ_ASSERT(isnan(t->gemm_tflops) || t->gemm_tflops > 0);
      FUZZ_ASSERT(isnan(t->hbm_gbps) || t->hbm_gbps > 0);
    }
    if (p == 0) {
      gb_plan_opts o;
      gb_plan_opts_default(&o);
      gb_plan plan;
      FUZZ_ASSERT(gb_plan_rank(&g_work, &perf, &g_prices, &o, &plan) == GB_OK);
      for (size_t i = 0; i < plan.nfeasible; i++)
        FUZZ_ASSERT(isfinite(plan.rows[i].hours) && plan.rows[i].hours >= 0 && !(plan.rows[i].cost_usd < 0));
      gb_plan_free(&plan);
    }
    gb_perf_free(&perf);
  }
  gb_results_free(&res);
  return 0;
}
