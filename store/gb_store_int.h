/* gb_store_int: what the store's engine-neutral part (gb_store.c,
 * gb_store_io.c, gb_store_sel.c) asks of an engine (gb_store_sqlite.c,
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
  int64_t i;     /* GB_SQL_INT */
  double d;      /* GB_SQL_REAL */
} gb_sql_val;

/* One result row: n values. */
typedef gb_err (*gb_sql_row_fn)(void *ctx, const gb_sql_val *val, size_t n);

/* v as text (NULL for SQL NULL); a number is written into num. */
const char *gb_sql_text(const gb_sql_val *v, char num[32]);

#define GB_STORE_SLOTS 8 /* statements an engine keeps prepared */

typedef struct gb_store_drv {
  const char *name;     /* "sqlite", "postgresql" */
  const char *id_type;  /* the DDL of gb_rows' row number */
  const char *begin;    /* the statement that starts a writing transaction */
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
};

/* Runs sql, no parameters, no rows. */
gb_err gb_sql_exec(gb_store *s, const char *sql);

/* A failure of the store: GB_E_IO "NAME: what: detail", detail through
 * gb_store_redact. */
gb_err gb_store_fail(const gb_store *s, const char *what, const char *detail);

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
