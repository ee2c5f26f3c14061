/* gb_rep_summary: the report's first screen -- the verdict, the three
 * figures that decide it (compute and memory against their datasheet
 * peaks, the rows that are not ok), what changed since the baseline when
 * two runs are compared, what to do -- then the table of contents. Written
 * last, when every figure is known, and put first by gb_report.c, its one
 * caller. Calls gb_rep_headline.c (the best point of each kind),
 * gb_rep_problems.c (the counts, the advice) and the shared helpers
 * (gb_rep.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

/* Shares of the datasheet peak below which the summary asks a reader to
 * look (a policy, not a measurement): cuBLASLt reaches 70-90% of the dense
 * peak on a large square shape, a STREAM kernel 85-95% of HBM; well below
 * that a clock, power or shape problem is likelier than the GPU's limit. */
#define SUMMARY_GEMM_LOW 0.60
#define SUMMARY_HBM_LOW 0.80

/* A figure that decides: the best point of one kind with its peak. */
typedef struct decider {
  const char *what;         /* "GEMM bf16", "memory (HBM, triad)" */
  char name[96];
  const gb_rep_point *best; /* NULL: not measured */
  double peak;              /* NaN: unknown */
  double low;               /* share of the peak below which to look */
} decider;

static const gb_rep_headline *kind_of(const char *bench, const char *metric) {
  for (size_t i = 0; i < gb_rep_nsections; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench; k++) {
      const gb_rep_headline *h = &gb_rep_sections[i].headline[k];
      if (!strcmp(h->bench, bench) && !strcmp(h->metric, metric)) return h;
    }
  return NULL;
}

/* The best point of kind over its cases (only case cs when not NULL). */
static void best_of(const gb_rep *r, const gb_rep_headline *kind, const char *cs,
                    bool (*keep)(const gb_rep *, const gb_rep_point *), decider *d) {
  d->best = NULL;
  d->peak = NAN;
  if (!kind) return;
  gb_rep_names cases = {0};
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *p = &r->pts[i];
    if (gb_rep_is(p, kind->bench, kind->metric) && (!cs || !strcmp(p->row->case_name, cs)) &&
        gb_rep_names_add(&cases, p->row->case_name) != GB_OK)
      break; /* out of memory: the cases so far */
  }
  for (size_t c = 0; c < cases.n; c++) {
    double peak;
    const gb_rep_point *b = gb_rep_headline_best(r, kind, SIZE_MAX, cases.v[c], keep, &peak);
    if (b && (!d->best || b->value > d->best->value)) {
      d->best = b;
      d->peak = peak;
    }
  }
  gb_rep_names_free(&cases);
}

/* The GEMM precision that decides: the plan's, else bf16, else the
 * fastest measured. */
static const char *gemm_case(const gb_rep *r, const gb_rep_headline *kind) {
  const char *want[] = {r->have_plan && r->plan.n ? r->plan.rows[0].precision : "", "bf16"};
  for (size_t w = 0; w < 2 && kind; w++)
    for (size_t i = 0; i < r->npts && want[w][0]; i++)
      if (gb_rep_is(&r->pts[i], kind->bench, kind->metric) && !strcmp(r->pts[i].row->case_name, want[w]))
        return want[w];
  return NULL;
}

static void deciders(const gb_rep *r, bool (*keep)(const gb_rep *, const gb_rep_point *), decider d[2]) {
  const gb_rep_headline *gemm = kind_of("gemm", "tflops"), *hbm = kind_of("membw", "gbps");
  const char *cs = gemm_case(r, gemm);
  best_of(r, gemm, cs, keep, &d[0]);
  d[0].low = SUMMARY_GEMM_LOW;
  snprintf(d[0].name, sizeof d[0].name, "GEMM %s", d[0].best ? d[0].best->row->case_name : "");
  if (!d[0].best) { /* no GEMM: the CUDA cores' fp32 rate stands for compute */
    best_of(r, kind_of("fma", "tflops"), "fp32", keep, &d[0]);
    snprintf(d[0].name, sizeof d[0].name, "CUDA-core FMA fp32 (no GEMM measured)");
  }
  best_of(r, hbm, NULL, keep, &d[1]);
  d[1].low = SUMMARY_HBM_LOW;
  snprintf(d[1].name, sizeof d[1].name, "memory bandwidth (HBM, %s)", d[1].best ? d[1].best->row->case_name : "");
}

/* "GEMM bf16: 813.8 TFLOP/s = 82% of the datasheet 989.5 (H200-SXM-141GB),
 * spread 801-816 over 5 repetitions, 1.19 TFLOP/s per W at 683 W (energy
 * counter over 2.5 s, tflops_sustained)", or why there is no per-W figure:
 * per W only from the energy counter over a window long enough for it
 * (gb_rep_per_watt), never from the 1-s average power_w. */
