/* gb_commands: the subcommand table and the program's description, apart
 * from main() so that tests can walk every command's option table.
 *
 * To add a subcommand: write cli/cmd_<name>.c with its gb_opt_cmd spec
 * (core/gb_optable.h) and int gb_cmd_<name>(int argc, char **argv), declare both
 * in gb_cli.h and add a line here. Its --help, its section of the man page
 * and its completion then follow from the spec. */
#include <stddef.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_runinfo.h"

/* Sorted by name. */
const gb_command gb_commands[] = {
    {&gb_compare_cmd, gb_cmd_compare},
    {&gb_export_cmd, gb_cmd_export},
    {&gb_fleet_cmd, gb_cmd_fleet},
    {&gb_history_cmd, gb_cmd_history},
    {&gb_import_cmd, gb_cmd_import},
    {&gb_info_cmd, gb_cmd_info},
    {&gb_merge_cmd, gb_cmd_merge},
    {&gb_monitor_cmd, gb_cmd_monitor},
    {&gb_noise_cmd, gb_cmd_noise},
    {&gb_plan_cmd, gb_cmd_plan},
    {&gb_report_cmd, gb_cmd_report},
    {&gb_run_cmd, gb_cmd_run},
    {NULL, NULL},
};

#define MAX_COMMANDS 64

const gb_optdoc_prog *gb_cli_program(void) {
  static const gb_opt_cmd *cmds[MAX_COMMANDS + 1];
  static gb_optdoc_prog prog = {
      .name = "gpubench",
      .summary = "GPU benchmarks, a cost planner, reports and a regression gate",
      .description =
          "GPU benchmarks (GEMM per precision, memory bandwidth, NCCL collectives),\n"
          "a cost planner, reports and a regression gate, over one results CSV.\n"
          "\n"
          "Run 'gpubench COMMAND --help' for a command's options.",
      .exit_status = "0 success, 1 a check failed or a regression, 2 bad usage or input,\n"
                     "3 no usable GPU, or nothing the gate could compare.",
      .environment = "GPUBENCH_DATA_DIR\tthe data directory, DATADIR below; without it, ../share/gpubench\n"
                     "beside the program's directory (an installed gpubench), else the source tree's data/\n"
                     "it was built from (`gpubench plan --help` shows which)\n"
                     "GPUBENCH_MEASURE_MODULE\tthe measuring module run and info load (default:\n"
                     "libgpubench-measure.so beside the program, else ../lib/gpubench/)\n"
                     "GPUBENCH_GNUPLOT\tthe gnuplot program that draws the plots (default: gnuplot in PATH)",
      .files = "@DATA@/prices.csv, @DATA@/gpu_specs.csv: prices and datasheet figures;\n"
               "@DATA@/measured/*.csv: the shipped measurements; @DATA@/workloads/*.ini:\n"
               "example workloads (docs/planner.md); @DATA@/noise/floors.csv: the regression\n"
               "gate's noise floors (docs/ci.md). Results files: docs/results-schema.md.",
      .cmds = cmds,
  };
  if (!cmds[0]) {
    size_t n = 0;
    for (const gb_command *c = gb_commands; c->spec && n < MAX_COMMANDS; c++) cmds[n++] = c->spec;
    cmds[n] = NULL;
    prog.version = gb_version();
  }
  return &prog;
}

void gb_cli_usage(FILE *fp) {
  const gb_optdoc_prog *p = gb_cli_program();
  fprintf(fp, "Usage: gpubench COMMAND [OPTIONS]\n\n");
  fprintf(fp, "%.*s\n\nCommands:\n", (int)(strstr(p->description, "\n\n") - p->description), p->description);
  for (const gb_command *c = gb_commands; c->spec; c++) fprintf(fp, "  %-10s %s\n", c->spec->name, c->spec->summary);
  fprintf(fp, "\n%s\nExit codes: %s\n", strstr(p->description, "\n\n") + 2, p->exit_status);
}
