/* gpubench export: results as Prometheus text exposition, to standard output,
 * a .prom file for node_exporter's textfile collector, or a Pushgateway.
 * No CUDA here (core/gb_prom.h). docs/monitoring.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_fleet.h"
#include "gb_output.h"
#include "gb_prom.h"
#include "gb_store.h"

typedef struct export_args {
  const char *format;
  const char *out, *push, *job, *instance;
  const char *cacert, *netrc, *token_file;
  int timeout_ms;
  const char **files;
  size_t nfiles;
  const char *store;
  bool csv;
} export_args;

#define A(m) GB_OPT_AT(export_args, m)
static const gb_opt k_opts[] = {
    /* a string, not a GB_OPT_CHOICE: tests/check_cli.c reads a command's first
     * `compgen -W` as its option list, which a choice's values would precede */
    {"format", 0, "FORMAT", "output format: prometheus (the only one, the default)", GB_OPT_STRING, A(format)},
    {"out", 'o', "FILE", "write FILE.prom atomically (temp file + rename), for\nnode_exporter's textfile collector",
     GB_OPT_PATH, A(out), .ext = "prom", .writes = GB_OPT_WRITES_FILE},
    {"push", 0, "URL", "PUT to the Pushgateway at URL (http://host:port or\nhttps://host:port), replacing the group of --job and --instance",
     GB_OPT_STRING, A(push)},
    {"job", 0, "NAME", "Pushgateway job label (default gpubench)", GB_OPT_STRING, A(job)},
    {"instance", 0, "NAME", "Pushgateway instance label (default this host's name)", GB_OPT_STRING, A(instance)},
    {"timeout", 0, "MS", "Pushgateway deadline for the whole push, ms (default 10000)", GB_OPT_INT, A(timeout_ms),
     .min = 1, .max = 600000},
    {"cacert", 0, "FILE", "https: trust the CA certificate(s) in FILE (PEM) instead of\nthe system's", GB_OPT_PATH,
     A(cacert), .group = "Pushgateway credentials"},
    {"netrc-file", 0, "FILE", "https: basic auth from FILE instead of ~/.netrc", GB_OPT_PATH, A(netrc)},
    {"token-file", 0, "FILE", "https: a bearer token from FILE (also $GPUBENCH_PUSH_TOKEN_FILE);\n"
     "never on the command line", GB_OPT_PATH, A(token_file)},
    {"store", 0, "URL", "read from this results store: each operand is a selection\n"
     "(\"campaign=C,host=H\", \"all\"; docs/store.md)", GB_OPT_STRING, A(store), .set = gb_store_opt_url, .group = "Store"},
    GB_STORE_TIMEOUT_OPT,
    {"csv", 0, NULL, "with --store: write the one selection as a results CSV to\nstandard output instead",
     GB_OPT_FLAG, A(csv)},
    {0}};

const gb_opt_cmd gb_export_cmd = {
    .name = "export",
    .synopsis = "[OPTIONS] RESULTS.csv...",
    .summary = "export the newest run per machine as Prometheus metrics (textfile, Pushgateway)",
    .description =
        "Reads results files and writes every figure of the newest run of each machine (host\n"
        "and GPU type) in the Prometheus text format: one gauge family per benchmark and\n"
        "metric, gpubench_<benchmark>_<quantity>_<base unit> (gemm tflops ->\n"
        "gpubench_gemm_throughput_flops_per_second), labels gpu_type, host, gpu_count,\n"
        "case, dtype, size and status; the datasheet peak as ..._peak_<base unit>;\n"
        "gpubench_run_info (versions, run id) and gpubench_run_timestamp_seconds.\n"
        "\n"
        "Without --out or --push the text goes to standard output.\n"
        "\n"
        "A push over https:// authenticates with, in this order, a bearer token\n"
        "(--token-file, $GPUBENCH_PUSH_TOKEN_FILE or $GPUBENCH_PUSH_TOKEN), basic auth\n"
        "from $GPUBENCH_PUSH_USER and $GPUBENCH_PUSH_PASSWORD, or ~/.netrc; an http://\n"
        "push carries no credentials. Proxies come from http_proxy, https_proxy and\n"
        "no_proxy.",
    .options = k_opts,
    .operands = {.metavar = "RESULTS.csv...", .help = "results files", .min = 1, .max = -1, .ext = "csv",
                 A(files), GB_OPT_COUNT(export_args, nfiles), .missing = "needs at least one results CSV"},
    .notes = "docs/monitoring.md lists the metrics and their DCGM counterparts.",
    .exit_status = "0 written; 1 the Pushgateway refused or could not be reached; 2 bad usage\n"
                   "or input (a results file without a row).",
};
#undef A

