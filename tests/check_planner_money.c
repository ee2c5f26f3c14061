/* Tests for the planner's money and ranking: rental, ownership, spot,
 * break-even, budget and deadline, filters, outputs, sensitivity and the
 * ranking's properties. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_planner_world.h"
#include "gb_datecheck.h"

START_TEST(test_constraints_and_reasons) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", k_train);
  /* deadline 3 h: only 16 GPUs (2.8125 h) make it; budget 85: 8 GPUs (84.11) */
  x.o.max_hours = 3;
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 1);
  ck_assert_int_eq(p.rows[0].gpu_count, 16);
  const gb_plan_row *r = find_row(&p, "FAST-SXM-100GB", "P", 8);
  ck_assert_int_eq(r->reject, GB_REJECT_DEADLINE);
  char reason[160];
  gb_plan_reason(r, reason, sizeof reason);
  ck_assert_str_eq(reason, "over deadline (5.3 h > 3.0 h)");
  ck_assert_uint_eq(r->rank, 0);
  gb_plan_free(&p);
  x.o.max_hours = NAN;
  x.o.budget_usd = 85;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 1);
  ck_assert_int_eq(p.rows[0].gpu_count, 8);
  gb_plan_reason(find_row(&p, "FAST-SXM-100GB", "P", 16), reason, sizeof reason);
  ck_assert_str_eq(reason, "over budget (90 USD > 85 USD)");
  /* SLOW has no price: one rejected row saying so */
  bool seen = false;
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].reject == GB_REJECT_NO_PRICE) {
      seen = true;
      ck_assert_str_eq(p.rows[i].perf->spec->gpu_type, "SLOW-SXM-100GB");
    }
  ck_assert(seen);
  gb_plan_free(&p);
  world_free(&x);

  /* memory: 1e10 params x 16 B = 160 GB replicated > 90 GB usable on every count */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nparams = 1e10\ntokens = 1e10\ntokens_per_step = 1e6\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 0);
  gb_plan_reason(find_row(&p, "FAST-SXM-100GB", "P", 8), reason, sizeof reason);
  ck_assert_str_eq(reason, "does not fit in memory (needs 160.0 GB per GPU, 90.0 GB usable)");
  gb_plan_free(&p);
  world_free(&x);
  /* sharded: 160 GB / 2 = 80 GB fits from 2 GPUs on */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "type = training\nparams = 1e10\ntokens = 1e10\ntokens_per_step = 1e6\nsharded = true\n");
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_int_eq(find_row(&p, "FAST-SXM-100GB", "P", 1)->reject, GB_REJECT_MEMORY);
  ck_assert(find_row(&p, "FAST-SXM-100GB", "P", 2)->feasible);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_owned_spot_breakeven) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "P,spot,FAST-SXM-100GB,8,1,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  /* owned: capex 20000 x 1.15 = 23000; fixed = 23000 x (1/4 + 0.10) / 8760 = 0.9189498 USD/h
   * energy = 0.5 kW x 1.3 (host) x 1.3 PUE x 0.10 USD/kWh = 0.0845 USD/h
   * per used hour at u = 0.6: 0.9189498 / 0.6 + 0.0845 = 1.6160830 */
  gb_owned_cost c = gb_plan_owned_cost(&x.prices.v[2], &x.specs.v[0], &x.o);
  ck_assert_double_eq_tol(c.fixed_usd_per_gpu_hour, 23000 * 0.35 / 8760, 1e-12);
  ck_assert_double_eq_tol(c.energy_usd_per_gpu_hour, 0.0845, 1e-12);
  ck_assert_double_eq_tol(c.usd_per_used_gpu_hour, 23000 * 0.35 / 8760 / 0.6 + 0.0845, 1e-12);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  ck_assert_double_eq_tol(own->amortized_usd, 1e4 * 1.8925 / 3600 * 8 * (23000 * 0.35 / 8760 / 0.6 + 0.0845), 1e-9);
  /* cash (the budget's default basis): capex 8 x 23000 + the job's energy and operations */
  double hrs = 1e4 * 1.8925 / 3600;
  ck_assert_double_eq_tol(own->capex_usd, 8 * 23000, 1e-9);
  ck_assert_double_eq_tol(own->cost_usd, 8 * 23000 + hrs * 8 * 0.0845 + 8 * 23000 * 0.10 * hrs / 8760, 1e-6);
  ck_assert_double_eq_tol(own->cash_usd, own->cost_usd, 1e-9);
  /* break-even: 23000 / (2 - 0.0845 - 23000 x 0.10 / 8760) hours of use */
  ck_assert_double_eq_tol(own->breakeven_hours, 23000 / (2 - 0.0845 - 2300.0 / 8760), 1e-6);
  /* spot, one node: lambda = 0.02/h, delta = 0.05 h, tau = sqrt(2 x 0.05 / 0.02) = 2.2360680 h
   * stretch = (1 + 0.05/2.2360680) / (1 - 0.02 x (0.25 + 1.1180340)) = 1.0223607 / 0.9726393 = 1.0511203 */
  const gb_plan_row *spot = NULL;
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].price && p.rows[i].price->offering == GB_OFFER_SPOT && p.rows[i].gpu_count == 8) spot = &p.rows[i];
  double tau = sqrt(5.0), stretch = (1 + 0.05 / tau) / (1 - 0.02 * (0.25 + tau / 2));
  ck_assert_double_eq_tol(stretch, 1.0511203, 1e-6);
  ck_assert_double_eq_tol(spot->hours, 1e4 * 1.8925 / 3600 * stretch, 1e-9);
  ck_assert_double_eq_tol(spot->cost_usd, spot->hours * 8 * 1, 1e-9);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* Money: capex, cash vs amortized budget, break-even; a purchase row never
 * passes a cash budget its capex exceeds. */
