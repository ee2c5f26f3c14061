/* bench_gemm: matrix-product throughput per precision through cuBLASLt, with
 * every result checked against an fp64 reference and mixed-precision speedup
 * rows derived at the end of the run.
 *
 * Formula: TFLOP/s (TOP/s for int8) = 2 m n k / seconds per product / 1e12.
 * Layout: D (m x n, row-major) = A (m x k, row-major) * B (n x k, row-major)^T,
 * issued to cuBLASLt as the column-major TN product described in
 * bench/bench_gemm.h; with --opt gemm.layout=nn also (or instead) the NN
 * product with B k x n row-major (cases "<precision>_nn"). Per case: random
 * inputs in the operand type (rotated among several sets when they fit in
 * L2), cuBLASLt's heuristic asked for 8 candidates with a 64 MiB workspace
 * (gemm.workspace_kib changes it; with gemm.search=extended, configurations
 * enumerated through cublasLtMatmulAlgoGetIds added: up to 8 in all, or 4
 * beside 8) and, unless gemm.search=heuristic, its first 2 for no workspace
 * (run with none), the fastest of the timed candidates kept, then warm-up
 * and the median of many products timed with events, then one product on
 * poisoned output checked against kernels/gemm_ref.cu. */
#include "bench_gemm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_bench.h"
#include "gb_cuda.h"
#include "gb_harness.h"
#include "gb_num.h"
#include "gb_nvrtc.h"

/* kernels/gemm_ref.cu decodes elements by these codes */
_Static_assert(GB_DT_F64 == 0 && GB_DT_F32 == 1 && GB_DT_F16 == 2 && GB_DT_BF16 == 3 && GB_DT_F8E4M3 == 4 &&
                   GB_DT_F8E5M2 == 5 && GB_DT_I8 == 6 && GB_DT_I32 == 7,
               "gb_dtype codes changed: update kernels/gemm_ref.cu");

#define GEMM_HEUR_MAX GB_GEMM_CANDIDATES_MAX /* heuristic candidates asked for */
#define GEMM_EXT_BELOW 8                 /* gemm.search=extended: heuristic candidates + enumerated ones, when it
                                          * returns fewer */
#define GEMM_EXT_WIDE 4                  /* gemm.search=extended: enumerated configurations timed beside 8 or
                                          * more heuristic candidates */
_Static_assert(GEMM_EXT_WIDE <= GEMM_EXT_BELOW, "the enumerated picks fit in picked[GEMM_EXT_BELOW]");
#define GEMM_MAX_CHECK_ROWS 256
#define GEMM_AMAX_UNSET -1.0f            /* amax_D before the checked product */
/* gemm.search=extended: bounds on the enumeration (host-side calls only;
 * cublasLtMatmulAlgoCheck runs no kernel) */
#define GEMM_ENUM_MAX_IDS 64             /* algo ids asked of cublasLtMatmulAlgoGetIds */
#define GEMM_ENUM_MAX_CHECKS 4096        /* cublasLtMatmulAlgoCheck calls per case */
#define GEMM_ENUM_MAX_CHECKS_PER_ID 512
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

static bool g_corrupt_output;

void gb_gemm_test_corrupt_output(bool on) { g_corrupt_output = on; }

static int g_heuristic_max; /* 0: GEMM_HEUR_MAX */

void gb_gemm_test_heuristic_max(int n) { g_heuristic_max = n > 0 && n < GEMM_HEUR_MAX ? n : 0; }

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
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld; /* cuBLASLt's A' (our B), B' (our A), D (and C, unless lc) */
  cublasLtMatrixLayout_t lc;         /* fp8 output: C, bf16 (cuBLASLt wants a 16-bit C then); else NULL */
  cublasLtMatmulAlgo_t algo;
  void *ws;
  size_t ws_bytes;  /* the workspace allocated, what the heuristic is asked with */
  size_t ws_launch; /* what cublasLtMatmul is given: ws_bytes, or 0 for a candidate asked for without */
  unsigned char *a, *b; /* input sets, set s at a + s * a_stride */
  uint64_t a_stride, b_stride;
  int sets;
  void *d;
  uint64_t d_bytes;
  void *c; /* fp8 output: the bf16 C (zeros; beta is 0); else NULL and C is D */
  uint64_t c_bytes;
  float *scales; /* device, fp8 only: scale of A, of B, of D, amax of D, each in its own 256-byte slot */
  bool d_scale;  /* fp8: the D scale pointer is set on the descriptor */
  bool amax;     /* fp8: the amax-of-D pointer is set on the descriptor */
  unsigned char alpha[8], beta[8];
} gemm_op;

/* ---- cuBLASLt descriptors ---- */

static void gemm_op_destroy_desc(gemm_op *o) {
  if (o->desc) cublasLtMatmulDescDestroy(o->desc);
  if (o->la) cublasLtMatrixLayoutDestroy(o->la);
  if (o->lb) cublasLtMatrixLayoutDestroy(o->lb);
  if (o->ld) cublasLtMatrixLayoutDestroy(o->ld);
  if (o->lc) cublasLtMatrixLayoutDestroy(o->lc);
  o->desc = NULL;
  o->la = o->lb = o->ld = o->lc = NULL;
}

/* alpha = 1, beta = 0 in the scale type */
static void gemm_scalars(gemm_op *o) {
  memset(o->alpha, 0, sizeof o->alpha);
  memset(o->beta, 0, sizeof o->beta);
  switch (o->p->scale_cuda) {
  case CUDA_R_64F: {
    double one = 1.0;
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  case CUDA_R_16F: {
    uint16_t one = 0x3C00; /* fp16 1.0 */
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  case CUDA_R_32I: {
    int32_t one = 1;
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  default: {
    float one = 1.0f;
    memcpy(o->alpha, &one, sizeof one);
    break;
  }
  }
}

/* Builds the TN or NN descriptor (bench/bench_gemm.h). For fp8 the A and B
 * scale pointers are always set; d_scale adds the D scale pointer, amax the
 * amax-of-D pointer. */
static gb_err gemm_op_create_desc(gemm_op *o, bool d_scale, bool amax) {
  gb_err err = GB_OK;
  const gb_gemm_prec *p = o->p;
  gb_gemm_lt_dims dims = gb_gemm_lt_layout(o->layout, o->m, o->n, o->k);
  cublasOperation_t ta = dims.trans_a, tb = dims.trans_b;
  GB_CUBLAS_GOTO(cublasLtMatmulDescCreate(&o->desc, p->compute, p->scale_cuda), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), err, fail);
  o->d_scale = o->amax = false;
  if (p->fp8) {
    int8_t fast = (int8_t)p->fast_accum;
    const float *sa = &o->scales[GEMM_SCALE_SLOT(1)], *sb = &o->scales[GEMM_SCALE_SLOT(0)]; /* A' is our B, B' our A */
    const float *sd = &o->scales[GEMM_SCALE_SLOT(2)];
    float *am = &o->scales[GEMM_SCALE_SLOT(3)];
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa),
                   err, fail);
    GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb),
                   err, fail);
    if (d_scale) {
      GB_CUBLAS_GOTO(
          cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd), err, fail);
      o->d_scale = true;
    }
    if (amax) {
      GB_CUBLAS_GOTO(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &am, sizeof am),
                     err, fail);
      o->amax = true;
    }
  }
  /* A' = our B, B' = our A, D (gb_gemm_lt_layout has the rows, columns and leading dimensions) */
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->la, p->b_cuda, dims.a_rows, dims.a_cols, dims.lda), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->lb, p->a_cuda, dims.b_rows, dims.b_cols, dims.ldb), err, fail);
  GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->ld, p->d_cuda, dims.d_rows, dims.d_cols, dims.ldd), err, fail);
  if (p->out_fp8)
    GB_CUBLAS_GOTO(cublasLtMatrixLayoutCreate(&o->lc, CUDA_R_16BF, dims.d_rows, dims.d_cols, dims.ldd), err, fail);
  return GB_OK;
fail:
  gemm_op_destroy_desc(o);
  return err;
}

