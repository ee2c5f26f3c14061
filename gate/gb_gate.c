/* gb_gate: key matching, per-key statistics and verdicts, machine identity
 * and the gate's exit code. Report formats are in gb_gate_report.c. */
#include "gb_gate.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_gate_int.h"
#include "gb_inputs.h"
#include "gb_noise.h"
#include "gb_stats.h"

static const char *const k_verdict_names[GB_VERDICT_COUNT] = {
    "regression", "failed",      "collapsed",   "unstable",       "missing",     "not-comparable", "noise",      "insufficient",
    "new",        "improvement", "worse-info", "better-info",    "not-judged", "unsupported", "unchanged"};


const char *gb_verdict_name(gb_verdict v) { return (unsigned)v < GB_VERDICT_COUNT ? k_verdict_names[v] : "?"; }

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

static void put_str(gb_buf *b, const char *v) { gb_buf_append(b, v, strlen(v)); }

static void put_int(gb_buf *b, int64_t v) {
  char t[24], *p = t + sizeof t;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  if (v == GB_NA) return;
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) *--p = '-';
  gb_buf_append(b, p, (size_t)(t + sizeof t - p));
}

/* Internal key into b (emptied first), fields separated by the ASCII unit
 * separator; per node, the node (host, gpu_uuid) first. */
static gb_err make_key(const gb_row *r, bool per_node, gb_buf *b) {
  static const char sep[] = "\x1f";
  b->len = 0;
  if (per_node) {
    put_str(b, r->host);
    gb_buf_append(b, sep, 1);
    put_str(b, r->gpu_uuid);
    gb_buf_append(b, sep, 1);
  }
  put_str(b, r->gpu_type);
  gb_buf_append(b, sep, 1);
  put_int(b, r->gpu_count);
  const char *const str[3] = {r->benchmark, r->case_name, r->dtype};
  for (int i = 0; i < 3; i++) {
    gb_buf_append(b, sep, 1);
    put_str(b, str[i]);
  }
  const int64_t num[4] = {r->m, r->n, r->k, r->bytes};
  for (int i = 0; i < 4; i++) {
    gb_buf_append(b, sep, 1);
    put_int(b, num[i]);
  }
  gb_buf_append(b, sep, 1);
  put_str(b, r->metric);
  return gb_buf_append(b, "", 1);
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

/* ---- machine identity ---- */

typedef struct ident_set {
  size_t n;
  const char *v[64]; /* distinct values; more than 64 are not tracked */
} ident_set;

static void ident_add(ident_set *s, const char *v) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] == v || strcmp(s->v[i], v) == 0) return; /* read rows share their strings (interned) */
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

/* Whether the sides (or one side's rows) of a figure hold different units;
 * writes both to note. A unit is part of what a figure is: GFLOP/s against
 * TFLOP/s is no +49,900%. */
static bool units_differ(keyed_row *b, size_t nb, keyed_row *c, size_t nc, char *note, size_t n) {
  char x[64], y[64];
  side_values(b, nb, offsetof(gb_row, unit), false, x, sizeof x);
  side_values(c, nc, offsetof(gb_row, unit), false, y, sizeof y);
  if (!strcmp(x, y) && !strchr(x, ' ')) return false;
  int k = snprintf(note, n, "units differ: baseline %s, current %s: figures in different units are not compared", x, y);
  return k >= 0; /* true */
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

/* Whether the current side holds rows of two or more nodes (host,
 * gpu_uuid): a merged fleet file, judged node by node. Counts them. */
static size_t count_nodes(const gb_results *res) {
  const char **v = malloc((2 * res->nrows + 1) * sizeof *v);
  if (!v) return 0;
  size_t n = 0;
  for (size_t i = 0; i < res->nrows; i++) {
    size_t k = 0;
    const gb_row *r = &res->rows[i];
    /* nodes are few: a linear scan over the distinct ones so far */
    while (k < n && !(v[2 * k] == r->host && v[2 * k + 1] == r->gpu_uuid) &&
           (strcmp(v[2 * k], r->host) || strcmp(v[2 * k + 1], r->gpu_uuid)))
      k++;
    if (k == n) {
      v[2 * n] = r->host;
      v[2 * n + 1] = r->gpu_uuid;
      n++;
    }
  }
  free(v);
  return n;
}

/* Every metric needs a known direction before anything is compared. */
static gb_err check_directions(const gb_results *const sides[2], const gb_gate_config *cfg) {
  const gb_row *known = NULL; /* the last row checked: rows of one figure share their strings (interned) */
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sides[k]->nrows; i++) {
      const gb_row *r = &sides[k]->rows[i];
      if (known && r->benchmark == known->benchmark && r->metric == known->metric) continue;
      known = r;
      if (gb_metric_direction(r->benchmark, r->metric) == 0 && gb_gate_config_direction(cfg, r->benchmark, r->metric) == 0)
        return gb_fail(GB_E_INPUT,
                       "%s:%ld: metric: the gate does not know whether higher or lower is better: \"%s\" "
                       "(add [%s/%s] direction = higher or lower to a --config file)",
                       r->file, r->line, r->metric, r->benchmark, r->metric);
    }
  return GB_OK;
}

