/* gb_results: results CSV reader (validating) and crash-safe appending writer. */
#include "gb_results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_num.h"
#include "gb_results_int.h"

static const char *const k_status_names[GB_STATUS_COUNT] = {"ok", "invalid", "error", "throttled", "unsupported"};

const char *gb_status_name(gb_status s) {
  return (unsigned)s < GB_STATUS_COUNT ? k_status_names[s] : "?";
}

bool gb_status_parse(const char *s, gb_status *out) {
  for (int i = 0; i < GB_STATUS_COUNT; i++)
    if (strcmp(s, k_status_names[i]) == 0) {
      *out = (gb_status)i;
      return true;
    }
  return false;
}

gb_row gb_row_empty(void) {
  gb_row r;
  memset(&r, 0, sizeof r);
  r.run_id = r.timestamp = r.host = r.gpu_type = r.gpu_name = r.driver = r.cuda = "";
  r.benchmark = r.case_name = r.dtype = r.metric = r.unit = r.detail = r.variant = r.git_sha = "";
  r.cublaslt = r.nvrtc = r.nccl = r.settings = r.regime = "";
  r.profile = r.gpu_uuid = r.campaign = r.energy_note = "";
  r.file = "";
  r.gpu_count = 1;
  r.m = r.n = r.k = r.bytes = r.l2_bytes = r.groups = GB_NA;
  r.samples = GB_NA;
  r.value = r.min = r.max = r.stddev = NAN;
  r.sm_clock_mhz = r.mem_clock_mhz = r.temp_c = r.power_w = r.peak = NAN;
  r.energy_j = r.energy_s = r.power_instant_w = NAN;
  r.rep = r.headline = -1;
  r.status = GB_STATUS_OK;
  return r;
}

static void put_i64(char *buf, size_t n, int64_t v) {
  if (v == GB_NA)
    buf[0] = '\0';
  else
    snprintf(buf, n, "%lld", (long long)v);
}

void gb_row_case_key(const gb_row *r, bool with_metric, char *buf, size_t n) {
  char m[24], nn[24], k[24], b[24];
  put_i64(m, sizeof m, r->m);
  put_i64(nn, sizeof nn, r->n);
  put_i64(k, sizeof k, r->k);
  put_i64(b, sizeof b, r->bytes);
  int used = snprintf(buf, n, "%s|%s|%s|%s|%s|%s|%s|%d|%d|%s%s%s", r->benchmark, r->case_name, r->dtype, m, nn, k,
                      b, r->gpu_count, r->rep, r->settings, with_metric ? "|" : "", with_metric ? r->metric : "");
  if (r->groups != GB_NA && used >= 0 && (size_t)used < n) /* older keys stay as they were */
    snprintf(buf + used, n - (size_t)used, "|groups=%lld", (long long)r->groups);
}

/* ---- the column table: order written, and how each is read ---- */

typedef enum { COL_STR, COL_REQSTR, COL_INT, COL_COUNT, COL_DBL, COL_STATUS, COL_REP, COL_SCHEMA, COL_FLAG } col_kind;

typedef struct col_def {
  const char *name;
  col_kind kind;
  bool required;
  size_t off; /* offsetof in gb_row */
} col_def;

