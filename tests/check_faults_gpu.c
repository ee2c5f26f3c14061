/* check_faults_gpu: GPU faults end their case with status `error`; the
 * campaign goes on where the CUDA context allows and stops cleanly, every
 * finished row kept, where it does not; --resume then completes it.
 *
 * - gpubench run --bench fault (the test-only benchmark, GPUBENCH_TEST_FAULT=1)
 *   as a subprocess: out of device memory and an unsupported precision are
 *   `error` rows and the next case runs (the runner clears the non-sticky
 *   error); the out-of-bounds kernel is an `error` row, the run stops with
 *   exit 1 and the message to resume; --resume skips what is there and runs
 *   the last case.
 * - The GEMM benchmark's own paths in this process: a precision the device
 *   lacks (the device seen as compute capability 7.0) and a shape that does
 *   not fit in device memory.
 * Exit 77 (SKIPPED) without a GPU. Not for compute-sanitizer: the fault is
 * deliberate (scripts/device-run.sh memcheck leaves this program out). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_fault.h"
#include "bench_gemm.h"
#include "gb_bench.h"
#include "gb_results.h"
#include "testutil_gpu.h"

static gb_system_info g_sys;

/* The row of case name in res, checking there is exactly one; NULL when none. */
static const gb_row *only_row(const gb_results *res, const char *name) {
  const gb_row *found = NULL;
  for (size_t i = 0; i < res->nrows; i++)
    if (strcmp(res->rows[i].case_name, name) == 0) {
      ck_assert_msg(found == NULL, "case %s appears twice", name);
      found = &res->rows[i];
    }
  return found;
}

START_TEST(test_fault_campaign) {
  const char *dir = gb_test_tmpdir();
  const char *exe = gb_test_gpubench();
  ck_assert_ptr_nonnull(exe);
  char out[1200], log[1200], marker[1300];
  snprintf(out, sizeof out, "%s/faults.csv", dir);
  snprintf(log, sizeof log, "%s/run.log", dir);
  snprintf(marker, sizeof marker, "%s.committed", out);
  setenv("GPUBENCH_TEST_FAULT", "1", 1);
  char *run[] = {(char *)exe, "run", "--bench", "fault", "--out", out, NULL};
  int rc = gb_test_run(run, log);
  char *text = gb_test_slurp(log, NULL);
  printf("--- gpubench run --bench fault ---\n%s", text ? text : "");
  ck_assert_msg(rc == 1, "exit %d, expected 1 (the run stopped at the fault)", rc);
  ck_assert_ptr_nonnull(strstr(text, "the CUDA context broke"));
  ck_assert_ptr_nonnull(strstr(text, "rerun with --resume"));
  free(text);
  ck_assert_int_ne(access(marker, F_OK), 0); /* the writer closed cleanly */

  gb_results res = {0};
  ck_assert_msg(gb_results_read(out, &res) == GB_OK, "%s", gb_errmsg());
  const gb_row *r = only_row(&res, "ok_before");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->status, GB_STATUS_OK);
  r = only_row(&res, "oom");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->status, GB_STATUS_ERROR);
  ck_assert_msg(strstr(r->detail, "out of device memory: cudaMalloc") != NULL, "oom detail: %s", r->detail);
  r = only_row(&res, "after_oom"); /* the OOM did not leak into the next case */
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->status, GB_STATUS_OK);
  r = only_row(&res, "unsupported");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->status, GB_STATUS_UNSUPPORTED);
  ck_assert_msg(strstr(r->detail, "not supported: fault: fp2") != NULL, "unsupported detail: %s", r->detail);
  r = only_row(&res, "fault");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->status, GB_STATUS_ERROR);
  ck_assert_msg(strstr(r->detail, "CUDA library call failed") != NULL &&
                    (strstr(r->detail, "illegal") != NULL || strstr(r->detail, "Illegal") != NULL),
                "fault detail: %s", r->detail);
  ck_assert_ptr_null(only_row(&res, "after_fault")); /* stopped at the fault */
  ck_assert_uint_eq(res.nrows, 5);
  gb_results_free(&res);

  /* --resume: a new process, a new context; what is in the file is skipped */
  char *resume[] = {(char *)exe, "run", "--bench", "fault", "--resume", out, NULL};
  rc = gb_test_run(resume, log);
  text = gb_test_slurp(log, NULL);
  printf("--- gpubench run --bench fault --resume ---\n%s", text ? text : "");
  ck_assert_msg(rc == 0, "resume exit %d", rc);
  ck_assert_ptr_nonnull(strstr(text, "1 case(s) run, 5 skipped"));
  free(text);
  ck_assert_msg(gb_results_read(out, &res) == GB_OK, "%s", gb_errmsg());
  for (int i = 0; i < GB_FAULT_NCASES; i++) ck_assert_ptr_nonnull(only_row(&res, gb_fault_cases[i]));
  ck_assert_int_eq(only_row(&res, "after_fault")->status, GB_STATUS_OK);
  ck_assert_uint_eq(res.nrows, GB_FAULT_NCASES);
  gb_results_free(&res);
  unsetenv("GPUBENCH_TEST_FAULT");
}
END_TEST

