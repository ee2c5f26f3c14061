/* gb_doc: one report written twice at once, as Markdown (report.md) and as
 * one self-contained HTML file (report.html, XHTML-style so it also parses
 * as XML, plots inlined as SVG). Text passed in is plain text: it is escaped
 * for each format here. */
#ifndef GB_DOC_H
#define GB_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

/* A heading written, for the table of contents: its level, text and id
 * (GitHub's anchor for the Markdown heading, the same id in the HTML). */
typedef struct gb_doc_head {
  int level;
  char text[120];
  char id[96];
} gb_doc_head;

typedef struct gb_doc {
  gb_buf md;
  gb_buf html;
  size_t table_cols; /* columns of the table being written, 0 outside one */
  const char *table_align; /* the open table's alignment (borrowed), or NULL */
  bool md_mute;      /* table rows go to the HTML only (the rest of a capped Markdown list) */
  size_t nheads, cap_heads;
  gb_doc_head *heads; /* every heading of levels 2 and 3, in order */
  size_t front_md, front_html; /* where gb_doc_insert_front puts its text (gb_doc_mark_front) */
  bool front_marked;
  size_t nfigs; /* figures inlined: figure N's SVG ids start "pN-" */
  /* The HTML's bound (0: none): past html_max bytes, table rows are left
   * out of the HTML and figures linked instead of inlined, counted here and
   * said at its end (gb_doc_end). */
  size_t html_max, html_rows_out, html_figs_out;
} gb_doc;

/* Starts both documents with a title. */
gb_err gb_doc_begin(gb_doc *d, const char *title);

/* A heading of level 2 or 3 (level 1 is the title), with an id: the
 * anchor GitHub gives the Markdown heading (lower case, letters, digits,
 * '-' and '_' kept, spaces to '-', the rest dropped; "-1", "-2" on repeats),
 * so that one link "#id" works in both documents. */
gb_err gb_doc_heading(gb_doc *d, int level, const char *text);

/* That anchor of text (n >= 2), without the repeat suffix. */
void gb_doc_slug(char *buf, size_t n, const char *text);

/* A bulleted list of plain-text items. */
gb_err gb_doc_bullets(gb_doc *d, const char *const *items, size_t n);

/* A box around what follows (HTML <section class="cls">; nothing in
 * Markdown) until gb_doc_box_end. */
gb_err gb_doc_box_begin(gb_doc *d, const char *cls);
gb_err gb_doc_box_end(gb_doc *d);

/* Folded details: HTML <details> with summary as its <summary>; in
 * Markdown summary as a bold line and the content as written (cap long
 * tables with md_mute). */
gb_err gb_doc_fold_begin(gb_doc *d, const char *summary);
gb_err gb_doc_fold_end(gb_doc *d);

/* Marks the place (now) where front matter goes: the summary and the table
 * of contents are written last, when every figure is known, and put here. */
void gb_doc_mark_front(gb_doc *d);

/* Writes the table of contents of d's headings into out (a nested list of
 * links, HTML <nav class="toc">). */
gb_err gb_doc_toc(const gb_doc *d, gb_doc *out);

/* Inserts front's Markdown and HTML at d's mark (or after the title when
 * none was set); front's headings join d's, first. */
gb_err gb_doc_insert_front(gb_doc *d, gb_doc *front);

/* A paragraph of plain text. */
gb_err gb_doc_para(gb_doc *d, const char *text);

/* A paragraph marked as a note (a skipped plot, a missing tool). */
gb_err gb_doc_note(gb_doc *d, const char *text);

/* A table: begin with the header (ncols cells), add rows of ncols cells,
 * end. align, when not NULL, holds one 'l' or 'r' per column (borrowed until
 * the table ends); without it a cell that starts with a number is set right. */
gb_err gb_doc_table_begin(gb_doc *d, size_t ncols, const char *const *header, const char *align);
gb_err gb_doc_table_row(gb_doc *d, const char *const *cells);
gb_err gb_doc_table_end(gb_doc *d);

/* A figure: Markdown links dir-relative stem.png (shown) and stem.svg,
 * stem.dat, stem.gp; HTML inlines dir/stem.svg (its ids prefixed with the
 * stem so several plots can share one page). GB_E_IO when the SVG cannot
 * be read. */
gb_err gb_doc_figure(gb_doc *d, const char *dir, const char *stem, const char *caption);

/* The Markdown's bound (docs/reports.md): report.md is at most this many
 * bytes, whatever the inputs. */
#define GB_DOC_MD_MAX 65536

/* Bounds d's Markdown to max bytes: when it is longer, it is cut at a line
 * end (a block's end where one is near) and ends with a note of what was
 * left out (its sections by name, table rows, figures, bytes) and that
 * report.html holds it all. Nothing when it fits. */
gb_err gb_doc_bound_md(gb_doc *d, size_t max);

/* The HTML's bound of a report (html_max): about that, plus the text that
 * is neither a table row nor a figure. */
#define GB_DOC_HTML_MAX (8u << 20)

/* Closes both documents (the HTML with a note of what its bound left out). */
gb_err gb_doc_end(gb_doc *d);

void gb_doc_free(gb_doc *d);

#endif
