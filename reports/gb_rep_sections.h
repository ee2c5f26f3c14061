/* gb_rep_sections: the report's sections as a table. Each benchmark's
 * description (core/gb_desc.h, gb_bench_desc.section) names the section
 * that draws it; gb_report.c runs the table's sections in order after the
 * headline table. Not a public API. */
#ifndef GB_REP_SECTIONS_H
#define GB_REP_SECTIONS_H

#include <stddef.h>

#include "gb_rep.h"

typedef struct gb_rep_section {
  const char *name;           /* gb_bench_desc.section of the benchmarks it draws */
  gb_err (*write)(gb_rep *r); /* appends the section to r->doc */
} gb_rep_section;

/* The campaign sections, in report order. */
extern const gb_rep_section gb_rep_sections[];
extern const size_t gb_rep_nsections;

/* A section by name, or NULL. */
const gb_rep_section *gb_rep_section_find(const char *name);

/* The writers (one file each: gb_rep_<name>.c). */
gb_err gb_rep_section_gemm(gb_rep *r);
gb_err gb_rep_section_fma(gb_rep *r);
gb_err gb_rep_section_membw(gb_rep *r);
gb_err gb_rep_section_copy(gb_rep *r);
gb_err gb_rep_section_collective(gb_rep *r);
gb_err gb_rep_section_roofline(gb_rep *r); /* draws membw, fma and gemm together */

/* The procurement part, after the campaign's (a plan was given). */
gb_err gb_rep_section_plan(gb_rep *r);

#endif
