/* gb_harness: timing with CUDA events, warm-up, repetitions, statistics, and
 * the random fills (kernels/fill.cu) with their host-side twin. */
#include "gb_harness.h"

#include "gb_desc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_cuda.h"
#include "gb_nvrtc.h"

gb_measure_opts gb_measure_defaults(void) {
  gb_measure_opts o = {.warmup = 3, .min_samples = 10, .max_samples = 100, .budget_s = 1.0, .ops_per_sample = 1, .graph = false};
  return o;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gb_samples_free(gb_samples *s) {
  free(s->sec);
  memset(s, 0, sizeof *s);
}

int gb_measure_next_chunk(int min_samples, int max_samples, int queued, int read, double read_s, double budget_s,
                          double elapsed_s) {
  int want = 0;
  if (queued < min_samples) {
    want = min_samples - queued;
  } else if (read > 0 && budget_s > 0) {
    double mean = read_s / read;
    double left = budget_s - elapsed_s - (queued - read) * mean;
    want = left <= 0 ? 0 : mean > 0 ? (int)fmin(ceil(left / mean), GB_MEASURE_CHUNK) : GB_MEASURE_CHUNK;
  }
  if (want > GB_MEASURE_CHUNK) want = GB_MEASURE_CHUNK;
  if (want > max_samples - queued) want = max_samples - queued;
  return want < 0 ? 0 : want;
}

/* One sample's operations: the graph's replay, or ops launches. */
static gb_err measure_enqueue_sample(cudaStream_t s, gb_launch_fn launch, void *ctx, cudaGraphExec_t exec, int ops,
                                     long *iter) {
  if (exec) {
    GB_CUDA(cudaGraphLaunch(exec, s));
    return GB_OK;
  }
  for (int i = 0; i < ops; i++) GB_TRY(launch(ctx, s, (*iter)++));
  return GB_OK;
}

/* gb_measure_opts.back_to_back: event k of a ring of 2 GB_MEASURE_CHUNK + 1
 * ends sample k-1 and starts sample k (with event_pairs, sample k has start
 * event k and end event k of two such rings instead). The samples are queued at most a
 * chunk at a time, the next chunk before waiting for the end of the
 * previous one, so the device runs them back to back; an untimed sample
 * ahead of the first (when there are several) keeps the first from starting
 * on an idle stream. The first min_samples are queued outright; after them
 * a chunk holds only the samples that, at the mean of those read, still end
 * within budget_s of t_start. A slot is recorded again only after the
 * samples on both sides of it were read: at most two chunks are ever
 * unread. */
static gb_err measure_back_to_back(const gb_measure_opts *o, cudaStream_t s, gb_launch_fn launch, void *ctx,
                                   cudaGraphExec_t exec, int ops, long *iter, int min_samples, int max_samples,
                                   double t_start, gb_samples *out) {
  enum { RING = 2 * GB_MEASURE_CHUNK + 1 };
  cudaEvent_t ev[RING] = {0}, start[RING] = {0}; /* start: the pairs' first events */
  bool pairs = o->event_pairs;
  gb_err err = GB_OK;
  int queued = 0, read = 0;
  double read_s = 0; /* seconds of the samples read */
  for (int i = 0; i < RING; i++) {
    GB_CUDA_GOTO(cudaEventCreate(&ev[i]), err, done);
    if (pairs) GB_CUDA_GOTO(cudaEventCreate(&start[i]), err, done);
  }
  if (max_samples > 1) GB_TRY_GOTO(measure_enqueue_sample(s, launch, ctx, exec, ops, iter), err, done);
  if (!pairs) GB_CUDA_GOTO(cudaEventRecord(ev[0], s), err, done);
  for (;;) {
    int want = gb_measure_next_chunk(min_samples, max_samples, queued, read, read_s, o->budget_s, now_s() - t_start);
    int target = queued; /* what was queued before this chunk is read below */
    for (int c = 0; c < want; c++) {
      if (pairs) GB_CUDA_GOTO(cudaEventRecord(start[queued % RING], s), err, done);
      GB_TRY_GOTO(measure_enqueue_sample(s, launch, ctx, exec, ops, iter), err, done);
      /* chain: the event after sample k (slot k + 1) also starts sample k + 1;
       * pairs: slot k of ev ends sample k */
      GB_CUDA_GOTO(cudaEventRecord(ev[(queued + !pairs) % RING], s), err, done);
      queued++;
    }
    if (target == read) {
      if (queued == read) break; /* nothing queued, nothing left to read */
      continue;                  /* queue the next chunk before waiting for this one */
    }
    /* the event that ends sample target - 1 */
    GB_CUDA_GOTO(cudaEventSynchronize(ev[(target - pairs) % RING]), err, done);
    GB_CUDA_GOTO(cudaGetLastError(), err, done);
    for (; read < target; read++) {
      float ms = 0;
      if (pairs) GB_CUDA_GOTO(cudaEventElapsedTime(&ms, start[read % RING], ev[read % RING]), err, done);
      else GB_CUDA_GOTO(cudaEventElapsedTime(&ms, ev[read % RING], ev[(read + 1) % RING]), err, done);
      read_s += (double)ms * 1e-3;
      out->sec[out->n++] = (double)ms * 1e-3 / ops;
    }
  }
done:
  if (err) (void)cudaStreamSynchronize(s); /* no event of the ring may still be pending when destroyed */
  for (int i = 0; i < RING; i++) {
    if (ev[i]) cudaEventDestroy(ev[i]);
    if (start[i]) cudaEventDestroy(start[i]);
  }
  return err;
}

gb_err gb_measure(const gb_measure_opts *o, cudaStream_t s, gb_launch_fn launch, void *ctx, gb_samples *out) {
  memset(out, 0, sizeof *out);
  gb_err err = GB_OK;
  cudaEvent_t ev0 = NULL, ev1 = NULL;
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  int ops = o->ops_per_sample > 0 ? o->ops_per_sample : 1;
  int max_samples = o->max_samples > 0 ? o->max_samples : 100;
  int min_samples = o->min_samples > 0 ? o->min_samples : 1;
  if (min_samples > max_samples) min_samples = max_samples;
  long iter = 0;

  out->sec = malloc((size_t)max_samples * sizeof *out->sec);
  if (!out->sec) return gb_fail(GB_E_NOMEM, "out of memory for timing samples");

  for (int w = 0; w < o->warmup; w++) GB_TRY_GOTO(launch(ctx, s, iter++), err, done);
  GB_CUDA_GOTO(cudaStreamSynchronize(s), err, done);
  GB_CUDA_GOTO(cudaGetLastError(), err, done);

  if (o->graph && s == 0) {
    err = gb_fail(GB_E_INTERNAL, "graph replay needs a created stream, not the legacy default stream");
    goto done;
  }
  if (o->graph) {
    GB_CUDA_GOTO(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), err, done);
    for (int i = 0; i < ops; i++) {
      err = launch(ctx, s, iter++);
      if (err) {
        cudaStreamEndCapture(s, &graph);
        goto done;
      }
    }
    GB_CUDA_GOTO(cudaStreamEndCapture(s, &graph), err, done);
    GB_CUDA_GOTO(cudaGraphInstantiate(&exec, graph, 0), err, done);
    GB_CUDA_GOTO(cudaGraphLaunch(exec, s), err, done); /* one warm replay */
    GB_CUDA_GOTO(cudaStreamSynchronize(s), err, done);
  }

  gb_telemetry_window_begin(o->tel);
  double t_start = now_s();
  if (o->back_to_back) {
    GB_TRY_GOTO(measure_back_to_back(o, s, launch, ctx, exec, ops, &iter, min_samples, max_samples, t_start, out), err,
                done);
    gb_telemetry_window_end(o->tel);
    out->st = gb_stats_of(out->sec, out->n);
    goto done;
  }
  GB_CUDA_GOTO(cudaEventCreate(&ev0), err, done);
  GB_CUDA_GOTO(cudaEventCreate(&ev1), err, done);
  while ((int)out->n < max_samples) {
    GB_CUDA_GOTO(cudaEventRecord(ev0, s), err, done);
    if (exec) {
      GB_CUDA_GOTO(cudaGraphLaunch(exec, s), err, done);
    } else {
      for (int i = 0; i < ops; i++) GB_TRY_GOTO(launch(ctx, s, iter++), err, done);
    }
    GB_CUDA_GOTO(cudaEventRecord(ev1, s), err, done);
    GB_CUDA_GOTO(cudaEventSynchronize(ev1), err, done);
    GB_CUDA_GOTO(cudaGetLastError(), err, done);
    float ms = 0;
    GB_CUDA_GOTO(cudaEventElapsedTime(&ms, ev0, ev1), err, done);
    out->sec[out->n++] = (double)ms * 1e-3 / ops;
    if ((int)out->n >= min_samples && now_s() - t_start >= o->budget_s) break;
  }
  gb_telemetry_window_end(o->tel);
  out->st = gb_stats_of(out->sec, out->n);
done:
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  if (ev0) cudaEventDestroy(ev0);
  if (ev1) cudaEventDestroy(ev1);
  if (err) gb_samples_free(out);
  return err;
}

