/* gb_monitor: see gb_monitor.h. */
#include "gb_monitor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gb_nvml.h"
#include "gb_prom.h"
#include "gb_results.h"
#include "gb_runinfo.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

gb_monitor_opts gb_monitor_defaults(void) {
  return (gb_monitor_opts){.listen = "127.0.0.1:9841", .interval_ms = 1000, .max_connections = 512,
                           .timeout_s = 10, .deadline_s = 30, .threads = 4};
}

/* ---- rendering ---- */

typedef bool (*gpu_value_fn)(const gb_gpu_sample *g, double *v);

#define GETTER(fname, has, expr)                                \
  static bool fname(const gb_gpu_sample *g, double *v) {        \
    if (!g->has) return false;                                  \
    *v = (expr);                                                \
    return true;                                                \
  }
GETTER(get_util, has_util, g->util_gpu_pct / 100.0)
GETTER(get_mutil, has_util, g->util_mem_pct / 100.0)
GETTER(get_mem_used, has_mem, (double)g->mem_used)
GETTER(get_mem_total, has_mem, (double)g->mem_total)
GETTER(get_temp, has_temp, (double)g->temp_c)
GETTER(get_power, has_power, g->power_w)
GETTER(get_power_limit, has_power_limit, g->power_limit_w)
GETTER(get_sm, has_sm, g->sm_mhz * 1e6)
GETTER(get_memclk, has_memclk, g->mem_mhz * 1e6)
GETTER(get_xid, has_xid, (double)g->xid_count)
GETTER(get_last_xid, has_xid, (double)g->last_xid)

static const struct {
  const char *name, *type, *help;
  gpu_value_fn get;
} k_gpu_metrics[] = {
    {"gpubench_gpu_utilization_ratio", "gauge", "fraction of the last sample period a kernel ran (NVML utilization.gpu)", get_util},
    {"gpubench_gpu_memory_utilization_ratio", "gauge", "fraction of the last sample period device memory was read or written", get_mutil},
    {"gpubench_gpu_memory_used_bytes", "gauge", "device memory in use", get_mem_used},
    {"gpubench_gpu_memory_total_bytes", "gauge", "device memory installed", get_mem_total},
    {"gpubench_gpu_temperature_celsius", "gauge", "GPU die temperature", get_temp},
    {"gpubench_gpu_power_watts", "gauge", "board power draw", get_power},
    {"gpubench_gpu_power_limit_watts", "gauge", "enforced power limit", get_power_limit},
    {"gpubench_gpu_sm_clock_hertz", "gauge", "current SM clock", get_sm},
    {"gpubench_gpu_memory_clock_hertz", "gauge", "current memory clock", get_memclk},
    {"gpubench_gpu_xid_errors_total", "counter", "XID critical error events seen since the monitor started", get_xid},
    {"gpubench_gpu_last_xid", "gauge", "number of the last XID error seen (0: none)", get_last_xid},
};

static const struct {
  unsigned long long bit;
  const char *name;
} k_reasons[] = {
    {GB_NVML_REASON_GPU_IDLE, "gpu_idle"},         {GB_NVML_REASON_APP_CLOCKS, "applications_clocks"},
    {GB_NVML_REASON_SW_POWER_CAP, "sw_power_cap"}, {GB_NVML_REASON_HW_SLOWDOWN, "hw_slowdown"},
    {GB_NVML_REASON_SYNC_BOOST, "sync_boost"},     {GB_NVML_REASON_SW_THERMAL, "sw_thermal"},
    {GB_NVML_REASON_HW_THERMAL, "hw_thermal"},     {GB_NVML_REASON_HW_POWER_BRAKE, "hw_power_brake"},
    {GB_NVML_REASON_DISPLAY_CLOCKS, "display_clocks"},
};

