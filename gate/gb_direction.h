/* gb_direction: which way a metric is better, for the gate (gb_gate.h)
 * and the noise floors (gb_noise.h) alike: a module of its own so that
 * neither includes the other for it. */
#ifndef GB_DIRECTION_H
#define GB_DIRECTION_H

/* Better direction of a benchmark's metric: gb_desc_direction, else by the
 * metric's name: +1 higher is better (tflops, tops, gflops, gbps, *_gbps,
 * *_tflops, speedup, *_per_s), -1 lower is better (time_us and anything
 * ending in _ns, _us, _ms, _s, latency*), 0 unknown. */
int gb_metric_direction(const char *benchmark, const char *metric);

#endif
