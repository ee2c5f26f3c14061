/* gb_nvml: the few NVML entry points gpubench uses, loaded at run time with
 * dlopen("libnvidia-ml.so.1") (it comes with the driver; no nvml.h is
 * needed to build). Every function fails softly when NVML is missing. */
#ifndef GB_NVML_H
#define GB_NVML_H

#include <stdbool.h>

typedef struct gb_nvml_dev gb_nvml_dev; /* opaque nvmlDevice_t */

/* Clock-event (throttle) reason bits, as NVML defines them. */
#define GB_NVML_REASON_GPU_IDLE 0x1ULL
#define GB_NVML_REASON_APP_CLOCKS 0x2ULL
#define GB_NVML_REASON_SW_POWER_CAP 0x4ULL
#define GB_NVML_REASON_HW_SLOWDOWN 0x8ULL
#define GB_NVML_REASON_SYNC_BOOST 0x10ULL
#define GB_NVML_REASON_SW_THERMAL 0x20ULL
#define GB_NVML_REASON_HW_THERMAL 0x40ULL
#define GB_NVML_REASON_HW_POWER_BRAKE 0x80ULL
#define GB_NVML_REASON_DISPLAY_CLOCKS 0x100ULL
/* the reasons that mean "held down by power or heat" */
#define GB_NVML_REASONS_THROTTLE                                                              \
  (GB_NVML_REASON_SW_POWER_CAP | GB_NVML_REASON_HW_SLOWDOWN | GB_NVML_REASON_SW_THERMAL |   \
   GB_NVML_REASON_HW_THERMAL | GB_NVML_REASON_HW_POWER_BRAKE)

/* Loads and initializes NVML once; false when it is not available. */
bool gb_nvml_available(void);

/* Driver version string ("580.159.04"); false when unavailable. */
bool gb_nvml_driver_version(char *buf, int n);

/* Device by PCI bus id as CUDA reports it ("0000:19:00.0"); NULL if none. */
gb_nvml_dev *gb_nvml_device_by_pci(const char *pci_bus_id);

bool gb_nvml_clock_sm_mhz(gb_nvml_dev *d, unsigned *mhz);
bool gb_nvml_clock_mem_mhz(gb_nvml_dev *d, unsigned *mhz);
bool gb_nvml_max_clock_sm_mhz(gb_nvml_dev *d, unsigned *mhz);
bool gb_nvml_max_clock_mem_mhz(gb_nvml_dev *d, unsigned *mhz);
bool gb_nvml_temp_c(gb_nvml_dev *d, unsigned *c);
/* The driver's power reading (nvmlDeviceGetPowerUsage). On Ampere (except
 * GA100) and newer it is an average over about one second: telemetry only,
 * never the power of a window shorter than seconds. */
bool gb_nvml_power_w(gb_nvml_dev *d, double *w);
/* The board's total energy since the driver loaded, mJ
 * (nvmlDeviceGetTotalEnergyConsumption, Volta and newer); false where the
 * driver or the GPU lacks it. Energy over a window is the difference of two
 * reads; how often the counter moves: tools/energy (docs/perf-notes.md). */
bool gb_nvml_energy_mj(gb_nvml_dev *d, unsigned long long *mj);
/* The instantaneous board power (field NVML_FI_DEV_POWER_INSTANT through
 * nvmlDeviceGetFieldValues), W; false where the driver lacks the field. */
bool gb_nvml_power_instant_w(gb_nvml_dev *d, double *w);
bool gb_nvml_power_limit_w(gb_nvml_dev *d, double *w);
bool gb_nvml_clock_reasons(gb_nvml_dev *d, unsigned long long *reasons);
bool gb_nvml_pcie(gb_nvml_dev *d, unsigned *gen, unsigned *width);
bool gb_nvml_ecc(gb_nvml_dev *d, bool *enabled);
/* NVLink links active to any peer (0 when none or unknown). */
unsigned gb_nvml_nvlink_active(gb_nvml_dev *d);

/* Names of the reason bits set in r ("sw_power_cap+hw_thermal"), "" if none. */
void gb_nvml_reason_names(unsigned long long r, char *buf, int n);

/* ---- for gpubench monitor (no CUDA needed: NVML only) ---- */

/* Why NVML is unavailable ("libnvidia-ml.so.1: cannot open shared object
 * file...", "nvmlInit failed: Driver Not Loaded (9)"); "" when it is. */
const char *gb_nvml_why(void);

/* Devices NVML sees (0 when unavailable), and one by index. */
unsigned gb_nvml_device_count(void);
gb_nvml_dev *gb_nvml_device_by_index(unsigned i);

bool gb_nvml_uuid(gb_nvml_dev *d, char *buf, int n);
bool gb_nvml_name(gb_nvml_dev *d, char *buf, int n);
/* percent of the last sample period the GPU / memory was busy */
bool gb_nvml_utilization(gb_nvml_dev *d, unsigned *gpu_pct, unsigned *mem_pct);
/* device memory used and total, bytes */
bool gb_nvml_memory(gb_nvml_dev *d, unsigned long long *used, unsigned long long *total);
/* ECC errors since the counters were last cleared (aggregate); false when
 * the GPU has no ECC or it is off */
bool gb_nvml_ecc_errors(gb_nvml_dev *d, bool uncorrected, unsigned long long *count);

/* XID (critical error) events: a set registered on every device (NULL when
 * NVML cannot watch them), and the next event within timeout_ms: 1 with the
 * device and the XID number, 0 when none came. */
void *gb_nvml_xid_open(void);
int gb_nvml_xid_next(void *set, unsigned timeout_ms, gb_nvml_dev **dev, unsigned long long *xid);

#endif
