/* gb_gate: key matching, per-key statistics and verdicts, machine identity
 * and the gate's exit code. Report formats are in gb_gate_report.c. */
#include "gb_gate.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_mannwhitney.h"
#include "gb_stats.h"

static const char *const k_verdict_names[GB_VERDICT_COUNT] = {
    "regression", "failed", "missing", "noise", "insufficient", "new", "improvement", "unchanged"};

const char *gb_verdict_name(gb_verdict v) { return (unsigned)v < GB_VERDICT_COUNT ? k_verdict_names[v] : "?"; }

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int gb_metric_direction(const char *m) {
  static const char *const higher[] = {"tflops", "tops", "gflops", "gbps", "speedup", "tokens_per_s"};
  for (size_t i = 0; i < sizeof higher / sizeof higher[0]; i++)
    if (strcmp(m, higher[i]) == 0) return 1;
  if (ends_with(m, "_gbps") || ends_with(m, "_tflops") || ends_with(m, "_per_s")) return 1;
  if (strncmp(m, "latency", 7) == 0) return -1;
  if (ends_with(m, "_ns") || ends_with(m, "_us") || ends_with(m, "_ms") || ends_with(m, "_s")) return -1;
  return 0;
}

gb_gate_options gb_gate_defaults(void) {
  gb_gate_options o = {.threshold_pct = NAN, .alpha = NAN, .min_reps = 6, .allow_mismatch = false, .config = NULL};
  return o;
}

/* ---- grouping rows by key ---- */

typedef struct keyed_row {
  char *key; /* internal key: fields joined by \x1f */
  int side;  /* 0 baseline, 1 current */
  const gb_row *row;
} keyed_row;

static void put_int(gb_buf *b, int64_t v) {
  if (v != GB_NA) gb_buf_printf(b, "%lld", (long long)v);
}

/* Internal key, fields separated by the ASCII unit separator. */
static char *make_key(const gb_row *r) {
  gb_buf b = {0};
  gb_buf_printf(&b, "%s\x1f%d\x1f%s\x1f%s\x1f%s\x1f", r->gpu_type, r->gpu_count, r->benchmark, r->case_name,
                r->dtype);
  put_int(&b, r->m);
  gb_buf_append(&b, "\x1f", 1);
  put_int(&b, r->n);
  gb_buf_append(&b, "\x1f", 1);
  put_int(&b, r->k);
  gb_buf_append(&b, "\x1f", 1);
  put_int(&b, r->bytes);
  gb_buf_printf(&b, "\x1f%s\x1f%s", r->metric, r->settings);
  if (gb_buf_append(&b, "", 1)) {
    gb_buf_free(&b);
    return NULL;
  }
  return b.data;
}

char *gb_gate_key_label(const gb_row *r) {
  gb_buf b = {0};
  gb_buf_printf(&b, "%s x%d %s/%s", r->gpu_type, r->gpu_count, r->benchmark, r->case_name);
  if (r->dtype[0]) gb_buf_printf(&b, " %s", r->dtype);
  if (r->m != GB_NA) gb_buf_printf(&b, " m=%lld", (long long)r->m);
  if (r->n != GB_NA) gb_buf_printf(&b, " n=%lld", (long long)r->n);
  if (r->k != GB_NA) gb_buf_printf(&b, " k=%lld", (long long)r->k);
  if (r->bytes != GB_NA) gb_buf_printf(&b, " bytes=%lld", (long long)r->bytes);
  gb_buf_printf(&b, " %s", r->metric);
  if (r->settings[0]) gb_buf_printf(&b, " [%s]", r->settings);
  if (gb_buf_append(&b, "", 1)) {
    gb_buf_free(&b);
    return NULL;
  }
  return b.data;
}

static int cmp_keyed(const void *a, const void *b) {
  const keyed_row *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c) return c;
  if (x->side != y->side) return x->side - y->side;
  return (x->row > y->row) - (x->row < y->row); /* file order */
}

/* ---- machine identity ---- */

