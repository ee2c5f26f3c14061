/* gemm_internal: what the files of the GEMM benchmark share and nothing
 * outside bench/gemm/ uses: the benchmark's state, one case's cuBLASLt
 * operation, the algorithm search's candidates and outcome, the check's
 * outcome. The pure, tested API is bench_gemm.h.
 *
 * Who does what, from the top down: a file calls only files listed below
 * it (so no two files call each other, and any file can be read with what
 * is below it alone):
 *   gemm_bench.c   the gb_bench glue: plan, setup, run (one case), derive,
 *                  summarize, teardown, settings, and the row's detail
 *   gemm_search.c  the algorithm search: candidates, screening, rested
 *                  confirmation, the one kept
 *   gemm_timing.c  the timing plan, the keep rule and the timed window
 *   gemm_check.c   the result check against the fp64 reference
 *   gemm_op.c      one case's operation: buffers, descriptors, a product,
 *                  the description of an algorithm
 *   gemm_enum.c    gemm.search=extended: configurations enumerated through
 *                  cublasLtMatmulAlgoGetIds and how they are picked
 *   gemm_plan.c    the plan of a campaign's cases, dense and grouped
 *   gemm_grouped.c grouped GEMM: the MoE model table, grouped shapes and
 *                  precisions, grouped cases, the checked groups
 *   gemm_opts.c    --opt gemm.*: the product's keys; gemm_lab_keys.c names
 *                  the lab's (tools/gemm/gemm_lab.c, with -DGB_TOOLS=ON)
 *   gemm_speedups.c  speedup rows and the end-of-run table
 *   gemm_shapes.c  shapes per profile, memory, input sets, checked rows
 *   gemm_precs.c   precisions, layouts, case names, FLOPs
 *   gemm_blockscale.c  the block-scaled precisions' scale tensors
 *   gemm_lab_keys.c    the lab's key names and the logs (stubs by default)
 *   gemm_names.c   cuBLASLt enum names (generated) */
#ifndef GEMM_INTERNAL_H
#define GEMM_INTERNAL_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_gemm.h"
#include "gb_harness.h"
#include "gb_nvrtc.h"

#define GEMM_HEUR_MAX GB_GEMM_CANDIDATES_MAX /* heuristic candidates asked for */
#define GEMM_EXT_BELOW 8                 /* gemm.search=extended: heuristic candidates + enumerated ones, when it
                                          * returns fewer */
#define GEMM_EXT_WIDE 4                  /* gemm.search=extended: enumerated configurations timed beside 8 or
                                          * more heuristic candidates */
#define GEMM_MAX_CHECK_ROWS 256
#define GEMM_AMAX_UNSET -1.0f            /* amax_D before the checked product */
#define GEMM_NOWS_MAX 2 /* candidates of the heuristic asked for with no workspace, timed beside the others */
#define GEMM_CAND_MAX (2 * GEMM_HEUR_MAX + GEMM_NOWS_MAX) /* candidates timed at most: the heuristic's, then the
                                          * enumerated and the variants of its first (gemm.search=extended,
                                          * or variants when it returns fewer than 8), then those without
                                          * workspace */
#define GEMM_SEARCH_REPS_MAX 8            /* timed samples per candidate at most */
#define GEMM_CONFIRM_SAMPLES_MAX 64       /* timed samples per confirmation burst at most */
/* Each fp8 scale and the amax live in their own 256-byte slot (64 floats),
 * aligned as separate allocations would be: cuBLASLt refused every fp8
 * candidate (NOT_SUPPORTED) with the four packed 4 bytes apart. */
#define GEMM_SCALE_SLOT(i) ((i) * 64)

typedef struct gemm_state {
  gb_gemm_opts opts;     /* --opt gemm.* */
  FILE *search_log;      /* gemm.search_log, opened for appending; NULL for none */
  FILE *samples_log;     /* gemm.samples_log, likewise */
  gb_gemm_search search; /* from --opt gemm.search */
  gb_gemm_window window; /* from --opt gemm.window */
  int rest_ms;           /* from --opt gemm.rest_ms */
  cublasLtHandle_t lt;
  cudaStream_t stream;
  void *workspace;
  size_t workspace_bytes; /* gemm.workspace_kib, or 64 MiB */
  gb_module mod;
  bool mod_loaded;
  cudaKernel_t k_scan;
} gemm_state;