/* One product on input set iter % sets. */
static gb_err gemm_launch(void *ctx, cudaStream_t s, long iter) {
  gemm_op *o = ctx;
  long set = iter % o->sets;
  const void *a = o->a + (uint64_t)set * o->a_stride;
  const void *b = o->b + (uint64_t)set * o->b_stride;
  cublasStatus_t st = cublasLtMatmul(o->lt, o->desc, o->alpha, b, o->la, a, o->lb, o->beta, o->c ? o->c : o->d,
                                     o->lc ? o->lc : o->ld, o->d, o->ld, &o->algo, o->ws_launch ? o->ws : NULL,
                                     o->ws_launch, s);
  if (st != CUBLAS_STATUS_SUCCESS) return gb_cublas_fail((int)st, "cublasLtMatmul", __FILE__, __LINE__);
  return GB_OK;
}

/* ---- algorithm choice ---- */

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

/* Algo id, tile and stages of a configured algorithm (0 where unreadable). */
static void gemm_algo_key(const cublasLtMatmulAlgo_t *algo, int *id, unsigned *tile, unsigned *stages) {
  int32_t i = 0;
  uint32_t t = 0, st = 0;
  size_t w = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &i, sizeof i, &w)) i = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &t, sizeof t, &w)) t = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &st, sizeof st, &w)) st = 0;
  *id = (int)i;
  *tile = t;
  *stages = st;
}

/* The uint32 ids of an array capability (CUBLASLT_ALGO_CAP_TILE_IDS or
 * STAGES_IDS), malloc'd in *ids; none (0) when the algorithm lists none or
 * the read fails. NULL *ids with a positive count never happens. */
static size_t gemm_cap_ids(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoCapAttributes_t attr,
                           uint32_t **ids) {
  size_t need = 0;
  *ids = NULL;
  if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, NULL, 0, &need) != CUBLAS_STATUS_SUCCESS ||
      need < sizeof(uint32_t))
    return 0;
  uint32_t *v = malloc(need);
  size_t got = 0;
  if (!v || cublasLtMatmulAlgoCapGetAttribute(algo, attr, v, need, &got) != CUBLAS_STATUS_SUCCESS) {
    free(v);
    return 0;
  }
  *ids = v;
  return got / sizeof(uint32_t);
}

/* Stages ids sorted deepest first (gb_gemm_stage_depth), so that the first
 * one cublasLtMatmulAlgoCheck accepts for a tile is the one
 * gb_gemm_enum_pick would keep. */
static int gemm_cmp_stages_deepest(const void *a, const void *b) {
  int da = gb_gemm_stage_depth(*(const uint32_t *)a), db = gb_gemm_stage_depth(*(const uint32_t *)b);
  return (db > da) - (db < da);
}

/* An enumerated configuration accepted by cublasLtMatmulAlgoCheck. */
typedef struct gemm_enum_list {
  gb_gemm_enum_cand *c;
  cublasLtMatmulAlgo_t *algo;
  size_t *ws;
  size_t n;
} gemm_enum_list;

static void gemm_enum_list_free(gemm_enum_list *l) {
  free(l->c);
  free(l->algo);
  free(l->ws);
  memset(l, 0, sizeof *l);
}

/* Whether (id, tile, stages) is one of the heuristic's candidates. */
static bool gemm_enum_known(const gemm_cand *h, int nh, int id, unsigned tile, unsigned stages) {
  for (int i = 0; i < nh; i++) {
    int hid;
    unsigned ht, hs;
    gemm_algo_key(&h[i].algo, &hid, &ht, &hs);
    if (hid == id && ht == tile && hs == stages) return true;
  }
  return false;
}

/* gemm.search=extended: every algo id cublasLtMatmulAlgoGetIds gives for
 * the types, each tile it lists with the deepest stages
 * cublasLtMatmulAlgoCheck accepts for this product and workspace, minus the
 * heuristic's own candidates h. Host calls only, bounded by
 * GEMM_ENUM_MAX_CHECKS. A refusal along the way is noted in pick->enum_note,
 * not an error (the heuristic's candidates remain). */
static gb_err gemm_enumerate(gemm_op *o, const gemm_cand *h, int nh, gemm_enum_list *out, gemm_pick *pick) {
  const gb_gemm_prec *p = o->p;
  memset(out, 0, sizeof *out);
  int ids[GEMM_ENUM_MAX_IDS];
  int nids = 0;
  /* cuBLASLt's A is our B, its B our A; C has D's type but for an fp8 output (bf16) */
  cudaDataType_t c_cuda = p->out_fp8 ? CUDA_R_16BF : p->d_cuda;
  cublasStatus_t st = cublasLtMatmulAlgoGetIds(o->lt, p->compute, p->scale_cuda, p->b_cuda, p->a_cuda, c_cuda,
                                               p->d_cuda, GEMM_ENUM_MAX_IDS, ids, &nids);
  if (st != CUBLAS_STATUS_SUCCESS || nids <= 0) {
    snprintf(pick->enum_note, sizeof pick->enum_note, "AlgoGetIds: %s",
             st != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusString(st) : "no algo id");
    return GB_OK;
  }
  out->c = malloc(GEMM_ENUM_MAX_CHECKS * sizeof *out->c);
  out->algo = malloc(GEMM_ENUM_MAX_CHECKS * sizeof *out->algo);
  out->ws = malloc(GEMM_ENUM_MAX_CHECKS * sizeof *out->ws);
  if (!out->c || !out->algo || !out->ws) {
    gemm_enum_list_free(out);
    return gb_fail(GB_E_NOMEM, "gemm: out of host memory enumerating cuBLASLt algorithms");
  }
  for (int i = 0; i < nids && pick->enum_checks < GEMM_ENUM_MAX_CHECKS; i++) {
    cublasLtMatmulAlgo_t algo;
    if (cublasLtMatmulAlgoInit(o->lt, p->compute, p->scale_cuda, p->b_cuda, p->a_cuda, c_cuda, p->d_cuda, ids[i],
                               &algo) != CUBLAS_STATUS_SUCCESS)
      continue;
    pick->enum_ids++;
    uint32_t *tiles = NULL, *stages = NULL;
    uint32_t none = 0; /* an algorithm listing no tiles or stages is tried with "undefined" */
    size_t nt = gemm_cap_ids(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, &tiles);
    size_t ns = gemm_cap_ids(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS, &stages);
    const uint32_t *tl = nt ? tiles : &none, *sl = ns ? stages : &none;
    if (nt == 0) nt = 1;
    if (ns == 0) ns = 1;
    if (stages) qsort(stages, ns, sizeof *stages, gemm_cmp_stages_deepest);
    int id_checks = 0;
    for (size_t t = 0; t < nt && id_checks < GEMM_ENUM_MAX_CHECKS_PER_ID && pick->enum_checks < GEMM_ENUM_MAX_CHECKS;
         t++)
      for (size_t s = 0; s < ns && id_checks < GEMM_ENUM_MAX_CHECKS_PER_ID && pick->enum_checks < GEMM_ENUM_MAX_CHECKS;
           s++) {
        cublasLtMatmulAlgo_t a = algo;
        uint32_t tile = tl[t], stg = sl[s];
        if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile) ||
            cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stg, sizeof stg))
          break; /* this algorithm takes no such configuration: next tile */
        cublasLtMatmulHeuristicResult_t res;
        memset(&res, 0, sizeof res);
        id_checks++;
        pick->enum_checks++;
        if (cublasLtMatmulAlgoCheck(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, &a, &res) !=
                CUBLAS_STATUS_SUCCESS ||
            res.workspaceSize > o->ws_bytes)
          continue;
        pick->enum_accepted++;
        if (!gemm_enum_known(h, nh, ids[i], tile, stg)) {
          out->c[out->n] = (gb_gemm_enum_cand){.algo_id = ids[i], .tile = tile, .stages = stg, .waves = res.wavesCount};
          out->algo[out->n] = a;
          out->ws[out->n] = res.workspaceSize;
          out->n++;
        }
        break; /* the deepest accepted stages of this tile: next tile */
      }
    free(tiles);
    free(stages);
  }
  if (out->n == 0 && !pick->enum_note[0])
    snprintf(pick->enum_note, sizeof pick->enum_note, "AlgoCheck accepted nothing new (%d ids, %d checks)",
             pick->enum_ids, pick->enum_checks);
  return GB_OK;
}

/* gemm.search=extended: the configurations of base (a heuristic candidate)
 * that differ from it in one knob: the cluster shape (the heuristic returns
 * one per tile), CTA swizzling where the algorithm supports it, or its
 * custom option. Each must pass cublasLtMatmulAlgoCheck within the
 * workspace. Appends at most cap of them to out and returns how many. */
