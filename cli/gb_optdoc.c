/* gb_optdoc: what is written from the option tables for people and shells:
 * a command's --help, the man page and the bash completion. See
 * gb_optdoc.h. */
#include "gb_optdoc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gb_runinfo.h"

/* ---- help ---- */

/* Writes text with "@DATA@" replaced by the data directory. */
static void put_text(const char *text, FILE *fp) {
  const char *at;
  while ((at = strstr(text, "@DATA@"))) {
    fwrite(text, 1, (size_t)(at - text), fp);
    fputs(gb_data_dir(), fp);
    text = at + 6;
  }
  fputs(text, fp);
}

static size_t opt_label(const gb_opt *o, char *buf, size_t n) {
  int w;
  if (o->short_name) w = snprintf(buf, n, "-%c, --%s%s%s", o->short_name, o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
  else w = snprintf(buf, n, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
  return w < 0 ? 0 : (size_t)w;
}

#define HELP_COL_MAX 26

void gb_optdoc_help(const gb_opt_cmd *cmd, FILE *fp) {
  fprintf(fp, "Usage: gpubench %s %s\n", cmd->name, cmd->synopsis ? cmd->synopsis : "[OPTIONS]");
  if (cmd->description) {
    fputc('\n', fp);
    put_text(cmd->description, fp);
    fputc('\n', fp);
  }
  gb_optset s;
  if (gb_optset_init(cmd, &s) == 0) {
    size_t col = 0;
    char label[160];
    for (size_t i = 0; i < s.n; i++) {
      size_t w = s.v[i]->hidden ? 0 : opt_label(s.v[i], label, sizeof label);
      if (w <= HELP_COL_MAX && w > col) col = w;
    }
    if (!s.v[0]->group) fprintf(fp, "\nOptions:\n");
    const char *group = NULL; /* a heading repeated further on continues its group */
    for (size_t i = 0; i < s.n; i++) {
      const gb_opt *o = s.v[i];
      if (o->hidden) continue;
      if (o->group && (!group || strcmp(o->group, group) != 0)) fprintf(fp, "\n%s:\n", group = o->group);
      size_t w = opt_label(o, label, sizeof label);
      fprintf(fp, "  %s", label);
      if (w > col) fprintf(fp, "\n  %*s", (int)col, "");
      else fprintf(fp, "%*s", (int)(col - w), "");
      /* continuation lines under the first */
      for (const char *h = o->help ? o->help : "", *nl;; h = nl + 1) {
        nl = strchr(h, '\n');
        fputs("  ", fp);
        char line[512];
        snprintf(line, sizeof line, "%.*s", nl ? (int)(nl - h) : (int)strlen(h), h);
        put_text(line, fp);
        fputc('\n', fp);
        if (!nl) break;
        fprintf(fp, "  %*s", (int)col, "");
      }
    }
    gb_optset_free(&s);
  }
  if (cmd->notes) {
    fputc('\n', fp);
    put_text(cmd->notes, fp);
    fputc('\n', fp);
  }
  if (cmd->exit_status) {
    fputs("\nExit codes: ", fp);
    put_text(cmd->exit_status, fp);
    fputc('\n', fp);
  }
}

/* ---- man page ---- */

/* One roff text line: backslashes escaped, a leading '.' or '\'' guarded,
 * "@DATA@" written DATADIR, a '-' that starts a word (an option) written "\-";
 * dash_escape writes every '-' so (option names). */
static void roff_put(const char *text, size_t len, bool dash_escape, FILE *fp) {
  if (len && (text[0] == '.' || text[0] == '\'')) fputs("\\&", fp);
  for (size_t i = 0; i < len; i++) {
    if (i + 6 <= len && strncmp(text + i, "@DATA@", 6) == 0) {
      fputs("\\fIDATADIR\\fR", fp); /* the page may be installed elsewhere: FILES says what it is */
      i += 5;
    } else if (text[i] == '\\') {
      fputs("\\e", fp);
    } else if (text[i] == '-' && (dash_escape || i == 0 || !isalnum((unsigned char)text[i - 1]))) {
      /* an option's dash, not a hyphen in a word: a minus sign, so that it can be copied */
      fputs("\\-", fp);
    } else {
      fputc(text[i], fp);
    }
  }
}

/* Paragraphs ("\n\n" between them) as roff: .PP before each; a line that
 * starts with spaces is kept as it is (an indented list). */
static void roff_paragraphs(const char *text, FILE *fp) {
  if (!text) return;
  bool start = true;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len == 0) {
      start = true;
    } else {
      if (start) fputs(".PP\n", fp);
      start = false;
      if (p[0] == ' ') {
        fputs(".br\n", fp);
        while (len && *p == ' ') p++, len--;
        fputs("\\ \\ ", fp);
      }
      roff_put(p, len, false, fp);
      fputc('\n', fp);
    }
    if (!nl) break;
    p = nl + 1;
  }
}

