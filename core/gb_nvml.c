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
  nvml_ret (*energy)(nvml_dev, unsigned long long *); /* Volta and newer */
  nvml_ret (*fields)(nvml_dev, int, void *);         /* nvmlFieldValue_t[] */
  nvml_ret (*power_limit)(nvml_dev, unsigned *);
  nvml_ret (*reasons)(nvml_dev, unsigned long long *);
  nvml_ret (*pcie_gen)(nvml_dev, unsigned *);
  nvml_ret (*pcie_width)(nvml_dev, unsigned *);
  nvml_ret (*ecc)(nvml_dev, int *, int *);
  nvml_ret (*nvlink_state)(nvml_dev, unsigned, int *);
  /* the monitor's (gpubench monitor) */
  nvml_ret (*count)(unsigned *);
  nvml_ret (*by_index)(unsigned, nvml_dev *);
  nvml_ret (*uuid)(nvml_dev, char *, unsigned);
  nvml_ret (*name)(nvml_dev, char *, unsigned);
  nvml_ret (*util)(nvml_dev, unsigned *); /* nvmlUtilization_t: {gpu, memory} */
  nvml_ret (*mem)(nvml_dev, unsigned long long *); /* nvmlMemory_t: {total, free, used} */
  nvml_ret (*ecc_total)(nvml_dev, int, int, unsigned long long *);
  nvml_ret (*ev_create)(void **);
  nvml_ret (*ev_register)(nvml_dev, unsigned long long, void *);
  nvml_ret (*ev_wait)(void *, void *, unsigned);
  const char *(*error_string)(nvml_ret);
  char why[200]; /* why NVML is unavailable */
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
  if (!g.lib) {
    const char *d = dlerror();
    snprintf(g.why, sizeof g.why, "%s", d ? d : "libnvidia-ml.so.1 cannot be loaded");
    return;
  }
  g.init = (nvml_ret(*)(void))sym("nvmlInit_v2", "nvmlInit");
  g.driver_version = (nvml_ret(*)(char *, unsigned))sym("nvmlSystemGetDriverVersion", NULL);
  g.by_pci = (nvml_ret(*)(const char *, nvml_dev *))sym("nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
  g.clock = (nvml_ret(*)(nvml_dev, int, unsigned *))sym("nvmlDeviceGetClockInfo", NULL);
  g.max_clock = (nvml_ret(*)(nvml_dev, int, unsigned *))sym("nvmlDeviceGetMaxClockInfo", NULL);
  g.temp = (nvml_ret(*)(nvml_dev, int, unsigned *))sym("nvmlDeviceGetTemperature", NULL);
  g.power = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetPowerUsage", NULL);
  g.energy = (nvml_ret(*)(nvml_dev, unsigned long long *))sym("nvmlDeviceGetTotalEnergyConsumption", NULL);
  g.fields = (nvml_ret(*)(nvml_dev, int, void *))sym("nvmlDeviceGetFieldValues", NULL);
  g.power_limit = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetEnforcedPowerLimit", NULL);
  g.reasons = (nvml_ret(*)(nvml_dev, unsigned long long *))sym("nvmlDeviceGetCurrentClocksEventReasons",
                                                              "nvmlDeviceGetCurrentClocksThrottleReasons");
  g.pcie_gen = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetCurrPcieLinkGeneration", NULL);
  g.pcie_width = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetCurrPcieLinkWidth", NULL);
  g.ecc = (nvml_ret(*)(nvml_dev, int *, int *))sym("nvmlDeviceGetEccMode", NULL);
  g.nvlink_state = (nvml_ret(*)(nvml_dev, unsigned, int *))sym("nvmlDeviceGetNvLinkState", NULL);
  g.count = (nvml_ret(*)(unsigned *))sym("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  g.by_index = (nvml_ret(*)(unsigned, nvml_dev *))sym("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  g.uuid = (nvml_ret(*)(nvml_dev, char *, unsigned))sym("nvmlDeviceGetUUID", NULL);
  g.name = (nvml_ret(*)(nvml_dev, char *, unsigned))sym("nvmlDeviceGetName", NULL);
  g.util = (nvml_ret(*)(nvml_dev, unsigned *))sym("nvmlDeviceGetUtilizationRates", NULL);
  g.mem = (nvml_ret(*)(nvml_dev, unsigned long long *))sym("nvmlDeviceGetMemoryInfo", NULL);
  g.ecc_total = (nvml_ret(*)(nvml_dev, int, int, unsigned long long *))sym("nvmlDeviceGetTotalEccErrors", NULL);
  g.ev_create = (nvml_ret(*)(void **))sym("nvmlEventSetCreate", NULL);
  g.ev_register = (nvml_ret(*)(nvml_dev, unsigned long long, void *))sym("nvmlDeviceRegisterEvents", NULL);
  g.ev_wait = (nvml_ret(*)(void *, void *, unsigned))sym("nvmlEventSetWait_v2", "nvmlEventSetWait");
  g.error_string = (const char *(*)(nvml_ret))sym("nvmlErrorString", NULL);
  if (!g.init || !g.by_pci) {
    snprintf(g.why, sizeof g.why, "libnvidia-ml.so.1 lacks nvmlInit_v2");
    return;
  }
  nvml_ret rc = g.init();
  if (rc != 0) {
    snprintf(g.why, sizeof g.why, "nvmlInit failed: %s (%d)", g.error_string ? g.error_string(rc) : "error", rc);
    return;
  }
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

bool gb_nvml_energy_mj(gb_nvml_dev *d, unsigned long long *mj) { return CALL(energy, mj); }

/* nvmlFieldValue_t: the layout every nvml.h since R450 declares */
typedef struct nvml_field {
  unsigned field_id, scope_id;
  long long timestamp_us, latency_us;
  int value_type, ret;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
} nvml_field;

enum { NVML_FI_DEV_POWER_INSTANT = 186 };

/* A field value as a double (NVML's nvmlValueType_t codes 0..6). */
static bool field_number(const nvml_field *f, double *v) {
  switch (f->value_type) {
  case 0: *v = f->value.d; return true;
  case 1: *v = f->value.ui; return true;
  case 2: *v = (double)f->value.ul; return true;
  case 3: *v = (double)f->value.ull; return true;
  case 4: *v = (double)f->value.sll; return true;
  case 5: *v = f->value.si; return true;
  case 6: *v = f->value.us; return true;
  default: return false;
  }
}

bool gb_nvml_power_instant_w(gb_nvml_dev *d, double *w) {
  nvml_field f;
  memset(&f, 0, sizeof f);
  f.field_id = NVML_FI_DEV_POWER_INSTANT;
  double mw;
  if (!CALL(fields, 1, &f) || f.ret != 0 || !field_number(&f, &mw)) return false;
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

/* ---- the monitor's ---- */

const char *gb_nvml_why(void) {
  if (gb_nvml_available()) return "";
  return g.why[0] ? g.why : "NVML unavailable";
}

unsigned gb_nvml_device_count(void) {
  unsigned n = 0;
  if (!gb_nvml_available() || !g.count || g.count(&n) != 0) return 0;
  return n;
}

gb_nvml_dev *gb_nvml_device_by_index(unsigned i) {
  nvml_dev d = NULL;
  if (!gb_nvml_available() || !g.by_index || g.by_index(i, &d) != 0) return NULL;
  return (gb_nvml_dev *)d;
}

bool gb_nvml_uuid(gb_nvml_dev *d, char *buf, int n) { return CALL(uuid, buf, (unsigned)n); }
bool gb_nvml_name(gb_nvml_dev *d, char *buf, int n) { return CALL(name, buf, (unsigned)n); }

bool gb_nvml_utilization(gb_nvml_dev *d, unsigned *gpu_pct, unsigned *mem_pct) {
  unsigned u[2];
  if (!CALL(util, u)) return false;
  *gpu_pct = u[0];
  *mem_pct = u[1];
  return true;
}

bool gb_nvml_memory(gb_nvml_dev *d, unsigned long long *used, unsigned long long *total) {
  unsigned long long m[3]; /* total, free, used */
  if (!CALL(mem, m)) return false;
  *total = m[0];
  *used = m[2];
  return true;
}

bool gb_nvml_ecc_errors(gb_nvml_dev *d, bool uncorrected, unsigned long long *count) {
  /* NVML_MEMORY_ERROR_TYPE_CORRECTED 0 / UNCORRECTED 1; NVML_AGGREGATE_ECC 1 */
  return CALL(ecc_total, uncorrected ? 1 : 0, 1, count);
}

/* nvmlEventData_t */
typedef struct nvml_event {
  nvml_dev device;
  unsigned long long type, data;
  unsigned gi, ci;
} nvml_event;

#define NVML_EVENT_XID 0x8ULL /* nvmlEventTypeXidCriticalError */

void *gb_nvml_xid_open(void) {
  void *set = NULL;
  if (!gb_nvml_available() || !g.ev_create || !g.ev_register || !g.ev_wait || g.ev_create(&set) != 0) return NULL;
  unsigned n = gb_nvml_device_count(), ok = 0;
  for (unsigned i = 0; i < n; i++) {
    gb_nvml_dev *d = gb_nvml_device_by_index(i);
    if (d && g.ev_register((nvml_dev)d, NVML_EVENT_XID, set) == 0) ok++;
  }
  return ok ? set : NULL;
}

int gb_nvml_xid_next(void *set, unsigned timeout_ms, gb_nvml_dev **dev, unsigned long long *xid) {
  nvml_event ev;
  memset(&ev, 0, sizeof ev);
  if (!set || g.ev_wait(set, &ev, timeout_ms) != 0) return 0;
  if (!(ev.type & NVML_EVENT_XID)) return 0;
  *dev = (gb_nvml_dev *)ev.device;
  *xid = ev.data;
  return 1;
}
