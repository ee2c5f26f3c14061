/* gb_device: versions of the driver and libraries, and per-GPU properties. */
#include "gb_device.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

#include "gb_cuda.h"
#include "gb_gputype.h"
#include "gb_nvml.h"
#include "gb_nvrtc.h"

void gb_cuda_version_text(int v, char *buf, size_t n) {
  if (v <= 0)
    snprintf(buf, n, "none");
  else if (v % 10)
    snprintf(buf, n, "%d.%d.%d", v / 1000, (v % 1000) / 10, v % 10);
  else
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void query_versions(gb_system_info *s) {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) gb_cuda_version_text(v, s->cuda_runtime, sizeof s->cuda_runtime);
  v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) gb_cuda_version_text(v, s->cuda_driver, sizeof s->cuda_driver);
  else snprintf(s->cuda_driver, sizeof s->cuda_driver, "none");
  size_t lt = cublasLtGetVersion();
  snprintf(s->cublaslt, sizeof s->cublaslt, "%zu.%zu.%zu", lt / 10000, (lt % 10000) / 100, lt % 100);
  int maj = 0, min = 0;
  if (gb_nvrtc_version(&maj, &min) == GB_OK) snprintf(s->nvrtc, sizeof s->nvrtc, "%d.%d", maj, min);
  int nc = 0;
  if (ncclGetVersion(&nc) == ncclSuccess)
    snprintf(s->nccl, sizeof s->nccl, "%d.%d.%d", nc / 10000, (nc % 10000) / 100, nc % 100);
  if (!gb_nvml_driver_version(s->driver, sizeof s->driver)) {
    snprintf(s->driver, sizeof s->driver, "%s", strcmp(s->cuda_driver, "none") ? "unknown" : "none");
  }
}

static gb_err query_device(int ord, gb_device_info *d) {
  memset(d, 0, sizeof *d);
  d->ordinal = ord;
  struct cudaDeviceProp p;
  GB_CUDA(cudaGetDeviceProperties(&p, ord));
  snprintf(d->name, sizeof d->name, "%s", p.name);
  const unsigned char *u = (const unsigned char *)p.uuid.bytes;
  snprintf(d->uuid, sizeof d->uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
           u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  d->cc_major = p.major;
  d->cc_minor = p.minor;
  d->sm_count = p.multiProcessorCount;
  d->mem_bytes = p.totalGlobalMem;
  d->l2_bytes = p.l2CacheSize;
  d->bus_width_bits = p.memoryBusWidth;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ord) == cudaSuccess) d->max_sm_clock_mhz = khz / 1000;
  khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ord) == cudaSuccess) d->max_mem_clock_mhz = khz / 1000;
  GB_CUDA(cudaDeviceGetPCIBusId(d->pci_bus_id, sizeof d->pci_bus_id, ord));
  gb_gpu_type_from_name(d->name, d->mem_bytes, d->gpu_type, sizeof d->gpu_type);
  d->ecc = p.ECCEnabled ? 1 : 0;
  d->power_limit_w = NAN;

  gb_nvml_dev *nd = gb_nvml_device_by_pci(d->pci_bus_id);
  unsigned v = 0, w = 0;
  if (nd) {
    if (gb_nvml_max_clock_sm_mhz(nd, &v) && v) d->max_sm_clock_mhz = (int)v;
    if (gb_nvml_max_clock_mem_mhz(nd, &v) && v) d->max_mem_clock_mhz = (int)v;
    if (gb_nvml_pcie(nd, &v, &w)) {
      d->pcie_gen = (int)v;
      d->pcie_width = (int)w;
    }
    bool ecc;
    if (gb_nvml_ecc(nd, &ecc)) d->ecc = ecc ? 1 : 0;
    double pl;
    if (gb_nvml_power_limit_w(nd, &pl)) d->power_limit_w = pl;
    d->nvlinks = (int)gb_nvml_nvlink_active(nd);
  }
  /* double data rate: two transfers per memory clock */
  d->theoretical_bw_gbps = 2.0 * d->max_mem_clock_mhz * 1e6 * (d->bus_width_bits / 8.0) / 1e9;
  return GB_OK;
}

gb_err gb_system_query(gb_system_info *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->driver, sizeof out->driver, "none");
  snprintf(out->cuda_runtime, sizeof out->cuda_runtime, "unknown");
  query_versions(out);
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || e == cudaErrorInitializationError ||
      e == cudaErrorCompatNotSupportedOnDevice || e == cudaErrorSystemDriverMismatch) {
    (void)cudaGetLastError();
    int dv = 0;
    if (e == cudaErrorNoDevice || (cudaDriverGetVersion(&dv) == cudaSuccess && dv > 0))
      return gb_fail(GB_E_NOGPU, "no usable GPU: the NVIDIA driver (CUDA %s) reports no device (%s)",
                     out->cuda_driver, cudaGetErrorString(e));
    return gb_fail(GB_E_NODRIVER, "no NVIDIA driver: libcuda could not be loaded (%s); nothing to measure here",
                   cudaGetErrorString(e));
  }
  if (e != cudaSuccess) return gb_cuda_fail(e, "cudaGetDeviceCount", __FILE__, __LINE__);
  if (n == 0) return gb_fail(GB_E_NOGPU, "no usable GPU: the NVIDIA driver reports 0 devices");
  if (n > GB_MAX_GPUS) n = GB_MAX_GPUS;
  for (int i = 0; i < n; i++) GB_TRY(query_device(i, &out->dev[i]));
  out->ndev = n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int ok = 0;
      if (i != j && cudaDeviceCanAccessPeer(&ok, i, j) != cudaSuccess) ok = 0;
      out->peer[i][j] = i == j ? 1 : ok;
    }
  return GB_OK;
}
