/* Step-time term: communication, by tier. Inside a node (or an NVLink
 * domain wider than a node) the measured or projected in-node bus
 * bandwidth; across nodes the node's NICs, shared by the rings that cross
 * at once. Tensor-parallel all-reduces, pipeline point-to-point, the
 * data-parallel gradient reduction and context-parallel ring attention.
 * Formulas: docs/planner.md, "Communication". */
#include <math.h>

#include "gb_model.h"
#include "gb_plan_int.h"

double gb_term_node_gbps(const gb_perf_type *t, int gpn, const gb_plan_opts *o, double offer_gbps) {
  if (isfinite(o->nic_gbps)) return o->nic_gbps * gpn; /* per-GPU override */
  double node = t->nic_node_gbps;
  double node_gpus = isfinite(t->spec->node_gpus) ? t->spec->node_gpus : 8;
  if (isfinite(offer_gbps)) node = offer_gbps;
  else if (gpn < node_gpus) node = GB_PARTIAL_NODE_GBIT / 8; /* a slice of a server: no rail of its fabric */
  if (isfinite(o->nics_per_node) || isfinite(o->nic_gbit)) {
    double nics = isfinite(o->nics_per_node) ? o->nics_per_node : t->spec->nics_per_node;
    double gbit = isfinite(o->nic_gbit) ? o->nic_gbit : t->spec->nic_gbit;
    node = nics * gbit / 8;
  }
  if (!isfinite(node)) node = 50.0 * gpn * 0.25; /* unknown network: one 400 Gb/s NIC per 4 GPUs */
  return node;
}

double gb_term_busbw_node(const gb_perf *perf, const gb_perf_type *t, int members, int local, int gpn, double bytes,
                          const gb_plan_opts *o, double node_gbps, double scale, bool *projected) {
  if (members <= 1) return INFINITY;
  if (local > members) local = members;
  if (local < 1) local = 1;
  bool proj = false;
  double intra = local >= 2 ? gb_perf_busbw_gbps(perf, t, local, local, bytes, INFINITY, &proj) : INFINITY;
  if (proj) *projected = true;
  if (members <= local) return intra * scale;
  *projected = true;
  double node = isfinite(node_gbps) ? node_gbps : gb_term_node_gbps(t, gpn, o, NAN);
  double cross = node * GB_NIC_EFFICIENCY * (double)local / gpn;
  return fmin(intra, cross) * scale;
}

double gb_term_busbw(const gb_perf *perf, const gb_perf_type *t, int members, int local, int gpn, double bytes,
                     const gb_plan_opts *o, double scale, bool *projected) {
  return gb_term_busbw_node(perf, t, members, local, gpn, bytes, o, NAN, scale, projected);
}

static const double k_act_bytes = 2; /* BF16 activations */

/* Ranks of a group of `members` whose stride is `stride` GPUs that share
 * one NVLink domain. */
static int local_ranks(const gb_layout *l, int members, int stride) {
  int k = l->domain / (stride > 0 ? stride : 1);
  if (k < 1) k = 1;
  return k < members ? k : members;
}

double gb_term_tp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  /* tensor parallel: 4 all-reduces per layer (2 forward, 2 backward; with sequence parallel a reduce-scatter
   * and an all-gather each, the same volume), 2 more with full recompute, of the micro-batch's activations
   * (its 1/cp of the sequence), inside the node, not hidden */
  int tp = l->tp;
  if (tp <= 1) return 0;
  double bytes = l->micro_tokens / l->cp * w->hidden_size * k_act_bytes;
  double bw = gb_term_busbw_node(perf, t, tp, tp, l->gpn, bytes, o, l->node_gbps, f->comm_scale, proj) * 1e9;
  return (w->layers / l->pp) * (4 + (w->recompute ? 2 : 0)) * (l->tokens_dp / l->micro_tokens) * 2.0 * (tp - 1) / tp *
         bytes / bw;
}

double gb_term_pp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  /* pipeline: activations forward and gradients back across each stage boundary (virtual_pipeline times as
   * many boundaries when interleaved), each GPU its 1/(tp cp) of them */
  int pp = l->pp, tp = l->tp, gpn = l->gpn;
  if (pp <= 1) return 0;
  double bytes = l->tokens_dp / l->cp * w->hidden_size * k_act_bytes * 2 * l->vp;
  int local = gpn / tp >= pp ? pp : 1;
  double bw = gb_term_busbw_node(perf, t, 2, local >= 2 ? 2 : 1, gpn / tp > 0 ? gpn / tp : 1, bytes, o, l->node_gbps,
                                 f->comm_scale, proj);
  return bytes / (bw * 1e9);
}

double gb_term_dp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  /* data parallel: the gradients are reduced over every replica of the weights, dp x cp GPUs (context
   * parallel ranks hold the same weights); ring all-reduce, or reduce-scatter + all-gather (distributed
   * optimizer: the same volume); sharded state (FSDP/ZeRO-3) 1.5x; the ranks of one node share its NICs */
  int members = l->dp * l->cp, tp = l->tp, pp = l->pp;
  if (members <= 1) return 0;
  double grad = w->grad_bytes * (l->held / w->params) / (tp * pp);
  double vol = grad * (w->sharded ? 1.5 : 1.0);
  int local = local_ranks(l, members, tp * pp);
  double msg = w->bucket_bytes < grad ? w->bucket_bytes : grad;
  double bw = gb_term_busbw_node(perf, t, members, local, l->gpn, msg, o, l->node_gbps, f->comm_scale, proj) * 1e9;
  return 2.0 * (members - 1) / members * vol / bw;
}

double gb_term_cp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, double t_attn, bool *proj) {
  /* ring attention: each rank passes its K and V chunk (seq/cp tokens x kv_heads x head_dim, 2 bytes) to the
   * next cp - 1 times a layer forward, K, V and their gradients backward: 3 x (cp - 1)/cp of the micro-batch's
   * K and V a layer; the transfers overlap the attention compute of the chunk in hand */
  int cp = l->cp;
  if (cp <= 1) return 0;
  double head_dim = w->head_dim;
  double kv_heads = w->kv_heads;
  double kv = l->tokens_dp / cp * 2 * kv_heads * head_dim * k_act_bytes / l->tp;
  double bytes = 3.0 * (cp - 1) * kv * (w->layers / l->pp);
  int local = local_ranks(l, cp, l->tp);
  double chunk = l->micro_tokens / cp * 2 * kv_heads * head_dim * k_act_bytes / l->tp;
  double bw = gb_term_busbw_node(perf, t, cp, local, l->gpn, chunk, o, l->node_gbps, f->comm_scale, proj) * 1e9;
  double t_cp = bytes / bw;
  return t_cp > t_attn ? t_cp - t_attn : 0;
}
