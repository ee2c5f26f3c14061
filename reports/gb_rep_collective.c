/* gb_rep_collective: the report's NCCL collective section -- bandwidth
 * against message size per operation and GPU count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

/* ---- collectives ---- */

/* The collective without its placement suffix, and the placement. */
static void split_collective(const char *c, char *base, size_t n, const char **placement) {
  snprintf(base, n, "%s", c);
  *placement = "";
  size_t l = strlen(base);
  if (l > 8 && strcmp(base + l - 8, "_inplace") == 0) {
    base[l - 8] = '\0';
    *placement = "in-place";
  } else if (l > 11 && strcmp(base + l - 11, "_outofplace") == 0) {
    base[l - 11] = '\0';
    *placement = "out-of-place";
  }
}

gb_err gb_rep_section_collective(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Collectives (NCCL)");
  if (!e)
    e = gb_doc_para(&r->doc, "Bus bandwidth as nccl-tests defines it: algbw = bytes / time, busbw = algbw x 2(n-1)/n "
                             "for all_reduce, (n-1)/n for all_gather and reduce_scatter, 1 for broadcast. On one GPU "
                             "busbw is 0 for all but broadcast, so a run on one GPU is drawn as algbw, out of place "
                             "only; a broadcast on one GPU (a local copy) is not drawn.");
  if (!e) e = gb_rep_note_undrawn(r);
  bool any = false;
  for (size_t s = 0; s < r->nsrc && !e; s++) {
    if (!r->src[s].drawn) continue;
    /* busbw of the multi-GPU rows; a source with only one-GPU rows: algbw */
    bool multi = false;
    for (GB_REP_SRC_PTS(r, s, k, i))
      if (r->pts[i].src == s && gb_rep_is(&r->pts[i], "collective", "busbw_gbps") && r->pts[i].row->gpu_count > 1)
        multi = true;
    const char *metric = multi ? "busbw_gbps" : "algbw_gbps";
    gb_rep_names ops = {0};
    /* one name per point of this source (indexed from its first: a buffer
     * over every point, per source, was quadratic) */
    size_t off = r->src_pt_off[s];
    char(*bases)[96] = calloc(r->src_pt_off[s + 1] - off + 1, sizeof *bases);
    if (!bases) return gb_fail(GB_E_NOMEM, "out of memory");
    for (GB_REP_SRC_PTS(r, s, k, i)) {
      if (e) break;
      const gb_rep_point *q = &r->pts[i];
      /* meaningless for its GPU count (gb_desc_class: a broadcast on one GPU
       * is a local copy, in place on one GPU moves nothing): drawn nowhere */
      if (q->src != s || !gb_rep_is(q, "collective", metric) || (multi && q->row->gpu_count < 2) ||
          gb_desc_class(q->row) == GB_FCLASS_MEANINGLESS)
        continue;
      const char *pl;
      split_collective(q->row->case_name, bases[k - off], sizeof bases[0], &pl);
      e = gb_rep_names_add(&ops, bases[k - off]);
    }
    for (size_t o = 0; o < ops.n && !e; o++) {
      sset ss = {0};
      /* the points of this operation; on one GPU only out-of-place (in place
       * NCCL moves nothing and the rate means nothing) */
      gb_rep_names dtypes = {0};
      for (int pass = 0; pass < 2 && !e; pass++)
        for (GB_REP_SRC_PTS(r, s, k, i)) {
          if (e) break;
          const gb_rep_point *q = &r->pts[i];
          if (q->src != s || !gb_rep_is(q, "collective", metric) || q->row->bytes == GB_NA ||
              (multi && q->row->gpu_count < 2) || gb_desc_class(q->row) == GB_FCLASS_MEANINGLESS)
            continue;
          char base[96];
          const char *pl;
          split_collective(q->row->case_name, base, sizeof base, &pl);
          if (strcmp(base, ops.v[o]) || (!multi && !strcmp(pl, "in-place"))) continue;
          if (pass == 0) {
            e = gb_rep_names_add(&dtypes, q->row->dtype);
            continue;
          }
          /* "8 GPUs, in-place" (", bf16" when the operation ran at several types) */
          char t[160];
          snprintf(t, sizeof t, "%d GPU%s%s%s%s%s", q->row->gpu_count, q->row->gpu_count == 1 ? "" : "s",
                   *pl ? ", " : "", pl, dtypes.n > 1 ? ", " : "", dtypes.n > 1 ? q->row->dtype : "");
          e = gb_rep_sbuf_add_err(gb_rep_sset_get(&ss, t), (double)q->row->bytes, q->value, q->lo, q->hi, NULL);
        }
      gb_rep_names_free(&dtypes);
      /* series sorted by GPU count (titles start with the count) */
      for (size_t a = 1; a < ss.n; a++)
        for (size_t b = a; b > 0 && atoi(ss.v[b - 1].title) > atoi(ss.v[b].title); b--) {
          sbuf t = ss.v[b];
          ss.v[b] = ss.v[b - 1];
          ss.v[b - 1] = t;
        }
      char stem[256], part[100], opp[100], title[320], caption[640];
      gb_rep_stem_part(part, sizeof part, r->src[s].label);
      gb_rep_stem_part(opp, sizeof opp, ops.v[o]);
      snprintf(stem, sizeof stem, "collective_%s_%s", opp, part);
      snprintf(title, sizeof title, "%s %s bandwidth against message size, %s", ops.v[o], multi ? "bus" : "algorithm",
               r->src[s].label);
      const char *bars = gb_rep_sset_has_err(&ss) ? GB_REP_ERRBAR_NOTE : "";
      if (multi)
        snprintf(caption, sizeof caption, "%s busbw against message size per GPU count, %s%s", ops.v[o],
                 r->src[s].label, bars);
      else
        snprintf(caption, sizeof caption,
                 "%s algbw (bytes / time) against message size on one GPU, %s: busbw is 0 there by definition; "
                 "this is NCCL's local cost (out of place; in place moves nothing on one GPU)%s",
                 ops.v[o], r->src[s].label, bars);
      gb_plot_spec p = {.stem = stem, .title = title, .xlabel = "message size (bytes, log scale)",
                        .ylabel = multi ? "bus bandwidth (GB/s)" : "algorithm bandwidth (GB/s)", .logx = true,
                        .x_bytes = true};
      if (!e) e = gb_rep_lines_from(r, &p, &ss, false, caption);
      any = true;
      gb_rep_sset_free(&ss);
    }
    gb_rep_names_free(&ops);
    free(bases);
  }
  if (!e && !any)
    e = gb_rep_skip(r, "Collective bus bandwidth", "the results hold no ok collective busbw_gbps or algbw_gbps rows");
  return e;
}
