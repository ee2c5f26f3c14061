/* Tests for the option tables (core/gb_optable.h) as the program parses
 * them (gb_cli_parse): the reader's checks and messages, and that --help, the man page and the completion of every
 * subcommand list exactly the options its table holds. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_changepoint.h"
#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_plan.h"
#include "gb_workload.h"
#include "testutil.h"

/* ---- a table with one option of each kind ---- */

typedef struct targs {
  const char *files[2];
  const char *name, *out;
  double alpha, pos;
  int iters;
  int64_t big;
  size_t count;
  bool count_given, all;
  int mode;
  const char *tags[3];
  size_t ntags;
  const char **extra;
  size_t nextra;
  int calls;
} targs;

static int count_call(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)o;
  targs *a = args;
  if (val && strcmp(val, "refuse") == 0) {
    snprintf(err, errlen, "--call: refused \"%s\"", val);
    return -1;
  }
  a->calls++;
  return 0;
}

static const char *const k_modes[] = {"fast", "slow", NULL};

#define A(m) GB_OPT_AT(targs, m)
static const gb_opt k_topts[] = {
    {"iters", 'n', "N", "timed samples", GB_OPT_INT, A(iters), .min = 1, .max = 100000},
    {"big", 0, "N", "a 64-bit count", GB_OPT_INT, A(big), .min = 0, .max = INT64_MAX},
    {"count", 0, "N", "a size_t count", GB_OPT_INT, A(count), .min = 0, .max = 1000,
     GB_OPT_GIVEN(targs, count_given)},
    {"alpha", 0, "A", "significance", GB_OPT_DOUBLE, A(alpha), .lo = 0, .hi = 1,
     .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"pos", 0, "X", "a positive number", GB_OPT_DOUBLE, A(pos), .lo = 0, .hi = INFINITY, .bounds = GB_OPT_LO_OPEN},
    {"name", 0, "TEXT", "free text", GB_OPT_STRING, A(name), .group = "Strings"},
    {"out", 'o', "FILE", "a file", GB_OPT_PATH, A(out), .ext = "csv"},
    {"mode", 0, "MODE", "fast or slow", GB_OPT_CHOICE, A(mode), .choices = k_modes},
    {"tag", 't', "TAG", "repeatable, at most 3", GB_OPT_LIST, A(tags), GB_OPT_COUNT(targs, ntags), .max = 3},
    {"extra", 0, "X", "repeatable, any number", GB_OPT_LIST, A(extra), GB_OPT_COUNT(targs, nextra)},
    {"call", 0, "V", "through a setter", GB_OPT_CALL, .set = count_call},
    {"all", 'a', NULL, "a flag", GB_OPT_FLAG, A(all)},
    {"no-all", 0, NULL, "clears it", GB_OPT_FLAG, A(all), .clear = true},
    {"alias", 0, NULL, "hidden", GB_OPT_CALL, .set = count_call, .hidden = true},
    {0}};

static const gb_opt_cmd k_tcmd = {
    .name = "t",
    .synopsis = "[OPTIONS] A B",
    .summary = "a test command",
    .description = "Line one.\n\nParagraph two.",
    .options = k_topts,
    .operands = {.metavar = "A B", .min = 2, .max = 2, .ext = "csv", A(files), .missing = "needs A and B",
                 .extra = "two files, not \"%s\""},
    .exit_status = "0 ok, 2 bad usage.",
};
#undef A

/* Runs the parse with stderr (and stdout) into files; *err gets stderr's text. */
static int parse(targs *a, char **err, char **out, int argc, const char **argv) {
  memset(a, 0, sizeof *a);
  a->alpha = NAN;
  char epath[4200], opath[4200];
  const char *dir = gb_test_tmpdir();
  snprintf(epath, sizeof epath, "%s/err", dir);
  snprintf(opath, sizeof opath, "%s/out", dir);
  fflush(stdout);
  fflush(stderr);
  int saved_err = dup(2), saved_out = dup(1);
  int fe = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644), fo = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fe, 2);
  dup2(fo, 1);
  int rc = gb_cli_parse(&k_tcmd, argc, (char **)argv, a);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_err, 2);
  dup2(saved_out, 1);
  close(fe);
  close(fo);
  close(saved_err);
  close(saved_out);
  *err = gb_test_slurp(epath, NULL);
  char *o = gb_test_slurp(opath, NULL);
  if (out) *out = o;
  else free(o);
  return rc;
}

#define ARGS(...) (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), (const char *[]){__VA_ARGS__}

