/* gb_prom_push: a Pushgateway client (HTTP/1.1 PUT over a socket). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "gb_prom.h"

static bool plain(const char *v) {
  if (!v[0]) return false;
  for (const char *p = v; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
          *p == '_' || *p == '~' || *p == '-'))
      return false;
  return true;
}

static gb_err put_b64url(gb_buf *b, const char *v) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const unsigned char *s = (const unsigned char *)v;
  size_t n = strlen(v);
  gb_err e = GB_OK;
  if (n == 0) return gb_buf_puts(b, "="); /* the empty value */
  for (size_t i = 0; i < n && !e; i += 3) {
    unsigned x = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
    char q[5] = {A[x >> 18 & 63], A[x >> 12 & 63], i + 1 < n ? A[x >> 6 & 63] : '=', i + 2 < n ? A[x & 63] : '=', 0};
    e = gb_buf_puts(b, q);
  }
  return e;
}

static gb_err put_group(gb_buf *b, const char *label, const char *v) {
  if (plain(v)) return gb_buf_printf(b, "/%s/%s", label, v);
  gb_err e = gb_buf_printf(b, "/%s@base64/", label);
  return e ? e : put_b64url(b, v);
}

gb_err gb_prom_push_path(gb_buf *b, const char *job, const char *instance) {
  if (!job || !job[0]) return gb_fail(GB_E_USAGE, "a Pushgateway job name must not be empty");
  gb_err e = gb_buf_puts(b, "/metrics");
  if (!e) e = put_group(b, "job", job);
  if (!e && instance) e = put_group(b, "instance", instance);
  return e;
}

static double mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The whole exchange (connect, send, answer) ends by this time: a server
 * that trickles bytes cannot hold the push longer than its timeout. */
static _Thread_local double g_deadline_ms;

static int wait_fd(int fd, short ev, int timeout_ms) {
  (void)timeout_ms;
  struct pollfd p = {.fd = fd, .events = ev};
  int r;
  do {
    double left = g_deadline_ms - mono_ms();
    if (left <= 0) return 0;
    r = poll(&p, 1, (int)left + 1);
  } while (r < 0 && errno == EINTR);
  return r;
}

/* The URL for messages: "user:password@" left out, so credentials are never echoed. */
static void shown_url(char *buf, size_t n, const char *url) {
  const char *h = strstr(url, "://"), *at;
  h = h ? h + 3 : url;
  size_t hl = strcspn(h, "/");
  at = memchr(h, '@', hl);
  if (at) snprintf(buf, n, "%.*s***@%s", (int)(h - url), url, at + 1);
  else snprintf(buf, n, "%s", url);
}

static gb_err send_all(int fd, const char *d, size_t n, int timeout_ms, const char *url) {
  while (n > 0) {
    if (wait_fd(fd, POLLOUT, timeout_ms) <= 0) return gb_fail(GB_E_IO, "%s: timed out sending", url);
    ssize_t w = send(fd, d, n, MSG_NOSIGNAL);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (w <= 0) return gb_fail(GB_E_IO, "%s: sending: %s", url, strerror(errno));
    d += w;
    n -= (size_t)w;
  }
  return GB_OK;
}

/* Where a push goes: host and port of an http:// URL, and its path. */
typedef struct push_target {
  char host[256];    /* as written, brackets of an IPv6 address taken off (hn points into it) */
  char port[16];
  const char *hn;    /* the host name to resolve */
  const char *h;     /* the host as written in the URL, hl bytes: the Host header */
  size_t hl;
  const char *slash; /* the URL's path, or NULL */
} push_target;

/* url (the shown form, no credentials) as host, port and path. */
static gb_err parse_target(const char *url, push_target *t) {
  if (strncmp(url, "http://", 7) != 0)
    return gb_fail(GB_E_USAGE, "--push: only http:// URLs are supported: \"%s\"", url);
  t->h = url + 7;
  t->slash = strchr(t->h, '/');
  t->hl = t->slash ? (size_t)(t->slash - t->h) : strlen(t->h);
  snprintf(t->port, sizeof t->port, "80");
  char *host = t->host;
  if (t->hl == 0 || t->hl >= sizeof t->host) return gb_fail(GB_E_USAGE, "--push: no host in \"%s\"", url);
  memcpy(host, t->h, t->hl);
  host[t->hl] = '\0';
  char *colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
  if (colon) {
    if (host[0] == '[') colon++;
    if (strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof t->port)
      return gb_fail(GB_E_USAGE, "--push: bad port in \"%s\"", url);
    strcpy(t->port, colon + 1);
    *colon = '\0';
  }
  char *hn = host;
  if (hn[0] == '[') {
    hn++;
    size_t l = strlen(hn);
    if (l && hn[l - 1] == ']') hn[l - 1] = '\0';
  }
  if (!hn[0]) return gb_fail(GB_E_USAGE, "--push: no host in \"%s\"", url);
  t->hn = hn;
  return GB_OK;
}

