/* Tests for gb_monitor: the telemetry page, and the HTTP server on
 * 127.0.0.1 under abuse: a port in use, a bad address, an unreadable
 * results file, one replaced or truncated while watched, 200 concurrent
 * scrapes, and clients that never read or never finish their request. NVML
 * is disabled (no_nvml) so that the tests mean the same with or without a
 * GPU. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gb_monitor.h"
#include "testutil.h"

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

static uint32_t g_source; /* the client's loopback address (host order), 0: any */

static int connect_to(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct sockaddr_in src = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(g_source)};
  if (fd >= 0 && g_source && bind(fd, (struct sockaddr *)&src, sizeof src) != 0) {
    close(fd);
    return -1;
  }
  if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* One request; returns the status code (0 on failure) and the body in *body
 * (malloc'd) when body is not NULL. Bounded by 5 s. */
static int http(int port, const char *method, const char *path, char **body) {
  int fd = connect_to(port);
  if (fd < 0) return 0;
  char req[256];
  int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", method, path);
  if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
    close(fd);
    return 0;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  double end = mono() + 5;
  while (mono() < end) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 500) <= 0) continue;
    if (len + 4096 > cap) buf = realloc(buf, cap *= 2);
    ssize_t r = recv(fd, buf + len, cap - len - 1, 0);
    if (r <= 0) break;
    len += (size_t)r;
  }
  close(fd);
  buf[len] = '\0';
  int code = 0;
  sscanf(buf, "HTTP/1.%*d %d", &code);
  if (body) {
    char *b = strstr(buf, "\r\n\r\n");
    *body = strdup(b ? b + 4 : "");
  }
  free(buf);
  return code;
}

/* Scrapes until the page contains want (or 5 s pass); true when it did. */
static bool wait_for(int port, const char *want) {
  for (int i = 0; i < 100; i++) {
    char *b = NULL;
    bool ok = http(port, "GET", "/metrics", &b) == 200 && strstr(b, want);
    free(b);
    if (ok) return true;
    usleep(50000);
  }
  return false;
}

static const char k_header[] =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,driver,cuda,gpu_count,benchmark,case,dtype,m,n,k,bytes,"
    "metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,rep,variant,peak\n";

static void write_results(const char *path, double tflops) {
  char buf[2048];
  int n = snprintf(buf, sizeof buf,
                   "%s1,r%g,2026-12-02T10:00:00Z,h,H200-SXM-141GB,NVIDIA H200,580,13.0,1,gemm,gemm,bf16,4096,4096,4096,,"
                   "tflops,TFLOP/s,%g,10,,,,ok,,,,,,0,,989.4\n",
                   k_header, tflops, tflops);
  ck_assert_int_eq(gb_test_write(path, buf, (size_t)n), 0);
}

static gb_monitor *start(const char *results, int interval_ms) {
  gb_monitor_opts o = gb_monitor_defaults();
  o.listen = "127.0.0.1:0";
  o.results = results;
  o.interval_ms = interval_ms;
  o.no_nvml = true;
  o.timeout_s = 2;
  gb_monitor *m = NULL;
  gb_err e = gb_monitor_start(&o, &m);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  return m;
}

