/* collective_exec: the collective benchmark's per-GPU resources and
 * one case, the same on every rank (bench_collective.c says how a case
 * runs): buffers, known inputs and poisoned outputs (collective_check.cu),
 * the operation through the collective's table entry, the check, warm-up
 * and timed samples; and the waits that watch the other ranks. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collective_internal.h"

static const ncclDataType_t coll_nccl_type[GB_COLL_DTYPE_COUNT] = {ncclFloat32, ncclBfloat16, ncclFloat16};

double coll_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- health of the other ranks ---- */

/* For rank 0 of a self-launch: fails when a child has exited. */
gb_err coll_children_alive(coll_state *st) {
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
gb_err coll_parent_alive(coll_state *st) {
  if (st->launch.mode == GB_COLL_MODE_LAUNCHED && st->launch.rank != 0 && getppid() != st->ppid)
    return gb_fail(GB_E_CUDA, "collective: rank %d: the parent process exited", st->launch.rank);
  return GB_OK;
}

/* Aborts every communicator after a failure that leaves operations in
 * flight (a rank died or a deadline passed), and remembers why. */
void coll_break(coll_state *st, const char *why) {
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
gb_err coll_sync(coll_state *st, coll_commset *cs, bool idle_wait) {
  double deadline = coll_now_s() + st->opts.timeout_s;
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
      if (!idle_wait && coll_now_s() > deadline) {
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

gb_err coll_local_init(coll_local *l, int dev) {
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

void coll_local_free(coll_local *l) {
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
static gb_err coll_fill(coll_local *l, void *buf, uint64_t n, gb_coll_dtype dtype, int rank, uint64_t first_idx,
                        uint32_t seed, int poison) {
  if (n == 0) return GB_OK;
  unsigned long long n_arg = n, first_arg = first_idx;
  unsigned int seed_arg = seed;
  int mant = gb_coll_dtype_mant_bits(dtype);
  void *args[] = {&buf, &n_arg, &mant, &rank, &first_arg, &seed_arg, &poison};
  GB_CUDA(cudaSetDevice(l->dev));
  GB_CUDA(cudaLaunchKernel((const void *)l->k_fill, coll_grid(l, n), gb_dim1(256), args, 0, l->stream));
  GB_CUDA(cudaGetLastError());
  return GB_OK;
}

/* ---- one case, the same on every rank ---- */

/* Where rank g's operation reads and writes, and what the check covers. */
typedef struct coll_ptrs {
  void *send, *recv;
  int64_t send_elems, recv_elems; /* recv_elems: the checked region */
} coll_ptrs;

static coll_ptrs coll_pointers(const coll_local *l, const coll_cmd *cmd, int g) {
  const gb_coll_desc *d = gb_coll_desc_of((gb_coll)cmd->coll);
  size_t block = (size_t)cmd->count * (size_t)gb_coll_dtype_size((gb_coll_dtype)cmd->dtype);
  coll_ptrs p = {l->buf[0], l->buf[1], 0, 0};
  gb_coll_buffer_elems((gb_coll)cmd->coll, cmd->count, (int)cmd->nranks, &p.send_elems, &p.recv_elems);
  if (cmd->inplace) {
    char *b = l->buf[1];
    /* nccl in place: reduce_scatter recv = send + g*count, all_gather send = recv + g*count */
    p.send = d->inplace_send_block ? b + (size_t)g * block : b;
    p.recv = d->inplace_recv_block ? b + (size_t)g * block : b;
  }
  return p;
}

/* Known inputs for rank g, output poisoned (bench_collective.h, expected
 * values): the receive side first, so that in place the input overwrites
 * the poison where the two share the buffer; only the root's send side
 * holds input where there is one. */
static gb_err coll_init_inputs(coll_local *l, const coll_cmd *cmd, int g) {
  const gb_coll_desc *d = gb_coll_desc_of((gb_coll)cmd->coll);
  coll_ptrs p = coll_pointers(l, cmd, g);
  gb_coll_dtype dt = (gb_coll_dtype)cmd->dtype;
  uint32_t seed = (uint32_t)cmd->seed;
  GB_TRY(coll_fill(l, p.recv, (uint64_t)p.recv_elems, dt, g, 0, seed, 1));
  if (d->root < 0 || g == d->root) GB_TRY(coll_fill(l, p.send, (uint64_t)p.send_elems, dt, g, 0, seed, 0));
  return GB_OK;
}

/* Enqueues one operation on every local rank of cs, as one NCCL group. */
static gb_err coll_launch(coll_state *st, coll_commset *cs, const coll_cmd *cmd) {
  const gb_coll_desc *d = gb_coll_desc_of((gb_coll)cmd->coll);
  COLL_NCCL(ncclGroupStart());
  for (int i = 0; i < cs->nlocal; i++) {
    coll_local *l = &st->local[i];
    int g = st->mp ? st->launch.rank : i;
    coll_ptrs p = coll_pointers(l, cmd, g);
    gb_coll_call call = {p.send, p.recv, (size_t)cmd->count, (size_t)gb_coll_dtype_size((gb_coll_dtype)cmd->dtype),
                         (int)coll_nccl_type[cmd->dtype], g, (int)cmd->nranks, cs->comm[i], l->stream};
    int r = d->enqueue(&call);
    if (r != (int)ncclSuccess) {
      ncclGroupEnd();
      return gb_nccl_fail(r, d->name, __FILE__, __LINE__);
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

/* The check: known inputs, poisoned outputs, one operation, then the
 * elements that differ from the collective's expected values counted on the
 * device, summed over every rank. */
static gb_err coll_check_case(coll_state *st, coll_commset *cs, const coll_cmd *cmd, coll_outcome *res) {
  for (int i = 0; i < cs->nlocal; i++) {
    coll_local *l = &st->local[i];
    int g = st->mp ? st->launch.rank : i;
    GB_TRY(coll_init_inputs(l, cmd, g));
    GB_CUDA(cudaMemsetAsync(l->ctl + COLL_CTL_WRONG, 0, 8, l->stream));
  }
  GB_TRY(coll_launch(st, cs, cmd));
  const gb_coll_rule *rule = &gb_coll_desc_of((gb_coll)cmd->coll)->check;
  int reduce = rule->reduce, src_block = rule->src_block, src_self = rule->src_self, src_shift = rule->src_shift;
  int idx_block = rule->idx_block, idx_mod = rule->idx_mod;
  int mant = gb_coll_dtype_mant_bits((gb_coll_dtype)cmd->dtype), nranks = (int)cmd->nranks;
  unsigned long long count_arg = (unsigned long long)cmd->count;
  unsigned int seed = (unsigned int)cmd->seed;
  uint64_t wrong = 0, checked = 0;
  for (int i = 0; i < cs->nlocal; i++) {
    coll_local *l = &st->local[i];
    int rank = st->mp ? st->launch.rank : i;
    coll_ptrs p = coll_pointers(l, cmd, rank);
    const void *out = p.recv;
    unsigned long long n_arg = (unsigned long long)p.recv_elems;
    unsigned long long *wrong_ptr = (unsigned long long *)(l->ctl + COLL_CTL_WRONG);
    void *args[] = {&out,    &n_arg,     &mant,     &rank,      &nranks,    &count_arg, &seed,
                    &reduce, &src_block, &src_self, &src_shift, &idx_block, &idx_mod,   &wrong_ptr};
    GB_CUDA(cudaSetDevice(l->dev));
    GB_CUDA(cudaLaunchKernel((const void *)l->k_check, coll_grid(l, n_arg), gb_dim1(256), args, 0, l->stream));
    GB_CUDA(cudaGetLastError());
    checked += (uint64_t)p.recv_elems;
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
  return GB_OK;
}

gb_err coll_execute(coll_state *st, coll_commset *cs, const coll_cmd *cmd, coll_outcome *res) {
  memset(res, 0, sizeof *res);
  GB_TRY(coll_reserve_all(st, cs, cmd));

  /* 1. the check */
  GB_TRY(coll_check_case(st, cs, cmd, res));

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
