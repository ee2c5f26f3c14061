/* bench_membw_calc: the pure arithmetic of the membw and copy benchmarks
 * (bench_membw.h): byte accounting, sweep bounds, variants, options and the
 * host-side result checks. No CUDA calls, so the CPU tests exercise it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_membw.h"

#include "gb_settings.h"
#include "gb_num.h"

size_t gb_membw_elem_bytes(gb_dtype t) { return t == GB_DT_F64 || t == GB_DT_F32 ? gb_dtype_size(t) : 0; }

int64_t gb_membw_bytes_moved(const gb_stream_kernel *k, int64_t bytes_per_array) {
  return (int64_t)k->arrays * bytes_per_array;
}

/* ---- sweep ---- */

int64_t gb_membw_reserve_bytes(int64_t free_bytes) {
  int64_t pct = free_bytes / 20;
  return pct > 512 * GB_MEMBW_MIB ? pct : 512 * GB_MEMBW_MIB;
}

int64_t gb_membw_fit_bytes(int64_t free_bytes, int arrays) {
  if (arrays < 1) arrays = 1;
  int64_t usable = free_bytes - gb_membw_reserve_bytes(free_bytes);
  if (usable < (int64_t)arrays * GB_MEMBW_MIN_BYTES) return 0;
  int64_t per = usable / arrays, p = GB_MEMBW_MIN_BYTES;
  while (p <= per / 2) p *= 2;
  return p;
}

int64_t gb_membw_default_max_bytes(gb_profile p) {
  return p == GB_PROFILE_FULL ? 16 * GB_MEMBW_GIB : 4 * GB_MEMBW_GIB;
}

size_t gb_membw_sweep(gb_profile p, int64_t max_bytes, int64_t free_bytes, int arrays, int64_t *out, size_t cap) {
  int64_t fit = gb_membw_fit_bytes(free_bytes, arrays);
  int64_t top = max_bytes < fit ? max_bytes : fit;
  size_t n = 0;
  for (int64_t b = GB_MEMBW_MIN_BYTES; b <= top && n < cap;) {
    out[n++] = b;
    b *= (p == GB_PROFILE_QUICK && b * 4 <= GB_MEMBW_GIB) ? 4 : 2;
  }
  return n;
}

const char *gb_membw_regime(int64_t working_set_bytes, int64_t l2_bytes) {
  if (working_set_bytes <= l2_bytes) return "l2";
  if (working_set_bytes >= 8 * l2_bytes) return "hbm";
  return "transition";
}

int gb_membw_cold_sets(int64_t working_set_bytes, int64_t l2_bytes) {
  if (working_set_bytes <= 0) return 1;
  int64_t need = 8 * l2_bytes;
  int64_t sets = (need + working_set_bytes - 1) / working_set_bytes;
  if (sets < 1) sets = 1;
  if (sets > GB_MEMBW_MAX_SETS) sets = GB_MEMBW_MAX_SETS;
  return (int)sets;
}

int gb_membw_ops_per_sample(int64_t bytes_moved, int sets) {
  const int64_t target = 512 * GB_MEMBW_MIB;
  if (sets < 1) sets = 1;
  int64_t ops = bytes_moved > 0 ? (target + bytes_moved - 1) / bytes_moved : 1;
  if (ops < sets) ops = sets;
  ops = (ops + sets - 1) / sets * sets;
  if (ops > GB_MEMBW_MAX_OPS) ops = GB_MEMBW_MAX_OPS / sets * sets;
  if (ops < 1) ops = 1;
  return (int)ops;
}

/* ---- variants ---- */

