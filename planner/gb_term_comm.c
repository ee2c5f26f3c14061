/* Step-time term: communication, by tier. Inside a node the measured (or
 * projected) in-node bus bandwidth; across nodes the node's NICs. Tensor
 * parallel all-reduces, pipeline point-to-point and the data-parallel
 * gradient all-reduce. Formulas: docs/planner.md, "Communication". */
#include <math.h>

#include "gb_model.h"
#include "gb_plan_int.h"

double gb_term_busbw(const gb_perf *perf, const gb_perf_type *t, int members, int local, int gpn, double bytes,
                     const gb_plan_opts *o, double scale, bool *projected) {
  if (members <= 1) return INFINITY;
  if (local > members) local = members;
  if (local < 1) local = 1;
  bool proj = false;
  double intra = local >= 2 ? gb_perf_busbw_gbps(perf, t, local, local, bytes, INFINITY, &proj) : INFINITY;
  if (proj) *projected = true;
  if (members <= local) return intra * scale;
  *projected = true;
  double node = t->nic_node_gbps;
  if (isfinite(o->nics_per_node) || isfinite(o->nic_gbit)) {
    double nics = isfinite(o->nics_per_node) ? o->nics_per_node : t->spec->nics_per_node;
    double gbit = isfinite(o->nic_gbit) ? o->nic_gbit : t->spec->nic_gbit;
    node = nics * gbit / 8;
  }
  if (isfinite(o->nic_gbps)) node = o->nic_gbps * gpn; /* per-GPU override */
  if (!isfinite(node)) node = 50.0 * gpn * 0.25;       /* unknown network: one 400 Gb/s NIC per 4 GPUs */
  double cross = node * GB_NIC_EFFICIENCY * (double)local / gpn;
  return fmin(intra, cross) * scale;
}

static const double k_act_bytes = 2; /* BF16 activations */

double gb_term_tp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  /* tensor parallel: 4 all-reduces per layer (2 forward, 2 backward), 2 more with recompute, of the
   * micro-batch's activations, inside the node, not hidden */
  int tp = l->tp;
  if (tp <= 1) return 0;
  double bytes = l->micro_tokens * w->hidden_size * k_act_bytes;
  double bw = gb_term_busbw(perf, t, tp, tp, l->gpn, bytes, o, f->comm_scale, proj) * 1e9;
  return (w->layers / l->pp) * (4 + (w->recompute ? 2 : 0)) * (l->tokens_dp / l->micro_tokens) * 2.0 * (tp - 1) / tp *
         bytes / bw;
}

double gb_term_pp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  /* pipeline: activations forward and gradients back across each stage boundary */
  int pp = l->pp, tp = l->tp, gpn = l->gpn;
  if (pp <= 1) return 0;
  double bytes = l->tokens_dp * w->hidden_size * k_act_bytes * 2;
  int local = gpn / tp >= pp ? pp : 1;
  double bw = gb_term_busbw(perf, t, 2, local >= 2 ? 2 : 1, gpn / tp > 0 ? gpn / tp : 1, bytes, o, f->comm_scale, proj);
  return bytes / (bw * 1e9);
}

double gb_term_dp_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                          const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  /* data parallel: ring all-reduce of the gradients (sharded state: reduce-scatter + 2 all-gathers = 1.5x),
   * hierarchical: the ranks of one node share its NICs */
  int dp = l->dp, tp = l->tp, pp = l->pp, gpn = l->gpn;
  if (dp <= 1) return 0;
  double grad = w->grad_bytes * (l->held / w->params) / (tp * pp);
  double vol = grad * (w->sharded ? 1.5 : 1.0);
  int local = gpn / (tp * pp) > 0 ? gpn / (tp * pp) : 1;
  double msg = w->bucket_bytes < grad ? w->bucket_bytes : grad;
  double bw = gb_term_busbw(perf, t, dp, local, gpn, msg, o, f->comm_scale, proj) * 1e9;
  return 2.0 * (dp - 1) / dp * vol / bw;
}
