/* bench_gemm: the pure parts of the GEMM benchmark (bench/gemm/), so they
 * can be tested on a machine with no GPU: the precision table with its
 * cuBLASLt types, FLOP accounting (gemm_precs.c), the shapes per profile
 * (gemm_shapes.c), grouped GEMM at MoE expert shapes (gemm_grouped.c), the
 * plan of a campaign's cases (gemm_plan.c), the options (gemm_opts.c), the
 * accuracy check and its per-precision thresholds (gemm_check.c), the
 * unsupported-precision decision, the timing plan and the keep rule
 * (gemm_timing.c), the mixed-precision speedup derivation and the
 * end-of-run table (gemm_speedups.c), the extended search's picks
 * (gemm_enum.c) and the cuBLASLt enum names (gemm_names.c); nothing here
 * touches a device. The
 * files' roles: bench/gemm/gemm_internal.h.
 *
 * Layout convention (every precision, so speedups compare like with like):
 * A is m x k row-major (activations), B is n x k row-major (weights), and
 * D = A * B^T is m x n row-major, i.e. PyTorch's Linear. In cuBLASLt's
 * column-major terms that is D^T (n x m, ldd = n) = op(A') op(B') with
 * A' = B (k x n, lda = k, CUBLAS_OP_T) and B' = A (k x m, ldb = k,
 * CUBLAS_OP_N): the "TN" layout, both operands K-major, as Hopper's fp8 and
 * int8 tensor-core kernels require. cuBLASLt's m' is our n, its n' our m.
 *
 * The NN layout (--opt gemm.layout=nn, case names with "_nn") stores B as
 * k x n row-major instead, D = A * B as PyTorch's torch.matmul and cuBLAS's
 * DGEMM see it: A' = B seen column-major as n x k (lda = n, CUBLAS_OP_N),
 * B' = A as before (k x m, ldb = k, CUBLAS_OP_N), D as before. Same element
 * counts, random ranges and rotation; only the reading of B differs. */
#ifndef BENCH_GEMM_H
#define BENCH_GEMM_H

#include <cublasLt.h>
#include <library_types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gb_bench.h"
#include "gb_error.h"
#include "gb_harness.h"
#include "gb_settings.h"
#include "gb_results.h"

/* One measured precision: a `case` value and everything needed to issue it. */
typedef struct gb_gemm_prec {
  const char *name;          /* `case` column: "bf16", "fp8e4m3_fastacc", "int8" */
  const char *dtype;         /* `dtype` column: the operand type ("fp8e4m3", "tf32") */
  gb_dtype a_type, b_type;   /* operand element types (random fill, reference) */
  gb_dtype d_type;           /* output element type */
  cudaDataType_t a_cuda, b_cuda, d_cuda;
  cublasComputeType_t compute;
  cudaDataType_t scale_cuda; /* type of alpha and beta */
  const char *compute_name;  /* "COMPUTE_32F_FAST_TF32", written to detail */
  double a_lo, a_hi;         /* random range of A (integers: inclusive) */
  double b_lo, b_hi;         /* random range of B */
  bool fp8;                  /* per-tensor scale pointers and amax of D */
  bool out_fp8;              /* D is fp8 (C bf16): cuBLASLt takes the D scale and amax-of-D pointers only then */
  double scale_d;            /* fp8 output: the per-tensor quantisation scale of D (D = scale_d * A.B) */
  int fast_accum;            /* CUBLASLT_MATMUL_DESC_FAST_ACCUM: -1 not applicable, 0, 1 */
  double scale_a, scale_b;   /* fp8 per-tensor dequantisation scales (1 otherwise) */
  bool integer;              /* integer product: metric tops, exact check */
  int min_cc;                /* lowest compute capability, major*10 + minor */
  double tol;                /* ||out - ref|| / ||ref|| threshold */
  double tol_per_sqrt_k;     /* extra threshold per sqrt(k) (fp16 accumulation) */
  double est_tflops;         /* rough H100/H200-class rate (B200 for block-scaled), only to plan timing */
  int block;                 /* block-scaled (sm_100+): elements along K per scale (32 MXFP8, 16 NVFP4); 0: none */
  int scale_mode;            /* block-scaled: the cublasLtMatmulMatrixScale_t of A and B */
  bool fp4;                  /* operands fp4 e2m1, two a byte (low nibble first); a_type/b_type: the bytes */
} gb_gemm_prec;

/* The precision table, in the order cases run and the summary prints. */
const gb_gemm_prec *gb_gemm_precs(size_t *n);

/* A precision by its name ("fp64", "bf16"), or NULL. */
const gb_gemm_prec *gb_gemm_prec_find(const char *name);

/* ---- layouts ---- */

