/* gb_store_sel: a selection ("campaign=nightly-0412,gpu_type=H100-SXM-80GB")
 * as the WHERE clause of a query of gb_rows r joined with gb_runs u. Each
 * key is one line of k_keys: the condition on the rows, and the one on the
 * runs table alone (what last=N counts campaigns by; NULL: not a property of
 * a run). */
#include <stdbool.h>
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
  const char *val[NKEYS]; /* into the parameters' text; NULL: not given */
  long last;              /* 0: not given */
} sel_parts;

/* What a key's value must be: any text, an ISO 8601 time, a count. */
static bool is_time_key(size_t k) { return strcmp(k_keys[k].key, "since") == 0 || strcmp(k_keys[k].key, "until") == 0; }
static bool is_number_key(size_t k) {
  static const char *const num[] = {"m", "n", "k", "bytes"};
  for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
    if (strcmp(k_keys[k].key, num[i]) == 0) return true;
  return false;
}

static bool digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

static int num_of(const char *s, size_t n) {
  int v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v;
}

/* An ISO 8601 time in UTC as the runs' start is written (2026-03-01,
 * 2026-03-01T12:00, 2026-03-01T12:00:00Z; a year, or a year and month,
 * too), checked to be a real day and time; written back without its Z, so
 * that it compares as text with the stored starts. NULL: it is one; else
 * what is wrong with it. */
static const char *check_time(char *t) {
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  size_t len = strlen(t);
  if (len > 0 && t[len - 1] == 'Z' && len > 10) t[--len] = '\0';
  if (len > 19 && (t[19] == '+' || t[19] == '-' || t[19] == '.'))
    return t[19] == '.' ? "give whole seconds" : "give the time in UTC (Z), as the runs' starts are written";
  if (len > 16 && (t[16] == '+' || t[16] == '-')) return "give the time in UTC (Z), as the runs' starts are written";
  static const char shape[] = "dddd-dd-ddTdd:dd:dd";
  if (!(len == 4 || len == 7 || len == 10 || len == 16 || len == 19))
    return "not an ISO 8601 time (2026-03-01, 2026-03-01T12:00:00Z)";
  for (size_t i = 0; i < len; i++)
    if (shape[i] == 'd' ? t[i] < '0' || t[i] > '9' : t[i] != shape[i])
      return "not an ISO 8601 time (2026-03-01, 2026-03-01T12:00:00Z)";
  int y = num_of(t, 4), mo = len > 4 ? num_of(t + 5, 2) : 1, d = len > 7 ? num_of(t + 8, 2) : 1;
  if (mo < 1 || mo > 12) return "no such month";
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap)) return "no such day";
  if (len > 10 && (num_of(t + 11, 2) > 23 || num_of(t + 14, 2) > 59 || (len > 16 && num_of(t + 17, 2) > 59)))
    return "no such time of day";
  return NULL;
}

/* One part's value, from *p: "TEXT" up to the next comma, or a quoted
 * "TEXT" (a quote inside written twice), unquoted into *out. Returns the
 * length read, or 0 with a message in why. */
static size_t read_value(const char *p, char **out, const char **why) {
  char *o = *out;
  if (*p != '"') {
    size_t n = strcspn(p, ",");
    memmove(o, p, n);
    o[n] = '\0';
    *out = o + n + 1;
    if (!n) *why = "has no value (KEY=VALUE; KEY=\"\" for an empty one)";
    return n;
  }
  const char *q = p + 1;
  for (;;) {
    if (!*q) {
      *why = "has a quote that is not closed";
      return 0;
    }
    if (*q == '"' && q[1] == '"') *o++ = '"', q += 2;
    else if (*q == '"') break;
    else *o++ = *q++;
  }
  *o = '\0';
  *out = o + 1;
  q++;
  if (*q && *q != ',') {
    *why = "has text after its closing quote (a quote inside a quoted value is written twice)";
    return 0;
  }
  return (size_t)(q - p);
}

#define SEL_FAIL(...) gb_fail(GB_E_USAGE, __VA_ARGS__)