static int gemm_config_variants(gemm_op *o, const gemm_cand *base, gemm_cand *out, int cap) {
  static const uint16_t clusters[] = {CUBLASLT_CLUSTER_SHAPE_1x1x1, CUBLASLT_CLUSTER_SHAPE_2x1x1,
                                      CUBLASLT_CLUSTER_SHAPE_1x2x1, CUBLASLT_CLUSTER_SHAPE_2x2x1,
                                      CUBLASLT_CLUSTER_SHAPE_4x1x1, CUBLASLT_CLUSTER_SHAPE_1x4x1};
  enum { KNOB_CLUSTER, KNOB_SWIZZLE, KNOB_CUSTOM };
  uint16_t base_cluster = 0;
  uint32_t base_swizzle = 0, base_custom = 0;
  int32_t swizzle_ok = 0, custom_max = 0;
  size_t w = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&base->algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &base_cluster,
                                           sizeof base_cluster, &w))
    base_cluster = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&base->algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &base_swizzle,
                                           sizeof base_swizzle, &w))
    base_swizzle = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&base->algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &base_custom,
                                           sizeof base_custom, &w))
    base_custom = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&base->algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swizzle_ok,
                                        sizeof swizzle_ok, &w))
    swizzle_ok = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&base->algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &custom_max,
                                        sizeof custom_max, &w))
    custom_max = 0;
  if (swizzle_ok < 0) swizzle_ok = 0;
  if (custom_max < 0) custom_max = 0;
  if (custom_max > 7) custom_max = 7;
  int n = 0;
  for (int knob = KNOB_CLUSTER; knob <= KNOB_CUSTOM; knob++) {
    int count = knob == KNOB_CLUSTER   ? (int)(sizeof clusters / sizeof clusters[0])
                : knob == KNOB_SWIZZLE ? (swizzle_ok ? 2 : 0)
                                       : custom_max + 1;
    for (int v = 0; v < count && n < cap; v++) {
      cublasLtMatmulAlgo_t a = base->algo;
      cublasStatus_t set;
      if (knob == KNOB_CLUSTER) {
        if (clusters[v] == base_cluster) continue;
        set = cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &clusters[v],
                                                   sizeof clusters[v]);
      } else {
        uint32_t val = (uint32_t)v;
        if (val == (knob == KNOB_SWIZZLE ? base_swizzle : base_custom)) continue;
        set = cublasLtMatmulAlgoConfigSetAttribute(
            &a, knob == KNOB_SWIZZLE ? CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING : CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &val,
            sizeof val);
      }
      cublasLtMatmulHeuristicResult_t res;
      memset(&res, 0, sizeof res);
      if (set != CUBLAS_STATUS_SUCCESS ||
          cublasLtMatmulAlgoCheck(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, &a, &res) !=
              CUBLAS_STATUS_SUCCESS ||
          res.workspaceSize > o->ws_bytes)
        continue;
      out[n++] = (gemm_cand){.algo = a, .ws = res.workspaceSize, .waves = res.wavesCount, .variant = true,
                             .index = base->index};
    }
  }
  return n;
}

static void gemm_describe_algo(const cublasLtMatmulAlgo_t *algo, bool no_ws, char *detail, size_t dn,
                               char *variant, size_t vn);

/* A seconds-per-product figure and its rate for the search log; empty
 * fields for a candidate not timed at that stage. */
static void gemm_log_time(char *buf, size_t n, double sec, double flops) {
  if (isfinite(sec) && sec > 0) gb_snprintf_c(buf, n, "%.6e,%.1f", sec, flops / sec / 1e12);
  else snprintf(buf, n, ",");
}

/* gemm.search_log: one CSV line per candidate of this case, its screening
 * and confirmation medians (seconds per product and TFLOP/s or TOP/s) and
 * whether it was kept. The header is written when the file is empty. */
static void gemm_log_search(FILE *fp, const gemm_op *o, const gemm_cand *cand, int ncand, const double *screen,
                            const double *conf, int kept) {
  double flops = gb_gemm_flops(o->m, o->n, o->k);
  char name[64];
  gb_gemm_case_name(o->p, o->layout, name, sizeof name);
  if (ftell(fp) == 0)
    fputs("case,m,n,k,candidate,variant,algo,screen_s,screen_rate,confirm_s,confirm_rate,kept\n", fp);
  for (int i = 0; i < ncand; i++) {
    char desc[256], variant[128], src[32], t1[64], t2[64];
    gemm_describe_algo(&cand[i].algo, cand[i].no_ws || o->ws_bytes == 0, desc, sizeof desc, variant, sizeof variant);
    if (cand[i].enumerated) snprintf(src, sizeof src, "enumerated");
    else if (cand[i].variant) snprintf(src, sizeof src, "variant-of-#%d", cand[i].index + 1);
    else snprintf(src, sizeof src, "heuristic%s#%d", cand[i].no_ws ? "-no-ws" : "", cand[i].index + 1);
    gemm_log_time(t1, sizeof t1, screen[i], flops);
    gemm_log_time(t2, sizeof t2, conf[i], flops);
    fprintf(fp, "%s,%lld,%lld,%lld,%s,%s,\"%s\",%s,%s,%d\n", name, (long long)o->m, (long long)o->n,
            (long long)o->k, src, variant, desc, t1, t2, i == kept);
  }
  fflush(fp);
}

/* gemm.samples_log: one CSV line per timed sample of the window, in the
 * order taken (seconds per product and the rate). The header is written when
 * the file is empty. */
static void gemm_log_samples(FILE *fp, const gemm_op *o, int rest_ms, int warmup, const gb_samples *samp) {
  double flops = gb_gemm_flops(o->m, o->n, o->k);
  char name[64], desc[256], variant[128];
  gb_gemm_case_name(o->p, o->layout, name, sizeof name);
  gemm_describe_algo(&o->algo, o->ws_launch == 0, desc, sizeof desc, variant, sizeof variant);
  if (ftell(fp) == 0) fputs("case,m,n,k,variant,rest_ms,warmup,sample,seconds,rate\n", fp);
  for (size_t i = 0; i < samp->n; i++) {
    char t[64];
    gemm_log_time(t, sizeof t, samp->sec[i], flops);
    fprintf(fp, "%s,%lld,%lld,%lld,%s,%d,%d,%zu,%s\n", name, (long long)o->m, (long long)o->n, (long long)o->k,
            variant, rest_ms, warmup, i, t);
  }
  fflush(fp);
}

/* Waits for stream s, then lets the card idle ms milliseconds. */
static gb_err gemm_idle(cudaStream_t s, int ms) {
  GB_CUDA(cudaStreamSynchronize(s));
  if (ms > 0) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  return GB_OK;
}

/* Times candidate c in one burst: warmup products, then samples samples of
 * ops_per_sample products each; *median gets the median seconds per
 * sample. A candidate that does not run leaves *median NaN and its reason
 * in failure[fn] (the search goes on without it); only a broken CUDA
 * context is an error. */
static gb_err gemm_time_algo(gemm_op *o, cudaStream_t s, const gemm_cand *c, int warmup, int samples,
                             int ops_per_sample, double *median, char *failure, size_t fn) {
  o->algo = c->algo;
  o->ws_launch = c->no_ws ? 0 : o->ws_bytes;
  gb_measure_opts mo = gb_measure_defaults();
  mo.warmup = warmup;
  mo.min_samples = mo.max_samples = samples;
  mo.budget_s = 0;
  mo.ops_per_sample = ops_per_sample;
  mo.back_to_back = true;
  gb_samples samp = {0};
  *median = NAN;
  gb_err e = gb_measure(&mo, s, gemm_launch, o, &samp);
  if (!e) *median = gb_median(samp.sec, samp.n);
  gb_samples_free(&samp);
  if (!e) return GB_OK;
  if (e == GB_E_CUDA && gb_cuda_context_broken()) return e;
  snprintf(failure, fn, "%s", gb_errmsg());
  gb_errclear();
  (void)cudaGetLastError(); /* clear a non-sticky launch error */
  return GB_OK;
}

/* The heuristic's first GEMM_NOWS_MAX candidates (at most cap) for a
 * workspace of 0 bytes, appended to out and run with none, when one of the
 * nheur candidates from the full workspace needs some: their kernels take
 * no per-launch state there. The fp8 cases at 8192^3 on an H200: the same
 * configuration's kernel needs 4 bytes of workspace, a counter cuBLASLt
 * zeroes with a memset before every launch (5.5 us between products);
 * without workspace the heuristic gives it with a static tile scheduler
 * (`ssched`), no memset (3.2 us between) and ~0.5% more TFLOP/s. One that
 * is a candidate from the full workspace needing none already (the same
 * algorithm, byte for byte) is not added twice. Returns how many were
 * appended; a query cuBLASLt refuses adds none, and note says why (the
 * candidates from the full workspace remain). */