START_TEST(test_render_telemetry) {
  gb_telemetry t;
  memset(&t, 0, sizeof t);
  t.up = true;
  strcpy(t.driver, "580.1");
  t.ngpus = 1;
  gb_gpu_sample *g = &t.gpu[0];
  strcpy(g->uuid, "GPU-1");
  strcpy(g->name, "NVIDIA H200");
  g->has_util = g->has_mem = g->has_temp = g->has_power = g->has_sm = g->has_reasons = g->has_ecc = true;
  g->util_gpu_pct = 97;
  g->mem_used = 1024;
  g->mem_total = 4096;
  g->temp_c = 71;
  g->power_w = 650.5;
  g->sm_mhz = 1980;
  g->reasons = 0x4; /* sw power cap */
  g->ecc_uncorrected = 2;
  gb_buf b = {0};
  ck_assert_int_eq(gb_monitor_render_telemetry(&t, &b), GB_OK);
  gb_buf_append(&b, "", 1);
  const char *s = b.data;
  ck_assert_ptr_nonnull(strstr(s, "gpubench_up 1\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_info{gpu=\"0\",uuid=\"GPU-1\",name=\"NVIDIA H200\",driver=\"580.1\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-1\"} 0.97\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_memory_used_bytes{gpu=\"0\",uuid=\"GPU-1\"} 1024\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_temperature_celsius{gpu=\"0\",uuid=\"GPU-1\"} 71\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_power_watts{gpu=\"0\",uuid=\"GPU-1\"} 650.5\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_sm_clock_hertz{gpu=\"0\",uuid=\"GPU-1\"} 1.98e+09\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_clock_event_active{gpu=\"0\",uuid=\"GPU-1\",reason=\"sw_power_cap\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_clock_event_active{gpu=\"0\",uuid=\"GPU-1\",reason=\"hw_thermal\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(s, "# TYPE gpubench_gpu_ecc_errors_total counter\n"));
  ck_assert_ptr_nonnull(strstr(s, "gpubench_gpu_ecc_errors_total{gpu=\"0\",uuid=\"GPU-1\",type=\"uncorrected\"} 2\n"));
  ck_assert_ptr_null(strstr(s, "power_limit")); /* not reported: not written */
  gb_buf_free(&b);
  memset(&t, 0, sizeof t);
  strcpy(t.reason, "no \"driver\"");
  ck_assert_int_eq(gb_monitor_render_telemetry(&t, &b), GB_OK);
  gb_buf_append(&b, "", 1);
  ck_assert_ptr_nonnull(strstr(b.data, "gpubench_up{reason=\"no \\\"driver\\\"\"} 0\n"));
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_serves_pages) {
  const char *dir = gb_test_tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/r.csv", dir);
  write_results(path, 600);
  gb_monitor *m = start(path, 1000);
  int port = gb_monitor_port(m);
  ck_assert_int_gt(port, 0);
  char *b = NULL;
  double t0 = mono();
  ck_assert_int_eq(http(port, "GET", "/metrics", &b), 200);
  double took = mono() - t0;
  ck_assert_msg(took < 0.1, "a scrape took %.3f s", took);
  ck_assert_ptr_nonnull(strstr(b, "gpubench_up{reason=\"NVML disabled (--no-nvml)\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(b, "gpubench_gemm_throughput_flops_per_second{"));
  ck_assert_ptr_nonnull(strstr(b, "} 6e+14\n"));
  ck_assert_ptr_nonnull(strstr(b, "gpubench_results_up{file=\""));
  ck_assert_ptr_nonnull(strstr(b, "gpubench_monitor_scrapes_total 1\n"));
  free(b);
  ck_assert_int_eq(http(port, "GET", "/healthz", &b), 200);
  ck_assert_str_eq(b, "ok\n");
  free(b);
  ck_assert_int_eq(http(port, "GET", "/nope", NULL), 404);
  ck_assert_int_eq(http(port, "DELETE", "/metrics", NULL), 405);
  gb_monitor_stop(m);
  ck_assert_int_eq(http(port, "GET", "/healthz", NULL), 0); /* stopped: nothing listens */
}
END_TEST

START_TEST(test_port_in_use) {
  gb_monitor *m = start(NULL, 1000);
  char spec[64];
  snprintf(spec, sizeof spec, "127.0.0.1:%d", gb_monitor_port(m));
  gb_monitor_opts o = gb_monitor_defaults();
  o.listen = spec;
  o.no_nvml = true;
  gb_monitor *m2 = NULL;
  ck_assert_int_eq(gb_monitor_start(&o, &m2), GB_E_IO);
  ck_assert_ptr_null(m2);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "Address already in use"));
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), spec));
  gb_monitor_stop(m);
  static const char *const bad[] = {"localhost:1", "127.0.0.1:70000", "127.0.0.1:", "127.0.0.1:x", ":80"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o.listen = bad[i];
    ck_assert_msg(gb_monitor_start(&o, &m2) == GB_E_USAGE, "%s accepted", bad[i]);
  }
}
END_TEST

