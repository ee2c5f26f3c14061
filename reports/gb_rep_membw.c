/* gb_rep_membw: the report's memory-bandwidth section -- bandwidth against
 * array size per kernel, with the L2 size and the datasheet HBM rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"
#include "gb_stream.h"

/* ---- memory bandwidth ---- */

/* The L2 size source s's membw rows record (the l2_bytes column); -1 if none. */
static double l2_bytes_of(const gb_rep *r, size_t s) {
  for (size_t k = r->src_row_off[s]; k < r->src_row_off[s + 1]; k++) {
    size_t i = r->src_rows[k];
    const gb_row *w = &r->res.rows[i];
    if (r->row_src[i] == s && !strcmp(w->benchmark, "membw") && w->l2_bytes != GB_NA && w->l2_bytes > 0)
      return (double)w->l2_bytes;
  }
  return -1;
}

/* L2 sizes as the CUDA runtime reports them (cudaDeviceProp::l2CacheSize),
 * for results whose membw rows predate the l2_bytes column. H200 from
 * data/measured/h200-info.txt; the others are NVIDIA's published L2 sizes
 * (the runtime reports MB as MiB). Types not listed (B200, MI300X: no
 * comparable single figure checked) get no L2 marker. Add a row as
 * {gpu_type, MiB}, gpu_type as in data/gpu_specs.csv. */
static const struct {
  const char *gpu_type;
  int l2_mib;
} k_known_l2[] = {
    {"A100-SXM-80GB", 40},  {"H100-SXM-80GB", 50},     {"H200-SXM-141GB", 60}, {"L4-PCIE-24GB", 48},
    {"L40S-PCIE-48GB", 96}, {"RTX4090-PCIE-24GB", 72}, {"V100-SXM2-32GB", 6},
};

/* The L2 size of a GPU type from k_known_l2, in bytes; -1 if not listed. */
static double l2_known_bytes(const char *gpu_type) {
  for (size_t i = 0; i < sizeof k_known_l2 / sizeof k_known_l2[0]; i++)
    if (strcmp(k_known_l2[i].gpu_type, gpu_type) == 0) return (double)k_known_l2[i].l2_mib * 1048576.0;
  return -1;
}

/* Sort key of a membw case: its kernel's position in the benchmark's order
 * (gb_stream_kernels, core/gb_stream.c) x 2, + 1 for _cold; unknown kernels
 * after the known. Each kernel has its own colour, the same for its hot and
 * its _cold case (gnuplot line types 1-7), which are drawn in two plots. */
static size_t membw_case_key(const char *c) {
  size_t l = strlen(c);
  bool cold = l > 5 && strcmp(c + l - 5, "_cold") == 0;
  size_t base = cold ? l - 5 : l;
  for (size_t k = 0; k < gb_stream_nkernels; k++) {
    const char *name = gb_stream_kernels[k].name;
    if (strlen(name) == base && strncmp(name, c, base) == 0) return 2 * k + cold;
  }
  return 2 * gb_stream_nkernels + cold;
}

/* One membw plot: source s, the points of dtype (NULL: all), the hot cases
 * or (cold) the _cold ones: series per case coloured by kernel, the same
 * colour in both plots; error bars from the repetitions. No plot (and no
 * note) when there are no such cases. */
