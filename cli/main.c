/* gpubench: entry point and subcommand dispatch (the table is in
 * cli/gb_commands.c). */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_runinfo.h"

int main(int argc, char **argv) {
  /* Messages may follow the user's locale; every number written to a file
   * goes through the C locale (gb_num). */
  setlocale(LC_CTYPE, "");
  if (argc < 2) {
    gb_cli_usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    gb_cli_usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    printf("gpubench %s (git %s)\n", gb_version(), gb_git_sha());
    return 0;
  }
  /* hidden: the build writes the man page and the completion from the
   * option tables (CMakeLists.txt) */
  if (strcmp(argv[1], "--man") == 0 && argc == 2) {
    gb_opt_man(gb_cli_program(), stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  if (strcmp(argv[1], "--completion") == 0 && argc == 3 && strcmp(argv[2], "bash") == 0) {
    gb_opt_bash_completion(gb_cli_program(), stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  /* zsh: the same completion through zsh's bash emulation (bashcompinit) */
  if (strcmp(argv[1], "--completion") == 0 && argc == 3 && strcmp(argv[2], "zsh") == 0) {
    fputs("#compdef gpubench\n# zsh completion for gpubench: the bash completion through bashcompinit.\n"
          "# Install as _gpubench in a directory of $fpath, or source it after compinit.\n"
          "autoload -U +X bashcompinit && bashcompinit\n",
          stdout);
    gb_opt_bash_completion(gb_cli_program(), stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  for (const gb_command *c = gb_commands; c->spec; c++)
    if (strcmp(argv[1], c->spec->name) == 0) return c->main(argc - 1, argv + 1);
  fprintf(stderr, "gpubench: unknown command '%s'\n\n", argv[1]);
  gb_cli_usage(stderr);
  return 2;
}
