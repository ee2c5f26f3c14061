/* Tests for gb_plot: data and script files, rendering through gnuplot into
 * valid PNG and SVG, C-locale numbers, and the gnuplot-missing path. The
 * rendering cases need gnuplot; without it main() exits 77 (SKIP). */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_plot.h"
#include "reportutil.h"
#include "testutil.h"

static char *slurp_in(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%.3000s/%.1000s", dir, name);
  return gb_test_slurp(path, NULL);
}

static bool exists_in(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return gb_test_file_nonempty(path);
}

/* Checks stem.png (signature, IHDR, the size asked for) and stem.svg (well
 * formed, holds each expected text). */
static void check_rendered(const char *dir, const char *stem, unsigned w, unsigned h, const char *const *texts,
                           size_t ntexts) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.png", dir, stem);
  unsigned pw = 0, ph = 0;
  ck_assert_msg(gb_png_valid(path, &pw, &ph), "%s is not a PNG", path);
  ck_assert_uint_eq(pw, w);
  ck_assert_uint_eq(ph, h);
  snprintf(path, sizeof path, "%s.svg", stem);
  char *svg = slurp_in(dir, path);
  ck_assert_ptr_nonnull(svg);
  char err[256];
  ck_assert_msg(gb_xml_wellformed(svg, err, sizeof err), "%s.svg: %s", stem, err);
  for (size_t i = 0; i < ntexts; i++) ck_assert_msg(strstr(svg, texts[i]), "%s.svg lacks \"%s\"", stem, texts[i]);
  free(svg);
}

static const double k_x[] = {1024, 65536, 4194304, 268435456};
static const double k_y1[] = {1500.5, 2500, 3100.25, 3300};
static const double k_y2[] = {1400, NAN, 2900, 3000.75};

START_TEST(test_lines_render) {
  const char *dir = gb_test_tmpdir();
  gb_plot_marker mk[] = {{'x', 52428800, "L2 50 MiB"}, {'y', 4800, "datasheet 4800 GB/s"}};
  gb_plot_spec p = {.stem = "membw", .title = "Memory bandwidth <H200> & co", .xlabel = "array size (bytes)",
                    .ylabel = "bandwidth (GB/s)", .logx = true, .x_bytes = true, .markers = mk, .nmarkers = 2};
  gb_plot_series s[] = {{.title = "fp8_e4m3 triad", .n = 4, .x = k_x, .y = k_y1},
                        {.title = "it's copy", .n = 4, .x = k_x, .y = k_y2, .style = GB_PLOT_POINTS}};
  ck_assert_int_eq(gb_plot_lines(dir, &p, s, 2), GB_OK);
  /* noenhanced: the underscore is kept as text, not typeset as a subscript */
  const char *texts[] = {"fp8_e4m3 triad", "it's copy", "L2 50 MiB", "datasheet 4800 GB/s",
                         "Memory bandwidth &lt;H200> &amp; co", "bandwidth (GB/s)"};
  check_rendered(dir, "membw", 1000, 600, texts, 6);
  char *dat = slurp_in(dir, "membw.dat");
  /* series 1 has a hole at x = 65536: the line breaks there (blank line) */
  ck_assert_ptr_nonnull(strstr(dat, "1024 1500.5 \"\"\n65536 2500 \"\"\n"));
  ck_assert_ptr_nonnull(strstr(dat, "1024 1400 \"\"\n\n4194304 2900 \"\"\n"));
  free(dat);
  char *gp = slurp_in(dir, "membw.gp");
  ck_assert_ptr_nonnull(strstr(gp, "set termoption noenhanced\n"));
  ck_assert_ptr_nonnull(strstr(gp, "title 'it''s copy'"));
  ck_assert_ptr_nonnull(strstr(gp, "gb_svg = 'membw.svg'\nset output gb_svg\n"));
  free(gp);
}
END_TEST

