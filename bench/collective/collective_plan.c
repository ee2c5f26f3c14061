/* collective_plan: the collective benchmark's arithmetic and planning
 * (nccl-tests' byte and bus-bandwidth accounting, size sweep, case plan,
 * `--opt` keys), its known inputs and expected results (the host twin of
 * collective_check.cu) and its end-of-run table. No CUDA here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_collective.h"
#include "gb_desc.h"
#include "gb_num.h"
#include "gb_settings.h"

static const char *const dtype_names[GB_COLL_DTYPE_COUNT] = {"fp32", "bf16", "fp16"};
static const int dtype_sizes[GB_COLL_DTYPE_COUNT] = {4, 2, 2};
static const int dtype_mant_bits[GB_COLL_DTYPE_COUNT] = {23, 7, 10};

const char *const gb_coll_metrics[GB_COLL_NMETRICS] = {GB_METRIC_NAME(collective, time_us),
                                                       GB_METRIC_NAME(collective, algbw_gbps),
                                                       GB_METRIC_NAME(collective, busbw_gbps)};

const gb_coll_desc *gb_coll_desc_of(gb_coll c) { return c >= 0 && c < gb_coll_count() ? &gb_coll_table[c] : NULL; }

const char *gb_coll_name(gb_coll c) {
  const gb_coll_desc *d = gb_coll_desc_of(c);
  return d ? d->name : "?";
}

bool gb_coll_parse(const char *s, gb_coll *out) {
  for (int i = 0; i < gb_coll_count(); i++)
    if (strcmp(s, gb_coll_table[i].name) == 0) {
      *out = i;
      return true;
    }
  return false;
}

bool gb_coll_of_case(const char *case_name, gb_coll *out) {
  for (int i = 0; i < gb_coll_count(); i++) {
    size_t len = strlen(gb_coll_table[i].name);
    if (strncmp(case_name, gb_coll_table[i].name, len) == 0 &&
        (strncmp(case_name + len, "_inplace", 8) == 0 || strncmp(case_name + len, "_outofplace", 11) == 0)) {
      *out = i;
      return true;
    }
  }
  return false;
}

const char *gb_coll_dtype_name(gb_coll_dtype t) { return (unsigned)t < GB_COLL_DTYPE_COUNT ? dtype_names[t] : "?"; }
int gb_coll_dtype_size(gb_coll_dtype t) { return (unsigned)t < GB_COLL_DTYPE_COUNT ? dtype_sizes[t] : 0; }
int gb_coll_dtype_mant_bits(gb_coll_dtype t) { return (unsigned)t < GB_COLL_DTYPE_COUNT ? dtype_mant_bits[t] : 0; }

bool gb_coll_dtype_parse(const char *s, gb_coll_dtype *out) {
  for (int i = 0; i < GB_COLL_DTYPE_COUNT; i++)
    if (strcmp(s, dtype_names[i]) == 0) {
      *out = (gb_coll_dtype)i;
      return true;
    }
  return false;
}

/* ---- accounting (nccl-tests src/<coll>.cu *GetBw and *GetCollByteCount) ---- */

double gb_coll_busbw_factor(gb_coll c, int n) {
  const gb_coll_desc *d = gb_coll_desc_of(c);
  if (!d || n < 1) return NAN;
  return d->bus_ring * (double)(n - 1) / n + d->bus_flat;
}

bool gb_coll_busbw_written(gb_coll c, int n, bool trivial) {
  double f = gb_coll_busbw_factor(c, n);
  return !isnan(f) && (trivial || f != 0);
}

int64_t gb_coll_count_for_size(gb_coll c, int64_t size_bytes, int typesize, int n) {
  const gb_coll_desc *d = gb_coll_desc_of(c);
  if (!d || size_bytes < 1 || typesize < 1 || n < 1) return 0;
  int64_t elems = size_bytes / typesize;
  if (d->split) elems /= n;
  if (d->align_bytes > typesize) elems -= elems % (d->align_bytes / typesize);
  return elems;
}

