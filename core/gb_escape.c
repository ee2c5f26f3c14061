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

/* One character of the text, as a walk hands it to a format: its code point
 * (U+FFFD for a byte that is not valid UTF-8), its bytes, and the format's
 * state. Returns the bytes to write for it (NULL: the character itself). */
typedef const char *(*esc_fn)(uint32_t c, void *state);

/* Walks s one UTF-8 character at a time; every format shares this. */
static gb_err walk(gb_buf *out, const char *s, esc_fn one, void *state) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  gb_err e = GB_OK;
  while (n && !e) {
    uint32_t c;
    size_t len = utf8_next(p, n, &c);
    const char *bytes = (const char *)p;
    if (len == 0) {
      c = 0xFFFD, bytes = k_fffd;
      len = 1;
    }
    const char *rep = one(c, state);
    if (rep) e = gb_buf_puts(out, rep);
    else e = gb_buf_append(out, bytes, bytes == k_fffd ? 3 : len);
    p += len, n -= len;
  }
  return e;
}

typedef struct md_state {
  bool keep_lines; /* paragraph: LF kept, CR dropped */
  bool code;       /* code span, or plain text (no escapes exist there) */
  bool plain;      /* with code: plain text, where a backtick is just a character */
  bool prev_colon;
} md_state;

static const char *md_one(uint32_t c, void *state) {
  md_state *st = state;
  bool after_colon = st->prev_colon;
  /* a dropped CR writes nothing: ":\r:" must still not become "::" (found by fuzz_escape) */
  if (!(c == '\r' && st->keep_lines)) st->prev_colon = c == ':';
  if (st->code) { /* inside a code span (or plain text): no escapes work there */
    if (c == '`' && !st->plain) return "'";
    if (c == ':' && after_colon) return " :";
    return control(c, false) ? " " : NULL;
  }
  switch (c) {
  case '|': return "\\|";
  case '`': return "\\`";
  case '*': return "\\*"; /* no emphasis from a field */
  case '\\': return "\\\\";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '&': return "&amp;";
  /* "::" never appears, so no line can start a workflow command */
  case ':': return after_colon ? "\\:" : NULL;
  case '\n': return st->keep_lines ? "\n" : " ";
  case '\r': return st->keep_lines ? "" : " ";
  default: return control(c, false) ? " " : NULL; /* one line in a cell */
  }
}

gb_err gb_esc_markdown(gb_buf *out, const char *s) { return walk(out, s, md_one, &(md_state){0}); }

gb_err gb_esc_markdown_text(gb_buf *out, const char *s) {
  return walk(out, s, md_one, &(md_state){.keep_lines = true});
}

gb_err gb_esc_markdown_code(gb_buf *out, const char *s) { return walk(out, s, md_one, &(md_state){.code = true}); }

/* plain text: the code span's rules without the backtick (code + keep_lines) */
gb_err gb_esc_line(gb_buf *out, const char *s) {
  return walk(out, s, md_one, &(md_state){.code = true, .plain = true});
}

static const char *html_one(uint32_t c, void *state) {
  (void)state;
  switch (c) {
  case '&': return "&amp;";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '"': return "&quot;";
  case '\'': return "&#39;";
  default:
    /* control characters and noncharacters make the page invalid: dropped */
    return control(c, true) || c == 0xFFFE || c == 0xFFFF ? "" : NULL;
  }
}

gb_err gb_esc_html(gb_buf *out, const char *s) { return walk(out, s, html_one, NULL); }

static const char *xml_one(uint32_t c, void *state) {
  (void)state;
  switch (c) {
  case '&': return "&amp;";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '"': return "&quot;";
  case '\'': return "&apos;";
  /* kept as references, so attribute values keep them too */
  case '\t': return "&#9;";
  case '\n': return "&#10;";
  case '\r': return "&#13;";
  default:
    /* XML 1.0 Char: no other C0 control, no U+FFFE/U+FFFF (removed) */
    return c < 0x20 || c == 0xFFFE || c == 0xFFFF ? "" : NULL;
  }
}

gb_err gb_esc_xml(gb_buf *out, const char *s) { return walk(out, s, xml_one, NULL); }

gb_err gb_esc_csv(gb_buf *out, const char *s, char sep) { return gb_csv_put_field(out, s, sep); }

static const char *gnuplot_one(uint32_t c, void *state) {
  (void)state;
  if (c == '\'') return "''";
  return control(c, false) ? " " : NULL;
}

gb_err gb_esc_gnuplot(gb_buf *out, const char *s) { return walk(out, s, gnuplot_one, NULL); }

