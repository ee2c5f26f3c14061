/* gb_rep_sections: the report's sections as a table -- what the report
 * knows of each benchmark: the writer of its section and the rows it adds
 * to the headline table. Each benchmark's description (core/gb_desc.h,
 * gb_bench_desc.section) names its section; gb_report.c puts the headline
 * rows in table order, then runs the writers in table order. Not a public
 * API. */
#ifndef GB_REP_SECTIONS_H
#define GB_REP_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_rep.h"

/* What a headline-table row shows: per GPU type, the best point of a case. */
typedef enum gb_rep_at {
  GB_REP_AT_NONE = 0, /* the value alone */
  GB_REP_AT_SIZE,     /* " at 4 GiB": the point's bytes */
  GB_REP_AT_GPUS,     /* " at 8 GPUs", and no share of a peak */
} gb_rep_at;

/* A kind of row in the report's headline table: one row per case. */
typedef struct gb_rep_headline {
  const char *bench;    /* the benchmark (NULL: the end of the list) */
  const char *metric;
  const char *title;    /* printf format of the row's name; %s is the case */
  bool headline_rows;   /* only points whose rows hold headline figures (gb_rep_point.headline) */
  bool precision_order; /* cases in the precision order (gb_rep_cmp_precision), else as first seen */
  const char *peak;     /* gb_rep_peak's key for the share of the peak: NULL none (a row's own peak
                         * column still counts), "" the case, else that key ("hbm") */
  gb_rep_at at;
  bool one_gpu;         /* only points measured on one GPU (a figure that means something there) */
  const char *only_case; /* NULL: every case; else only this one */
  const char *note;     /* NULL, or a sentence under the headline table when the row is shown */
} gb_rep_headline;

#define GB_REP_MAX_HEADLINES 3

typedef struct gb_rep_section {
  const char *name;           /* gb_bench_desc.section of the benchmarks it draws */
  gb_err (*write)(gb_rep *r); /* appends the section to r->doc */
  gb_rep_headline headline[GB_REP_MAX_HEADLINES]; /* its rows in the headline table, in order */
} gb_rep_section;

/* The best point of case cs of a headline row kind for GPU type t
 * (SIZE_MAX: any type) among the points keep accepts (NULL: all), with its
 * peak as the headline table shows it (NaN: none); NULL when there is none. */
const gb_rep_point *gb_rep_headline_best(const gb_rep *r, const gb_rep_headline *kind, size_t t, const char *cs,
                                         bool (*keep)(const gb_rep *, const gb_rep_point *), double *peak);

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
/* The comparison view, first when options.compare (gb_rep_compare.c: the
 * one file that uses the gate). */
gb_err gb_rep_section_compare(gb_rep *r);
/* Its decision page, first (gb_rep_decision.c). */
gb_err gb_rep_section_decision(gb_rep *r);

#endif