static int gemm_add_no_ws(gemm_op *o, const gemm_cand *heur, int nheur, gemm_cand *out, int cap, char *note,
                          size_t note_n) {
  bool needs_ws = false;
  for (int i = 0; i < nheur; i++) needs_ws = needs_ws || heur[i].ws > 0;
  if (!needs_ws || o->ws_bytes == 0 || cap <= 0) return 0;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t res[GEMM_NOWS_MAX];
  uint64_t none = 0;
  int got = 0, n = 0;
  memset(res, 0, sizeof res);
  cublasStatus_t st = cublasLtMatmulPreferenceCreate(&pref);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &none, sizeof none);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, pref,
                                        GEMM_NOWS_MAX, res, &got);
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS) {
    snprintf(note, note_n, "%s", cublasLtGetStatusString(st));
    return 0;
  }
  for (int i = 0; i < got && n < cap; i++) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS || res[i].workspaceSize != 0) continue;
    bool known = false;
    for (int j = 0; j < nheur; j++)
      known = known || (heur[j].ws == 0 && memcmp(&heur[j].algo, &res[i].algo, sizeof res[i].algo) == 0);
    if (!known)
      out[n++] = (gemm_cand){.algo = res[i].algo, .ws = 0, .waves = res[i].wavesCount, .no_ws = true, .index = i};
  }
  return n;
}

/* Asks the heuristic for up to 8 candidates and takes the first
 * plan->candidates of them; with gemm.search=extended, adds up to
 * min(8 - returned, plan->candidates) enumerated configurations
 * (gb_gemm_enum_pick) when it returned fewer than 8, else up to
 * min(GEMM_EXT_WIDE, plan->candidates). Unless gemm.search=heuristic,
 * adds those the heuristic gives without workspace (gemm_add_no_ws). Times
 * each briefly and keeps the fastest in o->algo (o->ws_launch: whether it
 * runs with the workspace). GB_E_UNSUPPORTED (with the reason) when there is no
 * candidate or none runs. */
static gb_err gemm_pick_algo(gemm_op *o, const gemm_state *st, const gb_device_info *dev,
                             const gb_gemm_timing *plan, cudaStream_t s, gemm_pick *out) {
  gb_gemm_search search = st->search;
  int want_cand = st->opts.candidates > 0 ? st->opts.candidates : plan->candidates;
  gb_err err = GB_OK;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t res[GEMM_HEUR_MAX];
  gemm_cand cand[GEMM_CAND_MAX];
  gemm_enum_list en = {0};
  int got = 0, ncand = 0;
  uint64_t ws = o->ws_bytes;
  memset(out, 0, sizeof *out);
  memset(res, 0, sizeof res);
  GB_CUBLAS_GOTO(cublasLtMatmulPreferenceCreate(&pref), err, done);
  GB_CUBLAS_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                 err, done);
  cublasStatus_t hs =
      cublasLtMatmulAlgoGetHeuristic(o->lt, o->desc, o->la, o->lb, o->lc ? o->lc : o->ld, o->ld, pref,
                                     g_heuristic_max ? g_heuristic_max : GEMM_HEUR_MAX, res, &got);
  if (hs != CUBLAS_STATUS_SUCCESS) got = 0;
  out->returned = got;
  int only = st->opts.candidate; /* gemm.candidate: the heuristic's #only alone */
  for (int i = 0; i < got && (only ? i < only : i < want_cand); i++)
    if (res[i].state == CUBLAS_STATUS_SUCCESS && (!only || i == only - 1))
      cand[ncand++] = (gemm_cand){.algo = res[i].algo, .ws = res[i].workspaceSize, .waves = res[i].wavesCount,
                                  .index = i};
  int nheur = ncand;
  if (search == GB_GEMM_SEARCH_EXTENDED && !only) {
    GB_TRY_GOTO(gemm_enumerate(o, cand, nheur, &en, out), err, done);
    /* fill up to 8 with enumerated configurations; beside a full list, a
     * few more (fp8 slow accumulation at 8192^3: the heuristic returns 8,
     * all of one algo id; the enumeration reaches tiles it leaves out) */
    size_t want = (size_t)(got < GEMM_EXT_BELOW ? GEMM_EXT_BELOW - got : GEMM_EXT_WIDE);
    if (want > (size_t)want_cand) want = (size_t)want_cand;
    size_t picked[GEMM_EXT_BELOW];
    size_t np = gb_gemm_enum_pick(en.c, en.n, want, picked);
    for (size_t i = 0; i < np && ncand < GEMM_CAND_MAX; i++) {
      size_t j = picked[i];
      cand[ncand++] = (gemm_cand){.algo = en.algo[j], .ws = en.ws[j], .waves = en.c[j].waves, .enumerated = true,
                                  .index = en.c[j].algo_id};
      out->enumerated++;
    }
    if (np == 0 && en.n > 0 && !out->enum_note[0])
      snprintf(out->enum_note, sizeof out->enum_note, "none of %zu new configurations scored (tile or waves unknown)",
               en.n);
  }
  /* one-knob configurations of the heuristic's first usable candidate: all
   * of them (extended), or (variants, the default) as many as fill the
   * plan's candidate count when the heuristic returned fewer than 8 (tf32
   * at 8192^3 on an H200: 1 returned; its #1 with a 2x1 cluster ran 2%
   * faster than with the 1x2 the heuristic gives); extended leaves room for
   * gemm_add_no_ws's candidates */
  int variant_cap = 0; /* want_cand <= GB_GEMM_CANDIDATES_MAX < GEMM_CAND_MAX: both fit in cand[] */
  if (search == GB_GEMM_SEARCH_EXTENDED) variant_cap = GEMM_CAND_MAX - GEMM_NOWS_MAX - ncand;
  else if (search == GB_GEMM_SEARCH_VARIANTS && got < GEMM_EXT_BELOW) variant_cap = want_cand - ncand;
  if (variant_cap > 0 && !only && nheur > 0) {
    out->variants = gemm_config_variants(o, &cand[0], cand + ncand, variant_cap);
    out->variant_base = cand[0].index + 1;
    ncand += out->variants;
  }
  if (search != GB_GEMM_SEARCH_HEURISTIC && !only)
    out->no_ws = gemm_add_no_ws(o, cand, nheur, cand + ncand, GEMM_CAND_MAX - ncand, out->no_ws_note,
                                sizeof out->no_ws_note);
  ncand += out->no_ws;
  if (ncand == 0) {
    err = gb_fail(GB_E_UNSUPPORTED,
                  "%s: cuBLASLt has no algorithm for %s (A %s, B %s, D %s, %s) at %lldx%lldx%lld on sm_%d%d: %s%s%s",
                  o->p->name, o->p->compute_name, gb_dtype_name(o->p->a_type), gb_dtype_name(o->p->b_type),
                  gb_dtype_name(o->p->d_type), gb_gemm_layout_label(o->layout), (long long)o->m, (long long)o->n,
                  (long long)o->k, dev->cc_major, dev->cc_minor,
                  hs != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusString(hs)
                  : only && got > 0           ? (only > got ? "gemm.candidate asked for more than the heuristic returned"
                                                            : "gemm.candidate's candidate was marked unusable")
                  : got > 0                   ? "every heuristic candidate was marked unusable"
                                              : "the heuristic returned no candidate",
                  out->enum_note[0] ? "; enumeration: " : "", out->enum_note);
    goto done;
  }
  /* Every candidate is warmed and timed once, then the others' samples are
   * taken round-robin, one per candidate per round: the clock drift of the
   * search (the power cap coming on as the card heats) then hits every
   * candidate alike, not the later ones. */
  int best = -1;
  double best_t = INFINITY;
  char last_failure[512] = "";
  int reps = plan->search_reps < 1 ? 1 : plan->search_reps > GEMM_SEARCH_REPS_MAX ? GEMM_SEARCH_REPS_MAX
                                                                                   : plan->search_reps;
  double sec[GEMM_CAND_MAX][GEMM_SEARCH_REPS_MAX] = {{0}};
  bool live[GEMM_CAND_MAX] = {false};
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < ncand; i++) {
      if (r > 0 && !live[i]) continue;
      GB_TRY_GOTO(gemm_time_algo(o, s, &cand[i], r == 0 ? 1 : 0, 1, plan->ops_per_sample, &sec[i][r],
                                 last_failure, sizeof last_failure),
                  err, done);
      if (isnan(sec[i][r])) {
        live[i] = false;
        out->failed++;
        continue;
      }
      if (r == 0) live[i] = true;
    }
  double med[GEMM_CAND_MAX];
  int first_ws = -1, first_no_ws = -1;
  for (int i = 0; i < ncand; i++) {
    med[i] = live[i] ? gb_median(sec[i], (size_t)reps) : NAN;
    if (live[i]) out->timed++;
    if (!cand[i].enumerated && !cand[i].variant && cand[i].index == 0) {
      if (cand[i].no_ws) first_no_ws = i;
      else first_ws = i;
    }
  }
  int first = gb_gemm_first_of(med, first_ws, first_no_ws);
  /* the rested confirmation: the finalists of the screening, each timed
   * in short bursts after an idle, as the window will time the one kept
   * (the screening ranks them on a card the search itself heats) */
  double conf[GEMM_CAND_MAX];
  for (int i = 0; i < ncand; i++) conf[i] = NAN;
  int fin[GB_GEMM_FINALISTS_MAX];
  int maxfin = st->opts.finalists > 0 ? st->opts.finalists : GB_GEMM_FINALISTS_DEFAULT;
  int nfin = gb_gemm_finalists(med, ncand, first, maxfin, fin);
  int rounds = st->opts.confirm_rounds >= 0 ? st->opts.confirm_rounds : plan->confirm_rounds;
  int rest_ms = st->opts.confirm_rest_ms >= 0 ? st->opts.confirm_rest_ms : plan->confirm_rest_ms;
  if (nfin >= 2 && rounds > 0) {
    double cs[GB_GEMM_FINALISTS_MAX][GB_GEMM_CONFIRM_MAX];
    int samples = plan->confirm_samples < 1                          ? 1
                  : plan->confirm_samples > GEMM_CONFIRM_SAMPLES_MAX ? GEMM_CONFIRM_SAMPLES_MAX
                                                                     : plan->confirm_samples;
    bool fok[GB_GEMM_FINALISTS_MAX];
    for (int j = 0; j < nfin; j++) fok[j] = true;
    for (int r = 0; r < rounds; r++)
      for (int jj = 0; jj < nfin; jj++) {
        int j = (jj + r) % nfin; /* each round starts with the next finalist */
        if (!fok[j]) continue;
        GB_TRY_GOTO(gemm_idle(s, rest_ms), err, done);
        GB_TRY_GOTO(gemm_time_algo(o, s, &cand[fin[j]], plan->confirm_warmup, samples, plan->ops_per_sample,
                                   &cs[j][r], last_failure, sizeof last_failure),
                    err, done);
        if (isnan(cs[j][r])) fok[j] = false;
      }
    for (int j = 0; j < nfin; j++)
      if (fok[j]) conf[fin[j]] = gb_median(cs[j], (size_t)rounds);
    out->finalists = nfin;
    out->rounds = rounds;
    best = gb_gemm_keep(conf, ncand, gb_gemm_first_of(conf, first_ws, first_no_ws));
  }
  if (best < 0) best = gb_gemm_keep(med, ncand, first); /* no confirmation, or every finalist failed it */
  const double *decided = out->finalists && isfinite(conf[best < 0 ? 0 : best]) ? conf : med;
  if (best >= 0) best_t = decided[best];
  if (st->search_log) gemm_log_search(st->search_log, o, cand, ncand, med, conf, best);
  if (best < 0) {
    err = gb_fail(GB_E_UNSUPPORTED, "%s: none of the %d cuBLASLt candidates ran at %lldx%lldx%lld (%s): %s",
                  o->p->name, ncand, (long long)o->m, (long long)o->n, (long long)o->k,
                  gb_gemm_layout_label(o->layout), last_failure[0] ? last_failure : "no reason given");
    goto done;
  }
  o->algo = cand[best].algo;
  o->ws_launch = cand[best].no_ws ? 0 : o->ws_bytes;
  out->t_best_s = best_t;
  out->ws_needed = cand[best].ws;
  out->waves = cand[best].waves;
  if (cand[best].enumerated)
    snprintf(out->source, sizeof out->source, "enumerated via AlgoGetIds (algo id %d)", cand[best].index);
  else if (cand[best].variant)
    snprintf(out->source, sizeof out->source, "a configuration of the heuristic's #%d", cand[best].index + 1);
  else {
    bool beaten = false;
    for (int i = 0; i < ncand; i++)
      if (isfinite(decided[i]) && decided[i] < best_t) beaten = true;
    snprintf(out->source, sizeof out->source, "the heuristic's #%d%s%s", cand[best].index + 1,
             cand[best].no_ws ? " without workspace" : "",
             only      ? " (gemm.candidate)"
             : beaten ? " (another was faster in the search, by 1% or less)"
                      : "");
  }
