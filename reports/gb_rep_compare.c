/* gb_rep_compare: the comparison view (`gpubench report --compare BASELINE
 * CURRENT`) -- what changed between two runs, drawn: per benchmark, each
 * figure's change current against baseline (oriented: up is better), the
 * gate's verdict as the point's series and its threshold as a band, then
 * the table of every figure whose verdict is not "unchanged".
 *
 * The only file of the report that uses the gate (gate/gb_gate.h:
 * gb_gate_judge_pair and its gb_gate_item): the two files are judged exactly
 * as `gpubench compare BASELINE CURRENT` judges them -- the same reading, the
 * shipped floors, the same defaults -- so the report states the same verdict
 * and counts, the floors file it used (or the warning that none was found)
 * and each figure's minimum detectable change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_gate.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"
#include "gb_stats.h"

#define CMP_LABELS_MAX 8 /* figures named in a benchmark's plot, the largest changes first */
#define CMP_WIDTH_PX 1100
#define CMP_HEIGHT_PX 600

/* The verdicts drawn, each a series: its title and colour. */
static const struct {
  gb_verdict v;
  const char *title;
  int colour;
} k_drawn[] = {
    {GB_VERDICT_REGRESSION, "regression", 7},
    {GB_VERDICT_IMPROVEMENT, "improvement", 2},
    {GB_VERDICT_NOISE, "noise (beyond the threshold, not significant)", 5},
    {GB_VERDICT_WORSE_INFO, "worse, latency-bound (information)", 4},
    {GB_VERDICT_BETTER_INFO, "better, latency-bound (information)", 6},
    {GB_VERDICT_UNCHANGED, "unchanged", 3},
};
#define NDRAWN (sizeof k_drawn / sizeof k_drawn[0])

static int cmp_items(const void *a, const void *b) {
  const gb_gate_item *x = *(const gb_gate_item *const *)a, *y = *(const gb_gate_item *const *)b;
  return strcmp(x->key, y->key);
}

/* Names (named[i]) for the CMP_LABELS_MAX largest changes not unchanged,
 * each clear of the names given before it: a label starts right of its
 * point, ~7.2 px a character of the 9-point font, 18 px a line; the frame
 * is about CMP_WIDTH_PX - 135 px wide over n + 1 figures and
 * CMP_HEIGHT_PX - 190 px high over 2 ylim. A change whose name would clash
 * goes unnamed and a later, smaller one may still be named. */
static gb_err choose_names(const gb_gate_item *const *it, size_t n, const char (*tag)[24], double ylim, bool *named) {
  bool *clash = calloc(n, sizeof *clash);
  if (!clash) return gb_fail(GB_E_NOMEM, "out of memory");
  double px_x = (CMP_WIDTH_PX - 135.0) / (double)(n + 1), px_y = (CMP_HEIGHT_PX - 190.0) / (2 * ylim);
  for (size_t m = 0; m < CMP_LABELS_MAX;) {
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
      if (named[i] || clash[i] || it[i]->verdict == GB_VERDICT_UNCHANGED) continue;
      if (best == n || fabs(it[i]->change_pct) > fabs(it[best]->change_pct)) best = i;
    }
    if (best == n) break;
    for (size_t j = 0; j < n && !clash[best]; j++) {
      if (!named[j]) continue;
      size_t left = j < best ? j : best;
      double dx = fabs((double)j - (double)best) * px_x, dy = fabs(it[j]->change_pct - it[best]->change_pct) * px_y;
      clash[best] = dx < ((double)strlen(tag[left]) + 1) * 7.2 && dy < 18;
    }
    if (!clash[best]) named[best] = true, m++;
  }
  free(clash);
  return GB_OK;
}

/* Draws bench's figures; plot_no[item] = its number in the plot (1, 2, ...),
 * which the table repeats and the plot's labels show. */
