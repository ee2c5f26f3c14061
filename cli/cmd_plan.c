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
#include "gb_store.h"

static int set_workload_file(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)o;
  gb_plan_args *a = args;
  if (a->workload_file) {
    snprintf(err, errlen, "more than one workload file: %s and %s", a->workload_file, val);
    return -1;
  }
  a->workload_file = val;
  return 0;
}

static int set_planner_opt(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  if (gb_plan_opt_set(&((gb_plan_args *)args)->opts, o->name, val)) {
    snprintf(err, errlen, "%s", gb_errmsg());
    return -1;
  }
  return 0;
}

/* A workload key: checked now, applied over the file's values later. */
static int set_workload_key(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  gb_plan_args *a = args;
  char where[80];
  snprintf(where, sizeof where, "--%s", o->name);
  if (gb_workload_set(&a->flags, o->name, val, where, 0)) {
    snprintf(err, errlen, "%s", gb_errmsg());
    return -1;
  }
  if (a->nset == GB_PLAN_MAX_ARGS) {
    snprintf(err, errlen, "too many arguments");
    return -1;
  }
  a->set_keys[a->nset] = strdup(o->name);
  if (!a->set_keys[a->nset]) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  a->set_vals[a->nset] = val;
  a->nset++;
  return 0;
}

#define A(m) GB_OPT_AT(gb_plan_args, m)
static const gb_opt k_opts[] = {
    {"measured", 0, "CSV", "results CSV to take GEMM, HBM and all-reduce figures from\n"
     "(repeatable; default every CSV in @DATA@/measured)", GB_OPT_LIST, A(measured),
     GB_OPT_COUNT(gb_plan_args, nmeasured), .max = GB_PLAN_MAX_MEASURED, .ext = "csv", .group = "Inputs"},
    {"store", 0, "URL", "the --measured values are selections of this results store\n(\"host=node03,since=2026-11-01\"; "
     "docs/store.md)", GB_OPT_STRING, A(store), .group = "Inputs"},
    {"no-measured", 0, NULL, "use no measurements: project every figure from datasheets", GB_OPT_FLAG,
     A(no_measured)},
    {"prices", 0, "CSV", "prices (default @DATA@/prices.csv)", GB_OPT_PATH, A(prices), .ext = "csv"},
    {"specs", 0, "CSV", "datasheet figures (default @DATA@/gpu_specs.csv)", GB_OPT_PATH, A(specs), .ext = "csv"},
    {"top", 0, "N", "rows of the best-per-offering table (default 10; 0 = all)", GB_OPT_INT, A(top), .min = 0, .max = 1000000,
     .group = "Output"},
    {"explain", 0, NULL, "list every rejected configuration with its reason", GB_OPT_FLAG, A(explain)},
    {"only-measured", 0, NULL, "only GPU types whose GEMM and HBM figures are measured", GB_OPT_FLAG,
     A(only_measured)},
    {"csv", 0, "FILE", "write the full table (ranked, then rejected)", GB_OPT_PATH, A(csv), .ext = "csv"},
    {"json", 0, "FILE", "write every configuration as JSON, with its time breakdown", GB_OPT_PATH, A(json),
     .ext = "json"},
    {"hybrid-csv", 0, "FILE", "write the owned-versus-rented cost curve of a demand profile", GB_OPT_PATH,
     A(hybrid_csv), .ext = "csv"},
    {"sensitivity-csv", 0, "FILE", "write the sensitivity table", GB_OPT_PATH, A(sensitivity_csv), .ext = "csv"},
    {0}};
#undef A

/* Whether the command's own table has an option of this name. */
static bool own_option(const char *name) {
  for (const gb_opt *o = k_opts; o->name; o++)
    if (strcmp(o->name, name) == 0) return true;
  return false;
}

/* The planner options and workload keys come from the planner's own tables
 * (gb_plan_opt_table, gb_workload_opts), entry by entry, so that a key added
 * there is a flag here, in --help, the man page and the completion; each is
 * set through the planner's own checks. '-' and '_' are the same in a
 * workload key: the other spelling is a hidden alias. */