static void roff_option(const gb_opt *o, FILE *fp) {
  fputs(".TP\n", fp);
  if (o->short_name) fprintf(fp, "\\fB\\-%c\\fR, ", o->short_name);
  fputs("\\fB\\-\\-", fp);
  roff_put(o->name, strlen(o->name), true, fp);
  fputs("\\fR", fp);
  if (o->metavar) {
    fputs(" \\fI", fp);
    roff_put(o->metavar, strlen(o->metavar), true, fp);
    fputs("\\fR", fp);
  }
  fputc('\n', fp);
  for (const char *h = o->help ? o->help : "", *nl;; h = nl + 1) {
    nl = strchr(h, '\n');
    size_t len = nl ? (size_t)(nl - h) : strlen(h);
    while (len && *h == ' ') h++, len--;
    if (len) {
      roff_put(h, len, false, fp);
      fputc('\n', fp);
    }
    if (!nl) break;
  }
}

static void upper(const char *s, char *buf, size_t n) {
  size_t i = 0;
  for (; s[i] && i + 1 < n; i++) buf[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
  buf[i] = '\0';
}

void gb_optdoc_man(const gb_optdoc_prog *prog, FILE *fp) {
  char up[64];
  upper(prog->name, up, sizeof up);
  fprintf(fp, ".\\\" %s(1): generated by `%s --man` from the option tables; do not edit.\n", prog->name, prog->name);
  fprintf(fp, ".TH %s 1 \"\" \"%s %s\" \"User Commands\"\n", up, prog->name, prog->version ? prog->version : "");
  fprintf(fp, ".SH NAME\n%s \\- ", prog->name);
  roff_put(prog->summary, strlen(prog->summary), false, fp);
  fputs("\n.SH SYNOPSIS\n", fp);
  for (const gb_opt_cmd *const *c = prog->cmds; *c; c++) {
    if (c != prog->cmds) fputs(".br\n", fp);
    fprintf(fp, "\\fB%s %s\\fR ", prog->name, (*c)->name);
    const char *syn = (*c)->synopsis ? (*c)->synopsis : "[OPTIONS]";
    roff_put(syn, strlen(syn), false, fp);
    fputc('\n', fp);
  }
  fprintf(fp, ".br\n\\fB%s\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n", prog->name);
  fputs(".SH DESCRIPTION\n", fp);
  roff_paragraphs(prog->description, fp);
  for (const gb_opt_cmd *const *c = prog->cmds; *c; c++) {
    const gb_opt_cmd *cmd = *c;
    fprintf(fp, ".SH \"%s %s\"\n", prog->name, cmd->name);
    fprintf(fp, "\\fB%s %s\\fR ", prog->name, cmd->name);
    const char *syn = cmd->synopsis ? cmd->synopsis : "[OPTIONS]";
    roff_put(syn, strlen(syn), false, fp);
    fputs("\n.PP\n", fp);
    roff_put(cmd->summary, strlen(cmd->summary), false, fp);
    fputs(".\n", fp);
    roff_paragraphs(cmd->description, fp);
    if (cmd->operands.metavar && cmd->operands.help) {
      fputs(".TP\n\\fI", fp);
      roff_put(cmd->operands.metavar, strlen(cmd->operands.metavar), false, fp);
      fputs("\\fR\n", fp);
      roff_put(cmd->operands.help, strlen(cmd->operands.help), false, fp);
      fputc('\n', fp);
    }
    gb_optset s;
    if (gb_optset_init(cmd, &s) == 0) {
      if (!s.v[0]->group) fputs(".SS Options\n", fp);
      const char *group = NULL;
      for (size_t i = 0; i < s.n; i++) {
        if (s.v[i]->hidden) continue;
        if (s.v[i]->group && (!group || strcmp(s.v[i]->group, group) != 0))
          fprintf(fp, ".SS \"%s\"\n", group = s.v[i]->group);
        roff_option(s.v[i], fp);
      }
      gb_optset_free(&s);
    }
    if (cmd->notes) roff_paragraphs(cmd->notes, fp);
    if (cmd->exit_status) {
      fputs(".SS \"Exit status\"\n", fp);
      roff_paragraphs(cmd->exit_status, fp);
    }
  }
  fputs(".SH \"EXIT STATUS\"\n", fp);
  roff_paragraphs(prog->exit_status, fp);
  if (prog->environment) {
    fputs(".SH ENVIRONMENT\n", fp);
    for (const char *p = prog->environment; *p;) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      const char *tab = memchr(p, '\t', len);
      if (tab) {
        fputs(".TP\n\\fB", fp);
        roff_put(p, (size_t)(tab - p), false, fp);
        fputs("\\fR\n", fp);
        roff_put(tab + 1, len - (size_t)(tab - p) - 1, false, fp);
        fputc('\n', fp);
      } else if (len) {
        roff_put(p, len, false, fp);
        fputc('\n', fp);
      }
      if (!nl) break;
      p = nl + 1;
    }
  }
  if (prog->files) {
    fputs(".SH FILES\n", fp);
    roff_paragraphs(prog->files, fp);
  }
}

