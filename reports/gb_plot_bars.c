/* gb_plot_bars: grouped bars (gb_plot.h: gb_plot_bars). */
#include "gb_plot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"

/* A bar's value as printed above it: 3 significant figures or so. */
static void bar_label(char *buf, size_t n, double v) {
  double a = fabs(v);
  if (a >= 100) gb_snprintf_c(buf, n, "%.0f", v);
  else if (a >= 10) gb_snprintf_c(buf, n, "%.1f", v);
  else gb_snprintf_c(buf, n, "%.2f", v);
}

/* The .dat: one block per series, a row per category with a value or a
 * reference (x value reference category value_text). */
static gb_err bars_data(gb_buf *d, const gb_plot_series *s, size_t ns, const char *const *cats, size_t ncat,
                        double w) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < ns && !e; i++) {
    e = gbp_put_c(d, "%s# series %zu: ", i ? "\n\n" : "", i);
    if (!e) e = gbp_put_dat_string(d, s[i].title);
    if (!e) e = gb_buf_puts(d, "\n# x value reference category value_text\n");
    size_t rows = 0;
    for (size_t j = 0; j < ncat && !e; j++) {
      double ref = s[i].ref ? s[i].ref[j] : NAN;
      if (!isfinite(s[i].y[j]) && !isfinite(ref)) continue;
      double x = (double)j - 0.4 + ((double)i + 0.5) * w;
      char lab[64] = "";
      if (isfinite(s[i].y[j])) bar_label(lab, sizeof lab, s[i].y[j]);
      e = gbp_put_num(d, x);
      if (!e) e = gb_buf_puts(d, " ");
      if (!e) e = isfinite(s[i].y[j]) ? gbp_put_num(d, s[i].y[j]) : gb_buf_puts(d, "NaN");
      if (!e) e = gb_buf_puts(d, " ");
      if (!e) e = isfinite(ref) ? gbp_put_num(d, ref) : gb_buf_puts(d, "NaN");
      if (!e) e = gb_buf_puts(d, " ");
      if (!e) e = gbp_put_dat_string(d, cats[j]);
      if (!e) e = gb_buf_puts(d, " ");
      if (!e) e = gbp_put_dat_string(d, lab);
      if (!e) e = gb_buf_puts(d, "\n");
      rows++;
    }
    if (!e && rows == 0) e = gb_buf_puts(d, "NaN NaN NaN \"\" \"\"\n");
  }
  return e;
}

/* The script's head, bar style, ranges and category ticks. Names wider than
 * their group: slanted by 30 degrees, ending at their tick. The plot is about
 * width - 120 px wide (less the key's width when it sits on the right, about
 * 300 px); a character of the 11-point font is about 8 px wide and half a
 * line high, so a slanted name of L characters takes L x 0.5 x 0.5 lines
 * below the axis. */
static gb_err bars_axes(gb_buf *g, const gb_plot_spec *p, const gb_plot_series *s, size_t ns,
                        const char *const *cats, size_t ncat, double w, size_t nkey, const char *ref_title) {
  size_t longest = 0;
  for (size_t j = 0; j < ncat; j++)
    if (strlen(cats[j]) > longest) longest = strlen(cats[j]);
  int width = p->width_px > 0 ? p->width_px : 1000;
  double plot_px = (double)width - 120 - (nkey > GB_PLOT_KEY_BELOW_MAX ? 300 : 0);
  bool slanted = (double)longest * 8 + 12 > plot_px / (double)ncat;
  double tick_rows = slanted ? 1 + 0.25 * (double)longest : 1;
  gb_err e = gbp_put_head(g, p, nkey, gbp_longest_title(s, ns, ref_title), tick_rows, NAN, NAN);
  if (!e) e = gbp_put_c(g, "set style fill solid 0.85 border rgb '#333333'\nset boxwidth %.6f absolute\n", w * 0.95);
  if (!e) e = gbp_put_c(g, "set xrange [-0.6:%.1f]\nset yrange [0:*]\nset offsets 0,0,graph 0.08,0\n",
                    (double)ncat - 0.4);
  if (!e) e = gb_buf_puts(g, "set grid noxtics ytics\nset xtics (");
  for (size_t j = 0; j < ncat && !e; j++) {
    e = gbp_put_gp_tic(g, cats[j]);
    if (!e) e = gbp_put_c(g, " %zu%s", j, j + 1 < ncat ? ", " : ")\n");
  }
  if (!e && slanted) {
    /* the first name runs left of the plot by about cos(30) = 0.87 of its
     * length: widen the left margin (in characters) to keep it whole */
    int lmargin = (int)((double)longest * 0.87) - 2;
    if (lmargin < 10) lmargin = 10;
    if (lmargin > 40) lmargin = 40;
    e = gbp_put_c(g, "set xtics rotate by 30 right\nset lmargin %d\n", lmargin);
    /* gnuplot keeps room on the right as if the last name ran that way */
    if (!e && nkey <= GB_PLOT_KEY_BELOW_MAX) e = gb_buf_puts(g, "set rmargin 3\n");
  }
  return e;
}

