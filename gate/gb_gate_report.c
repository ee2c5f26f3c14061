/* gb_gate_report: the gate's outputs: summary line, terminal text, markdown
 * for a pull-request comment, JUnit XML for CI test reports. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gb_escape.h"
#include "gb_gate.h"

static const char *outcome(const gb_gate_report *rep) {
  switch (gb_gate_exit_code(rep)) {
  case 0: return "PASS";
  case 1: return "FAIL";
  default: return "NOT RUN";
  }
}

gb_err gb_gate_summary(const gb_gate_report *rep, gb_buf *out) {
  if (rep->mismatch) {
    gb_err e = gb_buf_puts(out, "gate: NOT RUN: ");
    if (!e) e = gb_esc_line(out, rep->mismatch_msg); /* result-derived: one line (core/gb_escape.h) */
    return e ? e : gb_buf_puts(out, " (pass --allow-mismatch to compare anyway)\n");
  }
  gb_err e = gb_buf_printf(out, "gate: %s: %zu keys, %zu compared:", outcome(rep), rep->nitems, rep->compared);
  for (int v = 0; v < GB_VERDICT_COUNT && !e; v++)
    e = gb_buf_printf(out, "%s %zu %s", v ? "," : "", rep->count[v], gb_verdict_name((gb_verdict)v));
  if (!e) e = gb_buf_printf(out, " (%zu newly failed)", rep->newly_failed);
  if (!e && !isnan(rep->geomean_ratio))
    e = gb_buf_printf(out, "; geometric mean of ratios %.4f (> 1 better)", rep->geomean_ratio);
  /* result-derived text: one line, never a workflow command (core/gb_escape.h) */
  if (!e && rep->allowed_mismatch && !(e = gb_buf_puts(out, "; allowed "))) e = gb_esc_line(out, rep->mismatch_msg);
  if (!e && rep->libraries_msg[0] && !(e = gb_buf_puts(out, "; libraries differ: ")))
    e = gb_esc_line(out, rep->libraries_msg);
  if (!e && rep->compared == 0 && !rep->count[GB_VERDICT_REGRESSION] && !rep->newly_failed)
    e = gb_buf_printf(out, "; nothing could be compared (%zu common keys)", rep->common);
  return e ? e : gb_buf_puts(out, "\n");
}

/* "700.5 -> 630.4 (-10.0%, threshold 5.0%, p=0.00016 mann-whitney exact, 8/8 samples)" */
static gb_err put_detail(gb_buf *out, const gb_gate_item *it) {
  gb_err e = GB_OK;
  if (!isnan(it->base.median) && !isnan(it->cur.median))
    e = gb_buf_printf(out, "%.6g -> %.6g", it->base.median, it->cur.median);
  else if (!isnan(it->base.median))
    e = gb_buf_printf(out, "baseline %.6g", it->base.median);
  else if (!isnan(it->cur.median))
    e = gb_buf_printf(out, "current %.6g", it->cur.median);
  if (!e && !isnan(it->change_pct)) {
    e = gb_buf_printf(out, " (%+.2f%% %s, threshold %.2f%%", it->change_pct,
                      it->change_pct < 0 ? "worse" : "better", it->threshold_pct);
    if (!e && !isnan(it->p_value)) e = gb_buf_printf(out, ", p=%.3g", it->p_value);
    if (!e && it->method[0]) e = gb_buf_printf(out, ", %s", it->method);
    if (!e) e = gb_buf_printf(out, ", %zu/%zu samples)", it->base.nok, it->cur.nok);
  }
  if (!e && it->note[0] && !(e = gb_buf_puts(out, out->len && out->data[out->len - 1] != ' ' ? " " : "")))
    e = gb_esc_line(out, it->note);
  return e;
}