static size_t more_opts(gb_opt *out, size_t n) {
  static gb_opt keys[GB_WL_MAX_KEYS];
  static char alias[GB_WL_MAX_KEYS][64];
  size_t m = 0;
  for (const gb_opt *p = gb_plan_opt_table(); p->name && m < n; p++) {
    if (own_option(p->name)) continue;
    out[m] = (gb_opt){.name = p->name, .metavar = p->metavar, .help = p->help, .kind = GB_OPT_CALL,
                      .set = set_planner_opt, .group = m == 0 ? "Planner options" : NULL};
    m++;
  }
  size_t nkeys = gb_workload_opts(keys, GB_WL_MAX_KEYS), first = m;
  for (size_t i = 0; i < nkeys && m < n; i++) {
    out[m] = keys[i];
    out[m].set = set_workload_key;
    out[m].group = m == first ? "Workload keys (as flags they override the file; '-' and '_' are the same)" : NULL;
    m++;
  }
  /* the other spelling of each workload key, unless it is a name already */
  for (size_t i = 0; i < nkeys && m < n; i++) {
    snprintf(alias[i], sizeof alias[i], "%s", keys[i].name);
    bool changed = false;
    for (char *c = alias[i]; *c; c++)
      if (*c == '_') *c = '-', changed = true;
    bool taken = false;
    for (size_t j = 0; j < m && !taken; j++) taken = strcmp(out[j].name, alias[i]) == 0;
    if (changed && !taken)
      out[m++] = (gb_opt){.name = alias[i], .metavar = keys[i].metavar, .help = keys[i].help, .kind = GB_OPT_CALL,
                          .set = set_workload_key, .hidden = true};
  }
  return m;
}

const gb_opt_cmd gb_plan_cmd = {
    .name = "plan",
    .synopsis = "[OPTIONS] [--KEY VALUE ...] [WORKLOAD.ini]",
    .summary = "rank GPU configurations for a workload by cost under a deadline and a budget",
    .description =
        "Ranks GPU type x GPU count (whole nodes) x offering (on-demand, spot, reserved,\n"
        "purchase) for a workload: estimated hours and cost, cost efficiency (work per\n"
        "dollar), the bottleneck (compute, memory or communication), whether the figures\n"
        "are measured or projected from datasheets; the Pareto frontier of time against\n"
        "cost, rent versus buy (break-even hours per year), hybrid (owned base + cloud\n"
        "burst), and how the top choice moves with price and efficiency +/-20%.\n"
        "With no arguments it plans @DATA@/workloads/training-7b.ini with the shipped data.",
    .options = k_opts,
    .operands = {.metavar = "WORKLOAD.ini",
                 .help = "workload file (docs/planner.md); default the 7B training example", .min = 0, .max = -1,
                 .ext = "ini", .set = set_workload_file},
    .more = more_opts,
    .exit_status = "0 a plan was made, 1 no configuration meets the constraints,\n"
                   "2 bad usage or input (the message names file:line:field).",
};

int gb_plan_parse_args(int argc, char **argv, gb_plan_args *a) {
  memset(a, 0, sizeof *a);
  a->top = 10;
  gb_plan_opts_default(&a->opts);
  gb_workload_init(&a->flags);
  if (!gb_cli_wants_help(argc, argv) && argc > GB_PLAN_MAX_ARGS) return gb_cli_usage_error("plan", "too many arguments");
  return gb_opt_parse(&gb_plan_cmd, argc, argv, a);
}

void gb_plan_args_free(gb_plan_args *a) {
  for (size_t i = 0; i < a->nset; i++) free(a->set_keys[i]);
  a->nset = 0;
}

static void fmt_cost(char *buf, size_t n, double usd) {
  if (!isfinite(usd)) snprintf(buf, n, "-");
  else if (usd >= 1e6) snprintf(buf, n, "%.2fM", usd / 1e6);
  else if (usd >= 1e4) snprintf(buf, n, "%.1fk", usd / 1e3);
  else snprintf(buf, n, "%.0f", usd);
}

