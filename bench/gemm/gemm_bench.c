/* gemm_bench: matrix-product throughput per precision through cuBLASLt, with
 * every result checked against an fp64 reference and mixed-precision speedup
 * rows derived at the end of the run; the gb_bench glue of bench/gemm/.
 *
 * Formula: TFLOP/s (TOP/s for int8) = 2 m n k / seconds per product / 1e12.
 * Layout: D (m x n, row-major) = A (m x k, row-major) * B (n x k, row-major)^T,
 * issued to cuBLASLt as the column-major TN product described in
 * bench_gemm.h; with --opt gemm.layout=nn also (or instead) the NN product
 * with B k x n row-major (cases "<precision>_nn"). Per case (gemm_run):
 * random inputs in the operand type, rotated among several sets when they
 * fit in L2 (gemm_op.c); the algorithm search (gemm_search.c): cuBLASLt's
 * heuristic asked for 8 candidates with a 64 MiB workspace (with
 * gemm.search=extended, configurations enumerated through
 * cublasLtMatmulAlgoGetIds added: up to 8 in all, or 4 beside 8) and,
 * unless gemm.search=heuristic, its first 2 for no workspace (run with
 * none), the fastest of the timed candidates kept; then warm-up and the
 * median of many products timed with events (gemm_timing.c), then one
 * product on poisoned output checked against kernels/gemm_ref.cu
 * (gemm_check.c). A grouped case (case "grouped_<precision>", the `groups`
 * column G) runs the G products of a MoE layer's experts as one
 * strided-batched call, FLOPs 2 m n k G (gemm_grouped.c).
 *
 * The top of the folder: the runner calls it through gb_bench_gemm
 * (bench/gb_registry.c); it calls down into the other files, and none of
 * them calls it (gemm_internal.h lists them in that order). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cuda.h"
#include "gb_desc.h"
#include "gb_num.h"
#include "gemm_internal.h"

/* What one case found, for its row. */
typedef struct gemm_result {
  gb_gemm_timing search; /* the algorithm search's timing plan */
  gemm_pick pick;
  char scale_note[400];  /* fp8: the scale and amax pointers cuBLASLt refused */
  gb_measure_opts mo;    /* how the window ran */
  size_t samples;        /* samples the window took */
  gemm_check chk;
} gemm_result;

/* ---- the benchmark ---- */

static gb_err gemm_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  gb_gemm_opts opts;
  GB_TRY(gb_gemm_opts_parse(ctx->cfg->bench_opts, &opts));
  int cc_major = ctx->dev ? ctx->dev->cc_major : -1, cc_minor = ctx->dev ? ctx->dev->cc_minor : 0;
  return gb_gemm_plan(&opts, ctx->cfg->profile, cc_major, cc_minor, out);
}

static void gemm_teardown(gb_run_ctx *ctx) {
  gemm_state *st = ctx->state;
  if (!st) return;
  if (st->workspace) cudaFree(st->workspace);
  if (st->stream) cudaStreamDestroy(st->stream);
  if (st->lt) cublasLtDestroy(st->lt);
  if (st->mod_loaded) gb_module_unload(&st->mod);
  gemm_logs_close(st);
  free(st);
  ctx->state = NULL;
}

static gb_err gemm_setup(gb_run_ctx *ctx) {
  gb_err err = GB_OK;
  gb_gemm_opts opts;
  GB_TRY(gb_gemm_opts_parse(ctx->cfg->bench_opts, &opts));
  gemm_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "gemm: out of host memory");
  ctx->state = st;
  st->opts = opts;
  st->search = opts.search;
  st->window = opts.window;
  GB_TRY_GOTO(gemm_logs_open(st), err, fail);
  st->rest_ms = gb_gemm_rest_ms(&opts);
  GB_CUBLAS_GOTO(cublasLtCreate(&st->lt), err, fail);
  GB_CUDA_GOTO(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking), err, fail);
  st->workspace_bytes =
      (size_t)(opts.workspace_kib >= 0 ? opts.workspace_kib : GB_GEMM_WORKSPACE_KIB_DEFAULT) * 1024u;
  if (st->workspace_bytes) GB_CUDA_GOTO(cudaMalloc(&st->workspace, st->workspace_bytes), err, fail);
  GB_TRY_GOTO(gb_module_load("gemm_ref.cu", NULL, 0, &st->mod), err, fail);
  st->mod_loaded = true;
  GB_TRY_GOTO(gb_module_kernel(&st->mod, "gemm_scan_output", &st->k_scan), err, fail);
  return GB_OK;
fail:
  gemm_teardown(ctx);
  return err;
}

/* ---- one case ---- */

