/* gb_store_io: rows into the store (in batches, each row keyed so that the
 * same row added twice is stored once) and out of it (a selection, one row
 * at a time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_store_int.h"

#define BATCH 100 /* rows per INSERT */
#define NPAR_MAX 64

/* The row's identity in its run (gb_store_key.c: collision-free, no
 * length limit) into key; khash, no longer unique, is its first 64 bits. */
static gb_err row_key(const gb_row *r, char key[65], int64_t *khash) {
  gb_err e = gb_store_row_rkey(r, key);
  uint64_t h = 0;
  for (int i = 0; i < 16 && !e; i++) h = h << 4 | (uint64_t)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
  *khash = (int64_t)h;
  return e;
}

/* The INSERT of n rows: khash, rkey and the results columns 1..ncols-1. */
static gb_err insert_sql(size_t n, size_t ncols, gb_buf *b) {
  gb_err e = gb_buf_puts(b, "INSERT INTO gb_rows (khash, rkey");
  for (size_t i = 1; i < ncols && !e; i++) e = gb_buf_printf(b, ", \"%s\"", gb_results_col_name(i));
  if (!e) e = gb_buf_puts(b, ") VALUES ");
  size_t p = 1;
  for (size_t r = 0; r < n && !e; r++) {
    e = gb_buf_printf(b, "%s($%zu, $%zu", r ? ", " : "", p, p + 1);
    p += 2;
    for (size_t i = 1; i < ncols && !e; i++) e = gb_buf_printf(b, ", $%zu", p++);
    if (!e) e = gb_buf_puts(b, ")");
  }
  return e ? e : gb_buf_puts(b, " ON CONFLICT DO NOTHING");
}

typedef struct batch {
  const char **param;
  char (*num)[64];
  char (*key)[65]; /* each row's rkey */
} batch;

static gb_err insert_rows(gb_store *s, batch *bt, const gb_row *rows, size_t n, size_t *added) {
  size_t ncols = gb_results_ncols(), np = 0;
  for (size_t r = 0; r < n; r++) {
    int64_t khash;
    gb_err e = row_key(&rows[r], bt->key[r], &khash);
    if (e) return e;
    snprintf(bt->num[np], 64, "%lld", (long long)khash);
    bt->param[np] = bt->num[np];
    np++;
    bt->param[np++] = bt->key[r];
    for (size_t i = 1; i < ncols; i++, np++) {
      const char *f = gb_results_field(&rows[r], i, bt->num[np]);
      bt->param[np] = !f[0] && gb_results_col_type(i) != GB_COL_TEXT ? NULL : f;
    }
  }
  gb_buf sql = {0};
  bool prepared = n == BATCH && s->slot[0]; /* the statement of a whole batch, kept */
  gb_err e = prepared ? GB_OK : insert_sql(n, ncols, &sql);
  size_t changed = 0;
  if (!e) e = s->eng->query(s, n == BATCH ? 0 : -1, prepared ? "" : sql.data, bt->param, np, NULL, NULL, &changed);
  gb_buf_free(&sql);
  *added += changed;
  return e;
}

/* ---- COPY (an engine with copy_in: PostgreSQL) ----
 * The rows are sent in one COPY into a temporary table of the session
 * (gb_rows_in: the columns of the INSERT and the row's place, emptied at
 * each commit), then moved into gb_rows by one INSERT ... SELECT in that
 * order, which skips rows the store holds (ON CONFLICT DO NOTHING) as the
 * INSERTs do: one statement and no parameters to parse instead of one
 * INSERT of 100 rows' 4,500 parameters after another. */

/* "khash, rkey, "col", ..." of the results columns 1..ncols-1 */
static gb_err col_list(gb_buf *b, const char *pre) {
  gb_err e = gb_buf_printf(b, "%skhash, %srkey", pre, pre);
  for (size_t i = 1; i < gb_results_ncols() && !e; i++) e = gb_buf_printf(b, ", %s\"%s\"", pre, gb_results_col_name(i));
  return e;
}

static gb_err copy_setup(gb_store *s) {
  gb_buf b = {0};
  gb_err e = gb_buf_puts(&b, "CREATE TEMP TABLE gb_rows_in ON COMMIT DELETE ROWS AS SELECT 0::bigint AS ord, ");
  if (!e) e = col_list(&b, "");
  if (!e) e = gb_buf_puts(&b, " FROM gb_rows WITH NO DATA");
  if (!e) e = gb_sql_exec(s, b.data);
  gb_buf_free(&b);
  s->copy_ready = !e;
  return e;
}

