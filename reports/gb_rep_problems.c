/* gb_rep_problems: the rows that are not ok, grouped by cause. Called by
 * gb_report.c (the table) and gb_rep_summary.c (the counts per status and
 * what each status means); calls only the shared helpers (gb_rep.c). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_num.h"
#include "gb_rep.h"

/* The plots gnuplot failed on, so far (those of the plan follow later and
 * are noted where they would be). */
static gb_err failed_plots(gb_rep *r) {
  if (!r->sum->plots_failed) return GB_OK;
  gb_buf b = {0};
  gb_err e = gb_buf_printf(&b, "%zu plot(s) could not be rendered and are not shown: ", r->sum->plots_failed);
  for (const char *l = r->sum->failed; *l && !e;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    e = gb_buf_printf(&b, "%s%.*s", l == r->sum->failed ? "" : "; ", (int)len, l);
    l += len + (nl ? 1 : 0);
  }
  if (!e) e = gb_doc_note(&r->doc, b.data);
  gb_buf_free(&b);
  return e;
}

/* What a status means for the figures, and what to do: one line each. */
static const struct {
  gb_status status;
  const char *means;
} k_status_advice[] = {
    {GB_STATUS_INVALID, "the result check failed: these figures are left out; rerun the case, and if it fails again "
                        "suspect the GPU (memory errors) or the kernel"},
    {GB_STATUS_ERROR, "the case could not run (not supported on this GPU or library, or out of memory): see the "
                      "detail; nothing was measured"},
    {GB_STATUS_THROTTLED, "the check passed but the clocks were held down by power or heat: the figures are kept as "
                          "the rate this GPU sustains under its cap; check cooling and the power limit when they "
                          "fall short of the datasheet"},
    {GB_STATUS_UNSUPPORTED, "this GPU (or its library) cannot run the case, a precision it lacks for one: nothing was "
                            "measured and nothing failed; not a problem"},
};

const char *gb_rep_status_advice(gb_status s) {
  for (size_t i = 0; i < sizeof k_status_advice / sizeof k_status_advice[0]; i++)
    if (k_status_advice[i].status == s) return k_status_advice[i].means;
  return "";
}

/* The cause of a row that is not ok, from its detail: the clock events
 * named ("clock events: sw_power_cap", "clocks held down: ..."), else the
 * detail up to its first ':' or ';' (an error code, "check failed"), at
 * most n - 1 bytes. */
static void cause_of(const gb_row *w, char *buf, size_t n) {
  static const char *const marks[] = {"clock events:", "clocks held down:"};
  const char *d = w->detail ? w->detail : "", *from = NULL;
  for (size_t i = 0; i < sizeof marks / sizeof marks[0] && !from; i++) from = strstr(d, marks[i]);
  size_t len = from ? strcspn(from, ";") : strcspn(d, ":;");
  if (!from) from = d;
  if (len > 80) len = 80;
  while (len > 0 && from[len - 1] == ' ') len--;
  snprintf(buf, n, "%.*s", (int)len, len ? from : "no detail given");
}

/* A row the Problems section lists: not ok, and not a case the GPU cannot
 * run (status unsupported: no measurement, no failure; a note says so). */
static bool is_problem(const gb_row *w) { return w->status != GB_STATUS_OK && w->status != GB_STATUS_UNSUPPORTED; }

/* Groups of problem rows: one per status, benchmark and cause. */
typedef struct cause_group {
  gb_status status;
  const char *bench;
  char cause[96];
  size_t count, first; /* rows, and the first of them */
} cause_group;

static gb_err group_causes(const gb_rep *r, cause_group **out, size_t *nout) {
  size_t n = 0, cap = 0;
  cause_group *g = NULL;
  for (size_t i = 0; i < r->res.nrows; i++) {
    const gb_row *w = &r->res.rows[i];
    if (!is_problem(w)) continue;
    char c[96];
    cause_of(w, c, sizeof c);
    size_t k = 0;
    while (k < n && !(g[k].status == w->status && !strcmp(g[k].bench, w->benchmark) && !strcmp(g[k].cause, c))) k++;
    if (k == n) {
      if (n == cap) {
        cap = cap ? cap * 2 : 8;
        cause_group *v = realloc(g, cap * sizeof *v);
        if (!v) {
          free(g);
          return gb_fail(GB_E_NOMEM, "out of memory");
        }
        g = v;
      }
      g[n] = (cause_group){.status = w->status, .bench = w->benchmark, .first = i};
      snprintf(g[n].cause, sizeof g[n].cause, "%s", c);
      n++;
    }
    g[k].count++;
  }
  *out = g;
  *nout = n;
  return GB_OK;
}

gb_err gb_rep_problem_counts(const gb_rep *r, size_t counts[GB_STATUS_COUNT], size_t *ncauses) {
  memset(counts, 0, GB_STATUS_COUNT * sizeof counts[0]);
  for (size_t i = 0; i < r->res.nrows; i++)
    if ((unsigned)r->res.rows[i].status < GB_STATUS_COUNT) counts[r->res.rows[i].status]++;
  cause_group *g = NULL;
  gb_err e = group_causes(r, &g, ncauses);
  free(g);
  return e;
}

