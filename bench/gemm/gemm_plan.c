/* gemm_plan: the plan of a campaign's cases, dense and grouped, under the
 * --opt gemm.* keys and the profile (bench_gemm.h). No CUDA calls: tested
 * on the CPU. Called by gemm_bench.c (the plan hook); it calls down into
 * gemm_opts.c, gemm_shapes.c, gemm_precs.c and gemm_grouped.c. */
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"

gb_case gb_gemm_make_case(const gb_gemm_prec *p, gb_gemm_layout l, int64_t m, int64_t n, int64_t k) {
  char name[64];
  gb_case c = gb_case_init(gb_gemm_case_name(p, l, name, sizeof name), p->dtype);
  c.m = m;
  c.n = n;
  c.k = k;
  c.param[0] = (long)l;
  c.spec = p;
  return c;
}

/* The dense cases: shape-major, so the precisions of one shape run close
 * together in time, and a precision's layouts one after the other. */
static gb_err plan_dense(const gb_gemm_opts *o, gb_profile profile, int cc_major, int cc_minor,
                         gb_case_list *out) {
  size_t nshapes = o->nshapes ? o->nshapes : gb_gemm_shapes(profile, NULL, 0);
  gb_gemm_shape *shapes = malloc(nshapes * sizeof *shapes);
  if (!shapes) return gb_fail(GB_E_NOMEM, "gemm: out of memory planning cases");
  if (o->nshapes)
    memcpy(shapes, o->shapes, nshapes * sizeof *shapes);
  else
    gb_gemm_shapes(profile, shapes, nshapes);
  size_t np;
  const gb_gemm_prec *precs = gb_gemm_precs(&np);
  gb_err err = GB_OK;
  char why[320];
  for (size_t s = 0; s < nshapes && !err; s++)
    for (size_t i = 0; i < np && !err; i++)
      for (int l = 0; l < GB_GEMM_NLAYOUTS && !err; l++) {
        if (!gb_gemm_plan_wants(o, &precs[i], (gb_gemm_layout)l, cc_major, cc_minor)) continue;
        /* a block-scaled precision the known device cannot run: one case, at
         * the first shape, whose row says why (gb_gemm_skip_row) */
        if (s > 0 && precs[i].block && cc_major >= 0 &&
            !gb_gemm_supported(&precs[i], cc_major, cc_minor, why, sizeof why))
          continue;
        gb_case c = gb_gemm_make_case(&precs[i], (gb_gemm_layout)l, shapes[s].m, shapes[s].n, shapes[s].k);
        err = gb_case_list_add(out, &c);
      }
  free(shapes);
  return err;
}

/* The grouped cases (TN): shape-major, the precisions of gemm.precs or the
 * profile's. */
static gb_err plan_grouped(const gb_gemm_opts *o, gb_profile profile, gb_case_list *out) {
  gb_gemm_gshape prof[64];
  size_t nprof = gb_gemm_grouped_shapes(profile, prof, sizeof prof / sizeof prof[0]);
  if (nprof > sizeof prof / sizeof prof[0]) return gb_fail(GB_E_INTERNAL, "gemm: grouped shape table too long");
  const gb_gemm_gshape *shapes = o->ngshapes ? o->gshapes : prof;
  size_t nshapes = o->ngshapes ? o->ngshapes : nprof;
  const gb_gemm_prec *own[8];
  size_t np = gb_gemm_grouped_precs(profile, own, sizeof own / sizeof own[0]);
  const gb_gemm_prec *const *precs = o->nprecs ? o->precs : own;
  if (o->nprecs) np = o->nprecs;
  gb_err err = GB_OK;
  for (size_t s = 0; s < nshapes && !err; s++)
    for (size_t i = 0; i < np && !err; i++) {
      gb_case c = gb_gemm_make_grouped_case(precs[i], &shapes[s]);
      err = gb_case_list_add(out, &c);
    }
  return err;
}

gb_err gb_gemm_plan(const gb_gemm_opts *o, gb_profile profile, int cc_major, int cc_minor, gb_case_list *out) {
  /* a shape list given for one kind alone selects that kind */
  bool dense = o->grouped != GB_GEMM_GROUPED_ONLY && !(o->ngshapes && !o->nshapes);
  bool grouped = o->grouped != GB_GEMM_GROUPED_OFF && !(o->nshapes && !o->ngshapes);
  if (!dense && !grouped)
    return gb_fail(GB_E_USAGE, "--opt gemm.grouped=%s with gemm.%s alone plans no case",
                   o->grouped == GB_GEMM_GROUPED_ONLY ? "only" : "off",
                   o->grouped == GB_GEMM_GROUPED_ONLY ? "shapes" : "grouped_shapes");
  gb_err err = dense ? plan_dense(o, profile, cc_major, cc_minor, out) : GB_OK;
  return !err && grouped ? plan_grouped(o, profile, out) : err;
}