/* f as a field of COPY's text format: \N for NULL, backslash, tab, line
 * feed and carriage return escaped. */
static gb_err copy_field(gb_buf *b, const char *f) {
  if (!f) return gb_buf_puts(b, "\\N");
  const char *run = f;
  gb_err e = GB_OK;
  for (const char *p = f; *p && !e; p++) {
    const char *esc = *p == '\\' ? "\\\\" : *p == '\t' ? "\\t" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : NULL;
    if (!esc) continue;
    e = gb_buf_append(b, run, (size_t)(p - run));
    if (!e) e = gb_buf_puts(b, esc);
    run = p + 1;
  }
  return e ? e : gb_buf_puts(b, run);
}

static gb_err copy_rows(gb_store *s, const gb_row *rows, size_t n, size_t *added) {
  gb_err e = GB_OK;
  size_t ncols = gb_results_ncols();
  gb_buf data = {0}, sql = {0};
  char num[64];
  for (size_t r = 0; r < n && !e; r++) {
    char key[65];
    int64_t khash;
    e = row_key(&rows[r], key, &khash);
    if (!e) e = gb_buf_printf(&data, "%zu\t%lld\t%s", r, (long long)khash, key);
    for (size_t i = 1; i < ncols && !e; i++) {
      const char *f = gb_results_field(&rows[r], i, num);
      e = gb_buf_puts(&data, "\t");
      if (!e) e = copy_field(&data, !f[0] && gb_results_col_type(i) != GB_COL_TEXT ? NULL : f);
    }
    if (!e) e = gb_buf_puts(&data, "\n");
  }
  if (!e) e = gb_buf_puts(&sql, "COPY gb_rows_in (ord, ");
  if (!e) e = col_list(&sql, "");
  if (!e) e = gb_buf_puts(&sql, ") FROM STDIN");
  if (!e) e = s->eng->copy_in(s, sql.data, data.data, data.len);
  sql.len = 0;
  if (!e) e = gb_buf_puts(&sql, "INSERT INTO gb_rows (");
  if (!e) e = col_list(&sql, "");
  if (!e) e = gb_buf_puts(&sql, ") SELECT ");
  if (!e) e = col_list(&sql, "");
  if (!e) e = gb_buf_puts(&sql, " FROM gb_rows_in ORDER BY ord ON CONFLICT DO NOTHING");
  size_t changed = 0;
  if (!e) e = s->eng->query(s, -1, sql.data, NULL, 0, NULL, NULL, &changed);
  if (!e) e = gb_sql_exec(s, "TRUNCATE gb_rows_in");
  *added += changed;
  gb_buf_free(&data);
  gb_buf_free(&sql);
  return e;
}

static gb_err get_campaign(void *ctx, const gb_sql_val *val, size_t n) {
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  snprintf(ctx, 256, "%s", t ? t : "");
  return GB_OK;
}

/* A run the store holds already, added again (docs/store.md, "Importing
 * again"): it keeps its campaign -- another one given is refused, naming
 * both, and nothing of these rows is added; and a finished run's rows
 * mark a run stored unfinished as finished (a killed run --store whose
 * file was then completed with --resume and imported). */
static gb_err run_again(gb_store *s, const gb_row *r, const char *campaign, bool complete, gb_store_counts *c) {
  char stored[256] = "";
  const char *id[1] = {r->run_id};
  gb_err e = GB_OK;
  if (campaign) e = s->eng->query(s, -1, "SELECT campaign FROM gb_runs WHERE run_id = $1", id, 1, get_campaign, stored,
                                  NULL);
  if (!e && campaign && strcmp(stored, campaign) != 0)
    return gb_fail(GB_E_INPUT, "%s: run %s is stored under campaign \"%.200s\", not \"%.200s\": a run belongs to one "
                   "campaign, so nothing of it was added (import it again without --campaign, or with that one)",
                   s->name, r->run_id, stored, campaign);
  size_t changed = 0;
  if (!e && complete)
    e = s->eng->query(s, -1, "UPDATE gb_runs SET complete = 1 WHERE run_id = $1 AND complete = 0", id, 1, NULL, NULL,
                      &changed);
  c->runs_completed += changed;
  return e;
}

