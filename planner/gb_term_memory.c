/* Step-time term: memory. What one GPU holds (model state split by the
 * layout; experts split over expert parallelism; sharded state over data
 * parallelism) and the optimizer's pass over it each step. Formulas:
 * docs/planner.md, "Memory". */
#include "gb_plan_int.h"

double gb_term_memory_need(const gb_workload *w, gb_layout *l) {
  /* parameters a GPU holds: with expert parallelism the active (dense and routed-to) share whole and
   * the other experts split over the expert-parallel group */
  l->held = l->ep > 1 ? w->active_params + (w->params - w->active_params) / l->ep : w->params;
  l->shard = l->held * w->memory_bytes_per_param / (l->tp * l->pp);
  if (w->sharded) l->shard /= l->dp;
  return l->shard + w->activation_gb_per_gpu * 1e9;
}

double gb_term_memory_seconds(const gb_layout *l, const gb_figs *f) {
  return l->shard / f->bw; /* the optimizer reads and writes its state once per step */
}
