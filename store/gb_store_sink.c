/* gb_store_sink: a campaign's rows into a store as they are measured (run
 * --store). Each case's rows are one transaction, added right after the
 * results file commits them; the run is registered unfinished and marked
 * finished only when the campaign ends normally, so a killed campaign
 * leaves every case it finished, and its run marked incomplete. */
#include <stdlib.h>
#include <string.h>

#include "gb_store.h"

struct gb_store_sink {
  gb_store *s;
  gb_results rows;   /* the case in flight (strings interned, detail kept) */
  char run_id[256];  /* the campaign's run, once a row named it */
  char campaign[256];
};

gb_err gb_store_sink_open(const char *url, gb_store_sink **out) {
  *out = NULL;
  gb_store_sink *k = calloc(1, sizeof *k);
  if (!k) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err e = gb_store_open(url, &k->s);
  if (e) {
    free(k);
    return e;
  }
  *out = k;
  return GB_OK;
}

const char *gb_store_sink_where(const gb_store_sink *k) { return gb_store_where(k->s); }

gb_err gb_store_sink_row(void *ctx, const gb_row *r) {
  gb_store_sink *k = ctx;
  if (!k->run_id[0]) {
    snprintf(k->run_id, sizeof k->run_id, "%s", r->run_id);
    snprintf(k->campaign, sizeof k->campaign, "%s", r->campaign ? r->campaign : "");
  }
  return gb_results_add_row(&k->rows, r, false);
}

gb_err gb_store_sink_commit(void *ctx) {
  gb_store_sink *k = ctx;
  if (!k->rows.nrows) return GB_OK;
  gb_err e = gb_store_add(k->s, k->rows.rows, k->rows.nrows, k->campaign[0] ? k->campaign : NULL, false, NULL);
  gb_results_free(&k->rows);
  memset(&k->rows, 0, sizeof k->rows);
  return e;
}

gb_err gb_store_sink_close(gb_store_sink *k, bool finished) {
  if (!k) return GB_OK;
  gb_err e = gb_store_sink_commit(k);
  if (!e && finished && k->run_id[0]) e = gb_store_run_mark(k->s, k->run_id, true);
  gb_results_free(&k->rows);
  gb_store_close(k->s);
  free(k);
  return e;
}
