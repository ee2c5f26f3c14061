/* fuzz_prom: the Prometheus exporter (core/gb_prom.h) on any results file,
 * and its small parsers (the ISO 8601 time, metric names).
 *
 * Properties: no crash or sanitizer report; the exposition of a file that
 * reads is well formed line by line -- "# HELP"/"# TYPE" lines, or
 * name{label="escaped",...} value, names in [a-zA-Z_:][a-zA-Z0-9_:]*, label
 * values with no raw line feed or unescaped quote -- so that a hostile
 * results file cannot inject series into a scrape; a refused file (no rows,
 * two figures on one metric name) writes nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_prom.h"

static int name_char(char c, int first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}

/* one sample line, without its '\n' */
static void check_sample(const char *p, const char *end) {
  FUZZ_ASSERT(p < end && name_char(*p, 1));
  while (p < end && name_char(*p, 0)) p++;
  if (p < end && *p == '{') {
    p++;
    for (;;) {
      FUZZ_ASSERT(p < end && name_char(*p, 1));
      while (p < end && name_char(*p, 0)) p++;
      FUZZ_ASSERT(p + 1 < end && p[0] == '=' && p[1] == '"');
      p += 2;
      while (p < end && *p != '"') {
        if (*p == '\\') {
          FUZZ_ASSERT(p + 1 < end && (p[1] == '\\' || p[1] == '"' || p[1] == 'n'));
          p++;
        }
        p++;
      }
      FUZZ_ASSERT(p < end);
      p++;
      if (p < end && *p == ',') {
        p++;
        continue;
      }
      FUZZ_ASSERT(p < end && *p == '}');
      p++;
      break;
    }
  }
  FUZZ_ASSERT(p < end && *p == ' ');
  p++;
  FUZZ_ASSERT(p < end); /* a value */
  for (; p < end; p++) FUZZ_ASSERT(*p != ' ' && *p != '"' && *p != '{');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* the small parsers on the raw bytes */
  char *s = malloc(size + 1);
  memcpy(s, data, size);
  s[size] = '\0';
  double t;
  (void)gb_prom_parse_time(s, &t);
  char name[64];
  gb_prom_name(name, sizeof name, s);
  for (const char *p = name; *p; p++) FUZZ_ASSERT(name_char(*p, 0));
  gb_buf lv = {0};
  FUZZ_ASSERT(gb_prom_put_label_value(&lv, s) == GB_OK);
  for (size_t i = 0; i < lv.len; i++) FUZZ_ASSERT(lv.data[i] != '\n');
  gb_buf_free(&lv);
  free(s);

  gb_results res = {0};
  if (gb_results_read_mem("fuzz.csv", (const char *)data, size, &res) != GB_OK) return 0;
  gb_buf out = {0};
  gb_err e = gb_prom_export_results(&res, &out, NULL);
  /* refused input (no rows, or two figures on one metric name) leaves
   * nothing behind that could pass for an exposition */
  FUZZ_ASSERT(e == GB_OK || (e == GB_E_INPUT && out.len == 0));
  for (size_t i = 0; i < out.len;) {
    const char *line = out.data + i, *nl = memchr(line, '\n', out.len - i);
    FUZZ_ASSERT(nl); /* every line ends */
    if (line[0] == '#') FUZZ_ASSERT(strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0);
    else check_sample(line, nl);
    i = (size_t)(nl - out.data) + 1;
  }
  gb_buf_free(&out);
  gb_results_free(&res);
  return 0;
}
