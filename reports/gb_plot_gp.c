/* gb_plot_gp: the pieces of gnuplot data and scripts every plot kind
 * writes (gb_plot_int.h). */
#include "gb_plot_int.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_escape.h"
#include "gb_num.h"
#include "gb_output.h"

/* ---- script and data writing ---- */

bool gbp_stem_ok(const char *stem) {
  if (!stem || !*stem || stem[0] == '.') return false;
  for (const char *c = stem; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
          *c == '-' || *c == '.'))
      return false;
  return true;
}

/* Appends s as a gnuplot single-quoted string (core/gb_escape.h: '' for a
 * quote, a blank for a line end or control character). */
gb_err gbp_put_gp_string(gb_buf *b, const char *s) {
  gb_err e = gb_buf_puts(b, "'");
  if (!e) e = gb_esc_gnuplot(b, s ? s : "");
  return e ? e : gb_buf_puts(b, "'");
}

/* A tic label: gnuplot reads it as a format for the tic's value, so a
 * '%' in a name ("%s" in a case name failed the whole plot with "Bad format
 * character") is doubled. */
gb_err gbp_put_gp_tic(gb_buf *b, const char *s) {
  gb_buf t = {0};
  gb_err e = gb_esc_gnuplot(&t, s ? s : "");
  if (!e) e = gb_buf_puts(b, "'");
  for (size_t i = 0; i < t.len && !e; i++) e = t.data[i] == '%' ? gb_buf_puts(b, "%%") : gb_buf_append(b, t.data + i, 1);
  gb_buf_free(&t);
  return e ? e : gb_buf_puts(b, "'");
}

/* Appends s as a double-quoted string column of a gnuplot data file
 * (gnuplot knows no escapes there, so a double quote becomes a single one). */
gb_err gbp_put_dat_string(gb_buf *b, const char *s) {
  gb_err e = gb_buf_puts(b, "\"");
  if (e == GB_OK) e = gb_esc_gnuplot_data(b, s ? s : "");
  if (e == GB_OK) e = gb_buf_puts(b, "\"");
  return e;
}

gb_err gbp_put_num(gb_buf *b, double v) {
  char num[64];
  gb_fmt_double(num, sizeof num, v);
  return gb_buf_puts(b, num);
}

/* C-locale printf into the buffer. */
gb_err gbp_put_c(gb_buf *b, const char *fmt, ...) {
  static locale_t c_loc = (locale_t)0;
  if (c_loc == (locale_t)0) c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  locale_t old = c_loc ? uselocale(c_loc) : (locale_t)0;
  char small[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (old) uselocale(old);
  if (n < 0 || (size_t)n >= sizeof small) return gb_fail(GB_E_INTERNAL, "plot script line too long");
  return gb_buf_append(b, small, (size_t)n);
}

bool gbp_point_ok(const gb_plot_spec *p, double x, double y) {
  if (!isfinite(x) || !isfinite(y)) return false;
  if (p->logx && x <= 0) return false;
  if (p->logy && y <= 0) return false;
  return true;
}

gb_err gbp_write_file(const char *dir, const char *stem, const char *ext, const gb_buf *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext);
  return gb_write_file_atomic(path, b->data ? b->data : "", b->len);
}

/* The common head of every script: terminal, output, titles, axes, grid,
 * key and marker lines. The body (plot command) follows; the tail repeats
 * it for the SVG terminal. */

/* The longest legend entry of the series drawn (and of the reference ticks'
 * title when ref_title is not NULL), in characters. */
size_t gbp_longest_title(const gb_plot_series *s, size_t ns, const char *ref_title) {
  size_t l = ref_title ? strlen(ref_title) : 0;
  for (size_t i = 0; i < ns; i++)
    if (s[i].title && strlen(s[i].title) > l) l = strlen(s[i].title);
  return l;
}

