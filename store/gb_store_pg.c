/* gb_store_pg: the store's PostgreSQL engine (libpq). Results arrive one
 * row at a time (single-row mode), so a reader holds the row it is on, not
 * the whole answer, and works on it while the server sends the next ones
 * (an answer taken whole costs libpq less, a result a row, but leaves the
 * client and the server waiting for each other: compare took 0.45 s
 * longer), and in binary, so numbers arrive as numbers. libpq's
 * notices are dropped (library code prints nothing); its messages never
 * hold the password. */
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_store_int.h"

static void pg_quiet(void *arg, const char *msg) {
  (void)arg;
  (void)msg;
}

/* The first line of libpq's message (it may run over several). */
static gb_err pg_fail(gb_store *s, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s", s->h ? PQerrorMessage(s->h) : "out of memory");
  msg[strcspn(msg, "\n")] = '\0';
  return gb_store_fail(s, what, msg);
}

static gb_err pg_connect(gb_store *s, const char *conninfo) {
  PGconn *c = PQconnectdb(conninfo);
  s->h = c;
  if (!c || PQstatus(c) != CONNECTION_OK) return pg_fail(s, "cannot connect");
  PQsetNoticeProcessor(c, pg_quiet, NULL);
  PGresult *r = PQexec(c, "SET client_min_messages = warning");
  gb_err e = PQresultStatus(r) == PGRES_COMMAND_OK ? GB_OK : pg_fail(s, "cannot set up the session");
  PQclear(r);
  return e;
}

static uint64_t be_bits(const char *p, int len) {
  uint64_t v = 0;
  for (int i = 0; i < len; i++) v = v << 8 | (unsigned char)p[i];
  return v;
}

/* Column i of the (binary) row: numbers as numbers (no printing on the
 * server, no parsing here), text as text. */
static gb_err pg_value(gb_store *s, const PGresult *r, int row, int i, gb_sql_val *v) {
  *v = (gb_sql_val){GB_SQL_NULL, NULL, 0, 0, 0};
  if (PQgetisnull(r, row, i)) return GB_OK;
  const char *p = PQgetvalue(r, row, i);
  int len = PQgetlength(r, row, i), want = 0;
  Oid t = PQftype(r, i);
  switch (t) {
  case 18: case 19: case 25: case 1043: /* char, name, text, varchar */
    v->kind = GB_SQL_TEXT;
    v->s = p;
    v->len = (size_t)len;
    return GB_OK;
  case 16: want = 1; break;  /* bool */
  case 21: want = 2; break;  /* int2 */
  case 23: want = 4; break;  /* int4 */
  case 20: case 701: want = 8; break; /* int8, float8 */
  default: break;
  }
  if (!want || len != want) {
    char msg[64];
    snprintf(msg, sizeof msg, "a value of type oid %u, %d bytes", (unsigned)t, len);
    return gb_store_fail(s, "cannot read a result", msg);
  }
  uint64_t b = be_bits(p, len);
  v->kind = t == 701 ? GB_SQL_REAL : GB_SQL_INT;
  if (t == 701) memcpy(&v->d, &b, sizeof v->d);
  else v->i = t == 16 ? (p[0] != 0) : t == 21 ? (int16_t)(uint16_t)b : t == 23 ? (int32_t)(uint32_t)b : (int64_t)b;
  return GB_OK;
}

/* Reads every result of the query sent: rows to fn, the count of changed
 * rows to *changed; the first error is kept, the rest drained. */
static gb_err pg_collect(gb_store *s, gb_sql_row_fn fn, void *ctx, size_t *changed) {
  gb_err e = GB_OK;
  PGresult *r;
  enum { MAXV = 64 };
  gb_sql_val val[MAXV];
  while ((r = PQgetResult(s->h))) {
    ExecStatusType st = PQresultStatus(r);
    if ((st == PGRES_SINGLE_TUPLE || st == PGRES_TUPLES_OK) && fn && !e) {
      int n = PQnfields(r), rows = PQntuples(r);
      if (n > MAXV) n = MAXV;
      for (int k = 0; k < rows && !e; k++) {
        for (int i = 0; i < n && !e; i++) e = pg_value(s, r, k, i, &val[i]);
        if (!e) e = fn(ctx, val, (size_t)n);
      }
    } else if (st == PGRES_COMMAND_OK && changed) {
      *changed = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
    } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK && !e) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", PQresultErrorMessage(r));
      msg[strcspn(msg, "\n")] = '\0';
      e = gb_store_fail(s, "query failed", msg);
    }
    PQclear(r);
  }
  return e;
}

static gb_err pg_query(gb_store *s, int slot, const char *sql, const char *const *param, size_t np,
                       gb_sql_row_fn fn, void *ctx, size_t *changed) {
  char name[16];
  int sent;
  if (slot >= 0) {
    snprintf(name, sizeof name, "gb%d", slot);
    if (!s->slot[slot]) {
      PGresult *r = PQprepare(s->h, name, sql, (int)np, NULL);
      gb_err e = PQresultStatus(r) == PGRES_COMMAND_OK ? GB_OK : pg_fail(s, "cannot prepare a statement");
      PQclear(r);
      if (e) return e;
      s->slot[slot] = s; /* marks it prepared */
    }
    sent = PQsendQueryPrepared(s->h, name, (int)np, param, NULL, NULL, fn ? 1 : 0);
  } else {
    sent = PQsendQueryParams(s->h, sql, (int)np, NULL, param, NULL, NULL, fn ? 1 : 0); /* rows in binary */
  }
  if (!sent) return pg_fail(s, "cannot send a query");
  if (fn) PQsetSingleRowMode(s->h);
  return pg_collect(s, fn, ctx, changed);
}

static gb_err pg_copy_in(gb_store *s, const char *sql, const char *data, size_t len) {
  PGresult *r = PQexec(s->h, sql);
  ExecStatusType st = PQresultStatus(r);
  PQclear(r);
  if (st != PGRES_COPY_IN) {
    gb_err e = pg_fail(s, "cannot start a COPY");
    while ((r = PQgetResult(s->h))) PQclear(r);
    return e;
  }
  size_t off = 0;
  while (off < len) { /* in pieces of at most 1 MB */
    size_t k = len - off < (1u << 20) ? len - off : (1u << 20);
    if (PQputCopyData(s->h, data + off, (int)k) != 1) break;
    off += k;
  }
  gb_err e = off < len ? pg_fail(s, "cannot send the rows") : GB_OK;
  /* a COPY cut short is ended as failed, so that none of its rows is added */
  if (PQputCopyEnd(s->h, off < len ? "not every row was sent" : NULL) != 1 && !e) e = pg_fail(s, "cannot send the rows");
  gb_err e2 = pg_collect(s, NULL, NULL, NULL);
  return e ? e : e2;
}

static void pg_disconnect(gb_store *s) {
  PQfinish(s->h);
  s->h = NULL;
  memset(s->slot, 0, sizeof s->slot);
}

const gb_store_drv gb_store_pg = {
    .name = "postgresql",
    .id_type = "BIGSERIAL PRIMARY KEY",
    .begin = "BEGIN",
    .begin_read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    .connect = pg_connect,
    .query = pg_query,
    .disconnect = pg_disconnect,
    .copy_in = pg_copy_in,
};
