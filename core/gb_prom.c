/* gb_prom: Prometheus text exposition (see gb_prom.h). */
#include "gb_prom.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_desc.h"
#include "gb_num.h"

gb_err gb_prom_put_label_value(gb_buf *b, const char *v) {
  size_t len = strlen(v), i = 0;
  while (i < len) {
    size_t bad = len - i;
    if (gb_utf8_valid(v + i, len - i, &bad)) bad = len - i;
    for (size_t j = i; j < i + bad; j++) {
      const char *rep = NULL;
      if (v[j] == '\\') rep = "\\\\";
      else if (v[j] == '"') rep = "\\\"";
      else if (v[j] == '\n') rep = "\\n";
      gb_err e = rep ? gb_buf_puts(b, rep) : gb_buf_append(b, v + j, 1);
      if (e) return e;
    }
    i += bad;
    if (i < len) { /* one byte that is not UTF-8 */
      gb_err e = gb_buf_puts(b, "\xEF\xBF\xBD");
      if (e) return e;
      i++;
    }
  }
  return GB_OK;
}

void gb_prom_name(char *buf, size_t n, const char *s) {
  size_t o = 0;
  if (n == 0) return;
  if (isdigit((unsigned char)s[0]) && o + 1 < n) buf[o++] = '_';
  for (; *s && o + 1 < n; s++) {
    char c = (char)tolower((unsigned char)*s);
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) c = '_';
    if (c == '_' && o > 0 && buf[o - 1] == '_') continue;
    buf[o++] = c;
  }
  if (o == 0 && n > 1) buf[o++] = '_';
  buf[o] = '\0';
}

gb_err gb_prom_put_family(gb_buf *b, const char *name, const char *type, const char *help) {
  gb_err e = gb_buf_printf(b, "# HELP %s ", name);
  for (const char *p = help; !e && *p; p++)
    e = *p == '\\' ? gb_buf_puts(b, "\\\\") : *p == '\n' ? gb_buf_puts(b, "\\n") : gb_buf_append(b, p, 1);
  if (!e) e = gb_buf_printf(b, "\n# TYPE %s %s\n", name, type);
  return e;
}

static gb_err put_labels(gb_buf *b, const gb_prom_label *labels, size_t n) {
  bool any = false;
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e; i++) {
    if (!labels[i].value || !labels[i].value[0]) continue;
    e = gb_buf_printf(b, "%s%s=\"", any ? "," : "{", labels[i].name);
    if (!e) e = gb_prom_put_label_value(b, labels[i].value);
    if (!e) e = gb_buf_puts(b, "\"");
    any = true;
  }
  if (!e && any) e = gb_buf_puts(b, "}");
  return e;
}

static void fmt_value(char *buf, size_t n, double v) {
  if (isnan(v)) snprintf(buf, n, "NaN");
  else if (isinf(v)) snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
  else gb_fmt_double(buf, n, v);
}

gb_err gb_prom_put_sample(gb_buf *b, const char *name, const gb_prom_label *labels, size_t nlabels, double v) {
  char num[64];
  fmt_value(num, sizeof num, v);
  gb_err e = gb_buf_puts(b, name);
  if (!e) e = put_labels(b, labels, nlabels);
  if (!e) e = gb_buf_printf(b, " %s\n", num);
  return e;
}

bool gb_prom_parse_time(const char *s, double *out) {
  int Y, M, D, h, m, n = 0;
  double sec;
  if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%lf%n", &Y, &M, &D, &h, &m, &sec, &n) != 6) return false;
  if (strcmp(s + n, "Z") != 0 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec < 0 || sec >= 61)
    return false;
  struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m};
  time_t t = timegm(&tm);
  if (t == (time_t)-1) return false;
  *out = (double)t + sec;
  return true;
}

/* ---- results ---- */

typedef struct run_pick {
  const char *host, *gpu_type, *run_id;
  double newest; /* the run's newest row time (-inf when none parses) */
  const gb_row *info; /* a row of the run, for gpubench_run_info */
  bool keep;          /* the newest run of its machine */
} run_pick;

typedef struct sample {
  char *family;  /* the metric name */
  char *labels;  /* {...} rendered */
  const char *help;
  const char *benchmark, *metric; /* what the name was made from */
  double v;
  bool peak; /* a datasheet peak, not a figure */
} sample;