gb_err gb_monitor_render_telemetry(const gb_telemetry *t, gb_buf *out) {
  gb_err e = gb_prom_put_family(out, "gpubench_up", "gauge",
                                "1 when NVML answers; 0 with the reason label when there is no driver or GPU");
  gb_prom_label up[] = {{"reason", t->up ? NULL : t->reason}};
  if (!e) e = gb_prom_put_sample(out, "gpubench_up", up, 1, t->up ? 1 : 0);
  if (!e && t->ngpus) e = gb_prom_put_family(out, "gpubench_gpu_info", "gauge", "one per GPU: its name, UUID and the driver (value 1)");
  char idx[GB_MONITOR_MAX_GPUS][12];
  for (size_t i = 0; i < t->ngpus; i++) snprintf(idx[i], sizeof idx[i], "%u", t->gpu[i].index);
  for (size_t i = 0; i < t->ngpus && !e; i++) {
    gb_prom_label L[] = {{"gpu", idx[i]}, {"uuid", t->gpu[i].uuid}, {"name", t->gpu[i].name}, {"driver", t->driver}};
    e = gb_prom_put_sample(out, "gpubench_gpu_info", L, 4, 1);
  }
  for (size_t k = 0; k < sizeof k_gpu_metrics / sizeof k_gpu_metrics[0] && !e; k++) {
    bool any = false;
    for (size_t i = 0; i < t->ngpus && !e; i++) {
      double v;
      if (!k_gpu_metrics[k].get(&t->gpu[i], &v)) continue;
      if (!any) e = gb_prom_put_family(out, k_gpu_metrics[k].name, k_gpu_metrics[k].type, k_gpu_metrics[k].help);
      any = true;
      gb_prom_label L[] = {{"gpu", idx[i]}, {"uuid", t->gpu[i].uuid}};
      if (!e) e = gb_prom_put_sample(out, k_gpu_metrics[k].name, L, 2, v);
    }
  }
  bool any = false;
  for (size_t i = 0; i < t->ngpus && !e; i++) {
    if (!t->gpu[i].has_reasons) continue;
    if (!any)
      e = gb_prom_put_family(out, "gpubench_gpu_clock_event_active", "gauge",
                             "1 while the reason holds the clocks down (NVML clock event reasons; power: sw_power_cap, "
                             "hw_power_brake; heat: sw_thermal, hw_thermal, hw_slowdown)");
    any = true;
    for (size_t r = 0; r < sizeof k_reasons / sizeof k_reasons[0] && !e; r++) {
      gb_prom_label L[] = {{"gpu", idx[i]}, {"uuid", t->gpu[i].uuid}, {"reason", k_reasons[r].name}};
      e = gb_prom_put_sample(out, "gpubench_gpu_clock_event_active", L, 3, (t->gpu[i].reasons & k_reasons[r].bit) ? 1 : 0);
    }
  }
  any = false;
  for (size_t i = 0; i < t->ngpus && !e; i++) {
    if (!t->gpu[i].has_ecc) continue;
    if (!any)
      e = gb_prom_put_family(out, "gpubench_gpu_ecc_errors_total", "counter",
                             "ECC errors since the counters were last cleared (NVML aggregate counters)");
    any = true;
    gb_prom_label L[] = {{"gpu", idx[i]}, {"uuid", t->gpu[i].uuid}, {"type", "corrected"}};
    if (!e) e = gb_prom_put_sample(out, "gpubench_gpu_ecc_errors_total", L, 3, (double)t->gpu[i].ecc_corrected);
    L[2].value = "uncorrected";
    if (!e) e = gb_prom_put_sample(out, "gpubench_gpu_ecc_errors_total", L, 3, (double)t->gpu[i].ecc_uncorrected);
  }
  return e;
}

/* ---- sampling ---- */

/* A connection the watchdog times: libmicrohttpd's own timeout is an idle
 * one, which a client sending a byte now and then never meets. */
typedef struct conn_slot {
  struct MHD_Connection *c; /* NULL: free */
  int fd;
  double start;
} conn_slot;