#define F(field) offsetof(gb_row, field)
static const col_def k_cols[] = {
    {"schema", COL_SCHEMA, true, 0},
    {"run_id", COL_REQSTR, true, F(run_id)},
    {"timestamp", COL_STR, true, F(timestamp)},
    {"host", COL_STR, true, F(host)},
    {"gpu_type", COL_REQSTR, true, F(gpu_type)},
    {"gpu_name", COL_STR, true, F(gpu_name)},
    {"gpu_count", COL_COUNT, true, F(gpu_count)},
    {"driver", COL_STR, true, F(driver)},
    {"cuda", COL_STR, true, F(cuda)},
    {"benchmark", COL_REQSTR, true, F(benchmark)},
    {"case", COL_REQSTR, true, F(case_name)},
    {"dtype", COL_STR, true, F(dtype)},
    {"m", COL_INT, true, F(m)},
    {"n", COL_INT, true, F(n)},
    {"k", COL_INT, true, F(k)},
    {"bytes", COL_INT, true, F(bytes)},
    {"metric", COL_REQSTR, true, F(metric)},
    {"unit", COL_STR, true, F(unit)},
    {"value", COL_DBL, true, F(value)},
    {"samples", COL_INT, true, F(samples)},
    {"min", COL_DBL, true, F(min)},
    {"max", COL_DBL, true, F(max)},
    {"stddev", COL_DBL, true, F(stddev)},
    {"status", COL_STATUS, true, F(status)},
    {"detail", COL_STR, true, F(detail)},
    {"sm_clock_mhz", COL_DBL, true, F(sm_clock_mhz)},
    {"mem_clock_mhz", COL_DBL, true, F(mem_clock_mhz)},
    {"temp_c", COL_DBL, true, F(temp_c)},
    {"power_w", COL_DBL, true, F(power_w)},
    {"rep", COL_REP, false, F(rep)},
    {"variant", COL_STR, false, F(variant)},
    {"peak", COL_DBL, false, F(peak)},
    {"git_sha", COL_STR, false, F(git_sha)},
    {"cublaslt", COL_STR, false, F(cublaslt)},
    {"nvrtc", COL_STR, false, F(nvrtc)},
    {"nccl", COL_STR, false, F(nccl)},
    {"settings", COL_STR, false, F(settings)},
    {"l2_bytes", COL_INT, false, F(l2_bytes)},
    {"regime", COL_STR, false, F(regime)},
    {"headline", COL_FLAG, false, F(headline)},
    {"profile", COL_STR, false, F(profile)},
    {"gpu_uuid", COL_STR, false, F(gpu_uuid)},
    {"groups", COL_INT, false, F(groups)},
    {"campaign", COL_STR, false, F(campaign)},
    {"energy_j", COL_DBL, false, F(energy_j)},
    {"energy_s", COL_DBL, false, F(energy_s)},
    {"energy_note", COL_STR, false, F(energy_note)},
    {"power_instant_w", COL_DBL, false, F(power_instant_w)},
};
#undef F
#define NCOLS (sizeof k_cols / sizeof k_cols[0])

gb_err gb_results_put_header(gb_buf *b) {
  gb_err e;
  for (size_t i = 0; i < NCOLS; i++)
    if ((e = gb_csv_put_field(b, k_cols[i].name, i ? ',' : 0))) return e;
  return gb_buf_append(b, "\n", 1);
}

/* Appends the field of column c of r (NULL: an empty field). */
static gb_err put_field(gb_buf *b, const gb_row *r, const col_def *c, char sep) {
  gb_err e = GB_OK;
  char num[64];
  const char *base = (const char *)r;
  if (!c) return gb_csv_put_field(b, "", sep);
  switch (c->kind) {
  case COL_SCHEMA:
    snprintf(num, sizeof num, "%d", GB_SCHEMA_VERSION);
    e = gb_csv_put_field(b, num, sep);
    break;
  case COL_STR:
  case COL_REQSTR:
    e = gb_csv_put_field(b, *(const char *const *)(base + c->off), sep);
    break;
  case COL_INT:
    put_i64(num, sizeof num, *(const int64_t *)(base + c->off));
    e = gb_csv_put_field(b, num, sep);
    break;
  case COL_COUNT:
    snprintf(num, sizeof num, "%d", *(const int *)(base + c->off));
    e = gb_csv_put_field(b, num, sep);
    break;
  case COL_REP: {
    int rep = *(const int *)(base + c->off);
    if (rep < 0) num[0] = '\0'; else snprintf(num, sizeof num, "%d", rep);
    e = gb_csv_put_field(b, num, sep);
    break;
  }
  case COL_DBL:
    e = gb_csv_put_double(b, *(const double *)(base + c->off), sep);
    break;
  case COL_STATUS:
    e = gb_csv_put_field(b, gb_status_name(*(const gb_status *)(base + c->off)), sep);
    break;
  case COL_FLAG:
    e = gb_csv_put_field(b, *(const int *)(base + c->off) == 1 ? "1" : "", sep);
    break;
  }
  return e;
}