typedef struct samples {
  sample *v;
  size_t n, cap;
} samples;

static int cmp_sample(const void *a, const void *b) {
  const sample *x = a, *y = b;
  int c = strcmp(x->family, y->family);
  if (c) return c;
  c = strcmp(x->labels, y->labels);
  if (c) return c;
  return (x->v > y->v) - (x->v < y->v);
}

static int cmp_run(const void *a, const void *b) {
  const run_pick *x = a, *y = b;
  int c = strcmp(x->host, y->host);
  if (!c) c = strcmp(x->gpu_type, y->gpu_type);
  if (!c) c = strcmp(x->run_id, y->run_id);
  return c;
}

static uint64_t fnv_str(uint64_t h, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s;; p++) {
    h = (h ^ *p) * 1099511628211ull;
    if (!*p) return h;
  }
}

/* The slot of (host, gpu_type[, run_id]) in an open-addressing table of
 * run indices + 1 (0: empty) of cap slots, a power of two: its own or the
 * empty one where it goes. Linear in rows overall. */
static size_t run_slot(const size_t *tab, size_t cap, const run_pick *runs, const gb_row *r, bool by_run) {
  uint64_t h = fnv_str(fnv_str(1469598103934665603ull, r->host), r->gpu_type);
  if (by_run) h = fnv_str(h, r->run_id);
  size_t j = h & (cap - 1);
  for (; tab[j]; j = (j + 1) & (cap - 1)) {
    const run_pick *p = &runs[tab[j] - 1];
    if (strcmp(p->host, r->host) == 0 && strcmp(p->gpu_type, r->gpu_type) == 0 &&
        (!by_run || strcmp(p->run_id, r->run_id) == 0))
      return j;
  }
  return j;
}

/* Every (machine, run) with its newest time, the newest run of each machine
 * marked keep, and each row's run (row_run[i]). */
static gb_err pick_runs(const gb_results *res, run_pick **out, size_t *nruns, size_t **row_run) {
  size_t cap = 16;
  while (cap < 2 * res->nrows) cap *= 2;
  size_t *tab = calloc(cap, sizeof *tab), *mach = calloc(cap, sizeof *mach);
  run_pick *runs = malloc(res->nrows * sizeof *runs);
  *row_run = malloc(res->nrows * sizeof **row_run);
  gb_err e = tab && mach && runs && *row_run ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory for runs");
  size_t n = 0;
  for (size_t i = 0; i < res->nrows && !e; i++) {
    const gb_row *r = &res->rows[i];
    double t;
    if (!gb_prom_parse_time(r->timestamp, &t)) t = -INFINITY;
    size_t j = run_slot(tab, cap, runs, r, true);
    if (!tab[j]) {
      runs[n] = (run_pick){r->host, r->gpu_type, r->run_id, t, r, false};
      tab[j] = ++n;
    } else if (t > runs[tab[j] - 1].newest) {
      runs[tab[j] - 1].newest = t;
      runs[tab[j] - 1].info = r;
    }
    (*row_run)[i] = tab[j] - 1;
  }
  for (size_t i = 0; i < n && !e; i++) { /* the newest of each machine; ties by run_id */
    size_t j = run_slot(mach, cap, runs, runs[i].info, false);
    if (!mach[j]) {
      mach[j] = i + 1;
      continue;
    }
    const run_pick *k = &runs[mach[j] - 1];
    if (runs[i].newest > k->newest || (runs[i].newest == k->newest && strcmp(runs[i].run_id, k->run_id) > 0))
      mach[j] = i + 1;
  }
  for (size_t j = 0; j < cap && !e; j++)
    if (mach[j]) runs[mach[j] - 1].keep = true;
  free(tab);
  free(mach);
  *out = runs;
  *nruns = n;
  return e;
}

