/* fuzz_monitor_http: the monitor's HTTP side (monitor/gb_monitor.h: the
 * request parser of libmicrohttpd and the monitor's handler) given any
 * bytes as a request, over a loopback socket to a monitor started once.
 *
 * Properties: no crash or sanitizer report; every answer starts with
 * "HTTP/1." (or the connection is closed without one); no answer takes
 * longer than the monitor's deadline plus a second; and after every input
 * a normal GET /healthz still answers 200, so no request leaves the server
 * broken or a slot held. */
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "gb_monitor.h"

static gb_monitor *g_mon;
static int g_port;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  gb_monitor_opts o = gb_monitor_defaults();
  o.listen = "127.0.0.1:0";
  o.no_nvml = true;
  o.timeout_s = 1;
  o.deadline_s = 2;
  o.threads = 2;
  if (gb_monitor_start(&o, &g_mon) != GB_OK) abort();
  g_port = gb_monitor_port(g_mon);
  return 0;
}

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sends req, closes the sending side, reads the answer's first bytes. */
static size_t exchange(const void *req, size_t len, char *ans, size_t cap) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  FUZZ_ASSERT(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
  for (size_t off = 0; off < len;) {
    ssize_t w = send(fd, (const char *)req + off, len - off, MSG_NOSIGNAL);
    if (w <= 0) break;
    off += (size_t)w;
  }
  shutdown(fd, SHUT_WR);
  size_t got = 0;
  double end = mono() + 3.0; /* the deadline (2 s) plus a second */
  while (got + 1 < cap) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    double left = end - mono();
    FUZZ_ASSERT(left > 0); /* the server kept the connection past its deadline */
    if (poll(&p, 1, (int)(left * 1000) + 1) <= 0) continue;
    ssize_t r = recv(fd, ans + got, cap - 1 - got, 0);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  ans[got] = '\0';
  return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char ans[256];
  size_t got = exchange(data, size, ans, sizeof ans);
  FUZZ_ASSERT(got == 0 || strncmp(ans, "HTTP/1.", got < 7 ? got : 7) == 0);
  static const char ok[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  got = exchange(ok, sizeof ok - 1, ans, sizeof ans);
  FUZZ_ASSERT(got > 12 && strncmp(ans, "HTTP/1.1 200", 12) == 0);
  return 0;
}