/* A part's key=value checked against what the key takes. */
static gb_err take_part(const char *store, const char *sel, int part, const char *key, char *val, sel_parts *p) {
  if (strcmp(key, "last") == 0) {
    int64_t n;
    if (p->last) return SEL_FAIL("%s: selection \"%s\": part %d: last given twice", store, sel, part);
    if (!gb_parse_i64(val, &n) || n < 1 || n > 1000000)
      return SEL_FAIL("%s: selection \"%s\": part %d: last=%s is not a count of campaigns (1 to 1000000)", store, sel,
                      part, val);
    p->last = (long)n;
    return GB_OK;
  }
  size_t k = 0;
  while (k < NKEYS && strcmp(k_keys[k].key, key) != 0) k++;
  if (k == NKEYS)
    return SEL_FAIL("%s: selection \"%s\": part %d: no key \"%s\" (campaign, run, host, gpu_type, build, since, "
                    "until, before, last, benchmark, case, dtype, metric, m, n, k, bytes)", store, sel, part, key);
  if (p->val[k]) return SEL_FAIL("%s: selection \"%s\": part %d: %s given twice", store, sel, part, key);
  int64_t n;
  const char *why = is_time_key(k) ? check_time(val) : NULL;
  if (why) return SEL_FAIL("%s: selection \"%s\": part %d: %s=%s: %s", store, sel, part, key, val, why);
  if (is_number_key(k) && (!digits(val, strlen(val)) || !gb_parse_i64(val, &n)))
    return SEL_FAIL("%s: selection \"%s\": part %d: %s=%s is not a non-negative whole number", store, sel, part, key,
                    val);
  p->val[k] = val;
  return GB_OK;
}

/* The selection's parts, strictly: "all", or KEY=VALUE parts joined by
 * commas; an empty selection, an empty part, a key that is not one, a
 * value a key does not take: an error naming the part. The values are
 * written, unquoted, into buf (at least as long as sel). */
static gb_err split(const char *store, const char *sel, char *buf, sel_parts *p) {
  memset(p, 0, sizeof *p);
  if (strcmp(sel, "all") == 0) return GB_OK;
  if (!sel[0]) return SEL_FAIL("%s: an empty selection: give KEY=VALUE,... or all (docs/store.md)", store);
  const char *s = sel;
  char *out = buf;
  for (int part = 1;; part++) {
    size_t klen = strcspn(s, "=,");
    if (!s[0] || s[0] == ',')
      return SEL_FAIL("%s: selection \"%s\": part %d is empty (two commas in a row, or a comma at an end)", store, sel,
                      part);
    if (s[klen] != '=' || klen == 0)
      return SEL_FAIL("%s: selection \"%s\": part %d \"%.*s\" is not KEY=VALUE", store, sel, part,
                      (int)(s[klen] == '=' ? klen + 1 : klen), s);
    char *key = out;
    memcpy(key, s, klen);
    key[klen] = '\0';
    out += klen + 1;
    char *val = out;
    const char *why = NULL;
    size_t vlen = read_value(s + klen + 1, &out, &why);
    if (why) return SEL_FAIL("%s: selection \"%s\": part %d (%s=...) %s", store, sel, part, key, why);
    gb_err e = take_part(store, sel, part, key, val, p);
    if (e) return e;
    s += klen + 1 + vlen;
    if (!*s) return GB_OK;
    s++; /* the comma */
  }
}

gb_err gb_store_sel_quote(const char *value, gb_buf *out) {
  if (value[0] && value[0] != '"' && !strchr(value, ',')) return gb_buf_puts(out, value);
  gb_err e = gb_buf_puts(out, "\"");
  for (const char *p = value; *p && !e; p++) e = *p == '"' ? gb_buf_puts(out, "\"\"") : gb_buf_append(out, p, 1);
  return e ? e : gb_buf_puts(out, "\"");
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
  /* keys and values, each with its NUL, take at most one byte more than sel */
  if (strlen(sel) + 2 >= sizeof q->buf) return gb_fail(GB_E_USAGE, "%s: a selection too long", store);
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