struct gb_monitor {
  gb_monitor_opts o;
  conn_slot *conns; /* max_connections + 16 slots, under cmu */
  size_t nslots;
  pthread_mutex_t cmu;
  pthread_t watchdog;
  bool watchdog_started;
  atomic_ullong cut; /* connections closed at their deadline */
  struct MHD_Daemon *d;
  int fd, port;
  pthread_t sampler;
  bool sampler_started;
  pthread_mutex_t mu; /* page, stop */
  pthread_cond_t cv;
  bool stop;
  char *page;
  size_t page_len;
  atomic_ullong scrapes;
  /* the sampler's own */
  void *xid_set;
  gb_telemetry tel;
  gb_buf results_text;  /* the last good export of the results file */
  bool results_ok;      /* the last read succeeded */
  char results_err[300];
  struct stat results_st;
  bool results_seen;
  unsigned long long results_reads, results_failures;
  double results_changed_at;
  size_t results_rows;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sample_nvml(gb_monitor *m) {
  gb_telemetry *t = &m->tel;
  if (m->o.no_nvml) {
    t->up = false;
    snprintf(t->reason, sizeof t->reason, "NVML disabled (--no-nvml)");
    return;
  }
  if (!gb_nvml_available()) {
    t->up = false;
    snprintf(t->reason, sizeof t->reason, "%s", gb_nvml_why());
    t->ngpus = 0;
    return;
  }
  if (!t->driver[0]) gb_nvml_driver_version(t->driver, sizeof t->driver);
  unsigned n = gb_nvml_device_count();
  if (n > GB_MONITOR_MAX_GPUS) n = GB_MONITOR_MAX_GPUS;
  if (n == 0) {
    t->up = false;
    snprintf(t->reason, sizeof t->reason, "NVML sees no GPU");
    t->ngpus = 0;
    return;
  }
  if (!m->xid_set) m->xid_set = gb_nvml_xid_open();
  for (unsigned i = 0; i < n; i++) {
    gb_gpu_sample *g = &t->gpu[i];
    gb_nvml_dev *d = gb_nvml_device_by_index(i);
    unsigned long long xc = g->xid_count, lx = g->last_xid;
    if (i >= t->ngpus) xc = lx = 0;
    memset(g, 0, sizeof *g);
    g->index = i;
    g->xid_count = xc;
    g->last_xid = lx;
    g->has_xid = m->xid_set != NULL;
    if (!d) continue;
    if (!gb_nvml_uuid(d, g->uuid, sizeof g->uuid)) g->uuid[0] = '\0';
    if (!gb_nvml_name(d, g->name, sizeof g->name)) g->name[0] = '\0';
    g->has_util = gb_nvml_utilization(d, &g->util_gpu_pct, &g->util_mem_pct);
    g->has_mem = gb_nvml_memory(d, &g->mem_used, &g->mem_total);
    g->has_temp = gb_nvml_temp_c(d, &g->temp_c);
    g->has_power = gb_nvml_power_w(d, &g->power_w);
    g->has_power_limit = gb_nvml_power_limit_w(d, &g->power_limit_w);
    g->has_sm = gb_nvml_clock_sm_mhz(d, &g->sm_mhz);
    g->has_memclk = gb_nvml_clock_mem_mhz(d, &g->mem_mhz);
    g->has_reasons = gb_nvml_clock_reasons(d, &g->reasons);
    g->has_ecc = gb_nvml_ecc_errors(d, false, &g->ecc_corrected) && gb_nvml_ecc_errors(d, true, &g->ecc_uncorrected);
  }
  t->ngpus = n;
  t->up = true;
  t->reason[0] = '\0';
  /* XID events that came since the last sample (bounded per tick) */
  for (int k = 0; m->xid_set && k < 64; k++) {
    gb_nvml_dev *d = NULL;
    unsigned long long xid = 0;
    if (!gb_nvml_xid_next(m->xid_set, 0, &d, &xid)) break;
    for (unsigned i = 0; i < n; i++)
      if (gb_nvml_device_by_index(i) == d) {
        t->gpu[i].xid_count++;
        t->gpu[i].last_xid = xid;
      }
  }
}

static bool same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Reads a results file that a run may be appending to: up to its last
 * complete row (a last line still being written is not an error there). */
static gb_err read_live(const char *path, gb_results *res) {
  FILE *f = fopen(path, "rb");
  if (!f) return gb_fail(GB_E_IO, "%s: cannot open: %s", path, strerror(errno));
  gb_buf b = {0};
  char chunk[65536];
  size_t n;
  gb_err e = GB_OK;
  while (!e && (n = fread(chunk, 1, sizeof chunk, f)) > 0) e = gb_buf_append(&b, chunk, n);
  if (!e && ferror(f)) e = gb_fail(GB_E_IO, "%s: read failed", path);
  fclose(f);
  if (!e) e = gb_results_read_mem(path, b.data ? b.data : "", gb_csv_complete_prefix(b.data ? b.data : "", b.len), res);
  gb_buf_free(&b);
  return e;
}

static void watch_results(gb_monitor *m) {
  if (!m->o.results) return;
  struct stat st;
  if (stat(m->o.results, &st) != 0) {
    if (m->results_ok || !m->results_err[0] || m->results_seen) m->results_failures++;
    m->results_ok = false;
    m->results_seen = false;
    snprintf(m->results_err, sizeof m->results_err, "%s: %s", m->o.results, strerror(errno));
    return;
  }
  if (m->results_seen && m->results_ok && same_file(&st, &m->results_st)) return;
  bool changed = !m->results_seen || !same_file(&st, &m->results_st);
  m->results_st = st;
  m->results_seen = true;
  if (!changed && !m->results_ok) return; /* the same bad file: no new read */
  m->results_reads++;
  gb_results res = {0};
  gb_buf text = {0};
  size_t n = 0;
  gb_err e = S_ISREG(st.st_mode) ? read_live(m->o.results, &res)
                                 : gb_fail(GB_E_IO, "%s: not a regular file", m->o.results);
  if (!e) e = gb_prom_export_results(&res, &text, &n);
  if (!e) {
    gb_buf_free(&m->results_text);
    m->results_text = text;
    m->results_rows = res.nrows;
    m->results_ok = true;
    m->results_err[0] = '\0';
    m->results_changed_at = now_s();
  } else {
    gb_buf_free(&text);
    m->results_ok = false;
    m->results_failures++;
    snprintf(m->results_err, sizeof m->results_err, "%s", gb_errmsg());
  }
  gb_results_free(&res);
}

static gb_err render(gb_monitor *m, double took, gb_buf *out) {
  gb_err e = gb_monitor_render_telemetry(&m->tel, out);
  gb_prom_label ver[] = {{"version", gb_version()}, {"git_sha", gb_git_sha()}};
  if (!e) e = gb_prom_put_family(out, "gpubench_monitor_info", "gauge", "the gpubench monitor serving these metrics (value 1)");
  if (!e) e = gb_prom_put_sample(out, "gpubench_monitor_info", ver, 2, 1);
  if (!e) e = gb_prom_put_family(out, "gpubench_monitor_sample_duration_seconds", "gauge", "time the last NVML sample and results check took");
  if (!e) e = gb_prom_put_sample(out, "gpubench_monitor_sample_duration_seconds", NULL, 0, took);
  if (!e) e = gb_prom_put_family(out, "gpubench_monitor_last_sample_timestamp_seconds", "gauge", "when the page was last rendered");
  if (!e) e = gb_prom_put_sample(out, "gpubench_monitor_last_sample_timestamp_seconds", NULL, 0, now_s());
  if (m->o.results && !e) {
    gb_prom_label L[] = {{"file", m->o.results}, {"error", m->results_ok ? NULL : m->results_err}};
    e = gb_prom_put_family(out, "gpubench_results_up", "gauge",
                           "1 when the watched results file was read; 0 with the error (the last good figures stay)");
    if (!e) e = gb_prom_put_sample(out, "gpubench_results_up", L, 2, m->results_ok ? 1 : 0);
    if (!e) e = gb_prom_put_family(out, "gpubench_results_rows", "gauge", "rows in the last good read of the results file");
    if (!e) e = gb_prom_put_sample(out, "gpubench_results_rows", L, 1, (double)m->results_rows);
    if (!e) e = gb_prom_put_family(out, "gpubench_results_reads_total", "counter", "reads of the results file (on change)");
    if (!e) e = gb_prom_put_sample(out, "gpubench_results_reads_total", L, 1, (double)m->results_reads);
    if (!e) e = gb_prom_put_family(out, "gpubench_results_read_failures_total", "counter", "reads of the results file that failed");
    if (!e) e = gb_prom_put_sample(out, "gpubench_results_read_failures_total", L, 1, (double)m->results_failures);
    if (!e && m->results_changed_at > 0) {
      e = gb_prom_put_family(out, "gpubench_results_last_read_timestamp_seconds", "gauge", "when the figures below were read");
      if (!e) e = gb_prom_put_sample(out, "gpubench_results_last_read_timestamp_seconds", L, 1, m->results_changed_at);
    }
  }
  if (!e && m->results_text.len) e = gb_buf_append(out, m->results_text.data, m->results_text.len);
  return e;
}

static void sample_once(gb_monitor *m) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  sample_nvml(m);
  watch_results(m);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double took = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
  gb_buf page = {0};
  if (render(m, took, &page) != GB_OK) {
    gb_buf_free(&page);
    return; /* out of memory: the old page stays */
  }
  pthread_mutex_lock(&m->mu);
  free(m->page);
  m->page = page.data;
  m->page_len = page.len;
  pthread_mutex_unlock(&m->mu);
}