START_TEST(test_capex_budget_rule) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  x.o.budget_usd = 1000;
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  ck_assert_int_eq(own->reject, GB_REJECT_BUDGET); /* capex 184k > 1k */
  ck_assert(own->amortized_usd < 1000);            /* its amortized share would pass */
  for (size_t i = 0; i < p.n; i++) {
    const gb_plan_row *r = &p.rows[i];
    if (r->feasible && r->price->offering == GB_OFFER_PURCHASE) ck_assert(r->cash_usd <= 1000);
    if (r->price && r->price->offering == GB_OFFER_PURCHASE && !isnan(r->capex_usd))
      ck_assert(r->cash_usd >= r->capex_usd);
  }
  gb_plan_free(&p);
  /* amortized basis: the job's share is judged */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "budget-basis", "amortized"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  ck_assert(own->feasible);
  ck_assert_double_eq_tol(own->cost_usd, own->amortized_usd, 1e-9);
  ck_assert_double_eq_tol(own->capex_usd, 8 * 20000 * 1.15, 1e-9);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "budget-basis", "capex"), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--budget-basis: \"capex\" is not cash or amortized"));
  /* rank-by: the pessimistic end ranks by default; high uses the optimistic one */
  x.o.budget_usd = NAN;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "rank-by", "high"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(p.rows[0].rank_hours, p.rows[0].hours_low, 1e-12);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "rank-by", "low"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(p.rows[0].rank_hours, p.rows[0].hours_high, 1e-12);
  ck_assert(p.rows[0].hours_high > p.rows[0].hours);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "rank-by", "worst"), GB_E_INPUT);
  /* no demand profile: the hybrid curve is --jobs-per-year runs (4) on the type's best rented row (8 GPUs,
   * 5.26 h a run: 0.24% of the year), far below break-even: own none */
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  gb_hybrid_curve c[2];
  ck_assert_uint_eq(gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 2), 1);
  ck_assert_double_eq_tol(c[0].peak_gpus, 8, TOL);
  ck_assert_int_eq(c[0].best_owned, 0);
  ck_assert_double_eq_tol(c[0].all_rent_usd, 4 * p.rows[0].hours * 8 * 2, 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_filters_and_stale) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "Q,spot,FAST-SXM-100GB,8,1,,2024-01-01,s,V\n"
             "P,on-demand,SLOW-SXM-100GB,8,1,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  size_t all = p.n;
  /* today 2026-12-04: the spot price (2024-01-01) and the purchase (2025-01-01) are 18 months old or more:
   * flagged; the 2026 ones are not */
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].price && !isnan(p.rows[i].cost_usd))
      ck_assert_int_eq(p.rows[i].price_stale, strcmp(p.rows[i].price->date, "2025-06-04") < 0);
  gb_plan_free(&p);
  gb_plan_opts o0 = x.o;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpu-type", "SLOW-SXM-100GB"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert_str_eq(p.rows[i].perf->spec->gpu_type, "SLOW-SXM-100GB");
  ck_assert_uint_eq(p.n + p.nfiltered, all);
  gb_plan_free(&p);
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpus", "8,16"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert(p.rows[i].gpu_count == 8 || p.rows[i].gpu_count == 16);
  ck_assert_uint_eq(p.n, 4 * 2);
  gb_plan_free(&p);
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "provider", "Q,B"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "offering", "purchase"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert_str_eq(p.rows[i].price->provider, "B");
  ck_assert_uint_gt(p.n, 0);
  gb_plan_free(&p);
  x.o = o0;
  x.o.only_measured = true;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++) ck_assert_int_le(p.rows[i].basis, GB_BASIS_THROTTLED);
  gb_plan_free(&p);
  /* rejected filter values name the flag and the value */
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpu-type", "H900-SXM-1TB"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--gpu-type: unknown GPU type \"H900-SXM-1TB\""));
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "provider", "Nowhere"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--provider: unknown provider \"Nowhere\""));
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpus", "0"), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--gpus: \"0\" is not a GPU count"));
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "gpus", "8,,16"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "offering", "rent"), GB_E_INPUT);
  ck_assert(strstr(gb_errmsg(), "--offering: \"rent\" is not on-demand"));
  world_free(&x);
}
END_TEST

