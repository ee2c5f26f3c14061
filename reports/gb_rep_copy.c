/* gb_rep_copy: the report's host/device/peer copy section. Like with like:
 * each copy is drawn at one transfer size for every source, the largest
 * size all the sources that measured it have in common (a 1 GiB copy of one
 * run is never set beside a 256 MiB copy of another). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

/* The value of source s for case cs at exactly bytes (best over its points), NaN when none. */
static double at_size(const gb_rep *r, size_t s, const char *cs, int64_t bytes) {
  double v = NAN;
  for (GB_REP_SRC_PTS(r, s, k, i)) {
    const gb_rep_point *p = &r->pts[i];
    if (p->src != s || !gb_rep_is(p, "copy", "gbps") || strcmp(p->row->case_name, cs) || p->row->bytes != bytes)
      continue;
    if (isnan(v) || p->value > v) v = p->value;
  }
  return v;
}

/* The largest size every drawn source measuring case cs has measured; -1 when none is common. */
static int64_t common_size(const gb_rep *r, const char *cs) {
  int64_t best = -1;
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *p = &r->pts[i];
    if (!r->src[p->src].drawn || !gb_rep_is(p, "copy", "gbps") || strcmp(p->row->case_name, cs) ||
        p->row->bytes == GB_NA || p->row->bytes <= best)
      continue;
    bool all = true;
    for (size_t s = 0; s < r->nsrc && all; s++) {
      if (!r->src[s].drawn) continue;
      bool has_case = false;
      for (GB_REP_SRC_PTS(r, s, k, j)) {
        if (has_case) break;
        has_case = r->pts[j].src == s && gb_rep_is(&r->pts[j], "copy", "gbps") && !strcmp(r->pts[j].row->case_name, cs);
      }
      if (has_case && isnan(at_size(r, s, cs, p->row->bytes))) all = false;
    }
    if (all) best = p->row->bytes;
  }
  return best;
}

gb_err gb_rep_section_copy(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Host, device and peer copies");
  const char *metric[] = {"gbps"};
  gb_rep_names cases = {0};
  if (!e) e = gb_rep_collect_cases(r, "copy", metric, 1, &cases);
  if (!e && cases.n == 0) {
    e = gb_rep_skip(r, "Copy bandwidth", "the results hold no ok copy rows");
    gb_rep_names_free(&cases);
    return e;
  }
  if (!e) e = gb_rep_note_undrawn(r);
  size_t nc = cases.n, ns = r->nsrc;
  char(*cat)[96] = calloc(nc + 1, sizeof *cat);
  const char **cats = calloc(nc + 1, sizeof *cats);
  double *vals = calloc(nc * ns + 1, sizeof *vals);
  gb_plot_series *s = calloc(ns + 1, sizeof *s);
  if (!e && (!cat || !cats || !vals || !s)) e = gb_fail(GB_E_NOMEM, "out of memory");
  size_t k = 0;
  for (size_t c = 0; c < nc && !e; c++) {
    int64_t b = common_size(r, cases.v[c]);
    if (b < 0) continue; /* no size in common: in the tables only */
    char sz[48];
    gb_fmt_size(sz, sizeof sz, b);
    snprintf(cat[k], sizeof cat[k], "%.40s, %s", cases.v[c], sz);
    cats[k] = cat[k];
    for (size_t i = 0, nd = 0; i < ns; i++)
      if (r->src[i].drawn) vals[nd++ * nc + k] = at_size(r, i, cases.v[c], b);
    k++;
  }
  if (!e && k == 0) e = gb_rep_skip(r, "Copy bandwidth", "no copy size was measured by every run that measured it");
  else if (!e) {
    /* series with no value at all are left out by the plot */
    size_t nd = 0;
    for (size_t i = 0; i < ns; i++)
      if (r->src[i].drawn) {
        s[nd] = (gb_plot_series){.title = r->src[i].label, .n = k, .y = vals + nd * nc};
        nd++;
      }
    gb_plot_spec p = {.stem = "copy", .title = "Copy bandwidth, each copy at the largest size all runs measured",
                      .xlabel = "copy, transfer size", .ylabel = "bandwidth (GB/s)", .width_px = 1100};
    e = gb_rep_bars(r, &p, cats, k, s, nd,
                    "Host-device, device-device and peer copy bandwidth (GB/s, median over repetitions), each copy "
                    "at the largest transfer size every run that measured it has in common. Source: the ok rows "
                    "of benchmark copy, metric gbps");
  }
  free(cat);
  free(cats);
  free(vals);
  free(s);
  gb_rep_names_free(&cases);
  return e;
}