/* The algorithm search, with the timing plan from an estimate (FLOPs over
 * a typical rate, or bytes over ~3 TB/s for skinny shapes, whichever is
 * longer). fp8: the D scale and amax-of-D pointers as well, when cuBLASLt
 * takes them with this output type; else amax alone; else A and B scales
 * only (each refusal is noted in r->scale_note). */
static gb_err gemm_choose(const gb_run_ctx *ctx, const gemm_state *st, gemm_op *o, uint64_t set_bytes,
                          gemm_result *r) {
  const gb_gemm_prec *p = o->p;
  double flops = gemm_op_flops(o);
  double t_est = fmax(flops / (p->est_tflops * 1e12), (double)(set_bytes + o->d_bytes) / 3e12);
  r->search = gb_gemm_timing_plan(ctx->cfg->profile, st->window, t_est);
  static const bool fp8_tries[][2] = {{true, true}, {false, true}, {false, false}};
  static const bool fp8_tries_no_amax[][2] = {{true, false}, {false, false}}; /* gemm.fp8_amax=off */
  const bool(*tries)[2] = st->opts.fp8_no_amax ? fp8_tries_no_amax : fp8_tries;
  int ntries = !p->fp8                ? 1
               : st->opts.fp8_no_amax ? (int)(sizeof fp8_tries_no_amax / sizeof fp8_tries_no_amax[0])
                                      : (int)(sizeof fp8_tries / sizeof fp8_tries[0]);
  gb_err err = GB_OK;
  for (int t = 0; t < ntries; t++) {
    bool last = t == ntries - 1;
    GB_TRY(gemm_op_create_desc(o, p->fp8 && tries[t][0], p->fp8 && tries[t][1]));
    err = gemm_pick_algo(o, st, ctx->dev, &r->search, st->stream, &r->pick);
    if (!err || last || (err != GB_E_UNSUPPORTED && err != GB_E_CUDA) || gb_cuda_context_broken()) break;
    size_t used = strlen(r->scale_note);
    snprintf(r->scale_note + used, sizeof r->scale_note - used, " (%s refused: %.100s)",
             !tries[t][0] ? "amax pointer" : tries[t][1] ? "D scale and amax pointers" : "D scale pointer",
             gb_errmsg());
    gb_errclear();
    gemm_op_destroy_desc(o);
  }
  return err;
}

/* "; fp8: fast_accum=.. scale_a=.. ..." for an fp8 case, else "". */
static void gemm_fp8_desc(const gemm_state *st, const gemm_op *o, const gemm_result *r, char *buf, size_t n) {
  const gb_gemm_prec *p = o->p;
  buf[0] = '\0';
  if (p->block) {
    snprintf(buf, n, "; block-scaled: %s, one %s scale per %d elements along K for A and B (%llu and %llu scale bytes)",
             p->fp4 ? "VEC16_UE4M3" : "VEC32_UE8M0", p->fp4 ? "e4m3" : "ue8m0", p->block,
             (unsigned long long)gb_gemm_bs_scale_bytes(o->m, o->k, p->block),
             (unsigned long long)gb_gemm_bs_scale_bytes(o->n, o->k, p->block));
    return;
  }
  if (!p->fp8) return;
  char amax_txt[64];
  if (!o->amax) snprintf(amax_txt, sizeof amax_txt, "not set%s", st->opts.fp8_no_amax ? " (gemm.fp8_amax=off)" : "");
  else if (r->chk.amax_d == GEMM_AMAX_UNSET) snprintf(amax_txt, sizeof amax_txt, "not written");
  else gb_snprintf_c(amax_txt, sizeof amax_txt, "%.6g (max|D| %.6g)", r->chk.amax_d, r->chk.max_abs_out);
  char sd_txt[32];
  if (o->d_scale) gb_snprintf_c(sd_txt, sizeof sd_txt, "%g", gb_gemm_scale_d(p));
  else snprintf(sd_txt, sizeof sd_txt, "unset");
  gb_snprintf_c(buf, n, "; fp8: fast_accum=%d scale_a=%g scale_b=%g scale_d=%s amax_d=%s%s", p->fast_accum,
                p->scale_a, p->scale_b, sd_txt, amax_txt, r->scale_note);
}

