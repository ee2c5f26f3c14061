/* Tests for the option-table reader on its own (core/gb_optable.h): linked
 * with core alone (no cli/), it reads argv into a struct and says what it
 * found (read, help asked, a usage error with its message, no memory), and
 * prints nothing; gb_optset lists the table, the built-in help and the
 * entries a lower module hands over (cmd->more), in that order. What the
 * program prints of it is tests/check_cli.c's. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_optable.h"
#include "testutil.h"

typedef struct rargs {
  const char *files[2];
  int iters;
  double alpha;
  bool all;
  const char *extra_key;
} rargs;

/* a module's entries handed over at run time, as the planner's are */
static size_t more_opts(gb_opt *out, size_t n) {
  if (n < 1) return 0;
  out[0] = (gb_opt){.name = "key", .metavar = "VALUE", .help = "a handed-over key", .kind = GB_OPT_STRING,
                    GB_OPT_AT(rargs, extra_key)};
  return 1;
}

#define A(m) GB_OPT_AT(rargs, m)
static const gb_opt k_opts[] = {
    {"iters", 'n', "N", "timed samples", GB_OPT_INT, A(iters), .min = 1, .max = 100},
    {"alpha", 0, "A", "significance", GB_OPT_DOUBLE, A(alpha), .lo = 0, .hi = 1,
     .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"all", 'a', NULL, "a flag", GB_OPT_FLAG, A(all)},
    {0}};
static const gb_opt_cmd k_cmd = {.name = "r", .options = k_opts, .more = more_opts,
                                  .operands = {.metavar = "A B", .min = 2, .max = 2, A(files)}};
#undef A

#define ARGS(...) (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), (char **)(const char *[]){__VA_ARGS__}

/* Reads with stdout and stderr into one file; *printed gets what was written there. */
static gb_opt_status read_quiet(rargs *a, char *err, size_t errlen, char **printed, int argc, char **argv) {
  *a = (rargs){.iters = 7, .alpha = NAN};
  char path[4200];
  snprintf(path, sizeof path, "%s/printed", gb_test_tmpdir());
  fflush(stdout);
  fflush(stderr);
  int so = dup(1), se = dup(2), f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(f, 1);
  dup2(f, 2);
  gb_opt_status st = gb_opt_read(&k_cmd, argc, argv, a, err, errlen);
  fflush(stdout);
  fflush(stderr);
  dup2(so, 1);
  dup2(se, 2);
  close(f);
  close(so);
  close(se);
  *printed = gb_test_slurp(path, NULL);
  return st;
}

#define EXPECT(status, msg, ...)                                                                                       \
  do {                                                                                                                 \
    rargs a_;                                                                                                          \
    char err_[512], *printed_;                                                                                         \
    ck_assert_int_eq(read_quiet(&a_, err_, sizeof err_, &printed_, ARGS(__VA_ARGS__)), status);                        \
    ck_assert_str_eq(printed_, "");                                                                                    \
    ck_assert_str_eq(err_, msg);                                                                                       \
    free(printed_);                                                                                                    \
    gb_opt_free(&k_cmd, &a_);                                                                                          \
  } while (0)

START_TEST(test_read_values) {
  rargs a;
  char err[512], *printed;
  gb_opt_status st = read_quiet(&a, err, sizeof err, &printed,
                                ARGS("r", "x.csv", "-n5", "--alpha=0.25", "--key", "k1", "-a", "--", "-y.csv"));
  ck_assert_int_eq(st, GB_OPT_OK);
  ck_assert_str_eq(printed, "");
  ck_assert_str_eq(err, "");
  ck_assert_int_eq(a.iters, 5);
  ck_assert(a.alpha == 0.25);
  ck_assert(a.all);
  ck_assert_str_eq(a.extra_key, "k1");
  ck_assert_str_eq(a.files[0], "x.csv");
  ck_assert_str_eq(a.files[1], "-y.csv");
  free(printed);
  gb_opt_free(&k_cmd, &a);
}
END_TEST

START_TEST(test_read_says_what_it_found) {
  EXPECT(GB_OPT_HELP, "", "r", "--iters", "x", "--help");   /* help before anything is checked */
  EXPECT(GB_OPT_HELP, "", "r", "x.csv", "-ah");             /* a cluster */
  EXPECT(GB_OPT_HELP, "", "r", "--he");                     /* a prefix */
  EXPECT(GB_OPT_USAGE, "--iters: not a whole number from 1 to 100: \"0\"", "r", "--iters", "0", "a", "b");
  EXPECT(GB_OPT_USAGE, "--alpha: not a number between 0 and 1: \"1\"", "r", "--alpha", "1", "a", "b");
  EXPECT(GB_OPT_USAGE, "--key needs a value", "r", "a", "b", "--key");
  EXPECT(GB_OPT_USAGE, "unknown option \"--frob\"", "r", "--frob", "a", "b");
  EXPECT(GB_OPT_USAGE, "--all takes no value: \"--all=1\"", "r", "--all=1", "a", "b");
  EXPECT(GB_OPT_USAGE, "needs A B", "r", "a");
  EXPECT(GB_OPT_USAGE, "unexpected argument 'c'", "r", "a", "b", "c");
  EXPECT(GB_OPT_USAGE, "needs A B", "r", "--", "--help");  /* after "--": an operand, not help */
}
END_TEST

START_TEST(test_wants_help) {
  ck_assert(gb_opt_wants_help(ARGS("r", "a", "-h")));
  ck_assert(gb_opt_wants_help(ARGS("r", "--help", "--")));
  ck_assert(!gb_opt_wants_help(ARGS("r", "--", "--help")));
  ck_assert(!gb_opt_wants_help(ARGS("r", "--helpful")));
}
END_TEST

START_TEST(test_optset_order) {
  gb_optset s;
  ck_assert_int_eq(gb_optset_init(&k_cmd, &s), 0);
  ck_assert_uint_eq(s.n, 5);
  const char *want[] = {"iters", "alpha", "all", "help", "key"};
  for (size_t i = 0; i < s.n; i++) ck_assert_str_eq(s.v[i]->name, want[i]);
  ck_assert_int_eq(s.v[3]->short_name, 'h');
  gb_optset_free(&s);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("optable");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_read_values);
  tcase_add_test(tc, test_read_says_what_it_found);
  tcase_add_test(tc, test_wants_help);
  tcase_add_test(tc, test_optset_order);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
