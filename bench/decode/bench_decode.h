/* bench_decode: the pure parts of the decode benchmark (bench/decode/), what
 * a decode step costs besides streaming the weights, testable with no GPU:
 * the cases of each profile, the model shapes, the byte and FLOP counts, the
 * launch count the launch cases' check expects, the rotation of input sets
 * past L2 and the CPU reference of the KV-cache attention read.
 *
 * The cases (one row per point; docs/results-schema.md, "Decode rows"):
 *   launch        time_us: one plain kernel launch (back-to-back launches of
 *                 a one-block kernel, events around ops_per_sample of them)
 *   launch_graph  time_us: one kernel inside a CUDA graph of that many
 *   gemv_<dtype>  time_us and tflops: D (m x n) = A (m x k) * W (n x k)^T
 *                 through cuBLASLt, m = batch 1..256, (n, k) a projection
 *                 of a Llama-class model; bf16, fp16
 *   kv_read       gbps and time_us: decode attention over a KV cache of
 *                 batch x kv_heads x seq x head_dim bf16 (one query per
 *                 sequence and KV head: scores, softmax, weighted sum of V);
 *                 bytes = the K and V bytes read */
#ifndef BENCH_DECODE_H
#define BENCH_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_bench.h"
#include "gb_dtype.h"
#include "gb_error.h"
#include "gb_settings.h"

/* What a case measures (gb_case.param[0]). */
typedef enum gb_decode_kind {
  GB_DECODE_LAUNCH = 0,
  GB_DECODE_LAUNCH_GRAPH = 1,
  GB_DECODE_GEMV = 2,
  GB_DECODE_KV_READ = 3,
} gb_decode_kind;

#define GB_DECODE_LAUNCH_OPS 1000 /* launches (or graph nodes) per timed sample */
#define GB_DECODE_LAUNCH_BLOCK 32 /* threads of the launched kernel's one block */
#define GB_DECODE_HEAD_DIM 128    /* head_dim of every kv_read case (Llama 3, Qwen, Mistral) */
#define GB_DECODE_KV_THREADS 128  /* threads per block of kv_partial (4 warps, 2 tokens a warp) */
#define GB_DECODE_MAX_SETS 8      /* input sets rotated among at most */
#define GB_DECODE_CHECK_COLS 16   /* gemv: output columns the check compares (every row of each) */
#define GB_DECODE_CHECK_HEADS 4   /* kv_read: (sequence, head) pairs the check compares */

/* One projection of a decoder layer: n outputs from k inputs. */
typedef struct gb_decode_proj {
  const char *model; /* "llama-3-8b" */
  const char *proj;  /* "attn_out", "mlp_up", "mlp_down" */
  int64_t n, k;
} gb_decode_proj;

/* The projections measured (Llama 3 8B: hidden 4096, FFN 14336; Llama 3
 * 70B: hidden 8192, FFN 28672), in plan order. */
const gb_decode_proj *gb_decode_projs(size_t *n);

/* The batches of the gemv cases: 1 2 4 8 16 32 64 128 256. */
const int64_t *gb_decode_batches(size_t *n);

/* One KV-cache shape: batch sequences of seq tokens, kv_heads heads of
 * GB_DECODE_HEAD_DIM. */
typedef struct gb_decode_kv {
  int64_t batch, kv_heads, seq;
} gb_decode_kv;

/* The kv_read shapes of a profile (quick: two; full: eight from one
 * sequence of 4K tokens to 256 of 4K), in plan order. */
const gb_decode_kv *gb_decode_kv_shapes(gb_profile profile, size_t *n);

/* Bytes of K and V read by one decode attention step: 2 (K and V) *
 * batch * kv_heads * seq * head_dim * 2 (bf16). */
int64_t gb_decode_kv_bytes(int64_t batch, int64_t kv_heads, int64_t seq, int64_t head_dim);

/* The kv_read split (flash-decoding): sequence chunks per (sequence, head)
 * so that the grid holds at least 4 blocks per SM, each chunk at least 256
 * tokens and a multiple of 64; returns the chunk length in tokens (*splits
 * gets the chunks per sequence and head). */
int64_t gb_decode_kv_chunk(int64_t batch, int64_t kv_heads, int64_t seq, int sm_count, int64_t *splits);

/* FLOP of one GEMV-class product: 2 m n k. */
double gb_decode_gemv_flops(int64_t m, int64_t n, int64_t k);

