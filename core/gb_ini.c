/* gb_ini: strict INI reader with lines up to 64 KiB. */
#include "gb_ini.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gb_input.h"

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Trims s[0..*n) in place of blanks at both ends; returns the new start. */
static char *trim(char *s, size_t *n) {
  while (*n && blank(*s)) s++, (*n)--;
  while (*n && blank(s[*n - 1])) (*n)--;
  s[*n] = '\0';
  return s;
}

/* Where a comment starts in a value: ';' after a blank, or n. */
static size_t comment_start(const char *s, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (s[i] == ';' && blank(s[i - 1])) return i;
  return n;
}

int gb_ini_parse_mem(const char *name, const char *text, size_t len, gb_ini_handler handler, void *user) {
  if (!name) name = "<memory>";
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3, len -= 3;
  char *line = malloc(GB_INI_MAX_LINE + 2);
  char *section = calloc(1, GB_INI_MAX_LINE + 2);
  if (!line || !section) {
    free(line);
    free(section);
    return -2;
  }
  int rc = 0;
  long lineno = 0;
  size_t pos = 0;
  while (pos < len && rc == 0) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
    lineno++;
    size_t content = n && text[pos + n - 1] == '\r' ? n - 1 : n;
    if (content > GB_INI_MAX_LINE) {
      gb_fail(GB_E_INPUT, "%s:%ld: line of %zu bytes is longer than the %d-byte limit", name, lineno, content,
              GB_INI_MAX_LINE);
      rc = GB_INI_REPORTED;
      break;
    }
    if (memchr(text + pos, '\0', n)) {
      gb_fail(GB_E_INPUT, "%s:%ld: line holds a NUL byte", name, lineno);
      rc = GB_INI_REPORTED;
      break;
    }
    memcpy(line, text + pos, n);
    pos += n + (nl != NULL);
    size_t m = n;
    char *s = trim(line, &m);
    if (m == 0 || s[0] == ';' || s[0] == '#') continue;
    if (s[0] == '[') {
      char *end = strchr(s, ']');
      if (!end) {
        rc = (int)lineno;
        break;
      }
      size_t rest = m - (size_t)(end + 1 - s);
      char *after = trim(end + 1, &rest);
      if (rest && after[0] != ';' && after[0] != '#') {
        rc = (int)lineno;
        break;
      }
      size_t sl = (size_t)(end - (s + 1));
      char *sec = trim(s + 1, &sl);
      memmove(section, sec, sl + 1);
      continue;
    }
    size_t eq = strcspn(s, "=:");
    if (eq == m) {
      rc = (int)lineno;
      break;
    }
    size_t kl = eq, vl = m - eq - 1;
    char *val = s + eq + 1;
    vl = comment_start(val, vl);
    val = trim(val, &vl);
    char *key = trim(s, &kl);
    if (kl == 0) {
      rc = (int)lineno;
      break;
    }
    if (!handler(user, section, key, val, lineno)) rc = (int)lineno;
  }
  free(line);
  free(section);
  return rc;
}

int gb_ini_parse(const char *path, gb_ini_handler handler, void *user) {
  char *data = NULL;
  size_t len = 0;
  gb_err e = gb_input_read(path, false, &data, &len);
  if (e == GB_E_NOMEM) return -2;
  if (e) return errno == EINVAL ? GB_INI_REPORTED : -1; /* not a regular file: described; else errno says */
  int rc = gb_ini_parse_mem(path, data, len, handler, user);
  free(data);
  return rc;
}
