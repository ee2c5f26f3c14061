/* collective_mp: the collective benchmark's multi-process control
 * (bench_collective.c says how the modes work): rank 0's case
 * broadcast, ncclCommInitRank with a deadline, rank 0 of mp=N starting the
 * other ranks and reaping them, and the worker thread of every other rank. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collective_internal.h"

extern char **environ;

/* ---- multi-process control ---- */

gb_err coll_bcast_cmd(coll_state *st, coll_commset *cs, coll_cmd *cmd, bool idle_wait) {
  coll_local *l = &st->local[0];
  int64_t words[16] = {0};
  memcpy(words, cmd, sizeof *cmd);
  GB_CUDA(cudaSetDevice(l->dev));
  if (st->launch.rank == 0)
    GB_CUDA(cudaMemcpyAsync(l->ctl + COLL_CTL_CMD, words, sizeof words, cudaMemcpyHostToDevice, l->stream));
  COLL_NCCL(ncclBroadcast(l->ctl + COLL_CTL_CMD, l->ctl + COLL_CTL_CMD, 16, ncclInt64, 0, cs->comm[0], l->stream));
  GB_TRY(coll_sync(st, cs, idle_wait)); /* polled: rank 0 may take its time between cases */
  GB_CUDA(cudaMemcpy(words, l->ctl + COLL_CTL_CMD, sizeof words, cudaMemcpyDeviceToHost));
  memcpy(cmd, words, sizeof *cmd);
  return GB_OK;
}

/* ncclCommInitRank on a thread, so that a rank which never arrives (a child
 * that failed to start, a launcher that started fewer ranks) ends in an
 * error after the deadline instead of a hang. A thread left blocked in
 * NCCL's bootstrap ends with the process. */
typedef struct coll_init_job {
  int dev, world, rank;
  ncclUniqueId id;
  ncclComm_t comm;
  ncclResult_t result;
  cudaError_t cuda_result;
  volatile int done; /* written by the thread, read with __atomic */
} coll_init_job;

static void *coll_init_thread(void *arg) {
  coll_init_job *j = arg;
  j->cuda_result = cudaSetDevice(j->dev);
  if (j->cuda_result == cudaSuccess) j->result = ncclCommInitRank(&j->comm, j->world, j->id, j->rank);
  __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

gb_err coll_mp_init_comm(coll_state *st, const ncclUniqueId *id) {
  coll_init_job *j = calloc(1, sizeof *j); /* leaked on purpose when the thread never returns */
  if (!j) return gb_fail(GB_E_NOMEM, "collective: out of memory");
  j->dev = st->local[0].dev;
  j->world = st->launch.world;
  j->rank = st->launch.rank;
  j->id = *id;
  pthread_t th;
  int rc = pthread_create(&th, NULL, coll_init_thread, j);
  if (rc != 0) {
    free(j);
    return gb_fail(GB_E_NOMEM, "collective: pthread_create: %s", strerror(rc));
  }
  double deadline = coll_now_s() + st->opts.timeout_s;
  gb_err e = GB_OK;
  while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
    if ((e = coll_children_alive(st)) != GB_OK || (e = coll_parent_alive(st)) != GB_OK) break;
    if (coll_now_s() > deadline) {
      e = gb_fail(GB_E_CUDA, "collective: rank %d of %d: ncclCommInitRank did not complete in %.0f s (did every rank "
                             "start, with the same NCCL id?)", st->launch.rank, st->launch.world, st->opts.timeout_s);
      break;
    }
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
  }
  if (e != GB_OK) {
    pthread_detach(th);
    st->broken = true;
    snprintf(st->broken_msg, sizeof st->broken_msg, "%s", gb_errmsg());
    return e;
  }
  pthread_join(th, NULL);
  if (j->cuda_result != cudaSuccess) e = gb_cuda_fail(j->cuda_result, "cudaSetDevice(dev)", __FILE__, __LINE__);
  else if (j->result != ncclSuccess)
    e = gb_nccl_fail((int)j->result, "ncclCommInitRank(&comm, world, id, rank)", __FILE__, __LINE__);
  else {
    st->commsets[0].n = st->launch.world;
    st->commsets[0].nlocal = 1;
    st->commsets[0].comm[0] = j->comm;
    st->ncommsets = 1;
  }
  free(j);
  return e;
}

