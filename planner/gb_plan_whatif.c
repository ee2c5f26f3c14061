/* gb_plan_whatif: questions asked of a plan. How the top choice moves with
 * prices and efficiency +/-20% (sensitivity), and how many GPUs of a type to
 * own against a demand profile, the rest rented (hybrid). Formulas:
 * docs/planner.md, "Sensitivity" and "Hybrid". */
#include <math.h>
#include <string.h>

#include "gb_plan_int.h"

static bool same_config(const gb_plan_row *a, const gb_plan_row *b) {
  return a->perf == b->perf && a->price == b->price && a->gpu_count == b->gpu_count;
}

gb_err gb_plan_sensitivity(const gb_workload *w, const gb_perf *perf, const gb_prices *prices, const gb_plan_opts *o,
                           gb_sensitivity_row out[GB_SENSITIVITY_ROWS]) {
  static const struct {
    const char *factor;
    double pct;
  } k_cases[GB_SENSITIVITY_ROWS] = {{"base", 0}, {"price", -20}, {"price", 20}, {"efficiency", -20}, {"efficiency", 20}};
  for (int i = 0; i < GB_SENSITIVITY_ROWS; i++) {
    gb_plan_opts v = *o;
    double f = 1 + k_cases[i].pct / 100;
    if (strcmp(k_cases[i].factor, "price") == 0) v.price_scale *= f;
    if (strcmp(k_cases[i].factor, "efficiency") == 0) v.efficiency_scale *= f;
    gb_plan p;
    gb_err e = gb_plan_rank(w, perf, prices, &v, &p);
    if (e) return e;
    memset(&out[i], 0, sizeof out[i]);
    out[i].factor = k_cases[i].factor;
    out[i].change_pct = k_cases[i].pct;
    out[i].has_top = p.nfeasible > 0;
    if (out[i].has_top) out[i].top = p.rows[0];
    out[i].changed = i > 0 && (out[i].has_top != out[0].has_top ||
                               (out[i].has_top && !same_config(&out[i].top, &out[0].top)));
    gb_plan_free(&p);
  }
  return GB_OK;
}

/* Work per GPU-hour of a type: its best-ranked timed configuration's tokens
 * per second per GPU (training, inference), else work / GPU-hours; NaN when
 * none was timed. */
static double type_speed(const gb_plan *plan, const gb_perf_type *t) {
  for (size_t i = 0; i < plan->n; i++) {
    const gb_plan_row *r = &plan->rows[i];
    if (r->perf != t || !r->has_verdict) continue;
    if (isfinite(r->time.tokens_per_s_per_gpu) && r->time.tokens_per_s_per_gpu > 0) return r->time.tokens_per_s_per_gpu;
    return gb_plan_work_units(plan->workload) / (r->hours * r->gpu_count);
  }
  return NAN;
}

/* The demand profile counts GPUs of the ranking's first type (or the first
 * timed one): a type needs that many x the first's speed over its own. */
static double demand_scale(const gb_plan *plan, const gb_perf_type *t) {
  const gb_perf_type *ref = plan->nfeasible ? plan->rows[0].perf : NULL;
  for (size_t i = 0; !ref && i < plan->n; i++)
    if (plan->rows[i].has_verdict) ref = plan->rows[i].perf;
  double a = ref ? type_speed(plan, ref) : NAN, b = type_speed(plan, t);
  return isfinite(a) && isfinite(b) && b > 0 ? a / b : 1;
}

const gb_perf_type *gb_plan_hybrid_reference(const gb_plan *plan) {
  if (plan->nfeasible) return plan->rows[0].perf;
  for (size_t i = 0; i < plan->n; i++)
    if (plan->rows[i].has_verdict) return plan->rows[i].perf;
  return NULL;
}

