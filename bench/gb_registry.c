/* gb_registry: the table of benchmarks `gpubench run --bench` knows.
 *
 * To add a benchmark: write bench/bench_<name>.c defining
 * `const gb_bench gb_bench_<name>`, declare it below and add it to the table.
 * Keep the table sorted by name (a test checks it). */
#include <string.h>

#include "bench_fault.h"
#include "gb_bench.h"

extern const gb_bench gb_bench_collective;
extern const gb_bench gb_bench_copy;
extern const gb_bench gb_bench_fma;
extern const gb_bench gb_bench_gemm;
extern const gb_bench gb_bench_membw;

const gb_bench *const gb_benches[] = {
    &gb_bench_collective,
    &gb_bench_copy,
    &gb_bench_fma,
    &gb_bench_gemm,
    &gb_bench_membw,
    NULL,
};

const gb_bench *gb_bench_find(const char *name) {
  for (size_t i = 0; gb_benches[i]; i++)
    if (strcmp(gb_benches[i]->name, name) == 0) return gb_benches[i];
  /* the test-only benchmark of deliberate failures, never in the table */
  if (strcmp(name, gb_bench_fault.name) == 0 && gb_fault_enabled()) return &gb_bench_fault;
  return NULL;
}
