/* gb_merge: one results file from many (see gb_merge.h). */
#include "gb_merge.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_results.h"

/* One input file: where its rows are, and whether it is merged. */
typedef struct in_file {
  bool merged;
  size_t table;    /* its table in res.tables */
  size_t row_base; /* its first row in res.rows */
  size_t nrows;
  int *map;        /* per column of the first merged file, this file's column */
} in_file;

/* ---- hashing rows and strings ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s, strlen(s) + 1); }

/* The identity of a row: run, case, rep, settings and metric. */
static uint64_t row_hash(const gb_row *r) {
  uint64_t h = 1469598103934665603ull;
  const char *s[] = {r->run_id, r->benchmark, r->case_name, r->dtype, r->settings, r->metric};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) h = fnv_str(h, s[i]);
  int64_t v[] = {r->m, r->n, r->k, r->bytes, r->gpu_count, r->rep};
  return fnv(h, v, sizeof v);
}

static bool row_same(const gb_row *a, const gb_row *b) {
  return strcmp(a->run_id, b->run_id) == 0 && strcmp(a->benchmark, b->benchmark) == 0 &&
         strcmp(a->case_name, b->case_name) == 0 && strcmp(a->dtype, b->dtype) == 0 &&
         strcmp(a->settings, b->settings) == 0 && strcmp(a->metric, b->metric) == 0 && a->m == b->m &&
         a->n == b->n && a->k == b->k && a->bytes == b->bytes && a->gpu_count == b->gpu_count && a->rep == b->rep;
}

/* An open-addressing table of row indices + 1 (0: empty), at most half full. */
typedef struct index_set {
  size_t *slot;
  size_t cap, n;
} index_set;

static gb_err set_init(index_set *s, size_t expect) {
  s->cap = 16;
  while (s->cap < 2 * expect + 2) s->cap *= 2;
  s->n = 0;
  s->slot = calloc(s->cap, sizeof *s->slot);
  return s->slot ? GB_OK : gb_fail(GB_E_NOMEM, "merge: out of memory");
}

/* ---- reading and choosing ---- */

static gb_err skip(gb_merge_stats *st, const char *path, const char *why) {
  st->skipped++;
  return gb_buf_printf(&st->skips, "%s: %s\n", path, why);
}

static gb_err read_all(const char *const *paths, size_t n, gb_results *res, in_file *f, gb_merge_stats *st) {
  for (size_t i = 0; i < n; i++) {
    f[i].row_base = res->nrows;
    f[i].table = res->ntables;
    gb_err e = gb_results_read(paths[i], res);
    if (e == GB_E_NOMEM) return e;
    if (e) {
      st->unreadable++;
      if ((e = skip(st, paths[i], gb_errmsg()))) return e;
      continue;
    }
    f[i].merged = true;
    f[i].nrows = res->nrows - f[i].row_base;
  }
  return GB_OK;
}

/* The campaign asked for, else the newest row's (ties: the greater id). */
static const char *pick_campaign(const gb_results *res, const in_file *f, size_t n, const char *want) {
  if (want) return want;
  const gb_row *best = NULL;
  for (size_t i = 0; i < n; i++) {
    for (size_t r = 0; f[i].merged && r < f[i].nrows; r++) {
      const gb_row *x = &res->rows[f[i].row_base + r];
      int c = best ? strcmp(x->timestamp, best->timestamp) : 1;
      if (c > 0 || (c == 0 && strcmp(x->campaign, best->campaign) > 0)) best = x;
    }
  }
  return best ? best->campaign : "";
}

