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
} run_pick;

typedef struct sample {
  char *family;  /* the metric name */
  char *labels;  /* {...} rendered */
  const char *help;
  double v;
  bool peak; /* a datasheet peak, not a figure */
} sample;

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

static bool same_machine(const run_pick *p, const gb_row *r) {
  return strcmp(p->host, r->host) == 0 && strcmp(p->gpu_type, r->gpu_type) == 0;
}

static gb_err add_sample(sample **v, size_t *n, size_t *cap, const char *family, gb_buf *labels, const char *help,
                         double value, bool peak) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 256;
    sample *p = realloc(*v, nc * sizeof *p);
    if (!p) return gb_fail(GB_E_NOMEM, "out of memory for metrics");
    *v = p;
    *cap = nc;
  }
  char *f = strdup(family), *l = strndup(labels->data ? labels->data : "", labels->len);
  if (!f || !l) {
    free(f);
    free(l);
    return gb_fail(GB_E_NOMEM, "out of memory for metrics");
  }
  (*v)[(*n)++] = (sample){f, l, help, value, peak};
  return GB_OK;
}

static void size_label(const gb_row *r, char *buf, size_t n) {
  buf[0] = '\0';
  if (r->m != GB_NA && r->n != GB_NA && r->k != GB_NA)
    snprintf(buf, n, "%lldx%lldx%lld", (long long)r->m, (long long)r->n, (long long)r->k);
  else if (r->bytes != GB_NA)
    snprintf(buf, n, "%lld", (long long)r->bytes);
}

gb_err gb_prom_export_results(const gb_results *res, gb_buf *out, size_t *nsamples) {
  if (nsamples) *nsamples = 0;
  if (!res || res->nrows == 0) return gb_fail(GB_E_INPUT, "no results rows to export");
  gb_err e = GB_OK;
  /* every (machine, run) with its newest time */
  run_pick *runs = NULL;
  size_t nruns = 0, rcap = 0;
  sample *s = NULL;
  size_t ns = 0, scap = 0;
  gb_buf lb = {0};
  for (size_t i = 0; i < res->nrows; i++) {
    const gb_row *r = &res->rows[i];
    double t;
    if (!gb_prom_parse_time(r->timestamp, &t)) t = -INFINITY;
    size_t j = nruns;
    /* rows of one run are usually together: look from the end */
    while (j > 0) {
      const run_pick *p = &runs[j - 1];
      if (same_machine(p, r) && strcmp(p->run_id, r->run_id) == 0) break;
      j--;
    }
    if (j == 0) {
      if (nruns == rcap) {
        size_t nc = rcap ? rcap * 2 : 16;
        run_pick *p = realloc(runs, nc * sizeof *p);
        if (!p) {
          e = gb_fail(GB_E_NOMEM, "out of memory for runs");
          goto done;
        }
        runs = p;
        rcap = nc;
      }
      runs[nruns++] = (run_pick){r->host, r->gpu_type, r->run_id, t, r};
    } else if (t > runs[j - 1].newest) {
      runs[j - 1].newest = t;
      runs[j - 1].info = r;
    }
  }
  if (nruns) qsort(runs, nruns, sizeof *runs, cmp_run); /* runs is NULL with no row */
  /* keep the newest run of each machine: compact runs[] to one per machine */
  size_t nm = 0;
  for (size_t i = 0; i < nruns; i++) {
    if (nm > 0 && same_machine(&runs[nm - 1], runs[i].info)) {
      run_pick *k = &runs[nm - 1];
      if (runs[i].newest > k->newest || (runs[i].newest == k->newest && strcmp(runs[i].run_id, k->run_id) > 0))
        *k = runs[i];
    } else {
      runs[nm++] = runs[i];
    }
  }
  for (size_t i = 0; i < res->nrows && !e; i++) {
    const gb_row *r = &res->rows[i];
    size_t j = 0;
    while (j < nm && !(same_machine(&runs[j], r) && strcmp(runs[j].run_id, r->run_id) == 0)) j++;
    if (j == nm || isnan(r->value)) continue;
    char bench[64], fam[256], peakfam[256], sz[96], count[16];
    gb_prom_name(bench, sizeof bench, r->benchmark);
    const gb_metric_desc *md = gb_desc_metric(r->benchmark, r->metric);
    double scale = 1;
    const char *help = "a gpubench figure (the metric is not in gpubench's table: value in the unit label)";
    if (md) {
      snprintf(fam, sizeof fam, "gpubench_%s_%s_%s", bench, md->quantity, md->base_unit);
      snprintf(peakfam, sizeof peakfam, "gpubench_%s_%s_peak_%s", bench, md->quantity, md->base_unit);
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
    lb.len = 0;
    e = put_labels(&lb, L, nl);
    if (!e) e = add_sample(&s, &ns, &scap, fam, &lb, help, r->value * scale, false);
    if (!e && !isnan(r->peak)) {
      lb.len = 0;
      e = put_labels(&lb, L, nl - 1); /* the peak does not depend on the status */
      if (!e)
        e = add_sample(&s, &ns, &scap, peakfam, &lb, "datasheet or theoretical peak of the figure of the same labels",
                       r->peak * scale, true);
    }
  }
  if (e) goto done;
  if (ns) qsort(s, ns, sizeof *s, cmp_sample); /* s is NULL when no row makes a sample */
  const char *last = NULL;
  size_t written = 0;
  for (size_t i = 0; i < ns && !e;) {
    size_t j = i + 1;
    while (j < ns && strcmp(s[j].family, s[i].family) == 0 && strcmp(s[j].labels, s[i].labels) == 0) j++;
    /* one series: the median of its rows (sorted by value) */
    size_t c = j - i;
    double v = c % 2 ? s[i + c / 2].v : (s[i + c / 2 - 1].v + s[i + c / 2].v) / 2;
    if (!last || strcmp(last, s[i].family) != 0) {
      e = gb_prom_put_family(out, s[i].family, "gauge", s[i].help);
      last = s[i].family;
    }
    char num[64];
    fmt_value(num, sizeof num, v);
    if (!e) e = gb_buf_printf(out, "%s%s %s\n", s[i].family, s[i].labels, num);
    if (!s[i].peak) written++;
    i = j;
  }
  if (!e) e = gb_prom_put_family(out, "gpubench_run_info", "gauge",
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
  if (nsamples) *nsamples = written;
done:
  for (size_t i = 0; i < ns; i++) {
    free(s[i].family);
    free(s[i].labels);
  }
  free(s);
  free(runs);
  gb_buf_free(&lb);
  return e;
}