done:
  gemm_enum_list_free(&en);
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  return err;
}

/* "algo=.. tile=.. stages=.. splitk=.. ..." for detail and a short variant;
 * no_ws: it runs without workspace (" workspace=none", "_nows"), which may
 * be another kernel of the same configuration. */
static void gemm_describe_algo(const cublasLtMatmulAlgo_t *algo, bool no_ws, char *detail, size_t dn,
                               char *variant, size_t vn) {
  int32_t id = -1, splitk = -1;
  uint32_t tile = 0, stages = 0, reduction = 0, swizzle = 0;
  uint16_t cluster = 0;
  size_t w = 0;
  /* a read that fails leaves the field at its "unknown" value */
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w)) id = -1;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w)) tile = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w))
    stages = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w))
    splitk = -1;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction,
                                           sizeof reduction, &w))
    reduction = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &w))
    swizzle = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster,
                                           &w))
    cluster = 0;
  uint32_t custom = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom, &w))
    custom = 0;
  char tb[24], sb[24], cb[24];
  const char *tn = gb_gemm_tile_name(tile, tb, sizeof tb);
  const char *sn = gb_gemm_stages_name(stages, sb, sizeof sb);
  const char *cn = gb_gemm_cluster_name(cluster, cb, sizeof cb);
  snprintf(detail, dn, "algo=%d tile=%s stages=%s splitk=%d reduction=%u swizzle=%u cluster=%s custom=%u%s", (int)id,
           tn, sn, (int)splitk, (unsigned)reduction, (unsigned)swizzle, cn, (unsigned)custom,
           no_ws ? " workspace=none" : "");
  /* swizzle and custom option only where set, so that the variants of the
   * runs before them keep their names */
  char extra[40] = "";
  int used = swizzle ? snprintf(extra, sizeof extra, "_swizzle%u", (unsigned)swizzle) : 0;
  if (custom) used += snprintf(extra + used, sizeof extra - (size_t)used, "_custom%u", (unsigned)custom);
  if (no_ws && used >= 0 && (size_t)used < sizeof extra) snprintf(extra + used, sizeof extra - (size_t)used, "_nows");
  snprintf(variant, vn, "tile%s_stages%s_splitk%d_cluster%s%s", tn, sn, (int)splitk, cn, extra);
}

/* ---- the check ---- */

typedef struct gemm_check {
  size_t rows;           /* rows compared (all of them when m <= 256) */
  double rel_err;
  double tol;
  unsigned long long nonfinite;
  double max_abs_out;    /* over all of D */
  double amax_d;         /* fp8: what cuBLASLt wrote (GEMM_AMAX_UNSET: nothing) */
  gb_status status;
  char note[160];        /* why it failed, beyond the error figure */
} gemm_check;

/* Poisons D with NaN bytes, runs one product on input set 0 and compares the
 * sampled rows with the fp64 reference computed from the same inputs. */
