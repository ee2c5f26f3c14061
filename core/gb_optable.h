/* gb_optable: option tables. A subcommand describes its command line once,
 * in a gb_opt_cmd (name, synopsis, description, options, operands, exit
 * status); gb_opt_read reads argv into the command's args struct by that
 * table (getopt_long underneath) and says what it found. The same table is
 * what people and shells see: cli/gb_optdoc.h writes a command's --help, the
 * man page and the bash completion from it, and cli/gb_cli.h's gb_cli_parse
 * is how every subcommand parses (gb_opt_read, then the help on stdout or
 * the usage error on stderr, and the exit code). A module below the command
 * line may hand its options over as entries of this type without knowing
 * the command line (the planner: gb_plan_opt_table, gb_workload_opts).
 *
 * Example (cli/cmd_compare.c has the full one):
 *
 *   typedef struct { const char *files[2], *junit; double alpha; int iters; bool all; } my_args;
 *   static const gb_opt my_opts[] = {
 *       {"alpha", 0, "A", "significance level (default 0.01)", GB_OPT_DOUBLE, GB_OPT_AT(my_args, alpha),
 *        .lo = 0, .hi = 1, .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
 *       {"iters", 'n', "N", "timed samples", GB_OPT_INT, GB_OPT_AT(my_args, iters), .min = 1, .max = 100000},
 *       {"junit", 0, "FILE", "write JUnit XML", GB_OPT_PATH, GB_OPT_AT(my_args, junit), .ext = "xml"},
 *       {"all", 0, NULL, "list every figure", GB_OPT_FLAG, GB_OPT_AT(my_args, all)},
 *       {0}};
 *   const gb_opt_cmd my_cmd = {
 *       .name = "compare", .synopsis = "[OPTIONS] BASELINE.csv CURRENT.csv",
 *       .summary = "compare results with a baseline",
 *       .description = "First paragraph,\nwrapped at 80 columns.\n\nSecond paragraph.",
 *       .options = my_opts,
 *       .operands = {.metavar = "BASELINE.csv CURRENT.csv", .min = 2, .max = 2, .ext = "csv",
 *                    GB_OPT_AT(my_args, files), .missing = "needs BASELINE.csv and CURRENT.csv"},
 *       .exit_status = "0 pass; 1 a regression; 2 bad usage or input."};
 *
 *   my_args a = {.alpha = NAN, .iters = 30};     // defaults first: the reader only sets what is given
 *   char err[512];
 *   switch (gb_opt_read(&my_cmd, argc, argv, &a, err, sizeof err)) { ... }
 *   gb_opt_free(&my_cmd, &a);                    // in every case
 *
 * Other forms: operands of any number, .max = -1 with GB_OPT_AT(T, files)
 * (a const char ** the reader mallocs) and GB_OPT_COUNT(T, nfiles)
 * (cli/cmd_report.c); a setter for what a kind cannot say, .set
 * (cli/cmd_plan.c's workload file and keys); options grouped under
 * headings, .group on the first of each group (cli/cmd_plan.c). A new
 * subcommand is one line in cli/gb_commands.c; tests/check_cli.c then checks
 * that its --help, man section and completion list exactly its table's
 * options.
 *
 * Reading (argv[0] is the subcommand's name):
 * - "--name VALUE", "--name=VALUE", "-x VALUE", "-xVALUE"; a long name may be
 *   shortened to any unambiguous prefix (getopt_long). Options and operands
 *   may be mixed; "--" ends the options. -h and --help are built in: when
 *   either appears anywhere before "--", the read returns GB_OPT_HELP
 *   without reading anything else.
 * - Every value is checked as its kind says, when it is read. A bad value,
 *   an unknown option, a missing or empty value, or a wrong number of
 *   operands is GB_OPT_USAGE with one line in err naming the option and the
 *   value (gb_cli_parse prints it after "gpubench CMD: "):
 *     --iters: not a whole number from 1 to 100000: "x"
 *     --alpha: not a number between 0 and 1: "2"     (both ends open)
 *     --threshold: not a non-negative number: "-1"  (lo 0, hi INFINITY)
 *     --mode: not one of fast, slow: "medium"
 *     --alpha needs a value
 *     unknown option "--frob"   / ambiguous option "--al" (--alpha, --all)
 *   A command's own checks across options (run: --out against --resume)
 *   follow the read, through gb_cli_usage_error.
 * - Strings stored in the args struct point into argv. gb_opt_free releases
 *   what the reader allocated (operand and list arrays of unbounded size)
 *   in every case.
 *
 * Library rule: nothing here exits or prints; what went wrong is in err. */