/* One case's operation: descriptors, buffers and the chosen algorithm. */
typedef struct gemm_op {
  const gb_gemm_prec *p;
  gb_gemm_layout layout;
  int64_t m, n, k;
  int64_t groups; /* the products of one call: G of a grouped case (a strided batch), 1 for a dense one */
  bool grouped;   /* a grouped case: the layouts carry the batch count and strides, even for G = 1 */
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld; /* cuBLASLt's A' (our B), B' (our A), D (and C, unless lc) */
  cublasLtMatrixLayout_t lc;         /* fp8 output: C, bf16 (cuBLASLt wants a 16-bit C then); else NULL */
  cublasLtMatmulAlgo_t algo;
  void *ws;
  size_t ws_bytes;  /* the workspace allocated, what the heuristic is asked with */
  size_t ws_launch; /* what cublasLtMatmul is given: ws_bytes, or 0 for a candidate asked for without */
  unsigned char *a, *b; /* input sets, set s at a + s * a_stride (G matrices each, back to back) */
  uint64_t a_stride, b_stride;
  int sets;
  void *d;
  uint64_t d_bytes;
  void *c; /* fp8 output: the bf16 C (zeros; beta is 0); else NULL and C is D */
  uint64_t c_bytes;
  float *scales; /* device, fp8 only: scale of A, of B, of D, amax of D, each in its own 256-byte slot */
  bool d_scale;  /* fp8: the D scale pointer is set on the descriptor */
  bool amax;     /* fp8: the amax-of-D pointer is set on the descriptor */
  unsigned char *bs_a, *bs_b; /* block-scaled: the scale tensors of our A and B (one for every input set) */
  unsigned char alpha[8], beta[8];
} gemm_op;

/* What the algorithm search did, for the row's detail. */
typedef struct gemm_pick {
  int returned;        /* candidates the heuristic returned */
  int finalists;       /* candidates confirmed rested (0: no confirmation) */
  int rounds;          /* confirmation rounds */
  int enumerated;      /* enumerated configurations added to the timed list */
  int variants;        /* configurations of the heuristic's first usable candidate added (cluster,
                        * swizzle, custom option) */
  int variant_base;    /* that candidate's rank, from 1 */
  int enum_ids, enum_checks, enum_accepted; /* algo ids tried, AlgoCheck calls, configurations it accepted */
  int no_ws;           /* candidates of the heuristic asked for with no workspace added */
  char no_ws_note[128]; /* why that query added none, when it failed */
  int timed;           /* candidates timed successfully */
  int failed;          /* candidates that would not run */
  double t_best_s;     /* median seconds per product of the one kept */
  size_t ws_needed;
  float waves;
  char source[128];    /* where the kept algorithm came from */
  char enum_note[160]; /* why the enumeration found nothing, when it did not run through */
} gemm_pick;

/* A candidate to time. */
typedef struct gemm_cand {
  cublasLtMatmulAlgo_t algo;
  size_t ws;
  float waves;
  bool enumerated;
  bool variant; /* the heuristic's candidate #index+1 with one configuration knob changed */
  bool no_ws;   /* from the heuristic asked with no workspace, and run with none */
  int index;    /* heuristic, no_ws or variant: the heuristic's rank (0 = first); enumerated: its algo id */
} gemm_cand;

/* What the check found. */
typedef struct gemm_check {
  size_t rows;           /* rows compared per product (all of them when m <= 256) */
  size_t groups;         /* products compared: 1, or the groups of a grouped case checked */
  double rel_err;
  double tol;
  unsigned long long nonfinite;
  double max_abs_out;    /* over all of D */
  double amax_d;         /* fp8: what cuBLASLt wrote (GEMM_AMAX_UNSET: nothing) */
  gb_status status;
  char note[160];        /* why it failed, beyond the error figure */
} gemm_check;

/* ---- gemm_op.c ---- */

/* The operation of a case with its buffers: input sets filled with random
 * values, D, C where it has its own, fp8 scales; no descriptor yet.
 * *set_bytes gets the bytes of one input set. On error what was made is
 * left for gemm_op_free. */
gb_err gemm_op_alloc(const gemm_state *st, const gb_device_info *dev, gemm_op *o, uint64_t *set_bytes);
void gemm_op_free(gemm_op *o);

/* FLOP of one call: 2 m n k, times the groups of a grouped case. */
double gemm_op_flops(const gemm_op *o);

/* Builds the TN or NN descriptor (bench_gemm.h). For fp8 the A and B
 * scale pointers are always set; d_scale adds the D scale pointer, amax the
 * amax-of-D pointer. */
gb_err gemm_op_create_desc(gemm_op *o, bool d_scale, bool amax);
void gemm_op_destroy_desc(gemm_op *o);

/* Makes candidate c the algorithm o runs: its configuration, and the
 * workspace, or none for a candidate asked for without. */
void gemm_op_use(gemm_op *o, const gemm_cand *c);

/* One product on input set iter % sets (a gb_measure launch function). */
gb_err gemm_launch(void *ctx, cudaStream_t s, long iter);