typedef struct ident_set {
  size_t n;
  const char *v[64]; /* distinct values; more than 64 are not tracked */
} ident_set;

static void ident_add(ident_set *s, const char *v) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i], v) == 0) return;
  if (s->n < 64) s->v[s->n++] = v;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool ident_equal(ident_set *a, ident_set *b) {
  qsort(a->v, a->n, sizeof a->v[0], cmp_str);
  qsort(b->v, b->n, sizeof b->v[0], cmp_str);
  if (a->n != b->n) return false;
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->v[i], b->v[i])) return false;
  return true;
}

static void ident_join(const ident_set *s, char *buf, size_t n) {
  size_t off = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < s->n && off < n; i++)
    off += (size_t)snprintf(buf + off, n - off, "%s%s", i ? " " : "", s->v[i][0] ? s->v[i] : "(empty)");
}

/* The distinct values of one string field (at offset off in gb_row) over
 * the rows of res, empty ones left out with skip_empty. */
static void ident_collect(const gb_results *res, size_t off, bool skip_empty, ident_set *s) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < res->nrows; i++) {
    const char *v = *(const char *const *)((const char *)&res->rows[i] + off);
    if (!skip_empty || (v && *v)) ident_add(s, v);
  }
}

/* Sets rep->mismatch (or allowed_mismatch) with a message naming the first
 * differing field. */
static void check_identity(const gb_results *base, const gb_results *cur, bool allow, gb_gate_report *rep) {
  static const char *const names[3] = {"gpu_type", "driver", "cuda"};
  static const size_t offs[3] = {offsetof(gb_row, gpu_type), offsetof(gb_row, driver), offsetof(gb_row, cuda)};
  char a[200], b[200];
  for (int f = 0; f < 3; f++) {
    ident_set s[2];
    ident_collect(base, offs[f], false, &s[0]);
    ident_collect(cur, offs[f], false, &s[1]);
    if (!ident_equal(&s[0], &s[1])) {
      ident_join(&s[0], a, sizeof a);
      ident_join(&s[1], b, sizeof b);
      snprintf(rep->mismatch_msg, sizeof rep->mismatch_msg, "machine mismatch: %s: baseline %s, current %s", names[f],
               a, b);
      break;
    }
  }
  int maxcount[2] = {0, 0};
  const gb_results *side[2] = {base, cur};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < side[k]->nrows; i++)
      if (side[k]->rows[i].gpu_count > maxcount[k]) maxcount[k] = side[k]->rows[i].gpu_count;
  if (!rep->mismatch_msg[0] && maxcount[0] != maxcount[1])
    snprintf(rep->mismatch_msg, sizeof rep->mismatch_msg,
             "machine mismatch: gpu_count: baseline up to %d GPUs, current up to %d", maxcount[0], maxcount[1]);
  if (rep->mismatch_msg[0]) {
    if (allow)
      rep->allowed_mismatch = true;
    else
      rep->mismatch = true;
  }
}

/* Fills rep->libraries_msg: each library whose recorded versions differ
 * between the sides, where both recorded one (files from before the
 * columns were added record none). */
static void check_libraries(const gb_results *base, const gb_results *cur, gb_gate_report *rep) {
  static const char *const names[3] = {"cublaslt", "nvrtc", "nccl"};
  static const size_t offs[3] = {offsetof(gb_row, cublaslt), offsetof(gb_row, nvrtc), offsetof(gb_row, nccl)};
  size_t used = 0;
  for (int f = 0; f < 3; f++) {
    ident_set s[2];
    ident_collect(base, offs[f], true, &s[0]);
    ident_collect(cur, offs[f], true, &s[1]);
    if (!s[0].n || !s[1].n || ident_equal(&s[0], &s[1])) continue;
    char a[160], b[160];
    ident_join(&s[0], a, sizeof a);
    ident_join(&s[1], b, sizeof b);
    int n = snprintf(rep->libraries_msg + used, sizeof rep->libraries_msg - used, "%s%s %s -> %s", used ? ", " : "",
                     names[f], a, b);
    if (n < 0 || (size_t)n >= sizeof rep->libraries_msg - used) break;
    used += (size_t)n;
  }
}