static gb_err membw_plot(gb_rep *r, size_t s, const char *dtype, bool cold) {
  sset ss = {0};
  gb_err e = GB_OK;
  for (GB_REP_SRC_PTS(r, s, k, i)) {
    if (e) break;
    const gb_rep_point *q = &r->pts[i];
    if (q->src != s || !gb_rep_is(q, "membw", "gbps") || q->row->bytes == GB_NA) continue;
    if (dtype && strcmp(q->row->dtype, dtype)) continue;
    if ((membw_case_key(q->row->case_name) % 2 == 1) != cold) continue;
    e = gb_rep_sbuf_add_err(gb_rep_sset_get(&ss, q->row->case_name), (double)q->row->bytes, q->value, q->lo, q->hi,
                            NULL);
  }
  if (!e && ss.n == 0) return GB_OK;
  /* legend order: copy, mul, ... */
  for (size_t a = 1; a < ss.n; a++)
    for (size_t b = a; b > 0 && membw_case_key(ss.v[b - 1].title) > membw_case_key(ss.v[b].title); b--) {
      sbuf t = ss.v[b];
      ss.v[b] = ss.v[b - 1];
      ss.v[b - 1] = t;
    }
  gb_plot_marker mk[2];
  size_t nmk = 0;
  char l2lab[96], hbmlab[96];
  double l2 = l2_bytes_of(r, s);
  bool l2_from_table = false;
  if (l2 <= 0) {
    l2 = l2_known_bytes(r->src[s].gpu_type);
    l2_from_table = l2 > 0;
  }
  if (l2 > 0) {
    char sz[48];
    gb_fmt_size(sz, sizeof sz, (int64_t)l2);
    snprintf(l2lab, sizeof l2lab, "L2 %s", sz);
    mk[nmk++] = (gb_plot_marker){'x', l2, l2lab};
  }
  double hbm = gb_rep_peak(r, s, "membw", "hbm");
  if (isfinite(hbm)) {
    gb_snprintf_c(hbmlab, sizeof hbmlab, "datasheet %.0f GB/s", hbm);
    mk[nmk++] = (gb_plot_marker){'y', hbm, hbmlab};
  }
  char stem[256], part[100], dpart[40] = "", title[320], caption[800];
  gb_rep_stem_part(part, sizeof part, r->src[s].label);
  if (dtype) gb_rep_stem_part(dpart, sizeof dpart, dtype);
  const char *kind = cold ? "cold (_cold cases: arrays evicted from L2)" : "hot";
  snprintf(stem, sizeof stem, "membw_%s%s%s_%s", part, dtype ? "_" : "", dpart, cold ? "cold" : "hot");
  snprintf(title, sizeof title, "Memory bandwidth against array size, %s%s%s, %s", cold ? "cold" : "hot",
           dtype ? ", " : "", dtype ? dtype : "", r->src[s].label);
  snprintf(caption, sizeof caption, "Memory bandwidth per kernel against array size, %s%s%s, %s%s%s", kind,
           dtype ? ", " : "", dtype ? dtype : "", r->src[s].label,
           l2_from_table ? " (red dashed line: L2 size of this GPU type as published; no membw row records "
                           "l2_bytes)"
           : l2 > 0      ? " (red dashed line: L2 size)"
                         : " (L2 size unknown: no membw row records l2_bytes)",
           gb_rep_sset_has_err(&ss) ? GB_REP_ERRBAR_NOTE : "");
  gb_plot_spec p = {.stem = stem, .title = title, .xlabel = "array size (bytes per array, log scale)",
                    .ylabel = "bandwidth (GB/s)", .logx = true, .x_bytes = true, .markers = mk, .nmarkers = nmk};
  gb_plot_series *ps = e ? NULL : gb_rep_sset_series(&ss, false);
  if (!e && !ps) e = gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < ss.n && !e; i++) {
    size_t key = membw_case_key(ps[i].title);
    ps[i].colour = (int)(key / 2) + 1;
  }
  if (!e) e = gb_rep_lines(r, &p, ps, ss.n, caption);
  free(ps);
  gb_rep_sset_free(&ss);
  return e;
}

gb_err gb_rep_section_membw(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Device memory bandwidth");
  if (!e)
    e = gb_doc_para(&r->doc, "BabelStream kernels; bytes per array on the x axis, bandwidth counts every array each "
                             "kernel moves (copy and mul 2, add and triad 3, dot 2), GB = 1e9 bytes. Arrays that "
                             "fit in L2 run faster than HBM; a _cold case rotates through array sets so each "
                             "operation finds its arrays evicted from L2.");
  if (!e) e = gb_rep_note_undrawn(r);
  bool any = false;
  for (size_t s = 0; s < r->nsrc && !e; s++) {
    if (!r->src[s].drawn) continue;
    /* one plot per data type when a source measured several */
    gb_rep_names dtypes = {0};
    for (GB_REP_SRC_PTS(r, s, k, i))
      if (!e && r->pts[i].src == s && gb_rep_is(&r->pts[i], "membw", "gbps") && r->pts[i].row->bytes != GB_NA)
        e = gb_rep_names_add(&dtypes, r->pts[i].row->dtype);
    if (!e && dtypes.n > 1) qsort(dtypes.v, dtypes.n, sizeof *dtypes.v, gb_rep_cmp_precision);
    for (int cold = 0; cold < 2 && dtypes.n == 1 && !e; cold++) e = membw_plot(r, s, NULL, cold);
    for (size_t d = 0; d < dtypes.n && dtypes.n > 1 && !e; d++)
      for (int cold = 0; cold < 2 && !e; cold++) e = membw_plot(r, s, dtypes.v[d], cold);
    any |= dtypes.n > 0;
    gb_rep_names_free(&dtypes);
  }
  if (!e && !any) e = gb_rep_skip(r, "Memory bandwidth against array size", "the results hold no ok membw rows");
  return e;
}
