/* GPU tests of the collective benchmark: the check kernels against their
 * host twins for every collective of the table (a corrupted buffer is
 * counted), one-GPU all_reduce rows (ok,
 * busbw 0 by definition), the multi-process path with one rank (mp=1), and
 * on a machine with two or more GPUs every collective over 2 GPUs in one
 * process and `gpubench run --opt mp=2` end to end. Exit 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_collective.h"
#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_nvrtc.h"
#include "testutil_gpu.h"

extern const gb_bench gb_bench_collective;
extern char **environ;

static gb_system_info g_sys;

START_TEST(test_kernels_match_host) {
  ck_assert_int_eq(cudaSetDevice(0), cudaSuccess);
  gb_module mod;
  ck_assert_msg(gb_module_load("collective_check.cu", NULL, 0, &mod) == GB_OK, "%s", gb_errmsg());
  cudaKernel_t kfill, kcheck;
  ck_assert_int_eq(gb_module_kernel(&mod, "coll_fill", &kfill), GB_OK);
  ck_assert_int_eq(gb_module_kernel(&mod, "coll_check", &kcheck), GB_OK);
  const int64_t count = 10000;
  const int n = 4;
  void *dbuf;
  unsigned long long *dwrong;
  ck_assert_int_eq(cudaMalloc(&dbuf, (size_t)count * 4), cudaSuccess);
  ck_assert_int_eq(cudaMalloc((void **)&dwrong, 8), cudaSuccess);
  void *host = malloc((size_t)count * 4), *want = malloc((size_t)count * 4);
  for (int t = 0; t < GB_COLL_DTYPE_COUNT; t++) {
    int ts = gb_coll_dtype_size((gb_coll_dtype)t);
    /* the fill kernel writes what gb_coll_fill_host writes */
    unsigned long long nn = (unsigned long long)count, first = 5;
    int fmant = gb_coll_dtype_mant_bits((gb_coll_dtype)t), rank = 3, poison = 0;
    unsigned int seed = 42;
    void *fargs[] = {&dbuf, &nn, &fmant, &rank, &first, &seed, &poison};
    ck_assert_int_eq(cudaLaunchKernel((const void *)kfill, gb_dim1(64), gb_dim1(256), fargs, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(host, dbuf, (size_t)count * ts, cudaMemcpyDeviceToHost), cudaSuccess);
    gb_coll_fill_host(want, count, (gb_coll_dtype)t, 3, 5, 42);
    ck_assert_mem_eq(host, want, (size_t)count * ts);
    /* every collective: its correct result with two corrupted elements (the
     * kernel, given the table's check rule, and the host both count 2), then
     * a poisoned (never written) buffer: every element wrong */
    for (gb_coll c = 0; c < gb_coll_count(); c++) {
      const gb_coll_rule *rule = &gb_coll_desc_of(c)->check;
      int64_t send_elems, recv_elems;
      gb_coll_buffer_elems(c, count / n, n, &send_elems, &recv_elems);
      for (int64_t k = 0; k < recv_elems; k++) {
        float v = (float)gb_coll_expected(c, 1, n, count / n, (uint64_t)k, 42);
        if (k == 10 || k == recv_elems - 1) v += 1.0f;
        if (t == GB_COLL_FP32) ((float *)host)[k] = v;
        else if (t == GB_COLL_BF16) ((uint16_t *)host)[k] = gb_coll_f32_to_bf16(v);
        else ((uint16_t *)host)[k] = gb_coll_f32_to_f16(v);
      }
      ck_assert_uint_eq(gb_coll_count_wrong_host(c, (gb_coll_dtype)t, 1, n, count / n, 42, host, recv_elems), 2);
      ck_assert_int_eq(cudaMemcpy(dbuf, host, (size_t)recv_elems * ts, cudaMemcpyHostToDevice), cudaSuccess);
      ck_assert_int_eq(cudaMemset(dwrong, 0, 8), cudaSuccess);
      int mant = gb_coll_dtype_mant_bits((gb_coll_dtype)t), crank = 1, nranks = n;
      int reduce = rule->reduce, src_block = rule->src_block, src_self = rule->src_self, src_shift = rule->src_shift;
      int idx_block = rule->idx_block, idx_mod = rule->idx_mod;
      unsigned long long ccount = (unsigned long long)(count / n), cn = (unsigned long long)recv_elems;
      void *cargs[] = {&dbuf,   &cn,       &mant,     &crank,     &nranks,    &ccount,  &seed,
                       &reduce, &src_block, &src_self, &src_shift, &idx_block, &idx_mod, &dwrong};
      ck_assert_int_eq(cudaLaunchKernel((const void *)kcheck, gb_dim1(64), gb_dim1(256), cargs, 0, 0), cudaSuccess);
      unsigned long long wrong = 0;
      ck_assert_int_eq(cudaMemcpy(&wrong, dwrong, 8, cudaMemcpyDeviceToHost), cudaSuccess);
      ck_assert_msg(wrong == 2, "%s %s: kernel counts %llu wrong", gb_coll_name(c),
                    gb_coll_dtype_name((gb_coll_dtype)t), wrong);
      poison = 1;
      ck_assert_int_eq(cudaLaunchKernel((const void *)kfill, gb_dim1(64), gb_dim1(256), fargs, 0, 0), cudaSuccess);
      poison = 0;
      ck_assert_int_eq(cudaMemset(dwrong, 0, 8), cudaSuccess);
      ck_assert_int_eq(cudaLaunchKernel((const void *)kcheck, gb_dim1(64), gb_dim1(256), cargs, 0, 0), cudaSuccess);
      ck_assert_int_eq(cudaMemcpy(&wrong, dwrong, 8, cudaMemcpyDeviceToHost), cudaSuccess);
      ck_assert_uint_eq(wrong, (unsigned long long)recv_elems);
    }
  }
  free(host);
  free(want);
  cudaFree(dbuf);
  cudaFree(dwrong);
  gb_module_unload(&mod);
}
END_TEST

