/* Tests for gb_ini: lines of any length up to 64 KiB (libinih split them at
 * 200 bytes), the syntax, errors naming file:line, non-regular files, and
 * the gate configuration and workload readers on top of it. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_gate_config.h"
#include "gb_ini.h"
#include "gb_workload.h"
#include "testutil.h"

typedef struct got {
  int n;
  char sec[8][64], key[8][64], val[8][128];
  long line[8];
  int refuse_at; /* refuse the key on this line (0: none) */
} got;

static int on_kv(void *user, const char *section, const char *name, const char *value, long line) {
  got *g = user;
  if (g->refuse_at == line) return 0;
  if (g->n < 8) {
    snprintf(g->sec[g->n], sizeof g->sec[0], "%s", section);
    snprintf(g->key[g->n], sizeof g->key[0], "%s", name);
    snprintf(g->val[g->n], sizeof g->val[0], "%.127s", value);
    g->line[g->n] = line;
  }
  g->n++;
  return 1;
}

static int parse(const char *text, got *g) {
  memset(g, 0, sizeof *g);
  return gb_ini_parse_mem("t.ini", text, strlen(text), on_kv, g);
}

/* "; xxx...x key = 50" of exactly n bytes: the tail looks like a key. */
static char *long_comment(size_t n, const char *tail) {
  char *s = malloc(n + 1);
  memset(s, 'x', n);
  s[0] = ';';
  memcpy(s + n - strlen(tail), tail, strlen(tail));
  s[n] = '\0';
  return s;
}

/* Comments of 199, 200, 255 and 1023 bytes stay comments (libinih's
 * 200-byte buffer made the rest of a longer line a new line). */
START_TEST(test_long_comments) {
  static const size_t lens[] = {199, 200, 201, 255, 1023, 4096, GB_INI_MAX_LINE};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    char *c = long_comment(lens[i], " threshold_pct = 50");
    size_t n = strlen(c) + 64;
    char *text = malloc(n);
    snprintf(text, n, "[defaults]\n%s\nalpha = 0.01\n", c);
    got g;
    ck_assert_msg(parse(text, &g) == 0, "comment of %zu bytes: %s", lens[i], gb_errmsg());
    ck_assert_int_eq(g.n, 1);
    ck_assert_str_eq(g.key[0], "alpha");
    ck_assert_int_eq(g.line[0], 3);
    free(text);
    free(c);
  }
}
END_TEST

/* A value as long as the limit is read whole; one byte more is an error
 * that names file:line. */
START_TEST(test_line_limit) {
  size_t n = GB_INI_MAX_LINE;
  char *text = malloc(n + 64);
  /* "k = vvvv...": a line of exactly GB_INI_MAX_LINE bytes, CRLF-ended */
  memcpy(text, "a = 1\nk = ", 10);
  memset(text + 10, 'v', n - 4);
  strcpy(text + 6 + n, "\r\nb = 2\n");
  got g;
  ck_assert_msg(parse(text, &g) == 0, "%s", gb_errmsg());
  ck_assert_int_eq(g.n, 3);
  ck_assert_str_eq(g.key[2], "b");
  ck_assert_int_eq(g.line[2], 3);
  /* 64 KiB + 1 */
  memcpy(text, "a = 1\nk = ", 10);
  memset(text + 10, 'v', n - 3);
  strcpy(text + 7 + n, "\nb = 2\n");
  ck_assert_int_eq(parse(text, &g), GB_INI_REPORTED);
  ck_assert_str_eq(gb_errmsg(), "t.ini:2: line of 65537 bytes is longer than the 65536-byte limit");
  ck_assert_int_eq(g.n, 1); /* nothing after it */
  free(text);
}
END_TEST

START_TEST(test_syntax) {
  got g;
  ck_assert_int_eq(parse("\xEF\xBB\xBF; c\n# c\n  [ sec ] ; c\n a = 1 ; inline\nb: two words;x\n\n  c =\r\n", &g), 0);
  ck_assert_int_eq(g.n, 3);
  ck_assert_str_eq(g.sec[0], "sec");
  ck_assert_str_eq(g.key[0], "a");
  ck_assert_str_eq(g.val[0], "1");
  ck_assert_int_eq(g.line[0], 4);
  ck_assert_str_eq(g.key[1], "b");
  ck_assert_str_eq(g.val[1], "two words;x"); /* ';' without a blank before it is text */
  ck_assert_str_eq(g.key[2], "c");
  ck_assert_str_eq(g.val[2], "");
  ck_assert_int_eq(g.line[2], 7);
  /* errors: the line of the first one */
  ck_assert_int_eq(parse("a = 1\nno equals\n", &g), 2);
  ck_assert_int_eq(parse("[open\n", &g), 1);
  ck_assert_int_eq(parse("[s] junk\n", &g), 1);
  ck_assert_int_eq(parse("a = 1\n = 2\n", &g), 2);
  memset(&g, 0, sizeof g);
  g.refuse_at = 2;
  ck_assert_int_eq(gb_ini_parse_mem("t.ini", "a = 1\nb = 2\nc = 3\n", 18, on_kv, &g), 2);
  ck_assert_int_eq(g.n, 1); /* stops at the first error */
  ck_assert_int_eq(gb_ini_parse_mem("t.ini", "a = 1\n\0b = 2\n", 13, on_kv, &g), GB_INI_REPORTED);
  ck_assert_str_eq(gb_errmsg(), "t.ini:2: line holds a NUL byte");
  ck_assert_int_eq(parse("", &g), 0);
  ck_assert_int_eq(g.n, 0);
}
END_TEST