static void *sampler_main(void *arg) {
  gb_monitor *m = arg;
  pthread_mutex_lock(&m->mu);
  while (!m->stop) {
    pthread_mutex_unlock(&m->mu);
    sample_once(m);
    pthread_mutex_lock(&m->mu);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long long ns = until.tv_nsec + (long long)m->o.interval_ms * 1000000LL;
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    while (!m->stop && pthread_cond_timedwait(&m->cv, &m->mu, &until) == 0) {
    }
  }
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

/* ---- HTTP ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, const char *body, size_t len) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  enum MHD_Result ok = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
  (void)version;
  (void)upload;
  gb_monitor *m = cls;
  if (!*state) { /* first call: headers only */
    *state = (void *)1;
    return MHD_YES;
  }
  if (*upload_size) { /* a body we do not want: drop it */
    *upload_size = 0;
    return MHD_YES;
  }
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
    static const char msg[] = "only GET\n";
    return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", msg, sizeof msg - 1);
  }
  if (strcmp(url, "/metrics") == 0) {
    unsigned long long n = atomic_fetch_add(&m->scrapes, 1) + 1;
    char tail[256];
    int tl = snprintf(tail, sizeof tail,
                      "# HELP gpubench_monitor_scrapes_total /metrics requests served\n"
                      "# TYPE gpubench_monitor_scrapes_total counter\ngpubench_monitor_scrapes_total %llu\n",
                      n);
    pthread_mutex_lock(&m->mu);
    size_t len = m->page_len;
    char *body = malloc(len + (size_t)tl + 1);
    if (body) {
      if (len) memcpy(body, m->page, len);
      memcpy(body + len, tail, (size_t)tl);
    }
    pthread_mutex_unlock(&m->mu);
    if (!body) return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(len + (size_t)tl, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
      free(body);
      return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
  }
  if (strcmp(url, "/healthz") == 0) {
    static const char ok[] = "ok\n";
    return reply(c, MHD_HTTP_OK, "text/plain", ok, sizeof ok - 1);
  }
  if (strcmp(url, "/") == 0) {
    static const char idx[] = "<html><body><h1>gpubench monitor</h1><p><a href=\"/metrics\">/metrics</a> "
                              "<a href=\"/healthz\">/healthz</a></p></body></html>\n";
    return reply(c, MHD_HTTP_OK, "text/html", idx, sizeof idx - 1);
  }
  static const char nf[] = "not found: try /metrics or /healthz\n";
  return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", nf, sizeof nf - 1);
}

