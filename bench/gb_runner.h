/* gb_runner: the campaign runner behind `gpubench run`. */
#ifndef GB_RUNNER_H
#define GB_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "gb_bench.h"
#include "gb_telemetry.h"

/* A second place each row goes as it is written (run --store): row gets
 * every row of a case, commit follows once the case is in the results file. */
typedef struct gb_row_sink {
  gb_err (*row)(void *ctx, const gb_row *r);
  gb_err (*commit)(void *ctx);
  void *ctx;
} gb_row_sink;

typedef struct gb_campaign {
  gb_run_config run;
  const gb_bench *benches[32]; /* in the order to run */
  int nbenches;
  const char *out_path;        /* results file (appended to) */
  bool resume;                 /* skip cases already in out_path */
  bool progress_bar;           /* a redrawn bar (terminal) or plain lines */
  FILE *progress;              /* where progress goes (stderr) */
  FILE *table;                 /* where the end-of-run tables go (stdout) */
  int telemetry_ms;            /* NVML sampling period; 0: GB_TELEMETRY_DEFAULT_MS; < 0: no sampling (rows
                                * then carry no telemetry, can never be marked throttled, and say so) */
  const gb_row_sink *sink;      /* each row also here; NULL: the results file only */
} gb_campaign;

typedef struct gb_campaign_result {
  size_t cases_run, cases_skipped;
  size_t rows_written;
  size_t rows_ok, rows_invalid, rows_error, rows_throttled, rows_unsupported;
  bool interrupted;
  bool opened; /* the output was opened (false: the campaign stopped at its plan and touched no file) */
} gb_campaign_result;

/* Runs the campaign. Usage and environment problems (unwritable output, no
 * GPU) fail before any measurement. SIGINT/SIGTERM stop after the case in
 * flight is dropped; every finished case is already on disk. */
gb_err gb_campaign_run(const gb_campaign *c, const gb_system_info *sys, gb_campaign_result *res);

/* Asks a running campaign to stop (signal-safe). */
void gb_campaign_request_stop(void);

#endif
