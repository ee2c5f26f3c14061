/* gb_opt: the option-table parser and what is generated from the tables
 * (help, man page, bash completion). See gb_opt.h. */
#include "gb_opt.h"

#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_runinfo.h"

#define MAX_MORE 256

static const gb_opt k_help = {.name = "help", .short_name = 'h', .help = "show this help", .kind = GB_OPT_FLAG};

/* The command's options: its table, -h/--help, then ->more's. */
typedef struct optset {
  const gb_opt **v;
  size_t n;
  gb_opt *more; /* storage for ->more's entries */
} optset;

static int optset_init(const gb_opt_cmd *cmd, optset *s) {
  memset(s, 0, sizeof *s);
  size_t n = 0, nmore = 0;
  for (const gb_opt *o = cmd->options; o && o->name; o++) n++;
  if (cmd->more) {
    s->more = calloc(MAX_MORE, sizeof *s->more);
    if (!s->more) return -1;
    nmore = cmd->more(s->more, MAX_MORE);
  }
  s->v = calloc(n + nmore + 1, sizeof *s->v);
  if (!s->v) {
    free(s->more);
    return -1;
  }
  for (const gb_opt *o = cmd->options; o && o->name; o++) s->v[s->n++] = o;
  s->v[s->n++] = &k_help;
  for (size_t i = 0; i < nmore; i++) s->v[s->n++] = &s->more[i];
  return 0;
}

static void optset_free(optset *s) {
  free(s->v);
  free(s->more);
}

void gb_opt_each(const gb_opt_cmd *cmd, void (*fn)(const gb_opt *o, void *ctx), void *ctx) {
  optset s;
  if (optset_init(cmd, &s)) return;
  for (size_t i = 0; i < s.n; i++) fn(s.v[i], ctx);
  optset_free(&s);
}

/* ---- storing values ---- */

static void store_int(void *args, const gb_opt *o, long long v) {
  char *p = (char *)args + o->off;
  if (o->size == sizeof(int)) {
    int x = (int)v;
    memcpy(p, &x, sizeof x);
  } else if (o->size == sizeof(int64_t)) {
    int64_t x = v; /* also right for size_t and uint64_t: the value is never negative there */
    memcpy(p, &x, sizeof x);
  } else if (o->size == sizeof(short)) {
    short x = (short)v;
    memcpy(p, &x, sizeof x);
  } else if (o->size == 1) {
    signed char x = (signed char)v;
    memcpy(p, &x, sizeof x);
  }
}

static void store_ptr(void *args, size_t off, const void *v) { memcpy((char *)args + off, &v, sizeof v); }
static void *load_ptr(void *args, size_t off) {
  void *v;
  memcpy(&v, (char *)args + off, sizeof v);
  return v;
}
static size_t load_count(void *args, size_t off) {
  size_t v;
  memcpy(&v, (char *)args + off, sizeof v);
  return v;
}
static void store_count(void *args, size_t off, size_t v) { memcpy((char *)args + off, &v, sizeof v); }

/* A range as words: "from 0 to 1", "between 0 and 1", "> 0". */
static void describe_double(const gb_opt *o, char *buf, size_t n) {
  bool lo_open = o->bounds & GB_OPT_LO_OPEN, hi_open = o->bounds & GB_OPT_HI_OPEN;
  bool has_lo = isfinite(o->lo), has_hi = isfinite(o->hi);
  if (has_lo && !has_hi && o->lo == 0) snprintf(buf, n, "%s number", lo_open ? "a positive" : "a non-negative");
  else if (has_lo && !has_hi) snprintf(buf, n, "a number %s %g", lo_open ? ">" : ">=", o->lo);
  else if (!has_lo && has_hi) snprintf(buf, n, "a number %s %g", hi_open ? "<" : "<=", o->hi);
  else if (!has_lo && !has_hi) snprintf(buf, n, "a number");
  else if (lo_open && hi_open) snprintf(buf, n, "a number between %g and %g", o->lo, o->hi);
  else if (!lo_open && !hi_open) snprintf(buf, n, "a number from %g to %g", o->lo, o->hi);
  else snprintf(buf, n, "a number %s %g and %s %g", lo_open ? ">" : ">=", o->lo, hi_open ? "<" : "<=", o->hi);
}

