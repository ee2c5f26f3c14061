/* gb_store_sel: a selection ("campaign=nightly-0412,gpu_type=H100-SXM-80GB")
 * as the WHERE clause of a query of gb_rows r joined with gb_runs u. Each
 * key is one line of k_keys: the condition on the rows, and the one on the
 * runs table alone (what last=N counts campaigns by; NULL: not a property of
 * a run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_store_int.h"

typedef struct sel_key {
  const char *key;
  const char *row_sql; /* %d: the parameter's number */
  const char *run_sql;
  const char *u_sql;   /* a property of the run, on gb_runs u alone; NULL: of a row */
} sel_key;

static const sel_key k_keys[] = {
    {"campaign", "u.campaign = $%d", "v.campaign = $%d", "u.campaign = $%d"},
    {"run", "r.run_id = $%d", "v.run_id = $%d", "u.run_id = $%d"},
    {"host", "r.host = $%d", "v.host = $%d", NULL},
    {"gpu_type", "r.gpu_type = $%d", "v.gpu_type = $%d", NULL},
    {"build", "r.git_sha = $%d", "v.git_sha = $%d", NULL},
    {"since", "u.started >= $%d", "v.started >= $%d", "u.started >= $%d"},
    {"until", "u.started < $%d", "v.started < $%d", "u.started < $%d"},
    {"before", "u.started < (SELECT MIN(w.started) FROM gb_runs w WHERE w.campaign = $%d)",
     "v.started < (SELECT MIN(w.started) FROM gb_runs w WHERE w.campaign = $%d)",
     "u.started < (SELECT MIN(w.started) FROM gb_runs w WHERE w.campaign = $%d)"},
    {"benchmark", "r.benchmark = $%d", NULL, NULL},
    {"case", "r.\"case\" = $%d", NULL, NULL},
    {"dtype", "r.dtype = $%d", NULL, NULL},
    {"metric", "r.metric = $%d", NULL, NULL},
    {"m", "r.m = $%d", NULL, NULL},
    {"n", "r.n = $%d", NULL, NULL},
    {"k", "r.k = $%d", NULL, NULL},
    {"bytes", "r.bytes = $%d", NULL, NULL},
};
#define NKEYS (sizeof k_keys / sizeof k_keys[0])

typedef struct sel_parts {
  const char *val[NKEYS]; /* into the copy of the text; NULL: not given */
  long last;              /* 0: not given */
} sel_parts;

static gb_err split(const char *store, const char *sel, char *copy, sel_parts *p) {
  memset(p, 0, sizeof *p);
  if (strcmp(sel, "all") == 0) return GB_OK;
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    char *eq = strchr(tok, '=');
    if (!eq || eq == tok || !eq[1])
      return gb_fail(GB_E_USAGE, "%s: selection \"%s\": \"%s\" is not KEY=VALUE", store, sel, tok);
    *eq = '\0';
    if (strcmp(tok, "last") == 0) {
      int64_t n;
      if (!gb_parse_i64(eq + 1, &n) || n < 1 || n > 1000000)
        return gb_fail(GB_E_USAGE, "%s: selection \"%s\": last=%s is not a count of campaigns", store, sel, eq + 1);
      p->last = (long)n;
      continue;
    }
    size_t k = 0;
    while (k < NKEYS && strcmp(k_keys[k].key, tok) != 0) k++;
    if (k == NKEYS)
      return gb_fail(GB_E_USAGE, "%s: selection \"%s\": no key \"%s\" (campaign, run, host, gpu_type, build, since, "
                     "until, before, last, benchmark, case, dtype, metric, m, n, k, bytes)", store, sel, tok);
    if (p->val[k]) return gb_fail(GB_E_USAGE, "%s: selection \"%s\": %s given twice", store, sel, tok);
    p->val[k] = eq + 1;
  }
  return GB_OK;
}

/* Appends " AND " and fmt with the next parameter's number to w; the
 * value becomes that parameter. */
static gb_err add_cond(const char *store, gb_sel_where *w, const char *fmt, const char *val) {
  if (w->np == GB_SEL_MAX_PARAMS) return gb_fail(GB_E_USAGE, "%s: a selection of too many keys", store);
  char cond[512];
  snprintf(cond, sizeof cond, fmt, (int)w->np + 1);
  size_t len = strlen(w->sql);
  int n = snprintf(w->sql + len, sizeof w->sql - len, "%s%s", len ? " AND " : " WHERE ", cond);
  if (n < 0 || (size_t)n >= sizeof w->sql - len) return gb_fail(GB_E_USAGE, "%s: a selection too long", store);
  w->param[w->np++] = val;
  return GB_OK;
}

/* last=N: the rows of the N newest campaigns among the runs the run keys
 * allow, as a condition on u.campaign. */
static gb_err add_last(const char *store, const sel_parts *p, gb_sel_where *w) {
  char inner[2048];
  size_t il = (size_t)snprintf(inner, sizeof inner, "u.campaign IN (SELECT v.campaign FROM gb_runs v WHERE 1 = 1");
  for (size_t k = 0; k < NKEYS; k++) {
    if (!p->val[k] || !k_keys[k].run_sql) continue;
    if (w->np == GB_SEL_MAX_PARAMS) return gb_fail(GB_E_USAGE, "%s: a selection of too many keys", store);
    char cond[512];
    snprintf(cond, sizeof cond, k_keys[k].run_sql, (int)w->np + 1);
    il += (size_t)snprintf(inner + il, sizeof inner - il, " AND %s", cond);
    w->param[w->np++] = p->val[k];
  }
  snprintf(inner + il, sizeof inner - il, " GROUP BY v.campaign ORDER BY MIN(v.started) DESC LIMIT %ld)", p->last);
  size_t len = strlen(w->sql);
  int n = snprintf(w->sql + len, sizeof w->sql - len, "%s%s", len ? " AND " : " WHERE ", inner);
  if (n < 0 || (size_t)n >= sizeof w->sql - len) return gb_fail(GB_E_USAGE, "%s: a selection too long", store);
  return GB_OK;
}

gb_err gb_sel_parse(const char *store, const char *sel, gb_sel_sql *q) {
  memset(q, 0, sizeof *q);
  if (strlen(sel) >= sizeof q->buf) return gb_fail(GB_E_USAGE, "%s: a selection too long", store);
  snprintf(q->buf, sizeof q->buf, "%s", sel);
  sel_parts p;
  gb_err e = split(store, sel, q->buf, &p);
  q->rows.np = 1; /* $1: the run_id */
  bool run_key = p.last > 0, figure_key = false;
  for (size_t k = 0; k < NKEYS && !e; k++) {
    if (!p.val[k]) continue;
    e = add_cond(store, &q->all, k_keys[k].row_sql, p.val[k]);
    if (!e && k_keys[k].u_sql) e = add_cond(store, &q->runs, k_keys[k].u_sql, p.val[k]);
    if (!e && !k_keys[k].u_sql) e = add_cond(store, &q->rows, k_keys[k].row_sql, p.val[k]);
    run_key |= k_keys[k].u_sql != NULL;
    figure_key |= !k_keys[k].run_sql; /* no property of a run: it names figures */
  }
  if (!e && p.last) e = add_last(store, &p, &q->all);
  if (!e && p.last) e = add_last(store, &p, &q->runs);
  q->by_run = run_key && !figure_key;
  return e;
}