/* Expects exit 2 and the one-line message (after "gpubench t: "). */
#define EXPECT_USAGE(msg, ...)                                                                                         \
  do {                                                                                                                 \
    targs a_;                                                                                                          \
    char *err_;                                                                                                        \
    int rc_ = parse(&a_, &err_, NULL, ARGS(__VA_ARGS__));                                                              \
    ck_assert_int_eq(rc_, 2);                                                                                          \
    ck_assert_msg(strstr(err_, "gpubench t: " msg "\n") != NULL, "stderr: %s", err_);                                 \
    ck_assert_ptr_nonnull(strstr(err_, "Try 'gpubench t --help'."));                                                  \
    free(err_);                                                                                                        \
    gb_opt_free(&k_tcmd, &a_);                                                                                         \
  } while (0)

START_TEST(test_parse_values) {
  targs a;
  char *err;
  int rc = parse(&a, &err, NULL,
                 ARGS("t", "--iters", "5", "f1", "--alpha=0.25", "-a", "--name", "x y", "-ob.csv", "--mode", "slow",
                      "-t", "p", "--tag=q", "--pos", "2.5", "--big", "9007199254740993", "--count", "7", "--extra",
                      "e1", "--extra", "e2", "--call", "v", "--alias", "--", "-f2"));
  ck_assert_int_eq(rc, GB_CLI_CONTINUE);
  ck_assert_str_eq(err, "");
  free(err);
  ck_assert_int_eq(a.iters, 5);
  ck_assert_double_eq(a.alpha, 0.25);
  ck_assert(a.all);
  ck_assert_str_eq(a.name, "x y");
  ck_assert_str_eq(a.out, "b.csv");
  ck_assert_int_eq(a.mode, 1);
  ck_assert_uint_eq(a.ntags, 2);
  ck_assert_str_eq(a.tags[0], "p");
  ck_assert_str_eq(a.tags[1], "q");
  ck_assert_double_eq(a.pos, 2.5);
  ck_assert(a.big == INT64_C(9007199254740993));
  ck_assert_uint_eq(a.count, 7);
  ck_assert(a.count_given);
  ck_assert_uint_eq(a.nextra, 2);
  ck_assert_str_eq(a.extra[1], "e2");
  ck_assert_int_eq(a.calls, 2);
  ck_assert_str_eq(a.files[0], "f1");
  ck_assert_str_eq(a.files[1], "-f2"); /* after "--": an operand */
  gb_opt_free(&k_tcmd, &a);
  ck_assert_ptr_null(a.extra);
  ck_assert_uint_eq(a.nextra, 0);
  /* a prefix of a long name is enough when it is unambiguous; a second
   * parse in the same process starts afresh */
  rc = parse(&a, &err, NULL, ARGS("t", "--it", "7", "a", "b", "-a", "--no-all"));
  ck_assert_int_eq(rc, GB_CLI_CONTINUE);
  ck_assert_int_eq(a.iters, 7);
  ck_assert(!a.all);
  ck_assert(!a.count_given);
  ck_assert(isnan(a.alpha)); /* not given: the default stays */
  free(err);
}
END_TEST

START_TEST(test_parse_errors) {
  EXPECT_USAGE("--iters: not a whole number from 1 to 100000: \"x\"", "t", "a", "b", "--iters", "x");
  EXPECT_USAGE("--iters: not a whole number from 1 to 100000: \"0\"", "t", "a", "b", "-n0");
  EXPECT_USAGE("--iters: not a whole number from 1 to 100000: \"1e9\"", "t", "a", "b", "--iters=1e9");
  EXPECT_USAGE("--big: not a whole number of at least 0: \"-1\"", "t", "a", "b", "--big", "-1");
  EXPECT_USAGE("--alpha: not a number between 0 and 1: \"1\"", "t", "a", "b", "--alpha", "1");
  EXPECT_USAGE("--alpha: not a number between 0 and 1: \"nan\"", "t", "a", "b", "--alpha", "nan");
  EXPECT_USAGE("--pos: not a positive number: \"0\"", "t", "a", "b", "--pos", "0");
  EXPECT_USAGE("--pos: not a positive number: \"inf\"", "t", "a", "b", "--pos", "inf");
  EXPECT_USAGE("--mode: not one of fast, slow: \"medium\"", "t", "a", "b", "--mode", "medium");
  EXPECT_USAGE("at most 3 --tag values", "t", "a", "b", "-t1", "-t2", "-t3", "-t4");
  EXPECT_USAGE("--call: refused \"refuse\"", "t", "a", "b", "--call", "refuse");
  EXPECT_USAGE("--iters needs a value", "t", "a", "b", "--iters");
  EXPECT_USAGE("--iters needs a value", "t", "a", "b", "-n");
  EXPECT_USAGE("--name needs a value", "t", "a", "b", "--name", "");
  EXPECT_USAGE("--all takes no value: \"--all=1\"", "t", "a", "b", "--all=1");
  EXPECT_USAGE("ambiguous option \"--al\" (--alpha, --all)", "t", "a", "b", "--al");
  EXPECT_USAGE("unknown option \"--frobnicate\"", "t", "a", "b", "--frobnicate");
  EXPECT_USAGE("unknown option \"--frobnicate\"", "t", "a", "b", "--frobnicate=3");
  EXPECT_USAGE("unknown option \"-z\"", "t", "a", "b", "-z");
  EXPECT_USAGE("unknown option \"-z\"", "t", "a", "b", "--name", "x", "-az"); /* in a cluster after a long one */
  EXPECT_USAGE("needs A and B", "t", "a");
  EXPECT_USAGE("two files, not \"c\"", "t", "a", "b", "c");
}
END_TEST

