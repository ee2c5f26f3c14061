/* gb_noise_prior: the floors of a GPU type no floor file has measured,
 * from the types it has (gb_noise.h: gb_noise_prior). */
#include <stdio.h>
#include <string.h>

#include "gb_noise.h"

bool gb_noise_has_type(const gb_noise_table *t, const char *gpu_type) {
  for (size_t i = 0; t && i < t->n; i++)
    if (strcmp(t->v[i].gpu_type, gpu_type) == 0 || strcmp(t->v[i].gpu_type, "*") == 0) return true;
  return false;
}

/* Adds type to the list in buf (", " between), once. */
static void add_type(char *buf, size_t n, const char *type) {
  size_t len = strlen(buf), tl = strlen(type);
  for (const char *p = buf; (p = strstr(p, type)); p += tl)
    if ((p == buf || p[-1] == ' ') && (p[tl] == ',' || p[tl] == '\0')) return;
  if (len + tl + 3 < n) snprintf(buf + len, n - len, "%s%s", len ? ", " : "", type);
}

const gb_noise_floor *gb_noise_prior(const gb_noise_table *t, const gb_row *r, char *types, size_t ntypes) {
  if (ntypes) types[0] = '\0';
  if (!t || !t->n) return NULL;
  char cls[96], fig[512];
  gb_noise_size_class(r, cls, sizeof cls);
  gb_noise_figure(r, fig, sizeof fig);
  const gb_noise_floor *widest = NULL;
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    if (f->same_gpu || f->peak || f->cards) continue;
    bool match = f->figure[0] ? strcmp(f->figure, fig) == 0
                              : strcmp(f->benchmark, r->benchmark) == 0 && strcmp(f->metric, r->metric) == 0 &&
                                    strcmp(f->size_class, cls) == 0;
    if (!match) continue;
    if (!widest || f->sigma > widest->sigma) widest = f;
    if (ntypes) add_type(types, ntypes, f->gpu_type);
  }
  return widest;
}

/* Whether type holds a "cards" row for figure fig (3 cards or more measured it). */
static bool has_cards(const gb_noise_table *t, const char *fig, const char *type) {
  for (size_t i = 0; i < t->n; i++)
    if (t->v[i].cards && strcmp(t->v[i].figure, fig) == 0 && strcmp(t->v[i].gpu_type, type) == 0) return true;
  return false;
}

/* The widest row of r's figure over the types other than r's: its "cards"
 * row (peak false), else its peak row of scope same_gpu from a type that
 * has a "cards" row for it. */
static const gb_noise_floor *widest_other(const gb_noise_table *t, const gb_row *r, bool peak, bool same_gpu,
                                          char *types, size_t ntypes) {
  if (ntypes) types[0] = '\0';
  if (!t || !t->n) return NULL;
  char fig[512];
  gb_noise_figure(r, fig, sizeof fig);
  const gb_noise_floor *widest = NULL;
  for (size_t i = 0; i < t->n; i++) {
    const gb_noise_floor *f = &t->v[i];
    bool kind = peak ? f->peak && f->same_gpu == same_gpu : f->cards;
    if (!kind || strcmp(f->figure, fig) != 0 || strcmp(f->gpu_type, r->gpu_type) == 0 ||
        (peak && !has_cards(t, fig, f->gpu_type)))
      continue;
    if (!widest || f->sigma > widest->sigma) widest = f;
    if (ntypes) add_type(types, ntypes, f->gpu_type);
  }
  return widest;
}

const gb_noise_floor *gb_noise_prior_cards(const gb_noise_table *t, const gb_row *r, char *types, size_t ntypes) {
  return widest_other(t, r, false, false, types, ntypes);
}

const gb_noise_floor *gb_noise_prior_peak(const gb_noise_table *t, const gb_row *r, bool same_gpu, char *types,
                                          size_t ntypes) {
  return widest_other(t, r, true, same_gpu, types, ntypes);
}
