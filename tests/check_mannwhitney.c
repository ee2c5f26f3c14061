/* Tests for gb_mannwhitney: exact p-values against Mann and Whitney's
 * published table, hand-enumerated tied cases, a brute-force cross-check of
 * the tie-aware dynamic programme, and the normal approximation. */
#include <math.h>
#include <stdlib.h>

#include "gb_mannwhitney.h"
#include "testutil.h"

/* Mann, H. B. and Whitney, D. R. (1947), "On a test of whether one of two
 * random variables is stochastically larger than the other", Ann. Math.
 * Statist. 18(1), Table I: P(U <= u) for n1 = n2 = 3 and n1 = n2 = 4 (three
 * decimals as printed). Without ties the distribution is symmetric, so the
 * two-sided p of an observed U = u below the mean n1 n2 / 2 is 2 P(U <= u). */
static const double k_table_n3[] = {0.050, 0.100, 0.200, 0.350, 0.500};
static const double k_table_n4[] = {0.014, 0.029, 0.057, 0.100, 0.171, 0.243, 0.343, 0.443, 0.557};

/* Builds x, y of size n each with U_x = u exactly: y = 1..n; x takes values
 * that each sit above a chosen number of y values (no ties: half-integers
 * plus a distinct small offset per x). */
static void make_u(int n, int u, double *x, double *y) {
  for (int j = 0; j < n; j++) y[j] = j + 1;
  for (int i = 0; i < n; i++) {
    int above = u >= n ? n : u; /* x_i beats `above` y values */
    u -= above;
    x[i] = above + 0.5 + 0.01 * i;
  }
}

START_TEST(test_table_n3) {
  double x[3], y[3];
  for (int u = 0; u <= 4; u++) {
    make_u(3, u, x, y);
    gb_mw_result r;
    ck_assert_int_eq(gb_mann_whitney(x, 3, y, 3, &r), GB_OK);
    ck_assert(r.exact);
    ck_assert(!r.ties);
    ck_assert_double_eq_tol(r.u_x, u, 1e-12);
    double expect = 2 * k_table_n3[u] > 1 ? 1 : 2 * k_table_n3[u];
    ck_assert_double_eq_tol(r.p_value, expect, 1e-3 + 1e-12);
  }
}
END_TEST

START_TEST(test_table_n4) {
  double x[4], y[4];
  for (int u = 0; u <= 8; u++) {
    make_u(4, u, x, y);
    gb_mw_result r;
    ck_assert_int_eq(gb_mann_whitney(x, 4, y, 4, &r), GB_OK);
    ck_assert_double_eq_tol(r.u_x, u, 1e-12);
    double expect = 2 * k_table_n4[u] > 1 ? 1 : 2 * k_table_n4[u];
    /* the table rounds to 3 decimals; doubled, 1e-3 */
    ck_assert_double_eq_tol(r.p_value, expect, 1e-3 + 1e-12);
  }
  /* exact fractions: P(U <= 0) = 1 / C(8,4) = 1/70, two-sided 2/70 */
  make_u(4, 0, x, y);
  gb_mw_result r;
  gb_mann_whitney(x, 4, y, 4, &r);
  ck_assert_double_eq_tol(r.p_value, 2.0 / 70.0, 1e-15);
}
END_TEST

/* n1 = n2 = 6, the gate's minimum: P(U <= u) counts partitions of u into at
 * most 6 parts of at most 6, over C(12,6) = 924. u <= 2: 1 + 1 + 2 = 4, so
 * two-sided p = 8/924 = 0.00866 (< 0.01); u <= 3: 4 + 3 = 7, p = 14/924 =
 * 0.01515; u <= 5: 7 + 5 + 7 = 19, p = 38/924 = 0.0411 (< 0.05); u <= 6: 30,
 * p = 60/924 = 0.0649. These agree with the published critical values of U
 * for n1 = n2 = 6: 2 at two-sided 0.01 and 5 at two-sided 0.05. */
