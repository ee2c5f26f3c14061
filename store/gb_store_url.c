/* gb_store_url: what a store URL names (the engine, and what it connects
 * to), and the one filter every text about a store passes before it is
 * shown: its name in messages and every message of libpq.
 *
 * Secrets are found by libpq's own conninfo parser (PQconninfoParse), so
 * every form libpq accepts is covered: a URI's user:PASSWORD@ and
 * ?password=, keyword strings with spaces around "=", quoted and escaped
 * values, percent-encoding (the decoded value is what libpq prints), values
 * of any length; every option libpq marks as secret (dispchar "*":
 * password, sslpassword) and PGPASSWORD from the environment. Each secret's
 * every occurrence becomes "***" before anything is cut to a buffer. A
 * string libpq does not parse names no secret for certain, so its messages
 * keep nothing between their first and last double quote (libpq quotes the
 * offending token, or the whole URI, there), and its name shows only the
 * engine.
 *
 * It also keeps the longest wait for a server (--store-timeout), which
 * gb_store_pg.c waits by. Called by the opening (gb_store.c), by every
 * message about a store (gb_store_sql.c's gb_store_fail, gb_store_pg.c)
 * and by the commands' --store and --store-timeout setters; it calls no
 * other file of the store. */
#include <ctype.h>
#include <stdio.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gb_num.h"
#include "gb_store_int.h"

#define MASK "***"

/* ---- which engine ---- */

/* "NAME:" at the start of s, NAME a URL scheme's characters: its length
 * with the colon, or 0. */
static size_t scheme_len(const char *s) {
  if (!isalpha((unsigned char)s[0])) return 0;
  size_t i = 1;
  while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.') i++;
  return s[i] == ':' ? i + 1 : 0;
}

/* A bare path that could be a misspelt URL: a scheme ("postgres:/x",
 * "postgresq://", "pgsql:..."), "//" ("pg//host/db"), "@" or "?" anywhere, or a libpq keyword
 * string ("host=... dbname=..."). The reason, or NULL. */
static const char *url_like(const char *p) {
  if (scheme_len(p)) return "starts with a URL scheme";
  if (strstr(p, "//")) return "holds \"//\"";
  if (strchr(p, '@')) return "holds \"@\" (user@host)";
  if (strchr(p, '?')) return "holds \"?\" (a URL's query)";
  size_t k = strspn(p, " \t");
  size_t w = k + strspn(p + k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_");
  if (w > k && p[w + strspn(p + w, " \t")] == '=') return "is a keyword string (key=value)";
  return NULL;
}

gb_err gb_store_url_parse(const char *url, gb_store_kind *kind, const char **target) {
  *kind = GB_STORE_SQLITE;
  *target = url;
  if (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0) {
    *kind = GB_STORE_PG;
  } else if (strncmp(url, "pg:", 3) == 0) {
    *kind = GB_STORE_PG;
    *target = url + 3;
  } else if (strncmp(url, "sqlite:", 7) == 0) {
    *target = url + 7;
  } else {
    /* the text itself is not repeated: it may hold a password */
    const char *why = url_like(url);
    if (why)
      return gb_fail(GB_E_USAGE,
                     "the store \"%.*s...\" %s, so it is not taken as a SQLite file name: a store is "
                     "postgresql://..., postgres://..., pg:CONNINFO (pg:host=... dbname=...), or sqlite:PATH for a "
                     "SQLite file of any name (./PATH too)",
                     (int)scheme_len(url), url, why);
  }
  if (!(*target)[0]) return gb_fail(GB_E_USAGE, "an empty store name");
  return GB_OK;
}

gb_err gb_store_url_check(const char *url) {
  gb_store_kind k;
  const char *t;
  return gb_store_url_parse(url, &k, &t);
}

int gb_store_opt_url(void *args, const struct gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)args;
  (void)o;
  if (!gb_store_url_check(val)) return 0;
  snprintf(err, errlen, "--store: %s", gb_errmsg());
  return 1;
}

/* ---- the longest wait (--store-timeout; gb_store_pg.c waits by it) ---- */

static double g_timeout_s = GB_STORE_TIMEOUT_S;

void gb_store_set_timeout(double seconds) { g_timeout_s = seconds; }

double gb_store_timeout(void) { return g_timeout_s; }

int gb_store_opt_timeout(void *args, const struct gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)args;
  (void)o;
  double v;
  if (!val || !gb_parse_double(val, &v) || !(v >= 1 && v <= 86400)) {
    snprintf(err, errlen, "--store-timeout: \"%s\" is not a number of seconds from 1 to 86400", val ? val : "");
    return 1;
  }
  gb_store_set_timeout(v);
  return 0;
}

/* ---- secrets ---- */

typedef struct secrets {
  char *v[8];
  size_t n;
  bool parsed; /* a PostgreSQL conninfo libpq parses (SQLite: true, none) */
} secrets;

static void add_secret(secrets *s, const char *v) {
  if (v && v[0] && s->n < sizeof s->v / sizeof s->v[0]) s->v[s->n++] = strdup(v);
}

static void secrets_free(secrets *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  s->n = 0;
}

/* The secrets of url, longest first (a shorter one inside a longer one is
 * masked with it). *opts (may be NULL) gets libpq's parse of it, for the
 * caller to free. */