static void say_decider(const gb_rep *r, const decider *d, char *buf, size_t n) {
  const gb_rep_point *p = d->best;
  char v[32], pk[32], lo[32], hi[32];
  gb_rep_fmt(v, sizeof v, p->value);
  size_t l = (size_t)snprintf(buf, n, "%s: %s %s", d->name, v, p->row->unit);
  if (l < n && isfinite(d->peak) && d->peak > 0) {
    gb_rep_fmt(pk, sizeof pk, d->peak);
    l += (size_t)gb_snprintf_c(buf + l, n - l, " = %.0f%% of the datasheet %s", 100.0 * p->value / d->peak, pk);
  }
  if (l < n) l += (size_t)snprintf(buf + l, n - l, " (%s)", r->src[p->src].gpu_type);
  if (l < n && p->hi > p->lo) {
    gb_rep_fmt(lo, sizeof lo, p->lo);
    gb_rep_fmt(hi, sizeof hi, p->hi);
    l += (size_t)snprintf(buf + l, n - l, ", spread %s-%s %s", lo, hi,
                          p->reps > 1 ? "over its repetitions" : "over its samples");
  }
  if (l < n) {
    char pw[512];
    gb_rep_per_watt(r, p, pw, sizeof pw);
    snprintf(buf + l, n - l, "; %s", pw);
  }
}

static bool in_baseline(const gb_rep *r, const gb_rep_point *p) {
  return (size_t)(p->row - r->res.rows) < r->first_file_rows;
}
static bool in_current(const gb_rep *r, const gb_rep_point *p) { return !in_baseline(r, p); }

/* With --compare: each deciding figure, baseline against current. */
static gb_err what_changed(gb_rep *r, gb_doc *f) {
  if (!r->o->compare) {
    return gb_doc_para(f, "What changed: no baseline given (gpubench report --compare BASELINE.csv CURRENT.csv "
                          "adds the gate's verdict per figure; gpubench history shows the trend).");
  }
  decider b[2], c[2];
  deciders(r, in_baseline, b);
  deciders(r, in_current, c);
  char items[2][320];
  const char *list[2];
  size_t n = 0;
  for (size_t i = 0; i < 2; i++) {
    if (!b[i].best || !c[i].best) continue;
    char bv[32], cv[32];
    gb_rep_fmt(bv, sizeof bv, b[i].best->value);
    gb_rep_fmt(cv, sizeof cv, c[i].best->value);
    gb_snprintf_c(items[n], sizeof items[n], "%s: %s -> %s %s (x%.3f)", c[i].name, bv, cv, c[i].best->row->unit,
                  c[i].best->value / b[i].best->value);
    list[n] = items[n];
    n++;
  }
  char line[400];
  snprintf(line, sizeof line, "What changed since the baseline (%s), best figure against best figure; the gate's "
           "verdict, ratio and minimum detectable change per figure are under What changed:",
           gb_rep_basename(r->o->results[0]));
  gb_err e = gb_doc_para(f, line);
  if (!e && n) e = gb_doc_bullets(f, list, n);
  return e;
}

/* The plan's pick, in a sentence (the decision page has the rest). */
static void plan_pick(const gb_rep *r, char *buf, size_t n) {
  buf[0] = '\0';
  for (size_t i = 0; i < r->plan.n; i++) {
    const gb_planfile_row *p = &r->plan.rows[i];
    if (!p->feasible || !isfinite(p->hours) || !isfinite(p->cost_usd)) continue;
    char h[32], c[48];
    gb_rep_fmt(h, sizeof h, p->rank_hours);
    gb_rep_usd(c, sizeof c, p->rank_cost); /* the end of the band the planner ranks by, as Decision */
    snprintf(buf, n, "Buy or rent: %dx %s, %s %s, %s hours, %s USD (%s; see Decision).", p->gpu_count, p->gpu_type,
             p->provider, p->offering, h, c, *p->basis ? p->basis : "basis not given");
    return;
  }
  snprintf(buf, n, "Buy or rent: the plan has no feasible configuration (see Procurement plan).");
}

/* What to do: one item per status with rows, per figure below its mark,
 * and the plan's pick. */
