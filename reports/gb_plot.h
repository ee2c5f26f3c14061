/* gb_plot: plots rendered by gnuplot, run as a subprocess.
 *
 * Each plot is three files in one directory, named after its stem:
 *   stem.dat  the data, one gnuplot block per series, numbers in the C locale;
 *   stem.gp   the script, which reads stem.dat and writes stem.png (pngcairo)
 *             and stem.svg (svg), text in noenhanced mode;
 *   stem.png, stem.svg  rendered by running `gnuplot stem.gp` in that directory.
 * The .dat and .gp stay next to the pictures, so a user can edit and re-run
 * `gnuplot stem.gp` there. gnuplot is started with posix_spawnp and an argument
 * vector (never a shell); its stderr becomes the error message on failure.
 * The program run is "gnuplot", or $GPUBENCH_GNUPLOT when that is set (set it
 * to a path that does not exist to act as if gnuplot were not installed). */
#ifndef GB_PLOT_H
#define GB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"

/* How a series is drawn by gb_plot_lines. */
typedef enum gb_plot_style {
  GB_PLOT_LINESPOINTS = 0, /* lines through the points, points marked */
  GB_PLOT_LINES,           /* lines only */
  GB_PLOT_POINTS,          /* points only (a scatter) */
  GB_PLOT_SPANS            /* each point's error bar alone (lo to hi, xlo to xhi), no marker: a
                            * band per point, such as a threshold */
} gb_plot_style;

/* Where a point's label goes, beside its point. */
typedef enum gb_plot_label_side {
  GB_PLOT_LABEL_RIGHT_ABOVE = 0, /* starts right of the point, a little above it (the default) */
  GB_PLOT_LABEL_LEFT_BELOW,      /* ends left of the point, below it */
  GB_PLOT_LABEL_LEFT_ABOVE,      /* ends left of the point, above it */
  GB_PLOT_LABEL_RIGHT_BELOW      /* starts right of the point, below it */
} gb_plot_label_side;

/* One data series. x and y hold n values each (borrowed); a point with a NaN
 * coordinate, or a non-positive one on a log axis, is left out and breaks
 * the line there. A series with nothing to draw (no plottable point; for
 * bars, no finite bar) is left out of the plot and its legend, and takes no
 * bar slot; each series drawn keeps its colour (by default that of its
 * position in the array given, so a source has the same colour in every
 * plot). For gb_plot_bars, x is unused and y[j] is the bar of category j;
 * ref[j] (optional, NaN = none) is a reference value drawn as a black tick
 * across that bar (a datasheet peak). labels (optional) puts labels[i] as
 * text next to point i (NULL or "" entries are skipped). */
typedef struct gb_plot_series {
  const char *title;          /* legend entry; lines: NULL or "" for none */
  size_t n;
  const double *x;
  const double *y;
  gb_plot_style style;
  bool emphasis;              /* drawn thicker, e.g. a Pareto frontier */
  bool dashed;                /* lines and points: a dashed line, open circles */
  int colour;                 /* 1, 2, ...; 0: the series' position + 1. gnuplot has 8 line colours:
                               * 9 and up reuse them, dashed */
  const double *ref;          /* bars only */
  const char *const *labels;  /* optional point labels */
  gb_plot_label_side label_side; /* where labels go (default: starting right of and above their point) */
  /* lines only, optional: each point's spread (e.g. lowest and highest
   * repetition), drawn as an error bar from lo[j] to hi[j]; a NaN end (or a
   * non-positive one on a log axis) is taken as the point's y */
  const double *lo, *hi;
  /* lines only, optional: each point's spread in x, drawn as a horizontal
   * error bar from xlo[j] to xhi[j] (the same rules for a missing end) */
  const double *xlo, *xhi;
} gb_plot_series;

/* A reference line across the plot with a label: axis 'x' draws a vertical
 * line at x = at (label along it, at the top), axis 'y' a horizontal one at
 * y = at (label above it, at the right end, or at the left end where a
 * labelled x marker stands in the right half; NULL or "": no label). The axis
 * range is extended to show it. */