int64_t gb_coll_bytes(gb_coll c, int64_t count, int typesize, int n) {
  const gb_coll_desc *d = gb_coll_desc_of(c);
  return count * typesize * (d && d->split ? n : 1);
}

void gb_coll_buffer_elems(gb_coll c, int64_t count, int n, int64_t *send_elems, int64_t *recv_elems) {
  const gb_coll_desc *d = gb_coll_desc_of(c);
  *send_elems = d && d->send_n ? count * n : count;
  *recv_elems = d && d->recv_n ? count * n : count;
}

double gb_coll_algbw_gbps(int64_t bytes, double time_s) { return (double)bytes / time_s / 1e9; }

double gb_coll_busbw_gbps(gb_coll c, int n, int64_t bytes, double time_s) {
  return gb_coll_algbw_gbps(bytes, time_s) * gb_coll_busbw_factor(c, n);
}

void gb_coll_case_name(gb_coll c, bool inplace, bool multiprocess, char *buf, size_t n) {
  snprintf(buf, n, "%s_%s%s", gb_coll_name(c), inplace ? "inplace" : "outofplace", multiprocess ? "_mp" : "");
}

/* ---- sweep and plan ---- */

size_t gb_coll_size_sweep(int64_t min_bytes, int64_t max_bytes, int factor, int64_t *out, size_t cap) {
  if (min_bytes < 1 || max_bytes < min_bytes || factor < 2) return 0;
  size_t k = 0;
  int64_t s = min_bytes;
  for (;;) {
    if (k < cap) out[k] = s;
    k++;
    if (s > max_bytes / factor) break; /* the next step would pass max (or overflow) */
    s *= factor;
  }
  if (s != max_bytes) {
    if (k < cap) out[k] = max_bytes;
    k++;
  }
  return k;
}

int gb_coll_gpu_counts(int ndev, int *out, int cap) {
  int k = 0;
  for (int n = 1; n <= ndev && k < cap; n *= 2) out[k++] = n;
  if (ndev >= 1 && k > 0 && out[k - 1] != ndev && k < cap) out[k++] = ndev;
  return k;
}

gb_coll_opts gb_coll_opts_default(void) {
  gb_coll_opts o;
  memset(&o, 0, sizeof o);
  o.mp = 0;
  o.min_bytes = 8;
  o.max_bytes = (int64_t)1 << 30;
  o.factor = 2;
  o.ops = 20;
  o.colls = (1u << gb_coll_count()) - 1;
  o.dtypes = (1u << GB_COLL_DTYPE_COUNT) - 1;
  o.placements = 3;
  o.timeout_s = 300;
  return o;
}

/* Parses a ':'- or '+'-separated list of names into a bit mask. */
static gb_err parse_list(const char *key, const char *val, bool (*one)(const char *, int *), const char *accepted,
                         unsigned *mask) {
  char item[64];
  unsigned m = 0;
  const char *p = val;
  for (;;) {
    size_t len = strcspn(p, ":+");
    if (len == 0 || len >= sizeof item)
      return gb_fail(GB_E_USAGE, "--opt %s=%s: expected names separated by ':' from %s", key, val, accepted);
    memcpy(item, p, len);
    item[len] = '\0';
    int bit;
    if (!one(item, &bit)) return gb_fail(GB_E_USAGE, "--opt %s: unknown name \"%s\" (accepted: %s)", key, item, accepted);
    m |= 1u << bit;
    if (p[len] == '\0') break;
    p += len + 1;
  }
  *mask = m;
  return GB_OK;
}

static bool one_coll(const char *s, int *bit) { return gb_coll_parse(s, bit); }

/* "all_reduce, reduce_scatter, ...": the table's names. */
static const char *coll_names_text(char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < gb_coll_count() && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", gb_coll_table[i].name);
  return buf;
}

