/* fuzz_prices: the prices reader (planner/gb_prices.h gb_prices_read_mem),
 * checked against the shipped datasheets and without them.
 *
 * Properties: no crash or sanitizer report; every row that reads has exactly
 * the price of its offering, positive and under the documented maxima, and
 * 1..GB_GPUS_PER_NODE_MAX GPUs per node; with datasheets, a known gpu_type. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_shipped.h"
#include "fuzz_util.h"
#include "gb_prices.h"

static gb_specs g_specs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_read_shipped(&g_specs, NULL);
  return 0;
}

static void check(const gb_prices *p, const gb_specs *specs) {
  for (size_t i = 0; i < p->n; i++) {
    const gb_price *r = &p->v[i];
    FUZZ_ASSERT(r->gpus_per_node >= 1 && r->gpus_per_node <= GB_GPUS_PER_NODE_MAX);
    if (r->offering == GB_OFFER_PURCHASE)
      FUZZ_ASSERT(isnan(r->price_usd_per_gpu_hour) && r->purchase_usd_per_gpu > 0 &&
                  r->purchase_usd_per_gpu <= GB_PURCHASE_MAX_USD_PER_GPU);
    else
      FUZZ_ASSERT(isnan(r->purchase_usd_per_gpu) && r->price_usd_per_gpu_hour > 0 &&
                  r->price_usd_per_gpu_hour <= GB_PRICE_MAX_USD_PER_GPU_HOUR);
    if (specs) FUZZ_ASSERT(gb_specs_find(specs, r->gpu_type) != NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_prices p;
  if (gb_prices_read_mem("fuzz_prices.csv", (const char *)data, size, NULL, &p) == GB_OK) {
    check(&p, NULL);
    gb_prices_free(&p);
  }
  if (gb_prices_read_mem("fuzz_prices.csv", (const char *)data, size, &g_specs, &p) == GB_OK) {
    check(&p, &g_specs);
    gb_prices_free(&p);
  }
  return 0;
}
