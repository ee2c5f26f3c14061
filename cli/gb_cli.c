/* gb_cli: helpers shared by the subcommands (usage errors, --help). Kept out
 * of main.c so a subcommand can be linked into a test without the table. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gb_cli.h"

int gb_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "gpubench %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'gpubench %s --help'.\n", cmd);
  return 2;
}

int gb_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
  }
  return 0;
}
