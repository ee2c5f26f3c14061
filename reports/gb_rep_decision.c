/* gb_rep_decision: the decision page at the top of the procurement part --
 * the recommended configuration and the best one on a measured GPU type,
 * each with its hours, cash needed, per-job cost and band; renting against
 * buying over months; how the top choice's cost moves with price,
 * efficiency and utilization (the sensitivity CSV).
 *
 * Reads the reworked planner's columns (capex_usd, amortized_usd,
 * cash_usd, hours_low/high, cost_low/high) where the plan CSV has them and
 * falls back to what older plan files hold (cost_usd, purchase_usd_per_gpu),
 * saying so on the page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

#define HOURS_PER_MONTH 730.0
#define RVB_MONTHS_MIN 24
#define RVB_MONTHS_MAX 120

static bool is_purchase(const gb_planfile_row *p) { return isfinite(p->purchase_usd_per_gpu); }

static bool basis_measured(const char *b) { return b && strncmp(b, "measured", 8) == 0; }

/* The GPU types some row of the plan rests on a measurement of. */
static gb_err measured_types(const gb_rep *r, gb_rep_names *out) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < r->plan.n && !e; i++)
    if (basis_measured(r->plan.rows[i].basis)) e = gb_rep_names_add(out, r->plan.rows[i].gpu_type);
  return e;
}

/* What must be paid for the job: cash_usd; else, buying, the GPUs' price
 * (capex_usd, or GPUs x purchase price); else the rental bill. */
static double cash_needed(const gb_planfile_row *p, bool *estimated) {
  *estimated = false;
  if (isfinite(p->cash_usd)) return p->cash_usd;
  if (isfinite(p->capex_usd)) return p->capex_usd;
  if (is_purchase(p)) {
    *estimated = true;
    return p->gpu_count * p->purchase_usd_per_gpu;
  }
  return p->cost_usd;
}

/* The job's own cost: amortized_usd, else cost_usd (the bill when renting,
 * the amortized share when buying, in older plan files too). */
static double per_job(const gb_planfile_row *p) { return isfinite(p->amortized_usd) ? p->amortized_usd : p->cost_usd; }

/* A row's hours, cash needed and per-job cost at the end of its band the
 * planner ranked it by (rank_hours: what `gpubench plan` prints). The
 * costs go with the hours as in the planner (renting: the bill; buying:
 * the amortized share, energy and operations; not the capex); a file
 * without a band has rank_hours == hours. */
typedef struct figures {
  double hours, cash, job;
  bool est; /* cash: the GPUs only (an older plan file) */
} figures;

static figures at_rank(const gb_planfile_row *p) {
  figures f = {.hours = p->rank_hours};
  double s = isfinite(p->hours) && p->hours > 0 && isfinite(p->rank_hours) ? p->rank_hours / p->hours : 1;
  /* the price's age widens the whole cost at the ranked end, as the planner's cost_low/cost_high */
  double w = isfinite(p->price_band_widening) && gb_planfile_ranks_band_end(p) ? p->price_band_widening : 0;
  double pw = !strcmp(p->rank_by, "low") ? 1 + w : !strcmp(p->rank_by, "high") ? 1 - w : 1;
  double cash = cash_needed(p, &f.est), capex = isfinite(p->capex_usd) ? p->capex_usd : 0;
  f.cash = (isfinite(p->cash_usd) ? capex + (cash - capex) * s : cash) * pw;
  f.job = per_job(p) * s * pw;
  return f;
}

static void band(const gb_planfile_row *p, char *buf, size_t n) { /* n >= 192 */
  char a[32], b[32], c[32], d[32];
  if (isfinite(p->hours_low) && isfinite(p->hours_high)) {
    gb_rep_fmt(a, sizeof a, p->hours_low);
    gb_rep_fmt(b, sizeof b, p->hours_high);
    if (isfinite(p->cost_low) && isfinite(p->cost_high)) {
      gb_rep_usd(c, sizeof c, p->cost_low);
      gb_rep_usd(d, sizeof d, p->cost_high);
      snprintf(buf, n, "%.31s-%.31s h, %.31s-%.31s USD", a, b, c, d);
    } else snprintf(buf, n, "%s-%s h", a, b);
  } else {
    snprintf(buf, n, "no band in this plan file");
  }
}

