/* Tests for the collective's multi-node bootstrap
 * (bench/collective/collective_boot.c): rank, world size and local rank
 * from Slurm's, Open MPI's, torchrun's and a Kubernetes Indexed Job's
 * variables, the errors for inconsistent values, and the NCCL id served by
 * rank 0 over TCP (loopback only). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_collective.h"
#include "testutil.h"

static gb_coll_rank_env rank_of(char **env, bool launchers) {
  gb_coll_rank_env r;
  ck_assert_int_eq(gb_coll_env_rank(env, launchers, &r), GB_OK);
  return r;
}

START_TEST(test_env_slurm) {
  char *env[] = {"SLURM_PROCID=5", "SLURM_NTASKS=8", "SLURM_LOCALID=1", "SLURM_NTASKS_PER_NODE=4",
                 "SLURM_JOB_ID=77", NULL};
  gb_coll_rank_env r = rank_of(env, true);
  ck_assert_str_eq(r.launcher, "SLURM");
  ck_assert_int_eq(r.rank, 5);
  ck_assert_int_eq(r.world, 8);
  ck_assert_int_eq(r.local_rank, 1);
  ck_assert_int_eq(r.local_size, 4);
  /* not read without mp=launcher: a batch script's SLURM_PROCID is no rank */
  r = rank_of(env, false);
  ck_assert_ptr_null(r.launcher);
  ck_assert_int_eq(r.rank, 0);
  ck_assert_int_eq(r.world, 1);
  /* SLURM_LOCALID absent: 0 */
  char *nolocal[] = {"SLURM_PROCID=3", "SLURM_NTASKS=4", NULL};
  r = rank_of(nolocal, true);
  ck_assert_int_eq(r.local_rank, 0);
}
END_TEST

START_TEST(test_env_ompi) {
  /* mpirun inside a Slurm batch step: Open MPI's variables win over the step's */
  char *env[] = {"OMPI_COMM_WORLD_RANK=6", "OMPI_COMM_WORLD_SIZE=16", "OMPI_COMM_WORLD_LOCAL_RANK=6",
                 "OMPI_COMM_WORLD_LOCAL_SIZE=8", "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL};
  gb_coll_rank_env r = rank_of(env, true);
  ck_assert_str_eq(r.launcher, "OMPI");
  ck_assert_int_eq(r.rank, 6);
  ck_assert_int_eq(r.world, 16);
  ck_assert_int_eq(r.local_rank, 6);
  ck_assert_int_eq(r.local_size, 8);
}
END_TEST

START_TEST(test_env_torchrun) {
  char *env[] = {"RANK=9", "WORLD_SIZE=16", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=8", "MASTER_ADDR=node0",
                 "MASTER_PORT=29500", "SLURM_PROCID=1", "SLURM_NTASKS=2", NULL};
  gb_coll_rank_env r = rank_of(env, true);
  ck_assert_str_eq(r.launcher, "TORCHRUN");
  ck_assert_int_eq(r.rank, 9);
  ck_assert_int_eq(r.world, 16);
  ck_assert_int_eq(r.local_rank, 1);
  ck_assert_int_eq(r.local_size, 8);
  /* and the id comes from rank 0 over TCP, on MASTER_PORT + 1 */
  gb_coll_opts o = gb_coll_opts_default();
  o.mp = GB_COLL_MP_LAUNCHER;
  gb_coll_launch l;
  ck_assert_int_eq(gb_coll_launch_resolve(&o, env, &l), GB_OK);
  ck_assert_int_eq(l.mode, GB_COLL_MODE_LAUNCHED);
  ck_assert_str_eq(l.source, "TORCHRUN");
  ck_assert_str_eq(l.id_file, "tcp://node0:29501");
  char *port[] = {"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=10.0.0.1", "GPUBENCH_NCCL_ID_PORT=4000", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, port, &l), GB_OK);
  ck_assert_str_eq(l.id_file, "tcp://10.0.0.1:4000");
  /* a shared file still wins over the master */
  char *file[] = {"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=node0", "GPUBENCH_NCCL_ID_FILE=/shared/id", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, file, &l), GB_OK);
  ck_assert_str_eq(l.id_file, "/shared/id");
}
END_TEST

START_TEST(test_env_k8s) {
  /* an Indexed Job: the completion index is the rank, WORLD_SIZE from the manifest */
  char *env[] = {"JOB_COMPLETION_INDEX=3", "WORLD_SIZE=4", "MASTER_ADDR=gpubench-coll-0.gpubench-coll",
                 "MASTER_PORT=29500", NULL};
  gb_coll_rank_env r = rank_of(env, true);
  ck_assert_str_eq(r.launcher, "K8S");
  ck_assert_int_eq(r.rank, 3);
  ck_assert_int_eq(r.world, 4);
  ck_assert_int_eq(r.local_rank, 0);
  gb_coll_opts o = gb_coll_opts_default();
  o.mp = GB_COLL_MP_LAUNCHER;
  gb_coll_launch l;
  ck_assert_int_eq(gb_coll_launch_resolve(&o, env, &l), GB_OK);
  ck_assert_str_eq(l.id_file, "tcp://gpubench-coll-0.gpubench-coll:29501");
  /* the index without WORLD_SIZE is an error that names both */
  char *noworld[] = {"JOB_COMPLETION_INDEX=3", NULL};
  gb_coll_rank_env bad;
  ck_assert_int_eq(gb_coll_env_rank(noworld, true, &bad), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "JOB_COMPLETION_INDEX and WORLD_SIZE"));
}
END_TEST

