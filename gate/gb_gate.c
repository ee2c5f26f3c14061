/* gb_gate: key matching, per-key statistics and verdicts, machine identity
 * and the gate's exit code. Report formats are in gb_gate_report.c. */
#include "gb_gate.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_history.h"
#include "gb_noise.h"
#include "gb_stats.h"

static const char *const k_verdict_names[GB_VERDICT_COUNT] = {
    "regression", "failed",      "missing",     "not-comparable", "noise",      "insufficient",
    "new",        "improvement", "worse-info", "better-info",    "not-judged", "unchanged"};

/* Prior weight (degrees of freedom) of the floor against the runs' spread. */
#define NU0 GB_NOISE_NU0

const char *gb_verdict_name(gb_verdict v) { return (unsigned)v < GB_VERDICT_COUNT ? k_verdict_names[v] : "?"; }

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int gb_metric_direction(const char *benchmark, const char *m) {
  gb_dir d = gb_desc_direction(benchmark, m);
  if (d != GB_DIR_UNKNOWN) return (int)d;
  static const char *const higher[] = {"tflops", "tops", "gflops", "gbps", "speedup", "tokens_per_s"};
  for (size_t i = 0; i < sizeof higher / sizeof higher[0]; i++)
    if (strcmp(m, higher[i]) == 0) return 1;
  if (ends_with(m, "_gbps") || ends_with(m, "_tflops") || ends_with(m, "_per_s")) return 1;
  if (strncmp(m, "latency", 7) == 0) return -1;
  if (ends_with(m, "_ns") || ends_with(m, "_us") || ends_with(m, "_ms") || ends_with(m, "_s")) return -1;
  return 0;
}

gb_gate_options gb_gate_defaults(void) {
  gb_gate_options o = {.threshold_pct = NAN, .alpha = NAN, .allow_mismatch = false, .config = NULL, .noise = NULL};
  return o;
}