static bool one_dtype(const char *s, int *bit) {
  gb_coll_dtype t;
  if (!gb_coll_dtype_parse(s, &t)) return false;
  *bit = (int)t;
  return true;
}

static bool one_place(const char *s, int *bit) {
  if (strcmp(s, "outofplace") == 0) *bit = 0;
  else if (strcmp(s, "inplace") == 0) *bit = 1;
  else return false;
  return true;
}

static gb_err parse_int(const char *key, const char *val, int64_t lo, int64_t hi, int64_t *out) {
  int64_t v;
  if (!gb_parse_i64(val, &v) || v < lo || v > hi)
    return gb_fail(GB_E_USAGE, "--opt %s=%s: expected an integer from %lld to %lld", key, val, (long long)lo,
                   (long long)hi);
  *out = v;
  return GB_OK;
}

static gb_err apply_opt(gb_coll_opts *o, const char *key, const char *val, bool prefixed) {
  int64_t v;
  if (strcmp(key, "mp") == 0) {
    if (strcmp(val, "launcher") == 0) {
      o->mp = GB_COLL_MP_LAUNCHER;
      return GB_OK;
    }
    if (!gb_parse_i64(val, &v) || v < 0 || v > 1024)
      return gb_fail(GB_E_USAGE, "--opt mp=%s: expected 0 (one process), N >= 1 (start N processes, one per GPU) "
                                 "or \"launcher\" (srun/mpirun started this rank)", val);
    o->mp = (int)v;
  } else if (strcmp(key, "min") == 0 || strcmp(key, "max") == 0) {
    if (!gb_parse_size(val, &v) || v < 1)
      return gb_fail(GB_E_USAGE, "--opt %s=%s: expected a size in bytes such as 8, 64K, 1M, 1G", key, val);
    if (key[1] == 'i') o->min_bytes = v;
    else o->max_bytes = v;
  } else if (strcmp(key, "factor") == 0) {
    GB_TRY(parse_int(key, val, 2, 1024, &v));
    o->factor = (int)v;
  } else if (strcmp(key, "ops") == 0) {
    GB_TRY(parse_int(key, val, 1, 100000, &v));
    o->ops = (int)v;
  } else if (strcmp(key, "colls") == 0) {
    char names[256];
    GB_TRY(parse_list(key, val, one_coll, coll_names_text(names, sizeof names), &o->colls));
  } else if (strcmp(key, "dtypes") == 0) {
    GB_TRY(parse_list(key, val, one_dtype, "fp32, bf16, fp16", &o->dtypes));
  } else if (strcmp(key, "place") == 0) {
    GB_TRY(parse_list(key, val, one_place, "outofplace, inplace", &o->placements));
  } else if (strcmp(key, "id_file") == 0) {
    if (!*val || strlen(val) >= sizeof o->id_file)
      return gb_fail(GB_E_USAGE, "--opt id_file: expected a path of 1 to %zu characters", sizeof o->id_file - 1);
    strcpy(o->id_file, val);
  } else if (strcmp(key, "trivial") == 0) {
    GB_TRY(parse_int(key, val, 0, 1, &v));
    o->trivial = v == 1;
  } else if (strcmp(key, "timeout") == 0) {
    double t;
    if (!gb_parse_double(val, &t) || t <= 0 || t > 86400)
      return gb_fail(GB_E_USAGE, "--opt timeout=%s: expected seconds, more than 0 and at most 86400", val);
    o->timeout_s = t;
  } else if (prefixed) {
    return gb_fail(GB_E_USAGE, "--opt collective.%s: unknown key (known: mp, min, max, factor, ops, colls, dtypes, "
                               "place, id_file, timeout, trivial)", key);
  }
  return GB_OK;
}

static gb_err coll_opt(void *ctx, const char *key, const char *val, bool prefixed) {
  return apply_opt(ctx, key, val, prefixed);
}

