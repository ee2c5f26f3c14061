/* gb_nvrtc: compiles the embedded kernels/ sources with NVRTC for the exact
 * architecture of a device, caches the CUBIN on disk (keyed by source hash,
 * architecture, options and NVRTC version) and loads it with the runtime's
 * library API (cudaLibraryLoadData), so the binary needs no nvcc and starts
 * on a machine with no driver. */
#ifndef GB_NVRTC_H
#define GB_NVRTC_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "gb_error.h"

/* Compiles src for sm_<cc_major><cc_minor> into a CUBIN (malloc'd, *cubin).
 * opts are extra NVRTC options (e.g. "-DVEC=16"). On a compile error the
 * message holds NVRTC's log. Needs no GPU. */
gb_err gb_nvrtc_compile(const char *name, const char *src, int cc_major, int cc_minor,
                        const char *const *opts, int nopts, void **cubin, size_t *cubin_size);

/* NVRTC's version, e.g. 13 0. */
gb_err gb_nvrtc_version(int *major, int *minor);

typedef struct gb_module {
  cudaLibrary_t lib;
} gb_module;

/* Compiles (or takes from the cache) the embedded kernels/<file> for the
 * current device and loads it. The cache lives in $GPUBENCH_CACHE_DIR, else
 * $XDG_CACHE_HOME/gpubench, else ~/.cache/gpubench; a cache that cannot be
 * written is skipped, never an error. */
gb_err gb_module_load(const char *file, const char *const *opts, int nopts, gb_module *out);

/* Looks up an extern "C" __global__ function; the handle can be passed to
 * cudaLaunchKernel as the function pointer. */
gb_err gb_module_kernel(gb_module *m, const char *name, cudaKernel_t *out);

void gb_module_unload(gb_module *m);

#endif
