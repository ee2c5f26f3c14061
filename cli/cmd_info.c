/* gpubench info: driver, libraries and every GPU, or one line saying why
 * there is nothing to measure (exit 3). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_device.h"
#include "gb_num.h"
#include "gb_runinfo.h"

typedef struct info_args {
  bool csv;
} info_args;

static const gb_opt k_opts[] = {
    {"csv", 0, NULL, "one line per GPU as CSV (key columns only)", GB_OPT_FLAG, GB_OPT_AT(info_args, csv)},
    {0}};

const gb_opt_cmd gb_info_cmd = {
    .name = "info",
    .synopsis = "[--csv]",
    .summary = "show the driver, libraries and GPUs (exit 3 with no usable GPU)",
    .description =
        "Shows the driver, CUDA runtime and driver versions, cuBLASLt, NVRTC and NCCL\n"
        "versions, and per GPU: name, canonical gpu_type, UUID, compute capability, SMs,\n"
        "memory, L2, max SM and memory clocks, bus width and the theoretical bandwidth it\n"
        "implies, PCIe link, ECC, power limit, NVLink links, and the peer-access matrix.",
    .options = k_opts,
    .exit_status = "0 ok, 2 bad usage, 3 no NVIDIA driver or no GPU (one line says which).",
};

#ifdef GB_CLI_SPEC_ONLY
/* The gpubench program (no CUDA): --help and usage errors here, the rest in
 * the measuring module (cli/gb_measure.c). */
int gb_cmd_info(int argc, char **argv) {
  info_args a = {0};
  int rc = gb_cli_parse(&gb_info_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) return rc;
  return gb_measure_call("info", argc, argv);
}
#else
int gb_cmd_info(int argc, char **argv) {
  info_args a = {0};
  int rc = gb_cli_parse(&gb_info_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) return rc;
  bool csv = a.csv;

  gb_system_info sys;
  gb_err e = gb_system_query(&sys);
  if (e) {
    fprintf(stderr, "gpubench info: %s\n", gb_errmsg());
    return gb_exit_code(e);
  }
  if (csv) {
    printf("index,gpu_type,name,uuid,cc,sms,mem_bytes,l2_bytes,max_sm_clock_mhz,max_mem_clock_mhz,bus_width_bits,"
           "theoretical_bw_gbps,pcie_gen,pcie_width,ecc,driver,cuda\n");
    for (int i = 0; i < sys.ndev; i++) {
      const gb_device_info *d = &sys.dev[i];
      char bw[32];
      gb_snprintf_c(bw, sizeof bw, "%.1f", d->theoretical_bw_gbps);
      printf("%d,%s,\"%s\",%s,%d.%d,%d,%llu,%d,%d,%d,%d,%s,%d,%d,%d,%s,%s\n", i, d->gpu_type, d->name, d->uuid,
             d->cc_major, d->cc_minor, d->sm_count, (unsigned long long)d->mem_bytes, d->l2_bytes,
             d->max_sm_clock_mhz, d->max_mem_clock_mhz, d->bus_width_bits, bw, d->pcie_gen, d->pcie_width, d->ecc,
             sys.driver, sys.cuda_runtime);
    }
    return 0;
  }
  printf("gpubench %s (git %s) on %s\n", gb_version(), gb_git_sha(), gb_hostname());
  printf("driver          %s (supports CUDA %s)\n", sys.driver, sys.cuda_driver);
  printf("CUDA runtime    %s\n", sys.cuda_runtime);
  printf("cuBLASLt        %s\n", sys.cublaslt);
  printf("NVRTC           %s\n", sys.nvrtc);
  printf("NCCL            %s\n", sys.nccl);
  printf("GPUs            %d\n", sys.ndev);
  for (int i = 0; i < sys.ndev; i++) {
    const gb_device_info *d = &sys.dev[i];
    char mem[32], l2[32];
    gb_fmt_size(mem, sizeof mem, (int64_t)d->mem_bytes);
    gb_fmt_size(l2, sizeof l2, d->l2_bytes);
    printf("\nGPU %d: %s\n", i, d->name);
    printf("  gpu_type          %s\n", d->gpu_type);
    printf("  uuid              %s\n", d->uuid);
    printf("  pci bus id        %s\n", d->pci_bus_id);
    printf("  compute cap.      %d.%d (sm_%d%d)\n", d->cc_major, d->cc_minor, d->cc_major, d->cc_minor);
    printf("  SMs               %d\n", d->sm_count);
    printf("  memory            %s (%llu bytes)\n", mem, (unsigned long long)d->mem_bytes);
    printf("  L2 cache          %s\n", l2);
    printf("  max SM clock      %d MHz\n", d->max_sm_clock_mhz);
    printf("  max memory clock  %d MHz\n", d->max_mem_clock_mhz);
    printf("  memory bus        %d bits\n", d->bus_width_bits);
    printf("  theoretical BW    %.1f GB/s (2 x %d MHz x %d bits / 8)\n", d->theoretical_bw_gbps, d->max_mem_clock_mhz,
           d->bus_width_bits);
    if (d->pcie_gen)
      printf("  PCIe link         gen %d x%d (current)\n", d->pcie_gen, d->pcie_width);
    else
      printf("  PCIe link         unknown (NVML unavailable)\n");
    printf("  ECC               %s\n", d->ecc == 1 ? "on" : d->ecc == 0 ? "off" : "unknown");
    if (d->power_limit_w == d->power_limit_w) printf("  power limit       %.0f W\n", d->power_limit_w);
    printf("  NVLink links      %d active\n", d->nvlinks);
  }
  if (sys.ndev > 1) {
    printf("\nPeer access (row can read column's memory):\n     ");
    for (int j = 0; j < sys.ndev; j++) printf(" GPU%-2d", j);
    printf("\n");
    for (int i = 0; i < sys.ndev; i++) {
      printf("GPU%-2d", i);
      for (int j = 0; j < sys.ndev; j++) printf("  %-4s", i == j ? "-" : sys.peer[i][j] ? "yes" : "no");
      printf("\n");
    }
  }
  return 0;
}
#endif
