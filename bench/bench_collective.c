/* bench_collective: NCCL collective bandwidth, defined and measured as
 * nccl-tests does (src/common.cu, src/<coll>.cu).
 *
 * Modes (--opt mp=..., see bench_collective.h gb_coll_launch_resolve):
 *   single process (default): this process drives the selected GPUs through
 *     ncclCommInitAll, one communicator set per GPU count 1, 2, 4 ... plus
 *     the total, every operation issued inside ncclGroupStart/End;
 *   mp=N: this process is rank 0 and starts ranks 1..N-1 itself (posix_spawn
 *     of this binary, `run --bench collective --devices <d> --out <private
 *     file>`, with GPUBENCH_RANK/WORLD_SIZE/LOCAL_RANK/NCCL_ID_FILE);
 *   launched (GPUBENCH_RANK set, or mp=launcher under srun/mpirun): one rank
 *     of one process per GPU; the NCCL unique id comes through a file
 *     (atomically written by rank 0) or GPUBENCH_NCCL_ID in hex.
 * In the multi-process modes rank 0 drives: its run() broadcasts each case
 * (an array of int64 words) over NCCL. Each other rank's setup() starts a
 * worker thread that executes rank 0's cases until rank 0's teardown
 * broadcasts STOP (coll_worker_*); its run() appends no rows, and its
 * teardown joins the worker before releasing the communicator. So the case
 * list and its order (--resume included) are rank 0's alone.
 *
 * One case = one collective, dtype, placement, GPU count and size:
 *   1. check: every rank's input filled with known integers (coll_fill), the
 *      output poisoned with NaN, one operation, then coll_check counts the
 *      elements that differ from the expected reduction (exact: small
 *      integers); wrong elements of all ranks summed -> `invalid`;
 *   2. warm-up operations (nccl-tests -w);
 *   3. samples: per rank, CUDA events around `ops` back-to-back operations
 *      (nccl-tests -n); per-op time = elapsed / ops; the sample's time is the
 *      slowest rank's (an NCCL max all-reduce of the per-rank times in the
 *      multi-process modes); value = median over samples.
 *   algbw = S / time, busbw = algbw * factor (bench_collective.h). */
#include <errno.h>
#include <math.h>
#include <nccl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_collective.h"
#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_nvrtc.h"
#include "gb_stats.h"

extern char **environ;

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

static const ncclDataType_t coll_nccl_type[GB_COLL_DTYPE_COUNT] = {ncclFloat32, ncclBfloat16, ncclFloat16};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- health of the other ranks ---- */

/* For rank 0 of a self-launch: fails when a child has exited. */
static gb_err coll_children_alive(coll_state *st) {
  for (int i = 0; i < st->nchildren; i++) {
    if (st->child_done[i]) continue;
    int status;
    pid_t r = waitpid(st->child[i], &status, WNOHANG);
    if (r == st->child[i]) {
      st->child_done[i] = true;
      st->child_status[i] = status;
      return gb_fail(GB_E_CUDA, "collective: rank %d (process %d) exited early (%s %d); its log: %s/rank%d.log", i + 1,
                     (int)st->child[i], WIFEXITED(status) ? "status" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), st->tmpdir, i + 1);
    }
  }
  return GB_OK;
}

/* For a launched rank other than 0: fails when the process that started it
 * is gone (a self-launched rank 0 that died). */
static gb_err coll_parent_alive(coll_state *st) {
  if (st->launch.mode == GB_COLL_MODE_LAUNCHED && st->launch.rank != 0 && getppid() != st->ppid)
    return gb_fail(GB_E_CUDA, "collective: rank %d: the parent process exited", st->launch.rank);
  return GB_OK;
}

/* Aborts every communicator after a failure that leaves operations in
 * flight (a rank died or a deadline passed), and remembers why. */
static void coll_break(coll_state *st, const char *why) {
  if (!st->broken) {
    st->broken = true;
    snprintf(st->broken_msg, sizeof st->broken_msg, "collective: communicators aborted after: %.900s", why);
  }
  for (int s = 0; s < st->ncommsets; s++)
    for (int i = 0; i < st->commsets[s].nlocal; i++)
      if (st->commsets[s].comm[i]) {
        ncclCommAbort(st->commsets[s].comm[i]);
        st->commsets[s].comm[i] = NULL;
      }
}

/* Waits until every local stream of cs is idle, polling NCCL's asynchronous
 * errors, the other processes and the deadline (idle_wait: no deadline,
 * for a worker waiting for rank 0's next command). On failure the
 * communicators are aborted. */