gb_err gb_coll_opts_parse(const char *s, gb_coll_opts *o) {
  *o = gb_coll_opts_default();
  GB_TRY(gb_settings_each(s, "collective.", true, coll_opt, o));
  if (o->max_bytes < o->min_bytes)
    return gb_fail(GB_E_USAGE, "--opt max (%lld bytes) is below min (%lld bytes)", (long long)o->max_bytes,
                   (long long)o->min_bytes);
  return GB_OK;
}

/* Quick-profile sizes outside all_reduce fp32: 64 KiB, 16 MiB and the largest. */
static bool quick_size(int64_t size, int64_t largest) {
  return size == ((int64_t)64 << 10) || size == ((int64_t)16 << 20) || size == largest;
}

/* Appends the points of one collective, dtype and GPU count (the loop of
 * gb_coll_plan_points); k counts them past cap. */
static size_t plan_sizes(const gb_coll_opts *o, bool full, gb_coll c, int t, int nranks, const int64_t *sizes,
                         size_t nsizes, gb_coll_point *out, size_t cap, size_t k) {
  const gb_coll_desc *d = &gb_coll_table[c];
  bool sweep_all = full || (d->quick_sweep && t == GB_COLL_FP32);
  bool quick_extra = d->quick_sweep || t == GB_COLL_FP32;
  if (!sweep_all && !quick_extra) return k;
  /* the quick profile's extra points use one placement: out-of-place when selected */
  int quick_place = (o->placements & 1u) ? 0 : 1;
  for (size_t s = 0; s < nsizes; s++) {
    if (!sweep_all && !quick_size(sizes[s], sizes[nsizes - 1])) continue;
    int64_t count = gb_coll_count_for_size(c, sizes[s], dtype_sizes[t], nranks);
    if (count == 0) continue;
    for (int pl = 0; pl < 2; pl++) {
      if (!(o->placements & (1u << pl)) || (pl == 1 && !d->inplace)) continue;
      if (!sweep_all && pl != quick_place) continue;
      /* one rank: in place moves no data, a broadcast is a local copy (gb_desc:
       * meaningless figures); measured only with trivial=1 */
      if (nranks == 1 && !o->trivial && (pl == 1 || d->one_rank_trivial)) continue;
      if (k < cap) {
        gb_coll_point *p = &out[k];
        p->coll = c;
        p->dtype = (gb_coll_dtype)t;
        p->inplace = pl == 1;
        p->nranks = nranks;
        p->size_bytes = sizes[s];
        p->count = count;
        p->bytes = gb_coll_bytes(c, count, dtype_sizes[t], nranks);
      }
      k++;
    }
  }
  return k;
}

size_t gb_coll_plan_points(const gb_coll_opts *o, bool full, const int *counts, int ncounts, gb_coll_point *out,
                           size_t cap) {
  int64_t sizes[GB_COLL_MAX_SIZES];
  size_t nsizes = gb_coll_size_sweep(o->min_bytes, o->max_bytes, o->factor, sizes, GB_COLL_MAX_SIZES);
  if (nsizes > GB_COLL_MAX_SIZES) nsizes = GB_COLL_MAX_SIZES;
  size_t k = 0;
  for (gb_coll c = 0; c < gb_coll_count(); c++) {
    if (!(o->colls & (1u << c))) continue;
    for (int t = 0; t < GB_COLL_DTYPE_COUNT; t++) {
      if (!(o->dtypes & (1u << t))) continue;
      for (int g = 0; g < ncounts; g++) k = plan_sizes(o, full, c, t, counts[g], sizes, nsizes, out, cap, k);
    }
  }
  return k;
}

/* ---- known inputs and expected results (same hash as collective_check.cu) ---- */

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

int gb_coll_input_value(int rank, uint64_t idx, uint32_t seed) {
  uint64_t x = mix64(idx * 0x9e3779b97f4a7c15ULL + (((uint64_t)(uint32_t)rank << 32) | seed));
  int v = (int)(x & 7); /* 0..7 -> -4..-1, 1..4 */
  return v < 4 ? v - 4 : v - 3;
}