gb_stats gb_samples_rate(const gb_samples *s, double work, double scale) {
  double *r = malloc((s->n ? s->n : 1) * sizeof *r);
  if (!r) return gb_stats_of(NULL, 0);
  for (size_t i = 0; i < s->n; i++) r[i] = s->sec[i] > 0 ? work / s->sec[i] / scale : 0.0;
  gb_stats st = gb_stats_of(r, s->n);
  free(r);
  return st;
}

/* ---- host twin of kernels/fill.cu ---- */

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* Rounds x to a small float format exactly as kernels/fill.cu encode_small
 * does, and returns the rounded value (not the bits). */
static double round_small(double x, int mbits, int bias, double maxv) {
  double sign = 1.0;
  if (x < 0) {
    sign = -1.0;
    x = -x;
  }
  if (x == 0.0) return 0.0;
  int emin = 1 - bias, e;
  frexp(x, &e);
  e -= 1;
  if (e < emin) e = emin;
  double quantum = ldexp(1.0, e - mbits);
  double q = rint(x / quantum) * quantum;
  if (q > maxv) q = maxv;
  return sign * q;
}

double gb_random_value(size_t i, gb_dtype t, double lo, double hi, uint64_t seed) {
  uint64_t h = splitmix64(seed ^ splitmix64((uint64_t)i));
  double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
  if (t == GB_DT_I8 || t == GB_DT_I32) {
    double v = floor(lo + u * (hi - lo + 1.0));
    return v > hi ? hi : v;
  }
  double v = lo + u * (hi - lo);
  switch (t) {
  case GB_DT_F64: return v;
  case GB_DT_F32: return (double)(float)v;
  case GB_DT_F16: return round_small((double)(float)v, 10, 15, 65504.0);
  case GB_DT_BF16: return round_small((double)(float)v, 7, 127, 3.3895313892515355e38);
  case GB_DT_F8E4M3: return round_small((double)(float)v, 3, 7, 448.0);
  case GB_DT_F8E5M2: return round_small((double)(float)v, 2, 15, 57344.0);
  default: return v;
  }
}

