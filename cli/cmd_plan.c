/* gpubench plan: rank GPU configurations for a workload by cost, time or
 * cost efficiency, under a deadline and a budget (planner/gb_plan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_output.h"
#include "gb_plan.h"
#include "gb_runinfo.h"

static void usage(FILE *fp) {
  char keys[8192], opts[4096];
  gb_workload_keys_help(keys, sizeof keys);
  gb_plan_opts_help(opts, sizeof opts);
  fprintf(fp,
          "Usage: gpubench plan [WORKLOAD.ini] [OPTIONS] [--KEY VALUE ...]\n"
          "\n"
          "Ranks GPU type x GPU count (whole nodes) x offering (on-demand, spot, reserved,\n"
          "purchase) for a workload: estimated hours and cost, cost efficiency (work per\n"
          "dollar), the bottleneck (compute, memory or communication), whether the figures\n"
          "are measured or projected from datasheets; the Pareto frontier of time against\n"
          "cost, rent versus buy (break-even hours per year), hybrid (owned base + cloud\n"
          "burst), and how the top choice moves with price and efficiency +/-20%%.\n"
          "With no arguments it plans %s/workloads/training-7b.ini with the shipped data.\n"
          "\n"
          "Inputs:\n"
          "  WORKLOAD.ini               workload file (docs/planner.md); default the 7B training example\n"
          "  --measured CSV             results CSV to take GEMM, HBM and all-reduce figures from\n"
          "                             (repeatable; default every CSV in %s/measured)\n"
          "  --no-measured              use no measurements: project every figure from datasheets\n"
          "  --prices CSV               prices (default %s/prices.csv)\n"
          "  --specs CSV                datasheet figures (default %s/gpu_specs.csv)\n"
          "Output:\n"
          "  --top N                    ranked rows to print (default 15; 0 = all)\n"
          "  --explain                  list every rejected configuration with its reason\n"
          "  --csv FILE                 write the full table (ranked, then rejected)\n"
          "  --sensitivity-csv FILE     write the sensitivity table\n"
          "Planner options:\n"
          "%s"
          "Workload keys (as flags they override the file; '-' and '_' are the same):\n"
          "%s"
          "\n"
          "Exit status: 0 a plan was made, 1 no configuration meets the constraints,\n"
          "2 bad usage or input (the message names file:line:field).\n",
          gb_data_dir(), gb_data_dir(), gb_data_dir(), gb_data_dir(), opts, keys);
}

/* Splits "--name=value" or "--name value"; returns the value or NULL. */
static const char *flag_value(int argc, char **argv, int *i, char *name, size_t n) {
  const char *a = argv[*i] + 2;
  const char *eq = strchr(a, '=');
  if (eq) {
    snprintf(name, n, "%.*s", (int)(eq - a), a);
    return eq + 1;
  }
  snprintf(name, n, "%s", a);
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

int gb_plan_parse_args(int argc, char **argv, gb_plan_args *a) {
  memset(a, 0, sizeof *a);
  a->top = 15;
  gb_plan_opts_default(&a->opts);
  gb_workload_init(&a->flags);
  if (gb_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (argc > GB_PLAN_MAX_ARGS) return gb_cli_usage_error("plan", "too many arguments");
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || strcmp(arg, "--") == 0) {
      if (strcmp(arg, "--") == 0 && i + 1 < argc) arg = argv[++i];
      if (a->workload_file) return gb_cli_usage_error("plan", "more than one workload file: %s and %s", a->workload_file, arg);
      a->workload_file = arg;
      continue;
    }
    if (strcmp(arg, "--explain") == 0) {
      a->explain = true;
      continue;
    }
    if (strcmp(arg, "--no-measured") == 0) {
      a->no_measured = true;
      continue;
    }
    char name[64];
    const char *v = flag_value(argc, argv, &i, name, sizeof name);
    if (!v) return gb_cli_usage_error("plan", "--%s needs a value", name);
    if (strcmp(name, "measured") == 0) {
      if (a->nmeasured == GB_PLAN_MAX_MEASURED)
        return gb_cli_usage_error("plan", "at most %d --measured files", GB_PLAN_MAX_MEASURED);
      a->measured[a->nmeasured++] = v;
    } else if (strcmp(name, "prices") == 0) {
      a->prices = v;
    } else if (strcmp(name, "specs") == 0) {
      a->specs = v;
    } else if (strcmp(name, "csv") == 0) {
      a->csv = v;
    } else if (strcmp(name, "sensitivity-csv") == 0) {
      a->sensitivity_csv = v;
    } else if (strcmp(name, "top") == 0) {
      char *end;
      a->top = strtol(v, &end, 10);
      if (*end || end == v || a->top < 0 || a->top > 1000000)
        return gb_cli_usage_error("plan", "--top: not a count from 0 to 1000000: \"%s\"", v);
    } else if (gb_plan_is_opt(name)) {
      gb_err e = gb_plan_opt_set(&a->opts, name, v);
      if (e) {
        fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
        return 2;
      }
    } else if (gb_workload_is_key(name)) {
      /* checked now, applied over the file's values later */
      char where[80];
      snprintf(where, sizeof where, "--%s", name);
      if (gb_workload_set(&a->flags, name, v, where, 0)) {
        fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
        return 2;
      }
      a->set_keys[a->nset] = strdup(name);
      if (!a->set_keys[a->nset]) {
        fprintf(stderr, "gpubench plan: out of memory\n");
        return 2;
      }
      a->set_vals[a->nset] = v;
      a->nset++;
    } else {
      return gb_cli_usage_error("plan", "unknown option --%s", name);
    }
  }
  return GB_CLI_CONTINUE;
}

