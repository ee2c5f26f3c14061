/* gpubench monitor: a Prometheus exporter of live NVML telemetry and the
 * latest figures of a results file (monitor/gb_monitor.h). Runs until
 * SIGINT or SIGTERM. docs/monitoring.md. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_monitor.h"

typedef struct monitor_args {
  const char *listen, *results;
  int interval_ms, max_connections, max_per_client, timeout_s, deadline_s, threads;
  bool no_nvml;
} monitor_args;

#define A(m) GB_OPT_AT(monitor_args, m)
static const gb_opt k_opts[] = {
    {"listen", 'l', "ADDR:PORT", "address to serve on (default 127.0.0.1:9841; port 0: any\nfree port, printed at start)",
     GB_OPT_STRING, A(listen)},
    {"results", 'r', "FILE", "results CSV whose newest figures are served; re-read when\nit changes", GB_OPT_PATH,
     A(results), .ext = "csv"},
    {"interval", 0, "MS", "NVML sampling and results check period (default 1000)", GB_OPT_INT, A(interval_ms),
     .min = 50, .max = 3600000},
    {"max-connections", 0, "N", "connections served at once (default 512)", GB_OPT_INT, A(max_connections),
     .min = 1, .max = 4096},
    {"max-per-client", 0, "N", "connections from one client address at once (default 0:\nno limit but --max-connections)",
     GB_OPT_INT, A(max_per_client), .min = 0, .max = 4096},
    {"timeout", 0, "S", "close a connection idle this long (default 10)", GB_OPT_INT, A(timeout_s), .min = 1,
     .max = 3600},
    {"deadline", 0, "S",
     "close a connection open this long, however it trickles:\nrequest and answer (default 30)", GB_OPT_INT,
     A(deadline_s), .min = 1, .max = 3600},
    {"threads", 0, "N", "HTTP worker threads (default 4)", GB_OPT_INT, A(threads), .min = 1, .max = 64},
    {"no-nvml", 0, NULL, "do not load NVML (gpubench_up 0): results only", GB_OPT_FLAG, A(no_nvml)},
    {0}};

const gb_opt_cmd gb_monitor_cmd = {
    .name = "monitor",
    .synopsis = "[OPTIONS]",
    .summary = "serve live GPU telemetry and the latest results as Prometheus metrics",
    .description =
        "An HTTP server with /metrics (Prometheus text format) and /healthz. /metrics holds\n"
        "per-GPU telemetry read through NVML (libnvidia-ml.so.1, loaded at run time) in the\n"
        "background every --interval: utilization, memory used and total, temperature,\n"
        "power, SM and memory clocks, clock event (throttle) reasons, ECC and XID error\n"
        "counters; and, with --results, the figures of the newest run per machine in that\n"
        "file, as `gpubench export` writes them. Without NVML or a GPU it still answers,\n"
        "with gpubench_up 0 and the reason. A scrape serves the last rendered page.\n"
        "\n"
        "It binds 127.0.0.1 unless --listen says otherwise, and runs until SIGINT or SIGTERM.\n"
        "At most --max-connections are served at once; a connection is closed when idle for\n"
        "--timeout or open for --deadline, so a client trickling bytes holds a slot for at\n"
        "most --deadline seconds.",
    .options = k_opts,
    .notes = "docs/monitoring.md lists the metrics, their DCGM exporter counterparts,\n"
             "and the alert rules and dashboard in deploy/.",
    .exit_status = "0 stopped by a signal; 2 bad usage, or the address cannot be bound (in use).",
};
#undef A

int gb_cmd_monitor(int argc, char **argv) {
  gb_monitor_opts d = gb_monitor_defaults();
  monitor_args a = {.listen = d.listen, .interval_ms = d.interval_ms, .max_connections = d.max_connections,
                    .timeout_s = d.timeout_s, .deadline_s = d.deadline_s, .threads = d.threads};
  int rc = gb_cli_parse(&gb_monitor_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_opt_free(&gb_monitor_cmd, &a);
    return rc;
  }
  gb_monitor_opts o = {.listen = a.listen, .results = a.results, .interval_ms = a.interval_ms,
                       .max_connections = a.max_connections, .max_per_client = a.max_per_client,
                       .timeout_s = a.timeout_s, .deadline_s = a.deadline_s,
                       .threads = a.threads,
                       .no_nvml = a.no_nvml};
  /* the signals are taken by sigwait below: block them before any thread starts */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);
  gb_monitor *m = NULL;
  gb_err e = gb_monitor_start(&o, &m);
  if (e) {
    fprintf(stderr, "gpubench monitor: %s\n", gb_errmsg());
    gb_opt_free(&gb_monitor_cmd, &a);
    return 2;
  }
  const char *colon = strrchr(a.listen, ':');
  int hl = colon ? (int)(colon - a.listen) : 9;
  fprintf(stderr, "gpubench monitor: listening on http://%.*s:%d/metrics\n", hl, colon ? a.listen : "127.0.0.1",
          gb_monitor_port(m));
  int sig = 0;
  sigwait(&set, &sig);
  fprintf(stderr, "gpubench monitor: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  gb_monitor_stop(m);
  gb_opt_free(&gb_monitor_cmd, &a);
  return 0;
}