START_TEST(test_parse_help) {
  targs a;
  char *err, *out;
  /* --help anywhere, even after a bad value: the help, exit 0 */
  int rc = parse(&a, &err, &out, ARGS("t", "--iters", "x", "--help"));
  ck_assert_int_eq(rc, 0);
  ck_assert_str_eq(err, "");
  ck_assert_ptr_nonnull(strstr(out, "Usage: gpubench t [OPTIONS] A B\n\nLine one.\n\nParagraph two.\n"));
  ck_assert_ptr_nonnull(strstr(out, "\nOptions:\n  -n, --iters N"));
  ck_assert_ptr_nonnull(strstr(out, "\nStrings:\n  --name TEXT"));
  ck_assert_ptr_nonnull(strstr(out, "  -h, --help"));
  ck_assert_ptr_null(strstr(out, "--alias")); /* hidden */
  ck_assert_ptr_nonnull(strstr(out, "\nExit codes: 0 ok, 2 bad usage.\n"));
  free(err);
  free(out);
  rc = parse(&a, &err, &out, ARGS("t", "-h"));
  ck_assert_int_eq(rc, 0);
  free(err);
  free(out);
  /* after "--" it is an operand */
  rc = parse(&a, &err, &out, ARGS("t", "a", "--", "--help"));
  ck_assert_int_eq(rc, GB_CLI_CONTINUE);
  ck_assert_str_eq(a.files[1], "--help");
  free(err);
  free(out);
}
END_TEST

/* ---- every command: --help, man page and completion from its table ---- */

typedef struct names {
  char v[512][48];
  size_t n;
} names;

static void collect(const gb_opt *o, void *ctx) {
  names *s = ctx;
  if (!o->hidden && s->n < 512) snprintf(s->v[s->n++], sizeof s->v[0], "--%s", o->name);
}

static char *text_of(void (*fn)(const void *, FILE *), const void *arg) {
  FILE *fp = tmpfile();
  ck_assert_ptr_nonnull(fp);
  fn(arg, fp);
  long len = ftell(fp);
  char *buf = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(buf);
  rewind(fp);
  ck_assert_uint_eq(fread(buf, 1, (size_t)len, fp), (size_t)len);
  buf[len] = '\0';
  fclose(fp);
  return buf;
}
static void help_fn(const void *cmd, FILE *fp) { gb_optdoc_help(cmd, fp); }
static void man_fn(const void *prog, FILE *fp) { gb_optdoc_man(prog, fp); }
static void completion_fn(const void *prog, FILE *fp) { gb_optdoc_bash_completion(prog, fp); }

/* The option names at the start of the help's option lines ("  --x" or
 * "  -x, --y"). */
static void help_options(const char *help, names *s) {
  s->n = 0;
  for (const char *p = help; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    const char *q = p;
    if (strncmp(q, "  -", 3) != 0) continue;
    q += 2;
    if (q[1] != '-') q += 4; /* "-x, " */
    size_t len = strcspn(q, " \n");
    if (s->n < 512) snprintf(s->v[s->n++], sizeof s->v[0], "%.*s", (int)len, q);
  }
}

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

