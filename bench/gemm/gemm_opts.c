/* gemm_opts: --opt gemm.* parsed into gb_gemm_opts, the `settings` items
 * they make, and which cases the plan holds under them (bench_gemm.h). No
 * CUDA calls: tested on the CPU. */
#include <stdio.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_num.h"
#include "gb_opts.h"

static gb_err gemm_opt_prec(void *ctx, const char *item) {
  gb_gemm_opts *o = ctx;
  const gb_gemm_prec *p = gb_gemm_prec_find(item);
  if (!p) return gb_fail(GB_E_USAGE, "--opt gemm.precs: unknown precision \"%s\" (the case names of `gemm`, e.g. bf16, fp8e4m3_fastacc, int8)", item);
  if (o->nprecs == sizeof o->precs / sizeof o->precs[0]) return gb_fail(GB_E_USAGE, "--opt gemm.precs: too many");
  o->precs[o->nprecs++] = p;
  return GB_OK;
}

static gb_err gemm_opt_shape(void *ctx, const char *item) {
  gb_gemm_opts *o = ctx;
  long long m, n, k;
  char extra;
  int got = sscanf(item, "%lldx%lldx%lld%c", &m, &n, &k, &extra);
  if (got == 1 || (got == 0 && sscanf(item, "%lld%c", &m, &extra) == 1)) n = k = m, got = 3;
  if (got != 3 || m < 1 || n < 1 || k < 1 || m > 1 << 20 || n > 1 << 20 || k > 1 << 20)
    return gb_fail(GB_E_USAGE, "--opt gemm.shapes: \"%s\" is not N or MxNxK (each 1 to 1048576)", item);
  if (o->nshapes == GB_GEMM_MAX_OPT_SHAPES)
    return gb_fail(GB_E_USAGE, "--opt gemm.shapes: at most %d shapes", GB_GEMM_MAX_OPT_SHAPES);
  o->shapes[o->nshapes++] = (gb_gemm_shape){m, n, k, m == n && n == k ? "square" : "custom"};
  return GB_OK;
}

/* one item of gemm.layout; *seen marks that the key was given at all */
typedef struct layout_ctx {
  gb_gemm_opts *o;
  bool seen;
} layout_ctx;

static gb_err gemm_opt_layout(void *ctx, const char *item) {
  layout_ctx *lc = ctx;
  gb_gemm_layout l;
  if (strcmp(item, "tn") == 0) l = GB_GEMM_TN;
  else if (strcmp(item, "nn") == 0) l = GB_GEMM_NN;
  else
    return gb_fail(GB_E_USAGE,
                   "--opt gemm.layout: unknown layout \"%s\" (tn: B n x k, D = A B^T; nn: B k x n, D = A B; "
                   "e.g. gemm.layout=tn:nn)",
                   item);
  if (lc->o->layouts[l]) return gb_fail(GB_E_USAGE, "--opt gemm.layout: \"%s\" listed twice", item);
  lc->o->layouts[l] = true;
  return GB_OK;
}

/* A key with two values, a and b (each with what it means, or NULL): *is_b
 * tells which was given; anything else is a usage error naming both, e.g.
 * "--opt gemm.window: \"x\" is not burst (...) or sustained (...)". */
static gb_err gemm_opt_choice(const char *key, const char *val, const char *a, const char *a_means, const char *b,
                              const char *b_means, bool *is_b) {
  *is_b = strcmp(val, b) == 0;
  if (*is_b || strcmp(val, a) == 0) return GB_OK;
  return gb_fail(GB_E_USAGE, "--opt gemm.%s: \"%s\" is not %s%s%s%s or %s%s%s%s", key, val, a, a_means ? " (" : "",
                 a_means ? a_means : "", a_means ? ")" : "", b, b_means ? " (" : "", b_means ? b_means : "",
                 b_means ? ")" : "");
}

