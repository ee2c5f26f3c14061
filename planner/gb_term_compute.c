/* Step-time term: compute. Model FLOPs per step (recomputation counted as
 * work) over the GPUs' rate at the efficiency factor; a low precision
 * (FP8, MXFP8, FP4) speeds up the GEMM time of the share of FLOPs that runs
 * in it, at the type's measured or datasheet rate for that precision.
 * Formulas: docs/planner.md, "Compute". */
#include <math.h>

#include "gb_model.h"
#include "gb_plan_int.h"

double gb_term_eff(const gb_perf_type *t, double params, const gb_plan_opts *o, bool inference) {
  double k = o->efficiency_scale > 0 ? o->efficiency_scale : 1;
  if (isfinite(o->mfu)) return fmin(1.0, o->mfu * k);
  const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
  if (inference) return fmin(1.0, m->infer_eff * k);
  return fmin(1.0, gb_model_at_size(m->hfu, params) / m->gemm_typical * k);
}

double gb_term_compute_seconds(const gb_workload *w, const gb_perf_type *t, const gb_layout *l, double eta,
                               const gb_figs *f) {
  /* full recompute runs the forward (1/3 of the work) again; selective recompute the attention's forward */
  double fhw = w->flops_per_token * (w->recompute ? 4.0 / 3.0 : 1.0);
  if (w->recompute_selective && !w->recompute) fhw += w->attention_flops_per_token / 3;
  /* compute at BF16, then the low precision speeds up its share of the GEMM time */
  double t_comp = fhw * w->tokens_per_step / ((double)l->n * f->gemm_base * eta);
  if (f->gemm != f->gemm_base) {
    const gb_arch_model *m = t->model ? t->model : gb_arch_model_find("");
    double s = gb_model_at_size(m->gemm_share, w->active_params) * w->fp8_share;
    t_comp *= (1 - s) + s * f->gemm_base / f->gemm;
  }
  return t_comp * l->stage_pace * gb_term_moe_compute_factor(w, t, l, f);
}
