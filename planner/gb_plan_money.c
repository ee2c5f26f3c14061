/* gb_plan_money: what a timed configuration costs. Rental (rate x GPUs x
 * hours), ownership (depreciation + operations + energy per used hour; cash
 * = capex + the job's energy and operations), the spot stretch
 * (Young/Daly) and the break-even hours of buying against the cheapest
 * rental. Formulas: docs/planner.md, "Cost". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_plan_int.h"

#define GB_PRICE_STALE_MONTHS 18

gb_owned_cost gb_plan_owned_cost(const gb_price *purchase, const gb_gpu_spec *spec, const gb_plan_opts *o) {
  gb_owned_cost c;
  /* capex per GPU: the server share plus the cluster network */
  double capex = purchase->purchase_usd_per_gpu * o->price_scale * o->network_overhead;
  /* straight-line depreciation plus yearly operations, spread over every hour */
  c.fixed_usd_per_gpu_hour = capex * (1.0 / o->amortization_years + o->ops_fraction_per_year) / GB_HOURS_PER_YEAR;
  /* energy of a used hour: TDP plus host share, times PUE, times the tariff */
  c.energy_usd_per_gpu_hour =
      spec->tdp_w / 1000.0 * (1 + o->host_power_fraction) * o->pue * o->electricity_usd_per_kwh * o->price_scale;
  c.usd_per_used_gpu_hour = c.fixed_usd_per_gpu_hour / o->utilization + c.energy_usd_per_gpu_hour;
  return c;
}

/* Spot stretch (Young/Daly): checkpoint every tau = sqrt(2 delta / lambda);
 * T_spot = T (1 + delta/tau) / (1 - lambda (t_restart + tau/2)). Returns NaN
 * when preemptions outpace progress. */
static double spot_hours(double hours, int nodes, const gb_plan_opts *o) {
  double lambda = o->spot_preemptions_per_node_hour * nodes;
  if (lambda <= 0) return hours;
  double delta = o->spot_checkpoint_hours;
  double tau = sqrt(2 * delta / lambda);
  double lost = lambda * (o->spot_restart_hours + tau / 2);
  if (lost >= 0.95) return NAN;
  return hours * (1 + delta / tau) / (1 - lost);
}

double gb_plan_work_units(const gb_workload *w) {
  if (w->kind == GB_WL_INFERENCE) return w->tokens_per_second * w->serve_hours * 3600 / 1e6; /* Mtok */
  return gb_workload_total_flops(w) / 1e15;                                                   /* PFLOP */
}

/* Months between two dates YYYY-MM-DD (b - a), by calendar month. */
static int months_between(const char *a, const char *b) {
  int ya = atoi(a), ma = atoi(a + 5), yb = atoi(b), mb = atoi(b + 5);
  int m = (yb - ya) * 12 + (mb - ma);
  if (atoi(b + 8) < atoi(a + 8)) m--;
  return m;
}

bool gb_plan_price_stale(const gb_price *p, const char *today) {
  return today && months_between(p->date, today) >= GB_PRICE_STALE_MONTHS;
}

bool gb_plan_price_fresh(const gb_plan_opts *o, const gb_price *p) {
  return !isfinite(o->max_price_age_days) || !o->today ||
         (double)gb_price_age_days(p, o->today) <= o->max_price_age_days;
}

const gb_price *gb_plan_cheapest_rental(const gb_prices *prices, const char *type, const gb_plan_opts *o) {
  const gb_price *best = NULL;
  bool best_stale = true;
  for (size_t j = 0; j < prices->n; j++) {
    const gb_price *q = &prices->v[j];
    if (q->offering == GB_OFFER_PURCHASE || q->offering == GB_OFFER_SPOT || strcmp(q->gpu_type, type)) continue;
    if (!gb_plan_price_fresh(o, q)) continue;
    bool stale = gb_plan_price_stale(q, o->today);
    if (!best || (best_stale && !stale) ||
        (stale == best_stale && q->price_usd_per_gpu_hour < best->price_usd_per_gpu_hour))
      best = q, best_stale = stale;
  }
  return best;
}