int gb_coll_expected(gb_coll c, int rank, int n, int64_t count, uint64_t k, uint32_t seed) {
  const gb_coll_desc *d = gb_coll_desc_of(c);
  if (!d || n < 1 || count < 1) return 0;
  const gb_coll_rule *r = &d->check;
  uint64_t cnt = (uint64_t)count;
  uint64_t idx = (r->idx_block ? (uint64_t)rank * cnt : 0) + (r->idx_mod ? k % cnt : k);
  if (r->reduce) {
    int sum = 0;
    for (int q = 0; q < n; q++) sum += gb_coll_input_value(q, idx, seed);
    return sum;
  }
  int64_t src = (r->src_block ? (int64_t)(k / cnt) : 0) + (r->src_self ? rank : 0) + r->src_shift;
  return gb_coll_input_value((int)(((src % n) + n) % n), idx, seed);
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t gb_coll_f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);                                          /* round to nearest even */
  return (uint16_t)(u >> 16);
}

float gb_coll_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t gb_coll_f32_to_f16(float f) {
  uint32_t u = f32_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  int exp = (int)((u >> 23) & 0xffu);
  uint32_t mant = u & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) { /* half subnormal: value = m * 2^-24 with m = (1.mant) >> (14 - e) */
    if (e < -10) return (uint16_t)sign;
    uint32_t full = mant | 0x800000u;
    int shift = 14 - e;
    uint32_t half = full >> shift, rem = full & ((1u << shift) - 1u), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++; /* a carry rounds into the exponent */
  return (uint16_t)(sign | half);
}

float gb_coll_f16_to_f32(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
  int exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = ldexpf((float)mant, -24);
    return sign ? -v : v;
  }
  if (exp == 31) return bits_f32(sign | 0x7f800000u | (mant << 13));
  return bits_f32(sign | ((uint32_t)(exp - 15 + 127) << 23) | (mant << 13));
}

void gb_coll_fill_host(void *buf, int64_t nelems, gb_coll_dtype t, int rank, uint64_t first_idx, uint32_t seed) {
  for (int64_t i = 0; i < nelems; i++) {
    float v = (float)gb_coll_input_value(rank, first_idx + (uint64_t)i, seed);
    if (t == GB_COLL_FP32) ((float *)buf)[i] = v;
    else if (t == GB_COLL_BF16) ((uint16_t *)buf)[i] = gb_coll_f32_to_bf16(v);
    else ((uint16_t *)buf)[i] = gb_coll_f32_to_f16(v);
  }
}

uint64_t gb_coll_count_wrong_host(gb_coll c, gb_coll_dtype t, int rank, int n, int64_t count, uint32_t seed,
                                  const void *out, int64_t nelems) {
  uint64_t wrong = 0;
  for (int64_t k = 0; k < nelems; k++) {
    float got;
    if (t == GB_COLL_FP32) got = ((const float *)out)[k];
    else if (t == GB_COLL_BF16) got = gb_coll_bf16_to_f32(((const uint16_t *)out)[k]);
    else got = gb_coll_f16_to_f32(((const uint16_t *)out)[k]);
    if (!(got == (float)gb_coll_expected(c, rank, n, count, (uint64_t)k, seed))) wrong++;
  }
  return wrong;
}

gb_status gb_coll_status_of(uint64_t wrong) { return wrong == 0 ? GB_STATUS_OK : GB_STATUS_INVALID; }

/* ---- end-of-run table ---- */

static bool same_point(const gb_row *a, const gb_row *b) {
  return a->gpu_count == b->gpu_count && a->bytes == b->bytes && strcmp(a->case_name, b->case_name) == 0 &&
         strcmp(a->dtype, b->dtype) == 0 && a->rep == b->rep;
}

static bool same_group(const gb_row *a, const gb_row *b) {
  return a->gpu_count == b->gpu_count && strcmp(a->case_name, b->case_name) == 0 && strcmp(a->dtype, b->dtype) == 0;
}

