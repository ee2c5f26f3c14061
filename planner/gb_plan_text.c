/* gb_plan_text: the plan as text for a person: the per-GPU figures, the
 * ranked configurations, the near-misses when nothing fits, the rejected
 * ones (a summary per GPU type, or every one), buying, hybrid, sensitivity
 * and old prices. Every figure comes from the plan record (gb_plan_row) the
 * CSV and JSON writers read, labelled with its basis. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_goodput.h"
#include "gb_num.h"
#include "gb_plan.h"
#include "gb_plan_int.h"

static void fmt_cost(char *buf, size_t n, double usd) {
  if (!isfinite(usd)) snprintf(buf, n, "-");
  else if (usd >= 1e6) snprintf(buf, n, "%.2fM", usd / 1e6);
  else if (usd >= 1e4) snprintf(buf, n, "%.1fk", usd / 1e3);
  else snprintf(buf, n, "%.0f", usd);
}

static void print_perf(FILE *fp, const gb_perf *perf, const gb_prices *prices) {
  fprintf(fp, "\nPer-GPU figures at %s (GEMM in the %s window), each with its basis and band:\n", perf->precision,
         perf->gemm_sustained ? "sustained" : "burst");
  fprintf(fp, "  %-18s %9s %-24s %7s %-24s %s\n", "gpu_type", "GEMM TF/s", "basis +-band", "HBM GB/s", "basis +-band",
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
    fprintf(fp, "  %-18s %9s %-24s %7.0f %-24s %s\n", t->spec->gpu_type, gemm, gb, t->hbm_gbps, hb, comm);
  }
  if (unpriced[0]) fprintf(fp, "  (no price, not planned: %s)\n", unpriced);
}

static void print_header(FILE *fp, const gb_plan *p) {
  const char *fb = gb_plan_figure_basis(p->opts.rank_by);
  char h[40], c[40];
  snprintf(h, sizeof h, "hours %s (band)", fb);
  snprintf(c, sizeof c, "USD %s (band)", fb);
  fprintf(fp, "  %4s %-17s %-11s %-10s %-9s %23s %25s %-12s %s\n", "rank", "gpu_type", "gpus(nxg)", "provider",
          "offering", h, c, "bottleneck", "basis");
}

static void print_row(FILE *fp, const gb_plan_row *r) {
  char cost[24], lo[24], hi[24], cfg[32], hours[80], money[80];
  fmt_cost(cost, sizeof cost, r->rank_cost);
  fmt_cost(lo, sizeof lo, r->cost_low);
  fmt_cost(hi, sizeof hi, r->cost_high);
  snprintf(cfg, sizeof cfg, "%d (%dx%d)", r->gpu_count, r->nodes, r->gpus_per_node);
  snprintf(hours, sizeof hours, "%.0f (%.0f-%.0f)", r->rank_hours, r->hours_low, r->hours_high);
  snprintf(money, sizeof money, "%s (%s-%s)", cost, lo, hi);
  fprintf(fp, "  %4zu %-17s %-11s %-10.10s %-9s %23s %25s %-12s %s%s%s\n", r->rank, r->perf->spec->gpu_type, cfg,
         r->price->provider, gb_offering_name(r->price->offering), hours, money, gb_bottleneck_name(r->bottleneck),
         gb_plan_basis_name(r), r->pareto ? " *" : "", r->price_stale ? " (old price)" : "");
}

/* What a buyer quotes: energy per job and work per watt; inference: capacity,
 * latency and work per dollar, each with its band. */
static const char *serve_note(const gb_plan *p, const gb_plan_row *r) {
  static char buf[384];
  char kwh[24], usd[24];
  fmt_cost(kwh, sizeof kwh, r->energy_kwh);
  fmt_cost(usd, sizeof usd, r->energy_usd);
  int n = snprintf(buf, sizeof buf, "\n                energy %s kWh a job (%s USD at %.2f USD/kWh), %.3g %s (%s %.0f W a GPU)",
                   kwh, usd, p->opts.electricity_usd_per_kwh, r->perf_per_watt, gb_perf_per_watt_unit(p),
                   r->power_measured ? "measured power" : "datasheet TDP", r->gpu_power_w);
  if (n > 0 && (size_t)n < sizeof buf && isfinite(r->time.token_latency_ms))
    snprintf(buf + n, sizeof buf - (size_t)n,
             "\n                %.0f (%.0f-%.0f) output tokens/s per GPU (%s %d, batch %.0f), %.1f (%.1f-%.1f) ms per "
             "token, %.3g %s",
             r->time.tokens_per_s_per_gpu, r->tokens_per_s_low, r->tokens_per_s_high,
             isfinite(r->time.a2a_hours) ? "attention data-parallel" : "TP", r->time.tp, r->time.batch,
             r->time.token_latency_ms, r->latency_ms_low, r->latency_ms_high, r->efficiency, p->efficiency_unit);
  return buf;
}

