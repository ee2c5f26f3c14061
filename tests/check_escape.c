/* Tests for gb_escape (one escaping function per output format) and for
 * injection through result fields into the gate's markdown and JUnit and
 * into plan.csv: no output line may start a CI workflow command ("::"), no
 * tag passes, tables keep their columns, XML stays well-formed, CSV cells
 * never start a formula. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_escape.h"
#include "gb_gate.h"
#include "gb_history.h"
#include "gb_results.h"
#include "testutil.h"


static const char *const k_hostile[] = {
    "plain",
    "x\n::error::pwned",
    "::warning file=a::b",
    "a\r\n::error::x|y",
    ":::",
    ":\r\r\r:x (found by fuzz_escape: a dropped CR between two colons)",
    "<script>alert(1)</script>",
    "a|b`c`\\d",
    "tab\there\x01\x1f\x7f",
    "\xc2\x85next line (U+0085)",
    "bad utf8 \xff\xfe end",
    "\xef\xbf\xbe noncharacter",
    "=HYPERLINK(\"http://x\")",
    "-2+3",
    "@SUM(A1)",
    "+1",
    "-1.5e3",
    "'=already",
    "\tlead tab",
    "\rlead cr",
    "quote's \"double\" & amp",
    "",
};
#define NHOSTILE (sizeof k_hostile / sizeof k_hostile[0])

/* No line of s starts with "::". */
static int no_workflow_command(const char *s) {
  for (const char *p = s; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (strncmp(p, "::", 2) == 0) return 0;
  return 1;
}

/* Whether s has c outside an entity or backslash escape. */
static int raw_char(const char *s, char c) {
  for (const char *p = s; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      continue;
    }
    if (*p == c) return 1;
  }
  return 0;
}

static char *esc(gb_err (*f)(gb_buf *, const char *), const char *s) {
  gb_buf b = {0};
  ck_assert_int_eq(f(&b, s), GB_OK);
  gb_buf_append(&b, "", 1);
  return b.data;
}

START_TEST(test_markdown) {
  for (size_t i = 0; i < NHOSTILE; i++) {
    char *m = esc(gb_esc_markdown, k_hostile[i]);
    size_t bad;
    ck_assert_msg(!strchr(m, '\n') && !strchr(m, '\r'), "line end in \"%s\"", m);
    ck_assert_msg(!strstr(m, "::"), "\"::\" in \"%s\"", m);
    ck_assert_msg(!raw_char(m, '|') && !raw_char(m, '`') && !strchr(m, '<') && !strchr(m, '>'), "\"%s\"", m);
    for (const unsigned char *p = (const unsigned char *)m; *p; p++) ck_assert_msg(*p >= 0x20 && *p != 0x7f, "%s", m);
    ck_assert(gb_utf8_valid(m, strlen(m), &bad));
    ck_assert_msg(!strstr(m, "\xc2\x85"), "C1 control kept in \"%s\"", m);
    free(m);
    m = esc(gb_esc_line, k_hostile[i]);
    ck_assert(!strpbrk(m, "\n\r\x1b") && !strstr(m, "::"));
    free(m);
    m = esc(gb_esc_markdown_code, k_hostile[i]);
    ck_assert(!strchr(m, '\n') && !strstr(m, "::") && !strchr(m, '`'));
    free(m);
  }
  char *m = esc(gb_esc_markdown, "x\n::error::a|b<i>");
  ck_assert_str_eq(m, "x :\\:error:\\:a\\|b&lt;i&gt;");
  free(m);
  /* paragraphs keep their lines, and still no line starts with "::" */
  for (size_t i = 0; i < NHOSTILE; i++) {
    m = esc(gb_esc_markdown_text, k_hostile[i]);
    ck_assert_msg(no_workflow_command(m) && !strstr(m, "::") && !strchr(m, '\r') && !strchr(m, '<'), "%s", m);
    free(m);
  }
  m = esc(gb_esc_markdown_text, "a\r\n::error::x");
  ck_assert_str_eq(m, "a\n:\\:error:\\:x");
  free(m);
}
END_TEST