static gb_err coll_sync(coll_state *st, coll_commset *cs, bool idle_wait) {
  double deadline = now_s() + st->opts.timeout_s;
  gb_err e = GB_OK;
  for (int i = 0; i < cs->nlocal; i++) {
    for (long spins = 0;; spins++) {
      cudaError_t q = cudaStreamQuery(st->local[i].stream);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady) {
        e = gb_cuda_fail(q, "cudaStreamQuery(stream)", __FILE__, __LINE__);
        goto fail;
      }
      if ((spins & 1023) != 1023) {
        sched_yield();
        continue;
      }
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(cs->comm[i], &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        e = gb_nccl_fail((int)async, "ncclCommGetAsyncError(comm)", __FILE__, __LINE__);
        goto fail;
      }
      if ((e = coll_children_alive(st)) != GB_OK || (e = coll_parent_alive(st)) != GB_OK) goto fail;
      if (!idle_wait && now_s() > deadline) {
        e = gb_fail(GB_E_CUDA, "collective: no progress after %.0f s (a rank stalled or died; --opt timeout=SECONDS)",
                    st->opts.timeout_s);
        goto fail;
      }
      struct timespec ts = {0, 100000};
      nanosleep(&ts, NULL);
    }
  }
  return GB_OK;
fail:
  coll_break(st, gb_errmsg());
  return e;
}

/* ---- per-GPU resources ---- */

static gb_err coll_local_init(coll_local *l, int dev) {
  memset(l, 0, sizeof *l);
  l->dev = dev;
  GB_CUDA(cudaSetDevice(dev));
  GB_CUDA(cudaDeviceGetAttribute(&l->sm_count, cudaDevAttrMultiProcessorCount, dev));
  GB_CUDA(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking));
  GB_CUDA(cudaEventCreate(&l->ev_start));
  GB_CUDA(cudaEventCreate(&l->ev_stop));
  GB_TRY(gb_module_load("collective_check.cu", NULL, 0, &l->mod));
  l->mod_loaded = true;
  GB_TRY(gb_module_kernel(&l->mod, "coll_fill", &l->k_fill));
  GB_TRY(gb_module_kernel(&l->mod, "coll_check", &l->k_check));
  GB_CUDA(cudaMalloc((void **)&l->ctl, COLL_CTL_BYTES));
  GB_CUDA(cudaMemset(l->ctl, 0, COLL_CTL_BYTES));
  return GB_OK;
}

static void coll_local_free(coll_local *l) {
  if (cudaSetDevice(l->dev) != cudaSuccess) return;
  if (l->stream) cudaStreamSynchronize(l->stream);
  for (int b = 0; b < 2; b++)
    if (l->buf[b]) cudaFree(l->buf[b]);
  if (l->ctl) cudaFree(l->ctl);
  if (l->ev_start) cudaEventDestroy(l->ev_start);
  if (l->ev_stop) cudaEventDestroy(l->ev_stop);
  if (l->stream) cudaStreamDestroy(l->stream);
  if (l->mod_loaded) gb_module_unload(&l->mod);
  memset(l, 0, sizeof *l);
}

/* Makes both buffers at least bytes long (never shrinks); GB_E_OOM when the
 * device has no room. Sizes grow by powers of two so a sweep reallocates
 * a few times only. */
static gb_err coll_local_reserve(coll_local *l, size_t bytes) {
  if (l->buf_bytes >= bytes) return GB_OK;
  size_t want = (size_t)1 << 20;
  while (want < bytes) want *= 2;
  GB_CUDA(cudaSetDevice(l->dev));
  GB_CUDA(cudaStreamSynchronize(l->stream));
  for (int b = 0; b < 2; b++) {
    if (l->buf[b]) cudaFree(l->buf[b]);
    l->buf[b] = NULL;
  }
  l->buf_bytes = 0;
  for (int b = 0; b < 2; b++) {
    cudaError_t e = cudaMalloc(&l->buf[b], want);
    if (e != cudaSuccess) {
      cudaGetLastError();
      l->buf[b] = NULL;
      for (int c = 0; c < b; c++) {
        cudaFree(l->buf[c]);
        l->buf[c] = NULL;
      }
      return gb_fail(GB_E_OOM, "collective: GPU %d: cannot allocate 2 x %zu bytes (%s)", l->dev, want,
                     cudaGetErrorString(e));
    }
  }
  l->buf_bytes = want;
  return GB_OK;
}

/* Grid of 256-thread blocks for a grid-stride kernel over n elements: one
 * element per thread up to 16 blocks per SM. */
static dim3 coll_grid(const coll_local *l, uint64_t n) {
  uint64_t blocks = (n + 255) / 256;
  uint64_t cap = (uint64_t)l->sm_count * 16;
  if (blocks > cap) blocks = cap;
  return gb_dim1(blocks ? (unsigned)blocks : 1u);
}

