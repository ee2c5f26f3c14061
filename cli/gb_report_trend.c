/* report --store URL --trend SEL: the nightly trend page of the newest
 * campaign (night) a selection names (docs/reports.md, "The nightly trend
 * from a store"): the gate's verdicts recorded for that night first
 * (compare --record, gb_verdicts), then each headline figure's nights per
 * node, small plots of at most 8 series (7 nodes and the recorded change
 * points, history --record's gb_changes), then the nodes that moved. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli_args.h"
#include "gb_csv.h"
#include "gb_desc.h"
#include "gb_doc.h"
#include "gb_gate.h"
#include "gb_num.h"
#include "gb_plot.h"
#include "gb_report.h"
#include "gb_runinfo.h"
#include "gb_store.h"

#define NODES_PER_PLOT 7 /* and the recorded changes: at most 8 series a plot */
#define NO_NIGHT ((size_t)-1)

typedef struct trun {
  char *id, *campaign, *host, *started;
  size_t night; /* NO_NIGHT: no row of it selected */
} trun;

typedef struct tnight {
  const char *campaign, *start; /* borrowed from a run: its earliest */
} tnight;

typedef struct tpt {
  char *fig;        /* gb_gate_key_label */
  const char *host; /* the run's */
  const char *unit; /* interned in trend.units */
  size_t night;     /* first the run's index, then its night */
  double v;         /* the row's value; after collapse, the median of the figure's rows that night */
} tpt;

typedef struct tchg {
  char *kind, *host, *fig, *dir, *env;
  double pct, p;
  size_t night;
} tchg;

typedef struct trend {
  const gb_trend_options *o;
  gb_store *s;
  trun *runs;
  size_t nruns, caprun;
  tnight *nights;
  size_t nnights;
  tpt *pts;
  size_t npts, cappt;
  tchg *chg;
  size_t nchg, capchg;
  char *units[64];
  size_t nunits;
  size_t rows, plots;
  bool gnuplot;
  gb_doc doc;
} trend;

/* x with fmt, or "-" when it is not a number */
static const char *fmt_num(char buf[32], const char *fmt, double x) {
  if (!isfinite(x)) return "-";
  gb_snprintf_c(buf, 32, fmt, x);
  return buf;
}

static gb_err grow(void **v, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return GB_OK;
  size_t c = *cap ? 2 * *cap : 64;
  void *p = realloc(*v, c * size);
  if (!p) return gb_fail(GB_E_NOMEM, "out of memory");
  *v = p;
  *cap = c;
  return GB_OK;
}

static char *dup(const char *s, gb_err *e) {
  char *d = strdup(s ? s : "");
  if (!d && !*e) *e = gb_fail(GB_E_NOMEM, "out of memory");
  return d;
}

static gb_err add_run(void *ctx, const char *id, const char *campaign, const char *host, const char *started) {
  trend *t = ctx;
  gb_err e = grow((void **)&t->runs, &t->caprun, t->nruns, sizeof *t->runs);
  if (e) return e;
  trun *r = &t->runs[t->nruns++];
  *r = (trun){.id = dup(id, &e), .campaign = dup(campaign, &e), .host = dup(host, &e), .started = dup(started, &e),
              .night = NO_NIGHT};
  return e;
}

static int cmp_run(const void *a, const void *b) { return strcmp(((const trun *)a)->id, ((const trun *)b)->id); }

static trun *find_run(const trend *t, const char *id) {
  trun key = {.id = (char *)id};
  return t->runs ? bsearch(&key, t->runs, t->nruns, sizeof key, cmp_run) : NULL;
}

static const char *intern_unit(trend *t, const char *u, gb_err *e) {
  for (size_t i = 0; i < t->nunits; i++)
    if (strcmp(t->units[i], u) == 0) return t->units[i];
  if (t->nunits == sizeof t->units / sizeof t->units[0]) return "";
  return t->units[t->nunits++] = dup(u, e);
}

