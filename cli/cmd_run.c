/* gpubench run: the campaign runner's front end. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_device.h"
#include "gb_num.h"
#include "gb_runner.h"

/* not yet on an option table: its --help is below */
const gb_opt_cmd gb_run_cmd = {.name = "run", .summary = "run benchmarks into a results CSV"};

static void help(void) {
  printf("Usage: gpubench run [--bench LIST] [--quick|--full] [--devices LIST] [--out FILE]\n"
         "                    [--resume FILE] [--repeat N] [--warmup N] [--iters N] [--opt K=V,...]\n"
         "                    [--telemetry-ms N]\n"
         "\n"
         "Runs benchmarks on the local GPUs and appends one row per measured point and\n"
         "metric to a results CSV (see docs/results-schema.md). Every finished case is on\n"
         "disk at once: a kill or Ctrl-C loses at most the case in flight, and --resume\n"
         "continues where the file stops. While it runs, FILE.committed records how much\n"
         "of FILE is complete; after a kill, the next run cuts FILE back to that\n"
         "(docs/reliability.md).\n"
         "\n"
         "Options:\n"
         "  --bench LIST     comma-separated benchmarks (default: all); --list shows them\n"
         "  --quick          the quick profile (default)\n"
         "  --full           the full profile (every size and shape)\n"
         "  --devices LIST   CUDA device ordinals, e.g. 0 or 0,1 (default: all). Single-GPU\n"
         "                   benchmarks run on the first; collectives use all of them\n"
         "  --out FILE       results file, appended to (default: results.csv; - = stdout)\n"
         "  --resume FILE    continue FILE: skip the cases it already holds\n"
         "  --repeat N       run every case N times, each repetition its own row (rep)\n"
         "  --warmup N       warm-up operations per case (default: per benchmark)\n"
         "  --iters N        timed samples per case (default: per benchmark)\n"
         "  --graph          time short kernels through CUDA-graph replay where supported\n"
         "  --telemetry-ms N sample clocks, power, temperature and throttle reasons through\n"
         "                   NVML every N ms while cases run (default 20; 0 = off: no telemetry\n"
         "                   columns and no throttled status, to rule the sampler out)\n"
         "  --opt K=V,...    benchmark-specific options (see docs/)\n"
         "  --list           list the benchmarks and exit\n"
         "  -h, --help       this help\n"
         "\n"
         "--warmup, --iters, --graph and the --opt keys that change how a case is measured\n"
         "(gemm.timing, gemm.rest_ms, gemm.candidate, ...) go into the rows' settings column\n"
         "(e.g. iters=30,gemm.timing=pairs): --resume, gpubench compare and gpubench plan\n"
         "keep those rows apart from the defaults' ones.\n"
         "\n"
         "Exit codes: 0 every row ok, 1 a result check failed (a row is invalid) or the run\n"
         "stopped early, 2 bad usage or an unwritable output, 3 no usable GPU.\n");
}

/* The registered benchmarks, one a line: to stdout for --list (data), to
 * stderr after an unknown-benchmark error (a diagnostic). */
static void list_benches(FILE *fp) {
  for (size_t i = 0; gb_benches[i]; i++) fprintf(fp, "%-12s %s\n", gb_benches[i]->name, gb_benches[i]->summary);
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out) {
  int64_t v;
  if (!gb_parse_i64(s, &v) || v < lo || v > hi)
    return gb_cli_usage_error("run", "%s: expected an integer from %d to %d, got '%s'", opt, lo, hi, s);
  *out = (int)v;
  return 0;
}

int gb_run_parse_args(int argc, char **argv, gb_run_args *a) {
  enum {
    O_BENCH = 1, O_QUICK, O_FULL, O_DEVICES, O_OUT, O_RESUME, O_REPEAT, O_WARMUP, O_ITERS, O_GRAPH, O_OPT, O_LIST,
    O_TELEMETRY
  };
  static const struct option opts[] = {
      {"bench", required_argument, NULL, O_BENCH},   {"quick", no_argument, NULL, O_QUICK},
      {"full", no_argument, NULL, O_FULL},           {"devices", required_argument, NULL, O_DEVICES},
      {"out", required_argument, NULL, O_OUT},       {"resume", required_argument, NULL, O_RESUME},
      {"repeat", required_argument, NULL, O_REPEAT}, {"warmup", required_argument, NULL, O_WARMUP},
      {"iters", required_argument, NULL, O_ITERS},   {"graph", no_argument, NULL, O_GRAPH},
      {"opt", required_argument, NULL, O_OPT},       {"list", no_argument, NULL, O_LIST},
      {"telemetry-ms", required_argument, NULL, O_TELEMETRY},
      {"help", no_argument, NULL, 'h'},              {0, 0, 0, 0}};
  memset(a, 0, sizeof *a);
  a->warmup = -1;
  a->iters = -1;
  a->repeat = 1;
  a->telemetry_ms = GB_TELEMETRY_DEFAULT_MS;
  int ch, rc;
  /* 0, not 1: glibc then also forgets a half-read "-abc" cluster of an
   * earlier parse in this process (tests and the fuzzer parse many times) */
  optind = 0;
  opterr = 1;
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
    case O_BENCH: a->bench_list = optarg; break;
    case O_QUICK: a->full = false; break;
    case O_FULL: a->full = true; break;
    case O_DEVICES: a->devices = optarg; break;
    case O_OUT: a->out = optarg; break;
    case O_RESUME: a->resume = optarg; break;
    case O_REPEAT: if ((rc = parse_int("--repeat", optarg, 1, 1000, &a->repeat))) return rc; break;
    case O_WARMUP: if ((rc = parse_int("--warmup", optarg, 0, 100000, &a->warmup))) return rc; break;
    case O_ITERS: if ((rc = parse_int("--iters", optarg, 1, 1000000, &a->iters))) return rc; break;
    case O_GRAPH: a->graph = true; break;
    case O_TELEMETRY:
      if ((rc = parse_int("--telemetry-ms", optarg, 0, 10000, &a->telemetry_ms))) return rc;
      break;
    case O_OPT: a->bench_opts = optarg; break;
    case O_LIST: a->list = true; return 0;
    case 'h': help(); return 0;
    default: return gb_cli_usage_error("run", "unknown option");
    }
  }
  if (optind < argc) return gb_cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
  if (a->out && a->resume && strcmp(a->out, a->resume) != 0)
    return gb_cli_usage_error("run", "--out and --resume name different files; --resume FILE appends to FILE");
  return GB_CLI_CONTINUE;
}