/* --store --csv: the selection back as a results file on standard output. */
static int export_store_csv(const export_args *a) {
  if (a->nfiles != 1) return gb_cli_usage_error("export", "--csv writes one selection, not %zu", a->nfiles);
  gb_store *s = NULL;
  size_t n = 0;
  gb_err e = gb_store_open_read(a->store, &s);
  if (!e) e = gb_store_write_csv(s, a->files[0], stdout, &n);
  gb_store_close(s);
  if (e) fprintf(stderr, "gpubench export: %s\n", gb_errmsg());
  else fprintf(stderr, "gpubench export: %zu row(s)\n", n);
  return e ? (e == GB_E_USAGE || e == GB_E_INPUT ? 2 : 1) : 0;
}

int gb_cmd_export(int argc, char **argv) {
  export_args a = {.job = "gpubench", .timeout_ms = GB_PUSH_TIMEOUT_MS};
  int rc = gb_cli_parse(&gb_export_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_opt_free(&gb_export_cmd, &a);
    return rc;
  }
  if (a.format && strcmp(a.format, "prometheus") != 0) {
    gb_opt_free(&gb_export_cmd, &a);
    return gb_cli_usage_error("export", "--format: not one of prometheus: \"%s\"", a.format);
  }
  /* the store is an input: no output over it, standard output included */
  if (gb_store_guard(a.store, false, &a.out, 1, a.files, a.store ? 0 : a.nfiles, 0)) {
    fprintf(stderr, "gpubench export: %s\n", gb_errmsg());
    gb_opt_free(&gb_export_cmd, &a);
    return 2;
  }
  if (a.csv || a.store) {
    rc = !a.store ? gb_cli_usage_error("export", "--csv needs --store") : a.csv ? export_store_csv(&a) : -1;
    if (rc >= 0) {
      gb_opt_free(&gb_export_cmd, &a);
      return rc;
    }
  }
  char hostname[256] = "";
  if (!a.instance) {
    if (gethostname(hostname, sizeof hostname - 1) != 0 || !hostname[0]) strcpy(hostname, "localhost");
    a.instance = hostname;
  }
  gb_results res = {0};
  gb_buf text = {0};
  gb_err e = GB_OK;
  rc = 2;
  if (a.store) e = gb_store_read_url(a.store, (char *const *)a.files, a.nfiles, &res);
  for (size_t i = 0; i < a.nfiles && !e && !a.store; i++) {
    size_t before = res.nrows;
    e = gb_results_read(a.files[i], &res);
    if (!e && res.nrows == before) e = gb_fail(GB_E_INPUT, "%s: no results rows (a header only)", a.files[i]);
  }
  size_t n = 0;
  if (!e) e = gb_prom_export_results(&res, &text, &n);
  if (!e) e = gb_fleet_prom(&res, &text, &n); /* 3+ nodes of one campaign: each node's fleet verdict */
  if (!e && !text.data) e = gb_buf_puts(&text, "");
  if (e) goto done;
  if (a.out && (e = gb_write_file_atomic(a.out, text.data, text.len))) goto done;
  if (a.push) {
    gb_push_opts po = {.timeout_ms = a.timeout_ms, .cacert = a.cacert, .netrc = a.netrc, .token_file = a.token_file};
    e = gb_prom_push(a.push, a.job, a.instance, text.data, text.len, &po);
    if (e) {
      rc = e == GB_E_USAGE ? 2 : 1;
      goto done;
    }
  }
  if (!a.out && !a.push) {
    fwrite(text.data, 1, text.len, stdout);
    if (fflush(stdout) != 0) {
      e = gb_fail(GB_E_IO, "writing to standard output failed");
      rc = 1;
      goto done;
    }
  }
  if (a.out || a.push)
    fprintf(stderr, "gpubench export: %zu figures%s%s%s%s\n", n, a.out ? " to " : "", a.out ? a.out : "",
            a.push ? " pushed to " : "", a.push ? a.push : "");
  rc = 0;
done:
  if (e) fprintf(stderr, "gpubench export: %s\n", gb_errmsg());
  gb_buf_free(&text);
  gb_results_free(&res);
  gb_opt_free(&gb_export_cmd, &a);
  return rc;
}
