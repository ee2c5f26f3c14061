/* Step-time term: memory. What one GPU holds (model state split by the
 * layout; experts split over expert parallelism; the optimizer state over
 * data parallelism with the distributed optimizer, everything with sharded
 * state) and the optimizer's pass over it each step. Formulas:
 * docs/planner.md, "Memory". */
#include <math.h>

#include "gb_plan_int.h"

/* Of mixed-precision Adam's 16 bytes a parameter, the BF16 weight and
 * gradient (4) stay whole; the FP32 master weight and two moments (12) are
 * what ZeRO-1 (Megatron's distributed optimizer) shards. */
#define REPLICATED_BYTES 4.0

double gb_term_memory_need(const gb_workload *w, gb_layout *l) {
  /* parameters a GPU holds: with expert parallelism the active (dense and routed-to) share whole and
   * the other experts split over the expert-parallel group */
  l->held = l->ep > 1 ? w->active_params + (w->params - w->active_params) / l->ep : w->params;
  double replicas = (double)l->dp * l->cp; /* the GPUs that hold the same weights */
  double per_param = w->memory_bytes_per_param;
  if (w->distributed_optimizer && !w->sharded) {
    double whole = fmin(REPLICATED_BYTES, per_param);
    per_param = whole + (per_param - whole) / replicas;
  }
  l->shard = l->held * per_param / (l->tp * l->pp);
  if (w->sharded) l->shard /= replicas;
  return l->shard + w->activation_gb_per_gpu * 1e9;
}

double gb_term_memory_seconds(const gb_layout *l, const gb_figs *f) {
  return l->shard / f->bw; /* the optimizer reads and writes its state once per step */
}
