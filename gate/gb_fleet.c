/* gb_fleet: ranks the nodes of one campaign per headline figure and names
 * the slow ones (the rule is in gb_fleet.h); text, markdown and JUnit. */
#include "gb_fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_escape.h"
#include "gb_gate.h"
#include "gb_stats.h"

typedef struct frow {
  char *key; /* the figure's label */
  size_t node;
  const gb_row *row;
} frow;

static int cmp_node_rows(const void *a, const void *b) {
  const gb_row *x = *(const gb_row *const *)a, *y = *(const gb_row *const *)b;
  int c = strcmp(x->host, y->host);
  return c ? c : strcmp(x->gpu_uuid, y->gpu_uuid);
}

static int cmp_frow(const void *a, const void *b) {
  const frow *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c) return c;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return strcmp(x->row->run_id, y->row->run_id);
}

/* The distinct nodes of res, sorted by host and gpu_uuid. */
static gb_err find_nodes(const gb_results *res, gb_fleet_report *rep) {
  const gb_row **v = malloc((res->nrows + 1) * sizeof *v);
  rep->nodes = calloc(res->nrows + 1, sizeof *rep->nodes);
  if (!v || !rep->nodes) return free(v), gb_fail(GB_E_NOMEM, "out of memory for nodes");
  for (size_t i = 0; i < res->nrows; i++) v[i] = &res->rows[i];
  qsort(v, res->nrows, sizeof *v, cmp_node_rows);
  for (size_t i = 0; i < res->nrows; i++)
    if (i == 0 || cmp_node_rows(&v[i], &v[i - 1])) {
      rep->nodes[rep->nnodes].host = v[i]->host;
      rep->nodes[rep->nnodes++].gpu_uuid = v[i]->gpu_uuid;
    }
  free(v);
  return GB_OK;
}

static size_t node_of(const gb_fleet_report *rep, const gb_row *r) {
  size_t lo = 0, hi = rep->nnodes;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(rep->nodes[mid].host, r->host);
    if (!c) c = strcmp(rep->nodes[mid].gpu_uuid, r->gpu_uuid);
    if (c <= 0) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The best sample of a row: its max, or min where lower is better. */
static double best(const gb_row *r, int dir) { return dir < 0 ? r->min : r->max; }

/* A node's value from its rows fr[a..b) (sorted by run): the median over
 * runs of each run's median (peak: of each run's best sample). */
static double node_value(const frow *fr, size_t a, size_t b, bool peak, int dir, double *tmp, double *runs) {
  size_t nr = 0;
  for (size_t i = a; i < b;) {
    size_t j = i, n = 0;
    double pk = NAN;
    for (; j < b && strcmp(fr[j].row->run_id, fr[i].row->run_id) == 0; j++) {
      tmp[n++] = fr[j].row->value;
      double x = best(fr[j].row, dir);
      if (j == i || (dir < 0 ? x < pk : x > pk)) pk = x;
    }
    runs[nr++] = peak ? pk : gb_median(tmp, n);
    i = j;
  }
  return gb_median(runs, nr);
}

/* The entries of one figure from its rows fr[a..b) (sorted by node, run). */
static gb_err judge_figure(gb_fleet_report *rep, const gb_fleet_options *opt, const frow *fr, size_t a, size_t b,
                           double z, double tmin, double *tmp) {
  const gb_row *r0 = fr[a].row;
  int dir = gb_metric_direction(r0->benchmark, r0->metric);
  const gb_noise_floor *pf = gb_noise_lookup_peak(opt->noise, r0, false), *cf = gb_noise_lookup_cards(opt->noise, r0);
  const gb_noise_floor *ff = gb_noise_lookup_figure(opt->noise, r0), *fl = gb_noise_lookup(opt->noise, r0);
  bool peak = pf != NULL;
  for (size_t i = a; i < b && peak; i++) peak = !isnan(best(fr[i].row, dir));
  double sigma = peak ? pf->sigma : cf ? cf->sigma : ff ? ff->sigma : fl ? fl->sigma : gb_noise_default_sigma(r0);
  size_t n = 0, *nodes = malloc(rep->nnodes * sizeof *nodes);
  double *vals = malloc(2 * rep->nnodes * sizeof *vals);
  if (!nodes || !vals) return free(nodes), free(vals), gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = a; i < b;) {
    size_t j = i;
    while (j < b && fr[j].node == fr[i].node) j++;
    nodes[n] = fr[i].node;
    vals[n++] = node_value(fr, i, j, peak, dir, tmp, tmp + (b - a));
    i = j;
  }
  gb_err e = GB_OK;
  if (n >= GB_FLEET_MIN_NODES) {
    char *label = gb_gate_key_label(r0);
    if (!label) e = gb_fail(GB_E_NOMEM, "out of memory");
    size_t fig = rep->nfigs;
    if (!e) rep->fig_peak[fig] = peak, rep->figs[rep->nfigs++] = label;
    double t = z * sigma * sqrt(1.0 + 1.0 / (double)(n - 1));
    if (t < tmin) t = tmin;
    for (size_t k = 0; k < n && !e; k++) {
      double *others = vals + rep->nnodes;
      size_t no = 0;
      for (size_t m = 0; m < n; m++)
        if (m != k) others[no++] = vals[m];
      double ref = gb_median(others, no), d = dir * log(vals[k] / ref);
      gb_fleet_entry *en = &rep->entries[rep->nentries++];
      *en = (gb_fleet_entry){.node = nodes[k], .fig = fig, .value = vals[k], .ref = ref,
                             .change_pct = expm1(d) * 100.0, .mdc_pct = expm1(t) * 100.0,
                             .slow = -d > t, .fast = d > t};
    }
  }
  free(nodes);
  free(vals);
  return e;
}

