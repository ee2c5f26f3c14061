/* gb_history: per-key series over runs and their change points. */
#include "gb_history.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_escape.h"
#include "gb_gate.h"
#include "gb_stats.h"

typedef struct hist_row {
  char *key;
  size_t run;
  const gb_row *row;
} hist_row;

static int cmp_run(const void *a, const void *b) {
  const gb_history_run *x = a, *y = b;
  int c = strcmp(x->timestamp, y->timestamp);
  return c ? c : strcmp(x->run_id, y->run_id);
}

static int cmp_hist_row(const void *a, const void *b) {
  const hist_row *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c) return c;
  return (x->run > y->run) - (x->run < y->run);
}

/* A file-name stem: letters, digits, '-', '.', '_' kept, the rest '_'. */
static char *make_stem(const char *key) {
  size_t n = strlen(key);
  char *s = malloc(n + 1);
  if (!s) return NULL;
  for (size_t i = 0; i <= n; i++) {
    char c = key[i];
    s[i] = (c == '\0' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '.' || c == '_')
               ? c
               : '_';
  }
  return s;
}

/* FNV-1a of a string. */
static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

void gb_history_free(gb_history *h) {
  for (size_t i = 0; i < h->nseries; i++) {
    gb_history_series *s = &h->series[i];
    free(s->key);
    free(s->stem);
    free(s->run);
    free(s->value);
    free(s->changes);
  }
  free(h->series);
  free(h->runs);
  memset(h, 0, sizeof *h);
}

typedef struct run_at {
  gb_history_run run;
  size_t at; /* its index before the sort */
} run_at;

static int cmp_run_at(const void *a, const void *b) { return cmp_run(&((const run_at *)a)->run, &((const run_at *)b)->run); }

/* The runs by run_id through an open-addressing hash index (a scan of the
 * runs per row was quadratic in the number of runs). */
static gb_err find_runs(const gb_results *res, gb_history *h, size_t *run_of_row) {
  size_t n = res->nrows, cap = 16;
  while (cap < 2 * n + 1) cap *= 2;
  h->runs = calloc(n ? n : 1, sizeof *h->runs);
  size_t *slot = calloc(cap, sizeof *slot); /* run + 1; 0 empty */
  size_t *order = malloc((n ? n : 1) * sizeof *order); /* run before the sort -> after */
  if (!h->runs || !slot || !order) {
    free(slot);
    free(order);
    return gb_fail(GB_E_NOMEM, "out of memory for runs");
  }
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = &res->rows[i];
    size_t k = (size_t)hash_str(r->run_id) & (cap - 1);
    while (slot[k] && strcmp(h->runs[slot[k] - 1].run_id, r->run_id) != 0) k = (k + 1) & (cap - 1);
    if (!slot[k]) {
      slot[k] = ++h->nruns;
      gb_history_run *hr = &h->runs[h->nruns - 1];
      hr->run_id = r->run_id;
      hr->timestamp = r->timestamp;
      hr->gpu_uuid = r->gpu_uuid;
      hr->host = r->host;
      hr->driver = r->driver;
      hr->cuda = r->cuda;
      hr->git_sha = r->git_sha;
    } else if (strcmp(r->timestamp, h->runs[slot[k] - 1].timestamp) < 0) {
      h->runs[slot[k] - 1].timestamp = r->timestamp;
    }
    run_of_row[i] = slot[k] - 1;
  }
  /* sort by time, remembering where each run went */
  run_at *tmp = malloc((h->nruns ? h->nruns : 1) * sizeof *tmp);
  if (!tmp) {
    free(slot);
    free(order);
    return gb_fail(GB_E_NOMEM, "out of memory for runs");
  }
  for (size_t j = 0; j < h->nruns; j++) tmp[j] = (run_at){h->runs[j], j};
  qsort(tmp, h->nruns, sizeof *tmp, cmp_run_at);
  for (size_t j = 0; j < h->nruns; j++) {
    h->runs[j] = tmp[j].run;
    order[tmp[j].at] = j;
  }
  for (size_t i = 0; i < n; i++) run_of_row[i] = order[run_of_row[i]];
  free(tmp);
  free(slot);
  free(order);
  return GB_OK;
}

/* The smallest relative step (fraction) that the step test flags in a
 * series of n points and relative noise rel, with k points after it
 * (gb_changepoint.h), and never under the minimum effect; crit is
 * gb_cp_critical for the series. */
static double step_mdc(double rel, size_t n, size_t k, const gb_cp_options *opt, double crit) {
  if (n < 2 * opt->min_segment || k < opt->min_segment || n - k < opt->min_segment) return NAN;
  double step = crit * GB_CP_MEDIAN_SE * rel * sqrt(1.0 / (double)(n - k) + 1.0 / (double)k);
  return fmax(step, opt->min_effect_pct / 100);
}