START_TEST(test_bars_render) {
  const char *dir = gb_test_tmpdir();
  const char *cats[] = {"fp64", "bf16", "fp8e4m3"};
  const double h200[] = {60.5, 720, 1300};
  const double h200_peak[] = {67, 989.5, 1979};
  const double a100[] = {18, 280, NAN};
  const double a100_peak[] = {19.5, 312, NAN};
  gb_plot_series s[] = {{.title = "H200-SXM-141GB", .n = 3, .y = h200, .ref = h200_peak},
                        {.title = "A100-SXM-80GB", .n = 3, .y = a100, .ref = a100_peak}};
  gb_plot_spec p = {.stem = "gemm_peak", .title = "GEMM throughput", .xlabel = "precision",
                    .ylabel = "throughput (TFLOP/s)", .ref_title = "datasheet peak", .width_px = 800,
                    .height_px = 500};
  ck_assert_int_eq(gb_plot_bars(dir, &p, cats, 3, s, 2), GB_OK);
  const char *texts[] = {"H200-SXM-141GB", "A100-SXM-80GB", "datasheet peak", "fp8e4m3", "1300", "TFLOP/s"};
  check_rendered(dir, "gemm_peak", 800, 500, texts, 6);
  char *dat = slurp_in(dir, "gemm_peak.dat");
  /* bar 0 of 2 in group 0: x = 0 - 0.4 + 0.5 * 0.4 = -0.2; bar 1 of group 2
   * (A100 fp8) has neither value nor peak and is left out */
  ck_assert_ptr_nonnull(strstr(dat, "-0.2 60.5 67 \"fp64\" \"60.5\"\n"));
  ck_assert_ptr_null(strstr(dat, "\"fp8e4m3\" \"\"\n1."));
  ck_assert_uint_eq(gb_test_count(dat, "\"fp8e4m3\""), 1);
  free(dat);
}
END_TEST

/* Regression: a bar series with no value at all made gnuplot 5.4 crash
 * (SIGSEGV) on its value labels. Such a series, and a line series with no
 * plottable point, are now left out of the plot and its legend (a report on
 * three runs listed all three in the GEMM legend when only one had GEMM
 * rows); the series drawn keep the colour of their position. */
START_TEST(test_bars_empty_series) {
  const char *dir = gb_test_tmpdir();
  const char *cats[] = {"bf16_vs_fp32", "fp8e4m3_vs_fp32"};
  const double a[] = {14.5, 25.7}, b[] = {NAN, NAN}, ref[] = {20, 30};
  gb_plot_series s[] = {{.title = "no bars", .n = 2, .y = b, .ref = ref}, {.title = "has bars", .n = 2, .y = a}};
  gb_plot_spec p = {.stem = "empty_series", .title = "t", .xlabel = "x", .ylabel = "speedup (x)",
                    .ref_title = "peak"};
  ck_assert_int_eq(gb_plot_bars(dir, &p, cats, 2, s, 2), GB_OK);
  const char *texts[] = {"has bars", "14.5"};
  check_rendered(dir, "empty_series", 1000, 600, texts, 2);
  char *svg = slurp_in(dir, "empty_series.svg");
  ck_assert_ptr_null(strstr(svg, "no bars"));
  /* its reference ticks go with it (svg text reads <tspan ...>peak</tspan>) */
  ck_assert_ptr_null(strstr(svg, ">peak<"));
  free(svg);
  /* one series drawn: the whole group width, w = 0.8 / 1; bar 0 of group 0 at
   * x = 0 - 0.4 + 0.5 x 0.8 = 0; group 1 at 1 */
  char *dat = slurp_in(dir, "empty_series.dat");
  ck_assert_ptr_nonnull(strstr(dat, "# series 0: \"has bars\"\n# x value reference category value_text\n"
                                    "0 14.5 NaN \"bf16_vs_fp32\" \"14.5\"\n1 25.7 NaN"));
  ck_assert_ptr_null(strstr(dat, "no bars"));
  free(dat);
  char *gp = slurp_in(dir, "empty_series.gp");
  ck_assert_ptr_nonnull(strstr(gp, "set boxwidth 0.760000 absolute")); /* 0.8 x 0.95 */
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2 with boxes lc 2 title 'has bars'")); /* its own colour */
  ck_assert_ptr_null(strstr(gp, "xerrorbars"));
  free(gp);
  /* likewise a line series with no plottable point, labels and all */
  const double x[] = {1, 2}, y[] = {3, 4}, nx[] = {NAN}, ny[] = {NAN};
  const char *labels[] = {"L1", "L2"}, *nl[] = {"never"};
  gb_plot_series ls[] = {{.title = "none", .n = 1, .x = nx, .y = ny, .labels = nl},
                         {.title = "pts", .n = 2, .x = x, .y = y, .labels = labels}};
  p.stem = "empty_labels";
  ck_assert_int_eq(gb_plot_lines(dir, &p, ls, 2), GB_OK);
  const char *texts2[] = {"L1", "L2", "pts"};
  check_rendered(dir, "empty_labels", 1000, 600, texts2, 3);
  svg = slurp_in(dir, "empty_labels.svg");
  ck_assert_ptr_null(strstr(svg, ">none<"));
  ck_assert_ptr_null(strstr(svg, "never"));
  free(svg);
  gp = slurp_in(dir, "empty_labels.gp");
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 2 title 'pts'"));
  ck_assert_ptr_null(strstr(gp, "index 1 using 1:2 with linespoints"));
  free(gp);
}
END_TEST

