/* gb_rep_plan: the procurement part of a report -- the ranked
 * configurations, their assumptions (prices with dates and sources,
 * utilization, PUE, electricity), cost-efficiency bars, time against cost
 * with the Pareto frontier, deadline and budget, and the sensitivity. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

#define PLAN_TABLE_MAX 15 /* distinct choices (type, provider, offering) listed in the ranked table */
#define PLAN_BARS_MAX 15  /* configurations in the efficiency bars */
#define PLAN_PARETO_LABELS 6 /* frontier points named in the time-cost plot, at most */
#define PLAN_TIME_COST_WIDTH_PX 1100
#define PLAN_TIME_COST_HEIGHT_PX 650
#define PLAN_BAR_STEP 2.0 /* time-cost plot: a band drawn on points this factor apart in hours */

static void config_name(const gb_planfile_row *p, char *buf, size_t n) {
  snprintf(buf, n, "%dx %s %s %s", p->gpu_count, p->gpu_type, p->provider, p->offering);
}

/* The short form for plots: "32x MI300X TensorWave on-demand" (the type up
 * to its first '-'), after "#rank " when with_rank and the row is ranked. */
static void short_config_name(const gb_planfile_row *p, bool with_rank, char *buf, size_t n) {
  char type[64];
  snprintf(type, sizeof type, "%s", p->gpu_type);
  char *dash = strchr(type, '-');
  if (dash) *dash = '\0';
  if (with_rank && p->rank >= 0)
    snprintf(buf, n, "#%d %dx %s %s %s", p->rank, p->gpu_count, type, p->provider, p->offering);
  else snprintf(buf, n, "%dx %s %s %s", p->gpu_count, type, p->provider, p->offering);
}

static void money(char *buf, size_t n, double usd) {
  if (isnan(usd)) buf[0] = '\0';
  else if (usd >= 100) gb_snprintf_c(buf, n, "%.0f", usd);
  else gb_snprintf_c(buf, n, "%.2f", usd);
}

/* One assumption row: its value when every plan row agrees, else "varies". */
static gb_err assumption(gb_rep *r, const char *name, size_t off, const char *unit) {
  double v = NAN;
  bool varies = false;
  for (size_t i = 0; i < r->plan.n; i++) {
    double x = *(const double *)((const char *)&r->plan.rows[i] + off);
    if (isnan(x)) continue;
    if (isnan(v)) v = x;
    else if (x != v) varies = true;
  }
  if (isnan(v)) return GB_OK;
  char val[96];
  if (varies) snprintf(val, sizeof val, "varies by configuration");
  else {
    char num[64];
    gb_fmt_double(num, sizeof num, v);
    snprintf(val, sizeof val, "%s%s%s", num, *unit ? " " : "", unit);
  }
  const char *cells[] = {name, val};
  return gb_doc_table_row(&r->doc, cells);
}

