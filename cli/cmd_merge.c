/* gpubench merge: one results file from many machines' files (a Slurm job
 * array's or a Kubernetes Indexed Job's nodes). The merging is core/gb_merge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_merge.h"
#include "gb_output.h"

typedef struct merge_args {
  const char **files; /* malloc'd by the parser: gb_opt_free */
  size_t nfiles;
  const char *out;
  const char *campaign;
  bool strict;
} merge_args;

#define A(m) GB_OPT_AT(merge_args, m)
static const gb_opt k_opts[] = {
    {"out", 'o', "FILE", "the merged results file, written whole and atomically\n(default: - = stdout)",
     GB_OPT_PATH, A(out), .ext = "csv", .writes = GB_OPT_WRITES_FILE},
    {"campaign", 0, "ID", "merge the rows of campaign ID (the campaign column, from\nGPUBENCH_CAMPAIGN); default: the campaign of the newest row", GB_OPT_STRING,
     A(campaign)},
    {"strict", 0, NULL, "exit 1 when two files hold the same row (run, case, rep, metric)\nwith other cells",
     GB_OPT_FLAG, A(strict)},
    {0}};

const gb_opt_cmd gb_merge_cmd = {
    .name = "merge",
    .synopsis = "[OPTIONS] RESULTS.csv... [--out FILE]",
    .summary = "merge many machines' results files into one (a fleet's campaign)",
    .description =
        "Reads every results file (each validated as gpubench run writes them) and writes\n"
        "one: the first file's header, then every file's rows in the order given.\n"
        "A file that does not read (a node's file torn by a crash) is skipped with the\n"
        "reason. One campaign is merged (--campaign, else the newest row's): rows of\n"
        "other campaigns, such as stale files of an earlier one, are left out and\n"
        "their files named. The files merged must have the same columns; a file that\n"
        "lacks one, or has one the first lacks, is refused naming the file and the\n"
        "column. A row that repeats\n"
        "an earlier one's run_id, case (benchmark, case, dtype, sizes, GPU count,\n"
        "settings), rep and metric is the same row seen twice and is dropped.\n"
        "\n"
        "gpubench report, compare and plan --measured read the merged file as one run's.\n"
        "deploy/slurm/ and deploy/k8s/ merge a job array's per-node files with it.",
    .options = k_opts,
    .operands = {.metavar = "RESULTS.csv...", .help = "the results files to merge", .min = 1, .max = -1,
                 .ext = "csv", A(files), GB_OPT_COUNT(merge_args, nfiles),
                 .missing = "needs at least one results file"},
    .exit_status = "0 merged (files of other campaigns may have been left out: listed);\n"
                   "1 with --strict, rows that disagree; 2 bad usage, no file left to merge, files\n"
                   "of different columns, or an unwritable output; 3 merged and written, but a\n"
                   "file did not read (torn or invalid) and was skipped: listed with the reason.",
};
#undef A

int gb_cmd_merge(int argc, char **argv) {
  merge_args a = {0};
  int rc = gb_cli_parse(&gb_merge_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_opt_free(&gb_merge_cmd, &a);
    return rc;
  }
  const char *out = a.out ? a.out : "-";
  gb_buf b = {0};
  gb_merge_stats st = {0};
  gb_err e = gb_output_guard(&out, 1, a.files, a.nfiles, 0);
  if (!e) e = gb_merge_files(a.files, a.nfiles, a.campaign, &b, &st);
  if (!e) {
    if (strcmp(out, "-") == 0) {
      if (fwrite(b.data ? b.data : "", 1, b.len, stdout) != b.len || fflush(stdout) != 0)
        e = gb_fail(GB_E_IO, "writing the merged results to stdout failed");
    } else {
      e = gb_write_file_atomic(out, b.data ? b.data : "", b.len);
    }
  }
  gb_buf_free(&b);
  for (const char *p = st.skips.data, *nl; p && (nl = strchr(p, '\n')); p = nl + 1)
    fprintf(stderr, "gpubench merge: skipped %.*s\n", (int)(nl - p), p);
  rc = 0;
  if (e) {
    fprintf(stderr, "gpubench merge: %s\n", gb_errmsg());
    rc = e == GB_E_NOMEM ? 1 : 2;
  } else {
    fprintf(stderr,
            "gpubench merge: %zu file(s), %zu row(s) in, %zu out (%zu run(s)); %zu repeated row(s) dropped -> %s "
            "(campaign %s)\n",
            st.files, st.rows_in, st.rows_out, st.runs, st.duplicates, out, st.campaign[0] ? st.campaign : "\"\"");
    if (st.skipped || st.rows_other)
      fprintf(stderr, "gpubench merge: %zu file(s) skipped (%zu unreadable), %zu row(s) of other campaigns left out\n",
              st.skipped, st.unreadable, st.rows_other);
    if (st.conflicts) {
      fprintf(stderr, "gpubench merge: %zu repeated row(s) with other cells; the first: %s\n", st.conflicts,
              st.first_conflict);
      if (a.strict) rc = 1;
    }
    if (!rc && st.unreadable) rc = 3;
  }
  gb_merge_stats_free(&st);
  gb_opt_free(&gb_merge_cmd, &a);
  return rc;
}