/* "algo=.. tile=.. stages=.. splitk=.. ..." for detail and a short variant;
 * no_ws: it runs without workspace (" workspace=none", "_nows"), which may
 * be another kernel of the same configuration. */
void gemm_describe_algo(const cublasLtMatmulAlgo_t *algo, bool no_ws, char *detail, size_t dn, char *variant,
                        size_t vn);

/* The operand type's name for detail: "fp4e2m1" for an fp4 operand
 * (stored as bytes), else the element type's. */
const char *gemm_operand_name(const gb_gemm_prec *p, gb_dtype t);

/* ---- gemm_search.c ---- */

/* Asks the heuristic for up to 8 candidates and takes the first
 * plan->candidates of them; with gemm.search=extended, adds up to
 * min(8 - returned, plan->candidates) enumerated configurations
 * (gb_gemm_enum_pick) when it returned fewer than 8, else up to
 * min(GEMM_EXT_WIDE, plan->candidates). Unless gemm.search=heuristic,
 * adds those the heuristic gives without workspace. Times each briefly,
 * confirms the finalists rested and keeps the fastest in o->algo
 * (o->ws_launch: whether it runs with the workspace). GB_E_UNSUPPORTED
 * (with the reason) when there is no candidate or none runs. */
gb_err gemm_pick_algo(gemm_op *o, const gemm_state *st, const gb_device_info *dev, const gb_gemm_timing *plan,
                      cudaStream_t s, gemm_pick *out);

/* ---- gemm_enum.c ---- */

/* An enumerated configuration accepted by cublasLtMatmulAlgoCheck. */
typedef struct gemm_enum_list {
  gb_gemm_enum_cand *c;
  cublasLtMatmulAlgo_t *algo;
  size_t *ws;
  size_t n;
} gemm_enum_list;

void gemm_enum_list_free(gemm_enum_list *l);

/* gemm.search=extended: every algo id cublasLtMatmulAlgoGetIds gives for
 * the types, each tile it lists with the deepest stages
 * cublasLtMatmulAlgoCheck accepts for this product and workspace, minus the
 * heuristic's own candidates h. Host calls only, bounded by
 * GEMM_ENUM_MAX_CHECKS. A refusal along the way is noted in pick->enum_note,
 * not an error (the heuristic's candidates remain). */
gb_err gemm_enumerate(gemm_op *o, const gemm_cand *h, int nh, gemm_enum_list *out, gemm_pick *pick);

/* ---- gemm_timing.c ---- */

/* Waits for stream s, then lets the card idle ms milliseconds. */
gb_err gemm_idle(cudaStream_t s, int ms);

/* Times candidate c in one burst: warmup products, then samples samples of
 * ops_per_sample products each; *median gets the median seconds per
 * sample. A candidate that does not run leaves *median NaN and its reason
 * in failure[fn] (the search goes on without it); only a broken CUDA
 * context is an error. */
gb_err gemm_time_algo(gemm_op *o, cudaStream_t s, const gemm_cand *c, int warmup, int samples, int ops_per_sample,
                      double *median, char *failure, size_t fn);

/* The timed window of the kept algorithm: the plan for its time t_best_s
 * (--warmup and --iters where given), the idle first, then the samples;
 * *mo gets the options it ran with. */
gb_err gemm_window(const gb_run_ctx *ctx, const gemm_state *st, gemm_op *o, double t_best_s, gb_measure_opts *mo,
                   gb_samples *samp);

/* ---- gemm_check.c ---- */

/* Poisons D with NaN bytes, runs one call on input set 0 and compares the
 * sampled rows (of the groups gb_gemm_check_groups takes, for a grouped
 * case) with the fp64 reference computed from the same inputs. */
gb_err gemm_run_check(gemm_state *st, gemm_op *o, const gb_device_info *dev, gemm_check *out);

/* ---- the lab's logs (tools/gemm/gemm_lab.c; in a default build, where
 * gemm.search_log and gemm.samples_log cannot be given, no-ops in
 * gemm_lab_keys.c) ---- */

/* Opens gemm.search_log and gemm.samples_log (when given) for appending. */
gb_err gemm_logs_open(gemm_state *st);
void gemm_logs_close(gemm_state *st);

/* gemm.search_log: one CSV line per candidate of this case, its screening
 * and confirmation medians (seconds per product and TFLOP/s or TOP/s) and
 * whether it was kept. */
void gemm_log_search(const gemm_state *st, const gemm_op *o, const gemm_cand *cand, int ncand, const double *screen,
                     const double *conf, int kept);

/* gemm.samples_log: one CSV line per timed sample of the window, in the
 * order taken. */
void gemm_log_samples(const gemm_state *st, const gemm_op *o, int warmup, const gb_samples *samp);

#endif
