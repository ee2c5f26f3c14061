/* gb_store_sql: what every part of the store does with an open store,
 * below them all: a failure's message (gb_store_fail, its detail through
 * gb_store_redact of gb_store_url.c), a statement run with no rows
 * (gb_sql_exec), a value as text (gb_sql_text) and gb_rows' CREATE TABLE
 * (gb_store_rows_ddl). Called by the opening and the migrations
 * (gb_store.c), a row's identity and schema step 5 (gb_store_key.c), the
 * engines (gb_store_sqlite.c, gb_store_pg.c) and the readers and writers
 * (gb_store_io.c, gb_store_record.c); it calls only gb_store_url.c and an
 * engine through the store's own table (s->eng). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gb_num.h"
#include "gb_store_int.h"

gb_err gb_store_fail(const gb_store *s, const char *what, const char *detail) {
  gb_buf b = {0};
  if (gb_store_redact(s->url ? s->url : "", detail, &b)) return gb_fail(GB_E_NOMEM, "%s: %s", s->name, what);
  gb_err e = gb_fail(GB_E_IO, "%s: %s: %.*s", s->name, what, (int)strcspn(b.data, "\n"), b.data); /* its first line */
  gb_buf_free(&b);
  return e;
}

gb_err gb_sql_exec(gb_store *s, const char *sql) { return s->eng->query(s, -1, sql, NULL, 0, NULL, NULL, NULL); }

static const char *col_sql_type(gb_col_type t) {
  return t == GB_COL_INT ? "BIGINT" : t == GB_COL_REAL ? "DOUBLE PRECISION" : "TEXT";
}

gb_err gb_store_rows_ddl(const gb_store *s, const char *table, size_t ncols, bool rkey, gb_buf *b) {
  gb_err e = gb_buf_printf(b, "CREATE TABLE %s (id %s, khash BIGINT NOT NULL%s", table, s->eng->id_type,
                           rkey ? ", rkey TEXT" : "");
  for (size_t i = 1; i < ncols && !e; i++)
    e = gb_buf_printf(b, ", \"%s\" %s%s", gb_results_col_name(i), col_sql_type(gb_results_col_type(i)),
                      i == 1 ? " NOT NULL" : "");
  return e ? e : gb_buf_puts(b, rkey ? ", UNIQUE (run_id, rkey))" : ", UNIQUE (run_id, khash))");
}

const char *gb_sql_text(const gb_sql_val *v, char num[32]) {
  switch (v->kind) {
  case GB_SQL_TEXT: return v->s;
  case GB_SQL_INT: snprintf(num, 32, "%lld", (long long)v->i); return num;
  case GB_SQL_REAL: gb_snprintf_c(num, 32, "%.17g", v->d); return num;
  default: return NULL;
  }
}
