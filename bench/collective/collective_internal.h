/* collective_internal: what the collective benchmark's CUDA/NCCL driver
 * files share and nothing outside bench/collective/ uses: the benchmark's
 * state, the communicator sets, a case as rank 0 broadcasts it. The pure,
 * tested API is bench_collective.h.
 *
 * Who does what:
 *   bench_collective.c   the gb_bench glue: plan, setup, run (rank 0's
 *                        cases), teardown, summarize; how the modes work
 *   collective_exec.c    per-GPU resources and one case on every rank
 *   collective_mp.c      the multi-process control: case broadcast,
 *                        ncclCommInitRank, mp=N's ranks, the workers
 *   collective_colls.c   the table of collectives (one gb_coll_desc each)
 *   collective_plan.c    accounting, size sweep, case plan, --opt keys,
 *                        known inputs and expected results, the end-of-run
 *                        table (no CUDA)
 *   collective_boot.c    the multi-process bootstrap: ranks, the NCCL id,
 *                        local spawns (no CUDA)
 *   collective_check.cu  the device fill and check (collective_plan.c's
 *                        twin) */
#ifndef COLLECTIVE_INTERNAL_H
#define COLLECTIVE_INTERNAL_H

#include <nccl.h>
#include <pthread.h>
#include <sys/types.h>

#include "bench_collective.h"
#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_nvrtc.h"

#define COLL_DEFAULT_WARMUP 5
#define COLL_DEFAULT_SAMPLES 10
#define COLL_MAX_SAMPLES 1000
#define COLL_CTL_BYTES (16 * 1024)
#define COLL_CTL_CMD 0          /* int64[16] */
#define COLL_CTL_FLAG 128       /* int64 */
#define COLL_CTL_WRONG 136      /* uint64 */
#define COLL_CTL_TIMES 256      /* double[COLL_MAX_SAMPLES] */
#define COLL_MAX_COMMSETS 8

#define COLL_NCCL(call)                                                                   \
  do {                                                                                    \
    ncclResult_t coll_r_ = (call);                                                        \
    if (coll_r_ != ncclSuccess) return gb_nccl_fail((int)coll_r_, #call, __FILE__, __LINE__); \
  } while (0)

enum { COLL_CMD_RUN = 1, COLL_CMD_STOP = 2 };


/* A case as broadcast from rank 0: every rank needs exactly these. */
typedef struct coll_cmd {
  int64_t op; /* COLL_CMD_RUN or COLL_CMD_STOP */
  int64_t coll, dtype, inplace, count, nranks, warmup, ops, samples, seed;
} coll_cmd;

/* One GPU this process drives. */
typedef struct coll_local {
  int dev;
  int sm_count;
  cudaStream_t stream;
  cudaEvent_t ev_start, ev_stop;
  gb_module mod;
  bool mod_loaded;
  cudaKernel_t k_fill, k_check;
  void *buf[2];      /* [0] send, [1] receive (and the in-place buffer), buf_bytes each */
  size_t buf_bytes;
  unsigned char *ctl; /* COLL_CTL_BYTES of control words (commands, flags, times) */
} coll_local;

/* Communicators over n ranks: comm[i] belongs to local[i] (single process:
 * i = rank; multi-process: one communicator, i = 0). */
typedef struct coll_commset {
  int n;      /* ranks in the communicator */
  int nlocal; /* communicators this process holds */
  ncclComm_t comm[GB_MAX_GPUS];
} coll_commset;

typedef struct coll_state {
  gb_coll_opts opts;
  gb_coll_launch launch;
  bool mp;              /* a multi-process mode */
  int warmup, samples;
  uint32_t seq;         /* case counter, seeds the inputs */
  int nlocal;
  coll_local local[GB_MAX_GPUS];
  int ncommsets;
  coll_commset commsets[COLL_MAX_COMMSETS];
  bool broken;          /* a communicator was aborted: nothing more can run */
  char broken_msg[1024];
  char nccl_version[32];
  char env_note[512];   /* NCCL_ALGO/PROTO/NVLS_ENABLE as found */
  pid_t ppid;           /* parent at setup (a launched rank stops when it changes) */
  /* self-launch (rank 0 of mp=N) */
  char tmpdir[512];
  char id_path[600];
  int nchildren;
  pid_t child[GB_MAX_GPUS];
  bool child_done[GB_MAX_GPUS];
  int child_status[GB_MAX_GPUS];
  /* a rank other than 0 (multi-process): the worker thread */
  bool worker_started;
  pthread_t worker;
  int worker_done;      /* set with __atomic when the thread has ended */
  gb_err worker_err;    /* how it ended */
  char worker_msg[1024];
} coll_state;

typedef struct coll_outcome {
  uint64_t wrong;         /* over every rank */
  uint64_t checked;       /* elements checked over every rank */
  double sec[COLL_MAX_SAMPLES]; /* per sample: the slowest rank's seconds per op */
  int samples;
} coll_outcome;


/* ---- collective_exec.c ---- */

double coll_now_s(void);
/* For rank 0 of a self-launch: fails when a child has exited. */
gb_err coll_children_alive(coll_state *st);
/* For a launched rank other than 0: fails when the process that started it
 * is gone (a self-launched rank 0 that died). */
gb_err coll_parent_alive(coll_state *st);
/* Aborts every communicator after a failure that leaves operations in
 * flight (a rank died or a deadline passed), and remembers why. */
void coll_break(coll_state *st, const char *why);
/* Waits until every local stream of cs is idle, polling NCCL's asynchronous
 * errors, the other processes and the deadline (idle_wait: no deadline,
 * for a worker waiting for rank 0's next command). On failure the
 * communicators are aborted. */
gb_err coll_sync(coll_state *st, coll_commset *cs, bool idle_wait);
gb_err coll_local_init(coll_local *l, int dev);
void coll_local_free(coll_local *l);
/* One case on every local rank of cs: the check, warm-up, timed samples. */
gb_err coll_execute(coll_state *st, coll_commset *cs, const coll_cmd *cmd, coll_outcome *res);

/* ---- collective_mp.c ---- */

/* Rank 0's case (or STOP) to every rank; the others receive it in *cmd. */
gb_err coll_bcast_cmd(coll_state *st, coll_commset *cs, coll_cmd *cmd, bool idle_wait);
/* ncclCommInitRank with a deadline. */
gb_err coll_mp_init_comm(coll_state *st, const ncclUniqueId *id);
/* Rank 0 of mp=N: a private directory, the id file, ranks 1..N-1 started. */
gb_err coll_self_launch(coll_state *st, const gb_run_config *cfg, const ncclUniqueId *id);
gb_err coll_worker_start(coll_state *st);
gb_err coll_worker_status(coll_state *st);
void coll_worker_join(coll_state *st);
void coll_reap_children(coll_state *st);

#endif