static bool same_group(const gb_plan_row *a, const gb_plan_row *b) {
  return a->perf == b->perf && strcmp(a->price->provider, b->price->provider) == 0 &&
         a->price->offering == b->price->offering;
}

static void print_ranked(FILE *fp, const gb_plan *p, const gb_plan_show *a);
static void print_rejected(FILE *fp, const gb_plan *p, const gb_plan_show *a);

/* --explain: the first ranked configuration's nominal hours by term (docs/planner.md, "Time model"), the
 * precision's share of the FLOPs and the goodput with its parts (given, or the whole-run default). */
static void print_time_parts(FILE *fp, const gb_plan *p, const gb_plan_row *r) {
  const gb_plan_time *t = &r->time;
  const gb_workload *w = p->workload;
  fprintf(fp, "\nTime of #1 (%s x%d), nominal hours by term:\n", r->perf->spec->gpu_type, r->gpu_count);
  if (w->kind == GB_WL_INFERENCE) {
    fprintf(fp, "  compute %.4g, memory %.4g (the serving floor %.4g of it), communication %.4g (%s)\n",
            t->compute_hours, t->memory_hours, t->floor_hours, t->comm_hours,
            isfinite(t->a2a_hours) ? "data-parallel attention's MoE all-to-alls" : "tensor-parallel all-reduces");
    return;
  }
  if (w->kind != GB_WL_TRAINING) {
    fprintf(fp, "  compute %.4g, memory %.4g, communication %.4g\n", t->compute_hours, t->memory_hours,
            t->comm_hours);
    return;
  }
  fprintf(fp, "  compute %.4g, memory + element-wise %.4g, pipeline bubble %.4g, TP/PP/CP %.4g, DP %.4g, "
              "all-to-all %.4g\n",
          t->compute_hours, t->memory_hours, t->bubble_hours, t->tp_hours, t->dp_hours, t->a2a_hours);
  if (t->tp_hidden_hours > 0)
    fprintf(fp, "  TP communication overlapped with the GEMMs (tp_comm_overlap %.2g): %.4g h hidden, not in TP/PP/CP\n",
            w->tp_comm_overlap, t->tp_hidden_hours);
  if (isfinite(t->low_precision_share))
    fprintf(fp, "  low precision: %.1f%% of the FLOPs in %s GEMMs (the linear layers; attention, the output head "
                "and the optimizer in BF16/FP32)\n",
            t->low_precision_share * 100, w->precision);
  if (t->block_scaled_eff < 1)
    fprintf(fp, "  block-scaled recipe: the GEMM rates at %.2f of a BF16 or FP8 run's (the %s row's "
                "block_scaled_eff)\n",
            t->block_scaled_eff, r->perf->spec->arch);
  if (isnan(t->interruptions)) {
    fprintf(fp, "  goodput %.3f (given): +%.4g h\n", t->goodput, t->goodput_hours);
    return;
  }
  fprintf(fp, "  goodput %.3f (whole run, %d GPUs): +%.4g h = %.3g interruptions x %.2g h (%.4g h) + evaluation, "
              "checkpoints and stalls %.0f%% (%.4g h) + first start %.3g h\n",
          t->goodput, r->gpu_count, t->goodput_hours, t->interruptions, GB_GOODPUT_RESTART_HOURS,
          t->interrupt_hours, GB_GOODPUT_OVERHEAD * 100, t->overhead_hours, t->startup_hours);
}

