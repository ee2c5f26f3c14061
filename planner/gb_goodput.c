/* gb_goodput: whole-run goodput from GPU count and run length
 * (docs/planner.md, "Whole-run goodput"; constants and sources in
 * gb_goodput.h). A synchronous job stops for every interruption of any of
 * its GPUs, so interruptions arrive at rate x gpus a day and each costs the
 * restart hours; evaluation, checkpoints and stalls add a share of the
 * useful time at any scale; the first start costs one restart. */
#include "gb_goodput.h"

#include <math.h>

void gb_goodput_run(double gpus, double useful_hours, gb_goodput *out) {
  double per_hour = GB_GOODPUT_INTERRUPTS_PER_GPU_DAY * fmax(1, gpus) / 24;
  double loss = fmin(GB_GOODPUT_MAX_LOSS, per_hour * GB_GOODPUT_RESTART_HOURS);
  double t = fmax(0, useful_hours);
  out->overhead_hours = t * GB_GOODPUT_OVERHEAD;
  out->startup_hours = GB_GOODPUT_RESTART_HOURS;
  double wall = (t + out->overhead_hours + out->startup_hours) / (1 - loss);
  out->interrupt_hours = wall * loss;
  out->interruptions = wall * per_hour;
  out->goodput = wall > 0 ? t / wall : 1;
}