/* buf[0..n) = input(rank, first_idx + i) of dtype, or NaN when poison. */
static gb_err coll_fill(coll_local *l, void *buf, uint64_t n, int dtype, int rank, uint64_t first_idx, uint32_t seed,
                        int poison) {
  if (n == 0) return GB_OK;
  unsigned long long n_arg = n, first_arg = first_idx;
  unsigned int seed_arg = seed;
  void *args[] = {&buf, &n_arg, &dtype, &rank, &first_arg, &seed_arg, &poison};
  GB_CUDA(cudaSetDevice(l->dev));
  GB_CUDA(cudaLaunchKernel((const void *)l->k_fill, coll_grid(l, n), gb_dim1(256), args, 0, l->stream));
  GB_CUDA(cudaGetLastError());
  return GB_OK;
}

/* ---- one case, the same on every rank ---- */

/* Where rank g's operation reads and writes, and what the check covers. */
typedef struct coll_ptrs {
  void *send, *recv;
  int64_t check_elems;
} coll_ptrs;

static coll_ptrs coll_pointers(const coll_local *l, const coll_cmd *cmd, int g) {
  int ts = gb_coll_dtype_size((gb_coll_dtype)cmd->dtype);
  int64_t send_elems, recv_elems;
  gb_coll_buffer_elems((gb_coll)cmd->coll, cmd->count, (int)cmd->nranks, &send_elems, &recv_elems);
  coll_ptrs p = {l->buf[0], l->buf[1], recv_elems};
  if (cmd->inplace) {
    char *b = l->buf[1];
    p.send = p.recv = b;
    /* nccl in-place: reduce_scatter recv = send + g*count, all_gather send = recv + g*count */
    if (cmd->coll == GB_COLL_REDUCE_SCATTER) p.recv = b + (size_t)g * (size_t)cmd->count * (size_t)ts;
    if (cmd->coll == GB_COLL_ALL_GATHER) p.send = b + (size_t)g * (size_t)cmd->count * (size_t)ts;
  }
  return p;
}

/* Known inputs for rank g, output poisoned (bench_collective.h, expected values). */
static gb_err coll_init_inputs(coll_local *l, const coll_cmd *cmd, int g) {
  coll_ptrs p = coll_pointers(l, cmd, g);
  int dt = (int)cmd->dtype, n = (int)cmd->nranks;
  uint32_t seed = (uint32_t)cmd->seed;
  uint64_t c = (uint64_t)cmd->count;
  switch ((gb_coll)cmd->coll) {
  case GB_COLL_ALL_REDUCE:
    GB_TRY(coll_fill(l, p.send, c, dt, g, 0, seed, 0));
    if (!cmd->inplace) GB_TRY(coll_fill(l, p.recv, c, dt, g, 0, seed, 1));
    break;
  case GB_COLL_REDUCE_SCATTER:
    GB_TRY(coll_fill(l, p.send, c * (uint64_t)n, dt, g, 0, seed, 0));
    if (!cmd->inplace) GB_TRY(coll_fill(l, p.recv, c, dt, g, 0, seed, 1));
    break;
  case GB_COLL_ALL_GATHER:
    GB_TRY(coll_fill(l, p.recv, c * (uint64_t)n, dt, g, 0, seed, 1));
    GB_TRY(coll_fill(l, p.send, c, dt, g, 0, seed, 0)); /* in-place: this rank's slot of recv */
    break;
  case GB_COLL_BROADCAST:
    if (cmd->inplace) GB_TRY(coll_fill(l, p.send, c, dt, g, 0, seed, g != 0));
    else {
      GB_TRY(coll_fill(l, p.send, c, dt, g, 0, seed, 0));
      GB_TRY(coll_fill(l, p.recv, c, dt, g, 0, seed, 1));
    }
    break;
  default: return gb_fail(GB_E_INTERNAL, "collective: unknown collective %lld", (long long)cmd->coll);
  }
  return GB_OK;
}

/* Enqueues one operation on every local rank of cs, as one NCCL group. */
static gb_err coll_launch(coll_state *st, coll_commset *cs, const coll_cmd *cmd) {
  ncclDataType_t type = coll_nccl_type[cmd->dtype];
  size_t count = (size_t)cmd->count;
  COLL_NCCL(ncclGroupStart());
  for (int i = 0; i < cs->nlocal; i++) {
    coll_local *l = &st->local[i];
    int g = st->mp ? st->launch.rank : i;
    coll_ptrs p = coll_pointers(l, cmd, g);
    ncclResult_t r;
    switch ((gb_coll)cmd->coll) {
    case GB_COLL_ALL_REDUCE: r = ncclAllReduce(p.send, p.recv, count, type, ncclSum, cs->comm[i], l->stream); break;
    case GB_COLL_REDUCE_SCATTER:
      r = ncclReduceScatter(p.send, p.recv, count, type, ncclSum, cs->comm[i], l->stream);
      break;
    case GB_COLL_ALL_GATHER: r = ncclAllGather(p.send, p.recv, count, type, cs->comm[i], l->stream); break;
    default: r = ncclBroadcast(p.send, p.recv, count, type, 0, cs->comm[i], l->stream); break;
    }
    if (r != ncclSuccess) {
      ncclGroupEnd();
      return gb_nccl_fail((int)r, "nccl collective enqueue", __FILE__, __LINE__);
    }
  }
  COLL_NCCL(ncclGroupEnd());
  return GB_OK;
}