static void secrets_of(const char *url, secrets *s, PQconninfoOption **opts) {
  memset(s, 0, sizeof *s);
  if (opts) *opts = NULL;
  gb_store_kind kind;
  const char *target;
  s->parsed = true;
  if (gb_store_url_parse(url, &kind, &target) || kind != GB_STORE_PG) return;
  add_secret(s, getenv("PGPASSWORD"));
  char *err = NULL;
  PQconninfoOption *o = PQconninfoParse(target, &err);
  PQfreemem(err);
  s->parsed = o != NULL;
  for (PQconninfoOption *p = o; p && p->keyword; p++)
    if (p->val && strchr(p->dispchar, '*')) add_secret(s, p->val);
  if (s->n) add_secret(s, target); /* a message quoting the whole string */
  for (size_t i = 1; i < s->n; i++) /* longest first (a handful: insertion) */
    for (size_t j = i; j > 0 && strlen(s->v[j]) > strlen(s->v[j - 1]); j--) {
      char *t = s->v[j];
      s->v[j] = s->v[j - 1];
      s->v[j - 1] = t;
    }
  if (opts) *opts = o;
  else PQconninfoFree(o);
}

/* Whether the one quoted part of a message (q: its opening quote) is a
 * connection option's name in any letter case ("invalid connection option
 * \"PASSWORD\""): shown, since it is a name, not a value. */
static bool keyword_only(const char *q) {
  const char *end = strchr(q + 1, '"');
  if (!end || strchr(end + 1, '"')) return false;
  size_t n = (size_t)(end - q - 1);
  bool found = false;
  PQconninfoOption *d = PQconndefaults();
  for (PQconninfoOption *o = d; o && o->keyword && !found; o++)
    found = strlen(o->keyword) == n && strncasecmp(o->keyword, q + 1, n) == 0;
  PQconninfoFree(d);
  return found;
}

/* text with every occurrence of each secret as MASK, and, when the string
 * did not parse, nothing between the first and the last double quote. */
static gb_err redact_with(const secrets *s, const char *text, gb_buf *out) {
  gb_buf a = {0}, b = {0};
  gb_err e = gb_buf_puts(&a, text ? text : "");
  for (size_t i = 0; i < s->n && !e; i++) {
    size_t k = strlen(s->v[i]);
    b.len = 0;
    e = gb_buf_puts(&b, "");
    const char *p = a.data, *q;
    while (!e && (q = strstr(p, s->v[i]))) {
      e = gb_buf_append(&b, p, (size_t)(q - p));
      if (!e) e = gb_buf_puts(&b, MASK);
      p = q + k;
    }
    if (!e) e = gb_buf_puts(&b, p);
    gb_buf t = a;
    a = b;
    b = t;
  }
  const char *first = e || s->parsed ? NULL : strchr(a.data, '"');
  if (first && keyword_only(first)) first = NULL;
  if (first) {
    const char *last = strrchr(a.data, '"');
    if (last == first) last = a.data + a.len; /* one quote: to the end */
    e = gb_buf_append(out, a.data, (size_t)(first - a.data) + 1);
    if (!e) e = gb_buf_puts(out, MASK);
    if (!e) e = gb_buf_puts(out, last);
  } else if (!e) {
    e = gb_buf_puts(out, a.data);
  }
  gb_buf_free(&a);
  gb_buf_free(&b);
  return e;
}

gb_err gb_store_redact(const char *url, const char *text, gb_buf *out) {
  secrets s;
  secrets_of(url, &s, NULL);
  gb_err e = redact_with(&s, text, out);
  secrets_free(&s);
  return e;
}

/* A conninfo value as a keyword string writes it: quoted when it holds a
 * space, a quote or a backslash, or is empty. */
static gb_err put_value(gb_buf *b, const char *v) {
  if (v[0] && !v[strcspn(v, " \t\n\r\f\v'\\")]) return gb_buf_puts(b, v);
  gb_err e = gb_buf_puts(b, "'");
  for (const char *p = v; *p && !e; p++) e = gb_buf_printf(b, "%s%c", *p == '\'' || *p == '\\' ? "\\" : "", *p);
  return e ? e : gb_buf_puts(b, "'");
}

/* The store's name: a SQLite URL as given; a PostgreSQL one as the keyword
 * string of what libpq parses ("pg:host=... dbname=... password=***"),
 * every secret masked; one libpq does not parse as "pg:(...)" only. */
static gb_err display(const char *url, gb_buf *b) {
  gb_store_kind kind;
  const char *target;
  if (gb_store_url_parse(url, &kind, &target)) return gb_buf_puts(b, "(not a store URL)");
  if (kind == GB_STORE_SQLITE) return gb_buf_puts(b, url);
  secrets s;
  PQconninfoOption *o;
  secrets_of(url, &s, &o);
  gb_buf raw = {0};
  gb_err e = gb_buf_puts(&raw, "pg:");
  if (!o) e = gb_buf_puts(&raw, "(a connection string libpq does not parse; not shown)");
  bool first = true;
  for (PQconninfoOption *p = o; p && p->keyword && !e; p++) {
    if (!p->val) continue;
    e = gb_buf_printf(&raw, "%s%s=", first ? "" : " ", p->keyword);
    first = false;
    if (!e) e = strchr(p->dispchar, '*') ? gb_buf_puts(&raw, MASK) : put_value(&raw, p->val);
  }
  if (!e) e = redact_with(&s, raw.data, b);
  gb_buf_free(&raw);
  PQconninfoFree(o);
  secrets_free(&s);
  return e;
}

void gb_store_mask(const char *url, char *buf, size_t n) {
  if (!n) return;
  gb_buf b = {0};
  buf[0] = '\0';
  if (display(url, &b) == GB_OK) snprintf(buf, n, "%s", b.data);
  gb_buf_free(&b);
}
