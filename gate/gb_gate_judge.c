/* gb_gate_judge: one figure's statistics on each side (per-run medians,
 * peaks, spreads) and its verdict: failed, collapsed, unstable,
 * insufficient, else regression / improvement / noise / unchanged from the
 * noise between runs (the rules are in gb_gate.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_gate_int.h"
#include "gb_noise.h"
#include "gb_stats.h"

/* Prior weight (degrees of freedom) of the floor against the runs' spread. */
#define NU0 GB_NOISE_NU0

static int cmp_row_run(const void *a, const void *b) {
  const gb_row *x = *(const gb_row *const *)a, *y = *(const gb_row *const *)b;
  int c = strcmp(x->run_id, y->run_id);
  return c ? c : (x > y) - (x < y);
}

/* Mean and standard deviation (n >= 2, else NaN) of ln v; false when a
 * value is not a positive finite number. */
static bool ln_stats(const double *v, size_t n, double *mean, double *sd) {
  *mean = *sd = NAN;
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(v[i] > 0) || !isfinite(v[i])) return false;
    sum += log(v[i]);
  }
  if (!n) return false;
  *mean = sum / (double)n;
  if (n >= 2) {
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (log(v[i]) - *mean) * (log(v[i]) - *mean);
    *sd = sqrt(ss / (double)(n - 1));
  }
  return true;
}

/* The rows' own spreads: cv (GB_GATE_OWN_SPREAD x median stddev / value)
 * and raw_cv (the median itself); the one gpu_uuid of the rows. */
static void side_spreads(gb_gate_side *s, const gb_row *const *ok, double *tmp) {
  size_t ncv = 0;
  s->gpu = s->nok ? ok[0]->gpu_uuid : "";
  for (size_t i = 0; i < s->nok; i++) {
    if (!isnan(ok[i]->stddev) && ok[i]->value > 0) tmp[ncv++] = ok[i]->stddev / ok[i]->value;
    if (strcmp(ok[i]->gpu_uuid, s->gpu)) s->gpu = "";
  }
  if (ncv) s->raw_cv = gb_median(tmp, ncv);
  s->cv = GB_GATE_OWN_SPREAD * s->raw_cv;
}

/* One value per run (the median of its repetitions), one peak per run (the
 * best sample of its rows: the largest max, or the smallest min where
 * lower is better (dir < 0); NaN when a row has none), the pooled spread
 * of ln over repetitions within runs. ok is sorted by run. */
static void side_runs(gb_gate_side *s, const gb_row *const *ok, double *tmp, int dir) {
  double rep_ss = 0;
  size_t rep_df = 0;
  for (size_t a = 0; a < s->nok;) {
    size_t b = a, nr = 0;
    double peak = NAN;
    for (bool first = true; b < s->nok && strcmp(ok[b]->run_id, ok[a]->run_id) == 0; first = false) {
      double best = dir < 0 ? ok[b]->min : ok[b]->max;
      peak = first ? best : isnan(best) || isnan(peak) ? NAN : (dir < 0 ? best < peak : best > peak) ? best : peak;
      tmp[nr++] = ok[b++]->value;
    }
    double v = gb_median(tmp, nr), m, sd;
    if (!(v > 0) || !isfinite(v)) {
      s->collapsed = true;
      if (!s->collapsed_row) s->collapsed_row = ok[a];
    }
    s->peaks[s->nruns] = peak;
    s->values[s->nruns++] = v;
    if (nr >= 2 && ln_stats(tmp, nr, &m, &sd)) {
      rep_ss += sd * sd * (double)(nr - 1);
      rep_df += nr - 1;
    }
    a = b;
  }
  if (rep_df) s->rep_sd_ln = sqrt(rep_ss / (double)rep_df);
}

