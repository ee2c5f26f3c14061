/* Tests for gb_prom: label escaping, names, samples, times, the results
 * export (newest run per machine, base units, medians, peaks) and the
 * Pushgateway client against a one-shot server on 127.0.0.1, behind a
 * name lookup made slow on purpose. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gb_prom.h"

/* push options with a deadline of MS */
#define PO(ms) (&(gb_push_opts){.timeout_ms = (ms)})
#include "testutil.h"

/* This program's getaddrinfo, which gb_core (linked in statically) calls
 * instead of the C library's: with g_dns_delay_ms set, every lookup first
 * waits that long, as behind a DNS server that does not answer. */
static int g_dns_delay_ms;
static int g_dns_errno; /* set: every lookup fails with EAI_SYSTEM and this errno */

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
  static int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
  if (!real) {
    void *sym = dlsym(RTLD_NEXT, "getaddrinfo");
    memcpy(&real, &sym, sizeof real);
  }
  if (!real) return EAI_SYSTEM;
  if (g_dns_delay_ms > 0) {
    struct timespec ts = {g_dns_delay_ms / 1000, (long)(g_dns_delay_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  if (g_dns_errno) {
    errno = g_dns_errno;
    return EAI_SYSTEM;
  }
  return real(node, service, hints, res);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *text(gb_buf *b) {
  gb_buf_append(b, "", 1);
  b->len--;
  return b->data;
}

START_TEST(test_label_escape) {
  gb_buf b = {0};
  ck_assert_int_eq(gb_prom_put_label_value(&b, "a\\b\"c\nd"), GB_OK);
  ck_assert_str_eq(text(&b), "a\\\\b\\\"c\\nd");
  b.len = 0;
  ck_assert_int_eq(gb_prom_put_label_value(&b, "x\xff" "y"), GB_OK); /* not UTF-8 */
  ck_assert_str_eq(text(&b), "x\xEF\xBF\xBDy");
  b.len = 0;
  ck_assert_int_eq(gb_prom_put_label_value(&b, "H200 \xc3\xa9"), GB_OK); /* UTF-8 stays */
  ck_assert_str_eq(text(&b), "H200 \xc3\xa9");
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_names) {
  char n[32];
  gb_prom_name(n, sizeof n, "algbw_gbps");
  ck_assert_str_eq(n, "algbw_gbps");
  gb_prom_name(n, sizeof n, "TFLOP/s--x");
  ck_assert_str_eq(n, "tflop_s_x");
  gb_prom_name(n, sizeof n, "8bit");
  ck_assert_str_eq(n, "_8bit");
  gb_prom_name(n, sizeof n, "");
  ck_assert_str_eq(n, "_");
  gb_prom_name(n, 5, "abcdefgh");
  ck_assert_str_eq(n, "abcd");
}
END_TEST

START_TEST(test_sample_and_family) {
  gb_buf b = {0};
  gb_prom_label L[] = {{"a", "1"}, {"empty", ""}, {"none", NULL}, {"b", "q\""}};
  ck_assert_int_eq(gb_prom_put_family(&b, "m", "gauge", "line\\one\ntwo"), GB_OK);
  ck_assert_int_eq(gb_prom_put_sample(&b, "m", L, 4, 2.5), GB_OK);
  ck_assert_int_eq(gb_prom_put_sample(&b, "m", NULL, 0, NAN), GB_OK);
  ck_assert_int_eq(gb_prom_put_sample(&b, "m", NULL, 0, -INFINITY), GB_OK);
  ck_assert_str_eq(text(&b), "# HELP m line\\\\one\\ntwo\n# TYPE m gauge\nm{a=\"1\",b=\"q\\\"\"} 2.5\nm NaN\nm -Inf\n");
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_parse_time) {
  double t;
  ck_assert(gb_prom_parse_time("1970-01-01T00:00:10Z", &t));
  ck_assert_double_eq(t, 10);
  ck_assert(gb_prom_parse_time("2026-12-02T13:40:24.5Z", &t));
  ck_assert_double_eq(t, 1796218824.5);
  ck_assert(!gb_prom_parse_time("2026-12-02 13:40:24", &t));
  ck_assert(!gb_prom_parse_time("2026-13-02T13:40:24Z", &t));
  ck_assert(!gb_prom_parse_time("", &t));
}
END_TEST

static const char k_header[] =
    "schema,run_id,timestamp,host,gpu_type,gpu_name,driver,cuda,gpu_count,benchmark,case,dtype,m,n,k,bytes,"
    "metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,rep,variant,peak\n";

static gb_err read_rows(const char *rows, gb_results *res) {
  size_t n = strlen(k_header) + strlen(rows);
  char *d = malloc(n + 1);
  strcpy(d, k_header);
  strcat(d, rows);
  gb_err e = gb_results_read_mem("t.csv", d, n, res);
  free(d);
  return e;
}

/* The run's GPU (results' gpu_uuid column) is a label of gpubench_run_info,
 * so a dashboard can join a figure to the card's DCGM series; the figures'
 * own label sets are unchanged. */
START_TEST(test_run_info_gpu_uuid) {
  static const char csv[] =
      "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,"
      "metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,gpu_uuid\n"
      "1,r1,2026-12-04T13:33:29Z,a,H200-SXM-141GB,NVIDIA H200,1,580.159.04,13.0,fma,fp32,fp32,,,,,tflops,TFLOP/s,"
      "63.8,10,,,,ok,,,,,,GPU-75e8ae09-353b-0202-2cef-15ff61a0f92e\n";
  gb_results res = {0};
  ck_assert_msg(gb_results_read_mem("u.csv", csv, strlen(csv), &res) == GB_OK, "%s", gb_errmsg());
  gb_buf b = {0};
  size_t n = 0;
  ck_assert_int_eq(gb_prom_export_results(&res, &b, &n), GB_OK);
  const char *t = text(&b);
  ck_assert_ptr_nonnull(strstr(t, "gpubench_run_info{run_id=\"r1\",host=\"a\",gpu_type=\"H200-SXM-141GB\","
                                  "gpu_name=\"NVIDIA H200\",driver=\"580.159.04\",cuda=\"13.0\","
                                  "gpu_uuid=\"GPU-75e8ae09-353b-0202-2cef-15ff61a0f92e\"} 1\n"));
  const char *u = strstr(t, "GPU-75e8ae09");
  ck_assert_ptr_nonnull(u);
  ck_assert_ptr_null(strstr(u + 1, "GPU-75e8ae09")); /* in run_info only */
  gb_buf_free(&b);
  gb_results_free(&res);
}
END_TEST

/* A row of a case the GPU cannot run (status unsupported, no value: the
 * block-scaled GEMMs on an H100) is no sample: the exporter writes the
 * measured row beside it and nothing for it. */
START_TEST(test_export_unsupported_no_sample) {
  gb_results res = {0};
  gb_err e = read_rows(
      "1,h1,2026-12-07T09:52:03Z,a,H100-SXM-80GB,NVIDIA H100 80GB HBM3,580.159.04,13.0,1,gemm,bf16,bf16,8192,8192,8192,,"
      "tflops,TFLOP/s,780,10,,,,ok,,,,,,,,989.4\n"
      "1,h1,2026-12-07T09:52:04Z,a,H100-SXM-80GB,NVIDIA H100 80GB HBM3,580.159.04,13.0,1,gemm,mxfp8,fp8e4m3,8192,8192,8192,,"
      "tflops,TFLOP/s,,,,,,unsupported,\"not supported: mxfp8: needs sm_100+\",,,,,,,\n",
      &res);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  ck_assert_int_eq(res.rows[1].status, GB_STATUS_UNSUPPORTED);
  gb_buf b = {0};
  size_t n = 0;
  ck_assert_int_eq(gb_prom_export_results(&res, &b, &n), GB_OK);
  const char *t = text(&b);
  ck_assert_ptr_nonnull(strstr(t, "case=\"bf16\",dtype=\"bf16\",size=\"8192x8192x8192\",status=\"ok\"} 7.8e+14\n"));
  ck_assert_ptr_null(strstr(t, "mxfp8"));
  ck_assert_ptr_null(strstr(t, "unsupported"));
  gb_buf_free(&b);
  gb_results_free(&res);
}
END_TEST

/* A run with both GEMM windows (a campaign and --opt gemm.window=sustained
 * in one file, as data/measured holds since the H100 energy row): export
 * failed, "two different figures map onto the metric name
 * gpubench_gemm_throughput_flops_per_second"; the sustained window is a
 * family of its own, as the table's window field says. */
START_TEST(test_export_both_windows) {
  gb_results res = {0};
  gb_err e = read_rows(
      "1,h1,2026-12-07T09:52:03Z,a,H100-SXM-80GB,NVIDIA H100 80GB HBM3,580.159.04,13.0,1,gemm,bf16,bf16,8192,8192,8192,,"
      "tflops,TFLOP/s,830,10,,,,ok,,,,,,,,989.4\n"
      "1,h1,2026-12-07T09:52:13Z,a,H100-SXM-80GB,NVIDIA H100 80GB HBM3,580.159.04,13.0,1,gemm,bf16,bf16,8192,8192,8192,,"
      "tflops_sustained,TFLOP/s,710,10,,,,throttled,,,,,,,,989.4\n"
      "1,h1,2026-12-07T09:52:14Z,a,H100-SXM-80GB,NVIDIA H100 80GB HBM3,580.159.04,13.0,1,gemm,bf16_vs_fp32,bf16,8192,8192,8192,,"
      "speedup,x,16,10,,,,ok,,,,,,,,\n"
      "1,h1,2026-12-07T09:52:15Z,a,H100-SXM-80GB,NVIDIA H100 80GB HBM3,580.159.04,13.0,1,gemm,bf16_vs_fp32,bf16,8192,8192,8192,,"
      "speedup_sustained,x,15,10,,,,ok,,,,,,,,\n",
      &res);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  gb_buf b = {0};
  size_t n = 0;
  ck_assert_msg(gb_prom_export_results(&res, &b, &n) == GB_OK, "%s", gb_errmsg());
  const char *t = text(&b);
  ck_assert_ptr_nonnull(strstr(t, "gpubench_gemm_throughput_flops_per_second{gpu_type=\"H100-SXM-80GB\",host=\"a\","
                                  "gpu_count=\"1\",case=\"bf16\",dtype=\"bf16\",size=\"8192x8192x8192\",status=\"ok\"} 8.3e+14\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpubench_gemm_sustained_throughput_flops_per_second{gpu_type=\"H100-SXM-80GB\","
                                  "host=\"a\",gpu_count=\"1\",case=\"bf16\",dtype=\"bf16\",size=\"8192x8192x8192\","
                                  "status=\"throttled\"} 7.1e+14\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpubench_gemm_sustained_throughput_peak_flops_per_second{"));
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpubench_gemm_speedup_ratio gauge\n"));
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpubench_gemm_sustained_speedup_ratio gauge\n"));
  gb_buf_free(&b);
  gb_results_free(&res);
}
END_TEST

START_TEST(test_export_newest_run_per_machine) {
  gb_results res = {0};
  gb_err e = read_rows(
      /* machine a: an old run and a new one */
      "1,old,2026-12-01T10:00:00Z,a,H200-SXM-141GB,NVIDIA H200,580.1,13.0,1,gemm,gemm,bf16,4096,4096,4096,,tflops,TFLOP/s,500,10,,,,ok,,,,,,0,,989.4\n"
      "1,new,2026-12-02T10:00:00Z,a,H200-SXM-141GB,NVIDIA H200,580.2,13.0,1,gemm,gemm,bf16,4096,4096,4096,,tflops,TFLOP/s,600,10,,,,ok,,,,,,0,,989.4\n"
      "1,new,2026-12-02T10:00:01Z,a,H200-SXM-141GB,NVIDIA H200,580.2,13.0,1,gemm,gemm,bf16,4096,4096,4096,,tflops,TFLOP/s,700,10,,,,ok,,,,,,1,,989.4\n"
      "1,new,2026-12-02T10:00:02Z,a,H200-SXM-141GB,NVIDIA H200,580.2,13.0,1,gemm,gemm,bf16,4096,4096,4096,,tflops,TFLOP/s,650,10,,,,ok,,,,,,2,,989.4\n"
      /* machine b: one run, membw and an unknown metric */
      "1,b1,2026-11-01T00:00:00Z,b,H100,\"NVIDIA \"\"H100\"\"\",570,12.8,1,membw,triad,fp32,,,,4294967296,gbps,GB/s,3000.5,10,,,,throttled,,,,,,0,,\n"
      "1,b1,2026-11-01T00:00:00Z,b,H100,x,570,12.8,1,membw,triad,fp32,,,,4294967296,widgets,w/s,7,10,,,,ok,,,,,,0,,\n",
      &res);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  gb_buf b = {0};
  size_t n = 0;
  ck_assert_int_eq(gb_prom_export_results(&res, &b, &n), GB_OK);
  const char *t = text(&b);
  ck_assert_uint_eq(n, 3);
  /* the new run of a, the median of its three repetitions, in FLOP/s */
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpubench_gemm_throughput_flops_per_second gauge\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpubench_gemm_throughput_flops_per_second{gpu_type=\"H200-SXM-141GB\",host=\"a\","
                                  "gpu_count=\"1\",case=\"gemm\",dtype=\"bf16\",size=\"4096x4096x4096\",status=\"ok\"} 6.5e+14\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpubench_gemm_throughput_peak_flops_per_second{gpu_type=\"H200-SXM-141GB\",host=\"a\","
                                  "gpu_count=\"1\",case=\"gemm\",dtype=\"bf16\",size=\"4096x4096x4096\"} 9.894e+14\n"));
  ck_assert_ptr_null(strstr(t, "} 5e+14\n")); /* the old run is gone */
  ck_assert_ptr_nonnull(strstr(t, "gpubench_membw_bandwidth_bytes_per_second{gpu_type=\"H100\",host=\"b\",gpu_count=\"1\","
                                  "case=\"triad\",dtype=\"fp32\",size=\"4294967296\",status=\"throttled\"} 3.0005e+12\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpubench_membw_widgets{gpu_type=\"H100\",host=\"b\",gpu_count=\"1\",case=\"triad\","
                                  "dtype=\"fp32\",size=\"4294967296\",unit=\"w/s\",status=\"ok\"} 7\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpubench_run_info{run_id=\"new\",host=\"a\",gpu_type=\"H200-SXM-141GB\","
                                  "gpu_name=\"NVIDIA H200\",driver=\"580.2\",cuda=\"13.0\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpu_name=\"NVIDIA \\\"H100\\\"\"")); /* escaped */
  ck_assert_ptr_nonnull(strstr(t, "gpubench_run_timestamp_seconds{run_id=\"new\",host=\"a\",gpu_type=\"H200-SXM-141GB\"} 1796205602\n"));
  /* each family's HELP and TYPE once */
  const char *p = t;
  int types = 0;
  while ((p = strstr(p, "# TYPE gpubench_gemm_throughput_flops_per_second "))) types++, p++;
  ck_assert_int_eq(types, 1);
  gb_buf_free(&b);
  gb_results_free(&res);
}
END_TEST

START_TEST(test_export_empty) {
  gb_results res = {0};
  gb_buf b = {0};
  ck_assert_int_eq(gb_prom_export_results(&res, &b, NULL), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "no results rows"));
}
END_TEST

/* Rows but no sample (a run whose only row failed): the export passed
 * qsort a NULL array (undefined behaviour; found by fuzz_prom). Exports
 * the run's info and no figure. */
START_TEST(test_export_only_failed_rows) {
  const char *csv =
      "schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,bytes,"
      "metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,rep,variant,"
      "peak,git_sha\n"
      "1,r1,2026-12-02T00:00:00Z,h,H200-SXM-141GB,H200,1,580.159.04,13.3.0,gemm,fp8e4m3,fp8e4m3,8192,8192,8192,,"
      "tflops,TFLOP/s,,,,,,error,unsupported on cc 8.0,,,,,,,,\n";
  gb_results res = {0};
  ck_assert_msg(gb_results_read_mem("f.csv", csv, strlen(csv), &res) == GB_OK, "%s", gb_errmsg());
  gb_buf b = {0};
  size_t n = 99;
  gb_err e = gb_prom_export_results(&res, &b, &n);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(n, 0);
  gb_buf_append(&b, "", 1);
  ck_assert_ptr_null(strstr(b.data, "gpubench_gemm_throughput"));
  gb_buf_free(&b);
  gb_results_free(&res);
}
END_TEST

START_TEST(test_push_path) {
  gb_buf b = {0};
  ck_assert_int_eq(gb_prom_push_path(&b, "gpubench", "node-1.example"), GB_OK);
  ck_assert_str_eq(text(&b), "/metrics/job/gpubench/instance/node-1.example");
  b.len = 0;
  ck_assert_int_eq(gb_prom_push_path(&b, "a/b", "h 1"), GB_OK);
  ck_assert_str_eq(text(&b), "/metrics/job@base64/YS9i/instance@base64/aCAx");
  b.len = 0;
  ck_assert_int_eq(gb_prom_push_path(&b, "", NULL), GB_E_USAGE);
  gb_buf_free(&b);
}
END_TEST

/* a one-shot HTTP server on 127.0.0.1: reads one request, answers `status` */
typedef struct srv {
  int fd, port;
  const char *status;
  char req[4096];
  size_t len;
} srv;

static void *serve(void *arg) {
  srv *s = arg;
  int c = accept(s->fd, NULL, NULL);
  if (c < 0) return NULL;
  /* read until the body (Content-Length) is in */
  for (int i = 0; i < 100 && s->len < sizeof s->req - 1; i++) {
    ssize_t r = recv(c, s->req + s->len, sizeof s->req - 1 - s->len, 0);
    if (r <= 0) break;
    s->len += (size_t)r;
    s->req[s->len] = '\0';
    char *body = strstr(s->req, "\r\n\r\n"), *cl = strstr(s->req, "Content-Length: ");
    if (body && cl && (size_t)(s->req + s->len - body - 4) >= (size_t)atol(cl + 16)) break;
  }
  char resp[256];
  int n = snprintf(resp, sizeof resp, "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", s->status);
  ssize_t w = send(c, resp, (size_t)n, MSG_NOSIGNAL);
  (void)w;
  close(c);
  return NULL;
}

static void srv_start(srv *s, pthread_t *t, const char *status) {
  memset(s, 0, sizeof *s);
  s->status = status;
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(s->fd, 4), 0);
  socklen_t l = sizeof a;
  getsockname(s->fd, (struct sockaddr *)&a, &l);
  s->port = ntohs(a.sin_port);
  pthread_create(t, NULL, serve, s);
}

