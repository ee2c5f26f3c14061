/* gb_prom_push: a Pushgateway client on libcurl (http and https, a private
 * CA, basic auth or a bearer token from the environment, ~/.netrc or a token
 * file, proxies from the usual environment variables), one deadline for the
 * whole push. docs/monitoring.md. */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_prom.h"

static pthread_once_t g_curl_once = PTHREAD_ONCE_INIT;
static CURLcode g_curl_init;

static void curl_init_once(void) { g_curl_init = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The checks curl would not make (host gets the URL's host, for messages): what reaches curl is one http(s) URL
 * with a host, no credentials, no query or fragment (the group's path is
 * appended), printable ASCII only (CR/LF would split a request). */
static gb_err check_url(const char *url, bool *https, char *host, size_t hn) {
  if (strlen(url) >= GB_PUSH_URL_MAX)
    return gb_fail(GB_E_USAGE, "--push: the URL is %zu bytes, over the %d-byte limit", strlen(url),
                   GB_PUSH_URL_MAX - 1);
  for (const char *p = url; *p; p++)
    if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
      return gb_fail(GB_E_USAGE, "--push: a URL holds no space, control or non-ASCII character (CR/LF would split "
                                 "the request; percent-encode the rest)");
  *https = strncmp(url, "https://", 8) == 0;
  if (!*https && strncmp(url, "http://", 7) != 0)
    return gb_fail(GB_E_USAGE, "--push: only http:// and https:// URLs are supported: \"%s\"", url);
  const char *auth = url + (*https ? 8 : 7);
  size_t al = strcspn(auth, "/");
  if (memchr(auth, '@', al))
    return gb_fail(GB_E_USAGE, "--push: credentials in the URL are not taken (they would show in process lists "
                               "and logs): put them in ~/.netrc or the environment (docs/monitoring.md)");
  if (strpbrk(url, "?#"))
    return gb_fail(GB_E_USAGE, "--push: a Pushgateway URL has no query or fragment ('?', '#'): %s", url);
  CURLU *u = curl_url();
  char *h = NULL;
  bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK && h && h[0];
  if (ok) snprintf(host, hn, "%s", h); /* for messages */
  curl_free(h);
  curl_url_cleanup(u);
  if (!ok) return gb_fail(GB_E_USAGE, "--push: no usable host in \"%s\"", url);
  return GB_OK;
}

/* The whole file as a string with its trailing newline taken off. */
static gb_err read_token(const char *path, char **tok) {
  FILE *f = fopen(path, "r");
  if (!f) return gb_fail(GB_E_INPUT, "%s: cannot read the token file: %s", path, strerror(errno));
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf, f);
  bool more = n == sizeof buf;
  fclose(f);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) n--;
  if (more) return gb_fail(GB_E_INPUT, "%s: a token file holds one token of at most %zu bytes", path, sizeof buf - 1);
  if (n == 0) return gb_fail(GB_E_INPUT, "%s: the token file is empty", path);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)buf[i] <= ' ' || (unsigned char)buf[i] >= 0x7f)
      return gb_fail(GB_E_INPUT, "%s: a token is printable ASCII without spaces (byte %zu is not)", path, i + 1);
  *tok = strndup(buf, n);
  return *tok ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && v[0] ? v : NULL;
}

/* Credentials onto the handle, from (in this order) a token file, the
 * environment (a bearer token, or a user and password), or a .netrc.
 * *tok is the token read from a file (freed by the caller after the push). */
static gb_err set_credentials(CURL *c, const gb_push_opts *o, bool https, char **tok) {
  const char *token_file = o->token_file ? o->token_file : env("GPUBENCH_PUSH_TOKEN_FILE");
  const char *token = env("GPUBENCH_PUSH_TOKEN"), *user = env("GPUBENCH_PUSH_USER"),
             *pass = env("GPUBENCH_PUSH_PASSWORD");
  bool given = token_file || token || user || pass;
  if (given && !https)
    return gb_fail(GB_E_USAGE, "--push: credentials are sent over https:// only (a token or password over http:// "
                               "would cross the network in clear text)");
  if ((user != NULL) != (pass != NULL))
    return gb_fail(GB_E_USAGE, "--push: GPUBENCH_PUSH_USER and GPUBENCH_PUSH_PASSWORD go together");
  if (token_file) {
    gb_err e = read_token(token_file, tok);
    if (e) return e;
    token = *tok;
  }
  if (token) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
    curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, token);
  } else if (user) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERNAME, user);
    curl_easy_setopt(c, CURLOPT_PASSWORD, pass);
  } else if (https) {
    /* ~/.netrc (or o->netrc) when it has the host; none is no error */
    curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    if (o->netrc) curl_easy_setopt(c, CURLOPT_NETRC_FILE, o->netrc);
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
  }
  return GB_OK;
}

typedef struct upload {
  const char *d;
  size_t left;
} upload;