typedef enum gb_gemm_layout {
  GB_GEMM_TN = 0, /* B is n x k row-major (K-major), D = A * B^T: the default */
  GB_GEMM_NN = 1, /* B is k x n row-major (N-major), D = A * B */
} gb_gemm_layout;
#define GB_GEMM_NLAYOUTS 2

/* "tn" or "nn" (the --opt value); "TN" or "NN" for detail. */
const char *gb_gemm_layout_name(gb_gemm_layout l);
const char *gb_gemm_layout_label(gb_gemm_layout l);

/* The `case` value of precision p in layout l: the precision's name in TN
 * (so the keys of TN results never change), "<name>_nn" in NN
 * ("fp64_nn"). Writes at most n bytes to buf and returns buf. */
const char *gb_gemm_case_name(const gb_gemm_prec *p, gb_gemm_layout l, char *buf, size_t n);

/* The precision and layout of a `case` value: "bf16" -> bf16, TN;
 * "fp64_nn" -> fp64, NN; NULL for anything else (a speedup row's
 * "bf16_vs_fp32", an unknown name). layout may be NULL. */
const gb_gemm_prec *gb_gemm_case_parse(const char *case_name, gb_gemm_layout *layout);

/* Whether cuBLASLt runs precision p in layout l on a device of compute
 * capability major.minor (TN: always; NN: every precision but fp8 and int8,
 * whose tensor-core GEMMs take only TN before compute capability 10.0).
 * When it cannot, why gets the reason. */
bool gb_gemm_layout_supported(const gb_gemm_prec *p, gb_gemm_layout l, int cc_major, int cc_minor, char *why,
                              size_t why_n);

/* cuBLASLt's view of one product (column-major, cuBLASLt's m' = our n and
 * n' = our m; C and D share ldd). A' is our B, B' our A (see the top). */
typedef struct gb_gemm_lt_dims {
  cublasOperation_t trans_a, trans_b; /* CUBLASLT_MATMUL_DESC_TRANSA / TRANSB */
  uint64_t a_rows, a_cols;            /* A' as stored */
  int64_t lda;
  uint64_t b_rows, b_cols;            /* B' as stored */
  int64_t ldb;
  uint64_t d_rows, d_cols;            /* D as stored */
  int64_t ldd;
} gb_gemm_lt_dims;

/* TN: A' k x n (lda k, OP_T), B' k x m (ldb k, OP_N), D n x m (ldd n).
 * NN: A' n x k (lda n, OP_N), B' k x m (ldb k, OP_N), D n x m (ldd n). */
gb_gemm_lt_dims gb_gemm_lt_layout(gb_gemm_layout l, int64_t m, int64_t n, int64_t k);

/* Launch shape of kernels/gemm_ref.cu for nrows sampled rows of an n-column
 * D: 256-thread blocks, GB_GEMM_REF_ROWS rows per block in y. TN (B
 * K-major): one warp per column, lanes splitting k, 8 columns per block;
 * NN (B N-major): one thread per column, 256 per block, so a warp reads 32
 * adjacent elements of a row of B. */
#define GB_GEMM_REF_ROWS 8 /* GEMM_REF_ROWS in kernels/gemm_ref.cu */
#define GB_GEMM_REF_THREADS 256
typedef struct gb_gemm_ref_grid {
  unsigned gx, gy, block;
} gb_gemm_ref_grid;
gb_gemm_ref_grid gb_gemm_ref_launch(gb_gemm_layout l, int64_t n, size_t nrows);



/* FLOP of one product: 2*m*n*k (one multiply and one add per term; the
 * beta*C term is not counted, as in cuBLAS and the peers). For int8 these are
 * integer operations, reported as TOP/s. */
double gb_gemm_flops(int64_t m, int64_t n, int64_t k);

/* `metric` and `unit` of a precision's throughput row: tflops/TFLOP/s, or
 * tops/TOP/s for integer products. */
const char *gb_gemm_metric(const gb_gemm_prec *p);
const char *gb_gemm_unit(const gb_gemm_prec *p);

/* ---- shapes ---- */

typedef struct gb_gemm_shape {
  int64_t m, n, k;
  const char *family; /* "square", "transformer", "decode" */
} gb_gemm_shape;

/* One grouped product (bench_gemm.h's grouped section): G groups of m x n x k. */
typedef struct gb_gemm_gshape {
  int64_t groups, m, n, k;
  const char *model; /* the gb_gemm_moe it comes from; "custom" (gemm.grouped_shapes) */
  const char *proj;  /* "up" (n = ffn, k = hidden) or "down" (n = hidden, k = ffn); "" for custom */
} gb_gemm_gshape;

/* The measurement window (--opt gemm.window).
 * burst (default): an idle (gb_gemm_rest_ms), 5 warm-up samples, then 30
 *   timed samples, the protocol of PyTorch's benchmark recipes. The products run at
 *   the clock the card holds for a fraction of a second; on a power-limited
 *   card (an H200 at 700 W) that is above the clock it settles to.
 * sustained: at least 0.5 s (full) or 0.2 s (quick) of products, up to 200
 *   samples: on an H200 the 700 W software power cap then holds the SM clock
 *   at 1400-1800 MHz for the 16-bit and 8-bit types, the rate a long
 *   training run gets, about 10% under burst. */