/* Multi-process: an NCCL all-reduce of n words at ctl+off on this rank's
 * communicator, in place, then copied back to host (sync'd). */
static gb_err coll_ctl_allreduce(coll_state *st, coll_commset *cs, size_t off, void *host, size_t n,
                                 ncclDataType_t type, size_t elem, ncclRedOp_t op) {
  coll_local *l = &st->local[0];
  GB_CUDA(cudaSetDevice(l->dev));
  GB_CUDA(cudaMemcpyAsync(l->ctl + off, host, n * elem, cudaMemcpyHostToDevice, l->stream));
  COLL_NCCL(ncclAllReduce(l->ctl + off, l->ctl + off, n, type, op, cs->comm[0], l->stream));
  /* poll first: a copy to pageable memory would block the host until the peers arrive */
  GB_TRY(coll_sync(st, cs, false));
  GB_CUDA(cudaMemcpy(host, l->ctl + off, n * elem, cudaMemcpyDeviceToHost));
  return GB_OK;
}

typedef struct coll_outcome {
  uint64_t wrong;         /* over every rank */
  uint64_t checked;       /* elements checked over every rank */
  double sec[COLL_MAX_SAMPLES]; /* per sample: the slowest rank's seconds per op */
  int samples;
} coll_outcome;

/* Buffers for the case on every rank; in the multi-process modes the ranks
 * agree on the result first, so either all go on or all report. */
static gb_err coll_reserve_all(coll_state *st, coll_commset *cs, const coll_cmd *cmd) {
  int ts = gb_coll_dtype_size((gb_coll_dtype)cmd->dtype);
  int64_t send_elems, recv_elems;
  gb_coll_buffer_elems((gb_coll)cmd->coll, cmd->count, (int)cmd->nranks, &send_elems, &recv_elems);
  size_t need = (size_t)(send_elems > recv_elems ? send_elems : recv_elems) * (size_t)ts;
  gb_err mine = GB_OK;
  char msg[512] = "";
  for (int i = 0; i < cs->nlocal && mine == GB_OK; i++) mine = coll_local_reserve(&st->local[i], need);
  if (mine != GB_OK) snprintf(msg, sizeof msg, "%s", gb_errmsg());
  if (!st->mp) return mine;
  int64_t failed = mine != GB_OK;
  GB_TRY(coll_ctl_allreduce(st, cs, COLL_CTL_FLAG, &failed, 1, ncclInt64, 8, ncclSum));
  if (mine != GB_OK) return gb_fail(mine, "%s", msg);
  if (failed) return gb_fail(GB_E_OOM, "collective: %lld rank(s) could not allocate 2 x %zu bytes", (long long)failed,
                             need);
  return GB_OK;
}