/* A selected row: its run is in the window; a headline figure's ok value a point. */
static gb_err add_row(void *ctx, const gb_row *r) {
  trend *t = ctx;
  trun *run = find_run(t, r->run_id);
  if (!run) return GB_OK;
  run->night = 0;
  t->rows++;
  if (r->status != GB_STATUS_OK || !isfinite(r->value) || gb_desc_class(r) != GB_FCLASS_HEADLINE) return GB_OK;
  gb_err e = grow((void **)&t->pts, &t->cappt, t->npts, sizeof *t->pts);
  char *fig = e ? NULL : gb_gate_key_label(r);
  if (!e && !fig) e = gb_fail(GB_E_NOMEM, "out of memory");
  if (e) return e;
  t->pts[t->npts++] = (tpt){.fig = fig, .host = run->host, .unit = intern_unit(t, r->unit ? r->unit : "", &e),
                            .night = (size_t)(run - t->runs), .v = r->value};
  return e;
}

static int cmp_night(const void *a, const void *b) {
  const tnight *x = a, *y = b;
  int c = strcmp(x->start, y->start);
  return c ? c : strcmp(x->campaign, y->campaign);
}

/* The nights: the selected runs' campaigns, each at its earliest run, in time order. */
static gb_err find_nights(trend *t) {
  t->nights = calloc(t->nruns ? t->nruns : 1, sizeof *t->nights);
  if (!t->nights) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < t->nruns; i++) {
    trun *r = &t->runs[i];
    if (r->night == NO_NIGHT) continue;
    size_t k = 0;
    while (k < t->nnights && strcmp(t->nights[k].campaign, r->campaign) != 0) k++;
    if (k == t->nnights) t->nights[t->nnights++] = (tnight){r->campaign, r->started};
    else if (strcmp(r->started, t->nights[k].start) < 0) t->nights[k].start = r->started;
  }
  qsort(t->nights, t->nnights, sizeof *t->nights, cmp_night);
  for (size_t i = 0; i < t->nruns; i++) {
    trun *r = &t->runs[i];
    for (size_t k = 0; k < t->nnights && r->night != NO_NIGHT; k++)
      if (strcmp(t->nights[k].campaign, r->campaign) == 0) r->night = k;
  }
  return GB_OK;
}

static int cmp_pt(const void *a, const void *b) {
  const tpt *x = a, *y = b;
  int c = strcmp(x->fig, y->fig);
  if (!c) c = strcmp(x->host, y->host);
  if (!c) c = (x->night > y->night) - (x->night < y->night);
  return c ? c : (x->v > y->v) - (x->v < y->v);
}

/* Each point's night, then one point per figure, node and night: the median. */
static void collapse(trend *t) {
  for (size_t i = 0; i < t->npts; i++) t->pts[i].night = t->runs[t->pts[i].night].night;
  qsort(t->pts, t->npts, sizeof *t->pts, cmp_pt);
  size_t out = 0;
  for (size_t i = 0, j; i < t->npts; i = j) {
    for (j = i + 1; j < t->npts && strcmp(t->pts[j].fig, t->pts[i].fig) == 0 &&
                    strcmp(t->pts[j].host, t->pts[i].host) == 0 && t->pts[j].night == t->pts[i].night;
         j++)
      ;
    size_t m = i + (j - i) / 2;
    double med = (j - i) % 2 ? t->pts[m].v : (t->pts[m - 1].v + t->pts[m].v) / 2;
    tpt keep = t->pts[i];
    keep.v = med;
    for (size_t k = i + 1; k < j; k++) free(t->pts[k].fig);
    t->pts[out++] = keep;
  }
  t->npts = out;
}

/* The nodes of the selected runs. */
static size_t count_nodes(const trend *t) {
  size_t n = 0;
  for (size_t i = 0; i < t->nruns; i++) {
    if (t->runs[i].night == NO_NIGHT) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = t->runs[j].night != NO_NIGHT && strcmp(t->runs[j].host, t->runs[i].host) == 0;
    n += !seen;
  }
  return n;
}