/* What the search added beside the heuristic's candidates. */
static void gemm_search_desc(const gemm_state *st, const gemm_pick *pick, char *buf, size_t n) {
  int used = 0;
  buf[0] = '\0';
  if (st->search == GB_GEMM_SEARCH_EXTENDED)
    used = snprintf(buf, n, ", %d enumerated via AlgoGetIds (%d ids, %d AlgoCheck calls, %d accepted)%s%s",
                    pick->enumerated, pick->enum_ids, pick->enum_checks, pick->enum_accepted,
                    pick->enum_note[0] ? ": " : "", pick->enum_note);
  if (pick->variant_base > 0 && used >= 0 && (size_t)used < n)
    used += snprintf(buf + used, n - (size_t)used, ", %d configuration%s of #%d (cluster, swizzle, custom option)",
                     pick->variants, pick->variants == 1 ? "" : "s", pick->variant_base);
  if (pick->no_ws > 0 && used >= 0 && (size_t)used < n)
    snprintf(buf + used, n - (size_t)used, ", %d from the heuristic without workspace", pick->no_ws);
  else if (pick->no_ws_note[0] && used >= 0 && (size_t)used < n)
    snprintf(buf + used, n - (size_t)used, ", none from the heuristic without workspace: %s", pick->no_ws_note);
}

/* The search, the input sets and the window. */
static void gemm_timing_desc(const gemm_state *st, const gemm_op *o, const gemm_result *r, char *buf, size_t n) {
  const gemm_pick *pick = &r->pick;
  const gb_measure_opts *mo = &r->mo;
  char search_desc[448], sets_desc[64] = "", confirm_desc[160] = "";
  gemm_search_desc(st, pick, search_desc, sizeof search_desc);
  if (st->opts.input_sets && o->sets < st->opts.input_sets)
    snprintf(sets_desc, sizeof sets_desc, " (gemm.input_sets=%d, fewer fit in memory)", st->opts.input_sets);
  else if (st->opts.input_sets)
    snprintf(sets_desc, sizeof sets_desc, " (gemm.input_sets)");
  if (pick->finalists)
    snprintf(confirm_desc, sizeof confirm_desc, "; %d finalists confirmed rested (%d round%s, %d ms idle each)",
             pick->finalists, pick->rounds, pick->rounds == 1 ? "" : "s",
             st->opts.confirm_rest_ms >= 0 ? st->opts.confirm_rest_ms : r->search.confirm_rest_ms);
  gb_snprintf_c(buf, n,
                "fastest of %d timed (%d from the heuristic%s, %d failed)%s, kept %s, ws %zu of %zu B, waves %.2f; "
                "%d input set%s%s, %d product%s per sample; %s window: %d ms idle, %d warm-up product%s, %zu samples "
                "back to back%s",
                pick->timed, pick->returned, search_desc, pick->failed, confirm_desc, pick->source, pick->ws_needed,
                st->workspace_bytes, (double)pick->waves, o->sets, o->sets == 1 ? "" : "s", sets_desc,
                mo->ops_per_sample, mo->ops_per_sample == 1 ? "" : "s", gb_gemm_window_name(st->window),
                st->rest_ms, mo->warmup, mo->warmup == 1 ? "" : "s", r->samples,
                mo->event_pairs ? ", each between two events of its own (gemm.timing=pairs)" : "");
}

/* The case's throughput row. */
static gb_err gemm_add_row(const gemm_state *st, const gb_case *c, const gemm_op *o, const gemm_result *r,
                           const gb_stats *rate, gb_rowset *out) {
  const gb_gemm_prec *p = o->p;
  const gemm_check *chk = &r->chk;
  char algo_desc[256], variant[128], check_desc[384], fp8_desc[700], timing_desc[1280], detail[4096];
  char groups_desc[160] = "", checked_desc[64] = "";
  gemm_describe_algo(&o->algo, o->ws_launch == 0, algo_desc, sizeof algo_desc, variant, sizeof variant);
  if (o->grouped) {
    snprintf(groups_desc, sizeof groups_desc, " grouped: %lld products of %lldx%lldx%lld, one strided-batched call;",
             (long long)o->groups, (long long)o->m, (long long)o->n, (long long)o->k);
    snprintf(checked_desc, sizeof checked_desc, " of each of %s%zu groups",
             chk->groups == (size_t)o->groups ? "all " : "", chk->groups);
  }
  gb_snprintf_c(check_desc, sizeof check_desc, "rel_err=%.3g tol=%.3g over %s%zu rows x %lld cols%s%s%s",
                chk->rel_err, chk->tol, chk->rows == (size_t)o->m ? "all " : "", chk->rows, (long long)o->n,
                checked_desc, chk->note[0] ? "; " : "", chk->note);
  gemm_fp8_desc(st, o, r, fp8_desc, sizeof fp8_desc);
  gemm_timing_desc(st, o, r, timing_desc, sizeof timing_desc);
  snprintf(detail, sizeof detail, "%s%s %s x %s -> %s, %s;%s%s %s; %s; check: %s%s",
           chk->status == GB_STATUS_OK ? "" : "check failed: ", p->compute_name, gemm_operand_name(p, p->a_type),
           gemm_operand_name(p, p->b_type), gb_dtype_name(p->d_type), gb_gemm_layout_label(o->layout), groups_desc,
           st->opts.out_of_place ? " out of place (gemm.out_of_place);" : "", algo_desc, timing_desc, check_desc,
           fp8_desc);
  gb_row row = gb_case_row("gemm", c); /* with the group count of a grouped case */
  row.metric = gb_gemm_metric_in(p, st->window);
  const gb_metric_desc *md = gb_desc_metric("gemm", row.metric); /* the registry's unit, where it has the metric */
  row.unit = md ? md->unit : gb_gemm_unit(p);
  row.value = rate->median;
  row.samples = (int64_t)rate->n;
  row.min = rate->min;
  row.max = rate->max;
  row.stddev = rate->stddev;
  row.status = chk->status;
  row.detail = detail;
  row.variant = variant;
  return gb_rowset_add(out, &row);
}

