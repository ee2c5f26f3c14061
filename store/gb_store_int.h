/* gb_store_int: what the store's engine-neutral part (gb_store.c,
 * gb_store_sql.c, gb_store_io.c, gb_store_sel.c) asks of an engine (gb_store_sqlite.c,
 * gb_store_pg.c). SQL is written once, with $1..$N parameters; parameters
 * and values travel as text (NULL: SQL NULL). */
#ifndef GB_STORE_INT_H
#define GB_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_store.h"

/* A value of a result row: SQL NULL, text, or a number as the engine holds
 * it (SQLite hands over its integers and doubles as such: no printing and
 * parsing of every number read). */
typedef enum { GB_SQL_NULL, GB_SQL_TEXT, GB_SQL_INT, GB_SQL_REAL } gb_sql_kind;
typedef struct gb_sql_val {
  gb_sql_kind kind;
  const char *s; /* GB_SQL_TEXT */
  size_t len;    /* GB_SQL_TEXT: its bytes as stored (a NUL inside: more than strlen) */
  int64_t i;     /* GB_SQL_INT */
  double d;      /* GB_SQL_REAL */
} gb_sql_val;

/* One result row: n values. */
typedef gb_err (*gb_sql_row_fn)(void *ctx, const gb_sql_val *val, size_t n);

/* v as text (NULL for SQL NULL); a number is written into num
 * (gb_store_sql.c). */
const char *gb_sql_text(const gb_sql_val *v, char num[32]);

#define GB_STORE_SLOTS 8 /* statements an engine keeps prepared */

typedef struct gb_store_drv {
  const char *name;     /* "sqlite", "postgresql" */
  const char *id_type;  /* the DDL of gb_rows' row number */
  const char *begin;    /* the statement that starts a writing transaction */
  const char *begin_read; /* the one that starts a reader's snapshot: one view of the store for all its queries */
  /* statements run once on a connection before its first write (NULL: none) */
  const char *const *write_setup;
  gb_err (*connect)(gb_store *s, const char *target);
  /* Runs sql with np parameters; fn (may be NULL) gets each result row as it
   * arrives; *changed (may be NULL) the rows an INSERT or UPDATE changed.
   * slot >= 0 keeps the statement prepared under that number (the same sql
   * every time). */
  gb_err (*query)(gb_store *s, int slot, const char *sql, const char *const *param, size_t np, gb_sql_row_fn fn,
                  void *ctx, size_t *changed);
  void (*disconnect)(gb_store *s);
  /* Runs sql, a COPY ... FROM STDIN, sending it len bytes of data (its text
   * format); NULL where the engine has none (rows then go in INSERTs). */
  gb_err (*copy_in)(gb_store *s, const char *sql, const char *data, size_t len);
} gb_store_drv;

extern const gb_store_drv gb_store_sqlite;
extern const gb_store_drv gb_store_pg;

struct gb_store {
  const gb_store_drv *eng;
  void *h;             /* the engine's connection */
  void *slot[GB_STORE_SLOTS];
  char name[512];      /* the URL, password masked: for messages */
  char *url;           /* as given: gb_store_redact of the engine's messages */
  char where[1024];    /* gb_store_where, set by connect */
  int version;
  bool write_ready; /* write_setup ran */
  bool copy_ready;  /* the session's table of rows to add (copy_in) exists */
  bool readonly;    /* a reader's connection (gb_store_open_read): the engine opens it read-only */
  bool reading;     /* in the reader's snapshot (begin_read), ended at close */
};

/* ---- what every part does with an open store (gb_store_sql.c) ---- */

/* Runs sql, no parameters, no rows. */
gb_err gb_sql_exec(gb_store *s, const char *sql);

/* A failure of the store: GB_E_IO "NAME: what: detail", detail through
 * gb_store_redact. */
gb_err gb_store_fail(const gb_store *s, const char *what, const char *detail);

/* CREATE TABLE table: a row number, khash, rkey (with rkey: the row's
 * identity, unique in its run; without: khash is) and the results columns
 * 1..ncols-1 ("schema" is the store's own version). */
gb_err gb_store_rows_ddl(const gb_store *s, const char *table, size_t ncols, bool rkey, gb_buf *b);

/* ---- a row's identity (gb_store_key.c) ---- */

/* The results columns that make a row distinct in its run, in the key's order. */
#define GB_STORE_KEY_NCOLS 15
extern const char *const gb_store_key_cols[GB_STORE_KEY_NCOLS];

/* The key of a row whose key columns hold field[] (as the results file
 * writes them: "" for an empty number; NULL is ""): the SHA-256, in hex, of
 * each field as LENGTH:BYTES. */
void gb_store_rkey(const char *const field[GB_STORE_KEY_NCOLS], char out[65]);

/* The same from a row. */
gb_err gb_store_row_rkey(const gb_row *r, char out[65]);

/* Schema step 5 (gb_store.c's k_step5): SQLite's gb_rows rebuilt with
 * rkey and UNIQUE (run_id, rkey) instead of UNIQUE (run_id, khash), its
 * ncols results columns, ids and indexes kept; and every row's rkey filled
 * in (both engines). */
gb_err gb_store_rebuild_v5(gb_store *s, size_t ncols);
gb_err gb_store_fill_rkey(gb_store *s);

/* SHA-256 of n bytes, in hex (tests check it against FIPS 180-4's examples). */
void gb_store_sha256_hex(const void *data, size_t n, char out[65]);

/* ---- selections (gb_store_sel.c) ---- */

#define GB_SEL_MAX_PARAMS 32

typedef struct gb_sel_where {
  char sql[4096];                   /* " WHERE ..." or "" */
  const char *param[GB_SEL_MAX_PARAMS];
  size_t np;
} gb_sel_where;

/* A selection as SQL: all, the condition on gb_rows r joined with gb_runs
 * u; by_run (the selection names runs, no figure): the runs one at a time
 * instead, those of runs (on u alone), and of each, the rows of rows (on
 * r alone, $1 the run_id, param[0] left for it). */
typedef struct gb_sel_sql {
  gb_sel_where all, runs, rows;
  bool by_run;
  char buf[2048];                   /* the parameters' text */
} gb_sel_sql;

/* Parses the selection text sel into q (GB_E_USAGE naming the key that is
 * not one). store names the store in messages. */
gb_err gb_sel_parse(const char *store, const char *sel, gb_sel_sql *q);

#endif