static void print_perf(const gb_perf *perf, const gb_prices *prices) {
  printf("\nPer-GPU figures at %s (GEMM in the %s window), each with its basis and band:\n", perf->precision,
         perf->gemm_sustained ? "sustained" : "burst");
  printf("  %-18s %9s %-24s %7s %-24s %s\n", "gpu_type", "GEMM TF/s", "basis +-band", "HBM GB/s", "basis +-band",
         "in-node busbw GB/s");
  char unpriced[256] = "";
  for (size_t i = 0; i < perf->n; i++) {
    const gb_perf_type *t = &perf->v[i];
    bool priced = false;
    for (size_t j = 0; j < prices->n && !priced; j++) priced = strcmp(prices->v[j].gpu_type, t->spec->gpu_type) == 0;
    char gemm[16], gb[40], hb[40], comm[64];
    if (isfinite(t->gemm_tflops)) {
      snprintf(gemm, sizeof gemm, "%.1f", t->gemm_tflops);
      snprintf(gb, sizeof gb, "%s %.0f%%", gb_basis_name(t->gemm_basis), t->gemm_band * 100);
    } else {
      snprintf(gemm, sizeof gemm, "n/a");
      snprintf(gb, sizeof gb, "-");
    }
    snprintf(hb, sizeof hb, "%s %.0f%%", gb_basis_name(t->hbm_basis), t->hbm_band * 100);
    if (t->ncurves) {
      const gb_perf_curve *c = &t->curves[t->ncurves - 1];
      snprintf(comm, sizeof comm, "%.0f %s (%d GPUs)", c->busbw_gbps[c->n - 1], gb_basis_name(t->comm_basis),
               c->gpu_count);
    } else if (isfinite(t->comm_plateau_gbps)) {
      snprintf(comm, sizeof comm, "%.0f %s", t->comm_plateau_gbps, gb_basis_name(t->comm_basis));
    } else {
      snprintf(comm, sizeof comm, "-");
    }
    if (!priced) {
      size_t l = strlen(unpriced);
      snprintf(unpriced + l, sizeof unpriced - l, "%s%s", l ? ", " : "", t->spec->gpu_type);
      continue;
    }
    printf("  %-18s %9s %-24s %7.0f %-24s %s\n", t->spec->gpu_type, gemm, gb, t->hbm_gbps, hb, comm);
  }
  if (unpriced[0]) printf("  (no price, not planned: %s)\n", unpriced);
}

static void print_header(void) {
  printf("  %4s %-17s %-11s %-10s %-9s %17s %19s %-12s %s\n", "rank", "gpu_type", "gpus(nxg)", "provider", "offering",
         "hours (band)", "USD (band)", "bottleneck", "basis");
}

static void print_row(const gb_plan_row *r) {
  char cost[24], lo[24], hi[24], cfg[32], hours[80], money[80];
  fmt_cost(cost, sizeof cost, r->cost_usd);
  fmt_cost(lo, sizeof lo, r->cost_low);
  fmt_cost(hi, sizeof hi, r->cost_high);
  snprintf(cfg, sizeof cfg, "%d (%dx%d)", r->gpu_count, r->nodes, r->gpus_per_node);
  snprintf(hours, sizeof hours, "%.0f (%.0f-%.0f)", r->hours, r->hours_low, r->hours_high);
  snprintf(money, sizeof money, "%s (%s-%s)", cost, lo, hi);
  printf("  %4zu %-17s %-11s %-10.10s %-9s %17s %19s %-12s %s%s%s\n", r->rank, r->perf->spec->gpu_type, cfg,
         r->price->provider, gb_offering_name(r->price->offering), hours, money, gb_bottleneck_name(r->bottleneck),
         gb_plan_basis_name(r), r->pareto ? " *" : "", r->price_stale ? " (old price)" : "");
}

