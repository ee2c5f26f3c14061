/* gb_plan_json: the plan as JSON a program can use (docs/plan.schema.json).
 * Typed values (numbers, booleans, null), every section the text has: the
 * configurations --top shows, the near-misses, the summary per GPU type,
 * buying, hybrid and sensitivity. Each configuration is the plan record of
 * gb_plan_out.c, the CSV's fields. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_plan_int.h"

static gb_err config_or_null(gb_buf *b, const gb_plan *p, const gb_plan_row *r) {
  return r ? gb_plan_json_fields(b, p, r, false) : gb_buf_puts(b, "null");
}

static gb_err json_key_num(gb_buf *b, const char *key, double v) {
  gb_err e = gb_buf_printf(b, "\"%s\": ", key);
  return e ? e : gb_json_number(b, v);
}

static gb_err json_key_str(gb_buf *b, const char *key, const char *v) {
  gb_err e = gb_buf_printf(b, "\"%s\": ", key);
  return e ? e : gb_json_string(b, v);
}

static gb_err write_head(gb_buf *b, const gb_plan *p) {
  const gb_workload *w = p->workload;
  gb_err e = gb_buf_puts(b, "{\"format\": \"gpubench-plan\", \"version\": 2, \"workload\": {");
  e = e ? e : json_key_str(b, "name", w->name);
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_str(b, "kind", gb_workload_kind_name(w->kind));
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_str(b, "precision", w->precision);
  e = e ? e : gb_buf_puts(b, "},\n \"objective\": ");
  e = e ? e : gb_json_string(b, gb_objective_name(p->opts.objective));
  e = e ? e : gb_buf_puts(b, ",\n \"plan\": ");
  e = e ? e : gb_plan_json_fields(b, p, p->n ? &p->rows[0] : NULL, true);
  e = e ? e : gb_buf_printf(b, ",\n \"counts\": {\"configurations\": %zu, \"feasible\": %zu, \"filtered_out\": %zu}",
                            p->n, p->nfeasible, p->nfiltered);
  return e;
}

static gb_err write_rows(gb_buf *b, const gb_plan *p, const char *key, const gb_plan_row *const *rows, size_t n,
                         size_t from, size_t to) {
  gb_err e = gb_buf_printf(b, ",\n \"%s\": [", key);
  size_t k = 0;
  for (size_t i = rows ? 0 : from; i < (rows ? n : to) && !e; i++, k++) {
    e = gb_buf_puts(b, k ? ",\n  " : "\n  ");
    e = e ? e : gb_plan_json_fields(b, p, rows ? rows[i] : &p->rows[i], false);
  }
  return e ? e : gb_buf_puts(b, "]");
}

gb_err gb_plan_write_json(const gb_plan *p, const char *path) {
  gb_buf b = {0};
  gb_err e = write_head(&b, p);
  e = e ? e : write_rows(&b, p, "configurations", NULL, 0, 0, p->n);
  e = e ? e : gb_buf_puts(&b, "}\n");
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

static gb_err write_near(gb_buf *b, const gb_plan *p) {
  if (p->nfeasible || !p->n) return gb_buf_puts(b, ",\n \"near_miss\": null");
  gb_plan_near nm;
  gb_plan_near_miss(p, &nm);
  gb_err e = gb_buf_puts(b, ",\n \"near_miss\": {\"cheapest_in_time\": ");
  e = e ? e : config_or_null(b, p, nm.cheapest_in_time);
  e = e ? e : gb_buf_puts(b, ",\n  \"fastest_in_budget\": ");
  e = e ? e : config_or_null(b, p, nm.fastest_in_budget);
  e = e ? e : gb_buf_puts(b, ",\n  ");
  e = e ? e : json_key_str(b, "binding", nm.binding);
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_num(b, "budget_needed_usd", nm.budget_needed);
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_num(b, "budget_move_pct", nm.budget_move_pct);
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_num(b, "deadline_needed_hours", nm.deadline_needed);
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_num(b, "deadline_move_pct", nm.deadline_move_pct);
  return e ? e : gb_buf_puts(b, "}");
}

static gb_err write_types(gb_buf *b, const gb_plan *p) {
  gb_plan_type_sum sum[64];
  size_t n = gb_plan_type_summary(p, sum, 64);
  gb_err e = gb_buf_puts(b, ",\n \"by_gpu_type\": [");
  for (size_t i = 0; i < n && !e; i++) {
    e = gb_buf_puts(b, i ? ",\n  {" : "\n  {");
    e = e ? e : json_key_str(b, "gpu_type", sum[i].perf->spec->gpu_type);
    e = e ? e : gb_buf_printf(b, ", \"configurations\": %zu, \"feasible\": %zu, \"rejected\": {", sum[i].n,
                              sum[i].feasible);
    const char *sep = "";
    for (int r = 1; r <= GB_REJECT_LAYOUT && !e; r++)
      if (sum[i].by_reason[r]) {
        e = gb_buf_printf(b, "%s\"%s\": %zu", sep, gb_reject_short((gb_reject)r), sum[i].by_reason[r]);
        sep = ", ";
      }
    e = e ? e : gb_buf_puts(b, "}, \"best\": ");
    e = e ? e : config_or_null(b, p, sum[i].best);
    e = e ? e : gb_buf_puts(b, "}");
  }
  return e ? e : gb_buf_puts(b, "]");
}

static gb_err write_buying(gb_buf *b, const gb_plan *p) {
  gb_plan_buy buy[64];
  size_t n = gb_plan_buying(p, buy, 64);
  gb_err e = gb_buf_puts(b, ",\n \"buying\": [");
  for (size_t i = 0; i < n && !e; i++) {
    e = gb_buf_puts(b, i ? ",\n  {" : "\n  {");
    e = e ? e : json_key_str(b, "gpu_type", buy[i].perf->spec->gpu_type);
    e = e ? e : gb_buf_puts(b, ", \"cheapest_in_time\": ");
    e = e ? e : config_or_null(b, p, buy[i].best);
    e = e ? e : gb_buf_puts(b, "}");
  }
  return e ? e : gb_buf_puts(b, "]");
}

static gb_err write_hybrid(gb_buf *b, const gb_plan *p, const gb_hybrid_curve *c, size_t n) {
  const gb_workload *w = p->workload;
  bool profile = w->ndemand_months || !isnan(w->demand_base_gpus);
  gb_err e = gb_buf_printf(b, ",\n \"hybrid\": {\"demand\": \"%s\", ", profile ? "profile" : "jobs_per_year");
  e = e ? e : json_key_num(b, "jobs_per_year", profile ? NAN : p->opts.jobs_per_year);
  e = e ? e : gb_buf_puts(b, ", ");
  e = e ? e : json_key_str(b, "considered", gb_plan_hybrid_scope());
  e = e ? e : gb_buf_puts(b, ", \"types\": [");
  for (size_t i = 0; i < n && !e; i++) {
    e = gb_buf_puts(b, i ? ",\n  {" : "\n  {");
    e = e ? e : json_key_str(b, "gpu_type", c[i].purchase->gpu_type);
    e = e ? e : gb_buf_puts(b, ", ");
    e = e ? e : json_key_str(b, "purchase_provider", c[i].purchase->provider);
    e = e ? e : gb_buf_puts(b, ", ");
    e = e ? e : json_key_str(b, "rent_provider", c[i].rent->provider);
    e = e ? e : gb_buf_printf(b, ", \"best_owned_gpus\": %d, ", c[i].best_owned);
    e = e ? e : json_key_num(b, "best_usd_per_year", c[i].best_usd);
    e = e ? e : gb_buf_puts(b, ", ");
    e = e ? e : json_key_num(b, "all_rented_usd_per_year", c[i].all_rent_usd);
    e = e ? e : gb_buf_puts(b, ", ");
    e = e ? e : json_key_num(b, "peak_gpus", c[i].peak_gpus);
    e = e ? e : gb_buf_puts(b, ", \"curve\": [");
    for (size_t j = 0; j < c[i].n && !e; j++) {
      e = gb_buf_printf(b, "%s{\"owned_gpus\": %d, ", j ? ", " : "", c[i].owned[j]);
      e = e ? e : json_key_num(b, "usd_per_year", c[i].annual_usd[j]);
      e = e ? e : gb_buf_puts(b, "}");
    }
    e = e ? e : gb_buf_puts(b, "]}");
  }
  return e ? e : gb_buf_puts(b, "]}");
}

static gb_err write_sensitivity(gb_buf *b, const gb_plan *p, const gb_sensitivity_row *s) {
  gb_err e = gb_buf_puts(b, ",\n \"sensitivity\": [");
  for (int i = 0; i < GB_SENSITIVITY_ROWS && !e; i++) {
    e = gb_buf_puts(b, i ? ",\n  {" : "\n  {");
    e = e ? e : json_key_str(b, "factor", s[i].factor);
    e = e ? e : gb_buf_puts(b, ", ");
    e = e ? e : json_key_num(b, "change_pct", s[i].change_pct);
    e = e ? e : gb_buf_printf(b, ", \"changed\": %s, \"top\": ", s[i].changed ? "true" : "false");
    e = e ? e : config_or_null(b, p, s[i].has_top ? &s[i].top : NULL);
    e = e ? e : gb_buf_puts(b, "}");
  }
  return e ? e : gb_buf_puts(b, "]");
}

gb_err gb_plan_write_json_run(const gb_plan_run *run, const gb_plan_show *show, const gb_hybrid_curve *hy, size_t nh,
                              const char *path) {
  const gb_plan *p = &run->plan;
  const gb_plan_row **rows = malloc((p->nfeasible + 1) * sizeof *rows);
  if (!rows) return gb_fail(GB_E_NOMEM, "plan: out of memory");
  size_t n = gb_plan_shown(p, show->top, rows);
  gb_buf b = {0};
  gb_err e = write_head(&b, p);
  e = e ? e : gb_buf_printf(&b, ",\n \"top\": %ld", show->top);
  e = e ? e : write_rows(&b, p, "configurations", rows, n, 0, 0);
  e = e ? e : write_near(&b, p);
  e = e ? e : write_types(&b, p);
  if (show->explain == 2) e = e ? e : write_rows(&b, p, "rejected", NULL, 0, p->nfeasible, p->n);
  e = e ? e : write_buying(&b, p);
  e = e ? e : write_hybrid(&b, p, hy, nh);
  e = e ? e : write_sensitivity(&b, p, run->sens);
  e = e ? e : gb_buf_puts(&b, "}\n");
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  free(rows);
  return e;
}