gb_err gb_gate_fill_side(gb_gate_side *s, const keyed_row *rows, size_t n, int dir) {
  memset(s, 0, sizeof *s);
  s->median = s->mean_ln = s->sd_ln = s->rep_sd_ln = s->cv = s->raw_cv = NAN;
  s->peak_mean_ln = s->peak_sd_ln = NAN;
  s->gpu = "";
  if (n == 0) return GB_OK;
  s->nrows = n;
  s->row = rows[0].row;
  const gb_row **ok = malloc(n * sizeof *ok);
  double *tmp = malloc(n * sizeof *tmp);
  s->values = malloc(2 * n * sizeof *s->values);
  if (!ok || !tmp || !s->values) {
    free(ok);
    free(tmp);
    return gb_fail(GB_E_NOMEM, "out of memory for samples");
  }
  s->peaks = s->values + n;
  for (size_t i = 0; i < n; i++) {
    const gb_row *r = rows[i].row;
    /* throttled rows passed their result check: the figure under the power or
     * heat cap is a real sample (a drop caused by throttling is a drop) */
    if (r->status == GB_STATUS_UNSUPPORTED) { /* measured nothing, failed nothing */
      if (!s->unsupported) s->unsupported = r;
      continue;
    }
    if (r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) {
      if (!s->failed) s->failed = r;
      continue;
    }
    ok[s->nok++] = r;
  }
  if (s->failed) s->row = s->failed;
  side_spreads(s, ok, tmp);
  qsort(ok, s->nok, sizeof *ok, cmp_row_run);
  side_runs(s, ok, tmp, dir);
  if (s->nruns) s->median = gb_median(memcpy(tmp, s->values, s->nruns * sizeof *tmp), s->nruns);
  ln_stats(s->values, s->nruns, &s->mean_ln, &s->sd_ln);
  ln_stats(s->peaks, s->nruns, &s->peak_mean_ln, &s->peak_sd_ln);
  free(ok);
  free(tmp);
  return GB_OK;
}

bool gb_gate_is_gated(const gb_row *r, gb_fclass cls, bool gate_latency) {
  if (cls == GB_FCLASS_HEADLINE) return true;
  if (cls == GB_FCLASS_LATENCY) return gate_latency;
  if (cls == GB_FCLASS_DERIVED) {
    /* a derived figure counts when the shape it was derived at is a headline one */
    const gb_bench_desc *d = gb_desc_find(r->benchmark);
    if (!d || !d->headline_metric) return true;
    gb_row h = *r;
    h.metric = d->headline_metric;
    gb_fclass hc = gb_desc_class(&h);
    return hc == GB_FCLASS_HEADLINE || (hc == GB_FCLASS_LATENCY && gate_latency);
  }
  return false;
}

void gb_gate_judge_unsupported(gb_gate_item *it) {
  const gb_gate_side *b = &it->base, *c = &it->cur;
  const gb_row *u = c->unsupported ? c->unsupported : b->unsupported;
  if (b->nok > 0 && c->nok == 0 && c->unsupported) {
    /* the same figure ran in the baseline: a case this GPU type could run
     * and now cannot (a library or driver that lost it) is a failure */
    it->verdict = GB_VERDICT_FAILED;
    it->newly_failed = b->failed == NULL;
    snprintf(it->note, sizeof it->note, "%s:%ld: status unsupported, but the baseline measured it (%s:%ld)", u->file,
             u->line, b->row->file, b->row->line);
    return;
  }
  it->verdict = GB_VERDICT_UNSUPPORTED;
  snprintf(it->note, sizeof it->note,
           "%s:%ld: status unsupported: the device cannot run this case; no measurement, no verdict (information)",
           u->file, u->line);
}

/* Verdicts that come before the noise: failed, collapsed, unstable,
 * insufficient, unsupported. True when one was given. */