static gb_err plan_assumptions(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 3, "Assumptions");
  const char *hdr[] = {"assumption", "value"};
  if (!e) e = gb_doc_table_begin(&r->doc, 2, hdr, NULL);
  if (r->plan.n > 0) {
    const gb_planfile_row *p0 = &r->plan.rows[0];
    const char *text[][2] = {{"workload", p0->workload},
                             {"precision (GEMM rows of this dtype)", p0->precision},
                             {"GEMM window (burst: tflops rows; sustained: tflops_sustained)", p0->gemm_window}};
    for (size_t i = 0; i < sizeof text / sizeof text[0] && !e; i++)
      if (*text[i][1]) e = gb_doc_table_row(&r->doc, text[i]);
  }
  static const struct {
    const char *name;
    size_t off;
    const char *unit;
  } a[] = {{"deadline (max_hours)", offsetof(gb_planfile_row, max_hours), "h"},
           {"budget", offsetof(gb_planfile_row, budget_usd), "USD"},
           {"utilization of owned GPUs", offsetof(gb_planfile_row, utilization), ""},
           {"PUE", offsetof(gb_planfile_row, pue), ""},
           {"electricity price", offsetof(gb_planfile_row, electricity_usd_per_kwh), "USD/kWh"},
           {"model FLOP utilization (MFU)", offsetof(gb_planfile_row, mfu), ""},
           {"compute/communication overlap", offsetof(gb_planfile_row, overlap), ""}};
  for (size_t i = 0; i < sizeof a / sizeof a[0] && !e; i++) e = assumption(r, a[i].name, a[i].off, a[i].unit);
  if (!e) e = gb_doc_table_end(&r->doc);
  /* prices, one row per distinct offering */
  if (!e) e = gb_doc_heading(&r->doc, 3, "Prices used");
  const char *ph[] = {"GPU type", "provider", "offering", "basis", "USD per GPU-hour", "purchase USD per GPU",
                      "price date", "source"};
  if (!e) e = gb_doc_table_begin(&r->doc, 8, ph, NULL);
  /* one row per offering (type, provider, offering): its configurations
   * may differ in basis (one GPU measured, eight projected) and a rejected
   * one has no rate, so the bases are listed and the first rate shown */
  for (size_t i = 0; i < r->plan.n && !e; i++) {
    const gb_planfile_row *p = &r->plan.rows[i];
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      const gb_planfile_row *q = &r->plan.rows[j];
      seen = !strcmp(p->gpu_type, q->gpu_type) && !strcmp(p->provider, q->provider) &&
             !strcmp(p->offering, q->offering);
    }
    if (seen) continue;
    char basis[160] = "";
    double rate = NAN;
    gb_rep_names bases = {0};
    for (size_t j = i; j < r->plan.n && !e; j++) {
      const gb_planfile_row *q = &r->plan.rows[j];
      if (strcmp(p->gpu_type, q->gpu_type) || strcmp(p->provider, q->provider) || strcmp(p->offering, q->offering))
        continue;
      if (isnan(rate)) rate = q->price_usd_per_gpu_hour;
      if (q->basis && q->basis[0] && gb_rep_names_find(&bases, q->basis) == (size_t)-1) {
        e = gb_rep_names_add(&bases, q->basis);
        size_t l = strlen(basis);
        snprintf(basis + l, sizeof basis - l, "%s%s", l ? " / " : "", q->basis);
      }
    }
    gb_rep_names_free(&bases);
    /* an offering with no provider and no price says nothing to a reader */
    if (!*p->provider && isnan(rate) && isnan(p->purchase_usd_per_gpu)) continue;
    char price[32], buy[32];
    money(price, sizeof price, rate);
    money(buy, sizeof buy, p->purchase_usd_per_gpu);
    const char *cells[] = {p->gpu_type, p->provider, p->offering, basis, price, buy, p->price_date, p->price_source};
    if (!e) e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  return e;
}

static bool same_choice(const gb_planfile_row *a, const gb_planfile_row *b) {
  return !strcmp(a->gpu_type, b->gpu_type) && !strcmp(a->provider, b->provider) && !strcmp(a->offering, b->offering);
}

/* One row per distinct choice (GPU type, provider, offering): its
 * best-ranked configuration, with how many ranked rows share the choice
 * and their GPU counts (the top of a plan is often one offering at 40
 * counts whose figures differ by a percent). */
