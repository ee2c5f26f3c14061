/* gb_rep_sections: the table of the report's sections (gb_rep_sections.h). */
#include "gb_rep_sections.h"

#include <string.h>

const gb_rep_section gb_rep_sections[] = {
    {"gemm",
     gb_rep_section_gemm,
     {{"gemm", "tflops", "GEMM %s (TFLOP/s)", false, true, "", GB_REP_AT_NONE, false, NULL, NULL},
      {"gemm", "tops", "GEMM %s (TOP/s)", false, true, "", GB_REP_AT_NONE, false, NULL, NULL},
      /* the sustained window (gemm.window=sustained): the clocks a card holds under load, and the window
       * the energy counter can read (a per-W figure); a type measured only so has no burst row above */
      {"gemm", "tflops_sustained", "GEMM %s, sustained window (TFLOP/s)", false, true, "", GB_REP_AT_NONE, false, NULL,
       "A sustained-window row is GEMM timed over a long window (--opt gemm.window=sustained: at least 0.5 s of "
       "products, longer with --iters): the clocks the card holds under load, below its burst figure; a window "
       "long enough for the energy counter (2 s or more) gives it a per-W figure."}}},
    {"fma", gb_rep_section_fma, {{"fma", "tflops", "CUDA-core FMA %s (TFLOP/s)", false, false, "", GB_REP_AT_NONE, false, NULL, NULL}}},
    {"membw", gb_rep_section_membw, {{"membw", "gbps", "memory %s, HBM (GB/s)", true, false, "hbm", GB_REP_AT_SIZE, false, NULL, NULL}}},
    {"copy", gb_rep_section_copy, {{"copy", "gbps", "copy %s (GB/s)", false, false, NULL, GB_REP_AT_NONE, false, NULL, NULL}}},
    {"collective",
     gb_rep_section_collective,
     /* multi-GPU only: on one GPU busbw is not measured (0 by definition) and
      * no collective figure says anything about an interconnect */
     {{"collective", "busbw_gbps", "%s busbw (GB/s)", false, false, NULL, GB_REP_AT_GPUS, false, NULL, NULL}}},
    {.name = "roofline", .write = gb_rep_section_roofline}, /* no headline rows */
};
const size_t gb_rep_nsections = sizeof gb_rep_sections / sizeof gb_rep_sections[0];

const gb_rep_section *gb_rep_section_find(const char *name) {
  for (size_t i = 0; name && i < gb_rep_nsections; i++)
    if (strcmp(gb_rep_sections[i].name, name) == 0) return &gb_rep_sections[i];
  return NULL;
}