/* Byte-count ticks on a log x axis over [xmin, xmax]: powers of two a
 * step of 1, 2, 5, 10 or 20 doublings apart (at most 9 ticks), labelled
 * "32 B", "1 KiB", "4 GiB" (gnuplot's own %b %B pads "32   B"). */
static gb_err put_byte_tics(gb_buf *g, double xmin, double xmax) {
  static const int steps[] = {1, 2, 5, 10, 20};
  int kmin = (int)floor(log2(xmin)), kmax = (int)ceil(log2(xmax));
  int step = 20;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if ((kmax - kmin) / steps[i] <= 8) {
      step = steps[i];
      break;
    }
  gb_err e = gb_buf_puts(g, "set xtics (");
  bool first = true;
  for (int k = kmin; k <= kmax && !e; k++) {
    if (k < 0 || k > 62 || k % step != 0) continue;
    char lab[48], at[64];
    gb_fmt_size(lab, sizeof lab, (int64_t)1 << k);
    gb_fmt_double(at, sizeof at, ldexp(1.0, k));
    e = gbp_put_c(g, "%s'%s' %s", first ? "" : ", ", lab, at);
    first = false;
  }
  if (!e) e = gb_buf_puts(g, ")\n");
  /* a little room at both ends, so a tick at the first or last point shows */
  char lo[64], hi[64];
  gb_fmt_double(lo, sizeof lo, xmin / pow(2, 0.2));
  gb_fmt_double(hi, sizeof hi, xmax * pow(2, 0.2));
  if (!e) e = gbp_put_c(g, "set xrange [%s:%s]\n", lo, hi);
  return e;
}

/* nkey legend entries, the longest of longest characters; the x tic
 * labels take tick_rows lines below the axis; [xmin, xmax] the x values
 * drawn (NaN: not known). */