#ifndef GB_OPTABLE_H
#define GB_OPTABLE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gb_opt_kind {
  GB_OPT_FLAG,   /* no value: stores true in the bool (or 1 in the int) at .off; false (0)
                    with .clear (--quick against --full) */
  GB_OPT_STRING, /* const char * at .off, any non-empty text */
  GB_OPT_PATH,   /* const char * at .off, a file or directory name; .ext tells completion which */
  GB_OPT_INT,    /* whole number in [.min, .max], stored in the integer at .off (int, long,
                    int64_t, size_t, uint64_t: by its size, GB_OPT_AT records it) */
  GB_OPT_DOUBLE, /* finite number in [.lo, .hi] (.bounds makes either end open; .hi = INFINITY
                    for no upper bound), double at .off */
  GB_OPT_CHOICE, /* one of .choices (NULL-terminated): its index, in the int at .off; the
                    completion offers them */
  GB_OPT_LIST,   /* repeatable text: appended to a const char * array at .off, count in the
                    size_t at .count_off; .max > 0: the array is inline, that long; .max = 0:
                    the reader mallocs it (gb_opt_free releases it) */
  GB_OPT_CALL,   /* no storage: .set does it (with a value when .metavar is set, else NULL) */
} gb_opt_kind;

/* .writes of GB_OPT_PATH */
#define GB_OPT_WRITES_FILE 1
#define GB_OPT_WRITES_DIR 2

/* .bounds of GB_OPT_DOUBLE */
#define GB_OPT_LO_OPEN 1u /* value > lo, not >= */
#define GB_OPT_HI_OPEN 2u /* value < hi, not <= */

/* Where a value goes: the member m of the args struct type T. */
#define GB_OPT_AT(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)
/* A list's or unbounded operands' count: the size_t member m of T. */
#define GB_OPT_COUNT(T, m) .count_off = offsetof(T, m), .has_count = true
/* A bool member m of T set true when the option is given (for a value whose
 * default has no "not given" sentinel). */
#define GB_OPT_GIVEN(T, m) .given_off = offsetof(T, m), .has_given = true

/* A setter for what a table cannot say: gets the args struct, the option's
 * entry (NULL for an operand) and the value (NULL for an option without a
 * value); returns 0, or nonzero with a message in err (without the
 * "gpubench CMD: " prefix, which gb_cli_parse adds; the read then returns
 * GB_OPT_USAGE).
 * It is called after the kind's own check and store, so for GB_OPT_INT etc.
 * val is valid. */
struct gb_opt;
typedef int (*gb_opt_setter)(void *args, const struct gb_opt *opt, const char *val, char *err, size_t errlen);

typedef struct gb_opt {
  const char *name;    /* long name without "--"; NULL ends the table */
  char short_name;     /* one letter for "-x", or 0 */
  const char *metavar; /* the value's placeholder in help ("FILE", "N"); NULL: no value */
  const char *help;    /* what it does, defaults included; '\n' continues it on another line */
  gb_opt_kind kind;
  size_t off, size;    /* where the value goes: GB_OPT_AT(T, member) */
  long long min, max;  /* GB_OPT_INT range; GB_OPT_LIST inline capacity (max) */
  double lo, hi;       /* GB_OPT_DOUBLE range */
  unsigned bounds;     /* GB_OPT_LO_OPEN | GB_OPT_HI_OPEN */
  const char *const *choices; /* GB_OPT_CHOICE: the accepted values, NULL-terminated */
  const char *ext;     /* GB_OPT_PATH: completion: "csv", "csv|ini" (files with one of
                          those extensions), "/" (directories), NULL (any file) */
  size_t count_off;    /* GB_OPT_LIST: GB_OPT_COUNT(T, member) */
  bool has_count;
  bool clear;          /* GB_OPT_FLAG: store false instead of true */
  size_t given_off;    /* GB_OPT_GIVEN(T, member): set true when given */
  bool has_given;
  gb_opt_setter set;   /* GB_OPT_CALL: stores the value; other kinds: called after storing */
  const char *group;   /* starts a new group of options in help under this heading ("Output") */
  bool hidden;         /* accepted, but not in help, man page or completion (an alias) */
  unsigned char writes; /* GB_OPT_PATH that the command writes: GB_OPT_WRITES_FILE or _DIR (the
                           output guard's tests walk every one: tests/check_store_harden.c) */
} gb_opt;

