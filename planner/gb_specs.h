/* gb_specs: datasheet figures per GPU type from data/gpu_specs.csv.
 *
 * One row per canonical gpu_type key (core/gb_gputype.h). Compute figures are
 * dense (no 2:4 sparsity), in TFLOP/s (TOP/s for int8); memory in GB (1e9 B),
 * memory bandwidth in GB/s, interconnect in GB/s per GPU summed over both
 * directions. An empty cell means the datasheet has no figure (NaN here). */
#ifndef GB_SPECS_H
#define GB_SPECS_H

#include <stddef.h>

#include "gb_error.h"

typedef struct gb_gpu_spec {
  char gpu_type[64];
  char name[64];
  double fp64_tflops, fp64_tensor_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops,
      int8_tops, memory_gb, mem_bw_gbps, tdp_w, interconnect_gbps;
  /* optional columns: architecture (ampere, hopper, blackwell, ada, volta,
   * cdna3; "" unknown) for the efficiency table and for projecting within a
   * vendor; the node's network for cross-node collectives: NICs per node and
   * the line rate of one NIC in Gb/s (NaN: not given, the planner defaults) */
  char arch[16];
  double nics_per_node, nic_gbit;
  /* optional: dense FP4 (NVFP4/MXFP4) TFLOP/s; GPUs in one NVLink domain
   * (NaN: one node; 72 on GB200 NVL72) */
  double fp4_tflops, nvlink_domain;
  double node_gpus; /* GPUs of the server nics_per_node describes (NaN: 8) */
  double rated_w;   /* optional: board power the tensor rates are quoted at, when tdp_w is below it (NaN: tdp_w) */
  char source[512];
  char date[16];
  long line; /* line in the file, for messages */
} gb_gpu_spec; /* NaN where the datasheet has no figure */

typedef struct gb_specs {
  size_t n;
  gb_gpu_spec *v;
} gb_specs;

/* Reads a specs CSV (columns found by header name; unknown columns ignored).
 * Required per row: gpu_type, name, memory_gb, mem_bw_gbps, tdp_w, source and
 * date (YYYY-MM-DD); compute figures may be empty. Duplicate types, numbers
 * that do not parse, zero, negative or absurd values are GB_E_INPUT naming
 * path:line:column. On error *out is empty. Free with gb_specs_free. */
gb_err gb_specs_read(const char *path, gb_specs *out);

/* Same from memory (tests and fuzzing); name is used in messages. */
gb_err gb_specs_read_mem(const char *name, const char *data, size_t len, gb_specs *out);

/* The row for a gpu_type key, or NULL. */
const gb_gpu_spec *gb_specs_find(const gb_specs *s, const char *gpu_type);

/* Dense peak for a results dtype: fp64 (the tensor figure when present), fp32,
 * tf32, fp16, bf16, fp8e4m3, fp8e5m2 (fp8), mxfp8 (fp8 on Blackwell only), fp4,
 * int8 (TOP/s). NaN when the
 * datasheet has no figure or the dtype is unknown. */
double gb_spec_peak(const gb_gpu_spec *s, const char *dtype);

/* The share of the quoted tensor rates a board held at tdp_w below rated_w
 * reaches: (tdp_w / rated_w)^0.30 (docs/planner.md, "Power limit"); 1 when
 * rated_w is not above tdp_w. gb_spec_peak includes it. */
double gb_spec_power_scale(const gb_gpu_spec *s);

void gb_specs_free(gb_specs *s);

#endif