static void print_plan(FILE *fp, const gb_plan *p, const gb_plan_show *a) {
  const gb_plan_opts *o = &p->opts;
  static const char *const rb[] = {"low end (pessimistic)", "median", "high end (optimistic)"};
  char deadline[32] = "none", budget[64] = "none";
  if (!isnan(o->max_hours)) snprintf(deadline, sizeof deadline, "%.1f h", o->max_hours);
  if (!isnan(o->budget_usd))
    snprintf(budget, sizeof budget, "%.0f USD %s", o->budget_usd,
             o->budget_basis == GB_BUDGET_CASH ? "cash (capex when buying)" : "amortized (the job's share)");
  fprintf(fp, "\nRanked by %s at the %s of each band; deadline %s, budget %s\n", gb_objective_name(o->objective),
         rb[o->rank_by], deadline, budget);
  fprintf(fp, "  efficiency %s, overlap %.2f; owned GPUs: utilization %.2f, %.1f years, operations %.0f%%/year\n",
         isfinite(o->mfu) ? "--mfu" : "from the table by architecture and model size", o->overlap, o->utilization,
         o->amortization_years, o->ops_fraction_per_year * 100);
  fprintf(fp, "%zu feasible of %zu configurations%s", p->nfeasible, p->n, p->nfiltered ? "" : "\n");
  if (p->nfiltered) fprintf(fp, " (%zu left out by the filters)\n", p->nfiltered);
  if (p->nfeasible) print_ranked(fp, p, a);
  if (p->nfeasible && a->explain) print_time_parts(fp, p, &p->rows[0]);
  print_rejected(fp, p, a);
}

/* The best measured and projected options, the best count per offering, the Pareto frontier. */
static void print_ranked(FILE *fp, const gb_plan *p, const gb_plan_show *a) {
  /* the best measured option beside the best projected one */
  const gb_plan_row *bm = NULL, *bp = NULL;
  for (size_t i = 0; i < p->nfeasible; i++) {
    const gb_plan_row *r = &p->rows[i];
    if (r->basis <= GB_BASIS_THROTTLED && !bm) bm = r;
    if (r->basis > GB_BASIS_THROTTLED && !bp) bp = r;
  }
  fprintf(fp, "\nBest measured:  ");
  if (bm) {
    char c[24];
    fmt_cost(c, sizeof c, bm->rank_cost);
    fprintf(fp, "#%zu %s x%d %s %s, %.0f h, %s USD %s (%s)%s\n", bm->rank, bm->perf->spec->gpu_type, bm->gpu_count,
           bm->price->provider, gb_offering_name(bm->price->offering), bm->rank_hours, c,
           gb_plan_figure_basis(p->opts.rank_by), gb_plan_basis_name(bm),
           serve_note(p, bm));
  } else {
    fprintf(fp, "none feasible (no type's GEMM and HBM are measured, or none meets the constraints)\n");
  }
  fprintf(fp, "Best projected: ");
  if (bp) {
    char c[24], lo[24], hi[24];
    fmt_cost(c, sizeof c, bp->rank_cost);
    fmt_cost(lo, sizeof lo, bp->cost_low);
    fmt_cost(hi, sizeof hi, bp->cost_high);
    fprintf(fp, "#%zu %s x%d %s %s, %.0f h, %s USD %s (%s; band %s-%s USD)%s\n", bp->rank,
           bp->perf->spec->gpu_type, bp->gpu_count, bp->price->provider, gb_offering_name(bp->price->offering),
           bp->rank_hours, c, gb_plan_figure_basis(p->opts.rank_by),
           gb_plan_basis_name(bp), lo, hi, serve_note(p, bp));
  } else {
    fprintf(fp, "none feasible\n");
  }
  /* condensed: the best count per (type, provider, offering) */
  size_t groups = 0;
  for (size_t i = 0; i < p->nfeasible; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++) first = !same_group(&p->rows[j], &p->rows[i]);
    groups += first;
  }
  size_t show = a->top == 0 || (size_t)a->top > groups ? groups : (size_t)a->top;
  fprintf(fp, "\nBest GPU count per type, provider and offering (%zu of %zu; * = Pareto frontier):\n", show, groups);
  print_header(fp, p);
  size_t shown = 0;
  for (size_t i = 0; i < p->nfeasible && shown < show; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++) first = !same_group(&p->rows[j], &p->rows[i]);
    if (first) print_row(fp, &p->rows[i]), shown++;
  }
  /* the Pareto frontier without near-duplicates: a point is kept when it is more than 10% faster or 10% cheaper
   * than the last one kept; at most 6, spread along the frontier (the fastest and the cheapest always) */
  fprintf(fp, "\nPareto frontier, fastest first (near-duplicates within 10%% left out):\n");
  print_header(fp, p);
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
    for (size_t i = 0; i < show; i++) print_row(fp, fr[show > 1 ? i * (kept - 1) / (show - 1) : 0]);
    free(fr);
  }
}