/* The gate configuration: a long comment ending in "threshold_pct = 50"
 * set the threshold to 50 under libinih (turning a FAIL into a PASS). */
START_TEST(test_gate_config_long_comment) {
  static const size_t lens[] = {199, 200, 255, 1023};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    char *c = long_comment(lens[i], " threshold_pct = 50");
    size_t n = 2 * strlen(c) + 64;
    char *text = malloc(n);
    snprintf(text, n, "[defaults]\n%s\n[membw]\n%s\nthreshold_pct = 3\n", c, c);
    gb_gate_config cfg;
    ck_assert_msg(gb_gate_config_read_mem("gate.ini", text, &cfg) == GB_OK, "%zu: %s", lens[i], gb_errmsg());
    ck_assert_msg(isnan(cfg.threshold_pct), "comment of %zu bytes set threshold_pct to %g", lens[i],
                  cfg.threshold_pct);
    ck_assert_double_eq(gb_gate_config_threshold(&cfg, "membw", "gbps", 5), 3);
    ck_assert_double_eq(gb_gate_config_threshold(&cfg, "gemm", "tflops", 5), 5);
    gb_gate_config_free(&cfg);
    free(text);
    free(c);
  }
  /* an over-long line: the error names file:line */
  char *c = long_comment(GB_INI_MAX_LINE + 1, "x");
  size_t n = strlen(c) + 32;
  char *text = malloc(n);
  snprintf(text, n, "[defaults]\n%s\n", c);
  gb_gate_config cfg;
  ck_assert_int_eq(gb_gate_config_read_mem("gate.ini", text, &cfg), GB_E_INPUT);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gate.ini:2: line of 65537 bytes"));
  free(text);
  free(c);
}
END_TEST

/* Workloads: valid comments of 199-201 bytes made plan exit 2. */
START_TEST(test_workload_long_comments) {
  static const size_t lens[] = {199, 200, 201, 255, 1023};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    char *c = long_comment(lens[i], " comment");
    size_t n = strlen(c) + 128;
    char *text = malloc(n);
    snprintf(text, n, "%s\n[workload]\ntype = training\nparams = 7e9\ntokens = 1e12\ntokens_per_step = 4e6\n", c);
    gb_workload w;
    gb_workload_init(&w);
    ck_assert_msg(gb_workload_read_mem("w.ini", text, &w) == GB_OK, "%zu: %s", lens[i], gb_errmsg());
    ck_assert_msg(gb_workload_finish(&w) == GB_OK, "%zu: %s", lens[i], gb_errmsg());
    ck_assert_double_eq(w.params, 7e9);
    free(text);
    free(c);
  }
}
END_TEST

/* Files: read whole; a FIFO, a directory or a device is refused at once
 * (a FIFO with no writer used to hang the reader forever). */
START_TEST(test_files) {
  const char *dir = gb_test_tmpdir();
  char path[4200], fifo[4200];
  snprintf(path, sizeof path, "%s/w.ini", dir);
  char *c = long_comment(5000, " x = 1");
  size_t n = strlen(c) + 32;
  char *text = malloc(n);
  snprintf(text, n, "%s\na = 1\n", c);
  ck_assert_int_eq(gb_test_write(path, text, strlen(text)), 0);
  got g;
  memset(&g, 0, sizeof g);
  ck_assert_int_eq(gb_ini_parse(path, on_kv, &g), 0);
  ck_assert_int_eq(g.n, 1);
  ck_assert_int_eq(g.line[0], 2);
  free(text);
  free(c);
  snprintf(fifo, sizeof fifo, "%s/f.ini", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  alarm(5); /* a hang fails the test instead of stalling it */
  ck_assert_int_eq(gb_ini_parse(fifo, on_kv, &g), GB_INI_REPORTED);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "f.ini: not a regular file (a FIFO"));
  ck_assert_int_eq(gb_ini_parse(dir, on_kv, &g), GB_INI_REPORTED);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "not a regular file (a directory)"));
  ck_assert_int_eq(gb_ini_parse("/dev/null", on_kv, &g), GB_INI_REPORTED);
  ck_assert_int_eq(gb_ini_parse("/nonexistent/x.ini", on_kv, &g), -1);
  ck_assert_int_eq(errno, ENOENT);
  alarm(0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ini");
  TCase *tc = tcase_create("ini");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_long_comments);
  tcase_add_test(tc, test_line_limit);
  tcase_add_test(tc, test_syntax);
  tcase_add_test(tc, test_gate_config_long_comment);
  tcase_add_test(tc, test_workload_long_comments);
  tcase_add_test(tc, test_files);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