double gb_gate_z(double alpha) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; i++) {
    double mid = (lo + hi) / 2;
    if (erfc(mid / sqrt(2.0)) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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
  gb_buf_printf(&b, "\x1f%s", r->metric);
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

/* ---- per-figure statistics ---- */

static int cmp_row_run(const void *a, const void *b) {
  const gb_row *x = *(const gb_row *const *)a, *y = *(const gb_row *const *)b;
  int c = strcmp(x->run_id, y->run_id);
  return c ? c : (x > y) - (x < y);
}

static gb_err fill_side(gb_gate_side *s, keyed_row *rows, size_t n) {
  memset(s, 0, sizeof *s);
  s->median = s->mean_ln = s->sd_ln = s->rep_sd_ln = s->cv = NAN;
  if (n == 0) return GB_OK;
  s->nrows = n;
  s->row = rows[0].row;
  const gb_row **ok = malloc(n * sizeof *ok);
  double *tmp = malloc(2 * n * sizeof *tmp);
  s->values = malloc(n * sizeof *s->values);
  if (!ok || !tmp || !s->values) {
    free(ok);
    free(tmp);
    return gb_fail(GB_E_NOMEM, "out of memory for samples");
  }
  double *cvs = tmp + n;
  size_t ncv = 0;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = rows[i].row;
    /* throttled rows passed their result check: the figure under the power or
     * heat cap is a real sample (a drop caused by throttling is a drop) */
    if (r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) {
      if (!s->failed) s->failed = r;
      continue;
    }
    ok[s->nok++] = r;
    if (!isnan(r->stddev) && r->value > 0) cvs[ncv++] = GB_GATE_OWN_SPREAD * r->stddev / r->value;
  }
  if (s->failed) s->row = s->failed;
  if (ncv) s->cv = gb_median(cvs, ncv);
  qsort(ok, s->nok, sizeof *ok, cmp_row_run);
  /* one value per run: the median of its repetitions */
  double rep_ss = 0, ln_sum = 0;
  size_t rep_df = 0;
  bool positive = true;
  for (size_t a = 0; a < s->nok;) {
    size_t b = a, nr = 0;
    while (b < s->nok && strcmp(ok[b]->run_id, ok[a]->run_id) == 0) tmp[nr++] = ok[b++]->value;
    double v = gb_median(tmp, nr);
    s->values[s->nruns++] = v;
    if (!(v > 0)) positive = false;
    if (nr >= 2 && positive) {
      double m = 0;
      bool allpos = true;
      for (size_t i = 0; i < nr; i++) {
        if (!(tmp[i] > 0)) allpos = false;
        else m += log(tmp[i]);
      }
      if (allpos) {
        m /= (double)nr;
        for (size_t i = 0; i < nr; i++) rep_ss += (log(tmp[i]) - m) * (log(tmp[i]) - m);
        rep_df += nr - 1;
      }
    }
    a = b;
  }
  if (s->nruns) s->median = gb_median(s->values, s->nruns);
  if (s->nruns && positive) {
    for (size_t i = 0; i < s->nruns; i++) ln_sum += log(s->values[i]);
    s->mean_ln = ln_sum / (double)s->nruns;
    if (s->nruns >= 2) {
      double ss = 0;
      for (size_t i = 0; i < s->nruns; i++) ss += (log(s->values[i]) - s->mean_ln) * (log(s->values[i]) - s->mean_ln);
      s->sd_ln = sqrt(ss / (double)(s->nruns - 1));
    }
  }
  if (rep_df) s->rep_sd_ln = sqrt(rep_ss / (double)rep_df);
  free(ok);
  free(tmp);
  return GB_OK;
}

/* The distinct non-empty values of a string field over a side's rows,
 * joined with spaces ("" when none). */
static void side_values(keyed_row *rows, size_t n, size_t off, bool skip_empty, char *buf, size_t cap) {
  ident_set s;
  memset(&s, 0, sizeof s);
  for (size_t i = 0; i < n; i++) {
    const char *v = *(const char *const *)((const char *)rows[i].row + off);
    if (!skip_empty || (v && *v)) ident_add(&s, v ? v : "");
  }
  qsort(s.v, s.n, sizeof s.v[0], cmp_str);
  ident_join(&s, buf, cap);
}

/* Whether the sides were measured alike; else writes what differs to note. */
static bool comparable(keyed_row *b, size_t nb, keyed_row *c, size_t nc, bool allow_libs, char *note, size_t n) {
  char x[64], y[64];
  side_values(b, nb, offsetof(gb_row, settings), false, x, sizeof x);
  side_values(c, nc, offsetof(gb_row, settings), false, y, sizeof y);
  if (strcmp(x, y)) {
    snprintf(note, n, "settings differ: baseline \"%s\", current \"%s\"", strcmp(x, "(empty)") ? x : "",
             strcmp(y, "(empty)") ? y : "");
    return false;
  }
  /* the profile (warm-up, samples, sizes): where both sides recorded it */
  side_values(b, nb, offsetof(gb_row, profile), true, x, sizeof x);
  side_values(c, nc, offsetof(gb_row, profile), true, y, sizeof y);
  if (x[0] && y[0] && strcmp(x, y)) {
    snprintf(note, n, "profile differs: baseline %s, current %s", x, y);
    return false;
  }
  if (allow_libs) return true;
  static const char *const names[3] = {"cublaslt", "nvrtc", "nccl"};
  static const size_t offs[3] = {offsetof(gb_row, cublaslt), offsetof(gb_row, nvrtc), offsetof(gb_row, nccl)};
  for (int f = 0; f < 3; f++) {
    side_values(b, nb, offs[f], true, x, sizeof x);
    side_values(c, nc, offs[f], true, y, sizeof y);
    if (x[0] && y[0] && strcmp(x, y)) {
      snprintf(note, n, "%s differs: baseline %s, current %s (--allow-mismatch compares anyway)", names[f], x, y);
      return false;
    }
  }
  return true;
}

/* Whether a figure's verdict decides the outcome. */
static bool is_gated(const gb_row *r, gb_fclass cls, bool gate_latency) {
  if (cls == GB_FCLASS_HEADLINE) return true;
  if (cls == GB_FCLASS_LATENCY) return gate_latency;
  if (cls == GB_FCLASS_DERIVED) {
    /* a derived figure counts when the shape it was derived at is a headline one */
    const gb_bench_desc *d = gb_desc_find(r->benchmark);
    if (!d || !d->headline_metric) return true;
    gb_row h = *r;
    h.metric = d->headline_metric;
    gb_fclass hc = gb_desc_class(&h);
    return hc == GB_FCLASS_HEADLINE || (hc == GB_FCLASS_LATENCY && gate_latency);
  }
  return false;
}

static void judge(gb_gate_item *it, const gb_gate_options *opt, double min_pct, double alpha, double own_cv) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  it->change_pct = it->ratio = it->threshold_pct = it->mdc_pct = it->sigma = it->p_value = NAN;
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
  if (!(b->median > 0) || isnan(b->mean_ln) || isnan(c->mean_ln)) {
    it->verdict = GB_VERDICT_INSUFFICIENT;
    snprintf(it->note, sizeof it->note, "a value is 0 or negative: no ratio");
    return;
  }
  it->ratio = c->median / b->median;
  it->change_pct = it->direction * (it->ratio - 1.0) * 100.0;
  /* the figure's floor where it has a row of its own, else its class's, pooled with the runs' own spread */
  const gb_noise_floor *fl = gb_noise_lookup(opt->noise, b->row), *ff = gb_noise_lookup_figure(opt->noise, b->row);
  double floor_sigma = fl ? fl->sigma : gb_noise_default_sigma(b->row);
  if (ff) floor_sigma = ff->sigma;
  double ss = NU0 * floor_sigma * floor_sigma, df = NU0;
  if (!isnan(b->sd_ln)) {
    ss += (double)(b->nruns - 1) * b->sd_ln * b->sd_ln;
    df += (double)(b->nruns - 1);
  }
  if (!isnan(c->sd_ln)) {
    ss += (double)(c->nruns - 1) * c->sd_ln * c->sd_ln;
    df += (double)(c->nruns - 1);
  }
  double sigma = sqrt(ss / df);
  it->method = df > NU0 ? "floor+runs" : ff && ff->sigma >= floor_sigma ? "figure floor" : fl ? "floor" : "built-in floor";
  double se = sigma * sqrt(1.0 / (double)b->nruns + 1.0 / (double)c->nruns);
  /* one run a side, repeated, on one GPU: the repetitions' own spread plus
   * the same-GPU floor (gb_gate.h) */
  const gb_noise_floor *fs = gb_noise_lookup_same_gpu(opt->noise, b->row);
  bool reps_mode = fs && b->nruns == 1 && c->nruns == 1 && b->nok >= GB_GATE_MIN_REPS &&
                   c->nok >= GB_GATE_MIN_REPS && !isnan(b->rep_sd_ln) && !isnan(c->rep_sd_ln) &&
                   b->row->gpu_uuid[0] && strcmp(b->row->gpu_uuid, c->row->gpu_uuid) == 0;
  if (reps_mode) {
    double nb = (double)b->nok, nc = (double)c->nok;
    double sw2 = ((nb - 1) * b->rep_sd_ln * b->rep_sd_ln + (nc - 1) * c->rep_sd_ln * c->rep_sd_ln) / (nb + nc - 2);
    se = sqrt(M_PI / 2 * sw2 * (1 / nb + 1 / nc) + 2 * fs->sigma * fs->sigma);
    sigma = se / sqrt(2.0); /* one side's equivalent */
    it->method = "repetitions, same GPU";
  }
  /* never below the figure's own spread: within a run (rows' stddev, the
   * repetitions) a bimodal figure shows how far its median can move */
  double own = own_cv;
  if (!reps_mode) {
    if (!isnan(b->rep_sd_ln) && !(b->rep_sd_ln <= own)) own = b->rep_sd_ln;
    if (!isnan(c->rep_sd_ln) && !(c->rep_sd_ln <= own)) own = c->rep_sd_ln;
  }
  if (!isnan(own) && own > sigma) {
    sigma = own;
    se = sigma * (reps_mode ? sqrt(2.0) : sqrt(1.0 / (double)b->nruns + 1.0 / (double)c->nruns));
    it->method = "own spread";
  }
  it->sigma = sigma;
  double d = c->mean_ln - b->mean_ln;
  double t = gb_gate_z(alpha) * se, tmin = log1p(min_pct / 100.0);
  if (t < tmin) t = tmin;
  it->mdc_pct = it->threshold_pct = expm1(t) * 100.0;
  it->p_value = se > 0 ? erfc(fabs(d) / se / sqrt(2.0)) : (d == 0 ? 1.0 : 0.0);
  double od = it->direction * d; /* oriented: < 0 worse */
  bool worse = od < 0;
  if (fabs(d) <= tmin)
    it->verdict = GB_VERDICT_UNCHANGED;
  else if (fabs(d) <= t)
    it->verdict = it->gated ? GB_VERDICT_NOISE : GB_VERDICT_UNCHANGED;
  else if (it->gated)
    it->verdict = worse ? GB_VERDICT_REGRESSION : GB_VERDICT_IMPROVEMENT;
  else
    it->verdict = worse ? GB_VERDICT_WORSE_INFO : GB_VERDICT_BETTER_INFO;
}