/* Checks and stores one option's value; 0, or a message in err. */
static int set_option(void *args, const gb_opt *o, const char *val, char *err, size_t errlen, int *nomem) {
  if (o->metavar && (!val || !*val)) {
    snprintf(err, errlen, "--%s needs a value", o->name);
    return -1;
  }
  switch (o->kind) {
  case GB_OPT_FLAG:
    store_int(args, o, !o->clear);
    break;
  case GB_OPT_STRING:
  case GB_OPT_PATH:
    store_ptr(args, o->off, val);
    break;
  case GB_OPT_INT: {
    int64_t v;
    if (!gb_parse_i64(val, &v) || v < o->min || v > o->max) {
      if (o->max == LLONG_MAX)
        snprintf(err, errlen, "--%s: not a whole number of at least %lld: \"%s\"", o->name, o->min, val);
      else
        snprintf(err, errlen, "--%s: not a whole number from %lld to %lld: \"%s\"", o->name, o->min, o->max, val);
      return -1;
    }
    store_int(args, o, v);
    break;
  }
  case GB_OPT_DOUBLE: {
    double v;
    bool ok = gb_parse_double(val, &v) && isfinite(v);
    if (ok && (o->bounds & GB_OPT_LO_OPEN ? !(v > o->lo) : !(v >= o->lo))) ok = false;
    if (ok && (o->bounds & GB_OPT_HI_OPEN ? !(v < o->hi) : !(v <= o->hi))) ok = false;
    if (!ok) {
      char what[96];
      describe_double(o, what, sizeof what);
      snprintf(err, errlen, "--%s: not %s: \"%s\"", o->name, what, val);
      return -1;
    }
    memcpy((char *)args + o->off, &v, sizeof v);
    break;
  }
  case GB_OPT_CHOICE: {
    int i = 0;
    for (; o->choices[i]; i++)
      if (strcmp(o->choices[i], val) == 0) break;
    if (!o->choices[i]) {
      size_t used = (size_t)snprintf(err, errlen, "--%s: not one of", o->name);
      for (int j = 0; o->choices[j] && used < errlen; j++)
        used += (size_t)snprintf(err + used, errlen - used, "%s %s", j ? "," : "", o->choices[j]);
      if (used < errlen) snprintf(err + used, errlen - used, ": \"%s\"", val);
      return -1;
    }
    store_int(args, o, i);
    break;
  }
  case GB_OPT_LIST: {
    size_t n = load_count(args, o->count_off);
    if (o->max > 0) {
      if (n >= (size_t)o->max) {
        snprintf(err, errlen, "at most %lld --%s values", o->max, o->name);
        return -1;
      }
      store_ptr(args, o->off + n * sizeof(char *), val);
    } else {
      const char **v = load_ptr(args, o->off);
      const char **grown = realloc(v, (n + 1) * sizeof *v);
      if (!grown) {
        *nomem = 1;
        snprintf(err, errlen, "out of memory");
        return -1;
      }
      grown[n] = val;
      store_ptr(args, o->off, grown);
    }
    store_count(args, o->count_off, n + 1);
    break;
  }
  case GB_OPT_CALL:
    break;
  }
  if (o->has_given) {
    bool given = true;
    memcpy((char *)args + o->given_off, &given, sizeof given);
  }
  if (o->set && o->set(args, o, val, err, errlen)) return -1;
  return 0;
}

