/* gemm_search: the algorithm search of one case. Candidates: the
 * heuristic's (asked with the workspace), with gemm.search=extended the
 * enumerated configurations (gemm_enum.c), one-knob configurations of its
 * #1, and those it gives without workspace. Then the screening (each
 * candidate timed round-robin), the rested confirmation of the finalists,
 * and the one kept (gb_gemm_keep's rule). Called by gemm_bench.c
 * (gemm_pick_algo); calls gemm_timing.c, gemm_op.c and gemm_enum.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gb_cuda.h"
#include "gb_stats.h"
#include "gemm_internal.h"

_Static_assert(GEMM_EXT_WIDE <= GEMM_EXT_BELOW, "the enumerated picks fit in picked[GEMM_EXT_BELOW]");

static int g_heuristic_max; /* 0: GEMM_HEUR_MAX */

void gb_gemm_test_heuristic_max(int n) { g_heuristic_max = n > 0 && n < GEMM_HEUR_MAX ? n : 0; }

static int gemm_heuristic_ask(void) { return g_heuristic_max ? g_heuristic_max : GEMM_HEUR_MAX; }

/* One search: the case, the candidates gathered, their times. */
typedef struct gemm_search {
  gemm_op *o;
  const gemm_state *st;
  const gb_gemm_timing *plan;
  cudaStream_t s;
  gemm_pick *out;
  int want;                  /* candidates of the heuristic to time (gemm.candidates or the plan's) */
  int only;                  /* gemm.candidate: the heuristic's #only alone; 0: a search */
  cublasStatus_t hs;         /* the heuristic's answer */
  gemm_cand cand[GEMM_CAND_MAX];
  int ncand, nheur;          /* candidates in all; the first nheur are the heuristic's */
  double med[GEMM_CAND_MAX]; /* screening medians (NaN: did not run) */
  double conf[GEMM_CAND_MAX]; /* confirmation medians (NaN: not confirmed) */
  int first_ws, first_no_ws; /* the heuristic's #1 with and without workspace; -1 where absent */
  char last_failure[512];
} gemm_search;

/* ---- candidates ---- */

/* gemm.search=extended: the configurations of base (a heuristic candidate)
 * that differ from it in one knob: the cluster shape (the heuristic returns
 * one per tile), CTA swizzling where the algorithm supports it, or its
 * custom option. Each must pass cublasLtMatmulAlgoCheck within the
 * workspace. Appends at most cap of them to out and returns how many. */
static int gemm_config_variants(gemm_op *o, const gemm_cand *base, gemm_cand *out, int cap) {
  static const uint16_t clusters[] = {CUBLASLT_CLUSTER_SHAPE_1x1x1, CUBLASLT_CLUSTER_SHAPE_2x1x1,
                                      CUBLASLT_CLUSTER_SHAPE_1x2x1, CUBLASLT_CLUSTER_SHAPE_2x2x1,
                                      CUBLASLT_CLUSTER_SHAPE_4x1x1, CUBLASLT_CLUSTER_SHAPE_1x4x1};
  enum { KNOB_CLUSTER, KNOB_SWIZZLE, KNOB_CUSTOM };
  uint16_t base_cluster = 0;
  uint32_t base_swizzle = 0, base_custom = 0;
  int32_t swizzle_ok = 0, custom_max = 0;
  size_t w = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&base->algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &base_cluster,
                                           sizeof base_cluster, &w))
    base_cluster = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&base->algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &base_swizzle,
                                           sizeof base_swizzle, &w))
    base_swizzle = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&base->algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &base_custom,
                                           sizeof base_custom, &w))
    base_custom = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&base->algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swizzle_ok,
                                        sizeof swizzle_ok, &w))
    swizzle_ok = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&base->algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &custom_max,
                                        sizeof custom_max, &w))
    custom_max = 0;
  if (swizzle_ok < 0) swizzle_ok = 0;
  if (custom_max < 0) custom_max = 0;
  if (custom_max > 7) custom_max = 7;
  int n = 0;
  for (int knob = KNOB_CLUSTER; knob <= KNOB_CUSTOM; knob++) {
    int count = knob == KNOB_CLUSTER   ? (int)(sizeof clusters / sizeof clusters[0])
                : knob == KNOB_SWIZZLE ? (swizzle_ok ? 2 : 0)
                                       : custom_max + 1;
    for (int v = 0; v < count && n < cap; v++) {
      cublasLtMatmulAlgo_t a = base->algo;
      cublasStatus_t set;
      if (knob == KNOB_CLUSTER) {
        if (clusters[v] == base_cluster) continue;
        set = cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &clusters[v],
                                                   sizeof clusters[v]);
      } else {
        uint32_t val = (uint32_t)v;
        if (val == (knob == KNOB_SWIZZLE ? base_swizzle : base_custom)) continue;
        set = cublasLtMatmulAlgoConfigSetAttribute(
            &a, knob == KNOB_SWIZZLE ? CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING : CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &val,
            sizeof val);
      }
      cublasLtMatmulHeuristicResult_t res;
      memset(&res, 0, sizeof res);
      if (set != CUBLAS_STATUS_SUCCESS ||
          cublasLtMatmulAlgoCheck(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, &a, &res) !=
              CUBLAS_STATUS_SUCCESS ||
          res.workspaceSize > o->ws_bytes)
        continue;
      out[n++] = (gemm_cand){.algo = a, .ws = res.workspaceSize, .waves = res.wavesCount, .variant = true,
                             .index = base->index};
    }
  }
  return n;
}