/* The spread of a derived figure from its two sides: for "A_vs_B" the rows
 * of cases A and B at the same shape; sqrt(cv_A^2 + cv_B^2). NaN when a
 * side is not found. */
static double derived_cv(const gb_gate_report *rep, const gb_gate_item *it, const double *item_cv) {
  const gb_row *r = it->base.row;
  const char *vs = strstr(r->case_name, "_vs_");
  if (!vs) return NAN;
  size_t la = (size_t)(vs - r->case_name);
  const char *bname = vs + 4;
  double cva = NAN, cvb = NAN;
  for (size_t i = 0; i < rep->nitems; i++) {
    const gb_row *o = rep->items[i].base.row ? rep->items[i].base.row : rep->items[i].cur.row;
    if (!o || o == r || strcmp(o->benchmark, r->benchmark) || o->m != r->m || o->n != r->n || o->k != r->k ||
        o->gpu_count != r->gpu_count || strcmp(o->gpu_type, r->gpu_type) || strstr(o->case_name, "_vs_"))
      continue;
    if (strlen(o->case_name) == la && strncmp(o->case_name, r->case_name, la) == 0) cva = item_cv[i];
    else if (strcmp(o->case_name, bname) == 0) cvb = item_cv[i];
  }
  return isnan(cva) || isnan(cvb) ? NAN : sqrt(cva * cva + cvb * cvb);
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
                                                            : 2.0;
  double alpha = !isnan(opt->alpha) ? opt->alpha : (cfg && !isnan(cfg->alpha)) ? cfg->alpha : 0.01;
  if (!(threshold >= 0) || !(alpha > 0 && alpha < 1))
    return gb_fail(GB_E_INPUT, "gate: threshold must be >= 0 %%, alpha between 0 and 1");
  rep->threshold_pct = threshold;
  rep->alpha = alpha;

  /* every metric needs a known direction before anything is compared */
  const gb_results *sides[2] = {base, cur};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sides[k]->nrows; i++) {
      const gb_row *r = &sides[k]->rows[i];
      if (gb_metric_direction(r->benchmark, r->metric) == 0 && gb_gate_config_direction(cfg, r->benchmark, r->metric) == 0)
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
  /* pass 1: the figures, their sides, classes and comparability */
  size_t *grp = calloc(ngroups ? 2 * ngroups : 1, sizeof *grp); /* start, mid per item; the end is the next start */
  double *own_cv = calloc(ngroups ? ngroups : 1, sizeof *own_cv);
  if (!e && (!grp || !own_cv)) e = gb_fail(GB_E_NOMEM, "out of memory for %zu keys", ngroups);
  for (size_t i = 0; i < nk && !e;) {
    size_t j = i, mid;
    while (j < nk && strcmp(kr[j].key, kr[i].key) == 0) j++;
    for (mid = i; mid < j && kr[mid].side == 0;) mid++;
    size_t idx = rep->nitems;
    gb_gate_item *it = &rep->items[rep->nitems++];
    grp[2 * idx] = i;
    grp[2 * idx + 1] = mid;
    const gb_row *r0 = kr[i].row;
    it->benchmark = r0->benchmark;
    it->metric = r0->metric;
    it->direction = gb_gate_config_direction(cfg, r0->benchmark, r0->metric);
    if (it->direction == 0) it->direction = gb_metric_direction(r0->benchmark, r0->metric);
    it->fclass = (int)gb_desc_class(r0);
    it->gated = is_gated(r0, (gb_fclass)it->fclass, opt->gate_latency);
    it->change_pct = it->ratio = it->threshold_pct = it->mdc_pct = it->sigma = it->p_value = NAN;
    it->method = "";
    if (!(it->key = gb_gate_key_label(r0)) || (e = fill_side(&it->base, kr + i, mid - i)) ||
        (e = fill_side(&it->cur, kr + mid, j - mid))) {
      if (!e) e = gb_fail(GB_E_NOMEM, "out of memory for keys");
      break;
    }
    double cb = it->base.cv, cc = it->cur.cv;
    own_cv[idx] = isnan(cb) ? cc : isnan(cc) ? cb : (cb > cc ? cb : cc);
    i = j;
  }
  /* pass 2: verdicts */
  double log_sum = 0;
  size_t log_n = 0;
  for (size_t idx = 0; idx < rep->nitems && !e; idx++) {
    gb_gate_item *it = &rep->items[idx];
    size_t i = grp[2 * idx], mid = grp[2 * idx + 1], j = idx + 1 < rep->nitems ? grp[2 * idx + 2] : nk;
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
      if (it->fclass == GB_FCLASS_MEANINGLESS) {
        it->verdict = GB_VERDICT_NOT_JUDGED;
        snprintf(it->note, sizeof it->note, "meaningless figure (no data moves, or 0 by definition): not judged");
      } else if (!comparable(kr + i, mid - i, kr + mid, j - mid, opt->allow_mismatch, it->note, sizeof it->note)) {
        it->verdict = GB_VERDICT_NOT_COMPARABLE;
      } else {
        double cv = own_cv[idx];
        if (it->fclass == GB_FCLASS_DERIVED) cv = derived_cv(rep, it, own_cv);
        judge(it, opt, gb_gate_config_threshold(cfg, it->benchmark, it->metric, threshold), alpha, cv);
        if (!isnan(it->ratio) && it->ratio > 0 && it->gated) {
          log_sum += it->direction > 0 ? log(it->ratio) : -log(it->ratio);
          log_n++;
        }
      }
    }
    rep->count[it->verdict]++;
    if (it->newly_failed) rep->newly_failed++;
    if (it->verdict == GB_VERDICT_REGRESSION || it->verdict == GB_VERDICT_IMPROVEMENT ||
        it->verdict == GB_VERDICT_NOISE || it->verdict == GB_VERDICT_UNCHANGED ||
        it->verdict == GB_VERDICT_WORSE_INFO || it->verdict == GB_VERDICT_BETTER_INFO)
      rep->compared++;
  }
  free(grp);
  free(own_cv);
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