START_TEST(test_n6_critical_values) {
  static const struct { int u; double p; } k[] = {{2, 8.0 / 924}, {3, 14.0 / 924}, {5, 38.0 / 924}, {6, 60.0 / 924}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    double x[6], y[6];
    make_u(6, k[i].u, x, y);
    gb_mw_result r;
    ck_assert_int_eq(gb_mann_whitney(x, 6, y, 6, &r), GB_OK);
    ck_assert_double_eq_tol(r.p_value, k[i].p, 1e-15);
  }
}
END_TEST

/* Ties, enumerated by hand.
 * (a) x = {1, 2}, y = {2, 3}. Pooled 1 2 2 3, midranks 1, 2.5, 2.5, 4.
 *     W_x = 1 + 2.5 = 3.5, U_x = 3.5 - 3 = 0.5. The C(4,2) = 6 rank pairs
 *     sum to 3.5, 3.5, 5, 5, 6.5, 6.5; E W = 2 * 5 / 2 = 5; |W - 5| >= 1.5
 *     for 4 of 6: p = 2/3.
 * (b) x = {1, 1, 2}, y = {2, 3, 3}. Midranks 1.5, 1.5, 3.5, 3.5, 5.5, 5.5.
 *     W_x = 6.5, E W = 3 * 7 / 2 = 10.5, |d| = 4. Of the C(6,3) = 20 triples
 *     only {1.5, 1.5, 3.5} (2 ways, W = 6.5) and {5.5, 5.5, 3.5} (2 ways,
 *     W = 14.5) are 4 or more from 10.5 (next: 1.5 + 1.5 + 5.5 = 8.5): p = 4/20.
 *     U_x = 6.5 - 6 = 0.5.
 * (c) every value equal: p = 1. */
START_TEST(test_ties_by_hand) {
  gb_mw_result r;
  double xa[] = {1, 2}, ya[] = {2, 3};
  ck_assert_int_eq(gb_mann_whitney(xa, 2, ya, 2, &r), GB_OK);
  ck_assert(r.ties);
  ck_assert_double_eq_tol(r.u_x, 0.5, 1e-12);
  ck_assert_double_eq_tol(r.u_y, 3.5, 1e-12);
  ck_assert_double_eq_tol(r.p_value, 2.0 / 3.0, 1e-15);
  double xb[] = {1, 1, 2}, yb[] = {2, 3, 3};
  ck_assert_int_eq(gb_mann_whitney(xb, 3, yb, 3, &r), GB_OK);
  ck_assert_double_eq_tol(r.u_x, 0.5, 1e-12);
  ck_assert_double_eq_tol(r.p_value, 0.2, 1e-15);
  double xc[] = {5, 5, 5}, yc[] = {5, 5, 5, 5};
  ck_assert_int_eq(gb_mann_whitney(xc, 3, yc, 4, &r), GB_OK);
  ck_assert_double_eq_tol(r.p_value, 1.0, 1e-15);
}
END_TEST

/* Cross-check of the dynamic programme: enumerate every nx-subset of the
 * pooled midranks directly (bit masks) for tied samples. */
static double brute_p(const double *x, int nx, const double *y, int ny) {
  int n = nx + ny;
  double v[16], rank[16];
  for (int i = 0; i < n; i++) v[i] = i < nx ? x[i] : y[i - nx];
  for (int i = 0; i < n; i++) { /* midrank = 1 + #less + (#equal - 1) / 2 */
    int less = 0, eq = 0;
    for (int j = 0; j < n; j++) less += v[j] < v[i], eq += v[j] == v[i];
    rank[i] = 1 + less + (eq - 1) / 2.0;
  }
  double w = 0;
  for (int i = 0; i < nx; i++) w += rank[i];
  double e = nx * (n + 1) / 2.0, d = fabs(w - e), tail = 0, total = 0;
  for (unsigned m = 0; m < (1u << n); m++) {
    if (__builtin_popcount(m) != nx) continue;
    double s = 0;
    for (int i = 0; i < n; i++)
      if (m & (1u << i)) s += rank[i];
    total++;
    if (fabs(s - e) >= d - 1e-9) tail++;
  }
  return tail / total;
}