void gb_plan_args_free(gb_plan_args *a) {
  for (size_t i = 0; i < a->nset; i++) free(a->set_keys[i]);
  a->nset = 0;
}

/* A figure's basis in the per-GPU table. */
static const char *figure_basis(bool measured, bool throttled) {
  return !measured ? "projected" : throttled ? "measured (throttled)" : "measured";
}

static void print_perf(const gb_perf *perf, const gb_prices *prices) {
  printf("\nPer-GPU figures at %s, GEMM in the %s window (measured; measured (throttled) = from power-capped rows "
         "whose result passed; datasheet x ratio = projected):\n",
         perf->precision, perf->gemm_sustained ? "sustained" : "burst");
  printf("  %-20s %12s %-20s %10s %-20s %s\n", "gpu_type", "GEMM TFLOP/s", "basis", "HBM GB/s", "basis",
         "all-reduce busbw GB/s (in node)");
  for (size_t i = 0; i < perf->n; i++) {
    const gb_perf_type *t = &perf->v[i];
    bool priced = false;
    for (size_t j = 0; j < prices->n && !priced; j++) priced = strcmp(prices->v[j].gpu_type, t->spec->gpu_type) == 0;
    char comm[96];
    if (t->ncurves) {
      const gb_perf_curve *c = &t->curves[t->ncurves - 1];
      snprintf(comm, sizeof comm, "%.0f measured%s (%d GPUs, largest message)", c->busbw_gbps[c->n - 1],
               t->comm_throttled ? " (throttled)" : "", c->gpu_count);
    } else if (isfinite(t->comm_plateau_gbps)) {
      snprintf(comm, sizeof comm, "%.0f projected", t->comm_plateau_gbps);
    } else {
      snprintf(comm, sizeof comm, "-");
    }
    char gemm[32];
    if (isfinite(t->gemm_tflops)) snprintf(gemm, sizeof gemm, "%.1f", t->gemm_tflops);
    else snprintf(gemm, sizeof gemm, "n/a");
    printf("  %-20s %12s %-20s %10.0f %-20s %s%s\n", t->spec->gpu_type, gemm,
           isfinite(t->gemm_tflops) ? figure_basis(t->gemm_measured, t->gemm_throttled) : "-", t->hbm_gbps,
           figure_basis(t->hbm_measured, t->hbm_throttled), comm, priced ? "" : "  (no price)");
  }
}

static void fmt_cost(char *buf, size_t n, double usd) {
  if (!isfinite(usd)) snprintf(buf, n, "-");
  else if (usd >= 1e6) snprintf(buf, n, "%.2fM", usd / 1e6);
  else if (usd >= 1e4) snprintf(buf, n, "%.1fk", usd / 1e3);
  else snprintf(buf, n, "%.0f", usd);
}