typedef enum gb_gemm_window {
  GB_GEMM_WINDOW_BURST = 0,
  GB_GEMM_WINDOW_SUSTAINED = 1,
} gb_gemm_window;

const char *gb_gemm_window_name(gb_gemm_window w);

/* The metric of a throughput row measured in window w: gb_gemm_metric's in
 * the burst window; "tflops_sustained" or "tops_sustained" in the sustained
 * one, so that the two never mix (speedups, the planner, the reports and
 * the gate read the burst metrics). */
const char *gb_gemm_metric_in(const gb_gemm_prec *p, gb_gemm_window w);

/* How the algorithm is chosen (--opt gemm.search). */
typedef enum gb_gemm_search {
  GB_GEMM_SEARCH_VARIANTS = 0,  /* the heuristic's candidates and, when it returns fewer than 8,
                                 * configurations of its #1 that differ in one knob (cluster
                                 * shape, CTA swizzling, custom option) up to the plan's
                                 * candidate count (default) */
  GB_GEMM_SEARCH_HEURISTIC = 1, /* cublasLtMatmulAlgoGetHeuristic's candidates only */
  GB_GEMM_SEARCH_EXTENDED = 2,  /* plus configurations enumerated through cublasLtMatmulAlgoGetIds
                                 * (up to 8 in all, or 4 beside a full list of 8) and the one-knob
                                 * configurations of its #1 */
} gb_gemm_search;

/* --opt gemm.precs=bf16:fp8e4m3_fastacc (precision names) and
 * gemm.shapes=8192:4096x14336x4096 (N for N^3, or MxNxK) narrow a campaign
 * to some precisions and shapes; absent keys keep the profile's.
 * gemm.grouped_shapes=8x512x14336x4096 (GxMxNxK) lists grouped shapes
 * instead of the profile's; given either shape list, only the shapes listed
 * run (gemm.shapes alone: no grouped case; gemm.grouped_shapes alone: no
 * dense one). gemm.grouped=on, off or only keeps both kinds of case (the
 * default), the dense alone or the grouped alone. gemm.precs applies to
 * both; without it the grouped cases take gb_gemm_grouped_precs'.
 * gemm.layout=tn:nn picks the layouts (default tn), gemm.search=variants,
 * heuristic or extended the algorithm search (default variants), gemm.window=burst or
 * sustained the measurement window (default burst), gemm.rest_ms=N the idle
 * time between the algorithm search and the window (0..10000; default
 * gb_gemm_rest_ms: GB_GEMM_REST_MS_BURST before a burst window, 0 before a
 * sustained one).
 * The keys only probes use, the lab's (candidates, candidate, finalists,
 * confirm, confirm_rest_ms, search_log, samples_log, fp8_amax, input_sets,
 * out_of_place, timing, workspace_kib), are parsed in a build with
 * -DGB_TOOLS=ON alone (tools/gemm/gemm_lab.c says what each does); in a
 * default build each is a usage error saying so, and the fields they set
 * keep their defaults. */
