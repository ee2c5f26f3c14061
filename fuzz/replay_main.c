/* replay_main: a fuzz target without libFuzzer. Runs the target's
 * LLVMFuzzerTestOneInput once on each file named on the command line, and on
 * each file of each folder named there, so that ctest replays the kept crash
 * inputs (tests/fixtures/<target>_*) and the seeds (fuzz/seeds/) with the
 * ordinary gcc build: a property that no longer holds on them fails the
 * README's test command, not only the timed fuzzing in CI. A broken property
 * stops the program (FUZZ_ASSERT traps); the name of the input it was on is
 * on standard error before it runs. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path) {
  char *buf;
  size_t n;
  if (gb_input_read(path, false, &buf, &n) != GB_OK) {
    fprintf(stderr, "%s\n", gb_errmsg());
    return -1;
  }
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
  /* an exact-size copy, so that AddressSanitizer sees a read past the end */
  uint8_t *in = malloc(n ? n : 1);
  if (!in) {
    free(buf);
    return -1;
  }
  memcpy(in, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(in, n);
  free(in);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the files of dir in name order */
static int replay_dir(const char *dir, size_t *count) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **p = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof *p);
      if (!p) {
        rc = -1;
        break;
      }
      names = p;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len))) {
      rc = -1;
      break;
    }
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      rc = replay_file(names[i]);
      if (rc == 0) (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  size_t count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      return 1;
    }
    int rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]);
    if (rc != 0) return 1;
    if (!S_ISDIR(st.st_mode)) count++;
  }
  printf("replayed %zu inputs\n", count);
  return count ? 0 : 1;
}
