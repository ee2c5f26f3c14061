/* gb_store_sqlite: the store's SQLite engine (libsqlite3). One file in WAL
 * mode, so readers never wait for a writer; writers take the file's lock at
 * BEGIN IMMEDIATE and wait up to a minute for each other (busy timeout), so
 * two processes appending to one file both finish. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_store_int.h"

static gb_err sq_fail(gb_store *s, const char *what) {
  return gb_store_fail(s, what, s->h ? sqlite3_errmsg(s->h) : "out of memory");
}

/* path as a file: URI opened immutable (percent-encoded). */
static void immutable_uri(const char *path, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < n; p++)
    k += (size_t)(strchr("?#%", *p) || *p < 0x21 || *p > 0x7e ? snprintf(buf + k, n - k, "%%%02X", *p)
                                                              : snprintf(buf + k, n - k, "%c", *p));
  snprintf(buf + k, n - k, "?immutable=1");
}

/* A reader's connection: read-only, nothing set on the file (no journal
 * mode: that is a write), a missing file not created. A WAL store whose
 * folder this user cannot write has no -shm to share with writers (and no
 * writer of this user's rights): it is read as immutable. */
static gb_err sq_connect_read(gb_store *s, const char *path) {
  sqlite3 *db = NULL;
  if (access(path, F_OK) != 0)
    return gb_fail(GB_E_INPUT, "%s: no such store (a reader does not create one)", s->name);
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path, &db, flags, NULL);
  s->h = db;
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) {
    char uri[8400];
    immutable_uri(path, uri, sizeof uri);
    sqlite3_close(db);
    rc = sqlite3_open_v2(uri, &db, flags | SQLITE_OPEN_URI, NULL);
    s->h = db;
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  }
  if (rc != SQLITE_OK) return sq_fail(s, "cannot open");
  sqlite3_busy_timeout(db, 60000);
  return GB_OK;
}

static gb_err sq_connect(gb_store *s, const char *path) {
  if (s->readonly) return sq_connect_read(s, path);
  sqlite3 *db = NULL;
  bool is_new = access(path, F_OK) != 0;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  s->h = db;
  if (rc != SQLITE_OK) return sq_fail(s, "cannot open");
  const char *abs = sqlite3_db_filename(db, "main");
  snprintf(s->where, sizeof s->where, "SQLite file %s%s", abs && abs[0] ? abs : path, is_new ? " (new)" : "");
  sqlite3_busy_timeout(db, 60000);
  static const char *const k_setup[] = {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                                        "PRAGMA foreign_keys=OFF"};
  for (size_t i = 0; i < sizeof k_setup / sizeof k_setup[0]; i++) {
    /* Two processes opening a new file at once: the switch to WAL can answer
     * "locked" at once, without the busy handler, while the other one makes
     * it; retry for the busy timeout's minute. */
    int rc2, tries = 0;
    while ((rc2 = sqlite3_exec(db, k_setup[i], NULL, NULL, NULL)) != SQLITE_OK &&
           ((rc2 & 0xff) == SQLITE_BUSY || (rc2 & 0xff) == SQLITE_LOCKED) && tries++ < 600)
      sqlite3_sleep(100);
    if (rc2 != SQLITE_OK) return sq_fail(s, k_setup[i]);
  }
  return GB_OK;
}

/* sql with $N turned into ?N (SQLite's numbered parameters). */
static char *sq_sql(const char *sql) {
  char *t = strdup(sql);
  if (!t) return NULL;
  for (char *p = t; *p; p++)
    if (*p == '$' && p[1] >= '0' && p[1] <= '9') *p = '?';
  return t;
}

/* One row's values as SQLite holds them: numbers stay numbers. Each column
 * is fetched once, as its sqlite3_value (one API call, not a type call and
 * a value call that each take the connection's mutex and check for a
 * failed allocation): the connection is opened SQLITE_OPEN_NOMUTEX, where
 * an unprotected value is read as a protected one is. */