#define GB_GEMM_INPUT_SETS_MAX 32
#define GB_GEMM_WORKSPACE_KIB_DEFAULT 65536 /* 64 MiB: >= 32 MiB, what Hopper's best kernels want */
#define GB_GEMM_WORKSPACE_KIB_MAX 65536
#define GB_GEMM_MAX_OPT_SHAPES 32
#define GB_GEMM_REST_MS_BURST 300 /* the burst window's default idle */
#define GB_GEMM_REST_MS_MAX 10000
#define GB_GEMM_CANDIDATES_MAX 16 /* heuristic candidates asked for and timed at most */
#define GB_GEMM_FINALISTS_DEFAULT 3
#define GB_GEMM_CONFIRM_MAX 8
#define GB_GEMM_CONFIRM_REST_MS 50 /* idle before each finalist's confirmation burst */
/* --opt gemm.grouped: whether the plan holds the grouped cases. */
typedef enum gb_gemm_grouped {
  GB_GEMM_GROUPED_ON = 0,   /* the dense cases and the grouped ones (default) */
  GB_GEMM_GROUPED_OFF = 1,  /* the dense cases alone */
  GB_GEMM_GROUPED_ONLY = 2, /* the grouped cases alone */
} gb_gemm_grouped;
#define GB_GEMM_MAX_OPT_GSHAPES 64
typedef struct gb_gemm_opts {
  const gb_gemm_prec *precs[32];
  size_t nprecs;          /* 0 = every precision */
  gb_gemm_shape shapes[GB_GEMM_MAX_OPT_SHAPES];
  size_t nshapes;         /* 0 = the profile's shapes */
  gb_gemm_gshape gshapes[GB_GEMM_MAX_OPT_GSHAPES]; /* gemm.grouped_shapes */
  size_t ngshapes;        /* 0 = the profile's grouped shapes */
  gb_gemm_grouped grouped; /* gemm.grouped */
  bool layouts[GB_GEMM_NLAYOUTS]; /* indexed by gb_gemm_layout; TN alone when gemm.layout is absent */
  gb_gemm_search search;
  gb_gemm_window window;
  int rest_ms;            /* idle before the timed window, ms; -1: the window's default */
  /* the lab's keys (tools/gemm/gemm_lab.c); the defaults in a default build */
  int candidates;         /* candidates timed (1..GB_GEMM_CANDIDATES_MAX); 0: the timing plan's */
  int candidate;          /* the heuristic's #candidate alone, no search (1..GB_GEMM_CANDIDATES_MAX); 0: search */
  int finalists;          /* candidates confirmed rested (1..GB_GEMM_FINALISTS_MAX); 0: the default */
  int confirm_rounds;     /* rested confirmation rounds (0..GB_GEMM_CONFIRM_MAX); -1: the timing plan's */
  int confirm_rest_ms;    /* idle before each finalist's burst; -1: the timing plan's */
  bool fp8_no_amax;       /* gemm.fp8_amax=off: fp8 cases leave the amax-of-D pointer unset */
  bool out_of_place;      /* gemm.out_of_place=on: C is a buffer of its own, not D (beta = 0 reads neither) */
  bool event_pairs;       /* gemm.timing=pairs: each sample between two events of its own */
  int input_sets;         /* input sets rotated among (1..GB_GEMM_INPUT_SETS_MAX); 0: gb_gemm_input_sets' rule */
  int workspace_kib;      /* cuBLASLt workspace, KiB (0..GB_GEMM_WORKSPACE_KIB_MAX); -1: the default */
  char search_log[512];   /* file the search appends every candidate's timings to; "" for none */
  char samples_log[512];  /* file every timed window's samples are appended to, in order; "" for none */
} gb_gemm_opts;

gb_err gb_gemm_opts_parse(const char *bench_opts, gb_gemm_opts *out);

/* The lab's keys (gb_gemm_opts_parse calls these). gb_gemm_lab_key: whether
 * key (without "gemm.") is one. gb_gemm_lab_opt parses it into o
 * (tools/gemm/gemm_lab.c; in a default build, a usage error: "--opt gemm.X
 * is a lab option: build with -DGB_TOOLS=ON"). gb_gemm_lab_settings adds
 * their `settings` items to s (nothing in a default build). */
bool gb_gemm_lab_key(const char *key);
gb_err gb_gemm_lab_opt(gb_gemm_opts *o, const char *key, const char *val);
void gb_gemm_lab_settings(const gb_gemm_opts *o, gb_settings *s);

/* A key with two values, a and b (each with what it means, or NULL): *is_b
 * tells which was given; anything else is a usage error naming both, e.g.
 * "--opt gemm.window: \"x\" is not burst (...) or sustained (...)". */
gb_err gb_gemm_opt_choice(const char *key, const char *val, const char *a, const char *a_means, const char *b,
                          const char *b_means, bool *is_b);

/* The options of o that change how a case is measured, where they differ
 * from the defaults, as the rows' `settings` items in a fixed order
 * ("gemm.rest_ms=1000,gemm.timing=pairs"); "" for none. gemm.precs, .shapes
 * and .layout select cases, gemm.window is in the metric, and the logs are
 * side outputs: none of them is a setting. */
void gb_gemm_settings(const gb_gemm_opts *o, char *buf, size_t n);

/* The idle before the timed window, ms: gemm.rest_ms when given, else 300
 * for the burst window (the algorithm search, up to 8 candidates x 4
 * samples, brings the power cap on; on an H200 the burst window then
 * started under it, 2-8% below PyTorch's rate from a rested card: 300 ms
 * idle removed that) and 0 for the sustained one. */
int gb_gemm_rest_ms(const gb_gemm_opts *o);

/* Whether the plan holds a case of precision p in layout l: the layout was
 * asked for, p was named in gemm.precs (or none was), and, for a precision
 * not named explicitly, the layout runs on the device (cc_major < 0: device
 * unknown, assume it does). A precision named explicitly is planned even where
 * its layout cannot run, so that its row says why. */
bool gb_gemm_plan_wants(const gb_gemm_opts *o, const gb_gemm_prec *p, gb_gemm_layout l, int cc_major,
                        int cc_minor);

