/* gb_svg: gnuplot's SVG made small (gb_svg.h). One pass over the text:
 * tags are rewritten as they are copied; an element that turns out empty
 * (a group, a text) or unwanted (title, desc) is cut from the output when
 * its end tag comes, back to where its start tag began. */
#include "gb_svg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_output.h"

#define SVG_DEPTH_MAX 256 /* deeper nesting is refused (gnuplot nests 3 or 4) */

/* Attributes dropped from every tag: SVG's defaults, and the font said once
 * on the <svg> element (gb_plot asks gnuplot for 'Sans,11'). */
static const char *const k_drop[] = {
    " stroke-linecap=\"butt\"",
    " stroke-linejoin=\"miter\"",
    " font-family=\"Sans\" font-size=\"11.00\"",
};
#define SVG_ROOT_FONT " font-family=\"Sans\" font-size=\"11\""

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The number at s[0..] (digits, '.', digits), rounded: to 0.1 from 10 up,
 * 0.01 below, trailing zeros and a bare point dropped. *used gets its
 * length in s; false when s holds no such number. */
static bool round_number(const char *s, size_t n, char *out, size_t cap, size_t *used) {
  size_t i = 0;
  while (i < n && is_digit(s[i])) i++;
  if (i == 0 || i + 1 >= n || s[i] != '.' || !is_digit(s[i + 1])) return false;
  size_t j = i + 1;
  while (j < n && is_digit(s[j])) j++;
  char num[64];
  if (j >= sizeof num) return false;
  memcpy(num, s, j);
  num[j] = '\0';
  double v = strtod(num, NULL);
  gb_snprintf_c(out, cap, v >= 10 ? "%.1f" : "%.2f", v);
  size_t l = strlen(out);
  while (l > 0 && out[l - 1] == '0') out[--l] = '\0';
  if (l > 0 && out[l - 1] == '.') out[--l] = '\0';
  *used = j;
  return true;
}

/* "rgb(R, G, B)" at s as "#rrggbb"; *used its length. */
static bool rgb_hex(const char *s, size_t n, char *out, size_t cap, size_t *used) {
  if (n < 10 || strncmp(s, "rgb(", 4) != 0) return false;
  unsigned c[3];
  int len = 0;
  char tmp[32];
  size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
  memcpy(tmp, s, k);
  tmp[k] = '\0';
  if (sscanf(tmp, "rgb(%u, %u, %u)%n", &c[0], &c[1], &c[2], &len) != 3 || len == 0) return false;
  if (c[0] > 255 || c[1] > 255 || c[2] > 255) return false;
  snprintf(out, cap, "#%02x%02x%02x", c[0], c[1], c[2]);
  *used = (size_t)len;
  return true;
}

/* Appends the tag t[0..n) (from '<' to '>') rewritten (see gb_svg.h). */
static gb_err put_tag(gb_buf *out, const char *t, size_t n) {
  bool raw = n > 1 && (t[1] == '?' || t[1] == '!');
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e;) {
    char rep[40];
    size_t used = 0;
    bool drop = false;
    for (size_t d = 0; d < sizeof k_drop / sizeof k_drop[0] && !raw; d++) {
      size_t l = strlen(k_drop[d]);
      if (n - i >= l && memcmp(t + i, k_drop[d], l) == 0) {
        i += l;
        drop = true;
        break;
      }
    }
    if (drop) continue;
    /* a number starts a token: not the tail of a name ("gpPt6") or colour */
    bool prev_num = i > 0 && (is_digit(t[i - 1]) || t[i - 1] == '.' || t[i - 1] == '#' || t[i - 1] == '_');
    if (!raw && !prev_num && round_number(t + i, n - i, rep, sizeof rep, &used)) {
      e = gb_buf_puts(out, rep);
      i += used;
    } else if (!raw && rgb_hex(t + i, n - i, rep, sizeof rep, &used)) {
      e = gb_buf_puts(out, rep);
      i += used;
    } else if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
      size_t j = i;
      while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) j++;
      /* one blank, none before the end of the tag */
      if (t[j] != '>' && !(t[j] == '/' && j + 1 < n && t[j + 1] == '>')) e = gb_buf_puts(out, " ");
      i = j;
    } else {
      e = gb_buf_append(out, t + i, 1);
      i++;
    }
  }
  return e;
}