/* Under a comma-decimal locale the data and script still use '.'. */
START_TEST(test_c_locale_numbers) {
  const char *loc = gb_test_comma_locale();
  if (!loc) {
    fprintf(stderr, "check_plot: no comma-decimal locale available; locale case not exercised\n");
    return;
  }
  char probe[32];
  snprintf(probe, sizeof probe, "%.1f", 0.5);
  ck_assert_str_eq(probe, "0,5"); /* the locale really is active */
  const char *dir = gb_test_tmpdir();
  const double x[] = {0.25, 1.5};
  const double y[] = {2.75, 1e-3};
  gb_plot_series s = {.title = "a", .n = 2, .x = x, .y = y};
  gb_plot_marker mk = {'y', 0.5, "half"};
  gb_plot_spec p = {.stem = "loc", .title = "t", .xlabel = "x (s)", .ylabel = "y (s)", .markers = &mk, .nmarkers = 1};
  ck_assert_int_eq(gb_plot_lines(dir, &p, &s, 1), GB_OK);
  char *dat = slurp_in(dir, "loc.dat");
  ck_assert_ptr_nonnull(strstr(dat, "0.25 2.75 \"\"\n1.5 0.001 \"\"\n"));
  free(dat);
  char *gp = slurp_in(dir, "loc.gp");
  ck_assert_ptr_nonnull(strstr(gp, "first 0.5 to graph 1, first 0.5"));
  free(gp);
  const char *texts[] = {"half"};
  check_rendered(dir, "loc", 1000, 600, texts, 1);
  setlocale(LC_ALL, "C");
}
END_TEST

START_TEST(test_gnuplot_error_captured) {
  const char *dir = gb_test_tmpdir();
  char path[4096];
  snprintf(path, sizeof path, "%s/bad.gp", dir);
  const char *script = "set terminal svg\nset output 'bad.svg'\nplot frobnicate_this(x)\n";
  ck_assert_int_eq(gb_test_write(path, script, strlen(script)), 0);
  ck_assert_int_eq(gb_plot_render(dir, "bad"), GB_E_IO);
  ck_assert_msg(strstr(gb_errmsg(), "bad.gp: gnuplot failed: "), "%s", gb_errmsg());
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "frobnicate_this")); /* gnuplot's own stderr */
  ck_assert(!exists_in(dir, "bad.svg"));                         /* no half-written picture */
}
END_TEST

/* ---- without gnuplot: these run everywhere ---- */

