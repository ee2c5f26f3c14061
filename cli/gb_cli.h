/* gb_cli: the command-line front end. The only place that reads argv, prints
 * usage and decides the exit code (0 ok, 1 a check failed, 2 bad usage or
 * input, 3 no usable GPU). Each subcommand is one cli/cmd_<name>.c. */
#ifndef GB_CLI_H
#define GB_CLI_H

#include <stdio.h>

#include "gb_optable.h"
#include "gb_optdoc.h"

/* What gb_cli_parse and each gb_<cmd>_parse_args (gb_cli_args.h) return when
 * the command should go on; any other value is the exit code. */
#define GB_CLI_CONTINUE (-1)

typedef struct gb_command {
  const gb_opt_cmd *spec;             /* name, summary, options: core/gb_optable.h */
  int (*main)(int argc, char **argv); /* argv[0] is the subcommand name */
} gb_command;

/* The subcommand table (cli/gb_commands.c), sorted by name, ended by {0}. */
extern const gb_command gb_commands[];

/* The program's description for the top-level help, the man page and the
 * completion (cli/gb_commands.c); its cmds are gb_commands' specs. */
const gb_optdoc_prog *gb_cli_program(void);

/* `gpubench --help`: the command list. */
void gb_cli_usage(FILE *fp);

/* Parses argv (argv[0] the subcommand's name) into args by cmd's table
 * (gb_opt_read, core/gb_optable.h): GB_CLI_CONTINUE when the command should
 * go on; 0 after --help (printed to stdout); 2 after a usage error (printed
 * to stderr through gb_cli_usage_error); 1 when memory ran out. args must
 * hold the defaults already; gb_opt_free releases what it allocated, in
 * every case (cli/gb_cli_parse.c). */
int gb_cli_parse(const gb_opt_cmd *cmd, int argc, char **argv, void *args);

/* Prints "gpubench <cmd>: <message>" and "Try 'gpubench <cmd> --help'." to
 * stderr and returns 2 (bad usage). */
int gb_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Each subcommand: its spec (option table) and its main, in cli/cmd_<name>.c. */
extern const gb_opt_cmd gb_compare_cmd, gb_history_cmd, gb_info_cmd, gb_merge_cmd, gb_noise_cmd, gb_plan_cmd,
    gb_report_cmd, gb_run_cmd;
extern const gb_opt_cmd gb_export_cmd, gb_monitor_cmd;
extern const gb_opt_cmd gb_fleet_cmd;
int gb_cmd_fleet(int argc, char **argv);
extern const gb_opt_cmd gb_import_cmd;
int gb_cmd_import(int argc, char **argv);
int gb_cmd_compare(int argc, char **argv);
int gb_cmd_export(int argc, char **argv);
int gb_cmd_history(int argc, char **argv);
int gb_cmd_info(int argc, char **argv);
int gb_cmd_merge(int argc, char **argv);
int gb_cmd_monitor(int argc, char **argv);
int gb_cmd_noise(int argc, char **argv);
int gb_cmd_plan(int argc, char **argv);
int gb_cmd_report(int argc, char **argv);
int gb_cmd_run(int argc, char **argv);

/* The gpubench program's run and info (built with GB_CLI_SPEC_ONLY): load
 * the measuring module (cli/gb_measure.c) and call gb_cmd_run/gb_cmd_info
 * there; 3 when it cannot be loaded. */
int gb_measure_call(const char *cmd, int argc, char **argv);

#endif
