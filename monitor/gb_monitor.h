/* gb_monitor: the server behind `gpubench monitor`: live NVML telemetry and
 * the latest benchmark figures of a watched results file, as Prometheus
 * metrics over HTTP (libmicrohttpd). No CUDA: NVML is loaded at run time
 * (core/gb_nvml.h) and its absence is a metric (gpubench_up 0), not an
 * error.
 *
 * A background thread samples NVML and re-reads the results file when it
 * changed (or its last read failed) every interval_ms and renders the whole
 * page once; a scrape copies that page, so it costs a copy of a few KB and
 * never waits on NVML or the disk. The HTTP side is libmicrohttpd's internal
 * threads (a pool of `threads`, epoll), with a connection limit
 * (max_connections), a per-connection idle timeout (timeout_s) and a total
 * deadline per connection (deadline_s, kept by a watchdog thread that shuts
 * the socket down), so a slow, silent or trickling client holds one
 * connection slot for at most deadline_s and blocks no one else.
 * docs/monitoring.md lists every metric and its DCGM exporter counterpart. */
#ifndef GB_MONITOR_H
#define GB_MONITOR_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

#define GB_MONITOR_DEFAULT_PORT 9841
#define GB_MONITOR_MAX_GPUS 64

typedef struct gb_monitor_opts {
  const char *listen;  /* "ADDR:PORT", "[ADDR]:PORT" or "PORT" (127.0.0.1); port 0 picks a free one */
  const char *results; /* results CSV to watch, or NULL */
  int interval_ms;     /* sampling period */
  int max_connections;
  int timeout_s;       /* idle time after which a connection is closed */
  int deadline_s;      /* total time a connection may stay open, however it trickles */
  int max_per_client;  /* connections from one address at once (0: only max_connections) */
  int threads;         /* HTTP worker threads */
  bool no_nvml;        /* do not load NVML (tests): gpubench_up 0, reason "disabled" */
} gb_monitor_opts;

gb_monitor_opts gb_monitor_defaults(void);

/* One GPU's sample; has_* false where NVML does not report it. */
typedef struct gb_gpu_sample {
  unsigned index;
  char uuid[96], name[96];
  bool has_util, has_mem, has_temp, has_power, has_power_limit, has_sm, has_memclk, has_reasons, has_ecc;
  unsigned util_gpu_pct, util_mem_pct, temp_c, sm_mhz, mem_mhz;
  unsigned long long mem_used, mem_total, reasons, ecc_corrected, ecc_uncorrected;
  double power_w, power_limit_w;
  bool has_xid;                       /* XID events are watched */
  unsigned long long xid_count, last_xid;
} gb_gpu_sample;

typedef struct gb_telemetry {
  bool up;
  char reason[200]; /* why not up */
  char driver[64];
  size_t ngpus;
  gb_gpu_sample gpu[GB_MONITOR_MAX_GPUS];
} gb_telemetry;

/* Appends the telemetry families (gpubench_up, gpubench_gpu_*) to out. */
gb_err gb_monitor_render_telemetry(const gb_telemetry *t, gb_buf *out);

typedef struct gb_monitor gb_monitor;

/* Binds the listening socket (GB_E_IO naming ADDR:PORT and the reason when
 * it is taken or not allowed; GB_E_USAGE for an address that is not one),
 * starts the sampler and the HTTP threads. */
gb_err gb_monitor_start(const gb_monitor_opts *o, gb_monitor **out);

/* The port it listens on (useful with port 0). */
int gb_monitor_port(const gb_monitor *m);

/* Stops the server and the sampler and frees m. */
void gb_monitor_stop(gb_monitor *m);

#endif