START_TEST(test_missing_gnuplot) {
  setenv("GPUBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
  ck_assert(!gb_gnuplot_available());
  const char *dir = gb_test_tmpdir();
  const double x[] = {1, 2}, y[] = {3, 4};
  gb_plot_series s = {.title = "a", .n = 2, .x = x, .y = y};
  gb_plot_spec p = {.stem = "nogp", .title = "t", .xlabel = "x", .ylabel = "y"};
  ck_assert_int_eq(gb_plot_lines(dir, &p, &s, 1), GB_E_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "install gnuplot"));
  /* the data and script are there to render later; no picture */
  ck_assert(exists_in(dir, "nogp.dat"));
  ck_assert(exists_in(dir, "nogp.gp"));
  ck_assert(!exists_in(dir, "nogp.png"));
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, &s, 1), GB_OK);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

START_TEST(test_input_errors) {
  const char *dir = gb_test_tmpdir();
  const double x[] = {1, -2}, y[] = {NAN, 4};
  gb_plot_series s = {.title = "a", .n = 2, .x = x, .y = y};
  /* (1, NaN) is undefined and (-2, 4) cannot sit on a log x axis */
  gb_plot_spec p = {.stem = "empty", .title = "t", .xlabel = "x", .ylabel = "y", .logx = true};
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, &s, 1), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "plot empty: no data"));
  p.stem = "../escape";
  p.logx = false;
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, &s, 1), GB_E_INPUT);
  const char *cats[] = {"a", "b"};
  p.stem = "bars";
  p.logy = true;
  ck_assert_int_eq(gb_plot_bars_script(dir, &p, cats, 2, &s, 1), GB_E_INPUT);
}
END_TEST

/* Script layout without rendering: series styles and colours, a y marker
 * without a label, the key below (bottom margin sized by hand) or to the
 * right, slanted long bar names, byte ticks. */
