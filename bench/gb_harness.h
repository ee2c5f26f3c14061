/* gb_harness: the measurement method every benchmark shares (the device
 * tool's METHOD.md): CUDA events around the timed region, warm-up, repetitions
 * up to a count or a time budget, median/min/max/stddev, optional CUDA-graph
 * replay for short kernels, and random (never zero) inputs. */
#ifndef GB_HARNESS_H
#define GB_HARNESS_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_dtype.h"
#include "gb_error.h"
#include "gb_telemetry.h"
#include "gb_stats.h"

/* Enqueues one timed operation on stream s. iter counts every call (warm-up
 * included) so the callee can rotate input buffers. Must not synchronize. */
typedef gb_err (*gb_launch_fn)(void *ctx, cudaStream_t s, long iter);

typedef struct gb_measure_opts {
  int warmup;            /* untimed operations first (default 3) */
  int min_samples;       /* at least this many timed samples (default 10) */
  int max_samples;       /* at most this many (default 100) */
  double budget_s;       /* stop after min_samples once this much time is spent (default 1.0) */
  int ops_per_sample;    /* operations between the two events of one sample (default 1) */
  bool graph;            /* capture ops_per_sample operations into a graph and time its replay */
  bool back_to_back;     /* queue the samples ahead, each between two events of one chain, and
                          * wait once per GB_MEASURE_CHUNK samples with the next chunk already
                          * queued (an untimed sample first when there are several): no host
                          * launch latency inside a sample, no idle between samples (false:
                          * wait for each sample before launching the next) */
  bool event_pairs;      /* with back_to_back: each sample between two events of its own, one
                          * recorded just before its operations and one just after (the
                          * timing loop of PyTorch's benchmarks), so that the time from one
                          * sample's end to the next one's start is in neither; false: one
                          * chain, where the event that ends a sample starts the next */
  gb_telemetry *tel;     /* when set, the timed samples are marked as its window
                          * (gb_telemetry_window_begin/_end); NULL by default */
} gb_measure_opts;

#define GB_MEASURE_CHUNK 16 /* samples queued per chunk with back_to_back */

/* How many samples back-to-back timing queues next, 0..GB_MEASURE_CHUNK:
 * up to min_samples outright; after them, with a budget, as many as still
 * end within budget_s at the mean of the samples read (read_s seconds over
 * read samples), counting elapsed_s since the start and the queued - read
 * samples not yet read (none before one was read); never past max_samples. */
int gb_measure_next_chunk(int min_samples, int max_samples, int queued, int read, double read_s, double budget_s,
                          double elapsed_s);

/* Defaults above. */
gb_measure_opts gb_measure_defaults(void);

typedef struct gb_samples {
  size_t n;
  double *sec; /* seconds per operation, one entry per sample (malloc'd) */
  gb_stats st; /* of sec */
} gb_samples;

/* Times launch per the options on stream s. On success out->sec holds the
 * seconds per operation of each sample. Errors of launch or CUDA propagate. */
gb_err gb_measure(const gb_measure_opts *o, cudaStream_t s, gb_launch_fn launch, void *ctx, gb_samples *out);

void gb_samples_free(gb_samples *s);

/* Converts timing samples to a rate: value = work / seconds / scale for each
 * sample; returns the stats of the rates (median of rates, min, max...).
 * E.g. bytes and 1e9 give GB/s; flops and 1e12 give TFLOP/s. */
gb_stats gb_samples_rate(const gb_samples *s, double work, double scale);

/* Element types (gb_dtype, their sizes and names): core/gb_dtype.h. The random
 * fill supports all but tf32. */

/* Fills n elements at dst with uniform random values in [lo, hi) (integer
 * types: integers in [lo, hi]), drawn on the device from seed (a counter-
 * based hash, so the same seed gives the same data). lo..hi must exclude a
 * degenerate all-zero range. Asynchronous on s. */
gb_err gb_fill_random(void *dst, size_t n, gb_dtype t, double lo, double hi, uint64_t seed, cudaStream_t s);

/* Fills n elements with the constant v (for STREAM-style known values). */
gb_err gb_fill_const(void *dst, size_t n, gb_dtype t, double v, cudaStream_t s);

/* The value gb_fill_random writes at index i, computed on the host (for
 * references and tests); integer types return the integer as a double. */
double gb_random_value(size_t i, gb_dtype t, double lo, double hi, uint64_t seed);

#endif