/* A command's operands (the arguments that are not options). */
typedef struct gb_opt_operands {
  const char *metavar; /* as in the synopsis: "BASELINE.csv CURRENT.csv", "CSV|DIR..." */
  const char *help;    /* one line for the man page, optional */
  int min, max;        /* how many; max -1: any number */
  const char *ext;     /* completion, as gb_opt.ext ("/" also completes directories) */
  size_t off, size;    /* max > 0: an inline array of max const char * at .off (GB_OPT_AT);
                          max -1: a malloc'd const char ** stored at .off */
  size_t count_off;    /* GB_OPT_COUNT: the count, when the struct keeps one */
  bool has_count;
  gb_opt_setter set;   /* instead of storing: called with each operand */
  const char *missing; /* message for fewer than min (default "needs METAVAR") */
  const char *extra;   /* message for more than max, with one %s for the first extra one
                          (default "unexpected argument '%s'") */
} gb_opt_operands;

typedef struct gb_opt_cmd {
  const char *name;        /* "compare" */
  const char *synopsis;    /* after "gpubench NAME ": "[OPTIONS] BASELINE.csv CURRENT.csv" */
  const char *summary;     /* one line for the command list and the man page */
  const char *description; /* paragraphs separated by "\n\n", lines wrapped at 80 columns */
  const gb_opt *options;   /* the table, ended by {0}; read and listed in this order, the
                              built-in -h, --help after it (NULL: only -h, --help) */
  gb_opt_operands operands;
  const char *notes;       /* paragraphs printed after the options (may be NULL) */
  const char *exit_status; /* "0 pass; 1 ...": after "Exit codes: " */
  /* options added at run time from another module's table (plan's planner
   * options and workload keys): fills up to n entries, returns how many */
  size_t (*more)(gb_opt *out, size_t n);
} gb_opt_cmd;

/* What gb_opt_read found. */
typedef enum gb_opt_status {
  GB_OPT_OK,    /* read: the command goes on with its args */
  GB_OPT_HELP,  /* -h or --help was given: show the help, read nothing else */
  GB_OPT_USAGE, /* bad usage: err says what, naming the option and the value */
  GB_OPT_NOMEM, /* memory ran out */
} gb_opt_status;

/* Reads argv (argv[0] the command's name) into args by cmd's table; see the
 * top of this file. args must hold the defaults already; err (errlen bytes,
 * 512 is plenty) gets the message of a GB_OPT_USAGE. */
gb_opt_status gb_opt_read(const gb_opt_cmd *cmd, int argc, char **argv, void *args, char *err, size_t errlen);

/* Frees what gb_opt_read allocated in args (unbounded operands and lists),
 * setting those pointers to NULL and counts to 0. */
void gb_opt_free(const gb_opt_cmd *cmd, void *args);

/* True when argv holds -h or --help before any "--". */
bool gb_opt_wants_help(int argc, char **argv);

/* A command's options in the order they are read and listed: its table, the
 * built-in -h/--help, then cmd->more's entries. */
typedef struct gb_optset {
  const gb_opt **v;
  size_t n;
  gb_opt *more; /* storage for cmd->more's entries */
} gb_optset;

/* Fills s; 0, or -1 when memory ran out (nothing to free then). */
int gb_optset_init(const gb_opt_cmd *cmd, gb_optset *s);
void gb_optset_free(gb_optset *s);

/* The options of cmd, the built-in help and cmd->more's included, for
 * tests: calls fn for each. */
void gb_opt_each(const gb_opt_cmd *cmd, void (*fn)(const gb_opt *o, void *ctx), void *ctx);

#endif
