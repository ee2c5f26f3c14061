/* gpubench history: reads many results files (or directories of them),
 * builds each figure's series over runs and names the runs where a figure
 * shifted (E-divisive means with a permutation test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_history.h"
#include "gb_num.h"

static void usage(FILE *fp) {
  gb_cp_options d = gb_cp_defaults();
  fprintf(fp,
          "Usage: gpubench history CSV...|DIR... [OPTIONS]\n"
          "\n"
          "Groups the rows of every file (a directory contributes its *.csv files) by run_id,\n"
          "orders the runs by time, and for each figure (gpu_type, gpu_count, benchmark, case,\n"
          "dtype, m, n, k, bytes, metric) takes the median of its ok rows in each run. Each\n"
          "series is tested for change points by E-divisive means (as Apache Otava does):\n"
          "the strongest split is accepted when a permutation test finds it significant, and\n"
          "the search goes on in the pieces. Each side of a change holds at least\n"
          "--min-segment runs, so a one-run spike is never a change.\n"
          "\n"
          "Options:\n"
          "  --min-segment N   runs on each side of a change (default %zu, at least 2)\n"
          "  --permutations N  shuffles per significance test (default %zu)\n"
          "  --alpha A         accept a change when p <= A (default %g)\n"
          "  --seed N          seed of the shuffles, for repeatable results (default %llu)\n"
          "  --all             list every series, not only those with a change\n"
          "  -h, --help        show this help\n"
          "\n"
          "Exit codes: 0 analyzed (change points or not); 2 bad usage or input; 3 no series\n"
          "had enough runs to test (2 x --min-segment).\n",
          d.min_segment, d.permutations, d.alpha, (unsigned long long)d.seed);
}

static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n) != 0) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int parse_count(const char *cmd, const char *opt, const char *v, int64_t lo, int64_t hi, int64_t *out) {
  if (!gb_parse_i64(v, out) || *out < lo || *out > hi)
    return gb_cli_usage_error(cmd, "%s: not a whole number from %lld to %lld: \"%s\"", opt, (long long)lo,
                              (long long)hi, v);
  return 0;
}

int gb_cmd_history(int argc, char **argv) {
  const char *cmd = "history";
  if (gb_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  gb_cp_options opt = gb_cp_defaults();
  char **inputs = calloc((size_t)argc, sizeof *inputs);
  if (!inputs) return 2;
  size_t ninputs = 0;
  int all = 0, rc = 2;
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    int64_t v64;
    const char *v;
    if ((v = opt_value(argc, argv, &i, "--min-segment", &missing))) {
      if ((rc = parse_count(cmd, "--min-segment", v, 2, 1000000, &v64))) goto out;
      opt.min_segment = (size_t)v64;
    } else if ((v = opt_value(argc, argv, &i, "--permutations", &missing))) {
      if ((rc = parse_count(cmd, "--permutations", v, 1, 1000000, &v64))) goto out;
      opt.permutations = (size_t)v64;
    } else if ((v = opt_value(argc, argv, &i, "--seed", &missing))) {
      if ((rc = parse_count(cmd, "--seed", v, 0, INT64_MAX, &v64))) goto out;
      opt.seed = (uint64_t)v64;
    } else if ((v = opt_value(argc, argv, &i, "--alpha", &missing))) {
      if (!gb_parse_double(v, &opt.alpha) || !(opt.alpha > 0 && opt.alpha < 1)) {
        rc = gb_cli_usage_error(cmd, "--alpha: not a number between 0 and 1: \"%s\"", v);
        goto out;
      }
    } else if (missing) {
      rc = gb_cli_usage_error(cmd, "%s needs a value", argv[i]);
      goto out;
    } else if (strcmp(argv[i], "--all") == 0) {
      all = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      rc = gb_cli_usage_error(cmd, "unknown option \"%s\"", argv[i]);
      goto out;
    } else {
      inputs[ninputs++] = argv[i];
    }
  }
  rc = 2;
  if (ninputs == 0) {
    rc = gb_cli_usage_error(cmd, "needs at least one results CSV or directory");
    goto out;
  }
  char **paths = NULL;
  size_t npaths = 0;
  gb_results res = {0};
  gb_history h;
  memset(&h, 0, sizeof h);
  gb_buf text = {0};
  gb_err e = gb_history_collect_paths(inputs, ninputs, &paths, &npaths);
  for (size_t i = 0; i < npaths && !e; i++) e = gb_results_read(paths[i], &res);
  if (!e) e = gb_history_build(&res, &opt, &h);
  if (!e) e = gb_history_format_text(&h, all, &text);
  if (e) {
    fprintf(stderr, "gpubench history: %s\n", gb_errmsg());
  } else {
    fwrite(text.data, 1, text.len, stdout);
    fflush(stdout);
    rc = h.nanalyzed ? 0 : 3;
    if (rc == 3)
      fprintf(stderr, "gpubench history: no figure has %zu runs (2 x --min-segment) to test\n", 2 * opt.min_segment);
  }
  gb_buf_free(&text);
  gb_history_free(&h);
  gb_results_free(&res);
  gb_history_free_paths(paths, npaths);
out:
  free(inputs);
  return rc;
}