static gb_err what_to_do(gb_rep *r, gb_doc *f, const size_t counts[GB_STATUS_COUNT], const decider d[2]) {
  char items[8][600];
  const char *list[8];
  size_t n = 0;
  static const gb_status order[] = {GB_STATUS_INVALID, GB_STATUS_ERROR, GB_STATUS_THROTTLED};
  for (size_t i = 0; i < 3; i++)
    if (counts[order[i]])
      snprintf(items[n++], sizeof items[0], "%zu %s row(s): %s (Problems).", counts[order[i]],
               gb_status_name(order[i]), gb_rep_status_advice(order[i]));
  for (size_t i = 0; i < 2 && n < 6; i++) {
    char pw[512];
    if (d[i].best && gb_rep_per_watt(r, d[i].best, pw, sizeof pw) < 0)
      snprintf(items[n++], sizeof items[0], "%s: %.500s; the row's energy is not used.", d[i].name, pw);
  }
  for (size_t i = 0; i < 2; i++)
    if (d[i].best && isfinite(d[i].peak) && d[i].peak > 0 && d[i].best->value < d[i].low * d[i].peak)
      gb_snprintf_c(items[n++], sizeof items[0], "%s is below %.0f%% of its datasheet peak: check the clocks and "
                    "power under Environment and the sizes in its section before trusting it as this GPU's limit.",
                    d[i].name, 100.0 * d[i].low);
  if (r->have_plan) plan_pick(r, items[n++], sizeof items[0]);
  if (!n) snprintf(items[n++], sizeof items[0], "Nothing to fix: every row passed its check at full clocks.");
  for (size_t i = 0; i < n; i++) list[i] = items[i];
  gb_err e = gb_doc_para(f, "What to do:");
  if (!e) e = gb_doc_bullets(f, list, n);
  return e;
}

/* The verdict in one sentence, and the box's class (ok, warn, bad). */
static const char *verdict(const gb_rep *r, const size_t counts[GB_STATUS_COUNT], size_t ncauses, char *buf, size_t n) {
  size_t failed = counts[GB_STATUS_INVALID] + counts[GB_STATUS_ERROR];
  if (r->res.nrows == 0) {
    snprintf(buf, n, "Verdict: no measurements%s.", r->have_plan ? "; the plan below decides" : "");
    return "summary";
  }
  if (failed) {
    snprintf(buf, n, "Verdict: %zu of %zu rows failed their check or could not run (%zu cause(s)); the other "
             "figures stand.", failed, r->res.nrows, ncauses);
    return "summary bad";
  }
  if (counts[GB_STATUS_THROTTLED]) {
    snprintf(buf, n, "Verdict: every row passed its check; %zu of %zu ran with clocks held down (their figures are "
             "the sustained rate).", counts[GB_STATUS_THROTTLED], r->res.nrows);
    return "summary warn";
  }
  size_t skipped = counts[GB_STATUS_UNSUPPORTED];
  if (skipped)
    snprintf(buf, n, "Verdict: all %zu measured rows passed their check at full clocks; %zu case(s) this GPU cannot "
             "run were not measured (status unsupported: see Problems).", r->res.nrows - skipped, skipped);
  else
    snprintf(buf, n, "Verdict: all %zu rows passed their check at full clocks.", r->res.nrows);
  return "summary";
}

gb_err gb_rep_summary(gb_rep *r, gb_doc *f) {
  size_t counts[GB_STATUS_COUNT], ncauses = 0;
  gb_err e = gb_rep_problem_counts(r, counts, &ncauses);
  char line[600];
  const char *cls = verdict(r, counts, ncauses, line, sizeof line);
  decider d[2];
  deciders(r, NULL, d);
  if (!e) e = gb_doc_box_begin(f, cls);
  if (!e) e = gb_doc_heading(f, 2, "Summary");
  if (!e) e = gb_doc_para(f, line);
  if (!e && r->res.nrows) {
    char items[3][1024];
    const char *list[3];
    size_t n = 0;
    for (size_t i = 0; i < 2; i++) {
      if (d[i].best) say_decider(r, &d[i], items[n], sizeof items[n]);
      else
        snprintf(items[n], sizeof items[n], "%s: not measured.", i ? "memory bandwidth (HBM)" : "compute (GEMM, FMA)");
      list[n] = items[n];
      n++;
    }
    snprintf(items[n], sizeof items[n], "Rows not ok: %zu invalid, %zu error, %zu throttled, of %zu (%zu cause(s))%s",
             counts[GB_STATUS_INVALID], counts[GB_STATUS_ERROR], counts[GB_STATUS_THROTTLED], r->res.nrows, ncauses,
             counts[GB_STATUS_UNSUPPORTED] ? "; not measured: " : ".");
    if (counts[GB_STATUS_UNSUPPORTED])
      snprintf(items[n] + strlen(items[n]), sizeof items[n] - strlen(items[n]),
               "%zu unsupported (cases this GPU cannot run: not problems).", counts[GB_STATUS_UNSUPPORTED]);
    list[n] = items[n];
    n++;
    e = gb_doc_para(f, "The three figures that decide:");
    if (!e) e = gb_doc_bullets(f, list, n);
    if (!e) e = what_changed(r, f);
  }
  if (!e) e = what_to_do(r, f, counts, d);
  if (!e) e = gb_doc_box_end(f);
  if (!e) e = gb_doc_heading(f, 2, "Contents");
  if (!e) e = gb_doc_toc(&r->doc, f);
  return e;
}
