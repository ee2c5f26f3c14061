/* gb_report: reads the inputs, groups result rows into sources (a GPU type
 * in a run) and measured points, writes the tables and calls the plot
 * sections, then writes report.md and report.html. The top of reports/:
 * called by `gpubench report` (cli/cmd_report.c) through gb_report_write;
 * it calls the campaign tables (gb_rep_tables.c, gb_rep_headline.c,
 * gb_rep_problems.c), the sections (gb_rep_sections.c), the summary
 * (gb_rep_summary.c) and the shared helpers (gb_rep.c), none of which
 * calls back. */
#include "gb_report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_desc.h"
#include "gb_energy.h"
#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"
#include "gb_runinfo.h"
#include "gb_stats.h"

/* ---- sources and points ---- */

/* Sources and GPU types are found through hash indexes: one pass over the
 * rows (it was a scan of every source per row). */
static bool same_source(const void *ctx, size_t a, size_t b) {
  const gb_row *x = &((const gb_rep *)ctx)->res.rows[a], *y = &((const gb_rep *)ctx)->res.rows[b];
  return !strcmp(x->gpu_type, y->gpu_type) && !strcmp(x->run_id, y->run_id) && !strcmp(x->settings, y->settings);
}

static bool same_type(const void *ctx, size_t a, size_t b) {
  const gb_rep *r = ctx;
  return !strcmp(r->res.rows[a].gpu_type, r->res.rows[b].gpu_type);
}

static gb_err find_sources(gb_rep *r) {
  size_t n = r->res.nrows;
  r->row_src = calloc(n ? n : 1, sizeof *r->row_src);
  r->src = calloc(n ? n : 1, sizeof *r->src);
  r->types = calloc(n ? n : 1, sizeof *r->types);
  size_t *src_row = calloc(n ? n : 1, sizeof *src_row), *type_row = calloc(n ? n : 1, sizeof *type_row);
  gb_rep_hash hs = {0}, ht = {0};
  gb_err e = GB_OK;
  if (!r->row_src || !r->src || !r->types || !src_row || !type_row)
    e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
  if (!e) e = gb_rep_hash_init(&hs, n);
  if (!e) e = gb_rep_hash_init(&ht, n);
  for (size_t i = 0; i < n && !e; i++) {
    const gb_row *w = &r->res.rows[i];
    uint64_t h = gb_rep_hash_str(GB_REP_HASH_SEED, w->gpu_type);
    size_t first = gb_rep_hash_find(&hs, gb_rep_hash_str(gb_rep_hash_str(h, w->run_id), w->settings), i,
                                    same_source, r);
    size_t s;
    if (first == i) { /* a new source */
      size_t tfirst = gb_rep_hash_find(&ht, h, i, same_type, r);
      size_t t;
      if (tfirst == i) {
        t = r->ntypes++;
        type_row[i] = t;
        r->types[t].gpu_type = w->gpu_type;
        r->types[t].spec = gb_specs_find(&r->specs, w->gpu_type);
      } else {
        t = type_row[tfirst];
      }
      s = r->nsrc++;
      src_row[i] = s;
      r->src[s].gpu_type = w->gpu_type;
      r->src[s].run_id = w->run_id;
      r->src[s].settings = w->settings;
      r->src[s].spec = r->types[t].spec;
      r->src[s].type = t;
      r->src[s].run_no = ++r->types[t].nruns;
    } else {
      s = src_row[first];
    }
    r->row_src[i] = s;
  }
  gb_rep_hash_free(&hs);
  gb_rep_hash_free(&ht);
  free(src_row);
  free(type_row);
  if (!e) e = gb_rep_group_by(r->row_src, n, r->nsrc, &r->src_rows, &r->src_row_off);
  if (!e) {
    r->src_lo = malloc((r->nsrc ? r->nsrc : 1) * sizeof *r->src_lo);
    r->src_hi = malloc((r->nsrc ? r->nsrc : 1) * sizeof *r->src_hi);
    if (!r->src_lo || !r->src_hi) e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
  }
  for (size_t s = 0; s < r->nsrc && !e; s++) { /* rows are in input order within a source */
    r->src_lo[s] = r->src_rows[r->src_row_off[s]];
    r->src_hi[s] = r->src_rows[r->src_row_off[s + 1] - 1];
  }
  if (e) return e;
  for (size_t s = 0; s < r->nsrc; s++) {
    const gb_rep_source *c = &r->src[s];
    bool several = r->types[c->type].nruns > 1, set = c->settings[0] != '\0';
    snprintf(r->src[s].label, sizeof r->src[s].label, "%.60s%s%.60s%s%s%.100s%s%s", c->gpu_type, several ? " (" : "",
             several ? c->run_id : "", several ? ")" : "", set ? " [" : "", c->settings,
             strlen(c->settings) > 100 ? "..." : "", set ? "]" : "");
  }
  return GB_OK;
}

