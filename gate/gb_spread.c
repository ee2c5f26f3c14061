/* gb_spread: per-figure spreads between runs from a store's history
 * (gb_spread.h). */
#include "gb_spread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_noise.h"
#include "gb_stats.h"

typedef struct sp_row {
  char *key; /* scope, figure, settings */
  const gb_row *row;
} sp_row;

static int cmp_sp(const void *a, const void *b) {
  const sp_row *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : strcmp(x->row->run_id, y->row->run_id);
}

static char *spread_key(char scope, const gb_row *r) {
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  gb_buf b = {0};
  gb_buf_printf(&b, "%c\x1f%s\x1f%s", scope, fig, r->settings ? r->settings : "");
  if (gb_buf_append(&b, "", 1)) {
    gb_buf_free(&b);
    return NULL;
  }
  return b.data;
}

/* Whether run is one of skip's runs (skip holds one run or a few: a scan). */
static bool skipped(const gb_results *skip, const char *run) {
  const char *last = NULL;
  for (size_t i = 0; skip && i < skip->nrows; i++) {
    const char *id = skip->rows[i].run_id;
    if (id == last) continue;
    if (strcmp(id, run) == 0) return true;
    last = id;
  }
  return false;
}

/* One entry from the sorted rows r[a..b) of one key: the sd of ln over
 * their runs (each run's value the median of its rows). False: fewer than
 * 2 runs or a value that is not positive. */
static bool entry_of(const sp_row *r, size_t a, size_t b, double *vals, double *tmp, gb_spread_entry *e) {
  size_t nr = 0;
  for (size_t i = a; i < b;) {
    size_t j = i, k = 0;
    while (j < b && strcmp(r[j].row->run_id, r[i].row->run_id) == 0) tmp[k++] = r[j++].row->value;
    double v = gb_median(tmp, k);
    if (!(v > 0) || !isfinite(v)) return false;
    vals[nr++] = log(v);
    i = j;
  }
  if (nr < 2) return false;
  double m = 0, ss = 0;
  for (size_t i = 0; i < nr; i++) m += vals[i];
  m /= (double)nr;
  for (size_t i = 0; i < nr; i++) ss += (vals[i] - m) * (vals[i] - m);
  e->sd = sqrt(ss / (double)(nr - 1));
  e->runs = nr;
  return true;
}

/* The rows to measure: each ok row of the type, not of a skipped run, once
 * under the type's key and (of card gpu) once under the card's. */
static gb_err collect(const gb_results *hist, const char *type, const char *gpu, const gb_results *skip,
                      sp_row **out, size_t *nout, size_t *runs) {
  sp_row *v = malloc((2 * hist->nrows + 1) * sizeof *v);
  if (!v) return gb_fail(GB_E_NOMEM, "out of memory for the store's history");
  size_t n = 0;
  const char *last_run = NULL;
  bool last_skip = false;
  *runs = 0;
  for (size_t i = 0; i < hist->nrows; i++) {
    const gb_row *r = &hist->rows[i];
    if (r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) continue;
    if (strcmp(r->gpu_type, type)) continue;
    if (!last_run || strcmp(r->run_id, last_run)) {
      last_run = r->run_id;
      last_skip = skipped(skip, r->run_id);
      *runs += !last_skip; /* rows of a run are together in a store's order */
    }
    if (last_skip) continue;
    for (int s = 0; s < 2; s++) {
      if (s == 1 && (!gpu || !gpu[0] || strcmp(r->gpu_uuid, gpu))) continue;
      if (!(v[n].key = spread_key(s ? 'c' : 't', r))) {
        for (size_t k = 0; k < n; k++) free(v[k].key);
        free(v);
        return gb_fail(GB_E_NOMEM, "out of memory for the store's history");
      }
      v[n++].row = r;
    }
  }
  *out = v;
  *nout = n;
  return GB_OK;
}

gb_err gb_spread_measure(const gb_results *hist, const char *gpu_type, const char *gpu, const gb_results *skip,
                         gb_spread_table *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->gpu_type, sizeof t->gpu_type, "%s", gpu_type);
  snprintf(t->gpu, sizeof t->gpu, "%s", gpu ? gpu : "");
  sp_row *r = NULL;
  size_t n = 0;
  gb_err e = collect(hist, gpu_type, gpu, skip, &r, &n, &t->runs);
  if (e) return e;
  qsort(r, n, sizeof *r, cmp_sp);
  double *vals = malloc((n + 1) * sizeof *vals), *tmp = malloc((n + 1) * sizeof *tmp);
  t->v = calloc(n + 1, sizeof *t->v);
  if (!vals || !tmp || !t->v) e = gb_fail(GB_E_NOMEM, "out of memory for the store's history");
  for (size_t i = 0; i < n && !e;) {
    size_t j = i;
    while (j < n && strcmp(r[j].key, r[i].key) == 0) j++;
    gb_spread_entry en;
    if (entry_of(r, i, j, vals, tmp, &en)) {
      en.key = r[i].key;
      r[i].key = NULL; /* the entry owns it */
      t->v[t->n++] = en;
    }
    i = j;
  }
  for (size_t i = 0; i < n; i++) free(r[i].key);
  free(r);
  free(vals);
  free(tmp);
  if (e) gb_spread_free(t);
  return e;
}

static int cmp_entry_key(const void *k, const void *e) {
  return strcmp((const char *)k, ((const gb_spread_entry *)e)->key);
}

const gb_spread_entry *gb_spread_lookup(const gb_spread_table *t, const gb_row *r, bool card, bool *is_card) {
  *is_card = false;
  if (!t || !t->n || strcmp(r->gpu_type, t->gpu_type)) return NULL;
  const gb_spread_entry *found = NULL;
  for (int s = card ? 1 : 0; s >= 0 && !found; s--) {
    char *key = spread_key(s ? 'c' : 't', r);
    if (!key) return NULL;
    found = bsearch(key, t->v, t->n, sizeof *t->v, cmp_entry_key);
    free(key);
    if (found && s == 1 && found->runs < GB_SPREAD_CARD_MIN_RUNS) found = NULL;
    else if (found) *is_card = s == 1;
  }
  return found;
}

void gb_spread_free(gb_spread_table *t) {
  for (size_t i = 0; i < t->n; i++) free(t->v[i].key);
  free(t->v);
  memset(t, 0, sizeof *t);
}