/* Name resolution by the deadline. getaddrinfo has no timeout of its own
 * (the stub resolver's is 5 s a try, two tries a server, up to three
 * servers: half a minute behind a dead DNS server), so it runs on a thread
 * of its own and the push waits for it only until the deadline. A late
 * lookup is left to finish alone: the last of the two to let go of the
 * request frees it. */
typedef struct resolve_req {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* on CLOCK_MONOTONIC, the deadline's clock */
  int refs;          /* 2 while both hold it */
  bool done;
  int rc, err; /* getaddrinfo's answer; errno where it is EAI_SYSTEM */
  struct addrinfo *ai;
  char host[256], port[16];
} resolve_req;

static void resolve_release(resolve_req *q) {
  pthread_mutex_lock(&q->mu);
  bool last = --q->refs == 0;
  pthread_mutex_unlock(&q->mu);
  if (!last) return;
  if (q->ai) freeaddrinfo(q->ai);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
  free(q);
}

static void *resolve_main(void *arg) {
  resolve_req *q = arg;
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
  int rc = getaddrinfo(q->host, q->port, &hints, &ai), err = errno;
  pthread_mutex_lock(&q->mu);
  q->rc = rc;
  q->err = err;
  q->ai = rc == 0 ? ai : NULL;
  q->done = true;
  pthread_cond_signal(&q->cv);
  pthread_mutex_unlock(&q->mu);
  resolve_release(q);
  return NULL;
}

/* host:port's addresses in *out (freeaddrinfo) by the deadline. */
static gb_err resolve_by_deadline(const push_target *t, const char *url, struct addrinfo **out) {
  *out = NULL;
  resolve_req *q = calloc(1, sizeof *q);
  if (!q) return gb_fail(GB_E_NOMEM, "out of memory");
  snprintf(q->host, sizeof q->host, "%s", t->hn);
  snprintf(q->port, sizeof q->port, "%s", t->port);
  pthread_condattr_t ca;
  bool cv = pthread_condattr_init(&ca) == 0;
  if (cv) {
    cv = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&q->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
  }
  if (!cv || pthread_mutex_init(&q->mu, NULL) != 0) {
    if (cv) pthread_cond_destroy(&q->cv);
    free(q);
    return gb_fail(GB_E_IO, "%s: cannot start the name lookup", url);
  }
  q->refs = 2;
  /* the lookup thread takes no signals: an interrupt reaches the caller */
  sigset_t all, old;
  sigfillset(&all);
  pthread_attr_t attr;
  pthread_t th;
  int rc = pthread_attr_init(&attr);
  if (rc == 0) {
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&th, &attr, resolve_main, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
  }
  if (rc != 0) {
    q->refs = 1;
    resolve_release(q);
    return gb_fail(GB_E_IO, "%s: cannot start the name lookup: %s", url, strerror(rc));
  }
  long long ns = (long long)(g_deadline_ms * 1e6);
  struct timespec until = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
  pthread_mutex_lock(&q->mu);
  while (!q->done && pthread_cond_timedwait(&q->cv, &q->mu, &until) == 0) {
  }
  bool done = q->done;
  int grc = q->rc, gerr = q->err;
  if (done) {
    *out = q->ai; /* ours now */
    q->ai = NULL;
  }
  pthread_mutex_unlock(&q->mu);
  resolve_release(q);
  if (!done) return gb_fail(GB_E_IO, "%s: the name %s was not resolved within the deadline", url, t->hn);
  if (grc == EAI_SYSTEM) return gb_fail(GB_E_IO, "%s: looking up %s: %s", url, t->hn, strerror(gerr));
  if (grc != 0) return gb_fail(GB_E_IO, "%s: %s", url, gai_strerror(grc));
  return GB_OK;
}