static gb_err gemm_run_check(gemm_state *st, gemm_op *o, const gb_device_info *dev, gemm_check *out) {
  gb_err err = GB_OK;
  cudaStream_t s = st->stream;
  const gb_gemm_prec *p = o->p;
  int64_t rows[GEMM_MAX_CHECK_ROWS];
  size_t nrows = gb_gemm_sample_rows(o->m, rows, GEMM_MAX_CHECK_ROWS);
  size_t nvals = nrows * (size_t)o->n;
  long long *d_rows = NULL;
  double *d_ref = NULL, *d_got = NULL, *h_ref = NULL, *h_got = NULL;
  unsigned long long *d_scan = NULL; /* [0] non-finite count, [1] low word: absmax fp32 bits */
  unsigned long long h_scan[2] = {0, 0};
  long long h_rows[GEMM_MAX_CHECK_ROWS];
  memset(out, 0, sizeof *out);
  out->rows = nrows;
  out->amax_d = GEMM_AMAX_UNSET;
  for (size_t i = 0; i < nrows; i++) h_rows[i] = (long long)rows[i];

  char kname[64];
  snprintf(kname, sizeof kname, "gemm_ref_%s_%s", gb_dtype_name(p->a_type), gb_dtype_name(p->b_type));
  cudaKernel_t k_ref;
  GB_TRY_GOTO(gb_module_kernel(&st->mod, kname, &k_ref), err, done);

  GB_CUDA_GOTO(cudaMalloc((void **)&d_rows, nrows * sizeof *d_rows), err, done);
  GB_CUDA_GOTO(cudaMalloc((void **)&d_ref, nvals * sizeof *d_ref), err, done);
  GB_CUDA_GOTO(cudaMalloc((void **)&d_got, nvals * sizeof *d_got), err, done);
  GB_CUDA_GOTO(cudaMalloc((void **)&d_scan, sizeof h_scan), err, done);
  h_ref = malloc(nvals * sizeof *h_ref);
  h_got = malloc(nvals * sizeof *h_got);
  if (!h_ref || !h_got) {
    err = gb_fail(GB_E_NOMEM, "gemm check: out of host memory for %zu reference values", nvals);
    goto done;
  }
  GB_CUDA_GOTO(cudaMemcpyAsync(d_rows, h_rows, nrows * sizeof *d_rows, cudaMemcpyHostToDevice, s), err, done);
  GB_CUDA_GOTO(cudaMemsetAsync(d_scan, 0, sizeof h_scan, s), err, done);
  if (p->fp8) {
    float unset = GEMM_AMAX_UNSET;
    GB_CUDA_GOTO(cudaMemcpyAsync(&o->scales[GEMM_SCALE_SLOT(3)], &unset, sizeof unset, cudaMemcpyHostToDevice, s), err, done);
  }
  GB_CUDA_GOTO(cudaMemsetAsync(o->d, 0xFF, o->d_bytes, s), err, done); /* NaN in every float format */
  GB_TRY_GOTO(gemm_launch(o, s, 0), err, done);
  if (g_corrupt_output) GB_CUDA_GOTO(cudaMemsetAsync(o->d, 0x3F, o->d_bytes, s), err, done);

  {
    double scale = p->scale_a * p->scale_b * gb_gemm_scale_d(p); /* D = scale_D * scale_A * scale_B * A.B */
    int d_type = (int)p->d_type;
    long long n = o->n, k = o->k;
    int nr = (int)nrows;
    int b_nmajor = o->layout == GB_GEMM_NN; /* B is k x n row-major */
    void *args[] = {&o->a, &o->b, &o->d, &d_type, &d_rows, &nr, &n, &k, &scale, &d_ref, &d_got, &b_nmajor};
    gb_gemm_ref_grid g = gb_gemm_ref_launch(o->layout, o->n, nrows);
    GB_CUDA_GOTO(cudaLaunchKernel((const void *)k_ref, gb_dim3(g.gx, g.gy, 1), gb_dim1(g.block), args, 0, s), err,
                 done);
    GB_CUDA_GOTO(cudaGetLastError(), err, done);
  }
  {
    unsigned long long count = (unsigned long long)o->m * (unsigned long long)o->n;
    int d_type = (int)p->d_type;
    unsigned long long *nonfinite = &d_scan[0];
    unsigned int *absmax = (unsigned int *)&d_scan[1];
    void *args[] = {&o->d, &d_type, &count, &nonfinite, &absmax};
    unsigned grid = (unsigned)(dev->sm_count > 0 ? dev->sm_count * 4 : 128);
    GB_CUDA_GOTO(cudaLaunchKernel((const void *)st->k_scan, gb_dim1(grid), gb_dim1(256), args, 0, s), err, done);
    GB_CUDA_GOTO(cudaGetLastError(), err, done);
  }
  GB_CUDA_GOTO(cudaMemcpyAsync(h_ref, d_ref, nvals * sizeof *h_ref, cudaMemcpyDeviceToHost, s), err, done);
  GB_CUDA_GOTO(cudaMemcpyAsync(h_got, d_got, nvals * sizeof *h_got, cudaMemcpyDeviceToHost, s), err, done);
  GB_CUDA_GOTO(cudaMemcpyAsync(h_scan, d_scan, sizeof h_scan, cudaMemcpyDeviceToHost, s), err, done);
  float amax = GEMM_AMAX_UNSET;
  if (p->fp8)
    GB_CUDA_GOTO(cudaMemcpyAsync(&amax, &o->scales[GEMM_SCALE_SLOT(3)], sizeof amax, cudaMemcpyDeviceToHost, s), err, done);
  GB_CUDA_GOTO(cudaStreamSynchronize(s), err, done);

  out->rel_err = gb_gemm_rel_error(h_got, h_ref, nvals);
  out->tol = gb_gemm_tolerance(p, o->k);
  out->nonfinite = h_scan[0];
  {
    uint32_t bits = (uint32_t)(h_scan[1] & 0xFFFFFFFFu); /* little-endian: the word atomicMax wrote */
    float f;
    memcpy(&f, &bits, sizeof f);
    out->max_abs_out = f;
  }
  out->amax_d = amax;
  out->status = gb_gemm_check_decide(p, o->k, out->rel_err, out->nonfinite);
  if (out->nonfinite)
    snprintf(out->note, sizeof out->note, "%llu of %lld outputs NaN or infinite (unwritten or overflowed)",
             out->nonfinite, (long long)(o->m * o->n));
  if (p->fp8 && o->amax && amax != GEMM_AMAX_UNSET &&
      !gb_gemm_amax_agrees(amax, out->max_abs_out, gb_gemm_scale_d(p), p->out_fp8)) {
    out->status = GB_STATUS_INVALID;
    gb_snprintf_c(out->note, sizeof out->note, "amax_D %.6g disagrees with max|D| %.6g", (double)amax,
                  out->max_abs_out);
  }
done:
  free(h_ref);
  free(h_got);
  if (d_rows) cudaFree(d_rows);
  if (d_ref) cudaFree(d_ref);
  if (d_got) cudaFree(d_got);
  if (d_scan) cudaFree(d_scan);
  return err;
}

/* ---- the benchmark ---- */

gb_case gb_gemm_make_case(const gb_gemm_prec *p, gb_gemm_layout l, int64_t m, int64_t n, int64_t k) {
  char name[64];
  gb_case c = gb_case_init(gb_gemm_case_name(p, l, name, sizeof name), p->dtype);
  c.m = m;
  c.n = n;
  c.k = k;
  c.param[0] = (long)l;
  c.spec = p;
  return c;
}

static gb_err gemm_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  gb_gemm_opts opts;
  GB_TRY(gb_gemm_opts_parse(ctx->cfg->bench_opts, &opts));
  size_t nshapes = opts.nshapes ? opts.nshapes : gb_gemm_shapes(ctx->cfg->profile, NULL, 0);
  gb_gemm_shape *shapes = malloc(nshapes * sizeof *shapes);
  if (!shapes) return gb_fail(GB_E_NOMEM, "gemm: out of memory planning cases");
  if (opts.nshapes)
    memcpy(shapes, opts.shapes, nshapes * sizeof *shapes);
  else
    gb_gemm_shapes(ctx->cfg->profile, shapes, nshapes);
  size_t np;
  const gb_gemm_prec *precs = gb_gemm_precs(&np);
  gb_err err = GB_OK;
  int cc_major = ctx->dev ? ctx->dev->cc_major : -1, cc_minor = ctx->dev ? ctx->dev->cc_minor : 0;
  /* shape-major, so the precisions of one shape run close together in time,
   * and a precision's layouts one after the other */
  for (size_t s = 0; s < nshapes && !err; s++)
    for (size_t i = 0; i < np && !err; i++)
      for (int l = 0; l < GB_GEMM_NLAYOUTS && !err; l++) {
        if (!gb_gemm_plan_wants(&opts, &precs[i], (gb_gemm_layout)l, cc_major, cc_minor)) continue;
        gb_case c = gb_gemm_make_case(&precs[i], (gb_gemm_layout)l, shapes[s].m, shapes[s].n, shapes[s].k);
        err = gb_case_list_add(out, &c);
      }
  free(shapes);
  return err;
}

