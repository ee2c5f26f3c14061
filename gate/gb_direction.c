/* gb_direction: which way a metric is better. */
#include "gb_direction.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "gb_desc.h"

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int gb_metric_direction(const char *benchmark, const char *m) {
  gb_dir d = gb_desc_direction(benchmark, m);
  if (d != GB_DIR_UNKNOWN) return (int)d;
  static const char *const higher[] = {"tflops", "tops", "gflops", "gbps", "speedup", "tokens_per_s"};
  for (size_t i = 0; i < sizeof higher / sizeof higher[0]; i++)
    if (strcmp(m, higher[i]) == 0) return 1;
  if (ends_with(m, "_gbps") || ends_with(m, "_tflops") || ends_with(m, "_per_s")) return 1;
  if (strncmp(m, "latency", 7) == 0) return -1;
  if (ends_with(m, "_ns") || ends_with(m, "_us") || ends_with(m, "_ms") || ends_with(m, "_s")) return -1;
  return 0;
}