/* A recorded change whose run after is one of the selected nights'. */
static gb_err add_change(void *ctx, const gb_store_change *c) {
  trend *t = ctx;
  const trun *r = find_run(t, c->run_after);
  if (!r || r->night == NO_NIGHT) return GB_OK;
  gb_err e = grow((void **)&t->chg, &t->capchg, t->nchg, sizeof *t->chg);
  if (e) return e;
  t->chg[t->nchg++] = (tchg){.kind = dup(c->kind, &e), .host = dup(c->host, &e), .fig = dup(c->figure, &e),
                             .dir = dup(c->direction, &e), .env = dup(c->env, &e), .pct = c->change_pct,
                             .p = c->p_value, .night = r->night};
  return e;
}

static void trend_free(trend *t) {
  for (size_t i = 0; i < t->nruns; i++) {
    free(t->runs[i].id), free(t->runs[i].campaign), free(t->runs[i].host), free(t->runs[i].started);
  }
  for (size_t i = 0; i < t->npts; i++) free(t->pts[i].fig);
  for (size_t i = 0; i < t->nchg; i++) {
    free(t->chg[i].kind), free(t->chg[i].host), free(t->chg[i].fig), free(t->chg[i].dir), free(t->chg[i].env);
  }
  for (size_t i = 0; i < t->nunits; i++) free(t->units[i]);
  free(t->runs), free(t->nights), free(t->pts), free(t->chg);
  gb_doc_free(&t->doc);
  if (t->s) gb_store_close(t->s);
}

/* Everything the page shows, read in the reader's one snapshot. */
static gb_err read_store(trend *t) {
  size_t n = 0;
  gb_err e = gb_store_open_read(t->o->store, &t->s);
  if (!e) e = gb_store_each_run(t->s, add_run, t);
  if (!e) qsort(t->runs, t->nruns, sizeof *t->runs, cmp_run);
  if (!e) e = gb_store_each(t->s, t->o->sel, add_row, t, &n);
  if (!e) e = find_nights(t);
  if (!e && t->nnights == 0) e = gb_fail(GB_E_INPUT, "%s: selected no stored run", t->o->sel);
  if (!e) collapse(t);
  if (!e) e = gb_store_each_change(t->s, t->nights[0].start, add_change, t);
  return e;
}

/* ---- the page ---- */

typedef struct vcount {
  size_t judged, fails, head, head_fails;
  char nodes[1024]; /* the nodes with a failing figure, comma-separated */
} vcount;

static gb_err count_verdict(void *ctx, const gb_store_verdict *v) {
  vcount *c = ctx;
  c->judged++;
  c->head += v->headline;
  c->fails += v->fails;
  c->head_fails += v->headline && v->fails;
  char item[160]; /* c->nodes is ",a,b," while counting */
  snprintf(item, sizeof item, ",%.150s,", v->host);
  size_t len = strlen(c->nodes);
  if (v->fails && !strstr(c->nodes, item) && len + strlen(item) < sizeof c->nodes)
    memcpy(c->nodes + (len ? len - 1 : 0), item, strlen(item) + 1);
  return GB_OK;
}

static gb_err verdict_row(void *ctx, const gb_store_verdict *v) {
  if (!v->fails) return GB_OK;
  char pct[32], thr[32];
  const char *cells[5] = {v->host, v->figure, v->verdict, fmt_num(pct, "%+.2f%%", v->change_pct),
                          fmt_num(thr, "%.2f%%", v->threshold_pct)};
  return gb_doc_table_row(ctx, cells);
}

