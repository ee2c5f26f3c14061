/* CPU tests of the collective benchmark's multi-process bootstrap
 * (bench/collective/collective_boot.c) with real processes: the NCCL id as hex
 * and through a file, fork and posix_spawn of this test binary, the
 * launchers' rank variables, the rank's device and the child's argv and
 * environment. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_collective.h"
#include "testutil.h"

extern char **environ;

START_TEST(test_hex) {
  unsigned char id[128], back[128];
  for (int i = 0; i < 128; i++) id[i] = (unsigned char)(i * 37 + 11);
  char hex[257];
  ck_assert_int_eq(gb_coll_hex_encode(id, 128, hex, sizeof hex), GB_OK);
  ck_assert_uint_eq(strlen(hex), 256);
  ck_assert_int_eq(strncmp(hex, "0b30", 4), 0); /* 11 = 0x0b, 48 = 0x30 */
  ck_assert_int_eq(gb_coll_hex_decode(hex, back, 128, "test"), GB_OK);
  ck_assert_mem_eq(id, back, 128);
  unsigned char two[2];
  ck_assert_int_eq(gb_coll_hex_decode("AbC0", two, 2, "x"), GB_OK);
  ck_assert_uint_eq(two[0], 0xab);
  ck_assert_uint_eq(two[1], 0xc0);
  ck_assert_int_eq(gb_coll_hex_decode("abc", two, 2, "VAR"), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "VAR: 3 hex digits, expected 4"));
  ck_assert_int_eq(gb_coll_hex_decode("ab0g", two, 2, "VAR"), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "character 4"));
  ck_assert_int_eq(gb_coll_hex_encode(id, 128, hex, 256), GB_E_INTERNAL);
}
END_TEST

static void make_id(unsigned char *id, int salt) {
  for (int i = 0; i < 128; i++) id[i] = (unsigned char)(i * 31 + salt);
}

START_TEST(test_id_file) {
  const char *dir = gb_test_tmpdir();
  char path[600], bad[600];
  snprintf(path, sizeof path, "%s/id", dir);
  unsigned char id[128], back[128];
  make_id(id, 5);
  ck_assert_int_eq(gb_coll_id_write(path, id, 128), GB_OK);
  ck_assert_int_eq(gb_coll_id_read_wait(path, back, 128, 1.0), GB_OK);
  ck_assert_mem_eq(id, back, 128);
  size_t len;
  char *text = gb_test_slurp(path, &len);
  ck_assert_uint_eq(len, strlen("gpubench-nccl-id 1 ") + 256 + 1);
  ck_assert_int_eq(strncmp(text, "gpubench-nccl-id 1 ", 19), 0);
  free(text);
  /* malformed files are input errors, at once */
  snprintf(bad, sizeof bad, "%s/bad", dir);
  ck_assert_int_eq(gb_test_write(bad, "hello\n", 6), 0);
  ck_assert_int_eq(gb_coll_id_read_wait(bad, back, 128, 5.0), GB_E_INPUT);
  /* a missing file times out with a message naming the path */
  snprintf(bad, sizeof bad, "%s/never", dir);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  ck_assert_int_eq(gb_coll_id_read_wait(bad, back, 128, 0.2), GB_E_IO);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double waited = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
  ck_assert(waited >= 0.2 && waited < 2.0);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), bad));
}
END_TEST

/* Four readers start first and wait; the writer publishes the id 100 ms
 * later; each reader must get exactly the id. */
START_TEST(test_id_exchange_processes) {
  const char *dir = gb_test_tmpdir();
  char path[600];
  snprintf(path, sizeof path, "%s/nccl-id", dir);
  unsigned char id[128];
  make_id(id, 77);
  pid_t kids[4];
  for (int k = 0; k < 4; k++) {
    kids[k] = fork();
    ck_assert_int_ge(kids[k], 0);
    if (kids[k] == 0) {
      unsigned char got[128];
      if (gb_coll_id_read_wait(path, got, 128, 20.0) != GB_OK) _exit(2);
      _exit(memcmp(got, id, 128) == 0 ? 0 : 3);
    }
  }
  struct timespec ts = {0, 100000000};
  nanosleep(&ts, NULL);
  ck_assert_int_eq(gb_coll_id_write(path, id, 128), GB_OK);
  for (int k = 0; k < 4; k++) {
    int status;
    ck_assert_int_eq(waitpid(kids[k], &status, 0), kids[k]);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
  }
}
END_TEST

