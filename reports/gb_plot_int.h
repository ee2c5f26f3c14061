/* gb_plot_int: what the plot kinds share (not a public API). gb_plot.c runs
 * gnuplot; gb_plot_gp.c writes the pieces of data files and scripts every
 * kind needs; gb_plot_lines.c and gb_plot_bars.c write one kind each. */
#ifndef GB_PLOT_INT_H
#define GB_PLOT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_csv.h"
#include "gb_plot.h"

/* Legends of up to this many entries go below the plot, where they take no
 * width from it; longer ones to its right, in columns. */
#define GB_PLOT_KEY_BELOW_MAX 8
#define GB_PLOT_COLOURS 8 /* gnuplot's default line colours */

/* A stem is a plain file name: letters, digits, '_', '-', '.', not leading '.'. */
bool gbp_stem_ok(const char *stem);
/* GB_E_INPUT unless p names a plain stem. */
gb_err gbp_check_spec(const gb_plot_spec *p);

/* Appends s as a gnuplot single-quoted string. */
gb_err gbp_put_gp_string(gb_buf *b, const char *s);
/* A tic label (a '%' doubled: gnuplot reads tic labels as formats). */
gb_err gbp_put_gp_tic(gb_buf *b, const char *s);
/* A double-quoted string column of a data file. */
gb_err gbp_put_dat_string(gb_buf *b, const char *s);
/* A number in the C locale, shortest round-trip form. */
gb_err gbp_put_num(gb_buf *b, double v);
/* C-locale printf into the buffer (a line of at most 1 KiB). */
gb_err gbp_put_c(gb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes dir/stem.ext atomically. */
gb_err gbp_write_file(const char *dir, const char *stem, const char *ext, const gb_buf *b);

/* A finite point, positive on a log axis. */
bool gbp_point_ok(const gb_plot_spec *p, double x, double y);
/* The first plottable point of any series (anchors the marker points). */
bool gbp_first_point(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, double *x, double *y);
bool gbp_series_has_bar(const gb_plot_series *s, size_t ncat);
bool gbp_series_has_label(const gb_plot_spec *p, const gb_plot_series *s);
bool gbp_series_has_data(const gb_plot_spec *p, const gb_plot_series *s, bool bars, size_t ncat);
/* gnuplot's alignment and offset of a point label's side. */
const char *gbp_label_placement(gb_plot_label_side side);
/* The longest legend entry (ref_title too when not NULL), in characters. */
size_t gbp_longest_title(const gb_plot_series *s, size_t ns, const char *ref_title);
/* The series with something to draw (malloc'd) and each one's colour. */
gb_err gbp_keep_series(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, bool bars, size_t ncat,
                       gb_plot_series **kept, size_t **colour, size_t *nkept);

/* The head of every script (terminal, titles, axes, key, markers): nkey
 * legend entries, the longest of longest characters, x tic labels taking
 * tick_rows lines, [xmin, xmax] the x values drawn (NaN: not known). */
gb_err gbp_put_head(gb_buf *g, const gb_plot_spec *p, size_t nkey, size_t longest, double tick_rows, double xmin,
                    double xmax);
/* The tail: the same plot again on the SVG terminal. */
gb_err gbp_put_tail(gb_buf *g, const gb_plot_spec *p);

#endif