START_TEST(test_results_unreadable) {
  const char *dir = gb_test_tmpdir();
  gb_monitor *m = start(dir, 50); /* a directory */
  int port = gb_monitor_port(m);
  ck_assert(wait_for(port, "not a regular file\"} 0\n"));
  gb_monitor_stop(m);
  char path[512];
  snprintf(path, sizeof path, "%s/absent.csv", dir);
  m = start(path, 50);
  ck_assert(wait_for(gb_monitor_port(m), "absent.csv: No such file or directory\"} 0\n"));
  /* a file that is not a results file */
  snprintf(path, sizeof path, "%s/bad.csv", dir);
  ck_assert_int_eq(gb_test_write(path, "a,b\n1,2\n", 8), 0);
  gb_monitor_stop(m);
  m = start(path, 50);
  ck_assert(wait_for(gb_monitor_port(m), "gpubench_results_up{file=\""));
  char *b = NULL;
  ck_assert_int_eq(http(gb_monitor_port(m), "GET", "/metrics", &b), 200);
  ck_assert_ptr_nonnull(strstr(b, "bad.csv"));
  ck_assert_ptr_nonnull(strstr(b, "\"} 0\n"));
  free(b);
  gb_monitor_stop(m);
}
END_TEST

START_TEST(test_results_replaced_and_truncated) {
  const char *dir = gb_test_tmpdir();
  char path[512], tmp[512];
  snprintf(path, sizeof path, "%s/r.csv", dir);
  snprintf(tmp, sizeof tmp, "%s/r.tmp", dir);
  write_results(path, 600);
  gb_monitor *m = start(path, 50);
  int port = gb_monitor_port(m);
  ck_assert(wait_for(port, "} 6e+14\n"));
  /* replaced by rename */
  write_results(tmp, 800);
  ck_assert_int_eq(rename(tmp, path), 0);
  ck_assert(wait_for(port, "} 8e+14\n"));
  /* truncated: results_up 0, the last good figures stay */
  ck_assert_int_eq(truncate(path, 0), 0);
  ck_assert(wait_for(port, "r.csv\",error=\""));
  ck_assert(wait_for(port, "} 8e+14\n"));
  /* cut in the middle of a row */
  write_results(path, 900);
  ck_assert(wait_for(port, "} 9e+14\n"));
  ck_assert_int_eq(truncate(path, (off_t)strlen(k_header) + 40), 0);
  ck_assert(wait_for(port, "gpubench_results_read_failures_total{file=\""));
  /* and written again */
  write_results(path, 700);
  ck_assert(wait_for(port, "} 7e+14\n"));
  ck_assert(wait_for(port, "r.csv\"} 1\n"));
  /* deleted */
  ck_assert_int_eq(unlink(path), 0);
  ck_assert(wait_for(port, "No such file or directory\"} 0\n"));
  gb_monitor_stop(m);
}
END_TEST

/* A run appending to the watched file: a partial last line is read up to
 * the last complete row, not counted as a failed read. */
START_TEST(test_results_partial_last_line) {
  const char *dir = gb_test_tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/r.csv", dir);
  write_results(path, 600);
  size_t n;
  char *d = gb_test_slurp(path, &n);
  gb_buf b = {0};
  gb_buf_append(&b, d, n);
  gb_buf_append(&b, d + strlen(k_header), 30); /* half of a second row */
  ck_assert_int_eq(gb_test_write(path, b.data, b.len), 0);
  gb_monitor *m = start(path, 50);
  int port = gb_monitor_port(m);
  ck_assert(wait_for(port, "} 6e+14\n"));
  ck_assert(wait_for(port, "gpubench_results_read_failures_total{file=\"" ));
  char *body = NULL;
  ck_assert_int_eq(http(port, "GET", "/metrics", &body), 200);
  char *f = strstr(body, "\ngpubench_results_read_failures_total{"), *v = f ? strstr(f, "} ") : NULL;
  ck_assert_msg(v && v[2] == '0' && v[3] == '\n', "%s", body);
  ck_assert_ptr_null(strstr(body, "error=\""));
  free(body);
  free(d);
  gb_buf_free(&b);
  gb_monitor_stop(m);
}
END_TEST