static void print_explain_all(FILE *fp, const gb_plan *p) {
  for (size_t i = p->nfeasible; i < p->n; i++) {
    const gb_plan_row *r = &p->rows[i];
    char reason[160];
    gb_plan_reason(r, reason, sizeof reason);
    if (r->price)
      fprintf(fp, "  %-18s %5d GPUs (%dx%d) %-11s %-10s %s\n", r->perf->spec->gpu_type, r->gpu_count, r->nodes,
              r->gpus_per_node, r->price->provider, gb_offering_name(r->price->offering), reason);
    else
      fprintf(fp, "  %-18s %s\n", r->perf->spec->gpu_type, reason);
  }
}

/* A configuration in one line: type xN provider offering, hours, USD (the ranked figures). */
static void config_line(char *buf, size_t n, const gb_plan *p, const gb_plan_row *r) {
  char c[24];
  fmt_cost(c, sizeof c, r->rank_cost);
  if (snprintf(buf, n, "%s x%d %s %s: %.0f h, %s USD %s", r->perf->spec->gpu_type, r->gpu_count,
               r->price->provider, gb_offering_name(r->price->offering), r->rank_hours, c,
               gb_plan_figure_basis(p->opts.rank_by)) < 0)
    buf[0] = '\0';
}

/* A share of a configuration's busy hours, "-" when the term does not apply. */
static void share_of(char *buf, size_t n, double part, double whole) {
  if (isfinite(part) && whole > 0) gb_snprintf_c(buf, n, "%.1f%%", 100 * part / whole);
  else snprintf(buf, n, "-");
}

/* --explain: a configuration's time breakdown with the MoE and serving terms (docs/planner.md, "Mixture of
 * experts", "Inference"): shares of its busy hours, the expert GEMMs' share of the dense rate, the busiest
 * expert-parallel rank's load over the mean. */
static void print_terms(FILE *fp, const gb_plan_row *r) {
  const gb_plan_time *t = &r->time;
  double busy = t->compute_hours + t->memory_hours + t->comm_hours + (isfinite(t->bubble_hours) ? t->bubble_hours : 0);
  char c[16], m[16], cm[16], rt[16], pm[16], fl[16], moe[160] = "", floor[48] = "";
  share_of(c, sizeof c, t->compute_hours, busy);
  share_of(m, sizeof m, t->memory_hours, busy);
  share_of(cm, sizeof cm, t->comm_hours, busy);
  share_of(rt, sizeof rt, t->router_hours, busy);
  share_of(pm, sizeof pm, t->permute_hours, busy);
  share_of(fl, sizeof fl, t->floor_hours, busy);
  if (isfinite(t->expert_eff))
    gb_snprintf_c(moe, sizeof moe, "; MoE: expert GEMMs at %.2f of the dense rate, imbalance x%.2f, router %s, "
                  "permutation %s", t->expert_eff, t->moe_imbalance, rt, pm);
  if (isfinite(t->floor_hours)) gb_snprintf_c(floor, sizeof floor, "; per-layer floor %s", fl);
  fprintf(fp, "  %-18s   time: compute %s, memory %s, communication %s%s%s\n", "", c, m, cm, moe, floor);
}

/* --explain: per GPU type, the configurations, the feasible ones, the rejected by reason and the nearest. */
static void print_explain_summary(FILE *fp, const gb_plan *p) {
  gb_plan_type_sum sum[64];
  size_t n = gb_plan_type_summary(p, sum, 64);
  fprintf(fp, "  %-18s %6s %8s  %s\n", "gpu_type", "configs", "feasible", "rejected by reason; best or nearest miss");
  for (size_t i = 0; i < n; i++) {
    char why[256] = "", best[160] = "-";
    size_t used = 0;
    for (int r = 1; r <= GB_REJECT_LAYOUT && used < sizeof why; r++)
      if (sum[i].by_reason[r])
        used += (size_t)snprintf(why + used, sizeof why - used, "%s%zu %s", used ? ", " : "", sum[i].by_reason[r],
                                 gb_reject_short((gb_reject)r));
    if (sum[i].best) config_line(best, sizeof best, p, sum[i].best);
    fprintf(fp, "  %-18s %6zu %8zu  %s%s%s\n", sum[i].perf->spec->gpu_type, sum[i].n, sum[i].feasible,
            why[0] ? why : "none", sum[i].best ? "; " : "", sum[i].best ? best : "");
    if (sum[i].best) print_terms(fp, sum[i].best);
  }
  fprintf(fp, "  (--explain=all lists every configuration with its reason)\n");
}

