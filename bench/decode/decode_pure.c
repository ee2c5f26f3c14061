/* decode_pure: the decode benchmark's pure parts (bench_decode.h): its
 * cases, shapes, byte and FLOP counts, the launch count the check expects,
 * the input-set rotation and the CPU reference of the attention read. No
 * CUDA calls: tested on the CPU (tests/check_decode.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_decode.h"

/* Llama 3 8B (hidden 4096, FFN 14336) and 70B (hidden 8192, FFN 28672),
 * their config.json on Hugging Face: the attention output projection
 * (hidden x hidden), one of the MLP's gate and up projections (FFN x hidden)
 * and its down projection (hidden x FFN). n outputs, k inputs. */
static const gb_decode_proj k_projs[] = {
    {"llama-3-8b", "attn_out", 4096, 4096},   {"llama-3-8b", "mlp_up", 14336, 4096},
    {"llama-3-8b", "mlp_down", 4096, 14336},  {"llama-3-70b", "attn_out", 8192, 8192},
    {"llama-3-70b", "mlp_up", 28672, 8192},   {"llama-3-70b", "mlp_down", 8192, 28672},
};
#define NPROJS (sizeof k_projs / sizeof k_projs[0])

const gb_decode_proj *gb_decode_projs(size_t *n) {
  *n = NPROJS;
  return k_projs;
}

static const int64_t k_batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

const int64_t *gb_decode_batches(size_t *n) {
  *n = sizeof k_batches / sizeof k_batches[0];
  return k_batches;
}

/* 8 KV heads (Llama 3 8B and 70B under GQA). Quick: one long sequence and
 * a batch of 32 at 4K tokens. Full: from one 4K sequence (16 MiB, inside
 * L2: rotated past it) to 256 sequences of 4K (4 GiB). */
static const gb_decode_kv k_kv_quick[] = {{1, 8, 32768}, {32, 8, 4096}};
static const gb_decode_kv k_kv_full[] = {{1, 8, 4096},   {1, 8, 32768},  {1, 8, 131072}, {8, 8, 8192},
                                         {32, 8, 2048},  {64, 8, 8192},  {128, 8, 4096}, {256, 8, 4096}};

const gb_decode_kv *gb_decode_kv_shapes(gb_profile profile, size_t *n) {
  if (profile == GB_PROFILE_QUICK) {
    *n = sizeof k_kv_quick / sizeof k_kv_quick[0];
    return k_kv_quick;
  }
  *n = sizeof k_kv_full / sizeof k_kv_full[0];
  return k_kv_full;
}

int64_t gb_decode_kv_bytes(int64_t batch, int64_t kv_heads, int64_t seq, int64_t head_dim) {
  return 2 * batch * kv_heads * seq * head_dim * 2;
}

int64_t gb_decode_kv_chunk(int64_t batch, int64_t kv_heads, int64_t seq, int sm_count, int64_t *splits) {
  int64_t pairs = batch * kv_heads > 0 ? batch * kv_heads : 1;
  int64_t want_blocks = 4 * (int64_t)(sm_count > 0 ? sm_count : 132);
  int64_t s = (want_blocks + pairs - 1) / pairs; /* chunks per pair for the wanted grid */
  if (s < 1) s = 1;
  int64_t chunk = (seq + s - 1) / s;
  chunk = (chunk + 63) / 64 * 64; /* whole 64-token steps */
  if (chunk < 256) chunk = 256;
  if (chunk > seq) chunk = seq;
  if (chunk < 1) chunk = 1;
  *splits = (seq + chunk - 1) / chunk;
  return chunk;
}

double gb_decode_gemv_flops(int64_t m, int64_t n, int64_t k) { return 2.0 * (double)m * (double)n * (double)k; }

int64_t gb_decode_gemv_bytes(int64_t m, int64_t n, int64_t k, int elem) {
  return (n * k + m * k + m * n) * (int64_t)elem;
}

int gb_decode_sets(int64_t set_bytes, int64_t l2_bytes, int64_t max_bytes) {
  if (set_bytes <= 0) return 1;
  int64_t cover = 3 * (l2_bytes > 0 ? l2_bytes : 0);
  int64_t sets = set_bytes >= cover ? 1 : (cover + set_bytes - 1) / set_bytes;
  if (sets > GB_DECODE_MAX_SETS) sets = GB_DECODE_MAX_SETS;
  if (max_bytes / set_bytes < sets) sets = max_bytes / set_bytes;
  return sets < 1 ? 1 : (int)sets;
}

