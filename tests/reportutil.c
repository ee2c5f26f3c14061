/* reportutil: well-formedness of SVG/XHTML text, PNG headers and a
 * comma-decimal locale, for the plot and report tests. */
#include "reportutil.h"

#include <ctype.h>
#include <locale.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"

extern char **environ;

#define XML_MAX_DEPTH 256
#define XML_MAX_NAME 64

static bool xml_fail(char *err, size_t errn, size_t at, const char *what) {
  snprintf(err, errn, "offset %zu: %s", at, what);
  return false;
}

static bool name_char(char c) { return isalnum((unsigned char)c) || c == '-' || c == '_' || c == ':' || c == '.'; }

/* Checks an entity starting at s[0] == '&'; returns its length or 0. */
static size_t entity_len(const char *s) {
  size_t i = 1;
  if (s[i] == '#') {
    i++;
    if (s[i] == 'x') i++;
    if (!isxdigit((unsigned char)s[i])) return 0;
    while (isxdigit((unsigned char)s[i])) i++;
  } else {
    if (!isalpha((unsigned char)s[i])) return 0;
    while (isalnum((unsigned char)s[i])) i++;
  }
  return s[i] == ';' ? i + 1 : 0;
}

bool gb_xml_wellformed(const char *t, char *err, size_t errn) {
  char stack[XML_MAX_DEPTH][XML_MAX_NAME];
  int depth = 0, roots = 0;
  size_t i = 0;
  while (t[i]) {
    if (t[i] == '&') {
      size_t n = entity_len(t + i);
      if (!n) return xml_fail(err, errn, i, "'&' that is not an entity");
      i += n;
      continue;
    }
    if (t[i] != '<') {
      if (depth == 0 && !isspace((unsigned char)t[i])) return xml_fail(err, errn, i, "text outside the root element");
      i++;
      continue;
    }
    if (strncmp(t + i, "<!--", 4) == 0) {
      const char *e = strstr(t + i + 4, "-->");
      if (!e) return xml_fail(err, errn, i, "unterminated comment");
      i = (size_t)(e - t) + 3;
      continue;
    }
    if (strncmp(t + i, "<![CDATA[", 9) == 0) {
      const char *e = strstr(t + i + 9, "]]>");
      if (!e) return xml_fail(err, errn, i, "unterminated CDATA");
      i = (size_t)(e - t) + 3;
      continue;
    }
    if (t[i + 1] == '?') {
      const char *e = strstr(t + i + 2, "?>");
      if (!e) return xml_fail(err, errn, i, "unterminated <?");
      i = (size_t)(e - t) + 2;
      continue;
    }
    if (t[i + 1] == '!') { /* DOCTYPE, possibly with quoted ids */
      size_t j = i + 2;
      char q = 0;
      while (t[j] && (q || t[j] != '>')) {
        if (q && t[j] == q) q = 0;
        else if (!q && (t[j] == '"' || t[j] == '\'')) q = t[j];
        j++;
      }
      if (!t[j]) return xml_fail(err, errn, i, "unterminated <!");
      i = j + 1;
      continue;
    }
    bool closing = t[i + 1] == '/';
    size_t j = i + 1 + (closing ? 1 : 0);
    size_t ns = j;
    while (name_char(t[j])) j++;
    size_t nlen = j - ns;
    if (nlen == 0 || nlen >= XML_MAX_NAME) return xml_fail(err, errn, i, "bad tag name");
    char name[XML_MAX_NAME];
    memcpy(name, t + ns, nlen);
    name[nlen] = '\0';
    if (closing) {
      while (isspace((unsigned char)t[j])) j++;
      if (t[j] != '>') return xml_fail(err, errn, i, "junk in closing tag");
      if (depth == 0) return xml_fail(err, errn, i, "closing tag with nothing open");
      if (strcmp(stack[depth - 1], name) != 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "</%s> closes <%s>", name, stack[depth - 1]);
        return xml_fail(err, errn, i, msg);
      }
      depth--;
      i = j + 1;
      continue;
    }
    /* attributes: name="value" or name='value' */
    bool self_close = false;
    for (;;) {
      while (isspace((unsigned char)t[j])) j++;
      if (t[j] == '>') break;
      if (t[j] == '/' && t[j + 1] == '>') {
        self_close = true;
        j++;
        break;
      }
      size_t as = j;
      while (name_char(t[j])) j++;
      if (j == as) return xml_fail(err, errn, j, "bad attribute name");
      while (isspace((unsigned char)t[j])) j++;
      if (t[j] != '=') return xml_fail(err, errn, j, "attribute without a value");
      j++;
      while (isspace((unsigned char)t[j])) j++;
      char q = t[j];
      if (q != '"' && q != '\'') return xml_fail(err, errn, j, "unquoted attribute value");
      j++;
      while (t[j] && t[j] != q) {
        if (t[j] == '<') return xml_fail(err, errn, j, "'<' in an attribute value");
        if (t[j] == '&' && !entity_len(t + j)) return xml_fail(err, errn, j, "'&' that is not an entity (attribute)");
        j++;
      }
      if (!t[j]) return xml_fail(err, errn, as, "unterminated attribute value");
      j++;
    }
    if (depth == 0) roots++;
    if (roots > 1) return xml_fail(err, errn, i, "a second root element");
    if (!self_close) {
      if (depth == XML_MAX_DEPTH) return xml_fail(err, errn, i, "nested too deep");
      memcpy(stack[depth++], name, nlen + 1);
    }
    i = j + 1;
  }
  if (depth != 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "<%s> never closed", stack[depth - 1]);
    return xml_fail(err, errn, i, msg);
  }
  if (roots != 1) return xml_fail(err, errn, i, "no root element");
  return true;
}

