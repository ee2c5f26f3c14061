/* gb_store_tmp: selections of a store as results files in a temporary
 * folder, for the commands that read files (report, plan --measured). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_store_int.h"

/* The file of selection i: "NN-SELECTION.csv", the selection's characters
 * other than letters, digits and "=,.-_" written as '_'. */
static void tmp_name(const char *dir, size_t i, const char *sel, char *buf, size_t n) {
  char name[128];
  size_t k = 0;
  for (const char *p = sel; *p && k < sizeof name - 1; p++)
    name[k++] = strchr("=,.-_", *p) || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z') ? *p : '_';
  name[k] = '\0';
  snprintf(buf, n, "%s/%02zu-%s.csv", dir, i + 1, name);
}

static gb_err write_one(gb_store *s, const char *sel, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return gb_fail(GB_E_IO, "%s: cannot create it", path);
  size_t n = 0;
  gb_err e = gb_store_write_csv(s, sel, f, &n);
  if (fclose(f) != 0 && !e) e = gb_fail(GB_E_IO, "%s: cannot write it", path);
  if (!e && n == 0) e = gb_fail(GB_E_INPUT, "%s: selection \"%s\": no rows", s->name, sel);
  return e;
}

gb_err gb_store_export_tmp(const char *url, const char *const *sels, size_t n, gb_store_tmp *t) {
  memset(t, 0, sizeof *t);
  const char *tmp = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
  snprintf(t->dir, sizeof t->dir, "%s/gpubench-store.XXXXXX", tmp);
  if (!mkdtemp(t->dir)) {
    t->dir[0] = '\0';
    return gb_fail(GB_E_IO, "cannot make a temporary folder in %s", tmp);
  }
  if (!(t->path = calloc(n ? n : 1, sizeof *t->path))) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_store *s = NULL;
  gb_err e = gb_store_open_read(url, &s);
  for (size_t i = 0; i < n && !e; i++) {
    char path[4400];
    tmp_name(t->dir, i, sels[i], path, sizeof path);
    if (!(t->path[i] = strdup(path))) e = gb_fail(GB_E_NOMEM, "out of memory");
    t->n = i + 1;
    if (!e) e = write_one(s, sels[i], path);
  }
  gb_store_close(s);
  return e;
}

void gb_store_tmp_free(gb_store_tmp *t) {
  for (size_t i = 0; i < t->n; i++) {
    if (t->path[i]) unlink(t->path[i]);
    free(t->path[i]);
  }
  free(t->path);
  if (t->dir[0]) rmdir(t->dir);
  memset(t, 0, sizeof *t);
}
