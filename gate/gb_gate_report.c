/* gb_gate_report: the gate's outputs: summary line, terminal text, markdown
 * for a pull-request comment, JUnit XML for CI test reports. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gb_desc.h"
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
  gb_err e = gb_buf_printf(out, "gate: %s: %zu figures, %zu compared:", outcome(rep), rep->nitems, rep->compared);
  for (int v = 0; v < GB_VERDICT_COUNT && !e; v++)
    e = gb_buf_printf(out, "%s %zu %s", v ? "," : "", rep->count[v], gb_verdict_name((gb_verdict)v));
  if (!e) e = gb_buf_printf(out, " (%zu newly failed; %zu failing)", rep->newly_failed, rep->failing);
  if (!e && !isnan(rep->geomean_ratio))
    e = gb_buf_printf(out, "; geometric mean of ratios %.4f (> 1 better)", rep->geomean_ratio);
  /* result-derived text: one line, never a workflow command (core/gb_escape.h) */
  if (!e && rep->allowed_mismatch && !(e = gb_buf_puts(out, "; allowed "))) e = gb_esc_line(out, rep->mismatch_msg);
  if (!e && rep->libraries_msg[0] && !(e = gb_buf_puts(out, "; libraries differ: ")))
    e = gb_esc_line(out, rep->libraries_msg);
  if (!e && rep->nodes) e = gb_buf_printf(out, "; judged node by node (%zu nodes)", rep->nodes);
  if (!e && rep->self_rows && !(e = gb_buf_printf(out, "; %zu baseline row(s) left out, of run(s) also in the current "
                                                  "results (never their own baseline): ", rep->self_rows)))
    e = gb_esc_line(out, rep->self_msg);
  if (!e && rep->warning && rep->warning[0] && !(e = gb_buf_puts(out, "; "))) e = gb_esc_line(out, rep->warning);
  if (!e && rep->compared == 0 && !rep->failing)
    e = gb_buf_printf(out, "; nothing could be compared (%zu common keys)", rep->common);
  return e ? e : gb_buf_puts(out, "\n");
}

/* "700.5 -> 630.4 (-10.00% worse; MDC 2.31%, p=1.2e-08, sigma 0.81% floor, 1/1 runs) [headline]" */
static gb_err put_detail(gb_buf *out, const gb_gate_item *it) {
  gb_err e = GB_OK;
  if (!isnan(it->base.median) && !isnan(it->cur.median))
    e = gb_buf_printf(out, "%.6g -> %.6g", it->base.median, it->cur.median);
  else if (!isnan(it->base.median))
    e = gb_buf_printf(out, "baseline %.6g", it->base.median);
  else if (!isnan(it->cur.median))
    e = gb_buf_printf(out, "current %.6g", it->cur.median);
  if (!e && !isnan(it->change_pct)) {
    e = gb_buf_printf(out, " (%+.2f%% %s", it->change_pct, it->change_pct < 0 ? "worse" : "better");
    if (!e && !isnan(it->mdc_pct))
      e = gb_buf_printf(out, "; MDC %.2f%%, p=%.3g, sigma %.2f%% %s", it->mdc_pct, it->p_value,
                        expm1(it->sigma) * 100.0, it->method);
    if (!e) e = gb_buf_printf(out, ", %zu/%zu runs", it->base.nruns, it->cur.nruns);
    if (!e && it->base.nok > it->base.nruns)
      e = gb_buf_printf(out, ", %zu/%zu repetitions", it->base.nok, it->cur.nok);
    if (!e) e = gb_buf_puts(out, ")");
  }
  if (!e) e = gb_buf_printf(out, " [%s%s]", gb_fclass_name((gb_fclass)it->fclass), it->gated ? "" : ", information");
  if (!e && it->note[0] && !(e = gb_buf_puts(out, " "))) e = gb_esc_line(out, it->note);
  return e;
}

