/* Tests for the plan's outputs: near-misses when nothing fits, the summary
 * per GPU type, names that help, the typed JSON and the one record behind
 * the CSV and JSON writers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "check_planner_world.h"
#include "gb_csv.h"
#include "gb_num.h"

START_TEST(test_near_miss) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n", k_train);
  /* 16 GPUs: 2.8125 h, 90 USD; 8 GPUs: 5.3 h, 84.11 USD: a 3 h deadline and an 85 USD budget leave nothing */
  x.o.max_hours = 3;
  x.o.budget_usd = 85;
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  ck_assert_uint_eq(p.nfeasible, 0);
  gb_plan_near nm;
  gb_plan_near_miss(&p, &nm);
  ck_assert_ptr_nonnull(nm.cheapest_in_time);
  ck_assert_ptr_nonnull(nm.fastest_in_budget);
  ck_assert_int_eq(nm.cheapest_in_time->gpu_count, 16);
  ck_assert_int_eq(nm.fastest_in_budget->gpu_count, 8);
  /* the verdicts come from the ranked figures, once */
  ck_assert(nm.cheapest_in_time->meets_deadline && !nm.cheapest_in_time->within_budget);
  ck_assert(!nm.fastest_in_budget->meets_deadline && nm.fastest_in_budget->within_budget);
  ck_assert_double_eq_tol(nm.budget_needed, nm.cheapest_in_time->rank_cost, TOL);
  ck_assert_double_eq_tol(nm.budget_move_pct, (nm.cheapest_in_time->rank_cost / 85 - 1) * 100, 1e-9);
  ck_assert_double_eq_tol(nm.deadline_needed, nm.fastest_in_budget->rank_hours, TOL);
  /* +6% on the budget against +77% on the deadline: the budget binds */
  ck_assert(nm.budget_move_pct < 10 && nm.deadline_move_pct > 70);
  ck_assert_str_eq(nm.binding, "budget");
  /* the summary per type: FAST's 5 counts rejected, SLOW unpriced; FAST's nearest miss is the 16 GPUs */
  gb_plan_type_sum sum[4];
  size_t n = gb_plan_type_summary(&p, sum, 4);
  ck_assert_uint_eq(n, 2);
  const gb_plan_type_sum *fast = strcmp(sum[0].perf->spec->gpu_type, "FAST-SXM-100GB") == 0 ? &sum[0] : &sum[1];
  ck_assert_uint_eq(fast->feasible, 0);
  ck_assert_uint_eq(fast->by_reason[GB_REJECT_DEADLINE] + fast->by_reason[GB_REJECT_BUDGET], fast->n);
  ck_assert_int_eq(fast->best->gpu_count, 16);
  gb_plan_free(&p);
  /* no budget at all: only the deadline can bind */
  x.o.budget_usd = NAN;
  x.o.max_hours = 1;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  gb_plan_near_miss(&p, &nm);
  ck_assert_ptr_null(nm.cheapest_in_time);
  ck_assert_str_eq(nm.binding, "deadline");
  ck_assert_int_eq(nm.fastest_in_budget->gpu_count, 16);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

START_TEST(test_nearest_names) {
  static const char *const types[] = {"A100-SXM-80GB", "H100-SXM-80GB", "H200-SXM-141GB", "H800-SXM-80GB"};
  static const char *const offers[] = {"on-demand", "spot", "reserved", "purchase"};
  static const char *const provs[] = {"AWS", "CoreWeave", "Lambda"};
  ck_assert_str_eq(gb_nearest_name("H200", types, 4), "H200-SXM-141GB"); /* a part of the name wins */
  ck_assert_str_eq(gb_nearest_name("h100-sxm-80gb", types, 4), "H100-SXM-80GB");
  ck_assert_str_eq(gb_nearest_name("H300-SXM-141GB", types, 4), "H200-SXM-141GB"); /* edit distance 1 */
  ck_assert_str_eq(gb_nearest_name("spott", offers, 4), "spot");
  ck_assert_str_eq(gb_nearest_name("purchse", offers, 4), "purchase");
  ck_assert_str_eq(gb_nearest_name("corweave", provs, 3), "CoreWeave");
  ck_assert_ptr_null(gb_nearest_name("x", provs, 0));
  char msg[256];
  gb_unknown_name(msg, sizeof msg, "provider", "lambda labs", provs, 3);
  ck_assert_str_eq(msg, "unknown provider \"lambda labs\" (did you mean Lambda? valid: AWS, CoreWeave, Lambda)");
}
END_TEST

START_TEST(test_json_typed_and_csv_same_record) {
  world x;
  world_load(&x,
             "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
             "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n",
             k_train);
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  char path[4200];
  snprintf(path, sizeof path, "%s/typed.json", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_json(&p, path), GB_OK);
  size_t len;
  char *j = gb_test_slurp(path, &len);
  ck_assert(strstr(j, "\"feasible\": true"));
  ck_assert(strstr(j, "\"pareto\": true"));
  ck_assert(strstr(j, "\"meets_deadline\": true"));
  ck_assert(strstr(j, "\"rank\": null")); /* the unpriced SLOW */
  ck_assert(!strstr(j, "\"yes\"") && !strstr(j, "\"no\""));
  ck_assert(strstr(j, "\"figure_basis\": \"nominal\"")); /* the world ranks at the median */
  free(j);
  /* the CSV: the same record, the ranked figures and verdicts in named columns */
  snprintf(path, sizeof path, "%s/typed.csv", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_csv(&p, path), GB_OK);
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_file(path, &t), GB_OK);
  ck_assert_str_eq(gb_csv_cell(&t, 0, gb_csv_col(&t, "meets_deadline")), "yes");
  double cost;
  ck_assert(gb_parse_double(gb_csv_cell(&t, 0, gb_csv_col(&t, "rank_cost_usd")), &cost));
  ck_assert_double_eq_tol(cost, p.rows[0].rank_cost, 1e-6 * cost);
  gb_csv_free(&t);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

