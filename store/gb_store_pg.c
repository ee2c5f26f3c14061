/* gb_store_pg: the store's PostgreSQL engine (libpq). Results arrive one
 * row at a time (single-row mode), so a reader holds the row it is on, not
 * the whole answer, and works on it while the server sends the next ones
 * (an answer taken whole costs libpq less, a result a row, but leaves the
 * client and the server waiting for each other: compare took 0.45 s
 * longer), and in binary, so numbers arrive as numbers. libpq's
 * notices are dropped (library code prints nothing); its messages never
 * hold the password. Reached only through its table (gb_store_pg, which
 * gb_store.c picks for a PostgreSQL URL); it calls down into
 * gb_store_sql.c (gb_store_fail) and gb_store_url.c (the secrets masked,
 * the timeout). */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_store_int.h"

static void pg_quiet(void *arg, const char *msg) {
  (void)arg;
  (void)msg;
}

/* libpq's message, whole: gb_store_fail masks its secrets, then keeps its
 * first line. */
static gb_err pg_fail(gb_store *s, const char *what) {
  return gb_store_fail(s, what, s->h ? PQerrorMessage(s->h) : "out of memory");
}

/* Where the connection went (gb_store_where), from libpq's answers, its
 * secrets masked. */
static void pg_where(gb_store *s) {
  PGconn *c = s->h;
  const char *host = PQhost(c), *port = PQport(c);
  char raw[1024];
  snprintf(raw, sizeof raw, "PostgreSQL database %s on %s%s%s as %s", PQdb(c), host && host[0] ? host : "localhost",
           port && port[0] ? ":" : "", port ? port : "", PQuser(c));
  gb_buf b = {0};
  snprintf(s->where, sizeof s->where, "%s", gb_store_redact(s->url, raw, &b) ? "PostgreSQL" : b.data);
  gb_buf_free(&b);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Waits until the connection's socket is ready for events, or fails once
 * the statement's deadline has passed. */
static gb_err pg_wait(gb_store *s, short events, double deadline) {
  for (;;) {
    double left = deadline - now_s();
    if (left <= 0)
      return gb_fail(GB_E_IO, "%s: the server did not answer within %g s (--store-timeout)", s->name,
                     gb_store_timeout());
    struct pollfd p = {PQsocket(s->h), events, 0};
    int n = poll(&p, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
    if (n > 0) return GB_OK;
    if (n < 0 && errno != EINTR) return gb_fail(GB_E_IO, "%s: poll: %s", s->name, strerror(errno));
  }
}

/* Sends what libpq holds (nonblocking), reading what arrives meanwhile. */
static gb_err pg_flush(gb_store *s, double deadline) {
  int r;
  while ((r = PQflush(s->h)) == 1) {
    gb_err e = pg_wait(s, POLLOUT | POLLIN, deadline);
    if (!e && !PQconsumeInput(s->h)) return pg_fail(s, "lost the server");
    if (e) return e;
  }
  return r == 0 ? GB_OK : pg_fail(s, "cannot send to the server");
}

/* The next result of the statement (NULL: none left), waiting for it no
 * longer than the deadline. */
static gb_err pg_result(gb_store *s, double deadline, PGresult **r) {
  *r = NULL;
  while (PQisBusy(s->h)) {
    gb_err e = pg_wait(s, POLLIN, deadline);
    if (e) return e;
    if (!PQconsumeInput(s->h)) return pg_fail(s, "lost the server");
  }
  *r = PQgetResult(s->h);
  return GB_OK;
}

/* Runs a statement with no parameters and no rows (the session's set-up). */
static gb_err pg_exec(gb_store *s, const char *sql, const char *what) {
  double deadline = now_s() + gb_store_timeout();
  gb_err e = PQsendQuery(s->h, sql) ? pg_flush(s, deadline) : pg_fail(s, what);
  PGresult *r;
  while (!e && !(e = pg_result(s, deadline, &r)) && r) {
    if (PQresultStatus(r) != PGRES_COMMAND_OK) e = gb_store_fail(s, what, PQresultErrorMessage(r));
    PQclear(r);
  }
  return e;
}

/* Connects with the deadlines of gb_store_set_timeout (a value in the
 * connection string itself wins: it comes last), then sets the server's
 * statement_timeout. A string libpq does not parse is refused before any
 * connection, its message masked. */
static gb_err pg_connect(gb_store *s, const char *conninfo) {
  char *err = NULL;
  PQconninfoOption *o = PQconninfoParse(conninfo, &err);
  PQconninfoFree(o);
  if (!o) {
    gb_err e = gb_store_fail(s, "not a PostgreSQL connection string", err ? err : "out of memory");
    PQfreemem(err);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    return gb_fail(e == GB_E_IO ? GB_E_USAGE : e, "%s", msg);
  }
  char ct[32], ut[32], sql[64];
  double t = gb_store_timeout();
  snprintf(ct, sizeof ct, "%.0f", t < 2 ? 2 : t);
  snprintf(ut, sizeof ut, "%.0f", t * 1000);
  const char *const kw[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                            "keepalives_count", "tcp_user_timeout", "dbname", NULL};
  const char *const val[] = {ct, "1", "10", "5", "3", ut, conninfo, NULL};
  PGconn *c = PQconnectdbParams(kw, val, 1);
  s->h = c;
  if (!c || PQstatus(c) != CONNECTION_OK) return pg_fail(s, "cannot connect");
  PQsetNoticeProcessor(c, pg_quiet, NULL);
  pg_where(s);
  if (PQsetnonblocking(c, 1) != 0) return pg_fail(s, "cannot set up the session");
  snprintf(sql, sizeof sql, "SET statement_timeout = %.0f", t * 1000);
  gb_err e = pg_exec(s, "SET client_min_messages = warning", "cannot set up the session");
  return e ? e : pg_exec(s, sql, "cannot set up the session");
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
static gb_err pg_collect(gb_store *s, double deadline, gb_sql_row_fn fn, void *ctx, size_t *changed) {
  gb_err e = GB_OK;
  PGresult *r;
  enum { MAXV = 64 };
  gb_sql_val val[MAXV];
  for (;;) {
    gb_err we = pg_result(s, deadline, &r);
    if (we) return e ? e : we; /* a silent server: the connection is left as is, closed by the caller */
    if (!r) break;
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
      e = gb_store_fail(s, "query failed", PQresultErrorMessage(r));
    }
    PQclear(r);
  }
  return e;
}

static gb_err pg_query(gb_store *s, int slot, const char *sql, const char *const *param, size_t np,
                       gb_sql_row_fn fn, void *ctx, size_t *changed) {
  char name[16];
  int sent;
  double deadline = now_s() + gb_store_timeout();
  if (slot >= 0) {
    snprintf(name, sizeof name, "gb%d", slot);
    if (!s->slot[slot]) {
      gb_err e = PQsendPrepare(s->h, name, sql, (int)np, NULL) ? pg_flush(s, deadline)
                                                                : pg_fail(s, "cannot prepare a statement");
      if (!e) e = pg_collect(s, deadline, NULL, NULL, NULL);
      if (e) return e;
      s->slot[slot] = s; /* marks it prepared */
    }
    sent = PQsendQueryPrepared(s->h, name, (int)np, param, NULL, NULL, fn ? 1 : 0);
  } else {
    sent = PQsendQueryParams(s->h, sql, (int)np, NULL, param, NULL, NULL, fn ? 1 : 0); /* rows in binary */
  }
  if (!sent) return pg_fail(s, "cannot send a query");
  if (fn) PQsetSingleRowMode(s->h);
  gb_err e = pg_flush(s, deadline);
  return e ? e : pg_collect(s, deadline, fn, ctx, changed);
}

/* The COPY's rows, in pieces of at most 1 MB, each sent within the
 * deadline (nonblocking: a server that stops reading fills the socket, and
 * PQputCopyData then answers 0 until it drains). */
static gb_err pg_copy_data(gb_store *s, const char *data, size_t len, double deadline) {
  gb_err e = GB_OK;
  for (size_t off = 0; off < len && !e;) {
    size_t k = len - off < (1u << 20) ? len - off : (1u << 20);
    int r = PQputCopyData(s->h, data + off, (int)k);
    if (r == 1) off += k;
    else if (r == 0) e = pg_wait(s, POLLOUT | POLLIN, deadline);
    else e = pg_fail(s, "cannot send the rows");
    if (!e && r == 0 && !PQconsumeInput(s->h)) e = pg_fail(s, "lost the server");
  }
  return e;
}

static gb_err pg_copy_in(gb_store *s, const char *sql, const char *data, size_t len) {
  double deadline = now_s() + gb_store_timeout();
  gb_err e = PQsendQuery(s->h, sql) ? pg_flush(s, deadline) : pg_fail(s, "cannot start a COPY");
  PGresult *r = NULL;
  if (!e) e = pg_result(s, deadline, &r);
  if (e) return e;
  if (PQresultStatus(r) != PGRES_COPY_IN) {
    e = gb_store_fail(s, "cannot start a COPY", r ? PQresultErrorMessage(r) : "no answer");
    PQclear(r);
    pg_collect(s, deadline, NULL, NULL, NULL); /* what is left of the answer */
    return e;
  }
  PQclear(r);
  e = pg_copy_data(s, data, len, deadline);
  if (e && now_s() >= deadline) return e; /* a silent server: nothing more to say to it */
  /* a COPY cut short is ended as failed, so that none of its rows is added */
  int end;
  while ((end = PQputCopyEnd(s->h, e ? "not every row was sent" : NULL)) == 0) {
    gb_err we = pg_wait(s, POLLOUT, deadline);
    if (we) return e ? e : we;
  }
  if (end < 0) return e ? e : pg_fail(s, "cannot send the rows");
  gb_err e2 = pg_flush(s, deadline);
  if (!e2) e2 = pg_collect(s, deadline, NULL, NULL, NULL);
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
