/* gb_registry: the table of benchmarks `gpubench run --bench` knows, built
 * from the registry core/gb_registry.def (one entry per benchmark, sorted by
 * name: a test checks it), where core/gb_desc.c builds their descriptions
 * from too. A benchmark is bench/bench_<name>.c defining
 * `const gb_bench gb_bench_<name>`, its kernel and that entry. */
#include <string.h>

#include "bench_fault.h"
#include "gb_bench.h"

/* gb_bench_<name> of every entry of the registry (core/gb_registry.def) */
#define GB_BENCHMARK(name, ...) extern const gb_bench gb_bench_##name;
#include "gb_registry.def"
#undef GB_BENCHMARK

#define GB_BENCHMARK(name, ...) &gb_bench_##name,
const gb_bench *const gb_benches[] = {
#include "gb_registry.def"
    NULL,
};
#undef GB_BENCHMARK

const gb_bench *gb_bench_find(const char *name) {
  for (size_t i = 0; gb_benches[i]; i++)
    if (strcmp(gb_benches[i]->name, name) == 0) return gb_benches[i];
  /* the test-only benchmark of deliberate failures, never in the table */
  if (strcmp(name, gb_bench_fault.name) == 0 && gb_fault_enabled()) return &gb_bench_fault;
  return NULL;
}
