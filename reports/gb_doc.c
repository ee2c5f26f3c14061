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
    "figcaption{font-size:0.9em;color:#555}code{font-size:0.9em}"
    "section.summary{border:2px solid #4a7;border-radius:6px;padding:0.2em 1em 0.6em;background:#f6fbf7}"
    "section.summary.warn{border-color:#d90;background:#fffaf0}section.summary.bad{border-color:#c33;background:#fff5f5}"
    "section.summary h2{margin-top:0.5em}nav.toc ul{margin:0.2em 0;padding-left:1.4em}nav.toc li{margin:0.1em 0}"
    "details{margin:0.6em 0}summary{cursor:pointer;font-weight:600}"
    /* paper: A4 or Letter, tables whole (wrapped, not scrolled), rows and
     * figures not split across pages, folded details shown */
    "@page{size:auto;margin:15mm 12mm}"
    "@media print{body{max-width:none;margin:0;padding:0;font-size:10pt}"
    "table{display:table;width:100%;table-layout:fixed;font-size:7.5pt;overflow:visible}"
    "th,td{overflow-wrap:anywhere;word-break:break-word;padding:0.15em 0.3em}"
    "tr,figure,section.summary{break-inside:avoid}h2,h3{break-after:avoid}"
    "figure svg{max-height:120mm;width:100%}a{color:inherit;text-decoration:none}"
    "details::details-content{content-visibility:visible;display:block}}";

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
  if (!e)
    e = gb_buf_printf(&d->html, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", k_css);
  if (!e) e = put_html(&d->html, title);
  if (!e) e = gb_buf_puts(&d->html, "</h1>\n");
  return e;
}

void gb_doc_slug(char *buf, size_t n, const char *text) {
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p && k + 1 < n; p++) {
    unsigned char c = *p;
    if (c >= 'A' && c <= 'Z') buf[k++] = (char)(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') buf[k++] = (char)c;
    else if (c == ' ') buf[k++] = '-';
    else if (c >= 0x80) buf[k++] = (char)c; /* letters of other scripts stay, as GitHub keeps them */
  }
  buf[k] = '\0';
}