/* Noise, detectable step and drift of a series (see gb_history.h). */
static void assess(gb_history_series *s, const gb_cp_options *opt) {
  size_t n = s->n;
  s->noise_pct = s->mdc_pct = s->drift_pct_per_run = s->drift_total_pct = NAN;
  s->runs_for_10pct = 0;
  s->drift = false;
  if (n < 2) return;
  double med = gb_median(s->value, n), sigma = gb_cp_noise(s->value, n);
  if (!(fabs(med) > 0) || isnan(sigma)) return;
  double rel = sigma / fabs(med);
  s->noise_pct = rel * 100;
  double crit = n >= 2 * opt->min_segment ? gb_cp_critical(opt->alpha, n - 2 * opt->min_segment + 1, n) : NAN;
  s->mdc_pct = step_mdc(rel, n, opt->min_segment, opt, crit) * 100;
  for (size_t k = opt->min_segment; k + opt->min_segment <= n; k++)
    if (step_mdc(rel, n, k, opt, crit) <= 0.10) {
      s->runs_for_10pct = k;
      break;
    }
  if (n < 2 * opt->min_segment) return;
  /* least squares line over the point index */
  double mx = (double)(n - 1) / 2, my = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; i++) my += s->value[i];
  my /= (double)n;
  for (size_t i = 0; i < n; i++) {
    sxx += ((double)i - mx) * ((double)i - mx);
    sxy += ((double)i - mx) * (s->value[i] - my);
  }
  double b = sxy / sxx, rss_line = 0, rss_steps = 0;
  for (size_t i = 0; i < n; i++) {
    double r = s->value[i] - (my + b * ((double)i - mx));
    rss_line += r * r;
  }
  for (size_t c = 0; c <= s->nchanges; c++) {
    size_t lo = c ? s->changes[c - 1].index : 0, hi = c < s->nchanges ? s->changes[c].index : n;
    double m = 0;
    for (size_t i = lo; i < hi; i++) m += s->value[i];
    m /= (double)(hi - lo);
    for (size_t i = lo; i < hi; i++) rss_steps += (s->value[i] - m) * (s->value[i] - m);
  }
  double sig = sqrt(rss_line / (double)(n - 2));
  if (sigma > sig) sig = sigma;
  double t = fabs(b) / (sig / sqrt(sxx));
  /* the steps must not beat the line as gb_changepoint's ramp test has it */
  bool steps_win = rss_line > rss_steps &&
                   (!(rss_steps > 0) || (double)n / 2 * log(rss_line / rss_steps) >= GB_CP_STEP_OVER_RAMP * log((double)n));
  if (!(t >= gb_cp_critical(opt->alpha, 1, n)) || steps_win) return;
  for (size_t c = 0; c < s->nchanges; c++)
    if ((s->changes[c].mean_after - s->changes[c].mean_before) * b < 0) return;
  double start = my + b * (0 - mx);
  if (!(fabs(start) > 0)) return;
  s->drift = true;
  s->drift_pct_per_run = b / start * 100;
  s->drift_total_pct = b * (double)(n - 1) / start * 100;
}