static gb_err add_run(gb_store *s, const gb_row *r, const char *campaign, bool complete, gb_store_counts *c) {
  const char *p[12] = {r->run_id, campaign ? campaign : r->run_id, r->host, r->gpu_type, r->gpu_name, r->gpu_uuid,
                       r->driver, r->cuda, r->git_sha, r->profile, r->timestamp, complete ? "1" : "0"};
  size_t changed = 0;
  gb_err e = s->eng->query(s, 1,
                           "INSERT INTO gb_runs (run_id, campaign, host, gpu_type, gpu_name, gpu_uuid, driver, cuda, "
                           "git_sha, profile, started, complete) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
                           "$11, $12) ON CONFLICT DO NOTHING",
                           p, 12, NULL, NULL, &changed);
  c->runs_added += changed;
  return e || changed ? e : run_again(s, r, campaign, complete, c);
}

static gb_err add_in_txn(gb_store *s, const gb_row *rows, size_t n, const char *campaign, bool complete,
                         gb_store_counts *c) {
  batch bt = {malloc(BATCH * NPAR_MAX * sizeof *bt.param), malloc(BATCH * NPAR_MAX * sizeof *bt.num),
              malloc(BATCH * sizeof *bt.key)};
  gb_err e = bt.param && bt.num && bt.key ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
  if (!e && gb_results_ncols() + 1 >= NPAR_MAX) e = gb_fail(GB_E_INTERNAL, "more results columns than the store binds");
  for (size_t i = 0; i < n && !e; i++) {
    bool seen = i > 0 && strcmp(rows[i].run_id, rows[i - 1].run_id) == 0;
    if (!seen) e = add_run(s, &rows[i], campaign, complete, c);
  }
  size_t added = 0;
  if (s->eng->copy_in && n > 0 && !e) e = copy_rows(s, rows, n, &added);
  for (size_t i = 0; i < n && !e && !s->eng->copy_in; i += BATCH)
    e = insert_rows(s, &bt, rows + i, n - i < BATCH ? n - i : BATCH, &added);
  free(bt.param);
  free(bt.num);
  free(bt.key);
  c->rows_added += added;
  c->rows_present += n - added;
  return e;
}

gb_err gb_store_add(gb_store *s, const gb_row *rows, size_t n, const char *campaign, bool complete,
                    gb_store_counts *counts) {
  gb_store_counts c = {0};
  gb_err e = GB_OK;
  for (const char *const *q = s->eng->write_setup; q && *q && !s->write_ready && !e; q++) e = gb_sql_exec(s, *q);
  s->write_ready = !e;
  if (!e && s->eng->copy_in && !s->copy_ready) e = copy_setup(s);
  if (!e) e = gb_sql_exec(s, s->eng->begin);
  if (!e) e = add_in_txn(s, rows, n, campaign, complete, &c);
  if (!e) e = gb_sql_exec(s, "COMMIT");
  if (e) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    gb_sql_exec(s, "ROLLBACK");
    return gb_fail(e, "%s", msg);
  }
  if (counts) {
    counts->rows_added += c.rows_added;
    counts->rows_present += c.rows_present;
    counts->runs_added += c.runs_added;
    counts->runs_completed += c.runs_completed;
  }
  return GB_OK;
}

gb_err gb_store_import(gb_store *s, const char *path, const char *campaign, gb_store_counts *counts) {
  gb_results res = {0};
  gb_err e = gb_results_read(path, &res);
  if (e) return e;
  char marker[4096];
  snprintf(marker, sizeof marker, "%s.committed", path);
  bool complete = access(marker, F_OK) != 0;
  e = gb_store_add(s, res.rows, res.nrows, campaign, complete, counts);
  gb_results_free(&res);
  if (e == GB_E_INPUT) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    return gb_fail(e, "%s: %s", path, msg);
  }
  return e;
}

gb_err gb_store_run_mark(gb_store *s, const char *run_id, bool complete) {
  const char *p[2] = {complete ? "1" : "0", run_id};
  return s->eng->query(s, -1, "UPDATE gb_runs SET complete = $1 WHERE run_id = $2", p, 2, NULL, NULL, NULL);
}

/* ---- reading ---- */

typedef struct each_ctx {
  const char *store; /* its name, for messages */
  const char *sel;
  gb_store_row_fn fn;
  void *ctx;
  size_t n;
  gb_col_type type[NPAR_MAX]; /* each column's, looked up once */
} each_ctx;

/* Column i (of type t) into field[i] (text) or num[i] (a number of a
 * number column, as the engine holds it). */