/* The heuristic asked with pref (the full workspace): its first sr->want
 * usable candidates, or its #only alone. */
static void search_add_heuristic(gemm_search *sr, cublasLtMatmulPreference_t pref) {
  gemm_op *o = sr->o;
  cublasLtMatmulHeuristicResult_t res[GEMM_HEUR_MAX];
  int got = 0;
  memset(res, 0, sizeof res);
  sr->hs = cublasLtMatmulAlgoGetHeuristic(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, pref,
                                          gemm_heuristic_ask(), res, &got);
  if (sr->hs != CUBLAS_STATUS_SUCCESS) got = 0;
  sr->out->returned = got;
  int only = sr->only;
  for (int i = 0; i < got && (only ? i < only : i < sr->want); i++)
    if (res[i].state == CUBLAS_STATUS_SUCCESS && (!only || i == only - 1))
      sr->cand[sr->ncand++] = (gemm_cand){.algo = res[i].algo, .ws = res[i].workspaceSize,
                                          .waves = res[i].wavesCount, .index = i};
  sr->nheur = sr->ncand;
}

/* gemm.search=extended: fill up to 8 with enumerated configurations;
 * beside a full list, a few more (fp8 slow accumulation at 8192^3: the
 * heuristic returns 8, all of one algo id; the enumeration reaches tiles it
 * leaves out). */
static gb_err search_add_enumerated(gemm_search *sr) {
  gemm_pick *out = sr->out;
  gemm_enum_list en = {0};
  GB_TRY(gemm_enumerate(sr->o, sr->cand, sr->nheur, &en, out));
  int got = out->returned;
  size_t want = (size_t)(got < GEMM_EXT_BELOW ? GEMM_EXT_BELOW - got : GEMM_EXT_WIDE);
  if (want > (size_t)sr->want) want = (size_t)sr->want;
  size_t picked[GEMM_EXT_BELOW];
  size_t np = gb_gemm_enum_pick(en.c, en.n, want, picked);
  for (size_t i = 0; i < np && sr->ncand < GEMM_CAND_MAX; i++) {
    size_t j = picked[i];
    sr->cand[sr->ncand++] = (gemm_cand){.algo = en.algo[j], .ws = en.ws[j], .waves = en.c[j].waves,
                                        .enumerated = true, .index = en.c[j].algo_id};
    out->enumerated++;
  }
  if (np == 0 && en.n > 0 && !out->enum_note[0])
    snprintf(out->enum_note, sizeof out->enum_note, "none of %zu new configurations scored (tile or waves unknown)",
             en.n);
  gemm_enum_list_free(&en);
  return GB_OK;
}

/* One-knob configurations of the heuristic's first usable candidate: all
 * of them (extended), or (variants, the default) as many as fill the
 * plan's candidate count when the heuristic returned fewer than 8 (tf32
 * at 8192^3 on an H200: 1 returned; its #1 with a 2x1 cluster ran 2%
 * faster than with the 1x2 the heuristic gives); extended leaves room for
 * the candidates without workspace. */