/* Plans, sets up and runs every case of the collective benchmark with the
 * given devices and options; returns the rows (caller frees). */
static gb_rowset run_bench(const int *devs, int ndev, const char *opts, gb_profile profile, size_t *ncases) {
  gb_run_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.profile = profile;
  for (int i = 0; i < ndev; i++) cfg.devices[i] = devs[i];
  cfg.ndevices = ndev;
  cfg.warmup = -1;
  cfg.iters = 3;
  cfg.repeat = 1;
  cfg.bench_opts = opts;
  gb_run_ctx ctx = {.sys = &g_sys, .cfg = &cfg, .dev = &g_sys.dev[devs[0]], .state = NULL};
  gb_case_list cases = {0};
  ck_assert_msg(gb_bench_collective.plan(&ctx, &cases) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_bench_collective.setup(&ctx) == GB_OK, "%s", gb_errmsg());
  gb_rowset rows = {0};
  for (size_t i = 0; i < cases.n; i++) {
    gb_err e = gb_bench_collective.run(&ctx, &cases.v[i], &rows);
    ck_assert_msg(e == GB_OK, "%s: %s", cases.v[i].name, gb_errmsg());
  }
  gb_bench_collective.teardown(&ctx);
  *ncases = cases.n;
  gb_case_list_free(&cases);
  return rows;
}

/* Every row ok and checked; per case 3 rows (time, algbw, busbw), or 2
 * where busbw is 0 by definition (one GPU, factor (n-1)/n) and left out
 * unless collective.trivial=1 (gb_coll_busbw_written). */
static void assert_rows_ok(const gb_rowset *rows, size_t ncases, const char *case_suffix, bool trivial) {
  size_t expect = 0;
  for (size_t i = 0; i < rows->n; i++) {
    const gb_row *r = &rows->v[i];
    gb_coll c;
    ck_assert(gb_coll_of_case(r->case_name, &c));
    if (strcmp(r->metric, "time_us") == 0) expect += gb_coll_busbw_written(c, r->gpu_count, trivial) ? 3 : 2;
    ck_assert_msg(r->status == GB_STATUS_OK, "%s %s %lld B: %s", r->case_name, r->metric, (long long)r->bytes,
                  r->detail);
    ck_assert_ptr_nonnull(strstr(r->case_name, case_suffix));
    ck_assert_ptr_nonnull(strstr(r->detail, "check: 0 of"));
    ck_assert_ptr_nonnull(strstr(r->detail, "NCCL "));
    ck_assert(r->value >= 0 && isfinite(r->value));
    ck_assert_int_eq(r->samples, 3);
  }
  ck_assert_uint_eq(rows->n, expect);
  ck_assert_uint_le(2 * ncases, rows->n);
}

/* A one-GPU sendrecv's busbw row (factor 1, as nccl-tests prints it) is its
 * algbw, and its detail says so; alltoall names the NCCL call it made. */