/* A refused option stops `run` at its plan: exit 2, the option named, no
 * results file and no "0 case(s) run -> FILE" line that reads like a finished
 * campaign (before, the file was created and that line printed first). */
START_TEST(test_refused_option_touches_no_file) {
  const char *dir = gb_test_tmpdir();
  const char *exe = gb_test_gpubench();
  ck_assert_ptr_nonnull(exe);
  char out[1200], log[1200];
  snprintf(out, sizeof out, "%s/refused.csv", dir);
  snprintf(log, sizeof log, "%s/refused.log", dir);
  unlink(out);
  char *run[] = {(char *)exe, "run", "--bench", "membw", "--opt", "membw.nosuch=1", "--out", out, NULL};
  int rc = gb_test_run(run, log);
  char *text = gb_test_slurp(log, NULL);
  printf("--- gpubench run --opt membw.nosuch=1 ---\n%s", text ? text : "");
  ck_assert_msg(rc == 2, "exit %d, expected 2", rc);
  ck_assert_ptr_nonnull(text);
  ck_assert_ptr_nonnull(strstr(text, "nosuch"));
  ck_assert_ptr_null(strstr(text, "case(s) run"));
  free(text);
  ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* The GEMM benchmark's own refusals, through its run() in this process. */
START_TEST(test_gemm_unsupported_and_oom) {
  const gb_bench *gemm = gb_bench_find("gemm");
  ck_assert_ptr_nonnull(gemm);
  gb_run_config cfg = {.profile = GB_PROFILE_QUICK, .ndevices = 1, .warmup = -1, .iters = -1, .repeat = 1};
  gb_device_info dev = g_sys.dev[0];
  gb_run_ctx ctx = {.sys = &g_sys, .cfg = &cfg, .dev = &dev};
  ck_assert_int_eq(cudaSetDevice(dev.ordinal), cudaSuccess);
  ck_assert_msg(gemm->setup(&ctx) == GB_OK, "%s", gb_errmsg());
  gb_rowset rows = {0};

  /* bf16 on a device seen as compute capability 7.0: not supported, named */
  const gb_gemm_prec *bf16 = gb_gemm_prec_find("bf16");
  ck_assert_ptr_nonnull(bf16);
  gb_case c = gb_gemm_make_case(bf16, GB_GEMM_TN, 1024, 1024, 1024);
  dev.cc_major = 7;
  dev.cc_minor = 0;
  ck_assert_int_eq(gemm->run(&ctx, &c, &rows), GB_E_UNSUPPORTED);
  ck_assert_msg(strstr(gb_errmsg(), "needs compute capability 8.0 or newer; this device is 7.0") != NULL, "%s",
                gb_errmsg());
  ck_assert_uint_eq(rows.n, 0);
  dev = g_sys.dev[0];

  /* fp64 at 200000^3: three 320 GB operands do not fit */
  const gb_gemm_prec *fp64 = gb_gemm_prec_find("fp64");
  c = gb_gemm_make_case(fp64, GB_GEMM_TN, 200000, 200000, 200000);
  ck_assert_int_eq(gemm->run(&ctx, &c, &rows), GB_E_OOM);
  ck_assert_msg(strstr(gb_errmsg(), "of device memory;") != NULL, "%s", gb_errmsg());
  ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess); /* the context is intact */

  /* and a case that fits still runs */
  c = gb_gemm_make_case(bf16, GB_GEMM_TN, 1024, 1024, 1024);
  ck_assert_msg(gemm->run(&ctx, &c, &rows) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_gt(rows.n, 0);
  ck_assert_int_eq(rows.v[0].status, GB_STATUS_OK);
  gb_rowset_free(&rows);
  gemm->teardown(&ctx);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("faults_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 600);
  /* in-process first: the fault campaign runs in subprocesses, but keep this
   * process's context away from anything that could follow a fault */
  tcase_add_test(tc, test_gemm_unsupported_and_oom);
  tcase_add_test(tc, test_fault_campaign);
  tcase_add_test(tc, test_refused_option_touches_no_file);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0 && gb_system_query(&g_sys) != GB_OK) {
    fprintf(stderr, "gb_system_query: %s\n", gb_errmsg());
    return 1;
  }
  return gb_test_run_gpu_suite(suite());
}