START_TEST(test_script_layout) {
  const char *dir = gb_test_tmpdir();
  const double x[] = {32, 1024, 1073741824}, y[] = {1, 2, 3};
  const char *labels[] = {"first", NULL, "last"};
  gb_plot_marker one = {'y', 5, ""};
  gb_plot_series s[] = {{.title = "A", .n = 3, .x = x, .y = y, .dashed = true, .colour = 4, .labels = labels,
                         .label_side = GB_PLOT_LABEL_LEFT_BELOW},
                        {.title = "B", .n = 3, .x = x, .y = y}};
  gb_plot_spec p = {.stem = "layout", .title = "t", .xlabel = "size", .ylabel = "y", .logx = true, .x_bytes = true,
                    .markers = &one, .nmarkers = 1};
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, s, 2), GB_OK);
  char *gp = slurp_in(dir, "layout.gp");
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2 with linespoints dt 2 pt 6 ps 0.8 lw 1.5 lc 4 title 'A'"));
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2:3 with labels right offset -0.8,-0.7 font ',9' notitle"));
  ck_assert_ptr_nonnull(strstr(gp, "index 1 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 2 title 'B'"));
  ck_assert_ptr_nonnull(strstr(gp, "set arrow from graph 0, first 5 to graph 1, first 5"));
  ck_assert_ptr_null(strstr(gp, "set label ''"));
  /* 2 entries of 1 character: two columns, one line; bottom margin
   * ceil(1 tick row + 3 + 1.2 x 1 + 1) = 7 */
  ck_assert_ptr_nonnull(strstr(gp, "maxcols 2\nset bmargin 7\n"));
  /* 32 B .. 1 GiB = 2^5 .. 2^30: 25 doublings, a tick every 5 (25 / 5 = 5 <= 8) */
  ck_assert_ptr_nonnull(strstr(gp, "set xtics ('32 B' 32, '1 KiB' 1024, '32 KiB' 32768, '1 MiB' 1048576, "
                                   "'32 MiB' 33554432, '1 GiB' 1073741824)\n"));
  free(gp);
  /* nine series: the key to the right */
  gb_plot_series nine[9];
  for (int i = 0; i < 9; i++) nine[i] = (gb_plot_series){.title = "s", .n = 3, .x = x, .y = y};
  p.stem = "layout9";
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, nine, 9), GB_OK);
  gp = slurp_in(dir, "layout9.gp");
  ck_assert_ptr_nonnull(strstr(gp, "set key outside right top"));
  ck_assert_ptr_null(strstr(gp, "set bmargin"));
  /* colour 9 is gnuplot's colour 1 again, told apart by dashes */
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 1 title 's'"));
  ck_assert_ptr_nonnull(strstr(gp, "index 8 using 1:2 with linespoints dt 2 pt 6 ps 0.8 lw 1.5 lc 1 title 's'"));
  free(gp);
  /* a series without a title: drawn, not in the legend (and not counted for its place) */
  nine[1].title = "";
  p.stem = "untitled";
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, nine, 2), GB_OK);
  gp = slurp_in(dir, "untitled.gp");
  ck_assert_ptr_nonnull(strstr(gp, "index 1 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 2 notitle"));
  ck_assert_ptr_nonnull(strstr(gp, "maxcols 2\nset bmargin 7\n")); /* one entry: one line */
  free(gp);
  /* bars with 40-character names: three groups of (1000 - 120) / 3 = 293 px
   * cannot hold 40 x 8 + 12 = 332 px, so slanted; the names take
   * 1 + 0.25 x 40 = 11 rows: bottom margin ceil(11 + 3 + 1.2 + 1) = 17;
   * left margin 40 x 0.87 - 2 = 32 characters */
  const char *cats[] = {"a-very-long-configuration-name-number-01", "a-very-long-configuration-name-number-02",
                        "a-very-long-configuration-name-number-03"};
  const double v[] = {1, 2, 3};
  gb_plot_series b = {.title = "v", .n = 3, .y = v};
  gb_plot_spec pb = {.stem = "slanted", .title = "t", .xlabel = "x", .ylabel = "y"};
  ck_assert_int_eq(gb_plot_bars_script(dir, &pb, cats, 3, &b, 1), GB_OK);
  gp = slurp_in(dir, "slanted.gp");
  ck_assert_ptr_nonnull(strstr(gp, "set bmargin 17\n"));
  ck_assert_ptr_nonnull(strstr(gp, "set xtics rotate by 30 right\nset lmargin 32\nset rmargin 3\n"));
  free(gp);
  /* short names stay level */
  const char *shortc[] = {"fp64", "fp32", "bf16"};
  pb.stem = "level";
  ck_assert_int_eq(gb_plot_bars_script(dir, &pb, shortc, 3, &b, 1), GB_OK);
  gp = slurp_in(dir, "level.gp");
  ck_assert_ptr_null(strstr(gp, "rotate"));
  ck_assert_ptr_nonnull(strstr(gp, "set bmargin 7\n"));
  /* bars (1000 - 120) / 3 x 0.8 = 235 px wide: values printed over them */
  ck_assert_ptr_nonnull(strstr(gp, "using 1:2:5 with labels"));
  free(gp);
  /* 20 groups of 2 bars: (1000 - 120) / 20 x 0.4 = 17.6 px, under 30: no values */
  const char *many[20];
  double v20[20];
  for (int i = 0; i < 20; i++) many[i] = "c", v20[i] = i + 1;
  gb_plot_series two[] = {{.title = "a", .n = 20, .y = v20}, {.title = "b", .n = 20, .y = v20}};
  pb.stem = "crowded";
  ck_assert_int_eq(gb_plot_bars_script(dir, &pb, many, 20, two, 2), GB_OK);
  gp = slurp_in(dir, "crowded.gp");
  ck_assert_ptr_null(strstr(gp, "with labels"));
  free(gp);
}
END_TEST

/* Error bars: a series with lo/hi gets the low and high columns
 * and is drawn with yerrorlines (lone points: yerrorbars); a missing end or
 * one not drawable on a log axis is the point's y; a series without lo/hi
 * keeps its three columns and plain lines. gb_test_gp_series counts the
 * legend entries. */
