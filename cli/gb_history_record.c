/* history --store URL --record: each node's series judged apart (a fleet's
 * nodes are not one series), and each change point and drift found written
 * to the store's gb_changes, once (docs/store.md, "What history and compare
 * find"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_desc.h"
#include "gb_escape.h"
#include "gb_history.h"
#include "gb_store.h"

typedef struct rec_ctx {
  gb_store *rd, *wr;   /* the reader's snapshot, the writer */
  const gb_cp_options *opt;
  gb_buf out, t[5];
  size_t found, added, nodes, analyzed;
} rec_ctx;

static gb_err add_lean(void *ctx, const gb_row *r) { return gb_results_add_row(ctx, r, true); }

static bool names_host(const char *sel) { return strncmp(sel, "host=", 5) == 0 || strstr(sel, ",host=") != NULL; }

/* sel narrowed to host (sel itself when it names one) */
static gb_err host_sel(const char *sel, const char *host, gb_buf *b) {
  if (!host) return gb_buf_puts(b, sel);
  gb_err e = strcmp(sel, "all") == 0 ? GB_OK : gb_buf_printf(b, "%s,", sel);
  if (!e) e = gb_buf_puts(b, "host=");
  return e ? e : gb_store_sel_quote(host, b);
}

static const char *how(int direction, double pct) {
  return direction == 0 ? "changed" : pct * direction < 0 ? "worse" : "better";
}

/* A change (c != NULL) or a drift of series s, as the store keeps it. */
static gb_store_change change_of(const gb_history *h, const gb_history_series *s, const gb_change_point *c,
                                 char env[1024]) {
  const gb_history_run *before = &h->runs[s->run[c ? c->index - 1 : 0]];
  const gb_history_run *after = &h->runs[s->run[c ? c->index : s->n - 1]];
  double pct = c ? (c->mean_after / c->mean_before - 1.0) * 100.0 : s->drift_total_pct;
  env[0] = '\0';
  if (c) gb_history_env_change(before, after, env, 1024);
  return (gb_store_change){.kind = c ? "change" : "drift", .host = s->row->host, .gpu_type = s->row->gpu_type,
                           .figure = s->key, .benchmark = s->benchmark, .case_name = s->row->case_name,
                           .dtype = s->row->dtype, .metric = s->metric, .unit = s->unit,
                           .gpu_count = s->row->gpu_count, .m = s->row->m,
                           .n = s->row->n, .k = s->row->k, .bytes = s->row->bytes,
                           .headline = s->fclass == GB_FCLASS_HEADLINE, .run_before = before->run_id,
                           .run_after = after->run_id, .at_before = before->timestamp, .at_after = after->timestamp,
                           .points = s->n, .direction = how(s->direction, pct), .p_value = c ? c->p_value : NAN,
                           .mean_before = c ? c->mean_before : NAN, .mean_after = c ? c->mean_after : NAN,
                           .change_pct = pct, .env = env};
}

/* s on one line (core/gb_escape.h) in x->t[i]: names come from results files */
static const char *line(rec_ctx *x, int i, const char *s, gb_err *e) {
  x->t[i].len = 0;
  if (!*e) *e = gb_esc_line(&x->t[i], s);
  if (!*e) *e = gb_buf_append(&x->t[i], "", 1);
  return *e ? "" : x->t[i].data;
}

/* "record  HOST KEY: change at run R (after run P): +x% (worse), p=..." */
static gb_err say(rec_ctx *x, const gb_store_change *c) {
  gb_err esc = GB_OK;
  const char *host = line(x, 0, c->host, &esc), *fig = line(x, 1, c->figure, &esc);
  const char *after = line(x, 2, c->run_after, &esc), *before = line(x, 3, c->run_before, &esc);
  gb_err e = c->kind[0] == 'd'
                 ? gb_buf_printf(&x->out, "record  %s %s: drift over runs %s..%s: %+.2f%% (%s)\n", host, fig, before,
                                 after, c->change_pct, c->direction)
                 : gb_buf_printf(&x->out, "record  %s %s: change at run %s (after run %s): %+.2f%% (%s), p=%.3g%s%s\n",
                                 host, fig, after, before, c->change_pct, c->direction, c->p_value,
                                 c->env[0] ? "; at an environment change: " : "", line(x, 4, c->env, &esc));
  return e ? e : esc;
}

