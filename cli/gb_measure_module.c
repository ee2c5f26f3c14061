/* The measuring module's entry point (libgpubench-measure.so): the only
 * symbol it exports (cli/gb_measure.map). The front end (cli/gb_measure.c)
 * dlopen()s the module for `run` and `info` and calls this with the
 * subcommand's arguments (argv[0] the subcommand name). */
#include <string.h>

#include "gb_cli.h"

int gb_measure_main(const char *cmd, int argc, char **argv);

int gb_measure_main(const char *cmd, int argc, char **argv) {
  if (strcmp(cmd, "run") == 0) return gb_cmd_run(argc, argv);
  if (strcmp(cmd, "info") == 0) return gb_cmd_info(argc, argv);
  return gb_cli_usage_error(cmd, "not a measuring command");
}