/* Inference: what a buyer quotes of a service (capacity, latency, work per dollar). */
static const char *serve_note(const gb_plan_row *r, const char *unit) {
  static char buf[160];
  buf[0] = '\0';
  if (isfinite(r->time.token_latency_ms))
    snprintf(buf, sizeof buf, "\n                %.0f output tokens/s per GPU (TP %d, batch %.0f), %.1f ms per token, "
             "%.3g %s", r->time.tokens_per_s_per_gpu, r->time.tp, r->time.batch, r->time.token_latency_ms,
             r->efficiency, unit);
  return buf;
}

static bool same_group(const gb_plan_row *a, const gb_plan_row *b) {
  return a->perf == b->perf && strcmp(a->price->provider, b->price->provider) == 0 &&
         a->price->offering == b->price->offering;
}

static void print_ranked(const gb_plan *p, const gb_plan_args *a);
static void print_rejected(const gb_plan *p, const gb_plan_args *a);

static void print_plan(const gb_plan *p, const gb_plan_args *a) {
  const gb_plan_opts *o = &p->opts;
  static const char *const rb[] = {"low end (pessimistic)", "median", "high end (optimistic)"};
  char deadline[32] = "none", budget[64] = "none";
  if (!isnan(o->max_hours)) snprintf(deadline, sizeof deadline, "%.1f h", o->max_hours);
  if (!isnan(o->budget_usd))
    snprintf(budget, sizeof budget, "%.0f USD %s", o->budget_usd,
             o->budget_basis == GB_BUDGET_CASH ? "cash (capex when buying)" : "amortized (the job's share)");
  printf("\nRanked by %s at the %s of each band; deadline %s, budget %s\n", gb_objective_name(o->objective),
         rb[o->rank_by], deadline, budget);
  printf("  efficiency %s, overlap %.2f; owned GPUs: utilization %.2f, %.1f years, operations %.0f%%/year\n",
         isfinite(o->mfu) ? "--mfu" : "from the table by architecture and model size", o->overlap, o->utilization,
         o->amortization_years, o->ops_fraction_per_year * 100);
  printf("%zu feasible of %zu configurations%s", p->nfeasible, p->n, p->nfiltered ? "" : "\n");
  if (p->nfiltered) printf(" (%zu left out by the filters)\n", p->nfiltered);
  if (p->nfeasible) print_ranked(p, a);
  print_rejected(p, a);
}