gb_err gbp_put_head(gb_buf *g, const gb_plot_spec *p, size_t nkey, size_t longest, double tick_rows, double xmin,
                       double xmax) {
  int w = p->width_px > 0 ? p->width_px : 1000;
  int h = p->height_px > 0 ? p->height_px : 600;
  gb_err e = gbp_put_c(g, "# gnuplot script written by gpubench report; re-run with: gnuplot %s.gp\n", p->stem);
  if (!e) e = gbp_put_c(g, "# data: %s.dat (one block per series, numbers in the C locale)\n", p->stem);
  if (!e) e = gbp_put_c(g, "set terminal pngcairo size %d,%d font 'Sans,11' noenhanced\n", w, h);
  if (!e) e = gb_buf_puts(g, "set termoption noenhanced\nset decimalsign '.'\nset encoding utf8\n");
  /* gpubench renders into temporary names it passes as gb_png and gb_svg
   * (gnuplot -e); a user re-running the script gets the plain names */
  if (!e) e = gbp_put_c(g, "if (!exists('gb_png')) gb_png = '%s.png'\nset output gb_png\n", p->stem);
  if (!e) e = gb_buf_puts(g, "set title ");
  if (!e) e = gbp_put_gp_string(g, p->title);
  if (!e) e = gb_buf_puts(g, "\nset xlabel ");
  if (!e) e = gbp_put_gp_string(g, p->xlabel);
  if (!e) e = gb_buf_puts(g, "\nset ylabel ");
  if (!e) e = gbp_put_gp_string(g, p->ylabel);
  if (!e) e = gb_buf_puts(g, "\nset grid back lc rgb '#dddddd'\n");
  if (nkey <= GB_PLOT_KEY_BELOW_MAX) {
    /* below, at the bottom of the canvas, in one or two columns (two when an
     * entry of about 9 px a character, with margin, plus its sample fits half
     * the width: gnuplot may pick one column where this guesses two).
     * gnuplot 5.4's own "key below" is drawn over the x label, so the key is
     * placed and the bottom margin sized by hand: the tic labels, 3 rows for
     * the x label and the gaps, the key 1.2 rows an entry line, 1 to spare. */
    int cols = (double)longest * 9 + 100 <= (double)w / 2 - 40 ? 2 : 1;
    size_t rows = (nkey + (size_t)cols - 1) / (size_t)cols;
    if (!e)
      e = gbp_put_c(g,
                "set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 "
                "width 2 maxcols %d\nset bmargin %d\n",
                cols, (int)ceil(tick_rows + 3 + 1.2 * (double)rows + 1));
  } else if (!e) {
    e = gb_buf_puts(g, "set key outside right top box opaque Left reverse spacing 1.2\n");
  }
  if (!e) e = gb_buf_puts(g, "set border 3\nset tics nomirror\n");
  if (!e && p->logx) e = gb_buf_puts(g, p->x_bytes ? "set logscale x 2\n" : "set logscale x 10\n");
  /* binary-prefixed byte counts on the x axis: 64 KiB, 1 GiB */
  if (!e && p->x_bytes && p->logx && xmin > 0 && xmax >= xmin) e = put_byte_tics(g, xmin, xmax);
  else if (!e && p->x_bytes) e = gb_buf_puts(g, "set format x '%.0b %BB'\n");
  if (!e && p->logy) e = gb_buf_puts(g, "set logscale y 10\n");
  /* a y marker's label goes at the right end (data tends to start at the
   * left: small sizes, first bars), unless a labelled x marker stands in the
   * right half: its label runs down from the top along its line, over the
   * right end of a y label ("budget" under "deadline") */
  bool ylabel_left = false;
  for (size_t i = 0; i < p->nmarkers && isfinite(xmin) && isfinite(xmax) && xmax > xmin; i++) {
    const gb_plot_marker *m = &p->markers[i];
    if (m->axis != 'x' || !m->label || !m->label[0]) continue;
    bool lg = p->logx && xmin > 0 && m->at > 0;
    double f = lg ? log(m->at / xmin) / log(xmax / xmin) : (m->at - xmin) / (xmax - xmin);
    if (f > 0.5) ylabel_left = true;
  }
  for (size_t i = 0; i < p->nmarkers && !e; i++) {
    const gb_plot_marker *m = &p->markers[i];
    char at[64];
    gb_fmt_double(at, sizeof at, m->at);
    if (m->axis == 'x') {
      e = gbp_put_c(g, "set arrow from first %s, graph 0 to first %s, graph 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front\n",
                at, at);
      if (!e) e = gb_buf_puts(g, "set label ");
      if (!e) e = gbp_put_gp_string(g, m->label);
      /* along the line from the top; over named rows (a tornado), whose
       * bars span the height, across the half row free at the top instead */
      if (!e && p->nylabels > 0)
        e = gbp_put_c(g, " at first %s, graph 1 left offset 0.6,-1 tc rgb '#aa0000' front\n", at);
      else if (!e)
        e = gbp_put_c(g, " at first %s, graph 0.97 rotate by 90 right offset -1.3,0 tc rgb '#aa0000' front\n", at);
    } else {
      e = gbp_put_c(g, "set arrow from graph 0, first %s to graph 1, first %s nohead dt 2 lw 1.5 lc rgb '#aa0000' front\n",
                at, at);
      if (!m->label || !m->label[0]) continue; /* a line without a label */
      if (!e) e = gb_buf_puts(g, "set label ");
      if (!e) e = gbp_put_gp_string(g, m->label);
      if (!e)
        e = gbp_put_c(g, " at graph %s, first %s %s offset 0,0.7 tc rgb '#aa0000' front\n", ylabel_left ? "0.01" : "0.99",
                  at, ylabel_left ? "left" : "right");
    }
  }
  return e;
}

