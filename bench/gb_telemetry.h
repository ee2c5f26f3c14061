/* gb_telemetry: NVML sampling on a thread while a case runs: SM and memory
 * clocks, temperature, power and clock-event (throttle) reasons, summarized
 * per case window; and the energy over the case's timed windows from the
 * board's energy counter, read at each window's start and end
 * (core/gb_energy.h). */
#ifndef GB_TELEMETRY_H
#define GB_TELEMETRY_H

#include <stdbool.h>

#include "gb_error.h"

typedef struct gb_telemetry gb_telemetry;

#define GB_TELEMETRY_DEFAULT_MS 20 /* a campaign's sampling period unless told otherwise */

typedef struct gb_telemetry_summary {
  int nsamples;           /* 0 when NVML gave nothing */
  double sm_clock_mhz;    /* medians over the window; NaN when none */
  double mem_clock_mhz;
  double temp_c;
  double power_w;         /* the driver's 1-s average (telemetry only, see gb_nvml_power_w) */
  double power_instant_w; /* median instantaneous power (NaN: the driver lacks the field) */
  bool throttled;         /* gb_telemetry_is_throttled */
  char reasons[128];      /* union of the reasons seen ("sw_power_cap+hw_slowdown") */
  /* the timed windows' energy and wall time (gb_energy_judge): NaN with
   * energy_note saying why when the counter is missing or the windows too
   * short for it; NaN and "" when no window was marked */
  double energy_j, energy_s;
  char energy_note[160];
} gb_telemetry_summary;

/* Starts sampling the GPU with the given PCI bus id every period_ms. With no
 * NVML, returns GB_OK and a sampler whose summaries are empty. When the
 * environment sets GPUBENCH_ENERGY_LOG to a file, every timed window appends
 * one line to it, "wall_start_s wall_end_s energy_start_mj energy_end_mj
 * updates" (CLOCK_REALTIME seconds; the counter's reads, "-" where one
 * failed; the counter steps seen), for comparing the window with other
 * meters (scripts/device/energy_anchor.sh); a file that cannot be opened is
 * GB_E_IO. */
gb_err gb_telemetry_start(const char *pci_bus_id, int period_ms, gb_telemetry **out);

/* One reading, for a sampler fed by a function instead of NVML (tests). */
typedef struct gb_telemetry_reading {
  double sm_clock_mhz, mem_clock_mhz, temp_c, power_w;
  unsigned long long reasons; /* GB_NVML_REASON_* bits */
  bool has_energy;            /* energy_mj was read */
  unsigned long long energy_mj; /* the board's energy counter */
  double power_instant_w;     /* NaN or 0: not read */
} gb_telemetry_reading;
typedef gb_telemetry_reading (*gb_telemetry_reader)(void *arg);
gb_err gb_telemetry_start_reader(gb_telemetry_reader reader, void *arg, int period_ms, gb_telemetry **out);

/* The device's peak SM clock (gb_device_info.max_sm_clock_mhz; 0: unknown),
 * for gb_telemetry_is_throttled. */
void gb_telemetry_set_max_sm(gb_telemetry *t, double mhz);

/* A window is throttled when power or heat reasons (GB_NVML_REASONS_THROTTLE)
 * were active in over half of its samples (held of nsamples) and its median
 * SM clock was more than GB_TELEMETRY_CLOCK_MARGIN under the peak (when the
 * peak is known): on an H200 the sw_power_cap reason stayed on in GEMM
 * windows whose clock held 1965 of 1980 MHz, a 0.8% trim inside the
 * run-to-run spread, while the power cap that matters pulled it to
 * 1400-1800 MHz. */
#define GB_TELEMETRY_CLOCK_MARGIN 0.02
bool gb_telemetry_is_throttled(int nsamples, int held, double sm_median_mhz, double max_sm_mhz);

/* Begins a case's window (forgets earlier samples). */
void gb_telemetry_begin(gb_telemetry *t);

/* Marks a timed region inside the case (gb_measure does, when given the
 * sampler): once one is marked, the case's summary holds only samples taken
 * inside marked regions, plus one taken at each region's start and end, so
 * a row's clocks, power and `throttled` status describe the region its value
 * was timed over, not the algorithm search or the result check around it.
 * The energy counter is read at each region's start and end, and by the
 * sampling thread in between to count the counter's steps (an undercount
 * when it steps faster than period_ms, which only ever withholds a figure).
 * NULL-safe; no effect on a sampler with no device. */
void gb_telemetry_window_begin(gb_telemetry *t);
void gb_telemetry_window_end(gb_telemetry *t);

/* Ends the case's window and summarizes it (takes one sample now if none yet). */
gb_telemetry_summary gb_telemetry_end(gb_telemetry *t);

void gb_telemetry_stop(gb_telemetry *t);

#endif