/* The best measured and projected options, the best count per offering, the Pareto frontier. */
static void print_ranked(const gb_plan *p, const gb_plan_args *a) {
  /* the best measured option beside the best projected one */
  const gb_plan_row *bm = NULL, *bp = NULL;
  for (size_t i = 0; i < p->nfeasible; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (r->basis <= GB_BASIS_THROTTLED && !bm) bm = r;
    if (r->basis > GB_BASIS_THROTTLED && !bp) bp = r;
  }
  printf("\nBest measured:  ");
  if (bm) {
    char c[24];
    fmt_cost(c, sizeof c, bm->rank_cost);
    printf("#%zu %s x%d %s %s, %.0f h, %s USD (%s)%s\n", bm->rank, bm->perf->spec->gpu_type, bm->gpu_count,
           bm->price->provider, gb_offering_name(bm->price->offering), bm->rank_hours, c, gb_plan_basis_name(bm),
           serve_note(bm, p->efficiency_unit));
  } else {
    printf("none feasible (no type's GEMM and HBM are measured, or none meets the constraints)\n");
  }
  printf("Best projected: ");
  if (bp) {
    char c[24], lo[24], hi[24];
    fmt_cost(c, sizeof c, bp->rank_cost);
    fmt_cost(lo, sizeof lo, bp->cost_low);
    fmt_cost(hi, sizeof hi, bp->cost_high);
    printf("#%zu %s x%d %s %s, %.0f h, %s USD (%s; band %s-%s USD)%s\n", bp->rank, bp->perf->spec->gpu_type,
           bp->gpu_count, bp->price->provider, gb_offering_name(bp->price->offering), bp->rank_hours, c,
           gb_plan_basis_name(bp), lo, hi, serve_note(bp, p->efficiency_unit));
  } else {
    printf("none feasible\n");
  }
  /* condensed: the best count per (type, provider, offering) */
  size_t groups = 0;
  for (size_t i = 0; i < p->nfeasible; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++) first = !same_group(&p->rows[j], &p->rows[i]);
    groups += first;
  }
  size_t show = a->top == 0 || (size_t)a->top > groups ? groups : (size_t)a->top;
  printf("\nBest GPU count per type, provider and offering (%zu of %zu; * = Pareto frontier):\n", show, groups);
  print_header();
  size_t shown = 0;
  for (size_t i = 0; i < p->nfeasible && shown < show; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++) first = !same_group(&p->rows[j], &p->rows[i]);
    if (first) print_row(&p->rows[i]), shown++;
  }
  /* the Pareto frontier without near-duplicates: a point is kept when it is more than 10% faster or 10% cheaper
   * than the last one kept; at most 6, spread along the frontier (the fastest and the cheapest always) */
  printf("\nPareto frontier, fastest first (near-duplicates within 10%% left out):\n");
  print_header();
  const gb_plan_row **fr = malloc((p->nfeasible + 1) * sizeof *fr);
  size_t k = 0;
  if (fr) {
    for (size_t i = 0; i < p->nfeasible; i++)
      if (p->rows[i].pareto) fr[k++] = &p->rows[i];
    for (size_t i = 1; i < k; i++) /* by hours: the frontier is short, insertion sort */
      for (size_t j = i; j > 0 && fr[j]->rank_hours < fr[j - 1]->rank_hours; j--) {
        const gb_plan_row *t = fr[j];
        fr[j] = fr[j - 1], fr[j - 1] = t;
      }
    size_t kept = 0;
    for (size_t i = 0; i < k; i++) {
      const gb_plan_row *last = kept ? fr[kept - 1] : NULL;
      bool dup = last && fr[i]->rank_hours <= last->rank_hours * 1.1 && fr[i]->rank_cost >= last->rank_cost * 0.9;
      if (!dup || i == k - 1) {
        if (dup) kept--; /* the cheapest end replaces its near-duplicate */
        fr[kept++] = fr[i];
      }
    }
    size_t show = kept < 6 ? kept : 6;
    for (size_t i = 0; i < show; i++) print_row(fr[show > 1 ? i * (kept - 1) / (show - 1) : 0]);
    free(fr);
  }
}

