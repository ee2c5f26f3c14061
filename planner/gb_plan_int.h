/* gb_plan_int: what the planner's stages share inside planner/ (not an API).
 *
 * The stages, one file each (docs/planner.md, "Where each stage lives"):
 *   options        gb_plan_opts.c
 *   step time      gb_plan_time.c composes the terms of a training step, each in
 *                  its own file: gb_term_compute.c, gb_term_memory.c,
 *                  gb_term_comm.c (communication tiers), gb_term_pipeline.c,
 *                  gb_term_moe.c; serving in gb_time_serve.c
 *   money          gb_plan_money.c (rental, ownership, spot, break-even)
 *   ranking        gb_plan.c (enumeration, filters, ranking, Pareto)
 *   what-if        gb_plan_whatif.c (sensitivity, hybrid)
 *   outputs        gb_plan_out.c (CSV, JSON, sensitivity and hybrid writers) */
#ifndef GB_PLAN_INT_H
#define GB_PLAN_INT_H

#include <json-c/json.h>

#include "gb_csv.h"
#include "gb_plan.h"

#define GB_HOURS_PER_YEAR 8760.0

/* Figures of one type as the model uses them, scaled to one end of their
 * band (1 = the figure itself). */
typedef struct gb_figs {
  double gemm, gemm_base; /* FLOP/s: at the precision; BF16 (the non-GEMM share of FP8) */
  double bw;              /* HBM bytes/s */
  double comm_scale;      /* busbw multiplier */
} gb_figs;

/* ---- communication tiers (gb_term_comm.c) ---- */

/* Bus bandwidth in GB/s of a collective over `members` GPUs of which `local`
 * share a node: inside one node the in-node curve (measured or projected);
 * across nodes the node's NICs, shared by the gpn/local rings that cross at
 * once, at GB_NIC_EFFICIENCY, and never above the in-node figure. Sets
 * *projected when the figure is not a measurement. Infinity for one GPU. */
double gb_term_busbw(const gb_perf *perf, const gb_perf_type *t, int members, int local, int gpn, double bytes,
                     const gb_plan_opts *o, double scale, bool *projected);

/* The same with the node's cross-node line rate given (GB/s a node; NaN:
 * the specs'). */
double gb_term_busbw_node(const gb_perf *perf, const gb_perf_type *t, int members, int local, int gpn, double bytes,
                          const gb_plan_opts *o, double node_gbps, double scale, bool *projected);

/* The parallel layout of one training configuration and what every term
 * reads of it. */
typedef struct gb_layout {
  int n, gpn, tp, pp, vp, cp, ep, dp; /* dp: model replicas, n / (tp pp cp) */
  double node_gbps;    /* the node's cross-node line rate, GB/s (gb_term_node_gbps) */
  int domain;          /* GPUs that share one NVLink (or PCIe) domain: the node, or the specs' nvlink_domain */
  double held;         /* parameters one model replica's GPUs hold (experts split over EP) */
  double shard;        /* bytes of model state one GPU holds */
  double micro_tokens; /* tokens per micro-batch (all of its sequences, before the context split) */
  double tokens_dp;    /* tokens one model replica processes per step */
  double micro;        /* micro-batches per step per replica */
  double stage_pace;   /* the fullest pipeline stage's layers over the mean (1: even stages) */
  bool whole_step_eff; /* --mfu given: the efficiency covers the whole step, every FLOP at it */
  double eff_scale;    /* --efficiency-scale (1: none) */
} gb_layout;

/* Seconds per step of tensor-parallel, pipeline point-to-point and
 * data-parallel communication. */
double gb_term_tp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj);
double gb_term_pp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj);
double gb_term_dp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj);

/* Seconds per step of context-parallel (ring attention) K/V traffic left
 * exposed after the attention compute it overlaps, given that compute. */
double gb_term_cp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, double t_attn, bool *proj);

/* Line rate of a node's NICs, GB/s: --nic-gbps x gpn, else --nics-per-node
 * and --nic-gbit over the specs', else the offering's (offer_gbps, NaN: not
 * given), else the specs' for a whole server (gpn >= the specs' node_gpus)
 * and GB_PARTIAL_NODE_GBIT for a slice of one. */
double gb_term_node_gbps(const gb_perf_type *t, int gpn, const gb_plan_opts *o, double offer_gbps);

/* A slice of a server sold alone (1 of 8 GPUs) has no rail of the server's
 * fabric: one Ethernet port of a cloud instance of that size (AWS g6e.xlarge
 * and g6.xlarge: up to 20 and 10 Gb/s), 25 Gb/s. */
#define GB_PARTIAL_NODE_GBIT 25.0

/* ---- compute (gb_term_compute.c) ---- */

/* The efficiency factor: --mfu, else the architecture's table (training:
 * hfu / gemm_typical at the model size; inference: infer_eff), times
 * --efficiency-scale, at most 1. */
double gb_term_eff(const gb_perf_type *t, double params, const gb_plan_opts *o, bool inference);

/* Training in a block-scaled format: the architecture's block_scaled_eff (1 for other precisions, or a row
 * without one), the share of the GEMM rates its steps reach beside a BF16 or per-tensor FP8 run's. */
double gb_term_block_scaled_eff(const gb_workload *w, const gb_perf_type *t);

/* Seconds of model FLOPs per step on the layout's GPUs (recompute and the
 * FP8 share of GEMM time included). */
double gb_term_compute_seconds(const gb_workload *w, const gb_perf_type *t, const gb_layout *l, double eta,
                               const gb_figs *f);

/* Seconds per step of element-wise work (norms, residuals, activations and
 * their gradients), bound by HBM bandwidth. */
