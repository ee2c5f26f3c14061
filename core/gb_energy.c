/* gb_energy: energy windows from a counter, and the plausibility bound. */
#include "gb_energy.h"

#include <math.h>
#include <stdio.h>

#include "gb_num.h"

void gb_energy_add(gb_energy_acc *a, bool ok0, unsigned long long e0_mj, double t0_s, bool ok1,
                   unsigned long long e1_mj, double t1_s, long updates) {
  a->windows++;
  if (!ok0 || !ok1) {
    a->missing++;
    return;
  }
  if (e1_mj < e0_mj || !(t1_s >= t0_s)) {
    a->backwards++;
    return;
  }
  a->joules += (double)(e1_mj - e0_mj) / 1000.0;
  a->seconds += t1_s - t0_s;
  a->updates += updates > 0 ? updates : 0;
}

bool gb_energy_judge(const gb_energy_acc *a, double *joules, double *seconds, char *why, size_t n) {
  *joules = *seconds = NAN;
  if (n) why[0] = '\0';
  if (a->windows <= 0) return false;
  if (a->missing > 0) {
    snprintf(why, n, "no energy counter (the driver lacks nvmlDeviceGetTotalEnergyConsumption, or a read failed)");
    return false;
  }
  if (a->backwards > 0) {
    snprintf(why, n, "the energy counter went back in %d of %d windows (reset or wrap)", a->backwards, a->windows);
    return false;
  }
  if (a->updates < (long)GB_ENERGY_MIN_UPDATES * a->windows) {
    if (a->windows == 1)
      gb_snprintf_c(why, n, "window %.3g s spans %ld energy-counter updates, under %d per window: too short for the counter",
                    a->seconds, a->updates, GB_ENERGY_MIN_UPDATES);
    else
      gb_snprintf_c(why, n, "%d windows of %.3g s in all span %ld energy-counter updates, under %d per window: too short "
                    "for the counter", a->windows, a->seconds, a->updates, GB_ENERGY_MIN_UPDATES);
    return false;
  }
  *joules = a->joules;
  *seconds = a->seconds;
  return true;
}

double gb_row_energy_power_w(const gb_row *r) {
  if (!(isfinite(r->energy_j) && isfinite(r->energy_s) && r->energy_j > 0 && r->energy_s > 0)) return NAN;
  return r->energy_j / r->energy_s;
}

bool gb_energy_plausible(double per_watt, double peak, double tdp_w, const char *unit, char *why, size_t n) {
  if (n) why[0] = '\0';
  if (!(isfinite(per_watt) && isfinite(peak) && isfinite(tdp_w) && peak > 0 && tdp_w > 0)) return true;
  double bound = GB_ENERGY_PLAUSIBLE_MARGIN * peak / tdp_w;
  if (per_watt <= bound) return true;
  gb_snprintf_c(why, n, "%.3g %s per W is over %.3g, %.3g x the datasheet's %.4g %s over its %.4g W TDP", per_watt,
                unit, bound, GB_ENERGY_PLAUSIBLE_MARGIN, peak, unit, tdp_w);
  return false;
}