/* One case: buffers, the algorithm search, the timed window, the check,
 * the row. */
static gb_err gemm_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  gemm_state *st = ctx->state;
  const gb_gemm_prec *p = c->spec;
  const gb_device_info *dev = ctx->dev;
  gb_err err = GB_OK;
  bool grouped = c->groups != GB_NA;
  gemm_op o = {.p = p, .layout = (gb_gemm_layout)c->param[0], .m = c->m, .n = c->n, .k = c->k,
               .groups = grouped ? c->groups : 1, .grouped = grouped, .lt = st->lt, .ws = st->workspace,
               .ws_bytes = st->workspace_bytes, .ws_launch = st->workspace_bytes};
  gb_samples samp = {0};
  gemm_result res, *r = &res;
  char why[320];
  memset(r, 0, sizeof *r);
  if (!gb_gemm_case_runs(c, dev->cc_major, dev->cc_minor, why, sizeof why)) {
    err = gb_fail(GB_E_UNSUPPORTED, "%s", why); /* the runner's row: status unsupported, detail the reason */
    goto done;
  }
  uint64_t set_bytes = 0;
  GB_TRY_GOTO(gemm_op_alloc(st, dev, &o, &set_bytes), err, done);
  GB_TRY_GOTO(gemm_choose(ctx, st, &o, set_bytes, r), err, done);
  GB_TRY_GOTO(gemm_window(ctx, st, &o, r->pick.t_best_s, &r->mo, &samp), err, done);
  gb_stats rate = gb_samples_rate(&samp, gemm_op_flops(&o), 1e12);
  gemm_log_samples(st, &o, r->mo.warmup, &samp);
  r->samples = samp.n;
  GB_TRY_GOTO(gemm_run_check(st, &o, dev, &r->chk), err, done);
  err = gemm_add_row(st, c, &o, r, &rate, out);
done:
  gb_samples_free(&samp);
  gemm_op_free(&o);
  return err;
}

static gb_err gemm_derive(gb_run_ctx *ctx, const gb_row *rows, size_t n, gb_rowset *out) {
  const gemm_state *st = ctx->state;
  bool sustained = st && st->window == GB_GEMM_WINDOW_SUSTAINED;
  gb_gemm_speedup *v = NULL;
  size_t nv = 0;
  GB_TRY(gb_gemm_speedups(rows, n, &v, &nv));
  gb_err err = GB_OK;
  for (size_t i = 0; i < nv && !err; i++) {
    gb_case c = gb_case_init(v[i].case_name, v[i].dtype);
    c.m = v[i].m;
    c.n = v[i].n;
    c.k = v[i].k;
    gb_row r = sustained ? GB_ROW(gemm, speedup_sustained, &c) : GB_ROW(gemm, speedup, &c);
    r.value = v[i].value;
    r.status = GB_STATUS_OK;
    r.detail = v[i].detail;
    err = gb_rowset_add(out, &r);
  }
  free(v);
  return err;
}

static void gemm_summarize(const gb_run_ctx *ctx, const gb_row *rows, size_t n, FILE *fp) {
  (void)ctx;
  fputc('\n', fp);
  gb_gemm_summary_table(rows, n, fp);
}

static void gemm_settings(const gb_run_config *cfg, char *buf, size_t n) {
  gb_gemm_opts o;
  if (gb_gemm_opts_parse(cfg->bench_opts, &o) == GB_OK) {
    gb_gemm_settings(&o, buf, n);
    return;
  }
  gb_errclear(); /* plan() reports it */
  if (n) buf[0] = '\0';
}

const gb_bench gb_bench_gemm = {
    .name = "gemm",
    .summary = "cuBLASLt GEMM per precision (fp64 .. fp8, int8), checked against fp64, with speedup rows",
    .plan = gemm_plan,
    .setup = gemm_setup,
    .run = gemm_run,
    .derive = gemm_derive,
    .summarize = gemm_summarize,
    .teardown = gemm_teardown,
    .settings = gemm_settings,
};