/* One row in the columns of an existing file (cols[i] indexes k_cols, or is
 * -1 for a column this writer does not know), or with cols NULL in the
 * writer's own NCOLS columns. */
gb_err gb_results_put_row_in(gb_buf *b, const gb_row *r, const int *cols, size_t ncols) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < ncols && !e; i++) {
    const col_def *c = !cols ? &k_cols[i] : cols[i] >= 0 ? &k_cols[cols[i]] : NULL;
    e = put_field(b, r, c, i ? ',' : 0);
  }
  return e ? e : gb_buf_append(b, "\n", 1);
}

gb_err gb_results_put_row(gb_buf *b, const gb_row *r) { return gb_results_put_row_in(b, r, NULL, NCOLS); }

/* ---- reading ---- */

/* Where a row is read from, for messages: the file, the row's line and
 * each known column's index in the file (-1: absent). */
typedef struct row_at {
  const char *file;
  long line;
  const int *idx;
  const gb_field_num *num; /* per column, a number already read (NULL: none) */
} row_at;

/* Column i's integer: the number already read, else its text parsed. */
static bool get_i64(const row_at *at, size_t i, const char *s, int64_t *v) {
  if (at->num && at->num[i].set) return *v = at->num[i].i, true;
  return gb_parse_i64(s, v);
}

static bool get_double(const row_at *at, size_t i, const char *s, double *v) {
  if (at->num && at->num[i].set) return *v = at->num[i].d, isfinite(*v);
  return gb_parse_double(s, v);
}

static gb_err bad(const row_at *at, size_t i, const char *what, const char *text) {
  return gb_fail(GB_E_INPUT, "%s:%ld:%d: %s: %s: \"%.60s%s\"", at->file, at->line, at->idx[i] + 1, k_cols[i].name,
                 what, text, strlen(text) > 60 ? "..." : "");
}

/* The index of each of k_cols among a header's ncols names (-1: absent);
 * a missing required column is an error naming file and the header's line. */
static gb_err map_columns(const char *file, long line, const char *const *names, size_t ncols, int *idx) {
  for (size_t i = 0; i < NCOLS; i++) {
    idx[i] = -1;
    for (size_t c = 0; c < ncols && idx[i] < 0; c++)
      if (strcmp(names[c], k_cols[i].name) == 0) idx[i] = (int)c;
    if (idx[i] < 0 && k_cols[i].required)
      return gb_fail(GB_E_INPUT, "%s:%ld: missing required column \"%s\"", file, line, k_cols[i].name);
  }
  return GB_OK;
}

/* The same for table t's header. */
static gb_err map_table_columns(const gb_csv_table *t, int *idx) {
  const char **names = malloc((t->ncols ? t->ncols : 1) * sizeof *names);
  if (!names) return gb_fail(GB_E_NOMEM, "%s: out of memory", t->name);
  for (size_t c = 0; c < t->ncols; c++) names[c] = gb_csv_header(t, c);
  gb_err e = map_columns(t->name, t->lines[0], names, t->ncols, idx);
  free(names);
  return e;
}

/* One row from its cells (cell[i]: column k_cols[i]'s text, NULL where the
 * file lacks it). Strings point into the cells. */