/* Newest first: the run's first timestamp (ISO 8601 sorts as text), then
 * the later in the input. */
static const gb_rep *g_sort_rep;
static int cmp_src_newest(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  const gb_rep *r = g_sort_rep;
  if (r->src[x].type != r->src[y].type) return r->src[x].type < r->src[y].type ? -1 : 1;
  int c = strcmp(r->res.rows[r->src_lo[y]].timestamp, r->res.rows[r->src_lo[x]].timestamp);
  if (c) return c;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Marks the newest GB_REP_MAX_DRAWN sources of each GPU type drawn. */
static gb_err mark_drawn(gb_rep *r) {
  size_t *order = malloc((r->nsrc ? r->nsrc : 1) * sizeof *order);
  if (!order) return gb_fail(GB_E_NOMEM, "out of memory grouping results");
  for (size_t s = 0; s < r->nsrc; s++) order[s] = s;
  g_sort_rep = r;
  if (r->nsrc > 1) qsort(order, r->nsrc, sizeof *order, cmp_src_newest);
  size_t in_type = 0;
  for (size_t k = 0; k < r->nsrc; k++) {
    size_t s = order[k];
    if (k == 0 || r->src[order[k - 1]].type != r->src[s].type) in_type = 0;
    r->src[s].drawn = in_type++ < GB_REP_MAX_DRAWN;
    r->nundrawn += !r->src[s].drawn;
  }
  free(order);
  return GB_OK;
}

/* The identity of a point (everything but the repetition). */
static bool same_point(const void *ctx, size_t a, size_t b) {
  const gb_rep *r = ctx;
  const gb_row *x = &r->res.rows[a], *y = &r->res.rows[b];
  return r->row_src[a] == r->row_src[b] && !strcmp(x->benchmark, y->benchmark) && !strcmp(x->case_name, y->case_name) &&
         !strcmp(x->dtype, y->dtype) && !strcmp(x->metric, y->metric) && x->m == y->m && x->n == y->n &&
         x->k == y->k && x->bytes == y->bytes && x->gpu_count == y->gpu_count;
}

static uint64_t point_hash(const gb_rep *r, size_t i) {
  const gb_row *w = &r->res.rows[i];
  uint64_t h = gb_rep_hash_i64(GB_REP_HASH_SEED, (int64_t)r->row_src[i]);
  h = gb_rep_hash_str(gb_rep_hash_str(gb_rep_hash_str(gb_rep_hash_str(h, w->benchmark), w->case_name), w->dtype),
                      w->metric);
  h = gb_rep_hash_i64(gb_rep_hash_i64(gb_rep_hash_i64(h, w->m), w->n), w->k);
  return gb_rep_hash_i64(gb_rep_hash_i64(h, w->bytes), w->gpu_count);
}

/* Measured and checked: ok, or throttled (the check passed; the clocks were
 * held down by power or heat, which is the sustained figure on that card).
 * Throttled rows are still listed in the report's problem table. */
static bool plotted(const gb_row *w) {
  return (w->status == GB_STATUS_OK || w->status == GB_STATUS_THROTTLED) && isfinite(w->value);
}

/* Whether some headline-table row kind reads the headline mark of w's
 * benchmark (gb_rep_headline.headline_rows): only those points pay for
 * gb_desc_is_headline, whose group rules scan every row. */
static bool wants_headline(const gb_row *w) {
  for (size_t i = 0; i < gb_rep_nsections; i++)
    for (size_t k = 0; k < GB_REP_MAX_HEADLINES && gb_rep_sections[i].headline[k].bench; k++)
      if (gb_rep_sections[i].headline[k].headline_rows && !strcmp(gb_rep_sections[i].headline[k].bench, w->benchmark))
        return true;
  return false;
}

/* The spread of a point over its k repetitions v (power pw, sorted in
 * place): lowest and highest, or for one repetition its row's min and max
 * over the samples where recorded; the median energy-counter power. */
static void spread(gb_rep_point *pt, const double *v, double *pw, size_t k) {
  pt->lo = pt->hi = pt->value;
  for (size_t j = 0; j < k; j++) {
    if (v[j] < pt->lo) pt->lo = v[j];
    if (v[j] > pt->hi) pt->hi = v[j];
  }
  if (k == 1 && isfinite(pt->row->min) && isfinite(pt->row->max) && pt->row->min <= pt->value &&
      pt->row->max >= pt->value) {
    pt->lo = pt->row->min;
    pt->hi = pt->row->max;
  }
  size_t m = 0;
  for (size_t j = 0; j < k; j++)
    if (isfinite(pw[j])) pw[m++] = pw[j];
  pt->power_w = m ? gb_median(pw, m) : NAN;
}

/* Points through a hash index of their identity, in the order of their
 * first rows; each point's values gathered by a counting sort (linear: it
 * was a scan of the later rows per row). */
static gb_err find_points(gb_rep *r) {
  size_t n = r->res.nrows;
  size_t *pt_of = malloc((n ? n : 1) * sizeof *pt_of);  /* row -> point, or SIZE_MAX */
  size_t *first = malloc((n ? n : 1) * sizeof *first);  /* point -> its first row */
  size_t *cnt = calloc(n + 1, sizeof *cnt);
  size_t *slot_pt = malloc((n ? n : 1) * sizeof *slot_pt); /* row -> point (for first rows) */
  double *vals = malloc((n ? n : 1) * sizeof *vals), *pw = malloc((n ? n : 1) * sizeof *pw);
  r->pts = calloc(n ? n : 1, sizeof *r->pts);
  gb_rep_hash hp = {0};
  gb_err e = GB_OK;
  if (!pt_of || !first || !cnt || !slot_pt || !vals || !pw || !r->pts) e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
  if (!e) e = gb_rep_hash_init(&hp, n);
  size_t np = 0;
  for (size_t i = 0; i < n && !e; i++) {
    pt_of[i] = SIZE_MAX;
    if (!plotted(&r->res.rows[i])) continue;
    size_t f = gb_rep_hash_find(&hp, point_hash(r, i), i, same_point, r);
    if (f == i) {
      slot_pt[i] = np;
      first[np++] = i;
    }
    pt_of[i] = slot_pt[f];
    cnt[pt_of[i] + 1]++;
  }
  gb_rep_hash_free(&hp);
  for (size_t p = 0; p < np && !e; p++) cnt[p + 1] += cnt[p]; /* cnt[p]: start of point p's values */
  for (size_t i = 0; i < n && !e; i++)
    if (pt_of[i] != SIZE_MAX) {
      pw[cnt[pt_of[i]]] = gb_row_energy_power_w(&r->res.rows[i]); /* never the 1-s average power_w */
      vals[cnt[pt_of[i]]++] = r->res.rows[i].value;
    }
  for (size_t p = 0; p < np && !e; p++) { /* cnt[p] is now the end of point p's values */
    size_t lo = p ? cnt[p - 1] : 0, k = cnt[p] - lo, i = first[p];
    const gb_row *w = &r->res.rows[i];
    size_t s = r->row_src[i];
    /* the headline rule compares rows of one source: hand it that source's span */
    bool headline = wants_headline(w) &&
                    gb_desc_is_headline(w, r->res.rows + r->src_lo[s], r->src_hi[s] - r->src_lo[s] + 1);
    gb_rep_point pt = {.src = s, .row = w, .value = gb_median(vals + lo, k), .reps = k, .headline = headline};
    spread(&pt, vals + lo, pw + lo, k);
    r->pts[r->npts++] = pt;
  }
  if (!e) {
    size_t *key = malloc((r->npts ? r->npts : 1) * sizeof *key);
    if (!key) e = gb_fail(GB_E_NOMEM, "out of memory grouping results");
    for (size_t p = 0; p < r->npts && !e; p++) key[p] = r->pts[p].src;
    if (!e) e = gb_rep_group_by(key, r->npts, r->nsrc, &r->src_pts, &r->src_pt_off);
    free(key);
  }
  free(pt_of);
  free(first);
  free(cnt);
  free(slot_pt);
  free(vals);
  free(pw);
  return e;
}


/* ---- the whole report ---- */

gb_err gb_report_make_dir(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return gb_fail(GB_E_IO, "%s: cannot create: %s", path, strerror(errno));
    *p = '/';
  }
  if (mkdir(path, 0777) != 0 && errno != EEXIST) return gb_fail(GB_E_IO, "%s: cannot create: %s", path, strerror(errno));
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return gb_fail(GB_E_IO, "%s: not a directory", path);
  return GB_OK;
}

