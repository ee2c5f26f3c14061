/* gb_plan_json: the plan as JSON a program can use (docs/plan.schema.json).
 * Typed values (numbers, booleans, null), every section the text has: the
 * configurations --top shows, the near-misses, the summary per GPU type,
 * buying, hybrid and sensitivity. Each configuration is the plan record of
 * gb_plan_out.c, the CSV's fields. Built of gb_plan_jsonv.c's values (json-c);
 * keys keep the order they are set in, so diffs of two plans stay readable.
 * Called by the plan command (gb_plan.h); calls gb_plan_out.c and
 * gb_plan_jsonv.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_plan_int.h"

static gb_json *config_or_null(const gb_plan *p, const gb_plan_row *r) {
  return r ? gb_plan_json_fields(p, r, false) : NULL;
}

static gb_json *head(const gb_plan *p) {
  const gb_workload *w = p->workload;
  gb_json *o = gb_json_obj(), *wl = gb_json_obj(), *counts = gb_json_obj();
  gb_json_put(wl, "name", gb_json_str(w->name));
  gb_json_put(wl, "kind", gb_json_str(gb_workload_kind_name(w->kind)));
  gb_json_put(wl, "precision", gb_json_str(w->precision));
  gb_json_put(counts, "configurations", gb_json_num((double)p->n));
  gb_json_put(counts, "feasible", gb_json_num((double)p->nfeasible));
  gb_json_put(counts, "filtered_out", gb_json_num((double)p->nfiltered));
  gb_json_put(o, "format", gb_json_text("gpubench-plan"));
  gb_json_put(o, "version", gb_json_int(2));
  gb_json_put(o, "workload", wl);
  gb_json_put(o, "objective", gb_json_str(gb_objective_name(p->opts.objective)));
  gb_json_put(o, "plan", p->n ? gb_plan_json_fields(p, &p->rows[0], true) : NULL);
  gb_json_put(o, "counts", counts);
  return o;
}

/* The configurations rows[0..n) (rows NULL: p->rows[from..to)) as an array. */
static gb_json *configs(const gb_plan *p, const gb_plan_row *const *rows, size_t n, size_t from, size_t to) {
  gb_json *a = gb_json_arr();
  for (size_t i = rows ? 0 : from; i < (rows ? n : to); i++)
    gb_json_append(a, gb_plan_json_fields(p, rows ? rows[i] : &p->rows[i], false));
  return a;
}

gb_err gb_plan_write_json(const gb_plan *p, const char *path) {
  gb_json *o = head(p);
  gb_json_put(o, "configurations", configs(p, NULL, 0, 0, p->n));
  return gb_json_write(o, path);
}

static gb_json *near_miss(const gb_plan *p) {
  if (p->nfeasible || !p->n) return NULL;
  gb_plan_near nm;
  gb_plan_near_miss(p, &nm);
  gb_json *o = gb_json_obj();
  gb_json_put(o, "cheapest_in_time", config_or_null(p, nm.cheapest_in_time));
  gb_json_put(o, "fastest_in_budget", config_or_null(p, nm.fastest_in_budget));
  gb_json_put(o, "binding", gb_json_str(nm.binding));
  gb_json_put(o, "budget_needed_usd", gb_json_num(nm.budget_needed));
  gb_json_put(o, "budget_move_pct", gb_json_num(nm.budget_move_pct));
  gb_json_put(o, "deadline_needed_hours", gb_json_num(nm.deadline_needed));
  gb_json_put(o, "deadline_move_pct", gb_json_num(nm.deadline_move_pct));
  return o;
}

static gb_json *by_type(const gb_plan *p) {
  gb_plan_type_sum sum[64];
  size_t n = gb_plan_type_summary(p, sum, 64);
  gb_json *a = gb_json_arr();
  for (size_t i = 0; i < n; i++) {
    gb_json *t = gb_json_obj(), *rej = gb_json_obj();
    for (int r = 1; r <= GB_REJECT_LAYOUT; r++)
      if (sum[i].by_reason[r]) gb_json_put(rej, gb_reject_short((gb_reject)r), gb_json_num((double)sum[i].by_reason[r]));
    gb_json_put(t, "gpu_type", gb_json_str(sum[i].perf->spec->gpu_type));
    gb_json_put(t, "configurations", gb_json_num((double)sum[i].n));
    gb_json_put(t, "feasible", gb_json_num((double)sum[i].feasible));
    gb_json_put(t, "rejected", rej);
    gb_json_put(t, "best", config_or_null(p, sum[i].best));
    gb_json_append(a, t);
  }
  return a;
}