START_TEST(test_json_and_hybrid_demand) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
             "demand_base_gpus = 16\ndemand_peak_gpus = 48\ndemand_peak_fraction = 0.1\n");
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  char path[4200];
  snprintf(path, sizeof path, "%s/plan.json", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_json(&p, path), GB_OK);
  size_t len;
  char *j = gb_test_slurp(path, &len);
  ck_assert(strstr(j, "\"configurations\": [") && strstr(j, "\"capex_usd\": 184000,"));
  ck_assert(strstr(j, "\"time\": {\n") && strstr(j, "\"compute_hours\": "));
  ck_assert(strstr(j, "\"budget_basis\": \"cash\""));
  free(j);
  /* hybrid: owned fixed 0.919 USD/h, energy 0.0845, rent 2: owning the base 16 (in use all year) pays,
   * owning the peak (in use 10% of the year) does not */
  gb_hybrid_curve c[2];
  ck_assert_uint_eq(gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 2), 1);
  ck_assert_int_eq(c[0].best_owned, 16);
  double fixed = 23000 * 0.35 / 8760;
  ck_assert_double_eq_tol(c[0].best_usd,
                          16 * fixed * 8760 + 16 * 0.0845 * 8760 + 48 * 2 * 0.1 * 8760, 1e-6);
  ck_assert_double_eq_tol(c[0].all_rent_usd, (16 * 0.9 + 64 * 0.1) * 2 * 8760, 1e-6);
  ck_assert_uint_eq(c[0].n, 9); /* 0, 8, ..., 64 */
  snprintf(path, sizeof path, "%s/hybrid.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_hybrid_csv(c, 1, path), GB_OK);
  gb_plan_free(&p);
  world_free(&x);
  /* GPU-hours per month: 12 months of 730 GPU-hours = 1 GPU all year */
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\nB,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
             "demand_gpu_hours_per_month = 730,730,730,730,730,730,730,730,730,730,730,730\n");
  ck_assert_uint_eq(x.w.ndemand_months, 12);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 2), 1);
  /* owning a whole node (8) for 1 GPU of demand costs more than renting it */
  ck_assert_int_eq(c[0].best_owned, 0);
  ck_assert_double_eq_tol(c[0].all_rent_usd, 8760 * 2, 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* Money options: --years, --ops-fraction, --network-overhead, --host-power, --pue, --electricity,
 * --utilization and --price-scale, by the purchase formulas of docs/planner.md. */
START_TEST(test_opts_money) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  static const char *const set[][2] = {{"years", "2"},     {"ops-fraction", "0.2"}, {"network-overhead", "1.3"},
                                       {"host-power", "0.5"}, {"pue", "1.5"},        {"electricity", "0.2"},
                                       {"utilization", "0.8"}};
  for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
    ck_assert_int_eq(gb_plan_opt_set(&x.o, set[i][0], set[i][1]), GB_OK);
  /* capex per GPU 20000 x 1.3 = 26000; fixed = 26000 x (1/2 + 0.2) / 8760;
   * energy = 0.5 kW x (1 + 0.5) x 1.5 x 0.2 = 0.225 USD/h; per used hour fixed / 0.8 + energy */
  double capex = 26000, fixed = capex * 0.7 / 8760, energy = 0.225;
  gb_owned_cost c = gb_plan_owned_cost(&x.prices.v[1], &x.specs.v[0], &x.o);
  ck_assert_double_eq_tol(c.fixed_usd_per_gpu_hour, fixed, 1e-12);
  ck_assert_double_eq_tol(c.energy_usd_per_gpu_hour, energy, 1e-12);
  ck_assert_double_eq_tol(c.usd_per_used_gpu_hour, fixed / 0.8 + energy, 1e-12);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *own = find_row(&p, "FAST-SXM-100GB", "B", 8);
  double h = 1e4 * 1.8925 / 3600; /* test_training_hand */
  ck_assert_double_eq_tol(own->capex_usd, 8 * capex, 1e-9);
  ck_assert_double_eq_tol(own->amortized_usd, h * 8 * (fixed / 0.8 + energy), 1e-9);
  ck_assert_double_eq_tol(own->cash_usd, 8 * capex + h * 8 * energy + 8 * capex * 0.2 * h / 8760, 1e-6);
  ck_assert_double_eq_tol(own->breakeven_hours, capex / (2 - energy - capex * 0.2 / 8760), 1e-6);
  gb_plan_free(&p);
  /* --price-scale 2: rents, purchase prices and the tariff double */
  gb_plan_opts_default(&x.o);
  x.o.mfu = 0.5, x.o.overlap = 0, x.o.rank_by = GB_RANK_MEDIAN, x.o.nic_gbps = 50.0 / 0.9 / 8;
  x.o.today = "2026-12-04", x.o.max_gpus = 16;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "price-scale", "2"), GB_OK);
  c = gb_plan_owned_cost(&x.prices.v[1], &x.specs.v[0], &x.o);
  ck_assert_double_eq_tol(c.fixed_usd_per_gpu_hour, 2 * 23000 * 0.35 / 8760, 1e-12);
  ck_assert_double_eq_tol(c.energy_usd_per_gpu_hour, 2 * 0.0845, 1e-12);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "P", 8)->cost_usd, h * 8 * 2 * 2, 1e-9);
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "B", 8)->capex_usd, 8 * 20000 * 1.15 * 2, 1e-9);
  /* break-even is a ratio of prices: unchanged in hours */
  ck_assert_double_eq_tol(find_row(&p, "FAST-SXM-100GB", "B", 8)->breakeven_hours,
                          23000 / (2 - 0.0845 - 2300.0 / 8760), 1e-6);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* --spot-preemptions, --spot-checkpoint-hours, --spot-restart-hours: the Young/Daly stretch
 * hours x (1 + d/tau) / (1 - l (restart + tau/2)), l = preemptions x nodes, tau = sqrt(2 d / l). */