typedef struct scrape {
  int port, code;
  double took;
} scrape;

static void *scrape_main(void *arg) {
  scrape *s = arg;
  double t0 = mono();
  s->code = http(s->port, "GET", "/metrics", NULL);
  s->took = mono() - t0;
  return NULL;
}

START_TEST(test_200_concurrent_scrapes) {
  const char *dir = gb_test_tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/r.csv", dir);
  write_results(path, 600);
  gb_monitor *m = start(path, 100);
  enum { N = 200, ROUNDS = 5 };
  static scrape s[N];
  static pthread_t t[N];
  long rss0 = 0, rss1 = 0;
  double worst = 0;
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < N; i++) {
      s[i] = (scrape){.port = gb_monitor_port(m)};
      ck_assert_int_eq(pthread_create(&t[i], NULL, scrape_main, &s[i]), 0);
    }
    int ok = 0;
    for (int i = 0; i < N; i++) {
      pthread_join(t[i], NULL);
      ok += s[i].code == 200;
      if (s[i].took > worst) worst = s[i].took;
    }
    ck_assert_int_eq(ok, N);
    if (round == 0) rss0 = rss_kb();
  }
  rss1 = rss_kb();
  fprintf(stderr, "check_monitor: %d x %d concurrent scrapes, slowest %.1f ms, RSS %ld -> %ld kB\n", ROUNDS, N,
          worst * 1e3, rss0, rss1);
#ifndef __SANITIZE_ADDRESS__
  ck_assert_msg(rss1 - rss0 < 16 * 1024, "RSS grew by %ld kB", rss1 - rss0);
#else
  /* ASan keeps freed memory in quarantine (256 MB by default): RSS grows
   * without a leak there; its leak checker judges this build instead */
  (void)rss0, (void)rss1;
#endif
  ck_assert_msg(worst < 3.0, "slowest scrape %.3f s", worst);
  gb_monitor_stop(m);
}
END_TEST

START_TEST(test_clients_that_never_read) {
  gb_monitor *m = start(NULL, 1000);
  int port = gb_monitor_port(m);
  enum { SILENT = 50, NOREAD = 100 };
  int fds[SILENT + NOREAD];
  long rss0 = rss_kb();
  /* connect and say nothing */
  for (int i = 0; i < SILENT; i++) ck_assert_int_ge(fds[i] = connect_to(port), 0);
  /* ask for /metrics many times over and never read the answers */
  const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = SILENT; i < SILENT + NOREAD; i++) {
    ck_assert_int_ge(fds[i] = connect_to(port), 0);
    for (int k = 0; k < 20; k++) {
      ssize_t w = send(fds[i], req, sizeof req - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w <= 0) break;
    }
  }
  /* others are still served, fast */
  for (int k = 0; k < 10; k++) {
    double t0 = mono();
    ck_assert_int_eq(http(port, "GET", "/metrics", NULL), 200);
    ck_assert_msg(mono() - t0 < 0.5, "a scrape took %.3f s beside idle clients", mono() - t0);
  }
  long rss1 = rss_kb();
#ifndef __SANITIZE_ADDRESS__
  ck_assert_msg(rss1 - rss0 < 16 * 1024, "RSS grew by %ld kB", rss1 - rss0);
#else
  /* ASan keeps freed memory in quarantine (256 MB by default): RSS grows
   * without a leak there; its leak checker judges this build instead */
  (void)rss0, (void)rss1;
#endif
  /* the idle ones are closed by the server after its timeout (2 s here) */
  double end = mono() + 6;
  struct pollfd p = {.fd = fds[0], .events = POLLIN};
  char c;
  bool closed = false;
  while (!closed && mono() < end)
    if (poll(&p, 1, 200) > 0) closed = recv(fds[0], &c, 1, 0) == 0;
  ck_assert_msg(closed, "an idle connection was not closed by the timeout");
  for (int i = 0; i < SILENT + NOREAD; i++) close(fds[i]);
  ck_assert_int_eq(http(port, "GET", "/healthz", NULL), 200);
  gb_monitor_stop(m);
}
END_TEST