static void search_add_variants(gemm_search *sr) {
  gb_gemm_search search = sr->st->search;
  int variant_cap = 0; /* want <= GB_GEMM_CANDIDATES_MAX < GEMM_CAND_MAX: both fit in cand[] */
  if (search == GB_GEMM_SEARCH_EXTENDED) variant_cap = GEMM_CAND_MAX - GEMM_NOWS_MAX - sr->ncand;
  else if (search == GB_GEMM_SEARCH_VARIANTS && sr->out->returned < GEMM_EXT_BELOW)
    variant_cap = sr->want - sr->ncand;
  if (variant_cap > 0 && !sr->only && sr->nheur > 0) {
    sr->out->variants = gemm_config_variants(sr->o, &sr->cand[0], sr->cand + sr->ncand, variant_cap);
    sr->out->variant_base = sr->cand[0].index + 1;
    sr->ncand += sr->out->variants;
  }
}

/* The heuristic's first GEMM_NOWS_MAX candidates for a workspace of 0
 * bytes (pref, the search's preference, set to none), appended and run with
 * none, when one of the heuristic's candidates from the full workspace
 * needs some: their kernels take no per-launch state there. The fp8 cases
 * at 8192^3 on an H200: the same configuration's kernel needs 4 bytes of
 * workspace, a counter cuBLASLt zeroes with a memset before every launch
 * (5.5 us between products); without workspace the heuristic gives it with
 * a static tile scheduler (`ssched`), no memset (3.2 us between) and ~0.5%
 * more TFLOP/s. One that is a candidate from the full workspace needing
 * none already (the same algorithm, byte for byte) is not added twice. A
 * query cuBLASLt refuses adds none, and no_ws_note says why (the
 * candidates from the full workspace remain). */
static void search_add_no_ws(gemm_search *sr, cublasLtMatmulPreference_t pref) {
  gemm_op *o = sr->o;
  const gemm_cand *heur = sr->cand;
  int nheur = sr->nheur, cap = GEMM_CAND_MAX - sr->ncand;
  bool needs_ws = false;
  for (int i = 0; i < nheur; i++) needs_ws = needs_ws || heur[i].ws > 0;
  if (!needs_ws || o->ws_bytes == 0 || cap <= 0) return;
  cublasLtMatmulHeuristicResult_t res[GEMM_NOWS_MAX];
  uint64_t none = 0;
  int got = 0, n = 0;
  memset(res, 0, sizeof res);
  cublasStatus_t st =
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &none, sizeof none);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, pref,
                                        GEMM_NOWS_MAX, res, &got);
  if (st != CUBLAS_STATUS_SUCCESS) {
    snprintf(sr->out->no_ws_note, sizeof sr->out->no_ws_note, "%s", cublasLtGetStatusString(st));
    return;
  }
  for (int i = 0; i < got && n < cap; i++) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS || res[i].workspaceSize != 0) continue;
    bool known = false;
    for (int j = 0; j < nheur; j++)
      known = known || (heur[j].ws == 0 && memcmp(&heur[j].algo, &res[i].algo, sizeof res[i].algo) == 0);
    if (!known)
      sr->cand[sr->ncand + n++] =
          (gemm_cand){.algo = res[i].algo, .ws = 0, .waves = res[i].wavesCount, .no_ws = true, .index = i};
  }
  sr->out->no_ws = n;
  sr->ncand += n;
}

/* Every candidate of the search, through one preference: the workspace
 * for the heuristic's query, then none for the query without. */
static gb_err search_gather(gemm_search *sr) {
  gb_err err = GB_OK;
  gb_gemm_search search = sr->st->search;
  cublasLtMatmulPreference_t pref = NULL;
  uint64_t ws = sr->o->ws_bytes;
  GB_CUBLAS_GOTO(cublasLtMatmulPreferenceCreate(&pref), err, done);
  GB_CUBLAS_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                 err, done);
  search_add_heuristic(sr, pref);
  if (search == GB_GEMM_SEARCH_EXTENDED && !sr->only) GB_TRY_GOTO(search_add_enumerated(sr), err, done);
  search_add_variants(sr);
  if (search != GB_GEMM_SEARCH_HEURISTIC && !sr->only) search_add_no_ws(sr, pref);
done:
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  return err;
}

