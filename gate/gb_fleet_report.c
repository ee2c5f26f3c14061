/* gb_fleet_report: the fleet check's outputs: text, markdown, JUnit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gb_escape.h"
#include "gb_fleet.h"
#include "gb_gate.h"

static gb_err summary(const gb_fleet_report *rep, gb_buf *out) {
  return gb_buf_printf(out,
                       "fleet: %s: %zu nodes, %zu headline figures ranked; %zu slow node%s (beyond max(%.2f%%, "
                       "z x the card-to-card spread) at alpha %.3g)\n",
                       rep->slow_nodes ? "FAIL" : "PASS", rep->nnodes, rep->nfigs, rep->slow_nodes,
                       rep->slow_nodes == 1 ? "" : "s", rep->threshold_pct, rep->alpha);
}

/* "host gpu_uuid", escaped for one line of text. */
static gb_err put_node(gb_buf *out, const gb_fleet_node *nd) {
  gb_err e = gb_esc_line(out, nd->host[0] ? nd->host : "(no host)");
  if (!e) e = gb_buf_puts(out, " ");
  return e ? e : gb_esc_line(out, nd->gpu_uuid[0] ? nd->gpu_uuid : "(no gpu_uuid)");
}

/* "gemm/... tflops: 630.4 against 700.5 (-10.00%, limit 5.00%, peak)" */
static gb_err put_entry(gb_buf *out, const gb_fleet_report *rep, const gb_fleet_entry *en) {
  gb_err e = gb_esc_line(out, rep->figs[en->fig]);
  if (!e)
    e = gb_buf_printf(out, ": %.6g against %.6g of the others (%+.2f%%, limit %.2f%%%s)", en->value, en->ref,
                      en->change_pct, en->mdc_pct, rep->fig_peak[en->fig] ? ", peaks" : "");
  return e;
}

gb_err gb_fleet_format_text(const gb_fleet_report *rep, gb_buf *out) {
  gb_err e = summary(rep, out);
  if (!e) e = gb_buf_puts(out, "rank  figures  slow  fast  geomean  node\n");
  for (size_t k = 0; k < rep->nnodes && !e; k++) {
    const gb_fleet_node *nd = &rep->nodes[k];
    e = gb_buf_printf(out, "%4zu  %7zu  %4zu  %4zu  %7.4f  ", k + 1, nd->figures, nd->slow, nd->fast, nd->geomean);
    if (!e) e = put_node(out, nd);
    if (!e) e = gb_buf_puts(out, nd->slow ? "  SLOW\n" : "\n");
  }
  for (int pass = 0; pass < 2 && !e; pass++)
    for (size_t i = 0; i < rep->nentries && !e; i++) {
      const gb_fleet_entry *en = &rep->entries[i];
      if (!(pass ? en->fast : en->slow)) continue;
      e = gb_buf_puts(out, pass ? "fast  " : "slow  ");
      if (!e) e = put_node(out, &rep->nodes[en->node]);
      if (!e) e = gb_buf_puts(out, "  ");
      if (!e) e = put_entry(out, rep, en);
      if (!e) e = gb_buf_puts(out, "\n");
    }
  return e;
}