/* Nothing fits: what misses by the least, and which constraint binds. */
static void print_near(FILE *fp, const gb_plan *p) {
  gb_plan_near nm;
  gb_plan_near_miss(p, &nm);
  char line[256];
  fprintf(fp, "\nNothing fits. Nearest misses (figures %s):\n", gb_plan_figure_basis(p->opts.rank_by));
  if (nm.cheapest_in_time) {
    config_line(line, sizeof line, p, nm.cheapest_in_time);
    fprintf(fp, "  cheapest that meets the deadline: %s\n", line);
  } else {
    fprintf(fp, "  cheapest that meets the deadline: none meets it\n");
  }
  if (nm.fastest_in_budget) {
    config_line(line, sizeof line, p, nm.fastest_in_budget);
    fprintf(fp, "  fastest within the budget:        %s\n", line);
  } else {
    fprintf(fp, "  fastest within the budget:        none is within it\n");
  }
  const char *basis = p->opts.budget_basis == GB_BUDGET_CASH ? "cash" : "amortized";
  char other[96] = "";
  if (strcmp(nm.binding, "budget") == 0) {
    if (isfinite(nm.deadline_needed))
      gb_snprintf_c(other, sizeof other, "; or move the deadline to %.1f h (+%.0f%%)", nm.deadline_needed,
                    nm.deadline_move_pct);
    gb_snprintf_c(line, sizeof line, "the budget: raise it from %.0f to %.0f USD %s (+%.0f%%)%s",
                  p->opts.budget_usd, nm.budget_needed, basis, nm.budget_move_pct, other);
  } else if (strcmp(nm.binding, "deadline") == 0) {
    if (isfinite(nm.budget_needed))
      gb_snprintf_c(other, sizeof other, "; or raise the budget to %.0f USD (+%.0f%%)", nm.budget_needed,
                    nm.budget_move_pct);
    gb_snprintf_c(line, sizeof line, "the deadline: move it from %.1f to %.1f h (+%.0f%%)%s", p->opts.max_hours,
                  nm.deadline_needed, nm.deadline_move_pct, other);
  } else
    snprintf(line, sizeof line, "no configuration passes memory, rate, latency and layout (see --explain)");
  fprintf(fp, "  binding constraint: %s\n", line);
  if (strcmp(nm.binding, "budget") == 0 && p->opts.budget_basis == GB_BUDGET_CASH &&
      nm.cheapest_in_time->price->offering == GB_OFFER_PURCHASE)
    fprintf(fp, "  (buying: the cash budget pays the GPUs' whole price; --budget-basis amortized weighs "
                "the job's share)\n");
}

static void print_rejected(FILE *fp, const gb_plan *p, const gb_plan_show *a) {
  size_t rejected = p->n - p->nfeasible;
  size_t by[GB_REJECT_LAYOUT + 1] = {0};
  for (size_t i = p->nfeasible; i < p->n; i++) by[p->rows[i].reject]++;
  if (!p->nfeasible && p->n) print_near(fp, p);
  if (!rejected) return;
  fprintf(fp, "\nRejected: %zu:", rejected);
  const char *sep = " ";
  for (int r = 1; r <= GB_REJECT_LAYOUT; r++)
    if (by[r]) {
      fprintf(fp, "%s%zu %s", sep, by[r], gb_reject_short((gb_reject)r));
      sep = ", ";
    }
  fprintf(fp, "%s\n", a->explain ? "" : " (--explain: a summary per GPU type; --explain=all: each)");
  if (a->explain == 1) print_explain_summary(fp, p);
  if (a->explain == 2) print_explain_all(fp, p);
}

/* Purchase: per type, the best purchase row's capex, the job's cash and
 * amortized cost, and the break-even hours against renting. */