int64_t gb_decode_launch_expected(int warmup, int ops, int64_t samples, bool graph) {
  return (int64_t)warmup + samples * ops + (graph ? ops : 0);
}

/* ---- options and the plan ---- */

const char *const gb_decode_case_names[GB_DECODE_NCASES] = {"launch", "launch_graph", "gemv_bf16", "gemv_fp16",
                                                            "kv_read"};
enum { C_LAUNCH, C_GRAPH, C_GEMV_BF16, C_GEMV_FP16, C_KV };

static gb_err opt_case(void *ctx, const char *item) {
  gb_decode_opts *o = ctx;
  for (int i = 0; i < GB_DECODE_NCASES; i++)
    if (strcmp(item, gb_decode_case_names[i]) == 0) {
      o->cases |= 1u << i;
      return GB_OK;
    }
  return gb_fail(GB_E_USAGE,
                 "--opt decode.cases: unknown case \"%s\" (launch, launch_graph, gemv_bf16, gemv_fp16, kv_read)", item);
}

static gb_err opt_batch(void *ctx, const char *item) {
  gb_decode_opts *o = ctx;
  long long b;
  char extra;
  if (sscanf(item, "%lld%c", &b, &extra) != 1 || b < 1 || b > 4096)
    return gb_fail(GB_E_USAGE, "--opt decode.batches: \"%s\" is not a batch of 1 to 4096", item);
  if (o->nbatches == GB_DECODE_MAX_BATCHES)
    return gb_fail(GB_E_USAGE, "--opt decode.batches: at most %d batches", GB_DECODE_MAX_BATCHES);
  o->batches[o->nbatches++] = b;
  return GB_OK;
}

static gb_err decode_opt(void *ctx, const char *key, const char *val, bool prefixed) {
  (void)prefixed;
  if (strcmp(key, "cases") == 0) return gb_settings_list("decode.cases", val, opt_case, ctx);
  if (strcmp(key, "batches") == 0) return gb_settings_list("decode.batches", val, opt_batch, ctx);
  return gb_fail(GB_E_USAGE, "--opt decode.%s: unknown key (known: cases, batches)", key);
}

gb_err gb_decode_opts_parse(const char *bench_opts, gb_decode_opts *out) {
  memset(out, 0, sizeof *out);
  return gb_settings_each(bench_opts, "decode.", false, decode_opt, out);
}

static gb_err add_simple(gb_case_list *out, const char *name, gb_decode_kind kind) {
  gb_case c = gb_case_init(name, "");
  c.param[0] = kind;
  return gb_case_list_add(out, &c);
}

static gb_err add_gemv(gb_case_list *out, gb_dtype dt, const gb_decode_proj *p, int64_t batch) {
  char name[64];
  snprintf(name, sizeof name, "gemv_%s", gb_dtype_name(dt));
  gb_case c = gb_case_init(name, gb_dtype_name(dt));
  c.m = batch;
  c.n = p->n;
  c.k = p->k;
  c.param[0] = GB_DECODE_GEMV;
  c.param[1] = dt;
  c.spec = p;
  return gb_case_list_add(out, &c);
}

/* kv_read's row: m = batch, n = seq, k = kv_heads * head_dim (the width of
 * one token's K row), bytes = the K and V bytes read. */
static gb_err add_kv(gb_case_list *out, const gb_decode_kv *s) {
  gb_case c = gb_case_init("kv_read", gb_dtype_name(GB_DT_BF16));
  c.m = s->batch;
  c.n = s->seq;
  c.k = s->kv_heads * GB_DECODE_HEAD_DIM;
  c.bytes = gb_decode_kv_bytes(s->batch, s->kv_heads, s->seq, GB_DECODE_HEAD_DIM);
  c.param[0] = GB_DECODE_KV_READ;
  c.param[1] = s->kv_heads;
  return gb_case_list_add(out, &c);
}

/* The gemv cases of one type: every projection of the profile (quick:
 * Llama 3 8B's MLP up and down) at every batch. */
static gb_err plan_gemv(bool quick, gb_dtype dt, const int64_t *batches, size_t nb, gb_case_list *out) {
  size_t np;
  const gb_decode_proj *projs = gb_decode_projs(&np);
  for (size_t p = 0; p < np; p++) {
    if (quick && (strcmp(projs[p].model, "llama-3-8b") != 0 || strcmp(projs[p].proj, "attn_out") == 0)) continue;
    for (size_t b = 0; b < nb; b++) GB_TRY(add_gemv(out, dt, &projs[p], batches[b]));
  }
  return GB_OK;
}