static void print_row(const gb_plan_row *r, const char *unit) {
  char cost[32], cfg[48];
  fmt_cost(cost, sizeof cost, r->cost_usd);
  snprintf(cfg, sizeof cfg, "%d (%dx%d)", r->gpu_count, r->nodes, r->gpus_per_node);
  printf("  %4zu %-18s %-12s %-11s %-10s %10.1f %10s %9.3g %-9s %-13s %s%s\n", r->rank, r->perf->spec->gpu_type, cfg,
         r->price->provider, gb_offering_name(r->price->offering), r->hours, cost, r->efficiency, unit,
         gb_bottleneck_name(r->bottleneck), gb_plan_basis_name(r), r->pareto ? " *" : "");
}

static void print_header(void) {
  printf("  %4s %-18s %-12s %-11s %-10s %10s %10s %19s %-13s %s\n", "rank", "gpu_type", "gpus(nxg)", "provider",
         "offering", "hours", "cost USD", "efficiency", "bottleneck", "basis");
}

static void print_plan(const gb_plan *p, const gb_plan_args *a) {
  const gb_plan_opts *o = &p->opts;
  char deadline[32] = "none", budget[32] = "none";
  if (!isnan(o->max_hours)) snprintf(deadline, sizeof deadline, "%.1f h", o->max_hours);
  if (!isnan(o->budget_usd)) snprintf(budget, sizeof budget, "%.0f USD", o->budget_usd);
  printf("\nSettings: objective %s, mfu %.2f of measured GEMM, overlap %.2f, deadline %s, budget %s\n",
         gb_objective_name(o->objective), o->mfu, o->overlap, deadline, budget);
  printf("  owned GPUs: utilization %.2f, PUE %.2f, %.3f USD/kWh, %.1f years, operations %.0f%%/year of capex\n",
         o->utilization, o->pue, o->electricity_usd_per_kwh, o->amortization_years, o->ops_fraction_per_year * 100);
  size_t rejected = p->n - p->nfeasible;
  printf("\nRanked by %s: %zu feasible of %zu configurations (* = on the Pareto frontier)\n",
         gb_objective_name(o->objective), p->nfeasible, p->n);
  if (p->nfeasible) {
    print_header();
    size_t show = a->top == 0 || (size_t)a->top > p->nfeasible ? p->nfeasible : (size_t)a->top;
    for (size_t i = 0; i < show; i++) print_row(&p->rows[i], p->efficiency_unit);
    if (show < p->nfeasible) printf("  ... %zu more (--top N, --csv FILE)\n", p->nfeasible - show);
    printf("\nBest configuration per GPU type:\n");
    print_header();
    for (size_t i = 0; i < p->nfeasible; i++) {
      bool first = true;
      for (size_t j = 0; j < i && first; j++) first = p->rows[j].perf != p->rows[i].perf;
      if (first) print_row(&p->rows[i], p->efficiency_unit);
    }
    printf("\nPareto frontier, fastest first (no other configuration is both faster and cheaper):\n");
    print_header();
    /* frontier rows in time order */
    size_t nf = 0;
    for (size_t i = 0; i < p->nfeasible; i++) nf += p->rows[i].pareto;
    const gb_plan_row **fr = malloc((nf ? nf : 1) * sizeof *fr);
    if (fr) {
      size_t k = 0;
      for (size_t i = 0; i < p->nfeasible; i++)
        if (p->rows[i].pareto) fr[k++] = &p->rows[i];
      for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && fr[j]->hours < fr[j - 1]->hours; j--) {
          const gb_plan_row *t = fr[j];
          fr[j] = fr[j - 1];
          fr[j - 1] = t;
        }
      size_t limit = k > 20 ? 20 : k;
      for (size_t i = 0; i < limit; i++) print_row(fr[i], p->efficiency_unit);
      if (limit < k) printf("  ... %zu more on the frontier (--csv FILE)\n", k - limit);
      free(fr);
    }
  }
  /* rejection summary */
  size_t by[GB_REJECT_NO_PRICE + 1] = {0};
  for (size_t i = p->nfeasible; i < p->n; i++) by[p->rows[i].reject]++;
  static const char *names[] = {"", "precision not available", "does not fit in memory", "too slow for the rate",
                                "over the latency limit", "spot preemptions", "over deadline", "over budget",
                                "no price"};
  if (rejected) {
    printf("\nRejected: %zu configurations:", rejected);
    const char *sep = " ";
    for (int r = 1; r <= GB_REJECT_NO_PRICE; r++)
      if (by[r]) {
        printf("%s%zu %s", sep, by[r], names[r]);
        sep = ", ";
      }
    printf("%s\n", a->explain ? "" : " (--explain lists each)");
  }
  if (a->explain && rejected) {
    for (size_t i = p->nfeasible; i < p->n; i++) {
      const gb_plan_row *r = &p->rows[i];
      char reason[160];
      gb_plan_reason(r, reason, sizeof reason);
      if (r->price)
        printf("  %-18s %5d GPUs (%dx%d) %-11s %-10s %s\n", r->perf->spec->gpu_type, r->gpu_count, r->nodes,
               r->gpus_per_node, r->price->provider, gb_offering_name(r->price->offering), reason);
      else
        printf("  %-18s %s\n", r->perf->spec->gpu_type, reason);
    }
  }
}