START_TEST(test_error_bars) {
  const char *dir = gb_test_tmpdir();
  const double x[] = {1, 2, 3}, y[] = {10, 20, 30}, lo[] = {9, NAN, -1}, hi[] = {11, 21, NAN};
  gb_plot_series s[] = {{.title = "bars", .n = 3, .x = x, .y = y, .lo = lo, .hi = hi},
                        {.title = "", .n = 3, .x = x, .y = y, .lo = lo, .hi = hi, .style = GB_PLOT_POINTS},
                        {.title = "plain", .n = 3, .x = x, .y = y}};
  gb_plot_spec p = {.stem = "errbars", .title = "t", .xlabel = "x", .ylabel = "y", .logy = true};
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, s, 3), GB_OK);
  char *gp = slurp_in(dir, "errbars.gp");
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2:4:5 with yerrorlines pt 7 ps 0.8 lw 1.5 lc 1 title 'bars'"));
  /* lone points: drawn plain, then the bars of the points that have one */
  ck_assert_ptr_nonnull(strstr(gp, "index 1 using 1:2 with points pt 7 ps 1.2 lw 1.5 lc 2 notitle, \\\n"
                                   "  'errbars.dat' index 1 using ($4<$2 || $5>$2 ? $1 : NaN):2:4:5 with yerrorbars "
                                   "pt 7 ps 1.2 lw 1.5 lc 2 notitle"));
  ck_assert_ptr_nonnull(strstr(gp, "index 2 using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc 3 title 'plain'"));
  ck_assert(gb_test_gp_has_errorbars(gp));
  ck_assert_uint_eq(gb_test_gp_series(gp), 2);
  free(gp);
  char *dat = slurp_in(dir, "errbars.dat");
  ck_assert_ptr_nonnull(strstr(dat, "# series 0: \"bars\"\n# x y label low high\n1 10 \"\" 9 11\n2 20 \"\" 20 21\n"
                                    "3 30 \"\" 30 30\n"));
  ck_assert_ptr_nonnull(strstr(dat, "# series 2: \"plain\"\n# x y label\n1 10 \"\"\n"));
  free(dat);
  /* without lo/hi anywhere: no error bars */
  p.stem = "nobars";
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, s + 2, 1), GB_OK);
  gp = slurp_in(dir, "nobars.gp");
  ck_assert(!gb_test_gp_has_errorbars(gp));
  ck_assert_uint_eq(gb_test_gp_series(gp), 1);
  free(gp);
}
END_TEST

/* Error bars in x (a plan's band of hours) and in both axes: the xlow and
 * xhigh columns after low and high; a missing x end, or one not drawable
 * on a log x axis, is the point's x. Lone points with bars in both axes
 * use gnuplot's xyerrorbars (columns x y xlow xhigh ylow yhigh), and a
 * point whose bars have no length is left out of the bars' clause (its
 * caps would draw a cross over it) but drawn by the plain one. */
START_TEST(test_xy_error_bars) {
  const char *dir = gb_test_tmpdir();
  const double x[] = {10, 20, 30}, y[] = {100, 200, 300}, lo[] = {90, NAN, 300}, hi[] = {100, 250, 300},
               xlo[] = {8, -1, 30}, xhi[] = {10, 25, NAN};
  gb_plot_series s[] = {{.title = "band", .n = 3, .x = x, .y = y, .lo = lo, .hi = hi, .xlo = xlo, .xhi = xhi,
                         .style = GB_PLOT_POINTS, .dashed = true},
                        {.title = "across", .n = 3, .x = x, .y = y, .xlo = xlo, .xhi = xhi}};
  gb_plot_spec p = {.stem = "xybars", .title = "t", .xlabel = "x", .ylabel = "y", .logx = true, .logy = true};
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, s, 2), GB_OK);
  char *dat = slurp_in(dir, "xybars.dat");
  ck_assert_ptr_nonnull(dat);
  ck_assert_ptr_nonnull(strstr(dat, "# series 0: \"band\"\n# x y label low high xlow xhigh\n"
                                    "10 100 \"\" 90 100 8 10\n20 200 \"\" 200 250 20 25\n30 300 \"\" 300 300 30 30\n"));
  ck_assert_ptr_nonnull(strstr(dat, "# series 1: \"across\"\n# x y label xlow xhigh\n10 100 \"\" 8 10\n"));
  free(dat);
  char *gp = slurp_in(dir, "xybars.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2 with points pt 6 ps 1.2 lw 1.5 lc 1 notitle, \\\n"
                                   "  'xybars.dat' index 0 using ($6<$1 || $7>$1 || $4<$2 || $5>$2 ? $1 : NaN)"
                                   ":2:6:7:4:5 with xyerrorbars pt 6 ps 1.2 lw 1.5 lc 1 title 'band'"));
  ck_assert_ptr_nonnull(strstr(gp, "index 1 using 1:2:4:5 with xerrorlines pt 7 ps 0.8 lw 1.5 lc 2 title 'across'"));
  ck_assert(gb_test_gp_has_errorbars(gp));
  ck_assert_uint_eq(gb_test_gp_series(gp), 2);
  free(gp);
}
END_TEST

