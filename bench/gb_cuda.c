/* gb_cuda: turns CUDA, NVRTC, cuBLASLt and NCCL statuses into gb_err with a
 * message naming the call and its place. */
#include "gb_cuda.h"

#include <cublasLt.h>
#include <nccl.h>
#include <nvrtc.h>

static const char *base_name(const char *path) {
  const char *s = path;
  for (const char *p = path; *p; p++)
    if (*p == '/') s = p + 1;
  return s;
}

gb_err gb_cuda_fail(cudaError_t e, const char *expr, const char *file, int line) {
  gb_err code = GB_E_CUDA;
  if (e == cudaErrorMemoryAllocation) code = GB_E_OOM;
  else if (e == cudaErrorNoDevice) code = GB_E_NOGPU;
  else if (e == cudaErrorInsufficientDriver || e == cudaErrorNoKernelImageForDevice) code = GB_E_NODRIVER;
  else if (e == cudaErrorNotSupported || e == cudaErrorInvalidDeviceFunction) code = GB_E_UNSUPPORTED;
  if (e == cudaErrorInsufficientDriver) code = GB_E_NODRIVER;
  return gb_fail(code, "%s failed: %s (%s) at %s:%d", expr, cudaGetErrorString(e), cudaGetErrorName(e),
                 base_name(file), line);
}

gb_err gb_nvrtc_fail(int e, const char *expr, const char *file, int line) {
  return gb_fail(GB_E_CUDA, "%s failed: %s at %s:%d", expr, nvrtcGetErrorString((nvrtcResult)e),
                 base_name(file), line);
}

gb_err gb_cublas_fail(int e, const char *expr, const char *file, int line) {
  gb_err code = GB_E_CUDA;
  if (e == CUBLAS_STATUS_NOT_SUPPORTED || e == CUBLAS_STATUS_ARCH_MISMATCH) code = GB_E_UNSUPPORTED;
  else if (e == CUBLAS_STATUS_ALLOC_FAILED) code = GB_E_OOM;
  return gb_fail(code, "%s failed: cuBLAS status %d (%s) at %s:%d", expr, e,
                 cublasLtGetStatusString((cublasStatus_t)e), base_name(file), line);
}

gb_err gb_nccl_fail(int e, const char *expr, const char *file, int line) {
  return gb_fail(GB_E_CUDA, "%s failed: NCCL %s at %s:%d", expr, ncclGetErrorString((ncclResult_t)e),
                 base_name(file), line);
}

int gb_cuda_context_broken(void) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return 0;
  /* sticky errors leave the context unusable; others are cleared by this read */
  switch (e) {
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchFailure:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorHardwareStackError:
  case cudaErrorAssert:
  case cudaErrorLaunchTimeout:
  case cudaErrorECCUncorrectable:
    return 1;
  default:
    (void)cudaGetLastError();
    return 0;
  }
}