static int add_operand(const gb_opt_cmd *cmd, void *args, const char *val, size_t *n, char *err, size_t errlen,
                       int *nomem) {
  const gb_opt_operands *op = &cmd->operands;
  if (op->max >= 0 && *n >= (size_t)op->max) {
    if (op->extra) snprintf(err, errlen, op->extra, val);
    else snprintf(err, errlen, "unexpected argument '%s'", val);
    return -1;
  }
  if (op->set) {
    if (op->set(args, NULL, val, err, errlen)) return -1;
  } else if (op->max > 0) {
    store_ptr(args, op->off + *n * sizeof(char *), val);
  } else {
    const char **v = load_ptr(args, op->off);
    const char **grown = realloc(v, (*n + 2) * sizeof *v);
    if (!grown) {
      *nomem = 1;
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    grown[*n] = val;
    grown[*n + 1] = NULL;
    store_ptr(args, op->off, grown);
  }
  (*n)++;
  if (op->has_count) store_count(args, op->count_off, *n);
  return 0;
}

/* The message for getopt_long's '?': an unknown short option (optopt the
 * letter), a long option given a value it does not take (optopt its code,
 * 256 + index), or an unknown or ambiguous long option (optopt 0; arg is
 * the word). */
static void describe_bad_option(const optset *s, const char *arg, int optopt_, char *err, size_t errlen) {
  if (optopt_ > 0 && optopt_ < 256) {
    snprintf(err, errlen, "unknown option \"-%c\"", optopt_);
    return;
  }
  if (optopt_ >= 256 && (size_t)(optopt_ - 256) < s->n) {
    snprintf(err, errlen, "--%s takes no value: \"%s\"", s->v[optopt_ - 256]->name, arg ? arg : "");
    return;
  }
  if (!arg || strncmp(arg, "--", 2) != 0) {
    snprintf(err, errlen, "unknown option \"%s\"", arg ? arg : "");
    return;
  }
  const char *name = arg + 2;
  size_t len = strcspn(name, "="), matches = 0, used = 0;
  char list[256] = "";
  for (size_t i = 0; i < s->n; i++) {
    if (strncmp(s->v[i]->name, name, len) != 0) continue;
    matches++;
    if (!s->v[i]->hidden && used < sizeof list)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s--%s", used ? ", " : "", s->v[i]->name);
  }
  if (matches > 1) snprintf(err, errlen, "ambiguous option \"%.*s\" (%s)", (int)len + 2, arg, list);
  else snprintf(err, errlen, "unknown option \"%.*s\"", (int)len + 2, arg);
}

int gb_opt_parse(const gb_opt_cmd *cmd, int argc, char **argv, void *args) {
  if (gb_cli_wants_help(argc, argv)) {
    gb_opt_help(cmd, stdout);
    return 0;
  }
  optset s;
  if (optset_init(cmd, &s)) {
    fprintf(stderr, "gpubench %s: out of memory\n", cmd->name);
    return 1;
  }
  struct option *lo = calloc(s.n + 1, sizeof *lo);
  char *shorts = malloc(3 * s.n + 4);
  if (!lo || !shorts) {
    free(lo);
    free(shorts);
    optset_free(&s);
    fprintf(stderr, "gpubench %s: out of memory\n", cmd->name);
    return 1;
  }
  /* "-": operands come back in order as 1; ":": a missing value is ':' */
  size_t ns = 0;
  shorts[ns++] = '-';
  shorts[ns++] = ':';
  for (size_t i = 0; i < s.n; i++) {
    lo[i].name = s.v[i]->name;
    lo[i].has_arg = s.v[i]->metavar ? required_argument : no_argument;
    lo[i].flag = NULL;
    lo[i].val = 256 + (int)i;
    if (s.v[i]->short_name) {
      shorts[ns++] = s.v[i]->short_name;
      if (s.v[i]->metavar) shorts[ns++] = ':';
    }
  }
  shorts[ns] = '\0';

  char err[512] = "";
  int rc = GB_CLI_CONTINUE, nomem = 0, ch, idx;
  size_t noperands = 0;
  /* 0, not 1: glibc then also forgets a half-read "-abc" cluster of an
   * earlier parse in this process (tests and the fuzzer parse many times) */
  optind = 0;
  opterr = 0;
  while (rc == GB_CLI_CONTINUE && (ch = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
    const gb_opt *o = NULL;
    if (ch >= 256) {
      o = s.v[ch - 256];
    } else if (ch == 1) {
      if (add_operand(cmd, args, optarg, &noperands, err, sizeof err, &nomem)) rc = 2;
      continue;
    } else if (ch == ':') {
      const gb_opt *m = NULL;
      if (optopt >= 256) m = s.v[optopt - 256];
      for (size_t i = 0; !m && i < s.n; i++)
        if (optopt && s.v[i]->short_name == optopt) m = s.v[i];
      if (m) snprintf(err, sizeof err, "--%s needs a value", m->name);
      else snprintf(err, sizeof err, "%s needs a value", argv[optind - 1]);
      rc = 2;
      continue;
    } else if (ch == '?') {
      describe_bad_option(&s, optind > 0 && optind <= argc ? argv[optind - 1] : NULL, optopt, err, sizeof err);
      rc = 2;
      continue;
    } else {
      for (size_t i = 0; !o && i < s.n; i++)
        if (s.v[i]->short_name == ch) o = s.v[i];
    }
    if (!o) {
      snprintf(err, sizeof err, "unknown option \"-%c\"", ch);
      rc = 2;
    } else if (o == &k_help) {
      gb_opt_help(cmd, stdout);
      rc = 0;
    } else if (set_option(args, o, o->metavar ? optarg : NULL, err, sizeof err, &nomem)) {
      rc = 2;
    }
  }
  /* after "--" */
  for (int i = optind; rc == GB_CLI_CONTINUE && i < argc; i++)
    if (add_operand(cmd, args, argv[i], &noperands, err, sizeof err, &nomem)) rc = 2;
  if (rc == GB_CLI_CONTINUE && noperands < (size_t)(cmd->operands.min > 0 ? cmd->operands.min : 0)) {
    if (cmd->operands.missing) snprintf(err, sizeof err, "%s", cmd->operands.missing);
    else snprintf(err, sizeof err, "needs %s", cmd->operands.metavar ? cmd->operands.metavar : "an argument");
    rc = 2;
  }
  if (nomem) {
    fprintf(stderr, "gpubench %s: out of memory\n", cmd->name);
    rc = 1;
  } else if (rc == 2) {
    gb_cli_usage_error(cmd->name, "%s", err);
  }
  free(lo);
  free(shorts);
  optset_free(&s);
  optind = 0;
  return rc;
}

void gb_opt_free(const gb_opt_cmd *cmd, void *args) {
  const gb_opt_operands *op = &cmd->operands;
  if (op->max < 0 && !op->set) {
    free(load_ptr(args, op->off));
    store_ptr(args, op->off, NULL);
    if (op->has_count) store_count(args, op->count_off, 0);
  }
  for (const gb_opt *o = cmd->options; o && o->name; o++)
    if (o->kind == GB_OPT_LIST && o->max <= 0) {
      free(load_ptr(args, o->off));
      store_ptr(args, o->off, NULL);
      store_count(args, o->count_off, 0);
    }
}

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

void gb_opt_help(const gb_opt_cmd *cmd, FILE *fp) {
  fprintf(fp, "Usage: gpubench %s %s\n", cmd->name, cmd->synopsis ? cmd->synopsis : "[OPTIONS]");
  if (cmd->description) {
    fputc('\n', fp);
    put_text(cmd->description, fp);
    fputc('\n', fp);
  }
  optset s;
  if (optset_init(cmd, &s) == 0) {
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
    optset_free(&s);
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

void gb_opt_man(const gb_opt_prog *prog, FILE *fp) {
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
    optset s;
    if (optset_init(cmd, &s) == 0) {
      if (!s.v[0]->group) fputs(".SS Options\n", fp);
      const char *group = NULL;
      for (size_t i = 0; i < s.n; i++) {
        if (s.v[i]->hidden) continue;
        if (s.v[i]->group && (!group || strcmp(s.v[i]->group, group) != 0))
          fprintf(fp, ".SS \"%s\"\n", group = s.v[i]->group);
        roff_option(s.v[i], fp);
      }
      optset_free(&s);
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

void gb_opt_bash_completion(const gb_opt_prog *prog, FILE *fp) {
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
    optset s;
    if (optset_init(cmd, &s)) continue;
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
    optset_free(&s);
  }
  fprintf(fp,
          "  esac\n"
          "  return 0\n"
          "}\n"
          "complete -F _%s %s\n",
          p, p);
}

/* ---- usage errors and --help (every subcommand's, core/gb_opt.h) ---- */

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