static gb_err plan_ranked(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 3, "Ranked configurations");
  size_t *lead = malloc((r->plan.n ? r->plan.n : 1) * sizeof *lead), nlead = 0;
  if (!lead) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < r->plan.n; i++) {
    size_t k = 0;
    while (k < nlead && !same_choice(&r->plan.rows[lead[k]], &r->plan.rows[i])) k++;
    if (k == nlead) lead[nlead++] = i;
  }
  char line[256];
  snprintf(line, sizeof line, "The best-ranked configuration of each choice (GPU type, provider, offering): %zu of "
           "%zu choice(s) in %zu rows (the CSV has them all).", nlead < PLAN_TABLE_MAX ? nlead : PLAN_TABLE_MAX,
           nlead, r->plan.n);
  if (!e) e = gb_doc_para(&r->doc, line);
  /* nominal figures here; the decision page and time against cost show the
   * end of the band the planner ranks by */
  bool banded = r->plan.n && gb_planfile_ranks_band_end(&r->plan.rows[0]);
  const char *hdr[] = {"rank", "GPUs", "GPU type", "nodes x GPUs", "provider", "offering",
                       banded ? "hours (nominal)" : "hours", banded ? "cost (USD, nominal)" : "cost (USD)",
                       "efficiency", "bottleneck", "Pareto", "feasible", "rows like it (GPUs)"};
  if (!e) e = gb_doc_table_begin(&r->doc, 13, hdr, NULL);
  for (size_t k = 0; k < nlead && k < PLAN_TABLE_MAX && !e; k++) {
    const gb_planfile_row *p = &r->plan.rows[lead[k]];
    size_t like = 0;
    int lo = p->gpu_count, hi = p->gpu_count;
    for (size_t j = lead[k]; j < r->plan.n; j++)
      if (same_choice(p, &r->plan.rows[j])) {
        like++;
        if (r->plan.rows[j].gpu_count < lo) lo = r->plan.rows[j].gpu_count;
        if (r->plan.rows[j].gpu_count > hi) hi = r->plan.rows[j].gpu_count;
      }
    char rank[16] = "", count[16], nodes[48] = "", hours[32], cost[32], eff[96], feas[300], rows[64];
    if (p->rank >= 0) snprintf(rank, sizeof rank, "%d", p->rank);
    snprintf(count, sizeof count, "%d", p->gpu_count);
    if (p->nodes >= 0 && p->gpus_per_node >= 0) snprintf(nodes, sizeof nodes, "%d x %d", p->nodes, p->gpus_per_node);
    gb_rep_fmt(hours, sizeof hours, p->hours);
    money(cost, sizeof cost, p->cost_usd);
    char ev[48];
    gb_rep_fmt(ev, sizeof ev, p->efficiency);
    snprintf(eff, sizeof eff, "%s %s", ev, p->efficiency_unit);
    snprintf(feas, sizeof feas, "%s%s%s", p->feasible ? "yes" : "no", *p->reason ? ": " : "", p->reason);
    if (lo == hi) snprintf(rows, sizeof rows, "%zu", like);
    else snprintf(rows, sizeof rows, "%zu (%d-%d)", like, lo, hi);
    const char *cells[] = {rank, count, p->gpu_type, nodes, p->provider, p->offering, hours, cost, eff,
                           p->bottleneck, p->pareto ? "yes" : "", feas, rows};
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  free(lead);
  return e;
}

/* Like with like: one bar per GPU type, its best-ranked feasible
 * configuration (the top rows are often one type at many counts, whose
 * efficiencies are the same figure). */
static gb_err plan_efficiency_bars(gb_rep *r) {
  const char *caption = "Cost efficiency per GPU type: its best-ranked feasible configuration";
  char(*names)[200] = calloc(PLAN_BARS_MAX, sizeof *names);
  const char *cats[PLAN_BARS_MAX];
  double vals[PLAN_BARS_MAX];
  size_t n = 0;
  const char *unit = "";
  gb_rep_names seen = {0};
  gb_err e = names ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < r->plan.n && n < PLAN_BARS_MAX && !e; i++) {
    const gb_planfile_row *p = &r->plan.rows[i];
    if (!p->feasible || !isfinite(p->efficiency) || gb_rep_names_find(&seen, p->gpu_type) != (size_t)-1) continue;
    e = gb_rep_names_add(&seen, p->gpu_type);
    short_config_name(p, true, names[n], sizeof names[0]);
    cats[n] = names[n];
    vals[n] = p->efficiency;
    unit = p->efficiency_unit;
    n++;
  }
  gb_rep_names_free(&seen);
  if (e) {
  } else if (n == 0) e = gb_rep_skip(r, caption, "the plan has no feasible configuration with an efficiency");
  else {
    char ylabel[160], title[200], cap[400];
    snprintf(ylabel, sizeof ylabel, "efficiency (%s)", *unit ? unit : "as planned");
    snprintf(title, sizeof title, "Cost efficiency, best feasible configuration of each of %zu GPU types", n);
    snprintf(cap, sizeof cap, "%s (%s, higher is better). Source: the plan CSV's efficiency column, rows named by "
             "rank.", caption, *unit ? unit : "as planned");
    gb_plot_series s = {.title = ylabel, .n = n, .y = vals};
    gb_plot_spec p = {.stem = "plan_efficiency", .title = title, .xlabel = "configuration (rank, GPUs, type, offer)",
                      .ylabel = ylabel, .width_px = 1100, .height_px = 650};
    e = gb_rep_bars(r, &p, cats, n, &s, 1, cap);
  }
  free(names);
  return e;
}

