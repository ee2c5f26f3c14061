/* energy_probe: how often the board's energy counter
 * (nvmlDeviceGetTotalEnergyConsumption) moves, and what it says the power
 * is, next to the instantaneous power field (NVML_FI_DEV_POWER_INSTANT).
 *
 *   energy_probe [--gpu N] [--seconds S] [--trace FILE]
 *
 * Polls the counter of NVML device N (default 0) in a tight loop for S
 * seconds (default 2) and prints, as key=value lines: the reads, the
 * counter's steps, the intervals between steps (median, p10, p90, min, max,
 * ms), the power over the steps (first step to last: no partial interval at
 * either end) and the mean of the instantaneous field read every 10 ms.
 * --trace appends every step as "wall_s energy_mj" (CLOCK_REALTIME), so that
 * a window logged elsewhere (GPUBENCH_ENERGY_LOG) can be read the way Zeus
 * reads it: the counter at its start and at its end. SIGTERM ends the
 * polling early, with the report. Exit 3 without NVML or without the
 * counter. Lab tool: GB_TOOLS=ON builds it (tools/README.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_nvml.h"
#include "gb_stats.h"

#define MAX_STEPS 200000

static volatile sig_atomic_t g_stop; /* SIGTERM or SIGINT: stop polling and report */

static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct probe {
  long reads, steps;
  double t_first, t_last; /* monotonic time of the first and the last step */
  unsigned long long e_first, e_last;
  double *gap_ms;
  double inst_sum;
  long inst_n;
  double elapsed; /* seconds polled */
} probe;

static int usage(void) {
  fprintf(stderr, "usage: energy_probe [--gpu N] [--seconds S] [--trace FILE]\n");
  return 2;
}

/* Polls for seconds; every step goes to trace (may be NULL). */
static int poll_counter(gb_nvml_dev *d, double seconds, FILE *trace, probe *p) {
  unsigned long long last = 0, e;
  if (!gb_nvml_energy_mj(d, &last)) return 3;
  double t0 = clock_s(CLOCK_MONOTONIC), next_inst = t0, t_prev_step = -1;
  for (double now = t0; now - t0 < seconds && !g_stop; now = clock_s(CLOCK_MONOTONIC)) {
    if (!gb_nvml_energy_mj(d, &e)) return 3;
    p->reads++;
    if (now >= next_inst) {
      double w;
      if (gb_nvml_power_instant_w(d, &w)) p->inst_sum += w, p->inst_n++;
      next_inst = now + 0.010;
    }
    if (e == last) continue;
    now = clock_s(CLOCK_MONOTONIC);
    if (trace) fprintf(trace, "%.6f %llu\n", clock_s(CLOCK_REALTIME), e);
    if (p->steps == 0) p->t_first = now, p->e_first = e;
    else if (p->steps <= MAX_STEPS) p->gap_ms[p->steps - 1] = (now - t_prev_step) * 1e3;
    p->steps++;
    p->t_last = now;
    p->e_last = e;
    t_prev_step = now;
    last = e;
  }
  p->elapsed = clock_s(CLOCK_MONOTONIC) - t0;
  return 0;
}

static void report(const probe *p) {
  printf("seconds=%.3f\nreads=%ld\nsteps=%ld\n", p->elapsed, p->reads, p->steps);
  fflush(stdout);
  long ngaps = p->steps > 1 ? (p->steps - 1 < MAX_STEPS ? p->steps - 1 : MAX_STEPS) : 0;
  if (ngaps > 0) {
    gb_stats st = gb_stats_of(p->gap_ms, (size_t)ngaps);
    printf("interval_ms_p10=%.3f\ninterval_ms_p90=%.3f\n", gb_quantile(p->gap_ms, (size_t)ngaps, 0.10),
           gb_quantile(p->gap_ms, (size_t)ngaps, 0.90));
    printf("interval_ms_median=%.3f\ninterval_ms_min=%.3f\ninterval_ms_max=%.3f\n", st.median, st.min, st.max);
  }
  if (p->steps > 1 && p->t_last > p->t_first)
    printf("counter_power_w=%.2f\n", (double)(p->e_last - p->e_first) / 1000.0 / (p->t_last - p->t_first));
  if (p->inst_n > 0) printf("instant_power_w_mean=%.2f\ninstant_reads=%ld\n", p->inst_sum / p->inst_n, p->inst_n);
  else printf("instant_power_w_mean=\ninstant_reads=0\n");
}

int main(int argc, char **argv) {
  unsigned gpu = 0;
  double seconds = 2.0;
  const char *trace_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--gpu") == 0) gpu = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0) seconds = strtod(argv[++i], NULL);
    else if (i + 1 < argc && strcmp(argv[i], "--trace") == 0) trace_path = argv[++i];
    else return usage();
  }
  if (!(seconds > 0 && seconds <= 3600)) return usage();
  if (!gb_nvml_available()) {
    fprintf(stderr, "energy_probe: NVML unavailable: %s\n", gb_nvml_why());
    return 3;
  }
  gb_nvml_dev *d = gb_nvml_device_by_index(gpu);
  if (!d) {
    fprintf(stderr, "energy_probe: no NVML device %u\n", gpu);
    return 3;
  }
  FILE *trace = NULL;
  if (trace_path && !(trace = fopen(trace_path, "a"))) {
    fprintf(stderr, "energy_probe: %s: cannot be opened\n", trace_path);
    return 2;
  }
  if (trace) setvbuf(trace, NULL, _IOLBF, 0); /* every step on disk as it comes */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  probe p = {0};
  p.gap_ms = malloc(MAX_STEPS * sizeof *p.gap_ms);
  if (!p.gap_ms) return 1;
  int rc = poll_counter(d, seconds, trace, &p);
  if (trace) fclose(trace);
  if (rc) {
    fprintf(stderr, "energy_probe: no energy counter on device %u (nvmlDeviceGetTotalEnergyConsumption)\n", gpu);
  } else {
    report(&p);
  }
  free(p.gap_ms);
  return rc;
}