/* The table's rows are the algbw ones: busbw rows are not written where
 * busbw is 0 by definition (one GPU, factor (n-1)/n) unless trivial=1
 * (gb_coll_busbw_written). */
static bool is_algbw(const gb_row *r) {
  return strcmp(r->benchmark, "collective") == 0 && strcmp(r->metric, GB_METRIC_NAME(collective, algbw_gbps)) == 0 &&
         r->bytes != GB_NA;
}

void gb_coll_summary_print(const gb_row *rows, size_t n, FILE *fp) {
  bool header = false, one_gpu = false;
  for (size_t i = 0; i < n; i++) {
    if (!is_algbw(&rows[i])) continue;
    bool seen = false; /* print each group at its first row */
    for (size_t j = 0; j < i && !seen; j++) seen = is_algbw(&rows[j]) && same_group(&rows[j], &rows[i]);
    if (seen) continue;
    int64_t largest = 0;
    for (size_t j = i; j < n; j++)
      if (is_algbw(&rows[j]) && same_group(&rows[j], &rows[i]) && rows[j].bytes > largest) largest = rows[j].bytes;
    const int64_t targets[5] = {(int64_t)64 << 10, (int64_t)1 << 20, (int64_t)16 << 20, (int64_t)256 << 20, largest};
    const gb_row *picked[5] = {NULL, NULL, NULL, NULL, NULL};
    for (int t = 0; t < 5; t++) {
      double best = INFINITY;
      for (size_t j = i; j < n; j++) {
        if (!is_algbw(&rows[j]) || !same_group(&rows[j], &rows[i]) || rows[j].bytes < 1) continue;
        double d = fabs(log((double)rows[j].bytes / (double)targets[t]));
        if (d < best - 1e-12) {
          best = d;
          picked[t] = &rows[j];
        }
      }
      for (int u = 0; u < t; u++)
        if (picked[u] == picked[t]) picked[t] = NULL; /* print each size once */
      if (t < 4 && picked[t] && fabs(log((double)picked[t]->bytes / (double)targets[t])) > log(2.0))
        picked[t] = NULL; /* no size within a factor of 2 of this target */
    }
    for (int t = 0; t < 5; t++) {
      const gb_row *b = picked[t];
      if (!b) continue;
      double busbw = NAN;
      for (size_t j = 0; j < n; j++)
        if (strcmp(rows[j].benchmark, "collective") == 0 &&
            strcmp(rows[j].metric, GB_METRIC_NAME(collective, busbw_gbps)) == 0 && same_point(&rows[j], b))
          busbw = rows[j].value;
      if (!header) {
        fprintf(fp, "%-26s %-5s %4s %10s %12s %12s  %s\n", "collective", "dtype", "GPUs", "size", "algbw GB/s",
                "busbw GB/s", "status");
        header = true;
      }
      char size[32], a[32], bb[32];
      gb_fmt_size(size, sizeof size, b->bytes);
      gb_snprintf_c(a, sizeof a, "%.2f", b->value);
      gb_snprintf_c(bb, sizeof bb, "%.2f", busbw);
      gb_coll c;
      bool zero_by_def = b->gpu_count == 1 && gb_coll_of_case(b->case_name, &c) && gb_coll_busbw_factor(c, 1) == 0;
      if (zero_by_def) one_gpu = true;
      fprintf(fp, "%-26s %-5s %4d %10s %12s %12s  %s%s\n", b->case_name, b->dtype, b->gpu_count, size,
              isnan(b->value) ? "-" : a, isnan(busbw) ? "-" : bb, gb_status_name(b->status), zero_by_def ? " *" : "");
    }
  }
  if (one_gpu)
    fprintf(fp, "* busbw is 0 on one GPU by definition (factor 2(n-1)/n or (n-1)/n), and not written there; algbw is "
                "the measure.\n");
}