/* Order of plan rows for condensing: by GPU type, basis kind, then hours. */
static const gb_planfile_row *g_sort_rows;
static int measured_kind(const gb_planfile_row *p) { return p->basis && strncmp(p->basis, "measured", 8) == 0; }
static int cmp_type_hours(const void *a, const void *b) {
  const gb_planfile_row *x = &g_sort_rows[*(const size_t *)a], *y = &g_sort_rows[*(const size_t *)b];
  int c = strcmp(x->gpu_type, y->gpu_type);
  if (c) return c;
  if (measured_kind(x) != measured_kind(y)) return measured_kind(y) - measured_kind(x);
  if (x->rank_hours != y->rank_hours) return x->rank_hours < y->rank_hours ? -1 : 1;
  return x->rank_cost < y->rank_cost ? -1 : x->rank_cost > y->rank_cost;
}

/* What the time-cost plot is drawn from. Every point sits at the end of its
 * band the planner ranked it by and marked the frontier at (rank_hours,
 * rank_cost): drawn at the nominal figures instead, the frontier zigzags,
 * and the deadline and budget lines would not bound what is drawn. */
typedef struct tc_plot {
  double *px, *py;      /* the Pareto frontier (all types): hours, cost */
  const char **pl;      /* its labels (NULL: unnamed) */
  char (*names)[160];   /* the labels' text */
  size_t np;            /* frontier points */
  size_t *idx, nk;      /* the feasible rows, by GPU type, basis kind, hours */
  size_t ni, drawn;     /* infeasible rows; points drawn */
  size_t banded;        /* points drawn with a band (error bars) */
  double deadline, budget; /* NAN when the plan has none */
  sset ss;              /* a series per GPU type and basis kind */
} tc_plot;

/* The feasible rows (idx) and the frontier's points; the deadline and the
 * budget. */
static void tc_collect(const gb_rep *r, tc_plot *t) {
  for (size_t i = 0; i < r->plan.n; i++) {
    const gb_planfile_row *p = &r->plan.rows[i];
    if (isfinite(p->max_hours) && p->max_hours > 0) t->deadline = p->max_hours;
    if (isfinite(p->budget_usd) && p->budget_usd > 0) t->budget = p->budget_usd;
    if (!isfinite(p->rank_hours) || !isfinite(p->rank_cost) || p->rank_hours <= 0 || p->rank_cost <= 0) continue;
    if (!p->feasible) {
      t->ni++;
      continue;
    }
    t->idx[t->nk++] = i;
    if (p->pareto) {
      short_config_name(p, false, t->names[t->np], sizeof t->names[0]);
      t->px[t->np] = p->rank_hours;
      t->py[t->np] = p->rank_cost;
      t->pl[t->np] = t->names[t->np];
      t->np++;
    }
  }
}

/* The feasible rows condensed: per GPU type and basis kind, the rows no
 * faster-and-cheaper row of the same type and kind beats (10 000
 * configurations draw as a smear; their frontiers say the same), and
 * thinned: a frontier point is drawn when its time or cost is 5% off the
 * last one drawn of its series (a frontier of 500 counts in steps of one
 * node draws as the same curve from 60 points). */