/* GB_E_UNSUPPORTED when there is no candidate, with why. */
static gb_err search_none(const gemm_search *sr, const gb_device_info *dev) {
  const gemm_op *o = sr->o;
  int got = sr->out->returned, only = sr->only;
  return gb_fail(GB_E_UNSUPPORTED,
                 "%s: cuBLASLt has no algorithm for %s (A %s, B %s, D %s, %s) at %lldx%lldx%lld on sm_%d%d: %s%s%s",
                 o->p->name, o->p->compute_name, gemm_operand_name(o->p, o->p->a_type),
                 gemm_operand_name(o->p, o->p->b_type),
                 gb_dtype_name(o->p->d_type), gb_gemm_layout_label(o->layout), (long long)o->m, (long long)o->n,
                 (long long)o->k, dev->cc_major, dev->cc_minor,
                 sr->hs != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusString(sr->hs)
                 : only && got > 0 ? (only > got ? "gemm.candidate asked for more than the heuristic returned"
                                                 : "gemm.candidate's candidate was marked unusable")
                 : got > 0         ? "every heuristic candidate was marked unusable"
                                   : "the heuristic returned no candidate",
                 sr->out->enum_note[0] ? "; enumeration: " : "", sr->out->enum_note);
}

/* ---- timing ---- */

/* The screening: every candidate is warmed and timed once, then the
 * others' samples are taken round-robin, one per candidate per round: the
 * clock drift of the search (the power cap coming on as the card heats)
 * then hits every candidate alike, not the later ones. Fills sr->med and
 * the heuristic's #1 with and without workspace. */
static gb_err search_screen(gemm_search *sr) {
  const gb_gemm_timing *plan = sr->plan;
  int reps = plan->search_reps < 1 ? 1 : plan->search_reps > GEMM_SEARCH_REPS_MAX ? GEMM_SEARCH_REPS_MAX
                                                                                   : plan->search_reps;
  double sec[GEMM_CAND_MAX][GEMM_SEARCH_REPS_MAX] = {{0}};
  bool live[GEMM_CAND_MAX] = {false};
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < sr->ncand; i++) {
      if (r > 0 && !live[i]) continue;
      GB_TRY(gemm_time_algo(sr->o, sr->s, &sr->cand[i], r == 0 ? 1 : 0, 1, plan->ops_per_sample, &sec[i][r],
                            sr->last_failure, sizeof sr->last_failure));
      if (isnan(sec[i][r])) {
        live[i] = false;
        sr->out->failed++;
        continue;
      }
      if (r == 0) live[i] = true;
    }
  sr->first_ws = sr->first_no_ws = -1;
  for (int i = 0; i < sr->ncand; i++) {
    sr->med[i] = live[i] ? gb_median(sec[i], (size_t)reps) : NAN;
    if (live[i]) sr->out->timed++;
    if (!sr->cand[i].enumerated && !sr->cand[i].variant && sr->cand[i].index == 0) {
      if (sr->cand[i].no_ws) sr->first_no_ws = i;
      else sr->first_ws = i;
    }
  }
  return GB_OK;
}

/* Rounds of the finalists fin[0..nfin) timed in bursts after an idle, each
 * round starting with the next finalist; fills sr->conf for those that
 * ran in every round. */
static gb_err search_confirm_rounds(gemm_search *sr, const int *fin, int nfin, int rounds, int rest_ms) {
  const gb_gemm_timing *plan = sr->plan;
  double cs[GB_GEMM_FINALISTS_MAX][GB_GEMM_CONFIRM_MAX];
  int samples = plan->confirm_samples < 1                          ? 1
                : plan->confirm_samples > GEMM_CONFIRM_SAMPLES_MAX ? GEMM_CONFIRM_SAMPLES_MAX
                                                                   : plan->confirm_samples;
  bool fok[GB_GEMM_FINALISTS_MAX];
  for (int j = 0; j < nfin; j++) fok[j] = true;
  for (int r = 0; r < rounds; r++)
    for (int jj = 0; jj < nfin; jj++) {
      int j = (jj + r) % nfin; /* each round starts with the next finalist */
      if (!fok[j]) continue;
      GB_TRY(gemm_idle(sr->s, rest_ms));
      GB_TRY(gemm_time_algo(sr->o, sr->s, &sr->cand[fin[j]], plan->confirm_warmup, samples, plan->ops_per_sample,
                            &cs[j][r], sr->last_failure, sizeof sr->last_failure));
      if (isnan(cs[j][r])) fok[j] = false;
    }
  for (int j = 0; j < nfin; j++)
    if (fok[j]) sr->conf[fin[j]] = gb_median(cs[j], (size_t)rounds);
  return GB_OK;
}

