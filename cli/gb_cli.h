/* gb_cli: the command-line front end. The only place that reads argv, prints
 * usage and decides the exit code (0 ok, 1 a check failed, 2 bad usage or
 * input, 3 no usable GPU). Each subcommand is one cli/cmd_<name>.c. */
#ifndef GB_CLI_H
#define GB_CLI_H

#include <stdio.h>

typedef struct gb_command {
  const char *name;
  const char *summary;
  int (*main)(int argc, char **argv); /* argv[0] is the subcommand name */
} gb_command;

/* The subcommand table (cli/main.c), sorted by name, NULL-terminated. */
extern const gb_command gb_commands[];

/* Prints "gpubench <cmd>: <message>" to stderr and returns 2 (bad usage). */
int gb_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True when argv holds -h or --help before any "--". */
int gb_cli_wants_help(int argc, char **argv);

int gb_cmd_compare(int argc, char **argv);
int gb_cmd_history(int argc, char **argv);
int gb_cmd_info(int argc, char **argv);
int gb_cmd_plan(int argc, char **argv);
int gb_cmd_report(int argc, char **argv);
int gb_cmd_run(int argc, char **argv);

/* The front end's run and info: load the measuring module (cli/gb_measure.c)
 * and call gb_cmd_run/gb_cmd_info there; 3 when it cannot be loaded. */
int gb_measure_call(const char *cmd, int argc, char **argv);
int gb_front_run(int argc, char **argv);
int gb_front_info(int argc, char **argv);

#endif
