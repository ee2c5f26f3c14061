/* gpubench import: results files into a store (store/gb_store.h), each row
 * once however often a file is imported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "gb_cli.h"
#include "gb_input.h"
#include "gb_store.h"

typedef struct import_args {
  const char **files; /* malloc'd by the parser: gb_opt_free */
  size_t nfiles;
  const char *store, *campaign;
} import_args;

#define A(m) GB_OPT_AT(import_args, m)
static const gb_opt k_opts[] = {
    {"store", 0, "URL", "the store: a SQLite file (PATH or sqlite:PATH, created when\nmissing) or PostgreSQL "
     "(postgresql://..., or pg:CONNINFO)", GB_OPT_STRING, A(store), .set = gb_store_opt_url},
    GB_STORE_TIMEOUT_OPT,
    {"campaign", 0, "NAME", "the campaign the files' runs belong to (default: each run\nits own, named by its "
     "run_id)", GB_OPT_STRING, A(campaign)},
    {0}};

const gb_opt_cmd gb_import_cmd = {
    .name = "import",
    .synopsis = "--store URL [--campaign NAME] RESULTS.csv...",
    .summary = "load results files into a store (SQLite or PostgreSQL), idempotently",
    .description =
        "Reads every results file (validated as every reader does) and adds its rows to\n"
        "the store, one transaction per file. A run (run_id) is registered once, with its\n"
        "campaign, host, GPU, versions, build, profile and start; a row once per run,\n"
        "host, GPU, figure (benchmark, case, dtype, m, n, k, bytes, gpu_count, settings,\n"
        "variant, metric) and rep, so importing a file twice adds nothing. A file with a\n"
        "FILE.committed marker beside it (a campaign that was killed) is imported as an\n"
        "incomplete run; a finished file marks its run finished if the store held it\n"
        "unfinished (and says so). A run keeps the campaign it was first stored under:\n"
        "--campaign naming another is refused for that file (exit 2). compare, history\n"
        "and export then read the store with --store and selections (docs/store.md).\n"
        "\n"
        "Passwords never appear in messages; give them through PGPASSWORD, a service\n"
        "file (PGSERVICE) or ~/.pgpass rather than in the URL.",
    .options = k_opts,
    .operands = {.metavar = "RESULTS.csv...", .help = "the results files to import", .min = 1, .max = -1,
                 .ext = "csv", A(files), GB_OPT_COUNT(import_args, nfiles),
                 .missing = "needs at least one results file"},
    .exit_status = "0 imported; 1 the store failed (unreachable, a failed write); 2 bad usage\n"
                   "or an invalid file (nothing of that file is added).",
};
#undef A

int gb_cmd_import(int argc, char **argv) {
  import_args a = {0};
  int rc = gb_cli_parse(&gb_import_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_opt_free(&gb_import_cmd, &a);
    return rc;
  }
  if (!a.store) {
    gb_opt_free(&gb_import_cmd, &a);
    return gb_cli_usage_error("import", "needs --store URL");
  }
  /* the store is what import writes: never one of the files it reads */
  if (gb_store_guard(a.store, true, NULL, 0, a.files, a.nfiles, 0)) {
    fprintf(stderr, "gpubench import: %s\n", gb_errmsg());
    gb_opt_free(&gb_import_cmd, &a);
    return 2;
  }
  /* a file that cannot be read (missing, a directory, a FIFO, no
   * permission) is bad input, exit 2, found before the store is touched;
   * an I/O error after this is the store's (exit 1) */
  for (size_t i = 0; i < a.nfiles; i++) {
    int fd;
    if (gb_input_open(a.files[i], false, &fd)) {
      fprintf(stderr, "gpubench import: %s\n", gb_errmsg());
      gb_opt_free(&gb_import_cmd, &a);
      return 2;
    }
    close(fd);
  }
  gb_store *s = NULL;
  gb_store_counts c = {0};
  gb_err e = gb_store_open(a.store, &s);
  if (!e) fprintf(stderr, "gpubench import: into %s\n", gb_store_where(s));
  size_t done = 0;
  for (; done < a.nfiles && !e; done++) e = gb_store_import(s, a.files[done], a.campaign, &c);
  if (!e)
    fprintf(stderr, "gpubench import: %zu file(s): %zu row(s) added, %zu already stored; %zu new run(s)\n", a.nfiles,
            c.rows_added, c.rows_present, c.runs_added);
  if (!e && a.campaign && (strchr(a.campaign, ',') || a.campaign[0] == '"')) { /* the selection's delimiters */
    gb_buf q = {0};
    if (!gb_buf_puts(&q, "campaign=") && !gb_store_sel_quote(a.campaign, &q))
      fprintf(stderr, "gpubench import: the campaign's name holds a selection's delimiter: select it as '%s'\n", q.data);
    gb_buf_free(&q);
  }
  if (!e && c.runs_completed)
    fprintf(stderr, "gpubench import: %zu run(s) stored unfinished are now marked finished (their files are complete)\n",
            c.runs_completed);
  gb_store_close(s);
  gb_opt_free(&gb_import_cmd, &a);
  if (e) {
    fprintf(stderr, "gpubench import: %s\n", gb_errmsg());
    if (done > 1) fprintf(stderr, "gpubench import: the %zu file(s) before it were imported (each is one transaction)\n",
                          done - 1);
    return e == GB_E_INPUT || e == GB_E_USAGE ? 2 : 1;
  }
  return 0;
}
