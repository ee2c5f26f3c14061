/* gpubench noise: measures the gate's noise floors (gate/gb_noise.h) from
 * several independent runs of one build on one GPU type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_output.h"

typedef struct noise_args {
  const char **inputs; /* malloc'd by the parser */
  size_t ninputs;
  const char *out;
  const char **earlier; /* malloc'd by the parser */
  size_t nearlier;
  const char *changed;
} noise_args;

#define A(m) GB_OPT_AT(noise_args, m)
static const gb_opt k_opts[] = {
    {"out", 'o', "FILE", "write the floors there (default: standard output)", GB_OPT_PATH, A(out), .ext = "csv",
     .writes = GB_OPT_WRITES_FILE},
    {"earlier", 0, "RUN.csv|DIR", "runs of an earlier build (repeatable): all their figures\n"
     "but those of --changed count", GB_OPT_LIST, A(earlier), GB_OPT_COUNT(noise_args, nearlier), .ext = "csv"},
    {"changed", 0, "LIST", "what this build measures differently, left out of the\n"
     "--earlier runs: BENCHMARK or BENCHMARK/CASE (its speedups\n"
     "too), joined by commas: gemm/fp64,membw", GB_OPT_STRING, A(changed)},
    {0}};

const gb_opt_cmd gb_noise_cmd = {
    .name = "noise",
    .synopsis = "[OPTIONS] RUN.csv|DIR...",
    .summary = "measure the gate's noise floors from several independent runs of one build",
    .description =
        "Measures how much each figure moves between independent runs of the same build\n"
        "(each run its own process: `gpubench run --out runN.csv`, N >= 2, better 6) on\n"
        "one GPU type, and writes one noise floor per benchmark, metric and size class:\n"
        "sigma = 2 x median |ln(x_i / x_j)| over every pair of runs / (0.6745 x sqrt 2),\n"
        "the robust standard deviation of one run in ln units with a safety factor of 2,\n"
        "plus a row for each figure measured in 6 or more runs, or whose own spread is\n"
        "wider than its class's: its spread over the runs, shrunk towards the class's\n"
        "(scope \"any\"; compare takes it over the class's). Where runs record their\n"
        "GPU (gpu_uuid), each class also gets a row of scope \"same-gpu\" from the pairs\n"
        "of runs on one card only, which compare uses for two --repeat runs of one card.\n"
        "`gpubench compare --noise FILE` judges each figure against these floors\n"
        "(docs/ci.md, data/noise/README.md).\n"
        "\n"
        "Runs of an earlier build keep what they saw of the figures a change did not\n"
        "touch: `gpubench noise new/ --earlier old/ --changed gemm/fp64` measures fp64\n"
        "GEMM (and its speedups) from new/ only and everything else from both.",
    .options = k_opts,
    .operands = {.metavar = "RUN.csv|DIR...", .help = "the results files of the runs, or directories of them",
                 .min = 1, .max = -1, .ext = "csv", A(inputs), GB_OPT_COUNT(noise_args, ninputs),
                 .missing = "needs the results CSVs of at least 2 independent runs"},
    .exit_status = "0 written; 2 bad usage or input (fewer than 2 runs, mixed GPU types, a file\n"
                   "with no rows).",
};
#undef A

int gb_cmd_noise(int argc, char **argv) {
  noise_args a;
  memset(&a, 0, sizeof a);
  int rc = gb_cli_parse(&gb_noise_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_opt_free(&gb_noise_cmd, &a);
    return rc;
  }
  const char *out = a.out;
  gb_results res = {0};
  gb_noise_table t;
  memset(&t, 0, sizeof t);
  gb_buf b = {0};
  gb_err e = GB_OK;
  if (a.nearlier && !a.changed)
    e = gb_fail(GB_E_USAGE, "--earlier needs --changed: what the build measures differently since those runs");
  else if (a.changed && !a.nearlier)
    e = gb_fail(GB_E_USAGE, "--changed needs --earlier: the runs of the earlier build");
  else if (a.changed)
    e = gb_noise_check_selectors("--changed", a.changed);
  if (!e) e = gb_output_guard(&out, 1, a.inputs, a.ninputs, 0);
  if (!e) e = gb_output_guard(&out, 1, a.earlier, a.nearlier, 0);
  if (!e) e = gb_gate_read_side((char *const *)a.inputs, a.ninputs, true, &res);
  if (!e && a.nearlier) {
    /* the earlier runs' rows follow the operands'; the changed ones go */
    size_t from = res.nrows;
    e = gb_gate_read_side((char *const *)a.earlier, a.nearlier, true, &res);
    if (!e) gb_noise_leave_out(&res, from, a.changed);
  }
  if (!e) e = gb_noise_measure(&res, &t);
  if (!e) e = gb_noise_write(&t, &b);
  if (!e && out) e = gb_write_file_atomic(out, b.data, b.len);
  rc = 0;
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
  gb_opt_free(&gb_noise_cmd, &a);
  return rc;
}
