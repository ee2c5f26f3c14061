/* fuzz_cli: the command-line parsers of compare, history, plan, report and
 * run (cli/gb_cli_args.h), and run's --opt through core/gb_settings and the
 * gemm, membw/copy, collective and decode option parsers. They read argv and
 * nothing else: no file is opened, nothing measured or written.
 *
 * Input: the first byte picks the subcommand; the rest is split at '\n' into
 * arguments (at most 300, so plan's 256-argument limit is reached).
 * Properties: no crash or sanitizer report; the result is GB_CLI_CONTINUE,
 * 0, 1 or 2; a parse that continues has its required parts (compare: two
 * files; history: an input; run: a repeat count from 1 to 1000). */
#include <stdint.h>
#include <string.h>

#include "bench_collective.h"
#include "bench_decode.h"
#include "bench_gemm.h"
#include "bench_membw.h"
#include "fuzz_util.h"
#include "gb_cli_args.h"

#define MAX_ARGS 300

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  static const char *const names[] = {"compare", "history", "plan", "report", "run"};
  unsigned which = data[0] % 5;
  char *text = fuzz_text(data + 1, size - 1);
  char *argv[MAX_ARGS + 1];
  int argc = 0;
  argv[argc++] = (char *)names[which];
  for (char *p = text; size > 1 && argc < MAX_ARGS;) {
    argv[argc++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  argv[argc] = NULL;
  int rc;
  switch (which) {
  case 0: {
    gb_compare_args a;
    rc = gb_compare_parse_args(argc, argv, &a);
    if (rc == GB_CLI_CONTINUE) FUZZ_ASSERT(a.files[0] && a.files[1]);
    break;
  }
  case 1: {
    gb_history_args a;
    rc = gb_history_parse_args(argc, argv, &a);
    if (rc == GB_CLI_CONTINUE) FUZZ_ASSERT(a.ninputs > 0 && a.ninputs < (size_t)argc);
    gb_history_args_free(&a);
    break;
  }
  case 2: {
    gb_plan_args *a = malloc(sizeof *a); /* large: keep it off the stack */
    if (!a) abort();
    rc = gb_plan_parse_args(argc, argv, a);
    if (rc == GB_CLI_CONTINUE) FUZZ_ASSERT(a->nset < (size_t)argc && a->top >= 0);
    gb_plan_args_free(a);
    free(a);
    break;
  }
  case 3: {
    gb_report_args a;
    rc = gb_report_parse_args(argc, argv, &a);
    if (rc == GB_CLI_CONTINUE) FUZZ_ASSERT(a.out_dir && (a.plan_path || !a.sensitivity_path));
    gb_report_args_free(&a);
    break;
  }
  default: {
    gb_run_args a;
    rc = gb_run_parse_args(argc, argv, &a);
    if (rc == GB_CLI_CONTINUE) {
      FUZZ_ASSERT(a.repeat >= 1 && a.repeat <= 1000);
      /* --opt: the walker (core/gb_settings) and each benchmark's own option parser */
      gb_err e;
      gb_gemm_opts go;
      e = gb_gemm_opts_parse(a.bench_opts, &go);
      FUZZ_ASSERT(e == GB_OK || e == GB_E_USAGE || e == GB_E_INPUT);
      if (e == GB_OK) FUZZ_ASSERT(go.nprecs <= 32 && go.nshapes <= GB_GEMM_MAX_OPT_SHAPES);
      gb_membw_opts mo;
      e = gb_membw_opts_parse(a.bench_opts, "membw.", &mo);
      FUZZ_ASSERT(e == GB_OK || e == GB_E_USAGE || e == GB_E_INPUT);
      if (e == GB_OK) FUZZ_ASSERT(mo.nsizes <= GB_MEMBW_MAX_SIZES);
      e = gb_membw_opts_parse(a.bench_opts, "copy.", &mo);
      FUZZ_ASSERT(e == GB_OK || e == GB_E_USAGE || e == GB_E_INPUT);
      gb_coll_opts co;
      e = gb_coll_opts_parse(a.bench_opts, &co);
      FUZZ_ASSERT(e == GB_OK || e == GB_E_USAGE || e == GB_E_INPUT);
      gb_decode_opts dop;
      e = gb_decode_opts_parse(a.bench_opts, &dop);
      FUZZ_ASSERT(e == GB_OK || e == GB_E_USAGE || e == GB_E_INPUT);
      if (e == GB_OK) FUZZ_ASSERT(dop.nbatches <= GB_DECODE_MAX_BATCHES && dop.cases < (1u << GB_DECODE_NCASES));
    }
    break;
  }
  }
  FUZZ_ASSERT(rc == GB_CLI_CONTINUE || rc == 0 || rc == 1 || rc == 2);
  free(text);
  return 0;
}