gb_err gb_history_build(const gb_results *res, const gb_cp_options *opt, gb_history *h) {
  memset(h, 0, sizeof *h);
  h->min_segment = opt->min_segment;
  if (opt->min_segment < 2 || !(opt->alpha > 0 && opt->alpha < 1) || !(opt->min_effect_pct >= 0))
    return gb_fail(GB_E_INPUT, "history: min segment must be >= 2, 0 < alpha < 1, threshold >= 0");
  size_t n = res->nrows;
  size_t *run_of_row = calloc(n ? n : 1, sizeof *run_of_row);
  hist_row *hr = calloc(n ? n : 1, sizeof *hr);
  double *vals = calloc(n ? n : 1, sizeof *vals);
  gb_err e = GB_OK;
  if (!run_of_row || !hr || !vals) e = gb_fail(GB_E_NOMEM, "out of memory for %zu rows", n);
  if (!e) e = find_runs(res, h, run_of_row);
  size_t nh = 0;
  for (size_t i = 0; i < n && !e; i++) {
    if (res->rows[i].status != GB_STATUS_OK && res->rows[i].status != GB_STATUS_THROTTLED) continue;
    hr[nh].row = &res->rows[i];
    hr[nh].run = run_of_row[i];
    if (!(hr[nh].key = gb_gate_key_label(hr[nh].row))) e = gb_fail(GB_E_NOMEM, "out of memory for keys");
    else nh++;
  }
  if (!e) qsort(hr, nh, sizeof *hr, cmp_hist_row);
  size_t nkeys = 0;
  for (size_t i = 0; i < nh; i++)
    if (i == 0 || strcmp(hr[i].key, hr[i - 1].key)) nkeys++;
  if (!e && nkeys && !(h->series = calloc(nkeys, sizeof *h->series)))
    e = gb_fail(GB_E_NOMEM, "out of memory for %zu series", nkeys);
  for (size_t i = 0; i < nh && !e;) {
    size_t j = i;
    while (j < nh && strcmp(hr[j].key, hr[i].key) == 0) j++;
    gb_history_series *s = &h->series[h->nseries++];
    s->benchmark = hr[i].row->benchmark;
    s->metric = hr[i].row->metric;
    s->unit = hr[i].row->unit;
    s->row = hr[i].row;
    s->direction = gb_metric_direction(s->benchmark, s->metric);
    s->key = hr[i].key;
    hr[i].key = NULL; /* moved */
    s->stem = make_stem(s->key);
    s->run = malloc((j - i) * sizeof *s->run);
    s->value = malloc((j - i) * sizeof *s->value);
    size_t cap = opt->max_changes ? opt->max_changes : (j - i) / opt->min_segment + 1;
    s->changes = malloc(cap * sizeof *s->changes);
    if (!s->stem || !s->run || !s->value || !s->changes) {
      e = gb_fail(GB_E_NOMEM, "out of memory for a series");
      break;
    }
    /* one point per run: the median of the run's repetitions */
    for (size_t a = i; a < j;) {
      size_t b = a, nv = 0;
      while (b < j && hr[b].run == hr[a].run) vals[nv++] = hr[b++].row->value;
      s->run[s->n] = hr[a].run;
      s->value[s->n++] = gb_median(vals, nv);
      a = b;
    }
    if (s->n >= 2 * opt->min_segment) h->nanalyzed++;
    e = gb_changepoints(s->value, s->n, opt, s->changes, &s->nchanges);
    if (!e) {
      s->fclass = (int)gb_desc_class(hr[i].row);
      assess(s, opt);
      if (s->drift) h->ndrift++;
      else if (s->nchanges) h->nchanged++;
    }
    i = j;
  }
  for (size_t i = 0; i < nh; i++) free(hr[i].key);
  free(hr);
  free(vals);
  free(run_of_row);
  if (e) gb_history_free(h);
  return e;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* s on one line, never a workflow command (core/gb_escape.h), in b: keys
 * and run ids come from the results files. */
static const char *one_line(gb_buf *b, const char *s, gb_err *e) {
  b->len = 0;
  if (!*e) *e = gb_esc_line(b, s ? s : "");
  if (!*e) *e = gb_buf_append(b, "", 1);
  return *e ? "" : b->data;
}

bool gb_history_env_change(const gb_history_run *a, const gb_history_run *b, char *buf, size_t n) {
  const struct {
    const char *name, *x, *y;
  } f[] = {{"GPU", a->gpu_uuid, b->gpu_uuid}, {"host", a->host, b->host}, {"driver", a->driver, b->driver},
           {"CUDA", a->cuda, b->cuda},        {"build", a->git_sha, b->git_sha}};
  size_t off = 0;
  if (n) buf[0] = '\0';
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    if (!f[i].x || !f[i].y || !*f[i].x || !*f[i].y || strcmp(f[i].x, f[i].y) == 0) continue;
    int w = snprintf(buf + off, off < n ? n - off : 0, "%s%s %s -> %s", off ? ", " : "", f[i].name, f[i].x, f[i].y);
    if (w > 0) off += (size_t)w;
    if (off >= n) off = n ? n - 1 : 0;
  }
  return n && buf[0];
}

/* The environment events: one line per pair of successive runs whose
 * environments differ. */
static gb_err format_events(const gb_history *h, gb_buf *t, gb_err *esc, gb_buf *out) {
  gb_err e = GB_OK;
  char what[1024];
  for (size_t i = 1; i < h->nruns && !e; i++) {
    if (!gb_history_env_change(&h->runs[i - 1], &h->runs[i], what, sizeof what)) continue;
    e = gb_buf_printf(out, "event   run %s (%s): %s\n", one_line(&t[0], h->runs[i].run_id, esc),
                      one_line(&t[1], h->runs[i].timestamp, esc), one_line(&t[2], what, esc));
  }
  return e;
}