/* Each node's counts and geometric mean; nodes sorted slowest first. */
static gb_err rank_nodes(gb_fleet_report *rep) {
  double *lsum = calloc(rep->nnodes + 1, sizeof *lsum);
  size_t *perm = malloc((rep->nnodes + 1) * sizeof *perm), *inv = malloc((rep->nnodes + 1) * sizeof *inv);
  if (!lsum || !perm || !inv) return free(lsum), free(perm), free(inv), gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < rep->nentries; i++) {
    const gb_fleet_entry *en = &rep->entries[i];
    gb_fleet_node *nd = &rep->nodes[en->node];
    nd->figures++;
    nd->slow += en->slow;
    nd->fast += en->fast;
    lsum[en->node] += log1p(en->change_pct / 100.0);
  }
  for (size_t k = 0; k < rep->nnodes; k++) {
    gb_fleet_node *nd = &rep->nodes[k];
    nd->geomean = nd->figures ? exp(lsum[k] / (double)nd->figures) : NAN;
    rep->slow_nodes += nd->slow > 0;
    perm[k] = k;
  }
  /* insertion sort of a permutation: nodes are few next to figures */
  for (size_t i = 1; i < rep->nnodes; i++)
    for (size_t j = i; j > 0; j--) {
      const gb_fleet_node *x = &rep->nodes[perm[j - 1]], *y = &rep->nodes[perm[j]];
      bool after = x->slow < y->slow || (x->slow == y->slow && x->geomean > y->geomean);
      if (!after) break;
      size_t t = perm[j];
      perm[j] = perm[j - 1];
      perm[j - 1] = t;
    }
  gb_fleet_node *sorted = malloc((rep->nnodes + 1) * sizeof *sorted);
  if (sorted) {
    for (size_t k = 0; k < rep->nnodes; k++) sorted[k] = rep->nodes[perm[k]], inv[perm[k]] = k;
    for (size_t i = 0; i < rep->nentries; i++) rep->entries[i].node = inv[rep->entries[i].node];
    free(rep->nodes);
    rep->nodes = sorted;
  }
  free(lsum);
  free(perm);
  free(inv);
  return sorted ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
}

