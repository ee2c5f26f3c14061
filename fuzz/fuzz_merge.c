/* fuzz_merge: `gpubench merge` (core/gb_merge.h gb_merge_files) on up to
 * four node files, the parts of one input split at "----" lines, written to
 * a folder of this process.
 *
 * Properties: no crash or sanitizer report; never more rows out than in;
 * every file is merged or skipped (the counts add up); when it succeeds the
 * output reads as a results file holding exactly rows_out rows, and merging
 * that output alone gives it back byte for byte (a merge is idempotent). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_split.h"
#include "fuzz_util.h"
#include "gb_merge.h"
#include "gb_results.h"

static char g_dir[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(g_dir, sizeof g_dir, "/tmp/fuzz_merge.XXXXXX");
  if (!mkdtemp(g_dir)) abort();
  return 0;
}

static void put(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (len && fwrite(data, 1, len, f) != len) abort();
  if (fclose(f) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *part[4], paths[4][96], again[96];
  size_t len[4], n = fuzz_split(text, part, len, 4);
  const char *pp[4];
  for (size_t i = 0; i < n; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/node%zu.csv", g_dir, i);
    put(paths[i], part[i], len[i]);
    pp[i] = paths[i];
  }
  gb_buf out = {0};
  gb_merge_stats st;
  if (gb_merge_files(pp, n, NULL, &out, &st) == GB_OK) {
    FUZZ_ASSERT(st.rows_out <= st.rows_in);
    FUZZ_ASSERT(st.skipped <= n && st.unreadable <= st.skipped);
    gb_results res = {0};
    FUZZ_ASSERT(gb_results_read_mem("merged.csv", out.data ? out.data : "", out.len, &res) == GB_OK);
    FUZZ_ASSERT(res.nrows == st.rows_out);
    gb_results_free(&res);
    snprintf(again, sizeof again, "%s/merged.csv", g_dir);
    put(again, out.data ? out.data : "", out.len);
    const char *one[] = {again};
    gb_buf out2 = {0};
    gb_merge_stats st2;
    FUZZ_ASSERT(gb_merge_files(one, 1, st.campaign, &out2, &st2) == GB_OK);
    FUZZ_ASSERT(out2.len == out.len && (out.len == 0 || memcmp(out.data, out2.data, out.len) == 0));
    gb_merge_stats_free(&st2);
    gb_buf_free(&out2);
  }
  gb_merge_stats_free(&st);
  gb_buf_free(&out);
  free(text);
  return 0;
}