static gb_err coll_execute(coll_state *st, coll_commset *cs, const coll_cmd *cmd, coll_outcome *res) {
  memset(res, 0, sizeof *res);
  GB_TRY(coll_reserve_all(st, cs, cmd));

  /* 1. the check: known inputs, poisoned outputs, one operation, count wrong elements */
  for (int i = 0; i < cs->nlocal; i++) {
    coll_local *l = &st->local[i];
    int g = st->mp ? st->launch.rank : i;
    GB_TRY(coll_init_inputs(l, cmd, g));
    GB_CUDA(cudaMemsetAsync(l->ctl + COLL_CTL_WRONG, 0, 8, l->stream));
  }
  GB_TRY(coll_launch(st, cs, cmd));
  uint64_t wrong = 0, checked = 0;
  for (int i = 0; i < cs->nlocal; i++) {
    coll_local *l = &st->local[i];
    int g = st->mp ? st->launch.rank : i;
    coll_ptrs p = coll_pointers(l, cmd, g);
    const void *out = p.recv;
    unsigned long long n_arg = (unsigned long long)p.check_elems, count_arg = (unsigned long long)cmd->count;
    int dt = (int)cmd->dtype, coll = (int)cmd->coll, rank = g, nranks = (int)cmd->nranks;
    unsigned int seed = (unsigned int)cmd->seed;
    unsigned long long *wrong_ptr = (unsigned long long *)(l->ctl + COLL_CTL_WRONG);
    void *args[] = {&out, &n_arg, &dt, &coll, &rank, &nranks, &count_arg, &seed, &wrong_ptr};
    GB_CUDA(cudaSetDevice(l->dev));
    GB_CUDA(cudaLaunchKernel((const void *)l->k_check, coll_grid(l, n_arg), gb_dim1(256), args, 0, l->stream));
    GB_CUDA(cudaGetLastError());
    checked += (uint64_t)p.check_elems;
  }
  GB_TRY(coll_sync(st, cs, false));
  for (int i = 0; i < cs->nlocal; i++) {
    uint64_t w;
    GB_CUDA(cudaSetDevice(st->local[i].dev));
    GB_CUDA(cudaMemcpy(&w, st->local[i].ctl + COLL_CTL_WRONG, 8, cudaMemcpyDeviceToHost));
    wrong += w;
  }
  if (st->mp) {
    uint64_t v[2] = {wrong, checked};
    GB_TRY(coll_ctl_allreduce(st, cs, COLL_CTL_WRONG, v, 2, ncclUint64, 8, ncclSum));
    wrong = v[0];
    checked = v[1];
  }
  res->wrong = wrong;
  res->checked = checked;

  /* 2. warm-up (nccl-tests -w) */
  for (int64_t w = 0; w < cmd->warmup; w++) GB_TRY(coll_launch(st, cs, cmd));
  GB_TRY(coll_sync(st, cs, false));

  /* 3. samples of `ops` back-to-back operations (nccl-tests -n), CUDA events per rank */
  for (int64_t s = 0; s < cmd->samples; s++) {
    for (int i = 0; i < cs->nlocal; i++) {
      GB_CUDA(cudaSetDevice(st->local[i].dev));
      GB_CUDA(cudaEventRecord(st->local[i].ev_start, st->local[i].stream));
    }
    for (int64_t k = 0; k < cmd->ops; k++) GB_TRY(coll_launch(st, cs, cmd));
    for (int i = 0; i < cs->nlocal; i++) {
      GB_CUDA(cudaSetDevice(st->local[i].dev));
      GB_CUDA(cudaEventRecord(st->local[i].ev_stop, st->local[i].stream));
    }
    GB_TRY(coll_sync(st, cs, false));
    double slowest = 0;
    for (int i = 0; i < cs->nlocal; i++) {
      float ms;
      GB_CUDA(cudaEventElapsedTime(&ms, st->local[i].ev_start, st->local[i].ev_stop));
      double sec = (double)ms * 1e-3 / (double)cmd->ops; /* seconds per operation on this rank */
      if (sec > slowest) slowest = sec;
    }
    res->sec[s] = slowest;
  }
  res->samples = (int)cmd->samples;
  if (st->mp) /* the slowest rank's time of each sample */
    GB_TRY(coll_ctl_allreduce(st, cs, COLL_CTL_TIMES, res->sec, (size_t)res->samples, ncclFloat64, 8, ncclMax));
  return GB_OK;
}

/* ---- multi-process control ---- */