static gb_err read_inputs(gb_rep *r) {
  const gb_report_options *o = r->o;
  gb_err e = GB_OK;
  for (size_t f = 0; f < o->nresults && !e; f++) {
    e = gb_results_read_input(o->results[f], &r->res);
    if (f == 0) r->first_file_rows = r->res.nrows;
  }
  char specs_path[4096];
  const char *sp = o->specs_path;
  if (!sp) {
    snprintf(specs_path, sizeof specs_path, "%s/gpu_specs.csv", gb_data_dir());
    struct stat st;
    if (stat(specs_path, &st) == 0) sp = specs_path;
  }
  if (!e && sp) e = gb_specs_read(sp, &r->specs);
  if (!e && o->plan_path) {
    e = gb_planfile_read(o->plan_path, &r->plan);
    r->have_plan = e == GB_OK;
  }
  if (!e && o->sensitivity_path) {
    e = gb_sensfile_read(o->sensitivity_path, &r->sens);
    r->have_sens = e == GB_OK;
  }
  return e;
}

static gb_err write_outputs(gb_rep *r) {
  char path[4096];
  snprintf(path, sizeof path, "%s/report.md", r->dir);
  gb_err e = gb_doc_bound_md(&r->doc, GB_DOC_MD_MAX); /* the bound docs/reports.md promises */
  if (!e) e = gb_write_file_atomic(path, r->doc.md.data, r->doc.md.len);
  snprintf(path, sizeof path, "%s/report.html", r->dir);
  if (!e) e = gb_write_file_atomic(path, r->doc.html.data, r->doc.html.len);
  return e;
}