/* The headline rows of res that carry a value, keyed by figure and node. */
static gb_err key_rows(const gb_results *res, const gb_fleet_report *rep, frow **out, size_t *nout) {
  frow *fr = calloc(res->nrows + 1, sizeof *fr);
  if (!fr) return gb_fail(GB_E_NOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < res->nrows; i++) {
    const gb_row *r = &res->rows[i];
    if ((r->status != GB_STATUS_OK && r->status != GB_STATUS_THROTTLED) || !(r->value > 0) || !isfinite(r->value) ||
        gb_desc_class(r) != GB_FCLASS_HEADLINE)
      continue;
    fr[n] = (frow){.key = gb_gate_key_label(r), .node = node_of(rep, r), .row = r};
    if (!fr[n++].key) {
      for (size_t k = 0; k < n; k++) free(fr[k].key);
      free(fr);
      return gb_fail(GB_E_NOMEM, "out of memory");
    }
  }
  qsort(fr, n, sizeof *fr, cmp_frow);
  *out = fr;
  *nout = n;
  return GB_OK;
}

gb_err gb_fleet_check(const gb_results *res, const gb_fleet_options *opt, gb_fleet_report *rep) {
  memset(rep, 0, sizeof *rep);
  rep->threshold_pct = isnan(opt->threshold_pct) ? GB_FLEET_THRESHOLD : opt->threshold_pct;
  rep->alpha = isnan(opt->alpha) ? 0.01 : opt->alpha;
  if (!(rep->threshold_pct >= 0) || !(rep->alpha > 0 && rep->alpha < 1))
    return gb_fail(GB_E_INPUT, "fleet: threshold must be >= 0 %%, alpha between 0 and 1");
  gb_err e = find_nodes(res, rep);
  if (!e && rep->nnodes < GB_FLEET_MIN_NODES)
    e = gb_fail(GB_E_INPUT, "fleet: %zu node%s (host, gpu_uuid) in the results: ranking needs at least %d",
                rep->nnodes, rep->nnodes == 1 ? "" : "s", GB_FLEET_MIN_NODES);
  frow *fr = NULL;
  size_t n = 0;
  if (!e) e = key_rows(res, rep, &fr, &n);
  double *tmp = malloc(2 * (n + 1) * sizeof *tmp);
  rep->entries = calloc(n + 1, sizeof *rep->entries);
  rep->figs = calloc(n + 1, sizeof *rep->figs);
  rep->fig_peak = calloc(n + 1, sizeof *rep->fig_peak);
  if (!e && (!tmp || !rep->entries || !rep->figs || !rep->fig_peak)) e = gb_fail(GB_E_NOMEM, "out of memory");
  double z = gb_gate_z(rep->alpha), tmin = log1p(rep->threshold_pct / 100.0);
  for (size_t i = 0; i < n && !e;) {
    size_t j = i;
    while (j < n && strcmp(fr[j].key, fr[i].key) == 0) j++;
    e = judge_figure(rep, opt, fr, i, j, z, tmin, tmp);
    i = j;
  }
  for (size_t i = 0; i < n; i++) free(fr[i].key);
  free(fr);
  free(tmp);
  if (!e) e = rank_nodes(rep);
  if (e) gb_fleet_free(rep);
  return e;
}

void gb_fleet_free(gb_fleet_report *rep) {
  for (size_t i = 0; i < rep->nfigs; i++) free(rep->figs[i]);
  free(rep->figs);
  free(rep->fig_peak);
  free(rep->nodes);
  free(rep->entries);
  memset(rep, 0, sizeof *rep);
}

int gb_fleet_exit_code(const gb_fleet_report *rep) { return rep->slow_nodes ? 1 : 0; }