static gb_err add_sample(samples *s, const sample *proto, gb_buf *labels) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 256;
    sample *p = realloc(s->v, nc * sizeof *p);
    if (!p) return gb_fail(GB_E_NOMEM, "out of memory for metrics");
    s->v = p;
    s->cap = nc;
  }
  char *f = strdup(proto->family), *l = strndup(labels->data ? labels->data : "", labels->len);
  if (!f || !l) {
    free(f);
    free(l);
    return gb_fail(GB_E_NOMEM, "out of memory for metrics");
  }
  sample *d = &s->v[s->n++];
  *d = *proto;
  d->family = f;
  d->labels = l;
  return GB_OK;
}

static void size_label(const gb_row *r, char *buf, size_t n) {
  buf[0] = '\0';
  if (r->m != GB_NA && r->n != GB_NA && r->k != GB_NA)
    snprintf(buf, n, "%lldx%lldx%lld", (long long)r->m, (long long)r->n, (long long)r->k);
  else if (r->bytes != GB_NA)
    snprintf(buf, n, "%lld", (long long)r->bytes);
}

/* The figure (and peak) samples of one row. */
static gb_err row_samples(const gb_row *r, samples *s, gb_buf *lb) {
  char bench[64], fam[256], peakfam[256], sz[96], count[16];
  gb_prom_name(bench, sizeof bench, r->benchmark);
  const gb_metric_desc *md = gb_desc_metric(r->benchmark, r->metric);
  double scale = 1;
  const char *help = "a gpubench figure (the metric is not in gpubench's table: value in the unit label)";
  if (md) { /* a figure of another timing window is another family: gpubench_gemm_sustained_throughput_... */
    char q[96];
    snprintf(q, sizeof q, "%s%s%s", md->window ? md->window : "", md->window ? "_" : "", md->quantity);
    snprintf(fam, sizeof fam, "gpubench_%s_%s_%s", bench, q, md->base_unit);
    snprintf(peakfam, sizeof peakfam, "gpubench_%s_%s_peak_%s", bench, q, md->base_unit);
    scale = md->to_base;
    help = md->help;
  } else {
    char met[64];
    gb_prom_name(met, sizeof met, r->metric);
    snprintf(fam, sizeof fam, "gpubench_%s_%s", bench, met);
    snprintf(peakfam, sizeof peakfam, "gpubench_%s_%s_peak", bench, met);
  }
  size_label(r, sz, sizeof sz);
  if (r->gpu_count > 0) snprintf(count, sizeof count, "%d", r->gpu_count);
  else count[0] = '\0';
  gb_prom_label L[] = {{"gpu_type", r->gpu_type}, {"host", r->host}, {"gpu_count", count},
                       {"case", r->case_name},   {"dtype", r->dtype}, {"size", sz},
                       {"variant", r->variant},  {"settings", r->settings},
                       {"unit", md ? NULL : r->unit},
                       {"status", gb_status_name(r->status)}};
  size_t nl = sizeof L / sizeof L[0];
  lb->len = 0;
  gb_err e = put_labels(lb, L, nl);
  sample p = {fam, NULL, help, r->benchmark, r->metric, r->value * scale, false};
  if (!e) e = add_sample(s, &p, lb);
  if (!e && !isnan(r->peak)) {
    lb->len = 0;
    e = put_labels(lb, L, nl - 1); /* the peak does not depend on the status */
    p = (sample){peakfam, NULL, "datasheet or theoretical peak of the figure of the same labels",
                 r->benchmark, r->metric, r->peak * scale, true};
    if (!e) e = add_sample(s, &p, lb);
  }
  return e;
}

/* Two different figures (benchmark, metric, figure or peak) must never share
 * a metric name: the second would pass for the first, or the two would be
 * merged into one median. */
static gb_err check_collision(const sample *first, const sample *x) {
  if (strcmp(first->benchmark, x->benchmark) == 0 && strcmp(first->metric, x->metric) == 0 && first->peak == x->peak)
    return GB_OK;
  return gb_fail(GB_E_INPUT,
                 "two different figures map onto the metric name %s: benchmark \"%s\" metric \"%s\"%s and "
                 "benchmark \"%s\" metric \"%s\"%s; rename one in the results file",
                 first->family, first->benchmark, first->metric, first->peak ? " (its peak)" : "", x->benchmark,
                 x->metric, x->peak ? " (its peak)" : "");
}