size_t gb_plan_hybrid_demand(const gb_plan *plan, const gb_perf *perf, const gb_prices *prices,
                             gb_hybrid_curve *out, size_t max) {
  const gb_workload *w = plan->workload;
  const gb_plan_opts *o = &plan->opts;
  /* the load-duration curve: (GPUs, share of the year) segments */
  double level[GB_WL_MAX_MONTHS + 2], share[GB_WL_MAX_MONTHS + 2];
  size_t ns = 0;
  if (w->ndemand_months) {
    for (size_t i = 0; i < w->ndemand_months; i++) {
      level[ns] = w->demand_months[i] / (GB_HOURS_PER_YEAR / 12); /* average GPUs in that month */
      share[ns++] = 1.0 / (double)w->ndemand_months;
    }
  } else if (!isnan(w->demand_base_gpus)) {
    level[ns] = w->demand_base_gpus, share[ns++] = 1 - w->demand_peak_fraction;
    level[ns] = w->demand_base_gpus + w->demand_peak_gpus, share[ns++] = w->demand_peak_fraction;
  } else if (w->kind == GB_WL_INFERENCE) {
    return 0;
  }
  bool from_jobs = ns == 0; /* no profile: the workload's runs on each type's best rented configuration */
  double peak = 0;
  for (size_t i = 0; i < ns; i++) peak = fmax(peak, level[i]);
  size_t k = 0;
  for (size_t i = 0; i < prices->n && k < max; i++) {
    const gb_price *p = &prices->v[i];
    const gb_perf_type *t = gb_perf_find(perf, p->gpu_type);
    if (p->offering != GB_OFFER_PURCHASE || !t || !gb_plan_price_fresh(o, p)) continue;
    const gb_price *rent = gb_plan_cheapest_rental(prices, p->gpu_type, o);
    if (!rent) continue;
    if (from_jobs) {
      /* --jobs-per-year runs on this type's best rented configuration: a load of its GPUs for the share
       * of the year they take, none the rest */
      const gb_plan_row *burst = NULL;
      for (size_t j = 0; j < plan->nfeasible && !burst; j++)
        if (plan->rows[j].perf == t && plan->rows[j].price->offering != GB_OFFER_PURCHASE) burst = &plan->rows[j];
      if (!burst) continue;
      double busy = fmin(1, o->jobs_per_year * burst->hours / GB_HOURS_PER_YEAR);
      ns = 0;
      level[ns] = (double)burst->nodes * burst->gpus_per_node, share[ns++] = busy;
      level[ns] = 0, share[ns++] = 1 - busy;
      peak = level[0];
      rent = burst->price;
    }
    /* this type's GPUs for the profile's load (the runs' load is in its own GPUs already) */
    double scale = from_jobs ? 1 : demand_scale(plan, t);
    double lv[GB_WL_MAX_MONTHS + 2];
    for (size_t j = 0; j < ns; j++) lv[j] = level[j] * scale;
    gb_hybrid_curve *c = &out[k++];
    memset(c, 0, sizeof *c);
    c->purchase = p, c->rent = rent, c->peak_gpus = peak * scale, c->demand_scale = scale;
    gb_owned_cost oc = gb_plan_owned_cost(p, t->spec, o);
    double rate = rent->price_usd_per_gpu_hour * o->price_scale;
    int gpn = p->gpus_per_node;
    int top = (int)ceil(c->peak_gpus / gpn) * gpn;
    int step = gpn;
    while (top / step + 1 > GB_HYBRID_POINTS) step += gpn;
    c->best_usd = INFINITY;
    for (int own = 0; own <= top && c->n < GB_HYBRID_POINTS; own += step) {
      double cost = own * oc.fixed_usd_per_gpu_hour * GB_HOURS_PER_YEAR;
      for (size_t j = 0; j < ns; j++) {
        double h = share[j] * GB_HOURS_PER_YEAR;
        cost += h * (fmin(lv[j], own) * oc.energy_usd_per_gpu_hour + fmax(0, lv[j] - own) * rate);
      }
      c->owned[c->n] = own;
      c->annual_usd[c->n++] = cost;
      if (own == 0) c->all_rent_usd = cost;
      if (cost < c->best_usd) c->best_usd = cost, c->best_owned = own;
    }
  }
  return k;
}

const char *gb_plan_hybrid_scope(void) {
  return "the GPU types with both a purchase price and an on-demand or reserved rental in the prices "
         "(owning needs the first, the burst the second; spot is not capacity to plan a base on)";
}