static bool judge_state(gb_gate_item *it) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  if (c->failed) {
    it->verdict = GB_VERDICT_FAILED;
    it->newly_failed = b->failed == NULL;
    snprintf(it->note, sizeof it->note, "%s:%ld: status %s%s%s", c->failed->file, c->failed->line,
             gb_status_name(c->failed->status), c->failed->detail[0] ? ": " : "", c->failed->detail);
    return true;
  }
  if (c->nok == 0 && c->unsupported) {
    gb_gate_judge_unsupported(it);
    return true;
  }
  if (b->nok == 0 && !b->failed && b->unsupported) {
    it->verdict = GB_VERDICT_NEW;
    snprintf(it->note, sizeof it->note, "a first measurement: the baseline could not run it (%s:%ld: status unsupported)",
             b->unsupported->file, b->unsupported->line);
    return true;
  }
  if (b->nok == 0) {
    it->verdict = GB_VERDICT_INSUFFICIENT;
    snprintf(it->note, sizeof it->note, "no ok baseline row (%s:%ld: status %s)", b->row->file, b->row->line,
             gb_status_name(b->row->status));
    return true;
  }
  if (it->gated && c->collapsed && !b->collapsed) {
    it->verdict = GB_VERDICT_COLLAPSED;
    snprintf(it->note, sizeof it->note, "%s:%ld: value %g: a headline figure at 0, negative or not finite",
             c->collapsed_row->file, c->collapsed_row->line, c->collapsed_row->value);
    return true;
  }
  double bound = GB_GATE_UNSTABLE_RATIO * b->raw_cv;
  if (!(bound > GB_GATE_UNSTABLE_CV)) bound = GB_GATE_UNSTABLE_CV;
  if (it->gated && c->raw_cv > bound) {
    it->verdict = GB_VERDICT_UNSTABLE;
    snprintf(it->note, sizeof it->note,
             "within-run stddev %.1f%% of the value, past %.1f%% (%g x the baseline's %.1f%%, at least %g%%)",
             100 * c->raw_cv, 100 * bound, GB_GATE_UNSTABLE_RATIO, isnan(b->raw_cv) ? 0.0 : 100 * b->raw_cv,
             100 * GB_GATE_UNSTABLE_CV);
    return true;
  }
  if (!(b->median > 0) || isnan(b->mean_ln) || isnan(c->mean_ln)) {
    it->verdict = GB_VERDICT_INSUFFICIENT;
    snprintf(it->note, sizeof it->note, "a value is 0 or negative: no ratio");
    return true;
  }
  return false;
}

/* sigma from a floor pooled with the runs' own spread over both sides. */
static double pooled(double floor_sigma, double sd_b, size_t nb, double sd_c, size_t nc, double *df_out) {
  double ss = NU0 * floor_sigma * floor_sigma, df = NU0;
  if (!isnan(sd_b)) ss += (double)(nb - 1) * sd_b * sd_b, df += (double)(nb - 1);
  if (!isnan(sd_c)) ss += (double)(nc - 1) * sd_c * sd_c, df += (double)(nc - 1);
  *df_out = df;
  return sqrt(ss / df);
}

/* Where a figure's floor comes from (pick_floor). */
typedef struct floor_pick {
  double sigma;                   /* the floor; NaN: none known (an unfloored type no type measured) */
  const char *method;
  const gb_noise_floor *fc;       /* the figure's one-card floor, taken (gb_gate.h) */
  const gb_spread_entry *learned; /* the store's spread of the figure, taken */
  bool learned_card;              /* of the current run's card, not of every card of the type */
  bool prior;                     /* a cross-type prior: the type has no floors */
  bool cards_prior;               /* across cards: another type's card-to-card floor, wider (cards_prior) */
} floor_pick;

/* Two sides not known to be one card, of a type whose floors hold no
 * card-to-card row for the figure (measured on fewer than 3 cards: its
 * "any" rows hold only those cards' offsets, 0.2-0.4% on the H100's two
 * against 2-3% between the fresh cards 3 and 4 and the H200's ten): the
 * figure's floor is never below the widest "cards" row of the figure over
 * the types that measured one (gb_noise_prior_cards). */
static void cards_prior(gb_gate_item *it, const gb_gate_options *opt, floor_pick *p) {
  const gb_row *r = it->base.row;
  if (p->prior || p->fc || it->same_gpu || isnan(p->sigma) || gb_noise_lookup_cards(opt->noise, r)) return;
  char types[160];
  const gb_noise_floor *cp = gb_noise_prior_cards(opt->noise, r, types, sizeof types);
  if (!cp || !(cp->sigma > p->sigma)) return;
  p->sigma = cp->sigma;
  p->cards_prior = true;
  p->method = "cards prior";
  snprintf(it->note, sizeof it->note,
           "two cards, no card-to-card floor for %.40s (floors of fewer than 3 cards): the widest of %.100s's; "
           "floors from 3 cards, or a baseline of this card, tighten it",
           r->gpu_type, types);
}