START_TEST(test_html) {
  for (size_t i = 0; i < NHOSTILE; i++) {
    char *h = esc(gb_esc_html, k_hostile[i]);
    ck_assert_msg(!strpbrk(h, "<>\"'"), "\"%s\"", h);
    for (const char *p = h; (p = strchr(p, '&')); p++)
      ck_assert_msg(strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 || strncmp(p, "&gt;", 4) == 0 ||
                        strncmp(p, "&quot;", 6) == 0 || strncmp(p, "&#39;", 5) == 0 ||
                        strncmp(p, "&#10;", 5) == 0 || strncmp(p, "&#13;", 5) == 0,
                    "bare & in \"%s\"", h);
    /* no raw line end: a field's "\n::error::" must not start a line of the page */
    for (const unsigned char *p = (const unsigned char *)h; *p; p++)
      ck_assert_msg(*p >= 0x20 || *p == '\t', "control in \"%s\"", h);
    ck_assert(!strstr(h, "\xc2\x85") && !strstr(h, "\xef\xbf\xbe"));
    free(h);
  }
}
END_TEST

START_TEST(test_xml) {
  for (size_t i = 0; i < NHOSTILE; i++) {
    char *x = esc(gb_esc_xml, k_hostile[i]);
    size_t n = 2 * strlen(x) + 64;
    char *doc = malloc(n);
    snprintf(doc, n, "<a v=\"%s\">%s</a>", x, x);
    ck_assert_msg(gb_test_xml_well_formed(doc), "not well-formed: %s", doc);
    for (const unsigned char *p = (const unsigned char *)x; *p; p++) ck_assert_msg(*p >= 0x20, "%s", x);
    ck_assert(!strstr(x, "\xef\xbf\xbe"));
    free(doc);
    free(x);
  }
}
END_TEST

/* Valid UTF-8 for a library that escapes the rest (plan --json through
 * json-c): each byte of an invalid sequence becomes U+FFFD, nothing else
 * changes, whatever the text. */
START_TEST(test_utf8) {
  char *j = esc(gb_esc_utf8, "a\"b\\c\n\x01\x7f\xc2\x85\xe2\x80\xa8\xff\xfe\xc0x\xe2\x82\xac");
  ck_assert_str_eq(j, "a\"b\\c\n\x01\x7f\xc2\x85\xe2\x80\xa8\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx\xe2\x82\xac");
  free(j);
  for (size_t i = 0; i < NHOSTILE; i++) {
    j = esc(gb_esc_utf8, k_hostile[i]);
    size_t bad;
    ck_assert_msg(gb_utf8_valid(j, strlen(j), &bad), "%s", j);
    free(j);
  }
}
END_TEST