START_TEST(test_exact_vs_brute_force) {
  srand(7);
  for (int trial = 0; trial < 40; trial++) {
    int nx = 2 + rand() % 6, ny = 2 + rand() % 6;
    double x[8], y[8];
    for (int i = 0; i < nx; i++) x[i] = rand() % 5; /* few distinct values: many ties */
    for (int i = 0; i < ny; i++) y[i] = rand() % 5 + (trial % 3);
    gb_mw_result r;
    ck_assert_int_eq(gb_mann_whitney(x, (size_t)nx, y, (size_t)ny, &r), GB_OK);
    ck_assert(r.exact);
    ck_assert_double_eq_tol(r.p_value, brute_p(x, nx, y, ny), 1e-12);
  }
}
END_TEST

/* Normal approximation above 20 per side.
 * x = 0..24, y = 25..49 (25 each, no ties): U_x = 0, mean 312.5,
 * var = 25 * 25 * 51 / 12 = 2656.25, z = (312.5 - 0.5) / 51.5388 = 6.05369,
 * p = erfc(z / sqrt 2) = 1.41566e-9.
 * With ties: x = 21 x {1} + 4 x {2}, y = 4 x {1} + 21 x {2}: two tie groups
 * of 25: sum(t^3 - t) = 2 * (15625 - 25) = 31200; N = 50;
 * var = 625 / 12 * (51 - 31200 / 2450) = 52.0833 * 38.2653 = 1992.99;
 * ranks: 1s get 13, 2s get 38; W_x = 21 * 13 + 4 * 38 = 425, U_x = 425 - 325
 * = 100; z = (212.5 - 0.5) / 44.6429 = 4.74880; p = erfc(z / sqrt 2) = 2.0463e-6. */
START_TEST(test_normal_approximation) {
  double x[25], y[25];
  for (int i = 0; i < 25; i++) x[i] = i, y[i] = 25 + i;
  gb_mw_result r;
  ck_assert_int_eq(gb_mann_whitney(x, 25, y, 25, &r), GB_OK);
  ck_assert(!r.exact);
  ck_assert_double_eq_tol(r.u_x, 0, 1e-12);
  ck_assert_double_eq_tol(r.p_value, erfc((312.5 - 0.5) / sqrt(2656.25) / sqrt(2.0)), 1e-20);
  ck_assert_double_eq_tol(r.p_value, 1.41566e-9, 1e-13);
  for (int i = 0; i < 25; i++) x[i] = i < 21 ? 1 : 2, y[i] = i < 4 ? 1 : 2;
  ck_assert_int_eq(gb_mann_whitney(x, 25, y, 25, &r), GB_OK);
  ck_assert(r.ties);
  ck_assert_double_eq_tol(r.u_x, 100, 1e-12);
  double var = 625.0 / 12.0 * (51.0 - 31200.0 / 2450.0);
  ck_assert_double_eq_tol(r.p_value, erfc((212.5 - 0.5) / sqrt(var) / sqrt(2.0)), 1e-15);
  ck_assert_double_eq_tol(r.p_value, 2.0463e-6, 1e-9);
}
END_TEST

START_TEST(test_errors) {
  double x[] = {1, NAN}, y[] = {1};
  gb_mw_result r;
  ck_assert_int_eq(gb_mann_whitney(x, 0, y, 1, &r), GB_E_INPUT);
  ck_assert_int_eq(gb_mann_whitney(x, 2, y, 1, &r), GB_E_INPUT);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mannwhitney");
  TCase *tc = tcase_create("exact");
  tcase_add_test(tc, test_table_n3);
  tcase_add_test(tc, test_table_n4);
  tcase_add_test(tc, test_n6_critical_values);
  tcase_add_test(tc, test_ties_by_hand);
  tcase_add_test(tc, test_exact_vs_brute_force);
  suite_add_tcase(s, tc);
  tc = tcase_create("normal");
  tcase_add_test(tc, test_normal_approximation);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
