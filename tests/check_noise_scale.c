/* check_noise_scale: `gpubench noise` over more cards than any fixed buffer
 * holds. The card-to-card floor (scope "cards") counted only the first 64
 * cards (a fixed array of card means) and silently dropped the rest: a
 * fleet of 100 cards got the spread of 64. Here 100 cards, 3 runs each, the
 * last 36 cards offset by +-3%: the floor must count all 100 and equal the
 * spread of all 100 card means, computed here independently. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_noise.h"
#include "gb_pairs.h"
#include "gb_results.h"
#include "gb_stats.h"
#include "testutil.h"

enum { CARDS = 100, RUNS = 3 };

static double offset(int c) { return c < 64 ? 0.001 * (c % 5 - 2) : (c % 2 ? 0.03 : -0.03); }
static double noise(int r) { return 0.002 * (r - 1); }

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The class's robust sigma: median |ln x_i - ln x_j| over every pair of runs / (0.6745 sqrt 2). */
static double class_robust(void) {
  enum { N = CARDS * RUNS };
  static double l[N], d[N * (N - 1) / 2];
  for (int c = 0; c < CARDS; c++)
    for (int r = 0; r < RUNS; r++) l[c * RUNS + r] = offset(c) + noise(r);
  size_t n = 0;
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++) d[n++] = fabs(l[i] - l[j]);
  qsort(d, n, sizeof *d, cmp_d);
  double med = n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2]);
  return med / (0.6745 * sqrt(2.0));
}

static void build(gb_results *res) {
  gb_buf b = {0};
  gb_results_put_header(&b);
  for (int c = 0; c < CARDS; c++)
    for (int r = 0; r < RUNS; r++) {
      char run[32], uuid[48];
      snprintf(run, sizeof run, "card%03d-run%d", c, r);
      snprintf(uuid, sizeof uuid, "GPU-%08d-0000-0000-0000-000000000000", c);
      gb_row row = gb_row_empty();
      row.run_id = run;
      row.timestamp = "2026-12-05T00:00:00Z";
      row.gpu_type = "H200-SXM-141GB";
      row.gpu_uuid = uuid;
      row.benchmark = "membw";
      row.case_name = "triad";
      row.dtype = "fp64";
      row.bytes = 1LL << 30;
      row.metric = "gbps";
      row.unit = "GB/s";
      row.value = 4000.0 * exp(offset(c) + noise(r));
      gb_results_put_row(&b, &row);
    }
  ck_assert_int_eq(gb_results_read_mem("cards.csv", b.data, b.len, res), GB_OK);
  gb_buf_free(&b);
}

START_TEST(test_cards_floor_counts_every_card) {
  gb_results res = {0};
  build(&res);
  gb_noise_table t;
  ck_assert_msg(gb_noise_measure(&res, &t) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(t.runs, CARDS * RUNS);
  const gb_noise_floor *cards = NULL;
  for (size_t i = 0; i < t.n; i++)
    if (t.v[i].cards) cards = &t.v[i];
  ck_assert_ptr_nonnull(cards);
  ck_assert_uint_eq(cards->figures, CARDS);
  ck_assert_uint_eq(cards->pairs, (size_t)CARDS * (CARDS - 1) / 2);
  /* the cards' mean ln values: the runs' noise averages out, the offsets stay */
  double mean = 0, ss = 0;
  for (int c = 0; c < CARDS; c++) mean += offset(c) / CARDS;
  for (int c = 0; c < CARDS; c++) ss += (offset(c) - mean) * (offset(c) - mean);
  double s = sqrt(ss / (CARDS - 1)), c0 = class_robust(), df = CARDS - 1;
  double want = GB_NOISE_SAFETY * sqrt((GB_NOISE_NU0 * c0 * c0 + df * s * s) / (GB_NOISE_NU0 + df));
  ck_assert_msg(fabs(cards->sigma / want - 1) < 1e-9, "cards sigma %.9g, want %.9g (all %d cards)", cards->sigma,
                want, CARDS);
  /* 64 cards' spread would be about a third of it */
  ck_assert_double_gt(cards->sigma, 0.03);
  gb_noise_free(&t);
  gb_results_free(&res);
}
END_TEST

/* gb_pairs finds the same order statistics as listing every pair: groups
 * of 0 to 40 values with ties, every k, and the quantiles noise writes. */
START_TEST(test_pairs_equal_listing) {
  static double all[64 * 40 * 39 / 2];
  gb_pairs p = {0};
  size_t n = 0;
  unsigned seed = 12345;
  for (int g = 0; g < 64; g++) {
    double x[40];
    int m = g % 41;
    for (int i = 0; i < m; i++) {
      seed = seed * 1103515245u + 12345u;
      x[i] = log(1000.0 + (double)((seed >> 16) % 200) / 7.0); /* ties: 200 levels */
    }
    ck_assert_int_eq(gb_pairs_add(&p, x, (size_t)m), GB_OK);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        double a = x[i] < x[j] ? x[i] : x[j], b = x[i] < x[j] ? x[j] : x[i];
        if (i < j) all[n++] = b - a;
      }
  }
  ck_assert_uint_eq(p.npairs, n);
  qsort(all, n, sizeof *all, cmp_d);
  for (size_t k = 0; k < n; k++) ck_assert_msg(gb_pairs_kth(&p, k) == all[k], "k %zu", k);
  ck_assert(isnan(gb_pairs_kth(&p, n)));
  const double q[] = {0, 0.05, 0.5, 0.95, 0.99, 1};
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
    ck_assert(gb_pairs_quantile(&p, q[i]) == gb_quantile(all, n, q[i]));
  ck_assert(p.max == all[n - 1]);
  gb_pairs_free(&p);
  gb_pairs_free(&p); /* freed twice: a no-op */
  ck_assert(isnan(gb_pairs_quantile(&p, 0.5)));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("noise_scale");
  TCase *tc = tcase_create("scale");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_cards_floor_counts_every_card);
  tcase_add_test(tc, test_pairs_equal_listing);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
