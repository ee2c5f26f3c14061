/* gb_doc: the Markdown and HTML twins of a report. */
#include "gb_doc.h"

#include "gb_escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"

static const char k_css[] =
    "body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;"
    "margin:2em auto;padding:0 1em;color:#222;line-height:1.45;overflow-wrap:break-word}"
    "table{border-collapse:collapse;margin:1em 0;font-size:0.9em;display:block;max-width:100%;overflow-x:auto}"
    "th,td{border:1px solid #ccc;padding:0.25em 0.6em;vertical-align:top}"
    "th{background:#f2f2f2}td.r{text-align:right;font-variant-numeric:tabular-nums}"
    "p.note{background:#fff8e1;border-left:4px solid #f0b400;padding:0.5em 0.8em}"
    "figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}"
    "figcaption{font-size:0.9em;color:#555}code{font-size:0.9em}";

/* Result-derived text (core/gb_escape.h): HTML text; markdown in a table
 * cell or heading (one line) or in a paragraph (line ends kept). */
static gb_err put_html(gb_buf *b, const char *s) { return gb_esc_html(b, s ? s : ""); }

static gb_err put_md(gb_buf *b, const char *s, int in_table) {
  return in_table ? gb_esc_markdown(b, s ? s : "") : gb_esc_markdown_text(b, s ? s : "");
}