/* CSV: RFC 4180 plus the OWASP formula guard, and every field reads back. */
START_TEST(test_csv) {
  static const struct { const char *in, *out; } k[] = {
      {"=1+2", "'=1+2"},        {"+x", "'+x"},          {"-x", "'-x"},
      {"@SUM(A1)", "'@SUM(A1)"}, {"\tx", "'\tx"},    {"-1.5", "-1.5"},
      {"+3e4", "+3e4"},          {"-", "'-"},            {"'=x", "''=x"},
      {"'x", "'x"},              {"a=b", "a=b"},         {"=a,b", "\"'=a,b\""},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    gb_buf b = {0};
    ck_assert_int_eq(gb_esc_csv(&b, k[i].in, 0), GB_OK);
    gb_buf_append(&b, "", 1);
    ck_assert_msg(strcmp(b.data, k[i].out) == 0, "\"%s\" -> \"%s\", want \"%s\"", k[i].in, b.data, k[i].out);
    gb_buf_free(&b);
  }
  /* every hostile field round-trips through the reader */
  gb_buf b = {0};
  ck_assert_int_eq(gb_buf_puts(&b, "h\n"), GB_OK);
  for (size_t i = 0; i < NHOSTILE; i++) {
    ck_assert_int_eq(gb_csv_put_field(&b, k_hostile[i], 0), GB_OK);
    gb_buf_puts(&b, "\n");
  }
  gb_csv_table t;
  ck_assert_msg(gb_csv_read_mem("t.csv", b.data, b.len, &t) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(t.nrows, NHOSTILE - 1); /* the empty field is a blank line */
  for (size_t i = 0; i + 1 < NHOSTILE; i++) {
    const char *cell = gb_csv_cell(&t, i, 0);
    size_t bad;
    if (gb_utf8_valid(k_hostile[i], strlen(k_hostile[i]), &bad))
      ck_assert_msg(strcmp(cell, k_hostile[i]) == 0, "\"%s\" read back as \"%s\"", k_hostile[i], cell);
    ck_assert_msg(!strchr("=+@\t\r", cell[0]) || strcmp(cell, k_hostile[i]) == 0, "%s", cell);
  }
  gb_csv_free(&t);
  /* in the file itself no line starts a formula */
  for (const char *p = b.data; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    ck_assert_msg(!strchr("=@", *p) || !*p, "line starts a formula: %.20s", p);
  gb_buf_free(&b);
}
END_TEST

START_TEST(test_gnuplot) {
  for (size_t i = 0; i < NHOSTILE; i++) {
    char *g = esc(gb_esc_gnuplot, k_hostile[i]);
    ck_assert(!strchr(g, '\n') && !strchr(g, '\r'));
    /* quotes come in pairs: the single-quoted string never ends early */
    for (const char *p = g; (p = strchr(p, '\'')); p += 2) ck_assert_msg(p[1] == '\'', "lone quote in %s", g);
    free(g);
  }
  char *g = esc(gb_esc_gnuplot, "it's a_b^c\\\n");
  ck_assert_str_eq(g, "it''s a_b^c\\ ");
  free(g);
  /* a data file's label: no quote to end it, no control or bidi character */
  for (size_t i = 0; i < NHOSTILE; i++) {
    char *d = esc(gb_esc_gnuplot_data, k_hostile[i]);
    ck_assert(!strchr(d, '"'));
    for (const unsigned char *p = (const unsigned char *)d; *p; p++) ck_assert_msg(*p >= 0x20 && *p != 0x7F, "%s", d);
    ck_assert(!strstr(d, "\xE2\x80\xAE") && !strstr(d, "\xC2\x9B"));
    free(d);
  }
  g = esc(gb_esc_gnuplot_data, "say \"hi\"\x1B[31m\xE2\x80\xAE!");
  ck_assert_str_eq(g, "say 'hi' [31m !");
  free(g);
}
END_TEST

/* ---- injection through result fields into the gate's outputs ---- */

static void hostile_results(gb_results *base, gb_results *cur, const char *field_text) {
  gb_buf b = {0}, c = {0};
  ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
  ck_assert_int_eq(gb_results_put_header(&c), GB_OK);
  for (int rep = 0; rep < 8; rep++) {
    gb_row r = gb_row_empty();
    r.run_id = "r1";
    r.timestamp = "2026-12-02T00:00:00Z";
    r.host = field_text;
    r.gpu_type = "H200-SXM-141GB";
    r.driver = "580";
    r.cuda = "13.0";
    r.benchmark = "membw";
    r.case_name = field_text;
    r.dtype = "fp64";
    r.metric = "gbps";
    r.unit = "GB/s";
    r.value = 100 + rep * 0.01;
    r.rep = rep;
    r.detail = field_text;
    r.cublaslt = field_text;
    r.variant = field_text;
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
    r.value = 50 + rep * 0.01; /* a regression */
    r.cublaslt = "13.2";       /* library versions differ: named in the summary */
    r.run_id = "r2";
    ck_assert_int_eq(gb_results_put_row(&c, &r), GB_OK);
    /* a second, unchanged key */
    r.case_name = "copy";
    r.value = 100;
    ck_assert_int_eq(gb_results_put_row(&c, &r), GB_OK);
    r.cublaslt = field_text;
    r.run_id = "r1";
    ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
  }
  ck_assert_msg(gb_results_read_mem("b.csv", b.data, b.len, base) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_results_read_mem("c.csv", c.data, c.len, cur) == GB_OK, "%s", gb_errmsg());
  gb_buf_free(&b);
  gb_buf_free(&c);
}

/* Unescaped '|' in a markdown line. */
static int pipes(const char *line, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n; i++) {
    if (line[i] == '\\') {
      i++;
      continue;
    }
    k += line[i] == '|';
  }
  return k;
}

START_TEST(test_gate_outputs) {
  static const char *const fields[] = {"x\n::error::pwned", "a|b|c", "<img src=x onerror=alert(1)>",
                                       "`code` and \x01 control", "::set-output name=x::y"};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    gb_results base = {0}, cur = {0};
    hostile_results(&base, &cur, fields[f]);
    gb_gate_options opt = gb_gate_defaults();
    opt.allow_mismatch = true;
    gb_gate_report rep;
    ck_assert_int_eq(gb_gate_compare(&base, &cur, &opt, &rep), GB_OK);
    gb_buf md = {0}, x = {0}, text = {0};
    /* the text CI logs show: one line per key and the summary, none a workflow command */
    ck_assert_int_eq(gb_gate_format_text(&rep, true, &text), GB_OK);
    gb_buf_append(&text, "", 1);
    ck_assert_msg(no_workflow_command(text.data), "field %zu: text:\n%s", f, text.data);
    size_t nl = 0;
    for (const char *p = text.data; (p = strchr(p, '\n')); p++) nl++;
    ck_assert_msg(nl == rep.nitems + 1, "field %zu: %zu lines for %zu keys:\n%s", f, nl, rep.nitems, text.data);
    gb_buf_free(&text);
    ck_assert_int_eq(gb_gate_format_markdown(&rep, &md), GB_OK);
    ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
    gb_buf_append(&md, "", 1);
    gb_buf_append(&x, "", 1);
    ck_assert_msg(no_workflow_command(md.data), "field %zu: a line starts with \"::\":\n%s", f, md.data);
    /* no tag outside code spans (inside one it is text; a backtick in a
     * field cannot close the span: gb_esc_markdown_code) */
    char *plain = strdup(md.data);
    size_t k = 0;
    int in_code = 0;
    for (const char *p = md.data; *p; p++) {
      if (*p == '`' && (p == md.data || p[-1] != '\\')) in_code = !in_code;
      else if (!in_code) plain[k++] = *p;
    }
    plain[k] = '\0';
    ck_assert_msg(!strstr(plain, "<img") && !strstr(md.data, "\x01"), "field %zu:\n%s", f, md.data);
    free(plain);
    /* every table row has as many pipes as the first (the header) */
    int head_pipes = 0;
    for (const char *p = md.data; *p;) {
      const char *nl = strchr(p, '\n');
      size_t n = nl ? (size_t)(nl - p) : strlen(p);
      if (n && p[0] == '|' && !head_pipes) head_pipes = pipes(p, n);
      if (n && p[0] == '|') ck_assert_msg(pipes(p, n) == head_pipes, "field %zu: row \"%.*s\"", f, (int)n, p);
      p += n + (nl != NULL);
    }
    ck_assert_msg(gb_test_xml_well_formed(x.data), "field %zu: not well-formed:\n%s", f, x.data);
    ck_assert_msg(no_workflow_command(x.data), "field %zu:\n%s", f, x.data);
    gb_buf_free(&md);
    gb_buf_free(&x);
    gb_gate_report_free(&rep);
    gb_results_free(&base);
    gb_results_free(&cur);
  }
}
END_TEST