bool gb_png_valid(const char *path, unsigned *w, unsigned *h) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char b[24];
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  if (n != sizeof b || memcmp(b, sig, 8) != 0) return false;
  /* first chunk: length 13, type IHDR, then width and height big-endian */
  unsigned len = (unsigned)b[8] << 24 | (unsigned)b[9] << 16 | (unsigned)b[10] << 8 | b[11];
  if (len != 13 || memcmp(b + 12, "IHDR", 4) != 0) return false;
  *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
  *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
  return *w > 0 && *h > 0;
}

const char *gb_test_comma_locale(void) {
  static const char *const names[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE.utf8", "fr_FR.utf8"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (setlocale(LC_ALL, names[i]) && localeconv()->decimal_point[0] == ',') return names[i];
  /* compile one: localedef -c -i de_DE -f UTF-8 DIR/de_DE.UTF-8 */
  const char *dir = gb_test_tmpdir();
  if (!dir) return NULL;
  char out[4096];
  snprintf(out, sizeof out, "%s/de_DE.UTF-8", dir);
  char *argv[] = {"localedef", "-c", "-i", "de_DE", "-f", "UTF-8", out, NULL};
  pid_t pid;
  if (posix_spawnp(&pid, "localedef", NULL, NULL, argv, environ) != 0) return NULL;
  int ws;
  if (waitpid(pid, &ws, 0) < 0) return NULL;
  setenv("LOCPATH", dir, 1);
  if (setlocale(LC_ALL, "de_DE.UTF-8") && localeconv()->decimal_point[0] == ',') return "de_DE.UTF-8";
  unsetenv("LOCPATH");
  return NULL;
}

size_t gb_test_count(const char *hay, const char *needle) {
  size_t n = 0, len = strlen(needle);
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += len) n++;
  return n;
}

bool gb_test_file_nonempty(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

size_t gb_test_gp_series(const char *gp) {
  const char *p = strstr(gp, "\nplot \\\n");
  if (!p) return 0;
  size_t n = 0;
  /* the clauses: one a line, each but the last ending in ", \" */
  for (const char *line = strchr(p + 1, '\n'); line && line[1] == ' '; line = strchr(line + 1, '\n')) {
    const char *end = strchr(line + 1, '\n');
    size_t l = end ? (size_t)(end - line) : strlen(line);
    const char *t = strstr(line, " title '");
    n += t && (size_t)(t - line) < l;
  }
  return n;
}

bool gb_test_gp_has_errorbars(const char *gp) {
  static const char *const k[] = {" with yerrorlines ", " with yerrorbars ", " with xerrorlines ",
                                   " with xerrorbars ", " with xyerrorlines ", " with xyerrorbars "};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strstr(gp, k[i])) return true;
  return false;
}