START_TEST(test_push_roundtrip) {
  srv s;
  pthread_t t;
  srv_start(&s, &t, "200 OK");
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/", s.port);
  const char body[] = "m 1\n";
  gb_err e = gb_prom_push(url, "gpubench", "h1", body, sizeof body - 1, PO(5000));
  pthread_join(t, NULL);
  close(s.fd);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  ck_assert_ptr_nonnull(strstr(s.req, "PUT /metrics/job/gpubench/instance/h1 HTTP/1.1\r\n"));
  ck_assert_ptr_nonnull(strstr(s.req, "Content-Length: 4\r\n"));
  ck_assert_ptr_nonnull(strstr(s.req, "\r\n\r\nm 1\n"));
}
END_TEST

START_TEST(test_push_refused) {
  srv s;
  pthread_t t;
  srv_start(&s, &t, "400 Bad Request");
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d", s.port);
  gb_err e = gb_prom_push(url, "j", NULL, "x", 1, PO(5000));
  pthread_join(t, NULL);
  close(s.fd);
  ck_assert_int_eq(e, GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "400 Bad Request"));
  ck_assert_int_eq(gb_prom_push("ftp://127.0.0.1:1", "j", NULL, "x", 1, PO(100)), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "only http:// and https://"));
  /* https is taken now (libcurl): nobody listens there */
  ck_assert_int_eq(gb_prom_push("https://127.0.0.1:1", "j", NULL, "x", 1, PO(1000)), GB_E_IO);
  ck_assert_int_eq(gb_prom_push("http://:1", "j", NULL, "x", 1, PO(100)), GB_E_USAGE);
  /* nobody listening (the port of the closed server) */
  ck_assert_int_eq(gb_prom_push(url, "j", NULL, "x", 1, PO(1000)), GB_E_IO);
}
END_TEST