static void print_buy(const gb_plan *p, const gb_perf *perf, const gb_prices *prices) {
  gb_breakeven be[64];
  size_t nb = gb_plan_breakeven(perf, prices, &p->opts, be, 64);
  if (!nb) return;
  printf("\nRent versus buy, per GPU (owned = depreciation + operations spread over the year, energy per used hour):\n");
  printf("  %-18s %12s %9s %9s %12s %-26s %8s %14s\n", "gpu_type", "purchase USD", "fixed/h", "energy/h",
         "owned/h @u", "cheapest rental USD/h", "u*", "break-even h/y");
  for (size_t i = 0; i < nb; i++) {
    const gb_breakeven *b = &be[i];
    char rent[160] = "none", ustar[16] = "-", hours[24] = "-";
    if (b->rent) {
      snprintf(rent, sizeof rent, "%.2f %s %s", b->rent->price_usd_per_gpu_hour * p->opts.price_scale,
               b->rent->provider, gb_offering_name(b->rent->offering));
      if (isinf(b->utilization_star) || b->utilization_star > 1) {
        snprintf(ustar, sizeof ustar, isinf(b->utilization_star) ? "never" : "%.2f", b->utilization_star);
        snprintf(hours, sizeof hours, "never (> 8760)");
      } else {
        snprintf(ustar, sizeof ustar, "%.2f", b->utilization_star);
        snprintf(hours, sizeof hours, "%.0f", b->hours_per_year);
      }
    }
    printf("  %-18s %12.0f %9.3f %9.3f %12.3f %-26s %8s %14s\n", b->purchase->gpu_type,
           b->purchase->purchase_usd_per_gpu * p->opts.price_scale, b->owned.fixed_usd_per_gpu_hour,
           b->owned.energy_usd_per_gpu_hour, b->owned.usd_per_used_gpu_hour, rent, ustar, hours);
  }
  printf("  Buying is cheaper than that rental above u* of the year in use (break-even hours per year).\n");
  gb_hybrid hy[64];
  size_t nh = gb_plan_hybrid(p, perf, prices, hy, 64);
  if (!nh) return;
  const gb_plan_row *burst = hy[0].burst;
  char c[32];
  fmt_cost(c, sizeof c, burst->cost_usd);
  printf("\nHybrid: %.0f runs per year; each run bursts to %s x%d %s %s (%.1f h, %s USD) unless an owned base runs it:\n",
         p->opts.jobs_per_year, burst->perf->spec->gpu_type, burst->gpu_count, burst->price->provider,
         gb_offering_name(burst->price->offering), burst->hours, c);
  printf("  %-18s %10s %12s %10s %10s %16s %16s\n", "owned gpu_type", "owned GPUs", "hours/run", "runs owned",
         "runs burst", "USD/year", "all cloud USD/y");
  for (size_t i = 0; i < nh; i++) {
    const gb_hybrid *h = &hy[i];
    char y[32], ac[32], hr[32];
    fmt_cost(y, sizeof y, h->annual_cost_usd);
    fmt_cost(ac, sizeof ac, h->all_cloud_usd);
    if (isnan(h->owned_job_hours)) snprintf(hr, sizeof hr, "-");
    else snprintf(hr, sizeof hr, "%.1f", h->owned_job_hours);
    printf("  %-18s %10d %12s %10.0f %10.0f %16s %16s\n", h->purchase->gpu_type, h->owned_gpus, hr, h->jobs_owned,
           h->jobs_burst, y, ac);
  }
  printf("  (owned GPUs 0: owning any base of this type costs more than bursting every run)\n");
}