static void put_field(const gb_sql_val *v, size_t i, gb_col_type t, const char **field, gb_field_num *num,
                      char *buf) {
  num[i].set = false;
  field[i] = NULL;
  if (v->kind == GB_SQL_TEXT) {
    field[i] = v->s;
  } else if (v->kind == GB_SQL_INT && t != GB_COL_TEXT) {
    num[i] = (gb_field_num){true, v->i, (double)v->i};
  } else if (v->kind == GB_SQL_REAL && t == GB_COL_REAL) {
    num[i] = (gb_field_num){true, 0, v->d};
  } else if (v->kind != GB_SQL_NULL) {
    field[i] = gb_sql_text(v, buf); /* checked as text: a number in a text column, a fraction in an integer one */
  }
}

/* A text value read back from the store, checked as the CSV reader checks
 * a field (core/gb_csv.c): no NUL byte, valid UTF-8, at most
 * GB_CSV_MAX_FIELD bytes. */
static gb_err check_text(const each_ctx *ec, int64_t id, size_t col, const gb_sql_val *v) {
  size_t bad = 0;
  const char *what = v->len > GB_CSV_MAX_FIELD      ? "longer than the 1048576-byte limit of a field"
                     : strlen(v->s) != v->len         ? "holds a NUL byte"
                     : !gb_utf8_valid(v->s, v->len, &bad) ? "not valid UTF-8"
                                                       : NULL;
  if (!what) return GB_OK;
  return gb_fail(GB_E_INPUT, "%s: row %lld: %s: %s: the store is damaged", ec->store, (long long)id,
                 gb_results_col_name(col), what);
}

/* One row read back: every value checked as a results file's field is
 * (check_text, then gb_results_parse_typed: the same bounds and messages),
 * nothing trusted because the store held it. */
static gb_err each_row(void *ctx, const gb_sql_val *val, size_t n) {
  each_ctx *ec = ctx;
  const char *field[NPAR_MAX];
  gb_field_num num[NPAR_MAX];
  char buf[NPAR_MAX][32];
  size_t ncols = gb_results_ncols();
  if (n != ncols) return gb_fail(GB_E_INTERNAL, "a store row of %zu values, not %zu", n, ncols);
  if (val[0].kind != GB_SQL_INT) return gb_fail(GB_E_INPUT, "%s: a row whose id is not a whole number: the store is damaged", ec->store);
  int64_t id = val[0].i;
  gb_err e = GB_OK;
  for (size_t i = 1; i < ncols && !e; i++)
    if (val[i].kind == GB_SQL_TEXT) e = check_text(ec, id, i, &val[i]);
  if (e) return e;
  field[0] = NULL;
  num[0].set = false;
  for (size_t i = 1; i < ncols; i++) put_field(&val[i], i, ec->type[i], field, num, buf[i]);
  gb_row r;
  e = gb_results_parse_typed(ec->sel, (long)id, field, num, &r);
  if (e) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    return gb_fail(e, "%s: a damaged row (selection:id:column): %s", ec->store, msg);
  }
  e = ec->fn(ec->ctx, &r);
  ec->n++;
  return e;
}

/* "SELECT r.id, r.COLUMN..." of the results columns, then tail. */
static gb_err select_sql(gb_buf *sql, const char *tail) {
  gb_err e = gb_buf_puts(sql, "SELECT r.id");
  for (size_t i = 1; i < gb_results_ncols() && !e; i++) e = gb_buf_printf(sql, ", r.\"%s\"", gb_results_col_name(i));
  return e ? e : gb_buf_puts(sql, tail);
}

typedef struct run_list {
  char **id;
  size_t n, cap;
} run_list;

static gb_err add_run_id(void *ctx, const gb_sql_val *val, size_t n) {
  run_list *l = ctx;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **id = realloc(l->id, cap * sizeof *id);
    if (!id) return gb_fail(GB_E_NOMEM, "out of memory");
    l->id = id;
    l->cap = cap;
  }
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  if (!t) return gb_fail(GB_E_INPUT, "a run without a run_id: the store is damaged");
  if (!(l->id[l->n] = strdup(t))) return gb_fail(GB_E_NOMEM, "out of memory");
  l->n++;
  return GB_OK;
}

/* The selected runs in the order they started, then each run's rows in
 * the order they were added, through gb_rows_run: no join, and no sort
 * or hash of the selected rows. */