START_TEST(test_opts_spot) {
  world x;
  world_load(&x, "P,spot,FAST-SXM-100GB,8,1,,2026-01-01,s,V\n", k_train);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-preemptions", "0.1"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-checkpoint-hours", "0.1"), GB_OK);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-restart-hours", "0.5"), GB_OK);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  /* one node: l 0.1, tau sqrt(2); two nodes (16 GPUs, 2.8125 h): l 0.2, tau 1 */
  double s1 = (1 + 0.1 / sqrt(2.0)) / (1 - 0.1 * (0.5 + sqrt(2.0) / 2));
  double s2 = (1 + 0.1 / 1) / (1 - 0.2 * (0.5 + 0.5));
  ck_assert_double_eq_tol(spot_row(&p, 8)->hours, 1e4 * 1.8925 / 3600 * s1, 1e-9);
  ck_assert_double_eq_tol(spot_row(&p, 8)->cost_usd, 1e4 * 1.8925 / 3600 * s1 * 8, 1e-9);
  ck_assert_double_eq_tol(spot_row(&p, 16)->hours, 2.8125 * s2, 1e-9);
  gb_plan_free(&p);
  /* no preemptions: no stretch */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-preemptions", "0"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_double_eq_tol(spot_row(&p, 8)->hours, 1e4 * 1.8925 / 3600, 1e-9);
  gb_plan_free(&p);
  /* 10 an hour on one node: l x (0.5 + tau/2) = 10 x 0.55 >= 0.95: rejected */
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "spot-preemptions", "10"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_int_eq(spot_row(&p, 8)->reject, GB_REJECT_SPOT);
  char reason[160];
  gb_plan_reason(spot_row(&p, 8), reason, sizeof reason);
  ck_assert_str_eq(reason, "spot: 10.00 preemptions per hour outpace progress");
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