START_TEST(test_launch_resolve) {
  gb_coll_opts o = gb_coll_opts_default(), launcher = o, three = o;
  launcher.mp = GB_COLL_MP_LAUNCHER;
  three.mp = 3;
  gb_coll_launch l;
  char *none[] = {"HOME=/root", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, none, &l), GB_OK);
  ck_assert_int_eq(l.mode, GB_COLL_MODE_SINGLE);
  ck_assert_int_eq(gb_coll_launch_resolve(&three, none, &l), GB_OK);
  ck_assert_int_eq(l.mode, GB_COLL_MODE_SELF_LAUNCH);
  ck_assert_int_eq(l.world, 3);
  ck_assert_int_eq(l.rank, 0);
  /* our own variables win, whatever mp says */
  char *ours[] = {"GPUBENCH_RANK=2", "GPUBENCH_WORLD_SIZE=4", "GPUBENCH_LOCAL_RANK=1",
                  "GPUBENCH_NCCL_ID_FILE=/tmp/idf", "SLURM_PROCID=0", "SLURM_NTASKS=8", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&three, ours, &l), GB_OK);
  ck_assert_int_eq(l.mode, GB_COLL_MODE_LAUNCHED);
  ck_assert_int_eq(l.rank, 2);
  ck_assert_int_eq(l.world, 4);
  ck_assert_int_eq(l.local_rank, 1);
  ck_assert_str_eq(l.id_file, "/tmp/idf");
  ck_assert_str_eq(l.source, "GPUBENCH");
  /* Slurm's variables are read only with mp=launcher (a batch script's SLURM_PROCID must not
   * turn a plain run into rank 0 of 8) */
  char *slurm[] = {"SLURM_PROCID=5", "SLURM_NTASKS=8", "SLURM_LOCALID=1", "SLURM_JOB_ID=77", "SLURM_STEP_ID=3", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, slurm, &l), GB_OK);
  ck_assert_int_eq(l.mode, GB_COLL_MODE_SINGLE);
  ck_assert_int_eq(gb_coll_launch_resolve(&launcher, slurm, &l), GB_OK);
  ck_assert_int_eq(l.mode, GB_COLL_MODE_LAUNCHED);
  ck_assert_int_eq(l.rank, 5);
  ck_assert_int_eq(l.world, 8);
  ck_assert_int_eq(l.local_rank, 1);
  ck_assert_str_eq(l.id_file, "gpubench-nccl-id.77.3");
  ck_assert_str_eq(l.source, "SLURM");
  /* the id file option beats the Slurm default */
  gb_coll_opts withfile = launcher;
  strcpy(withfile.id_file, "/shared/id");
  ck_assert_int_eq(gb_coll_launch_resolve(&withfile, slurm, &l), GB_OK);
  ck_assert_str_eq(l.id_file, "/shared/id");
  /* Open MPI, id in hex */
  char *ompi[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=1",
                  "GPUBENCH_NCCL_ID=00ff", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&launcher, ompi, &l), GB_OK);
  ck_assert_int_eq(l.rank, 1);
  ck_assert_int_eq(l.world, 2);
  ck_assert_str_eq(l.source, "OMPI");
  ck_assert_str_eq(l.id_hex, "00ff");
  ck_assert_str_eq(l.id_file, "");
  /* errors */
  ck_assert_int_eq(gb_coll_launch_resolve(&launcher, none, &l), GB_E_USAGE);
  char *rank_only[] = {"GPUBENCH_RANK=0", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, rank_only, &l), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "GPUBENCH_WORLD_SIZE"));
  char *too_high[] = {"GPUBENCH_RANK=4", "GPUBENCH_WORLD_SIZE=4", "GPUBENCH_NCCL_ID_FILE=/x", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, too_high, &l), GB_E_USAGE);
  char *not_num[] = {"GPUBENCH_RANK=one", "GPUBENCH_WORLD_SIZE=4", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, not_num, &l), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "GPUBENCH_RANK=\"one\""));
  char *no_id[] = {"GPUBENCH_RANK=1", "GPUBENCH_WORLD_SIZE=2", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, no_id, &l), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "GPUBENCH_NCCL_ID_FILE"));
}
END_TEST