/* The cases of a campaign (gemm_plan.c), appended to out: the dense ones
 * (shapes of gemm.shapes or the profile, precisions and layouts by
 * gb_gemm_plan_wants; a block-scaled precision the known device cannot run
 * at the first shape alone, its skip row), shape-major, then the grouped ones (TN; shapes of
 * gemm.grouped_shapes or gb_gemm_grouped_shapes, precisions of gemm.precs
 * or gb_gemm_grouped_precs), shape-major, as gemm.grouped and the shape
 * lists select them (a usage error when they select none). */
gb_err gb_gemm_plan(const gb_gemm_opts *o, gb_profile profile, int cc_major, int cc_minor, gb_case_list *out);

/* A dense case for precision p in layout l at m x n x k (gemm_plan.c: what
 * the plan makes), for the plan and tests. */
gb_case gb_gemm_make_case(const gb_gemm_prec *p, gb_gemm_layout l, int64_t m, int64_t n, int64_t k);

/* Writes the shapes of a profile into out (at most cap) and returns how many
 * the profile has (call with cap 0 to count). Quick: 8192^3 plus a transformer
 * MLP pair and one decode shape. Full: squares 1024..16384 (6144 and 12288
 * among them), M = 4096 and 16384 tokens against (N, K) from hidden 4096/8192
 * and MLP widths 14336/28672 both ways, and decode M = 1, 8, 64. */
size_t gb_gemm_shapes(gb_profile profile, gb_gemm_shape *out, size_t cap);

/* Bytes of one input set (A and B) and of the output, each rounded up to 256
 * bytes (the alignment cuBLASLt assumes), for precision p at m x n x k. */
uint64_t gb_gemm_input_bytes(const gb_gemm_prec *p, int64_t m, int64_t n, int64_t k);
uint64_t gb_gemm_output_bytes(const gb_gemm_prec *p, int64_t m, int64_t n);

/* Input sets to rotate among so that consecutive products never find their
 * operands in L2: 1 when one set is at least three times the L2, else enough
 * sets to cover three L2s, at most 32 (and never more than max_bytes allows,
 * and at least 1). */
int gb_gemm_input_sets(uint64_t set_bytes, uint64_t l2_bytes, uint64_t max_bytes);

/* The same with gemm.input_sets=want (0: the rule above): want, but never
 * more than max_bytes allows, and at least 1. */
int gb_gemm_input_sets_for(int want, uint64_t set_bytes, uint64_t l2_bytes, uint64_t max_bytes);

/* Rows of D the check compares: every row when m <= 256 (the full product),
 * else 128 rows spread evenly from the first to the last. Writes at most cap
 * indices to rows and returns how many there are. */
size_t gb_gemm_sample_rows(int64_t m, int64_t *rows, size_t cap);

/* ---- grouped GEMM: the experts of a mixture-of-experts layer (gemm_grouped.c) ----
 *
 * G equal products in one call, D_g = A_g * B_g^T (TN) for g = 0..G-1: A_g
 * m x k (the tokens routed to expert g), B_g n x k (its weights), D_g m x n,
 * the G matrices of an operand back to back. cuBLASLt 13.1 has no grouped
 * GEMM (cublasLt.h has no per-group shapes), so a case is one strided-batched
 * cublasLtMatmul (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT G, STRIDED_BATCH_OFFSET
 * one matrix): equal groups, every expert given the same m, the balanced
 * routing a tokens-per-expert figure assumes. A case's row: `case`
 * "grouped_<precision>", m tokens per expert, n and k the projection's, the
 * `groups` column G, FLOPs 2 m n k G. */

/* One model's MoE layer (published configurations, docs/perf-notes-gemm.md). */
typedef struct gb_gemm_moe {
  const char *model; /* "mixtral-8x7b" */
  int64_t hidden;    /* model width */
  int64_t ffn;       /* one expert's FFN width */
  int64_t experts;   /* routed experts per layer */
  int top_k;         /* experts per token */
} gb_gemm_moe;

/* The model table, in the order the full profile plans them. */
const gb_gemm_moe *gb_gemm_moes(size_t *n);

/* A model by name, or NULL. */
const gb_gemm_moe *gb_gemm_moe_find(const char *model);

/* The projections of an expert's FFN: up (one of the gate and up matrices,
 * hidden -> ffn) and down (ffn -> hidden). */
typedef enum gb_gemm_proj { GB_GEMM_PROJ_UP = 0, GB_GEMM_PROJ_DOWN = 1 } gb_gemm_proj;

/* The grouped product of projection proj of model moe with every routed
 * expert on one GPU (G = experts) and tokens_per_expert tokens each. */
gb_gemm_gshape gb_gemm_moe_shape(const gb_gemm_moe *moe, gb_gemm_proj proj, int64_t tokens_per_expert);

/* Tokens an expert gets on average when `tokens` tokens are each routed to
 * top_k of `experts` experts: tokens * top_k / experts (0 for no experts). */
double gb_gemm_tokens_per_expert(int64_t tokens, int top_k, int64_t experts);

