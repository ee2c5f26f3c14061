/* fuzz_gate_config: the regression gate's INI configuration
 * (gate/gb_gate_config.h gb_gate_config_read_mem, through core/gb_ini).
 *
 * Properties: no crash or sanitizer report; a configuration that reads gives
 * thresholds that are the fallback or non-negative, and directions of -1, 0
 * or +1, for the rules it holds and for names it does not. */
#include <math.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "gb_gate_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  gb_gate_config cfg;
  if (gb_gate_config_read_mem("fuzz_gate.ini", text, &cfg) == GB_OK) {
    FUZZ_ASSERT(isnan(cfg.threshold_pct) || cfg.threshold_pct >= 0);
    FUZZ_ASSERT(isnan(cfg.alpha) || (cfg.alpha > 0 && cfg.alpha < 1));
    for (size_t i = 0; i <= cfg.nrules; i++) {
      const char *b = i < cfg.nrules ? cfg.rules[i].benchmark : "gemm";
      const char *m = i < cfg.nrules ? cfg.rules[i].metric : "tflops";
      double t = gb_gate_config_threshold(&cfg, b, m, 5.0);
      FUZZ_ASSERT(t == 5.0 || t >= 0);
      int d = gb_gate_config_direction(&cfg, b, m);
      FUZZ_ASSERT(d >= -1 && d <= 1);
    }
  }
  gb_gate_config_free(&cfg);
  free(text);
  return 0;
}