gb_err gb_history_format_text(const gb_history *h, bool all, gb_buf *out) {
  gb_err e = GB_OK;
  gb_buf t[4] = {{0}};
  gb_err esc = GB_OK; /* an escaping failure (out of memory), kept apart from e, which the printf sets */
  for (size_t i = 0; i < h->nseries && !e; i++) {
    const gb_history_series *s = &h->series[i];
    if (all) {
      e = gb_buf_printf(out, "series  %s: %zu runs, %zu change%s, noise %.2f%%", one_line(&t[0], s->key, &esc), s->n,
                        s->nchanges, s->nchanges == 1 ? "" : "s", s->noise_pct);
      if (!e && !isnan(s->mdc_pct))
        e = gb_buf_printf(out, ", flags a step of %.2f%% once %zu runs follow it", s->mdc_pct, h->min_segment);
      if (!e && s->runs_for_10pct) e = gb_buf_printf(out, ", a 10%% step after %zu", s->runs_for_10pct);
      if (!e) e = gb_buf_puts(out, "\n");
    }
    if (!e && s->drift) {
      const char *how = s->direction == 0 ? "drifting" : (s->drift_pct_per_run * s->direction < 0 ? "worse" : "better");
      e = gb_buf_printf(out, "drift   %s: %+.3f%% per run, %+.2f%% over runs %s..%s (%zu points, %s)",
                        one_line(&t[0], s->key, &esc), s->drift_pct_per_run, s->drift_total_pct,
                        one_line(&t[1], h->runs[s->run[0]].run_id, &esc),
                        one_line(&t[2], h->runs[s->run[s->n - 1]].run_id, &esc), s->n, how);
      if (!e && s->nchanges) e = gb_buf_printf(out, "; a line, not the %zu steps found along it", s->nchanges);
      if (!e) e = gb_buf_puts(out, "\n");
      continue;
    }
    for (size_t c = 0; c < s->nchanges && !e; c++) {
      const gb_change_point *cp = &s->changes[c];
      const gb_history_run *run = &h->runs[s->run[cp->index]];
      const gb_history_run *prev = &h->runs[s->run[cp->index - 1]];
      double pct = (cp->mean_after / cp->mean_before - 1.0) * 100.0;
      const char *how = s->direction == 0 ? "changed" : (pct * s->direction < 0 ? "worse" : "better");
      char env[1024];
      bool at_env = gb_history_env_change(prev, run, env, sizeof env);
      e = gb_buf_printf(out,
                        "%s %s: shifted at run %s (%s, point %zu of %zu, after run %s): mean %.6g -> %.6g "
                        "(%+.2f%%, %s), p=%.3g",
                        at_env ? "env    " : "change ", one_line(&t[0], s->key, &esc),
                        one_line(&t[1], run->run_id, &esc), one_line(&t[2], run->timestamp, &esc), cp->index + 1,
                        s->n, one_line(&t[3], prev->run_id, &esc), cp->mean_before, cp->mean_after, pct, how,
                        cp->p_value);
      if (!e && at_env) /* the environment changed there: not a performance change of one setup */
        e = gb_buf_printf(out, "; at an environment change: %s", one_line(&t[0], env, &esc));
      if (!e) e = gb_buf_puts(out, "\n");
    }
  }
  if (!e) e = format_events(h, t, &esc, out);
  if (!e)
    e = gb_buf_printf(out,
                      "history: %zu runs, %zu series, %zu long enough to test, %zu with a change point, %zu "
                      "drifting\n",
                      h->nruns, h->nseries, h->nanalyzed, h->nchanged, h->ndrift);
  /* what it can see: the smallest step over the headline series (all series when none) */
  double *m = malloc((h->nseries + 1) * sizeof *m), *k = malloc((h->nseries + 1) * sizeof *k);
  if (!e && (!m || !k)) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (int pass = 0; pass < 2 && !e; pass++) {
    size_t nm = 0, nk = 0, never = 0;
    for (size_t i = 0; i < h->nseries; i++) {
      const gb_history_series *s = &h->series[i];
      if (pass == 0 && s->fclass != GB_FCLASS_HEADLINE) continue;
      if (isnan(s->mdc_pct)) continue;
      m[nm++] = s->mdc_pct;
      if (s->runs_for_10pct) k[nk++] = (double)s->runs_for_10pct;
      else never++;
    }
    if (!nm) continue;
    qsort(m, nm, sizeof *m, cmp_dbl);
    e = gb_buf_printf(out,
                      "history: with these runs it flags a step of %.2f%% or more (median over %zu %s series; "
                      "%.2f%% to %.2f%%) once %zu runs follow it; a 10%% step",
                      gb_median(m, nm), nm, pass == 0 ? "headline" : "", m[0], m[nm - 1], h->min_segment);
    if (!e && nk) e = gb_buf_printf(out, " once %.0f runs follow it (median)", gb_median(k, nk));
    if (!e && never) e = gb_buf_printf(out, "%s%zu series too noisy for it here", nk ? "; " : ": ", never);
    if (!e) e = gb_buf_puts(out, "\n");
    break;
  }
  if (!e && h->nanalyzed == 0)
    e = gb_buf_printf(out, "history: no series has %zu runs yet (2 x min segment): nothing can be flagged before\n",
                      2 * h->min_segment);
  free(m);
  free(k);
  for (size_t i = 0; i < 4; i++) gb_buf_free(&t[i]);
  return e ? e : esc;
}