static const gb_hybrid_curve *curve_of(const gb_hybrid_curve *c, size_t n, const char *type) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(c[i].purchase->gpu_type, type) == 0) return &c[i];
  ck_abort_msg("no hybrid curve for %s", type);
  return NULL;
}

/* Hybrid: each type's split from its own speed and prices. SLOW sustains half FAST's GEMM rate, so the
 * profile's GPUs (FAST's, the ranking's first) are about twice as many of it; priced dear, owning any of
 * it stops paying while FAST still owns its base. */
START_TEST(test_hybrid_split_per_type) {
  static const char *const ini = "type = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\n"
                                 "demand_base_gpus = 16\ndemand_peak_gpus = 48\ndemand_peak_fraction = 0.1\n";
  static const char *const rent = "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n"
                                  "P,on-demand,SLOW-SXM-100GB,8,2,,2026-01-01,s,V\n"
                                  "B,purchase,FAST-SXM-100GB,8,,20000,2025-01-01,s,V\n";
  char prices[512];
  for (int dear = 0; dear < 2; dear++) {
    snprintf(prices, sizeof prices, "%sB,purchase,SLOW-SXM-100GB,8,,%d,2025-01-01,s,V\n", rent,
             dear ? 150000 : 20000);
    world x;
    world_load_measured(&x, prices, ini, k_measured);
    gb_plan p;
    ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
    ck_assert_str_eq(gb_plan_hybrid_reference(&p)->spec->gpu_type, "FAST-SXM-100GB");
    gb_hybrid_curve c[4];
    size_t n = gb_plan_hybrid_demand(&p, &x.perf, &x.prices, c, 4);
    ck_assert_uint_eq(n, 2);
    const gb_hybrid_curve *fast = curve_of(c, n, "FAST-SXM-100GB"), *slow = curve_of(c, n, "SLOW-SXM-100GB");
    ck_assert_double_eq_tol(fast->demand_scale, 1, 1e-12);
    ck_assert(slow->demand_scale > 1.5 && slow->demand_scale < 2.1);
    ck_assert_double_eq_tol(slow->peak_gpus, 64 * slow->demand_scale, 1e-9);
    ck_assert_int_eq(fast->best_owned, 16); /* the base, in use all year */
    if (dear) ck_assert_int_eq(slow->best_owned, 0);
    else ck_assert_int_ge(slow->best_owned, 24); /* its base: 16 x the speed ratio, whole nodes */
    gb_plan_free(&p);
    world_free(&x);
  }
}
END_TEST

/* A workload name that is not valid UTF-8 gives valid JSON, the bad bytes
 * as U+FFFD (before: plan --json wrote them raw, invalid UTF-8), and
 * quotes, backslashes and control characters escaped by the library. */
START_TEST(test_json_invalid_utf8_name) {
  world x;
  world_load(&x, "P,on-demand,FAST-SXM-100GB,8,2,,2026-01-01,s,V\n",
             "[workload]\ntype = training\nname = a\xff\xfe\"b\\c\xc3\nparams = 1e9\ntokens = 1e10\n"
             "tokens_per_step = 1e6\nsharded = false\ngoodput = 1\nflops_per_token = 6e9\n");
  gb_plan p;
  ck_assert_int_eq(gb_plan_rank(&x.w, &x.perf, &x.prices, &x.o, &p), GB_OK);
  char path[4200];
  snprintf(path, sizeof path, "%s/utf8.json", gb_test_tmpdir());
  ck_assert_int_eq(gb_plan_write_json(&p, path), GB_OK);
  size_t len;
  char *j = gb_test_slurp(path, &len);
  struct json_object *root = json_tokener_parse(j);
  ck_assert_msg(root != NULL, "not JSON:\n%.400s", j);
  struct json_object *wl = NULL, *name = NULL;
  ck_assert(json_object_object_get_ex(root, "workload", &wl) && json_object_object_get_ex(wl, "name", &name));
  ck_assert_str_eq(json_object_get_string(name), "a\xef\xbf\xbd\xef\xbf\xbd\"b\\c\xef\xbf\xbd");
  json_object_put(root);
  free(j);
  gb_plan_free(&p);
  world_free(&x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plan_out");
  TCase *tc = tcase_create("outputs");
  tcase_add_test(tc, test_near_miss);
  tcase_add_test(tc, test_nearest_names);
  tcase_add_test(tc, test_json_typed_and_csv_same_record);
  tcase_add_test(tc, test_json_invalid_utf8_name);
  tcase_add_test(tc, test_hybrid_split_per_type);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