/* ---- per-key statistics ---- */

static gb_err fill_side(gb_gate_side *s, keyed_row *rows, size_t n) {
  memset(s, 0, sizeof *s);
  s->median = s->lo = s->hi = s->cv = NAN;
  if (n == 0) return GB_OK;
  s->nrows = n;
  s->row = rows[0].row;
  s->values = malloc(n * sizeof *s->values);
  if (!s->values) return gb_fail(GB_E_NOMEM, "out of memory for samples");
  double lo = INFINITY, hi = -INFINITY, cv_rows = NAN;
  bool spread_known = true;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = rows[i].row;
    /* throttled rows passed their result check: the figure under the power or
     * heat cap is a real sample (a drop caused by throttling is a drop) */
    if (r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) {
      if (!s->failed) s->failed = r;
      continue;
    }
    s->values[s->nok++] = r->value;
    /* a row's own spread: [min, max], else value -/+ 3 stddev */
    double rl = r->min, rh = r->max;
    if (isnan(rl) && !isnan(r->stddev)) rl = r->value - 3 * r->stddev;
    if (isnan(rh) && !isnan(r->stddev)) rh = r->value + 3 * r->stddev;
    if (isnan(rl) || isnan(rh)) spread_known = false;
    if (!isnan(rl) && rl < lo) lo = rl;
    if (!isnan(rh) && rh > hi) hi = rh;
    if (r->value < lo) lo = r->value;
    if (r->value > hi) hi = r->value;
    if (!isnan(r->stddev) && r->value > 0) {
      double cv = r->stddev / r->value;
      if (isnan(cv_rows) || cv > cv_rows) cv_rows = cv;
    }
  }
  if (s->failed) s->row = s->failed;
  if (s->nok == 0) return GB_OK;
  gb_stats st = gb_stats_of(s->values, s->nok);
  s->median = st.median;
  /* CV across repetitions when there are several, else the rows' own. */
  if (s->nok >= 2 && st.mean > 0) s->cv = st.stddev / st.mean;
  if (!isnan(cv_rows) && (isnan(s->cv) || cv_rows > s->cv)) s->cv = cv_rows;
  /* A spread is known from several repetitions or from the rows' min/max/stddev. */
  if (spread_known || s->nok >= 2) {
    s->lo = lo;
    s->hi = hi;
  }
  return GB_OK;
}

static void judge(gb_gate_item *it, const gb_gate_options *opt, double base_threshold, double alpha) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  it->change_pct = it->ratio = it->threshold_pct = it->p_value = NAN;
  it->method = "";
  if (c->failed) {
    it->verdict = GB_VERDICT_FAILED;
    it->newly_failed = b->failed == NULL;
    snprintf(it->note, sizeof it->note, "%s:%ld: status %s%s%s", c->failed->file, c->failed->line,
             gb_status_name(c->failed->status), c->failed->detail[0] ? ": " : "", c->failed->detail);
    return;
  }
  if (b->nok == 0) {
    it->verdict = GB_VERDICT_INSUFFICIENT;
    snprintf(it->note, sizeof it->note, "no ok baseline row (%s:%ld: status %s)", b->row->file, b->row->line,
             gb_status_name(b->row->status));
    return;
  }
  if (!(b->median > 0)) {
    it->verdict = GB_VERDICT_INSUFFICIENT;
    snprintf(it->note, sizeof it->note, "baseline median is 0: no ratio");
    return;
  }
  it->ratio = c->median / b->median;
  it->change_pct = it->direction * (it->ratio - 1.0) * 100.0;
  double th = base_threshold;
  if (!isnan(b->cv) && 300.0 * b->cv > th) th = 300.0 * b->cv;
  if (!isnan(c->cv) && 300.0 * c->cv > th) th = 300.0 * c->cv;
  it->threshold_pct = th;
  bool significant;
  if (b->nok >= opt->min_reps && c->nok >= opt->min_reps) {
    gb_mw_result mw;
    if (gb_mann_whitney(b->values, b->nok, c->values, c->nok, &mw) != GB_OK) {
      it->verdict = GB_VERDICT_INSUFFICIENT;
      snprintf(it->note, sizeof it->note, "Mann-Whitney test failed: %s", gb_errmsg());
      return;
    }
    it->p_value = mw.p_value;
    it->method = mw.exact ? "mann-whitney exact" : "mann-whitney normal";
    significant = mw.p_value < alpha;
  } else {
    if (isnan(b->lo) || isnan(c->lo)) {
      it->verdict = GB_VERDICT_INSUFFICIENT;
      snprintf(it->note, sizeof it->note,
               "%zu baseline and %zu current samples and no min/max/stddev: no spread to judge by", b->nok, c->nok);
      return;
    }
    it->method = "ranges";
    significant = c->hi < b->lo || c->lo > b->hi;
  }
  if (fabs(it->change_pct) <= th)
    it->verdict = GB_VERDICT_UNCHANGED;
  else if (!significant)
    it->verdict = GB_VERDICT_NOISE;
  else
    it->verdict = it->change_pct < 0 ? GB_VERDICT_REGRESSION : GB_VERDICT_IMPROVEMENT;
}

