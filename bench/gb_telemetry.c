/* gb_telemetry: a sampling thread reading NVML while cases run. */
#include "gb_telemetry.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_energy.h"
#include "gb_nvml.h"
#include "gb_num.h"
#include "gb_stats.h"

#define MAX_SAMPLES 4096

typedef struct sample {
  double sm, mem, temp, power, power_inst;
  unsigned long long reasons;
  bool has_energy;
  unsigned long long energy_mj;
  double t_s, wall_s; /* when energy_mj was read: CLOCK_MONOTONIC and CLOCK_REALTIME seconds */
} sample;

/* The timed window in progress: the counter at its start, the last value
 * seen and the steps seen since. */
typedef struct energy_window {
  bool ok0;
  unsigned long long e0, last;
  double t0, wall0;
  long updates;
} energy_window;

struct gb_telemetry {
  gb_nvml_dev *dev;
  gb_telemetry_reader reader; /* replaces NVML when set (tests) */
  void *reader_arg;
  int period_ms;
  double max_sm_mhz; /* 0: unknown */
  pthread_t thread;
  int running;
  pthread_mutex_t lock;
  sample s[MAX_SAMPLES];
  int n;
  bool windowed; /* a timed window was marked in this case: keep its samples only */
  bool inside;   /* between gb_telemetry_window_begin and _end */
  energy_window win;  /* the window in progress */
  gb_energy_acc acc;  /* the case's windows so far */
  FILE *log;          /* GPUBENCH_ENERGY_LOG, or NULL */
  volatile int stop;
};

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static sample read_now(gb_nvml_dev *d) {
  sample s = {NAN, NAN, NAN, NAN, NAN, 0, false, 0, NAN, NAN};
  unsigned v;
  double w;
  if (gb_nvml_clock_sm_mhz(d, &v)) s.sm = v;
  if (gb_nvml_clock_mem_mhz(d, &v)) s.mem = v;
  if (gb_nvml_temp_c(d, &v)) s.temp = v;
  if (gb_nvml_power_w(d, &w)) s.power = w;
  if (gb_nvml_power_instant_w(d, &w)) s.power_inst = w;
  unsigned long long r;
  if (gb_nvml_clock_reasons(d, &r)) s.reasons = r;
  s.has_energy = gb_nvml_energy_mj(d, &s.energy_mj);
  return s;
}

static sample take(gb_telemetry *t) {
  sample s;
  if (t->reader) {
    gb_telemetry_reading r = t->reader(t->reader_arg);
    s = (sample){r.sm_clock_mhz, r.mem_clock_mhz, r.temp_c, r.power_w, r.power_instant_w > 0 ? r.power_instant_w : NAN,
                 r.reasons, r.has_energy, r.energy_mj, NAN, NAN};
  } else {
    s = read_now(t->dev);
  }
  s.t_s = clock_s(CLOCK_MONOTONIC); /* the energy counter was read last */
  s.wall_s = clock_s(CLOCK_REALTIME);
  return s;
}

/* Keeps a sample unless a timed window was marked and this one falls
 * outside it; inside a window, counts the energy counter's steps. */
static void add(gb_telemetry *t, sample s, bool forced) {
  pthread_mutex_lock(&t->lock);
  if (t->windowed && !t->inside && !forced) {
    pthread_mutex_unlock(&t->lock);
    return;
  }
  /* a step seen after the window began (a sample the thread took before it is no step of it) */
  if (t->inside && t->win.ok0 && s.has_energy && s.energy_mj != t->win.last && s.t_s >= t->win.t0) {
    t->win.updates++;
    t->win.last = s.energy_mj;
  }
  if (t->n < MAX_SAMPLES) t->s[t->n++] = s;
  else t->s[(size_t)rand() % MAX_SAMPLES] = s; /* reservoir-ish: keep the window covered */
  pthread_mutex_unlock(&t->lock);
}

