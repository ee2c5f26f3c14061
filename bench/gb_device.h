/* gb_device: what the machine has: driver and library versions, and per GPU
 * its name, canonical type, clocks, memory, L2, bus, PCIe, ECC and peer
 * access. Everything `gpubench info` prints and every row's identity. */
#ifndef GB_DEVICE_H
#define GB_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_error.h"

#define GB_MAX_GPUS 16

typedef struct gb_device_info {
  int ordinal;              /* CUDA device ordinal */
  char name[256];           /* as the driver reports it */
  char gpu_type[64];        /* canonical key, e.g. H200-SXM-141GB */
  char uuid[64];            /* GPU-xxxxxxxx-... */
  char pci_bus_id[32];
  int cc_major, cc_minor;
  int sm_count;
  uint64_t mem_bytes;
  int l2_bytes;
  int max_sm_clock_mhz;     /* peak, from the driver */
  int max_mem_clock_mhz;
  int bus_width_bits;
  double theoretical_bw_gbps; /* 2 * mem clock * bus width / 8, in 1e9 B/s */
  int pcie_gen, pcie_width;   /* 0 when unknown */
  int ecc;                    /* 1 on, 0 off, -1 unknown */
  double power_limit_w;       /* NaN when unknown */
  int nvlinks;                /* active NVLink links, 0 when none/unknown */
} gb_device_info;

typedef struct gb_system_info {
  char driver[32];          /* "580.159.04" (NVML), else from the CUDA driver version */
  char cuda_runtime[16];    /* "13.0" */
  char cuda_driver[16];     /* highest CUDA version the driver supports */
  char cublaslt[48];        /* "13.0.2" */
  char nvrtc[48];
  char nccl[48];
  int ndev;
  gb_device_info dev[GB_MAX_GPUS];
  /* peer[i][j]: 1 when device i can access device j's memory */
  int peer[GB_MAX_GPUS][GB_MAX_GPUS];
} gb_system_info;

/* Fills the versions (no GPU needed) and, when a driver and GPUs are present,
 * the device list. Returns GB_E_NODRIVER or GB_E_NOGPU (with a one-line
 * message) when there is nothing to measure; versions are filled anyway. */
gb_err gb_system_query(gb_system_info *out);

/* "CUDA 13.0" style version text from an integer such as 13000. */
void gb_cuda_version_text(int v, char *buf, size_t n);

#endif