/* The plot command: the bars of each series (with their values over them
 * when value_labels), then, with references, a tick for each. */
static gb_err bars_plot(gb_buf *g, const gb_plot_spec *p, const gb_plot_series *s, const size_t *colour, size_t ns,
                        size_t ncat, double w, bool any_ref, bool value_labels, const char *ref_title) {
  gb_err e = gb_buf_puts(g, "plot \\\n");
  for (size_t i = 0; i < ns && !e; i++) {
    e = gbp_put_c(g, "  '%s.dat' index %zu using 1:2 with boxes lc %zu title ", p->stem, i, colour[i]);
    if (!e) e = gbp_put_gp_string(g, s[i].title);
    /* labels only over real bars: gnuplot 5.4 crashes (SIGSEGV) drawing
     * "with labels" from a block whose only point is undefined */
    if (!e && value_labels && gbp_series_has_bar(&s[i], ncat))
      e = gbp_put_c(g, ", \\\n  '%s.dat' index %zu using 1:2:5 with labels offset 0,0.6 font ',8' notitle", p->stem, i);
    if (!e) e = gb_buf_puts(g, i + 1 < ns || any_ref ? ", \\\n" : "\n");
  }
  bool titled = false;
  for (size_t i = 0; i < ns && !e && any_ref; i++) {
    e = gbp_put_c(g, "  '%s.dat' index %zu using 1:3:(%.6f) with xerrorbars pt 0 ps 0 lw 2.5 lc rgb 'black' ", p->stem,
              i, w * 0.5);
    if (!e && !titled) {
      e = gb_buf_puts(g, "title ");
      if (!e) e = gbp_put_gp_string(g, ref_title);
      titled = true;
    } else if (!e) {
      e = gb_buf_puts(g, "notitle");
    }
    if (!e) e = gb_buf_puts(g, i + 1 < ns ? ", \\\n" : "\n");
  }
  return e;
}

static gb_err bars_files(const char *dir, const gb_plot_spec *p, const char *const *cats, size_t ncat,
                         const gb_plot_series *all, size_t nall) {
  gb_err e = gbp_check_spec(p);
  if (e) return e;
  if (p->logx || p->logy) return gb_fail(GB_E_INPUT, "plot %s: bars take linear axes", p->stem);
  for (size_t i = 0; i < nall; i++)
    if (all[i].n != ncat) return gb_fail(GB_E_INTERNAL, "plot %s: series %zu has %zu bars for %zu categories",
                                         p->stem, i, all[i].n, ncat);
  gb_plot_series *s;
  size_t *colour, ns;
  if ((e = gbp_keep_series(p, all, nall, true, ncat, &s, &colour, &ns))) return e;
  if (ns == 0) {
    free(s);
    free(colour);
    return gb_fail(GB_E_INPUT, "plot %s: no data to plot", p->stem);
  }
  /* reference ticks of the series drawn (a left-out series has no bar to mark) */
  bool any_ref = false;
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < ncat; j++)
      if (s[i].ref && isfinite(s[i].ref[j])) any_ref = true;
  /* geometry: group j spans [j - 0.4, j + 0.4]; bar i of ns sits at
   * x = j - 0.4 + (i + 0.5) * w with w = 0.8 / ns */
  double w = 0.8 / (double)ns;
  /* values over the bars when a bar is at least 30 px wide (a plot of about
   * width - 120 px, groups 0.8 of their slot) */
  double bar_px = ((p->width_px > 0 ? p->width_px : 1000) - 120.0) / (double)ncat * w;
  bool value_labels = bar_px >= 30;
  size_t nkey = ns + (any_ref ? 1 : 0);
  const char *ref_title = p->ref_title ? p->ref_title : "reference";
  gb_buf d = {0}, g = {0};
  e = bars_data(&d, s, ns, cats, ncat, w);
  if (!e) e = bars_axes(&g, p, s, ns, cats, ncat, w, nkey, any_ref ? ref_title : NULL);
  if (!e) e = bars_plot(&g, p, s, colour, ns, ncat, w, any_ref, value_labels, ref_title);
  if (!e) e = gbp_put_tail(&g, p);
  if (!e) e = gbp_write_file(dir, p->stem, "dat", &d);
  if (!e) e = gbp_write_file(dir, p->stem, "gp", &g);
  gb_buf_free(&d);
  gb_buf_free(&g);
  free(s);
  free(colour);
  return e;
}

gb_err gb_plot_bars_script(const char *dir, const gb_plot_spec *p, const char *const *categories, size_t ncat,
                           const gb_plot_series *s, size_t ns) {
  return bars_files(dir, p, categories, ncat, s, ns);
}

gb_err gb_plot_bars(const char *dir, const gb_plot_spec *p, const char *const *categories, size_t ncat,
                    const gb_plot_series *s, size_t ns) {
  gb_err e = bars_files(dir, p, categories, ncat, s, ns);
  return e ? e : gb_plot_render(dir, p->stem);
}
