/* testutil_gpu: the GPU suites' main: exit 77 (ctest SKIPPED) with no usable
 * GPU, and run in one process (CK_NOFORK) so no CUDA state crosses a fork. */
#ifndef GB_TESTUTIL_GPU_H
#define GB_TESTUTIL_GPU_H

#include <cuda_runtime_api.h>
#include <stdio.h>

#include "testutil.h"

static inline int gb_test_run_gpu_suite(Suite *s) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fprintf(stderr, "SKIPPED: no usable GPU (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    srunner_free(srunner_create(s)); /* frees the suite: no leak report under ASan */
    return 77;
  }
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

#endif