static gb_err tc_series(const gb_rep *r, tc_plot *t) {
  const gb_planfile_row *rows = r->plan.rows;
  g_sort_rows = rows;
  if (t->nk > 1) qsort(t->idx, t->nk, sizeof *t->idx, cmp_type_hours);
  gb_rep_names types = {0};
  gb_err e = GB_OK;
  for (size_t k = 0; k < t->nk && !e; k++) e = gb_rep_names_add(&types, rows[t->idx[k]].gpu_type);
  double best = INFINITY, lastx = 0, lasty = 0, lastbar = 0;
  for (size_t k = 0; k < t->nk && !e; k++) {
    const gb_planfile_row *p = &rows[t->idx[k]];
    bool first = k == 0 || strcmp(p->gpu_type, rows[t->idx[k - 1]].gpu_type) ||
                 measured_kind(p) != measured_kind(&rows[t->idx[k - 1]]);
    if (first) best = INFINITY, lastx = 0, lasty = 0, lastbar = 0;
    if (p->rank_cost >= best) continue;
    best = p->rank_cost;
    bool last_of_series = k + 1 == t->nk || strcmp(p->gpu_type, rows[t->idx[k + 1]].gpu_type) ||
                          measured_kind(p) != measured_kind(&rows[t->idx[k + 1]]);
    if (!first && !last_of_series && p->rank_hours < lastx * 1.05 && p->rank_cost > lasty / 1.05) continue;
    lastx = p->rank_hours;
    lasty = p->rank_cost;
    char title[192];
    snprintf(title, sizeof title, "%.100s %s", p->gpu_type, measured_kind(p) ? "measured" : "projected");
    sbuf *b = gb_rep_sset_get(&t->ss, title);
    if (!b) e = gb_fail(GB_E_NOMEM, "out of memory");
    else {
      b->style = GB_PLOT_POINTS;
      b->colour = (int)gb_rep_names_find(&types, p->gpu_type) + 1;
      b->dashed = !measured_kind(p);
      /* the band, as bars in both axes (NaN where the file has none), on
       * the series' ends and on points PLAN_BAR_STEP apart in hours
       * between: a bar on each of 60 points hides the points */
      bool bar = first || last_of_series || p->rank_hours >= lastbar * PLAN_BAR_STEP;
      if (bar) lastbar = p->rank_hours;
      e = bar ? gb_rep_sbuf_add_xyerr(b, p->rank_hours, p->rank_cost, p->hours_low, p->hours_high, p->cost_low,
                                      p->cost_high, NULL)
              : gb_rep_sbuf_add(b, p->rank_hours, p->rank_cost, NULL);
      t->drawn++;
      if (bar && (p->hours_high > p->hours_low || p->cost_high > p->cost_low)) t->banded++;
    }
  }
  gb_rep_names_free(&types);
  return e;
}

/* The frontier as a line: points by time. Drawn as a line it only falls
 * with time: a point some faster (or as fast) and no dearer point beats is
 * left out (none is, when the planner marked the frontier at the figures
 * drawn; a hand-made file may differ). */
static void tc_frontier_line(tc_plot *t) {
  double *px = t->px, *py = t->py;
  const char **pl = t->pl;
  for (size_t a = 1; a < t->np; a++)
    for (size_t b = a; b > 0 && px[b - 1] > px[b]; b--) {
      double x = px[b];
      px[b] = px[b - 1];
      px[b - 1] = x;
      x = py[b];
      py[b] = py[b - 1];
      py[b - 1] = x;
      const char *l = pl[b];
      pl[b] = pl[b - 1];
      pl[b - 1] = l;
    }
  size_t m = 0;
  for (size_t k = 0; k < t->np; k++)
    if (m == 0 || py[k] < py[m - 1]) {
      px[m] = px[k], py[m] = py[k], pl[m] = pl[k];
      m++;
    }
  t->np = m;
}

/* Label at most PLAN_PARETO_LABELS frontier points whose labels cannot
 * print over each other: from the cheapest (slowest) end, a point is named
 * when its cost is at least min_step decades above the last one named.
 * The plot is about height - 190 px high over the decades the costs span
 * (the log axis rounds out to whole decades); a label line takes ~18 px. */
