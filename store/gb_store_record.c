/* gb_store_record: what history and compare find, written back into the
 * store (schema step 7: gb_changes, gb_verdicts), each finding once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_store_int.h"

/* x as a parameter: NULL for NaN, else 17 significant digits, C locale */
static const char *num_param(double x, char buf[32]) {
  if (!isfinite(x)) return NULL;
  gb_snprintf_c(buf, 32, "%.17g", x);
  return buf;
}

/* x as a parameter: NULL for GB_NA */
static const char *int_param(int64_t x, char buf[32]) {
  if (x == GB_NA) return NULL;
  snprintf(buf, 32, "%lld", (long long)x);
  return buf;
}

/* The 5 shape parameters of a figure into p (buffers num[0..4]). */
static void shape_params(const int64_t v[5], const char **p, char (*num)[32]) {
  for (int i = 0; i < 5; i++) p[i] = int_param(v[i], num[i]);
}

/* Runs each of n statements (sql, the i-th's parameters from fill) in one
 * transaction; *added: the rows they inserted. */
typedef size_t (*fill_fn)(const void *items, size_t i, const char **p, char (*num)[32]);
static gb_err insert_all(gb_store *s, const char *sql, const void *items, size_t n, fill_fn fill, size_t *added) {
  const char *p[32];
  char num[16][32];
  size_t sum = 0;
  gb_err e = gb_sql_exec(s, s->eng->begin);
  for (size_t i = 0; i < n && !e; i++) {
    size_t np = fill(items, i, p, num), changed = 0;
    e = s->eng->query(s, -1, sql, p, np, NULL, NULL, &changed);
    sum += changed;
  }
  if (!e) e = gb_sql_exec(s, "COMMIT");
  if (e) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    gb_sql_exec(s, "ROLLBACK");
    return gb_fail(e, "%s", msg);
  }
  if (added) *added = sum;
  return GB_OK;
}

static size_t fill_change(const void *items, size_t i, const char **p, char (*num)[32]) {
  const gb_store_change *c = (const gb_store_change *)items + i;
  snprintf(num[0], 32, "%zu", c->points);
  const char *v[21] = {c->kind, c->host, c->gpu_type, c->figure, c->benchmark, c->case_name, c->dtype, c->metric,
                       c->unit, c->headline ? "1" : "0", c->run_before, c->run_after, c->at_before, c->at_after,
                       num[0], c->direction, num_param(c->p_value, num[1]), num_param(c->mean_before, num[2]),
                       num_param(c->mean_after, num[3]), num_param(c->change_pct, num[4]), c->env ? c->env : ""};
  memcpy(p, v, sizeof v);
  shape_params((const int64_t[5]){c->gpu_count, c->m, c->n, c->k, c->bytes}, p + 21, num + 5);
  return 26;
}

gb_err gb_store_record_changes(gb_store *s, const gb_store_change *c, size_t n, size_t *added) {
  static const char sql[] =
      "INSERT INTO gb_changes (kind, host, gpu_type, figure, benchmark, \"case\", dtype, metric, unit, headline, "
      "run_before, run_after, at_before, at_after, points, direction, p_value, mean_before, mean_after, change_pct, "
      "env, gpu_count, m, n, k, bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, "
      "$17, $18, $19, $20, $21, $22, $23, $24, $25, $26) "
      "ON CONFLICT DO NOTHING";
  return insert_all(s, sql, c, n, fill_change, added);
}

static size_t fill_verdict(const void *items, size_t i, const char **p, char (*num)[32]) {
  const gb_store_verdict *v = (const gb_store_verdict *)items + i;
  const char *a[18] = {v->run_id, v->host, v->gpu_type, v->figure, v->benchmark, v->case_name, v->dtype, v->metric,
                       v->unit, v->headline ? "1" : "0", v->verdict, v->fails ? "1" : "0",
                       num_param(v->change_pct, num[0]), num_param(v->ratio, num[1]),
                       num_param(v->threshold_pct, num[2]), num_param(v->p_value, num[3]),
                       num_param(v->base_median, num[4]), num_param(v->cur_median, num[5])};
  memcpy(p, a, sizeof a);
  shape_params((const int64_t[5]){v->gpu_count, v->m, v->n, v->k, v->bytes}, p + 18, num + 6);
  return 23;
}

