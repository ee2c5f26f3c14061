/* check_noise_index: the floors' lookups through the index that
 * gb_noise_read builds (gate/gb_noise_index.c) return the very row the
 * former scan of every row returns (the table copied with idx NULL scans):
 * for a row of every figure that data/noise/floors.csv names and for every
 * row of an A/A campaign, each under its own GPU type, "*" and a GPU type
 * the file lacks; and on a table with the fallbacks the shipped one has
 * no use of: rows of gpu_type "*" (the last one is the fallback) and
 * repeated rows (the first one wins). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_noise.h"
#include "gb_results.h"
#include "gb_runinfo.h"
#include "testutil.h"

enum { LOOKUPS = 7 };

static const gb_noise_floor *lookup(const gb_noise_table *t, const gb_row *r, int which) {
  switch (which) {
    case 0: return gb_noise_lookup(t, r);
    case 1: return gb_noise_lookup_same_gpu(t, r);
    case 2: return gb_noise_lookup_figure(t, r);
    case 3: return gb_noise_lookup_figure_same_gpu(t, r);
    case 4: return gb_noise_lookup_cards(t, r);
    case 5: return gb_noise_lookup_peak(t, r, false);
    default: return gb_noise_lookup_peak(t, r, true);
  }
}

/* Every lookup of r (under its GPU type, "*" and one the table lacks)
 * through t's index and through a scan; counts the floors found. */
static void check_row(const gb_noise_table *t, gb_row r, size_t *found) {
  gb_noise_table scan = *t;
  scan.idx = NULL;
  ck_assert_ptr_nonnull(t->idx);
  const char *gpus[3] = {r.gpu_type, "*", "NO-SUCH-GPU"};
  for (int g = 0; g < 3; g++) {
    r.gpu_type = gpus[g];
    for (int w = 0; w < LOOKUPS; w++) {
      const gb_noise_floor *a = lookup(t, &r, w), *b = lookup(&scan, &r, w);
      char fig[512];
      gb_noise_figure(&r, fig, sizeof fig);
      ck_assert_msg(a == b, "lookup %d of %s on %s: row %td indexed, %td scanned", w, fig, r.gpu_type,
                    a ? a - t->v : -1, b ? b - t->v : -1);
      found[w] += a != NULL;
    }
  }
}

/* A row of the figure f->figure names ("gemm/fp64 fp64 m=4096 n=4096
 * k=14336 tflops x1"), its other fields those of tmpl; strings in buf. */
static gb_row row_of_figure(const gb_noise_floor *f, const gb_row *tmpl, char *buf, size_t n) {
  gb_row r = *tmpl;
  snprintf(buf, n, "%s", f->figure);
  char *tok[16];
  int nt = 0;
  for (char *s = strtok(buf, " "); s && nt < 16; s = strtok(NULL, " ")) tok[nt++] = s;
  ck_assert_int_ge(nt, 3);
  char *slash = strchr(tok[0], '/');
  ck_assert_ptr_nonnull(slash);
  *slash = '\0';
  r.benchmark = tok[0];
  r.case_name = slash + 1;
  r.dtype = "";
  r.m = r.n = r.k = r.bytes = GB_NA;
  r.metric = tok[nt - 2];
  r.gpu_count = atoi(tok[nt - 1] + 1);
  r.gpu_type = f->gpu_type;
  for (int i = 1; i < nt - 2; i++) {
    char *eq = strchr(tok[i], '=');
    if (!eq) {
      r.dtype = tok[i];
      continue;
    }
    *eq = '\0';
    int64_t v = strtoll(eq + 1, NULL, 10);
    if (!strcmp(tok[i], "m")) r.m = v;
    else if (!strcmp(tok[i], "n")) r.n = v;
    else if (!strcmp(tok[i], "k")) r.k = v;
    else r.bytes = v;
  }
  return r;
}

static void check_table(const gb_noise_table *t, const gb_results *aa, size_t *found) {
  for (size_t i = 0; i < t->n; i++) {
    if (!t->v[i].figure[0]) continue;
    char buf[512];
    gb_row r = row_of_figure(&t->v[i], &aa->rows[0], buf, sizeof buf);
    char fig[512];
    gb_noise_figure(&r, fig, sizeof fig);
    ck_assert_str_eq(fig, t->v[i].figure); /* the row is the figure's */
    check_row(t, r, found);
  }
  for (size_t i = 0; i < aa->nrows; i++) check_row(t, aa->rows[i], found);
}

static void read_shipped(char **text, size_t *len) {
  char path[4200];
  snprintf(path, sizeof path, "%s/noise/floors.csv", gb_data_dir());
  *text = gb_test_slurp(path, len);
  ck_assert_ptr_nonnull(*text);
}

START_TEST(test_index_equals_scan_shipped) {
  char *text;
  size_t len, found[LOOKUPS] = {0};
  read_shipped(&text, &len);
  gb_noise_table t;
  gb_results aa = {0};
  ck_assert_msg(gb_noise_read_mem("floors.csv", text, len, &t) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_results_read(gb_fixture("aa/aa-quick-1.csv"), &aa) == GB_OK, "%s", gb_errmsg());
  check_table(&t, &aa, found);
  for (int w = 0; w < LOOKUPS; w++) ck_assert_msg(found[w] > 0, "lookup %d never found a floor", w);
  gb_results_free(&aa);
  gb_noise_free(&t);
  free(text);
}
END_TEST

/* The shipped rows, then each again under "*" twice
 * and once more as they are: every lookup's first match and "*" fallback. */
START_TEST(test_index_equals_scan_fallbacks) {
  char *text;
  size_t len, found[LOOKUPS] = {0};
  read_shipped(&text, &len);
  gb_buf b = {0};
  ck_assert_int_eq(gb_buf_puts(&b, text), GB_OK);
  const char *body = strchr(text, '\n') + 1;
  for (int copy = 0; copy < 3; copy++)
    for (const char *p = body; *p;) {
      const char *nl = strchr(p, '\n');
      size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
      const char *rest = copy < 2 ? strchr(p, ',') : p; /* "*" in place of the gpu_type */
      ck_assert_int_eq(gb_buf_printf(&b, "%s%.*s", copy < 2 ? "*" : "", (int)(n - (size_t)(rest - p)), rest), GB_OK);
      p += n;
    }
  gb_noise_table t;
  gb_results aa = {0};
  ck_assert_msg(gb_noise_read_mem("floors.csv", b.data, b.len, &t) == GB_OK, "%s", gb_errmsg());
  ck_assert_msg(gb_results_read(gb_fixture("aa/aa-quick-1.csv"), &aa) == GB_OK, "%s", gb_errmsg());
  check_table(&t, &aa, found);
  for (int w = 0; w < LOOKUPS; w++) ck_assert_msg(found[w] > 0, "lookup %d never found a floor", w);
  gb_results_free(&aa);
  gb_noise_free(&t);
  gb_buf_free(&b);
  free(text);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("noise_index");
  TCase *tc = tcase_create("index");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_index_equals_scan_shipped);
  tcase_add_test(tc, test_index_equals_scan_fallbacks);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
