/* gb_gputype: the canonical gpu_type key ("H200-SXM-141GB") shared by the
 * results CSV, data/gpu_specs.csv and data/prices.csv, derived from the name
 * the driver reports and the memory size. */
#ifndef GB_GPUTYPE_H
#define GB_GPUTYPE_H

#include <stddef.h>
#include <stdint.h>

/* Writes the canonical type for a driver-reported name ("NVIDIA H200",
 * "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB") and total memory in
 * bytes. Unknown devices get a key made from the name and memory, e.g.
 * "RTX-6000-ADA-48GB". */
void gb_gpu_type_from_name(const char *name, uint64_t mem_bytes, char *buf, size_t n);

#endif