/* The floor of a figure: its row in the floors, else its class's; for a type
 * the floors do not hold, the widest of every type's (gb_noise_prior), the
 * note saying so and what tightens it; the one-card row for a same-card
 * baseline; then the store's own spread (gb_spread.h) where there is one. */
static void pick_floor(gb_gate_item *it, const gb_gate_options *opt, floor_pick *p) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  const gb_noise_floor *fl = gb_noise_lookup(opt->noise, b->row), *ff = gb_noise_lookup_figure(opt->noise, b->row);
  memset(p, 0, sizeof *p);
  p->sigma = ff ? ff->sigma : fl ? fl->sigma : gb_noise_default_sigma(b->row);
  p->method = ff ? "figure floor" : fl ? "floor" : "built-in floor";
  if (!ff && !fl && opt->noise && opt->noise->n && !gb_noise_has_type(opt->noise, b->row->gpu_type)) {
    char types[160];
    const gb_noise_floor *pr = gb_noise_prior(opt->noise, b->row, types, sizeof types);
    p->prior = true;
    p->sigma = pr ? pr->sigma : NAN;
    p->method = pr ? "cross-type prior" : "no floor";
    if (pr)
      snprintf(it->note, sizeof it->note,
               "no floors for %.64s: the widest of %.160s's; floors of this type (gpubench noise over 5 runs) or a "
               "baseline of 5 runs tighten it", b->row->gpu_type, types);
  }
  bool headline = gb_desc_class(b->row) == GB_FCLASS_HEADLINE;
  if (!p->prior && it->same_gpu && b->nruns >= GB_GATE_SAME_GPU_MIN_RUNS && headline)
    p->fc = gb_noise_lookup_figure_same_gpu(opt->noise, b->row);
  if (p->fc) {
    p->sigma = p->fc->sigma;
    p->method = "floor+runs, same GPU";
  }
  cards_prior(it, opt, p);
  bool card = opt->learned && c->gpu[0] && strcmp(c->gpu, opt->learned->gpu) == 0;
  p->learned = gb_spread_lookup(opt->learned, b->row, card, &p->learned_card);
  /* with no floor to pool with, a spread of a run or two is no estimate */
  if (p->learned && isnan(p->sigma) && p->learned->runs < GB_GATE_UNFLOORED_MIN_RUNS) p->learned = NULL;
  if (p->learned) p->method = p->learned_card ? "store, this card" : "store, this GPU type";
}

/* sigma from the store's spread of the figure (its df = runs - 1) pooled
 * with the floor as a prior worth NU0 runs, and the current side's own
 * spread (the baseline's runs are in the store's history already). */
static double pooled_learned(const floor_pick *p, const gb_gate_side *c, double *df_out) {
  double sd = p->learned->sd, df = (double)(p->learned->runs - 1), ss = df * sd * sd, dft = df;
  if (!isnan(p->sigma)) ss += NU0 * p->sigma * p->sigma, dft += NU0;
  if (!isnan(c->sd_ln)) ss += (double)(c->nruns - 1) * c->sd_ln * c->sd_ln, dft += (double)(c->nruns - 1);
  *df_out = dft;
  return sqrt(ss / dft);
}

/* A figure with peak floors (gb_noise.h): judged by its peak (the fast
 * state every run reaches) against the peak's floor pooled with the runs'
 * peaks, and never tighter than a steady figure of its class is judged by
 * its median (the class's floor, of one card where the peak's is): a run
 * the host or the clocks slow down all through slows its best sample too
 * (the H200's d2h 256 MiB: peaks within 0.12% over 45 runs, -2.2% in a
 * fresh A/A pair). True when it applies. */
