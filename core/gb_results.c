/* gb_results: results CSV reader (validating) and crash-safe appending writer. */
#include "gb_results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_num.h"

static const char *const k_status_names[] = {"ok", "invalid", "error", "throttled"};

const char *gb_status_name(gb_status s) {
  return (unsigned)s < 4 ? k_status_names[s] : "?";
}

bool gb_status_parse(const char *s, gb_status *out) {
  for (int i = 0; i < 4; i++)
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
  r.file = "";
  r.gpu_count = 1;
  r.m = r.n = r.k = r.bytes = GB_NA;
  r.samples = GB_NA;
  r.value = r.min = r.max = r.stddev = NAN;
  r.sm_clock_mhz = r.mem_clock_mhz = r.temp_c = r.power_w = r.peak = NAN;
  r.rep = -1;
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
  snprintf(buf, n, "%s|%s|%s|%s|%s|%s|%s|%d|%d%s%s", r->benchmark, r->case_name, r->dtype, m, nn, k, b,
           r->gpu_count, r->rep, with_metric ? "|" : "", with_metric ? r->metric : "");
}

/* ---- the column table: order written, and how each is read ---- */

typedef enum { COL_STR, COL_REQSTR, COL_INT, COL_COUNT, COL_DBL, COL_STATUS, COL_REP, COL_SCHEMA } col_kind;

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
};
#undef F
#define NCOLS (sizeof k_cols / sizeof k_cols[0])

gb_err gb_results_put_header(gb_buf *b) {
  gb_err e;
  for (size_t i = 0; i < NCOLS; i++)
    if ((e = gb_csv_put_field(b, k_cols[i].name, i ? ',' : 0))) return e;
  return gb_buf_append(b, "\n", 1);
}

gb_err gb_results_put_row(gb_buf *b, const gb_row *r) {
  gb_err e = GB_OK;
  char num[64];
  for (size_t i = 0; i < NCOLS && !e; i++) {
    const col_def *c = &k_cols[i];
    const char *base = (const char *)r;
    char sep = i ? ',' : 0;
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
    }
  }
  return e ? e : gb_buf_append(b, "\n", 1);
}

/* ---- reading ---- */

static gb_err bad(const gb_csv_table *t, size_t r, int col, const char *what, const char *text) {
  return gb_fail(GB_E_INPUT, "%s:%ld:%d: %s: %s: \"%.60s%s\"", t->name, gb_csv_line(t, r), col + 1,
                 gb_csv_header(t, (size_t)col), what, text, strlen(text) > 60 ? "..." : "");
}

static gb_err parse_rows(gb_csv_table *t, gb_results *res) {
  int idx[NCOLS];
  for (size_t i = 0; i < NCOLS; i++) {
    idx[i] = gb_csv_col(t, k_cols[i].name);
    if (idx[i] < 0 && k_cols[i].required)
      return gb_fail(GB_E_INPUT, "%s:%ld: missing required column \"%s\"", t->name, t->lines[0],
                     k_cols[i].name);
  }
  gb_row *rows = realloc(res->rows, (res->nrows + t->nrows + 1) * sizeof *rows);
  if (!rows) return gb_fail(GB_E_NOMEM, "%s: out of memory for %zu rows", t->name, t->nrows);
  res->rows = rows;
  for (size_t r = 0; r < t->nrows; r++) {
    gb_row row = gb_row_empty();
    row.file = t->name;
    row.line = gb_csv_line(t, r);
    char *base = (char *)&row;
    for (size_t i = 0; i < NCOLS; i++) {
      const col_def *c = &k_cols[i];
      if (idx[i] < 0) continue;
      const char *s = gb_csv_cell(t, r, idx[i]);
      switch (c->kind) {
      case COL_SCHEMA: {
        int64_t v;
        if (!gb_parse_i64(s, &v) || v != GB_SCHEMA_VERSION)
          return bad(t, r, idx[i], "unsupported schema version (this gpubench reads 1)", s);
        break;
      }
      case COL_REQSTR:
        if (s[0] == '\0') return bad(t, r, idx[i], "must not be empty", s);
        /* fallthrough */
      case COL_STR:
        *(const char **)(base + c->off) = s;
        break;
      case COL_INT: {
        int64_t v = GB_NA;
        if (s[0] && (!gb_parse_i64(s, &v) || v < 0))
          return bad(t, r, idx[i], "not a non-negative integer", s);
        *(int64_t *)(base + c->off) = v;
        break;
      }
      case COL_COUNT: {
        int64_t v;
        if (!gb_parse_i64(s, &v) || v < 1 || v > 1000000)
          return bad(t, r, idx[i], "not a GPU count between 1 and 1000000", s);
        *(int *)(base + c->off) = (int)v;
        break;
      }
      case COL_REP: {
        int64_t v = -1;
        if (s[0] && (!gb_parse_i64(s, &v) || v < 0 || v > 1000000))
          return bad(t, r, idx[i], "not a repetition index", s);
        *(int *)(base + c->off) = (int)v;
        break;
      }
      case COL_DBL: {
        double v = NAN;
        if (s[0] && !gb_parse_double(s, &v))
          return bad(t, r, idx[i], "not a finite number", s);
        if (v < 0 && c->off != offsetof(gb_row, temp_c))
          return bad(t, r, idx[i], "must not be negative", s);
        *(double *)(base + c->off) = v;
        break;
      }
      case COL_STATUS:
        if (!gb_status_parse(s, (gb_status *)(base + c->off)))
          return bad(t, r, idx[i], "not one of ok, invalid, error, throttled", s);
        break;
      }
    }
    if ((row.status == GB_STATUS_OK || row.status == GB_STATUS_THROTTLED) && isnan(row.value)) {
      int c = gb_csv_col(t, "value");
      return bad(t, r, c, "a row with status ok or throttled needs a value", "");
    }
    res->rows[res->nrows + r] = row;
  }
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
    free(res->tables);
    res->rows = NULL;
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
  memset(res, 0, sizeof *res);
}