gb_err gb_gate_read_side(char *const *inputs, size_t ninputs, bool dirs, gb_results *res) {
  char **paths = NULL;
  size_t npaths = 0;
  gb_err e = GB_OK;
  if (dirs) {
    e = gb_history_collect_paths(inputs, ninputs, &paths, &npaths);
  } else {
    paths = calloc(ninputs ? ninputs : 1, sizeof *paths);
    if (!paths) return gb_fail(GB_E_NOMEM, "out of memory");
    for (size_t i = 0; i < ninputs && !e; i++) {
      size_t n = strlen(inputs[i]) + 1;
      if (!(paths[i] = malloc(n))) e = gb_fail(GB_E_NOMEM, "out of memory");
      else memcpy(paths[i], inputs[i], n);
      npaths++;
    }
  }
  const char *gpu = NULL, *gpu_file = NULL;
  for (size_t i = 0; i < npaths && !e; i++) {
    size_t before = res->nrows;
    if ((e = gb_results_read_input(paths[i], res))) break;
    for (size_t r = before; r < res->nrows; r++) {
      const gb_row *row = &res->rows[r];
      if (!gpu) {
        gpu = row->gpu_type;
        gpu_file = row->file;
      } else if (strcmp(gpu, row->gpu_type)) {
        e = gb_fail(GB_E_INPUT, "%s:%ld: gpu_type %s, but %s is on %s: one side of a comparison is one GPU type",
                    row->file, row->line, row->gpu_type, gpu_file, gpu);
        break;
      }
    }
  }
  gb_history_free_paths(paths, npaths);
  if (e) gb_results_free(res);
  return e;
}