static void print_buy(FILE *fp, const gb_plan *p) {
  gb_plan_buy buy[64];
  size_t n = gb_plan_buying(p, buy, 64);
  if (!n) return;
  const char *fb = gb_plan_figure_basis(p->opts.rank_by);
  bool cash = p->opts.budget_basis == GB_BUDGET_CASH;
  char head[40];
  snprintf(head, sizeof head, "%s USD %s", cash ? "cash" : "amortized", fb);
  fprintf(fp, "\nBuying, per type (cheapest purchase that meets the deadline; capex = GPUs x price x %.2f):\n",
          p->opts.network_overhead);
  fprintf(fp, "  %-17s %6s %10s %22s %11s %13s  %s\n", "gpu_type", "GPUs", "capex USD", head, "energy kWh",
          "break-even h", "verdict");
  for (size_t i = 0; i < n; i++) {
    const gb_plan_row *best = buy[i].best;
    if (!best) {
      if (buy[i].timed)
        fprintf(fp, "  %-17s %6s %10s %22s %11s %13s  no purchase meets the deadline\n",
                buy[i].perf->spec->gpu_type, "-", "-", "-", "-", "-");
      continue;
    }
    char capex[24], cost[24], be[24], kwh[24];
    fmt_cost(capex, sizeof capex, best->capex_usd);
    fmt_cost(cost, sizeof cost, best->rank_cost);
    fmt_cost(kwh, sizeof kwh, best->energy_kwh);
    if (isnan(best->breakeven_hours)) snprintf(be, sizeof be, "no rental");
    else if (isinf(best->breakeven_hours)) snprintf(be, sizeof be, "never");
    else snprintf(be, sizeof be, "%.0f", best->breakeven_hours);
    fprintf(fp, "  %-17s %6d %10s %22s %11s %13s  meets deadline, %s budget\n", best->perf->spec->gpu_type,
            best->gpu_count, capex, cost, kwh, be, best->within_budget ? "within" : "over");
  }
  fprintf(fp, "  Break-even: hours of use at which buying costs what the cheapest current rental does; budget: %s.\n",
          cash ? "cash (capex + energy + operations)" : "the amortized share (--budget-basis amortized)");
}

/* Which types hybrid weighs, and whether the ranking's first is among them. */
static void print_hybrid_scope(FILE *fp, const gb_plan *p, const gb_hybrid_curve *c, size_t n) {
  char types[512] = "";
  bool top_in = !p->nfeasible;
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(types);
    snprintf(types + l, sizeof types - l, "%s%s", i ? ", " : "", c[i].purchase->gpu_type);
    if (p->nfeasible && strcmp(c[i].purchase->gpu_type, p->rows[0].perf->spec->gpu_type) == 0) top_in = true;
  }
  fprintf(fp, "  Considers %s: %s.\n", gb_plan_hybrid_scope(), types);
  if (!top_in)
    fprintf(fp, "  The ranking's first, %s, is not among them: it has no purchase price or no rental.\n",
            p->rows[0].perf->spec->gpu_type);
}

static void print_hybrid(FILE *fp, const gb_plan *p, const gb_hybrid_curve *c, size_t n) {
  const gb_workload *w = p->workload;
  if (!w->ndemand_months && isnan(w->demand_base_gpus)) {
    /* no profile: one line, the runs alone rarely make a base worth owning */
    const gb_hybrid_curve *best = NULL;
    for (size_t i = 0; i < n; i++)
      if (!best || c[i].best_usd < best->best_usd) best = &c[i];
    char b[24];
    fmt_cost(b, sizeof b, best->best_usd);
    fprintf(fp, "\nHybrid: %.0f runs a year (--jobs-per-year), each on the type's best rented configuration; "
                "of the types below the cheapest a year is %s, owning %d of %.0f GPUs, %s USD a year%s.\n",
            p->opts.jobs_per_year, best->purchase->gpu_type, best->best_owned, best->peak_gpus, b,
            best->best_owned ? "" : " (all rented: the runs keep no base busy enough to own)");
    print_hybrid_scope(fp, p, c, n);
    fprintf(fp, "  For a curve of owned versus rented, state demand_* in the workload (docs/planner.md).\n");
    return;
  }
  const gb_perf_type *ref = gb_plan_hybrid_reference(p);
  fprintf(fp, "\nHybrid for the demand profile (GPUs of %s, the ranking's first; each type needs that many x its "
              "speed ratio): own a base, rent the rest; USD per year:\n",
          ref ? ref->spec->gpu_type : "-");
  print_hybrid_scope(fp, p, c, n);
  fprintf(fp, "  %-17s %-11s %6s %9s %9s %13s %13s  %s\n", "gpu_type", "rent from", "x GPUs", "peak", "own GPUs",
          "USD/year", "all rented", "curve (owned: USD/year)");
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
    fprintf(fp, "  %-17s %-11.11s %6.2f %9.0f %9d %13s %13s  %s\n", c[i].purchase->gpu_type, c[i].rent->provider,
            c[i].demand_scale, c[i].peak_gpus, c[i].best_owned, b, r, curve);
  }
}

