/* gb_merge: one results file from many (see gb_merge.h). */
#include "gb_merge.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_results.h"

/* A row kept in the output: which table and which row of it. */
typedef struct kept {
  size_t table, row;
  char *key;
} kept;

typedef struct keyset {
  size_t *slot; /* index into kept + 1; 0 empty */
  size_t cap;
} keyset;

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static gb_err keyset_grow(keyset *ks, const kept *rows, size_t nrows) {
  size_t cap = ks->cap ? ks->cap * 2 : 1024;
  size_t *slot = calloc(cap, sizeof *slot);
  if (!slot) return gb_fail(GB_E_NOMEM, "merge: out of memory");
  for (size_t i = 0; i < nrows; i++) {
    size_t j = hash_str(rows[i].key) & (cap - 1);
    while (slot[j]) j = (j + 1) & (cap - 1);
    slot[j] = i + 1;
  }
  free(ks->slot);
  ks->slot = slot;
  ks->cap = cap;
  return GB_OK;
}

/* Index + 1 of the kept row with key, or 0; *free_slot where it would go. */
static size_t keyset_find(const keyset *ks, const kept *rows, const char *key, size_t *free_slot) {
  size_t j = hash_str(key) & (ks->cap - 1);
  while (ks->slot[j]) {
    if (strcmp(rows[ks->slot[j] - 1].key, key) == 0) return ks->slot[j];
    j = (j + 1) & (ks->cap - 1);
  }
  *free_slot = j;
  return 0;
}

/* The same columns as the first table, by name. */
static gb_err check_columns(const gb_csv_table *first, const gb_csv_table *t) {
  for (size_t c = 0; c < t->ncols; c++)
    if (gb_csv_col(first, gb_csv_header(t, c)) < 0)
      return gb_fail(GB_E_INPUT, "%s:%ld: column '%s' is not in %s: merge needs files of one schema", t->name,
                     t->lines[0], gb_csv_header(t, c), first->name);
  for (size_t c = 0; c < first->ncols; c++)
    if (gb_csv_col(t, gb_csv_header(first, c)) < 0)
      return gb_fail(GB_E_INPUT, "%s:%ld: no column '%s', which %s has: merge needs files of one schema", t->name,
                     t->lines[0], gb_csv_header(first, c), first->name);
  return GB_OK;
}

static bool same_cells(const gb_csv_table *first, const gb_csv_table *a, size_t ra, const gb_csv_table *b,
                       size_t rb) {
  for (size_t c = 0; c < first->ncols; c++) {
    const char *name = gb_csv_header(first, c);
    if (strcmp(gb_csv_cell(a, ra, gb_csv_col(a, name)), gb_csv_cell(b, rb, gb_csv_col(b, name))) != 0) return false;
  }
  return true;
}

gb_err gb_merge_files(const char *const *paths, size_t n, gb_buf *out, gb_merge_stats *st) {
  memset(st, 0, sizeof *st);
  if (n == 0) return gb_fail(GB_E_USAGE, "merge: no input files");
  gb_results res = {0};
  kept *rows = NULL;
  size_t nkept = 0, cap = 0, *row_base = NULL;
  keyset ks = {0};
  gb_buf b = {0};
  gb_err e = GB_OK;
  row_base = calloc(n, sizeof *row_base);
  if (!row_base) return gb_fail(GB_E_NOMEM, "merge: out of memory");
  for (size_t i = 0; i < n && !e; i++) {
    row_base[i] = res.nrows;
    e = gb_results_read(paths[i], &res);
    if (!e && i > 0) e = check_columns(&res.tables[0], &res.tables[i]);
  }
  if (e) goto done;
  st->files = n;
  st->rows_in = res.nrows;
  if ((e = keyset_grow(&ks, rows, 0))) goto done;
  for (size_t t = 0; t < n && !e; t++) {
    const gb_csv_table *tab = &res.tables[t];
    for (size_t r = 0; r < tab->nrows; r++) {
      const gb_row *row = &res.rows[row_base[t] + r];
      char ck[2048], key[2600];
      gb_row_case_key(row, true, ck, sizeof ck);
      snprintf(key, sizeof key, "%s\x1f%s", row->run_id, ck);
      size_t slot, hit = keyset_find(&ks, rows, key, &slot);
      if (hit) {
        const kept *k = &rows[hit - 1];
        st->duplicates++;
        if (!same_cells(&res.tables[0], &res.tables[k->table], k->row, tab, r)) {
          if (st->conflicts++ == 0)
            snprintf(st->first_conflict, sizeof st->first_conflict,
                     "%s:%ld: run %s, %s %s %s: same run, case and metric as %s:%ld with other cells; kept the "
                     "first",
                     tab->name, gb_csv_line(tab, r), row->run_id, row->benchmark, row->case_name, row->metric,
                     res.tables[k->table].name, gb_csv_line(&res.tables[k->table], k->row));
        }
        continue;
      }
      if (nkept == cap) {
        size_t nc = cap ? cap * 2 : 256;
        kept *nr = realloc(rows, nc * sizeof *nr);
        if (!nr) {
          e = gb_fail(GB_E_NOMEM, "merge: out of memory");
          break;
        }
        rows = nr;
        cap = nc;
      }
      rows[nkept] = (kept){t, r, strdup(key)};
      if (!rows[nkept].key) {
        e = gb_fail(GB_E_NOMEM, "merge: out of memory");
        break;
      }
      ks.slot[slot] = ++nkept;
      if (nkept * 2 > ks.cap && (e = keyset_grow(&ks, rows, nkept))) break;
    }
  }
  if (e) goto done;

  /* the first file's header, then every kept row in its columns */
  const gb_csv_table *first = &res.tables[0];
  for (size_t c = 0; c < first->ncols && !e; c++) e = gb_csv_put_field(&b, gb_csv_header(first, c), c ? ',' : 0);
  if (!e) e = gb_buf_puts(&b, "\n");
  for (size_t i = 0; i < nkept && !e; i++) {
    const gb_csv_table *tab = &res.tables[rows[i].table];
    for (size_t c = 0; c < first->ncols && !e; c++)
      e = gb_csv_put_field(&b, gb_csv_cell(tab, rows[i].row, gb_csv_col(tab, gb_csv_header(first, c))), c ? ',' : 0);
    if (!e) e = gb_buf_puts(&b, "\n");
  }
  if (e) goto done;
  st->rows_out = nkept;
  /* distinct run ids (a few per machine) */
  const char **ids = calloc(nkept + 1, sizeof *ids);
  if (!ids) {
    e = gb_fail(GB_E_NOMEM, "merge: out of memory");
    goto done;
  }
  for (size_t i = 0; i < nkept; i++) {
    const char *id = res.rows[row_base[rows[i].table] + rows[i].row].run_id;
    size_t j = st->runs;
    while (j > 0 && strcmp(ids[j - 1], id) != 0) j--;
    if (j == 0) ids[st->runs++] = id;
  }
  free(ids);
  e = gb_buf_append(out, b.data ? b.data : "", b.len);

done:
  for (size_t i = 0; i < nkept; i++) free(rows[i].key);
  free(rows);
  free(ks.slot);
  free(row_base);
  gb_buf_free(&b);
  gb_results_free(&res);
  return e;
}