static gb_err sq_row(sqlite3_stmt *st, gb_sql_row_fn fn, void *ctx) {
  enum { MAXV = 64 };
  gb_sql_val val[MAXV];
  int n = sqlite3_data_count(st);
  if (n > MAXV) n = MAXV;
  for (int i = 0; i < n; i++) {
    gb_sql_val *v = &val[i];
    sqlite3_value *x = sqlite3_column_value(st, i);
    switch (sqlite3_value_type(x)) {
    case SQLITE_NULL: v->kind = GB_SQL_NULL; break;
    case SQLITE_INTEGER:
      v->kind = GB_SQL_INT;
      v->i = sqlite3_value_int64(x);
      break;
    case SQLITE_FLOAT:
      v->kind = GB_SQL_REAL;
      v->d = sqlite3_value_double(x);
      break;
    default:
      v->kind = GB_SQL_TEXT;
      v->s = (const char *)sqlite3_value_text(x);
      if (!v->s) return gb_fail(GB_E_NOMEM, "out of memory");
      v->len = (size_t)sqlite3_value_bytes(x);
      break;
    }
  }
  return fn(ctx, val, (size_t)n);
}

static gb_err sq_query(gb_store *s, int slot, const char *sql, const char *const *param, size_t np,
                       gb_sql_row_fn fn, void *ctx, size_t *changed) {
  sqlite3_stmt *st = slot >= 0 ? s->slot[slot] : NULL;
  if (!st) {
    char *t = sq_sql(sql);
    if (!t) return gb_fail(GB_E_NOMEM, "out of memory");
    int rc = sqlite3_prepare_v2(s->h, t, -1, &st, NULL);
    free(t);
    if (rc != SQLITE_OK) return sq_fail(s, "cannot prepare a statement");
    if (slot >= 0) s->slot[slot] = st;
  }
  gb_err e = GB_OK;
  for (size_t i = 0; i < np && !e; i++)
    if (sqlite3_bind_text(st, (int)i + 1, param[i], -1, SQLITE_STATIC) != SQLITE_OK) e = sq_fail(s, "cannot bind");
  int rc = SQLITE_DONE;
  while (!e && (rc = sqlite3_step(st)) == SQLITE_ROW)
    if (fn) e = sq_row(st, fn, ctx);
  if (!e && rc != SQLITE_DONE) e = sq_fail(s, "query failed");
  if (!e && changed) *changed = (size_t)sqlite3_changes(s->h);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (slot < 0) sqlite3_finalize(st);
  return e;
}

static void sq_disconnect(gb_store *s) {
  for (int i = 0; i < GB_STORE_SLOTS; i++) {
    sqlite3_finalize(s->slot[i]);
    s->slot[i] = NULL;
  }
  sqlite3_close(s->h);
  s->h = NULL;
}

/* A writer's page cache (the default is 2 MB): an import of a night adds
 * each node's rows in a transaction of their own, and every one of them
 * updates the same index pages (gb_rows_figure: one leaf a figure, where
 * all the nodes' rows of a night go), which a 2 MB cache has dropped before
 * the next node's transaction needs them again. The WAL is copied into the
 * file every 8,000 pages (32 MB) rather than 1,000, so a page that several
 * transactions of one import change is copied (and synced) once. Readers
 * keep the default: compare reads 100 MB of rows once, and a cache would
 * only hold them. */
static const char *const k_write_setup[] = {"PRAGMA cache_size=-131072", "PRAGMA wal_autocheckpoint=8000", NULL};

const gb_store_drv gb_store_sqlite = {
    .name = "sqlite",
    .id_type = "INTEGER PRIMARY KEY",
    .begin = "BEGIN IMMEDIATE",
    .begin_read = "BEGIN", /* deferred: the snapshot is taken by the first read, a WAL reader's */
    .write_setup = k_write_setup,
    .connect = sq_connect,
    .query = sq_query,
    .disconnect = sq_disconnect,
};