static bool judge_peak_floor(gb_gate_item *it, const gb_gate_options *opt, double *d, double *se) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  const gb_noise_floor *pf = gb_noise_lookup_peak(opt->noise, b->row, it->same_gpu);
  if (!pf || isnan(b->peak_mean_ln) || isnan(c->peak_mean_ln)) return false;
  double df, nb = (double)b->nruns, nc = (double)c->nruns;
  const gb_noise_floor *cls = pf->same_gpu ? gb_noise_lookup_same_gpu(opt->noise, b->row) : NULL;
  if (!cls) cls = gb_noise_lookup(opt->noise, b->row);
  double floor = cls && cls->sigma > pf->sigma ? cls->sigma : pf->sigma;
  it->peak = true;
  it->method = floor > pf->sigma ? (pf->same_gpu ? "peak, class floor, same GPU" : "peak, class floor")
               : pf->same_gpu    ? "peak, same GPU"
                                 : "peak";
  /* peak floors of fewer than 3 cards: never below those of the types that
   * measured 3 or more (a card whose runs miss the fast state) */
  char types[160];
  const gb_noise_floor *pp =
      gb_noise_lookup_cards(opt->noise, b->row) ? NULL : gb_noise_prior_peak(opt->noise, b->row, pf->same_gpu, types, sizeof types);
  if (pp && pp->sigma > floor) {
    floor = pp->sigma;
    it->method = pf->same_gpu ? "peak, cards prior, same GPU" : "peak, cards prior";
    snprintf(it->note, sizeof it->note,
             "peaks of fewer than 3 cards of %.40s: the floor is the widest of %.100s's (3 cards or more); floors "
             "from 3 cards tighten it", b->row->gpu_type, types);
  }
  it->sigma = pooled(floor, b->peak_sd_ln, b->nruns, c->peak_sd_ln, c->nruns, &df);
  *d = c->peak_mean_ln - b->peak_mean_ln;
  *se = it->sigma * sqrt(1.0 / nb + 1.0 / nc);
  return true;
}

/* One run a side, repeated, on one GPU: the repetitions' own spread plus
 * the same-GPU floor (gb_gate.h). Sets *se and *sigma; false when it does
 * not apply. */
static bool judge_reps(gb_gate_item *it, const gb_gate_options *opt, double *se, double *sigma) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  const gb_noise_floor *fs = gb_noise_lookup_same_gpu(opt->noise, b->row);
  if (!(fs && b->nruns == 1 && c->nruns == 1 && b->nok >= GB_GATE_MIN_REPS && c->nok >= GB_GATE_MIN_REPS &&
        !isnan(b->rep_sd_ln) && !isnan(c->rep_sd_ln) && it->same_gpu))
    return false;
  double rb = (double)b->nok, rc = (double)c->nok;
  double sw2 = ((rb - 1) * b->rep_sd_ln * b->rep_sd_ln + (rc - 1) * c->rep_sd_ln * c->rep_sd_ln) / (rb + rc - 2);
  *se = sqrt(M_PI / 2 * sw2 * (1 / rb + 1 / rc) + 2 * fs->sigma * fs->sigma);
  *sigma = *se / sqrt(2.0); /* one side's equivalent */
  it->method = "repetitions, same GPU";
  return true;
}

/* The statistic and its noise: sets it->sigma, it->method, *d and *se;
 * false when the noise cannot be known (a type no floor measured, one or
 * two baseline runs: insufficient, the note says why). */