static size_t read_body(char *dst, size_t size, size_t n, void *arg) {
  upload *u = arg;
  size_t k = size * n < u->left ? size * n : u->left;
  memcpy(dst, u->d, k);
  u->d += k;
  u->left -= k;
  return k;
}

/* The answer's status line (the last one: after a 100 Continue). */
static size_t read_header(char *d, size_t size, size_t n, void *arg) {
  char *status = arg;
  size_t k = size * n;
  if (k > 5 && memcmp(d, "HTTP/", 5) == 0) {
    size_t l = k < 255 ? k : 255;
    memcpy(status, d, l);
    status[l] = '\0';
    status[strcspn(status, "\r\n")] = '\0';
  }
  return k;
}

static size_t drop_body(char *d, size_t size, size_t n, void *arg) {
  (void)d;
  (void)arg;
  return size * n;
}

/* curl's failure as a message that names what failed; never credentials
 * (the URL holds none: check_url). */
static gb_err push_failed(CURL *c, CURLcode rc, const char *errbuf, const char *url, const char *host, int ms) {
  curl_off_t dns = 0;
  curl_easy_getinfo(c, CURLINFO_NAMELOOKUP_TIME_T, &dns);
  const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  switch (rc) {
  case CURLE_OPERATION_TIMEDOUT:
    if (dns == 0) return gb_fail(GB_E_IO, "%s: the name %s was not resolved within the deadline (%d ms)", url, host, ms);
    return gb_fail(GB_E_IO, "%s: no complete answer within %d ms (%s)", url, ms, why);
  case CURLE_COULDNT_RESOLVE_HOST:
    return gb_fail(GB_E_IO, "%s: looking up %s: %s", url, host, why);
  case CURLE_COULDNT_CONNECT:
    return gb_fail(GB_E_IO, "%s: cannot connect (%s)", url, why);
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_CONNECT_ERROR:
    return gb_fail(GB_E_IO, "%s: TLS: the server's certificate was not accepted or the handshake failed (%s); "
                            "--cacert FILE names the CA of a private Pushgateway",
                   url, why);
  default:
    return gb_fail(GB_E_IO, "%s: %s", url, why);
  }
}

/* The push proper on a configured handle. */
static gb_err perform(CURL *c, const char *url, const char *host, int ms) {
  char errbuf[CURL_ERROR_SIZE] = "", status[256] = "";
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, (void *)status);
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) return push_failed(c, rc, errbuf, url, host, ms);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  if (code < 200 || code > 299)
    return gb_fail(GB_E_IO, "%s: the Pushgateway answered \"%s\"%s", url, status[0] ? status : "(nothing)",
                   code == 401 || code == 403 ? " (check the credentials: docs/monitoring.md)" : "");
  return GB_OK;
}

gb_err gb_prom_push(const char *url, const char *job, const char *instance, const char *body, size_t len,
                    const gb_push_opts *o) {
  gb_push_opts dflt = {0};
  if (!o) o = &dflt;
  int ms = o->timeout_ms > 0 ? o->timeout_ms : GB_PUSH_TIMEOUT_MS;
  bool https = false;
  char host[256];
  gb_err e = check_url(url, &https, host, sizeof host);
  if (e) return e;
  pthread_once(&g_curl_once, curl_init_once);
  if (g_curl_init != CURLE_OK) return gb_fail(GB_E_IO, "libcurl did not start: %s", curl_easy_strerror(g_curl_init));
  gb_buf full = {0};
  size_t ul = strlen(url);
  e = gb_buf_append(&full, url, ul - (url[ul - 1] == '/'));
  if (!e) e = gb_prom_push_path(&full, job, instance);
  CURL *c = e ? NULL : curl_easy_init();
  if (!e && !c) e = gb_fail(GB_E_NOMEM, "libcurl: no handle");
  char *tok = NULL;
  struct curl_slist *hdr = NULL;
  if (!e) e = set_credentials(c, o, https, &tok);
  if (!e) {
    upload up = {body, len};
    hdr = curl_slist_append(hdr, "Content-Type: text/plain; version=0.0.4; charset=utf-8");
    hdr = hdr ? curl_slist_append(hdr, "Expect:") : NULL; /* no 100-continue round trip */
    if (!hdr) e = gb_fail(GB_E_NOMEM, "out of memory");
    curl_easy_setopt(c, CURLOPT_URL, full.data);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* threads, and the caller's signals stay the caller's */
    /* a lookup still running at the deadline (a dead DNS server) is left to
     * finish alone: without this, cleanup waits for it, past the deadline */
    curl_easy_setopt(c, CURLOPT_QUICK_EXIT, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)ms);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpubench");
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_body);
    curl_easy_setopt(c, CURLOPT_READDATA, &up);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, drop_body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    if (o->cacert) curl_easy_setopt(c, CURLOPT_CAINFO, o->cacert);
    if (!e) e = perform(c, url, host, ms);
  }
  if (c) curl_easy_cleanup(c);
  curl_slist_free_all(hdr);
  if (tok) {
    memset(tok, 0, strlen(tok));
    free(tok);
  }
  gb_buf_free(&full);
  return e;
}