/* The element name of tag t ("g", "/g", "text"), into name. */
static void tag_name(const char *t, size_t n, char *name, size_t cap) {
  size_t i = 1, k = 0;
  while (i < n && k + 1 < cap && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '>' &&
         !(t[i] == '/' && k > 0))
    name[k++] = t[i++];
  name[k] = '\0';
}

/* Elements cut from the output whatever they hold. */
static bool always_cut(const char *name) { return !strcmp(name, "title") || !strcmp(name, "desc"); }
/* Elements cut when they hold nothing but blanks. */
static bool cut_if_empty(const char *name) { return !strcmp(name, "g") || !strcmp(name, "text"); }

/* True when out[from..to) holds only blanks. */
static bool blank_since_until(const gb_buf *out, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (out->data[i] != ' ' && out->data[i] != '\n' && out->data[i] != '\t') return false;
  return true;
}

typedef struct svg_open {
  size_t at;   /* where its start tag begins in the output */
  size_t body; /* where its content begins */
  char name[16];
} svg_open;

/* Text between tags: blanks dropped (one line end kept), other text as it is. */
static gb_err put_text(gb_buf *out, const char *s, size_t n) {
  bool blank = true, nl = false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n') nl = true;
    else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') blank = false;
  }
  if (!blank) return gb_buf_append(out, s, n);
  return nl ? gb_buf_puts(out, "\n") : GB_OK;
}

gb_err gb_svg_slim(const char *svg, size_t n, gb_buf *out) {
  const char *root = NULL;
  for (size_t i = 0; i + 4 <= n && !root; i++)
    if (memcmp(svg + i, "<svg", 4) == 0) root = svg + i;
  if (!root) return gb_fail(GB_E_INPUT, "not an SVG: no <svg element");
  svg_open *stack = calloc(SVG_DEPTH_MAX, sizeof *stack);
  if (!stack) return gb_fail(GB_E_NOMEM, "out of memory");
  size_t depth = 0;
  bool root_done = false;
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e;) {
    if (svg[i] != '<') {
      size_t j = i;
      while (j < n && svg[j] != '<') j++;
      e = put_text(out, svg + i, j - i);
      i = j;
      continue;
    }
    const char *gt = memchr(svg + i, '>', n - i);
    if (!gt) {
      e = gb_fail(GB_E_INPUT, "SVG: a tag does not end (byte %zu)", i);
      break;
    }
    size_t tl = (size_t)(gt - (svg + i)) + 1;
    char name[16];
    tag_name(svg + i, tl, name, sizeof name);
    size_t at = out->len;
    e = put_tag(out, svg + i, tl);
    if (!e && !root_done && svg + i == root) { /* the font, once, on the root */
      root_done = true;
      out->len--; /* its '>' */
      e = gb_buf_puts(out, SVG_ROOT_FONT ">");
    }
    bool self_closing = tl >= 2 && svg[i + tl - 2] == '/';
    if (!e && name[0] == '/' && depth > 0 && !strcmp(stack[depth - 1].name, name + 1)) {
      depth--;
      if (always_cut(name + 1) || (cut_if_empty(name + 1) && blank_since_until(out, stack[depth].body, at)))
        out->len = stack[depth].at;
    } else if (!e && name[0] != '/' && name[0] != '?' && name[0] != '!' && !self_closing) {
      if (depth == SVG_DEPTH_MAX) {
        e = gb_fail(GB_E_INPUT, "SVG: elements nested over %d deep", SVG_DEPTH_MAX);
        break;
      }
      stack[depth].at = at;
      stack[depth].body = out->len;
      snprintf(stack[depth].name, sizeof stack[depth].name, "%s", name);
      depth++;
    }
    i += tl;
  }
  free(stack);
  return e;
}

gb_err gb_svg_slim_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return gb_fail(GB_E_IO, "%s: cannot read: %s", path, strerror(errno));
  gb_buf in = {0}, out = {0};
  char chunk[8192];
  size_t n;
  gb_err e = GB_OK;
  while (!e && (n = fread(chunk, 1, sizeof chunk, f)) > 0) e = gb_buf_append(&in, chunk, n);
  if (!e && ferror(f)) e = gb_fail(GB_E_IO, "%s: read failed", path);
  fclose(f);
  if (!e) e = gb_svg_slim(in.data ? in.data : "", in.len, &out);
  if (e == GB_E_INPUT) e = gb_fail(GB_E_INPUT, "%s: %s", path, gb_errmsg());
  if (!e) e = gb_write_file_atomic(path, out.data, out.len);
  gb_buf_free(&in);
  gb_buf_free(&out);
  return e;
}