static gb_err get_count(void *ctx, const gb_sql_val *val, size_t n) {
  *(long *)ctx = n && val[0].kind == GB_SQL_INT ? (long)val[0].i : 0;
  return GB_OK;
}

gb_err gb_store_record_verdicts(gb_store *s, const gb_store_verdict *v, size_t n, size_t *added) {
  /* the run's campaign and start from gb_runs: a run the store lacks inserts nothing, checked first */
  for (size_t i = 0; i < n; i++) {
    if (i && strcmp(v[i].run_id, v[i - 1].run_id) == 0) continue;
    long have = 0;
    const char *p[1] = {v[i].run_id};
    gb_err e = s->eng->query(s, -1, "SELECT count(*) FROM gb_runs WHERE run_id = $1", p, 1, get_count, &have, NULL);
    if (e) return e;
    if (!have)
      return gb_fail(GB_E_INPUT, "%s: run %s is not in the store: a verdict is recorded for a stored run only, so "
                     "nothing was recorded", s->name, v[i].run_id);
  }
  static const char sql[] =
      "INSERT INTO gb_verdicts (run_id, campaign, started, host, gpu_type, figure, benchmark, \"case\", dtype, "
      "metric, unit, headline, verdict, fails, change_pct, ratio, threshold_pct, p_value, base_median, cur_median, "
      "gpu_count, m, n, k, bytes) SELECT $1, u.campaign, u.started, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
      "$13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23 "
      "FROM gb_runs u WHERE u.run_id = $1 ON CONFLICT DO NOTHING";
  return insert_all(s, sql, v, n, fill_verdict, added);
}

typedef struct str_list {
  char **v;
  size_t n, cap;
} str_list;

static gb_err add_str(void *ctx, const gb_sql_val *val, size_t n) {
  str_list *l = ctx;
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  if (!t) return GB_OK;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    char **v = realloc(l->v, cap * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
    l->v = v;
    l->cap = cap;
  }
  if (!(l->v[l->n] = strdup(t))) return gb_fail(GB_E_NOMEM, "out of memory");
  l->n++;
  return GB_OK;
}

gb_err gb_store_hosts(gb_store *s, char ***hosts, size_t *n) {
  str_list l = {0};
  gb_err e = s->eng->query(s, -1, "SELECT DISTINCT host FROM gb_runs ORDER BY host", NULL, 0, add_str, &l, NULL);
  if (e) {
    gb_store_strs_free(l.v, l.n);
    l = (str_list){0};
  }
  *hosts = l.v;
  *n = l.n;
  return e;
}