size_t gb_membw_variants(const gb_stream_kernel *k, gb_dtype t, gb_profile p, gb_membw_variant *out, size_t cap) {
  static const int widths_f64[] = {8, 16}, widths_f32[] = {4, 8, 16}, widths_quick[] = {16};
  static const int unrolls[] = {1, 2, 4};
  static const int blocks_quick[] = {256, 1024}, blocks_full[] = {128, 256, 512, 1024};
  bool full = p == GB_PROFILE_FULL;
  const int *widths = !full ? widths_quick : t == GB_DT_F32 ? widths_f32 : widths_f64;
  size_t nwidths = !full ? 1 : t == GB_DT_F32 ? 3 : 2;
  const int *blocks = full ? blocks_full : blocks_quick;
  size_t nblocks = full ? 4 : 2;
  size_t n = 0;
  for (size_t w = 0; w < nwidths; w++)
    for (int cs = 0; cs <= 1; cs++)
      for (int pf = 0; pf <= 1; pf++) {
        /* the hints exist at 16 bytes, for kernels that store / load */
        if (cs && (widths[w] != 16 || !k->writes_z)) continue;
        if (pf && (widths[w] != 16 || !k->reads_x)) continue;
        for (size_t u = 0; u < 3; u++)
          for (size_t b = 0; b < nblocks; b++)
            for (int pers = 1; pers >= 0; pers--) {
              if (!pers && k->reduction) continue;
              if (n == cap) return n;
              out[n++] = (gb_membw_variant){widths[w], unrolls[u], cs == 1, pf == 1, blocks[b], pers == 1};
            }
      }
  return n;
}

void gb_membw_kernel_name(const gb_stream_kernel *k, gb_dtype t, const gb_membw_variant *v, char *buf, size_t n) {
  snprintf(buf, n, "%s_%s_w%d_e%d%s%s", k->name, t == GB_DT_F32 ? "f32" : "f64", v->width_bytes, v->unroll,
           v->streaming ? "_cs" : "", v->prefetch ? "_pf" : "");
}

void gb_membw_variant_name(const gb_membw_variant *v, char *buf, size_t n) {
  snprintf(buf, n, "w%d_e%d%s%s_b%d_%s", v->width_bytes, v->unroll, v->streaming ? "_cs" : "",
           v->prefetch ? "_pf" : "", v->block, v->persistent ? "persistent" : "cover");
}

int64_t gb_membw_grid(const gb_membw_variant *v, int64_t n_elems, size_t elem_bytes, int sm_count,
                      int resident_blocks_per_sm) {
  int64_t per_vec = v->width_bytes / (int64_t)elem_bytes;
  if (per_vec < 1) per_vec = 1;
  int64_t nvec = (n_elems + per_vec - 1) / per_vec;
  int64_t per_block = (int64_t)v->block * v->unroll;
  int64_t cover = (nvec + per_block - 1) / per_block;
  if (cover < 1) cover = 1;
  if (cover > INT32_MAX) cover = INT32_MAX;
  if (!v->persistent) return cover;
  int64_t full = (int64_t)sm_count * (resident_blocks_per_sm > 0 ? resident_blocks_per_sm : 1);
  if (full < 1) full = 1;
  return cover < full ? cover : full;
}

/* ---- options ---- */

static gb_err opt_bool(const char *key, const char *val, bool *out) {
  if (strcmp(val, "1") == 0 || strcmp(val, "on") == 0 || strcmp(val, "true") == 0) {
    *out = true;
  } else if (strcmp(val, "0") == 0 || strcmp(val, "off") == 0 || strcmp(val, "false") == 0) {
    *out = false;
  } else {
    return gb_fail(GB_E_USAGE, "--opt %s=%s: expected 1 or 0", key, val);
  }
  return GB_OK;
}

static gb_err opt_size(const char *key, const char *val, int64_t *out) {
  int64_t v;
  if (!gb_parse_size(val, &v) || v < 16 || v % 16 != 0)
    return gb_fail(GB_E_USAGE, "--opt %s: \"%s\" is not a size of at least 16 bytes in multiples of 16 (e.g. 1M, 4G)",
                   key, val);
  *out = v;
  return GB_OK;
}

/* Splits val on ':' and calls one() for each item. */
static gb_err opt_list(const char *key, const char *val, gb_membw_opts *o,
                       gb_err (*one)(const char *key, const char *item, gb_membw_opts *o)) {
  char item[64];
  const char *p = val;
  for (;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= sizeof item) return gb_fail(GB_E_USAGE, "--opt %s=%s: empty or overlong item", key, val);
    memcpy(item, p, len);
    item[len] = '\0';
    GB_TRY(one(key, item, o));
    if (!end) return GB_OK;
    p = end + 1;
  }
}

static gb_err one_size(const char *key, const char *item, gb_membw_opts *o) {
  if (o->nsizes == GB_MEMBW_MAX_SIZES) return gb_fail(GB_E_USAGE, "--opt %s: more than %d sizes", key, GB_MEMBW_MAX_SIZES);
  return opt_size(key, item, &o->sizes[o->nsizes++]);
}