static gb_err bench_plot(gb_rep *r, const gb_gate_report *g, const char *bench, size_t *plot_no) {
  size_t n = 0;
  for (size_t i = 0; i < g->nitems; i++)
    if (!strcmp(g->items[i].benchmark, bench) && isfinite(g->items[i].change_pct)) n++;
  if (n == 0) return GB_OK;
  const gb_gate_item **it = calloc(n, sizeof *it);
  double *x = calloc(n, sizeof *x), *tp = calloc(n, sizeof *tp), *tm = calloc(n, sizeof *tm);
  double *zero = calloc(n, sizeof *zero);
  double *vx[NDRAWN], *vy[NDRAWN];
  const char **vl[NDRAWN];
  size_t vn[NDRAWN] = {0};
  gb_err e = it && x && tp && tm && zero ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t d = 0; d < NDRAWN; d++) {
    vx[d] = calloc(n, sizeof *vx[d]);
    vy[d] = calloc(n, sizeof *vy[d]);
    vl[d] = calloc(n, sizeof *vl[d]);
    if (!vx[d] || !vy[d] || !vl[d]) e = gb_fail(GB_E_NOMEM, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < g->nitems && !e; i++)
    if (!strcmp(g->items[i].benchmark, bench) && isfinite(g->items[i].change_pct)) it[k++] = &g->items[i];
  if (!e) qsort(it, n, sizeof *it, cmp_items);
  bool *named = calloc(n, sizeof *named);
  char(*tag)[24] = calloc(n, sizeof *tag);
  if ((!named || !tag) && !e) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < n && !e; i++) {
    plot_no[it[i] - g->items] = i + 1;
    snprintf(tag[i], sizeof tag[i], "#%zu", i + 1);
  }
  double most = 0; /* the largest change */
  for (size_t i = 0; i < n && !e; i++) {
    x[i] = (double)(i + 1);
    double t = isfinite(it[i]->threshold_pct) ? it[i]->threshold_pct : g->threshold_pct;
    tp[i] = t;
    tm[i] = -t;
    most = fmax(most, fabs(it[i]->change_pct));
  }
  /* The y axis: every change, and the thresholds up to the third
   * quartile's; the larger ones (latency-bound sizes' 100-300%) would
   * flatten every other figure and run off the frame instead. */
  double ylim = e ? 1 : 1.15 * fmax(fmax(most, gb_quantile(tp, n, 0.75)), g->threshold_pct);
  size_t off = 0;
  for (size_t i = 0; i < n && !e; i++) off += tp[i] > ylim;
  if (!e) e = choose_names(it, n, tag, ylim, named);
  for (size_t i = 0; i < n && !e; i++) {
    for (size_t d = 0; d < NDRAWN; d++)
      if (it[i]->verdict == k_drawn[d].v) {
        vx[d][vn[d]] = x[i];
        vy[d][vn[d]] = it[i]->change_pct;
        vl[d][vn[d]] = named[i] ? tag[i] : NULL;
        vn[d]++;
      }
  }
  gb_plot_series s[NDRAWN + 1];
  size_t ns = 0;
  /* each figure's threshold a bar of its own, drawn first, under the
   * points (a line through them zigzags between neighbours of different
   * sizes) */
  s[ns++] = (gb_plot_series){.title = "the gate's threshold: minimum detectable change (+/-)", .n = n, .x = x,
                             .y = zero, .lo = tm, .hi = tp, .style = GB_PLOT_SPANS, .dashed = true, .colour = 8};
  for (size_t d = 0; d < NDRAWN; d++)
    if (vn[d])
      s[ns++] = (gb_plot_series){.title = k_drawn[d].title, .n = vn[d], .x = vx[d], .y = vy[d],
                                 .style = GB_PLOT_POINTS, .colour = k_drawn[d].colour, .labels = vl[d]};
  char stem[128], title[192], xlabel[192], caption[512], part[64];
  gb_rep_stem_part(part, sizeof part, bench);
  snprintf(stem, sizeof stem, "compare_%s", part);
  snprintf(title, sizeof title, "What changed: %s, current against baseline", bench);
  snprintf(xlabel, sizeof xlabel, "figure # of %s (%zu in key order; the table below names those not unchanged)",
           bench, n);
  gb_plot_marker mk[1] = {{'y', 0, ""}};
  gb_plot_spec p = {.stem = stem, .title = title, .xlabel = xlabel,
                    .ylabel = "change (%, oriented: up is better)", .markers = mk, .nmarkers = 1,
                    .width_px = CMP_WIDTH_PX, .height_px = CMP_HEIGHT_PX, .ymin = -ylim, .ymax = ylim};
  char offs[160] = "";
  if (off)
    gb_snprintf_c(offs, sizeof offs, " (%zu of them beyond the axis's +/-%.0f%%, cut at the frame)", off, ylim);
  snprintf(caption, sizeof caption,
           "%s: change per figure, current against baseline (%%, up is better); colour: the gate's verdict; dashed "
           "bars: its minimum detectable change%s. Source: the %zu %s keys both files hold.",
           bench, offs, n, bench);
  if (!e) e = gb_rep_lines(r, &p, s, ns, caption);
  for (size_t d = 0; d < NDRAWN; d++) {
    free(vx[d]);
    free(vy[d]);
    free(vl[d]);
  }
  free(named);
  free(tag);
  free(it);
  free(x);
  free(tp);
  free(tm);
  free(zero);
  return e;
}