static gb_err choice_row(gb_rep *r, const char *role, const gb_planfile_row *p, bool with_band) {
  char name[256], hours[32], cash[48], job[32], bd[192], rank[16];
  figures f = at_rank(p);
  snprintf(name, sizeof name, "%dx %s, %s %s", p->gpu_count, p->gpu_type, p->provider, p->offering);
  gb_rep_fmt(hours, sizeof hours, f.hours);
  gb_rep_usd(cash, sizeof cash, f.cash);
  if (f.est) snprintf(cash + strlen(cash), sizeof cash - strlen(cash), " (GPUs only)");
  gb_rep_usd(job, sizeof job, f.job);
  band(p, bd, sizeof bd);
  snprintf(rank, sizeof rank, "%d", p->rank);
  const char *cells[] = {role, rank, name, *p->basis ? p->basis : "n/a", hours, cash, job, with_band ? bd : NULL};
  return gb_doc_table_row(&r->doc, cells);
}

/* Cumulative cost over months of the best rental and the best purchase, the
 * job repeated once a month: renting pays its bill each month; buying pays
 * its capex at once, then the job's running cost (cash - capex, where the
 * plan has both; else none is known and the line is the capex alone). */
static gb_err rent_vs_buy(gb_rep *r, const gb_planfile_row *rent, const gb_planfile_row *buy) {
  const char *caption = "Renting against buying: cumulative cost over months, the job repeated once a month";
  if (!rent || !buy) /* a plan of one kind: nothing to weigh, no plot missing */
    return gb_doc_para(&r->doc, rent ? "Renting against buying: the plan has no feasible purchase."
                                     : "Renting against buying: the plan has no feasible rental.");
  /* both at the end of their bands the planner ranks by, as the table */
  figures fb = at_rank(buy), fr = at_rank(rent);
  double capex = isfinite(buy->capex_usd) ? buy->capex_usd : fb.cash;
  double run = isfinite(buy->cash_usd) && isfinite(buy->capex_usd) ? fb.cash - buy->capex_usd : 0;
  double bill = fr.job;
  double be = bill > run ? capex / (bill - run) : INFINITY;
  int months = isfinite(be) ? (int)ceil(be * 1.5) : RVB_MONTHS_MIN;
  if (months < RVB_MONTHS_MIN) months = RVB_MONTHS_MIN;
  if (months > RVB_MONTHS_MAX) months = RVB_MONTHS_MAX;
  double x[RVB_MONTHS_MAX + 1], yr[RVB_MONTHS_MAX + 1], yb[RVB_MONTHS_MAX + 1];
  for (int m = 0; m <= months; m++) {
    x[m] = m;
    yr[m] = m * bill / 1000;
    yb[m] = (capex + m * run) / 1000;
  }
  char tr[192], tb[192], bl[64];
  snprintf(tr, sizeof tr, "rent: %dx %.40s %.40s %.20s", rent->gpu_count, rent->gpu_type, rent->provider,
           rent->offering);
  snprintf(tb, sizeof tb, "buy: %dx %.40s %.40s", buy->gpu_count, buy->gpu_type, buy->provider);
  gb_plot_series s[2] = {{.title = tr, .n = (size_t)months + 1, .x = x, .y = yr, .style = GB_PLOT_LINES},
                         {.title = tb, .n = (size_t)months + 1, .x = x, .y = yb, .style = GB_PLOT_LINES}};
  gb_plot_marker mk[1];
  size_t nmk = 0;
  if (isfinite(be) && be <= months) {
    gb_snprintf_c(bl, sizeof bl, "break-even %.1f months", be);
    mk[nmk++] = (gb_plot_marker){'x', be, bl};
  }
  gb_plot_spec p = {.stem = "plan_rent_vs_buy", .title = "Cumulative cost, best rental and best purchase",
                    .xlabel = "months", .ylabel = "cumulative cost (thousand USD)", .markers = mk, .nmarkers = nmk,
                    .width_px = 1000, .height_px = 550};
  char line[1024], cap[32], b[32], life[160] = "";
  gb_rep_usd(cap, sizeof cap, capex);
  gb_rep_usd(b, sizeof b, bill);
  /* a break-even after the GPUs' assumed life is no pay-back */
  double life_m = buy->amortization_years * 12;
  if (isfinite(be) && isfinite(life_m) && life_m > 0 && be > life_m)
    gb_snprintf_c(life, sizeof life, ": later than the GPUs' assumed life of %g years (%g months), so buying never "
                  "pays back at this pace", buy->amortization_years, life_m);
  if (isfinite(be))
    gb_snprintf_c(line, sizeof line,
                  "Buying costs %s USD up front; renting %s USD per job. Repeating the job monthly, buying "
                  "breaks even after %.1f months%s%s. Source: plan rows %d (rent) and %d (buy).",
                  cap, b, be, life,
                  run > 0 ? "" : " (this plan file has no running cost of owned GPUs: energy and operations "
                                 "are left out, which favours buying)",
                  rent->rank, buy->rank);
  else
    snprintf(line, sizeof line, "Renting (%s USD per job) never costs more than running owned GPUs: buying does "
             "not break even. Source: plan rows %d (rent) and %d (buy).", b, rent->rank, buy->rank);
  gb_err e = gb_doc_para(&r->doc, line);
  if (!e) e = gb_rep_lines(r, &p, s, 2, caption);
  return e;
}