/* The deadline holds through the name lookup (before: getaddrinfo ran
 * unbounded, and a dead DNS server held `export --push --timeout 300` for
 * the resolver's half minute). */
START_TEST(test_push_dns_deadline) {
  g_dns_delay_ms = 5000;
  double t0 = now_ms();
  gb_err e = gb_prom_push("http://pushgw.test:1/", "j", NULL, "x 1\n", 4, PO(300));
  double took = now_ms() - t0;
  ck_assert_int_eq(e, GB_E_IO);
  ck_assert_msg(strstr(gb_errmsg(), "not resolved within the deadline"), "%s", gb_errmsg());
  ck_assert_msg(took >= 250 && took < 2000, "took %.0f ms with a 300 ms deadline", took);
  /* a second push while the first lookup still runs: its own request */
  t0 = now_ms();
  ck_assert_int_eq(gb_prom_push("http://pushgw.test:1/", "j", NULL, "x 1\n", 4, PO(200)), GB_E_IO);
  took = now_ms() - t0;
  ck_assert_msg(took < 2000, "took %.0f ms with a 200 ms deadline", took);
}
END_TEST

/* A slow lookup that answers in time hands its addresses over. */
START_TEST(test_push_dns_slow_in_time) {
  srv s;
  pthread_t t;
  srv_start(&s, &t, "200 OK");
  char url[64];
  snprintf(url, sizeof url, "http://localhost:%d/", s.port);
  g_dns_delay_ms = 300;
  gb_err e = gb_prom_push(url, "j", NULL, "m 1\n", 4, PO(5000));
  pthread_join(t, NULL);
  close(s.fd);
  ck_assert_msg(e == GB_OK, "%s", gb_errmsg());
  ck_assert_ptr_nonnull(strstr(s.req, "PUT /metrics/job/j HTTP/1.1\r\n"));
}
END_TEST