/* A non-blocking socket connected to host:port by the deadline, in *fd. */
static gb_err connect_target(const push_target *t, int timeout_ms, const char *url, int *fd) {
  struct addrinfo *ai = NULL;
  gb_err e = resolve_by_deadline(t, url, &ai);
  if (e) return e;
  *fd = -1;
  for (struct addrinfo *a = ai; a && *fd < 0; a = a->ai_next) {
    *fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (*fd < 0) continue;
    if (connect(*fd, a->ai_addr, a->ai_addrlen) == 0) break;
    int err = 0;
    socklen_t el = sizeof err;
    if (errno == EINPROGRESS && wait_fd(*fd, POLLOUT, timeout_ms) > 0 &&
        getsockopt(*fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0)
      break;
    close(*fd);
    *fd = -1;
  }
  freeaddrinfo(ai);
  return *fd < 0 ? gb_fail(GB_E_IO, "%s: cannot connect", url) : GB_OK;
}

/* The answer's status line, by the deadline: a 2xx status or an error. */
static gb_err read_status(int fd, int timeout_ms, const char *url) {
  char resp[512];
  size_t got = 0;
  while (got + 1 < sizeof resp && !memchr(resp, '\n', got)) {
    if (wait_fd(fd, POLLIN, timeout_ms) <= 0)
      return gb_fail(GB_E_IO, "%s: no complete answer within %d ms", url, timeout_ms);
    ssize_t r = recv(fd, resp + got, sizeof resp - 1 - got, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  resp[got] = '\0';
  char *nl = strpbrk(resp, "\r\n");
  if (nl) *nl = '\0';
  int code = 0;
  if (sscanf(resp, "HTTP/%*d.%*d %d", &code) != 1 || code < 200 || code > 299)
    return gb_fail(GB_E_IO, "%s: the Pushgateway answered \"%s\"", url, got ? resp : "(nothing)");
  return GB_OK;
}

gb_err gb_prom_push(const char *full_url, const char *job, const char *instance, const char *body, size_t len,
                    int timeout_ms) {
  char url[1024];
  /* a longer URL would be cut (its path silently shortened): refused */
  if (strlen(full_url) >= sizeof url)
    return gb_fail(GB_E_USAGE, "--push: the URL is %zu bytes, over the %zu-byte limit", strlen(full_url),
                   sizeof url - 1);
  shown_url(url, sizeof url, full_url);
  for (const char *p = full_url; *p; p++)
    if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
      return gb_fail(GB_E_USAGE, "--push: a URL holds no space, control or non-ASCII character (CR/LF would split "
                                 "the request; percent-encode the rest)");
  /* the group's path is appended to the URL's: a query or fragment would
   * swallow it */
  if (strpbrk(full_url, "?#"))
    return gb_fail(GB_E_USAGE, "--push: a Pushgateway URL has no query or fragment ('?', '#'): %s", url);
  if (strchr(full_url, '@'))
    return gb_fail(GB_E_USAGE, "--push: credentials in the URL (%s) are not supported", url);
  g_deadline_ms = mono_ms() + timeout_ms;
  push_target t;
  gb_err e = parse_target(url, &t);
  if (e) return e;
  gb_buf path = {0}, req = {0};
  const char *slash = t.slash;
  if (slash && strcmp(slash, "/") != 0) {
    e = gb_buf_append(&path, slash, strlen(slash) - (slash[strlen(slash) - 1] == '/'));
  }
  if (!e) e = gb_prom_push_path(&path, job, instance);
  if (!e && !path.data) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e)
    e = gb_buf_printf(&req,
                      "PUT %.*s HTTP/1.1\r\nHost: %.*s\r\nUser-Agent: gpubench\r\n"
                      "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: %zu\r\n"
                      "Connection: close\r\n\r\n",
                      (int)path.len, path.data, (int)t.hl, t.h, len);
  int fd = -1;
  if (!e) e = connect_target(&t, timeout_ms, url, &fd);
  if (!e) e = send_all(fd, req.data, req.len, timeout_ms, url);
  if (!e) e = send_all(fd, body, len, timeout_ms, url);
  if (!e) e = read_status(fd, timeout_ms, url);
  if (fd >= 0) close(fd);
  gb_buf_free(&path);
  gb_buf_free(&req);
  return e;
}