/* The gate's verdict of the newest night, as compare --record left it. */
static gb_err section_verdict(trend *t) {
  const char *night = t->nights[t->nnights - 1].campaign;
  vcount c = {0};
  char line[4096];
  gb_err e = gb_doc_heading(&t->doc, 2, "The gate's verdict");
  if (!e) e = gb_store_each_verdict(t->s, night, count_verdict, &c);
  if (e) return e;
  if (c.judged == 0) {
    snprintf(line, sizeof line, "No verdict is recorded for %s: gpubench compare --store URL --record "
             "last=5,before=%s campaign=%s records them after the night's import.", night, night, night);
    return gb_doc_note(&t->doc, line);
  }
  char nodes[2048] = ""; /* ",a,b," as "a, b" */
  for (size_t i = 1, k = 0; c.nodes[i] && c.nodes[i + 1] && k + 3 < sizeof nodes; i++) {
    if (c.nodes[i] == ',') nodes[k++] = ',', nodes[k++] = ' ';
    else nodes[k++] = c.nodes[i];
    nodes[k] = '\0';
  }
  snprintf(line, sizeof line, "%.1000s: %s. %zu figure(s) judged on the night's runs, %zu of them headline; %zu fail "
           "the gate (%zu headline)%s%s.", night, c.fails ? "FAIL" : "pass", c.judged, c.head, c.fails, c.head_fails,
           c.fails ? ", on the nodes " : "", c.fails ? nodes : "");
  e = gb_doc_para(&t->doc, line);
  if (e || !c.fails) return e;
  static const char *const head[5] = {"node", "figure", "verdict", "change", "threshold"};
  e = gb_doc_table_begin(&t->doc, 5, head, "lllrr");
  if (!e) e = gb_store_each_verdict(t->s, night, verdict_row, &t->doc);
  return e ? e : gb_doc_table_end(&t->doc);
}

/* The figure's nodes (their points p[0..np), by node), with their recorded changes, as plot stem. */
static gb_err plot_nodes(trend *t, const char *stem, const char *title, const char *caption, const tpt *p,
                         size_t np) {
  size_t nn = t->nnights, nh = 1;
  for (size_t i = 1; i < np; i++) nh += strcmp(p[i].host, p[i - 1].host) != 0;
  double *x = malloc(nn * sizeof *x), *y = malloc((nh * nn + 2 * t->nchg + 1) * sizeof *y);
  gb_plot_series *s = calloc(nh + 1, sizeof *s);
  if (!x || !y || !s) {
    free(x), free(y), free(s);
    return gb_fail(GB_E_NOMEM, "out of memory for a plot");
  }
  for (size_t i = 0; i < nn; i++) x[i] = (double)(i + 1);
  for (size_t i = 0; i < nh * nn; i++) y[i] = NAN;
  double *cx = y + nh * nn, *cy = cx + t->nchg;
  size_t h = 0, nc = 0;
  for (size_t i = 0; i < np; i++) {
    if (i && strcmp(p[i].host, p[i - 1].host) != 0) h++;
    y[h * nn + p[i].night] = p[i].v;
    s[h] = (gb_plot_series){.title = p[i].host, .n = nn, .x = x, .y = y + h * nn, .colour = (int)h + 1};
    for (size_t c = 0; c < t->nchg; c++)
      if (t->chg[c].night == p[i].night && strcmp(t->chg[c].host, p[i].host) == 0 && strcmp(t->chg[c].fig, p[i].fig) == 0)
        cx[nc] = (double)(p[i].night + 1), cy[nc++] = p[i].v;
  }
  s[nh] = (gb_plot_series){.title = "recorded change", .n = nc, .x = cx, .y = cy, .style = GB_PLOT_POINTS,
                           .emphasis = true, .colour = NODES_PER_PLOT + 1};
  char xlabel[512];
  snprintf(xlabel, sizeof xlabel, "night (1 = %.200s, %zu = %.200s)", t->nights[0].campaign, nn,
           t->nights[nn - 1].campaign);
  double lo = INFINITY, hi = -INFINITY; /* the y axis around the points, so that a step of a few % shows */
  for (size_t i = 0; i < np; i++) lo = fmin(lo, p[i].v), hi = fmax(hi, p[i].v);
  gb_plot_spec spec = {.stem = stem, .title = title, .xlabel = xlabel, .ylabel = p[0].unit, .width_px = 800,
                       .height_px = 360, .ymin = lo > 0 ? lo * 0.9 : 0, .ymax = lo > 0 ? hi * 1.05 : 0};
  gb_err e = t->gnuplot ? gb_plot_lines(t->o->out_dir, &spec, s, nh + 1)
                        : gb_plot_lines_script(t->o->out_dir, &spec, s, nh + 1);
  if (!e && t->gnuplot) e = gb_doc_figure(&t->doc, t->o->out_dir, stem, caption);
  else if (e == GB_E_IO && t->gnuplot) {
    char note[1024];
    snprintf(note, sizeof note, "The plot %s could not be rendered: %.900s", stem, gb_errmsg());
    e = gb_doc_note(&t->doc, note);
  }
  t->plots += !e;
  free(x), free(y), free(s);
  return e;
}