static gb_err gemm_opt(void *ctx, const char *key, const char *val, bool prefixed) {
  (void)prefixed;
  layout_ctx *lc = ctx;
  gb_gemm_opts *o = lc->o;
  if (strcmp(key, "precs") == 0) return gb_opts_list("gemm.precs", val, gemm_opt_prec, o);
  if (strcmp(key, "shapes") == 0) return gb_opts_list("gemm.shapes", val, gemm_opt_shape, o);
  if (strcmp(key, "layout") == 0) {
    if (lc->seen) return gb_fail(GB_E_USAGE, "--opt gemm.layout: given twice (list both: gemm.layout=tn:nn)");
    lc->seen = true;
    return gb_opts_list("gemm.layout", val, gemm_opt_layout, lc);
  }
  if (strcmp(key, "rest_ms") == 0) {
    int64_t v;
    if (!gb_parse_i64(val, &v) || v < 0 || v > GB_GEMM_REST_MS_MAX)
      return gb_fail(GB_E_USAGE, "--opt gemm.rest_ms: \"%s\" is not a whole number of milliseconds from 0 to %d",
                     val, GB_GEMM_REST_MS_MAX);
    o->rest_ms = (int)v;
    return GB_OK;
  }
  if (strcmp(key, "candidates") == 0 || strcmp(key, "candidate") == 0 || strcmp(key, "finalists") == 0 ||
      strcmp(key, "confirm") == 0 || strcmp(key, "confirm_rest_ms") == 0 || strcmp(key, "input_sets") == 0 ||
      strcmp(key, "workspace_kib") == 0) {
    bool cand = strcmp(key, "candidates") == 0, one = strcmp(key, "candidate") == 0,
         fin = strcmp(key, "finalists") == 0, rest = strcmp(key, "confirm_rest_ms") == 0,
         sets = strcmp(key, "input_sets") == 0, kib = strcmp(key, "workspace_kib") == 0;
    int64_t lo = cand || one || fin || sets ? 1 : 0;
    int64_t hi = cand || one ? GB_GEMM_CANDIDATES_MAX
                 : fin       ? GB_GEMM_FINALISTS_MAX
                 : rest      ? GB_GEMM_REST_MS_MAX
                 : sets      ? GB_GEMM_INPUT_SETS_MAX
                 : kib       ? GB_GEMM_WORKSPACE_KIB_MAX
                             : GB_GEMM_CONFIRM_MAX;
    int64_t v;
    if (!gb_parse_i64(val, &v) || v < lo || v > hi)
      return gb_fail(GB_E_USAGE, "--opt gemm.%s: \"%s\" is not a whole number from %lld to %lld%s", key, val,
                     (long long)lo, (long long)hi, rest ? " (milliseconds)" : kib ? " (KiB)" : "");
    if (cand) o->candidates = (int)v;
    else if (one) o->candidate = (int)v;
    else if (fin) o->finalists = (int)v;
    else if (rest) o->confirm_rest_ms = (int)v;
    else if (sets) o->input_sets = (int)v;
    else if (kib) o->workspace_kib = (int)v;
    else o->confirm_rounds = (int)v;
    return GB_OK;
  }
  if (strcmp(key, "search_log") == 0 || strcmp(key, "samples_log") == 0) {
    char *dst = strcmp(key, "search_log") == 0 ? o->search_log : o->samples_log;
    size_t len = strlen(val), cap = sizeof o->search_log;
    if (len == 0 || len >= cap)
      return gb_fail(GB_E_USAGE, "--opt gemm.%s: give a file path of 1 to %zu characters", key, cap - 1);
    memcpy(dst, val, len + 1);
    return GB_OK;
  }
  bool second;
  gb_err e;
  if (strcmp(key, "window") == 0) {
    e = gemm_opt_choice(key, val, "burst", "30 products after 5 warm-ups", "sustained", "at least 0.5 s of products",
                        &second);
    if (!e) o->window = second ? GB_GEMM_WINDOW_SUSTAINED : GB_GEMM_WINDOW_BURST;
    return e;
  }
  if (strcmp(key, "fp8_amax") == 0) {
    e = gemm_opt_choice(key, val, "on", NULL, "off", "whether the fp8 cases compute the amax of D", &second);
    if (!e) o->fp8_no_amax = second;
    return e;
  }
  if (strcmp(key, "out_of_place") == 0) {
    e = gemm_opt_choice(key, val, "on", NULL, "off", "whether C gets a buffer of its own instead of D", &second);
    if (!e) o->out_of_place = !second;
    return e;
  }
  if (strcmp(key, "timing") == 0) {
    e = gemm_opt_choice(key, val, "chain", "one chain of events, every gap between products inside a sample", "pairs",
                        "two events per product, as PyTorch's timing loops", &second);
    if (!e) o->event_pairs = second;
    return e;
  }
  if (strcmp(key, "search") == 0) {
    if (strcmp(val, "variants") == 0) o->search = GB_GEMM_SEARCH_VARIANTS;
    else if (strcmp(val, "heuristic") == 0) o->search = GB_GEMM_SEARCH_HEURISTIC;
    else if (strcmp(val, "extended") == 0) o->search = GB_GEMM_SEARCH_EXTENDED;
    else
      return gb_fail(GB_E_USAGE,
                     "--opt gemm.search: \"%s\" is not variants (the heuristic's candidates, and configurations "
                     "of its #1 when it returns fewer than 8), heuristic (its candidates only) or extended (also "
                     "enumerated configurations)",
                     val);
    return GB_OK;
  }
  return gb_fail(GB_E_USAGE,
                 "--opt gemm.%s: unknown key (known: precs, shapes, layout, search, window, rest_ms, candidates, "
                 "candidate, finalists, confirm, confirm_rest_ms, search_log, samples_log, fp8_amax, input_sets, "
                 "out_of_place, timing, workspace_kib)",
                 key);
}