static gb_err compose(gb_rep *r) {
  const gb_report_options *o = r->o;
  gb_err e = gb_doc_begin(&r->doc, o->title ? o->title : "gpubench report");
  r->doc.html_max = GB_DOC_HTML_MAX; /* bounded, as report.md is (write_outputs) */
  char line[1024];
  if (!e) {
    char by[256];
    if (o->generator) snprintf(by, sizeof by, "%s", o->generator);
    else snprintf(by, sizeof by, "gpubench %s (git %s)", gb_version(), gb_git_sha());
    if (o->nresults == 0) snprintf(line, sizeof line, "Written by %s from a plan.", by);
    else
      snprintf(line, sizeof line, "Written by %s from %zu result file(s), %zu row(s)%s.", by, o->nresults,
               r->res.nrows, r->have_plan ? " and a plan" : "");
    e = gb_doc_para(&r->doc, line);
  }
  if (!e && !r->sum->gnuplot) {
    snprintf(line, sizeof line, "The plots need gnuplot, which was not found (\"%s\"): this report has its tables "
             "only. Each plot's data (.dat) and script (.gp) were written next to this file; install gnuplot "
             "(e.g. apt-get install gnuplot-nox) and run `gnuplot NAME.gp` there, or re-run gpubench report.",
             gb_gnuplot_program());
    e = gb_doc_note(&r->doc, line);
  }
  gb_doc_mark_front(&r->doc);
  if (!e && o->nresults > 0) {
    /* the figures first, on the first screen; where they came from after */
    if (!e && r->res.nrows == 0) e = gb_doc_note(&r->doc, "The result files hold no rows.");
    if (!e && o->compare) e = gb_rep_section_compare(r);
    if (!e) e = gb_rep_table_headline(r);
    if (!e) e = gb_rep_table_inputs(r);
    if (!e && r->nsrc > 0) e = gb_rep_table_environment(r);
    for (size_t i = 0; i < gb_rep_nsections && !e; i++) e = gb_rep_sections[i].write(r);
    if (!e) e = gb_rep_table_all(r);
    if (!e) e = gb_rep_table_problems(r);
  }
  if (!e && r->have_plan) e = gb_rep_section_plan(r);
  /* the summary and the contents, written now that every figure is known,
   * go first */
  gb_doc front = {0};
  if (!e) e = gb_rep_summary(r, &front);
  if (!e) e = gb_doc_insert_front(&r->doc, &front);
  gb_doc_free(&front);
  if (!e) e = gb_doc_end(&r->doc);
  return e;
}

