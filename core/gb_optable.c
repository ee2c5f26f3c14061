/* gb_optable: the option-table reader (getopt_long underneath). It reads
 * argv into a command's args struct and says what it found; printing help
 * or a usage error is the caller's (cli/gb_cli_parse.c). See gb_optable.h. */
#include "gb_optable.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"

#define MAX_MORE 256

static const gb_opt k_help = {.name = "help", .short_name = 'h', .help = "show this help", .kind = GB_OPT_FLAG};

int gb_optset_init(const gb_opt_cmd *cmd, gb_optset *s) {
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

void gb_optset_free(gb_optset *s) {
  free(s->v);
  free(s->more);
}

void gb_opt_each(const gb_opt_cmd *cmd, void (*fn)(const gb_opt *o, void *ctx), void *ctx) {
  gb_optset s;
  if (gb_optset_init(cmd, &s)) return;
  for (size_t i = 0; i < s.n; i++) fn(s.v[i], ctx);
  gb_optset_free(&s);
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
static void describe_bad_option(const gb_optset *s, const char *arg, int optopt_, char *err, size_t errlen) {
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

gb_opt_status gb_opt_read(const gb_opt_cmd *cmd, int argc, char **argv, void *args, char *err, size_t errlen) {
  if (errlen) err[0] = '\0';
  if (gb_opt_wants_help(argc, argv)) return GB_OPT_HELP;
  gb_optset s;
  if (gb_optset_init(cmd, &s)) return GB_OPT_NOMEM;
  struct option *lo = calloc(s.n + 1, sizeof *lo);
  char *shorts = malloc(3 * s.n + 4);
  if (!lo || !shorts) {
    free(lo);
    free(shorts);
    gb_optset_free(&s);
    return GB_OPT_NOMEM;
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

  gb_opt_status rc = GB_OPT_OK;
  int nomem = 0, ch, idx;
  size_t noperands = 0;
  /* 0, not 1: glibc then also forgets a half-read "-abc" cluster of an
   * earlier parse in this process (tests and the fuzzer parse many times) */
  optind = 0;
  opterr = 0;
  while (rc == GB_OPT_OK && (ch = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
    const gb_opt *o = NULL;
    if (ch >= 256) {
      o = s.v[ch - 256];
    } else if (ch == 1) {
      if (add_operand(cmd, args, optarg, &noperands, err, errlen, &nomem)) rc = GB_OPT_USAGE;
      continue;
    } else if (ch == ':') {
      const gb_opt *m = NULL;
      if (optopt >= 256) m = s.v[optopt - 256];
      for (size_t i = 0; !m && i < s.n; i++)
        if (optopt && s.v[i]->short_name == optopt) m = s.v[i];
      if (m) snprintf(err, errlen, "--%s needs a value", m->name);
      else snprintf(err, errlen, "%s needs a value", argv[optind - 1]);
      rc = GB_OPT_USAGE;
      continue;
    } else if (ch == '?') {
      describe_bad_option(&s, optind > 0 && optind <= argc ? argv[optind - 1] : NULL, optopt, err, errlen);
      rc = GB_OPT_USAGE;
      continue;
    } else {
      for (size_t i = 0; !o && i < s.n; i++)
        if (s.v[i]->short_name == ch) o = s.v[i];
    }
    if (!o) {
      snprintf(err, errlen, "unknown option \"-%c\"", ch);
      rc = GB_OPT_USAGE;
    } else if (o == &k_help) {
      rc = GB_OPT_HELP;
    } else if (set_option(args, o, o->metavar ? optarg : NULL, err, errlen, &nomem)) {
      rc = GB_OPT_USAGE;
    }
  }
  /* after "--" */
  for (int i = optind; rc == GB_OPT_OK && i < argc; i++)
    if (add_operand(cmd, args, argv[i], &noperands, err, errlen, &nomem)) rc = GB_OPT_USAGE;
  if (rc == GB_OPT_OK && noperands < (size_t)(cmd->operands.min > 0 ? cmd->operands.min : 0)) {
    if (cmd->operands.missing) snprintf(err, errlen, "%s", cmd->operands.missing);
    else snprintf(err, errlen, "needs %s", cmd->operands.metavar ? cmd->operands.metavar : "an argument");
    rc = GB_OPT_USAGE;
  }
  if (nomem) rc = GB_OPT_NOMEM;
  free(lo);
  free(shorts);
  gb_optset_free(&s);
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

bool gb_opt_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return false;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
  }
  return false;
}