gb_err gbp_put_tail(gb_buf *g, const gb_plot_spec *p) {
  int w = p->width_px > 0 ? p->width_px : 1000;
  int h = p->height_px > 0 ? p->height_px : 600;
  gb_err e = gbp_put_c(g, "set terminal svg size %d,%d font 'Sans,11' noenhanced background rgb 'white'\n", w, h);
  if (!e) e = gb_buf_puts(g, "set termoption noenhanced\n");
  if (!e) e = gbp_put_c(g, "if (!exists('gb_svg')) gb_svg = '%s.svg'\nset output gb_svg\nreplot\nunset output\n", p->stem);
  return e;
}

/* The first plottable point of any series, to anchor invisible marker
 * points that pull the autoscaled range over the markers. */
bool gbp_first_point(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, double *x, double *y) {
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < s[i].n; j++)
      if (gbp_point_ok(p, s[i].x[j], s[i].y[j])) {
        *x = s[i].x[j];
        *y = s[i].y[j];
        return true;
      }
  return false;
}

bool gbp_series_has_bar(const gb_plot_series *s, size_t ncat) {
  for (size_t j = 0; j < ncat; j++)
    if (isfinite(s->y[j])) return true;
  return false;
}

/* gnuplot's alignment and offset (in characters) of a label side: the text
 * clears the point marker by 0.8 characters across and 0.4 (above) or 0.7
 * (below, the text's own height) up or down. */
const char *gbp_label_placement(gb_plot_label_side side) {
  switch (side) {
  case GB_PLOT_LABEL_LEFT_BELOW: return "right offset -0.8,-0.7";
  case GB_PLOT_LABEL_LEFT_ABOVE: return "right offset -0.8,0.4";
  case GB_PLOT_LABEL_RIGHT_BELOW: return "left offset 0.8,-0.7";
  case GB_PLOT_LABEL_RIGHT_ABOVE: break;
  }
  return "left offset 0.8,0.4";
}

/* A plottable point with a non-empty label (see gbp_series_has_bar). */
bool gbp_series_has_label(const gb_plot_spec *p, const gb_plot_series *s) {
  if (!s->labels) return false;
  for (size_t j = 0; j < s->n; j++)
    if (gbp_point_ok(p, s->x[j], s->y[j]) && s->labels[j] && s->labels[j][0]) return true;
  return false;
}

/* True when a series has something to draw: a plottable point (lines) or a
 * finite bar (bars, ncat > 0). */
bool gbp_series_has_data(const gb_plot_spec *p, const gb_plot_series *s, bool bars, size_t ncat) {
  if (bars) return gbp_series_has_bar(s, ncat);
  for (size_t j = 0; j < s->n; j++)
    if (gbp_point_ok(p, s->x[j], s->y[j])) return true;
  return false;
}

/* The series with data, in order, into *kept (malloc'd, *nkept of them),
 * and each one's colour: its own, else the 1-based index it had in s (a
 * series keeps its colour whether or not others are left out). Series with nothing to draw
 * are left out: no legend entry, no bar slot. */
gb_err gbp_keep_series(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, bool bars, size_t ncat,
                          gb_plot_series **kept, size_t **colour, size_t *nkept) {
  *kept = calloc(ns ? ns : 1, sizeof **kept);
  *colour = calloc(ns ? ns : 1, sizeof **colour);
  *nkept = 0;
  if (!*kept || !*colour) {
    free(*kept);
    free(*colour);
    *kept = NULL;
    *colour = NULL;
    return gb_fail(GB_E_NOMEM, "plot %s: out of memory", p->stem);
  }
  for (size_t i = 0; i < ns; i++) {
    if (!gbp_series_has_data(p, &s[i], bars, ncat)) continue;
    (*kept)[*nkept] = s[i];
    (*colour)[*nkept] = s[i].colour > 0 ? (size_t)s[i].colour : i + 1;
    (*nkept)++;
  }
  return GB_OK;
}

gb_err gbp_check_spec(const gb_plot_spec *p) {
  if (!p || !gbp_stem_ok(p->stem))
    return gb_fail(GB_E_INPUT, "plot stem \"%s\" is not a plain file name", p && p->stem ? p->stem : "");
  return GB_OK;
}