/* Every numeric planner option refuses what is out of range or not a number, naming the option. */
static const struct {
  const char *name, *value, *expect;
} k_bad_opts[] = {
    {"years", "0", "--years: must be > 0: 0"},
    {"years", "25", "--years: absurd value 25 (above 20)"},
    {"years", "four", "--years: not a number: \"four\""},
    {"ops-fraction", "-0.1", "--ops-fraction: must be >= 0: -0.1"},
    {"ops-fraction", "2", "--ops-fraction: absurd value 2 (above 1)"},
    {"ops-fraction", "10%", "--ops-fraction: not a number: \"10%\""},
    {"network-overhead", "0.9", "--network-overhead: must be >= 1: 0.9"},
    {"network-overhead", "4", "--network-overhead: absurd value 4 (above 3)"},
    {"network-overhead", "nan", "--network-overhead: not a number: \"nan\""},
    {"host-power", "-1", "--host-power: must be >= 0: -1"},
    {"host-power", "5", "--host-power: absurd value 5 (above 3)"},
    {"host-power", "", "--host-power: not a number: \"\""},
    {"pue", "0.9", "--pue: must be >= 1: 0.9"},
    {"pue", "6", "--pue: absurd value 6 (above 5)"},
    {"electricity", "0", "--electricity: must be > 0: 0"},
    {"electricity", "11", "--electricity: absurd value 11 (above 10)"},
    {"utilization", "0", "--utilization: must be > 0: 0"},
    {"utilization", "1.5", "--utilization: absurd value 1.5 (above 1)"},
    {"overlap", "-0.5", "--overlap: must be >= 0: -0.5"},
    {"nic-gbps", "0", "--nic-gbps: must be > 0: 0"},
    {"nic-gbit", "0", "--nic-gbit: must be > 0: 0"},
    {"nic-gbit", "1e6", "--nic-gbit: absurd value 1e6 (above 100000)"},
    {"nics-per-node", "0", "--nics-per-node: must be >= 1: 0"},
    {"nics-per-node", "1.5", "--nics-per-node: must be a whole number: 1.5"},
    {"max-gpus", "8.5", "--max-gpus: must be a whole number: 8.5"},
    {"spot-preemptions", "-1", "--spot-preemptions: must be >= 0: -1"},
    {"spot-preemptions", "101", "--spot-preemptions: absurd value 101 (above 100)"},
    {"spot-preemptions", "often", "--spot-preemptions: not a number: \"often\""},
    {"spot-checkpoint-hours", "0", "--spot-checkpoint-hours: must be > 0: 0"},
    {"spot-checkpoint-hours", "1e3", "--spot-checkpoint-hours: absurd value 1e3 (above 100)"},
    {"spot-restart-hours", "-0.25", "--spot-restart-hours: must be >= 0: -0.25"},
    {"spot-restart-hours", "soon", "--spot-restart-hours: not a number: \"soon\""},
    {"price-scale", "0", "--price-scale: must be > 0: 0"},
    {"price-scale", "1000", "--price-scale: absurd value 1000 (above 100)"},
    {"price-scale", "x2", "--price-scale: not a number: \"x2\""},
    {"jobs-per-year", "0", "--jobs-per-year: must be > 0: 0"},
    {"max-hours", "inf", "--max-hours: not a number: \"inf\""},
    {"only-measured", "maybe", "--only-measured: \"maybe\" is not true or false"},
    {"gpu-type", "H100-SXM-80GB,", "--gpu-type: empty item"},
};

START_TEST(test_opts_bad_values) {
  gb_plan_opts o, d;
  memset(&o, 0, sizeof o), memset(&d, 0, sizeof d); /* padding too: compared below */
  gb_plan_opts_default(&o);
  gb_plan_opts_default(&d);
  ck_assert_int_eq(gb_plan_opt_set(&o, k_bad_opts[_i].name, k_bad_opts[_i].value), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), k_bad_opts[_i].expect) != NULL, "case %d: got \"%s\", want \"%s\"", _i,
                gb_errmsg(), k_bad_opts[_i].expect);
  /* nothing was set */
  ck_assert(memcmp(&o, &d, offsetof(gb_plan_opts, gpu_types)) == 0);
  gb_errclear();
}
END_TEST

/* ---- properties ---- */