/* One headline figure (its points p[0..np), sorted by node): a plot per NODES_PER_PLOT nodes. */
static gb_err plot_figure(trend *t, size_t fi, const tpt *p, size_t np) {
  size_t nh = 1;
  for (size_t i = 1; i < np; i++) nh += strcmp(p[i].host, p[i - 1].host) != 0;
  gb_err e = gb_doc_heading(&t->doc, 3, p[0].fig);
  for (size_t i = 0, chunk = 0, a = 0; i < np && !e; chunk++, i = a) {
    size_t hosts = 0; /* the next NODES_PER_PLOT nodes' points: p[i..a) */
    for (a = i; a < np && (a == i || strcmp(p[a].host, p[a - 1].host) == 0 || ++hosts < NODES_PER_PLOT); a++)
      ;
    char stem[64], title[1200], caption[128];
    snprintf(stem, sizeof stem, "trend-%03zu-%zu", fi, chunk);
    if (nh <= NODES_PER_PLOT) snprintf(caption, sizeof caption, "all %zu node(s)", nh);
    else snprintf(caption, sizeof caption, "nodes %.40s to %.40s", p[i].host, p[a - 1].host);
    snprintf(title, sizeof title, "%.900s: %.127s", p[0].fig, caption);
    e = plot_nodes(t, stem, title, caption, p + i, a - i);
  }
  return e;
}

static gb_err section_plots(trend *t) {
  char line[1024];
  snprintf(line, sizeof line, "Headline figures, last %zu nights", t->nnights);
  gb_err e = gb_doc_heading(&t->doc, 2, line);
  if (!e) e = gb_doc_para(&t->doc, "Each night's median per node; a filled point marks a change point or drift that "
                                   "history --store URL --record recorded, on the first night after it. At most "
                                   "7 nodes a plot.");
  if (!e && !t->gnuplot) {
    snprintf(line, sizeof line, "The plots need gnuplot, which was not found (\"%s\"): each plot's data (.dat) and "
             "script (.gp) were written next to this file.", gb_gnuplot_program());
    e = gb_doc_note(&t->doc, line);
  }
  if (!e && t->npts == 0) e = gb_doc_note(&t->doc, "The selected runs hold no headline figure.");
  for (size_t i = 0, j, fi = 0; i < t->npts && !e; i = j, fi++) {
    for (j = i + 1; j < t->npts && strcmp(t->pts[j].fig, t->pts[i].fig) == 0; j++)
      ;
    e = plot_figure(t, fi, t->pts + i, j - i);
  }
  return e;
}

