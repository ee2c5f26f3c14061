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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collective_internal.h"
#include "gb_desc.h"
#include "gb_num.h"
#include "gb_stats.h"

extern char **environ;

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
  const gb_coll_desc *d = gb_coll_desc_of(coll);
  char one_gpu_note[256] = "";
  if (n == 1) {
    double f1 = gb_coll_busbw_factor(coll, 1);
    char factor[160] = "; busbw is 0 on one GPU by definition";
    if (f1 != 0)
      gb_snprintf_c(factor, sizeof factor, "; %s busbw factor is %g (nccl-tests), also on one GPU: busbw = algbw",
                    d->name, f1);
    snprintf(one_gpu_note, sizeof one_gpu_note, "%s%s", factor,
             cmd->inplace ? "; one rank in place: NCCL moves no data, the time is its enqueue only" : "");
  }
  char api[96] = "";
  if (d->api) snprintf(api, sizeof api, " through %s", d->api());
  char detail[2048];
  snprintf(detail, sizeof detail,
           "NCCL %s; %s%s%s; %s; %lld %s elements per rank; %d rank%s (%s); check: %llu of %llu elements wrong; "
           "warm-up %lld ops, %lld samples x %lld ops, time per op of the slowest rank (CUDA events), median of "
           "samples%s; %s",
           st->nccl_version, d->name, d->op_note, api, cmd->inplace ? "in-place" : "out-of-place",
           (long long)cmd->count, gb_coll_dtype_name((gb_coll_dtype)cmd->dtype), n, n == 1 ? "" : "s",
           st->mp ? "one process per GPU" : "one process driving every GPU", (unsigned long long)res->wrong,
           (unsigned long long)res->checked, (long long)cmd->warmup, (long long)cmd->samples, (long long)cmd->ops,
           one_gpu_note, st->env_note);
  (void)ctx;
  const double *vals[GB_COLL_NMETRICS] = {us, alg, bus};
  for (int m = 0; m < GB_COLL_NMETRICS; m++) {
    if (m == GB_COLL_BUSBW && !gb_coll_busbw_written(coll, n, st->opts.trivial)) continue; /* 0 by definition */
    /* metric, unit and direction: the registry's (core/gb_registry.def) */
    const gb_metric_desc *md = gb_desc_metric("collective", gb_coll_metrics[m]);
    if (!md) return gb_fail(GB_E_INTERNAL, "collective: metric %s is not in core/gb_registry.def", gb_coll_metrics[m]);
    gb_stats s = gb_stats_of(vals[m], (size_t)res->samples);
    gb_row r = gb_case_row("collective", c);
    r.metric = md->name;
    r.unit = md->unit;
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
  if (cmd.coll < 0 || cmd.coll >= gb_coll_count() || cmd.dtype < 0 || cmd.dtype >= GB_COLL_DTYPE_COUNT || cmd.count < 1)
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
    .summary = "NCCL collectives (--opt colls=): time, algbw, busbw as nccl-tests defines them",
    .metric = GB_METRIC_NAME(collective, busbw_gbps), /* its unit: the registry's */
    .plan = collective_plan,
    .setup = collective_setup,
    .run = collective_run,
    .derive = NULL,
    .summarize = collective_summarize,
    .teardown = collective_teardown,
};