/* "ADDR:PORT", "[V6]:PORT" or "PORT" -> a bound, listening socket */
static gb_err listen_on(const char *spec, int *fd_out, int *port_out) {
  char host[128] = "127.0.0.1", port[16];
  const char *colon = strrchr(spec, ':');
  if (!colon) {
    if (strlen(spec) >= sizeof port) return gb_fail(GB_E_USAGE, "--listen: not ADDR:PORT: \"%s\"", spec);
    strcpy(port, spec);
  } else {
    size_t hl = (size_t)(colon - spec);
    if (hl >= sizeof host || strlen(colon + 1) >= sizeof port)
      return gb_fail(GB_E_USAGE, "--listen: not ADDR:PORT: \"%s\"", spec);
    memcpy(host, spec, hl);
    host[hl] = '\0';
    strcpy(port, colon + 1);
    if (host[0] == '[' && hl >= 2 && host[hl - 1] == ']') {
      memmove(host, host + 1, hl - 2);
      host[hl - 2] = '\0';
    }
    if (!host[0]) return gb_fail(GB_E_USAGE, "--listen: no address in \"%s\"", spec);
  }
  char *end;
  long p = strtol(port, &end, 10);
  if (!port[0] || *end || p < 0 || p > 65535)
    return gb_fail(GB_E_USAGE, "--listen: not a port from 0 to 65535: \"%s\"", port);
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE}, *ai;
  int rc = getaddrinfo(host, port, &hints, &ai);
  if (rc != 0) return gb_fail(GB_E_USAGE, "--listen: \"%s\" is not a numeric IPv4 or IPv6 address", host);
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    freeaddrinfo(ai);
    return gb_fail(GB_E_IO, "--listen %s: socket: %s", spec, strerror(errno));
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 256) != 0) {
    int err = errno;
    close(fd);
    freeaddrinfo(ai);
    return gb_fail(GB_E_IO, "cannot listen on %s: %s%s", spec, strerror(err),
                   err == EADDRINUSE ? " (another program has it: pick another port with --listen)" : "");
  }
  freeaddrinfo(ai);
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  *port_out = (int)p;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
    *port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
  *fd_out = fd;
  return GB_OK;
}

/* ---- the per-connection deadline ---- */