START_TEST(test_rank_device) {
  int devs[] = {4, 5, 6}, one[] = {7}, d = -1;
  ck_assert_int_eq(gb_coll_rank_device(devs, 3, 1, &d), GB_OK);
  ck_assert_int_eq(d, 5);
  ck_assert_int_eq(gb_coll_rank_device(devs, 3, 3, &d), GB_E_USAGE);
  ck_assert_int_eq(gb_coll_rank_device(one, 1, 5, &d), GB_OK); /* one visible GPU per rank */
  ck_assert_int_eq(d, 7);
}
END_TEST

START_TEST(test_child_argv_env) {
  char store[1024], *argv[16];
  ck_assert_int_eq(gb_coll_child_argv("/opt/gpubench", 3, "/tmp/d/rank3.csv", store, sizeof store, argv, 16), GB_OK);
  const char *want[] = {"/opt/gpubench", "run", "--bench", "collective", "--devices", "3", "--out", "/tmp/d/rank3.csv"};
  for (int i = 0; i < 8; i++) ck_assert_str_eq(argv[i], want[i]);
  ck_assert_ptr_null(argv[8]);
  ck_assert_int_eq(gb_coll_child_argv("/opt/gpubench", 3, "/x", store, 8, argv, 16), GB_E_INTERNAL);
  char *env[] = {"PATH=/bin", "GPUBENCH_RANK=9", "GPUBENCH_NCCL_ID=ab", "NCCL_NVLS_ENABLE=0", NULL};
  char **child = gb_coll_child_env(env, 2, 4, "/tmp/d/nccl-id");
  ck_assert_ptr_nonnull(child);
  ck_assert_str_eq(gb_coll_env_get(child, "PATH"), "/bin");
  ck_assert_str_eq(gb_coll_env_get(child, "NCCL_NVLS_ENABLE"), "0"); /* NCCL's environment passes unchanged */
  ck_assert_str_eq(gb_coll_env_get(child, "GPUBENCH_RANK"), "2");
  ck_assert_str_eq(gb_coll_env_get(child, "GPUBENCH_WORLD_SIZE"), "4");
  ck_assert_str_eq(gb_coll_env_get(child, "GPUBENCH_LOCAL_RANK"), "2");
  ck_assert_str_eq(gb_coll_env_get(child, "GPUBENCH_NCCL_ID_FILE"), "/tmp/d/nccl-id");
  ck_assert_ptr_null(gb_coll_env_get(child, "GPUBENCH_NCCL_ID"));
  int n = 0, ranks = 0;
  for (char **e = child; *e; e++, n++) ranks += strncmp(*e, "GPUBENCH_RANK=", 14) == 0;
  ck_assert_int_eq(n, 6); /* PATH, NCCL_NVLS_ENABLE + 4 */
  ck_assert_int_eq(ranks, 1);
  gb_coll_env_free(child);
}
END_TEST

/* The child side of test_spawn_ranks: this binary started by gb_coll_spawn
 * with gb_coll_child_env; it resolves its rank as the benchmark does, reads
 * the id and prints "rank world hex". */