static void print_sensitivity(const gb_sensitivity_row *s) {
  printf("\nSensitivity of the top choice:\n");
  for (int i = 0; i < GB_SENSITIVITY_ROWS; i++) {
    char label[32];
    if (i == 0) snprintf(label, sizeof label, "base");
    else snprintf(label, sizeof label, "%s %+.0f%%", s[i].factor, s[i].change_pct);
    if (!s[i].has_top) {
      printf("  %-16s no feasible configuration%s\n", label, s[i].changed ? "  (changed)" : "");
      continue;
    }
    const gb_plan_row *t = &s[i].top;
    char c[32];
    fmt_cost(c, sizeof c, t->cost_usd);
    printf("  %-16s %s x%d %s %s: %.1f h, %s USD%s\n", label, t->perf->spec->gpu_type, t->gpu_count,
           t->price->provider, gb_offering_name(t->price->offering), t->hours, c, s[i].changed ? "  (changed)" : "");
  }
}

int gb_cmd_plan(int argc, char **argv) {
  gb_plan_args a;
  int rc = gb_plan_parse_args(argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_plan_args_free(&a);
    return rc;
  }
  rc = 0;
  gb_workload w;
  gb_workload_init(&w);
  gb_plan_opts o = a.opts;
  char **set_keys = a.set_keys;
  const char *const *set_vals = a.set_vals;
  size_t nset = a.nset;
  gb_specs specs = {0};
  gb_prices prices = {0};
  gb_results measured = {0};
  gb_perf perf = {0};
  gb_plan plan = {0};
  gb_err e = GB_OK;
  char specs_path[4096], prices_path[4096], wl_path[4096], meas_dir[4096];
  size_t nfiles = 0;
  /* an output that is an input is refused before anything is written */
  const char *in[GB_PLAN_MAX_MEASURED + 3] = {a.workload_file, a.specs, a.prices};
  memcpy(in + 3, a.measured, a.nmeasured * sizeof *in);
  if ((e = gb_output_check(a.csv, in, 3 + a.nmeasured)) || (e = gb_output_check(a.sensitivity_csv, in, 3 + a.nmeasured)) ||
      (e = gb_output_check(a.sensitivity_csv, &a.csv, 1)))
    goto done;
  const char *dir = gb_data_dir();
  snprintf(specs_path, sizeof specs_path, "%s/gpu_specs.csv", dir);
  snprintf(prices_path, sizeof prices_path, "%s/prices.csv", dir);
  snprintf(meas_dir, sizeof meas_dir, "%s/measured", dir);
  if ((e = gb_specs_read(a.specs ? a.specs : specs_path, &specs))) goto done;
  if ((e = gb_prices_read(a.prices ? a.prices : prices_path, &specs, &prices))) goto done;
  /* the workload: a file, or flags alone when --type is given, else the default */
  bool has_type = false;
  for (size_t i = 0; i < nset; i++) has_type |= set_keys[i] && strcmp(set_keys[i], "type") == 0;
  if (!a.workload_file && !has_type) {
    snprintf(wl_path, sizeof wl_path, "%s/workloads/training-7b.ini", dir);
    a.workload_file = wl_path;
  }
  if (a.workload_file && (e = gb_workload_read(a.workload_file, &w))) goto done;
  for (size_t i = 0; i < nset; i++) {
    char where[80];
    snprintf(where, sizeof where, "--%s", set_keys[i]);
    if ((e = gb_workload_set(&w, set_keys[i], set_vals[i], where, 0))) goto done;
  }
  if ((e = gb_workload_finish(&w))) goto done;
  if (!a.no_measured) {
    if (a.nmeasured) {
      for (size_t i = 0; i < a.nmeasured; i++)
        if ((e = gb_results_read(a.measured[i], &measured))) goto done;
      nfiles = a.nmeasured;
    } else if ((e = gb_plan_load_measured_dir(meas_dir, &measured, &nfiles))) {
      goto done;
    }
  }
  if ((e = gb_perf_build(&specs, &measured, w.precision, w.gemm_size, w.gemm_sustained, &perf))) goto done;
  if ((e = gb_plan_rank(&w, &perf, &prices, &o, &plan))) goto done;

  printf("gpubench plan: workload %s (%s, %s)%s%s\n", w.name, gb_workload_kind_name(w.kind), w.precision,
         w.origin[0] ? " from " : "", w.origin);
  if (w.kind == GB_WL_TRAINING)
    printf("  %.3g parameters, %.3g tokens, %.3g tokens/step, %.3g FLOPs in all, %s model state\n", w.params, w.tokens,
           w.tokens_per_step, gb_workload_total_flops(&w), w.sharded ? "sharded" : "replicated");
  else if (w.kind == GB_WL_INFERENCE)
    printf("  %.3g parameters (%.3g GB of weights), %.0f tokens/s for %.0f h, batch %.0f\n", w.params,
           w.model_bytes / 1e9, w.tokens_per_second, w.serve_hours, w.batch_size);
  else
    printf("  %.3g FLOPs, %.3g bytes, %.0f all-reduces of %.3g bytes\n", w.total_flops, w.total_bytes,
           w.allreduce_count, w.allreduce_bytes);
  printf("Data: %s (%zu GPU types), %s (%zu price rows)\n", a.specs ? a.specs : specs_path, specs.n,
         prices.path, prices.n);
  if (a.no_measured)
    printf("Measured: none (--no-measured).\n");
  else if (a.nmeasured)
    printf("Measured: %zu file(s), %zu rows, %zu used.\n", nfiles, measured.nrows, perf.measured_rows_used);
  else
    printf("Measured: %zu file(s) in %s, %zu rows, %zu used.\n", nfiles, meas_dir, measured.nrows,
           perf.measured_rows_used);
  if (perf.measured_rows_used == 0)
    printf("NOTE: no measurements were usable: EVERY figure is projected from datasheets x default ratios\n"
           "      (GEMM %.2f, HBM %.2f, all-reduce %.2f of datasheet). Run 'gpubench run' and plan again.\n",
           perf.gemm_ratio, perf.hbm_ratio, perf.comm_ratio);
  else
    printf("Projection ratios, measured / datasheet (number of measured types; 0 = default ratio): GEMM %.3f (%zu), "
           "HBM %.3f (%zu), all-reduce %.3f (%zu)\n",
           perf.gemm_ratio, perf.gemm_ratio_types, perf.hbm_ratio, perf.hbm_ratio_types, perf.comm_ratio,
           perf.comm_ratio_types);
  if (perf.notes.len) fprintf(stderr, "gpubench plan: warning: %.*s", (int)perf.notes.len, perf.notes.data);
  print_perf(&perf, &prices);
  print_plan(&plan, &a);
  if (plan.nfeasible) print_buy(&plan, &perf, &prices);
  gb_sensitivity_row sens[GB_SENSITIVITY_ROWS];
  if ((e = gb_plan_sensitivity(&w, &perf, &prices, &o, sens))) goto done;
  print_sensitivity(sens);
  if (plan.oldest_price)
    printf("\nOldest price used: %s (%s %s %s, line %ld of %s). Prices move fast: check before buying.\n",
           plan.oldest_price->date, plan.oldest_price->provider, gb_offering_name(plan.oldest_price->offering),
           plan.oldest_price->gpu_type, plan.oldest_price->line, prices.path);
  if (a.csv && (e = gb_plan_write_csv(&plan, a.csv))) goto done;
  if (a.sensitivity_csv && (e = gb_plan_write_sensitivity_csv(sens, GB_SENSITIVITY_ROWS, a.sensitivity_csv)))
    goto done;
  if (a.csv) printf("Wrote %s\n", a.csv);
  if (a.sensitivity_csv) printf("Wrote %s\n", a.sensitivity_csv);
  rc = plan.nfeasible ? 0 : 1;
  if (!plan.nfeasible) fprintf(stderr, "gpubench plan: no configuration meets the constraints (see Rejected above)\n");
done:
  if (e) {
    fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
    rc = gb_exit_code(e);
  }
  gb_plan_args_free(&a);
  gb_plan_free(&plan);
  gb_perf_free(&perf);
  gb_results_free(&measured);
  gb_prices_free(&prices);
  gb_specs_free(&specs);
  return rc;
}
