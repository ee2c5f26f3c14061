/* gb_cuda: status checks for CUDA runtime, NVRTC, cuBLASLt and NCCL calls.
 * Each macro records the call's text and file:line in gb_errmsg() and returns
 * (or jumps to a cleanup label with) a gb_err: out-of-memory becomes
 * GB_E_OOM, "not supported" GB_E_UNSUPPORTED, the rest GB_E_CUDA. */
#ifndef GB_CUDA_H
#define GB_CUDA_H

#include <cuda_runtime_api.h>

#include "gb_error.h"

gb_err gb_cuda_fail(cudaError_t e, const char *expr, const char *file, int line);
gb_err gb_nvrtc_fail(int e, const char *expr, const char *file, int line);
gb_err gb_cublas_fail(int e, const char *expr, const char *file, int line);
gb_err gb_nccl_fail(int e, const char *expr, const char *file, int line);

/* return on failure */
#define GB_CUDA(call)                                                                   \
  do {                                                                                  \
    cudaError_t gb_e_ = (call);                                                         \
    if (gb_e_ != cudaSuccess) return gb_cuda_fail(gb_e_, #call, __FILE__, __LINE__);   \
  } while (0)

/* set err and jump to label on failure (one cleanup label per function) */
#define GB_CUDA_GOTO(call, err, label)                                                  \
  do {                                                                                  \
    cudaError_t gb_e_ = (call);                                                         \
    if (gb_e_ != cudaSuccess) {                                                         \
      (err) = gb_cuda_fail(gb_e_, #call, __FILE__, __LINE__);                           \
      goto label;                                                                       \
    }                                                                                   \
  } while (0)

#define GB_CUBLAS_GOTO(call, err, label)                                                \
  do {                                                                                  \
    int gb_e_ = (int)(call);                                                            \
    if (gb_e_ != 0) {                                                                   \
      (err) = gb_cublas_fail(gb_e_, #call, __FILE__, __LINE__);                         \
      goto label;                                                                       \
    }                                                                                   \
  } while (0)

#define GB_NCCL_GOTO(call, err, label)                                                  \
  do {                                                                                  \
    int gb_e_ = (int)(call);                                                            \
    if (gb_e_ != 0) {                                                                   \
      (err) = gb_nccl_fail(gb_e_, #call, __FILE__, __LINE__);                           \
      goto label;                                                                       \
    }                                                                                   \
  } while (0)

/* dim3 for C callers of cudaLaunchKernel. */
static inline dim3 gb_dim3(unsigned x, unsigned y, unsigned z) {
  dim3 d = {x, y, z};
  return d;
}
static inline dim3 gb_dim1(unsigned x) { return gb_dim3(x, 1, 1); }

/* True when the CUDA context is broken (a sticky error such as an illegal
 * address): no further work can run in this process. */
int gb_cuda_context_broken(void);

#endif