void gb_store_strs_free(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* ---- what was recorded, read back (the trend report) ---- */

/* v as a number: NaN for NULL or text that is not one */
static double num_of(const gb_sql_val *v) {
  if (v->kind == GB_SQL_REAL) return v->d;
  if (v->kind == GB_SQL_INT) return (double)v->i;
  double x = NAN;
  return v->kind == GB_SQL_TEXT && gb_parse_double(v->s, &x) ? x : NAN;
}

/* The n text columns of a row (NULL as ""), numbers written into num. */
static void texts(const gb_sql_val *val, size_t n, const char **t, char (*num)[32]) {
  for (size_t i = 0; i < n; i++) {
    t[i] = gb_sql_text(&val[i], num[i]);
    if (!t[i]) t[i] = "";
  }
}

typedef struct each_ctx {
  gb_store_change_fn change;
  gb_store_verdict_fn verdict;
  gb_store_run_fn run;
  void *ctx;
} each_ctx;

#define CHANGE_COLS 20
static gb_err change_row(void *ctx, const gb_sql_val *val, size_t n) {
  if (n != CHANGE_COLS) return gb_fail(GB_E_IO, "gb_changes: %zu columns read, %d expected", n, CHANGE_COLS);
  const char *t[CHANGE_COLS];
  char num[CHANGE_COLS][32];
  texts(val, CHANGE_COLS, t, num);
  double pts = num_of(&val[13]);
  gb_store_change c = {.kind = t[0], .host = t[1], .gpu_type = t[2], .figure = t[3], .benchmark = t[4],
                       .case_name = t[5], .dtype = t[6], .metric = t[7], .unit = t[8], .run_before = t[9],
                       .run_after = t[10], .at_before = t[11], .at_after = t[12],
                       .points = pts >= 0 ? (size_t)pts : 0, .direction = t[14], .p_value = num_of(&val[15]),
                       .mean_before = num_of(&val[16]), .mean_after = num_of(&val[17]),
                       .change_pct = num_of(&val[18]), .env = t[19], .headline = true,
                       .gpu_count = GB_NA, .m = GB_NA, .n = GB_NA, .k = GB_NA, .bytes = GB_NA};
  const each_ctx *x = ctx;
  return x->change(x->ctx, &c);
}

gb_err gb_store_each_change(gb_store *s, const char *since, gb_store_change_fn fn, void *ctx) {
  static const char sql[] =
      "SELECT kind, host, gpu_type, figure, benchmark, \"case\", dtype, metric, unit, run_before, run_after, "
      "at_before, at_after, points, direction, p_value, mean_before, mean_after, change_pct, env FROM gb_changes "
      "WHERE headline = 1 AND at_after >= $1 ORDER BY at_after DESC, host, figure, kind";
  each_ctx x = {.change = fn, .ctx = ctx};
  const char *p[1] = {since};
  return s->eng->query(s, -1, sql, p, 1, change_row, &x, NULL);
}

#define VERDICT_COLS 18
static gb_err verdict_row(void *ctx, const gb_sql_val *val, size_t n) {
  if (n != VERDICT_COLS) return gb_fail(GB_E_IO, "gb_verdicts: %zu columns read, %d expected", n, VERDICT_COLS);
  const char *t[VERDICT_COLS];
  char num[VERDICT_COLS][32];
  texts(val, VERDICT_COLS, t, num);
  gb_store_verdict v = {.run_id = t[0], .host = t[1], .gpu_type = t[2], .figure = t[3], .benchmark = t[4],
                        .case_name = t[5], .dtype = t[6], .metric = t[7], .unit = t[8],
                        .headline = num_of(&val[9]) == 1, .verdict = t[10], .fails = num_of(&val[11]) == 1,
                        .change_pct = num_of(&val[12]), .ratio = num_of(&val[13]),
                        .threshold_pct = num_of(&val[14]), .p_value = num_of(&val[15]),
                        .base_median = num_of(&val[16]), .cur_median = num_of(&val[17]),
                        .gpu_count = GB_NA, .m = GB_NA, .n = GB_NA, .k = GB_NA, .bytes = GB_NA};
  const each_ctx *x = ctx;
  return x->verdict(x->ctx, &v);
}

gb_err gb_store_each_verdict(gb_store *s, const char *campaign, gb_store_verdict_fn fn, void *ctx) {
  static const char sql[] =
      "SELECT run_id, host, gpu_type, figure, benchmark, \"case\", dtype, metric, unit, headline, verdict, fails, "
      "change_pct, ratio, threshold_pct, p_value, base_median, cur_median FROM gb_verdicts WHERE campaign = $1 "
      "ORDER BY headline DESC, fails DESC, host, figure";
  each_ctx x = {.verdict = fn, .ctx = ctx};
  const char *p[1] = {campaign};
  return s->eng->query(s, -1, sql, p, 1, verdict_row, &x, NULL);
}

static gb_err run_row(void *ctx, const gb_sql_val *val, size_t n) {
  if (n != 4) return gb_fail(GB_E_IO, "gb_runs: %zu columns read, 4 expected", n);
  const char *t[4];
  char num[4][32];
  texts(val, 4, t, num);
  const each_ctx *x = ctx;
  return x->run(x->ctx, t[0], t[1], t[2], t[3]);
}

gb_err gb_store_each_run(gb_store *s, gb_store_run_fn fn, void *ctx) {
  each_ctx x = {.run = fn, .ctx = ctx};
  return s->eng->query(s, -1, "SELECT run_id, campaign, host, started FROM gb_runs ORDER BY run_id", NULL, 0, run_row,
                       &x, NULL);
}