/* A failed lookup names the host it looked up (libcurl's threaded
 * resolver calls this program's getaddrinfo, which fails with EAI_SYSTEM). */
START_TEST(test_push_dns_system_error) {
  g_dns_errno = ENFILE;
  ck_assert_int_eq(gb_prom_push("http://pushgw.test:9091/", "j", NULL, "x 1\n", 4, PO(2000)), GB_E_IO);
  ck_assert_msg(strstr(gb_errmsg(), "looking up pushgw.test: "), "%s", gb_errmsg());
}
END_TEST

/* Credentials: https only, never half a pair, a token file read whole;
 * no message shows a password or token. */
START_TEST(test_push_credentials_rules) {
  setenv("GPUBENCH_PUSH_USER", "ops", 1);
  setenv("GPUBENCH_PUSH_PASSWORD", "pw-s3cret", 1);
  ck_assert_int_eq(gb_prom_push("http://127.0.0.1:1/", "j", NULL, "x 1\n", 4, PO(500)), GB_E_USAGE);
  ck_assert_msg(strstr(gb_errmsg(), "https:// only") && !strstr(gb_errmsg(), "pw-s3cret"), "%s", gb_errmsg());
  unsetenv("GPUBENCH_PUSH_PASSWORD");
  ck_assert_int_eq(gb_prom_push("https://127.0.0.1:1/", "j", NULL, "x 1\n", 4, PO(500)), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "go together"));
  unsetenv("GPUBENCH_PUSH_USER");
  gb_push_opts o = {.timeout_ms = 500, .token_file = "/nonexistent/token"};
  ck_assert_int_eq(gb_prom_push("https://127.0.0.1:1/", "j", NULL, "x 1\n", 4, &o), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "/nonexistent/token"));
  char tf[] = "/tmp/gb-token-XXXXXX";
  int fd = mkstemp(tf);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, "tok en\n", 7), 7);
  close(fd);
  o.token_file = tf;
  ck_assert_int_eq(gb_prom_push("https://127.0.0.1:1/", "j", NULL, "x 1\n", 4, &o), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "printable ASCII") && !strstr(gb_errmsg(), "tok en"), "%s", gb_errmsg());
  unlink(tf);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("prom");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_label_escape);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_sample_and_family);
  tcase_add_test(tc, test_parse_time);
  tcase_add_test(tc, test_export_newest_run_per_machine);
  tcase_add_test(tc, test_export_both_windows);
  tcase_add_test(tc, test_export_unsupported_no_sample);
  tcase_add_test(tc, test_run_info_gpu_uuid);
  tcase_add_test(tc, test_export_empty);
  tcase_add_test(tc, test_export_only_failed_rows);
  tcase_add_test(tc, test_push_path);
  tcase_add_test(tc, test_push_roundtrip);
  tcase_add_test(tc, test_push_refused);
  tcase_add_test(tc, test_push_dns_deadline);
  tcase_add_test(tc, test_push_dns_slow_in_time);
  tcase_add_test(tc, test_push_dns_system_error);
  tcase_add_test(tc, test_push_credentials_rules);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