static bool judge_noise(gb_gate_item *it, const gb_gate_options *opt, double own_cv, double *d, double *se) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  double nb = (double)b->nruns, nc = (double)c->nruns, df;
  it->same_gpu = b->gpu[0] && strcmp(b->gpu, c->gpu) == 0;
  if (judge_peak_floor(it, opt, d, se)) return true;
  floor_pick fp;
  pick_floor(it, opt, &fp);
  if (isnan(fp.sigma) && !fp.learned && b->nruns < GB_GATE_UNFLOORED_MIN_RUNS) {
    snprintf(it->note, sizeof it->note,
             "no floors for %.64s and no type's for this figure: its spread between runs is unknown; a baseline of %d "
             "runs or more, or floors of this type (gpubench noise over 5 runs), would judge it",
             b->row->gpu_type, GB_GATE_UNFLOORED_MIN_RUNS);
    return false;
  }
  double floor_sigma = isnan(fp.sigma) ? 0 : fp.sigma;
  /* a headline figure whose baseline runs show it switching state by
   * themselves (their medians scatter, their peaks hold, by far more than
   * chance gives two spreads of a few runs: gb_gate.h): judged by its peaks,
   * like a figure with peak floors, against the same floor */
  bool headline = gb_desc_class(b->row) == GB_FCLASS_HEADLINE;
  if (headline && b->nruns >= GB_GATE_PEAK_MIN_RUNS && !isnan(b->peak_sd_ln) && !isnan(c->peak_mean_ln) &&
      b->peak_sd_ln * GB_GATE_PEAK_RATIO < b->sd_ln) {
    it->peak = true;
    it->sigma = pooled(floor_sigma, b->peak_sd_ln, b->nruns, c->peak_sd_ln, c->nruns, &df);
    it->method = fp.fc ? "peak from the runs, same GPU" : "peak from the runs";
    *d = c->peak_mean_ln - b->peak_mean_ln;
    *se = it->sigma * sqrt(1.0 / nb + 1.0 / nc);
    return true;
  }
  double sigma = fp.learned ? pooled_learned(&fp, c, &df) : pooled(floor_sigma, b->sd_ln, b->nruns, c->sd_ln, c->nruns, &df);
  it->method = fp.learned || fp.fc || fp.prior ? fp.method : df > NU0 ? "floor+runs" : fp.method;
  if (fp.cards_prior && !fp.learned && df > NU0) it->method = "cards prior+runs";
  if (fp.prior && df > NU0 && !fp.learned) it->method = isnan(fp.sigma) ? "baseline runs" : "cross-type prior+runs";
  *se = sigma * sqrt(1.0 / nb + 1.0 / nc);
  bool reps_mode = !fp.learned && judge_reps(it, opt, se, &sigma);
  /* never below the figure's own spread: within a run (rows' stddev, the
   * repetitions) a bimodal figure shows how far its median can move */
  double own = own_cv;
  if (!reps_mode) {
    if (!isnan(b->rep_sd_ln) && !(b->rep_sd_ln <= own)) own = b->rep_sd_ln;
    if (!isnan(c->rep_sd_ln) && !(c->rep_sd_ln <= own)) own = c->rep_sd_ln;
  }
  if (!isnan(own) && own > sigma) {
    sigma = own;
    *se = sigma * (reps_mode ? sqrt(2.0) : sqrt(1.0 / nb + 1.0 / nc));
    it->method = "own spread";
  }
  it->sigma = sigma;
  *d = c->mean_ln - b->mean_ln;
  return true;
}

void gb_gate_judge(gb_gate_item *it, const gb_gate_options *opt, double min_pct, double z, double own_cv) {
  gb_gate_side *b = &it->base, *c = &it->cur;
  it->change_pct = it->ratio = it->threshold_pct = it->mdc_pct = it->sigma = it->p_value = NAN;
  it->method = "";
  if (judge_state(it)) return;
  it->ratio = c->median / b->median;
  it->change_pct = it->direction * (it->ratio - 1.0) * 100.0;
  double d, se;
  if (!judge_noise(it, opt, own_cv, &d, &se)) {
    it->verdict = GB_VERDICT_INSUFFICIENT;
    return;
  }
  if (it->peak) {
    it->ratio = exp(d);
    it->change_pct = it->direction * (it->ratio - 1.0) * 100.0;
  }
  double t = z * se, tmin = log1p(min_pct / 100.0);
  if (t < tmin) t = tmin;
  it->mdc_pct = it->threshold_pct = expm1(t) * 100.0;
  it->p_value = se > 0 ? erfc(fabs(d) / se / sqrt(2.0)) : (d == 0 ? 1.0 : 0.0);
  bool worse = it->direction * d < 0; /* oriented: < 0 worse */
  if (fabs(d) <= tmin)
    it->verdict = GB_VERDICT_UNCHANGED;
  else if (fabs(d) <= t)
    it->verdict = it->gated ? GB_VERDICT_NOISE : GB_VERDICT_UNCHANGED;
  else if (it->gated)
    it->verdict = worse ? GB_VERDICT_REGRESSION : GB_VERDICT_IMPROVEMENT;
  else
    it->verdict = worse ? GB_VERDICT_WORSE_INFO : GB_VERDICT_BETTER_INFO;
}

typedef struct gb_derived_entry {
  const gb_row *row; /* the item's baseline row, else its current one */
  const char *node;  /* the item's node (per-node comparison), else "" */
  size_t item;
} gb_derived_entry;

static const char *node_of(const gb_gate_item *it) { return it->node ? it->node : ""; }

