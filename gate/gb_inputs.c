/* gb_inputs: the results files a command's operands name. */
#include "gb_inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void gb_inputs_free(char **paths, size_t npaths) {
  for (size_t i = 0; i < npaths; i++) free(paths[i]);
  free(paths);
}

static gb_err push_path(char ***paths, size_t *n, size_t *cap, const char *dir, const char *name) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    char **p = realloc(*paths, nc * sizeof *p);
    if (!p) return gb_fail(GB_E_NOMEM, "out of memory for file names");
    *paths = p;
    *cap = nc;
  }
  size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
  char *s = malloc(len);
  if (!s) return gb_fail(GB_E_NOMEM, "out of memory for file names");
  if (dir)
    snprintf(s, len, "%s/%s", dir, name);
  else
    snprintf(s, len, "%s", name);
  (*paths)[(*n)++] = s;
  return GB_OK;
}

gb_err gb_inputs_collect(char *const *inputs, size_t ninputs, char ***paths, size_t *npaths) {
  *paths = NULL;
  *npaths = 0;
  size_t cap = 0;
  gb_err e = GB_OK;
  for (size_t i = 0; i < ninputs && !e; i++) {
    struct stat st;
    if (stat(inputs[i], &st) != 0) {
      e = gb_fail(GB_E_IO, "%s: cannot read: %s", inputs[i], strerror(errno));
      break;
    }
    if (!S_ISDIR(st.st_mode)) {
      e = push_path(paths, npaths, &cap, NULL, inputs[i]);
      continue;
    }
    DIR *d = opendir(inputs[i]);
    if (!d) {
      e = gb_fail(GB_E_IO, "%s: cannot open the directory: %s", inputs[i], strerror(errno));
      break;
    }
    size_t first = *npaths;
    struct dirent *de;
    while (!e && (de = readdir(d))) {
      size_t len = strlen(de->d_name);
      if (len > 4 && strcmp(de->d_name + len - 4, ".csv") == 0 && de->d_name[0] != '.')
        e = push_path(paths, npaths, &cap, inputs[i], de->d_name);
    }
    closedir(d);
    if (!e && *npaths == first) e = gb_fail(GB_E_INPUT, "%s: no .csv file in this directory", inputs[i]);
    if (!e) qsort(*paths + first, *npaths - first, sizeof **paths, cmp_path);
  }
  if (e) {
    gb_inputs_free(*paths, *npaths);
    *paths = NULL;
    *npaths = 0;
  }
  return e;
}