#define TORNADO_MAX 8

/* Tornado: the change of the top choice's cost with each factor of the
 * sensitivity CSV at its smallest and largest change (the planner's: price,
 * efficiency, utilization +/-20%; the top choice may change with the
 * factor). The baseline: its 0% row, else the plan's top row. */
static gb_err tornado(gb_rep *r, const gb_planfile_row *top) {
  const char *caption = "Sensitivity: change of the top choice's cost with each factor";
  if (!r->have_sens) return gb_rep_skip(r, caption, "no sensitivity CSV was given (--plan-sensitivity)");
  double base = top ? top->cost_usd : NAN;
  for (size_t i = 0; i < r->sens.n; i++)
    if (r->sens.rows[i].change_pct == 0) base = r->sens.rows[i].cost_usd;
  if (!isfinite(base) || base <= 0) return gb_rep_skip(r, caption, "neither the sensitivity CSV nor the plan has a baseline cost");
  const char *cats[TORNADO_MAX];
  double lo[TORNADO_MAX], hi[TORNADO_MAX], lop[TORNADO_MAX], hip[TORNADO_MAX];
  size_t n = 0;
  for (size_t i = 0; i < r->sens.n; i++) {
    const gb_sensfile_row *s = &r->sens.rows[i];
    if (s->change_pct == 0 || !isfinite(s->cost_usd)) continue;
    size_t f;
    for (f = 0; f < n; f++)
      if (!strcmp(cats[f], s->factor)) break;
    if (f == n) {
      if (n == TORNADO_MAX) continue;
      cats[n] = s->factor;
      lo[n] = hi[n] = 0;
      lop[n] = hip[n] = 0;
      n++;
    }
    double d = 100.0 * (s->cost_usd / base - 1);
    if (s->change_pct < lop[f]) lop[f] = s->change_pct, lo[f] = d;
    if (s->change_pct > hip[f]) hip[f] = s->change_pct, hi[f] = d;
  }
  if (n == 0) return gb_rep_skip(r, caption, "the sensitivity CSV changes no factor");
  /* a tornado: one horizontal bar per factor from its cost change at -20%
   * to that at +20%, the widest at the top; drawn as thick segments (the
   * bar plots start at 0 and cannot go below it) */
  size_t order[TORNADO_MAX];
  for (size_t i = 0; i < n; i++) order[i] = i;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && fabs(hi[order[j]] - lo[order[j]]) < fabs(hi[order[j - 1]] - lo[order[j - 1]]); j--) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  double xs[TORNADO_MAX][2], ys[TORNADO_MAX][2];
  char lab[TORNADO_MAX][2][64], title[TORNADO_MAX][128];
  const char *labs[TORNADO_MAX][2];
  gb_plot_series s[TORNADO_MAX];
  for (size_t k = 0; k < n; k++) {
    size_t f = order[k];
    xs[k][0] = lo[f];
    xs[k][1] = hi[f];
    ys[k][0] = ys[k][1] = (double)(k + 1);
    gb_snprintf_c(lab[k][0], sizeof lab[0][0], "%+g%%: %+.1f%%", lop[f], lo[f]);
    gb_snprintf_c(lab[k][1], sizeof lab[0][0], "%+g%%: %+.1f%%", hip[f], hi[f]);
    labs[k][0] = lab[k][0];
    labs[k][1] = lab[k][1];
    gb_snprintf_c(title[k], sizeof title[0], "%.80s (swing %.1f points)", cats[f], fabs(hi[f] - lo[f]));
    s[k] = (gb_plot_series){.title = title[k], .n = 2, .x = xs[k], .y = ys[k], .emphasis = true, .labels = labs[k],
                            .style = GB_PLOT_LINESPOINTS};
  }
  /* the y range (rows 1..n, half a row free at each end) comes with the
   * named rows: no reference lines along the frame, which read as limits */
  gb_plot_marker mk[1] = {{'x', 0, "as planned"}};
  const char *ylab[TORNADO_MAX];
  for (size_t k = 0; k < n; k++) ylab[k] = cats[order[k]];
  gb_plot_spec p = {.stem = "plan_tornado", .title = "How the top choice's cost moves with each factor",
                    .xlabel = "change in the top choice's cost (%)", .ylabel = "factor (widest swing on top)",
                    .markers = mk, .nmarkers = 1, .width_px = 1000, .height_px = 450, .ylabels = ylab,
                    .nylabels = n};
  char line[512], bs[32];
  gb_rep_usd(bs, sizeof bs, base);
  /* the sensitivity CSV's costs are nominal: said so where the page
   * states the ranked end above */
  snprintf(line, sizeof line, "Baseline cost %s USD%s. Source: the sensitivity CSV's rows, each factor at its smallest "
           "and largest change (the top pick may change with a factor: the table under Sensitivity names it).", bs,
           top && gb_planfile_ranks_band_end(top) ? " (nominal, as the sensitivity CSV gives it)" : "");
  gb_err e = gb_doc_para(&r->doc, line);
  if (!e) e = gb_rep_lines(r, &p, s, n, caption);
  return e;
}