/* ---- writing ---- */

static gb_err write_all(int fd, const char *path, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return gb_fail(GB_E_IO, "%s: write failed: %s", path, strerror(errno));
    }
    p += w;
    n -= (size_t)w;
  }
  return GB_OK;
}

/* Cuts a torn last line (no trailing newline) left by a kill mid-write. */
static gb_err cut_torn_tail(int fd, const char *path, off_t size) {
  if (size == 0) return GB_OK;
  char c;
  if (pread(fd, &c, 1, size - 1) != 1) return gb_fail(GB_E_IO, "%s: cannot read: %s", path, strerror(errno));
  if (c == '\n') return GB_OK;
  off_t pos = size;
  char buf[4096];
  while (pos > 0) {
    off_t start = pos > (off_t)sizeof buf ? pos - (off_t)sizeof buf : 0;
    ssize_t r = pread(fd, buf, (size_t)(pos - start), start);
    if (r <= 0) return gb_fail(GB_E_IO, "%s: cannot read: %s", path, strerror(errno));
    for (ssize_t i = r - 1; i >= 0; i--)
      if (buf[i] == '\n') {
        if (ftruncate(fd, start + i + 1) != 0)
          return gb_fail(GB_E_IO, "%s: cannot cut a torn last line: %s", path, strerror(errno));
        return GB_OK;
      }
    pos = start;
  }
  if (ftruncate(fd, 0) != 0) return gb_fail(GB_E_IO, "%s: cannot truncate: %s", path, strerror(errno));
  return GB_OK;
}

gb_err gb_writer_open(gb_results_writer *w, const char *path) {
  memset(w, 0, sizeof *w);
  w->fd = -1;
  w->path = strdup(path);
  if (!w->path) return gb_fail(GB_E_NOMEM, "out of memory");
  if (strcmp(path, "-") == 0) {
    w->fd = STDOUT_FILENO;
    gb_buf hdr = {0};
    gb_err e = gb_results_put_header(&hdr);
    if (!e) e = write_all(w->fd, "standard output", hdr.data, hdr.len);
    gb_buf_free(&hdr);
    return e;
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    free(w->path);
    w->path = NULL;
    return gb_fail(GB_E_IO, "%s: is a directory; give a file name for the results", path);
  }
  int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    gb_err e = gb_fail(GB_E_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    free(w->path);
    w->path = NULL;
    return e;
  }
  gb_err e = GB_OK;
  if (fstat(fd, &st) != 0) e = gb_fail(GB_E_IO, "%s: %s", path, strerror(errno));
  if (!e) e = cut_torn_tail(fd, path, st.st_size);
  if (!e && fstat(fd, &st) != 0) e = gb_fail(GB_E_IO, "%s: %s", path, strerror(errno));
  if (!e && st.st_size > 0) {
    gb_results existing = {0};
    e = gb_results_read(path, &existing);
    if (e == GB_E_INPUT) {
      char msg[2048];
      snprintf(msg, sizeof msg, "%s", gb_errmsg());
      e = gb_fail(GB_E_INPUT, "%s: exists and is not a valid results file, so it was not appended to: %s",
                  path, msg);
    }
    gb_results_free(&existing);
  } else if (!e) {
    gb_buf hdr = {0};
    e = gb_results_put_header(&hdr);
    if (!e) e = write_all(fd, path, hdr.data, hdr.len);
    if (!e && fsync(fd) != 0) e = gb_fail(GB_E_IO, "%s: fsync failed: %s", path, strerror(errno));
    gb_buf_free(&hdr);
  }
  if (e) {
    close(fd);
    free(w->path);
    w->path = NULL;
    return e;
  }
  w->fd = fd;
  return GB_OK;
}

gb_err gb_writer_add(gb_results_writer *w, const gb_row *r) {
  gb_err e = gb_results_put_row(&w->pending, r);
  if (!e) w->pending_rows++;
  return e;
}

gb_err gb_writer_commit(gb_results_writer *w) {
  if (w->pending.len == 0) return GB_OK;
  const char *name = w->fd == STDOUT_FILENO ? "standard output" : w->path;
  gb_err e = write_all(w->fd, name, w->pending.data, w->pending.len);
  if (!e && w->fd != STDOUT_FILENO && fsync(w->fd) != 0)
    e = gb_fail(GB_E_IO, "%s: fsync failed: %s", name, strerror(errno));
  if (!e) w->written += w->pending_rows;
  w->pending.len = 0;
  w->pending_rows = 0;
  return e;
}

gb_err gb_writer_close(gb_results_writer *w) {
  gb_err e = GB_OK;
  if (w->fd >= 0 && w->fd != STDOUT_FILENO && close(w->fd) != 0)
    e = gb_fail(GB_E_IO, "%s: close failed: %s", w->path, strerror(errno));
  w->fd = -1;
  gb_buf_free(&w->pending);
  free(w->path);
  w->path = NULL;
  return e;
}