START_TEST(test_help_lists_exactly_the_table) {
  for (const gb_command *c = gb_commands; c->spec; c++) {
    const gb_opt_cmd *cmd = c->spec;
    ck_assert_msg(cmd->options != NULL, "%s has no option table", cmd->name);
    static names want, got;
    want.n = 0;
    gb_opt_each(cmd, collect, &want);
    char *help = text_of(help_fn, cmd);
    help_options(help, &got);
    ck_assert_msg(got.n == want.n, "%s --help lists %zu options, its table %zu", cmd->name, got.n, want.n);
    qsort(want.v, want.n, sizeof want.v[0], cmp_names);
    qsort(got.v, got.n, sizeof got.v[0], cmp_names);
    for (size_t i = 0; i < want.n; i++) ck_assert_str_eq(got.v[i], want.v[i]);
    ck_assert_msg(strstr(help, "Usage: gpubench ") && strstr(help, "\nExit codes: "), "%s: no usage or exit codes",
                  cmd->name);
    free(help);
  }
}
END_TEST

START_TEST(test_man_and_completion_cover_every_option) {
  const gb_optdoc_prog *prog = gb_cli_program();
  char *man = text_of(man_fn, prog), *comp = text_of(completion_fn, prog);
  static const char *const sections[] = {"NAME", "SYNOPSIS", "DESCRIPTION", "\"EXIT STATUS\"", "ENVIRONMENT", "FILES"};
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
    char sh[64];
    snprintf(sh, sizeof sh, "\n.SH %s\n", sections[i]);
    ck_assert_msg(strstr(man, sh), "man page lacks %s", sh);
  }
  for (const gb_command *c = gb_commands; c->spec; c++) {
    const gb_opt_cmd *cmd = c->spec;
    char want[160];
    snprintf(want, sizeof want, ".SH \"gpubench %s\"\n", cmd->name);
    const char *sec = strstr(man, want);
    ck_assert_msg(sec != NULL, "man page lacks %s", want);
    const char *end = strstr(sec + 1, "\n.SH ");
    snprintf(want, sizeof want, "\n  %s)\n", cmd->name);
    const char *cc = strstr(comp, want);
    ck_assert_msg(cc != NULL, "completion lacks %s", cmd->name);
    const char *cend = strstr(cc, "\n    ;;\n");
    static names opts;
    opts.n = 0;
    gb_opt_each(cmd, collect, &opts);
    for (size_t i = 0; i < opts.n; i++) {
      /* man: "\fB\-\-name\fR" within the command's section */
      char roff[160] = "\\fB";
      size_t k = 3;
      for (const char *p = opts.v[i]; *p && k + 3 < sizeof roff; p++) {
        if (*p == '-') roff[k++] = '\\';
        roff[k++] = *p;
      }
      snprintf(roff + k, sizeof roff - k, "\\fR");
      const char *at = strstr(sec, roff);
      ck_assert_msg(at && at < end, "man section of %s lacks %s", cmd->name, opts.v[i]);
      /* completion: the word in the command's option list */
      snprintf(want, sizeof want, " %s ", opts.v[i]);
      const char *in = strstr(cc, "if [[ $cur == -* ]]; then\n      COMPREPLY=($(compgen -W \""); /* the options */
      if (in) in = strstr(in, "compgen -W \"");
      ck_assert_ptr_nonnull(in);
      char list[8192];
      snprintf(list, sizeof list, " %.*s ", (int)strcspn(in + 12, "\""), in + 12);
      ck_assert_msg(strstr(list, want) && in < cend, "completion of %s lacks %s", cmd->name, opts.v[i]);
    }
  }
  free(man);
  free(comp);
}
END_TEST

/* plan's planner options and workload keys come from the planner's tables:
 * each one is a name the planner takes, and none is left out. */
static void plan_more(const gb_opt *o, void *ctx) {
  size_t *n = ctx;
  if (o->kind != GB_OPT_CALL || !o->set || strcmp(o->name, "store-timeout") == 0) return; /* the store's */
  n[0]++;
  ck_assert_msg(gb_plan_is_opt(o->name) || gb_workload_is_key(o->name), "--%s: not a planner name", o->name);
  if (!o->hidden) n[1]++;
}

START_TEST(test_plan_options_from_the_planner) {
  size_t n[2] = {0, 0};
  gb_opt_each(&gb_plan_cmd, plan_more, n);
  size_t want = gb_workload_opts(NULL, 0);
  for (const gb_opt *p = gb_plan_opt_table(); p->name; p++) want += strcmp(p->name, "only-measured") != 0;
  ck_assert_uint_eq(n[1], want);
  ck_assert_uint_gt(n[0], n[1]); /* the '-' spellings of the workload keys */
}
END_TEST