static gb_json *buying(const gb_plan *p) {
  gb_plan_buy buy[64];
  size_t n = gb_plan_buying(p, buy, 64);
  gb_json *a = gb_json_arr();
  for (size_t i = 0; i < n; i++) {
    gb_json *t = gb_json_obj();
    gb_json_put(t, "gpu_type", gb_json_str(buy[i].perf->spec->gpu_type));
    gb_json_put(t, "cheapest_in_time", config_or_null(p, buy[i].best));
    gb_json_append(a, t);
  }
  return a;
}

static gb_json *hybrid_type(const gb_hybrid_curve *c) {
  gb_json *t = gb_json_obj(), *curve = gb_json_arr();
  for (size_t j = 0; j < c->n; j++) {
    gb_json *pt = gb_json_obj();
    gb_json_put(pt, "owned_gpus", gb_json_int(c->owned[j]));
    gb_json_put(pt, "usd_per_year", gb_json_num(c->annual_usd[j]));
    gb_json_append(curve, pt);
  }
  gb_json_put(t, "gpu_type", gb_json_str(c->purchase->gpu_type));
  gb_json_put(t, "purchase_provider", gb_json_str(c->purchase->provider));
  gb_json_put(t, "rent_provider", gb_json_str(c->rent->provider));
  gb_json_put(t, "best_owned_gpus", gb_json_int(c->best_owned));
  gb_json_put(t, "best_usd_per_year", gb_json_num(c->best_usd));
  gb_json_put(t, "all_rented_usd_per_year", gb_json_num(c->all_rent_usd));
  gb_json_put(t, "peak_gpus", gb_json_num(c->peak_gpus));
  gb_json_put(t, "curve", curve);
  return t;
}

static gb_json *hybrid(const gb_plan *p, const gb_hybrid_curve *c, size_t n) {
  const gb_workload *w = p->workload;
  bool profile = w->ndemand_months || !isnan(w->demand_base_gpus);
  gb_json *o = gb_json_obj(), *types = gb_json_arr();
  for (size_t i = 0; i < n; i++) gb_json_append(types, hybrid_type(&c[i]));
  gb_json_put(o, "demand", gb_json_text(profile ? "profile" : "jobs_per_year"));
  gb_json_put(o, "jobs_per_year", gb_json_num(profile ? NAN : p->opts.jobs_per_year));
  gb_json_put(o, "considered", gb_json_str(gb_plan_hybrid_scope()));
  gb_json_put(o, "types", types);
  return o;
}

static gb_json *sensitivity(const gb_plan *p, const gb_sensitivity_row *s) {
  gb_json *a = gb_json_arr();
  for (int i = 0; i < GB_SENSITIVITY_ROWS; i++) {
    gb_json *t = gb_json_obj();
    gb_json_put(t, "factor", gb_json_str(s[i].factor));
    gb_json_put(t, "change_pct", gb_json_num(s[i].change_pct));
    gb_json_put(t, "changed", gb_json_bool(s[i].changed));
    gb_json_put(t, "top", config_or_null(p, s[i].has_top ? &s[i].top : NULL));
    gb_json_append(a, t);
  }
  return a;
}

gb_err gb_plan_write_json_run(const gb_plan_run *run, const gb_plan_show *show, const gb_hybrid_curve *hy, size_t nh,
                              const char *path) {
  const gb_plan *p = &run->plan;
  const gb_plan_row **rows = malloc((p->nfeasible + 1) * sizeof *rows);
  if (!rows) return gb_fail(GB_E_NOMEM, "plan: out of memory");
  size_t n = gb_plan_shown(p, show->top, rows);
  gb_json *o = head(p);
  gb_json_put(o, "top", gb_json_int(show->top));
  gb_json_put(o, "configurations", configs(p, rows, n, 0, 0));
  gb_json_put(o, "near_miss", near_miss(p));
  gb_json_put(o, "by_gpu_type", by_type(p));
  if (show->explain == 2) gb_json_put(o, "rejected", configs(p, NULL, 0, p->nfeasible, p->n));
  gb_json_put(o, "buying", buying(p));
  gb_json_put(o, "hybrid", hybrid(p, hy, nh));
  gb_json_put(o, "sensitivity", sensitivity(p, run->sens));
  free(rows);
  return gb_json_write(o, path);
}