static void tc_labels(const gb_rep *r, tc_plot *t) {
  double lo = INFINITY, hi = -INFINITY, xlo = INFINITY, xhi = -INFINITY;
  for (size_t k = 0; k < t->nk; k++) {
    const gb_planfile_row *p = &r->plan.rows[t->idx[k]];
    lo = fmin(lo, p->rank_cost), hi = fmax(hi, p->rank_cost);
    xlo = fmin(xlo, p->rank_hours), xhi = fmax(xhi, p->rank_hours);
  }
  if (isfinite(t->budget)) lo = fmin(lo, t->budget), hi = fmax(hi, t->budget);
  double decades = t->np ? fmax(1, ceil(log10(hi)) - floor(log10(lo))) : 1;
  double min_step = 18.0 / ((PLAN_TIME_COST_HEIGHT_PX - 190) / decades);
  /* a label ends left of its point: it must fit between the point and the
   * y axis (the plot about width - 135 px wide over its decades of hours; a
   * character of the 9-point label font about 7.2 px) */
  if (isfinite(t->deadline)) xlo = fmin(xlo, t->deadline), xhi = fmax(xhi, t->deadline);
  double xfloor = t->np ? floor(log10(xlo)) : 0;
  double px_per_decade = (PLAN_TIME_COST_WIDTH_PX - 135) / (t->np ? fmax(1, ceil(log10(xhi)) - xfloor) : 1);
  double last = -INFINITY;
  size_t named = 0;
  for (size_t k = t->np; k-- > 0;) {
    double ly = log10(t->py[k]);
    bool fits = (log10(t->px[k]) - xfloor) * px_per_decade >= (double)strlen(t->pl[k]) * 7.2 + 16;
    if (named < PLAN_PARETO_LABELS && fits && ly - last >= min_step) {
      last = ly;
      named++;
    } else {
      t->pl[k] = NULL;
    }
  }
}

/* The plot: the series of tc_series, the frontier, the deadline and the
 * budget (e: an error so far, passed on). */
static gb_err tc_draw(gb_rep *r, tc_plot *t, const char *caption, gb_err e) {
  gb_plot_series *s = e ? NULL : gb_rep_sset_series(&t->ss, false);
  size_t ns = t->ss.n;
  if (!e && !s) e = gb_fail(GB_E_NOMEM, "out of memory");
  gb_plot_series *s2 = e ? NULL : realloc(s, (ns + 1) * sizeof *s);
  if (!e && !s2) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) s = s2;
  if (!e && t->np)
    s[ns++] = (gb_plot_series){.title = "Pareto frontier (all types)", .n = t->np, .x = t->px, .y = t->py,
                               .emphasis = true, .labels = t->pl, .colour = 8, .style = GB_PLOT_LINES,
                               .label_side = GB_PLOT_LABEL_LEFT_BELOW}; /* nothing is faster and cheaper: that corner is empty */
  gb_plot_marker mk[2];
  size_t nmk = 0;
  char dl[64], bl[64];
  if (isfinite(t->deadline)) {
    gb_snprintf_c(dl, sizeof dl, "deadline %g h", t->deadline);
    mk[nmk++] = (gb_plot_marker){'x', t->deadline, dl};
  }
  if (isfinite(t->budget)) {
    char usd[48];
    gb_rep_usd(usd, sizeof usd, t->budget);
    snprintf(bl, sizeof bl, "budget %s USD", usd);
    mk[nmk++] = (gb_plot_marker){'y', t->budget, bl};
  }
  gb_plot_spec p = {.stem = "plan_time_cost", .title = "Time against cost per configuration",
                    .xlabel = "time to finish (hours, log scale)", .ylabel = "cost (USD, log scale)", .logx = true,
                    .logy = true, .markers = mk, .nmarkers = nmk, .width_px = PLAN_TIME_COST_WIDTH_PX,
                    .height_px = PLAN_TIME_COST_HEIGHT_PX};
  char cap2[1100];
  snprintf(cap2, sizeof cap2, "%s; each configuration at %s, the figures the planner ranks by and checks the "
           "deadline and budget at%s. Source: the plan's %zu feasible rows, %zu drawn%s.", caption,
           r->plan.n ? gb_planfile_rank_end(&r->plan.rows[0]) : "its nominal figures",
           t->banded ? "; error bars (at each type's ends and every doubling of hours between): the band of "
                       "hours (across) and of cost (up), from the fast, cheap end to the slow, dear one"
                     : "",
           t->nk, t->drawn, t->ni ? "; infeasible rows (deadline, budget or memory) are in the CSV" : "");
  if (!e && ns == 0) e = gb_rep_skip(r, caption, "no feasible configuration has both hours and cost");
  else if (!e) e = gb_rep_lines(r, &p, s, ns, cap2);
  free(s);
  return e;
}