static void gemm_teardown(gb_run_ctx *ctx) {
  gemm_state *st = ctx->state;
  if (!st) return;
  if (st->workspace) cudaFree(st->workspace);
  if (st->stream) cudaStreamDestroy(st->stream);
  if (st->lt) cublasLtDestroy(st->lt);
  if (st->mod_loaded) gb_module_unload(&st->mod);
  if (st->search_log) fclose(st->search_log);
  if (st->samples_log) fclose(st->samples_log);
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
  const char *logs[2] = {opts.search_log, opts.samples_log};
  FILE **fps[2] = {&st->search_log, &st->samples_log};
  for (int i = 0; i < 2; i++) {
    if (!logs[i][0]) continue;
    *fps[i] = fopen(logs[i], "a");
    if (*fps[i]) fseek(*fps[i], 0, SEEK_END); /* so that ftell says whether the header is written */
    if (!*fps[i]) {
      err = gb_fail(GB_E_IO, "--opt gemm.%s: cannot open %s for appending: %s", i ? "samples_log" : "search_log",
                    logs[i], strerror(errno));
      goto fail;
    }
  }
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

/* A seed per case and input set, so every case checks fresh data (a TN
 * case keeps the seeds it had before layouts existed). */
static uint64_t gemm_seed(const gb_gemm_prec *p, gb_gemm_layout l, int64_t m, int64_t n, int64_t k, int set,
                          int operand) {
  uint64_t h = 0x243F6A8885A308D3ull;
  for (const char *c = p->name; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001B3ull;
  if (l == GB_GEMM_NN) h = (h ^ 0x4E4E) * 0x100000001B3ull; /* "NN" */
  h ^= (uint64_t)m * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)n * 0xC2B2AE3D27D4EB4Full;
  h ^= (uint64_t)k * 0x165667B19E3779F9ull;
  return h + (uint64_t)set * 2 + (uint64_t)operand;
}

static gb_err gemm_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  gemm_state *st = ctx->state;
  const gb_gemm_prec *p = c->spec;
  const gb_device_info *dev = ctx->dev;
  cudaStream_t s = st->stream;
  gb_err err = GB_OK;
  gemm_op o = {.p = p, .layout = (gb_gemm_layout)c->param[0], .m = c->m, .n = c->n, .k = c->k, .lt = st->lt,
               .ws = st->workspace, .ws_bytes = st->workspace_bytes, .ws_launch = st->workspace_bytes};
  gb_samples samp = {0};
  char why[256];
  if (!gb_gemm_supported(p, dev->cc_major, dev->cc_minor, why, sizeof why))
    return gb_fail(GB_E_UNSUPPORTED, "%s", why);
  if (!gb_gemm_layout_supported(p, o.layout, dev->cc_major, dev->cc_minor, why, sizeof why))
    return gb_fail(GB_E_UNSUPPORTED, "%s", why);

  /* memory: the input sets, D, the check's reference rows, a margin */
  uint64_t set_bytes = gb_gemm_input_bytes(p, o.m, o.n, o.k);
  o.d_bytes = gb_gemm_output_bytes(p, o.m, o.n);
  o.c_bytes = p->out_fp8 ? (uint64_t)o.m * (uint64_t)o.n * 2u : st->opts.out_of_place ? o.d_bytes : 0;
  uint64_t check_bytes = 2ull * (o.m <= GEMM_MAX_CHECK_ROWS ? (uint64_t)o.m : 128u) * (uint64_t)o.n * 8u;
  size_t free_b = 0, total_b = 0;
  GB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  uint64_t margin = 256ull << 20;
  uint64_t fixed = o.d_bytes + o.c_bytes + check_bytes + margin;
  if (fixed + set_bytes > free_b)
    return gb_fail(GB_E_OOM, "%s at %lldx%lldx%lld needs %.2f GiB of device memory; %.2f GiB free", p->name,
                   (long long)o.m, (long long)o.n, (long long)o.k, (double)(fixed + set_bytes) / (1ull << 30),
                   (double)free_b / (1ull << 30));
  o.sets = gb_gemm_input_sets_for(st->opts.input_sets, set_bytes, (uint64_t)dev->l2_bytes, (free_b - fixed) / 2);
  o.a_stride = gb_gemm_input_bytes(p, o.m, 0, o.k);
  o.b_stride = gb_gemm_input_bytes(p, 0, o.n, o.k);
  gemm_scalars(&o);

  GB_CUDA_GOTO(cudaMalloc((void **)&o.a, o.a_stride * (uint64_t)o.sets), err, done);
  GB_CUDA_GOTO(cudaMalloc((void **)&o.b, o.b_stride * (uint64_t)o.sets), err, done);
  GB_CUDA_GOTO(cudaMalloc(&o.d, o.d_bytes), err, done);
  if (o.c_bytes) {
    GB_CUDA_GOTO(cudaMalloc(&o.c, o.c_bytes), err, done);
    GB_CUDA_GOTO(cudaMemsetAsync(o.c, 0, o.c_bytes, s), err, done);
  }
  for (int set = 0; set < o.sets; set++) {
    GB_TRY_GOTO(gb_fill_random(o.a + (uint64_t)set * o.a_stride, (size_t)(o.m * o.k), p->a_type, p->a_lo, p->a_hi,
                               gemm_seed(p, o.layout, o.m, o.n, o.k, set, 0), s),
                err, done);
    GB_TRY_GOTO(gb_fill_random(o.b + (uint64_t)set * o.b_stride, (size_t)(o.n * o.k), p->b_type, p->b_lo, p->b_hi,
                               gemm_seed(p, o.layout, o.m, o.n, o.k, set, 1), s),
                err, done);
  }
  if (p->fp8) {
    /* scale of A, of B, of D (1 for a bf16 output: the reference then holds
     * whatever cuBLASLt does with a D scale there), amax of D */
    float h_scales[GEMM_SCALE_SLOT(4)] = {0};
    h_scales[GEMM_SCALE_SLOT(0)] = (float)p->scale_a;
    h_scales[GEMM_SCALE_SLOT(1)] = (float)p->scale_b;
    h_scales[GEMM_SCALE_SLOT(2)] = (float)gb_gemm_scale_d(p);
    h_scales[GEMM_SCALE_SLOT(3)] = GEMM_AMAX_UNSET;
    GB_CUDA_GOTO(cudaMalloc((void **)&o.scales, sizeof h_scales), err, done);
    GB_CUDA_GOTO(cudaMemcpyAsync(o.scales, h_scales, sizeof h_scales, cudaMemcpyHostToDevice, s), err, done);
  }
  GB_CUDA_GOTO(cudaStreamSynchronize(s), err, done);

  /* algorithm choice: timing plan from an estimate (FLOPs over a typical
   * rate, or bytes over ~3 TB/s for skinny shapes, whichever is longer) */
  double flops = gb_gemm_flops(o.m, o.n, o.k);
  double t_est = fmax(flops / (p->est_tflops * 1e12), (double)(set_bytes + o.d_bytes) / 3e12);
  gb_gemm_timing search = gb_gemm_timing_plan(ctx->cfg->profile, st->window, t_est);
  gemm_pick pick;
  char scale_note[400] = "";
  /* fp8: the D scale and amax-of-D pointers as well, when cuBLASLt takes
   * them with this output type; else amax alone; else A and B scales only
   * (each refusal is noted in detail) */
  static const bool fp8_tries[][2] = {{true, true}, {false, true}, {false, false}};
  static const bool fp8_tries_no_amax[][2] = {{true, false}, {false, false}}; /* gemm.fp8_amax=off */
  const bool(*tries)[2] = st->opts.fp8_no_amax ? fp8_tries_no_amax : fp8_tries;
  int ntries = !p->fp8              ? 1
               : st->opts.fp8_no_amax ? (int)(sizeof fp8_tries_no_amax / sizeof fp8_tries_no_amax[0])
                                    : (int)(sizeof fp8_tries / sizeof fp8_tries[0]);
  for (int t = 0; t < ntries; t++) {
    bool last = t == ntries - 1;
    GB_TRY_GOTO(gemm_op_create_desc(&o, p->fp8 && tries[t][0], p->fp8 && tries[t][1]), err, done);
    err = gemm_pick_algo(&o, st, dev, &search, s, &pick);
    if (!err || last || (err != GB_E_UNSUPPORTED && err != GB_E_CUDA) || gb_cuda_context_broken()) break;
    size_t used = strlen(scale_note);
    snprintf(scale_note + used, sizeof scale_note - used, " (%s refused: %.100s)",
             !tries[t][0] ? "amax pointer" : tries[t][1] ? "D scale and amax pointers" : "D scale pointer", gb_errmsg());
    gb_errclear();
    gemm_op_destroy_desc(&o);
  }
  if (err) goto done;

  /* measurement */
  gb_gemm_timing plan = gb_gemm_timing_plan(ctx->cfg->profile, st->window, pick.t_best_s);
  gb_measure_opts mo = gb_measure_defaults();
  mo.warmup = ctx->cfg->warmup >= 0 ? ctx->cfg->warmup : plan.warmup;
  mo.min_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : plan.min_samples;
  mo.max_samples = ctx->cfg->iters > 0 ? ctx->cfg->iters : plan.max_samples;
  mo.budget_s = plan.budget_s;
  mo.ops_per_sample = plan.ops_per_sample;
  mo.graph = ctx->cfg->graph;
  mo.back_to_back = true; /* as PyTorch's and nccl-tests' loops: no launch latency inside a sample */
  mo.event_pairs = st->opts.event_pairs;
  mo.tel = ctx->tel;
  /* let the card idle first, so that the window does not start under the
   * power cap the search brought on */
  if (st->rest_ms > 0) GB_TRY_GOTO(gemm_idle(s, st->rest_ms), err, done);
  GB_TRY_GOTO(gb_measure(&mo, s, gemm_launch, &o, &samp), err, done);
  gb_stats rate = gb_samples_rate(&samp, flops, 1e12);
  if (st->samples_log) gemm_log_samples(st->samples_log, &o, st->rest_ms, mo.warmup, &samp);

  gemm_check chk;
  GB_TRY_GOTO(gemm_run_check(st, &o, dev, &chk), err, done);

  /* the row */
  char algo_desc[256], variant[128], check_desc[320], fp8_desc[700] = "", detail[4096];
  gemm_describe_algo(&o.algo, o.ws_launch == 0, algo_desc, sizeof algo_desc, variant, sizeof variant);
  gb_snprintf_c(check_desc, sizeof check_desc, "rel_err=%.3g tol=%.3g over %s%zu rows x %lld cols%s%s",
                chk.rel_err, chk.tol, chk.rows == (size_t)o.m ? "all " : "", chk.rows, (long long)o.n,
                chk.note[0] ? "; " : "", chk.note);
  if (p->fp8) {
    char amax_txt[64];
    if (!o.amax) snprintf(amax_txt, sizeof amax_txt, "not set%s", st->opts.fp8_no_amax ? " (gemm.fp8_amax=off)" : "");
    else if (chk.amax_d == GEMM_AMAX_UNSET) snprintf(amax_txt, sizeof amax_txt, "not written");
    else gb_snprintf_c(amax_txt, sizeof amax_txt, "%.6g (max|D| %.6g)", chk.amax_d, chk.max_abs_out);
    char sd_txt[32];
    if (o.d_scale) gb_snprintf_c(sd_txt, sizeof sd_txt, "%g", gb_gemm_scale_d(p));
    else snprintf(sd_txt, sizeof sd_txt, "unset");
    gb_snprintf_c(fp8_desc, sizeof fp8_desc, "; fp8: fast_accum=%d scale_a=%g scale_b=%g scale_d=%s amax_d=%s%s",
                  p->fast_accum, p->scale_a, p->scale_b, sd_txt, amax_txt, scale_note);
  }
  char search_desc[448] = "", timing_desc[1280], sets_desc[64] = "";
  if (st->opts.input_sets && o.sets < st->opts.input_sets)
    snprintf(sets_desc, sizeof sets_desc, " (gemm.input_sets=%d, fewer fit in memory)", st->opts.input_sets);
  else if (st->opts.input_sets)
    snprintf(sets_desc, sizeof sets_desc, " (gemm.input_sets)");
  {
    int used = 0;
    if (st->search == GB_GEMM_SEARCH_EXTENDED)
      used = snprintf(search_desc, sizeof search_desc,
                      ", %d enumerated via AlgoGetIds (%d ids, %d AlgoCheck calls, %d accepted)%s%s", pick.enumerated,
                      pick.enum_ids, pick.enum_checks, pick.enum_accepted, pick.enum_note[0] ? ": " : "",
                      pick.enum_note);
    if (pick.variant_base > 0 && used >= 0 && (size_t)used < sizeof search_desc)
      used += snprintf(search_desc + used, sizeof search_desc - (size_t)used,
                       ", %d configuration%s of #%d (cluster, swizzle, custom option)", pick.variants,
                       pick.variants == 1 ? "" : "s", pick.variant_base);
    if (pick.no_ws > 0 && used >= 0 && (size_t)used < sizeof search_desc)
      snprintf(search_desc + used, sizeof search_desc - (size_t)used, ", %d from the heuristic without workspace",
               pick.no_ws);
    else if (pick.no_ws_note[0] && used >= 0 && (size_t)used < sizeof search_desc)
      snprintf(search_desc + used, sizeof search_desc - (size_t)used,
               ", none from the heuristic without workspace: %s", pick.no_ws_note);
  }
  char confirm_desc[160] = "";
  if (pick.finalists)
    snprintf(confirm_desc, sizeof confirm_desc, "; %d finalists confirmed rested (%d round%s, %d ms idle each)",
             pick.finalists, pick.rounds, pick.rounds == 1 ? "" : "s",
             st->opts.confirm_rest_ms >= 0 ? st->opts.confirm_rest_ms : search.confirm_rest_ms);
  gb_snprintf_c(timing_desc, sizeof timing_desc,
                "fastest of %d timed (%d from the heuristic%s, %d failed)%s, kept %s, ws %zu of %zu B, waves %.2f; "
                "%d input set%s%s, %d product%s per sample; %s window: %d ms idle, %d warm-up product%s, %zu samples "
                "back to back%s",
                pick.timed, pick.returned, search_desc, pick.failed, confirm_desc, pick.source, pick.ws_needed,
                st->workspace_bytes, (double)pick.waves, o.sets, o.sets == 1 ? "" : "s",
                sets_desc, mo.ops_per_sample,
                mo.ops_per_sample == 1 ? "" : "s", gb_gemm_window_name(st->window), st->rest_ms, mo.warmup,
                mo.warmup == 1 ? "" : "s", samp.n,
                mo.event_pairs ? ", each between two events of its own (gemm.timing=pairs)" : "");
  snprintf(detail, sizeof detail, "%s%s %s x %s -> %s, %s;%s %s; %s; check: %s%s",
           chk.status == GB_STATUS_OK ? "" : "check failed: ", p->compute_name, gb_dtype_name(p->a_type),
           gb_dtype_name(p->b_type), gb_dtype_name(p->d_type), gb_gemm_layout_label(o.layout),
           st->opts.out_of_place ? " out of place (gemm.out_of_place);" : "", algo_desc,
           timing_desc, check_desc, fp8_desc);

  gb_row r = gb_case_row("gemm", c);
  r.metric = gb_gemm_metric_in(p, st->window);
  r.unit = gb_gemm_unit(p);
  r.value = rate.median;
  r.samples = (int64_t)rate.n;
  r.min = rate.min;
  r.max = rate.max;
  r.stddev = rate.stddev;
  r.status = chk.status;
  r.detail = detail;
  r.variant = variant;
  err = gb_rowset_add(out, &r);
done:
  gb_samples_free(&samp);
  gemm_op_destroy_desc(&o);
  if (o.scales) cudaFree(o.scales);
  if (o.d) cudaFree(o.d);
  if (o.c) cudaFree(o.c);
  if (o.b) cudaFree(o.b);
  if (o.a) cudaFree(o.a);
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
    gb_row r = gb_case_row("gemm", &c);
    r.metric = sustained ? "speedup_sustained" : "speedup";
    r.unit = "x";
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
    .metric = "tflops",
    .unit = "TFLOP/s",
    .plan = gemm_plan,
    .setup = gemm_setup,
    .run = gemm_run,
    .derive = gemm_derive,
    .summarize = gemm_summarize,
    .teardown = gemm_teardown,
    .settings = gemm_settings,
};
