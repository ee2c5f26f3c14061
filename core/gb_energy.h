/* gb_energy: energy over timed windows from NVML's total-energy counter
 * (nvmlDeviceGetTotalEnergyConsumption, mJ), read at each window's start and
 * end, and when such a figure is true enough to divide a rate by.
 *
 * A window's power is its energy over its wall time. The counter moves in
 * steps (how often: tools/energy, docs/perf-notes.md), so a read at either
 * end may lag the true energy by up to one step: a window that spans fewer
 * than GB_ENERGY_MIN_UPDATES steps of the counter gets no energy at all, and
 * the row says why (energy_note), rather than a figure off by up to 1/steps.
 * The driver's 1-s average power (nvmlDeviceGetPowerUsage, the power_w
 * column) is telemetry and never divides a rate: sampled in a 40 ms burst on
 * Ampere and newer it mostly reports the idle time before it.
 *
 * Pure arithmetic, no NVML: the sampler (bench/gb_telemetry.c) feeds it. */
#ifndef GB_ENERGY_H
#define GB_ENERGY_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_results.h"

/* Counter steps a window must span: the ends' lag is then at most 1/10 of
 * the window's energy, and in practice far less (the warm-up before a window
 * runs the same work, so the lag holds the same power). */
#define GB_ENERGY_MIN_UPDATES 10

/* A per-watt figure may exceed the datasheet's peak over its TDP by this
 * factor before the row is called implausible: a datasheet peak is quoted at
 * the boost clock, and a card may hold that clock below its TDP on easy
 * inputs, so the bound is not tight; a quarter above it no card does the
 * work, while the example report's former 3.37 TFLOP/s per W on an H200 (a
 * 1-s average sampled in a 40 ms burst) was 2.4x over it. docs/perf-notes.md gives the rule. */
#define GB_ENERGY_PLAUSIBLE_MARGIN 1.25

/* One case's windows, accumulated. */
typedef struct gb_energy_acc {
  int windows;      /* windows ended */
  int missing;      /* of them, windows where a counter read failed */
  int backwards;    /* of them, windows where the counter went back (a driver reload, a wrap) */
  double joules;    /* energy over the good windows, J */
  double seconds;   /* their wall time, s */
  long updates;     /* counter steps seen inside the good windows */
} gb_energy_acc;

/* Adds one window: the counter read at its start (ok0, e0_mj at host time
 * t0_s) and its end (ok1, e1_mj at t1_s), and the steps of the counter seen
 * in between (the end read's included). */
void gb_energy_add(gb_energy_acc *a, bool ok0, unsigned long long e0_mj, double t0_s, bool ok1,
                   unsigned long long e1_mj, double t1_s, long updates);

/* The case's energy and its wall time when they are true (every window read,
 * none went back, at least GB_ENERGY_MIN_UPDATES steps a window): true.
 * Otherwise false and why in why ("window 0.041 s spans 2 energy-counter
 * updates, under 10 per window: too short for the counter"); "" when no
 * window was marked (a benchmark that times nothing of its own). */
bool gb_energy_judge(const gb_energy_acc *a, double *joules, double *seconds, char *why, size_t n);

/* A row's power from its energy columns, W (energy_j / energy_s); NaN when
 * the row has none (an older file, a short window: energy_note says why). */
double gb_row_energy_power_w(const gb_row *r);

/* Whether a per-watt figure (value per W) is plausible against the
 * datasheet: at most GB_ENERGY_PLAUSIBLE_MARGIN x peak / tdp_w. True when
 * either bound is unknown (NaN, <= 0). False with why ("3.37 TFLOP/s per W
 * is over 1.77, 1.25 x the datasheet's 989 TFLOP/s over its 700 W TDP")
 * naming unit (the row's, e.g. "TFLOP/s"). */
bool gb_energy_plausible(double per_watt, double peak, double tdp_w, const char *unit, char *why, size_t n);

#endif