static gb_err one_kernel(const char *key, const char *item, gb_membw_opts *o) {
  const gb_stream_kernel *k = gb_stream_find(item);
  if (!k) return gb_fail(GB_E_USAGE, "--opt %s: unknown kernel \"%s\" (known: copy mul add triad dot read write)", key, item);
  o->kernel_mask |= 1u << (unsigned)(k - gb_stream_kernels);
  return GB_OK;
}

static gb_err one_dtype(const char *key, const char *item, gb_membw_opts *o) {
  if (strcmp(item, "fp64") == 0) o->dtype_mask |= 1u;
  else if (strcmp(item, "fp32") == 0) o->dtype_mask |= 2u;
  else return gb_fail(GB_E_USAGE, "--opt %s: unknown type \"%s\" (known: fp64 fp32)", key, item);
  return GB_OK;
}

/* Applies one key=value whose key lost its prefix already. */
static gb_err opt_apply(const char *prefix, const char *key, const char *val, gb_membw_opts *o) {
  bool membw = strcmp(prefix, "membw.") == 0;
  char full[96];
  snprintf(full, sizeof full, "%s%s", prefix, key);
  if (strcmp(key, "sizes") == 0) {
    o->nsizes = 0;
    return opt_list(full, val, o, one_size);
  }
  if (strcmp(key, "max") == 0) return opt_size(full, val, &o->max_bytes);
  if (strcmp(key, "corrupt") == 0) return opt_bool(full, val, &o->corrupt);
  if (membw && strcmp(key, "kernels") == 0) return opt_list(full, val, o, one_kernel);
  if (membw && strcmp(key, "dtypes") == 0) return opt_list(full, val, o, one_dtype);
  if (membw && strcmp(key, "cold") == 0) {
    bool b = false;
    gb_err e = opt_bool(full, val, &b);
    if (e == GB_OK) o->cold = b ? 1 : 0;
    return e;
  }
  return gb_fail(GB_E_USAGE, "--opt %s: unknown key (known: %s)", full,
                 membw ? "sizes, max, kernels, dtypes, cold, corrupt" : "sizes, max, corrupt");
}

typedef struct membw_opt_ctx {
  const char *prefix;
  gb_membw_opts *out;
} membw_opt_ctx;

static gb_err membw_opt(void *ctx, const char *key, const char *val, bool prefixed) {
  (void)prefixed;
  membw_opt_ctx *c = ctx;
  return opt_apply(c->prefix, key, val, c->out);
}

gb_err gb_membw_opts_parse(const char *bench_opts, const char *prefix, gb_membw_opts *out) {
  memset(out, 0, sizeof *out);
  out->cold = -1;
  membw_opt_ctx c = {prefix, out};
  return gb_settings_each(bench_opts, prefix, false, membw_opt, &c);
}

void gb_membw_settings(const char *bench_opts, const char *prefix, char *buf, size_t n) {
  gb_membw_opts o;
  gb_settings s = gb_settings_start(buf, n);
  if (gb_membw_opts_parse(bench_opts, prefix, &o) != GB_OK) {
    gb_errclear();
    return;
  }
  if (o.corrupt) gb_settings_add(&s, "%scorrupt=on", prefix);
}

/* ---- checks ---- */

/* splitmix64: a small counter-based generator for sample positions. */
static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

size_t gb_membw_sample_indices(int64_t n, size_t k, uint64_t seed, int64_t *out) {
  if (n <= 0 || k == 0) return 0;
  if ((int64_t)k > n) k = (size_t)n;
  size_t m = 0;
  out[m++] = 0;
  if (m < k) out[m++] = n - 1;
  for (uint64_t i = 0; m < k; i++) out[m++] = (int64_t)(splitmix64(seed + i) % (uint64_t)n);
  return m;
}