gb_err gb_gate_format_text(const gb_gate_report *rep, bool all, gb_buf *out) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < rep->nitems && !e; i++) {
    const gb_gate_item *it = &rep->items[i];
    if (!all && it->verdict == GB_VERDICT_UNCHANGED) continue;
    e = gb_buf_printf(out, "%-12s ", gb_verdict_name(it->verdict));
    if (!e) e = gb_esc_line(out, it->key);
    if (!e) e = gb_buf_puts(out, ": ");
    if (!e) e = put_detail(out, it);
    if (!e && it->newly_failed) e = gb_buf_puts(out, " [newly failed]");
    if (!e) e = gb_buf_puts(out, "\n");
  }
  return e ? e : gb_gate_summary(rep, out);
}

/* ---- markdown ---- */

/* A table cell: core/gb_escape.h (no |, line end, tag or "::" gets through). */
static gb_err md_cell(gb_buf *out, const char *s) { return gb_esc_markdown(out, s); }

static gb_err md_row(gb_buf *out, const gb_gate_item *it) {
  gb_err e = gb_buf_printf(out, "| %s%s | ", gb_verdict_name(it->verdict), it->newly_failed ? " (new)" : "");
  if (!e) e = md_cell(out, it->key);
  char num[4][48];
  /* empty cells for NaN (a format that is a conditional "" is an error under clang's -Wformat) */
  memset(num, 0, sizeof num);
  if (!isnan(it->base.median)) snprintf(num[0], sizeof num[0], "%.6g", it->base.median);
  if (!isnan(it->cur.median)) snprintf(num[1], sizeof num[1], "%.6g", it->cur.median);
  if (!isnan(it->change_pct)) snprintf(num[2], sizeof num[2], "%+.2f%%", it->change_pct);
  if (!isnan(it->threshold_pct)) snprintf(num[3], sizeof num[3], "%.2f%%", it->threshold_pct);
  if (!e) e = gb_buf_printf(out, " | %s | %s | %s | %s | ", num[0], num[1], num[2], num[3]);
  if (!e && !isnan(it->p_value)) e = gb_buf_printf(out, "%.3g", it->p_value);
  if (!e) e = gb_buf_puts(out, " | ");
  if (!e) e = md_cell(out, it->note[0] ? it->note : it->method);
  return e ? e : gb_buf_puts(out, " |\n");
}

static const char k_md_head[] = "| verdict | key | baseline | current | change | threshold | p | note |\n"
                                "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";

gb_err gb_gate_format_markdown(const gb_gate_report *rep, gb_buf *out) {
  gb_err e = gb_buf_printf(out, "## gpubench regression gate: %s\n\n", outcome(rep));
  if (e) return e;
  if (rep->mismatch) {
    e = gb_buf_puts(out, "The gate did not run: ");
    if (!e) e = md_cell(out, rep->mismatch_msg);
    return e ? e : gb_buf_puts(out, ". Pass `--allow-mismatch` to compare anyway.\n");
  }
  gb_buf summary = {0};
  e = gb_gate_summary(rep, &summary);
  if (!e) e = gb_buf_puts(out, "`");
  if (!e) summary.data[summary.len - 1] = '\0'; /* without its newline */
  if (!e) e = gb_esc_markdown_code(out, summary.data);
  gb_buf_free(&summary);
  if (!e)
    e = gb_buf_printf(out,
                      "`\n\nChanges are oriented: negative is worse. Base threshold %.2f%%, alpha %.3g; a "
                      "regression must be significant and past the threshold.\n\n",
                      rep->threshold_pct, rep->alpha);
  size_t notable = rep->nitems - rep->count[GB_VERDICT_UNCHANGED];
  if (!e && notable) e = gb_buf_puts(out, k_md_head);
  for (size_t i = 0; i < rep->nitems && !e; i++)
    if (rep->items[i].verdict != GB_VERDICT_UNCHANGED) e = md_row(out, &rep->items[i]);
  if (!e && !notable) e = gb_buf_puts(out, "Every compared key is unchanged.\n");
  if (!e && rep->count[GB_VERDICT_UNCHANGED]) {
    e = gb_buf_printf(out, "\n<details><summary>%zu unchanged keys</summary>\n\n%s", rep->count[GB_VERDICT_UNCHANGED],
                      k_md_head);
    for (size_t i = 0; i < rep->nitems && !e; i++)
      if (rep->items[i].verdict == GB_VERDICT_UNCHANGED) e = md_row(out, &rep->items[i]);
    if (!e) e = gb_buf_puts(out, "\n</details>\n");
  }
  return e;
}

