/* gb_escape: markdown, HTML, XML, CSV, gnuplot and terminal/log escaping. */
#define _GNU_SOURCE /* fopencookie */
#include "gb_escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

/* Formatting characters that reorder or split what a reader sees. */
static bool log_format_char(uint32_t c) {
  return c == 0x200E || c == 0x200F || c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
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
  bool prev_bracket; /* the last character was ']' */
} md_state;

static const char *md_one(uint32_t c, void *state) {
  md_state *st = state;
  bool after_colon = st->prev_colon;
  /* a dropped CR writes nothing: ":\r:" must still not become "::" (found by fuzz_escape) */
  bool after_bracket = st->prev_bracket;
  if (!(c == '\r' && st->keep_lines)) {
    st->prev_colon = c == ':';
    st->prev_bracket = c == ']';
  }
  if (st->code) { /* inside a code span (or plain text): no escapes work there */
    if (c == '`' && !st->plain) return "'";
    if (c == ':' && after_colon) return " :";
    return control(c, false) || log_format_char(c) ? " " : NULL;
  }
  switch (c) {
  case '|': return "\\|";
  case '`': return "\\`";
  case '(': return after_bracket ? "\\(" : NULL; /* no "](": no link or image from a field */
  case '*': return "\\*"; /* no emphasis from a field */
  case '\\': return "\\\\";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '&': return "&amp;";
  /* "::" never appears, so no line can start a workflow command */
  case ':': return after_colon ? "\\:" : NULL;
  case '\n': return st->keep_lines ? "\n" : " ";
  case '\r': return st->keep_lines ? "" : " ";
  default: return control(c, false) || log_format_char(c) ? " " : NULL; /* one line in a cell */
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
  /* line ends as references: the same whitespace to a browser, but no line
   * of the file starts with a field's text (a "::error::" after a field's
   * line feed would be a workflow command when the page is printed in a CI
   * log) */
  case '\n': return "&#10;";
  case '\r': return "&#13;";
  default:
    /* control characters and noncharacters make the page invalid: dropped */
    return control(c, true) || c == 0xFFFE || c == 0xFFFF || log_format_char(c) ? "" : NULL;
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
  return control(c, false) || log_format_char(c) ? " " : NULL;
}

gb_err gb_esc_gnuplot(gb_buf *out, const char *s) { return walk(out, s, gnuplot_one, NULL); }

/* a data file's double-quoted string: gnuplot reads it without escapes, so
 * a double quote cannot be written and becomes a single one */
static const char *gnuplot_data_one(uint32_t c, void *state) {
  (void)state;
  if (c == '"') return "'";
  return control(c, false) || log_format_char(c) ? " " : NULL;
}

gb_err gb_esc_gnuplot_data(gb_buf *out, const char *s) { return walk(out, s, gnuplot_data_one, NULL); }

/* ---- text for a terminal or a CI log ---- */

/* The bytes a sequence starting with b takes (1: a byte on its own). */
static unsigned seq_len(unsigned char b) {
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 1;
}

/* The line-start rule: "::" as a line's first non-blank characters gets a
 * space between the colons, "##[" and "##v" one after the hashes (a markdown
 * heading "## x" stays). Returns the bytes to write before c. */
static const char *log_lead(gb_esc_log_state *st, uint32_t c) {
  if (c == '\n' || c == '\r') {
    st->lead = 0;
    return "";
  }
  unsigned lead = st->lead;
  st->lead = 3;
  if (lead == 0 && (c == ' ' || c == '\t')) st->lead = 0;
  else if (lead == 0 && (c == ':' || c == '#')) st->lead = c == ':' ? 1 : 2;
  else if (lead == 1 && c == ':') return " ";
  else if (lead == 2 && c == '#') st->lead = 4;
  else if (lead == 4 && (c == '[' || c == 'v')) return " ";
  return "";
}

static gb_err log_char(gb_esc_log_state *st, gb_buf *out, uint32_t c, const unsigned char *bytes, size_t len) {
  gb_err e = gb_buf_puts(out, log_lead(st, c));
  if (e) return e;
  if (c == 0xFFFD && len == 1) return gb_buf_puts(out, k_fffd);
  if (control(c, true)) return gb_buf_printf(out, "\\x%02X", (unsigned)c);
  if (log_format_char(c)) return gb_buf_printf(out, "\\u%04X", (unsigned)c);
  return gb_buf_append(out, (const char *)bytes, len);
}

/* Whether the held bytes may still become a whole sequence. */
static bool log_incomplete(const gb_esc_log_state *st) {
  const unsigned char *h = st->held;
  /* CR: wait for what follows it (LF, or the progress line's ESC [ K) */
  if (h[0] == '\r')
    return st->nheld == 1 || (h[1] == 0x1B && st->nheld < 4 && (st->nheld < 3 || h[2] == '['));
  if (h[0] == 0x1B) return st->nheld < 3 && (st->nheld < 2 || h[1] == '[');
  if (st->nheld >= seq_len(h[0])) return false;
  for (unsigned i = 1; i < st->nheld; i++)
    if ((h[i] & 0xC0) != 0x80) return false;
  return true;
}

/* Writes what is held, up to a sequence that may still complete (all of it
 * at the end of the stream). */
static gb_err log_drain(gb_esc_log_state *st, gb_buf *out, bool end) {
  gb_err e = GB_OK;
  while (st->nheld && !e) {
    unsigned char *h = st->held;
    if (!end && log_incomplete(st)) return GB_OK;
    size_t used = 1;
    uint32_t c;
    if (h[0] == '\r' && st->nheld >= 2 && h[1] == '\n') {
      e = log_char(st, out, '\r', h, 1); /* CRLF: a line end */
    } else if (h[0] == '\r' && st->nheld >= 4 && h[1] == 0x1B && h[2] == '[' && h[3] == 'K') {
      e = log_char(st, out, '\r', h, 1); /* the progress line's redraw: back to the start, erase */
      if (!e) e = gb_buf_append(out, "\x1B[K", 3);
      used = 4;
    } else if (h[0] == '\r') {
      /* any other CR would let the text after it overwrite what the line
       * showed: written visibly, and the line goes on */
      e = gb_buf_puts(out, "\\r");
    } else if (h[0] == 0x1B && st->nheld >= 3 && h[1] == '[' && h[2] == 'K') {
      e = gb_buf_append(out, "\x1B[K", 3); /* erase to the end of the line: can only erase */
      used = 3;
    } else if ((used = utf8_next(h, st->nheld, &c)) != 0) {
      e = log_char(st, out, c, h, used);
    } else {
      e = log_char(st, out, 0xFFFD, h, 1);
      used = 1;
    }
    memmove(h, h + used, st->nheld - used);
    st->nheld -= (unsigned)used;
  }
  return e;
}

gb_err gb_esc_log_feed(gb_esc_log_state *st, gb_buf *out, const char *p, size_t n) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e; i++) {
    st->held[st->nheld++] = (unsigned char)p[i];
    e = log_drain(st, out, false);
  }
  return e;
}