/* A band per point (GB_PLOT_SPANS): the error bars alone, no marker, not
 * drawn twice; a fixed y range (ymin < ymax) replaces the axis chosen from
 * the data, and without one a plot of values none below zero starts at 0. */
START_TEST(test_spans_and_yrange) {
  const char *dir = gb_test_tmpdir();
  const double x[] = {1, 2}, y[] = {0, 0}, lo[] = {-5, -300}, hi[] = {5, 300}, v[] = {1, 2};
  gb_plot_series s[] = {{.title = "threshold", .n = 2, .x = x, .y = y, .lo = lo, .hi = hi, .style = GB_PLOT_SPANS,
                         .dashed = true, .colour = 8},
                        {.title = "change", .n = 2, .x = x, .y = v, .style = GB_PLOT_POINTS}};
  gb_plot_spec p = {.stem = "spans", .title = "t", .xlabel = "x", .ylabel = "y", .ymin = -2.5, .ymax = 3};
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, s, 2), GB_OK);
  char *gp = slurp_in(dir, "spans.gp");
  ck_assert_ptr_nonnull(gp);
  ck_assert_ptr_nonnull(strstr(gp, "set yrange [-2.5:3]\n"));
  ck_assert_ptr_nonnull(strstr(gp, "index 0 using 1:2:4:5 with yerrorbars dt 2 ps 0 lw 1.5 lc 8 title 'threshold'"));
  ck_assert_uint_eq(gb_test_count(gp, "index 0 "), 1);
  free(gp);
  p.stem = "spans_auto";
  p.ymin = p.ymax = 0;
  ck_assert_int_eq(gb_plot_lines_script(dir, &p, s + 1, 1), GB_OK);
  gp = slurp_in(dir, "spans_auto.gp");
  ck_assert_ptr_nonnull(strstr(gp, "set yrange [0:*]\n"));
  free(gp);
}
END_TEST

int main(void) {
  bool have = gb_gnuplot_available();
  Suite *s = suite_create("plot");
  TCase *tc = tcase_create("no_gnuplot");
  tcase_add_test(tc, test_missing_gnuplot);
  tcase_add_test(tc, test_input_errors);
  tcase_add_test(tc, test_script_layout);
  tcase_add_test(tc, test_error_bars);
  tcase_add_test(tc, test_xy_error_bars);
  tcase_add_test(tc, test_spans_and_yrange);
  suite_add_tcase(s, tc);
  if (have) {
    TCase *tr = tcase_create("render");
    tcase_set_timeout(tr, 60);
    tcase_add_test(tr, test_lines_render);
    tcase_add_test(tr, test_bars_render);
    tcase_add_test(tr, test_bars_empty_series);
    tcase_add_test(tr, test_c_locale_numbers);
    tcase_add_test(tr, test_gnuplot_error_captured);
    suite_add_tcase(s, tr);
  }
  int rc = gb_test_run_suite(s);
  if (rc == 0 && !have) {
    fprintf(stderr, "check_plot: gnuplot (%s) not available: rendering tests skipped\n", gb_gnuplot_program());
    return 77;
  }
  return rc;
}
