/* gb_plan_near: what a plan says when nothing fits, and names that help.
 * The near-misses (the cheapest configuration that meets the deadline, the
 * fastest within the budget, and which constraint binds), the summary per
 * GPU type that --explain prints, and the nearest valid name for a typo.
 * docs/planner.md, "When nothing fits". */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gb_num.h"
#include "gb_plan.h"

const char *gb_plan_figure_basis(gb_rank_by r) {
  return r == GB_RANK_LOW ? "pessimistic" : r == GB_RANK_HIGH ? "optimistic" : "nominal";
}

const char *gb_rank_by_name(gb_rank_by r) { return r == GB_RANK_LOW ? "low" : r == GB_RANK_HIGH ? "high" : "median"; }

const char *gb_perf_per_watt_unit(const gb_plan *p) {
  return p->workload->kind == GB_WL_INFERENCE ? "tok/s/W" : "GFLOP/s/W";
}

const char *gb_reject_short(gb_reject r) {
  static const char *const names[] = {"feasible",           "precision not available", "does not fit in memory",
                                      "too slow for the rate", "over the latency limit", "spot preemptions",
                                      "over deadline",      "over budget",             "no price",
                                      "parallel layout"};
  return names[r];
}

static double move_pct(double needed, double limit) { return isnan(limit) ? NAN : (needed / limit - 1) * 100; }

void gb_plan_near_miss(const gb_plan *p, gb_plan_near *out) {
  memset(out, 0, sizeof *out);
  out->budget_needed = out->deadline_needed = out->budget_move_pct = out->deadline_move_pct = NAN;
  for (size_t i = 0; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (!r->has_verdict) continue;
    if (r->meets_deadline && (!out->cheapest_in_time || r->rank_cost < out->cheapest_in_time->rank_cost))
      out->cheapest_in_time = r;
    if (r->within_budget && (!out->fastest_in_budget || r->rank_hours < out->fastest_in_budget->rank_hours))
      out->fastest_in_budget = r;
  }
  if (out->cheapest_in_time) {
    out->budget_needed = out->cheapest_in_time->rank_cost;
    out->budget_move_pct = move_pct(out->budget_needed, p->opts.budget_usd);
  }
  if (out->fastest_in_budget) {
    out->deadline_needed = out->fastest_in_budget->rank_hours;
    out->deadline_move_pct = move_pct(out->deadline_needed, p->opts.max_hours);
  }
  bool b = isfinite(out->budget_move_pct), d = isfinite(out->deadline_move_pct);
  if (!b && !d) out->binding = "fit";
  else if (b && (!d || out->budget_move_pct <= out->deadline_move_pct)) out->binding = "budget";
  else out->binding = "deadline";
}

/* How far a timed and priced row misses: the larger of cost / budget and hours / deadline. */
static double miss_ratio(const gb_plan *p, const gb_plan_row *r) {
  double c = isnan(p->opts.budget_usd) ? 0 : r->rank_cost / p->opts.budget_usd;
  double h = isnan(p->opts.max_hours) ? 0 : r->rank_hours / p->opts.max_hours;
  return c > h ? c : h;
}

size_t gb_plan_type_summary(const gb_plan *p, gb_plan_type_sum *out, size_t max) {
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    size_t j = 0;
    while (j < k && out[j].perf != r->perf) j++;
    if (j == k) {
      if (k == max) continue;
      memset(&out[k], 0, sizeof out[k]);
      out[k++].perf = r->perf;
    }
    gb_plan_type_sum *s = &out[j];
    s->n++;
    if (r->feasible) s->feasible++;
    else s->by_reason[r->reject]++;
    if (r->feasible) {
      if (!s->best || !s->best->feasible || r->rank < s->best->rank) s->best = r;
    } else if (r->has_verdict && (!s->best || (!s->best->feasible && miss_ratio(p, r) < miss_ratio(p, s->best)))) {
      s->best = r;
    }
  }
  return k;
}

size_t gb_plan_buying(const gb_plan *p, gb_plan_buy *out, size_t max) {
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (!r->price || r->price->offering != GB_OFFER_PURCHASE) continue;
    size_t j = 0;
    while (j < k && out[j].perf != r->perf) j++;
    if (j == k) {
      if (k == max) continue;
      out[k++] = (gb_plan_buy){.perf = r->perf};
    }
    if (r->reject != GB_REJECT_PRECISION) out[j].timed = true;
    if (r->reject != GB_REJECT_NONE && r->reject != GB_REJECT_BUDGET) continue;
    if (!out[j].best || r->rank_cost < out[j].best->rank_cost) out[j].best = r;
  }
  return k;
}

/* ---- names ---- */

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return la > lb ? la : lb;
  size_t row[64];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
      row[j] = sub < best ? sub : best;
      diag = up;
    }
  }
  return row[lb];
}

static bool contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  if (!n) return false;
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return true;
  return false;
}

const char *gb_nearest_name(const char *s, const char *const *names, size_t n) {
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    /* a name that contains s (or is contained in it) wins; ties by edit distance */
    size_t d = edit_distance(s, names[i]) + (contains_ci(names[i], s) || contains_ci(s, names[i]) ? 0 : 1000);
    if (d < best_d) best_d = d, best = names[i];
  }
  return best;
}

void gb_unknown_name(char *buf, size_t len, const char *what, const char *s, const char *const *names, size_t n) {
  const char *near = gb_nearest_name(s, names, n);
  int w = snprintf(buf, len, "unknown %s \"%s\"", what, s);
  if (w < 0 || (size_t)w >= len) return;
  size_t used = (size_t)w;
  if (near) used += (size_t)snprintf(buf + used, len - used, " (did you mean %s?", near);
  for (size_t i = 0; i < n && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : " valid: ", names[i]);
  if (near && used < len) snprintf(buf + used, len - used, ")");
}
