/* gb_plot_lines: x-y plots (gb_plot.h: gb_plot_lines). */
#include "gb_plot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"

/* The x extent drawn, markers included (for byte ticks); ay: the y of the
 * invisible points that carry the markers. */
static void x_extent(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, double ay, double *xmin,
                     double *xmax) {
  *xmin = INFINITY;
  *xmax = -INFINITY;
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < s[i].n; j++)
      if (gbp_point_ok(p, s[i].x[j], s[i].y[j])) *xmin = fmin(*xmin, s[i].x[j]), *xmax = fmax(*xmax, s[i].x[j]);
  for (size_t m = 0; m < p->nmarkers; m++)
    if (p->markers[m].axis == 'x' && gbp_point_ok(p, p->markers[m].at, ay))
      *xmin = fmin(*xmin, p->markers[m].at), *xmax = fmax(*xmax, p->markers[m].at);
}

/* A linear y axis of values none below zero starts at zero, so that a
 * small wobble does not fill the plot's height (autoscaling would). */
static bool y_from_zero(const gb_plot_spec *p, const gb_plot_series *s, size_t ns) {
  if (p->logy) return false;
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < s[i].n; j++)
      if (gbp_point_ok(p, s[i].x[j], s[i].y[j]) && s[i].y[j] < 0) return false;
  for (size_t m = 0; m < p->nmarkers; m++)
    if (p->markers[m].axis == 'y' && p->markers[m].at < 0) return false;
  return true;
}

/* One end of a point's error bar: the point's value v0 where the end is
 * missing or cannot be drawn (non-positive on a log axis, log: that axis's). */
static double bar_end(bool log, const double *v, size_t j, double v0) {
  return v && isfinite(v[j]) && (!log || v[j] > 0) ? v[j] : v0;
}

static bool ybars(const gb_plot_series *s) { return s->lo || s->hi; }
static bool xbars(const gb_plot_series *s) { return s->xlo || s->xhi; }

/* Appends " a b": a point's error bar ends. */
static gb_err put_bar(gb_buf *d, bool log, const double *lo, const double *hi, size_t j, double v0) {
  gb_err e = gb_buf_puts(d, " ");
  if (!e) e = gbp_put_num(d, bar_end(log, lo, j, v0));
  if (!e) e = gb_buf_puts(d, " ");
  if (!e) e = gbp_put_num(d, bar_end(log, hi, j, v0));
  return e;
}

/* Data: block i = series i; columns x y label [low high] [xlow xhigh]
 * (low high: a series with error bars in y, xlow xhigh: in x); a blank
 * line breaks the line where a point is missing; then the markers block,
 * invisible points that stretch the axes. */
static gb_err put_data(gb_buf *d, const gb_plot_spec *p, const gb_plot_series *s, size_t ns, double ax, double ay) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < ns && !e; i++) {
    bool yb = ybars(&s[i]), xb = xbars(&s[i]);
    e = gbp_put_c(d, "%s# series %zu: ", i ? "\n\n" : "", i);
    if (!e) e = gbp_put_dat_string(d, s[i].title);
    if (!e) e = gbp_put_c(d, "\n# x y label%s%s\n", yb ? " low high" : "", xb ? " xlow xhigh" : "");
    bool any = false;
    for (size_t j = 0; j < s[i].n && !e; j++) {
      if (!gbp_point_ok(p, s[i].x[j], s[i].y[j])) {
        if (any) e = gb_buf_puts(d, "\n");
        continue;
      }
      any = true;
      e = gbp_put_num(d, s[i].x[j]);
      if (!e) e = gb_buf_puts(d, " ");
      if (!e) e = gbp_put_num(d, s[i].y[j]);
      if (!e) e = gb_buf_puts(d, " ");
      if (!e) e = gbp_put_dat_string(d, s[i].labels && s[i].labels[j] ? s[i].labels[j] : "");
      if (!e && yb) e = put_bar(d, p->logy, s[i].lo, s[i].hi, j, s[i].y[j]);
      if (!e && xb) e = put_bar(d, p->logx, s[i].xlo, s[i].xhi, j, s[i].x[j]);
      if (!e) e = gb_buf_puts(d, "\n");
    }
    /* a block needs one point or gnuplot stops; a series with none gets a
     * single undefined point ("NaN"), which gnuplot skips */
    if (!e && !any) e = gb_buf_puts(d, "NaN NaN \"\"\n");
  }
  if (!e) e = gbp_put_c(d, "\n\n# markers (invisible, widen the axes)\n");
  for (size_t m = 0; m < p->nmarkers && !e; m++) {
    double mx = p->markers[m].axis == 'x' ? p->markers[m].at : ax;
    double my = p->markers[m].axis == 'x' ? ay : p->markers[m].at;
    if (!gbp_point_ok(p, mx, my)) continue;
    e = gbp_put_num(d, mx);
    if (!e) e = gb_buf_puts(d, " ");
    if (!e) e = gbp_put_num(d, my);
    if (!e) e = gb_buf_puts(d, "\n");
  }
  if (!e) e = gbp_put_num(d, ax);
  if (!e) e = gb_buf_puts(d, " ");
  if (!e) e = gbp_put_num(d, ay);
  if (!e) e = gb_buf_puts(d, "\n");
  return e;
}