START_TEST(test_property_budget_monotone) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.max_gpus = 64;
  double budgets[] = {30, 60, 85, 100, 200, 1000, 1e6};
  gb_plan prev = {0};
  for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
    x.o.budget_usd = budgets[b];
    gb_plan p;
    ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
    if (b) {
      ck_assert_uint_ge(p.nfeasible, prev.nfeasible);
      for (size_t i = 0; i < prev.nfeasible; i++) {
        const gb_plan_row *q = &prev.rows[i];
        bool still = false;
        for (size_t j = 0; j < p.nfeasible && !still; j++)
          still = p.rows[j].price == q->price && p.rows[j].gpu_count == q->gpu_count;
        ck_assert_msg(still, "budget %g removed %s x%d", budgets[b], q->perf->spec->gpu_type, q->gpu_count);
      }
    }
    gb_plan_free(&prev);
    prev = p;
  }
  ck_assert_uint_gt(prev.nfeasible, 0);
  gb_plan_free(&prev);
  world_free(&x);
}
END_TEST

START_TEST(test_property_double_prices) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.max_gpus = 64;
  gb_plan base, twice;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &base), GB_OK);
  /* every price doubled: rates, purchase prices and the electricity tariff */
  for (size_t i = 0; i < x.prices.n; i++) {
    x.prices.v[i].price_usd_per_gpu_hour *= 2;
    x.prices.v[i].purchase_usd_per_gpu *= 2;
  }
  x.o.electricity_usd_per_kwh *= 2;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &twice), GB_OK);
  ck_assert_uint_eq(base.nfeasible, twice.nfeasible);
  size_t checked = 0;
  for (size_t i = 0; i < base.nfeasible; i++) {
    const gb_plan_row *a = &base.rows[i];
    for (size_t j = 0; j < twice.n; j++) {
      const gb_plan_row *b = &twice.rows[j];
      if (b->price != a->price || b->gpu_count != a->gpu_count) continue;
      ck_assert_double_eq_tol(b->efficiency, a->efficiency / 2, a->efficiency * 1e-12);
      ck_assert_double_eq_tol(b->cost_usd, a->cost_usd * 2, a->cost_usd * 1e-12);
      ck_assert_uint_eq(b->rank, a->rank); /* the order does not change */
      checked++;
    }
  }
  ck_assert_uint_eq(checked, base.nfeasible);
  gb_plan_free(&base);
  gb_plan_free(&twice);
  world_free(&x);
}
END_TEST

START_TEST(test_property_faster_ranks_higher) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.max_gpus = 64;
  gb_objective objs[] = {GB_OBJ_COST, GB_OBJ_TIME, GB_OBJ_EFFICIENCY};
  for (int k = 0; k < 3; k++) {
    x.o.objective = objs[k];
    gb_plan p;
    ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
    ck_assert_uint_gt(p.nfeasible, 0);
    /* FAST (800 TFLOP/s measured) and SLOW (400) at the same offering and count */
    for (size_t i = 0; i < p.nfeasible; i++) {
      const gb_plan_row *s = &p.rows[i];
      if (strcmp(s->perf->spec->gpu_type, "SLOW-SXM-100GB") != 0) continue;
      bool found = false;
      for (size_t j = 0; j < p.n; j++) {
        const gb_plan_row *f = &p.rows[j];
        if (strcmp(f->perf->spec->gpu_type, "FAST-SXM-100GB") != 0 || !f->price ||
            strcmp(f->price->provider, s->price->provider) != 0 || f->price->offering != s->price->offering ||
            f->gpus_per_node != s->gpus_per_node || f->gpu_count != s->gpu_count)
          continue;
        found = true;
        ck_assert(f->feasible);
        ck_assert_msg(f->rank < s->rank, "objective %d: FAST x%d rank %zu below SLOW rank %zu", k, f->gpu_count,
                      f->rank, s->rank);
      }
      ck_assert(found);
    }
    gb_plan_free(&p);
  }
  world_free(&x);
}
END_TEST

/* Calendar days, leap years included; the widening is rate x years, capped. */
START_TEST(test_price_age_days) {
  ck_assert_int_eq(gb_date_days("1970-01-01"), 0);
  ck_assert_int_eq(gb_date_days("2000-03-01"), 11017);
  ck_assert_int_eq(gb_date_age_days("2024-02-28", "2024-03-01"), 2);
  ck_assert_int_eq(gb_date_age_days("2025-12-07", "2026-12-07"), 365);
  ck_assert_int_eq(gb_date_age_days("2026-12-08", "2026-12-07"), -1);
  ck_assert_double_eq_tol(gb_price_age_widening(365, 0.08), 0.08 * 365 / 365.25, TOL);
  ck_assert_double_eq_tol(gb_price_age_widening(-5, 0.08), 0, TOL);
  ck_assert_double_eq_tol(gb_price_age_widening(365 * 50, 0.08), GB_PRICE_AGE_WIDEN_MAX, TOL);
  ck_assert_double_eq_tol(gb_price_age_widening(365, 0), 0, TOL);
}
END_TEST

