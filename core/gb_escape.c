/* gb_escape: markdown, HTML, XML, CSV and gnuplot escaping. */
#include "gb_escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Decodes one UTF-8 sequence at s (n bytes left): its length (1..4) and
 * code point, or 0 when the byte there does not start a valid one. */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp) {
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  size_t len;
  uint32_t c, min;
  if ((s[0] & 0xE0) == 0xC0) len = 2, c = s[0] & 0x1Fu, min = 0x80;
  else if ((s[0] & 0xF0) == 0xE0) len = 3, c = s[0] & 0x0Fu, min = 0x800;
  else if ((s[0] & 0xF8) == 0xF0) len = 4, c = s[0] & 0x07u, min = 0x10000;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3Fu);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return len;
}

static const char k_fffd[] = "\xEF\xBF\xBD";

/* A control character: C0 (but tab, LF, CR when keep_ws), DEL, C1. */
static bool control(uint32_t c, bool keep_ws) {
  if (keep_ws && (c == '\t' || c == '\n' || c == '\r')) return false;
  return c < 0x20 || (c >= 0x7F && c <= 0x9F);
}

static gb_err esc_markdown(gb_buf *out, const char *s, bool keep_lines) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  gb_err e = GB_OK;
  bool prev_colon = false;
  while (n && !e) {
    uint32_t c;
    size_t len = utf8_next(p, n, &c);
    if (len == 0) {
      e = gb_buf_append(out, k_fffd, 3);
      p++, n--;
      prev_colon = false;
      continue;
    }
    switch (c) {
    case '|': e = gb_buf_puts(out, "\\|"); break;
    case '`': e = gb_buf_puts(out, "\\`"); break;
    case '\\': e = gb_buf_puts(out, "\\\\"); break;
    case '<': e = gb_buf_puts(out, "&lt;"); break;
    case '>': e = gb_buf_puts(out, "&gt;"); break;
    case '&': e = gb_buf_puts(out, "&amp;"); break;
    /* "::" never appears, so no line can start a workflow command */
    case ':': e = gb_buf_puts(out, prev_colon ? "\\:" : ":"); break;
    case '\n':
      e = gb_buf_puts(out, keep_lines ? "\n" : " ");
      break;
    case '\r':
      if (!keep_lines) e = gb_buf_puts(out, " ");
      break;
    default:
      if (control(c, false)) e = gb_buf_puts(out, " "); /* one line in a cell */
      else e = gb_buf_append(out, (const char *)p, len);
    }
    /* a dropped CR writes nothing: ":\r:" must still not become "::" (fuzz_escape) */
    if (!(c == '\r' && keep_lines)) prev_colon = c == ':';
    p += len, n -= len;
  }
  return e;
}

gb_err gb_esc_markdown(gb_buf *out, const char *s) { return esc_markdown(out, s, false); }

gb_err gb_esc_markdown_text(gb_buf *out, const char *s) { return esc_markdown(out, s, true); }

gb_err gb_esc_markdown_code(gb_buf *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  gb_err e = GB_OK;
  bool prev_colon = false;
  while (n && !e) {
    uint32_t c;
    size_t len = utf8_next(p, n, &c);
    if (len == 0) {
      e = gb_buf_append(out, k_fffd, 3);
      p++, n--;
      prev_colon = false;
      continue;
    }
    if (c == '`') e = gb_buf_puts(out, "'");
    else if (c == ':' && prev_colon) e = gb_buf_puts(out, " :");
    else if (control(c, false)) e = gb_buf_puts(out, " ");
    else e = gb_buf_append(out, (const char *)p, len);
    prev_colon = c == ':';
    p += len, n -= len;
  }
  return e;
}

gb_err gb_esc_html(gb_buf *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  gb_err e = GB_OK;
  while (n && !e) {
    uint32_t c;
    size_t len = utf8_next(p, n, &c);
    if (len == 0) {
      e = gb_buf_append(out, k_fffd, 3);
      p++, n--;
      continue;
    }
    switch (c) {
    case '&': e = gb_buf_puts(out, "&amp;"); break;
    case '<': e = gb_buf_puts(out, "&lt;"); break;
    case '>': e = gb_buf_puts(out, "&gt;"); break;
    case '"': e = gb_buf_puts(out, "&quot;"); break;
    case '\'': e = gb_buf_puts(out, "&#39;"); break;
    default:
      /* control characters and noncharacters make the page invalid: dropped */
      if (!control(c, true) && c != 0xFFFE && c != 0xFFFF) e = gb_buf_append(out, (const char *)p, len);
    }
    p += len, n -= len;
  }
  return e;
}

gb_err gb_esc_xml(gb_buf *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  gb_err e = GB_OK;
  while (n && !e) {
    uint32_t c;
    size_t len = utf8_next(p, n, &c);
    if (len == 0) {
      e = gb_buf_append(out, k_fffd, 3);
      p++, n--;
      continue;
    }
    switch (c) {
    case '&': e = gb_buf_puts(out, "&amp;"); break;
    case '<': e = gb_buf_puts(out, "&lt;"); break;
    case '>': e = gb_buf_puts(out, "&gt;"); break;
    case '"': e = gb_buf_puts(out, "&quot;"); break;
    case '\'': e = gb_buf_puts(out, "&apos;"); break;
    /* kept as references, so attribute values keep them too */
    case '\t': e = gb_buf_puts(out, "&#9;"); break;
    case '\n': e = gb_buf_puts(out, "&#10;"); break;
    case '\r': e = gb_buf_puts(out, "&#13;"); break;
    default:
      /* XML 1.0 Char: no other C0 control, no U+FFFE/U+FFFF (removed) */
      if (c >= 0x20 && c != 0xFFFE && c != 0xFFFF) e = gb_buf_append(out, (const char *)p, len);
    }
    p += len, n -= len;
  }
  return e;
}

gb_err gb_esc_csv(gb_buf *out, const char *s, char sep) { return gb_csv_put_field(out, s, sep); }

gb_err gb_esc_gnuplot(gb_buf *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  gb_err e = GB_OK;
  while (n && !e) {
    uint32_t c;
    size_t len = utf8_next(p, n, &c);
    if (len == 0) {
      e = gb_buf_append(out, k_fffd, 3);
      p++, n--;
      continue;
    }
    if (c == '\'') e = gb_buf_puts(out, "''");
    else if (control(c, false)) e = gb_buf_puts(out, " ");
    else e = gb_buf_append(out, (const char *)p, len);
    p += len, n -= len;
  }
  return e;
}

/* A plain decimal number: [+-]digits[.digits][(e|E)[+-]digits]. */
static bool plain_number(const char *s) {
  if (*s == '+' || *s == '-') s++;
  bool digits = false;
  while (*s >= '0' && *s <= '9') s++, digits = true;
  if (*s == '.') {
    s++;
    while (*s >= '0' && *s <= '9') s++, digits = true;
  }
  if (!digits) return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return false;
    while (*s >= '0' && *s <= '9') s++;
  }
  return *s == '\0';
}

bool gb_csv_formula_risk(const char *s) {
  if (!s) return false;
  const char *t = s;
  while (*t == '\'') t++; /* "'=x" is guarded too, so that reading strips exactly one quote */
  if (*t == '\0' || !strchr("=+-@\t\r", *t)) return false;
  return t != s || !plain_number(t);
}