gb_err gb_gemm_opts_parse(const char *bench_opts, gb_gemm_opts *out) {
  memset(out, 0, sizeof *out);
  out->rest_ms = -1;
  out->confirm_rounds = -1;
  out->confirm_rest_ms = -1;
  out->workspace_kib = -1;
  layout_ctx lc = {.o = out};
  gb_err err = gb_opts_each(bench_opts, "gemm.", false, gemm_opt, &lc);
  if (!err && !lc.seen) out->layouts[GB_GEMM_TN] = true;
  return err;
}

void gb_gemm_settings(const gb_gemm_opts *o, char *buf, size_t n) {
  gb_settings s = gb_settings_start(buf, n);
  if (o->search != GB_GEMM_SEARCH_VARIANTS)
    gb_settings_add(&s, "gemm.search=%s", o->search == GB_GEMM_SEARCH_EXTENDED ? "extended" : "heuristic");
  if (o->rest_ms >= 0) gb_settings_add(&s, "gemm.rest_ms=%d", o->rest_ms);
  if (o->candidates > 0) gb_settings_add(&s, "gemm.candidates=%d", o->candidates);
  if (o->candidate > 0) gb_settings_add(&s, "gemm.candidate=%d", o->candidate);
  if (o->finalists > 0) gb_settings_add(&s, "gemm.finalists=%d", o->finalists);
  if (o->confirm_rounds >= 0) gb_settings_add(&s, "gemm.confirm=%d", o->confirm_rounds);
  if (o->confirm_rest_ms >= 0) gb_settings_add(&s, "gemm.confirm_rest_ms=%d", o->confirm_rest_ms);
  if (o->fp8_no_amax) gb_settings_add(&s, "gemm.fp8_amax=off");
  if (o->input_sets > 0) gb_settings_add(&s, "gemm.input_sets=%d", o->input_sets);
  if (o->out_of_place) gb_settings_add(&s, "gemm.out_of_place=on");
  if (o->event_pairs) gb_settings_add(&s, "gemm.timing=pairs");
  if (o->workspace_kib >= 0) gb_settings_add(&s, "gemm.workspace_kib=%d", o->workspace_kib);
}

bool gb_gemm_plan_wants(const gb_gemm_opts *o, const gb_gemm_prec *p, gb_gemm_layout l, int cc_major,
                        int cc_minor) {
  if (!o->layouts[l]) return false;
  if (o->nprecs == 0) {
    char why[256];
    return cc_major < 0 || gb_gemm_layout_supported(p, l, cc_major, cc_minor, why, sizeof why);
  }
  for (size_t j = 0; j < o->nprecs; j++)
    if (o->precs[j] == p) return true;
  return false;
}
