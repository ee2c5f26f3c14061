/* fuzz_ini: the INI reader (core/gb_ini.h gb_ini_parse_mem).
 *
 * Properties: no crash or sanitizer report on any input; the result is 0,
 * a line number within the input, -2 or GB_INI_REPORTED; the handler sees
 * lines in increasing order, each one that is not a comment, with a name
 * that is non-empty, trimmed and holds no '=' or ':' and a value without a
 * line end; a comment line -- of any length up to the limit -- is never
 * handed to the handler (libinih split lines over 200 bytes, and the tail of
 * a long comment became a key). */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_ini.h"

typedef struct seen {
  const char *text;
  size_t len;
  long last;
  size_t nlines;
  size_t *starts; /* offset of each line's first byte */
} seen;

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static int on_kv(void *user, const char *section, const char *name, const char *value, long line) {
  seen *s = user;
  FUZZ_ASSERT(line > s->last && (size_t)line <= s->nlines);
  s->last = line;
  FUZZ_ASSERT(name[0] && !blank(name[0]) && !blank(name[strlen(name) - 1]));
  FUZZ_ASSERT(!strpbrk(name, "=:\n") && !strchr(value, '\n') && !strchr(section, '\n'));
  /* the line is not a comment */
  size_t i = s->starts[line - 1];
  while (i < s->len && blank(s->text[i])) i++;
  if (line == 1 && s->len >= 3 && memcmp(s->text, "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < s->len && blank(s->text[i])) i++;
  FUZZ_ASSERT(i < s->len && s->text[i] != ';' && s->text[i] != '#' && s->text[i] != '[');
  return value[0] != '!'; /* some refusals, to exercise that path */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  seen s = {(const char *)data, size, 0, 1, NULL};
  for (size_t i = 0; i < size; i++) s.nlines += data[i] == '\n';
  s.starts = malloc(s.nlines * sizeof *s.starts);
  if (!s.starts) return 0;
  size_t k = 0;
  s.starts[k++] = 0;
  for (size_t i = 0; i < size; i++)
    if (data[i] == '\n' && k < s.nlines) s.starts[k++] = i + 1;
  int rc = gb_ini_parse_mem("fuzz.ini", (const char *)data, size, on_kv, &s);
  FUZZ_ASSERT(rc == 0 || rc == -2 || rc == GB_INI_REPORTED || (rc > 0 && (size_t)rc <= s.nlines));
  if (rc > 0) FUZZ_ASSERT(rc >= s.last);
  free(s.starts);
  return 0;
}