double gb_membw_expected(const gb_stream_kernel *k, gb_dtype t, double s, double x, double y) {
  if (t == GB_DT_F32) {
    volatile float xf = (float)x, yf = (float)y, sf = (float)s, prod;
    switch (k->op) {
    case GB_STREAM_COPY: return xf;
    case GB_STREAM_MUL: return (float)(sf * xf);
    case GB_STREAM_ADD: return (float)(xf + yf);
    case GB_STREAM_TRIAD: prod = sf * yf; return (float)(xf + prod);
    case GB_STREAM_WRITE: return sf;
    default: return NAN;
    }
  }
  volatile double prod;
  switch (k->op) {
  case GB_STREAM_COPY: return x;
  case GB_STREAM_MUL: return s * x;
  case GB_STREAM_ADD: return x + y;
  case GB_STREAM_TRIAD: prod = s * y; return x + prod;
  case GB_STREAM_WRITE: return s;
  default: return NAN;
  }
}

/* Exact equality that also fails NaN (the poison). */
static bool same(double a, double b) { return !isnan(a) && !isnan(b) && a == b; }

bool gb_membw_check_samples(const gb_stream_kernel *k, gb_dtype t, double s, const gb_membw_sample *v, size_t n,
                            char *msg, size_t msgn) {
  size_t wrong = 0;
  char first[320] = "";
  for (size_t i = 0; i < n; i++) {
    const gb_membw_sample *e = &v[i];
    char what[320] = "";
    if (k->reads_x && !same(e->x_got, e->x)) {
      gb_snprintf_c(what, sizeof what, "element %lld: input x holds %.17g, expected %.17g", (long long)e->index,
                    e->x_got, e->x);
    } else if (k->reads_y && !same(e->y_got, e->y)) {
      gb_snprintf_c(what, sizeof what, "element %lld: input y holds %.17g, expected %.17g", (long long)e->index,
                    e->y_got, e->y);
    } else if (k->writes_z) {
      double want = gb_membw_expected(k, t, s, e->x, e->y);
      if (!same(e->z_got, want))
        gb_snprintf_c(what, sizeof what, "element %lld: wrote %.17g, expected %.17g (%s with x=%.17g y=%.17g s=%.17g)",
                      (long long)e->index, e->z_got, want, k->formula, e->x, e->y, s);
    }
    if (what[0]) {
      if (wrong == 0) memcpy(first, what, sizeof first);
      wrong++;
    }
  }
  if (wrong == 0) return true;
  snprintf(msg, msgn, "%s %s check failed: %s (%zu of %zu sampled elements wrong)", k->name, t == GB_DT_F32 ? "fp32" : "fp64",
           first, wrong, n);
  return false;
}

double gb_membw_expected_sum(const gb_stream_kernel *k, gb_dtype t, const double *x, const double *y,
                             int64_t period, int64_t n) {
  if (period <= 0 || n <= 0) return 0.0;
  if (period > n) period = n;
  long double whole = 0.0L, part = 0.0L;
  int64_t rem = n % period;
  for (int64_t i = 0; i < period; i++) {
    double term;
    if (k->op == GB_STREAM_DOT) {
      /* fp32 inputs: the fp64 product is exact; fp64 inputs: rounded once */
      volatile double prod = t == GB_DT_F32 ? (double)(float)x[i] * (double)(float)y[i] : x[i] * y[i];
      term = prod;
    } else {
      term = t == GB_DT_F32 ? (double)(float)x[i] : x[i];
    }
    whole += term;
    if (i < rem) part += term;
  }
  return (double)(whole * (long double)(n / period) + part);
}

double gb_membw_sum_tolerance(void) { return 1e-10; }

bool gb_membw_check_sum(const gb_stream_kernel *k, double got, double expected, double tol, char *msg,
                        size_t msgn) {
  double err = fabs(got - expected) / (expected != 0.0 ? fabs(expected) : 1.0);
  if (isfinite(got) && err <= tol) return true;
  gb_snprintf_c(msg, msgn, "%s check failed: sum %.17g, expected %.17g (relative error %.3g > tolerance %.3g)", k->name,
                got, expected, err, tol);
  return false;
}

size_t gb_membw_fastest(const double *sec, size_t n, size_t k, size_t *out) {
  size_t got = 0;
  while (got < k) {
    size_t next = n;
    for (size_t i = 0; i < n; i++) {
      if (!isfinite(sec[i])) continue;
      bool taken = false;
      for (size_t j = 0; j < got; j++) taken = taken || out[j] == i;
      if (!taken && (next == n || sec[i] < sec[next])) next = i;
    }
    if (next == n) break;
    out[got++] = next;
  }
  return got;
}