static gb_err coll_bcast_cmd(coll_state *st, coll_commset *cs, coll_cmd *cmd, bool idle_wait) {
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

static gb_err coll_mp_init_comm(coll_state *st, const ncclUniqueId *id) {
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
  double deadline = now_s() + st->opts.timeout_s;
  gb_err e = GB_OK;
  while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
    if ((e = coll_children_alive(st)) != GB_OK || (e = coll_parent_alive(st)) != GB_OK) break;
    if (now_s() > deadline) {
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
static gb_err coll_self_launch(coll_state *st, const gb_run_config *cfg, const ncclUniqueId *id) {
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
static void coll_describe_env(coll_state *st) {
  int v = 0;
  if (ncclGetVersion(&v) == ncclSuccess)
    snprintf(st->nccl_version, sizeof st->nccl_version, "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
  else snprintf(st->nccl_version, sizeof st->nccl_version, "unknown");
  static const char *const vars[] = {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE"};
  size_t k = 0;
  st->env_note[0] = '\0';
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *val = getenv(vars[i]);
    if (!val) continue;
    k += (size_t)snprintf(st->env_note + k, k < sizeof st->env_note ? sizeof st->env_note - k : 0, "%s%s=%s",
                          k ? " " : "", vars[i], val);
  }
  if (k == 0) snprintf(st->env_note, sizeof st->env_note, "NCCL_ALGO/NCCL_PROTO unset (NCCL's choice, not reported)");
}

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
    if (cmd.op != COLL_CMD_RUN || cmd.coll < 0 || cmd.coll >= GB_COLL_COUNT || cmd.dtype < 0 ||
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
static gb_err coll_worker_start(coll_state *st) {
  int rc = pthread_create(&st->worker, NULL, coll_worker_main, st);
  if (rc != 0) return gb_fail(GB_E_NOMEM, "collective: rank %d: pthread_create: %s", st->launch.rank, strerror(rc));
  st->worker_started = true;
  return GB_OK;
}

/* run() of a rank other than 0: rank 0 writes the rows; this one reports
 * its worker's failure once the worker has ended with one. */
static gb_err coll_worker_status(coll_state *st) {
  if (!__atomic_load_n(&st->worker_done, __ATOMIC_ACQUIRE) || st->worker_err == GB_OK) return GB_OK;
  return gb_fail(st->worker_err, "%s", st->worker_msg);
}

/* teardown() of a rank other than 0: waits for rank 0's STOP (or the
 * worker's failure, said on stderr: no row is left to carry it). */
static void coll_worker_join(coll_state *st) {
  if (!st->worker_started) return;
  pthread_join(st->worker, NULL);
  st->worker_started = false;
  if (st->worker_err != GB_OK)
    fprintf(stderr, "gpubench: collective: rank %d: %s\n", st->launch.rank, st->worker_msg);
}

/* ---- the gb_bench interface ---- */

static gb_err collective_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  gb_coll_opts o;
  gb_coll_launch launch;
  GB_TRY(gb_coll_opts_parse(ctx->cfg->bench_opts, &o));
  GB_TRY(gb_coll_launch_resolve(&o, environ, &launch));
  int counts[16], ncounts;
  if (launch.mode == GB_COLL_MODE_SINGLE) {
    ncounts = gb_coll_gpu_counts(ctx->cfg->ndevices, counts, 16);
  } else {
    if (launch.mode == GB_COLL_MODE_SELF_LAUNCH && launch.world > ctx->cfg->ndevices)
      return gb_fail(GB_E_USAGE, "--opt mp=%d: needs %d GPUs, one per process; %d selected", launch.world,
                     launch.world, ctx->cfg->ndevices);
    counts[0] = launch.world;
    ncounts = 1;
  }
  bool mp = launch.mode != GB_COLL_MODE_SINGLE;
  size_t cap = 4096;
  gb_coll_point *pts = malloc(cap * sizeof *pts);
  if (!pts) return gb_fail(GB_E_NOMEM, "collective: out of memory");
  size_t n = gb_coll_plan_points(&o, ctx->cfg->profile == GB_PROFILE_FULL, counts, ncounts, pts, cap);
  if (n > cap) {
    free(pts);
    cap = n;
    if (!(pts = malloc(cap * sizeof *pts))) return gb_fail(GB_E_NOMEM, "collective: out of memory");
    n = gb_coll_plan_points(&o, ctx->cfg->profile == GB_PROFILE_FULL, counts, ncounts, pts, cap);
  }
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && e == GB_OK; i++) {
    char name[64];
    gb_coll_case_name(pts[i].coll, pts[i].inplace, mp, name, sizeof name);
    gb_case c = gb_case_init(name, gb_coll_dtype_name(pts[i].dtype));
    c.bytes = pts[i].bytes;
    c.gpu_count = pts[i].nranks;
    c.param[0] = pts[i].coll;
    c.param[1] = pts[i].dtype;
    c.param[2] = pts[i].inplace;
    c.param[3] = (long)pts[i].count;
    c.param[4] = (long)pts[i].size_bytes;
    e = gb_case_list_add(out, &c);
  }
  free(pts);
  return e;
}

static void collective_teardown(gb_run_ctx *ctx);

static gb_err collective_setup_state(gb_run_ctx *ctx) {
  const gb_run_config *cfg = ctx->cfg;
  coll_state *st = ctx->state;
  st->ppid = getppid();
  GB_TRY(gb_coll_opts_parse(cfg->bench_opts, &st->opts));
  GB_TRY(gb_coll_launch_resolve(&st->opts, environ, &st->launch));
  st->mp = st->launch.mode != GB_COLL_MODE_SINGLE;
  st->warmup = cfg->warmup >= 0 ? cfg->warmup : COLL_DEFAULT_WARMUP;
  st->samples = cfg->iters > 0 ? cfg->iters : COLL_DEFAULT_SAMPLES;
  if (st->samples > COLL_MAX_SAMPLES) st->samples = COLL_MAX_SAMPLES;
  coll_describe_env(st);
  if (cfg->ndevices < 1) return gb_fail(GB_E_NOGPU, "collective: no GPU selected");

  if (!st->mp) {
    st->nlocal = cfg->ndevices;
    for (int i = 0; i < st->nlocal; i++) GB_TRY(coll_local_init(&st->local[i], cfg->devices[i]));
    int counts[COLL_MAX_COMMSETS];
    int ncounts = gb_coll_gpu_counts(cfg->ndevices, counts, COLL_MAX_COMMSETS);
    for (int k = 0; k < ncounts; k++) {
      coll_commset *cs = &st->commsets[k];
      COLL_NCCL(ncclCommInitAll(cs->comm, counts[k], cfg->devices));
      cs->n = counts[k];
      cs->nlocal = counts[k];
      st->ncommsets = k + 1;
    }
    return GB_OK;
  }

  /* multi-process: one GPU per process */
  int dev;
  if (st->launch.mode == GB_COLL_MODE_SELF_LAUNCH) dev = cfg->devices[0];
  else GB_TRY(gb_coll_rank_device(cfg->devices, cfg->ndevices, st->launch.local_rank, &dev));
  st->nlocal = 1;
  GB_TRY(coll_local_init(&st->local[0], dev));
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  if (st->launch.rank == 0 && !st->launch.id_hex[0]) {
    COLL_NCCL(ncclGetUniqueId(&id));
    if (st->launch.mode == GB_COLL_MODE_SELF_LAUNCH) GB_TRY(coll_self_launch(st, cfg, &id));
    else GB_TRY(gb_coll_id_write(st->launch.id_file, &id, sizeof id));
  } else if (st->launch.id_hex[0]) {
    GB_TRY(gb_coll_hex_decode(st->launch.id_hex, &id, sizeof id, "environment GPUBENCH_NCCL_ID"));
  } else {
    GB_TRY(gb_coll_id_read_wait(st->launch.id_file, &id, sizeof id, st->opts.timeout_s));
  }
  GB_TRY(coll_mp_init_comm(st, &id));
  /* every rank has read the id once the communicator exists: a launcher's id file goes now */
  if (st->launch.mode == GB_COLL_MODE_LAUNCHED && st->launch.rank == 0 && !st->launch.id_hex[0])
    unlink(st->launch.id_file);
  if (st->launch.rank != 0) return coll_worker_start(st);
  return GB_OK;
}

/* The runner calls teardown only after a successful setup, so a failed
 * setup releases what it made itself (communicators, buffers, the ranks it
 * started). */
static gb_err collective_setup(gb_run_ctx *ctx) {
  coll_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "collective: out of memory");
  ctx->state = st;
  gb_err e = collective_setup_state(ctx);
  if (e != GB_OK) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    if (!st->broken) coll_break(st, msg); /* peers may be waiting in NCCL: abort, never destroy */
    collective_teardown(ctx);
    gb_fail(e, "%s", msg);
  }
  return e;
}

/* Appends the three rows of a measured case. */
static gb_err coll_rows(const gb_run_ctx *ctx, const coll_state *st, const gb_case *c, const coll_cmd *cmd,
                        const coll_outcome *res, gb_rowset *out) {
  gb_coll coll = (gb_coll)cmd->coll;
  int n = (int)cmd->nranks;
  double us[COLL_MAX_SAMPLES], alg[COLL_MAX_SAMPLES], bus[COLL_MAX_SAMPLES];
  for (int s = 0; s < res->samples; s++) {
    us[s] = res->sec[s] * 1e6;
    alg[s] = gb_coll_algbw_gbps(c->bytes, res->sec[s]);          /* S / time */
    bus[s] = alg[s] * gb_coll_busbw_factor(coll, n);             /* algbw * factor */
  }
  char detail[2048];
  const char *one_gpu_note = "";
  if (n == 1 && cmd->inplace)
    one_gpu_note = coll == GB_COLL_BROADCAST
                       ? "; broadcast busbw factor is 1 (nccl-tests), also on one GPU; one rank in place: NCCL moves "
                         "no data, the time is its enqueue only"
                       : "; busbw is 0 on one GPU by definition; one rank in place: NCCL moves no data, the time is "
                         "its enqueue only";
  else if (n == 1)
    one_gpu_note = coll == GB_COLL_BROADCAST ? "; broadcast busbw factor is 1 (nccl-tests), also on one GPU"
                                             : "; busbw is 0 on one GPU by definition";
  snprintf(detail, sizeof detail,
           "NCCL %s; %s%s; %s; %lld %s elements per rank; %d rank%s (%s); check: %llu of %llu elements wrong; "
           "warm-up %lld ops, %lld samples x %lld ops, time per op of the slowest rank (CUDA events), median of "
           "samples%s; %s",
           st->nccl_version, gb_coll_name(coll),
           coll == GB_COLL_BROADCAST ? " root 0" : (coll == GB_COLL_ALL_GATHER ? "" : " sum"),
           cmd->inplace ? "in-place" : "out-of-place", (long long)cmd->count, gb_coll_dtype_name((gb_coll_dtype)cmd->dtype),
           n, n == 1 ? "" : "s", st->mp ? "one process per GPU" : "one process driving every GPU",
           (unsigned long long)res->wrong, (unsigned long long)res->checked, (long long)cmd->warmup,
           (long long)cmd->samples, (long long)cmd->ops, one_gpu_note, st->env_note);
  (void)ctx;
  static const char *const metrics[3] = {"time_us", "algbw_gbps", "busbw_gbps"};
  static const char *const units[3] = {"us", "GB/s", "GB/s"};
  const double *vals[3] = {us, alg, bus};
  for (int m = 0; m < 3; m++) {
    if (m == 2 && n == 1 && !st->opts.trivial) continue; /* busbw on one GPU: 0 by definition (gb_desc) */
    gb_stats s = gb_stats_of(vals[m], (size_t)res->samples);
    gb_row r = gb_case_row("collective", c);
    r.metric = metrics[m];
    r.unit = units[m];
    r.value = s.median;
    r.samples = res->samples;
    r.min = s.min;
    r.max = s.max;
    r.stddev = s.stddev;
    r.status = gb_coll_status_of(res->wrong);
    r.detail = detail;
    r.variant = st->mp ? "nccl-multiprocess" : "nccl-single-process";
    GB_TRY(gb_rowset_add(out, &r));
  }
  return GB_OK;
}

static coll_commset *coll_find_commset(coll_state *st, int n) {
  for (int k = 0; k < st->ncommsets; k++)
    if (st->commsets[k].n == n) return &st->commsets[k];
  return NULL;
}

static gb_err collective_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  coll_state *st = ctx->state;
  if (st->mp && st->launch.rank != 0) return coll_worker_status(st); /* its worker thread executes the case */
  if (st->broken) return gb_fail(GB_E_CUDA, "%s", st->broken_msg);
  GB_TRY(coll_children_alive(st));
  coll_commset *cs = coll_find_commset(st, c->gpu_count);
  if (!cs)
    return gb_fail(GB_E_UNSUPPORTED, "collective: no communicator over %d GPUs in this mode (%d selected)", c->gpu_count,
                   ctx->cfg->ndevices);
  coll_cmd cmd = {COLL_CMD_RUN, c->param[0], c->param[1], c->param[2], c->param[3], c->gpu_count, st->warmup,
                  st->opts.ops, st->samples, 0};
  st->seq++;
  cmd.seed = (int64_t)((st->seq * 2654435761u) ^ 0x5eedu);
  if (cmd.coll < 0 || cmd.coll >= GB_COLL_COUNT || cmd.dtype < 0 || cmd.dtype >= GB_COLL_DTYPE_COUNT || cmd.count < 1)
    return gb_fail(GB_E_INTERNAL, "collective: case %s has bad parameters", c->name);
  coll_outcome *res = malloc(sizeof *res);
  if (!res) return gb_fail(GB_E_NOMEM, "collective: out of memory");
  gb_err e = GB_OK;
  if (st->mp) e = coll_bcast_cmd(st, cs, &cmd, false);
  if (e == GB_OK) e = coll_execute(st, cs, &cmd, res);
  if (e == GB_OK) e = coll_rows(ctx, st, c, &cmd, res, out);
  else if (e != GB_E_OOM && !st->broken) {
    /* an error in the middle of an operation leaves NCCL in an unknown state */
    char why[1024];
    snprintf(why, sizeof why, "%s", gb_errmsg());
    coll_break(st, why);
    gb_fail(e, "%s", why);
  }
  free(res);
  return e;
}

/* Rank 0 of mp=N: waits for the ranks it started and removes their files
 * (kept, with a line on stderr, when a rank failed). */
static void coll_reap_children(coll_state *st) {
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

static void collective_teardown(gb_run_ctx *ctx) {
  coll_state *st = ctx->state;
  if (!st) return;
  if (st->mp && st->launch.rank == 0 && !st->broken && st->ncommsets == 1) {
    coll_cmd stop;
    memset(&stop, 0, sizeof stop);
    stop.op = COLL_CMD_STOP;
    if (coll_bcast_cmd(st, &st->commsets[0], &stop, false) != GB_OK) coll_break(st, gb_errmsg());
  }
  coll_worker_join(st);
  for (int k = 0; k < st->ncommsets; k++)
    for (int i = 0; i < st->commsets[k].nlocal; i++)
      if (st->commsets[k].comm[i]) ncclCommDestroy(st->commsets[k].comm[i]);
  for (int i = 0; i < st->nlocal; i++) coll_local_free(&st->local[i]);
  if (st->nchildren > 0 || st->tmpdir[0]) coll_reap_children(st);
  free(st);
  ctx->state = NULL;
}

static void collective_summarize(const gb_run_ctx *ctx, const gb_row *rows, size_t n, FILE *fp) {
  (void)ctx;
  gb_coll_summary_print(rows, n, fp);
}

const gb_bench gb_bench_collective = {
    .name = "collective",
    .summary = "NCCL all_reduce, reduce_scatter, all_gather, broadcast: time, algbw, busbw as nccl-tests defines them",
    .metric = "busbw_gbps",
    .unit = "GB/s",
    .plan = collective_plan,
    .setup = collective_setup,
    .run = collective_run,
    .derive = NULL,
    .summarize = collective_summarize,
    .teardown = collective_teardown,
};