/* The rested confirmation: the finalists of the screening, each timed in
 * short bursts after an idle, as the window will time the one kept (the
 * screening ranks them on a card the search itself heats). *best gets the
 * one kept, -1 when none ran. */
static gb_err search_confirm(gemm_search *sr, int *best) {
  const gb_gemm_opts *opts = &sr->st->opts;
  const gb_gemm_timing *plan = sr->plan;
  int first = gb_gemm_first_of(sr->med, sr->first_ws, sr->first_no_ws);
  for (int i = 0; i < sr->ncand; i++) sr->conf[i] = NAN;
  int fin[GB_GEMM_FINALISTS_MAX];
  int maxfin = opts->finalists > 0 ? opts->finalists : GB_GEMM_FINALISTS_DEFAULT;
  int nfin = gb_gemm_finalists(sr->med, sr->ncand, first, maxfin, fin);
  int rounds = opts->confirm_rounds >= 0 ? opts->confirm_rounds : plan->confirm_rounds;
  int rest_ms = opts->confirm_rest_ms >= 0 ? opts->confirm_rest_ms : plan->confirm_rest_ms;
  *best = -1;
  if (nfin >= 2 && rounds > 0) {
    GB_TRY(search_confirm_rounds(sr, fin, nfin, rounds, rest_ms));
    sr->out->finalists = nfin;
    sr->out->rounds = rounds;
    *best = gb_gemm_keep(sr->conf, sr->ncand, gb_gemm_first_of(sr->conf, sr->first_ws, sr->first_no_ws));
  }
  if (*best < 0) *best = gb_gemm_keep(sr->med, sr->ncand, first); /* no confirmation, or every finalist failed it */
  return GB_OK;
}

/* ---- the one kept ---- */

/* Makes candidate best (>= 0) o's algorithm and says in sr->out where it
 * came from; decided holds the medians it was kept by. */
static void search_keep(gemm_search *sr, int best, const double *decided) {
  const gemm_cand *c = &sr->cand[best];
  gemm_pick *out = sr->out;
  double best_t = decided[best];
  gemm_op_use(sr->o, c);
  out->t_best_s = best_t;
  out->ws_needed = c->ws;
  out->waves = c->waves;
  if (c->enumerated)
    snprintf(out->source, sizeof out->source, "enumerated via AlgoGetIds (algo id %d)", c->index);
  else if (c->variant)
    snprintf(out->source, sizeof out->source, "a configuration of the heuristic's #%d", c->index + 1);
  else {
    bool beaten = false;
    for (int i = 0; i < sr->ncand; i++)
      if (isfinite(decided[i]) && decided[i] < best_t) beaten = true;
    snprintf(out->source, sizeof out->source, "the heuristic's #%d%s%s", c->index + 1,
             c->no_ws ? " without workspace" : "",
             sr->only ? " (gemm.candidate)"
             : beaten ? " (another was faster in the search, by 1% or less)"
                      : "");
  }
}

gb_err gemm_pick_algo(gemm_op *o, const gemm_state *st, const gb_device_info *dev, const gb_gemm_timing *plan,
                      cudaStream_t s, gemm_pick *out) {
  gemm_search sr;
  memset(&sr, 0, sizeof sr);
  memset(out, 0, sizeof *out);
  sr.o = o;
  sr.st = st;
  sr.plan = plan;
  sr.s = s;
  sr.out = out;
  sr.want = st->opts.candidates > 0 ? st->opts.candidates : plan->candidates;
  sr.only = st->opts.candidate;
  GB_TRY(search_gather(&sr));
  if (sr.ncand == 0) return search_none(&sr, dev);
  GB_TRY(search_screen(&sr));
  int best;
  GB_TRY(search_confirm(&sr, &best));
  const double *decided = out->finalists && isfinite(sr.conf[best < 0 ? 0 : best]) ? sr.conf : sr.med;
  gemm_log_search(st, o, sr.cand, sr.ncand, sr.med, sr.conf, best);
  if (best < 0)
    return gb_fail(GB_E_UNSUPPORTED, "%s: none of the %d cuBLASLt candidates ran at %lldx%lldx%lld (%s): %s",
                   o->p->name, sr.ncand, (long long)o->m, (long long)o->n, (long long)o->k,
                   gb_gemm_layout_label(o->layout), sr.last_failure[0] ? sr.last_failure : "no reason given");
  search_keep(&sr, best, decided);
  return GB_OK;
}