/* The top choice under prices and efficiency +/-20%: the base, then only the cases that change it. */
static void print_sensitivity(FILE *fp, const gb_plan *p, const gb_sensitivity_row *s) {
  fprintf(fp, "\nSensitivity of the top choice (prices and efficiency +/-20%%; figures %s):",
          gb_plan_figure_basis(p->opts.rank_by));
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
      fprintf(fp, "\n  %-16s no feasible configuration", label);
      continue;
    }
    const gb_plan_row *t = &s[i].top;
    char c[32];
    fmt_cost(c, sizeof c, t->rank_cost);
    fprintf(fp, "\n  %-16s %s x%d %s %s: %.1f h, %s USD%s", label, t->perf->spec->gpu_type, t->gpu_count,
            t->price->provider, gb_offering_name(t->price->offering), t->rank_hours, c, i ? "  (changed)" : "");
  }
  if (same[0]) fprintf(fp, "\n  unchanged under: %s", same);
  fprintf(fp, "\n");
}

static void print_stale(FILE *fp, const gb_plan *p, const gb_prices *prices) {
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
    fprintf(fp, "\nPrices older than 18 months (%zu, marked \"old price\"): %s%s. Check them before buying.\n", n, list,
           n > 6 ? "; ..." : "");
}

/* The price rows the top choices rest on, with their age: a buyer checks these before quoting. */
static void print_deciding(FILE *fp, const gb_plan *p, const gb_prices *prices) {
  const gb_plan_opts *o = &p->opts;
  if (p->nprice_too_old)
    fprintf(fp, "\n--max-price-age %.0f: %zu price row(s) older than that left out.\n", o->max_price_age_days,
            p->nprice_too_old);
  const gb_plan_row *top[GB_PLAN_DECIDING];
  size_t n = p->nfeasible ? gb_plan_shown(p, GB_PLAN_DECIDING, top) : 0;
  if (!n) return;
  fprintf(fp, "\nPrices behind the top %zu (%s, as of %s; each cost band widens %.3g%% of the price a year of its age):\n",
          n, prices->path, o->today, o->price_age_rate * 100);
  for (size_t i = 0; i < n; i++) {
    const gb_plan_row *r = top[i];
    const gb_price *q = r->price;
    char price[48];
    if (q->offering == GB_OFFER_PURCHASE) gb_snprintf_c(price, sizeof price, "%.0f USD a GPU", q->purchase_usd_per_gpu);
    else gb_snprintf_c(price, sizeof price, "%.2f USD a GPU-hour", q->price_usd_per_gpu_hour);
    fprintf(fp, "  #%zu %s %s %s x%d: %s, dated %s (%.0f days old, band +-%.1f%%), confidence %s, line %ld%s\n",
            r->rank, q->provider, gb_offering_name(q->offering), q->gpu_type, q->gpus_per_node, price, q->date,
            r->price_age_days, r->price_widening * 100, q->confidence, q->line, r->price_stale ? " (old price)" : "");
  }
}

void gb_plan_print_text(FILE *fp, const gb_plan_run *run, const gb_plan_show *show, const gb_hybrid_curve *hy,
                        size_t nh) {
  const gb_plan *plan = &run->plan;
  print_perf(fp, &run->perf, &run->prices);
  print_plan(fp, plan, show);
  if (plan->nfeasible || plan->n) print_buy(fp, plan);
  if (nh) print_hybrid(fp, plan, hy, nh);
  print_sensitivity(fp, plan, run->sens);
  print_deciding(fp, plan, &run->prices);
  print_stale(fp, plan, &run->prices);
}