static void assert_one_gpu_p2p_rows(const gb_rowset *rows) {
  size_t busbw = 0;
  for (size_t i = 0; i < rows->n; i++) {
    const gb_row *r = &rows->v[i];
    if (strstr(r->case_name, "sendrecv")) {
      ck_assert_ptr_nonnull(strstr(r->detail, "busbw factor is 1 (nccl-tests), also on one GPU: busbw = algbw"));
      if (strcmp(r->metric, "busbw_gbps") != 0) continue;
      busbw++;
      const gb_row *alg = &rows->v[i - 1];
      ck_assert_str_eq(alg->metric, "algbw_gbps");
      ck_assert_int_eq(alg->bytes, r->bytes);
      ck_assert_double_eq_tol(r->value, alg->value, 1e-9 * alg->value);
    } else {
      ck_assert_str_ne(r->metric, "busbw_gbps");
      ck_assert_msg(strstr(r->detail, "alltoall through ncclAlltoAll") || strstr(r->detail, "alltoall through ncclSend"),
                    "%s", r->detail);
    }
  }
  ck_assert_uint_gt(busbw, 0);
}

START_TEST(test_one_gpu_all_reduce) {
  int dev0[] = {0};
  size_t ncases;
  gb_rowset rows = run_bench(dev0, 1, "colls=all_reduce,dtypes=fp32:bf16,max=64M,ops=5", GB_PROFILE_QUICK, &ncases);
  /* fp32: 8 B .. 64 MiB = 24 sizes; bf16: 64 KiB, 16 MiB, 64 MiB; out-of-place
   * only: on one rank in-place moves no data and busbw is 0 by definition,
   * so neither is measured by default (core/gb_desc.h, issue 22) */
  ck_assert_uint_eq(ncases, 24 + 3);
  assert_rows_ok(&rows, ncases, "all_reduce_outofplace", false);
  for (size_t i = 0; i < rows.n; i++) {
    const gb_row *r = &rows.v[i];
    ck_assert_int_eq(r->gpu_count, 1);
    ck_assert_str_ne(r->metric, "busbw_gbps");
    if (strcmp(r->metric, "algbw_gbps") == 0) ck_assert_double_gt(r->value, 0.0);
    if (strcmp(r->metric, "algbw_gbps") == 0 && r->bytes == (64 << 20) && strstr(r->case_name, "outofplace"))
      printf("1 GPU all_reduce %s 64 MiB out-of-place: algbw %.1f GB/s\n", r->dtype, r->value);
  }
  gb_coll_summary_print(rows.v, rows.n, stdout);
  gb_rowset_free(&rows);
}
END_TEST

/* alltoall and sendrecv on one GPU (a self-copy through NCCL send/recv),
 * every dtype, both process modes: every row ok, checked, out of place. */
START_TEST(test_one_gpu_alltoall_sendrecv) {
  int dev0[] = {0};
  size_t ncases;
  gb_rowset rows = run_bench(dev0, 1, "colls=alltoall:sendrecv,max=16M,ops=5", GB_PROFILE_FULL, &ncases);
  /* sendrecv 8 B .. 16 MiB = 22 sizes; alltoall from 16 B: 21; 3 dtypes */
  ck_assert_uint_eq(ncases, 3 * (22 + 21));
  assert_rows_ok(&rows, ncases, "_outofplace", false);
  assert_one_gpu_p2p_rows(&rows);
  gb_rowset_free(&rows);
  rows = run_bench(dev0, 1, "mp=1,colls=alltoall:sendrecv,dtypes=bf16,max=1M,ops=3", GB_PROFILE_FULL, &ncases);
  ck_assert_uint_eq(ncases, 18 + 17);
  assert_rows_ok(&rows, ncases, "_outofplace_mp", false);
  assert_one_gpu_p2p_rows(&rows);
  gb_rowset_free(&rows);
}
END_TEST

/* The multi-process path (unique id file, ncclCommInitRank on a thread,
 * rank 0 broadcasting each case) with a world of one. */
