/* gb_rep_fma: the report's CUDA-core FMA section. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

gb_err gb_rep_section_fma(gb_rep *r) {
  const char *metric[] = {"tflops"};
  gb_rep_names cases = {0};
  gb_err e = gb_rep_collect_cases(r, "fma", metric, 1, &cases);
  if (!e && cases.n == 0) {
    gb_rep_names_free(&cases);
    return GB_OK; /* the roofline notes a missing CUDA-core ceiling */
  }
  if (!e) e = gb_doc_heading(&r->doc, 2, "CUDA-core FMA peak");
  if (!e && cases.n > 1) qsort(cases.v, cases.n, sizeof *cases.v, gb_rep_cmp_precision);
  gb_plot_spec p = {.stem = "fma", .title = "CUDA-core FMA throughput", .xlabel = "data type",
                    .ylabel = "throughput (TFLOP/s)", .ref_title = "datasheet peak"};
  if (!e)
    e = gb_rep_bars_by_source(r, &p, &cases, "fma", metric, 1, false, "fma",
                       "CUDA-core FMA throughput per data type and GPU type (no tensor cores)");
  gb_rep_names_free(&cases);
  return e;
}