/* Issue 56: two offerings at the same rate, one read today and one a year ago. The old one's cost
 * band is wider by the age rate at both ends, so at the pessimistic end it ranks below the fresh
 * one; --max-price-age drops it outright; --price-age-rate 0 makes them equal again. */
START_TEST(test_price_age_band) {
  world x;
  world_load(&x,
             "Fresh,on-demand,FAST-SXM-100GB,8,2,,2026-12-04,s,V\n"
             "Old,on-demand,FAST-SXM-100GB,8,2,,2025-12-04,s,V\n",
             k_train);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  const gb_plan_row *fresh = NULL, *old = NULL;
  for (size_t i = 0; i < p.nfeasible; i++) {
    const gb_plan_row *r = &p.rows[i];
    if (r->gpu_count != 8) continue;
    if (!strcmp(r->price->provider, "Fresh")) fresh = r;
    else old = r;
  }
  ck_assert_ptr_nonnull(fresh);
  ck_assert_ptr_nonnull(old);
  double w = 0.08 * 365 / 365.25;
  ck_assert_double_eq_tol(fresh->price_age_days, 0, TOL);
  ck_assert_double_eq_tol(old->price_age_days, 365, TOL);
  ck_assert_double_eq_tol(fresh->price_widening, 0, TOL);
  ck_assert_double_eq_tol(old->price_widening, w, TOL);
  ck_assert_double_eq_tol(old->cost_usd, fresh->cost_usd, 1e-9 * fresh->cost_usd);
  ck_assert_double_eq_tol(old->cost_high, fresh->cost_high * (1 + w), 1e-9 * fresh->cost_high);
  ck_assert_double_eq_tol(old->cost_low, fresh->cost_low * (1 - w), 1e-9 * fresh->cost_low);
  ck_assert_uint_lt(fresh->rank, old->rank); /* the stale price cannot win on its optimistic end */
  ck_assert_uint_eq(p.nprice_too_old, 0);
  size_t all = p.n;
  gb_plan_free(&p);
  gb_plan_opts o0 = x.o;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "max-price-age", "300"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].price) ck_assert_str_eq(p.rows[i].price->provider, "Fresh");
  ck_assert_uint_eq(p.nprice_too_old, 1);
  ck_assert_uint_eq(p.n + p.nfiltered, all);
  gb_plan_free(&p);
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "max-price-age", "365"), GB_OK); /* 365 days old: kept */
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nprice_too_old, 0);
  gb_plan_free(&p);
  x.o = o0;
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "price-age-rate", "0"), GB_OK);
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  for (size_t i = 0; i < p.n; i++)
    if (p.rows[i].price) ck_assert_double_eq_tol(p.rows[i].price_widening, 0, TOL);
  gb_plan_free(&p);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "max-price-age", "-1"), GB_E_INPUT);
  ck_assert_int_eq(gb_plan_opt_set(&x.o, "max-price-age", "2.5"), GB_E_INPUT);
  world_free(&x);
}
END_TEST

