/* gb_bench: case lists and row sets shared by the benchmarks and the runner. */
#include "gb_bench.h"

#include "gb_settings.h"

#include <stdlib.h>
#include <string.h>

gb_case gb_case_init(const char *name, const char *dtype) {
  gb_case c;
  memset(&c, 0, sizeof c);
  snprintf(c.name, sizeof c.name, "%s", name ? name : "");
  snprintf(c.dtype, sizeof c.dtype, "%s", dtype ? dtype : "");
  c.m = c.n = c.k = c.bytes = c.groups = GB_NA;
  c.gpu_count = 1;
  return c;
}

gb_err gb_case_list_add(gb_case_list *l, const gb_case *c) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    gb_case *v = realloc(l->v, cap * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory planning cases");
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = *c;
  return GB_OK;
}

void gb_case_list_free(gb_case_list *l) {
  free(l->v);
  memset(l, 0, sizeof *l);
}

static const char *keep(gb_rowset *rs, const char *s, gb_err *err) {
  if (!s) return "";
  if (rs->nstrs == rs->capstrs) {
    size_t cap = rs->capstrs ? rs->capstrs * 2 : 64;
    char **v = realloc(rs->strs, cap * sizeof *v);
    if (!v) {
      *err = gb_fail(GB_E_NOMEM, "out of memory");
      return "";
    }
    rs->strs = v;
    rs->capstrs = cap;
  }
  char *copy = strdup(s);
  if (!copy) {
    *err = gb_fail(GB_E_NOMEM, "out of memory");
    return "";
  }
  rs->strs[rs->nstrs++] = copy;
  return copy;
}

gb_err gb_rowset_add(gb_rowset *rs, const gb_row *r) {
  GB_TRY(gb_desc_check_row(r));
  if (rs->n == rs->cap) {
    size_t cap = rs->cap ? rs->cap * 2 : 16;
    gb_row *v = realloc(rs->v, cap * sizeof *v);
    if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
    rs->v = v;
    rs->cap = cap;
  }
  gb_err err = GB_OK;
  gb_row c = *r;
  const char **fields[] = {&c.run_id, &c.timestamp, &c.host,   &c.gpu_type, &c.gpu_name, &c.driver,
                           &c.cuda,   &c.benchmark, &c.case_name, &c.dtype, &c.metric,   &c.unit,
                           &c.detail, &c.variant,   &c.git_sha,   &c.cublaslt, &c.nvrtc,    &c.nccl,
                           &c.settings, &c.regime};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) *fields[i] = keep(rs, *fields[i], &err);
  GB_TRY(err);
  rs->v[rs->n++] = c;
  return GB_OK;
}

void gb_rowset_clear(gb_rowset *rs) {
  for (size_t i = 0; i < rs->nstrs; i++) free(rs->strs[i]);
  rs->nstrs = 0;
  rs->n = 0;
}

void gb_rowset_free(gb_rowset *rs) {
  gb_rowset_clear(rs);
  free(rs->strs);
  free(rs->v);
  memset(rs, 0, sizeof *rs);
}

gb_row gb_metric_row(const char *benchmark, size_t metric, const gb_case *c) {
  gb_row r = gb_case_row(benchmark, c);
  const gb_metric_desc *m = gb_desc_metric_at(benchmark, metric);
  r.metric = m ? m->name : "";
  r.unit = m ? m->unit : "";
  return r;
}

gb_row gb_bench_error_row(const gb_bench *b, const gb_case *c) {
  gb_row r = gb_case_row(b->name, c);
  /* the benchmark's own, else its headline metric from the description table */
  const gb_bench_desc *d = gb_desc_find(b->name);
  const gb_metric_desc *hm = d ? gb_desc_metric(b->name, d->headline_metric) : NULL;
  const gb_metric_desc *bm = b->metric && !b->unit ? gb_desc_metric(b->name, b->metric) : NULL;
  r.metric = b->metric ? b->metric : hm ? hm->name : "none";
  r.unit = b->metric ? (b->unit ? b->unit : bm ? bm->unit : "") : hm ? hm->unit : "";
  return r;
}

gb_row gb_case_row(const char *benchmark, const gb_case *c) {
  gb_row r = gb_row_empty();
  r.benchmark = benchmark;
  r.case_name = c->name;
  r.dtype = c->dtype;
  r.m = c->m;
  r.n = c->n;
  r.k = c->k;
  r.bytes = c->bytes;
  r.gpu_count = c->gpu_count;
  r.groups = c->groups;
  return r;
}

void gb_run_settings(const gb_bench *b, const gb_run_config *cfg, char *buf, size_t n) {
  char own[512] = "";
  if (b && b->settings) b->settings(cfg, own, sizeof own);
  gb_settings s = gb_settings_start(buf, n);
  if (cfg->warmup >= 0) gb_settings_add(&s, "warmup=%d", cfg->warmup);
  if (cfg->iters > 0) gb_settings_add(&s, "iters=%d", cfg->iters);
  if (cfg->graph) gb_settings_add(&s, "graph=on");
  if (own[0]) gb_settings_add(&s, "%s", own);
}