typedef struct gb_plot_marker {
  char axis;
  double at;
  const char *label;
} gb_plot_marker;

/* What a plot shows. stem names the files (letters, digits, '_', '-', '.'
 * only); title and axis labels carry units, e.g. "array size per array
 * (bytes)". ref_title is the legend entry of the bars' reference ticks. */
typedef struct gb_plot_spec {
  const char *stem;
  const char *title;
  const char *xlabel;
  const char *ylabel;
  bool logx, logy;
  bool x_bytes; /* x is a byte count: ticks read 4 KiB, 64 MiB, 1 GiB */
  const gb_plot_marker *markers;
  size_t nmarkers;
  const char *ref_title;
  int width_px, height_px; /* 0: 1000 x 600 */
  /* lines only: names for y = 1, 2, ... nylabels on the y axis in place of
   * numbers (a chart of horizontal bars, such as a tornado); the x range is
   * padded so that labels at the bars' ends stay inside the frame */
  const char *const *ylabels;
  size_t nylabels;
  /* lines only: when ymin < ymax, the y axis spans [ymin, ymax] and what
   * lies beyond is clipped at the frame (0, 0: chosen from the data) */
  double ymin, ymax;
} gb_plot_spec;

/* True when the gnuplot program (see above) can be started and answers
 * `gnuplot --version`. */
bool gb_gnuplot_available(void);

/* The gnuplot program that will be run: $GPUBENCH_GNUPLOT or "gnuplot". */
const char *gb_gnuplot_program(void);

/* Writes dir/stem.dat and dir/stem.gp for an x-y plot of ns series and
 * renders dir/stem.png and dir/stem.svg. dir must exist. Errors: GB_E_INPUT
 * when no series has a plottable point or the stem is not a plain name,
 * GB_E_IO when a file cannot be written, GB_E_UNSUPPORTED when gnuplot
 * cannot be started, GB_E_IO with gnuplot's stderr when it fails. On error
 * no .png or .svg is left behind (the .dat and .gp stay, to debug). */
gb_err gb_plot_lines(const char *dir, const gb_plot_spec *p, const gb_plot_series *s, size_t ns);

/* Grouped bars: ncat categories along x (names borrowed), one bar per
 * series in each group; s[i].n must equal ncat. Bars start at 0 on a linear
 * y axis. Same files and errors as gb_plot_lines. */
gb_err gb_plot_bars(const char *dir, const gb_plot_spec *p, const char *const *categories, size_t ncat,
                    const gb_plot_series *s, size_t ns);

/* Writes only dir/stem.dat and dir/stem.gp (no gnuplot run); used when
 * gnuplot is missing, so a user can render later. Same input errors. */
gb_err gb_plot_lines_script(const char *dir, const gb_plot_spec *p, const gb_plot_series *s, size_t ns);
gb_err gb_plot_bars_script(const char *dir, const gb_plot_spec *p, const char *const *categories, size_t ncat,
                           const gb_plot_series *s, size_t ns);

/* Renders dir/stem.gp: gnuplot writes into temporary files created
 * exclusively next to the pictures (mkstemp), which must come out whole (a
 * PNG ending in its IEND chunk, an SVG in </svg>: gnuplot ignores write
 * errors such as a full disk and still exits 0), are synced and renamed to
 * stem.png and stem.svg. On any error neither picture is left, not even one
 * from before, so a failed plot is never shown. The plots of one directory
 * share one gnuplot process (gb_plot_session_end ends it): its start costs
 * as much as a plot. While it runs, SIGINT, SIGTERM and SIGHUP kill and
 * reap it and remove the temporary pictures before the signal takes its
 * previous course (by default the process ends with the signal's status). */
gb_err gb_plot_render(const char *dir, const char *stem);

/* Ends the gnuplot session of gb_plot_render, if any (waits for it). Call
 * after the last plot; ending the process also ends it. */
void gb_plot_session_end(void);

#endif
