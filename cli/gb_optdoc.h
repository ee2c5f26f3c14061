/* gb_optdoc: what is written from the option tables (core/gb_optable.h)
 * for people and shells: a command's --help, the man page gpubench(1) and
 * the bash completion. Only the command line writes them; since all three
 * come from the table the reader reads, none can drift from what is
 * accepted. In any text of a table, "@DATA@" stands for the data
 * directory: gb_data_dir() in help, the word DATADIR in the man page (which
 * may be installed elsewhere). Output goes to the FILE given. */
#ifndef GB_OPTDOC_H
#define GB_OPTDOC_H

#include <stdio.h>

#include "gb_optable.h"

/* Writes "Usage: ...", the description, the options (with -h, --help),
 * notes and exit codes: the text of `gpubench NAME --help`. */
void gb_optdoc_help(const gb_opt_cmd *cmd, FILE *fp);

/* The program: every subcommand, for the man page and the completion. */
typedef struct gb_optdoc_prog {
  const char *name;        /* "gpubench" */
  const char *summary;     /* NAME line */
  const char *description; /* paragraphs, as in gb_opt_cmd */
  const gb_opt_cmd *const *cmds; /* NULL-terminated */
  const char *exit_status; /* paragraph */
  const char *files;       /* FILES section (may be NULL) */
  const char *environment; /* ENVIRONMENT section: "NAME\tmeaning" lines */
  const char *version;
} gb_optdoc_prog;

/* The man page gpubench(1) in roff (man macros). */
void gb_optdoc_man(const gb_optdoc_prog *prog, FILE *fp);

/* A bash completion script: complete -F _gpubench gpubench. */
void gb_optdoc_bash_completion(const gb_optdoc_prog *prog, FILE *fp);

#endif