START_TEST(test_env_ours_win) {
  char *env[] = {"GPUBENCH_RANK=1", "GPUBENCH_WORLD_SIZE=2", "RANK=7", "WORLD_SIZE=8", "SLURM_PROCID=3",
                 "SLURM_NTASKS=4", NULL};
  gb_coll_rank_env r = rank_of(env, true);
  ck_assert_str_eq(r.launcher, "GPUBENCH");
  ck_assert_int_eq(r.rank, 1);
  ck_assert_int_eq(r.local_rank, 1); /* GPUBENCH: one node, local rank = rank */
  char *none[] = {"HOME=/root", NULL};
  r = rank_of(none, true);
  ck_assert_ptr_null(r.launcher);
  ck_assert_int_eq(r.world, 1);
}
END_TEST

static void expect_error(char **env, const char *text) {
  gb_coll_rank_env r;
  ck_assert_int_eq(gb_coll_env_rank(env, true, &r), GB_E_USAGE);
  if (!strstr(gb_errmsg(), text)) ck_abort_msg("message \"%s\" lacks \"%s\"", gb_errmsg(), text);
}

START_TEST(test_env_inconsistent) {
  char *rank_high[] = {"SLURM_PROCID=8", "SLURM_NTASKS=8", NULL};
  expect_error(rank_high, "SLURM_PROCID=8 is not below SLURM_NTASKS=8");
  char *local_high[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_LOCAL_RANK=2",
                        "OMPI_COMM_WORLD_LOCAL_SIZE=2", NULL};
  expect_error(local_high, "OMPI_COMM_WORLD_LOCAL_RANK=2 is not below OMPI_COMM_WORLD_LOCAL_SIZE=2");
  char *node_big[] = {"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=4", NULL};
  expect_error(node_big, "LOCAL_WORLD_SIZE=4 is more than WORLD_SIZE=2");
  char *local_world[] = {"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=2", NULL};
  expect_error(local_world, "LOCAL_RANK=2 is not below WORLD_SIZE=2");
  char *size_only[] = {"WORLD_SIZE=2", NULL};
  expect_error(size_only, "RANK and WORLD_SIZE must be set together (found only WORLD_SIZE)");
  char *not_num[] = {"SLURM_PROCID=x", "SLURM_NTASKS=2", NULL};
  expect_error(not_num, "SLURM_PROCID=\"x\"");
  char *zero[] = {"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=0", NULL};
  expect_error(zero, "OMPI_COMM_WORLD_SIZE=\"0\"");
  gb_coll_opts o = gb_coll_opts_default();
  o.mp = GB_COLL_MP_LAUNCHER;
  gb_coll_launch l;
  char *badport[] = {"RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=node0", "MASTER_PORT=http", NULL};
  ck_assert_int_eq(gb_coll_launch_resolve(&o, badport, &l), GB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "MASTER_PORT=\"http\""));
}
END_TEST

/* ---- the id over TCP, on 127.0.0.1 ---- */

typedef struct reader {
  char addr[64];
  unsigned char id[128];
  gb_err e;
} reader;

static void *read_id(void *arg) {
  reader *r = arg;
  r->e = gb_coll_id_read_wait(r->addr, r->id, sizeof r->id, 20);
  return NULL;
}

START_TEST(test_id_tcp) {
  /* a port from the pid, above the ephemeral range's usual start */
  int port = 20000 + (int)(getpid() % 20000);
  char addr[64];
  snprintf(addr, sizeof addr, "tcp://127.0.0.1:%d", port);
  unsigned char id[128];
  for (int i = 0; i < 128; i++) id[i] = (unsigned char)(i * 7 + 3);
  /* readers start before rank 0 serves, as ranks do */
  reader rd[3];
  pthread_t t[3];
  for (int i = 0; i < 3; i++) {
    memset(&rd[i], 0, sizeof rd[i]);
    snprintf(rd[i].addr, sizeof rd[i].addr, "%s", addr);
    ck_assert_int_eq(pthread_create(&t[i], NULL, read_id, &rd[i]), 0);
  }
  usleep(300 * 1000);
  ck_assert_int_eq(gb_coll_id_write(addr, id, sizeof id), GB_OK);
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(rd[i].e, GB_OK);
    ck_assert_int_eq(memcmp(rd[i].id, id, sizeof id), 0);
  }
  /* a second id on the same address replaces the first */
  id[0] ^= 0xff;
  ck_assert_int_eq(gb_coll_id_write(addr, id, sizeof id), GB_OK);
  unsigned char got[128];
  ck_assert_int_eq(gb_coll_id_read_wait(addr, got, sizeof got, 10), GB_OK);
  ck_assert_int_eq(memcmp(got, id, sizeof id), 0);
  /* nobody serving: a bounded wait that names the address */
  char none[64];
  snprintf(none, sizeof none, "tcp://127.0.0.1:%d", port + 1);
  ck_assert_int_eq(gb_coll_id_read_wait(none, got, sizeof got, 0.3), GB_E_IO);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), none));
  ck_assert_int_eq(gb_coll_id_read_wait("tcp://nohostport", got, sizeof got, 0.3), GB_E_USAGE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("boot");
  TCase *tc = tcase_create("boot");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_env_slurm);
  tcase_add_test(tc, test_env_ompi);
  tcase_add_test(tc, test_env_torchrun);
  tcase_add_test(tc, test_env_k8s);
  tcase_add_test(tc, test_env_ours_win);
  tcase_add_test(tc, test_env_inconsistent);
  tcase_add_test(tc, test_id_tcp);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