static gb_err plan_time_cost(gb_rep *r) {
  const char *caption = "Time against cost, by GPU type: filled circles measured, open circles projected; each "
                        "type's own frontier (no faster and cheaper configuration of that type), the overall "
                        "Pareto frontier as a line";
  size_t n = r->plan.n;
  tc_plot t = {.deadline = NAN, .budget = NAN};
  t.px = calloc(n + 1, sizeof *t.px);
  t.py = calloc(n + 1, sizeof *t.py);
  t.pl = calloc(n + 1, sizeof *t.pl);
  t.names = calloc(n + 1, sizeof *t.names);
  t.idx = calloc(n + 1, sizeof *t.idx);
  gb_err e = GB_OK;
  if (!t.px || !t.py || !t.pl || !t.names || !t.idx) e = gb_fail(GB_E_NOMEM, "out of memory");
  else tc_collect(r, &t);
  if (!e) e = tc_series(r, &t);
  tc_frontier_line(&t);
  tc_labels(r, &t);
  e = tc_draw(r, &t, caption, e);
  gb_rep_sset_free(&t.ss);
  free(t.idx);
  free(t.px);
  free(t.py);
  free(t.pl);
  free(t.names);
  return e;
}

static gb_err plan_sensitivity(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 3, "Sensitivity");
  if (!e && !r->have_sens)
    return gb_doc_para(&r->doc, "No sensitivity CSV was given (--plan-sensitivity).");
  if (!e)
    e = gb_doc_para(&r->doc, "Each factor changed by the given percentage, the top pick then, and whether it "
                             "differs from the baseline pick.");
  const char *hdr[] = {"factor", "change (%)", "top pick", "hours", "cost (USD)", "pick changed"};
  if (!e) e = gb_doc_table_begin(&r->doc, 6, hdr, NULL);
  for (size_t i = 0; i < r->sens.n && !e; i++) {
    const gb_sensfile_row *s = &r->sens.rows[i];
    char pct[32], pick[256], hours[32], cost[32];
    gb_snprintf_c(pct, sizeof pct, "%+g", s->change_pct);
    snprintf(pick, sizeof pick, "%dx %s %s %s", s->top_gpu_count, s->top_gpu_type, s->top_provider, s->top_offering);
    gb_rep_fmt(hours, sizeof hours, s->hours);
    money(cost, sizeof cost, s->cost_usd);
    const char *cells[] = {s->factor, pct, pick, hours, cost, s->changed ? "yes" : "no"};
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  return e;
}

gb_err gb_rep_section_plan(gb_rep *r) {
  gb_err e = gb_rep_section_decision(r);
  if (!e) e = gb_doc_heading(&r->doc, 2, "Procurement plan");
  char line[512];
  if (!e) {
    size_t feasible = 0;
    for (size_t i = 0; i < r->plan.n; i++) feasible += r->plan.rows[i].feasible;
    snprintf(line, sizeof line, "From %s: %zu configurations, %zu feasible.", gb_rep_basename(r->o->plan_path), r->plan.n,
             feasible);
    e = gb_doc_para(&r->doc, line);
  }
  if (!e && r->plan.n > 0 && r->plan.rows[0].feasible) {
    const gb_planfile_row *p = &r->plan.rows[0];
    char c[200], h[32], cost[32], at[96] = "";
    config_name(p, c, sizeof c);
    gb_rep_fmt(h, sizeof h, p->rank_hours);
    money(cost, sizeof cost, p->rank_cost);
    if (gb_planfile_ranks_band_end(p)) snprintf(at, sizeof at, ", at %s", gb_planfile_rank_end(p));
    snprintf(line, sizeof line, "Top pick: %s, %s hours, %s USD%s (%s bound).", c, h, cost, at,
             *p->bottleneck ? p->bottleneck : "unknown");
    e = gb_doc_para(&r->doc, line);
  }
  if (!e) e = plan_assumptions(r);
  if (!e) e = plan_ranked(r);
  if (!e) e = plan_efficiency_bars(r);
  if (!e) e = plan_time_cost(r);
  if (!e) e = plan_sensitivity(r);
  return e;
}
