/* gb_goodput: a whole run's goodput, the share of its wall time spent on
 * useful steps, from its GPU count and its length (docs/planner.md,
 * "Whole-run goodput"). Sources and constants: gb_goodput.c. */
#ifndef GB_GOODPUT_H
#define GB_GOODPUT_H

/* Interruptions per GPU-day: Llama 3 (arXiv 2407.21783, sec. 3.3.4), 466
 * job interruptions (47 planned, 419 unexpected) in a 54-day snapshot on
 * 16,384 H100. */
#define GB_GOODPUT_INTERRUPTS_PER_GPU_DAY (466.0 / (54.0 * 16384.0))
/* Hours one interruption costs: the work since the last checkpoint (half an
 * hourly interval) and the restart (detect, replace the node, reload,
 * warm up). The run's own start-up costs one such restart too. */
#define GB_GOODPUT_RESTART_HOURS 1.0
/* Share of the useful time spent beside it at any scale: evaluation,
 * checkpoint writes, data and loss-spike stalls; fitted on the calibration
 * fit half's whole runs (docs/planner.md). */
#define GB_GOODPUT_OVERHEAD 0.30
/* The interruption load (interruptions an hour x their cost) at which a run
 * stops making progress is capped here: goodput stays above zero. */
#define GB_GOODPUT_MAX_LOSS 0.9

typedef struct gb_goodput {
  double goodput;        /* useful / wall */
  double interruptions;  /* expected over the run */
  double interrupt_hours; /* wall hours they cost (lost work and restarts) */
  double overhead_hours;  /* evaluation, checkpoints, stalls */
  double startup_hours;   /* the run's first start */
} gb_goodput;

/* The goodput of a run of `gpus` GPUs whose useful steps take
 * `useful_hours` of wall time:
 *   wall = (useful (1 + overhead) + restart) / (1 - rate x gpus / 24 x restart). */
void gb_goodput_run(double gpus, double useful_hours, gb_goodput *out);

#endif