/* The distinct keys: each key once (a hash table), numbered as found. */
typedef struct key_tab {
  char **key;      /* by number */
  size_t *slot;    /* open addressing: number + 1, 0 empty */
  size_t n, nslot; /* nslot: a power of two, over twice n */
} key_tab;

static uint64_t key_hash(const char *s) {
  uint64_t h = 14695981039346656037ULL;
  for (const unsigned char *q = (const unsigned char *)s; *q; q++) h = (h ^ *q) * 1099511628211ULL;
  return h;
}

/* The number of key (added when new); SIZE_MAX when out of memory. */
static size_t key_number(key_tab *t, const char *key) {
  if (2 * (t->n + 1) > t->nslot) {
    size_t ns = t->nslot ? 2 * t->nslot : 1024;
    size_t *slot = calloc(ns, sizeof *slot);
    char **k = realloc(t->key, ns / 2 * sizeof *k);
    if (k) t->key = k;
    if (!slot || !k) return free(slot), SIZE_MAX;
    for (size_t i = 0; i < t->n; i++) {
      size_t h = (size_t)key_hash(t->key[i]) & (ns - 1);
      while (slot[h]) h = (h + 1) & (ns - 1);
      slot[h] = i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = ns;
  }
  size_t h = (size_t)key_hash(key) & (t->nslot - 1);
  for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
    if (strcmp(t->key[t->slot[h] - 1], key) == 0) return t->slot[h] - 1;
  if (!(t->key[t->n] = strdup(key))) return SIZE_MAX;
  t->slot[h] = ++t->n;
  return t->n - 1;
}

/* Whether t holds key. */
static bool key_known(const key_tab *t, const char *key) {
  if (!t->nslot) return false;
  for (size_t h = (size_t)key_hash(key) & (t->nslot - 1); t->slot[h]; h = (h + 1) & (t->nslot - 1))
    if (strcmp(t->key[t->slot[h] - 1], key) == 0) return true;
  return false;
}

/* The current side's runs into runs; the baseline rows of those runs are
 * left out of the comparison (a run is never its own baseline), counted and
 * named in rep. A baseline of nothing but the current runs (a file compared
 * with itself: an A/A check) is compared as it is; runs is then emptied. */
static gb_err self_runs(const gb_results *base, const gb_results *cur, key_tab *runs, gb_gate_report *rep) {
  for (size_t i = 0; i < cur->nrows; i++)
    if (key_number(runs, cur->rows[i].run_id) == SIZE_MAX) return gb_fail(GB_E_NOMEM, "out of memory for runs");
  size_t other = 0;
  for (size_t i = 0; i < base->nrows && !other; i++) other += !key_known(runs, base->rows[i].run_id);
  if (!other) {
    for (size_t i = 0; i < runs->n; i++) free(runs->key[i]);
    free(runs->key);
    free(runs->slot);
    memset(runs, 0, sizeof *runs);
    return GB_OK;
  }
  key_tab named = {0};
  size_t used = 0;
  for (size_t i = 0; i < base->nrows; i++) {
    const char *id = base->rows[i].run_id;
    if (!key_known(runs, id)) continue;
    rep->self_rows++;
    size_t before = named.n;
    if (key_number(&named, id) == SIZE_MAX) break;
    if (named.n == before || used >= sizeof rep->self_msg - 1) continue;
    int k = snprintf(rep->self_msg + used, sizeof rep->self_msg - used, "%s%s", used ? ", " : "", id);
    used += k > 0 ? (size_t)k : 0;
  }
  for (size_t i = 0; i < named.n; i++) free(named.key[i]);
  free(named.key);
  free(named.slot);
  return GB_OK;
}

typedef struct numbered {
  const char *key;
  size_t num;
} numbered;

static int cmp_numbered(const void *a, const void *b) {
  return strcmp(((const numbered *)a)->key, ((const numbered *)b)->key);
}

/* kr[0..nk) (each side's rows in file order, baseline first), num[i] its
 * key's number: into key order, each key's rows in their order (a stable
 * counting sort: the order sorting by key, side and file order gives). */
static gb_err order_rows(const key_tab *t, keyed_row **kr, size_t nk, const size_t *num) {
  numbered *by = malloc((t->n ? t->n : 1) * sizeof *by);
  size_t *start = calloc(t->n + 1, sizeof *start);
  keyed_row *out = malloc((nk ? nk : 1) * sizeof *out);
  if (!by || !start || !out) return free(by), free(start), free(out), gb_fail(GB_E_NOMEM, "out of memory for keys");
  for (size_t i = 0; i < t->n; i++) by[i] = (numbered){t->key[i], i};
  qsort(by, t->n, sizeof *by, cmp_numbered);
  for (size_t i = 0; i < nk; i++) start[num[i]]++; /* rows per key */
  size_t pos = 0;
  for (size_t r = 0; r < t->n; r++) { /* each key's first place, in key order */
    size_t c = start[by[r].num];
    start[by[r].num] = pos;
    pos += c;
  }
  for (size_t i = 0; i < nk; i++) out[start[num[i]]++] = (*kr)[i];
  free(*kr);
  *kr = out;
  free(by);
  free(start);
  return GB_OK;
}

/* The rows of both sides keyed and sorted by figure; rows of one figure
 * share one key (t's copy). */
static gb_err key_rows(const gb_results *const sides[2], bool per_node, const key_tab *skip, key_tab *t,
                       keyed_row **out, size_t *nout) {
  size_t n = sides[0]->nrows + sides[1]->nrows, nk = 0;
  keyed_row *kr = calloc(n ? n : 1, sizeof *kr);
  size_t *num = malloc((n ? n : 1) * sizeof *num);
  gb_buf key = {0};
  gb_err e = kr && num ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory for %zu rows", n);
  for (int k = 0; k < 2 && !e; k++)
    for (size_t i = 0; i < sides[k]->nrows && !e; i++, nk++) {
      if (k == 0 && key_known(skip, sides[k]->rows[i].run_id)) { /* the current run's own rows */
        nk--;
        continue;
      }
      kr[nk].row = &sides[k]->rows[i];
      kr[nk].side = k;
      num[nk] = make_key(kr[nk].row, per_node, &key) ? SIZE_MAX : key_number(t, key.data);
      if (num[nk] == SIZE_MAX) e = gb_fail(GB_E_NOMEM, "out of memory for keys");
      else kr[nk].key = t->key[num[nk]];
    }
  if (!e) e = order_rows(t, &kr, nk, num);
  gb_buf_free(&key);
  free(num);
  if (e) return free(kr), e;
  *out = kr;
  *nout = nk;
  return GB_OK;
}

/* One figure from its rows kr[i..j) (baseline ones before mid). */
static gb_err make_item(gb_gate_report *rep, const gb_gate_options *opt, const keyed_row *kr, size_t i, size_t mid,
                        size_t j, double *own_cv) {
  gb_gate_item *it = &rep->items[rep->nitems++];
  const gb_row *r0 = kr[i].row;
  it->benchmark = r0->benchmark;
  it->metric = r0->metric;
  it->direction = gb_gate_config_direction(opt->config, r0->benchmark, r0->metric);
  if (it->direction == 0) it->direction = gb_metric_direction(r0->benchmark, r0->metric);
  it->fclass = (int)gb_desc_class(r0);
  it->gated = gb_gate_is_gated(r0, (gb_fclass)it->fclass, opt->gate_latency);
  it->change_pct = it->ratio = it->threshold_pct = it->mdc_pct = it->sigma = it->p_value = NAN;
  it->method = "";
  gb_err e;
  if (!(it->key = gb_gate_key_label(r0))) return gb_fail(GB_E_NOMEM, "out of memory for keys");
  if (rep->nodes) {
    gb_buf b = {0};
    gb_buf_printf(&b, "%s @ %s %s", it->key, r0->host[0] ? r0->host : "(no host)",
                  r0->gpu_uuid[0] ? r0->gpu_uuid : "(no gpu_uuid)");
    if (gb_buf_append(&b, "", 1)) return gb_buf_free(&b), gb_fail(GB_E_NOMEM, "out of memory for keys");
    free(it->key);
    it->key = b.data;
    it->node = r0->gpu_uuid[0] ? r0->gpu_uuid : r0->host;
  }
  if ((e = gb_gate_fill_side(&it->base, kr + i, mid - i, it->direction)) ||
      (e = gb_gate_fill_side(&it->cur, kr + mid, j - mid, it->direction)))
    return e;
  double cb = it->base.cv, cc = it->cur.cv;
  *own_cv = isnan(cb) ? cc : isnan(cc) ? cb : (cb > cc ? cb : cc);
  return GB_OK;
}

static bool moved(gb_verdict v) {
  return v == GB_VERDICT_REGRESSION || v == GB_VERDICT_IMPROVEMENT || v == GB_VERDICT_WORSE_INFO ||
         v == GB_VERDICT_BETTER_INFO || v == GB_VERDICT_COLLAPSED || v == GB_VERDICT_UNSTABLE;
}

/* A derived figure (A_vs_B, a ratio of two measured ones) says nothing its
 * sides do not: flagged only when a side moved beyond its own noise too
 * (judged first: judge_all). Where both sides held, its change is theirs
 * within their noise (a two-state side judged by its peaks while the ratio
 * is of medians): noise. */
static void derived_by_sides(const gb_gate_report *rep, gb_gate_item *it, size_t a, size_t b) {
  if ((it->verdict != GB_VERDICT_REGRESSION && it->verdict != GB_VERDICT_IMPROVEMENT) ||
      moved(rep->items[a].verdict) || moved(rep->items[b].verdict))
    return;
  it->verdict = GB_VERDICT_NOISE;
  snprintf(it->note, sizeof it->note, "%s and %s each within their noise (%s, %s): a ratio of them",
           rep->items[a].base.row->case_name, rep->items[b].base.row->case_name,
           gb_verdict_name(rep->items[a].verdict), gb_verdict_name(rep->items[b].verdict));
}

/* The verdict of item idx from its rows kr[i..j), baseline before mid. */
static void verdict_of(gb_gate_report *rep, size_t idx, const gb_gate_options *opt, double threshold, double z,
                       keyed_row *kr, size_t i, size_t mid, size_t j, const double *own_cv,
                       const gb_derived_ix *dix) {
  gb_gate_item *it = &rep->items[idx];
  if (mid == i && !it->cur.failed && it->cur.nok == 0 && it->cur.unsupported) {
    gb_gate_judge_unsupported(it); /* only in the current, and nothing measured: information */
  } else if (mid == j && !it->base.failed && it->base.nok == 0 && it->base.unsupported) {
    gb_gate_judge_unsupported(it); /* never measured in the baseline: nothing is gone */
  } else if (mid == i) {
    it->verdict = it->cur.failed ? GB_VERDICT_FAILED : GB_VERDICT_NEW;
    if (it->cur.failed) {
      it->newly_failed = true;
      snprintf(it->note, sizeof it->note, "new row, %s:%ld: status %s%s%s", it->cur.failed->file,
               it->cur.failed->line, gb_status_name(it->cur.failed->status), it->cur.failed->detail[0] ? ": " : "",
               it->cur.failed->detail);
    }
  } else if (mid == j) {
    it->verdict = GB_VERDICT_MISSING;
    it->fails = it->gated && it->fclass == GB_FCLASS_HEADLINE && !opt->allow_missing;
    snprintf(it->note, sizeof it->note, "in the baseline (%s:%ld), not in the current results%s",
             it->base.row->file, it->base.row->line,
             it->fails ? ": a headline figure is gone (--allow-missing for a deliberate change of profile)" : "");
  } else {
    rep->common++;
    if (it->fclass == GB_FCLASS_MEANINGLESS) {
      it->verdict = GB_VERDICT_NOT_JUDGED;
      snprintf(it->note, sizeof it->note, "meaningless figure (no data moves, or 0 by definition): not judged");
    } else if (units_differ(kr + i, mid - i, kr + mid, j - mid, it->note, sizeof it->note)) {
      it->verdict = GB_VERDICT_NOT_COMPARABLE;
      it->fails = it->gated && it->fclass == GB_FCLASS_HEADLINE; /* a headline the gate cannot judge */
    } else if (!comparable(kr + i, mid - i, kr + mid, j - mid, opt->allow_mismatch, it->note, sizeof it->note)) {
      it->verdict = GB_VERDICT_NOT_COMPARABLE;
    } else {
      double cv = own_cv[idx];
      size_t a, b; /* a derived figure's sides: its spread is theirs, its verdict follows them */
      bool sides = it->fclass == GB_FCLASS_DERIVED && gb_gate_derived_sides(dix, it, &a, &b);
      if (it->fclass == GB_FCLASS_DERIVED) cv = sides ? gb_gate_derived_cv(own_cv[a], own_cv[b]) : NAN;
      gb_gate_judge(it, opt, gb_gate_config_threshold(opt->config, it->benchmark, it->metric, threshold), z, cv);
      if (sides) derived_by_sides(rep, it, a, b);
    }
  }
  if (it->verdict == GB_VERDICT_REGRESSION || it->verdict == GB_VERDICT_COLLAPSED ||
      it->verdict == GB_VERDICT_UNSTABLE || it->newly_failed)
    it->fails = true;
}

/* The report's counts and geometric mean from its items' verdicts. */
static void tally(gb_gate_report *rep) {
  double log_sum = 0;
  size_t log_n = 0;
  for (size_t idx = 0; idx < rep->nitems; idx++) {
    const gb_gate_item *it = &rep->items[idx];
    gb_verdict v = it->verdict;
    rep->count[v]++;
    rep->newly_failed += it->newly_failed;
    rep->failing += it->fails;
    if (v == GB_VERDICT_REGRESSION || v == GB_VERDICT_IMPROVEMENT || v == GB_VERDICT_NOISE ||
        v == GB_VERDICT_UNCHANGED || v == GB_VERDICT_WORSE_INFO || v == GB_VERDICT_BETTER_INFO) {
      rep->compared++;
      if (!isnan(it->ratio) && it->ratio > 0 && it->gated) {
        log_sum += it->direction > 0 ? log(it->ratio) : -log(it->ratio);
        log_n++;
      }
    }
  }
  /* geometric mean = exp(mean(log ratio)), ratios oriented so > 1 is better */
  if (log_n) rep->geomean_ratio = exp(log_sum / (double)log_n);
}

/* Groups kr into figures and judges each. */
static gb_err judge_all(gb_gate_report *rep, const gb_gate_options *opt, double threshold, double z,
                        keyed_row *kr, size_t nk) {
  size_t ngroups = 0;
  for (size_t i = 0; i < nk; i++)
    if (i == 0 || kr[i].key != kr[i - 1].key) ngroups++; /* one key string per figure (key_rows) */
  if (!ngroups) return GB_OK;
  rep->items = calloc(ngroups, sizeof *rep->items);
  size_t *grp = calloc(2 * ngroups + 1, sizeof *grp); /* start, mid per item; the end is the next start */
  double *own_cv = calloc(ngroups, sizeof *own_cv);
  gb_err e = !rep->items || !grp || !own_cv ? gb_fail(GB_E_NOMEM, "out of memory for %zu keys", ngroups) : GB_OK;
  /* pass 1: the figures, their sides, classes; pass 2 (derived figures read their sides' spreads): verdicts */
  for (size_t i = 0; i < nk && !e;) {
    size_t j = i, mid;
    while (j < nk && kr[j].key == kr[i].key) j++;
    for (mid = i; mid < j && kr[mid].side == 0;) mid++;
    grp[2 * rep->nitems] = i;
    grp[2 * rep->nitems + 1] = mid;
    e = make_item(rep, opt, kr, i, mid, j, &own_cv[rep->nitems]);
    i = j;
  }
  gb_derived_ix dix = {0};
  if (!e) e = gb_gate_derived_ix_build(rep, &dix);
  for (int derived = 0; derived < 2; derived++) /* the measured figures first: derived ones read their verdicts */
    for (size_t idx = 0; idx < rep->nitems && !e; idx++) {
      if ((rep->items[idx].fclass == GB_FCLASS_DERIVED) != derived) continue;
      size_t i = grp[2 * idx], mid = grp[2 * idx + 1], j = idx + 1 < rep->nitems ? grp[2 * idx + 2] : nk;
      verdict_of(rep, idx, opt, threshold, z, kr, i, mid, j, own_cv, &dix);
    }
  gb_gate_derived_ix_free(&dix);
  free(grp);
  free(own_cv);
  if (!e) tally(rep);
  return e;
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
  rep->warning = opt->warning ? opt->warning : "";
  const gb_results *const sides[2] = {base, cur};
  gb_err e = check_directions(sides, cfg);
  if (e) return e;
  check_identity(base, cur, opt->allow_mismatch, rep);
  check_libraries(base, cur, rep);
  if (rep->mismatch) return GB_OK;
  size_t nodes = count_nodes(cur);
  rep->nodes = nodes >= 2 ? nodes : 0;
  keyed_row *kr = NULL;
  size_t nk = 0;
  key_tab keys = {0}, runs = {0};
  e = self_runs(base, cur, &runs, rep);
  if (!e) e = key_rows(sides, rep->nodes > 0, &runs, &keys, &kr, &nk);
  if (!e) e = judge_all(rep, opt, threshold, gb_gate_z(alpha), kr, nk); /* z once per comparison */
  for (key_tab *t = &keys; t; t = t == &keys ? &runs : NULL) {
    for (size_t i = 0; i < t->n; i++) free(t->key[i]);
    free(t->key);
    free(t->slot);
  }
  free(kr);
  if (e) {
    gb_gate_report_free(rep);
    return e;
  }
  if (rep->nitems) qsort(rep->items, rep->nitems, sizeof *rep->items, cmp_item); /* no rows: items is NULL */
  return GB_OK;
}

int gb_gate_exit_code(const gb_gate_report *rep) {
  if (rep->mismatch) return 3;
  size_t missing_fails = 0;
  for (size_t i = 0; i < rep->nitems; i++) missing_fails += rep->items[i].fails && rep->items[i].verdict == GB_VERDICT_MISSING;
  if (rep->failing > missing_fails) return 1;
  if (rep->compared == 0) return 3;
  return rep->failing ? 1 : 0;
}

gb_err gb_gate_read_side(char *const *inputs, size_t ninputs, bool dirs, gb_results *res) {
  char **paths = NULL;
  size_t npaths = 0;
  gb_err e = GB_OK;
  if (dirs) {
    e = gb_inputs_collect(inputs, ninputs, &paths, &npaths);
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
  gb_inputs_free(paths, npaths);
  if (e) gb_results_free(res);
  return e;
}