/* Writes the grouped shapes of a profile into out (at most cap) and returns
 * how many it has. Quick: the up projection of deepseek-v3 at 128 tokens
 * per expert and qwen3-30b-a3b at 512. Full: every model of the table, up
 * and down (once where hidden = ffn), at 128, 512 and 2048 tokens per
 * expert. */
size_t gb_gemm_grouped_shapes(gb_profile profile, gb_gemm_gshape *out, size_t cap);

/* The precisions of a profile's grouped cases (when gemm.precs names none):
 * quick bf16 and fp8e4m3_fastacc; full also fp16 and fp8e4m3_slowacc.
 * Writes at most cap and returns how many. */
size_t gb_gemm_grouped_precs(gb_profile profile, const gb_gemm_prec **out, size_t cap);

/* FLOP of one grouped product: 2 m n k per group, times groups. */
double gb_gemm_grouped_flops(int64_t groups, int64_t m, int64_t n, int64_t k);

/* "grouped_<precision>" ("grouped_bf16"), and back: the precision of such a
 * `case` value, NULL for anything else. */
const char *gb_gemm_grouped_case_name(const gb_gemm_prec *p, char *buf, size_t n);
const gb_gemm_prec *gb_gemm_grouped_case_parse(const char *case_name);

/* The groups whose products the check compares with the reference: every
 * one when groups <= GB_GEMM_CHECK_GROUPS, else that many spread evenly from
 * the first to the last (a wrong batch stride shows in the last). Writes at
 * most cap and returns how many. */
#define GB_GEMM_CHECK_GROUPS 8
size_t gb_gemm_check_groups(int64_t groups, int64_t *out, size_t cap);

/* A grouped case of precision p at shape s (TN), for the plan and tests. */
gb_case gb_gemm_make_grouped_case(const gb_gemm_prec *p, const gb_gemm_gshape *s);

/* ---- support ---- */

/* Whether precision p can run on a device of compute capability
 * major.minor. When it cannot, why gets the reason (fp8 needs 8.9; the
 * block-scaled mxfp8 and nvfp4 "needs sm_100+ block-scaled tensor cores;
 * this GPU is sm_90"). */
bool gb_gemm_supported(const gb_gemm_prec *p, int cc_major, int cc_minor, char *why, size_t why_n);

/* Whether case c (plan()'s) runs on a device of compute capability
 * major.minor: its precision (gb_gemm_supported), its layout
 * (gb_gemm_layout_supported) and, for a block-scaled precision, not grouped.
 * When it cannot, why gets the reason; run() then returns GB_E_UNSUPPORTED
 * with it, and the runner writes the case's row with status unsupported
 * and detail "not supported: <why>" (the skip row: no measurement, no
 * failure). */
bool gb_gemm_case_runs(const gb_case *c, int cc_major, int cc_minor, char *why, size_t why_n);

/* ---- block-scaled operands (MXFP8, NVFP4; cuBLASLt's 1D block scaling) ----
 *
 * A K-major operand of `rows` rows has one scale per block of p->block
 * elements along K, stored in cuBLASLt's tiled layout: the (rows, K blocks)
 * scale matrix padded to 128-row by 4-column tiles of 512 bytes, tiles
 * row-major (K blocks fastest); inside a tile, scale (r, c) at byte
 * (r % 32) * 16 + (r / 32) * 4 + c. */

/* K blocks of a row: ceil(k / block). */
int64_t gb_gemm_bs_kblocks(int64_t k, int block);

/* Bytes of the scale tensor of a rows x k operand. */
uint64_t gb_gemm_bs_scale_bytes(int64_t rows, int64_t k, int block);

/* Byte offset of the scale of row r, K block c, in a tensor of kblocks
 * K blocks a row (kernels/gemm_ref.cu computes the same). */
uint64_t gb_gemm_bs_scale_offset(int64_t r, int64_t c, int64_t kblocks);

/* The scale byte at offset i of a case's tensor (seeded): MXFP8 ue8m0
 * exponents 124..129 (2^-3 .. 2^2), NVFP4 e4m3 values 0.5 .. 7.5 (exponent
 * field 6..9, any mantissa), so that the check sees scales that differ from
 * block to block. */
unsigned char gb_gemm_bs_scale_byte(const gb_gemm_prec *p, uint64_t seed, uint64_t i);

/* The value of a scale byte: 2^(b - 127) (ue8m0) or the e4m3 value of the
 * low 7 bits (ue4m3); of an fp4 e2m1 nibble: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}. */
double gb_gemm_bs_scale_value(const gb_gemm_prec *p, unsigned char b);
double gb_gemm_e2m1_value(unsigned nibble);

/* ---- the check ---- */

/* ||out - ref||_2 / ||ref||_2 over n values; NaN when any value is not
 * finite or ref is all zeros (so NaN never passes). */