gb_err gb_report_write(const gb_report_options *o, gb_report_summary *sum) {
  gb_report_summary local;
  if (!sum) sum = &local;
  memset(sum, 0, sizeof *sum);
  if (!o->out_dir || !*o->out_dir) return gb_fail(GB_E_USAGE, "no output directory given");
  if (o->nresults == 0 && !o->plan_path)
    return gb_fail(GB_E_USAGE, "nothing to report: give results CSV files or a plan");
  if (o->sensitivity_path && !o->plan_path)
    return gb_fail(GB_E_USAGE, "a sensitivity CSV needs its plan (--plan)");
  if (o->compare && o->nresults != 2)
    return gb_fail(GB_E_USAGE, "a comparison needs two results files, the baseline and the current run");
  gb_rep r = {.o = o, .dir = o->out_dir, .sum = sum};
  gb_err e = read_inputs(&r);
  if (!e) e = find_sources(&r);
  if (!e) e = find_points(&r);
  if (!e) gb_rep_judge_power(&r);
  if (!e) e = mark_drawn(&r);
  if (!e) e = gb_report_make_dir(o->out_dir);
  sum->rows = r.res.nrows;
  if (!e) sum->gnuplot = gb_gnuplot_available();
  if (!e) e = compose(&r);
  gb_plot_session_end();
  if (!e) e = write_outputs(&r);
  gb_doc_free(&r.doc);
  free(r.pts);
  free(r.row_src);
  free(r.src_rows);
  free(r.src_row_off);
  free(r.src_pts);
  free(r.src_pt_off);
  free(r.src_lo);
  free(r.src_hi);
  free(r.src);
  free(r.types);
  gb_results_free(&r.res);
  gb_specs_free(&r.specs);
  gb_planfile_free(&r.plan);
  gb_sensfile_free(&r.sens);
  return e;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

gb_err gb_report_shipped_results(char ***paths, size_t *n) {
  *paths = NULL;
  *n = 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/measured", gb_data_dir());
  DIR *d = opendir(dir);
  if (!d && errno == ENOENT) return GB_OK; /* no shipped measurements: no files */
  if (!d) return gb_fail(GB_E_IO, "%s: cannot open the shipped results: %s", dir, strerror(errno));
  size_t cap = 0;
  gb_err e = GB_OK;
  struct dirent *de;
  while (!e && (de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l < 5 || strcmp(de->d_name + l - 4, ".csv") != 0 || de->d_name[0] == '.') continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      char **v = realloc(*paths, cap * sizeof *v);
      if (!v) {
        e = gb_fail(GB_E_NOMEM, "out of memory");
        break;
      }
      *paths = v;
    }
    size_t pl = strlen(dir) + l + 2;
    char *p = malloc(pl);
    if (!p) {
      e = gb_fail(GB_E_NOMEM, "out of memory");
      break;
    }
    snprintf(p, pl, "%s/%s", dir, de->d_name);
    (*paths)[(*n)++] = p;
  }
  closedir(d);
  if (!e && *n > 1) qsort(*paths, *n, sizeof **paths, cmp_str);
  if (e) {
    for (size_t i = 0; i < *n; i++) free((*paths)[i]);
    free(*paths);
    *paths = NULL;
    *n = 0;
  }
  return e;
}

gb_err gb_report_shipped(const char *plan_path, const char *sensitivity_path, const char *out_dir,
                         const char *generator, gb_report_summary *sum) {
  char **paths;
  size_t n;
  gb_err e = gb_report_shipped_results(&paths, &n);
  if (e) return e;
  if (n == 0 && !plan_path) e = gb_fail(GB_E_INPUT, "%s/measured holds no results CSV files to report on", gb_data_dir());
  gb_report_options o = {.results = (const char *const *)paths, .nresults = n, .plan_path = plan_path,
                         .sensitivity_path = sensitivity_path, .out_dir = out_dir,
                         .title = "gpubench report: shipped measurements", .generator = generator};
  if (!e) e = gb_report_write(&o, sum);
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
  return e;
}
