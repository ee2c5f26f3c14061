/* gb_rep_headline: the headline table -- per GPU type the best figure of
 * each kind the sections name, beside its datasheet peak. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

/* Under the headline table: which run each "[run N]" tag names, for the GPU
 * types measured in more than one run. */
static gb_err headline_runs(gb_rep *r) {
  gb_err e = GB_OK;
  for (size_t t = 0; t < r->ntypes && !e; t++) {
    if (r->types[t].nruns < 2) continue;
    gb_buf b = {0};
    e = gb_buf_printf(&b, "Runs of %s: ", r->types[t].gpu_type);
    for (size_t s = 0; s < r->nsrc && !e; s++) {
      if (r->src[s].type != t) continue;
      char prov[768];
      gb_rep_provenance(r, s, prov, sizeof prov);
      e = gb_buf_printf(&b, "%srun %zu = %s", r->src[s].run_no > 1 ? "; " : "", r->src[s].run_no, prov);
    }
    if (!e) e = gb_buf_puts(&b, ".");
    if (!e) e = gb_doc_para(&r->doc, b.data);
    gb_buf_free(&b);
  }
  return e;
}

/* Whether point p may stand in the headline table's row kind. */
static bool headline_candidate(const gb_rep_point *p, const gb_rep_headline *kind) {
  /* a figure meaningless for its GPU count (one-rank in-place collectives,
   * busbw and broadcast on one GPU: gb_desc_class) never heads anything */
  return gb_rep_is(p, kind->bench, kind->metric) && (!kind->headline_rows || p->headline) &&
         gb_desc_class(p->row) != GB_FCLASS_MEANINGLESS && (!kind->one_gpu || p->row->gpu_count == 1) &&
         (!kind->only_case || strcmp(p->row->case_name, kind->only_case) == 0);
}

const gb_rep_point *gb_rep_headline_best(const gb_rep *r, const gb_rep_headline *kind, size_t t, const char *cs,
                                         bool (*keep)(const gb_rep *, const gb_rep_point *), double *peak) {
  const gb_rep_point *best = NULL;
  for (size_t i = 0; i < r->npts; i++) {
    const gb_rep_point *p = &r->pts[i];
    if ((t != SIZE_MAX && r->src[p->src].type != t) || !headline_candidate(p, kind) || strcmp(p->row->case_name, cs) ||
        (keep && !keep(r, p)))
      continue;
    if (!best || p->value > best->value) best = p;
  }
  if (peak) {
    *peak = NAN;
    if (best && kind->peak) *peak = gb_rep_peak(r, best->src, kind->bench, kind->peak[0] ? kind->peak : cs);
    if (best && isfinite(best->row->peak)) *peak = best->row->peak;
  }
  return best;
}

/* Appends a cell's per-W figure: from the energy counter (gb_rep_per_watt),
 * "; 1.19 TFLOP/s per W", or "; per W invalid" over the datasheet bound;
 * nothing without one. */
static void per_watt_cell(const gb_rep *r, const gb_rep_point *best, char *buf, size_t n) {
  char phrase[512], pw[32];
  int got = gb_rep_per_watt(r, best, phrase, sizeof phrase);
  size_t l = strlen(buf);
  if (got < 0 && l < n) snprintf(buf + l, n - l, "; per W invalid");
  if (got > 0 && l < n) {
    const gb_rep_point *q = gb_rep_power_point(r, best);
    gb_rep_fmt(pw, sizeof pw, q->value / q->power_w);
    snprintf(buf + l, n - l, "; %s %s per W", pw, q->row->unit);
  }
}

/* The headline table's cell of GPU type t for case cs of a row kind: the
 * best point over the type's runs, its size or GPU count, the share of its
 * peak, its run. */
static void headline_cell(const gb_rep *r, const gb_rep_headline *kind, size_t t, const char *cs, char *buf,
                          size_t n) {
  double peak;
  const gb_rep_point *best = gb_rep_headline_best(r, kind, t, cs, NULL, &peak);
  buf[0] = '\0';
  if (!best) return;
  size_t s = best->src;
  char v[64], at[80] = "", tag[32] = "";
  gb_rep_fmt(v, sizeof v, best->value);
  if (kind->at == GB_REP_AT_SIZE && best->row->bytes != GB_NA) {
    char sz[64];
    gb_fmt_size(sz, sizeof sz, best->row->bytes);
    snprintf(at, sizeof at, " at %s", sz);
  }
  if (r->types[t].nruns > 1) snprintf(tag, sizeof tag, " [run %zu]", r->src[s].run_no);
  if (kind->at == GB_REP_AT_GPUS)
    snprintf(buf, n, "%s at %d GPUs%s", v, best->row->gpu_count, tag);
  else if (isfinite(peak) && peak > 0) {
    /* the peak to 4 significant digits, as the values (a peak computed from
     * clocks and units reads "66.9082" otherwise), no trailing zeros */
    char pk[32];
    gb_snprintf_c(pk, sizeof pk, peak >= 1000 ? "%.0f" : "%.4g", peak);
    gb_snprintf_c(buf, n, "%s%s (%.0f%% of %s)%s", v, at, 100.0 * best->value / peak, pk, tag);
  }
  else snprintf(buf, n, "%s%s%s", v, at, tag);
  per_watt_cell(r, best, buf, n);
}

