/* gb_desc: the benchmark description table (gb_desc.h). */
#include "gb_desc.h"
#include "gb_stream.h"

#include <string.h>

#define MIB ((int64_t)1 << 20)
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- classes ---- */

const char *gb_fclass_name(gb_fclass c) {
  static const char *const names[GB_FCLASS_COUNT] = {"headline", "latency", "derived", "meaningless"};
  return (unsigned)c < GB_FCLASS_COUNT ? names[c] : "?";
}

static bool is(const char *s, const char *want) { return s && strcmp(s, want) == 0; }

static bool ends_with(const char *s, const char *suffix) {
  size_t n = s ? strlen(s) : 0, m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* GEMM: m, n and k of 4096 and more are compute-bound; smaller products
 * (decode shapes, 1024^3) last microseconds and move with launch overheads. */
static gb_fclass classify_gemm(const gb_row *r) {
  if (is(r->metric, "speedup") || is(r->metric, "speedup_sustained")) return GB_FCLASS_DERIVED;
  bool large = r->m != GB_NA && r->n != GB_NA && r->k != GB_NA && r->m >= 4096 && r->n >= 4096 && r->k >= 4096;
  return large ? GB_FCLASS_HEADLINE : GB_FCLASS_LATENCY;
}

static gb_fclass classify_membw(const gb_row *r) {
  return gb_desc_is_hbm(r, r->l2_bytes) ? GB_FCLASS_HEADLINE : GB_FCLASS_LATENCY;
}

/* Copies (gb_registry.def says the same): a copy is a headline figure only
 * at its bandwidth-bound size, GB_BW_BOUND_MIN_BYTES and more. Below it a
 * pinned host copy lasts a fraction of a millisecond and a slow spell of
 * the host moves it (the H200's h2d 16 MiB: 54.8 then 45.6 GB/s between
 * processes, d2h 16 MiB -4.4% in an A/A pair), and a device copy is timed
 * at the per-operation floor: latency figures. Pageable copies go through a
 * staging buffer and the host's page cache: latency at every size. A
 * device-to-device copy whose source and destination fit in L2 together
 * (l2_bytes recorded) is an L2-resident copy, latency class like an
 * L2-resident membw array (the H200's d2d 16 MiB: 1385 against 2037 GB/s at
 * 256 MiB, moving by up to 25% between runs). */
static gb_fclass classify_copy(const gb_row *r) {
  if (r->case_name && strstr(r->case_name, "pageable")) return GB_FCLASS_LATENCY;
  if (r->bytes == GB_NA || r->bytes < GB_BW_BOUND_MIN_BYTES) return GB_FCLASS_LATENCY;
  if (is(r->case_name, "d2d") && r->l2_bytes != GB_NA && r->l2_bytes > 0 && r->bytes <= r->l2_bytes / 2)
    return GB_FCLASS_LATENCY;
  return GB_FCLASS_HEADLINE;
}

/* Collectives, from the GPU count, the size and the regime. On one GPU a
 * collective moves no data between GPUs: nccl-tests' busbw is 0 there by
 * definition, an in-place one moves nothing and a broadcast is a local copy
 * (meaningless); an out-of-place one is a local copy of the GPU's memory,
 * which membw and copy measure better, timed at the per-operation floor up
 * to L2-resident sizes (the H200: 16 MiB in 6.6 us, 8 B in 7-8 us, moving by
 * up to 16% between runs, an MDC of 17-286%): information (latency class) at
 * every size. From 2 GPUs it moves data over the links: a headline figure at
 * its bandwidth-bound size (GB_BW_BOUND_MIN_BYTES and more), a latency
 * figure below it. */
static gb_fclass classify_collective(const gb_row *r) {
  if (r->gpu_count <= 1 &&
      (ends_with(r->case_name, "_inplace") || is(r->metric, "busbw_gbps") || strncmp(r->case_name, "broadcast", 9) == 0))
    return GB_FCLASS_MEANINGLESS;
  if (r->gpu_count <= 1) return GB_FCLASS_LATENCY;
  if (r->bytes == GB_NA || r->bytes < GB_BW_BOUND_MIN_BYTES) return GB_FCLASS_LATENCY;
  return GB_FCLASS_HEADLINE;
}

/* Decode floors: a launch's time moves with the host, the driver and the
 * clocks (tens of percent between machines of one type), and a GEMV or an
 * attention read of less than the HBM size (1 GiB and 8 L2 sizes,
 * gb_hbm_min_bytes) lasts microseconds: latency class, gated only on
 * request. A KV-cache read of the HBM size and more is a steady bandwidth
 * figure: headline class. */
static gb_fclass classify_decode(const gb_row *r) {
  if (is(r->case_name, "kv_read") && r->bytes != GB_NA && r->bytes >= gb_hbm_min_bytes(r->l2_bytes))
    return GB_FCLASS_HEADLINE;
  return GB_FCLASS_LATENCY;
}

static gb_fclass classify_headline(const gb_row *r) {
  (void)r;
  return GB_FCLASS_HEADLINE;
}

/* ---- the table ---- */

/* One entry per benchmark of the registry (gb_registry.def), which holds the
 * whole description; a metric list is a static compound literal. */
/* the window, the table's last field, is optional: NULL unless a metric names one */
#define GB_METRIC_FIELDS(name, unit, dir, quantity, base, scale, help, window, ...) \
  {name, unit, dir, quantity, base, scale, help, window}
#define GB_METRIC(id, ...) GB_METRIC_FIELDS(#id, __VA_ARGS__, NULL, NULL)
#define GB_METRICS(...) \
  (const gb_metric_desc[]){__VA_ARGS__}, sizeof((const gb_metric_desc[]){__VA_ARGS__}) / sizeof(gb_metric_desc)
#define GB_BENCHMARK(name, title, metrics, headline_metric, rule, classify, section) \
  {#name, title, metrics, #headline_metric, rule, classify, section},
const gb_bench_desc gb_bench_descs[] = {
#include "gb_registry.def"
};
#undef GB_BENCHMARK
#undef GB_METRICS
const size_t gb_nbench_descs = N(gb_bench_descs);

const gb_bench_desc *gb_desc_find(const char *benchmark) {
  for (size_t i = 0; benchmark && i < gb_nbench_descs; i++)
    if (strcmp(gb_bench_descs[i].name, benchmark) == 0) return &gb_bench_descs[i];
  return NULL;
}

static const gb_metric_desc *metric_of(const gb_bench_desc *b, const char *metric) {
  for (size_t i = 0; b && metric && i < b->nmetrics; i++)
    if (strcmp(b->metrics[i].name, metric) == 0) return &b->metrics[i];
  return NULL;
}

const gb_metric_desc *gb_desc_metric_at(const char *benchmark, size_t i) {
  const gb_bench_desc *b = gb_desc_find(benchmark);
  return b && i < b->nmetrics ? &b->metrics[i] : NULL;
}

gb_err gb_desc_check_row(const gb_row *r) {
  const gb_bench_desc *b = gb_desc_find(r->benchmark);
  if (!b) return GB_OK;
  const gb_metric_desc *m = metric_of(b, r->metric);
  if (!m)
    return gb_fail(GB_E_INTERNAL, "%s emits metric '%s', which core/gb_registry.def lacks", b->name,
                   r->metric ? r->metric : "");
  if (!is(r->unit, m->unit))
    return gb_fail(GB_E_INTERNAL, "%s emits %s in '%s', core/gb_registry.def says '%s'", b->name, m->name,
                   r->unit ? r->unit : "", m->unit);
  return GB_OK;
}

const gb_metric_desc *gb_desc_metric(const char *benchmark, const char *metric) {
  return metric_of(gb_desc_find(benchmark), metric);
}

gb_dir gb_desc_direction(const char *benchmark, const char *metric) {
  const gb_bench_desc *b = gb_desc_find(benchmark);
  if (b) {
    const gb_metric_desc *m = metric_of(b, metric);
    return m ? m->dir : GB_DIR_UNKNOWN;
  }
  for (size_t i = 0; i < gb_nbench_descs; i++) {
    const gb_metric_desc *m = metric_of(&gb_bench_descs[i], metric);
    if (m) return m->dir;
  }
  return GB_DIR_UNKNOWN;
}

gb_fclass gb_desc_class(const gb_row *r) {
  const gb_bench_desc *b = gb_desc_find(r->benchmark);
  return b && b->classify ? b->classify(r) : GB_FCLASS_HEADLINE;
}

/* ---- headline figures ---- */

static bool measured(const gb_row *r) { return r->status == GB_STATUS_OK || r->status == GB_STATUS_THROTTLED; }

static double volume(const gb_row *r) {
  return r->m == GB_NA || r->n == GB_NA || r->k == GB_NA ? -1 : (double)r->m * (double)r->n * (double)r->k;
}

/* Whether o competes with r for the headline of r's group under rule. */
static bool same_group(const gb_row *r, const gb_row *o, gb_headline_rule rule) {
  return measured(o) && is(o->benchmark, r->benchmark) && is(o->run_id, r->run_id) && is(o->gpu_type, r->gpu_type) &&
         is(o->settings, r->settings) && is(o->case_name, r->case_name) && is(o->dtype, r->dtype) &&
         is(o->metric, r->metric) && (rule != GB_HEADLINE_LARGEST_MESSAGE || o->gpu_count == r->gpu_count);
}

/* GB_HEADLINE_FLOOR's order: whether o comes before r: with a shape, the
 * smaller m, then the larger n*k, then the larger k; without one, the larger
 * bytes (rows with neither tie). */
static bool floor_before(const gb_row *o, const gb_row *r) {
  double vo = volume(o), vr = volume(r);
  if (vo > 0 && vr > 0) {
    double nko = (double)o->n * (double)o->k, nkr = (double)r->n * (double)r->k;
    if (o->m != r->m) return o->m < r->m;
    if (nko != nkr) return nko > nkr;
    return o->k > r->k;
  }
  if (vo > 0 || vr > 0) return vo > 0; /* a row with a shape before one without */
  return o->bytes != GB_NA && (r->bytes == GB_NA || o->bytes > r->bytes);
}

bool gb_desc_is_headline_metric(const char *benchmark, const char *metric) {
  const gb_bench_desc *b = gb_desc_find(benchmark);
  const gb_metric_desc *h = b ? metric_of(b, b->headline_metric) : NULL, *m = metric_of(b, metric);
  return h && m && (m == h || is(m->quantity, h->quantity));
}

bool gb_desc_is_headline(const gb_row *r, const gb_row *rows, size_t n) {
  if (r->headline >= 0) return r->headline == 1;
  const gb_bench_desc *b = gb_desc_find(r->benchmark);
  if (!b || !gb_desc_is_headline_metric(r->benchmark, r->metric)) return false;
  switch (b->headline) {
  case GB_HEADLINE_NONE: return false;
  case GB_HEADLINE_PER_CASE: return true;
  case GB_HEADLINE_HBM: return !gb_desc_membw_cold(r) && gb_desc_is_hbm(r, GB_NA);
  case GB_HEADLINE_LARGEST_SHAPE:
    for (size_t i = 0; i < n; i++)
      if (same_group(r, &rows[i], b->headline) && volume(&rows[i]) > volume(r)) return false;
    return volume(r) > 0;
  case GB_HEADLINE_FLOOR:
    for (size_t i = 0; i < n; i++)
      if (same_group(r, &rows[i], b->headline) && floor_before(&rows[i], r)) return false;
    return true;
  case GB_HEADLINE_LARGEST_MESSAGE:
    if (r->bytes == GB_NA || gb_desc_class(r) == GB_FCLASS_MEANINGLESS) return false;
    for (size_t i = 0; i < n; i++)
      if (same_group(r, &rows[i], b->headline) && rows[i].bytes != GB_NA && rows[i].bytes > r->bytes &&
          gb_desc_class(&rows[i]) != GB_FCLASS_MEANINGLESS)
        return false;
    return true;
  }
  return false;
}

/* ---- the HBM rule ---- */

int64_t gb_hbm_min_bytes(int64_t l2_bytes) {
  int64_t min = GB_HBM_MIN_BYTES;
  if (l2_bytes != GB_NA && l2_bytes > 0 && l2_bytes <= INT64_MAX / GB_HBM_L2_FACTOR &&
      l2_bytes * GB_HBM_L2_FACTOR > min)
    min = l2_bytes * GB_HBM_L2_FACTOR;
  return min;
}

bool gb_desc_is_hbm(const gb_row *r, int64_t l2_bytes) {
  if (l2_bytes == GB_NA) l2_bytes = r->l2_bytes;
  return is(r->benchmark, "membw") && is(r->metric, "gbps") && r->bytes != GB_NA &&
         r->bytes >= gb_hbm_min_bytes(l2_bytes);
}

bool gb_desc_membw_cold(const gb_row *r) {
  if (r->regime && r->regime[0]) return is(r->regime, "hbm-cold");
  return ends_with(r->case_name, "_cold");
}

int gb_hbm_case_rank(const char *case_name) {
  const gb_stream_kernel *k = gb_stream_find(case_name);
  return k ? k->hbm_rank : 2;
}