int gb_cmd_run(int argc, char **argv) {
  gb_run_args a;
  int prc = gb_run_parse_args(argc, argv, &a);
  if (a.list) list_benches(stdout);
  if (prc != GB_CLI_CONTINUE) return prc;
  gb_campaign c;
  memset(&c, 0, sizeof c);
  c.run.profile = a.full ? GB_PROFILE_FULL : GB_PROFILE_QUICK;
  c.run.warmup = a.warmup;
  c.run.iters = a.iters;
  c.run.repeat = a.repeat;
  c.run.graph = a.graph;
  c.run.bench_opts = a.bench_opts;
  c.telemetry_ms = a.telemetry_ms > 0 ? a.telemetry_ms : -1;
  c.out_path = "results.csv";
  const char *bench_list = a.bench_list, *devices = a.devices, *out = a.out, *resume = a.resume;
  if (resume) {
    c.out_path = resume;
    c.resume = true;
    if (access(resume, F_OK) != 0)
      return gb_cli_usage_error("run", "--resume %s: no such file (use --out to start a new one)", resume);
  } else if (out) {
    c.out_path = out;
  }

  /* benchmarks */
  if (!bench_list) {
    for (size_t i = 0; gb_benches[i] && c.nbenches < 32; i++) c.benches[c.nbenches++] = gb_benches[i];
  } else {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", bench_list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      const gb_bench *b = gb_bench_find(tok);
      if (!b) {
        fprintf(stderr, "gpubench run: unknown benchmark '%s'; known:\n", tok);
        list_benches(stderr);
        return 2;
      }
      for (int i = 0; i < c.nbenches; i++)
        if (c.benches[i] == b) return gb_cli_usage_error("run", "benchmark '%s' named twice", tok);
      if (c.nbenches == 32) return gb_cli_usage_error("run", "too many benchmarks");
      c.benches[c.nbenches++] = b;
    }
  }

  gb_system_info sys;
  gb_err e = gb_system_query(&sys);
  if (e) {
    fprintf(stderr, "gpubench run: %s\n", gb_errmsg());
    return gb_exit_code(e);
  }
  if (devices) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", devices);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      int d;
      int64_t v;
      if (!gb_parse_i64(tok, &v) || v < 0)
        return gb_cli_usage_error("run", "--devices: '%s' is not a device ordinal", tok);
      if (v >= sys.ndev)
        return gb_cli_usage_error("run", "--devices: GPU %lld does not exist (this machine has %d: 0..%d)",
                                  (long long)v, sys.ndev, sys.ndev - 1);
      d = (int)v;
      for (int i = 0; i < c.run.ndevices; i++)
        if (c.run.devices[i] == d) return gb_cli_usage_error("run", "--devices: GPU %d named twice", d);
      c.run.devices[c.run.ndevices++] = d;
    }
  } else {
    for (int i = 0; i < sys.ndev; i++) c.run.devices[c.run.ndevices++] = i;
  }

  c.progress = stderr;
  c.progress_bar = isatty(STDERR_FILENO);
  c.table = strcmp(c.out_path, "-") == 0 ? stderr : stdout;
  const gb_device_info *d = &sys.dev[c.run.devices[0]];
  fprintf(stderr, "gpubench run: %s profile on GPU %d (%s, %s), %d benchmark(s), results -> %s\n",
          c.run.profile == GB_PROFILE_FULL ? "full" : "quick", d->ordinal, d->name, d->gpu_type, c.nbenches,
          c.out_path);

  gb_campaign_result res;
  e = gb_campaign_run(&c, &sys, &res);
  fprintf(stderr,
          "\ngpubench run: %zu case(s) run, %zu skipped (already in the file); rows: %zu ok, %zu throttled, "
          "%zu invalid, %zu error -> %s\n",
          res.cases_run, res.cases_skipped, res.rows_ok, res.rows_throttled, res.rows_invalid, res.rows_error,
          c.out_path);
  if (e) {
    fprintf(stderr, "gpubench run: %s\n", gb_errmsg());
    if (e == GB_E_INTERRUPTED) return 1;
    return gb_exit_code(e);
  }
  if (res.rows_invalid) {
    fprintf(stderr, "gpubench run: %zu row(s) failed their result check (status invalid)\n", res.rows_invalid);
    return 1;
  }
  return 0;
}