double gb_gemm_rel_error(const double *out, const double *ref, size_t n);

/* The threshold for p at inner dimension k: tol + tol_per_sqrt_k * sqrt(k).
 * fp64 1e-12; fp32 5e-5 (TF32 lands near 3e-4, so a silent TF32 fails);
 * tf32 2e-3; fp16/bf16 with fp32 accumulation 1e-2; fp16 accumulation
 * 1e-2 + 2^-11 sqrt(k) (a random walk of fp16 rounding over k terms); fp8
 * with bf16 output 5e-2; int8 0 (exact). */
double gb_gemm_tolerance(const gb_gemm_prec *p, int64_t k);

/* OK when rel_err is a number no larger than the threshold and no output
 * element was left non-finite; INVALID otherwise (NaN never passes). */
gb_status gb_gemm_check_decide(const gb_gemm_prec *p, int64_t k, double rel_err, uint64_t nonfinite);

/* The fp8 amax check: amax_d (what cuBLASLt wrote: max|A.B| after the A and
 * B scales, before the D scale and the output rounding) times the D scale
 * scale_d against max|D| measured over the output. They may differ by the
 * output rounding: 2^-8 relative for bf16, 2^-4 for fp8 e4m3 (out_fp8);
 * true when they agree within that plus 1%. */
bool gb_gemm_amax_agrees(double amax_d, double max_abs_out, double scale_d, bool out_fp8);

/* The precision's D scale: scale_d for an fp8 output, else 1. */
double gb_gemm_scale_d(const gb_gemm_prec *p);

/* ---- timing ---- */

typedef struct gb_gemm_timing {
  int candidates;        /* heuristic candidates to time (4..8; fewer when the heuristic returns fewer) */
  int search_reps;       /* timed samples per candidate */
  int warmup;            /* untimed products before the measurement */
  int min_samples, max_samples;
  double budget_s;       /* measurement time budget */
  int ops_per_sample;    /* products between the two events of a sample */
  /* the rested confirmation of the finalists (gb_gemm_finalists): rounds,
   * each finalist per round idle confirm_rest_ms, then confirm_warmup
   * untimed products and confirm_samples timed samples; 0 rounds: none */
  int confirm_rounds;
  int confirm_rest_ms;
  int confirm_warmup;
  int confirm_samples;
} gb_gemm_timing;

/* Which of n timed candidates to keep: the fastest by median seconds t[i]
 * (NaN or infinite: the candidate did not run), except that the heuristic's
 * own first choice (index first; -1 when it is not among them) stays unless
 * another is more than GB_GEMM_KEEP_MARGIN faster. The search takes 2-5
 * samples per candidate while the card's clock drifts: on an H200 a
 * candidate 0.5% ahead in the search (fp32 8192^3, heuristic #2) came out
 * 1.4% behind #1 in the timed window. The same margin holds after the rested
 * confirmation: there fp32's #2 was 0.3% ahead of #1 on one H200, and kept
 * under a 0.2% margin it drew more power on another and ran 1.5% behind
 * #1's rate there (docs/perf-notes-gemm.md). -1 when none ran. */
#define GB_GEMM_KEEP_MARGIN 0.01
int gb_gemm_keep(const double *t, int n, int first);

/* Of the heuristic's first choice asked with the workspace (index a) and
 * without (index b), -1 where absent, the one with the lower time t[] (NaN
 * or infinite: it did not run); the one that ran when only one did; a on a
 * tie; when neither ran, whichever is present (-1 for neither), which
 * gb_gemm_keep and gb_gemm_finalists pass over. The search passes it as
 * `first` to both: each is the heuristic's #1, for two workspace sizes. */
int gb_gemm_first_of(const double *t, int a, int b);

/* The candidates that go on from the screening (timed back to back, the
 * card heating as it goes) to the rested confirmation: those whose screening
 * median t[i] is within GB_GEMM_FINALIST_WITHIN of the fastest, fastest
 * first, at most max of them; the heuristic's first (index first, -1 when it
 * is not among them) goes on whenever it ran: in a place of its own when
 * there is room, else in the last place. The screening, back to back while
 * the power cap comes on, can put it anywhere: on an H200 it put fp64's #1
 * at 4096x4096x14336 (128x64 tile) 5.9% behind in one process of seven,
 * the confirmation never saw it, and the 64x64 tile it kept ran 51.7
 * TFLOP/s in the window against #1's 54.7-55.2 in every process that kept
 * #1 (docs/perf-notes-gemm.md). Writes the indices to out and returns how
 * many (0 when none ran). */
#define GB_GEMM_FINALIST_WITHIN 0.05
#define GB_GEMM_FINALISTS_MAX 8
int gb_gemm_finalists(const double *t, int n, int first, int max, int *out);

