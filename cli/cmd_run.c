/* gpubench run: the campaign runner's front end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_device.h"
#include "gb_num.h"
#include "gb_output.h"
#include "gb_runner.h"
#include "gb_store.h"

/* --opt, repeatable: each value appended to opts_text after a comma, so
 * `--opt a=1 --opt b=2` is `--opt a=1,b=2` in every way. */
static int add_opts(void *args, const gb_opt *opt, const char *val, char *err, size_t errlen) {
  gb_run_args *a = args;
  size_t used = strlen(a->opts_text), len = strlen(val);
  if (used + (used > 0) + len >= sizeof a->opts_text) {
    snprintf(err, errlen, "--%s: the values given are over %zu bytes together", opt->name,
             sizeof a->opts_text - 1);
    return -1;
  }
  if (used > 0) a->opts_text[used++] = ',';
  memcpy(a->opts_text + used, val, len + 1);
  return 0;
}

#define A(m) GB_OPT_AT(gb_run_args, m)
static const gb_opt k_opts[] = {
    {"bench", 0, "LIST", "comma-separated benchmarks (default: all); --list shows them", GB_OPT_STRING, A(bench_list)},
    {"quick", 0, NULL, "the quick profile (default)", GB_OPT_FLAG, A(full), .clear = true},
    {"full", 0, NULL, "the full profile (every size and shape)", GB_OPT_FLAG, A(full)},
    {"devices", 0, "LIST", "CUDA device ordinals, e.g. 0 or 0,1 (default: all). Single-GPU\n"
     "benchmarks run on the first; collectives use all of them", GB_OPT_STRING, A(devices)},
    {"out", 0, "FILE", "results file, appended to (default: results.csv; - = stdout)", GB_OPT_PATH, A(out),
     .ext = "csv", .writes = GB_OPT_WRITES_FILE},
    {"resume", 0, "FILE", "continue FILE: skip the cases it already holds", GB_OPT_PATH, A(resume),
     .ext = "csv", .writes = GB_OPT_WRITES_FILE},
    {"repeat", 0, "N", "run every case N times, each repetition its own row (rep)", GB_OPT_INT, A(repeat), .min = 1,
     .max = 1000},
    {"warmup", 0, "N", "warm-up operations per case (default: per benchmark)", GB_OPT_INT, A(warmup), .min = 0,
     .max = 100000},
    {"iters", 0, "N", "timed samples per case (default: per benchmark)", GB_OPT_INT, A(iters), .min = 1,
     .max = 1000000},
    {"graph", 0, NULL, "time short kernels through CUDA-graph replay where supported", GB_OPT_FLAG, A(graph)},
    {"telemetry-ms", 0, "N", "sample clocks, power, temperature and throttle reasons through\n"
     "NVML every N ms while cases run (default 20; 0 = off: no telemetry\n"
     "columns and no throttled status, to rule the sampler out)", GB_OPT_INT, A(telemetry_ms), .min = 0,
     .max = 10000},
    {"opt", 0, "K=V,...", "benchmark-specific options (see docs/); repeatable: the values\n"
     "add up, as one --opt listing them all", GB_OPT_CALL, .set = add_opts},
    {"list", 0, NULL, "list the benchmarks and exit", GB_OPT_FLAG, A(list)},
    {"store", 0, "URL", "also append each case's rows to this results store as it is\nmeasured (SQLite PATH or "
     "postgresql://...; docs/store.md)", GB_OPT_STRING, A(store), .set = gb_store_opt_url},
    GB_STORE_TIMEOUT_OPT,
    {0}};
#undef A

const gb_opt_cmd gb_run_cmd = {
    .name = "run",
    .synopsis = "[OPTIONS]",
    .summary = "run benchmarks into a results CSV",
    .description =
        "Runs benchmarks on the local GPUs and appends one row per measured point and\n"
        "metric to a results CSV (see docs/results-schema.md). Every finished case is on\n"
        "disk at once: a kill or Ctrl-C loses at most the case in flight, and --resume\n"
        "continues where the file stops. While it runs, FILE.committed records how much\n"
        "of FILE is complete; after a kill, the next run cuts FILE back to that\n"
        "(docs/reliability.md).\n"
        "\n"
        "With --store URL each case's rows also go into a results store once the file\n"
        "has them; the run is marked finished there only when the campaign ends\n"
        "normally, so a killed one stays marked incomplete (docs/store.md).",
    .options = k_opts,
    .notes = "--warmup, --iters, --graph and the --opt keys that change how a case is measured\n"
             "(gemm.timing, gemm.rest_ms, gemm.candidate, ...) go into the rows' settings column\n"
             "(e.g. iters=30,gemm.timing=pairs): --resume, gpubench compare and gpubench plan\n"
             "keep those rows apart from the defaults' ones.",
    .exit_status = "0 every row ok, 1 a result check failed (a row is invalid) or the run\n"
                   "stopped early, 2 bad usage or an unwritable output, 3 no usable GPU.",
};

#ifndef GB_CLI_SPEC_ONLY
/* The registered benchmarks, one a line: to stdout for --list (data), to
 * stderr after an unknown-benchmark error (a diagnostic). */
static void list_benches(FILE *fp) {
  for (size_t i = 0; gb_benches[i]; i++) fprintf(fp, "%-12s %s\n", gb_benches[i]->name, gb_benches[i]->summary);
}

/* --bench LIST (default every registered benchmark) into c->benches:
 * GB_CLI_CONTINUE, or the exit code of a bad list. */