/* The price rows behind the rows of the table, with their date, age and
 * confidence: what a buyer checks before quoting the answer. */
static gb_err deciding_prices(gb_rep *r, const gb_planfile_row *top, const gb_planfile_row *alt,
                              const gb_planfile_row *buy) {
  const gb_planfile_row *rows[] = {top, alt && alt != top ? alt : NULL, buy && buy != top && buy != alt ? buy : NULL};
  char line[1536] = "Prices behind these rows (age on the plan's date):";
  size_t k = 0;
  for (size_t i = 0; i < 3; i++) {
    const gb_planfile_row *p = rows[i];
    if (!p || !*p->price_date) continue;
    size_t l = strlen(line);
    char age[48] = "", conf[24] = "", src[136] = "";
    if (isfinite(p->price_age_days)) snprintf(age, sizeof age, ", %.0f days old", p->price_age_days);
    if (*p->price_confidence) snprintf(conf, sizeof conf, ", confidence %.2s", p->price_confidence);
    if (*p->price_source) snprintf(src, sizeof src, " (%.120s)", p->price_source);
    snprintf(line + l, sizeof line - l, "%s %.40s %.20s %.40s, dated %.10s%s%s%s", k++ ? ";" : "", p->provider,
             p->offering, p->gpu_type, p->price_date, age, conf, src);
  }
  size_t l = strlen(line);
  if (l < sizeof line - 1) line[l] = '.', line[l + 1] = '\0';
  return k ? gb_doc_para(&r->doc, line) : GB_OK;
}