/* ---- device fills (one module per device, loaded on first use) ---- */

typedef struct fill_module {
  int device;
  int loaded;
  gb_module mod;
  cudaKernel_t k_random, k_const;
} fill_module;

static fill_module g_fill[64];
static pthread_mutex_t g_fill_lock = PTHREAD_MUTEX_INITIALIZER;

static gb_err fill_kernels(fill_module **out) {
  int dev = 0;
  GB_CUDA(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) return gb_fail(GB_E_INTERNAL, "device ordinal %d out of range", dev);
  pthread_mutex_lock(&g_fill_lock);
  fill_module *f = &g_fill[dev];
  gb_err err = GB_OK;
  if (!f->loaded) {
    static char defs[256];
    const char *opts[1 + GB_DT_COUNT] = {"--fmad=false"};
    if (!gb_dtype_defines(defs, sizeof defs, opts + 1)) err = gb_fail(GB_E_INTERNAL, "fill.cu: dtype codes too long");
    else err = gb_module_load("fill.cu", opts, 1 + GB_DT_COUNT, &f->mod);
    GB_TRY_ON(err, gb_module_kernel(&f->mod, "gb_fill_random", &f->k_random));
    GB_TRY_ON(err, gb_module_kernel(&f->mod, "gb_fill_const", &f->k_const));
    if (!err) f->loaded = 1;
  }
  pthread_mutex_unlock(&g_fill_lock);
  *out = f;
  return err;
}

static void fill_grid(size_t n, unsigned *grid, unsigned *block) {
  *block = 256;
  size_t g = (n + 255) / 256;
  if (g > 65536) g = 65536;
  if (g == 0) g = 1;
  *grid = (unsigned)g;
}

gb_err gb_fill_random(void *dst, size_t n, gb_dtype t, double lo, double hi, uint64_t seed, cudaStream_t s) {
  if (!(hi > lo) && !(t == GB_DT_I8 || t == GB_DT_I32))
    return gb_fail(GB_E_INTERNAL, "gb_fill_random: empty range [%g, %g)", lo, hi);
  fill_module *f = NULL;
  GB_TRY(fill_kernels(&f));
  unsigned long long nn = n, sd = seed;
  int dt = (int)t;
  void *args[] = {&dst, &nn, &dt, &lo, &hi, &sd};
  unsigned grid, block;
  fill_grid(n, &grid, &block);
  GB_CUDA(cudaLaunchKernel((const void *)f->k_random, gb_dim1(grid), gb_dim1(block), args, 0, s));
  return GB_OK;
}

gb_err gb_fill_const(void *dst, size_t n, gb_dtype t, double v, cudaStream_t s) {
  fill_module *f = NULL;
  GB_TRY(fill_kernels(&f));
  unsigned long long nn = n;
  int dt = (int)t;
  void *args[] = {&dst, &nn, &dt, &v};
  unsigned grid, block;
  fill_grid(n, &grid, &block);
  GB_CUDA(cudaLaunchKernel((const void *)f->k_const, gb_dim1(grid), gb_dim1(block), args, 0, s));
  return GB_OK;
}
