/* gpubench noise: measures the gate's noise floors (gate/gb_noise.h) from
 * several independent runs of one build on one GPU type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_gate.h"
#include "gb_noise.h"

static void usage(FILE *fp) {
  fprintf(fp,
          "Usage: gpubench noise RUN.csv|DIR... [--out FLOORS.csv]\n"
          "\n"
          "Measures how much each figure moves between independent runs of the same build\n"
          "(each run its own process: `gpubench run --out runN.csv`, N >= 2, better 6), and\n"
          "writes one noise floor per benchmark, metric and size class: sigma = %.1f x\n"
          "median |ln(x_i / x_j)| over every pair of runs / (0.6745 x sqrt 2), the robust\n"
          "standard deviation of one run in ln units with a safety factor. `gpubench compare\n"
          "--noise FLOORS.csv` judges each figure against its class's floor when the\n"
          "baseline does not hold several runs (docs/ci.md).\n"
          "\n"
          "Options:\n"
          "  --out FILE   write the floors there (default: standard output)\n"
          "  -h, --help   show this help\n"
          "\n"
          "Exit codes: 0 written; 2 bad usage or input (fewer than 2 runs, mixed GPU types).\n",
          GB_NOISE_SAFETY);
}

int gb_cmd_noise(int argc, char **argv) {
  const char *cmd = "noise";
  if (gb_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
  if (!inputs) return gb_cli_usage_error(cmd, "out of memory");
  size_t n = 0;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--out") == 0) {
      if (i + 1 >= argc) {
        free(inputs);
        return gb_cli_usage_error(cmd, "--out needs a value");
      }
      out = argv[++i];
    } else if (strncmp(argv[i], "--out=", 6) == 0) {
      out = argv[i] + 6;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      free(inputs);
      return gb_cli_usage_error(cmd, "unknown option \"%s\"", argv[i]);
    } else {
      inputs[n++] = argv[i];
    }
  }
  if (n == 0) {
    free(inputs);
    return gb_cli_usage_error(cmd, "needs the results CSVs of at least 2 independent runs");
  }
  gb_results res = {0};
  gb_noise_table t;
  memset(&t, 0, sizeof t);
  gb_buf b = {0};
  gb_err e = gb_gate_read_side(inputs, n, true, &res);
  if (!e) e = gb_noise_measure(&res, &t);
  if (!e) e = gb_noise_write(&t, &b);
  if (!e && out) e = gb_write_file_atomic(out, b.data, b.len);
  int rc = 0;
  if (e) {
    fprintf(stderr, "gpubench noise: %s\n", gb_errmsg());
    rc = 2;
  } else if (!out) {
    fwrite(b.data, 1, b.len, stdout);
  } else {
    fprintf(stderr, "gpubench noise: %zu floors from %zu runs in %s\n", t.n, t.runs, out);
  }
  gb_buf_free(&b);
  gb_noise_free(&t);
  gb_results_free(&res);
  free(inputs);
  return rc;
}
