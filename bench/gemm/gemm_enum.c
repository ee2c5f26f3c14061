/* gemm_enum: gemm.search=extended's enumeration. The pure rules
 * (bench_gemm.h, tested on the CPU): how promising a configuration looks
 * and which to time. The cuBLASLt side: every algo id
 * cublasLtMatmulAlgoGetIds gives, each tile with the deepest stages
 * cublasLtMatmulAlgoCheck accepts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_internal.h"

/* bounds on the enumeration (host-side calls only; cublasLtMatmulAlgoCheck
 * runs no kernel) */
#define GEMM_ENUM_MAX_IDS 64             /* algo ids asked of cublasLtMatmulAlgoGetIds */
#define GEMM_ENUM_MAX_CHECKS 4096        /* cublasLtMatmulAlgoCheck calls per case */
#define GEMM_ENUM_MAX_CHECKS_PER_ID 512

/* rows x columns of a tile id from its name ("128x256" -> 32768); 0 when unknown */
static double tile_area(unsigned tile) {
  char buf[24];
  const char *name = gb_gemm_tile_name(tile, buf, sizeof buf);
  unsigned r = 0, c = 0;
  char extra;
  if (sscanf(name, "%ux%u%c", &r, &c, &extra) != 2) return 0;
  return (double)r * (double)c;
}

double gb_gemm_enum_score(const gb_gemm_enum_cand *c) {
  double area = tile_area(c->tile);
  double waves = c->waves;
  if (!(area > 0) || !(waves > 0) || !isfinite(waves)) return 0;
  /* tail efficiency: 1.0 for whole waves; 2.5 waves -> 2.5 / 3 = 0.83 */
  return area * (waves / ceil(waves));
}

int gb_gemm_stage_depth(unsigned stages) {
  char buf[24];
  const char *name = gb_gemm_stages_name(stages, buf, sizeof buf);
  unsigned kdepth = 0, count = 0;
  char extra;
  if (sscanf(name, "%ux%u%c", &kdepth, &count, &extra) == 2) return (int)count;
  char tail[8];
  if (sscanf(name, "%ux%7s", &kdepth, tail) == 2 && strcmp(tail, "AUTO") == 0) return 1000;
  return 0;
}

/* candidate i is shadowed by a deeper-staged (or, equally deep, earlier)
 * candidate of the same algo id and tile (depth[] from gb_gemm_stage_depth) */
static bool enum_shadowed(const gb_gemm_enum_cand *c, const int *depth, size_t n, size_t i) {
  for (size_t j = 0; j < n; j++) {
    if (j == i || c[j].algo_id != c[i].algo_id || c[j].tile != c[i].tile) continue;
    if (depth[j] > depth[i] || (depth[j] == depth[i] && j < i)) return true;
  }
  return false;
}

size_t gb_gemm_enum_pick(const gb_gemm_enum_cand *c, size_t n, size_t want, size_t *picked) {
  if (n == 0 || want == 0) return 0;
  double *score = malloc(n * sizeof *score);
  int *depth = malloc(n * sizeof *depth);
  bool *used = calloc(n, sizeof *used), *served = calloc(n, sizeof *served);
  size_t got = 0;
  if (!score || !depth || !used || !served) goto done;
  for (size_t i = 0; i < n; i++) {
    score[i] = gb_gemm_enum_score(&c[i]);
    depth[i] = gb_gemm_stage_depth(c[i].stages);
  }
  for (size_t i = 0; i < n; i++)
    if (!(score[i] > 0) || enum_shadowed(c, depth, n, i)) used[i] = true; /* never picked */
  /* rounds: in each, every algo id gives its best unused candidate, the ids
   * taken in the order of those candidates' scores; served[i] says that
   * c[i]'s algo id has had its turn this round */
  while (got < want) {
    size_t round_start = got;
    memset(served, 0, n * sizeof *served);
    while (got < want) {
      size_t best = n;
      for (size_t i = 0; i < n; i++)
        if (!used[i] && !served[i] && (best == n || score[i] > score[best])) best = i;
      if (best == n) break;
      picked[got++] = best;
      used[best] = true;
      for (size_t i = 0; i < n; i++)
        if (c[i].algo_id == c[best].algo_id) served[i] = true;
    }
    if (got == round_start) break; /* nothing left */
  }
done:
  free(score);
  free(depth);
  free(used);
  free(served);
  return got;
}

/* ---- cuBLASLt ---- */

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

void gemm_enum_list_free(gemm_enum_list *l) {
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

/* Algorithm algo (algo id id): each tile it lists with the deepest stages
 * cublasLtMatmulAlgoCheck accepts within the workspace, appended to out
 * unless the heuristic has it among h. Counts the checks in pick. */
static void gemm_enumerate_id(gemm_op *o, cublasLtMatmulAlgo_t algo, int id, const gemm_cand *h, int nh,
                              gemm_enum_list *out, gemm_pick *pick) {
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
      if (!gemm_enum_known(h, nh, id, tile, stg)) {
        out->c[out->n] = (gb_gemm_enum_cand){.algo_id = id, .tile = tile, .stages = stg, .waves = res.wavesCount};
        out->algo[out->n] = a;
        out->ws[out->n] = res.workspaceSize;
        out->n++;
      }
      break; /* the deepest accepted stages of this tile: next tile */
    }
  free(tiles);
  free(stages);
}

gb_err gemm_enumerate(gemm_op *o, const gemm_cand *h, int nh, gemm_enum_list *out, gemm_pick *pick) {
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
    gemm_enumerate_id(o, algo, ids[i], h, nh, out, pick);
  }
  if (out->n == 0 && !pick->enum_note[0])
    snprintf(pick->enum_note, sizeof pick->enum_note, "AlgoCheck accepted nothing new (%d ids, %d checks)",
             pick->enum_ids, pick->enum_checks);
  return GB_OK;
}