static gb_err each_by_run(gb_store *s, gb_sel_sql *q, each_ctx *ec) {
  gb_buf sql = {0};
  run_list runs = {0};
  gb_err e = gb_buf_printf(&sql, "SELECT u.run_id FROM gb_runs u%s ORDER BY u.started, u.run_id", q->runs.sql);
  if (!e) e = s->eng->query(s, -1, sql.data, q->runs.param, q->runs.np, add_run_id, &runs, NULL);
  sql.len = 0;
  if (!e) e = select_sql(&sql, " FROM gb_rows r WHERE r.run_id = $1");
  if (!e && q->rows.sql[0]) e = gb_buf_printf(&sql, " AND %s", q->rows.sql + strlen(" WHERE "));
  if (!e) e = gb_buf_puts(&sql, " ORDER BY r.id");
  for (size_t i = 0; i < runs.n && !e; i++) {
    q->rows.param[0] = runs.id[i];
    e = s->eng->query(s, -1, sql.data, q->rows.param, q->rows.np, each_row, ec, NULL);
  }
  for (size_t i = 0; i < runs.n; i++) free(runs.id[i]);
  free(runs.id);
  gb_buf_free(&sql);
  return e;
}

/* each with in_order false: a selection of runs run by run (each_by_run),
 * one of figures as the engine finds the rows, saving the sort of every
 * selected row. */
static gb_err each(gb_store *s, const char *sel, bool in_order, gb_store_row_fn fn, void *ctx, size_t *n) {
  gb_sel_sql q;
  gb_err e = gb_sel_parse(s->name, sel, &q);
  if (e) return e;
  each_ctx ec = {s->name, sel, fn, ctx, 0, {0}};
  for (size_t i = 0; i < gb_results_ncols() && i < NPAR_MAX; i++) ec.type[i] = gb_results_col_type(i);
  gb_buf sql = {0};
  if (!in_order && q.by_run) {
    e = each_by_run(s, &q, &ec);
  } else {
    e = select_sql(&sql, " FROM gb_rows r JOIN gb_runs u ON u.run_id = r.run_id");
    if (!e) e = gb_buf_printf(&sql, "%s%s", q.all.sql, in_order ? " ORDER BY r.id" : "");
    if (!e) e = s->eng->query(s, -1, sql.data, q.all.param, q.all.np, each_row, &ec, NULL);
  }
  gb_buf_free(&sql);
  if (n) *n = ec.n;
  return e;
}

gb_err gb_store_each(gb_store *s, const char *sel, gb_store_row_fn fn, void *ctx, size_t *n) {
  return each(s, sel, true, fn, ctx, n);
}

static gb_err add_lean(void *ctx, const gb_row *r) { return gb_results_add_row(ctx, r, true); }

/* The one answer of every reader to a selection that matches no row: bad
 * input (exit 2), as a results file with a header and no rows is. */
static gb_err selected_nothing(const gb_store *s, const char *sel) {
  return gb_fail(GB_E_INPUT, "%s: selection \"%s\" selected nothing: no rows", s->name, sel);
}

gb_err gb_store_read(gb_store *s, const char *sel, gb_results *res) {
  size_t n = 0;
  gb_err e = each(s, sel, false, add_lean, res, &n);
  return !e && n == 0 ? selected_nothing(s, sel) : e;
}

typedef struct csv_ctx {
  FILE *out;
  gb_buf b;
  size_t n;
} csv_ctx;

static gb_err csv_flush(csv_ctx *c) {
  if (c->b.len && fwrite(c->b.data, 1, c->b.len, c->out) != c->b.len) return gb_fail(GB_E_IO, "cannot write the CSV");
  c->b.len = 0;
  return GB_OK;
}

static gb_err csv_row(void *ctx, const gb_row *r) {
  csv_ctx *c = ctx;
  gb_err e = gb_results_put_row(&c->b, r);
  c->n++;
  return !e && c->b.len > (1u << 20) ? csv_flush(c) : e;
}

/* The header waits in the buffer for the first row: a selection of no row
 * writes nothing, not a header that reads as an empty result. */
gb_err gb_store_write_csv(gb_store *s, const char *sel, FILE *out, size_t *n) {
  csv_ctx c = {out, {0}, 0};
  gb_err e = gb_results_put_header(&c.b);
  if (!e) e = gb_store_each(s, sel, csv_row, &c, NULL);
  if (!e && c.n == 0) e = selected_nothing(s, sel);
  if (!e) e = csv_flush(&c);
  if (!e && fflush(out) != 0) e = gb_fail(GB_E_IO, "cannot write the CSV");
  gb_buf_free(&c.b);
  if (n) *n = c.n;
  return e;
}

gb_err gb_store_read_url(const char *url, char *const *sels, size_t nsels, gb_results *res) {
  gb_store *s;
  gb_err e = gb_store_open_read(url, &s);
  for (size_t i = 0; i < nsels && !e; i++) e = gb_store_read(s, sels[i], res);
  gb_store_close(s);
  return e;
}