/* Records a heading with its unique id (GitHub's numbering of repeats). */
static gb_err add_head(gb_doc *d, int level, const char *text, const char **id) {
  if (d->nheads == d->cap_heads) {
    size_t cap = d->cap_heads ? d->cap_heads * 2 : 32;
    gb_doc_head *v = realloc(d->heads, cap * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
    d->heads = v;
    d->cap_heads = cap;
  }
  gb_doc_head *h = &d->heads[d->nheads];
  h->level = level;
  snprintf(h->text, sizeof h->text, "%s", text);
  char base[80];
  gb_doc_slug(base, sizeof base, text);
  size_t same = 0;
  for (size_t i = 0; i < d->nheads; i++) {
    char b[80];
    gb_doc_slug(b, sizeof b, d->heads[i].text);
    same += strcmp(b, base) == 0;
  }
  if (same) snprintf(h->id, sizeof h->id, "%.70s-%zu", base, same);
  else snprintf(h->id, sizeof h->id, "%s", base);
  d->nheads++;
  *id = h->id;
  return GB_OK;
}

gb_err gb_doc_heading(gb_doc *d, int level, const char *text) {
  if (level < 2) level = 2;
  if (level > 4) level = 4;
  const char *id = "";
  gb_err e = add_head(d, level, text, &id);
  if (!e) e = gb_buf_printf(&d->md, "%.*s ", level, "####");
  if (!e) e = put_md(&d->md, text, 1);
  if (!e) e = gb_buf_puts(&d->md, "\n\n");
  if (!e) e = gb_buf_printf(&d->html, "<h%d id=\"%s\">", level, id);
  if (!e) e = put_html(&d->html, text);
  if (!e) e = gb_buf_printf(&d->html, "</h%d>\n", level);
  return e;
}

gb_err gb_doc_bullets(gb_doc *d, const char *const *items, size_t n) {
  gb_err e = gb_buf_puts(&d->html, "<ul>\n");
  for (size_t i = 0; i < n && !e; i++) {
    e = gb_buf_puts(&d->md, "- ");
    if (!e) e = put_md(&d->md, items[i], 1);
    if (!e) e = gb_buf_puts(&d->md, "\n");
    if (!e) e = gb_buf_puts(&d->html, "<li>");
    if (!e) e = put_html(&d->html, items[i]);
    if (!e) e = gb_buf_puts(&d->html, "</li>\n");
  }
  if (!e) e = gb_buf_puts(&d->md, "\n");
  if (!e) e = gb_buf_puts(&d->html, "</ul>\n");
  return e;
}

gb_err gb_doc_box_begin(gb_doc *d, const char *cls) {
  gb_err e = gb_buf_puts(&d->html, "<section class=\"");
  if (!e) e = put_html(&d->html, cls);
  if (!e) e = gb_buf_puts(&d->html, "\">\n");
  return e;
}

gb_err gb_doc_box_end(gb_doc *d) { return gb_buf_puts(&d->html, "</section>\n"); }

gb_err gb_doc_fold_begin(gb_doc *d, const char *summary) {
  gb_err e = gb_buf_puts(&d->md, "**");
  if (!e) e = put_md(&d->md, summary, 1);
  if (!e) e = gb_buf_puts(&d->md, "**\n\n");
  if (!e) e = gb_buf_puts(&d->html, "<details>\n<summary>");
  if (!e) e = put_html(&d->html, summary);
  if (!e) e = gb_buf_puts(&d->html, "</summary>\n");
  return e;
}

gb_err gb_doc_fold_end(gb_doc *d) {
  d->md_mute = false;
  return gb_buf_puts(&d->html, "</details>\n");
}

void gb_doc_mark_front(gb_doc *d) {
  d->front_md = d->md.len;
  d->front_html = d->html.len;
  d->front_marked = true;
}

gb_err gb_doc_toc(const gb_doc *d, gb_doc *out) {
  gb_err e = gb_buf_puts(&out->html, "<nav class=\"toc\">\n<ul>\n");
  bool top_open = false, sub_open = false; /* an <li> of level 2 open; its <ul> of level 3 open */
  for (size_t i = 0; i < d->nheads && !e; i++) {
    const gb_doc_head *h = &d->heads[i];
    if (h->level > 3 || (h->level == 3 && !top_open)) continue;
    bool sub = h->level == 3;
    e = gb_buf_puts(&out->md, sub ? "  - [" : "- [");
    if (!e) e = put_md(&out->md, h->text, 1);
    if (!e) e = gb_buf_printf(&out->md, "](#%s)\n", h->id);
    if (!e && sub) e = gb_buf_puts(&out->html, sub_open ? "</li>\n" : "\n<ul>\n");
    if (!e && !sub) e = gb_buf_puts(&out->html, sub_open ? "</li></ul></li>\n" : top_open ? "</li>\n" : "");
    sub_open = sub;
    top_open = true;
    if (!e) e = gb_buf_printf(&out->html, "<li><a href=\"#%s\">", h->id);
    if (!e) e = put_html(&out->html, h->text);
    if (!e) e = gb_buf_puts(&out->html, "</a>");
  }
  if (!e) e = gb_buf_puts(&out->html, sub_open ? "</li></ul></li>\n" : top_open ? "</li>\n" : "");
  if (!e) e = gb_buf_puts(&out->md, "\n");
  if (!e) e = gb_buf_puts(&out->html, "</ul>\n</nav>\n");
  return e;
}

/* b with text inserted at byte at. */
static gb_err buf_insert(gb_buf *b, size_t at, const gb_buf *text) {
  if (!text->len) return GB_OK;
  size_t tail = b->len - at;
  gb_err e = gb_buf_append(b, text->data, text->len); /* grows b; the bytes are moved next */
  if (e) return e;
  memmove(b->data + at + text->len, b->data + at, tail);
  memcpy(b->data + at, text->data, text->len);
  return GB_OK;
}

gb_err gb_doc_insert_front(gb_doc *d, gb_doc *front) {
  size_t at_md = d->front_marked ? d->front_md : 0, at_html = d->front_marked ? d->front_html : 0;
  gb_err e = buf_insert(&d->md, at_md, &front->md);
  if (!e) e = buf_insert(&d->html, at_html, &front->html);
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

/* Whether the HTML is past its bound (gb_doc.html_max). */
static bool html_full(const gb_doc *d) { return d->html_max && d->html.len > d->html_max; }

gb_err gb_doc_table_row(gb_doc *d, const char *const *cells) {
  /* muted: the Markdown rows go to a scratch buffer that is dropped; so do
   * the HTML's past its bound */
  gb_buf scratch = {0}, hscratch = {0}, *md = d->md_mute ? &scratch : &d->md;
  gb_buf *html = html_full(d) ? &hscratch : &d->html;
  d->html_rows_out += html == &hscratch;
  gb_err e = gb_buf_puts(html, "<tr>");
  for (size_t c = 0; c < d->table_cols && !e; c++) {
    const char *v = cells[c] ? cells[c] : "";
    e = gb_buf_puts(md, "| ");
    if (!e) e = put_md(md, v, 1);
    if (!e) e = gb_buf_puts(md, " ");
    /* numbers right-aligned: a cell that starts with a digit, sign or dot */
    int num = (v[0] >= '0' && v[0] <= '9') || ((v[0] == '-' || v[0] == '.') && v[1] >= '0' && v[1] <= '9');
    if (d->table_align) num = d->table_align[c] == 'r';
    if (!e) e = gb_buf_puts(html, num ? "<td class=\"r\">" : "<td>");
    if (!e) e = put_html(html, v);
    if (!e) e = gb_buf_puts(html, "</td>");
  }
  if (!e) e = gb_buf_puts(md, "|\n");
  if (!e) e = gb_buf_puts(html, "</tr>\n");
  gb_buf_free(&scratch);
  gb_buf_free(&hscratch);
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
 * reference prefixed by "prefix-" (unique per figure, short: gnuplot refers
 * to its point shapes by id at every point): id='x' -> id='p3-x', href='#x'
 * -> href='#p3-x', url(#x) -> url(#p3-x). */
static gb_err put_svg_inline(gb_buf *b, const char *svg, const char *stem, const char *prefix) {
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
    if (!e && attr) e = gb_buf_printf(b, "%s-", prefix);
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
  char prefix[32];
  snprintf(prefix, sizeof prefix, "p%zu", ++d->nfigs);
  if (!e && html_full(d)) { /* past the bound: a link, not the drawing */
    d->html_figs_out++;
    e = gb_buf_printf(&d->html, "<p><a href=\"%s.svg\">the plot (SVG)</a>, not inlined: the page is at its bound</p>",
                      stem);
  } else if (!e) {
    e = put_svg_inline(&d->html, svg.data, stem, prefix);
  }
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

/* What md[from..] holds: level-2/3 headings (the first few named into
 * names), table rows (a table's lines but its header and rule), figures. */
static void left_out(const char *md, size_t from, size_t len, size_t cnt[3], char *names, size_t n) {
  size_t used = 0;
  names[0] = '\0';
  for (size_t i = from; i < len;) {
    const char *l = md + i;
    size_t k = strcspn(l, "\n");
    if (strncmp(l, "## ", 3) == 0 || strncmp(l, "### ", 4) == 0) {
      cnt[0]++;
      size_t h = strspn(l, "#") + 1;
      if (used + 8 < n) {
        int w = snprintf(names + used, n - used, "%s%.*s", used ? "; " : "", (int)(k - h), l + h);
        used = w < 0 ? used : used + (size_t)w < n ? used + (size_t)w : n - 1;
      }
    } else if (strncmp(l, "| --", 4) == 0 || strncmp(l, "| :-", 4) == 0) {
      cnt[1] -= cnt[1] ? 1 : 0; /* the line before the rule was the header */
    } else if (l[0] == '|') {
      cnt[1]++;
    } else if (strncmp(l, "![", 2) == 0) {
      cnt[2]++;
    }
    i += k + (i + k < len);
  }
  if (used >= n - 1 && n > 4) memcpy(names + n - 4, "...", 4);
}

gb_err gb_doc_bound_md(gb_doc *d, size_t max) {
  if (d->md.len <= max) return GB_OK;
  enum { NOTE = 1536 }; /* room for the note */
  size_t room = max > 2 * NOTE ? max - NOTE : max / 2, cut = 0;
  for (size_t i = room; i > 0 && !cut; i--) /* a block's end within the last 8 KiB, else a line's */
    if (d->md.data[i - 1] == '\n' && (i >= 2 && d->md.data[i - 2] == '\n')) cut = i;
  if (!cut || room - cut > 8192)
    for (cut = room; cut > 0 && d->md.data[cut - 1] != '\n'; cut--) {}
  size_t cnt[3] = {0, 0, 0};
  char names[600];
  left_out(d->md.data, cut, d->md.len, cnt, names, sizeof names);
  size_t dropped = d->md.len - cut;
  d->md.len = cut;
  d->md.data[cut] = '\0';
  gb_buf note = {0};
  gb_err e = gb_buf_printf(&note,
                           "report.md stops here, at its bound of %zu KiB; report.html holds everything. Left out: "
                           "%zu bytes, %zu section(s)%s",
                           max / 1024, dropped, cnt[0], cnt[0] ? " (" : "");
  if (!e && cnt[0]) e = gb_buf_printf(&note, "%s)", names);
  if (!e) e = gb_buf_printf(&note, ", %zu table row(s), %zu figure(s).", cnt[1], cnt[2]);
  if (!e) e = gb_buf_puts(&d->md, d->md.len && d->md.data[d->md.len - 1] != '\n' ? "\n\n" : "\n");
  if (!e) e = gb_buf_puts(&d->md, "> **Note:** ");
  if (!e) e = put_md(&d->md, note.data, 1);
  if (!e) e = gb_buf_puts(&d->md, "\n");
  gb_buf_free(&note);
  if (!e && d->md.len > max) d->md.len = max, d->md.data[max] = '\0'; /* a huge note: never over */
  return e;
}

gb_err gb_doc_end(gb_doc *d) {
  gb_err e = GB_OK;
  if (d->html_rows_out || d->html_figs_out)
    e = gb_buf_printf(&d->html,
                      "<p class=\"note\"><strong>Note:</strong> report.html reached its bound of %zu MiB: %zu table "
                      "row(s) after it are left out (the results files hold them) and %zu plot(s) are linked "
                      "instead of drawn here.</p>\n",
                      d->html_max >> 20, d->html_rows_out, d->html_figs_out);
  return e ? e : gb_buf_puts(&d->html, "</body>\n</html>\n");
}

void gb_doc_free(gb_doc *d) {
  gb_buf_free(&d->md);
  gb_buf_free(&d->html);
  free(d->heads);
  d->heads = NULL;
  d->nheads = d->cap_heads = 0;
}