gb_err gb_rep_section_decision(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Decision");
  /* the alternative: the best feasible row measured itself, else the best
   * on a GPU type measured here (its count projected) */
  const gb_planfile_row *top = NULL, *alt = NULL, *alt_type = NULL, *rent = NULL, *buy = NULL;
  gb_rep_names mt = {0};
  if (!e) e = measured_types(r, &mt);
  for (size_t i = 0; i < r->plan.n && !e; i++) {
    const gb_planfile_row *p = &r->plan.rows[i];
    if (!p->feasible || !isfinite(p->hours) || !isfinite(p->cost_usd)) continue;
    if (!rent && !is_purchase(p)) rent = p;
    if (!buy && is_purchase(p)) buy = p;
    if (!top) {
      top = p;
      continue;
    }
    if (!alt && basis_measured(p->basis)) alt = p;
    if (!alt_type && gb_rep_names_find(&mt, p->gpu_type) != (size_t)-1) alt_type = p;
  }
  if (!alt) alt = alt_type;
  bool top_measured = top && gb_rep_names_find(&mt, top->gpu_type) != (size_t)-1;
  gb_rep_names_free(&mt);
  if (!e && !top) return gb_doc_note(&r->doc, "The plan has no feasible configuration: nothing to recommend.");
  char line[768];
  /* the answer first, in a sentence (a narrow screen shows the table's first columns only) */
  if (!e) {
    char h[32], cash[48], job[48];
    figures f = at_rank(top);
    gb_rep_fmt(h, sizeof h, f.hours);
    gb_rep_usd(cash, sizeof cash, f.cash);
    gb_rep_usd(job, sizeof job, f.job);
    snprintf(line, sizeof line, "Recommended: %dx %s, %s %s: %s hours, %s USD cash needed%s, %s USD per job (%s).",
             top->gpu_count, top->gpu_type, top->provider, top->offering, h, cash, f.est ? " for the GPUs" : "", job,
             *top->basis ? top->basis : "basis not given");
    /* the figures `gpubench plan` prints: the end of the band it ranks by;
     * the nominal ones named as such */
    if (gb_planfile_ranks_band_end(top)) {
      char nh[32], nc[48];
      gb_rep_fmt(nh, sizeof nh, top->hours);
      gb_rep_usd(nc, sizeof nc, top->cost_usd);
      size_t l = strlen(line);
      snprintf(line + l, sizeof line - l, " These are at %s, which the planner ranks by and gpubench plan prints; "
               "nominal: %s hours, %s USD.", gb_planfile_rank_end(top), nh, nc);
    }
    if (isfinite(top->hours_low) && isfinite(top->hours_high)) {
      char bd[192];
      band(top, bd, sizeof bd);
      size_t l = strlen(line);
      snprintf(line + l, sizeof line - l, " Band: %s.", bd);
    }
    if (top->price_stale) {
      size_t l = strlen(line);
      snprintf(line + l, sizeof line - l, " Old price: %.60s's of %.20s is over 18 months old; check it before buying.",
               top->provider, *top->price_date ? top->price_date : "an unknown date");
    }
    e = gb_doc_para(&r->doc, line);
  }
  /* the band column only where the plan has bands (the reworked planner) */
  bool with_band = isfinite(top->hours_low) && isfinite(top->hours_high);
  const char *hdr[] = {"", "rank", "configuration", "basis", "hours", "cash needed (USD)", "per-job cost (USD)",
                       "band (fast-slow)"};
  if (!e) e = gb_doc_table_begin(&r->doc, with_band ? 8 : 7, hdr, "lrllrrrl");
  if (!e) e = choice_row(r, "recommended", top, with_band);
  if (!e && alt) e = choice_row(r, "best on a measured GPU type", alt, with_band);
  if (!e && buy && buy != top && buy != alt) e = choice_row(r, "best purchase", buy, with_band);
  if (!e) e = gb_doc_table_end(&r->doc);
  if (!e) {
    const gb_planfile_row *p0 = &r->plan.rows[0];
    char at[160] = "";
    if (gb_planfile_ranks_band_end(top))
      snprintf(at, sizeof at,  " Hours and costs of each row at %s (the planner's ranking; the band column gives both ends).",
               gb_planfile_rank_end(top));
    snprintf(line, sizeof line, "Workload %s%s%s.%s Cash needed: what must be paid for the job (renting: the bill; "
             "buying: the GPUs%s). Per-job cost: the bill, or the job's amortized share of owned GPUs. Basis: "
             "measured on this GPU type, or projected from other measurements or the datasheet.",
             *p0->workload ? p0->workload : "(not named)", *p0->precision ? ", " : "", p0->precision, at,
             isfinite(p0->cash_usd) ? ", their energy and operations" : "");
    e = gb_doc_para(&r->doc, line);
  }
  if (!e && !alt)
    e = gb_doc_para(&r->doc, top_measured
                                 ? "The recommended configuration is on a measured GPU type."
                                 : "No feasible configuration is on a GPU type measured here: every figure is "
                                   "projected.");
  if (!e && !with_band)
    e = gb_doc_para(&r->doc, "Confidence: this plan file has no band (hours_low/hours_high, written by newer "
                             "planners); a projected figure may be off by more than a measured one, and the basis "
                             "column says which each is.");
  if (!e) e = deciding_prices(r, top, alt, buy);
  if (!e) e = rent_vs_buy(r, rent, buy);
  if (!e) e = tornado(r, top);
  return e;
}