/* Rank 0 of mp=N: a private directory, the id file, ranks 1..N-1 started. */
gb_err coll_self_launch(coll_state *st, const gb_run_config *cfg, const ncclUniqueId *id) {
  const char *base = getenv("TMPDIR");
  snprintf(st->tmpdir, sizeof st->tmpdir, "%s/gpubench-collective.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(st->tmpdir)) return gb_fail(GB_E_IO, "collective: cannot create %s: %s", st->tmpdir, strerror(errno));
  snprintf(st->id_path, sizeof st->id_path, "%s/nccl-id", st->tmpdir);
  GB_TRY(gb_coll_id_write(st->id_path, id, sizeof *id));
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return gb_fail(GB_E_IO, "collective: cannot find this program (/proc/self/exe): %s", strerror(errno));
  exe[len] = '\0';
  for (int r = 1; r < st->launch.world; r++) {
    char out_path[700], log_path[700], store[8192], *argv[16];
    snprintf(out_path, sizeof out_path, "%s/rank%d.csv", st->tmpdir, r);
    snprintf(log_path, sizeof log_path, "%s/rank%d.log", st->tmpdir, r);
    GB_TRY(gb_coll_child_argv(exe, cfg->devices[r], out_path, store, sizeof store, argv, 16));
    char **env = gb_coll_child_env(environ, r, st->launch.world, st->id_path);
    if (!env) return gb_fail(GB_E_NOMEM, "collective: out of memory for a child environment");
    gb_err e = gb_coll_spawn(argv, env, log_path, &st->child[st->nchildren]);
    gb_coll_env_free(env);
    if (e != GB_OK) return e;
    st->nchildren++;
  }
  return GB_OK;
}

/* The NCCL version and NCCL's selection variables, for every row's detail. */
/* ---- worker ranks (multi-process modes, rank > 0) ---- */

/* Ranks other than 0: execute rank 0's cases until STOP. A failure that the
 * ranks agreed on (out of memory) is rank 0's to report; any other ends the
 * loop with the communicator aborted. */
static gb_err coll_worker_loop(coll_state *st) {
  coll_commset *cs = &st->commsets[0];
  coll_outcome *res = malloc(sizeof *res);
  if (!res) return gb_fail(GB_E_NOMEM, "collective: out of memory");
  gb_err e = GB_OK;
  for (;;) {
    coll_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    if ((e = coll_bcast_cmd(st, cs, &cmd, true)) != GB_OK) break;
    if (cmd.op == COLL_CMD_STOP) break;
    if (cmd.op != COLL_CMD_RUN || cmd.coll < 0 || cmd.coll >= gb_coll_count() || cmd.dtype < 0 ||
        cmd.dtype >= GB_COLL_DTYPE_COUNT || cmd.samples < 1 || cmd.samples > COLL_MAX_SAMPLES) {
      e = gb_fail(GB_E_INTERNAL, "collective: rank %d: malformed command from rank 0", st->launch.rank);
      coll_break(st, gb_errmsg());
      break;
    }
    e = coll_execute(st, cs, &cmd, res);
    if (e == GB_E_OOM) e = GB_OK; /* agreed with every rank; rank 0 writes the error row */
    if (e != GB_OK || st->broken) {
      if (!st->broken) coll_break(st, gb_errmsg());
      break;
    }
  }
  free(res);
  return e;
}

/* The worker thread of a rank other than 0: the loop above; a failure
 * aborts the communicators (peers may be waiting in NCCL) and is kept for
 * run() and teardown to report. */
static void *coll_worker_main(void *arg) {
  coll_state *st = arg;
  gb_err e = coll_worker_loop(st);
  if (e != GB_OK) {
    snprintf(st->worker_msg, sizeof st->worker_msg, "%s", gb_errmsg());
    if (!st->broken) coll_break(st, st->worker_msg);
  }
  st->worker_err = e;
  __atomic_store_n(&st->worker_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* setup() of a rank other than 0, once the communicator exists. */
gb_err coll_worker_start(coll_state *st) {
  int rc = pthread_create(&st->worker, NULL, coll_worker_main, st);
  if (rc != 0) return gb_fail(GB_E_NOMEM, "collective: rank %d: pthread_create: %s", st->launch.rank, strerror(rc));
  st->worker_started = true;
  return GB_OK;
}

/* run() of a rank other than 0: rank 0 writes the rows; this one reports
 * its worker's failure once the worker has ended with one. */
gb_err coll_worker_status(coll_state *st) {
  if (!__atomic_load_n(&st->worker_done, __ATOMIC_ACQUIRE) || st->worker_err == GB_OK) return GB_OK;
  return gb_fail(st->worker_err, "%s", st->worker_msg);
}

/* teardown() of a rank other than 0: waits for rank 0's STOP (or the
 * worker's failure, said on stderr: no row is left to carry it). */
void coll_worker_join(coll_state *st) {
  if (!st->worker_started) return;
  pthread_join(st->worker, NULL);
  st->worker_started = false;
  if (st->worker_err != GB_OK)
    fprintf(stderr, "gpubench: collective: rank %d: %s\n", st->launch.rank, st->worker_msg);
}

/* Rank 0 of mp=N: waits for the ranks it started and removes their files
 * (kept, with a line on stderr, when a rank failed). */
void coll_reap_children(coll_state *st) {
  bool all_ok = true;
  for (int i = 0; i < st->nchildren; i++) {
    int status = st->child_status[i];
    if (!st->child_done[i]) {
      if (gb_coll_wait_child(st->child[i], st->broken ? 5.0 : 60.0, &status) != GB_OK) {
        kill(st->child[i], SIGTERM);
        if (gb_coll_wait_child(st->child[i], 10.0, &status) != GB_OK) {
          kill(st->child[i], SIGKILL);
          waitpid(st->child[i], &status, 0);
        }
      }
      st->child_done[i] = true;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      all_ok = false;
      fprintf(stderr, "gpubench: collective: rank %d ended with %s %d; log kept: %s/rank%d.log\n", i + 1,
              WIFEXITED(status) ? "status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
              st->tmpdir, i + 1);
    }
  }
  if (!all_ok || !st->tmpdir[0]) return;
  char path[700];
  for (int r = 1; r <= st->nchildren; r++) {
    snprintf(path, sizeof path, "%s/rank%d.csv", st->tmpdir, r);
    unlink(path);
    snprintf(path, sizeof path, "%s/rank%d.log", st->tmpdir, r);
    unlink(path);
  }
  unlink(st->id_path);
  rmdir(st->tmpdir);
}