START_TEST(test_sensitivity_and_csv) {
  world x;
  world_load(&x, k_two_types, k_train);
  x.o.budget_usd = 85; /* some rows rejected, listed after the ranked ones */
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_lt(p.nfeasible, p.n);
  gb_sensitivity_row s[GB_SENSITIVITY_ROWS];
  ck_assert_int_eq(gb_plan_sensitivity(&x.w, &x.perf, &x.prices, &x.o, s), GB_OK);
  ck_assert_str_eq(s[0].factor, "base");
  ck_assert(s[0].has_top && !s[0].changed);
  ck_assert_ptr_eq(s[0].top.price, p.rows[0].price);
  /* every price x 1.2 scales every cost alike: same top, 1.2 x cost */
  ck_assert_str_eq(s[2].factor, "price");
  ck_assert_double_eq_tol(s[2].change_pct, 20, TOL);
  ck_assert(!s[2].changed);
  ck_assert_double_eq_tol(s[2].top.cost_usd, s[0].top.cost_usd * 1.2, 1e-9);
  const char *dir = gb_test_tmpdir();
  char plan_csv[4200], sens_csv[4200];
  snprintf(plan_csv, sizeof plan_csv, "%s/plan.csv", dir);
  snprintf(sens_csv, sizeof sens_csv, "%s/sens.csv", dir);
  ck_assert_int_eq(gb_plan_write_csv(&p, plan_csv), GB_OK);
  ck_assert_int_eq(gb_plan_write_sensitivity_csv(s, GB_SENSITIVITY_ROWS, sens_csv), GB_OK);
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(plan_csv, &t), GB_OK);
  ck_assert_uint_eq(t.nrows, p.n);
  /* the 33 columns of before, in their places, then issue 27's, then the
   * GPUs' assumed life (issue 24: the report weighs break-even against it) */
  /* and the ranked figures, verdicts, energy, inference band; then the price row's age, band widening,
   * confidence and line, the age rate and --max-price-age (issue 56); the power behind the energy (issue 57);
   * issue 50's goodput, its parts and the low-precision share, then its MoE and floor terms */
  ck_assert_uint_eq(t.ncols, 93);
  ck_assert_str_eq(gb_csv_header(&t, 74), "price_age_days");
  ck_assert_str_eq(gb_csv_header(&t, 77), "price_line");
  ck_assert_str_eq(gb_csv_header(&t, 80), "gpu_power_w");
  ck_assert_str_eq(gb_csv_header(&t, 81), "power_basis");
  ck_assert_str_eq(gb_csv_header(&t, 82), "goodput");
  ck_assert_str_eq(gb_csv_header(&t, 87), "low_precision_share");
  ck_assert_str_eq(gb_csv_header(&t, 88), "moe_router_hours");
  ck_assert_str_eq(gb_csv_header(&t, 92), "moe_imbalance");
  ck_assert_str_eq(gb_csv_header(&t, 58), "amortization_years");
  ck_assert_str_eq(gb_csv_cell(&t, 0, 58), "4");
  ck_assert_str_eq(gb_csv_header(&t, 33), "capex_usd");
  ck_assert_str_eq(gb_csv_header(&t, 34), "amortized_usd");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "budget_basis")), "cash");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "gemm_basis")), "measured");
  ck_assert_str_eq(gb_csv_header(&t, 0), "rank");
  ck_assert_str_eq(gb_csv_header(&t, 30), "workload");
  ck_assert_str_eq(gb_csv_header(&t, 31), "precision");
  ck_assert_str_eq(gb_csv_header(&t, 32), "gemm_window");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "rank")), "1");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "feasible")), "yes");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "basis")), "measured");
  ck_assert_str_eq(gb_csv_cell(&t, t.nrows - 1, gb_csv_col(&t, "rank")), "");
  ck_assert_str_eq(gb_csv_cell(&t, t.nrows - 1, gb_csv_col(&t, "feasible")), "no");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "workload")), "w");
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "precision")), p.workload->precision);
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "gemm_window")), "burst");
  gb_csv_free(&t);
  ck_assert_int_eq(gb_csv_read_file(sens_csv, &t), GB_OK);
  ck_assert_uint_eq(t.nrows, 5);
  ck_assert_str_eq(gb_csv_header(&t, 8), "changed");
  ck_assert_str_eq(gb_csv_cell(&t, 2, 1), "20");
  gb_csv_free(&t);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("planner_money");
  TCase *tc;
  tc = tcase_create("money");
  tcase_add_test(tc, test_constraints_and_reasons);
  tcase_add_test(tc, test_owned_spot_breakeven);
  tcase_add_test(tc, test_capex_budget_rule);
  tcase_add_test(tc, test_filters_and_stale);
  tcase_add_test(tc, test_price_age_days);
  tcase_add_test(tc, test_price_age_band);
  tcase_add_test(tc, test_json_and_hybrid_demand);
  tcase_add_test(tc, test_opts_money);
  tcase_add_test(tc, test_opts_spot);
  tcase_add_loop_test(tc, test_opts_bad_values, 0, sizeof k_bad_opts / sizeof k_bad_opts[0]);
  suite_add_tcase(s, tc);
  tc = tcase_create("properties");
  tcase_add_test(tc, test_property_budget_monotone);
  tcase_add_test(tc, test_property_double_prices);
  tcase_add_test(tc, test_property_faster_ranks_higher);
  tcase_add_test(tc, test_sensitivity_and_csv);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