/* ---- JUnit XML ---- */

gb_err gb_xml_escape(gb_buf *out, const char *s) { return gb_esc_xml(out, s); }

static gb_err junit_case(gb_buf *out, const gb_gate_item *it) {
  gb_err e = gb_buf_puts(out, "    <testcase classname=\"gpubench.");
  if (!e) e = gb_xml_escape(out, it->benchmark);
  if (!e) e = gb_buf_puts(out, "\" name=\"");
  if (!e) e = gb_xml_escape(out, it->key);
  if (!e) e = gb_buf_puts(out, "\" time=\"0\"");
  if (e) return e;
  gb_buf msg = {0};
  e = gb_buf_printf(&msg, "%s: ", gb_verdict_name(it->verdict));
  if (!e) e = put_detail(&msg, it);
  if (!e) e = gb_buf_append(&msg, "", 1);
  if (e) {
    gb_buf_free(&msg);
    return e;
  }
  const char *tag = NULL;
  if (it->verdict == GB_VERDICT_REGRESSION || it->newly_failed) tag = "failure";
  else if (it->verdict == GB_VERDICT_INSUFFICIENT || it->verdict == GB_VERDICT_MISSING ||
           it->verdict == GB_VERDICT_FAILED)
    tag = "skipped";
  if (!tag) {
    e = gb_buf_puts(out, "><system-out>");
    if (!e) e = gb_xml_escape(out, msg.data);
    if (!e) e = gb_buf_puts(out, "</system-out></testcase>\n");
  } else {
    e = gb_buf_printf(out, ">\n      <%s message=\"", tag);
    if (!e) e = gb_xml_escape(out, msg.data);
    if (!e) e = gb_buf_printf(out, "\" type=\"%s\">", gb_verdict_name(it->verdict));
    if (!e) e = gb_xml_escape(out, msg.data);
    if (!e) e = gb_buf_printf(out, "</%s>\n    </testcase>\n", tag);
  }
  gb_buf_free(&msg);
  return e;
}

gb_err gb_gate_format_junit(const gb_gate_report *rep, gb_buf *out) {
  gb_err e = gb_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  if (e) return e;
  if (rep->mismatch) {
    e = gb_buf_puts(out, "<testsuites name=\"gpubench gate\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
                         "  <testsuite name=\"gpubench-gate\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
                         "    <testcase classname=\"gpubench.gate\" name=\"machine identity\" time=\"0\">\n"
                         "      <error type=\"mismatch\" message=\"");
    if (!e) e = gb_xml_escape(out, rep->mismatch_msg);
    if (!e) e = gb_buf_puts(out, "\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    return e;
  }
  size_t failures = 0, skipped = 0;
  for (size_t i = 0; i < rep->nitems; i++) {
    const gb_gate_item *it = &rep->items[i];
    if (it->verdict == GB_VERDICT_REGRESSION || it->newly_failed) failures++;
    else if (it->verdict == GB_VERDICT_INSUFFICIENT || it->verdict == GB_VERDICT_MISSING ||
             it->verdict == GB_VERDICT_FAILED)
      skipped++;
  }
  const char *fmt = "%s name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n";
  e = gb_buf_printf(out, fmt, "<testsuites", "gpubench gate", rep->nitems, failures, skipped);
  if (!e) e = gb_buf_printf(out, fmt, "  <testsuite", "gpubench-gate", rep->nitems, failures, skipped);
  for (size_t i = 0; i < rep->nitems && !e; i++) e = junit_case(out, &rep->items[i]);
  if (!e) {
    gb_buf summary = {0};
    e = gb_gate_summary(rep, &summary);
    if (!e) e = gb_buf_append(&summary, "", 1);
    if (!e) e = gb_buf_puts(out, "    <system-out>");
    if (!e) e = gb_xml_escape(out, summary.data);
    gb_buf_free(&summary);
  }
  if (!e) e = gb_buf_puts(out, "</system-out>\n  </testsuite>\n</testsuites>\n");
  return e;
}
