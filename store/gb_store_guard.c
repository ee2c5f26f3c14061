/* gb_store_guard: a store is an input (or, to import and run --store, an
 * output) like any file: the one output-path guard (core/gb_output.h) of
 * every command that takes --store also knows the SQLite store's files. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_output.h"
#include "gb_store.h"

/* The store's files: PATH, PATH-wal, PATH-shm (SQLite); 0 for PostgreSQL. */
static size_t store_files(const char *url, char files[3][4200]) {
  const char *path = url ? gb_store_sqlite_path(url) : NULL;
  if (!path || !path[0]) return 0;
  snprintf(files[0], sizeof files[0], "%s", path);
  snprintf(files[1], sizeof files[1], "%s-wal", path);
  snprintf(files[2], sizeof files[2], "%s-shm", path);
  return 3;
}

/* Standard output written into one of the store's files (gpubench export
 * --store s.db --csv all >> s.db) would write text into the database. */
static gb_err stdout_not_store(char files[3][4200], size_t n) {
  struct stat out, f;
  if (fstat(STDOUT_FILENO, &out) != 0 || !S_ISREG(out.st_mode)) return GB_OK;
  for (size_t i = 0; i < n; i++)
    if (stat(files[i], &f) == 0 && f.st_dev == out.st_dev && f.st_ino == out.st_ino)
      return gb_fail(GB_E_USAGE, "standard output is the store's file %s; send it elsewhere", files[i]);
  return GB_OK;
}

/* ins, then the store's files: a new array (free it). */
static const char **with_store(const char *const ins[], size_t nin, char files[3][4200], size_t nf) {
  const char **all = malloc((nin + nf + 1) * sizeof *all);
  if (!all) return NULL;
  for (size_t i = 0; i < nin; i++) all[i] = ins[i];
  for (size_t i = 0; i < nf; i++) all[nin + i] = files[i];
  return all;
}

gb_err gb_store_guard(const char *url, bool writes, const char *const outs[], size_t nout, const char *const ins[],
                      size_t nin, unsigned flags) {
  char files[3][4200];
  size_t nf = store_files(url, files);
  gb_err e = stdout_not_store(files, nf);
  if (e) return e;
  const char **all = with_store(writes ? outs : ins, writes ? nout : nin, files, nf);
  if (!all) return gb_fail(GB_E_NOMEM, "out of memory");
  /* writes: the store's files join the outputs (checked against the inputs and each other) */
  e = writes ? gb_output_guard(all, nout + nf, ins, nin, flags) : gb_output_guard(outs, nout, all, nin + nf, flags);
  free(all);
  return e;
}

gb_err gb_store_guard_dir(const char *url, const char *dir, const char *const suffixes[], const char *const ins[],
                          size_t nin) {
  char files[3][4200];
  size_t nf = store_files(url, files);
  gb_err e = stdout_not_store(files, nf);
  if (e || !dir) return e;
  const char **all = with_store(ins, nin, files, nf);
  if (!all) return gb_fail(GB_E_NOMEM, "out of memory");
  e = gb_output_guard(&dir, 1, all + nin, nf, 0); /* the directory named at the store itself */
  if (!e) e = gb_output_check_dir(dir, suffixes, all, nin + nf);
  free(all);
  return e;
}