/* A choice's placeholder in --help is exactly its values joined by '|', and
 * each one shown is accepted (before: plan --help showed --rank-by
 * LOW|MEDIAN|HIGH and --budget-basis CASH|AMORTIZED, which the parser
 * refuses, as --objective once showed EFF). */
static void choice_shown_exactly(const gb_opt *o, void *ctx) {
  (void)ctx;
  if (o->kind != GB_OPT_CHOICE || !o->choices) return;
  char want[256] = "";
  for (size_t i = 0; o->choices[i]; i++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? "|" : "", o->choices[i]);
  ck_assert_msg(o->metavar && strcmp(o->metavar, want) == 0, "--%s shows \"%s\" but takes %s", o->name,
                o->metavar ? o->metavar : "(nothing)", want);
}

START_TEST(test_choices_shown_are_accepted) {
  for (const gb_command *c = gb_commands; c->spec; c++) gb_opt_each(c->spec, choice_shown_exactly, NULL);
  size_t checked = 0;
  for (const gb_opt *p = gb_plan_opt_table(); p->name; p++) {
    if (p->kind != GB_OPT_CHOICE) continue;
    choice_shown_exactly(p, NULL);
    char mv[256];
    snprintf(mv, sizeof mv, "%s", p->metavar);
    for (char *save = NULL, *w = strtok_r(mv, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
      gb_plan_opts o;
      gb_plan_opts_default(&o);
      ck_assert_msg(gb_plan_opt_set(&o, p->name, w) == GB_OK, "--%s %s (shown in --help): %s", p->name, w,
                    gb_errmsg());
      checked++;
    }
  }
  ck_assert_uint_ge(checked, 8); /* objective 3, rank-by 3, budget-basis 2 */
}
END_TEST

/* history's help states gb_cp_defaults()' values */
START_TEST(test_history_defaults) {
  gb_cp_options d = gb_cp_defaults();
  char *help = text_of(help_fn, &gb_history_cmd);
  char want[2][96];
  snprintf(want[0], sizeof want[0], "--min-segment N runs on each side of a change (default %zu,", d.min_segment);
  snprintf(want[1], sizeof want[1], "--alpha A level of the step test per segment (default %g)", d.alpha);
  for (char *p = help, *q = help; (*q = *p); p++) /* runs of spaces as one: the column's width is the widest option's */
    if (!(*p == ' ' && q > help && q[-1] == ' ')) q++;
  for (int i = 0; i < 2; i++) ck_assert_msg(strstr(help, want[i]), "help lacks %s", want[i]);
  free(help);
}
END_TEST

/* --opt repeated adds up (it replaced the earlier values: `--opt gemm.precs=fp64 --opt gemm.search_log=F`
 * ran every precision) */
START_TEST(test_run_opt_repeated) {
  gb_run_args a;
  char *one[] = {"run", "--opt", "gemm.precs=fp64", NULL};
  ck_assert_int_eq(gb_run_parse_args(3, one, &a), GB_CLI_CONTINUE);
  ck_assert_str_eq(a.bench_opts, "gemm.precs=fp64");
  char *two[] = {"run", "--opt", "gemm.precs=fp64:fp32", "--bench", "gemm", "--opt=gemm.rest_ms=0,membw.corrupt=on", NULL};
  ck_assert_int_eq(gb_run_parse_args(6, two, &a), GB_CLI_CONTINUE);
  ck_assert_str_eq(a.bench_opts, "gemm.precs=fp64:fp32,gemm.rest_ms=0,membw.corrupt=on");
  char *none[] = {"run", NULL};
  ck_assert_int_eq(gb_run_parse_args(1, none, &a), GB_CLI_CONTINUE);
  ck_assert_ptr_null(a.bench_opts);
  /* over GB_RUN_OPTS_MAX bytes together: a usage error, not a cut list */
  static char big[GB_RUN_OPTS_MAX / 2 + 1];
  memset(big, 'x', sizeof big - 1);
  char *many[] = {"run", "--opt", big, "--opt", big, NULL};
  ck_assert_int_eq(gb_run_parse_args(5, many, &a), 2);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_parse_values);
  tcase_add_test(tc, test_parse_errors);
  tcase_add_test(tc, test_parse_help);
  suite_add_tcase(s, tc);
  tc = tcase_create("commands");
  tcase_add_test(tc, test_help_lists_exactly_the_table);
  tcase_add_test(tc, test_man_and_completion_cover_every_option);
  tcase_add_test(tc, test_plan_options_from_the_planner);
  tcase_add_test(tc, test_choices_shown_are_accepted);
  tcase_add_test(tc, test_history_defaults);
  tcase_add_test(tc, test_run_opt_repeated);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