static gb_err parse_row(const row_at *at, const char *const *cell, gb_row *out) {
  gb_row row = gb_row_empty();
  row.file = at->file;
  row.line = at->line;
  char *base = (char *)&row;
  for (size_t i = 0; i < NCOLS; i++) {
    const col_def *c = &k_cols[i];
    const char *s = cell[i];
    if (!s) continue;
    switch (c->kind) {
    case COL_SCHEMA: {
      int64_t v;
      if (!gb_parse_i64(s, &v) || v != GB_SCHEMA_VERSION)
        return bad(at, i, "unsupported schema version (this gpubench reads 1)", s);
      break;
    }
    case COL_REQSTR:
      if (s[0] == '\0') return bad(at, i, "must not be empty", s);
      /* fallthrough */
    case COL_STR:
      *(const char **)(base + c->off) = s;
      break;
    case COL_INT: {
      int64_t v = GB_NA;
      if (s[0] && (!get_i64(at, i, s, &v) || v < 0)) return bad(at, i, "not a non-negative integer", s);
      *(int64_t *)(base + c->off) = v;
      break;
    }
    case COL_COUNT: {
      int64_t v;
      if (!get_i64(at, i, s, &v) || v < 1 || v > 1000000) return bad(at, i, "not a GPU count between 1 and 1000000", s);
      *(int *)(base + c->off) = (int)v;
      break;
    }
    case COL_REP: {
      int64_t v = -1;
      if (s[0] && (!get_i64(at, i, s, &v) || v < 0 || v > 1000000)) return bad(at, i, "not a repetition index", s);
      *(int *)(base + c->off) = (int)v;
      break;
    }
    case COL_DBL: {
      double v = NAN;
      if (s[0] && !get_double(at, i, s, &v)) return bad(at, i, "not a finite number", s);
      if (v < 0 && c->off != offsetof(gb_row, temp_c)) return bad(at, i, "must not be negative", s);
      *(double *)(base + c->off) = v;
      break;
    }
    case COL_STATUS:
      if (!gb_status_parse(s, (gb_status *)(base + c->off)))
        return bad(at, i, "not one of ok, invalid, error, throttled, unsupported", s);
      break;
    case COL_FLAG: /* the column is there: empty or 0 is "no" */
      if (at->num && at->num[i].set) {
        if (at->num[i].i != 0 && at->num[i].i != 1) return bad(at, i, "not 1, 0 or empty", s);
        *(int *)(base + c->off) = at->num[i].i == 1;
        break;
      }
      if (s[0] && strcmp(s, "1") != 0 && strcmp(s, "0") != 0) return bad(at, i, "not 1, 0 or empty", s);
      *(int *)(base + c->off) = s[0] == '1';
      break;
    }
  }
  size_t v = 0;
  while (strcmp(k_cols[v].name, "value")) v++;
  if ((row.status == GB_STATUS_OK || row.status == GB_STATUS_THROTTLED) && isnan(row.value))
    return bad(at, v, "a row with status ok or throttled needs a value", "");
  /* a case the device cannot run measured nothing (docs/results-schema.md) */
  if (row.status == GB_STATUS_UNSUPPORTED && !isnan(row.value))
    return bad(at, v, "a row with status unsupported has no measurement: value must be empty", "");
  *out = row;
  return GB_OK;
}

/* Room for n more rows in res. */
static gb_err reserve_rows(gb_results *res, size_t n, const char *name) {
  if (res->nrows + n <= res->rows_cap) return GB_OK;
  size_t cap = res->rows_cap ? res->rows_cap : 64;
  while (cap < res->nrows + n) cap *= 2;
  gb_row *rows = realloc(res->rows, cap * sizeof *rows);
  if (!rows) return gb_fail(GB_E_NOMEM, "%s: out of memory for %zu rows", name, res->nrows + n);
  res->rows = rows;
  res->rows_cap = cap;
  return GB_OK;
}

static gb_err parse_rows(gb_csv_table *t, gb_results *res) {
  int idx[NCOLS];
  gb_err e = map_table_columns(t, idx);
  GB_TRY_ON(e, reserve_rows(res, t->nrows + 1, t->name));
  const char *cell[NCOLS];
  for (size_t r = 0; r < t->nrows && !e; r++) {
    for (size_t i = 0; i < NCOLS; i++) cell[i] = idx[i] >= 0 ? gb_csv_cell(t, r, idx[i]) : NULL;
    row_at at = {t->name, gb_csv_line(t, r), idx, NULL};
    e = parse_row(&at, cell, &res->rows[res->nrows + r]);
  }
  GB_TRY(e);
  res->nrows += t->nrows;
  return GB_OK;
}