gb_err gb_esc_log_end(gb_esc_log_state *st, gb_buf *out) { return log_drain(st, out, true); }

gb_err gb_esc_log(gb_buf *out, const char *s) {
  gb_esc_log_state st = {0};
  gb_err e = gb_esc_log_feed(&st, out, s, strlen(s));
  return e ? e : gb_esc_log_end(&st, out);
}

typedef struct esc_cookie {
  FILE *to;
  gb_esc_log_state st;
} esc_cookie;

static int esc_put(esc_cookie *k, gb_buf *b) {
  bool ok = b->len == 0 || fwrite(b->data, 1, b->len, k->to) == b->len;
  gb_buf_free(b);
  return fflush(k->to) == 0 && ok ? 0 : -1;
}

static ssize_t esc_write(void *cookie, const char *p, size_t n) {
  esc_cookie *k = cookie;
  gb_buf b = {0};
  if (gb_esc_log_feed(&k->st, &b, p, n) != GB_OK) {
    gb_buf_free(&b);
    return -1;
  }
  return esc_put(k, &b) == 0 ? (ssize_t)n : -1;
}

static int esc_close(void *cookie) {
  esc_cookie *k = cookie;
  gb_buf b = {0};
  gb_esc_log_end(&k->st, &b);
  int rc = esc_put(k, &b);
  free(k);
  return rc;
}

FILE *gb_esc_stream(FILE *fp) {
  esc_cookie *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->to = fp;
  FILE *f = fopencookie(k, "w", (cookie_io_functions_t){.write = esc_write, .close = esc_close});
  if (!f) {
    free(k);
    return NULL;
  }
  setvbuf(f, NULL, fp == stderr ? _IONBF : _IOLBF, 0);
  return f;
}

static const char *utf8_one(uint32_t c, void *state) {
  (void)c;
  (void)state;
  return NULL; /* every character as it is; an invalid byte became U+FFFD in walk */
}

gb_err gb_esc_utf8(gb_buf *out, const char *s) { return walk(out, s, utf8_one, NULL); }