static gb_err changed_table(gb_rep *r, const gb_gate_report *g, const size_t *plot_no) {
  size_t shown = 0;
  for (size_t i = 0; i < g->nitems; i++) shown += g->items[i].verdict != GB_VERDICT_UNCHANGED;
  if (shown == 0) return gb_doc_para(&r->doc, "Every figure both files hold is unchanged.");
  gb_err e = gb_doc_heading(&r->doc, 3, "Figures not unchanged");
  const char *hdr[] = {"verdict", "plot #", "figure", "baseline", "current", "change (%)", "threshold: MDC (%)",
                       "note"};
  if (!e) e = gb_doc_table_begin(&r->doc, 8, hdr, "lrlrrrrl");
  for (size_t i = 0; i < g->nitems && !e; i++) {
    const gb_gate_item *it = &g->items[i];
    if (it->verdict == GB_VERDICT_UNCHANGED) continue;
    char b[32], c[32], ch[32] = "", th[32] = "", no[64] = "";
    if (plot_no[i]) snprintf(no, sizeof no, "%.30s #%zu", it->benchmark, plot_no[i]);
    gb_rep_fmt(b, sizeof b, it->base.median);
    gb_rep_fmt(c, sizeof c, it->cur.median);
    if (isfinite(it->change_pct)) gb_snprintf_c(ch, sizeof ch, "%+.1f", it->change_pct);
    if (isfinite(it->threshold_pct)) gb_snprintf_c(th, sizeof th, "%.1f", it->threshold_pct);
    const char *cells[] = {gb_verdict_name(it->verdict), no, it->key, b, c, ch, th, it->note};
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  return e;
}

/* The gate's verdict (its summary line, as compare prints it), the floors
 * it judged with, and what a machine mismatch or a library change means. */
static gb_err verdict_paras(gb_rep *r, const gb_gate_pair *p) {
  const gb_report_options *o = r->o;
  char line[4400];
  snprintf(line, sizeof line, "Baseline %s, current %s, judged by the regression gate exactly as gpubench compare "
           "%s %s judges them (its verdict, counts and exit status are these). Each plot shows one benchmark's "
           "figures in key order: the change of the median, current against baseline, in %% and oriented so that "
           "up is better (a lower-is-better metric's sign is turned); the point's colour is the gate's verdict, "
           "the dashed bar its threshold for that figure: its minimum detectable change (MDC, from the "
           "run-to-run noise floor of its figure and the sides' spread; never under the base threshold).",
           gb_rep_basename(o->results[0]), gb_rep_basename(o->results[1]), gb_rep_basename(o->results[0]),
           gb_rep_basename(o->results[1]));
  gb_err e = gb_doc_para(&r->doc, line);
  gb_buf sum = {0};
  if (!e) e = gb_gate_summary(&p->rep, &sum);
  if (!e) e = gb_doc_para(&r->doc, sum.data ? sum.data : "");
  gb_buf_free(&sum);
  if (!e && p->floors[0]) {
    snprintf(line, sizeof line, "Noise floors: %s.", p->floors);
    e = gb_doc_para(&r->doc, line);
  }
  if (!e && p->warning[0]) e = gb_doc_note(&r->doc, p->warning);
  if (!e && p->rep.libraries_msg[0]) {
    snprintf(line, sizeof line, "Library versions changed: %s.", p->rep.libraries_msg);
    e = gb_doc_para(&r->doc, line);
  }
  return e;
}

gb_err gb_rep_section_compare(gb_rep *r) {
  const gb_report_options *o = r->o;
  if (!o->compare || o->nresults != 2) return GB_OK;
  gb_gate_pair pair;
  gb_err e = gb_gate_judge_pair(o->results[0], o->results[1], &pair);
  const gb_gate_report *g = &pair.rep;
  if (e) return e;
  e = gb_doc_heading(&r->doc, 2, "What changed");
  if (!e) e = verdict_paras(r, &pair);
  /* one plot per benchmark, in the order of the description table */
  size_t *plot_no = e ? NULL : calloc(g->nitems + 1, sizeof *plot_no);
  if (!e && !plot_no) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t b = 0; b < gb_nbench_descs && !e; b++) e = bench_plot(r, g, gb_bench_descs[b].name, plot_no);
  /* benchmarks the table lacks, in the order first seen */
  gb_rep_names other = {0};
  for (size_t i = 0; i < g->nitems && !e; i++)
    if (!gb_desc_find(g->items[i].benchmark)) e = gb_rep_names_add(&other, g->items[i].benchmark);
  for (size_t i = 0; i < other.n && !e; i++) e = bench_plot(r, g, other.v[i], plot_no);
  gb_rep_names_free(&other);
  if (!e && g->mismatch) e = gb_doc_para(&r->doc, "Nothing is drawn: the gate compared nothing.");
  else if (!e) e = changed_table(r, g, plot_no);
  free(plot_no);
  gb_gate_pair_free(&pair);
  return e;
}
