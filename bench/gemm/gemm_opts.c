/* gemm_opts: --opt gemm.* parsed into gb_gemm_opts, the `settings` items
 * they make, and which cases the plan holds under them (bench_gemm.h). No
 * CUDA calls: tested on the CPU. */
#include <stdio.h>
#include <string.h>

#include "bench_gemm.h"
#include "gb_num.h"
#include "gb_settings.h"

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

static gb_err gemm_opt_gshape(void *ctx, const char *item) {
  gb_gemm_opts *o = ctx;
  long long g, m, n, k;
  char extra;
  if (sscanf(item, "%lldx%lldx%lldx%lld%c", &g, &m, &n, &k, &extra) != 4 || g < 1 || m < 1 || n < 1 || k < 1 ||
      g > 4096 || m > 1 << 20 || n > 1 << 20 || k > 1 << 20)
    return gb_fail(GB_E_USAGE,
                   "--opt gemm.grouped_shapes: \"%s\" is not GxMxNxK (G groups of MxNxK: groups 1 to 4096, "
                   "M, N and K 1 to 1048576; e.g. 8x512x14336x4096)",
                   item);
  if (o->ngshapes == GB_GEMM_MAX_OPT_GSHAPES)
    return gb_fail(GB_E_USAGE, "--opt gemm.grouped_shapes: at most %d shapes", GB_GEMM_MAX_OPT_GSHAPES);
  o->gshapes[o->ngshapes++] = (gb_gemm_gshape){.groups = g, .m = m, .n = n, .k = k, .model = "custom", .proj = ""};
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

gb_err gb_gemm_opt_choice(const char *key, const char *val, const char *a, const char *a_means, const char *b,
                          const char *b_means, bool *is_b) {
  *is_b = strcmp(val, b) == 0;
  if (*is_b || strcmp(val, a) == 0) return GB_OK;
  return gb_fail(GB_E_USAGE, "--opt gemm.%s: \"%s\" is not %s%s%s%s or %s%s%s%s", key, val, a, a_means ? " (" : "",
                 a_means ? a_means : "", a_means ? ")" : "", b, b_means ? " (" : "", b_means ? b_means : "",
                 b_means ? ")" : "");
}

/* ---- the product's keys ---- */

static gb_err key_precs(layout_ctx *lc, const char *val) {
  return gb_settings_list("gemm.precs", val, gemm_opt_prec, lc->o);
}

static gb_err key_shapes(layout_ctx *lc, const char *val) {
  return gb_settings_list("gemm.shapes", val, gemm_opt_shape, lc->o);
}

static gb_err key_grouped_shapes(layout_ctx *lc, const char *val) {
  return gb_settings_list("gemm.grouped_shapes", val, gemm_opt_gshape, lc->o);
}

static gb_err key_grouped(layout_ctx *lc, const char *val) {
  static const char *const names[] = {"on", "off", "only"};
  for (int i = 0; i < 3; i++)
    if (strcmp(val, names[i]) == 0) {
      lc->o->grouped = (gb_gemm_grouped)i;
      return GB_OK;
    }
  return gb_fail(GB_E_USAGE,
                 "--opt gemm.grouped: \"%s\" is not on (dense and grouped cases), off (dense only) or only "
                 "(grouped only)",
                 val);
}

static gb_err key_layout(layout_ctx *lc, const char *val) {
  if (lc->seen) return gb_fail(GB_E_USAGE, "--opt gemm.layout: given twice (list both: gemm.layout=tn:nn)");
  lc->seen = true;
  return gb_settings_list("gemm.layout", val, gemm_opt_layout, lc);
}

static gb_err key_rest_ms(layout_ctx *lc, const char *val) {
  int64_t v;
  if (!gb_parse_i64(val, &v) || v < 0 || v > GB_GEMM_REST_MS_MAX)
    return gb_fail(GB_E_USAGE, "--opt gemm.rest_ms: \"%s\" is not a whole number of milliseconds from 0 to %d", val,
                   GB_GEMM_REST_MS_MAX);
  lc->o->rest_ms = (int)v;
  return GB_OK;
}

static gb_err key_window(layout_ctx *lc, const char *val) {
  bool second;
  gb_err e = gb_gemm_opt_choice("window", val, "burst", "30 products after 5 warm-ups", "sustained",
                                "at least 0.5 s of products", &second);
  if (!e) lc->o->window = second ? GB_GEMM_WINDOW_SUSTAINED : GB_GEMM_WINDOW_BURST;
  return e;
}

static gb_err key_search(layout_ctx *lc, const char *val) {
  gb_gemm_opts *o = lc->o;
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

static const struct {
  const char *name;
  gb_err (*parse)(layout_ctx *lc, const char *val);
} gemm_keys[] = {
    {"precs", key_precs},   {"shapes", key_shapes}, {"layout", key_layout},
    {"search", key_search}, {"window", key_window}, {"rest_ms", key_rest_ms},
    {"grouped", key_grouped}, {"grouped_shapes", key_grouped_shapes},
};

static gb_err gemm_opt(void *ctx, const char *key, const char *val, bool prefixed) {
  (void)prefixed;
  layout_ctx *lc = ctx;
  for (size_t i = 0; i < sizeof gemm_keys / sizeof gemm_keys[0]; i++)
    if (strcmp(key, gemm_keys[i].name) == 0) return gemm_keys[i].parse(lc, val);
  if (gb_gemm_lab_key(key)) return gb_gemm_lab_opt(lc->o, key, val);
  return gb_fail(GB_E_USAGE,
                 "--opt gemm.%s: unknown key (known: precs, shapes, layout, search, window, rest_ms, grouped, "
                 "grouped_shapes; and in a build "
                 "with -DGB_TOOLS=ON the lab's, tools/gemm/gemm_lab.c)",
                 key);
}

gb_err gb_gemm_opts_parse(const char *bench_opts, gb_gemm_opts *out) {
  memset(out, 0, sizeof *out);
  out->rest_ms = -1;
  out->confirm_rounds = -1;
  out->confirm_rest_ms = -1;
  out->workspace_kib = -1;
  layout_ctx lc = {.o = out};
  gb_err err = gb_settings_each(bench_opts, "gemm.", false, gemm_opt, &lc);
  if (!err && !lc.seen) out->layouts[GB_GEMM_TN] = true;
  return err;
}

void gb_gemm_settings(const gb_gemm_opts *o, char *buf, size_t n) {
  gb_settings s = gb_settings_start(buf, n);
  if (o->search != GB_GEMM_SEARCH_VARIANTS)
    gb_settings_add(&s, "gemm.search=%s", o->search == GB_GEMM_SEARCH_EXTENDED ? "extended" : "heuristic");
  if (o->rest_ms >= 0) gb_settings_add(&s, "gemm.rest_ms=%d", o->rest_ms);
  gb_gemm_lab_settings(o, &s);
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
