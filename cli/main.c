/* gpubench: entry point and subcommand dispatch (the table is in
 * cli/gb_commands.c). */
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_escape.h"
#include "gb_runinfo.h"

/* Commands whose stdout carries data (CSV, the Prometheus exposition), which
 * goes out exactly as written unless a terminal shows it. */
static const char *const k_data_stdout[] = {"export", "merge", "noise", NULL};

/* Every message on stderr, and stdout where it is text for a person, passes
 * through the terminal/log sanitizer (gb_esc_stream): a field of a data file
 * quoted in a message can neither drive a terminal nor a CI log. */
static FILE *g_real_stdout, *g_real_stderr;

/* At exit: the sanitizing streams flushed and closed, the real ones back. */
static void close_streams(void) {
  if (g_real_stdout) {
    FILE *o = stdout;
    stdout = g_real_stdout;
    fclose(o);
  }
  if (g_real_stderr) {
    FILE *e = stderr;
    stderr = g_real_stderr;
    fclose(e);
  }
}

static void sanitize_streams(const char *cmd) {
  atexit(close_streams);
  FILE *e = gb_esc_stream(stderr);
  if (e) g_real_stderr = stderr, stderr = e;
  bool data = false;
  for (const char *const *d = k_data_stdout; *d; d++) data = data || strcmp(*d, cmd) == 0;
  if (data && !isatty(STDOUT_FILENO)) return;
  FILE *o = gb_esc_stream(stdout);
  if (o) g_real_stdout = stdout, stdout = o;
}

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
    gb_optdoc_man(gb_cli_program(), stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  if (strcmp(argv[1], "--completion") == 0 && argc == 3 && strcmp(argv[2], "bash") == 0) {
    gb_optdoc_bash_completion(gb_cli_program(), stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  /* zsh: the same completion through zsh's bash emulation (bashcompinit) */
  if (strcmp(argv[1], "--completion") == 0 && argc == 3 && strcmp(argv[2], "zsh") == 0) {
    fputs("#compdef gpubench\n# zsh completion for gpubench: the bash completion through bashcompinit.\n"
          "# Install as _gpubench in a directory of $fpath, or source it after compinit.\n"
          "autoload -U +X bashcompinit && bashcompinit\n",
          stdout);
    gb_optdoc_bash_completion(gb_cli_program(), stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  for (const gb_command *c = gb_commands; c->spec; c++)
    if (strcmp(argv[1], c->spec->name) == 0) {
      sanitize_streams(argv[1]);
      return c->main(argc - 1, argv + 1);
    }
  fprintf(stderr, "gpubench: unknown command '%s'\n\n", argv[1]);
  gb_cli_usage(stderr);
  return 2;
}