/* The recorded changes of the window, newest first. */
static gb_err section_moved(trend *t) {
  const char *night = t->nights[t->nnights - 1].campaign;
  char line[2048] = "";
  size_t len = 0, last = 0;
  for (size_t i = 0; i < t->nchg; i++) {
    if (t->chg[i].night != t->nnights - 1) continue;
    last++;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = t->chg[j].night == t->nnights - 1 && strcmp(t->chg[j].host, t->chg[i].host) == 0;
    if (!seen && len + strlen(t->chg[i].host) + 4 < 1024)
      len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", len ? ", " : "", t->chg[i].host);
  }
  gb_err e = gb_doc_heading(&t->doc, 2, "Nodes that moved");
  char text[4096];
  if (last) snprintf(text, sizeof text, "On %s: %zu change(s), on %s.", night, last, line);
  else snprintf(text, sizeof text, "On %s: no recorded change.", night);
  if (!e) e = gb_doc_para(&t->doc, text);
  if (!e && t->nchg == 0)
    e = gb_doc_para(&t->doc, "No change point or drift of a headline figure is recorded in these nights "
                             "(history --store URL --record records them).");
  if (e || t->nchg == 0) return e;
  static const char *const head[8] = {"night", "node", "figure", "kind", "change", "direction", "p", "environment change"};
  e = gb_doc_table_begin(&t->doc, 8, head, "llllrlrl");
  for (size_t i = 0; i < t->nchg && !e; i++) {
    const tchg *c = &t->chg[i];
    char pct[32], p[32];
    const char *cells[8] = {t->nights[c->night].campaign, c->host, c->fig, c->kind, fmt_num(pct, "%+.2f%%", c->pct),
                            c->dir, fmt_num(p, "%.2g", c->p),
                            c->env[0] ? c->env : "-"};
    e = gb_doc_table_row(&t->doc, cells);
  }
  return e ? e : gb_doc_table_end(&t->doc);
}

static gb_err compose(trend *t) {
  const char *night = t->nights[t->nnights - 1].campaign;
  char title[512], line[2048], by[256], where[600];
  snprintf(title, sizeof title, "Nightly trend: %.400s", night);
  gb_err e = gb_doc_begin(&t->doc, t->o->title ? t->o->title : title);
  t->doc.html_max = GB_DOC_HTML_MAX;
  if (t->o->generator) snprintf(by, sizeof by, "%s", t->o->generator);
  else snprintf(by, sizeof by, "gpubench %s (git %s)", gb_version(), gb_git_sha());
  gb_store_mask(t->o->store, where, sizeof where);
  snprintf(line, sizeof line, "Written by %s from the store %s, selection %.200s: %zu night(s), %.200s to %.200s; "
           "%zu node(s), %zu row(s).", by, where, t->o->sel, t->nnights, t->nights[0].campaign, night,
           count_nodes(t), t->rows);
  if (!e) e = gb_doc_para(&t->doc, line);
  if (!e) e = gb_doc_box_begin(&t->doc, "summary"); /* the verdict first, then the contents */
  if (!e) e = section_verdict(t);
  if (!e) e = gb_doc_box_end(&t->doc);
  gb_doc_mark_front(&t->doc);
  if (!e) e = section_plots(t);
  if (!e) e = section_moved(t);
  gb_doc toc = {0};
  if (!e) e = gb_doc_toc(&t->doc, &toc);
  if (!e) e = gb_doc_insert_front(&t->doc, &toc);
  gb_doc_free(&toc);
  if (!e) e = gb_doc_end(&t->doc);
  return e;
}

gb_err gb_report_trend(const gb_trend_options *o, size_t *nights, size_t *plots) {
  trend t = {.o = o};
  gb_err e = read_store(&t); /* a bad selection leaves no folder behind */
  if (!e) e = gb_report_make_dir(o->out_dir);
  t.gnuplot = gb_gnuplot_available();
  if (!e) e = compose(&t);
  gb_plot_session_end();
  char path[4096];
  snprintf(path, sizeof path, "%s/report.md", o->out_dir);
  if (!e) e = gb_doc_bound_md(&t.doc, GB_DOC_MD_MAX);
  if (!e) e = gb_write_file_atomic(path, t.doc.md.data, t.doc.md.len);
  snprintf(path, sizeof path, "%s/report.html", o->out_dir);
  if (!e) e = gb_write_file_atomic(path, t.doc.html.data, t.doc.html.len);
  *nights = t.nnights;
  *plots = t.plots;
  trend_free(&t);
  return e;
}