gb_err gb_fleet_format_markdown(const gb_fleet_report *rep, gb_buf *out) {
  size_t start = out->len, cut = 0, cut_nodes = 0;
  gb_err e = gb_buf_puts(out, "### gpubench fleet check\n\n`");
  if (!e) e = summary(rep, out);
  if (!e) e = gb_buf_puts(out, "`\n\n| rank | node | figures | slow | fast | geomean |\n| --- | --- | --- | --- | --- | --- |\n");
  for (size_t k = 0; k < rep->nnodes && !e; k++) {
    const gb_fleet_node *nd = &rep->nodes[k];
    if (out->len - start > GB_GATE_MARKDOWN_MAX - 4096) { /* the bound compare --markdown keeps too */
      cut_nodes++;
      continue;
    }
    e = gb_buf_printf(out, "| %zu | ", k + 1);
    if (!e) e = gb_esc_markdown(out, nd->host);
    if (!e) e = gb_buf_puts(out, " ");
    if (!e) e = gb_esc_markdown(out, nd->gpu_uuid);
    if (!e) e = gb_buf_printf(out, "%s | %zu | %zu | %zu | %.4f |\n", nd->slow ? " **SLOW**" : "", nd->figures,
                              nd->slow, nd->fast, nd->geomean);
  }
  if (!e && rep->slow_nodes) e = gb_buf_puts(out, "\n#### Slow figures\n\n");
  for (size_t i = 0; i < rep->nentries && !e; i++) {
    const gb_fleet_entry *en = &rep->entries[i];
    if (!en->slow) continue;
    if (out->len - start > GB_GATE_MARKDOWN_MAX - 4096) {
      cut++;
      continue;
    }
    gb_buf line = {0};
    e = put_node(&line, &rep->nodes[en->node]);
    if (!e) e = gb_buf_puts(&line, ": ");
    if (!e) e = put_entry(&line, rep, en);
    if (!e) e = gb_buf_append(&line, "", 1);
    if (!e) e = gb_buf_puts(out, "- ");
    if (!e) e = gb_esc_markdown(out, line.data);
    if (!e) e = gb_buf_puts(out, "\n");
    gb_buf_free(&line);
  }
  if (!e && cut_nodes)
    e = gb_buf_printf(out, "\n%zu more nodes (ranks %zu to %zu) are not shown; the text output lists them.\n",
                      cut_nodes, rep->nnodes - cut_nodes + 1, rep->nnodes);
  if (!e && cut) e = gb_buf_printf(out, "\n%zu more slow figures are not shown; the text output lists them.\n", cut);
  return e;
}

gb_err gb_fleet_format_junit(const gb_fleet_report *rep, gb_buf *out) {
  const char *fmt = "%s name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n";
  gb_err e = gb_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  if (!e) e = gb_buf_printf(out, fmt, "<testsuites", "gpubench fleet", rep->nnodes, rep->slow_nodes);
  if (!e) e = gb_buf_printf(out, fmt, "  <testsuite", "gpubench-fleet", rep->nnodes, rep->slow_nodes);
  for (size_t k = 0; k < rep->nnodes && !e; k++) {
    const gb_fleet_node *nd = &rep->nodes[k];
    gb_buf name = {0}, msg = {0};
    e = put_node(&name, nd);
    if (!e) e = gb_buf_append(&name, "", 1);
    if (!e) e = gb_buf_printf(&msg, "%zu of %zu headline figures slower than the other nodes; geomean %.4f",
                              nd->slow, nd->figures, nd->geomean);
    for (size_t i = 0; i < rep->nentries && !e; i++)
      if (rep->entries[i].node == k && rep->entries[i].slow) {
        e = gb_buf_puts(&msg, "\n");
        if (!e) e = put_entry(&msg, rep, &rep->entries[i]);
      }
    if (!e) e = gb_buf_append(&msg, "", 1);
    if (!e) e = gb_buf_puts(out, "    <testcase classname=\"gpubench.fleet\" name=\"");
    if (!e) e = gb_esc_xml(out, name.data);
    if (!e && nd->slow) {
      e = gb_buf_puts(out, "\" time=\"0\">\n      <failure type=\"slow\" message=\"");
      if (!e) e = gb_esc_xml(out, name.data);
      if (!e) e = gb_buf_puts(out, " is slow\">");
      if (!e) e = gb_esc_xml(out, msg.data);
      if (!e) e = gb_buf_puts(out, "</failure>\n    </testcase>\n");
    } else if (!e) {
      e = gb_buf_puts(out, "\" time=\"0\"><system-out>");
      if (!e) e = gb_esc_xml(out, msg.data);
      if (!e) e = gb_buf_puts(out, "</system-out></testcase>\n");
    }
    gb_buf_free(&name);
    gb_buf_free(&msg);
  }
  if (!e) e = gb_buf_puts(out, "  </testsuite>\n</testsuites>\n");
  return e;
}
