/* gb_plan_json: the plan as JSON a program can use (docs/plan.schema.json).
 * Typed values (numbers, booleans, null), every section the text has: the
 * configurations --top shows, the near-misses, the summary per GPU type,
 * buying, hybrid and sensitivity. Each configuration is the plan record of
 * gb_plan_out.c, the CSV's fields. Built as json-c values and serialised by
 * json-c (quoting and escaping by construction; strings made valid UTF-8
 * first); keys keep the order they are set in, so diffs of two plans stay
 * readable. json-c rather than jansson: it writes a number with the digits
 * we give it, so a figure reads the same, and back as the same double, in
 * the JSON and the CSV (plan_agree); jansson writes %.17g (0.6 as
 * 0.59999999999999998). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_escape.h"
#include "gb_num.h"
#include "gb_plan_int.h"

/* json-c's null is a NULL value, so a constructor that fails (out of
 * memory) could pass for one: each says so here, and dump() refuses. */
static _Thread_local bool t_oom;

static gb_json *made(gb_json *v) {
  if (!v) t_oom = true;
  return v;
}

static gb_json *obj(void) { return made(json_object_new_object()); }
static gb_json *arr(void) { return made(json_object_new_array()); }
static gb_json *integer(long long v) { return made(json_object_new_int64(v)); }
static gb_json *text(const char *v) { return made(json_object_new_string(v)); }
static gb_json *boolean(bool v) { return made(json_object_new_boolean(v)); }

gb_json *gb_json_bool(bool v) { return boolean(v); }
gb_json *gb_json_obj(void) { return obj(); }

gb_json *gb_json_str(const char *v) {
  gb_buf b = {0};
  if (gb_esc_utf8(&b, v ? v : "") != GB_OK) return made(NULL);
  gb_json *s = made(json_object_new_string_len(b.data ? b.data : "", (int)b.len));
  gb_buf_free(&b);
  return s;
}

gb_json *gb_json_num(double v) {
  if (!isfinite(v)) return NULL; /* null */
  if (v == floor(v) && fabs(v) <= 9007199254740992.0) return integer((long long)v);
  char s[64];
  gb_fmt_double(s, sizeof s, v); /* the CSV's digits: both read back the same double */
  return made(json_object_new_double_s(v, s));
}

/* Sets key to v (taken; NULL: null) in o. A missing o or a failed add (out
 * of memory) is noted for dump(). Everything is built without early exits:
 * dump() refuses a tree whose building ran out of memory. */
void gb_json_put(gb_json *o, const char *key, gb_json *v) {
  if (!o || json_object_object_add(o, key, v) != 0) {
    t_oom = true;
    json_object_put(v);
  }
}

#define put gb_json_put

static void append(gb_json *a, gb_json *v) {
  if (!a || json_object_array_add(a, v) != 0) {
    t_oom = true;
    json_object_put(v);
  }
}

static gb_json *config_or_null(const gb_plan *p, const gb_plan_row *r) {
  return r ? gb_plan_json_fields(p, r, false) : NULL;
}

static gb_json *head(const gb_plan *p) {
  const gb_workload *w = p->workload;
  gb_json *o = obj(), *wl = obj(), *counts = obj();
  put(wl, "name", gb_json_str(w->name));
  put(wl, "kind", gb_json_str(gb_workload_kind_name(w->kind)));
  put(wl, "precision", gb_json_str(w->precision));
  put(counts, "configurations", gb_json_num((double)p->n));
  put(counts, "feasible", gb_json_num((double)p->nfeasible));
  put(counts, "filtered_out", gb_json_num((double)p->nfiltered));
  put(o, "format", text("gpubench-plan"));
  put(o, "version", integer(2));
  put(o, "workload", wl);
  put(o, "objective", gb_json_str(gb_objective_name(p->opts.objective)));
  put(o, "plan", p->n ? gb_plan_json_fields(p, &p->rows[0], true) : NULL);
  put(o, "counts", counts);
  return o;
}

/* The configurations rows[0..n) (rows NULL: p->rows[from..to)) as an array. */
static gb_json *configs(const gb_plan *p, const gb_plan_row *const *rows, size_t n, size_t from, size_t to) {
  gb_json *a = arr();
  for (size_t i = rows ? 0 : from; i < (rows ? n : to); i++)
    append(a, gb_plan_json_fields(p, rows ? rows[i] : &p->rows[i], false));
  return a;
}

/* root serialised into path (atomically), then freed; a value that could
 * not be made (out of memory) fails it whole: no file. */