/* The changes and drifts of one node's history, recorded. */
static gb_err record_history(rec_ctx *x, const gb_history *h) {
  size_t cap = 0;
  for (size_t i = 0; i < h->nseries; i++) cap += h->series[i].drift ? 1 : h->series[i].nchanges;
  gb_store_change *c = calloc(cap ? cap : 1, sizeof *c);
  char (*env)[1024] = calloc(cap ? cap : 1, sizeof *env);
  gb_err e = c && env ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
  size_t n = 0, added = 0;
  for (size_t i = 0; i < h->nseries && !e; i++) {
    const gb_history_series *s = &h->series[i];
    /* a drift smaller over the whole series than --threshold is no change (as a step that small is not) */
    if (s->drift && !(fabs(s->drift_total_pct) >= x->opt->min_effect_pct)) continue;
    for (size_t k = 0; k < (s->drift ? 1 : s->nchanges); k++, n++) {
      c[n] = change_of(h, s, s->drift ? NULL : &s->changes[k], env[n]);
      if (!e) e = say(x, &c[n]);
    }
  }
  if (!e && n) e = gb_store_record_changes(x->wr, c, n, &added);
  x->found += n;
  x->added += added;
  free(c);
  free(env);
  return e;
}

/* One selection narrowed to one host (NULL: as it is): its history. */
static gb_err judge(rec_ctx *x, const char *sel, const char *host) {
  gb_buf b = {0};
  gb_results res = {0};
  gb_history h;
  memset(&h, 0, sizeof h);
  size_t n = 0;
  gb_err e = host_sel(sel, host, &b);
  if (!e) e = gb_store_each(x->rd, b.data, add_lean, &res, &n);
  if (!e && n) e = gb_history_build(&res, x->opt, &h);
  if (!e && n) {
    x->nodes++;
    x->analyzed += h.nanalyzed;
    e = record_history(x, &h);
  }
  gb_history_free(&h);
  gb_results_free(&res);
  gb_buf_free(&b);
  return e;
}

int gb_history_record(const gb_history_args *a, const gb_cp_options *opt) {
  rec_ctx x = {.opt = opt};
  char **hosts = NULL;
  size_t nhosts = 0;
  gb_err e = gb_store_open(a->store, &x.wr); /* upgrades an older store, so the reader reads this version */
  if (!e) e = gb_store_open_read(a->store, &x.rd);
  if (!e) e = gb_store_hosts(x.rd, &hosts, &nhosts);
  for (size_t i = 0; i < a->ninputs && !e; i++) {
    if (names_host(a->inputs[i])) e = judge(&x, a->inputs[i], NULL);
    for (size_t k = 0; k < nhosts && !e && !names_host(a->inputs[i]); k++) e = judge(&x, a->inputs[i], hosts[k]);
  }
  if (!e && x.nodes == 0) e = gb_fail(GB_E_INPUT, "the selections selected nothing: no rows");
  int rc = 2;
  if (e) {
    fprintf(stderr, "gpubench history: %s\n", gb_errmsg());
  } else {
    fwrite(x.out.data, 1, x.out.len, stdout);
    printf("history: %zu change point(s) and drift(s) on %zu node(s): %zu recorded now, %zu recorded before\n",
           x.found, x.nodes, x.added, x.found - x.added);
    fflush(stdout);
    rc = x.analyzed ? 0 : 3;
    if (rc == 3)
      fprintf(stderr, "gpubench history: no figure has %zu runs (2 x --min-segment) to test\n", 2 * opt->min_segment);
  }
  gb_store_strs_free(hosts, nhosts);
  gb_store_close(x.rd);
  gb_store_close(x.wr);
  gb_buf_free(&x.out);
  for (int i = 0; i < 5; i++) gb_buf_free(&x.t[i]);
  return rc;
}
