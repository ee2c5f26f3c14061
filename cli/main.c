/* gpubench: entry point and subcommand dispatch. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_runinfo.h"

/* Subcommands, sorted by name. To add one: write cli/cmd_<name>.c with
 * int gb_cmd_<name>(int argc, char **argv), declare it in gb_cli.h and add a
 * line here. */
const gb_command gb_commands[] = {
    {"compare", "compare results with a baseline: the CI regression gate (exit 1 on a regression)", gb_cmd_compare},
    {"history", "per-figure series over many runs, and the runs where a figure shifted", gb_cmd_history},
    {"info", "show the driver, libraries and GPUs (exit 3 with no usable GPU)", gb_front_info},
    {"plan", "rank GPU configurations for a workload by cost under a deadline and a budget", gb_cmd_plan},
    {"report", "write a report (Markdown, HTML, gnuplot plots) from results and a plan", gb_cmd_report},
    {"run", "run benchmarks into a results CSV", gb_front_run},
    {NULL, NULL, NULL},
};

static void usage(FILE *fp) {
  fprintf(fp,
          "Usage: gpubench COMMAND [OPTIONS]\n"
          "\n"
          "GPU benchmarks (GEMM per precision, memory bandwidth, NCCL collectives),\n"
          "a cost planner, reports and a regression gate, over one results CSV.\n"
          "\n"
          "Commands:\n");
  for (const gb_command *c = gb_commands; c->name; c++) fprintf(fp, "  %-10s %s\n", c->name, c->summary);
  fprintf(fp,
          "\n"
          "Run 'gpubench COMMAND --help' for a command's options.\n"
          "Exit codes: 0 success, 1 a check failed or a regression, 2 bad usage or input,\n"
          "3 no usable GPU, or nothing the gate could compare.\n");
}

int main(int argc, char **argv) {
  /* Messages may follow the user's locale; every number written to a file
   * goes through the C locale (gb_num). */
  setlocale(LC_CTYPE, "");
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    printf("gpubench %s (git %s)\n", gb_version(), gb_git_sha());
    return 0;
  }
  for (const gb_command *c = gb_commands; c->name; c++)
    if (strcmp(argv[1], c->name) == 0) return c->main(argc - 1, argv + 1);
  fprintf(stderr, "gpubench: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