/* Orders row o of node on against the key of r of node rn with case cs (cl
 * bytes): the node, numbers, then strings (read rows share them: equal
 * pointers are equal). A merged fleet file is judged node by node: a
 * derived figure's sides are its own node's. */
static int cmp_side(const gb_row *o, const char *on, const gb_row *r, const char *rn, const char *cs, size_t cl) {
  int n = on == rn ? 0 : strcmp(on, rn);
  if (n) return n;
  if (o->m != r->m) return o->m < r->m ? -1 : 1;
  if (o->n != r->n) return o->n < r->n ? -1 : 1;
  if (o->k != r->k) return o->k < r->k ? -1 : 1;
  if (o->gpu_count != r->gpu_count) return o->gpu_count < r->gpu_count ? -1 : 1;
  int c = o->benchmark == r->benchmark ? 0 : strcmp(o->benchmark, r->benchmark);
  if (!c && o->gpu_type != r->gpu_type) c = strcmp(o->gpu_type, r->gpu_type);
  if (!c) c = strncmp(o->case_name, cs, cl);
  if (!c && o->case_name[cl]) c = 1;
  return c;
}

static int cmp_entry(const void *pa, const void *pb) {
  const gb_derived_entry *a = pa, *b = pb;
  int c = cmp_side(a->row, a->node, b->row, b->node, b->row->case_name, strlen(b->row->case_name));
  return c ? c : (a->item > b->item) - (a->item < b->item);
}

gb_err gb_gate_derived_ix_build(const gb_gate_report *rep, gb_derived_ix *ix) {
  ix->n = 0;
  ix->e = malloc((rep->nitems ? rep->nitems : 1) * sizeof *ix->e);
  if (!ix->e) return gb_fail(GB_E_NOMEM, "out of memory for %zu figures", rep->nitems);
  for (size_t i = 0; i < rep->nitems; i++) {
    const gb_row *o = rep->items[i].base.row ? rep->items[i].base.row : rep->items[i].cur.row;
    if (o && !strstr(o->case_name, "_vs_")) ix->e[ix->n++] = (gb_derived_entry){o, node_of(&rep->items[i]), i};
  }
  qsort(ix->e, ix->n, sizeof *ix->e, cmp_entry);
  return GB_OK;
}

void gb_gate_derived_ix_free(gb_derived_ix *ix) {
  free(ix->e);
  ix->e = NULL;
  ix->n = 0;
}

/* The last item (in the report's order) of node rn and r's shape whose
 * case is cs (cl bytes), or SIZE_MAX. */
static size_t side_item(const gb_derived_ix *ix, const gb_row *r, const char *rn, const char *cs, size_t cl) {
  size_t lo = 0, hi = ix->n;
  while (lo < hi) { /* past the last entry <= the key */
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_side(ix->e[mid].row, ix->e[mid].node, r, rn, cs, cl) <= 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0 || cmp_side(ix->e[lo - 1].row, ix->e[lo - 1].node, r, rn, cs, cl) != 0) return SIZE_MAX;
  return ix->e[lo - 1].item;
}

/* "A_vs_B": the items of cases A and B at its shape (and node); as the scan
 * of every figure this replaced, the last of each in the report's order,
 * and no B side where B is A. */
bool gb_gate_derived_sides(const gb_derived_ix *ix, const gb_gate_item *it, size_t *a, size_t *b) {
  const gb_row *r = it->base.row;
  const char *vs = r ? strstr(r->case_name, "_vs_") : NULL;
  *a = *b = SIZE_MAX;
  if (!vs) return false;
  size_t la = (size_t)(vs - r->case_name);
  const char *bname = vs + 4;
  if (strlen(bname) == la && strncmp(bname, r->case_name, la) == 0) return false;
  *a = side_item(ix, r, node_of(it), r->case_name, la);
  *b = side_item(ix, r, node_of(it), bname, strlen(bname));
  return *a != SIZE_MAX && *b != SIZE_MAX;
}

/* The spread of a derived figure from its two sides' (gb_gate_derived_sides):
 * sqrt(cv_A^2 + cv_B^2), NaN when either is unknown. */
double gb_gate_derived_cv(double cva, double cvb) {
  return isnan(cva) || isnan(cvb) ? NAN : sqrt(cva * cva + cvb * cvb);
}
