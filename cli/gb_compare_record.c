/* compare --store URL --record: the verdict of each judged figure of the
 * current run written to the store's gb_verdicts, once (docs/store.md,
 * "What history and compare find"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_desc.h"
#include "gb_gate.h"
#include "gb_store.h"

/* The current run of an item: its current row's; a figure missing now,
 * the current run of the baseline row's host (NULL: none). */
static const gb_row *cur_row(const gb_gate_item *it, const gb_results *cur) {
  if (it->cur.row) return it->cur.row;
  const char *host = it->base.row ? it->base.row->host : NULL;
  for (size_t i = 0; host && i < cur->nrows; i++)
    if (strcmp(cur->rows[i].host, host) == 0) return &cur->rows[i];
  return NULL;
}

static int cmp_run(const void *a, const void *b) {
  return strcmp(((const gb_store_verdict *)a)->run_id, ((const gb_store_verdict *)b)->run_id);
}

gb_err gb_compare_record(const char *url, const gb_gate_report *rep, const gb_results *cur, size_t *found,
                         size_t *added) {
  gb_store_verdict *v = calloc(rep->nitems ? rep->nitems : 1, sizeof *v);
  char **label = calloc(rep->nitems ? rep->nitems : 1, sizeof *label); /* the figure as history names it: no node */
  gb_err e = v && label ? GB_OK : gb_fail(GB_E_NOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < rep->nitems && !e; i++) {
    const gb_gate_item *it = &rep->items[i];
    const gb_row *r = cur_row(it, cur), *fig = it->cur.row ? it->cur.row : it->base.row;
    if (!r || !fig || it->verdict == GB_VERDICT_NOT_JUDGED) continue; /* not judged, or no current run to hold it */
    if (!(label[n] = gb_gate_key_label(fig))) {
      e = gb_fail(GB_E_NOMEM, "out of memory");
      break;
    }
    v[n] = (gb_store_verdict){.run_id = r->run_id, .host = r->host, .gpu_type = fig->gpu_type, .figure = label[n],
                                .benchmark = fig->benchmark, .case_name = fig->case_name, .dtype = fig->dtype,
                                .metric = fig->metric, .unit = fig->unit, .gpu_count = fig->gpu_count, .m = fig->m,
                                .n = fig->n, .k = fig->k, .bytes = fig->bytes, .headline = it->fclass == GB_FCLASS_HEADLINE,
                                .fails = it->fails, .verdict = gb_verdict_name(it->verdict),
                                .change_pct = it->change_pct, .ratio = it->ratio, .threshold_pct = it->threshold_pct,
                                .p_value = it->p_value, .base_median = it->base.median, .cur_median = it->cur.median};
    n++;
  }
  qsort(v, n, sizeof *v, cmp_run);
  gb_store *s = NULL;
  if (!e) e = gb_store_open(url, &s);
  if (!e) e = gb_store_record_verdicts(s, v, n, added);
  gb_store_close(s);
  *found = n;
  for (size_t i = 0; label && i < n; i++) free(label[i]);
  free(label);
  free(v);
  return e;
}