/* Cost of the row at hours h: amortized (the job's share) and cash. */
static void cost_at(const gb_plan_opts *o, const gb_plan_row *r, double h, double *amortized, double *cash) {
  const gb_price *p = r->price;
  double gpus = (double)r->nodes * r->gpus_per_node;
  if (p->offering != GB_OFFER_PURCHASE) {
    *amortized = *cash = h * gpus * r->rate_usd_per_gpu_hour;
    return;
  }
  gb_owned_cost c = gb_plan_owned_cost(p, r->perf->spec, o);
  *amortized = h * gpus * c.usd_per_used_gpu_hour;
  /* cash: the GPUs (capex), then the job's energy and operations */
  *cash = r->capex_usd + h * gpus * c.energy_usd_per_gpu_hour + r->capex_usd * o->ops_fraction_per_year * h / GB_HOURS_PER_YEAR;
}

void gb_plan_price_age(const gb_plan_opts *o, gb_plan_row *r) {
  const gb_price *p = r->price;
  r->price_stale = gb_plan_price_stale(p, o->today);
  long age = o->today ? gb_price_age_days(p, o->today) : 0;
  r->price_age_days = (double)age;
  r->price_widening = gb_price_age_widening(age, o->price_age_rate);
}

void gb_plan_price_row(const gb_plan_opts *o, const gb_prices *prices, double work, gb_plan_row *r) {
  const gb_price *p = r->price;
  double gpus_billed = (double)r->nodes * r->gpus_per_node;
  r->capex_usd = r->breakeven_hours = NAN;
  if (p->offering == GB_OFFER_PURCHASE) {
    gb_owned_cost c = gb_plan_owned_cost(p, r->perf->spec, o);
    r->rate_usd_per_gpu_hour = c.usd_per_used_gpu_hour;
    r->capex_usd = gpus_billed * p->purchase_usd_per_gpu * o->price_scale * o->network_overhead;
    /* break-even: hours of use at which owning (capex + energy + operations) costs what renting does */
    const gb_price *rent = gb_plan_cheapest_rental(prices, p->gpu_type, o);
    if (rent) {
      double capex_gpu = p->purchase_usd_per_gpu * o->price_scale * o->network_overhead;
      double margin = rent->price_usd_per_gpu_hour * o->price_scale - c.energy_usd_per_gpu_hour -
                      capex_gpu * o->ops_fraction_per_year / GB_HOURS_PER_YEAR;
      r->breakeven_hours = margin > 0 ? capex_gpu / margin : INFINITY;
    }
  } else {
    r->rate_usd_per_gpu_hour = p->price_usd_per_gpu_hour * o->price_scale;
  }
  if (p->offering == GB_OFFER_SPOT) {
    double h = spot_hours(r->hours, r->nodes, o);
    if (isnan(h)) {
      r->reject = GB_REJECT_SPOT;
      r->need = o->spot_preemptions_per_node_hour * r->nodes;
      return;
    }
    double stretch = h / r->hours;
    r->hours = h;
    r->hours_low = spot_hours(r->hours_low, r->nodes, o);
    r->hours_high = spot_hours(r->hours_high, r->nodes, o);
    if (isnan(r->hours_high)) r->hours_high = r->hours;
    if (isnan(r->hours_low)) r->hours_low = r->hours;
    r->compute_hours *= stretch, r->memory_hours *= stretch, r->comm_hours *= stretch;
  }
  cost_at(o, r, r->hours, &r->amortized_usd, &r->cash_usd);
  bool amort = o->budget_basis == GB_BUDGET_AMORTIZED;
  r->cost_usd = amort ? r->amortized_usd : r->cash_usd;
  double a_lo, a_hi, c_lo, c_hi;
  cost_at(o, r, r->hours_low, &a_lo, &c_lo);
  cost_at(o, r, r->hours_high, &a_hi, &c_hi);
  /* the price's age widens the band: the price may have moved either way since it was read */
  r->cost_low = (amort ? a_lo : c_lo) * (1 - r->price_widening);
  r->cost_high = (amort ? a_hi : c_hi) * (1 + r->price_widening);
  switch (o->rank_by) {
  case GB_RANK_LOW: r->rank_hours = r->hours_high, r->rank_cost = r->cost_high; break;
  case GB_RANK_MEDIAN: r->rank_hours = r->hours, r->rank_cost = r->cost_usd; break;
  case GB_RANK_HIGH: r->rank_hours = r->hours_low, r->rank_cost = r->cost_low; break;
  }
  /* efficiency: work per dollar of the job's share (cash buys GPUs that outlive it) */
  r->efficiency = work / r->amortized_usd;
}