/* Leaves out the files without a row of the campaign; counts the other rows. */
static gb_err keep_campaign(const char *const *paths, const gb_results *res, in_file *f, size_t n,
                            gb_merge_stats *st) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e; i++) {
    if (!f[i].merged) continue;
    size_t in = 0;
    for (size_t r = 0; r < f[i].nrows; r++) in += strcmp(res->rows[f[i].row_base + r].campaign, st->campaign) == 0;
    if (in) {
      st->rows_other += f[i].nrows - in;
      continue;
    }
    f[i].merged = false;
    gb_buf why = {0};
    if (f[i].nrows == 0) e = gb_buf_puts(&why, "a header and no rows");
    else
      e = gb_buf_printf(&why, "campaign \"%s\", not the merged campaign \"%s\" (%zu row(s) left out)",
                        res->rows[f[i].row_base].campaign, st->campaign, f[i].nrows);
    if (!e) e = skip(st, paths[i], why.data);
    gb_buf_free(&why);
  }
  return e;
}

/* The same columns as the first table, by name; builds each file's map. */
static gb_err map_columns(const gb_csv_table *first, const gb_csv_table *t, int **map) {
  for (size_t c = 0; c < t->ncols; c++)
    if (gb_csv_col(first, gb_csv_header(t, c)) < 0)
      return gb_fail(GB_E_INPUT, "%s:%ld: column '%s' is not in %s: merge needs files of one schema", t->name,
                     t->lines[0], gb_csv_header(t, c), first->name);
  *map = malloc((first->ncols ? first->ncols : 1) * sizeof **map);
  if (!*map) return gb_fail(GB_E_NOMEM, "merge: out of memory");
  for (size_t c = 0; c < first->ncols; c++) {
    (*map)[c] = gb_csv_col(t, gb_csv_header(first, c));
    if ((*map)[c] < 0)
      return gb_fail(GB_E_INPUT, "%s:%ld: no column '%s', which %s has: merge needs files of one schema", t->name,
                     t->lines[0], gb_csv_header(first, c), first->name);
  }
  return GB_OK;
}

/* ---- merging ---- */

typedef struct kept {
  size_t file, row; /* the row's file and its row in that file's table */
} kept;

typedef struct merger {
  const gb_results *res;
  const in_file *f;
  const gb_csv_table *first;
  kept *rows;
  size_t nkept;
  index_set seen;
} merger;

static const gb_row *kept_row(const merger *m, const kept *k) { return &m->res->rows[m->f[k->file].row_base + k->row]; }

static bool same_cells(const merger *m, const kept *a, const kept *b) {
  const gb_csv_table *ta = &m->res->tables[m->f[a->file].table], *tb = &m->res->tables[m->f[b->file].table];
  for (size_t c = 0; c < m->first->ncols; c++)
    if (strcmp(gb_csv_cell(ta, a->row, m->f[a->file].map[c]), gb_csv_cell(tb, b->row, m->f[b->file].map[c])) != 0)
      return false;
  return true;
}

/* Adds the row k unless an equal one is kept; counts duplicates and conflicts. */
static void add_row(merger *m, kept k, gb_merge_stats *st) {
  const gb_row *r = kept_row(m, &k);
  size_t j = row_hash(r) & (m->seen.cap - 1);
  for (; m->seen.slot[j]; j = (j + 1) & (m->seen.cap - 1)) {
    const kept *o = &m->rows[m->seen.slot[j] - 1];
    if (!row_same(kept_row(m, o), r)) continue;
    st->duplicates++;
    if (!same_cells(m, o, &k) && st->conflicts++ == 0) {
      const gb_csv_table *tk = &m->res->tables[m->f[k.file].table], *to = &m->res->tables[m->f[o->file].table];
      snprintf(st->first_conflict, sizeof st->first_conflict,
               "%s:%ld: run %s, %s %s %s: same run, case and metric as %s:%ld with other cells; kept the first",
               tk->name, gb_csv_line(tk, k.row), r->run_id, r->benchmark, r->case_name, r->metric, to->name,
               gb_csv_line(to, o->row));
    }
    return;
  }
  m->rows[m->nkept] = k;
  m->seen.slot[j] = ++m->nkept;
}