/* history's text: the keys and run ids of hostile results stay one line each
 * and never start a workflow command (it printed them raw before). */
START_TEST(test_history_text) {
  static const char *const fields[] = {"x\n::error::pwned", "a\r\n::warning::b", "tab\there\x01"};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    gb_buf b = {0};
    ck_assert_int_eq(gb_results_put_header(&b), GB_OK);
    char run_id[64], ts[64];
    for (int run = 0; run < 12; run++) {
      snprintf(run_id, sizeof run_id, "%s%02d", fields[f], run);
      snprintf(ts, sizeof ts, "2026-12-%02dT00:00:00Z", run + 1);
      gb_row r = gb_row_empty();
      r.run_id = run_id;
      r.timestamp = ts;
      r.host = "h";
      r.gpu_type = "H200-SXM-141GB";
      r.driver = "580";
      r.cuda = "13.0";
      r.benchmark = "membw";
      r.case_name = fields[f];
      r.dtype = "fp64";
      r.metric = "gbps";
      r.unit = "GB/s";
      r.value = (run < 6 ? 100 : 50) + (run % 3) * 0.01; /* a step halfway */
      ck_assert_int_eq(gb_results_put_row(&b, &r), GB_OK);
    }
    gb_results res = {0};
    ck_assert_msg(gb_results_read_mem("h.csv", b.data, b.len, &res) == GB_OK, "%s", gb_errmsg());
    gb_history h;
    ck_assert_int_eq(gb_history_build(&res, &(gb_cp_options){.min_segment = 3, .alpha = 0.01},
                                      &h),
                     GB_OK);
    gb_buf text = {0};
    ck_assert_int_eq(gb_history_format_text(&h, true, &text), GB_OK);
    gb_buf_append(&text, "", 1);
    ck_assert_msg(no_workflow_command(text.data), "field %zu:\n%s", f, text.data);
    ck_assert_msg(strstr(text.data, "change  "), "field %zu: no change line:\n%s", f, text.data);
    ck_assert_msg(!strchr(text.data, '\r') && !strchr(text.data, '\x01'), "field %zu:\n%s", f, text.data);
    /* one line for the series, one for the change, then the summary lines */
    size_t nl = 0;
    for (const char *p = text.data; (p = strchr(p, '\n')); p++) nl++;
    ck_assert_msg(nl >= 3 && nl <= 5, "field %zu: %zu lines:\n%s", f, nl, text.data);
    gb_buf_free(&text);
    gb_history_free(&h);
    gb_results_free(&res);
    gb_buf_free(&b);
  }
}
END_TEST

