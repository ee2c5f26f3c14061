/* Step-time term: mixture of experts. Each token's hidden state goes to
 * top_k experts and back, forward and backward. Formulas: docs/planner.md,
 * "Mixture of experts". */
#include "gb_plan_int.h"

double gb_term_moe_seconds(const gb_workload *w, const gb_perf *perf, const gb_perf_type *t, const gb_layout *l,
                           const gb_plan_opts *o, const gb_figs *f, bool *proj) {
  int ep = l->ep, tp = l->tp, gpn = l->gpn;
  if (ep <= 1) return 0;
  const double act_bytes = 2; /* BF16 activations */
  double bytes = 4 * w->moe_top_k * w->hidden_size * act_bytes * (ep - 1.0) / ep * l->tokens_dp * (w->layers / l->pp);
  double bw;
  if (ep <= gpn / tp) bw = gb_term_busbw(perf, t, ep, ep, gpn, 1e8, o, f->comm_scale, proj);
  else bw = gb_term_busbw(perf, t, ep, 1, gpn, 1e8, o, f->comm_scale, proj); /* per-GPU NIC share */
  return bytes / (bw * 1e9);
}
