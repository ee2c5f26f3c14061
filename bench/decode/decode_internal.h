/* decode_internal: what the decode benchmark's files share and nothing
 * outside bench/decode/ uses. Who does what, from the top down (a file
 * calls only files below it):
 *   bench_decode.c  the gb_bench glue, the launch cases and kv_read
 *   decode_gemv.c   the gemv cases through cuBLASLt
 *   decode_case.c   what every case shares: measurement options,
 *                   operations per sample, rows, the corruption hook
 *   decode_pure.c   the pure parts (bench_decode.h) */
#ifndef DECODE_INTERNAL_H
#define DECODE_INTERNAL_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>

#include "bench_decode.h"
#include "gb_harness.h"
#include "gb_nvrtc.h"

#define DECODE_WS_BYTES ((size_t)32 << 20) /* cuBLASLt workspace: what frameworks give it (32 MiB) */
#define DECODE_MARGIN_BYTES ((int64_t)512 << 20) /* device memory left free when sizing input sets */

typedef struct decode_state {
  gb_module mod;
  bool mod_loaded;
  cudaKernel_t k_tick, k_partial, k_combine;
  cublasLtHandle_t lt;
  cudaStream_t stream;
  void *ws;
  unsigned long long *counter; /* decode_tick's launch count */
} decode_state;

/* gb_measure's options for a case: warm-up and samples from --warmup and
 * --iters where given, else warmup and 20..100 samples within the profile's
 * budget (quick 0.1 s, full 0.25 s), ops operations per sample. */
gb_measure_opts decode_measure_opts(const gb_run_ctx *ctx, int warmup, int ops);

/* The time_us row (and, for gemv, the tflops row with work = FLOPs; for
 * kv_read, the gbps row with work = bytes) of samples samp. */
gb_err decode_add_rows(const gb_case *c, const gb_samples *samp, double work, gb_status status, const char *detail,
                       gb_rowset *out);

/* Operations per sample so that one sample lasts about 100 us at t_est
 * seconds per operation (1..200). */
int decode_ops_for(double t_est);

/* gb_decode_test_corrupt's state (decode_case.c, like the three above). */
bool decode_corrupt(void);

/* One gemv case (decode_gemv.c). */
gb_err decode_run_gemv(gb_run_ctx *ctx, decode_state *st, const gb_case *c, gb_rowset *out);

#endif