/* Undoes a failed add_table: the rows it added go, and a *res that held
 * nothing before owns no memory again, so a caller may skip gb_results_free
 * after an error (as the contract promises: nothing is appended). */
static gb_err add_table_failed(gb_csv_table *t, gb_results *res, size_t nrows_before, gb_err e) {
  res->nrows = nrows_before;
  gb_csv_free(t);
  if (res->nrows == 0 && res->ntables == 0) {
    free(res->rows);
    res->rows = NULL;
    res->rows_cap = 0;
    free(res->tables);
    res->tables = NULL;
  }
  return e;
}

static gb_err add_table(gb_csv_table *t, gb_results *res) {
  size_t before = res->nrows;
  gb_csv_table *tabs = realloc(res->tables, (res->ntables + 1) * sizeof *tabs);
  if (!tabs) return add_table_failed(t, res, before, gb_fail(GB_E_NOMEM, "out of memory"));
  res->tables = tabs;
  gb_err e = parse_rows(t, res);
  if (e) return add_table_failed(t, res, before, e);
  res->tables[res->ntables++] = *t;
  /* rows point into the table's arena, which did not move */
  return GB_OK;
}

/* ---- lean reading: rows streamed, strings interned ---- */

/* Distinct strings, each stored once in chunks that never move. */
struct gb_strpool {
  char **chunks;
  size_t nchunks, chunks_cap;
  size_t used, size; /* of the last chunk */
  const char **slot; /* open addressing; NULL = empty */
  size_t nslot, count;
};

#define POOL_CHUNK ((size_t)64 * 1024)

static uint64_t pool_hash(const char *s) {
  uint64_t h = 14695981039346656037ULL;
  for (const unsigned char *q = (const unsigned char *)s; *q; q++) h = (h ^ *q) * 1099511628211ULL;
  return h;
}

static void pool_free(struct gb_strpool *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nchunks; i++) free(p->chunks[i]);
  free(p->chunks);
  free(p->slot);
  free(p);
}

static bool pool_grow_slots(struct gb_strpool *p) {
  size_t n = p->nslot ? p->nslot * 2 : 1024;
  const char **slot = calloc(n, sizeof *slot);
  if (!slot) return false;
  for (size_t i = 0; i < p->nslot; i++) {
    if (!p->slot[i]) continue;
    size_t k = (size_t)pool_hash(p->slot[i]) & (n - 1);
    while (slot[k]) k = (k + 1) & (n - 1);
    slot[k] = p->slot[i];
  }
  free(p->slot);
  p->slot = slot;
  p->nslot = n;
  return true;
}

/* The pool's copy of s (NULL when out of memory). */
static const char *pool_intern(struct gb_strpool *p, const char *s) {
  if (!s[0]) return "";
  if ((p->count + 1) * 2 > p->nslot && !pool_grow_slots(p)) return NULL;
  size_t k = (size_t)pool_hash(s) & (p->nslot - 1);
  for (; p->slot[k]; k = (k + 1) & (p->nslot - 1))
    if (strcmp(p->slot[k], s) == 0) return p->slot[k];
  size_t len = strlen(s) + 1;
  if (!p->nchunks || p->size - p->used < len) {
    if (p->nchunks == p->chunks_cap) {
      size_t nc = p->chunks_cap ? p->chunks_cap * 2 : 16;
      char **c = realloc(p->chunks, nc * sizeof *c);
      if (!c) return NULL;
      p->chunks = c;
      p->chunks_cap = nc;
    }
    size_t size = len > POOL_CHUNK ? len : POOL_CHUNK;
    if (!(p->chunks[p->nchunks] = malloc(size))) return NULL;
    p->nchunks++;
    p->used = 0;
    p->size = size;
  }
  char *d = p->chunks[p->nchunks - 1] + p->used;
  memcpy(d, s, len);
  p->used += len;
  p->slot[k] = d;
  p->count++;
  return d;
}