static int pick_benches(gb_campaign *c, const char *bench_list) {
  if (!bench_list) {
    for (size_t i = 0; gb_benches[i] && c->nbenches < 32; i++) c->benches[c->nbenches++] = gb_benches[i];
    return GB_CLI_CONTINUE;
  }
  char buf[512];
  snprintf(buf, sizeof buf, "%s", bench_list);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    const gb_bench *b = gb_bench_find(tok);
    if (!b) {
      fprintf(stderr, "gpubench run: unknown benchmark '%s'; known:\n", tok);
      list_benches(stderr);
      return 2;
    }
    for (int i = 0; i < c->nbenches; i++)
      if (c->benches[i] == b) return gb_cli_usage_error("run", "benchmark '%s' named twice", tok);
    if (c->nbenches == 32) return gb_cli_usage_error("run", "too many benchmarks");
    c->benches[c->nbenches++] = b;
  }
  return GB_CLI_CONTINUE;
}

/* --devices LIST (default every GPU of sys) into c->run.devices:
 * GB_CLI_CONTINUE, or the exit code of a bad list. */
static int pick_devices(gb_campaign *c, const char *devices, const gb_system_info *sys) {
  if (!devices) {
    for (int i = 0; i < sys->ndev; i++) c->run.devices[c->run.ndevices++] = i;
    return GB_CLI_CONTINUE;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", devices);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int d;
    int64_t v;
    if (!gb_parse_i64(tok, &v) || v < 0)
      return gb_cli_usage_error("run", "--devices: '%s' is not a device ordinal", tok);
    if (v >= sys->ndev)
      return gb_cli_usage_error("run", "--devices: GPU %lld does not exist (this machine has %d: 0..%d)",
                                (long long)v, sys->ndev, sys->ndev - 1);
    d = (int)v;
    for (int i = 0; i < c->run.ndevices; i++)
      if (c->run.devices[i] == d) return gb_cli_usage_error("run", "--devices: GPU %d named twice", d);
    c->run.devices[c->run.ndevices++] = d;
  }
  return GB_CLI_CONTINUE;
}

#endif

int gb_run_parse_args(int argc, char **argv, gb_run_args *a) {
  memset(a, 0, sizeof *a);
  a->warmup = -1;
  a->iters = -1;
  a->repeat = 1;
  a->telemetry_ms = GB_TELEMETRY_DEFAULT_MS;
  int rc = gb_cli_parse(&gb_run_cmd, argc, argv, a);
  a->bench_opts = a->opts_text[0] ? a->opts_text : NULL;
  if (rc != GB_CLI_CONTINUE) {
    a->list = false;
    return rc;
  }
  if (a->list) return 0; /* gb_cmd_run prints the list */
  if (a->out && a->resume && strcmp(a->out, a->resume) != 0)
    return gb_cli_usage_error("run", "--out and --resume name different files; --resume FILE appends to FILE");
  return GB_CLI_CONTINUE;
}

#ifdef GB_CLI_SPEC_ONLY
/* The gpubench program (no CUDA): --help and usage errors here, the rest in
 * the measuring module, which parses again (cli/gb_measure.c). */
int gb_cmd_run(int argc, char **argv) {
  gb_run_args a;
  int prc = gb_run_parse_args(argc, argv, &a);
  if (prc != GB_CLI_CONTINUE && !a.list) return prc;
  return gb_measure_call("run", argc, argv);
}
#else
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
  if (gb_store_guard(a.store, true, &c.out_path, 1, NULL, 0, GB_OUT_MEASURED_OK))
    return fprintf(stderr, "gpubench run: %s\n", gb_errmsg()), 2;

  int rc = pick_benches(&c, bench_list);
  if (rc != GB_CLI_CONTINUE) return rc;

  gb_system_info sys;
  gb_err e = gb_system_query(&sys);
  if (e) {
    fprintf(stderr, "gpubench run: %s\n", gb_errmsg());
    return gb_exit_code(e);
  }
  if ((rc = pick_devices(&c, devices, &sys)) != GB_CLI_CONTINUE) return rc;

  c.progress = stderr;
  c.progress_bar = isatty(STDERR_FILENO);
  c.table = strcmp(c.out_path, "-") == 0 ? stderr : stdout;
  const gb_device_info *d = &sys.dev[c.run.devices[0]];
  fprintf(stderr, "gpubench run: %s profile on GPU %d (%s, %s), %d benchmark(s), results -> %s\n",
          c.run.profile == GB_PROFILE_FULL ? "full" : "quick", d->ordinal, d->name, d->gpu_type, c.nbenches,
          c.out_path);

  gb_store_sink *sink = NULL;
  gb_row_sink store_sink = {gb_store_sink_row, gb_store_sink_commit, NULL};
  if (a.store && (e = gb_store_sink_open(a.store, &sink)))
    return fprintf(stderr, "gpubench run: %s\n", gb_errmsg()), e == GB_E_IO ? 1 : 2;
  if (sink) fprintf(stderr, "gpubench run: each case's rows also into %s\n", gb_store_sink_where(sink));
  store_sink.ctx = sink;
  if (sink) c.sink = &store_sink;
  gb_campaign_result res;
  e = gb_campaign_run(&c, &sys, &res);
  gb_err se = gb_store_sink_close(sink, !e); /* the run is finished in the store only if it finished */
  if (!e && se) e = se;
  if (res.opened)
    fprintf(stderr,
            "\ngpubench run: %zu case(s) run, %zu skipped (already in the file); rows: %zu ok, %zu throttled, "
            "%zu invalid, %zu error, %zu unsupported -> %s\n",
            res.cases_run, res.cases_skipped, res.rows_ok, res.rows_throttled, res.rows_invalid, res.rows_error,
            res.rows_unsupported, c.out_path);
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
#endif