double gb_term_elementwise_seconds(const gb_workload *w, const gb_layout *l, const gb_figs *f);

/* ---- memory (gb_term_memory.c) ---- */

/* Fills the layout's held and shard; returns the bytes one GPU needs. */
double gb_term_memory_need(const gb_workload *w, gb_layout *l);

/* Seconds per step the optimizer spends streaming its state once. */
double gb_term_memory_seconds(const gb_layout *l, const gb_figs *f);

/* ---- pipeline (gb_term_pipeline.c) ---- */

/* Seconds of 1F1B bubble per step given the compute time per step. */
double gb_term_bubble_seconds(const gb_layout *l, double t_comp);

/* ---- mixture of experts (gb_term_moe.c) ---- */

/* Seconds per step of the expert all-to-all (dispatch and combine), by
 * tier: NVLink inside the domain, NICs across. */
double gb_term_moe_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                           const gb_plan_opts *o, const gb_figs *f, bool *proj);

/* The factor the expert GEMMs stretch the step's compute by: their share of
 * the FLOPs at the grouped-GEMM efficiency of their shape (tokens per expert
 * x hidden x expert FFN width) instead of the dense rate; 1 for a dense
 * model. */
double gb_term_moe_compute_factor(const gb_workload *w, const gb_perf_type *t, const gb_layout *l, const gb_figs *f);

/* Rows of a Hopper/Blackwell GEMM tile (CUTLASS and cuBLAS 128 x N tiles): a training expert GEMM's tile. */
#define GB_MOE_TILE_M 128.0

/* Tokens one expert gets per grouped GEMM (one micro-batch): micro-batch tokens / (cp tp) x ep x top_k / experts. */
double gb_term_moe_tokens_per_expert(const gb_workload *w, const gb_layout *l);

/* Share of the dense GEMM rate the expert GEMMs (gate/up and down, harmonic) reach at m tokens per expert: the
 * type's measured grouped GEMM at the shape, else the curve (roofline, small-shape factor, fill of tile-row
 * tiles); 1 for a dense model. Without roofline (serving, whose weights term times the bytes) the compute side
 * only: small-shape factor x tile fill, measured rows not read. */
double gb_term_moe_expert_eff(const gb_workload *w, const gb_perf_type *t, const gb_figs *f, double m, double tile,
                              bool roofline);

/* The busiest expert-parallel rank's tokens over the mean: 1 with balanced routing or a dense model; a learned
 * router's documented figure, capped at moe_capacity_factor. */
double gb_term_moe_imbalance(const gb_workload *w);

/* Seconds per step of the token permutation (k copies into expert order and back, at HBM bandwidth, on the
 * busiest rank); *router gets the router's (logits GEMM, score function, top-k). 0 for a dense model. */
double gb_term_moe_local_seconds(const gb_workload *w, const gb_layout *l, const gb_figs *f, double eta,
                                 double *router);

/* ---- workload kinds (gb_plan_time.c, gb_time_serve.c) ---- */

void gb_time_training(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                      double node_gbps, const gb_plan_opts *o, const gb_figs *f, gb_plan_time *out);
void gb_time_inference(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, int n, int gpn,
                       const gb_plan_opts *o, const gb_figs *f, gb_plan_time *out);

/* ---- money (gb_plan_money.c) ---- */

/* The cheapest on-demand or reserved rental of a type (spot is not capacity
 * one can plan a fleet on) within --max-price-age, preferring prices younger
 * than 18 months. */
const gb_price *gb_plan_cheapest_rental(const gb_prices *prices, const char *type, const gb_plan_opts *o);

/* Work of the workload in the efficiency unit (PFLOP or Mtok). */
double gb_plan_work_units(const gb_workload *w);

/* Prices a timed row: rate, capex, break-even, the spot stretch (or a
 * GB_REJECT_SPOT), amortized and cash cost and their band, the ranked end,
 * and the efficiency. */
void gb_plan_price_row(const gb_plan_opts *o, const gb_prices *prices, double work, gb_plan_row *r);

/* The row's price age: days, the 18-month flag and the band's widening
 * (GB_PRICE_AGE_RATE_PER_YEAR, --price-age-rate). */
void gb_plan_price_age(const gb_plan_opts *o, gb_plan_row *r);

/* ---- outputs (gb_plan_out.c) ---- */

/* JSON values (gb_plan_jsonv.c), built for json-c to serialise: a string
 * as valid UTF-8 (a byte that is not becomes U+FFFD, as in every other
 * format: core/gb_escape.h); a number, NULL (json-c's null) when not
 * finite, an integer when it is one (up to 2^53), else with the CSV's
 * digits; a boolean; an integer; text as it is (a constant); an empty
 * object or array. A value that cannot be made (out of memory) is noted,
 * and gb_json_write fails whole. */
typedef struct json_object gb_json;
gb_json *gb_json_str(const char *v);
gb_json *gb_json_num(double v);
gb_json *gb_json_bool(bool v);
gb_json *gb_json_int(long long v);
gb_json *gb_json_text(const char *v);
gb_json *gb_json_obj(void);
gb_json *gb_json_arr(void);
/* key = v (taken; NULL: null) in o; v (taken) at the end of array a. */
void gb_json_put(gb_json *o, const char *key, gb_json *v);
void gb_json_append(gb_json *a, gb_json *v);
/* root written to path atomically (one key a line), then freed. */
gb_err gb_json_write(gb_json *root, const char *path);

/* The fields of the plan record as one JSON object, typed: a
 * configuration's (per_plan false; its time breakdown under "time") or the
 * plan-wide ones (true). */
gb_json *gb_plan_json_fields(const gb_plan *p, const gb_plan_row *r, bool per_plan);

#endif