/* Bytes a gemv case streams once: the weights n x k, the activations m x k
 * and the output m x n, elem bytes each. */
int64_t gb_decode_gemv_bytes(int64_t m, int64_t n, int64_t k, int elem);

/* Input sets to rotate among so that consecutive operations find their
 * inputs evicted from L2: enough sets of set_bytes to cover three L2 sizes,
 * 1..GB_DECODE_MAX_SETS, never more than max_bytes holds (and at least 1). */
int gb_decode_sets(int64_t set_bytes, int64_t l2_bytes, int64_t max_bytes);

/* Kernel executions the launch cases' counter must show after gb_measure
 * (not back to back) took `samples` samples of `ops` operations after
 * `warmup` single launches: warmup + samples * ops, plus ops for the one
 * warm replay of the graph when graph is set. */
int64_t gb_decode_launch_expected(int warmup, int ops, int64_t samples, bool graph);

/* --opt decode.cases=launch:gemv_bf16 (case names: launch, launch_graph,
 * gemv_bf16, gemv_fp16, kv_read) keeps those cases of the profile (gemv_fp16
 * also in the quick profile); decode.batches=1:4:16 the gemv batches
 * (1..4096) instead of the profile's. Both only select cases: no setting. */
#define GB_DECODE_MAX_BATCHES 16
typedef struct gb_decode_opts {
  unsigned cases;  /* bit i: case i of gb_decode_case_names; 0 = the profile's */
  int64_t batches[GB_DECODE_MAX_BATCHES];
  size_t nbatches; /* 0 = the profile's */
} gb_decode_opts;

/* The case names, in plan order (bit i of gb_decode_opts.cases). */
extern const char *const gb_decode_case_names[];
#define GB_DECODE_NCASES 5

gb_err gb_decode_opts_parse(const char *bench_opts, gb_decode_opts *out);

/* The cases of a profile, appended to out: launch, launch_graph, then the
 * gemv cases (dtype-major, then projection, then batch), then kv_read.
 * Quick: bf16 at batch 1, 8 and 64 on Llama 3 8B's MLP up and down
 * projections and kv_read's two quick shapes; full: bf16 and fp16, every
 * projection and batch, every shape. o (NULL: none) narrows them; a
 * selection of nothing is a usage error. */
gb_err gb_decode_plan(gb_profile profile, const gb_decode_opts *o, gb_case_list *out);

/* The bf16 value of bits h; the value of 16-bit element h of type t (bf16
 * or fp16; NaN for any other type). */
double gb_decode_bf16(uint16_t h);
double gb_decode_elem16(uint16_t h, gb_dtype t);

/* The fp64 reference of one (sequence, head) of kv_read: q (d), K and V
 * (seq x d, row-major) bf16 bits; out[d] = sum_t softmax_t(q.K_t / sqrt(d))
 * V_t. */
void gb_decode_attn_ref(const uint16_t *q, const uint16_t *k, const uint16_t *v, int64_t seq, int d, double *out);

/* ||got - ref|| / ||ref|| over n values; NaN when a value is not finite or
 * ref is all zeros (NaN never passes a check). */
double gb_decode_rel_error(const double *got, const double *ref, size_t n);

/* Thresholds: gemv (bf16/fp16 inputs, fp32 accumulation, 16-bit output)
 * 1e-2; kv_read (bf16 inputs, fp32 arithmetic, fp32 output) 2e-3. */
#define GB_DECODE_GEMV_TOL 1e-2
#define GB_DECODE_KV_TOL 2e-3

/* The (sequence, head) pairs the kv_read check compares: up to
 * GB_DECODE_CHECK_HEADS spread over batch * kv_heads, first and last among
 * them. Writes at most cap and returns how many. */
size_t gb_decode_check_heads(int64_t pairs, int64_t *out, size_t cap);

/* The output columns the gemv check compares: up to GB_DECODE_CHECK_COLS
 * spread over n, first and last among them. */
size_t gb_decode_check_cols(int64_t n, int64_t *out, size_t cap);

/* Test-only hook: when on, every case spoils what its check reads (the
 * launch counter, the product, the attention output) after the checked
 * operation, so the check must report `invalid`. Off by default; not
 * thread-safe. */
void gb_decode_test_corrupt(bool on);

#endif
