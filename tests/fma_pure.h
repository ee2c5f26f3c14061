/* fma_pure: the pure parts of the fma benchmark that the tests check on a
 * CPU. bench/fma/bench_fma.c has no header of its own -- a benchmark is its
 * source, its kernel and its registry entry (docs/architecture.md) -- so
 * the tests declare what they call here; keep it in step with that file. */
#ifndef FMA_PURE_H
#define FMA_PURE_H

#include <stdint.h>

/* The fma cases: fp32, fp64, fp16x2, bf16x2. */
typedef enum fma_kind { FMA_FP32, FMA_FP64, FMA_FP16X2, FMA_BF16X2, FMA_KINDS } fma_kind;

const char *fma_kind_name(fma_kind k);

/* Fused multiply-adds one SM retires per clock for the kind (vector lanes
 * counted separately: an fp16x2 FMA counts as 2), by compute capability;
 * 0 when unknown. */
int fma_per_sm_per_clock(fma_kind k, int cc_major, int cc_minor);

/* TFLOP/s the clocks allow: sms * fma_per_sm_per_clock * 2 flop * clock. */
double fma_clock_peak_tflops(fma_kind k, int cc_major, int cc_minor, int sms, double clock_mhz);

/* FLOPs of one launch: threads * iters * chains * 2 fma per iteration *
 * 2 flop per fma * lanes (2 for the x2 kinds). */
double fma_launch_flops(fma_kind k, uint64_t threads, long iters, int chains);

/* The start value of chain j of thread tid, encoded as the kernel stores it
 * (the bits of the float/double/half2/bfloat162), for the result check. */
uint64_t fma_expected_bits(fma_kind k, unsigned tid, int j);

#endif
