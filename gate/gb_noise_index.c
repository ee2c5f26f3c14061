/* gb_noise_index: the floors sorted by what each lookup matches, so that a
 * lookup is two binary searches instead of a scan of every row (1,381 rows
 * in the shipped file; a compare of a fleet looks up ~5 floors a figure). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gb_noise_int.h"

typedef struct nx_entry {
  unsigned cat;  /* gb_noise_cat */
  size_t row;    /* index into the table's v */
  const char *k[4];
} nx_entry;

struct gb_noise_index {
  size_t n;
  nx_entry *e;
};

static int cmp_keys(unsigned cat_a, const char *const *a, unsigned cat_b, const char *const *b) {
  if (cat_a != cat_b) return cat_a < cat_b ? -1 : 1;
  for (int i = 0; i < 4 && a[i]; i++) {
    int c = strcmp(a[i], b[i]);
    if (c) return c;
  }
  return 0;
}

static int cmp_entry(const void *pa, const void *pb) {
  const nx_entry *a = pa, *b = pb;
  int c = cmp_keys(a->cat, a->k, b->cat, b->k);
  return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* The key of floor f under cat: class rows by benchmark, metric, size
 * class and gpu_type; the others by figure and gpu_type. */
static void key_of(const gb_noise_floor *f, unsigned cat, const char **k) {
  if (cat == GB_NOISE_CAT_CLASS || cat == GB_NOISE_CAT_CLASS_SAME_GPU) {
    k[0] = f->benchmark, k[1] = f->metric, k[2] = f->size_class, k[3] = f->gpu_type;
  } else {
    k[0] = f->figure, k[1] = f->gpu_type, k[2] = k[3] = NULL;
  }
}

/* Which lookups may return f (the conditions of the scans in gb_noise.c);
 * a bit per gb_noise_cat. */
static unsigned cats_of(const gb_noise_floor *f) {
  unsigned m = 0;
  bool plain = !f->peak && !f->cards;
  if (plain && !f->figure[0]) m |= 1u << (f->same_gpu ? GB_NOISE_CAT_CLASS_SAME_GPU : GB_NOISE_CAT_CLASS);
  if (plain && f->figure[0]) m |= 1u << (f->same_gpu ? GB_NOISE_CAT_FIGURE_SAME_GPU : GB_NOISE_CAT_FIGURE);
  if (f->cards) m |= 1u << GB_NOISE_CAT_CARDS;
  if (f->peak) m |= 1u << (f->same_gpu ? GB_NOISE_CAT_PEAK_SAME_GPU : GB_NOISE_CAT_PEAK);
  return m;
}

void gb_noise_index_free(gb_noise_table *t) {
  if (!t->idx) return;
  free(t->idx->e);
  free(t->idx);
  t->idx = NULL;
}

gb_err gb_noise_index_build(gb_noise_table *t) {
  gb_noise_index_free(t);
  size_t n = 0;
  for (size_t i = 0; i < t->n; i++) n += (size_t)__builtin_popcount(cats_of(&t->v[i]));
  gb_noise_index *ix = calloc(1, sizeof *ix);
  if (ix) ix->e = malloc((n ? n : 1) * sizeof *ix->e);
  if (!ix || !ix->e) {
    free(ix);
    return gb_fail(GB_E_NOMEM, "out of memory for the noise floors' index");
  }
  for (size_t i = 0; i < t->n; i++) {
    unsigned m = cats_of(&t->v[i]);
    for (unsigned c = 0; c < GB_NOISE_CAT_COUNT; c++) {
      if (!(m & (1u << c))) continue;
      nx_entry *e = &ix->e[ix->n++];
      e->cat = c;
      e->row = i;
      key_of(&t->v[i], c, e->k);
    }
  }
  qsort(ix->e, ix->n, sizeof *ix->e, cmp_entry);
  t->idx = ix;
  return GB_OK;
}

/* The first entry at or past the key (upper: past it). */
static size_t bound(const gb_noise_index *ix, unsigned cat, const char *const *k, bool upper) {
  size_t lo = 0, hi = ix->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = cmp_keys(ix->e[mid].cat, ix->e[mid].k, cat, k);
    if (c < 0 || (upper && c == 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const gb_noise_floor *gb_noise_index_find(const gb_noise_table *t, gb_noise_cat cat, const char *const *k,
                                          bool last) {
  const gb_noise_index *ix = t->idx;
  size_t lo = bound(ix, cat, k, false);
  if (lo == ix->n || cmp_keys(ix->e[lo].cat, ix->e[lo].k, cat, k) != 0) return NULL;
  if (!last) return &t->v[ix->e[lo].row];
  return &t->v[ix->e[bound(ix, cat, k, true) - 1].row];
}
