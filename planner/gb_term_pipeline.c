/* Step-time term: the pipeline bubble. 1F1B leaves (pp - 1) idle slots per
 * round of micro-batches; interleaving v model chunks per rank shrinks each
 * slot v-fold: bubble = t_compute x (pp - 1) / (v x m) (Narayanan et al.
 * 2021, arXiv 2104.04473, sec. 2.2.2). Formulas: docs/planner.md,
 * "Pipeline". */
#include "gb_plan_int.h"

double gb_term_bubble_seconds(const gb_layout *l, double t_comp) {
  return l->pp > 1 ? t_comp * (l->pp - 1) / (l->vp * l->micro) : 0;
}