gb_err gb_decode_plan(gb_profile profile, const gb_decode_opts *o, gb_case_list *out) {
  bool quick = profile == GB_PROFILE_QUICK;
  unsigned want = o && o->cases ? o->cases
                                : (1u << C_LAUNCH) | (1u << C_GRAPH) | (1u << C_GEMV_BF16) | (1u << C_KV) |
                                      (quick ? 0u : 1u << C_GEMV_FP16);
  static const int64_t quick_batches[] = {1, 8, 64};
  size_t nb;
  const int64_t *batches = quick ? quick_batches : gb_decode_batches(&nb);
  if (quick) nb = sizeof quick_batches / sizeof quick_batches[0];
  if (o && o->nbatches) batches = o->batches, nb = o->nbatches;
  size_t before = out->n;
  if (want & (1u << C_LAUNCH)) GB_TRY(add_simple(out, "launch", GB_DECODE_LAUNCH));
  if (want & (1u << C_GRAPH)) GB_TRY(add_simple(out, "launch_graph", GB_DECODE_LAUNCH_GRAPH));
  if (want & (1u << C_GEMV_BF16)) GB_TRY(plan_gemv(quick, GB_DT_BF16, batches, nb, out));
  if (want & (1u << C_GEMV_FP16)) GB_TRY(plan_gemv(quick, GB_DT_F16, batches, nb, out));
  if (want & (1u << C_KV)) {
    size_t nkv;
    const gb_decode_kv *kv = gb_decode_kv_shapes(profile, &nkv);
    for (size_t i = 0; i < nkv; i++) GB_TRY(add_kv(out, &kv[i]));
  }
  if (out->n == before) return gb_fail(GB_E_USAGE, "--opt decode.cases selects no case");
  return GB_OK;
}

/* ---- the reference ---- */

double gb_decode_bf16(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return (double)f;
}

/* fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
static double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024.0 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

double gb_decode_elem16(uint16_t h, gb_dtype t) {
  if (t == GB_DT_BF16) return gb_decode_bf16(h);
  if (t == GB_DT_F16) return f16_value(h);
  return NAN;
}

void gb_decode_attn_ref(const uint16_t *q, const uint16_t *k, const uint16_t *v, int64_t seq, int d, double *out) {
  double scale = 1.0 / sqrt((double)d), mx = -INFINITY, sum = 0;
  for (int j = 0; j < d; j++) out[j] = 0;
  /* two passes: the largest score, then exp(s - max) weights */
  for (int64_t t = 0; t < seq; t++) {
    double s = 0;
    for (int j = 0; j < d; j++) s += gb_decode_bf16(q[j]) * gb_decode_bf16(k[t * d + j]);
    if (s * scale > mx) mx = s * scale;
  }
  for (int64_t t = 0; t < seq; t++) {
    double s = 0;
    for (int j = 0; j < d; j++) s += gb_decode_bf16(q[j]) * gb_decode_bf16(k[t * d + j]);
    double w = exp(s * scale - mx);
    sum += w;
    for (int j = 0; j < d; j++) out[j] += w * gb_decode_bf16(v[t * d + j]);
  }
  for (int j = 0; j < d; j++) out[j] = sum > 0 ? out[j] / sum : NAN;
}

double gb_decode_rel_error(const double *got, const double *ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(got[i]) || !isfinite(ref[i])) return NAN;
    double e = got[i] - ref[i];
    num += e * e;
    den += ref[i] * ref[i];
  }
  return den > 0 ? sqrt(num / den) : NAN;
}

/* Up to cap indices spread evenly over 0..count-1, first and last among them. */
static size_t spread(int64_t count, int64_t want, int64_t *out, size_t cap) {
  if (count < 1) return 0;
  size_t n = count <= want ? (size_t)count : (size_t)want;
  for (size_t i = 0; i < n && i < cap; i++)
    out[i] = n == (size_t)count ? (int64_t)i : n == 1 ? 0 : (int64_t)i * (count - 1) / (int64_t)(n - 1);
  return n;
}

size_t gb_decode_check_heads(int64_t pairs, int64_t *out, size_t cap) {
  return spread(pairs, GB_DECODE_CHECK_HEADS, out, cap);
}

size_t gb_decode_check_cols(int64_t n, int64_t *out, size_t cap) { return spread(n, GB_DECODE_CHECK_COLS, out, cap); }