/* Headline: per GPU type, over every run of it, the rows each section asks
 * for (gb_rep_section.headline: the best GEMM per precision with % of the
 * datasheet peak, CUDA-core FMA, memory bandwidth from membw's headline
 * rows, not L2, copies and collectives); "[run N]" names the run of a type
 * measured in several. */
/* Whether any point makes a headline row. */
static bool any_headline(const gb_rep *r) {
  for (size_t i = 0; i < gb_rep_nsections; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench; k++)
      for (size_t j = 0; j < r->npts; j++)
        if (headline_candidate(&r->pts[j], &gb_rep_sections[i].headline[k])) return true;
  return false;
}

gb_err gb_rep_table_headline(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Headline figures");
  /* no empty table: say why there is none (collectives measured on one GPU
   * only, for one, have no headline figure) */
  if (!e && !any_headline(r))
    return gb_doc_note(&r->doc, "No headline figure: no ok row of GEMM, fma, HBM-sized membw or copy, and no "
                                "collective measured on more than one GPU (a one-GPU collective says nothing about "
                                "an interconnect; its figures are in its section below).");
  if (!e)
    e = gb_doc_para(&r->doc, "Best measured value per GPU type (median over repetitions); in brackets the share of "
                             "the datasheet peak.");
  size_t nc = r->ntypes + 1;
  const char **hdr = calloc(nc, sizeof *hdr);
  const char **cells = calloc(nc, sizeof *cells);
  char(*buf)[256] = calloc(nc, sizeof *buf);
  if (!hdr || !cells || !buf) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (!e) {
    hdr[0] = "figure";
    for (size_t t = 0; t < r->ntypes; t++) hdr[t + 1] = r->types[t].gpu_type;
    e = gb_doc_table_begin(&r->doc, nc, hdr, NULL);
  }
  size_t rows = 0;
  const char *notes[8];
  size_t nnotes = 0;
  for (size_t i = 0; i < gb_rep_nsections && !e; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench && !e; k++) {
      const gb_rep_headline *kind = &gb_rep_sections[i].headline[k];
      gb_rep_names cases = {0};
      for (size_t j = 0; j < r->npts && !e; j++)
        if (headline_candidate(&r->pts[j], kind)) e = gb_rep_names_add(&cases, r->pts[j].row->case_name);
      if (!e && cases.n > 1 && kind->precision_order) qsort(cases.v, cases.n, sizeof *cases.v, gb_rep_cmp_precision);
      for (size_t c = 0; c < cases.n && !e; c++) {
        char title[160];
        snprintf(title, sizeof title, kind->title, cases.v[c]);
        cells[0] = title;
        for (size_t t = 0; t < r->ntypes; t++) {
          headline_cell(r, kind, t, cases.v[c], buf[t + 1], sizeof buf[0]);
          cells[t + 1] = buf[t + 1];
        }
        e = gb_doc_table_row(&r->doc, cells);
        rows++;
      }
      if (cases.n && kind->note && nnotes < sizeof notes / sizeof notes[0]) notes[nnotes++] = kind->note;
      gb_rep_names_free(&cases);
    }
  if (!e) e = gb_doc_table_end(&r->doc);
  /* how to read it, under the figures (the first screen is for the figures) */
  if (!e && rows > 0)
    e = gb_doc_para(&r->doc, "Each figure is the best over all runs of the GPU type and over shapes and sizes; [run N] "
                             "names the run it came from where a GPU type was measured in several runs. Memory is the "
                             "HBM figure: the best of membw's headline rows (hot, arrays of at least 1 GiB and 8 L2 "
                             "sizes); the L2 plateau is in the plots and under All measurements. Per W, where "
                             "shown, is a figure over the board power from the energy counter over a timed window of "
                             "at least 10 counter updates (the GEMM sustained window, a long STREAM window), never "
                             "over the 1-s average power_w; docs/perf-notes.md (Energy and power) says how to "
                             "measure it.");
  for (size_t i = 0; i < nnotes && !e; i++) e = gb_doc_para(&r->doc, notes[i]);
  if (!e && rows > 0) e = headline_runs(r);
  free(hdr);
  free(cells);
  free(buf);
  return e;
}