/* ---- bash completion ---- */

/* The completion of a value: files by extension, directories, choices, or
 * nothing (a number, free text). */
static void bash_value(const char *ext, const char *const *choices, FILE *fp) {
  if (choices) {
    fputs("COMPREPLY=($(compgen -W \"", fp);
    for (int i = 0; choices[i]; i++) fprintf(fp, "%s%s", i ? " " : "", choices[i]);
    fputs("\" -- \"$cur\"))", fp);
  } else {
    fprintf(fp, "_%s_files '%s'", "gpubench", ext ? ext : "");
  }
}

void gb_optdoc_bash_completion(const gb_optdoc_prog *prog, FILE *fp) {
  const char *p = prog->name;
  fprintf(fp,
          "# bash completion for %s: generated by `%s --completion bash` from the option tables; do not edit.\n"
          "\n"
          "# _%s_files EXTS: files whose name ends in .EXT for one of the '|'-separated\n"
          "# EXTS (and directories, to walk into); '/' only directories; '' any file\n"
          "_%s_files() {\n"
          "  local IFS=$'\\n' e\n"
          "  if [[ $1 == / ]]; then\n"
          "    COMPREPLY=($(compgen -d -- \"$cur\"))\n"
          "  elif [[ -z $1 ]]; then\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "  else\n"
          "    COMPREPLY=($(compgen -d -- \"$cur\"))\n"
          "    local IFS='|'\n"
          "    for e in $1; do\n"
          "      local IFS=$'\\n'\n"
          "      COMPREPLY+=($(compgen -f -X \"!*.$e\" -- \"$cur\"))\n"
          "    done\n"
          "  fi\n"
          "  compopt -o filenames 2>/dev/null\n"
          "}\n"
          "\n"
          "_%s() {\n"
          "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "  COMPREPLY=()\n"
          "  if ((COMP_CWORD == 1)); then\n"
          "    COMPREPLY=($(compgen -W \"",
          p, p, p, p, p);
  for (const gb_opt_cmd *const *c = prog->cmds; *c; c++) fprintf(fp, "%s ", (*c)->name);
  fputs("--help --version\" -- \"$cur\"))\n"
        "    return 0\n"
        "  fi\n"
        "  case ${COMP_WORDS[1]} in\n",
        fp);
  for (const gb_opt_cmd *const *c = prog->cmds; *c; c++) {
    const gb_opt_cmd *cmd = *c;
    gb_optset s;
    if (gb_optset_init(cmd, &s)) continue;
    fprintf(fp, "  %s)\n    case $prev in\n", cmd->name);
    /* values with nothing to complete (numbers, free text): complete nothing */
    const char *sep = "      ";
    for (size_t i = 0; i < s.n; i++) {
      const gb_opt *o = s.v[i];
      if (!o->metavar || o->hidden || o->kind == GB_OPT_PATH || o->choices) continue;
      fprintf(fp, "%s--%s", sep, o->name);
      if (o->short_name) fprintf(fp, "|-%c", o->short_name);
      sep = "|";
    }
    if (*sep == '|') fputs(")\n        return 0 ;;\n", fp);
    for (size_t i = 0; i < s.n; i++) {
      const gb_opt *o = s.v[i];
      if (!o->metavar || o->hidden || (o->kind != GB_OPT_PATH && !o->choices)) continue;
      fprintf(fp, "      --%s", o->name);
      if (o->short_name) fprintf(fp, "|-%c", o->short_name);
      fputs(")\n        ", fp);
      bash_value(o->ext, o->choices, fp);
      fputs("\n        return 0 ;;\n", fp);
    }
    fputs("    esac\n", fp);
    fputs("    if [[ $cur == -* ]]; then\n      COMPREPLY=($(compgen -W \"", fp);
    for (size_t i = 0; i < s.n; i++)
      if (!s.v[i]->hidden) fprintf(fp, "%s--%s", i ? " " : "", s.v[i]->name);
    fputs("\" -- \"$cur\"))\n", fp);
    if (cmd->operands.max != 0) {
      fputs("    else\n      ", fp);
      bash_value(cmd->operands.ext, NULL, fp);
      fputc('\n', fp);
    }
    fputs("    fi\n    ;;\n", fp);
    gb_optset_free(&s);
  }
  fprintf(fp,
          "  esac\n"
          "  return 0\n"
          "}\n"
          "complete -F _%s %s\n",
          p, p);
}
