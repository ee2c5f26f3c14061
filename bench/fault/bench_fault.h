/* bench_fault: a test-only benchmark whose cases fail on purpose, for
 * tests/check_faults_gpu.c: out of device memory, a precision the device
 * lacks, and a kernel that writes out of bounds (the context is lost). It
 * is not in the registry's table (--list and "all benchmarks" never show
 * it); gb_bench_find("fault") returns it only when GPUBENCH_TEST_FAULT=1. */
#ifndef BENCH_FAULT_H
#define BENCH_FAULT_H

#include <stdbool.h>

#include "gb_bench.h"

extern const gb_bench gb_bench_fault;

/* True when the environment asks for the test-only benchmark
 * (GPUBENCH_TEST_FAULT=1). */
bool gb_fault_enabled(void);

/* The cases, in the order they run: ok_before, oom, after_oom, unsupported,
 * fault, after_fault. The first four end with the context intact; `fault`
 * loses it, so the runner stops there and after_fault runs on --resume. */
#define GB_FAULT_NCASES 6
extern const char *const gb_fault_cases[GB_FAULT_NCASES];

#endif