static void notify_conn(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode code) {
  gb_monitor *m = cls;
  pthread_mutex_lock(&m->cmu);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    for (size_t i = 0; ci && i < m->nslots; i++)
      if (!m->conns[i].c) {
        m->conns[i] = (conn_slot){c, ci->connect_fd, now_s()};
        *ctx = &m->conns[i];
        break;
      }
  } else if (*ctx) { /* closed: libmicrohttpd closes the socket after telling */
    ((conn_slot *)*ctx)->c = NULL;
    *ctx = NULL;
  }
  pthread_mutex_unlock(&m->cmu);
}

/* Every quarter of the deadline (at most 250 ms), shuts down the socket of
 * each connection older than the deadline: libmicrohttpd then sees the end
 * of the stream and closes it, whatever the client trickles. */
static void *watchdog_main(void *arg) {
  gb_monitor *m = arg;
  double tick = m->o.deadline_s / 4.0 < 0.25 ? m->o.deadline_s / 4.0 : 0.25;
  pthread_mutex_lock(&m->mu);
  while (!m->stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)(tick * 1e9);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&m->cv, &m->mu, &until);
    if (m->stop) break;
    double now = now_s();
    pthread_mutex_lock(&m->cmu);
    for (size_t i = 0; i < m->nslots; i++) {
      conn_slot *c = &m->conns[i];
      if (c->c && c->fd >= 0 && now - c->start > m->o.deadline_s) {
        shutdown(c->fd, SHUT_RDWR);
        c->fd = -1; /* once */
        atomic_fetch_add(&m->cut, 1);
      }
    }
    pthread_mutex_unlock(&m->cmu);
  }
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

gb_err gb_monitor_start(const gb_monitor_opts *o, gb_monitor **out) {
  *out = NULL;
  gb_monitor *m = calloc(1, sizeof *m);
  if (!m) return gb_fail(GB_E_NOMEM, "out of memory");
  m->o = *o;
  m->fd = -1;
  if (m->o.deadline_s <= 0) m->o.deadline_s = gb_monitor_defaults().deadline_s;
  m->nslots = (size_t)(o->max_connections > 0 ? o->max_connections : 1) + 16;
  m->conns = calloc(m->nslots, sizeof *m->conns);
  if (!m->conns) {
    free(m);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  pthread_mutex_init(&m->cmu, NULL);
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  gb_err e = listen_on(o->listen, &m->fd, &m->port);
  if (e) {
    gb_monitor_stop(m);
    return e;
  }
  sample_once(m); /* a page before the first scrape */
  if (pthread_create(&m->sampler, NULL, sampler_main, m) != 0) {
    gb_monitor_stop(m);
    return gb_fail(GB_E_INTERNAL, "cannot start the sampler thread");
  }
  m->sampler_started = true;
  if (pthread_create(&m->watchdog, NULL, watchdog_main, m) != 0) {
    gb_monitor_stop(m);
    return gb_fail(GB_E_INTERNAL, "cannot start the connection watchdog thread");
  }
  m->watchdog_started = true;
  unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
  /* MHD_OPTION_PER_IP_CONNECTION_LIMIT 0 is libmicrohttpd's own "no limit" */
  m->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, m, MHD_OPTION_LISTEN_SOCKET, m->fd,
                          MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)(o->max_per_client > 0 ? o->max_per_client : 0),
                          MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(o->threads > 1 ? o->threads : 1),
                          MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
                          MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->timeout_s,
                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_NOTIFY_CONNECTION,
                          notify_conn, m, MHD_OPTION_END);
  if (!m->d) {
    gb_monitor_stop(m);
    return gb_fail(GB_E_IO, "cannot start the HTTP server on %s (libmicrohttpd)", o->listen);
  }
  *out = m;
  return GB_OK;
}

int gb_monitor_port(const gb_monitor *m) { return m->port; }

void gb_monitor_stop(gb_monitor *m) {
  if (!m) return;
  if (m->d) MHD_stop_daemon(m->d); /* closes the listening socket too */
  else if (m->fd >= 0) close(m->fd);
  if (m->sampler_started) {
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->sampler, NULL);
  }
  if (m->watchdog_started) pthread_join(m->watchdog, NULL);
  free(m->page);
  gb_buf_free(&m->results_text);
  pthread_mutex_destroy(&m->mu);
  pthread_cond_destroy(&m->cv);
  pthread_mutex_destroy(&m->cmu);
  free(m->conns);
  free(m);
}