/* plan.csv: a provider named "=HYPERLINK(...)" in the prices file is
 * written as text ("'=..."), not a formula. */
START_TEST(test_plan_csv_formula) {
  const char *gpubench = gb_test_gpubench();
  if (!gpubench) return;
  const char *dir = gb_test_tmpdir();
  char prices[4200], csv[4200], log[4200], wl[4200];
  snprintf(prices, sizeof prices, "%s/prices.csv", dir);
  snprintf(csv, sizeof csv, "%s/plan.csv", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(wl, sizeof wl, "%s/data/workloads/training-7b.ini", GB_SOURCE_ROOT);
  const char *text =
      "provider,offering,gpu_type,gpus_per_node,price_usd_per_gpu_hour,purchase_usd_per_gpu,date,source,confidence\n"
      "\"=HYPERLINK(\"\"http://evil\"\")\",on-demand,H200-SXM-141GB,8,7.91,,2026-09-25,-cmd|' /C calc'!A0,S\n"
      "@evil,on-demand,H100-SXM-80GB,8,6.88,,2026-09-25,+src,S\n";
  ck_assert_int_eq(gb_test_write(prices, text, strlen(text)), 0);
  char *argv[] = {(char *)gpubench, "plan", wl, "--prices", prices, "--no-measured", "--budget", "1e9", "--csv", csv, NULL};
  int rc = gb_test_run(argv, log);
  char *out = gb_test_slurp(csv, NULL);
  char *lg = gb_test_slurp(log, NULL);
  ck_assert_msg(rc == 0 && out, "rc %d: %s", rc, lg ? lg : "");
  ck_assert_msg(strstr(out, "'=HYPERLINK") && strstr(out, "'@evil"), "%s", out);
  /* no field starts with = + - @ (other than a number) */
  gb_csv_table t;
  ck_assert_int_eq(gb_csv_read_mem("plan.csv", out, strlen(out), &t), GB_OK);
  for (const char *p = out; *p; p++)
    if ((p == out || p[-1] == ',' || p[-1] == '\n') && strchr("=+@", *p) && *p)
      ck_assert_msg(0, "a field starts a formula: %.30s", p);
  gb_csv_free(&t);
  free(out);
  free(lg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("escape");
  TCase *tc = tcase_create("escape");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_markdown);
  tcase_add_test(tc, test_html);
  tcase_add_test(tc, test_xml);
  tcase_add_test(tc, test_utf8);
  tcase_add_test(tc, test_csv);
  tcase_add_test(tc, test_gnuplot);
  tcase_add_test(tc, test_gate_outputs);
  tcase_add_test(tc, test_history_text);
  tcase_add_test(tc, test_plan_csv_formula);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