/* The plot clause of series s (block i, colour colour), with its labels. */
static gb_err put_clause(gb_buf *g, const gb_plot_spec *p, const gb_plot_series *s, size_t i, size_t colour) {
  /* dashed: a dashed line through open circles; solid: filled circles.
   * gnuplot has 8 line colours: colours 9 and up reuse them dashed, so
   * series 1 and 9 still differ. A series with a spread: its error bars
   * drawn with it ([x|xy]errorlines, [x|xy]errorbars; gnuplot takes an xy
   * bar's columns as x y xlow xhigh ylow yhigh) */
  bool dashed = s->dashed || colour > GB_PLOT_COLOURS, yb = ybars(s), xb = xbars(s), bars = yb || xb;
  const char *kind = xb && yb ? "xy" : xb ? "x" : "y";
  const char *cols = xb && yb ? "1:2:6:7:4:5" : bars ? "1:2:4:5" : "1:2";
  size_t lc = (colour - 1) % GB_PLOT_COLOURS + 1;
  const char *with = s->style == GB_PLOT_SPANS    ? "points ps 0"
                     : s->style == GB_PLOT_POINTS ? (dashed ? "points pt 6 ps 1.2" : "points pt 7 ps 1.2")
                     : s->style == GB_PLOT_LINES ? (dashed ? "lines dt 2" : "lines")
                     : dashed                    ? "linespoints dt 2 pt 6 ps 0.8"
                                                 : "linespoints pt 7 ps 0.8";
  const char *bar_with = s->style == GB_PLOT_SPANS    ? (dashed ? "errorbars dt 2 ps 0" : "errorbars ps 0")
                        : s->style == GB_PLOT_POINTS ? (dashed ? "errorbars pt 6 ps 1.2" : "errorbars pt 7 ps 1.2")
                        : s->style == GB_PLOT_LINES ? (dashed ? "errorlines dt 2 ps 0" : "errorlines ps 0")
                        : dashed                    ? "errorlines dt 2 pt 6 ps 0.8"
                                                    : "errorlines pt 7 ps 0.8";
  const char *lw = s->emphasis ? "3" : "1.5";
  gb_err e = GB_OK;
  /* points with bars on some of them only: every point drawn plain, then
   * the bars where a point has one (a bar of no length draws as a cross
   * over its point: the x of such a point is made undefined) */
  char using[96];
  snprintf(using, sizeof using, "%s", cols);
  if (bars && s->style == GB_PLOT_POINTS) {
    e = gbp_put_c(g, "  '%s.dat' index %zu using 1:2 with %s lw %s lc %zu notitle, \\\n", p->stem, i, with, lw, lc);
    snprintf(using, sizeof using, "(%s ? $1 : NaN)%s",
             xb && yb ? "$6<$1 || $7>$1 || $4<$2 || $5>$2" : xb ? "$4<$1 || $5>$1" : "$4<$2 || $5>$2", cols + 1);
  }
  if (!e)
    e = gbp_put_c(g, "  '%s.dat' index %zu using %s with %s%s lw %s lc %zu ", p->stem, i, using, bars ? kind : "",
                  bars ? bar_with : with, lw, lc);
  /* no title: no legend entry (a second style of a series already listed) */
  if (!e) e = s->title && s->title[0] ? gb_buf_puts(g, "title ") : gb_buf_puts(g, "notitle");
  if (!e && s->title && s->title[0]) e = gbp_put_gp_string(g, s->title);
  if (!e && gbp_series_has_label(p, s))
    e = gbp_put_c(g, ", \\\n  '%s.dat' index %zu using 1:2:3 with labels %s font ',9' notitle", p->stem, i,
                  gbp_label_placement(s->label_side));
  if (!e) e = gb_buf_puts(g, ", \\\n");
  return e;
}