/* The timing plan for one case from an estimate of one product's time
 * t_op_s: short products get several per sample (>= 100 us a sample), huge
 * ones fewer samples and fewer candidates, so that the full profile stays
 * under 10 minutes and the quick one under 60 s. Burst: 30 samples, or as
 * many as fit in 1.5 s (full) or 0.6 s (quick) when that is fewer, never
 * under 10 (5 for the sustained window). */
gb_gemm_timing gb_gemm_timing_plan(gb_profile profile, gb_gemm_window window, double t_op_s);

/* ---- mixed-precision speedups ---- */

typedef struct gb_gemm_speedup {
  char case_name[64];   /* "<precision>_vs_<reference>", e.g. "bf16_vs_fp32" */
  char dtype[16];       /* the precision's dtype */
  int64_t m, n, k;
  double value;         /* rate(precision) / rate(reference), in x */
  double rate, ref_rate;
  char detail[160];
} gb_gemm_speedup;

/* From throughput rows of the gemm benchmark (other rows, and rows whose
 * status is not ok or throttled, are ignored): for every case (precision and
 * layout) and shape with such a row, one speedup against fp32 and one
 * against fp64 at the same m, n, k, when the reference has one there too (a
 * reference is not compared with itself). The references are the TN cases
 * "fp32" and "fp64", also for NN rows, so "fp64_nn_vs_fp64" is the NN
 * layout's gain. With --repeat, each side is the median over its
 * repetitions, so there is one speedup per case, reference and shape. *out
 * is malloc'd (NULL when none); the caller frees it. */
gb_err gb_gemm_speedups(const gb_row *rows, size_t n, gb_gemm_speedup **out, size_t *nout);

/* Prints the end-of-run table: per case (each precision's TN case, then its
 * NN case when there is one) its rate at 8192^3 (or, when that shape was not
 * run, at the largest square measured), the speedup over the TN fp32 and
 * fp64 at that shape. */
void gb_gemm_summary_table(const gb_row *rows, size_t n, FILE *fp);

/* ---- the extended algorithm search ---- */

/* One configuration enumerated through cublasLtMatmulAlgoGetIds and
 * cublasLtMatmulAlgoInit that cublasLtMatmulAlgoCheck accepted. */
typedef struct gb_gemm_enum_cand {
  int algo_id;
  unsigned tile, stages; /* cublasLtMatmulTile_t, cublasLtMatmulStages_t */
  float waves;           /* cublasLtMatmulAlgoCheck's wavesCount */
} gb_gemm_enum_cand;

/* How promising an enumerated configuration looks without running it:
 * tile area (rows x columns of the CTA tile: more reuse per byte loaded)
 * times the tail efficiency waves / ceil(waves) (the share of the last
 * wave's SMs that have work); 0 when the tile or waves are unknown. */
double gb_gemm_enum_score(const gb_gemm_enum_cand *c);

/* The stage count of a cublasLtMatmulStages_t ("64x4" -> 4), with the
 * "AUTO" stages counting as 1000 (cuBLASLt fits as many as shared memory
 * holds) and 0 for undefined or unknown ids. */
int gb_gemm_stage_depth(unsigned stages);

/* Picks up to want of the n enumerated candidates to time, writing their
 * indices to picked (best first) and returning how many: per (algo id,
 * tile) only the deepest stages count; then round-robin over algo ids in the
 * order of their best score, each id's configurations by descending score
 * (ties: enumeration order), so that different kernel families are tried
 * before a second tile of one family. Candidates scoring 0 are never picked.
 * Returns 0 when out of host memory (the search then times the heuristic's
 * candidates alone). */
size_t gb_gemm_enum_pick(const gb_gemm_enum_cand *c, size_t n, size_t want, size_t *picked);

/* ---- cuBLASLt algorithm names (gemm_names.c) ---- */

/* "128x256" for a cublasLtMatmulTile_t, "64x4" for cublasLtMatmulStages_t,
 * "2x1x1" for cublasLtClusterShape_t; "auto"/"undefined" for 0 and "#<id>"
 * for an id newer than this table (written to buf). */
const char *gb_gemm_tile_name(unsigned id, char *buf, size_t n);
const char *gb_gemm_stages_name(unsigned id, char *buf, size_t n);
const char *gb_gemm_cluster_name(unsigned id, char *buf, size_t n);

/* ---- test hooks (gemm_check.c, gemm_search.c) ---- */

/* Test-only hook: when on, every case overwrites its output after the
 * checked product and before the check reads it, so the check must report
 * `invalid`. Off by default; not thread-safe. */
void gb_gemm_test_corrupt_output(bool on);

/* Test hook: ask cublasLtMatmulAlgoGetHeuristic for at most n candidates
 * (0: the usual 8), so that a test can reach the paths taken when it
 * returns fewer than 8 on any device. */
void gb_gemm_test_heuristic_max(int n);

#endif
