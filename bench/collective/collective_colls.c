/* collective_colls: the collectives of the NCCL benchmark, one entry
 * each (gb_coll_desc, bench_collective.h): name, accounting, placement,
 * check rule, plan flags and the NCCL call, as nccl-tests defines each in
 * src/<coll>.cu. Everything else (plan, rows, fill and check, the
 * multi-process driver, the end-of-run table) reads this table, so a new
 * collective is one entry here (docs/architecture.md). Only the NCCL calls
 * need nccl.h; no CUDA runtime call is made here. */
#include <nccl.h>

#include "bench_collective.h"

#define CALL_TYPE(c) ((ncclDataType_t)(c)->nccl_type)
#define CALL_COMM(c) ((ncclComm_t)(c)->comm)
#define CALL_STREAM(c) ((cudaStream_t)(c)->stream)

static int all_reduce_enqueue(const gb_coll_call *c) {
  return (int)ncclAllReduce(c->send, c->recv, c->count, CALL_TYPE(c), ncclSum, CALL_COMM(c), CALL_STREAM(c));
}

static int reduce_scatter_enqueue(const gb_coll_call *c) {
  return (int)ncclReduceScatter(c->send, c->recv, c->count, CALL_TYPE(c), ncclSum, CALL_COMM(c), CALL_STREAM(c));
}

static int all_gather_enqueue(const gb_coll_call *c) {
  return (int)ncclAllGather(c->send, c->recv, c->count, CALL_TYPE(c), CALL_COMM(c), CALL_STREAM(c));
}

static int broadcast_enqueue(const gb_coll_call *c) {
  return (int)ncclBroadcast(c->send, c->recv, c->count, CALL_TYPE(c), 0, CALL_COMM(c), CALL_STREAM(c));
}

/* NCCL 2.28 added ncclAlltoAll; nccl-tests src/alltoall.cu RunColl calls it
 * whenever the library it runs on is 2.28 or later, and falls back to the
 * grouped send/recv form below otherwise. gpubench does the same, so its
 * alltoall is the operation nccl-tests' alltoall_perf times. The reference
 * is weak, as in nccl-tests: a library without the symbol still loads. */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#pragma weak ncclAlltoAll
#define COLL_HAVE_ALLTOALL 1
#else
#define COLL_HAVE_ALLTOALL 0
#endif

static bool alltoall_native(void) {
#if COLL_HAVE_ALLTOALL
  int v = 0;
  return ncclAlltoAll != NULL && ncclGetVersion(&v) == ncclSuccess && v >= NCCL_VERSION(2, 28, 0);
#else
  return false;
#endif
}

static const char *alltoall_api(void) {
  return alltoall_native() ? "ncclAlltoAll" : "ncclSend/ncclRecv to every rank in one group";
}

/* Block r of the send buffer to rank r, rank r's block into block r of the
 * receive buffer. */
static int alltoall_enqueue(const gb_coll_call *c) {
#if COLL_HAVE_ALLTOALL
  if (alltoall_native())
    return (int)ncclAlltoAll(c->send, c->recv, c->count, CALL_TYPE(c), CALL_COMM(c), CALL_STREAM(c));
#endif
  size_t block = c->count * c->elem_bytes;
  ncclResult_t r = ncclGroupStart();
  for (int peer = 0; peer < c->nranks && r == ncclSuccess; peer++) {
    r = ncclSend((const char *)c->send + (size_t)peer * block, c->count, CALL_TYPE(c), peer, CALL_COMM(c),
                 CALL_STREAM(c));
    if (r == ncclSuccess)
      r = ncclRecv((char *)c->recv + (size_t)peer * block, c->count, CALL_TYPE(c), peer, CALL_COMM(c), CALL_STREAM(c));
  }
  ncclResult_t end = ncclGroupEnd();
  return (int)(r != ncclSuccess ? r : end);
}

/* nccl-tests src/sendrecv.cu RunColl: a ring, to rank+1 and from rank-1. */
static int sendrecv_enqueue(const gb_coll_call *c) {
  ncclResult_t r = ncclGroupStart();
  if (r == ncclSuccess)
    r = ncclSend(c->send, c->count, CALL_TYPE(c), (c->rank + 1) % c->nranks, CALL_COMM(c), CALL_STREAM(c));
  if (r == ncclSuccess)
    r = ncclRecv(c->recv, c->count, CALL_TYPE(c), (c->rank - 1 + c->nranks) % c->nranks, CALL_COMM(c),
                 CALL_STREAM(c));
  ncclResult_t end = ncclGroupEnd();
  return (int)(r != ncclSuccess ? r : end);
}

const gb_coll_desc gb_coll_table[] = {
    {.name = "all_reduce", .op_note = " sum", .bus_ring = 2, .inplace = true, .root = -1,
     .check = {.reduce = true}, .quick_sweep = true, .enqueue = all_reduce_enqueue},
    {.name = "reduce_scatter", .op_note = " sum", .split = true, .send_n = true, .bus_ring = 1, .inplace = true,
     .inplace_recv_block = true, .root = -1, .check = {.reduce = true, .idx_block = true},
     .enqueue = reduce_scatter_enqueue},
    {.name = "all_gather", .op_note = "", .split = true, .recv_n = true, .bus_ring = 1, .inplace = true,
     .inplace_send_block = true, .root = -1, .check = {.src_block = true, .idx_mod = true},
     .enqueue = all_gather_enqueue},
    {.name = "broadcast", .op_note = " root 0", .bus_flat = 1, .inplace = true, .root = 0, .check = {0},
     .one_rank_trivial = true, .enqueue = broadcast_enqueue},
    {.name = "alltoall", .op_note = "", .split = true, .align_bytes = 16, .send_n = true, .recv_n = true,
     .bus_ring = 1, .root = -1, .check = {.src_block = true, .idx_block = true, .idx_mod = true},
     .api = alltoall_api, .enqueue = alltoall_enqueue},
    {.name = "sendrecv", .op_note = " to rank+1, from rank-1", .bus_flat = 1, .root = -1,
     .check = {.src_self = true, .src_shift = -1}, .enqueue = sendrecv_enqueue},
};

int gb_coll_count(void) { return (int)(sizeof gb_coll_table / sizeof gb_coll_table[0]); }