static int child_main(void) {
  gb_coll_opts o = gb_coll_opts_default();
  gb_coll_launch l;
  if (gb_coll_launch_resolve(&o, environ, &l) != GB_OK || l.mode != GB_COLL_MODE_LAUNCHED) {
    printf("resolve: %s\n", gb_errmsg());
    return 2;
  }
  unsigned char id[128];
  if (gb_coll_id_read_wait(l.id_file, id, 128, 20.0) != GB_OK) {
    printf("read: %s\n", gb_errmsg());
    return 3;
  }
  char hex[257];
  gb_coll_hex_encode(id, 128, hex, sizeof hex);
  printf("%d %d %d %s\n", l.rank, l.world, l.local_rank, hex);
  return 0;
}

START_TEST(test_spawn_ranks) {
  const char *dir = gb_test_tmpdir();
  char idpath[600], exe[4096];
  snprintf(idpath, sizeof idpath, "%s/nccl-id", dir);
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ck_assert_int_gt(len, 0);
  exe[len] = '\0';
  unsigned char id[128];
  make_id(id, 3);
  char hex[257];
  gb_coll_hex_encode(id, 128, hex, sizeof hex);
  /* the ranks start before the id exists, as self-launched ranks may */
  setenv("GB_COLL_TEST_CHILD", "1", 1);
  const int world = 4;
  pid_t pids[4];
  char logs[4][700];
  for (int r = 1; r < world; r++) {
    snprintf(logs[r], sizeof logs[r], "%s/rank%d.log", dir, r);
    char **env = gb_coll_child_env(environ, r, world, idpath);
    char *argv[] = {exe, NULL};
    ck_assert_int_eq(gb_coll_spawn(argv, env, logs[r], &pids[r]), GB_OK);
    gb_coll_env_free(env);
  }
  unsetenv("GB_COLL_TEST_CHILD");
  ck_assert_int_eq(gb_coll_id_write(idpath, id, 128), GB_OK);
  for (int r = 1; r < world; r++) {
    int status;
    ck_assert_int_eq(gb_coll_wait_child(pids[r], 30.0, &status), GB_OK);
    char *out = gb_test_slurp(logs[r], NULL);
    ck_assert_ptr_nonnull(out);
    char want[300];
    snprintf(want, sizeof want, "%d %d %d %s\n", r, world, r, hex);
    ck_assert_str_eq(out, want);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    free(out);
  }
  /* a program that does not exist, and a child that outlives the wait */
  char *missing[] = {"/nonexistent/gpubench", NULL};
  pid_t pid;
  char log[700];
  snprintf(log, sizeof log, "%s/missing.log", dir);
  gb_err e = gb_coll_spawn(missing, environ, log, &pid);
  if (e == GB_OK) { /* glibc may report exec failure as exit status 127 */
    int status;
    ck_assert_int_eq(gb_coll_wait_child(pid, 10.0, &status), GB_OK);
    ck_assert_int_eq(WEXITSTATUS(status), 127);
  }
  char *sleeper[] = {"/bin/sleep", "5", NULL};
  ck_assert_int_eq(gb_coll_spawn(sleeper, environ, log, &pid), GB_OK);
  int status;
  ck_assert_int_eq(gb_coll_wait_child(pid, 0.1, &status), GB_E_IO);
  kill(pid, SIGKILL);
  ck_assert_int_eq(gb_coll_wait_child(pid, 10.0, &status), GB_OK);
  ck_assert(WIFSIGNALED(status));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("collective_boot");
  TCase *boot = tcase_create("bootstrap");
  tcase_set_timeout(boot, 60);
  tcase_add_test(boot, test_hex);
  tcase_add_test(boot, test_id_file);
  tcase_add_test(boot, test_id_exchange_processes);
  tcase_add_test(boot, test_launch_resolve);
  tcase_add_test(boot, test_rank_device);
  tcase_add_test(boot, test_child_argv_env);
  tcase_add_test(boot, test_spawn_ranks);
  suite_add_tcase(s, boot);
  return s;
}

int main(void) {
  if (getenv("GB_COLL_TEST_CHILD")) return child_main();
  return gb_test_run_suite(suite());
}