gb_err gb_gate_format_text(const gb_gate_report *rep, bool all, gb_buf *out) {
  gb_err e = GB_OK;
  for (size_t i = 0; i < rep->nitems && !e; i++) {
    const gb_gate_item *it = &rep->items[i];
    if (!all && (it->verdict == GB_VERDICT_UNCHANGED || it->verdict == GB_VERDICT_NOT_JUDGED)) continue;
    e = gb_buf_printf(out, "%-14s ", gb_verdict_name(it->verdict));
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
  gb_err e = gb_buf_printf(out, "| %s%s | %s%s | ", gb_verdict_name(it->verdict), it->newly_failed ? " (new)" : "",
                           gb_fclass_name((gb_fclass)it->fclass), it->gated ? "" : " (info)");
  if (!e) e = md_cell(out, it->key);
  char num[4][48];
  /* empty cells for NaN (a format that is a conditional "" is an error under clang's -Wformat) */
  memset(num, 0, sizeof num);
  if (!isnan(it->base.median)) snprintf(num[0], sizeof num[0], "%.6g", it->base.median);
  if (!isnan(it->cur.median)) snprintf(num[1], sizeof num[1], "%.6g", it->cur.median);
  if (!isnan(it->change_pct)) snprintf(num[2], sizeof num[2], "%+.2f%%", it->change_pct);
  if (!isnan(it->mdc_pct)) snprintf(num[3], sizeof num[3], "%.2f%%", it->mdc_pct);
  if (!e) e = gb_buf_printf(out, " | %s | %s | %s | %s | ", num[0], num[1], num[2], num[3]);
  if (!e && !isnan(it->p_value)) e = gb_buf_printf(out, "%.3g", it->p_value);
  if (!e) e = gb_buf_printf(out, " | %zu/%zu | ", it->base.nruns, it->cur.nruns);
  if (!e) e = md_cell(out, it->note[0] ? it->note : it->method);
  return e ? e : gb_buf_puts(out, " |\n");
}

static const char k_md_head[] = "| verdict | class | figure | baseline | current | change | MDC | p | runs | note |\n"
                                "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";

/* Room kept at the end for the line that says what was cut. */
#define MD_RESERVE 512

/* Appends the rows of one verdict as long as they fit under the cap;
 * counts those that do not in *cut. */
static gb_err md_section(gb_buf *out, const gb_gate_report *rep, gb_verdict v, size_t *cut) {
  if (!rep->count[v]) return GB_OK;
  size_t cap = GB_GATE_MARKDOWN_MAX - MD_RESERVE;
  gb_buf head = {0}, row = {0};
  gb_err e = gb_buf_printf(&head, "\n### %s: %zu\n\n%s", gb_verdict_name(v), rep->count[v], k_md_head);
  bool headed = false;
  for (size_t i = 0; i < rep->nitems && !e; i++) {
    if (rep->items[i].verdict != v) continue;
    row.len = 0;
    if ((e = md_row(&row, &rep->items[i]))) break;
    size_t need = row.len + (headed ? 0 : head.len);
    if (*cut || out->len + need > cap) {
      (*cut)++;
      continue;
    }
    if (!headed && (e = gb_buf_append(out, head.data, head.len))) break;
    headed = true;
    e = gb_buf_append(out, row.data, row.len);
  }
  gb_buf_free(&head);
  gb_buf_free(&row);
  return e;
}

gb_err gb_gate_format_markdown(const gb_gate_report *rep, gb_buf *out) {
  size_t start = out->len;
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
                      "`\n\nChanges are oriented: negative is worse. A figure is flagged when it moved by more "
                      "than its MDC (minimum detectable change at alpha %.3g, from the noise between independent "
                      "runs; at least %.2f%%). Headline figures decide the outcome; latency-class ones are "
                      "information.\n",
                      rep->alpha, rep->threshold_pct);
  /* out may already hold text before this report: the cap is on what this call writes */
  gb_buf body = {0};
  size_t cut = 0;
  static const gb_verdict order[] = {GB_VERDICT_REGRESSION,  GB_VERDICT_FAILED,      GB_VERDICT_COLLAPSED,
                                     GB_VERDICT_UNSTABLE,    GB_VERDICT_MISSING,
                                     GB_VERDICT_NOT_COMPARABLE, GB_VERDICT_IMPROVEMENT, GB_VERDICT_NOISE,
                                     GB_VERDICT_INSUFFICIENT, GB_VERDICT_NEW,         GB_VERDICT_WORSE_INFO,
                                     GB_VERDICT_BETTER_INFO,  GB_VERDICT_UNSUPPORTED};
  if (!e) e = gb_buf_append(&body, out->data + start, out->len - start);
  for (size_t k = 0; k < sizeof order / sizeof order[0] && !e; k++) e = md_section(&body, rep, order[k], &cut);
  if (!e && (rep->count[GB_VERDICT_UNCHANGED] || rep->count[GB_VERDICT_NOT_JUDGED]))
    e = gb_buf_printf(&body, "\n%zu figures unchanged (within their MDC) and %zu not judged (meaningless) are "
                             "counted, not listed.\n",
                      rep->count[GB_VERDICT_UNCHANGED], rep->count[GB_VERDICT_NOT_JUDGED]);
  if (!e && cut)
    e = gb_buf_printf(&body, "\n%zu more figures are not shown (the %d-character limit); the text and JUnit "
                             "outputs list every one.\n",
                      cut, GB_GATE_MARKDOWN_MAX);
  if (!e && body.len > GB_GATE_MARKDOWN_MAX) body.len = GB_GATE_MARKDOWN_MAX; /* a huge summary line: never over */
  if (!e) {
    out->len = start;
    e = gb_buf_append(out, body.data, body.len);
  }
  gb_buf_free(&body);
  return e;
}

gb_err gb_gate_format_short(const gb_gate_report *rep, gb_buf *out) {
  gb_err e = gb_gate_summary(rep, out);
  size_t shown = 0, more = 0;
  for (size_t i = 0; i < rep->nitems && !e; i++) {
    const gb_gate_item *it = &rep->items[i];
    if (!it->fails && it->verdict != GB_VERDICT_NOT_COMPARABLE) continue;
    if (shown == 20) {
      more++;
      continue;
    }
    shown++;
    e = gb_buf_printf(out, "  %s %s: ", gb_verdict_name(it->verdict), it->key);
    if (!e) e = put_detail(out, it);
    if (!e) e = gb_buf_puts(out, "\n");
  }
  if (!e && more) e = gb_buf_printf(out, "  ... and %zu more (--format text lists every one)\n", more);
  return e;
}

/* ---- JUnit XML ---- */

gb_err gb_xml_escape(gb_buf *out, const char *s) { return gb_esc_xml(out, s); }

static bool skipped_verdict(gb_verdict v) {
  return v == GB_VERDICT_INSUFFICIENT || v == GB_VERDICT_MISSING || v == GB_VERDICT_FAILED ||
         v == GB_VERDICT_NOT_COMPARABLE || v == GB_VERDICT_NOT_JUDGED || v == GB_VERDICT_UNSUPPORTED;
}

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
  if (it->fails) tag = "failure";
  else if (skipped_verdict(it->verdict))
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
    if (it->fails) failures++;
    else if (skipped_verdict(it->verdict))
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
