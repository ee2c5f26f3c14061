/* bench_planner: how fast the planner ranks configurations. Builds 100
 * single-GPU-node offerings over the shipped GPU types and ranks every count
 * from 1 to 1000 GPUs (100,000 configurations) for the shipped 7B training
 * workload, five times, and prints configurations per second. Not a test:
 * timings on a shared machine are reported, not judged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_plan.h"
#include "gb_runinfo.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void) {
  char path[4096];
  gb_specs specs;
  snprintf(path, sizeof path, "%s/gpu_specs.csv", gb_data_dir());
  if (gb_specs_read(path, &specs)) {
    fprintf(stderr, "bench_planner: %s\n", gb_errmsg());
    return 2;
  }
  gb_workload w;
  gb_workload_init(&w);
  snprintf(path, sizeof path, "%s/workloads/training-7b.ini", gb_data_dir());
  if (gb_workload_read(path, &w) || gb_workload_finish(&w)) {
    fprintf(stderr, "bench_planner: %s\n", gb_errmsg());
    return 2;
  }
  enum { OFFERS = 100, MAX_GPUS = 1000, REPS = 5 };
  gb_prices prices = {0};
  prices.v = calloc(OFFERS, sizeof *prices.v);
  prices.n = OFFERS;
  for (int i = 0; i < OFFERS; i++) {
    gb_price *p = &prices.v[i];
    snprintf(p->provider, sizeof p->provider, "provider%02d", i);
    p->offering = i % 10 == 9 ? GB_OFFER_SPOT : GB_OFFER_ON_DEMAND;
    snprintf(p->gpu_type, sizeof p->gpu_type, "%s", specs.v[(size_t)i % specs.n].gpu_type);
    p->gpus_per_node = 1;
    p->price_usd_per_gpu_hour = 1.0 + 0.05 * i;
    p->purchase_usd_per_gpu = NAN;
    snprintf(p->date, sizeof p->date, "2026-12-01");
  }
  gb_results none = {0};
  gb_perf perf;
  if (gb_perf_build(&specs, &none, w.precision, w.gemm_size, w.gemm_sustained, &perf)) {
    fprintf(stderr, "bench_planner: %s\n", gb_errmsg());
    return 2;
  }
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  o.max_gpus = MAX_GPUS;
  double best = INFINITY;
  size_t configs = 0;
  for (int r = 0; r < REPS; r++) {
    gb_plan plan;
    double t0 = now_s();
    if (gb_plan_rank(&w, &perf, &prices, &o, &plan)) {
      fprintf(stderr, "bench_planner: %s\n", gb_errmsg());
      return 2;
    }
    double dt = now_s() - t0;
    if (dt < best) best = dt;
    configs = plan.n;
    gb_plan_free(&plan);
  }
  printf("bench_planner: ranked %zu configurations in %.3f s (best of %d): %.0f configurations/s\n", configs, best,
         REPS, configs / best);
  gb_perf_free(&perf);
  gb_prices_free(&prices);
  gb_specs_free(&specs);
  return 0;
}