static int cmp_item(const void *a, const void *b) {
  const gb_gate_item *x = a, *y = b;
  if (x->verdict != y->verdict) return (int)x->verdict - (int)y->verdict;
  return strcmp(x->key, y->key);
}

void gb_gate_report_free(gb_gate_report *rep) {
  for (size_t i = 0; i < rep->nitems; i++) {
    free(rep->items[i].key);
    free(rep->items[i].base.values);
    free(rep->items[i].cur.values);
  }
  free(rep->items);
  memset(rep, 0, sizeof *rep);
}

gb_err gb_gate_compare(const gb_results *base, const gb_results *cur, const gb_gate_options *opt,
                       gb_gate_report *rep) {
  memset(rep, 0, sizeof *rep);
  rep->geomean_ratio = NAN;
  const gb_gate_config *cfg = opt->config;
  double threshold = !isnan(opt->threshold_pct) ? opt->threshold_pct
                     : (cfg && !isnan(cfg->threshold_pct)) ? cfg->threshold_pct
                                                            : 5.0;
  double alpha = !isnan(opt->alpha) ? opt->alpha : (cfg && !isnan(cfg->alpha)) ? cfg->alpha : 0.01;
  if (!(threshold >= 0) || !(alpha > 0 && alpha < 1) || opt->min_reps < 2)
    return gb_fail(GB_E_INPUT, "gate: threshold must be >= 0 %%, alpha between 0 and 1, min_reps >= 2");
  rep->threshold_pct = threshold;
  rep->alpha = alpha;

  /* every metric needs a known direction before anything is compared */
  const gb_results *sides[2] = {base, cur};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sides[k]->nrows; i++) {
      const gb_row *r = &sides[k]->rows[i];
      if (gb_metric_direction(r->metric) == 0 && gb_gate_config_direction(cfg, r->benchmark, r->metric) == 0)
        return gb_fail(GB_E_INPUT,
                       "%s:%ld: metric: the gate does not know whether higher or lower is better: \"%s\" "
                       "(add [%s/%s] direction = higher or lower to a --config file)",
                       r->file, r->line, r->metric, r->benchmark, r->metric);
    }

  check_identity(base, cur, opt->allow_mismatch, rep);
  check_libraries(base, cur, rep);
  if (rep->mismatch) return GB_OK;

  size_t n = base->nrows + cur->nrows;
  keyed_row *kr = calloc(n ? n : 1, sizeof *kr);
  if (!kr) return gb_fail(GB_E_NOMEM, "out of memory for %zu rows", n);
  gb_err e = GB_OK;
  size_t nk = 0;
  for (int k = 0; k < 2 && !e; k++)
    for (size_t i = 0; i < sides[k]->nrows; i++) {
      kr[nk].row = &sides[k]->rows[i];
      kr[nk].side = k;
      if (!(kr[nk].key = make_key(kr[nk].row))) {
        e = gb_fail(GB_E_NOMEM, "out of memory for keys");
        break;
      }
      nk++;
    }
  if (!e) qsort(kr, nk, sizeof *kr, cmp_keyed);
  /* count distinct keys */
  size_t ngroups = 0;
  for (size_t i = 0; i < nk && !e; i++)
    if (i == 0 || strcmp(kr[i].key, kr[i - 1].key)) ngroups++;
  if (!e && ngroups) {
    rep->items = calloc(ngroups, sizeof *rep->items);
    if (!rep->items) e = gb_fail(GB_E_NOMEM, "out of memory for %zu keys", ngroups);
  }
  double log_sum = 0;
  size_t log_n = 0;
  for (size_t i = 0; i < nk && !e;) {
    size_t j = i, mid;
    while (j < nk && strcmp(kr[j].key, kr[i].key) == 0) j++;
    for (mid = i; mid < j && kr[mid].side == 0;) mid++;
    gb_gate_item *it = &rep->items[rep->nitems++];
    const gb_row *r0 = kr[i].row;
    it->benchmark = r0->benchmark;
    it->metric = r0->metric;
    it->direction = gb_gate_config_direction(cfg, r0->benchmark, r0->metric);
    if (it->direction == 0) it->direction = gb_metric_direction(r0->metric);
    if (!(it->key = gb_gate_key_label(r0)) || (e = fill_side(&it->base, kr + i, mid - i)) ||
        (e = fill_side(&it->cur, kr + mid, j - mid))) {
      if (!e) e = gb_fail(GB_E_NOMEM, "out of memory for keys");
      break;
    }
    it->change_pct = it->ratio = it->threshold_pct = it->p_value = NAN;
    it->method = "";
    if (mid == i) {
      it->verdict = it->cur.failed ? GB_VERDICT_FAILED : GB_VERDICT_NEW;
      if (it->cur.failed) {
        it->newly_failed = true;
        snprintf(it->note, sizeof it->note, "new row, %s:%ld: status %s%s%s", it->cur.failed->file,
                 it->cur.failed->line, gb_status_name(it->cur.failed->status), it->cur.failed->detail[0] ? ": " : "",
                 it->cur.failed->detail);
      }
    } else if (mid == j) {
      it->verdict = GB_VERDICT_MISSING;
      snprintf(it->note, sizeof it->note, "in the baseline (%s:%ld), not in the current results",
               it->base.row->file, it->base.row->line);
    } else {
      rep->common++;
      judge(it, opt, gb_gate_config_threshold(cfg, it->benchmark, it->metric, threshold), alpha);
      if (!isnan(it->ratio) && it->ratio > 0) {
        log_sum += it->direction > 0 ? log(it->ratio) : -log(it->ratio);
        log_n++;
      }
    }
    rep->count[it->verdict]++;
    if (it->newly_failed) rep->newly_failed++;
    if (it->verdict == GB_VERDICT_REGRESSION || it->verdict == GB_VERDICT_IMPROVEMENT ||
        it->verdict == GB_VERDICT_NOISE || it->verdict == GB_VERDICT_UNCHANGED)
      rep->compared++;
    i = j;
  }
  for (size_t i = 0; i < nk; i++) free(kr[i].key);
  free(kr);
  if (e) {
    gb_gate_report_free(rep);
    return e;
  }
  /* geometric mean = exp(mean(log ratio)), ratios oriented so > 1 is better */
  if (log_n) rep->geomean_ratio = exp(log_sum / (double)log_n);
  if (rep->nitems) qsort(rep->items, rep->nitems, sizeof *rep->items, cmp_item); /* no rows: items is NULL */
  return GB_OK;
}

int gb_gate_exit_code(const gb_gate_report *rep) {
  if (rep->mismatch) return 3;
  if (rep->count[GB_VERDICT_REGRESSION] || rep->newly_failed) return 1;
  if (rep->compared == 0) return 3;
  return 0;
}
