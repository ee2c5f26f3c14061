/* gb_fleet_prom: the fleet check's per-node verdict as Prometheus gauges,
 * for `gpubench export` (gb_fleet.h). */
#include <math.h>
#include <string.h>

#include "gb_fleet.h"
#include "gb_gate.h"
#include "gb_prom.h"

gb_err gb_fleet_prom_put(const gb_fleet_report *rep, gb_buf *out, size_t *nsamples) {
  static const struct {
    const char *name, *help;
  } fam[] = {
      {"gpubench_node_slow", "1 when gpubench fleet names the node (host, gpu_uuid) slower than its peers "
                             "in this campaign beyond the card-to-card spread, else 0"},
      {"gpubench_node_slow_figures", "headline figures on which the node is slower than its peers"},
      {"gpubench_node_relative_speed", "geometric mean of the node's figures over its peers' median (> 1 faster)"},
  };
  gb_err e = GB_OK;
  for (size_t f = 0; f < sizeof fam / sizeof fam[0] && !e; f++) {
    e = gb_prom_put_family(out, fam[f].name, "gauge", fam[f].help);
    for (size_t i = 0; i < rep->nnodes && !e; i++) {
      const gb_fleet_node *n = &rep->nodes[i];
      gb_prom_label l[2] = {{"host", n->host}, {"gpu_uuid", n->gpu_uuid}};
      double v = f == 0 ? (n->slow ? 1.0 : 0.0) : f == 1 ? (double)n->slow : n->geomean;
      e = gb_prom_put_sample(out, fam[f].name, l, 2, v);
      if (!e && nsamples) (*nsamples)++;
    }
  }
  return e;
}

/* Nodes (host, gpu_uuid) of res, counted up to limit, and whether it holds
 * one GPU type. */
static size_t count_nodes(const gb_results *res, size_t limit, bool *one_type) {
  const gb_row *seen[GB_FLEET_MIN_NODES];
  size_t n = 0;
  *one_type = true;
  for (size_t r = 0; r < res->nrows; r++) {
    const gb_row *x = &res->rows[r];
    if (strcmp(x->gpu_type, res->rows[0].gpu_type)) *one_type = false;
    bool known = false;
    for (size_t k = 0; k < n && !known; k++)
      known = !strcmp(seen[k]->host, x->host) && !strcmp(seen[k]->gpu_uuid, x->gpu_uuid);
    if (!known && n < limit) seen[n++] = x;
  }
  return n;
}

gb_err gb_fleet_prom(const gb_results *res, gb_buf *out, size_t *nsamples) {
  bool one_type;
  if (count_nodes(res, GB_FLEET_MIN_NODES, &one_type) < GB_FLEET_MIN_NODES || !one_type) return GB_OK;
  gb_noise_table noise;
  char warning[1400];
  gb_err e = gb_noise_load(NULL, false, &noise, warning, sizeof warning);
  gb_fleet_options opt = {.threshold_pct = NAN, .alpha = NAN, .noise = &noise};
  gb_fleet_report rep;
  memset(&rep, 0, sizeof rep);
  if (!e) e = gb_fleet_check(res, &opt, &rep);
  if (!e) e = gb_fleet_prom_put(&rep, out, nsamples);
  gb_fleet_free(&rep);
  gb_noise_free(&noise);
  return e;
}
