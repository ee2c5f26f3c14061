/* gb_doc: one report written twice at once, as Markdown (report.md) and as
 * one self-contained HTML file (report.html, XHTML-style so it also parses
 * as XML, plots inlined as SVG). Text passed in is plain text: it is escaped
 * for each format here. */
#ifndef GB_DOC_H
#define GB_DOC_H

#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

typedef struct gb_doc {
  gb_buf md;
  gb_buf html;
  size_t table_cols; /* columns of the table being written, 0 outside one */
  const char *table_align; /* the open table's alignment (borrowed), or NULL */
} gb_doc;

/* Starts both documents with a title. */
gb_err gb_doc_begin(gb_doc *d, const char *title);

/* A heading of level 2 or 3 (level 1 is the title). */
gb_err gb_doc_heading(gb_doc *d, int level, const char *text);

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

/* Closes both documents. */
gb_err gb_doc_end(gb_doc *d);

void gb_doc_free(gb_doc *d);

#endif