/* The table of causes: a row each with its count and one example. */
static gb_err table_causes(gb_rep *r, const cause_group *g, size_t n) {
  const char *hdr[] = {"status", "benchmark", "cause", "rows", "example", "what it means"};
  gb_err e = gb_doc_table_begin(&r->doc, 6, hdr, "lllrll");
  for (size_t k = 0; k < n && !e; k++) {
    const gb_row *w = &r->res.rows[g[k].first];
    char count[24], ex[400], sz[64];
    snprintf(count, sizeof count, "%zu", g[k].count);
    gb_rep_fmt_size(w, sz, sizeof sz);
    snprintf(ex, sizeof ex, "%.120s:%ld, %.60s %.60s%s%.60s", gb_rep_basename(w->file), w->line, w->case_name,
             w->dtype, sz[0] ? " at " : "", sz);
    const char *cells[] = {gb_status_name(g[k].status), g[k].bench, g[k].cause, count, ex,
                           gb_rep_status_advice(g[k].status)};
    e = gb_doc_table_row(&r->doc, cells);
  }
  if (!e) e = gb_doc_table_end(&r->doc);
  return e;
}

/* Every row that is not ok, folded: all of them in the HTML, the first
 * PROBLEM_MD_ROWS in the Markdown. */
#define PROBLEM_MD_ROWS 10
static gb_err table_rows(gb_rep *r, size_t bad) {
  char line[200];
  snprintf(line, sizeof line, "All %zu rows with their detail", bad);
  gb_err e = gb_doc_fold_begin(&r->doc, line);
  const char *hdr[] = {"where", "GPU", "benchmark", "case", "dtype", "size", "metric", "value", "status", "detail"};
  if (!e) e = gb_doc_table_begin(&r->doc, 10, hdr, NULL);
  size_t shown = 0;
  for (size_t i = 0; i < r->res.nrows && !e; i++) {
    const gb_row *w = &r->res.rows[i];
    if (!is_problem(w)) continue;
    r->doc.md_mute = shown++ >= PROBLEM_MD_ROWS;
    char where[600], sz[64], v[64];
    snprintf(where, sizeof where, "%s:%ld", gb_rep_basename(w->file), w->line);
    gb_rep_fmt_size(w, sz, sizeof sz);
    gb_rep_fmt(v, sizeof v, w->value);
    const char *cells[] = {where, r->src[r->row_src[i]].label, w->benchmark, w->case_name, w->dtype, sz,
                           w->metric, v, gb_status_name(w->status), w->detail};
    e = gb_doc_table_row(&r->doc, cells);
  }
  r->doc.md_mute = false;
  if (!e) e = gb_doc_table_end(&r->doc);
  if (!e && bad > PROBLEM_MD_ROWS) {
    snprintf(line, sizeof line, "The first %d of %zu rows; report.html and the result CSVs have them all.",
             PROBLEM_MD_ROWS, bad);
    /* Markdown only: the HTML lists every row */
    gb_doc md_only = {0};
    e = gb_doc_para(&md_only, line);
    if (!e) e = gb_buf_append(&r->doc.md, md_only.md.data, md_only.md.len);
    gb_doc_free(&md_only);
  }
  if (!e) e = gb_doc_fold_end(&r->doc);
  return e;
}

/* A note on the cases the GPU cannot run (status unsupported): named, and
 * said to be no problem. The number of such rows goes to *n. */
static gb_err note_unsupported(gb_rep *r, size_t *n) {
  gb_buf b = {0};
  gb_err e = GB_OK;
  size_t shown = 0;
  *n = 0;
  for (size_t i = 0; i < r->res.nrows && !e; i++) {
    const gb_row *w = &r->res.rows[i];
    if (w->status != GB_STATUS_UNSUPPORTED) continue;
    if ((*n)++ >= 8) continue;
    char sz[64];
    gb_rep_fmt_size(w, sz, sizeof sz);
    e = gb_buf_printf(&b, "%s%.60s %.60s %.60s%s%.60s (%.60s)", shown++ ? ", " : "", w->benchmark, w->case_name,
                      w->dtype, sz[0] ? " at " : "", sz, r->src[r->row_src[i]].label);
  }
  if (!e && *n > shown) e = gb_buf_printf(&b, " and %zu more", *n - shown);
  if (!e && *n) {
    char line[1400];
    snprintf(line, sizeof line, "Not measured: %zu case(s) this GPU or its library cannot run (status unsupported): "
             "%.1000s. Nothing was measured for them and nothing failed; they are not problems, and the regression "
             "gate gives them no verdict.", *n, b.data);
    e = gb_doc_para(&r->doc, line);
  }
  gb_buf_free(&b);
  return e;
}

gb_err gb_rep_table_problems(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Problems: invalid, error and throttled rows");
  if (!e) e = failed_plots(r);
  size_t bad = 0;
  for (size_t i = 0; i < r->res.nrows; i++) bad += is_problem(&r->res.rows[i]);
  size_t unsupported = 0;
  if (!e) e = note_unsupported(r, &unsupported);
  if (!e && bad == 0)
    return gb_doc_para(&r->doc, unsupported ? "None: every measured row has status ok." : "None: every row has status ok.");
  cause_group *g = NULL;
  size_t ng = 0;
  if (!e) e = group_causes(r, &g, &ng);
  char line[400];
  snprintf(line, sizeof line, "%zu row(s) not ok, from %zu cause(s): one line per status, benchmark and cause, with "
           "one example row (unsupported rows are not problems: above). Invalid and error rows are left out of the plots and the tables above; throttled rows "
           "passed their check and are in them.", bad, ng);
  if (!e) e = gb_doc_para(&r->doc, line);
  if (!e) e = table_causes(r, g, ng);
  if (!e) e = table_rows(r, bad);
  free(g);
  return e;
}
