/* testutil: suite runner, fixtures and temporary files for the tests. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gb_test_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

const char *gb_fixture(const char *name) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", GB_FIXTURES, name);
  return path;
}

const char *gb_test_tmpdir(void) {
  static char dir[1024];
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/gbtest.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) return NULL;
  return dir;
}

int gb_test_write(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, len, f);
  int rc = fclose(f);
  return (w == len && rc == 0) ? 0 : -1;
}

char *gb_test_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    if (r == 0) break;
    n += r;
  }
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}