START_TEST(test_mp_one_rank) {
  int dev0[] = {0};
  size_t ncases;
  /* trivial=1: the one-rank figures that mean nothing are measured too
   * (in-place, broadcast, busbw 0 by definition), so every path runs */
  gb_rowset rows = run_bench(dev0, 1, "mp=1,trivial=1,colls=all_reduce:all_gather:broadcast,dtypes=fp16,max=1M,ops=3",
                             GB_PROFILE_FULL, &ncases);
  ck_assert_uint_eq(ncases, 3 * 18 * 2); /* 8 B .. 1 MiB = 18 sizes, 2 placements */
  assert_rows_ok(&rows, ncases, "_mp", true);
  /* busbw = algbw x factor: (n-1)/n for all_reduce and all_gather, so 0 on
   * one rank; 1 for broadcast (nccl-tests), so a one-rank broadcast's busbw is
   * its algbw, a local copy's rate */
  for (size_t i = 0; i < rows.n; i++) {
    const gb_row *r = &rows.v[i];
    if (strcmp(r->metric, "busbw_gbps") != 0) continue;
    if (strstr(r->case_name, "broadcast")) {
      ck_assert_msg(r->value > 0 && isfinite(r->value), "%s %lld B busbw %g", r->case_name, (long long)r->bytes,
                    r->value);
      continue;
    }
    ck_assert_msg(r->value == 0.0, "%s %lld B busbw %g", r->case_name, (long long)r->bytes, r->value);
    ck_assert_ptr_nonnull(strstr(r->detail, "busbw is 0 on one GPU by definition"));
  }
  gb_rowset_free(&rows);
}
END_TEST

START_TEST(test_two_gpus_every_collective) {
  if (g_sys.ndev < 2) {
    printf("test_two_gpus_every_collective: one GPU, nothing to do\n");
    return;
  }
  int devs[] = {0, 1};
  size_t ncases;
  /* trivial=1: the one-GPU cases keep in-place and busbw, 3 rows each */
  gb_rowset rows = run_bench(devs, 2, "max=4M,ops=5,trivial=1", GB_PROFILE_FULL, &ncases);
  assert_rows_ok(&rows, ncases, "_", true);
  for (size_t i = 0; i < rows.n; i++)
    if (rows.v[i].gpu_count == 2 && strcmp(rows.v[i].metric, "busbw_gbps") == 0) ck_assert_double_gt(rows.v[i].value, 0);
  gb_rowset_free(&rows);
}
END_TEST

/* gpubench run --opt mp=2: rank 0 starts rank 1 itself; only rank 0 writes rows. */
START_TEST(test_two_processes_end_to_end) {
  if (g_sys.ndev < 2) {
    printf("test_two_processes_end_to_end: one GPU, nothing to do\n");
    return;
  }
  const char *dir = gb_test_tmpdir();
  /* gpubench beside the tests' folder (build/ and .devbuild/ both hold tests/ and gpubench) */
  char exe[4200], self[4096], out[700], log[700];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  ck_assert_int_gt(len, 0);
  self[len] = '\0';
  char *slash = strrchr(self, '/');
  *slash = '\0';
  snprintf(exe, sizeof exe, "%s/../gpubench", self);
  if (access(exe, X_OK) != 0) snprintf(exe, sizeof exe, "%s/gpubench", GB_BINARY_DIR);
  snprintf(out, sizeof out, "%s/mp.csv", dir);
  snprintf(log, sizeof log, "%s/mp.log", dir);
  char *argv[] = {exe, "run", "--bench", "collective", "--devices", "0,1", "--iters", "3", "--out", out, "--opt",
                  "mp=2,dtypes=bf16,max=16M", NULL};
  pid_t pid;
  ck_assert_int_eq(gb_coll_spawn(argv, environ, log, &pid), GB_OK);
  int status;
  ck_assert_int_eq(gb_coll_wait_child(pid, 300.0, &status), GB_OK);
  char *text = gb_test_slurp(log, NULL);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gpubench failed:\n%s", text ? text : "");
  free(text);
  gb_results res = {0};
  ck_assert_int_eq(gb_results_read(out, &res), GB_OK);
  ck_assert_uint_gt(res.nrows, 0);
  for (size_t i = 0; i < res.nrows; i++) {
    ck_assert_int_eq(res.rows[i].status, GB_STATUS_OK);
    ck_assert_int_eq(res.rows[i].gpu_count, 2);
    ck_assert_ptr_nonnull(strstr(res.rows[i].case_name, "_mp"));
  }
  gb_results_free(&res);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("collective_gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_kernels_match_host);
  tcase_add_test(tc, test_one_gpu_all_reduce);
  tcase_add_test(tc, test_mp_one_rank);
  tcase_add_test(tc, test_one_gpu_alltoall_sendrecv);
  tcase_add_test(tc, test_two_gpus_every_collective);
  tcase_add_test(tc, test_two_processes_end_to_end);
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