static gb_err dump(gb_json *root, const char *path) {
  int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE;
  const char *t = root && !t_oom ? json_object_to_json_string_ext(root, flags) : NULL;
  gb_buf b = {0};
  gb_err e = t ? gb_buf_puts(&b, t) : gb_fail(GB_E_NOMEM, "plan --json: out of memory");
  e = e ? e : gb_buf_puts(&b, "\n");
  json_object_put(root);
  t_oom = false;
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

gb_err gb_plan_write_json(const gb_plan *p, const char *path) {
  gb_json *o = head(p);
  put(o, "configurations", configs(p, NULL, 0, 0, p->n));
  return dump(o, path);
}

static gb_json *near_miss(const gb_plan *p) {
  if (p->nfeasible || !p->n) return NULL;
  gb_plan_near nm;
  gb_plan_near_miss(p, &nm);
  gb_json *o = obj();
  put(o, "cheapest_in_time", config_or_null(p, nm.cheapest_in_time));
  put(o, "fastest_in_budget", config_or_null(p, nm.fastest_in_budget));
  put(o, "binding", gb_json_str(nm.binding));
  put(o, "budget_needed_usd", gb_json_num(nm.budget_needed));
  put(o, "budget_move_pct", gb_json_num(nm.budget_move_pct));
  put(o, "deadline_needed_hours", gb_json_num(nm.deadline_needed));
  put(o, "deadline_move_pct", gb_json_num(nm.deadline_move_pct));
  return o;
}

static gb_json *by_type(const gb_plan *p) {
  gb_plan_type_sum sum[64];
  size_t n = gb_plan_type_summary(p, sum, 64);
  gb_json *a = arr();
  for (size_t i = 0; i < n; i++) {
    gb_json *t = obj(), *rej = obj();
    for (int r = 1; r <= GB_REJECT_LAYOUT; r++)
      if (sum[i].by_reason[r]) put(rej, gb_reject_short((gb_reject)r), gb_json_num((double)sum[i].by_reason[r]));
    put(t, "gpu_type", gb_json_str(sum[i].perf->spec->gpu_type));
    put(t, "configurations", gb_json_num((double)sum[i].n));
    put(t, "feasible", gb_json_num((double)sum[i].feasible));
    put(t, "rejected", rej);
    put(t, "best", config_or_null(p, sum[i].best));
    append(a, t);
  }
  return a;
}

static gb_json *buying(const gb_plan *p) {
  gb_plan_buy buy[64];
  size_t n = gb_plan_buying(p, buy, 64);
  gb_json *a = arr();
  for (size_t i = 0; i < n; i++) {
    gb_json *t = obj();
    put(t, "gpu_type", gb_json_str(buy[i].perf->spec->gpu_type));
    put(t, "cheapest_in_time", config_or_null(p, buy[i].best));
    append(a, t);
  }
  return a;
}

static gb_json *hybrid_type(const gb_hybrid_curve *c) {
  gb_json *t = obj(), *curve = arr();
  for (size_t j = 0; j < c->n; j++) {
    gb_json *pt = obj();
    put(pt, "owned_gpus", integer(c->owned[j]));
    put(pt, "usd_per_year", gb_json_num(c->annual_usd[j]));
    append(curve, pt);
  }
  put(t, "gpu_type", gb_json_str(c->purchase->gpu_type));
  put(t, "purchase_provider", gb_json_str(c->purchase->provider));
  put(t, "rent_provider", gb_json_str(c->rent->provider));
  put(t, "best_owned_gpus", integer(c->best_owned));
  put(t, "best_usd_per_year", gb_json_num(c->best_usd));
  put(t, "all_rented_usd_per_year", gb_json_num(c->all_rent_usd));
  put(t, "peak_gpus", gb_json_num(c->peak_gpus));
  put(t, "curve", curve);
  return t;
}

static gb_json *hybrid(const gb_plan *p, const gb_hybrid_curve *c, size_t n) {
  const gb_workload *w = p->workload;
  bool profile = w->ndemand_months || !isnan(w->demand_base_gpus);
  gb_json *o = obj(), *types = arr();
  for (size_t i = 0; i < n; i++) append(types, hybrid_type(&c[i]));
  put(o, "demand", text(profile ? "profile" : "jobs_per_year"));
  put(o, "jobs_per_year", gb_json_num(profile ? NAN : p->opts.jobs_per_year));
  put(o, "considered", gb_json_str(gb_plan_hybrid_scope()));
  put(o, "types", types);
  return o;
}

static gb_json *sensitivity(const gb_plan *p, const gb_sensitivity_row *s) {
  gb_json *a = arr();
  for (int i = 0; i < GB_SENSITIVITY_ROWS; i++) {
    gb_json *t = obj();
    put(t, "factor", gb_json_str(s[i].factor));
    put(t, "change_pct", gb_json_num(s[i].change_pct));
    put(t, "changed", boolean(s[i].changed));
    put(t, "top", config_or_null(p, s[i].has_top ? &s[i].top : NULL));
    append(a, t);
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
  put(o, "top", integer(show->top));
  put(o, "configurations", configs(p, rows, n, 0, 0));
  put(o, "near_miss", near_miss(p));
  put(o, "by_gpu_type", by_type(p));
  if (show->explain == 2) put(o, "rejected", configs(p, NULL, 0, p->nfeasible, p->n));
  put(o, "buying", buying(p));
  put(o, "hybrid", hybrid(p, hy, nh));
  put(o, "sensitivity", sensitivity(p, run->sens));
  free(rows);
  return dump(o, path);
}