gb_err gb_doc_begin(gb_doc *d, const char *title) {
  memset(d, 0, sizeof *d);
  gb_err e = gb_buf_puts(&d->md, "# ");
  if (!e) e = put_md(&d->md, title, 1);
  if (!e) e = gb_buf_puts(&d->md, "\n\n");
  if (!e) e = gb_buf_puts(&d->html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
                                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n<title>");
  if (!e) e = put_html(&d->html, title);
  if (!e) e = gb_buf_printf(&d->html, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", k_css);
  if (!e) e = put_html(&d->html, title);
  if (!e) e = gb_buf_puts(&d->html, "</h1>\n");
  return e;
}

gb_err gb_doc_heading(gb_doc *d, int level, const char *text) {
  if (level < 2) level = 2;
  if (level > 4) level = 4;
  gb_err e = gb_buf_printf(&d->md, "%.*s ", level, "####");
  if (!e) e = put_md(&d->md, text, 1);
  if (!e) e = gb_buf_puts(&d->md, "\n\n");
  if (!e) e = gb_buf_printf(&d->html, "<h%d>", level);
  if (!e) e = put_html(&d->html, text);
  if (!e) e = gb_buf_printf(&d->html, "</h%d>\n", level);
  return e;
}

static gb_err para(gb_doc *d, const char *text, int note) {
  gb_err e = gb_buf_puts(&d->md, note ? "> **Note:** " : "");
  if (!e) e = put_md(&d->md, text, note);
  if (!e) e = gb_buf_puts(&d->md, "\n\n");
  if (!e) e = gb_buf_puts(&d->html, note ? "<p class=\"note\">" : "<p>");
  if (!e) e = put_html(&d->html, text);
  if (!e) e = gb_buf_puts(&d->html, "</p>\n");
  return e;
}

gb_err gb_doc_para(gb_doc *d, const char *text) { return para(d, text, 0); }
gb_err gb_doc_note(gb_doc *d, const char *text) { return para(d, text, 1); }

gb_err gb_doc_table_begin(gb_doc *d, size_t ncols, const char *const *header, const char *align) {
  d->table_cols = ncols;
  d->table_align = align && strlen(align) >= ncols ? align : NULL;
  gb_err e = gb_buf_puts(&d->html, "<table>\n<thead><tr>");
  for (size_t c = 0; c < ncols && !e; c++) {
    e = gb_buf_puts(&d->md, "| ");
    if (!e) e = put_md(&d->md, header[c], 1);
    if (!e) e = gb_buf_puts(&d->md, " ");
    if (!e) e = gb_buf_puts(&d->html, "<th>");
    if (!e) e = put_html(&d->html, header[c]);
    if (!e) e = gb_buf_puts(&d->html, "</th>");
  }
  if (!e) e = gb_buf_puts(&d->md, "|\n");
  for (size_t c = 0; c < ncols && !e; c++)
    e = gb_buf_puts(&d->md, align && align[c] == 'r' ? "| ---: " : "| --- ");
  if (!e) e = gb_buf_puts(&d->md, "|\n");
  if (!e) e = gb_buf_puts(&d->html, "</tr></thead>\n<tbody>\n");
  return e;
}

gb_err gb_doc_table_row(gb_doc *d, const char *const *cells) {
  gb_err e = gb_buf_puts(&d->html, "<tr>");
  for (size_t c = 0; c < d->table_cols && !e; c++) {
    const char *v = cells[c] ? cells[c] : "";
    e = gb_buf_puts(&d->md, "| ");
    if (!e) e = put_md(&d->md, v, 1);
    if (!e) e = gb_buf_puts(&d->md, " ");
    /* numbers right-aligned: a cell that starts with a digit, sign or dot */
    int num = (v[0] >= '0' && v[0] <= '9') || ((v[0] == '-' || v[0] == '.') && v[1] >= '0' && v[1] <= '9');
    if (d->table_align) num = d->table_align[c] == 'r';
    if (!e) e = gb_buf_puts(&d->html, num ? "<td class=\"r\">" : "<td>");
    if (!e) e = put_html(&d->html, v);
    if (!e) e = gb_buf_puts(&d->html, "</td>");
  }
  if (!e) e = gb_buf_puts(&d->md, "|\n");
  if (!e) e = gb_buf_puts(&d->html, "</tr>\n");
  return e;
}

gb_err gb_doc_table_end(gb_doc *d) {
  d->table_cols = 0;
  d->table_align = NULL;
  gb_err e = gb_buf_puts(&d->md, "\n");
  if (!e) e = gb_buf_puts(&d->html, "</tbody>\n</table>\n");
  return e;
}

/* Appends the SVG text from its <svg element on, with every id and local
 * reference prefixed by "stem-": id='x' -> id='stem-x', href='#x' ->
 * href='#stem-x', url(#x) -> url(#stem-x). */
static gb_err put_svg_inline(gb_buf *b, const char *svg, const char *stem) {
  const char *p = strstr(svg, "<svg");
  if (!p) return gb_fail(GB_E_IO, "%s.svg: no <svg> element", stem);
  static const char *const pats[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#"};
  gb_err e = GB_OK;
  while (*p && !e) {
    size_t best = (size_t)-1, which = 0;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
      const char *q = strstr(p, pats[i]);
      if (q && (size_t)(q - p) < best) {
        best = (size_t)(q - p);
        which = i;
      }
    }
    if (best == (size_t)-1) return gb_buf_puts(b, p);
    size_t plen = strlen(pats[which]);
    /* only a whole attribute name: the char before "id=" must not be a name char */
    e = gb_buf_append(b, p, best + plen);
    bool attr = which >= 4 || best == 0 || p[best - 1] == ' ' || p[best - 1] == '\t' || p[best - 1] == '\n' ||
                p[best - 1] == ':';
    if (!e && attr) e = gb_buf_printf(b, "%s-", stem);
    p += best + plen;
  }
  return e;
}

gb_err gb_doc_figure(gb_doc *d, const char *dir, const char *stem, const char *caption) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.svg", dir, stem);
  FILE *f = fopen(path, "rb");
  if (!f) return gb_fail(GB_E_IO, "%s: cannot read the rendered plot", path);
  gb_buf svg = {0};
  char chunk[8192];
  size_t n;
  gb_err e = GB_OK;
  while (!e && (n = fread(chunk, 1, sizeof chunk, f)) > 0) e = gb_buf_append(&svg, chunk, n);
  fclose(f);
  if (!e) e = gb_buf_append(&svg, "", 1); /* NUL */
  if (!e) e = gb_buf_puts(&d->md, "![");
  if (!e) e = put_md(&d->md, caption, 1);
  if (!e) e = gb_buf_printf(&d->md, "](%s.png)\n\n*", stem);
  if (!e) e = put_md(&d->md, caption, 1);
  if (!e)
    e = gb_buf_printf(&d->md, "* ([SVG](%s.svg), data [%s.dat](%s.dat), script [%s.gp](%s.gp))\n\n", stem, stem,
                      stem, stem, stem);
  if (!e) e = gb_buf_printf(&d->html, "<figure id=\"fig-%s\">\n", stem);
  if (!e) e = put_svg_inline(&d->html, svg.data, stem);
  if (!e) e = gb_buf_puts(&d->html, "\n<figcaption>");
  if (!e) e = put_html(&d->html, caption);
  if (!e)
    e = gb_buf_printf(&d->html,
                      " (<a href=\"%s.png\">PNG</a>, <a href=\"%s.dat\">data</a>, <a href=\"%s.gp\">gnuplot "
                      "script</a>)</figcaption>\n</figure>\n",
                      stem, stem, stem);
  gb_buf_free(&svg);
  return e;
}

gb_err gb_doc_end(gb_doc *d) { return gb_buf_puts(&d->html, "</body>\n</html>\n"); }

void gb_doc_free(gb_doc *d) {
  gb_buf_free(&d->md);
  gb_buf_free(&d->html);
}