typedef struct lean_ctx {
  gb_results *res;
  const char *file; /* interned */
  int idx[NCOLS];
  bool mapped;
  const char *last[NCOLS]; /* the previous row's interned strings, per column */
} lean_ctx;

static gb_err lean_record(void *ctx, const gb_csv_record *rec) {
  lean_ctx *lc = ctx;
  gb_results *res = lc->res;
  gb_err e;
  if (!lc->mapped) {
    if ((e = map_columns(rec->name, rec->header_line, rec->header, rec->ncols, lc->idx))) return e;
    lc->mapped = true;
  }
  const char *cell[NCOLS];
  for (size_t i = 0; i < NCOLS; i++) cell[i] = lc->idx[i] >= 0 ? rec->cells[lc->idx[i]] : NULL;
  row_at at = {lc->file, rec->line, lc->idx, NULL};
  gb_row row;
  if ((e = parse_row(&at, cell, &row))) return e;
  /* the text of an ok row's detail is for people reading the file: a
   * reader of many runs keeps it only where something went wrong */
  if (row.status == GB_STATUS_OK) row.detail = "";
  char *base = (char *)&row;
  for (size_t i = 0; i < NCOLS; i++) {
    if ((k_cols[i].kind != COL_STR && k_cols[i].kind != COL_REQSTR) || lc->idx[i] < 0) continue;
    const char **f = (const char **)(base + k_cols[i].off);
    if (lc->last[i] && strcmp(lc->last[i], *f) == 0) {
      *f = lc->last[i];
      continue;
    }
    const char *in = pool_intern(res->pool, *f);
    if (!in) return gb_fail(GB_E_NOMEM, "%s: out of memory", rec->name);
    *f = lc->last[i] = in;
  }
  if ((e = reserve_rows(res, 1, rec->name))) return e;
  res->rows[res->nrows++] = row;
  return GB_OK;
}

static gb_err read_lean(const char *path, const char *data, size_t len, gb_results *res) {
  size_t before = res->nrows;
  bool was_empty = res->nrows == 0 && res->ntables == 0 && !res->pool;
  gb_err e = GB_OK;
  if (!res->pool && !(res->pool = calloc(1, sizeof *res->pool))) return gb_fail(GB_E_NOMEM, "out of memory");
  lean_ctx lc = {.res = res};
  if (!(lc.file = pool_intern(res->pool, path))) e = gb_fail(GB_E_NOMEM, "out of memory");
  gb_csv_table t;
  memset(&t, 0, sizeof t);
  GB_TRY_ON(e, data ? gb_csv_stream_mem(path, data, len, &t, lean_record, &lc) : gb_csv_stream_file(path, &t, lean_record, &lc));
  if (!e && !lc.mapped) { /* a header and no rows: its columns are still checked */
    int idx[NCOLS];
    e = map_table_columns(&t, idx);
  }
  gb_csv_free(&t);
  if (e) {
    res->nrows = before;
    if (was_empty) {
      free(res->rows);
      pool_free(res->pool);
      res->rows = NULL;
      res->pool = NULL;
      res->rows_cap = 0;
    }
  }
  return e;
}

/* ---- the columns, for other stores of the same rows ---- */

size_t gb_results_ncols(void) { return NCOLS; }

const char *gb_results_col_name(size_t i) { return i < NCOLS ? k_cols[i].name : NULL; }

gb_col_type gb_results_col_type(size_t i) {
  switch (i < NCOLS ? k_cols[i].kind : COL_STR) {
  case COL_INT: case COL_COUNT: case COL_REP: case COL_FLAG: case COL_SCHEMA: return GB_COL_INT;
  case COL_DBL: return GB_COL_REAL;
  default: return GB_COL_TEXT;
  }
}