/* Distinct run ids of the kept rows, through a hash set. */
static gb_err count_runs(const merger *m, size_t *runs) {
  index_set s;
  gb_err e = set_init(&s, m->nkept);
  if (e) return e;
  *runs = 0;
  for (size_t i = 0; i < m->nkept; i++) {
    const char *id = kept_row(m, &m->rows[i])->run_id;
    size_t j = fnv_str(1469598103934665603ull, id) & (s.cap - 1);
    while (s.slot[j] && strcmp(kept_row(m, &m->rows[s.slot[j] - 1])->run_id, id) != 0) j = (j + 1) & (s.cap - 1);
    if (!s.slot[j]) {
      s.slot[j] = i + 1;
      ++*runs;
    }
  }
  free(s.slot);
  return GB_OK;
}

static gb_err write_rows(const merger *m, gb_buf *b) {
  gb_err e = GB_OK;
  for (size_t c = 0; c < m->first->ncols && !e; c++) e = gb_csv_put_field(b, gb_csv_header(m->first, c), c ? ',' : 0);
  if (!e) e = gb_buf_puts(b, "\n");
  for (size_t i = 0; i < m->nkept && !e; i++) {
    const in_file *f = &m->f[m->rows[i].file];
    const gb_csv_table *tab = &m->res->tables[f->table];
    for (size_t c = 0; c < m->first->ncols && !e; c++)
      e = gb_csv_put_field(b, gb_csv_cell(tab, m->rows[i].row, f->map[c]), c ? ',' : 0);
    if (!e) e = gb_buf_puts(b, "\n");
  }
  return e;
}

/* The files left to merge: one schema, then every row of the campaign once. */
static gb_err merge_rows(merger *m, in_file *f, size_t n, gb_merge_stats *st) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e; i++) {
    if (!f[i].merged) continue;
    if (!m->first) m->first = &m->res->tables[f[i].table];
    e = map_columns(m->first, &m->res->tables[f[i].table], &f[i].map);
    st->files++;
    st->rows_in += f[i].nrows;
  }
  if (!e && !m->first) e = gb_fail(GB_E_INPUT, "merge: no file left to merge (%zu skipped)", st->skipped);
  if (!e) e = set_init(&m->seen, st->rows_in);
  if (!e && !(m->rows = malloc((st->rows_in ? st->rows_in : 1) * sizeof *m->rows)))
    e = gb_fail(GB_E_NOMEM, "merge: out of memory");
  for (size_t i = 0; i < n && !e; i++)
    for (size_t r = 0; f[i].merged && r < f[i].nrows; r++)
      if (strcmp(m->res->rows[f[i].row_base + r].campaign, st->campaign) == 0) add_row(m, (kept){i, r}, st);
  return e;
}

gb_err gb_merge_files(const char *const *paths, size_t n, const char *campaign, gb_buf *out, gb_merge_stats *st) {
  memset(st, 0, sizeof *st);
  if (n == 0) return gb_fail(GB_E_USAGE, "merge: no input files");
  gb_results res = {0};
  in_file *f = calloc(n, sizeof *f);
  merger m = {.res = &res, .f = f};
  gb_buf b = {0};
  if (!f) return gb_fail(GB_E_NOMEM, "merge: out of memory");
  gb_err e = read_all(paths, n, &res, f, st);
  if (!e && !(st->campaign = strdup(pick_campaign(&res, f, n, campaign))))
    e = gb_fail(GB_E_NOMEM, "merge: out of memory");
  if (!e) e = keep_campaign(paths, &res, f, n, st);
  if (!e) e = merge_rows(&m, f, n, st);
  if (!e) e = write_rows(&m, &b);
  if (!e) e = count_runs(&m, &st->runs);
  if (!e) e = gb_buf_append(out, b.data ? b.data : "", b.len);
  st->rows_out = e ? 0 : m.nkept;
  for (size_t i = 0; i < n; i++) free(f[i].map);
  free(f);
  free(m.rows);
  free(m.seen.slot);
  gb_buf_free(&b);
  gb_results_free(&res);
  return e;
}

void gb_merge_stats_free(gb_merge_stats *st) {
  gb_buf_free(&st->skips);
  free(st->campaign);
  st->campaign = NULL;
}
