/* gemm_lab_keys: the names of the --opt gemm.* keys only probes use (the
 * lab's), so that a default build can say what they are. Their parser,
 * their `settings` items and the logs two of them write are in
 * tools/gemm/gemm_lab.c, compiled into a build with -DGB_TOOLS=ON; in a
 * default build the stubs below stand in: a lab key is a usage error, and
 * as none can be given there are no settings and no logs to write. */
#include <string.h>

#include "gemm_internal.h"

static const char *const lab_keys[] = {"candidates",  "candidate",  "finalists",  "confirm",
                                       "confirm_rest_ms", "search_log", "samples_log", "fp8_amax",
                                       "input_sets",  "out_of_place", "timing",   "workspace_kib"};

bool gb_gemm_lab_key(const char *key) {
  for (size_t i = 0; i < sizeof lab_keys / sizeof lab_keys[0]; i++)
    if (strcmp(key, lab_keys[i]) == 0) return true;
  return false;
}

#ifndef GB_TOOLS
gb_err gb_gemm_lab_opt(gb_gemm_opts *o, const char *key, const char *val) {
  (void)o;
  (void)val;
  return gb_fail(GB_E_USAGE, "--opt gemm.%s is a lab option: build with -DGB_TOOLS=ON", key);
}

void gb_gemm_lab_settings(const gb_gemm_opts *o, gb_settings *s) {
  (void)o;
  (void)s;
}

gb_err gemm_logs_open(gemm_state *st) {
  (void)st;
  return GB_OK;
}

void gemm_logs_close(gemm_state *st) { (void)st; }

void gemm_log_search(const gemm_state *st, const gemm_op *o, const gemm_cand *cand, int ncand, const double *screen,
                     const double *conf, int kept) {
  (void)st;
  (void)o;
  (void)cand;
  (void)ncand;
  (void)screen;
  (void)conf;
  (void)kept;
}

void gemm_log_samples(const gemm_state *st, const gemm_op *o, int warmup, const gb_samples *samp) {
  (void)st;
  (void)o;
  (void)warmup;
  (void)samp;
}
#endif
