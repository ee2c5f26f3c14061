/* gb_cli_parse: the option-table reader's answer (core/gb_optable.h) as
 * the program gives it: the help on stdout, a usage error on stderr, the
 * exit code. Every subcommand parses through gb_cli_parse (gb_cli.h). */
#include <stdarg.h>
#include <stdio.h>

#include "gb_cli.h"

int gb_cli_parse(const gb_opt_cmd *cmd, int argc, char **argv, void *args) {
  char err[512];
  switch (gb_opt_read(cmd, argc, argv, args, err, sizeof err)) {
  case GB_OPT_OK:
    return GB_CLI_CONTINUE;
  case GB_OPT_HELP:
    gb_optdoc_help(cmd, stdout);
    return 0;
  case GB_OPT_USAGE:
    return gb_cli_usage_error(cmd->name, "%s", err);
  case GB_OPT_NOMEM:
    break;
  }
  fprintf(stderr, "gpubench %s: out of memory\n", cmd->name);
  return 1;
}

int gb_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "gpubench %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'gpubench %s --help'.\n", cmd);
  return 2;
}