/* Families in name order, each series the median of its rows. */
static gb_err write_samples(samples *s, gb_buf *out, size_t *written) {
  if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_sample); /* NULL when no row makes a sample */
  const sample *first = NULL;
  gb_err e = GB_OK;
  for (size_t i = 0; i < s->n && !e;) {
    sample *v = s->v;
    size_t j = i + 1;
    while (j < s->n && strcmp(v[j].family, v[i].family) == 0 && strcmp(v[j].labels, v[i].labels) == 0) j++;
    /* one series: the median of its rows (sorted by value) */
    size_t c = j - i;
    double m = c % 2 ? v[i + c / 2].v : (v[i + c / 2 - 1].v + v[i + c / 2].v) / 2;
    if (!first || strcmp(first->family, v[i].family) != 0) {
      e = gb_prom_put_family(out, v[i].family, "gauge", v[i].help);
      first = &v[i];
    }
    for (size_t k = i; k < j && !e; k++) e = check_collision(first, &v[k]);
    char num[64];
    fmt_value(num, sizeof num, m);
    if (!e) e = gb_buf_printf(out, "%s%s %s\n", v[i].family, v[i].labels, num);
    if (!v[i].peak) (*written)++;
    i = j;
  }
  return e;
}

/* gpubench_run_info and gpubench_run_timestamp_seconds of the kept runs. */
static gb_err write_runs(run_pick *runs, size_t nruns, gb_buf *out) {
  size_t nm = 0;
  for (size_t i = 0; i < nruns; i++)
    if (runs[i].keep) runs[nm++] = runs[i];
  if (nm) qsort(runs, nm, sizeof *runs, cmp_run);
  gb_err e = gb_prom_put_family(out, "gpubench_run_info", "gauge",
                                "the newest run of each machine: versions of its driver, CUDA and libraries (value 1)");
  for (size_t i = 0; i < nm && !e; i++) {
    const gb_row *r = runs[i].info;
    gb_prom_label L[] = {{"run_id", r->run_id}, {"host", r->host},     {"gpu_type", r->gpu_type},
                         {"gpu_name", r->gpu_name}, {"driver", r->driver}, {"cuda", r->cuda},
                         {"cublaslt", r->cublaslt}, {"nvrtc", r->nvrtc},   {"nccl", r->nccl},
                         {"git_sha", r->git_sha},   {"gpu_uuid", r->gpu_uuid}};
    e = gb_prom_put_sample(out, "gpubench_run_info", L, sizeof L / sizeof L[0], 1);
  }
  if (!e) e = gb_prom_put_family(out, "gpubench_run_timestamp_seconds", "gauge",
                                 "time of the newest row of the run, seconds since the epoch");
  for (size_t i = 0; i < nm && !e; i++) {
    if (!isfinite(runs[i].newest)) continue;
    gb_prom_label L[] = {{"run_id", runs[i].run_id}, {"host", runs[i].host}, {"gpu_type", runs[i].gpu_type}};
    e = gb_prom_put_sample(out, "gpubench_run_timestamp_seconds", L, 3, runs[i].newest);
  }
  return e;
}

gb_err gb_prom_export_results(const gb_results *res, gb_buf *out, size_t *nsamples) {
  if (nsamples) *nsamples = 0;
  if (!res || res->nrows == 0) return gb_fail(GB_E_INPUT, "no results rows to export");
  run_pick *runs = NULL;
  size_t nruns = 0, *row_run = NULL, written = 0;
  samples s = {0};
  gb_buf lb = {0};
  gb_err e = pick_runs(res, &runs, &nruns, &row_run);
  for (size_t i = 0; i < res->nrows && !e; i++) {
    const gb_row *r = &res->rows[i];
    if (runs[row_run[i]].keep && !isnan(r->value)) e = row_samples(r, &s, &lb);
  }
  size_t mark = out->len;
  if (!e) e = write_samples(&s, out, &written);
  if (!e) e = write_runs(runs, nruns, out);
  if (e) out->len = mark;
  else if (nsamples) *nsamples = written;
  for (size_t i = 0; i < s.n; i++) {
    free(s.v[i].family);
    free(s.v[i].labels);
  }
  free(s.v);
  free(runs);
  free(row_run);
  gb_buf_free(&lb);
  return e;
}

/* ---- Pushgateway group paths ---- */

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