static gb_err lines_files(const char *dir, const gb_plot_spec *p, const gb_plot_series *all, size_t nall) {
  gb_err e = gbp_check_spec(p);
  if (e) return e;
  double ax, ay;
  if (!gbp_first_point(p, all, nall, &ax, &ay)) return gb_fail(GB_E_INPUT, "plot %s: no data to plot", p->stem);
  gb_plot_series *s;
  size_t *colour, ns;
  if ((e = gbp_keep_series(p, all, nall, false, 0, &s, &colour, &ns))) return e;
  gb_buf d = {0}, g = {0};
  e = put_data(&d, p, s, ns, ax, ay);
  double xmin, xmax;
  x_extent(p, s, ns, ay, &xmin, &xmax);
  size_t nkey = 0;
  for (size_t i = 0; i < ns; i++) nkey += s[i].title && s[i].title[0];
  if (!e) e = gbp_put_head(&g, p, nkey, gbp_longest_title(s, ns, NULL), 1, xmin, xmax);
  if (!e && p->nylabels) {
    e = gb_buf_puts(&g, "set ytics (");
    for (size_t i = 0; i < p->nylabels && !e; i++) {
      e = gbp_put_gp_tic(&g, p->ylabels[i]);
      if (!e) e = gbp_put_c(&g, " %zu%s", i + 1, i + 1 < p->nylabels ? ", " : "");
    }
    if (!e) e = gb_buf_puts(&g, ")\nset offsets graph 0.15, graph 0.15, 0, 0\n");
    /* the named rows 1..n with half a row free above and below (no
     * reference lines at the ends to widen the axis: they read as limits) */
    if (!e) e = gbp_put_c(&g, "set yrange [0.4:%zu.6]\n", p->nylabels);
  } else if (!e && p->ymin < p->ymax) {
    char lo[64], hi[64];
    gb_fmt_double(lo, sizeof lo, p->ymin);
    gb_fmt_double(hi, sizeof hi, p->ymax);
    e = gbp_put_c(&g, "set yrange [%s:%s]\n", lo, hi);
  } else if (!e && y_from_zero(p, s, ns)) {
    e = gb_buf_puts(&g, "set yrange [0:*]\n");
  }
  if (!e) e = gb_buf_puts(&g, "plot \\\n");
  for (size_t i = 0; i < ns && !e; i++) e = put_clause(&g, p, &s[i], i, colour[i]);
  if (!e) e = gbp_put_c(&g, "  '%s.dat' index %zu using 1:2 with points ps 0 lc rgb 'white' notitle\n", p->stem, ns);
  if (!e) e = gbp_put_tail(&g, p);
  if (!e) e = gbp_write_file(dir, p->stem, "dat", &d);
  if (!e) e = gbp_write_file(dir, p->stem, "gp", &g);
  gb_buf_free(&d);
  gb_buf_free(&g);
  free(s);
  free(colour);
  return e;
}

gb_err gb_plot_lines_script(const char *dir, const gb_plot_spec *p, const gb_plot_series *s, size_t ns) {
  return lines_files(dir, p, s, ns);
}

gb_err gb_plot_lines(const char *dir, const gb_plot_spec *p, const gb_plot_series *s, size_t ns) {
  gb_err e = lines_files(dir, p, s, ns);
  return e ? e : gb_plot_render(dir, p->stem);
}