static void print_rejected(const gb_plan *p, const gb_plan_args *a) {
  size_t rejected = p->n - p->nfeasible;
  size_t by[GB_REJECT_LAYOUT + 1] = {0};
  for (size_t i = p->nfeasible; i < p->n; i++) by[p->rows[i].reject]++;
  static const char *names[] = {"", "precision not available", "does not fit in memory", "too slow for the rate",
                                "over the latency limit", "spot preemptions", "over deadline", "over budget",
                                "no price", "parallel layout"};
  if (rejected) {
    printf("\nRejected: %zu:", rejected);
    const char *sep = " ";
    for (int r = 1; r <= GB_REJECT_LAYOUT; r++)
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

/* Purchase: per type, the best purchase row's capex, the job's cash and
 * amortized cost, and the break-even hours against renting. */
static void print_buy(const gb_plan *p) {
  bool any = false;
  for (size_t i = 0; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (!r->price || r->price->offering != GB_OFFER_PURCHASE) continue;
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = !(p->rows[j].price && p->rows[j].perf == r->perf && p->rows[j].price->offering == GB_OFFER_PURCHASE);
    if (!first) continue;
    /* of this type's purchases, the cheapest that meets the deadline (the budget may reject it) */
    const gb_plan_row *best = NULL;
    for (size_t j = 0; j < p->n; j++) {
      const gb_plan_row *q = &p->rows[j];
      if (!q->price || q->perf != r->perf || q->price->offering != GB_OFFER_PURCHASE) continue;
      if (q->reject != GB_REJECT_NONE && q->reject != GB_REJECT_BUDGET) continue;
      if (!best || q->rank_cost < best->rank_cost) best = q;
    }
    if (!any) {
      printf("\nBuying, per type (cheapest purchase that meets the deadline; capex = GPUs x price x %.2f):\n",
             p->opts.network_overhead);
      printf("  %-17s %6s %10s %11s %13s %14s  %s\n", "gpu_type", "GPUs", "capex USD", "cash USD", "amortized USD",
             "break-even h", "verdict");
      any = true;
    }
    if (!best) {
      if (r->reject != GB_REJECT_PRECISION)
        printf("  %-17s %6s %10s %11s %13s %14s  no purchase meets the deadline\n", r->perf->spec->gpu_type, "-",
               "-", "-", "-", "-");
      continue;
    }
    char capex[24], cash[24], am[24], be[24];
    fmt_cost(capex, sizeof capex, best->capex_usd);
    fmt_cost(cash, sizeof cash, best->cash_usd);
    fmt_cost(am, sizeof am, best->amortized_usd);
    if (isnan(best->breakeven_hours)) snprintf(be, sizeof be, "no rental");
    else if (isinf(best->breakeven_hours)) snprintf(be, sizeof be, "never");
    else snprintf(be, sizeof be, "%.0f", best->breakeven_hours);
    char reason[160];
    gb_plan_reason(best, reason, sizeof reason);
    printf("  %-17s %6d %10s %11s %13s %14s  %s\n", best->perf->spec->gpu_type, best->gpu_count, capex, cash, am, be,
           best->feasible ? "within budget" : reason);
  }
  if (any)
    printf("  Break-even: hours of use at which buying costs what the cheapest current rental does; budget: %s.\n",
           p->opts.budget_basis == GB_BUDGET_CASH ? "cash (capex + energy + operations)"
                                                  : "the amortized share (--budget-basis amortized)");
}

static void print_hybrid(const gb_plan *p, const gb_hybrid_curve *c, size_t n) {
  const gb_workload *w = p->workload;
  if (!w->ndemand_months && isnan(w->demand_base_gpus)) {
    /* no profile: one line, the runs alone rarely make a base worth owning */
    const gb_hybrid_curve *best = NULL;
    for (size_t i = 0; i < n; i++)
      if (!best || c[i].best_usd < best->best_usd) best = &c[i];
    char b[24];
    fmt_cost(b, sizeof b, best->best_usd);
    printf("\nHybrid: %.0f runs a year (--jobs-per-year): cheapest %s, owning %d of %.0f GPUs, %s USD a year%s.\n"
           "  For a curve of owned versus rented, state demand_* in the workload (docs/planner.md).\n",
           p->opts.jobs_per_year, best->purchase->gpu_type, best->best_owned, best->peak_gpus, b,
           best->best_owned ? "" : " (all rented: the runs keep no base busy enough to own)");
    return;
  }
  printf("\nHybrid for the demand profile (peak %.0f GPUs): own a base, rent the rest; USD per year:\n",
         n ? c[0].peak_gpus : 0);
  printf("  %-17s %-11s %9s %13s %13s  %s\n", "gpu_type", "rent from", "own GPUs", "USD/year", "all rented",
         "curve (owned: USD/year)");
  for (size_t i = 0; i < n; i++) {
    char b[24], r[24], curve[160] = "";
    fmt_cost(b, sizeof b, c[i].best_usd);
    fmt_cost(r, sizeof r, c[i].all_rent_usd);
    size_t step = c[i].n > 4 ? c[i].n / 4 : 1;
    for (size_t j = 0; j < c[i].n; j += step) {
      char v[24];
      fmt_cost(v, sizeof v, c[i].annual_usd[j]);
      size_t l = strlen(curve);
      snprintf(curve + l, sizeof curve - l, "%s%d: %s", l ? ", " : "", c[i].owned[j], v);
    }
    printf("  %-17s %-11.11s %9d %13s %13s  %s\n", c[i].purchase->gpu_type, c[i].rent->provider, c[i].best_owned, b,
           r, curve);
  }
}

/* The top choice under prices and efficiency +/-20%: the base, then only the cases that change it. */
static void print_sensitivity(const gb_sensitivity_row *s) {
  printf("\nSensitivity of the top choice (prices and efficiency +/-20%%):");
  char same[96] = "";
  for (int i = 0; i < GB_SENSITIVITY_ROWS; i++) {
    char label[32];
    if (i == 0) snprintf(label, sizeof label, "base");
    else snprintf(label, sizeof label, "%s %+.0f%%", s[i].factor, s[i].change_pct);
    if (i > 0 && !s[i].changed) {
      size_t l = strlen(same);
      snprintf(same + l, sizeof same - l, "%s%s", l ? ", " : "", label);
      continue;
    }
    if (!s[i].has_top) {
      printf("\n  %-16s no feasible configuration", label);
      continue;
    }
    const gb_plan_row *t = &s[i].top;
    char c[32];
    fmt_cost(c, sizeof c, t->cost_usd);
    printf("\n  %-16s %s x%d %s %s: %.1f h, %s USD%s", label, t->perf->spec->gpu_type, t->gpu_count,
           t->price->provider, gb_offering_name(t->price->offering), t->hours, c, i ? "  (changed)" : "");
  }
  if (same[0]) printf("\n  unchanged under: %s", same);
  printf("\n");
}

static void print_stale(const gb_plan *p, const gb_prices *prices) {
  size_t n = 0;
  char list[512] = "";
  for (size_t i = 0; i < prices->n; i++) {
    const gb_price *q = &prices->v[i];
    if (!gb_plan_price_stale(q, p->opts.today)) continue;
    bool used = false;
    for (size_t j = 0; j < p->n && !used; j++) used = p->rows[j].price == q;
    if (!used) continue;
    size_t l = strlen(list);
    if (n < 6) snprintf(list + l, sizeof list - l, "%s%s %s %s (%s)", n ? "; " : "", q->provider, q->gpu_type,
                        gb_offering_name(q->offering), q->date);
    n++;
  }
  if (n)
    printf("\nPrices older than 18 months (%zu, marked \"old price\"): %s%s. Check them before buying.\n", n, list,
           n > 6 ? "; ..." : "");
}

int gb_cmd_plan(int argc, char **argv) {
  gb_plan_args a;
  int rc = gb_plan_parse_args(argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_plan_args_free(&a);
    return rc;
  }
  rc = 0;
  /* an output that is an input is refused before anything is written */
  {
    const char *inp[GB_PLAN_MAX_MEASURED + 3] = {a.workload_file, a.specs, a.prices};
    memcpy(inp + 3, a.measured, a.nmeasured * sizeof *inp);
    const char *outs[] = {a.csv, a.json, a.hybrid_csv, a.sensitivity_csv};
    if (gb_output_guard(outs, 4, inp, 3 + a.nmeasured, 0)) {
      fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
      gb_plan_args_free(&a);
      return 2;
    }
  }
  gb_store_tmp from_store = {0}; /* --store: each --measured selection as a results file */
  if (a.store && a.nmeasured && gb_store_export_tmp(a.store, a.measured, a.nmeasured, &from_store)) {
    fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
    gb_store_tmp_free(&from_store);
    gb_plan_args_free(&a);
    return 2;
  }
  gb_plan_inputs in = {0};
  in.workload_file = a.workload_file;
  in.keys = (const char *const *)a.set_keys;
  in.vals = a.set_vals;
  in.nkeys = a.nset;
  in.measured = a.measured;
  in.nmeasured = a.nmeasured;
  if (a.store) in.measured = (const char *const *)from_store.path;
  in.no_measured = a.no_measured;
  in.prices = a.prices;
  in.specs = a.specs;
  in.opts = a.opts;
  if (a.only_measured) in.opts.only_measured = true;
  gb_plan_run *run = calloc(1, sizeof *run);
  if (!run) {
    fprintf(stderr, "gpubench plan: out of memory\n");
    gb_plan_args_free(&a);
    gb_store_tmp_free(&from_store);
    return 1;
  }
  gb_err e = gb_plan_run_make(&in, run);
  if (e) goto done;
  const gb_workload *w = &run->w;
  const gb_perf *perf = &run->perf;
  const gb_plan *plan = &run->plan;
  printf("gpubench plan: workload %s (%s, %s)%s%s\n", w->name, gb_workload_kind_name(w->kind), w->precision,
         w->origin[0] ? " from " : "", w->origin);
  if (w->kind == GB_WL_TRAINING)
    printf("  %.3g parameters (%.3g active), %.3g tokens, %.3g tokens/step, %.3g FLOPs, %s state, TP %.0f PP %.0f, "
           "goodput %.2f\n",
           w->params, w->active_params, w->tokens, w->tokens_per_step, gb_workload_total_flops(w),
           w->sharded ? "sharded" : "replicated", w->tensor_parallel, w->pipeline_parallel, w->goodput);
  else if (w->kind == GB_WL_INFERENCE)
    printf("  %.3g parameters (%.3g GB of weights), %.0f tokens/s for %.0f h, %.0f in / %.0f out tokens\n", w->params,
           w->model_bytes / 1e9, w->tokens_per_second, w->serve_hours, w->prompt_tokens, w->output_tokens);
  else
    printf("  %.3g FLOPs, %.3g bytes, %.0f all-reduces of %.3g bytes\n", w->total_flops, w->total_bytes,
           w->allreduce_count, w->allreduce_bytes);
  printf("Data: %s (%zu GPU types), %s (%zu price rows)\n", run->specs_path, run->specs.n, run->prices.path,
         run->prices.n);
  if (a.no_measured) printf("Measured: none (--no-measured).\n");
  else
    printf("Measured: %zu file(s)%s%s, %zu rows, %zu used.\n", run->nfiles, a.nmeasured ? "" : " in ",
           a.nmeasured ? "" : run->meas_dir, run->measured.nrows, perf->measured_rows_used);
  if (perf->measured_rows_used == 0)
    printf("NOTE: no measurements were usable: EVERY figure is a datasheet figure x a typical ratio (band +-%.0f%%).\n"
           "      Run 'gpubench run' and plan again.\n",
           GB_BAND_DATASHEET * 100);
  if (perf->notes.len) fprintf(stderr, "gpubench plan: warning: %.*s", (int)perf->notes.len, perf->notes.data);
  print_perf(perf, &run->prices);
  print_plan(plan, &a);
  if (plan->nfeasible || plan->n) print_buy(plan);
  gb_hybrid_curve hy[32];
  size_t nh = gb_plan_hybrid_demand(plan, perf, &run->prices, hy, 32);
  if (nh) print_hybrid(plan, hy, nh);
  print_sensitivity(run->sens);
  print_stale(plan, &run->prices);
  if (a.csv && (e = gb_plan_write_csv(plan, a.csv))) goto done;
  if (a.json && (e = gb_plan_write_json(plan, a.json))) goto done;
  if (a.hybrid_csv && (e = gb_plan_write_hybrid_csv(hy, nh, a.hybrid_csv))) goto done;
  if (a.sensitivity_csv && (e = gb_plan_write_sensitivity_csv(run->sens, GB_SENSITIVITY_ROWS, a.sensitivity_csv)))
    goto done;
  if (a.csv) printf("Wrote %s\n", a.csv);
  if (a.json) printf("Wrote %s\n", a.json);
  if (a.hybrid_csv) printf("Wrote %s%s\n", a.hybrid_csv, nh ? "" : " (no demand profile in the workload: empty)");
  if (a.sensitivity_csv) printf("Wrote %s\n", a.sensitivity_csv);
  rc = plan->nfeasible ? 0 : 1;
  if (!plan->nfeasible) fprintf(stderr, "gpubench plan: no configuration meets the constraints (see Rejected above)\n");
done:
  if (e) {
    fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
    rc = gb_exit_code(e);
  }
  gb_plan_args_free(&a);
  gb_plan_run_free(run);
  free(run);
  gb_store_tmp_free(&from_store);
  return rc;
}