const char *gb_results_field(const gb_row *r, size_t i, char num[64]) {
  const col_def *c = &k_cols[i];
  const char *base = (const char *)r;
  num[0] = '\0';
  switch (c->kind) {
  case COL_STR: case COL_REQSTR: return *(const char *const *)(base + c->off);
  case COL_STATUS: return gb_status_name(r->status);
  case COL_SCHEMA: snprintf(num, 64, "%d", GB_SCHEMA_VERSION); break;
  case COL_INT: put_i64(num, 64, *(const int64_t *)(base + c->off)); break;
  case COL_COUNT: snprintf(num, 64, "%d", *(const int *)(base + c->off)); break;
  case COL_REP: if (r->rep >= 0) snprintf(num, 64, "%d", r->rep); break;
  case COL_DBL: {
    double v = *(const double *)(base + c->off);
    if (!isnan(v)) gb_fmt_double(num, 64, v);
    break;
  }
  case COL_FLAG: if (r->headline >= 0) strcpy(num, r->headline == 1 ? "1" : "0"); break;
  }
  return num;
}

gb_err gb_results_parse_fields(const char *name, long line, const char *const *field, gb_row *out) {
  return gb_results_parse_typed(name, line, field, NULL, out);
}

gb_err gb_results_parse_typed(const char *name, long line, const char *const *field, const gb_field_num *num,
                              gb_row *out) {
  int idx[NCOLS];
  const char *cell[NCOLS];
  for (size_t i = 0; i < NCOLS; i++) {
    idx[i] = (int)i;
    cell[i] = !i ? NULL : num && num[i].set ? "(a number from the store)" : field[i];
  }
  row_at at = {name, line, idx, num};
  return parse_row(&at, cell, out);
}

gb_err gb_results_add_row(gb_results *res, const gb_row *r, bool lean) {
  if (!res->pool && !(res->pool = calloc(1, sizeof *res->pool))) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_row row = *r;
  if (lean && row.status == GB_STATUS_OK) row.detail = "";
  char *base = (char *)&row;
  const char *prev = res->nrows ? (const char *)&res->rows[res->nrows - 1] : NULL;
  for (size_t i = 0; i < NCOLS; i++) {
    if (k_cols[i].kind != COL_STR && k_cols[i].kind != COL_REQSTR) continue;
    const char **f = (const char **)(base + k_cols[i].off);
    const char *last = prev ? *(const char *const *)(prev + k_cols[i].off) : NULL;
    if (last && strcmp(last, *f) == 0) *f = last; /* most columns repeat the row before (interned) */
    else if (!(*f = pool_intern(res->pool, *f))) return gb_fail(GB_E_NOMEM, "out of memory");
  }
  if (!(row.file = pool_intern(res->pool, r->file ? r->file : ""))) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err e = reserve_rows(res, 1, row.file);
  if (!e) res->rows[res->nrows++] = row;
  return e;
}

gb_err gb_results_read_lean(const char *path, gb_results *res) { return read_lean(path, NULL, 0, res); }

gb_err gb_results_read_input(const char *path, gb_results *res) {
  size_t before = res->nrows;
  gb_err e = gb_results_read_lean(path, res);
  if (!e && res->nrows == before) e = gb_fail(GB_E_INPUT, "%s: a header and no rows: no results in it", path);
  return e;
}

gb_err gb_results_read_lean_mem(const char *name, const char *data, size_t len, gb_results *res) {
  return read_lean(name, data ? data : "", len, res);
}

gb_err gb_results_read(const char *path, gb_results *res) {
  gb_csv_table t;
  gb_err e = gb_csv_read_file(path, &t);
  return e ? e : add_table(&t, res);
}

gb_err gb_results_read_mem(const char *name, const char *data, size_t len, gb_results *res) {
  gb_csv_table t;
  gb_err e = gb_csv_read_mem(name, data, len, &t);
  return e ? e : add_table(&t, res);
}

void gb_results_free(gb_results *res) {
  for (size_t i = 0; i < res->ntables; i++) gb_csv_free(&res->tables[i]);
  free(res->tables);
  free(res->rows);
  pool_free(res->pool);
  memset(res, 0, sizeof *res);
}
