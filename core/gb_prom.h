/* gb_prom: the Prometheus text exposition format (version 0.0.4), and the
 * results of a run as metrics in it. No CUDA: `gpubench export` and the
 * monitor's results half use it on machines without a GPU.
 *
 * Metric names: gpubench_<benchmark>_<quantity>_<base_unit>, the quantity,
 * base unit and scale taken from core/gb_desc.h (gemm tflops ->
 * gpubench_gemm_throughput_flops_per_second, value * 1e12). A metric the table
 * does not know is exported as gpubench_<benchmark>_<metric> unscaled, with a
 * `unit` label. Every figure is a gauge; label values are escaped as the
 * format says (backslash, double quote, line feed). docs/monitoring.md. */
#ifndef GB_PROM_H
#define GB_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_results.h"

typedef struct gb_prom_label {
  const char *name, *value; /* an empty or NULL value is left out (the same as absent) */
} gb_prom_label;

/* Appends v escaped for a label value: \ -> \\, " -> \", LF -> \n. Bytes that
 * are not valid UTF-8 become U+FFFD. */
gb_err gb_prom_put_label_value(gb_buf *b, const char *v);

/* Writes s as a metric or label name into buf (n > 0): lower case, every
 * character outside [a-z0-9_] becomes '_', runs of '_' collapse to one, a
 * leading digit gets a '_' before it. "" becomes "_". */
void gb_prom_name(char *buf, size_t n, const char *s);

/* "# HELP name text\n# TYPE name type\n" (help escaped: \\ and \n). */
gb_err gb_prom_put_family(gb_buf *b, const char *name, const char *type, const char *help);

/* One sample line: name{l1="v1",...} value\n (NaN, +Inf, -Inf as the format
 * spells them; numbers in the C locale at round-trip precision). */
gb_err gb_prom_put_sample(gb_buf *b, const char *name, const gb_prom_label *labels, size_t nlabels, double v);

/* Seconds since the epoch of an ISO 8601 UTC time "2026-12-02T13:40:24Z"
 * (fractional seconds allowed); false when s is not one. */
bool gb_prom_parse_time(const char *s, double *out);

/* The rows of the newest run of each machine (host and gpu_type; the newest
 * by timestamp, ties by run_id) as exposition text appended to out:
 *  - one family per benchmark and metric, a gauge in base units, labels
 *    gpu_type, host, gpu_count, case, dtype, size, status (and variant,
 *    settings when not empty); rows of one series (repetitions) give their
 *    median; rows without a value are left out;
 *  - the datasheet peak of a row (the `peak` column) as
 *    gpubench_<benchmark>_<quantity>_peak_<base_unit>, same labels less status;
 *  - gpubench_run_info{run_id, host, gpu_type, gpu_name, driver, cuda,
 *    cublaslt, nvrtc, nccl, git_sha} 1;
 *  - gpubench_run_timestamp_seconds{run_id, host, gpu_type}: the run's newest
 *    row's time.
 * *nsamples (may be NULL) gets how many figure samples were written.
 * GB_E_INPUT when res holds no row. */
gb_err gb_prom_export_results(const gb_results *res, gb_buf *out, size_t *nsamples);

#endif

/* ---- Pushgateway ---- */

/* The path of a Pushgateway group: /metrics/job/<job>[/instance/<instance>],
 * a value with characters outside [A-Za-z0-9._~-] (or empty) written as
 * label@base64/<base64url> as the Pushgateway reads it. */
gb_err gb_prom_push_path(gb_buf *b, const char *job, const char *instance);

/* How a push goes (zero: the defaults). */
#define GB_PUSH_TIMEOUT_MS 10000 /* the default deadline of a whole push */
#define GB_PUSH_URL_MAX 1024     /* a longer URL is refused, never cut */
typedef struct gb_push_opts {
  int timeout_ms;         /* the whole push: lookup, connect, TLS, send, answer; 0: GB_PUSH_TIMEOUT_MS */
  const char *cacert;     /* PEM file of the CA that signed an https server's certificate; NULL: the system's */
  const char *netrc;      /* the .netrc to read for an https server; NULL: ~/.netrc */
  const char *token_file; /* a file holding a bearer token; NULL: $GPUBENCH_PUSH_TOKEN_FILE */
} gb_push_opts;

/* PUTs body (exposition text) to the Pushgateway at url ("http[s]://host:port"
 * or with a /prefix) under job and instance (instance may be NULL),
 * replacing that group, through libcurl: proxies from the usual environment
 * variables (http_proxy, https_proxy, no_proxy), the system's CAs or
 * o->cacert. Credentials, https only, never from the URL or the command
 * line: a bearer token from o->token_file, $GPUBENCH_PUSH_TOKEN_FILE or
 * $GPUBENCH_PUSH_TOKEN; else basic auth from $GPUBENCH_PUSH_USER and
 * $GPUBENCH_PUSH_PASSWORD; else ~/.netrc (o->netrc) where it names the host.
 * o->timeout_ms bounds the whole exchange, so neither a dead DNS server nor
 * a server that trickles bytes holds it longer. A URL with a space,
 * control or non-ASCII character (CR/LF would split the request), a query,
 * a fragment, credentials (user@) or over GB_PUSH_URL_MAX is GB_E_USAGE, and
 * so are credentials for an http:// URL; messages never show credentials.
 * GB_E_IO with the server's status line when it does not answer 2xx, and
 * for a failed lookup, connection or TLS handshake; GB_E_INPUT for an
 * unreadable token file. */
gb_err gb_prom_push(const char *url, const char *job, const char *instance, const char *body, size_t len,
                    const gb_push_opts *o);
