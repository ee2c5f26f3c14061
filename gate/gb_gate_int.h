/* gb_gate_int: what the gate's files share inside gate/ (not an interface):
 * rows keyed by figure, and the per-figure statistics and verdict rules of
 * gb_gate_judge.c. */
#ifndef GB_GATE_INT_H
#define GB_GATE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_desc.h"
#include "gb_gate.h"

typedef struct keyed_row {
  char *key; /* internal key: fields joined by \x1f */
  int side;  /* 0 baseline, 1 current */
  const gb_row *row;
} keyed_row;

/* Fills one side of a figure from its n rows (any status); dir: its
 * metric's direction (the best sample of a run is its peak). */
gb_err gb_gate_fill_side(gb_gate_side *s, const keyed_row *rows, size_t n, int dir);

/* Whether a figure's verdict decides the outcome. */
bool gb_gate_is_gated(const gb_row *r, gb_fclass cls, bool gate_latency);

/* The verdict of a figure present on both sides and comparable: failed,
 * collapsed, unstable, insufficient, else by its noise (gb_gate.h). own_cv:
 * the figure's own-spread bound (NaN when unknown); z: the normal quantile
 * of the comparison's alpha (gb_gate_z), found once. */
void gb_gate_judge(gb_gate_item *it, const gb_gate_options *opt, double min_pct, double z, double own_cv);
/* The verdict of a figure with a side of unsupported rows only (a case the
 * device cannot run): failed when the baseline measured it and the current
 * cannot, else unsupported (information: no measurement, no verdict). */
void gb_gate_judge_unsupported(gb_gate_item *it);

/* The figures a derived one may take its sides from (not themselves
 * derived, "_vs_"), sorted by benchmark, gpu_type, m, n, k, gpu_count,
 * case and item index: a side is two binary searches, not a scan of every
 * figure for each derived one. */
typedef struct gb_derived_ix {
  size_t n;
  struct gb_derived_entry *e;
} gb_derived_ix;

/* Indexes rep's items as they are now (their order must not change while
 * it is used). GB_E_NOMEM. */
gb_err gb_gate_derived_ix_build(const gb_gate_report *rep, gb_derived_ix *ix);
void gb_gate_derived_ix_free(gb_derived_ix *ix);

/* The items of a derived figure's two sides ("A_vs_B": cases A and B at its
 * shape, on its node where judged node by node) into *a and *b; false (SIZE_MAX in either) when one is not found. */
bool gb_gate_derived_sides(const gb_derived_ix *ix, const gb_gate_item *it, size_t *a, size_t *b);

/* The spread of a derived figure from its sides' spreads (NaN when either
 * is unknown): sqrt(cv_A^2 + cv_B^2). */
double gb_gate_derived_cv(double cva, double cvb);

#endif