static void *loop(void *arg) {
  gb_telemetry *t = arg;
  struct timespec ts = {t->period_ms / 1000, (long)(t->period_ms % 1000) * 1000000L};
  while (!t->stop) {
    add(t, take(t), false);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

static gb_err start(gb_nvml_dev *dev, gb_telemetry_reader reader, void *arg, int period_ms, gb_telemetry **out) {
  *out = NULL;
  const char *log = getenv("GPUBENCH_ENERGY_LOG");
  FILE *fp = NULL;
  if (log && log[0] && !(fp = fopen(log, "a")))
    return gb_fail(GB_E_IO, "GPUBENCH_ENERGY_LOG: %s: cannot be opened for appending", log);
  gb_telemetry *t = calloc(1, sizeof *t);
  if (!t) {
    if (fp) fclose(fp);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  t->log = fp;
  pthread_mutex_init(&t->lock, NULL);
  t->period_ms = period_ms > 0 ? period_ms : 20;
  t->dev = dev;
  t->reader = reader;
  t->reader_arg = arg;
  if ((t->dev || t->reader) && pthread_create(&t->thread, NULL, loop, t) == 0) t->running = 1;
  *out = t;
  return GB_OK;
}

gb_err gb_telemetry_start(const char *pci_bus_id, int period_ms, gb_telemetry **out) {
  return start(pci_bus_id ? gb_nvml_device_by_pci(pci_bus_id) : NULL, NULL, NULL, period_ms, out);
}

gb_err gb_telemetry_start_reader(gb_telemetry_reader reader, void *arg, int period_ms, gb_telemetry **out) {
  return start(NULL, reader, arg, period_ms, out);
}

bool gb_telemetry_is_throttled(int nsamples, int held, double sm_median_mhz, double max_sm_mhz) {
  if (nsamples <= 0 || 2 * held <= nsamples) return false;
  /* the reason flag alone, with the clock within 2% of its peak, trimmed a
   * bin or two: no more than the run-to-run spread */
  if (max_sm_mhz > 0 && isfinite(sm_median_mhz) && sm_median_mhz >= max_sm_mhz * (1.0 - GB_TELEMETRY_CLOCK_MARGIN))
    return false;
  return true;
}

void gb_telemetry_set_max_sm(gb_telemetry *t, double mhz) {
  if (t) t->max_sm_mhz = mhz > 0 ? mhz : 0;
}

static bool active(const gb_telemetry *t) { return t && (t->dev || t->reader); }

void gb_telemetry_begin(gb_telemetry *t) {
  if (!t) return;
  pthread_mutex_lock(&t->lock);
  t->n = 0;
  t->windowed = false;
  t->inside = false;
  memset(&t->acc, 0, sizeof t->acc);
  pthread_mutex_unlock(&t->lock);
}

void gb_telemetry_window_begin(gb_telemetry *t) {
  if (!active(t)) return;
  sample s = take(t);
  pthread_mutex_lock(&t->lock);
  if (!t->windowed) t->n = 0; /* the first window of the case: forget what came before it */
  t->windowed = true;
  t->inside = true;
  t->win = (energy_window){s.has_energy, s.energy_mj, s.energy_mj, s.t_s, s.wall_s, 0};
  pthread_mutex_unlock(&t->lock);
  add(t, s, true);
}

/* One line of GPUBENCH_ENERGY_LOG for the window that ends with s. */
static void log_window(gb_telemetry *t, const energy_window *w, const sample *s) {
  if (!t->log) return;
  char e0[32] = "-", e1[32] = "-", line[160];
  if (w->ok0) snprintf(e0, sizeof e0, "%llu", w->e0);
  if (s->has_energy) snprintf(e1, sizeof e1, "%llu", s->energy_mj);
  gb_snprintf_c(line, sizeof line, "%.6f %.6f %s %s %ld\n", w->wall0, s->wall_s, e0, e1, w->updates);
  fputs(line, t->log);
  fflush(t->log);
}

void gb_telemetry_window_end(gb_telemetry *t) {
  if (!active(t)) return;
  sample s = take(t);
  add(t, s, true); /* counts the end read's step */
  pthread_mutex_lock(&t->lock);
  t->inside = false;
  energy_window w = t->win;
  gb_energy_add(&t->acc, w.ok0, w.e0, w.t0, s.has_energy, s.energy_mj, s.t_s, w.updates);
  log_window(t, &w, &s);
  pthread_mutex_unlock(&t->lock);
}

static double median_of(const sample *s, int n, size_t off) {
  double v[MAX_SAMPLES];
  int k = 0;
  for (int i = 0; i < n; i++) {
    double x = *(const double *)((const char *)&s[i] + off);
    if (!isnan(x)) v[k++] = x;
  }
  return k ? gb_median(v, (size_t)k) : NAN;
}

gb_telemetry_summary gb_telemetry_end(gb_telemetry *t) {
  gb_telemetry_summary r = {0, NAN, NAN, NAN, NAN, NAN, false, "", NAN, NAN, ""};
  if (!active(t)) return r;
  if (t->n == 0) add(t, take(t), true);
  pthread_mutex_lock(&t->lock);
  int n = t->n;
  r.nsamples = n;
  r.sm_clock_mhz = median_of(t->s, n, offsetof(sample, sm));
  r.mem_clock_mhz = median_of(t->s, n, offsetof(sample, mem));
  r.temp_c = median_of(t->s, n, offsetof(sample, temp));
  r.power_w = median_of(t->s, n, offsetof(sample, power));
  r.power_instant_w = median_of(t->s, n, offsetof(sample, power_inst));
  gb_energy_judge(&t->acc, &r.energy_j, &r.energy_s, r.energy_note, sizeof r.energy_note);
  unsigned long long all = 0;
  int held = 0;
  for (int i = 0; i < n; i++) {
    all |= t->s[i].reasons;
    if (t->s[i].reasons & GB_NVML_REASONS_THROTTLE) held++;
  }
  pthread_mutex_unlock(&t->lock);
  r.throttled = gb_telemetry_is_throttled(n, held, r.sm_clock_mhz, t->max_sm_mhz);
  gb_nvml_reason_names(all & ~GB_NVML_REASON_GPU_IDLE, r.reasons, sizeof r.reasons);
  return r;
}

void gb_telemetry_stop(gb_telemetry *t) {
  if (!t) return;
  t->stop = 1;
  if (t->running) pthread_join(t->thread, NULL);
  if (t->log) fclose(t->log);
  pthread_mutex_destroy(&t->lock);
  free(t);
}
