/* fuzz_shipped: the shipped datasheets and prices (data/), read once in
 * LLVMFuzzerInitialize by the planner-side targets. */
#ifndef GB_FUZZ_SHIPPED_H
#define GB_FUZZ_SHIPPED_H

#include <stdio.h>
#include <stdlib.h>

#include "gb_prices.h"
#include "gb_runinfo.h"
#include "gb_specs.h"

/* Reads data/gpu_specs.csv into specs and, when prices is not NULL,
 * data/prices.csv into prices; aborts when either does not read. */
static inline void fuzz_read_shipped(gb_specs *specs, gb_prices *prices) {
  char path[4096];
  snprintf(path, sizeof path, "%s/gpu_specs.csv", gb_data_dir());
  if (gb_specs_read(path, specs) != GB_OK) abort();
  if (!prices) return;
  snprintf(path, sizeof path, "%s/prices.csv", gb_data_dir());
  if (gb_prices_read(path, specs, prices) != GB_OK) abort();
}

#endif