/* Slowloris: clients that trickle a header byte every 200 ms (never idle for
 * the 2-s timeout) fill every connection slot. Each is cut at the 2-s
 * deadline, so a normal scrape succeeds within the bound. Before, the slots
 * stayed held for as long as the clients trickled: no scrape got through. */
typedef struct trickle {
  int fds[8];
  int n;
  double until;
  int cut; /* connections the server closed */
} trickle;

static void *trickle_main(void *arg) {
  trickle *t = arg;
  const char hdr[] = "GET /metrics HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  bool dead[8] = {0};
  for (size_t k = 0; mono() < t->until; k++) {
    for (int i = 0; i < t->n; i++) {
      if (dead[i]) continue;
      if (send(t->fds[i], hdr + k % (sizeof hdr - 1), 1, MSG_NOSIGNAL) != 1) dead[i] = true, t->cut++;
    }
    usleep(200000);
  }
  return NULL;
}

START_TEST(test_slowloris_deadline) {
  gb_monitor_opts o = gb_monitor_defaults();
  o.listen = "127.0.0.1:0";
  o.no_nvml = true;
  o.max_connections = 8;
  o.timeout_s = 2;
  o.deadline_s = 2;
  o.threads = 2;
  gb_monitor *m = NULL;
  ck_assert_msg(gb_monitor_start(&o, &m) == GB_OK, "%s", gb_errmsg());
  int port = gb_monitor_port(m);
  trickle t = {.n = 8, .until = mono() + 8};
  for (int i = 0; i < t.n; i++) ck_assert_int_ge(t.fds[i] = connect_to(port), 0);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, trickle_main, &t), 0);
  usleep(300000); /* every slot held */
  double t0 = mono();
  int code = 0;
  while (code != 200 && mono() - t0 < 6) {
    code = http(port, "GET", "/metrics", NULL);
    if (code != 200) usleep(100000);
  }
  double took = mono() - t0;
  pthread_join(th, NULL);
  for (int i = 0; i < t.n; i++) close(t.fds[i]);
  gb_monitor_stop(m);
  ck_assert_msg(code == 200, "no scrape got through in %.1f s while 8 clients trickled", took);
  ck_assert_msg(took < o.deadline_s + 1.5, "the scrape took %.1f s with a %d-s deadline", took, o.deadline_s);
  ck_assert_int_eq(t.cut, t.n);
}
END_TEST

/* --max-per-client: 4 silent clients from 127.0.0.1 take that address's 4
 * slots; a fifth from it is refused at once, while a scrape from 127.0.0.2
 * is served. */
START_TEST(test_max_per_client) {
  gb_monitor_opts o = gb_monitor_defaults();
  o.listen = "0.0.0.0:0";
  o.no_nvml = true;
  o.max_per_client = 4;
  gb_monitor *m = NULL;
  ck_assert_msg(gb_monitor_start(&o, &m) == GB_OK, "%s", gb_errmsg());
  int port = gb_monitor_port(m), fds[4];
  g_source = 0x7F000001;
  for (int i = 0; i < 4; i++) ck_assert_int_ge(fds[i] = connect_to(port), 0);
  usleep(200000);
  int from_same = http(port, "GET", "/healthz", NULL);
  g_source = 0x7F000002;
  int from_other = http(port, "GET", "/healthz", NULL);
  g_source = 0;
  for (int i = 0; i < 4; i++) close(fds[i]);
  gb_monitor_stop(m);
  ck_assert_int_eq(from_same, 0);
  ck_assert_int_eq(from_other, 200);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("monitor");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_render_telemetry);
  tcase_add_test(tc, test_serves_pages);
  tcase_add_test(tc, test_port_in_use);
  tcase_add_test(tc, test_results_unreadable);
  tcase_add_test(tc, test_results_replaced_and_truncated);
  tcase_add_test(tc, test_results_partial_last_line);
  tcase_add_test(tc, test_200_concurrent_scrapes);
  tcase_add_test(tc, test_clients_that_never_read);
  tcase_add_test(tc, test_slowloris_deadline);
  tcase_add_test(tc, test_max_per_client);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
