/* fuzz_escape: the escaping layer (core/gb_escape.h), one function per
 * output format, on any text.
 *
 * Properties: markdown holds no line end, control character or "::" (no
 * line can start a CI workflow command) and no unescaped | ` < >; the code
 * span form holds no backtick, line end or "::"; HTML holds no < > " ' and
 * no & outside an entity, and no control character but tab/LF/CR; XML is
 * a well-formed attribute value and text (no < or quote, & only in an
 * entity, only XML 1.0 characters); a CSV field reads back as written (for
 * UTF-8 text) and never starts with = or @, nor with + or - unless it is a
 * plain number; JSON string text has no raw quote, control character or
 * U+2028/9; gnuplot text has no line end and
 * no lone single quote. All output is valid UTF-8. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_escape.h"

static bool entity_at(const char *p) {
  static const char *const k[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#39;", "&#9;", "&#10;", "&#13;"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strncmp(p, k[i], strlen(k[i])) == 0) return true;
  return false;
}

static char *run(gb_err (*f)(gb_buf *, const char *), const char *s) {
  gb_buf b = {0};
  FUZZ_ASSERT(f(&b, s) == GB_OK);
  FUZZ_ASSERT(gb_buf_append(&b, "", 1) == GB_OK);
  size_t bad;
  FUZZ_ASSERT(gb_utf8_valid(b.data, strlen(b.data), &bad));
  return b.data;
}

/* The terminal/log text: no ESC but in "ESC [ K", no C0 control but tab,
 * LF, CR, no line whose first non-blank characters are "::" or "##[", and
 * the same text when fed in two pieces cut anywhere. */
static void check_log(const char *m, const char *s) {
  for (const char *p = m; *p; p++) {
    unsigned char c = (unsigned char)*p;
    FUZZ_ASSERT(c >= 0x20 || c == '\t' || c == '\n' || c == '\r' || (c == 0x1B && strncmp(p, "\x1B[K", 3) == 0));
    FUZZ_ASSERT(c != 0x7F);
    /* a raw CR only as a line end or the progress line's redraw */
    if (c == '\r') FUZZ_ASSERT(p[1] == '\n' || strncmp(p + 1, "\x1B[K", 3) == 0);
    if (p == m || p[-1] == '\n' || p[-1] == '\r') {
      const char *q = p + strspn(p, " \t");
      FUZZ_ASSERT(strncmp(q, "::", 2) != 0 && strncmp(q, "##[", 3) != 0);
    }
  }
  size_t n = strlen(s), cut = n ? (unsigned char)s[0] % (n + 1) : 0;
  gb_esc_log_state st = {0};
  gb_buf b = {0};
  FUZZ_ASSERT(gb_esc_log_feed(&st, &b, s, cut) == GB_OK);
  FUZZ_ASSERT(gb_esc_log_feed(&st, &b, s + cut, n - cut) == GB_OK);
  FUZZ_ASSERT(gb_esc_log_end(&st, &b) == GB_OK);
  FUZZ_ASSERT(b.len == strlen(m) && (b.len == 0 || memcmp(b.data, m, b.len) == 0));
  gb_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = fuzz_text(data, size);
  char *m = run(gb_esc_markdown, s);
  FUZZ_ASSERT(!strstr(m, "::") && !strpbrk(m, "\n\r<>") && !strstr(m, "]("));
  for (const char *p = m; *p; p++) {
    FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f);
    if (*p == '\\') {
      FUZZ_ASSERT(p[1] != '\0');
      p++;
      continue;
    }
    FUZZ_ASSERT(*p != '|' && *p != '`');
    if (*p == '&') FUZZ_ASSERT(entity_at(p));
  }
  free(m);
  m = run(gb_esc_markdown_text, s);
  FUZZ_ASSERT(!strstr(m, "::") && !strpbrk(m, "\r<>") && !strstr(m, "]("));
  free(m);
  m = run(gb_esc_line, s);
  FUZZ_ASSERT(!strstr(m, "::"));
  for (const char *p = m; *p; p++) FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f);
  free(m);
  m = run(gb_esc_log, s);
  check_log(m, s);
  free(m);
  m = run(gb_esc_markdown_code, s);
  FUZZ_ASSERT(!strstr(m, "::") && !strpbrk(m, "\n\r`"));
  free(m);
  char *h = run(gb_esc_html, s);
  FUZZ_ASSERT(!strpbrk(h, "<>\"'"));
  for (const char *p = h; *p; p++) {
    FUZZ_ASSERT((unsigned char)*p >= 0x20 || *p == '\t');
    if (*p == '&') FUZZ_ASSERT(entity_at(p));
  }
  free(h);
  char *x = run(gb_esc_xml, s);
  FUZZ_ASSERT(!strpbrk(x, "<>\"'"));
  for (const char *p = x; *p; p++) {
    FUZZ_ASSERT((unsigned char)*p >= 0x20);
    if (*p == '&') FUZZ_ASSERT(entity_at(p));
  }
  FUZZ_ASSERT(!strstr(x, "\xEF\xBF\xBE") && !strstr(x, "\xEF\xBF\xBF"));
  free(x);
  char *j = run(gb_esc_utf8, s); /* valid UTF-8, for the JSON library */
  size_t bad_at;
  FUZZ_ASSERT(gb_utf8_valid(j, strlen(j), &bad_at));
  free(j);
  char *g = run(gb_esc_gnuplot, s);
  FUZZ_ASSERT(!strpbrk(g, "\n\r"));
  for (const char *p = g; (p = strchr(p, '\'')); p += 2) FUZZ_ASSERT(p[1] == '\'');
  free(g);
  g = run(gb_esc_gnuplot_data, s);
  FUZZ_ASSERT(!strchr(g, '"') && !strstr(g, "\xE2\x80\xAE"));
  for (const char *p = g; *p; p++) FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7F);
  free(g);
  /* CSV: two columns (a one-column row holding "" would be a blank line) */
  gb_buf b = {0};
  FUZZ_ASSERT(gb_buf_puts(&b, "a,b\n") == GB_OK);
  FUZZ_ASSERT(gb_esc_csv(&b, s, 0) == GB_OK && gb_esc_csv(&b, "x", ',') == GB_OK);
  FUZZ_ASSERT(gb_buf_append(&b, "\n", 1) == GB_OK);
  FUZZ_ASSERT(b.data[4] != '=' && b.data[4] != '@');
  /* only a plain number starts with '+' or '-' */
  if (b.data[4] == '-' || b.data[4] == '+') FUZZ_ASSERT(!gb_csv_formula_risk(s));
  gb_csv_table t;
  size_t bad;
  if (gb_csv_read_mem("f.csv", b.data, b.len, &t) == GB_OK) {
    if (gb_utf8_valid(s, strlen(s), &bad)) FUZZ_ASSERT(t.nrows == 1 && strcmp(gb_csv_cell(&t, 0, 0), s) == 0);
    gb_csv_free(&t);
  } else {
    /* only a field the reader refuses by design: over its size limit */
    FUZZ_ASSERT(strlen(s) > GB_CSV_MAX_FIELD);
  }
  gb_buf_free(&b);
  free(s);
  return 0;
}
