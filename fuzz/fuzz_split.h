/* fuzz_split: one fuzz input as several files: the parts between lines that
 * hold exactly "----" (a separator the dictionaries know). */
#ifndef GB_FUZZ_SPLIT_H
#define GB_FUZZ_SPLIT_H

#include <stddef.h>
#include <string.h>

/* Splits text (NUL-terminated, changed in place) into at most max parts;
 * returns how many. Each part keeps its line ends. */
static inline size_t fuzz_split(char *text, char **part, size_t *len, size_t max) {
  size_t n = 0;
  char *p = text;
  while (n < max) {
    char *sep = strstr(p, "\n----\n");
    part[n] = p;
    if (!sep || n + 1 == max) {
      len[n++] = strlen(p);
      break;
    }
    len[n++] = (size_t)(sep + 1 - p);
    sep[1] = '\0';
    p = sep + 6;
  }
  return n;
}

#endif
