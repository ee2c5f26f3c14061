/* gb_nvml: NVML through dlopen, declared here (no nvml.h needed). */
#include "gb_nvml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_ret; /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef void *nvml_dev;

static struct {
  int state; /* 0 untried, 1 ok, -1 unavailable */
  void *lib;
  nvml_ret (*init)(void);
  nvml_ret (*driver_version)(char *, unsigned);
  nvml_ret (*by_pci)(const char *, nvml_dev *);
  nvml_ret (*clock)(nvml_dev, int, unsigned *);
  nvml_ret (*max_clock)(nvml_dev, int, unsigned *);
  nvml_ret (*temp)(nvml_dev, int, unsigned *);
  nvml_ret (*power)(nvml_dev, unsigned *);
  nvml_ret (*power_limit)(nvml_dev, unsigned *);
  nvml_ret (*reasons)(nvml_dev, unsigned long long *);
  nvml_ret (*pcie_gen)(nvml_dev, unsigned *);
  nvml_ret (*pcie_width)(nvml_dev, unsigned *);
  nvml_ret (*ecc)(nvml_dev, int *, int *);
  nvml_ret (*nvlink_state)(nvml_dev, unsigned, int *);
} g;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void *sym(const char *a, const char *b) {
  void *p = dlsym(g.lib, a);
  if (!p && b) p = dlsym(g.lib, b);
  return p;
}

static void load(void) {
  g.state = -1;
  g.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g.lib) return;
  g.init = (nvml_ret(*)(void))sym("nvmlInit_v2", "nvmlInit");
  g.driver_version = (nvml_ret(*)(char *, unsigned))sym("nvmlSystemGetDriverVersion", NULL);
  g.by_pci = (nvml_ret(*)(const char *, nvml_dev *))sym("nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
  g.clock = (nvml_ret(*)(nvml_dev, int, unsigned *))sym("nvmlDeviceGetClockInfo", NULL);
  g.max_clock = (nvml_ret(*)(nvml_dev, int, unsigned *))sym("nvmlDeviceGetMaxClockInfo", NULL);
  g.temp = (nvml_ret(*)(nvml_dev, int, unsigned *))sym("nvmlDeviceGetTemperature", NULL);
  g.power = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetPowerUsage", NULL);
  g.power_limit = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetEnforcedPowerLimit", NULL);
  g.reasons = (nvml_ret(*)(nvml_dev, unsigned long long *))sym("nvmlDeviceGetCurrentClocksEventReasons",
                                                              "nvmlDeviceGetCurrentClocksThrottleReasons");
  g.pcie_gen = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetCurrPcieLinkGeneration", NULL);
  g.pcie_width = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetCurrPcieLinkWidth", NULL);
  g.ecc = (nvml_ret(*)(nvml_dev, int *, int *))sym("nvmlDeviceGetEccMode", NULL);
  g.nvlink_state = (nvml_ret(*)(nvml_dev, unsigned, int *))sym("nvmlDeviceGetNvLinkState", NULL);
  if (!g.init || !g.by_pci || g.init() != 0) return;
  g.state = 1;
}

bool gb_nvml_available(void) {
  pthread_once(&g_once, load);
  return g.state == 1;
}

bool gb_nvml_driver_version(char *buf, int n) {
  return gb_nvml_available() && g.driver_version && g.driver_version(buf, (unsigned)n) == 0;
}

gb_nvml_dev *gb_nvml_device_by_pci(const char *pci_bus_id) {
  nvml_dev d = NULL;
  if (!gb_nvml_available() || g.by_pci(pci_bus_id, &d) != 0) return NULL;
  return (gb_nvml_dev *)d;
}

#define CALL(fn, ...) (d && gb_nvml_available() && g.fn && g.fn((nvml_dev)d, __VA_ARGS__) == 0)

enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

bool gb_nvml_clock_sm_mhz(gb_nvml_dev *d, unsigned *mhz) { return CALL(clock, NVML_CLOCK_SM, mhz); }
bool gb_nvml_clock_mem_mhz(gb_nvml_dev *d, unsigned *mhz) { return CALL(clock, NVML_CLOCK_MEM, mhz); }
bool gb_nvml_max_clock_sm_mhz(gb_nvml_dev *d, unsigned *mhz) { return CALL(max_clock, NVML_CLOCK_SM, mhz); }
bool gb_nvml_max_clock_mem_mhz(gb_nvml_dev *d, unsigned *mhz) { return CALL(max_clock, NVML_CLOCK_MEM, mhz); }
bool gb_nvml_temp_c(gb_nvml_dev *d, unsigned *c) { return CALL(temp, 0, c); }

bool gb_nvml_power_w(gb_nvml_dev *d, double *w) {
  unsigned mw;
  if (!CALL(power, &mw)) return false;
  *w = mw / 1000.0;
  return true;
}

bool gb_nvml_power_limit_w(gb_nvml_dev *d, double *w) {
  unsigned mw;
  if (!CALL(power_limit, &mw)) return false;
  *w = mw / 1000.0;
  return true;
}

bool gb_nvml_clock_reasons(gb_nvml_dev *d, unsigned long long *r) { return CALL(reasons, r); }

bool gb_nvml_pcie(gb_nvml_dev *d, unsigned *gen, unsigned *width) {
  return CALL(pcie_gen, gen) && CALL(pcie_width, width);
}

bool gb_nvml_ecc(gb_nvml_dev *d, bool *enabled) {
  int cur = 0, pend = 0;
  if (!CALL(ecc, &cur, &pend)) return false;
  *enabled = cur != 0;
  return true;
}

unsigned gb_nvml_nvlink_active(gb_nvml_dev *d) {
  unsigned n = 0;
  for (unsigned link = 0; link < 18; link++) {
    int active = 0;
    if (CALL(nvlink_state, link, &active) && active) n++;
  }
  return n;
}

void gb_nvml_reason_names(unsigned long long r, char *buf, int n) {
  static const struct {
    unsigned long long bit;
    const char *name;
  } names[] = {
      {GB_NVML_REASON_GPU_IDLE, "idle"},          {GB_NVML_REASON_APP_CLOCKS, "app_clocks"},
      {GB_NVML_REASON_SW_POWER_CAP, "sw_power_cap"}, {GB_NVML_REASON_HW_SLOWDOWN, "hw_slowdown"},
      {GB_NVML_REASON_SYNC_BOOST, "sync_boost"},  {GB_NVML_REASON_SW_THERMAL, "sw_thermal"},
      {GB_NVML_REASON_HW_THERMAL, "hw_thermal"},  {GB_NVML_REASON_HW_POWER_BRAKE, "hw_power_brake"},
      {GB_NVML_REASON_DISPLAY_CLOCKS, "display_clocks"},
  };
  int used = 0;
  if (n > 0) buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (r & names[i].bit) {
      int w = snprintf(buf + used, (size_t)(n - used), "%s%s", used ? "+" : "", names[i].name);
      if (w < 0 || used + w >= n) break;
      used += w;
    }
}
